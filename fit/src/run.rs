//! A measured run and the figures predicted for it.

use crate::*;
use decodecalc_core::engine::Harness;
use decodecalc_core::matrix::Phase;
use decodecalc_core::serve::Workload;
use decodecalc_core::timing::{decode_cell, prefill_row, EngineGeneration, TimingParams, Work};
use decodecalc_measured::rows::MeasuredRow;
use serde::Serialize;

/// TTFT residuals count less: a median of one sample per request, taken while
/// the ramp is still going, it is the noisiest figure of a cell.
pub const WEIGHT_TTFT: f64 = 0.3;

/// Width of the prior pulling a class's deviation from the shared value to
/// zero, log-odds: a factor of about e in odds.
pub const CLASS_PRIOR_LOGODDS: f64 = 1.0;

/// Width of the prior pulling a shared value to the first-principles one.
pub const SHARED_PRIOR_LOGODDS: f64 = 1.5;

/// The error a measured figure is taken to carry (run-to-run spread and the
/// model's own error), as a log ratio: residuals are divided by it, so the
/// priors weigh against data at their true scale and a parameter the data
/// determine is set by the data.
pub const FIGURE_NOISE: f64 = 0.05;

/// The residual a figure gets when the prediction is not a number (the
/// setup predicts nothing): large, finite, so the fit moves away.
const INVALID_RESIDUAL: f64 = 10.0;

/// LM's patience (evaluations per parameter): bounds every fit's time.
pub(crate) const PATIENCE: usize = 40;

/// The most runs one fit takes: cross-validation refits once per model
/// family, GPU and class, so this bounds a calibration's time (the public
/// corpus has 76).
pub const MAX_FIT_RUNS: usize = 128;

/// The most measured figures one fit takes (the public corpus has under 500;
/// with [`PATIENCE`] and [`MAX_FIT_RUNS`] this bounds the time).
pub const MAX_FIT_FIGURES: usize = 2048;

/// What a serving run measured (means over requests, as `vllm bench serve`
/// prints them; for an offline run only the output throughput).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ServeMeasured {
    pub output_tok_s: Option<f64>,
    pub mean_tpot_ms: Option<f64>,
    pub median_itl_ms: Option<f64>,
    pub mean_ttft_ms: Option<f64>,
    pub median_ttft_ms: Option<f64>,
}

/// One measured point of a run.
#[derive(Clone, Debug, PartialEq)]
pub enum Observed {
    /// A harness cell, with the running count the capacity model gives it.
    Harness { row: MeasuredRow, running: u64 },
    /// A serving or offline workload, with the engine's running limit.
    Serve {
        label: String,
        workload: Workload,
        /// Each request's (prompt, output) lengths where known; empty: the
        /// workload's fixed lengths.
        lengths: Vec<(u64, u64)>,
        max_running: u64,
        measured: ServeMeasured,
    },
}

impl Observed {
    pub fn label(&self) -> String {
        match self {
            Observed::Harness { row, .. } => format!(
                "{} {} x {}",
                row.phase.name(),
                row.context_tokens,
                row.concurrency
            ),
            Observed::Serve { label, .. } => label.clone(),
        }
    }
}

/// A measured run: one setup (model, GPU, flags) and its points.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub id: String,
    /// The GPU preset it ran on.
    pub gpu: String,
    /// The file or preset it came from.
    pub source: String,
    /// The GPU's calibration class.
    pub class: String,
    /// The model's family: its `architectures` name (`Qwen2ForCausalLM`,
    /// `Qwen3MoeForCausalLM`, ...), the unit leave-family-out takes out.
    pub family: String,
    /// vLLM release the run used.
    pub vllm_version: String,
    pub work: Work,
    /// The harness settings, for harness points.
    pub harness: Option<Harness>,
    pub points: Vec<Observed>,
}

impl Run {
    /// The engine generation of its release (V1 when the release does
    /// not parse).
    pub fn engine(&self) -> EngineGeneration {
        decodecalc_core::version::VllmVersion::parse("", &self.vllm_version)
            .map_or(EngineGeneration::V1, EngineGeneration::of)
    }

    /// The workload regime of point `i`.
    pub(crate) fn regime_of(&self, i: usize) -> Regime {
        self.points
            .get(i)
            .map_or(Regime::Batch1Short, Observed::regime)
    }
}

fn log_ratio(predicted: f64, measured: Option<f64>, weight: f64, out: &mut Vec<f64>) {
    if let Some(m) = measured.filter(|m| *m > 0.0 && m.is_finite()) {
        out.push(if predicted > 0.0 && predicted.is_finite() {
            weight * (predicted / m).ln() / FIGURE_NOISE
        } else {
            weight * INVALID_RESIDUAL / FIGURE_NOISE
        });
    }
}

/// Predicted figures of one point, in the order its residuals come.
pub fn predict_point(
    run: &Run,
    p: &TimingParams,
    point: &Observed,
) -> Vec<(&'static str, f64, f64, f64)> {
    let mut out = Vec::new();
    let mut push = |name, predicted: f64, measured: Option<f64>, weight| {
        if let Some(m) = measured.filter(|m| *m > 0.0 && m.is_finite()) {
            out.push((name, predicted, m, weight));
        }
    };
    match point {
        Observed::Harness { row, running } => {
            let Some(h) = &run.harness else { return out };
            match row.phase {
                Phase::Prefill => {
                    let t = prefill_row(&run.work, p, h, row.context_tokens);
                    push("prefill_tok_s", t.tok_s, row.total_tok_s, 1.0);
                }
                Phase::Decode => {
                    let d = decode_cell(
                        &run.work,
                        p,
                        h,
                        row.context_tokens,
                        row.concurrency,
                        *running,
                    );
                    push("total_tok_s", d.total_tok_s, row.total_tok_s, 1.0);
                    push("tbt_ms", d.tbt_ms, row.tbt_ms, 1.0);
                    push("ttft_ms", d.ttft_ms, row.ttft_ms, WEIGHT_TTFT);
                }
            }
        }
        Observed::Serve {
            workload,
            lengths,
            max_running,
            measured,
            ..
        } => {
            let r = decodecalc_core::serve::simulate_lengths(
                &run.work,
                p,
                workload,
                lengths,
                *max_running,
            )
            .ok();
            let get =
                |f: fn(&decodecalc_core::serve::ServeResult) -> f64| r.as_ref().map_or(f64::NAN, f);
            if workload.arrival == decodecalc_core::serve::Arrival::Offline {
                // Wall time per output token: what an offline run's
                // throughput says, as a time per token.
                push(
                    "ms_per_output_token",
                    get(|r| 1e3 / r.output_throughput),
                    measured.output_tok_s.map(|x| 1e3 / x),
                    1.0,
                );
            } else {
                push(
                    "output_tok_s",
                    get(|r| r.output_throughput),
                    measured.output_tok_s,
                    1.0,
                );
            }
            push(
                "mean_tpot_ms",
                get(|r| r.tpot.mean_ms),
                measured.mean_tpot_ms,
                1.0,
            );
            push(
                "median_itl_ms",
                get(|r| r.itl.median_ms),
                measured.median_itl_ms,
                1.0,
            );
            push(
                "mean_ttft_ms",
                get(|r| r.ttft.mean_ms),
                measured.mean_ttft_ms,
                WEIGHT_TTFT,
            );
            push(
                "median_ttft_ms",
                get(|r| r.ttft.median_ms),
                measured.median_ttft_ms,
                WEIGHT_TTFT,
            );
        }
    }
    out
}

/// The weighted log-ratio residuals of `p` on every point of `run`.
pub(crate) fn run_residuals(run: &Run, p: &TimingParams, out: &mut Vec<f64>) {
    for point in &run.points {
        for (_, predicted, measured, w) in predict_point(run, p, point) {
            log_ratio(predicted, Some(measured), w, out);
        }
    }
}
