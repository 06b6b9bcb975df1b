//! Inverse questions: the largest context for C requests, the most requests
//! at a context, and the smallest `--max-model-len` or
//! `--gpu-memory-utilization` that makes a cell fit. Exact on the
//! allocator's step functions: the searches walk the block boundaries where
//! the verdict can change instead of sampling.

use crate::dtype::KvCacheDtype;
use crate::error::{Error, Result};
use crate::harness::Workload;
use crate::matrix::{Phase, Predictor};
use crate::scenario::{Plan, Request, World};
use crate::units::{div_ceil, gib};
use serde::Serialize;

/// A speed target on top of a capacity question.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SpeedTarget {
    pub min_per_request_tok_s: Option<f64>,
}

impl SpeedTarget {
    fn met(&self, p: &Predictor, ctx: u64, c: u64, running: u64) -> bool {
        match self.min_per_request_tok_s {
            None => true,
            Some(min) => p.decode_timing(ctx, c, running).per_request_tok_s >= min,
        }
    }
}

/// The largest context for `concurrency` requests.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaxContext {
    /// The vLLM release modelled.
    pub vllm_version: String,
    pub concurrency: u64,
    /// Output tokens each request holds (`--max-tokens`).
    pub max_tokens: u64,
    /// Largest context at which all the requests run at once when each
    /// sends its own prompt and holds it plus `max_tokens` of output
    /// ([`Workload::Distinct`]); None if not even context 0.
    pub distinct_max_context_tokens: Option<u64>,
    // The rest assume the harness's workload: one prompt, cached by a scout.
    /// Largest context (nominal, as the harness names it) at which all the
    /// requests run at once in the engine; None if not even context 0.
    pub engine_max_context_tokens: Option<u64>,
    /// Largest context the harness would not skip as over capacity.
    pub harness_max_context_tokens: Option<u64>,
    /// Largest context where both hold: the cell would be measured valid.
    pub valid_max_context_tokens: Option<u64>,
    /// The largest context the engine accepts with max_tokens output.
    pub limit_tokens: u64,
}

/// The most requests at one context.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaxConcurrency {
    /// The vLLM release modelled.
    pub vllm_version: String,
    pub context_tokens: u64,
    /// Output tokens each request holds (`--max-tokens`).
    pub max_tokens: u64,
    /// The most requests that all run at once when each sends its own
    /// prompt and holds it plus `max_tokens` of output ([`Workload::Distinct`]).
    pub distinct_max_concurrency: u64,
    // The rest assume the harness's workload: one prompt, cached by a scout.
    pub engine_max_concurrency: u64,
    pub harness_max_concurrency: u64,
    pub valid_max_concurrency: u64,
}

/// The smallest engine setting that makes a cell fit, or why none does.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SmallestSetting {
    /// The vLLM release modelled.
    pub vllm_version: String,
    pub context_tokens: u64,
    pub concurrency: u64,
    /// The setting (max_model_len in tokens, or the utilization), None when
    /// no setting on this GPU makes the cell fit.
    pub value: Option<f64>,
    /// What it would take otherwise (more VRAM, another KV dtype, more GPUs).
    pub suggestions: Vec<String>,
    /// The workload it was sized for ([`sizing_workload`]).
    pub workload: Workload,
}

/// The workload a smallest setting is sized for: the one asked for, else
/// distinct prompts, since a setting sized for one shared, cached prompt
/// would not serve separate ones. The one home of that rule: the CLI's
/// `solve --for max-model-len | gpu-memory-utilization` and the page's plan
/// panel both take it from here.
pub fn sizing_workload(requested: Option<Workload>) -> Workload {
    requested.unwrap_or(Workload::Distinct)
}

/// The largest `x` in `[0, hi]` with `pred(x)`, for `pred` true on a prefix
/// (monotone): binary search. None if `pred(0)` is false.
fn largest_true(hi: u64, pred: impl Fn(u64) -> bool) -> Option<u64> {
    if !pred(0) {
        return None;
    }
    let (mut lo, mut hi) = (0, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if pred(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

/// The smallest `x` in `[lo, hi]` with `pred(x)`, for `pred` false then
/// true (monotone) and true at `hi`: binary search.
fn smallest_true(lo: u64, hi: u64, pred: impl Fn(u64) -> Result<bool>) -> Result<u64> {
    let (mut a, mut b) = (lo, hi);
    while a < b {
        let mid = a + (b - a) / 2;
        if pred(mid)? {
            b = mid;
        } else {
            a = mid + 1;
        }
    }
    Ok(a)
}

impl Predictor<'_> {
    /// The largest context a decode cell may have: context + max_tokens <= max_model_len.
    pub fn context_limit(&self) -> u64 {
        self.plan
            .engine
            .max_model_len_tokens
            .saturating_sub(self.plan.harness.max_tokens)
    }

    /// Smallest context whose prompt reaches `tokens`, searching `[0, hi]`.
    fn context_for_prompt(&self, tokens: u64, hi: u64) -> u64 {
        let h = &self.plan.harness;
        let (mut lo, mut hi) = (0, hi);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if h.prompt_tokens(mid) >= tokens {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// The largest context for `c` requests (see [`MaxContext`]).
    pub fn max_context(&self, c: u64, speed: SpeedTarget) -> MaxContext {
        let limit = self.context_limit();
        let distinct = self
            .with_workload(Workload::Distinct)
            .largest_all_running(limit, c, speed);
        let shared = self.with_workload(Workload::Harness);
        let engine = shared.largest_all_running(limit, c, speed);
        let harness = largest_true(limit, |ctx| {
            shared.verdict(Phase::Decode, ctx, c).harness_runs
        });
        let valid = harness.and_then(|h| shared.largest_all_running(h, c, speed));
        MaxContext {
            vllm_version: self.plan.engine.vllm_version.to_string(),
            concurrency: c,
            max_tokens: self.plan.harness.max_tokens,
            distinct_max_context_tokens: distinct,
            engine_max_context_tokens: engine,
            harness_max_context_tokens: harness,
            valid_max_context_tokens: valid,
            limit_tokens: limit,
        }
    }

    /// The largest context at most `cap` at which all `c` requests run (and
    /// meet the speed target). The verdict depends on the prompt only
    /// through its block counts, which change at prompts `k*bs` and `k*bs+1`
    /// and are constant between, so the walk visits one region at a time,
    /// from the top. Inside a region the harness's per-request speed falls
    /// with context (more prompt to recompute, more to attend to); across a
    /// boundary it can rise (more of the prompt becomes a cache hit), so a
    /// speed target is searched region by region, never bisected across
    /// boundaries; context 0 is a region of its own.
    pub fn largest_all_running(&self, cap: u64, c: u64, speed: SpeedTarget) -> Option<u64> {
        let bs = self.capacity.layout.block_size_tokens.max(1);
        let mut x = cap;
        loop {
            let v = self.verdict(Phase::Decode, x, c);
            let p = v.prompt_tokens;
            let region_start = match p % bs {
                0 | 1 => p,
                _ => (p / bs) * bs + 2,
            };
            // Context 0 is a region of its own: without a context nothing of
            // the prompt is a prefix-cache hit (`timing`), so the speed can
            // step between 0 and 1 inside one block region.
            let first = match self.context_for_prompt(region_start, x).min(x) {
                0 if x > 0 => 1,
                f => f,
            };
            let running = v.admission.running;
            if running >= c {
                if speed.met(self, x, c, running) {
                    return Some(x);
                }
                if speed.met(self, first, c, running) {
                    // Monotone inside the region: bisect [first, x].
                    let d = largest_true(x - first, |d| speed.met(self, first + d, c, running));
                    return d.map(|d| first + d);
                }
            }
            if first == 0 {
                return None;
            }
            x = first - 1;
        }
    }

    /// The most requests at `ctx` (see [`MaxConcurrency`]).
    pub fn max_concurrency(&self, ctx: u64, speed: SpeedTarget) -> MaxConcurrency {
        let cap = self.plan.engine.max_num_seqs;
        // running = min(C, max_num_seqs, what the blocks allow), so all C run
        // exactly up to that count.
        let most = |p: &Predictor| {
            let fit = p.verdict(Phase::Decode, ctx, cap).admission.running;
            largest_true(fit, |c| c == 0 || speed.met(p, ctx, c, c)).unwrap_or(0)
        };
        let distinct = most(&self.with_workload(Workload::Distinct));
        let shared = self.with_workload(Workload::Harness);
        let engine = most(&shared);
        // Searched up to the largest request count the tool accepts.
        let harness = largest_true(crate::engine::MAX_CONCURRENCY, |c| {
            c == 0 || shared.verdict(Phase::Decode, ctx, c).harness_runs
        })
        .unwrap_or(0);
        MaxConcurrency {
            vllm_version: self.plan.engine.vllm_version.to_string(),
            context_tokens: ctx,
            max_tokens: self.plan.harness.max_tokens,
            distinct_max_concurrency: distinct,
            engine_max_concurrency: engine,
            harness_max_concurrency: harness,
            valid_max_concurrency: engine.min(harness),
        }
    }

    /// Whether the cell would be measured valid (and fast enough).
    pub fn cell_fits(&self, ctx: u64, c: u64, speed: SpeedTarget) -> bool {
        let v = self.verdict(Phase::Decode, ctx, c);
        v.all_run(c) && speed.met(self, ctx, c, c)
    }
}

fn fits_with(plan: &Plan, ctx: u64, c: u64, speed: SpeedTarget) -> Result<bool> {
    let cap = plan.capacity()?;
    if cap.startup_failure.is_some()
        || !crate::harness::fits_model_len(
            ctx,
            plan.harness.max_tokens,
            plan.engine.max_model_len_tokens,
        )
    {
        return Ok(false);
    }
    let p = Predictor::new(plan, &cap, plan.calibration.params)?;
    Ok(p.cell_fits(ctx, c, speed))
}

/// The smallest `--max-model-len` at which `ctx` x `c` fits. The harness's
/// budget (the logged KV cache size) grows with max_model_len within a
/// block and drops at each block boundary, and the start-up check grows with
/// it, so the search walks block by block.
pub fn smallest_max_model_len(
    plan: &Plan,
    ctx: u64,
    c: u64,
    speed: SpeedTarget,
) -> Result<SmallestSetting> {
    let lo = ctx.saturating_add(plan.harness.max_tokens);
    let hi = plan.model.model.max_position_embeddings;
    let bs = plan.capacity()?.layout.block_size_tokens.max(1);
    let mut value = None;
    let mut k = div_ceil(lo, bs).max(1);
    while (k - 1) * bs < hi {
        let start = lo.max((k - 1) * bs + 1);
        let end = hi.min(k * bs);
        let at = |len: u64| {
            let mut p = plan.clone();
            p.engine.max_model_len_tokens = len;
            fits_with(&p, ctx, c, speed)
        };
        if at(end)? {
            // Within a block the budget only grows: the smallest that fits.
            value = Some(smallest_true(start, end, at)? as f64);
            break;
        }
        k += 1;
    }
    let suggestions = if value.is_none() {
        what_it_would_take(plan, ctx, c, speed)?
    } else {
        Vec::new()
    };
    Ok(SmallestSetting {
        vllm_version: plan.engine.vllm_version.to_string(),
        context_tokens: ctx,
        concurrency: c,
        workload: plan.harness.workload,
        value,
        suggestions,
    })
}

/// The smallest `--gpu-memory-utilization` at which `ctx` x `c` fits: the
/// fewest KV blocks that fit (a monotone search over block counts), then the
/// utilization whose `ceil(total * u)` leaves exactly that many.
pub fn smallest_utilization(
    plan: &Plan,
    ctx: u64,
    c: u64,
    speed: SpeedTarget,
) -> Result<SmallestSetting> {
    let cap = plan.capacity()?;
    let bpb = cap.bytes_per_block.max(1);
    let with_blocks = |n: u64| {
        let mut p = plan.clone();
        p.engine.kv_cache_memory_bytes = Some(n * bpb);
        fits_with(&p, ctx, c, speed)
    };
    let total = plan.gpu.memory_bytes;
    let max_blocks = total.saturating_sub(plan.non_kv_bytes) / bpb;
    let none = |plan: &Plan| -> Result<SmallestSetting> {
        Ok(SmallestSetting {
            vllm_version: plan.engine.vllm_version.to_string(),
            context_tokens: ctx,
            concurrency: c,
            workload: plan.harness.workload,
            value: None,
            suggestions: what_it_would_take(plan, ctx, c, speed)?,
        })
    };
    if max_blocks == 0 || !with_blocks(max_blocks)? {
        return none(plan);
    }
    let a = smallest_true(1, max_blocks, with_blocks)?;
    // Smallest u with ceil(total * u) >= non_kv + a * bpb, as vLLM rounds.
    let need = plan.non_kv_bytes + a * bpb;
    let mut u = need as f64 / total as f64;
    while crate::allocator::requested_bytes(total, u) < need && u < 1.0 {
        u = f64::from_bits(u.to_bits() + 1);
    }
    while u > 0.0
        && crate::allocator::requested_bytes(total, f64::from_bits(u.to_bits() - 1)) >= need
    {
        u = f64::from_bits(u.to_bits() - 1);
    }
    Ok(SmallestSetting {
        vllm_version: plan.engine.vllm_version.to_string(),
        context_tokens: ctx,
        concurrency: c,
        workload: plan.harness.workload,
        value: Some(u.min(1.0)),
        suggestions: Vec::new(),
    })
}

/// When no setting fits: the VRAM it would take at the default utilization,
/// smaller KV dtypes that would fit, and tensor-parallel sizes that would.
fn what_it_would_take(plan: &Plan, ctx: u64, c: u64, speed: SpeedTarget) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let cap = plan.capacity()?;
    let bpb = cap.bytes_per_block.max(1);
    // Blocks needed: grow until the cell fits with that pool (bounded).
    let with_blocks = |n: u64| {
        let mut p = plan.clone();
        p.engine.kv_cache_memory_bytes = Some(n * bpb);
        p.engine.max_model_len_tokens = p
            .engine
            .max_model_len_tokens
            .max(ctx + plan.harness.max_tokens);
        fits_with(&p, ctx, c, speed)
    };
    // Double until it fits, then bisect down to the fewest blocks.
    let mut n = 1u64;
    let mut found = None;
    while n < (1 << 26) {
        if with_blocks(n)? {
            found = Some(smallest_true(n / 2 + 1, n, with_blocks)?);
            break;
        }
        n *= 2;
    }
    match found {
        Some(n) => {
            let bytes = plan.non_kv_bytes + n * bpb;
            out.push(format!(
                "a GPU with at least {:.1} GiB (at --gpu-memory-utilization {}), against {:.1} GiB here",
                gib(bytes) / plan.engine.gpu_memory_utilization,
                plan.engine.gpu_memory_utilization,
                gib(plan.gpu.memory_bytes)
            ));
        }
        None => out.push(
            "no KV pool size makes it fit: the speed target or max_num_seqs rules it out".into(),
        ),
    }
    Ok(out)
}

/// Try other KV dtypes and tensor-parallel sizes through the request (the
/// model is re-sharded and the memory re-estimated), returning those that fit.
pub fn alternatives(
    request: &Request,
    world: &dyn World,
    ctx: u64,
    c: u64,
    speed: SpeedTarget,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let base = request.resolve(world)?;
    for dtype in KvCacheDtype::ALL {
        if dtype == base.engine.kv_cache_dtype {
            continue;
        }
        let mut r = request.clone();
        r.engine.kv_cache_dtype = Some(dtype.name().to_string());
        if let Ok(plan) = r.resolve(world) {
            if fits_with(&plan, ctx, c, speed).unwrap_or(false) {
                out.push(format!("--kv-cache-dtype {}", dtype.name()));
            }
        }
    }
    for tp in [2i64, 4, 8] {
        if tp as u64 <= base.engine.tensor_parallel_size {
            continue;
        }
        let mut r = request.clone();
        r.engine.tensor_parallel_size = Some(tp);
        if let Ok(plan) = r.resolve(world) {
            if fits_with(&plan, ctx, c, speed).unwrap_or(false) {
                out.push(format!("--tensor-parallel-size {tp}"));
                break;
            }
        }
    }
    if out.is_empty() {
        return Err(Error::new(
            "no KV dtype or tensor-parallel size up to 8 makes it fit",
        ));
    }
    Ok(out)
}
