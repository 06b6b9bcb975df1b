//! Measured serving runs in decodecalc's own CSV (`data/runs/*.csv`): one
//! row a point, the setup on every row, rows of one run sharing it. These
//! are what the joint calibration fits and cross-validates on, besides
//! harness matrices.
//!
//! Columns: `run,point,vllm_version,model,gpu,tensor_parallel_size,
//! max_model_len,gpu_memory_utilization,workload,input_tokens,output_tokens,
//! max_concurrency,num_prompts,output_tok_s,mean_tpot_ms,median_itl_ms,
//! mean_ttft_ms,median_ttft_ms,hf_overrides,request_rate,quantization,
//! source,notes` (`hf_overrides`: vLLM's `--hf-overrides` JSON, or empty;
//! `request_rate`: the benchmark's `--request-rate`, empty for inf, its
//! arrivals drawn as the tool draws them, `decodecalc_core::arrivals`;
//! `quantization`: vLLM's `--quantization`, or empty for the checkpoint's
//! own; `kv_cache_dtype`: `--kv-cache-dtype`, or empty for auto;
//! `speculative_config`: `--speculative-config` JSON, or empty;
//! `mean_acceptance_length`: the acceptance length the run measured, for
//! reports only: predictions use the method's default rates;
//! `max_num_seqs`: `--max-num-seqs`, or empty for the release's default;
//! `max_num_batched_tokens`: `--max-num-batched-tokens`, or empty for the
//! release's default; `available_kv_gib`: the "Available KV cache memory"
//! the run's vLLM logged (or its start-up error quoted), which pins the KV
//! pool as `--vllm-log` does, or empty to predict it). A file may add two
//! last columns, [`PARALLEL_COLUMNS`]: `data_parallel_size`
//! (`--data-parallel-size`, empty for 1) and `enable_expert_parallel`
//! (`1` for `--enable-expert-parallel`, empty or `0` without); files
//! without them run one replica without expert parallelism. `workload` is `offline` (one `LLM.generate` call: `output_tok_s` is
//! output tokens over its wall time) or `serve` (`vllm bench serve` or
//! `benchmark_serving.py`; `max_concurrency` empty for no limit); measured
//! figures may be empty.

use crate::error::{Error, Result};
use crate::{Observed, Run, ServeMeasured};
use decodecalc_core::engine::EngineSettings;
use decodecalc_core::scenario::{Capacity, Plan, Request, World};
use decodecalc_core::serve::{Arrival, Workload};
use decodecalc_core::timing::Work;
use decodecalc_core::version::{batch_defaults, UsageContext, VllmVersion};
use decodecalc_measured::columns::{Columns, Header, Row};
use std::ops::Bound;

pub const COLUMNS: [&str; 29] = [
    "run",
    "point",
    "vllm_version",
    "model",
    "gpu",
    "tensor_parallel_size",
    "max_model_len",
    "gpu_memory_utilization",
    "workload",
    "input_tokens",
    "output_tokens",
    "max_concurrency",
    "num_prompts",
    "output_tok_s",
    "mean_tpot_ms",
    "median_itl_ms",
    "mean_ttft_ms",
    "median_ttft_ms",
    "hf_overrides",
    "request_rate",
    "quantization",
    "source",
    "notes",
    "kv_cache_dtype",
    "speculative_config",
    "mean_acceptance_length",
    "max_num_seqs",
    "max_num_batched_tokens",
    "available_kv_gib",
];

/// The optional last columns: data and expert parallelism.
pub const PARALLEL_COLUMNS: [&str; 2] = ["data_parallel_size", "enable_expert_parallel"];

/// Rows a runs file may have.
pub const MAX_RUN_ROWS: usize = 8192;

/// One measured point with its setup.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRow {
    /// `file.csv:LINE`, for errors.
    pub origin: String,
    pub run: String,
    pub point: String,
    pub vllm_version: VllmVersion,
    pub model: String,
    pub gpu: String,
    pub tensor_parallel_size: u64,
    pub max_model_len: Option<u64>,
    pub gpu_memory_utilization: Option<f64>,
    pub offline: bool,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// None: no client limit.
    pub max_concurrency: Option<u64>,
    pub num_prompts: u64,
    /// Requests per second; None: all at once.
    pub request_rate: Option<f64>,
    /// `--quantization`, if the run gave one.
    pub quantization: Option<String>,
    pub measured: ServeMeasured,
    /// `--hf-overrides` of the run, if any.
    pub hf_overrides: Option<String>,
    pub source: String,
    /// `--kv-cache-dtype`, if the run gave one.
    pub kv_cache_dtype: Option<String>,
    /// `--speculative-config`, if the run gave one.
    pub speculative_config: Option<String>,
    /// The mean acceptance length the run logged (reported, not used).
    pub mean_acceptance_length: Option<f64>,
    /// `--max-num-seqs`, if the run gave one.
    pub max_num_seqs: Option<u64>,
    /// `--max-num-batched-tokens`, if the run gave one.
    pub max_num_batched_tokens: Option<u64>,
    /// The KV cache memory the run's vLLM logged as available, GiB: the
    /// pool is pinned to it (as `--vllm-log` pins it), else predicted.
    pub available_kv_gib: Option<f64>,
    /// `--data-parallel-size`, if the run gave one.
    pub data_parallel_size: Option<u64>,
    /// Whether the run gave `--enable-expert-parallel`.
    pub enable_expert_parallel: bool,
}

impl RunRow {
    fn setup(&self) -> impl PartialEq + '_ {
        (
            self.vllm_version,
            &self.model,
            &self.gpu,
            self.tensor_parallel_size,
            self.max_model_len,
            self.gpu_memory_utilization.map(f64::to_bits),
            self.offline,
            &self.hf_overrides,
            &self.quantization,
            &self.kv_cache_dtype,
            &self.speculative_config,
            (
                self.max_num_seqs,
                self.max_num_batched_tokens,
                self.available_kv_gib.map(f64::to_bits),
                self.data_parallel_size,
                self.enable_expert_parallel,
            ),
        )
    }

    /// What one engine serves: with data parallelism a replica's share of
    /// the prompts, the concurrency and the rate (vLLM's load balancer
    /// spreads requests evenly, `matrix::Predictor::verdict`); the replicas
    /// step in lock-step, so one replica's figures are the run's.
    pub fn workload(&self) -> Workload {
        let dp = self.data_parallel_size.unwrap_or(1).max(1);
        Workload {
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            num_prompts: self.num_prompts.div_ceil(dp),
            arrival: if self.offline {
                Arrival::Offline
            } else {
                Arrival::serve(
                    self.request_rate.map(|r| r / dp as f64),
                    self.max_concurrency.map(|c| c.div_ceil(dp)),
                )
                .for_release(self.vllm_version)
            },
        }
    }
}

/// Parse a runs CSV. Errors name `origin`, the line and the column.
pub fn parse_csv(origin: &str, text: &str) -> Result<Vec<RunRow>> {
    let parallel: Vec<&str> = COLUMNS.iter().chain(&PARALLEL_COLUMNS).copied().collect();
    let (columns, records) = match Columns::read(origin, text, &parallel, Header::Exact) {
        Ok(read) => read,
        Err(_) => Columns::read(origin, text, &COLUMNS, Header::Exact)?,
    };
    let mut rows: Vec<RunRow> = Vec::new();
    for row in columns.rows(records) {
        if rows.len() >= MAX_RUN_ROWS {
            return Err(Error::TooManyRows {
                origin: origin.to_string(),
                max: MAX_RUN_ROWS,
            });
        }
        let row = run_row(&row?)?;
        check_run(&rows, &row)?;
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(columns
            .no_rows("a runs file has a row per measured point")
            .into());
    }
    Ok(rows)
}

/// One row of a runs CSV (columns by their position in [`COLUMNS`]).
fn run_row(row: &Row) -> Result<RunRow> {
    let count = |col: usize, max: u64| {
        row.number(
            col,
            1..=max,
            &format!("a whole number from 1 to {max}, or empty"),
        )
    };
    let need = |col: usize, max: u64| -> Result<u64> {
        count(col, max)?.ok_or_else(|| {
            row.bad(col, &format!("a whole number from 1 to {max}"))
                .into()
        })
    };
    let figure = |col: usize| {
        row.number(
            col,
            (Bound::Excluded(0.0), Bound::Excluded(1e9)),
            "a positive number below 1e9, or empty",
        )
    };
    Ok(RunRow {
        origin: row.source(),
        run: row.text(0)?,
        point: row.text(1)?,
        vllm_version: VllmVersion::parse(&row.column(2), row.get(2))?,
        model: row.text(3)?,
        gpu: row.text(4)?,
        tensor_parallel_size: need(5, 64)?,
        max_model_len: count(6, 1 << 26)?,
        gpu_memory_utilization: row.number(
            7,
            (Bound::Excluded(0.0), Bound::Included(1.0)),
            "a fraction in (0, 1], or empty",
        )?,
        offline: row.one_of(
            8,
            &[("offline", true), ("serve", false)],
            "offline or serve",
        )?,
        input_tokens: need(9, 1 << 26)?,
        output_tokens: need(10, decodecalc_core::serve::MAX_OUTPUT_TOKENS)?,
        max_concurrency: match count(11, decodecalc_core::engine::MAX_CONCURRENCY)? {
            None if row.get(8) == "offline" => {
                return Err(row
                    .bad(11, "an offline run's batch size, a whole number")
                    .into())
            }
            c => c,
        },
        num_prompts: need(12, decodecalc_core::serve::MAX_PROMPTS)?,
        measured: ServeMeasured {
            output_tok_s: figure(13)?,
            mean_tpot_ms: figure(14)?,
            median_itl_ms: figure(15)?,
            mean_ttft_ms: figure(16)?,
            median_ttft_ms: figure(17)?,
        },
        hf_overrides: row.opt_text(18),
        request_rate: match row.get(19) {
            "inf" => None,
            _ => row.number(
                19,
                (Bound::Excluded(0.0), Bound::Included(1e6)),
                "requests per second in (0, 1000000], or empty for inf",
            )?,
        },
        quantization: row.opt_text(20),
        source: row.text(21)?,
        kv_cache_dtype: row.opt_text(23),
        speculative_config: row.opt_text(24),
        mean_acceptance_length: row.number(
            25,
            (Bound::Included(1.0), Bound::Included(64.0)),
            "a mean acceptance length from 1 to 64, or empty",
        )?,
        max_num_seqs: count(26, decodecalc_core::engine::MAX_CONCURRENCY)?,
        max_num_batched_tokens: count(27, 1 << 26)?,
        available_kv_gib: row.number(
            28,
            (Bound::Excluded(0.0), Bound::Included(4096.0)),
            "GiB of KV cache memory above 0 and at most 4096, or empty",
        )?,
        data_parallel_size: count(29, 64)?,
        enable_expert_parallel: row.one_of(
            30,
            &[("", false), ("0", false), ("1", true)],
            "1 for --enable-expert-parallel, 0 or empty without",
        )?,
    })
}

/// Rows of one run share its setup, each point once.
fn check_run(rows: &[RunRow], row: &RunRow) -> Result<()> {
    if let Some(first) = rows.iter().find(|r| r.run == row.run) {
        if first.setup() != row.setup() {
            return Err(Error::SetupDiffers {
                origin: row.origin.clone(),
                run: row.run.clone(),
                first: first.origin.clone(),
            });
        }
        if rows
            .iter()
            .any(|r| r.run == row.run && r.point == row.point)
        {
            return Err(Error::PointTwice {
                origin: row.origin.clone(),
                run: row.run.clone(),
                point: row.point.clone(),
            });
        }
    }
    Ok(())
}

/// Each run of `rows` resolved against its model and GPU, as vLLM of the
/// run's release would have started it.
pub fn build(world: &dyn World, rows: &[RunRow]) -> Result<Vec<Run>> {
    let mut ids: Vec<&str> = Vec::new();
    for r in rows {
        if !ids.contains(&r.run.as_str()) {
            ids.push(&r.run);
        }
    }
    ids.iter()
        .map(|id| {
            let points: Vec<&RunRow> = rows.iter().filter(|r| r.run == *id).collect();
            build_one(world, &points)
        })
        .collect()
}

fn build_one(world: &dyn World, points: &[&RunRow]) -> Result<Run> {
    let Some(first) = points.first() else {
        return Err(Error::EmptyRun);
    };
    let context = |error: decodecalc_core::Error| Error::InRun {
        origin: first.origin.clone(),
        run: first.run.clone(),
        error: Box::new(error),
    };
    let gpu = decodecalc_core::presets::gpu(&first.gpu).map_err(context)?;
    let version = first.vllm_version;
    let usage = if first.offline {
        UsageContext::Offline
    } else {
        UsageContext::Serve
    };
    let max_len_for_defaults = first.max_model_len.unwrap_or(32_768);
    let (seqs, tokens) = batch_defaults(
        version,
        usage,
        gpu.memory_bytes,
        &gpu.name,
        max_len_for_defaults,
    );
    let to_i64 = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    let request = Request {
        model: Some(first.model.clone()),
        gpu: Some(first.gpu.clone()),
        engine: EngineSettings {
            tensor_parallel_size: Some(to_i64(first.tensor_parallel_size)),
            data_parallel_size: first.data_parallel_size.map(to_i64),
            enable_expert_parallel: first.enable_expert_parallel.then_some(true),
            max_model_len: first.max_model_len.map(to_i64),
            gpu_memory_utilization: first.gpu_memory_utilization,
            max_num_seqs: Some(to_i64(first.max_num_seqs.unwrap_or(seqs))),
            max_num_batched_tokens: Some(to_i64(first.max_num_batched_tokens.unwrap_or(tokens))),
            // The logged pool, to the byte as `Request::resolve` pins a
            // start-up log's (the log prints GiB to two decimals).
            kv_cache_memory_bytes: first.available_kv_gib.map(|gib| {
                to_i64(decodecalc_core::units::saturating_u64(
                    (gib * decodecalc_core::units::GIB as f64).round(),
                ))
            }),
            async_scheduling: Some(version.async_scheduling_default()),
            // V0 had no prefix caching by default; the runs' prompts share nothing anyway.
            enable_prefix_caching: Some(version.v1_engine()),
            hf_overrides: first.hf_overrides.clone(),
            quantization: first.quantization.clone(),
            kv_cache_dtype: first.kv_cache_dtype.clone(),
            speculative_config: first.speculative_config.clone(),
            max_seq_len_to_capture: version.max_seq_len_to_capture().map(to_i64),
            ..EngineSettings::default()
        },
        calibration: Some("none".to_string()),
        ..Request::default()
    };
    let plan = request.resolve(world).map_err(context)?;
    let cap = plan.capacity().map_err(context)?;
    if let Some(e) = cap.startup_error() {
        return Err(context(e));
    }
    let work = Work::of_plan(&plan, &cap);
    let observed = points
        .iter()
        .map(|r| {
            let workload = r.workload();
            Observed::Serve {
                label: r.point.clone(),
                workload,
                lengths: Vec::new(),
                max_running: decodecalc_measured::bench::max_running(&plan, &workload),
                measured: r.measured,
            }
        })
        .collect();
    let file = first
        .origin
        .rsplit_once(':')
        .map_or(first.origin.as_str(), |x| x.0);
    Ok(Run {
        id: first.run.clone(),
        gpu: gpu.id.clone(),
        source: file.to_string(),
        class: gpu.calibration_class().to_string(),
        family: plan.model.model.architecture.clone(),
        vllm_version: version.to_string(),
        work,
        harness: None,
        points: observed,
    })
}

/// A `--save-result` file as a run for the joint calibration, on the setup
/// `plan` gives (the file does not say which model, GPU or flags).
pub fn of_bench_result(
    plan: &Plan,
    cap: &Capacity,
    result: &decodecalc_measured::bench::BenchResult,
) -> Result<Run> {
    if let Some(e) = cap.startup_error() {
        return Err(e.into());
    }
    let mut w = result.workload();
    w.arrival = w.arrival.for_release(plan.engine.vllm_version);
    let work = Work::of_plan(plan, cap);
    let measured = ServeMeasured {
        output_tok_s: result.output_throughput,
        mean_tpot_ms: result.tpot.mean_ms,
        median_itl_ms: result.itl.median_ms,
        mean_ttft_ms: result.ttft.mean_ms,
        median_ttft_ms: result.ttft.median_ms,
    };
    Ok(Run {
        id: result.origin.clone(),
        gpu: plan.gpu.id.clone(),
        source: result.origin.clone(),
        class: plan.gpu.calibration_class().to_string(),
        family: plan.model.model.architecture.clone(),
        vllm_version: decodecalc_core::VLLM_VERSION.to_string(),
        work,
        harness: None,
        points: vec![Observed::Serve {
            label: result.origin.clone(),
            workload: w,
            lengths: result.lengths.clone(),
            max_running: decodecalc_measured::bench::max_running(plan, &w),
            measured,
        }],
    })
}
