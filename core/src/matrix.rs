//! The context x concurrency matrix as the harness runs it
//! (docs/reference/harness.md): per cell, how many requests the engine
//! runs at once and the status the harness reports.

use crate::allocator::{admit, Admission, RunningLimit};
use crate::error::Result;
use crate::harness::Workload;
use crate::scenario::{Capacity, Plan};
use crate::timing::{decode_cell, prefill_row, DecodeTiming, TimingParams, Work};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Prefill,
    Decode,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Prefill => "prefill",
            Phase::Decode => "decode",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// All requests ran at once.
    Valid,
    /// Run, but the engine could not run all of them at once.
    Queued,
    /// Not run: the harness judged it beyond the server's KV cache.
    OverCapacity,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Valid => "valid",
            Status::Queued => "queued",
            Status::OverCapacity => "over_capacity",
        }
    }

    /// The status in words, as tables, the grid and the legends show it.
    pub fn word(self) -> &'static str {
        match self {
            Status::Valid => "valid",
            Status::Queued => "queued",
            Status::OverCapacity => "over capacity",
        }
    }

    /// A symbol for the status, so a cell reads without its colour.
    pub fn symbol(self) -> &'static str {
        match self {
            Status::Valid => "\u{2713}",
            Status::Queued => "\u{25f7}",
            Status::OverCapacity => "\u{2715}",
        }
    }

    /// What the status means on a grid whose requests ask for `max_tokens`
    /// output tokens from a KV cache of `kv_cache_tokens`: the legend of the
    /// CLI's matrix and of the page's grid.
    pub fn meaning(self, max_tokens: u64, kv_cache_tokens: u64) -> String {
        let (out, kv) = (
            crate::breakdown::grouped(max_tokens),
            crate::breakdown::grouped(kv_cache_tokens),
        );
        match self {
            Status::Valid => "all requests run at once".into(),
            Status::Queued => format!(
                "the KV cache ({kv} tokens) cannot hold every request's prompt plus {out} output tokens at once, so some wait"
            ),
            Status::OverCapacity => format!(
                "skipped by the harness rule C x (context + max_tokens {out}) > KV cache {kv} tokens (context 0 exempt up to max_num_seqs)"
            ),
        }
    }

    /// The heat map's colour of a decode cell with this status and
    /// `total_tok_s` out of the grid's largest `max_total_tok_s`, as RGB:
    /// light to dark green by throughput, amber when some requests queue,
    /// grey when the cell is not run. The CLI's SVG and the page's grid
    /// both paint with it.
    pub fn heat_rgb(self, total_tok_s: Option<f64>, max_total_tok_s: f64) -> (u8, u8, u8) {
        let Some(t) = total_tok_s.filter(|_| self != Status::OverCapacity) else {
            return (225, 225, 225);
        };
        let x = (t / max_total_tok_s.max(1e-9)).clamp(0.0, 1.0);
        let ch = |v: f64| crate::units::saturating_u64(v.clamp(0.0, 255.0).round());
        let ch = |v: f64| u8::try_from(ch(v)).unwrap_or(u8::MAX);
        if self == Status::Queued {
            (245, ch(200.0 - 60.0 * x), 90)
        } else {
            (
                ch(235.0 - 150.0 * x),
                ch(245.0 - 85.0 * x),
                ch(235.0 - 150.0 * x),
            )
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        match text {
            "valid" => Some(Status::Valid),
            "queued" => Some(Status::Queued),
            "over_capacity" => Some(Status::OverCapacity),
            _ => None,
        }
    }
}

/// One cell of the matrix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub phase: Phase,
    pub context_tokens: u64,
    pub concurrency: u64,
    pub status: Status,
    /// Completion tokens per second over the window, all requests; for a
    /// prefill row, prompt tokens per second.
    pub total_tok_s: Option<f64>,
    /// Median over requests of 1 / their time between tokens.
    pub per_request_tok_s: Option<f64>,
    /// Median time to first token when every prompt is prefilled whole (a
    /// prefill row's scout; a decode cell whose requests send their own
    /// prompts).
    pub ttft_cold_ms: Option<f64>,
    /// Median time to first token of a decode cell whose prompt the prefix
    /// cache already holds (the harness's, after its scout): only the tail
    /// past the last cached block is computed. None for prefill rows and
    /// without prefix caching.
    pub ttft_cached_ms: Option<f64>,
    /// Median time between tokens.
    pub tbt_ms: Option<f64>,
    /// Requests running at once, averaged over the window (absent when not run).
    pub avg_active_requests: Option<f64>,
    /// Output tokens counted in the window.
    pub output_tokens: Option<f64>,
    pub measured_s: Option<f64>,
    /// Prompt tokens the server sees (the harness overshoots the nominal context).
    pub prompt_tokens: u64,
    /// Requests the engine runs at once (0 when the cell is not run).
    pub running_requests: u64,
    /// Requests the engine would run at once whether or not the harness
    /// runs the cell: its own verdict beside the harness's rule.
    pub engine_running_requests: u64,
    pub limit: RunningLimit,
    /// The harness's test: `concurrency * (context + max_tokens)` tokens...
    pub harness_tokens_needed: u64,
    /// ...against the server's logged KV cache size in tokens.
    pub harness_budget_tokens: u64,
    pub blocks_per_request: u64,
    pub shared_blocks: u64,
    /// Blocks all `concurrency` requests would hold at once.
    pub blocks_needed: u64,
    pub usable_blocks: u64,
    /// The cross-validated error bands of this cell's timing figures, from
    /// its workload regime (absent when it is not run or the calibration has
    /// no cross-validated fit).
    pub error_band: Option<crate::scenario::CellBands>,
}

impl Cell {
    /// The TTFT the harness measures: a prefill row's cold one; a decode
    /// cell's with the prompt cached by the scout (cold without prefix
    /// caching, where nothing is cached).
    pub fn harness_ttft_ms(&self) -> Option<f64> {
        self.ttft_seen(Workload::Harness).map(|(ms, _)| ms)
    }

    /// The TTFT requests see on `workload`, and its name ("cached" or
    /// "cold"): the harness's prompts are cached past the scout, distinct
    /// ones are not.
    pub fn ttft_seen(&self, workload: Workload) -> Option<(f64, &'static str)> {
        let cold = self.ttft_cold_ms.map(|ms| (ms, "cold"));
        match workload {
            Workload::Harness => self.ttft_cached_ms.map(|ms| (ms, "cached")).or(cold),
            Workload::Distinct => cold,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Matrix {
    pub scenario: String,
    /// How the cells' requests relate (what the statuses and TTFTs assume).
    pub workload: Workload,
    /// The calibration the timing figures use (`none`: first principles).
    pub calibration: String,
    /// How far off its timing figures are on runs it was not fitted on.
    pub error_bands: crate::scenario::ErrorBands,
    pub cells: Vec<Cell>,
}

/// A cell's capacity verdict (see [`Predictor::verdict`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub prompt_tokens: u64,
    pub admission: Admission,
    pub harness_tokens_needed: u64,
    pub harness_budget_tokens: u64,
    /// Whether the harness would run the cell (not over capacity).
    pub harness_runs: bool,
    pub status: Status,
}

impl Verdict {
    /// All requests run at once and the harness runs the cell.
    pub fn all_run(&self, concurrency: u64) -> bool {
        self.harness_runs && self.admission.running >= concurrency
    }
}

/// Everything needed to predict any cell of a plan.
#[derive(Debug)]
pub struct Predictor<'a> {
    pub plan: &'a Plan,
    pub capacity: &'a Capacity,
    pub work: Work,
    pub params: TimingParams,
    /// The workload the cells assume: the plan's unless
    /// [`Predictor::with_workload`] asks another.
    pub workload: Workload,
}

impl<'a> Predictor<'a> {
    pub fn new(plan: &'a Plan, capacity: &'a Capacity, params: TimingParams) -> Result<Self> {
        if let Some(e) = capacity.startup_error() {
            return Err(e);
        }
        let work = Work::of_plan(plan, capacity);
        Ok(Predictor {
            plan,
            capacity,
            work,
            params,
            workload: plan.harness.workload,
        })
    }

    /// The same predictor with other timing parameters.
    pub fn with_params(&self, params: TimingParams) -> Predictor<'a> {
        Predictor {
            plan: self.plan,
            capacity: self.capacity,
            work: self.work.clone(),
            params,
            workload: self.workload,
        }
    }

    /// The same predictor answering for another workload.
    pub fn with_workload(&self, workload: Workload) -> Predictor<'a> {
        Predictor {
            workload,
            ..self.with_params(self.params)
        }
    }

    /// A cell's capacity verdict without its timing: how many requests the
    /// engine runs and what the harness decides. Cheap; the solvers scan it.
    pub fn verdict(&self, phase: Phase, ctx: u64, c: u64) -> Verdict {
        let plan = self.plan;
        let layout = &self.capacity.layout;
        let pool = &self.capacity.pool;
        let h = &plan.harness;
        let prompt = h.prompt_tokens(ctx);
        // The prefill scout asks for one output token; decode cells for max_tokens.
        let out_tokens = match phase {
            Phase::Prefill => 1,
            Phase::Decode => h.max_tokens,
        };
        // With data parallelism vLLM's load balancer spreads the cell's
        // requests over the replicas (`DPLBAsyncMPClient`, fewest waiting
        // and running first): `c / dp` each, the first `c % dp` one more;
        // each replica admits its share into its own KV cache and
        // `max_num_seqs`. The block figures are the busiest replica's.
        let dp = plan.engine.data_parallel_size.max(1);
        let share = c.div_ceil(dp);
        let admit_share = |c: u64| match self.workload {
            // Steady state right after admission: the prompt plus the first
            // token. Decode cells' prompts were cached by the scout; the
            // scout's own cold prefill (the prefill rows) finds nothing cached.
            Workload::Harness => {
                let cached = phase == Phase::Decode && ctx > 0;
                admit(layout, pool, &plan.engine, prompt, prompt + 1, c, cached)
            }
            // Separate prompts share no block, and all C run at once only
            // while each can hold its prompt and its whole output: past that
            // the scheduler preempts some (vllm/v1/core/sched/scheduler.py).
            Workload::Distinct => admit(
                layout,
                pool,
                &plan.engine,
                prompt,
                prompt.saturating_add(out_tokens),
                c,
                false,
            ),
        };
        let admission = replicas_admit(dp, c, admit_share);
        // The harness compares the cell's tokens with the one KV cache size
        // the server logs, a replica's: with replicas, a replica's share.
        let needed = share.saturating_mul(ctx + out_tokens);
        let budget = pool.kv_cache_tokens;
        // Harness rule: skip when C * (context + max_tokens) exceeds the
        // server's KV cache tokens, except context 0 with C <= max running
        // requests. A distinct workload has no such rule.
        let exempt = ctx == 0 && share <= plan.engine.max_num_seqs;
        let harness_runs = self.workload == Workload::Distinct
            || !(phase == Phase::Decode && needed > budget && !exempt);
        let status = if !harness_runs {
            Status::OverCapacity
        } else if admission.running < c {
            Status::Queued
        } else {
            Status::Valid
        };
        Verdict {
            prompt_tokens: prompt,
            admission,
            harness_tokens_needed: needed,
            harness_budget_tokens: budget,
            harness_runs,
            status,
        }
    }

    /// One cell: status, running requests and (when run) its timing.
    pub fn cell(&self, phase: Phase, ctx: u64, c: u64) -> Cell {
        let h = &self.plan.harness;
        let pool = &self.capacity.pool;
        let v = self.verdict(phase, ctx, c);
        let (a, status, prompt) = (v.admission, v.status, v.prompt_tokens);
        let (needed, budget) = (v.harness_tokens_needed, v.harness_budget_tokens);
        let run = status != Status::OverCapacity && a.running > 0;
        let mut cell = Cell {
            phase,
            context_tokens: ctx,
            concurrency: c,
            status,
            total_tok_s: None,
            per_request_tok_s: None,
            ttft_cold_ms: None,
            ttft_cached_ms: None,
            tbt_ms: None,
            avg_active_requests: None,
            output_tokens: None,
            measured_s: None,
            prompt_tokens: prompt,
            running_requests: if run { a.running } else { 0 },
            engine_running_requests: a.running,
            limit: a.limit,
            harness_tokens_needed: needed,
            harness_budget_tokens: budget,
            blocks_per_request: a.blocks_per_request,
            shared_blocks: a.shared_blocks,
            blocks_needed: a.shared_blocks.saturating_add(
                c.div_ceil(self.plan.engine.data_parallel_size.max(1))
                    .saturating_mul(a.blocks_per_request),
            ),
            usable_blocks: pool.usable_blocks,
            error_band: None,
        };
        if !run {
            return cell;
        }
        cell.error_band = self.plan.calibration.cell_bands(c, ctx);
        match phase {
            Phase::Prefill => {
                let t = prefill_row(&self.work, &self.params, h, ctx);
                cell.total_tok_s = Some(t.tok_s);
                cell.ttft_cold_ms = Some(t.ttft_ms);
            }
            Phase::Decode => {
                let t = self.decode_timing(ctx, c, a.running);
                cell.total_tok_s = Some(t.total_tok_s);
                cell.per_request_tok_s = Some(t.per_request_tok_s);
                cell.ttft_cold_ms = Some(t.ttft_cold_ms);
                cell.ttft_cached_ms = t.ttft_cached_ms;
                cell.tbt_ms = Some(t.tbt_ms);
                cell.avg_active_requests = Some(a.running as f64);
                cell.output_tokens = Some(t.output_tokens);
                cell.measured_s = Some(t.measured_s);
            }
        }
        cell
    }

    /// The timing of a decode cell with `running` requests running.
    ///
    /// With data parallelism the replicas step together (vLLM's
    /// `DPEngineCoreProc` for MoE models: an idle replica runs dummy
    /// batches), so every step takes the busiest replica's time: its share
    /// of the requests is priced, and the cell's throughput is that
    /// replica's times the running requests over its own.
    pub fn decode_timing(&self, ctx: u64, c: u64, running: u64) -> DecodeTiming {
        let dp = self.plan.engine.data_parallel_size.max(1);
        if dp > 1 && running > 0 {
            let share = c.div_ceil(dp);
            let mine = running.div_ceil(dp).min(share).max(1);
            let mut t = self.replica_decode_timing(ctx, share, mine);
            let scale = running as f64 / mine as f64;
            t.total_tok_s *= scale;
            t.output_tokens *= scale;
            return t;
        }
        self.replica_decode_timing(ctx, c, running)
    }

    /// One engine's decode timing with `c` requests sent, `running` of them
    /// running.
    fn replica_decode_timing(&self, ctx: u64, c: u64, running: u64) -> DecodeTiming {
        let h = &self.plan.harness;
        if h.workload == self.workload {
            return decode_cell(&self.work, &self.params, h, ctx, c, running);
        }
        let h = crate::harness::Harness {
            workload: self.workload,
            ..h.clone()
        };
        decode_cell(&self.work, &self.params, &h, ctx, c, running)
    }

    /// Every cell: the prefill rows, then the decode grid row by row.
    pub fn matrix(&self) -> Matrix {
        let h = &self.plan.harness;
        let mut cells = Vec::new();
        for &ctx in &h.prefill_contexts_tokens {
            cells.push(self.cell(Phase::Prefill, ctx, 1));
        }
        for &ctx in &h.contexts_tokens {
            for &c in &h.concurrency {
                cells.push(self.cell(Phase::Decode, ctx, c));
            }
        }
        Matrix {
            scenario: self.plan.scenario_id.clone(),
            workload: self.workload,
            calibration: self.plan.calibration.label(),
            error_bands: self.plan.calibration.bands(),
            cells,
        }
    }
}

/// The running requests of `c` spread over `dp` replicas as vLLM's load
/// balancer spreads them (`c / dp` each, the first `c % dp` one more),
/// each replica admitting its share (`admit_share`); the blocks and the
/// limit are the busiest replica's.
fn replicas_admit(dp: u64, c: u64, admit_share: impl Fn(u64) -> Admission) -> Admission {
    if dp <= 1 {
        return admit_share(c);
    }
    let (base, extra) = (c / dp, c % dp);
    let busiest = admit_share(c.div_ceil(dp));
    let running = if extra == 0 {
        busiest.running.saturating_mul(dp)
    } else {
        let rest = if base > 0 {
            admit_share(base).running
        } else {
            0
        };
        busiest
            .running
            .saturating_mul(extra)
            .saturating_add(rest.saturating_mul(dp - extra))
    };
    Admission { running, ..busiest }
}

/// Compute every cell of a plan with its calibration.
pub fn matrix(plan: &Plan, capacity: &Capacity) -> Result<Matrix> {
    Ok(Predictor::new(plan, capacity, plan.calibration.params)?.matrix())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One colour rule for the CLI's SVG and the page's grid: darker with
    /// throughput, amber when queued, grey (whatever the figure) when not run.
    #[test]
    fn the_heat_map_darkens_with_throughput_and_greys_skipped_cells() {
        let lum = |(r, g, b): (u8, u8, u8)| u32::from(r) + u32::from(g) + u32::from(b);
        for s in [Status::Valid, Status::Queued] {
            let shades: Vec<u32> = [0.0, 250.0, 500.0, 1000.0, 2000.0]
                .iter()
                .map(|&t| lum(s.heat_rgb(Some(t), 1000.0)))
                .collect();
            assert!(shades.windows(2).all(|w| w[1] <= w[0]), "{s:?}: {shades:?}");
            // Past the grid's largest figure the colour stops darkening.
            assert_eq!(shades[3], shades[4]);
        }
        let (r, g, b) = Status::Queued.heat_rgb(Some(500.0), 1000.0);
        assert!(r > g && g > b, "amber: {r},{g},{b}");
        let grey = (225, 225, 225);
        assert_eq!(Status::OverCapacity.heat_rgb(Some(900.0), 1000.0), grey);
        assert_eq!(Status::Valid.heat_rgb(None, 1000.0), grey);
        // A grid whose largest figure is 0 paints without dividing by it.
        assert_eq!(Status::Valid.heat_rgb(Some(0.0), 0.0), (235, 245, 235));
        assert!(Status::OverCapacity
            .meaning(512, 20_000)
            .contains("max_tokens 512) > KV cache 20,000 tokens"));
    }
}
