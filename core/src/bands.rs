//! Error bands as data: how far off predictions were on measured figures
//! the fit did not see, by figure, by what was held out, and by workload
//! regime. `calibrate` measures them and writes them into calibration files
//! ([`FitSummary`]); `scenario::Calibration` picks the one that matches a
//! prediction. Core writes no sentences about them: the CLI and the page
//! word them from these types.

use serde::{Deserialize, Serialize};

/// A family of measured figures that share an error band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::bands))]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// Time per output token: TPOT, ITL, time between tokens, and an
    /// offline run's wall time per output token.
    Tpot,
    /// Output and total throughput.
    Throughput,
    /// Time to first token.
    Ttft,
    /// Prefill tokens per second.
    Prefill,
}

impl Figure {
    /// Display order.
    pub const ALL: [Figure; 4] = [
        Figure::Tpot,
        Figure::Throughput,
        Figure::Ttft,
        Figure::Prefill,
    ];

    /// The family of a measured figure's name (`mean_tpot_ms`, `tbt_ms`,
    /// `output_tok_s`, ...).
    pub fn of(name: &str) -> Figure {
        match name {
            "mean_tpot_ms" | "median_itl_ms" | "tbt_ms" | "ms_per_output_token" => Figure::Tpot,
            "output_tok_s" | "total_tok_s" => Figure::Throughput,
            "mean_ttft_ms" | "median_ttft_ms" | "ttft_ms" => Figure::Ttft,
            _ => Figure::Prefill,
        }
    }

    /// Its name in tables.
    pub fn label(self) -> &'static str {
        match self {
            Figure::Tpot => "time per output token",
            Figure::Throughput => "output throughput",
            Figure::Ttft => "TTFT",
            Figure::Prefill => "prefill tok/s",
        }
    }

    /// The short name files and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Figure::Tpot => "tpot",
            Figure::Throughput => "throughput",
            Figure::Ttft => "ttft",
            Figure::Prefill => "prefill",
        }
    }
}

/// What a cross-validation held out: the predictions it scored never saw
/// any measured figure of that unit. Refits start cold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::bands))]
#[serde(rename_all = "kebab-case")]
pub enum HoldOut {
    /// One cell of a measured matrix (the one-run fit of `calibrate`).
    LeaveCellOut,
    /// Every run of one model family (its `architectures` name): how a
    /// model the fit never saw does on a GPU it did.
    LeaveFamilyOut,
    /// Every run on one GPU: how a GPU the fit never saw does, from its
    /// class's other GPUs or, the only one of its class, the shared values.
    LeaveGpuOut,
    /// Every run of one GPU class: how the shared values do on a class
    /// with no run.
    LeaveClassOut,
    /// Mixture-of-experts serving runs no fit saw (`calibrate --held-out`),
    /// predicted with the shipped fit: how a MoE model does where the
    /// fitted corpus has no MoE run, whose cross-validations would only
    /// say how dense models do.
    UnfittedMoeRuns,
    /// Published runs with speculative decoding, each predicted leave one
    /// run out (its acceptance without its own rows, the drafter's pass
    /// overhead refit on its GPU class's other runs; runs no fit reads as
    /// shipped): a speculative prediction on a GPU class with published
    /// runs of its own ([`SPECULATIVE_BANDS`]).
    SpeculativeRuns,
    /// The same runs with each one's pass overhead fitted on other GPU
    /// classes' runs only: a speculative prediction on a class without
    /// published speculative runs.
    SpeculativeClassOut,
}

impl HoldOut {
    pub fn name(self) -> &'static str {
        match self {
            HoldOut::LeaveCellOut => "leave-cell-out",
            HoldOut::LeaveFamilyOut => "leave-family-out",
            HoldOut::LeaveGpuOut => "leave-gpu-out",
            HoldOut::LeaveClassOut => "leave-class-out",
            HoldOut::UnfittedMoeRuns => "unfitted-moe-runs",
            HoldOut::SpeculativeRuns => "speculative-runs",
            HoldOut::SpeculativeClassOut => "speculative-class-out",
        }
    }
}

/// A workload regime, for error bands: one request at a time or several, a
/// short or a long context. The timing terms that dominate differ between
/// them (the weights read at batch 1; attention at long context; the host's
/// per-sequence share when batched), and so does the error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::bands))]
#[serde(rename_all = "kebab-case")]
pub enum Regime {
    Batch1Short,
    Batch1Long,
    BatchedShort,
    BatchedLong,
}

/// Prompt or context length from which a point counts as long-context: at
/// 8K tokens a bf16 8B model's KV read per sequence reaches a tenth of its
/// weight read, so decode attention starts to matter.
pub const LONG_CONTEXT_TOKENS: u64 = 8192;

/// The fewest held-out figures a workload regime needs for its own error
/// band; with fewer, the regime-wide band stands in.
pub const MIN_REGIME_FIGURES: u32 = 5;

impl Regime {
    pub const ALL: [Regime; 4] = [
        Regime::Batch1Short,
        Regime::Batch1Long,
        Regime::BatchedShort,
        Regime::BatchedLong,
    ];

    /// The regime of a point with `concurrency` requests at once over
    /// `context_tokens` of prompt or context.
    pub fn of(concurrency: u64, context_tokens: u64) -> Regime {
        match (concurrency <= 1, context_tokens >= LONG_CONTEXT_TOKENS) {
            (true, false) => Regime::Batch1Short,
            (true, true) => Regime::Batch1Long,
            (false, false) => Regime::BatchedShort,
            (false, true) => Regime::BatchedLong,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Regime::Batch1Short => "batch1-short",
            Regime::Batch1Long => "batch1-long",
            Regime::BatchedShort => "batched-short",
            Regime::BatchedLong => "batched-long",
        }
    }

    /// Its name in tables.
    pub fn label(self) -> &'static str {
        match self {
            Regime::Batch1Short => "1 request, context < 8K",
            Regime::Batch1Long => "1 request, context >= 8K",
            Regime::BatchedShort => "2+ requests, context < 8K",
            Regime::BatchedLong => "2+ requests, context >= 8K",
        }
    }
}

/// Absolute errors of a set of predictions, %.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::bands))]
#[serde(deny_unknown_fields)]
pub struct ErrorStats {
    pub figures: u32,
    pub mape_pct: f64,
    pub median_abs_pct: f64,
    pub p90_abs_pct: f64,
}

impl ErrorStats {
    /// The statistics of signed errors `errors_pct` (None when empty).
    pub fn of(errors_pct: &[f64]) -> Option<ErrorStats> {
        if errors_pct.is_empty() {
            return None;
        }
        let abs: Vec<f64> = errors_pct.iter().map(|e| e.abs()).collect();
        Some(ErrorStats {
            figures: u32::try_from(abs.len()).unwrap_or(u32::MAX),
            mape_pct: abs.iter().sum::<f64>() / abs.len() as f64,
            median_abs_pct: crate::stats::percentile(&abs, 50.0),
            p90_abs_pct: crate::stats::percentile(&abs, 90.0),
        })
    }
}

/// One error band: a figure's held-out errors under one hold-out, over all
/// regimes (`regime` None) or in one. Written with its statistics inline
/// and read through [`BandRow`], the same fields in one flat struct.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::bands))]
#[serde(from = "BandRow")]
pub struct BandRecord {
    pub figure: Figure,
    pub hold_out: HoldOut,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regime: Option<Regime>,
    #[serde(flatten)]
    pub stats: ErrorStats,
}

/// A [`BandRecord`] as a file has it: the band and its statistics as one
/// table. Read as a plain struct rather than through `#[serde(flatten)]`,
/// which buffers every field before it reads any (and admits no
/// `deny_unknown_fields`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BandRow {
    figure: Figure,
    hold_out: HoldOut,
    #[serde(default)]
    regime: Option<Regime>,
    figures: u32,
    mape_pct: f64,
    median_abs_pct: f64,
    p90_abs_pct: f64,
}

impl From<BandRow> for BandRecord {
    fn from(r: BandRow) -> BandRecord {
        BandRecord {
            figure: r.figure,
            hold_out: r.hold_out,
            regime: r.regime,
            stats: ErrorStats {
                figures: r.figures,
                mape_pct: r.mape_pct,
                median_abs_pct: r.median_abs_pct,
                p90_abs_pct: r.p90_abs_pct,
            },
        }
    }
}

/// A figure's in-sample error (the fit's own data: not evidence of
/// accuracy, shown beside the held-out bands for contrast).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::bands))]
#[serde(deny_unknown_fields)]
pub struct InSample {
    pub figure: Figure,
    pub figures: u32,
    pub mape_pct: f64,
}

/// What a calibration file records of its fit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::bands))]
#[serde(deny_unknown_fields)]
pub struct FitSummary {
    /// Runs of its class (or, for the shared values, of the whole fit).
    pub runs: u32,
    /// Measured figures of those runs.
    pub figures: u32,
    #[serde(default)]
    pub in_sample: Vec<InSample>,
    #[serde(default)]
    pub bands: Vec<BandRecord>,
}

impl FitSummary {
    /// The band of `figure` under `hold_out` in `regime` (None: over all
    /// regimes).
    pub fn band(
        &self,
        figure: Figure,
        hold_out: HoldOut,
        regime: Option<Regime>,
    ) -> Option<&BandRecord> {
        find(&self.bands, figure, hold_out, regime)
    }

    /// The hold-outs this summary has bands for, in [`HoldOut`] order.
    pub fn hold_outs(&self) -> Vec<HoldOut> {
        crate::units::sorted_set(self.bands.iter().map(|b| b.hold_out))
    }
}

/// The record of `figure` under `hold_out` in `regime` (None: over every
/// regime) among `records`.
pub fn find(
    records: &[BandRecord],
    figure: Figure,
    hold_out: HoldOut,
    regime: Option<Regime>,
) -> Option<&BandRecord> {
    records
        .iter()
        .find(|b| b.figure == figure && b.hold_out == hold_out && b.regime == regime)
}

/// The error bands of a speculative prediction's decode figures: output
/// tok/s and time per output token over every published speculative run
/// (`data/runs/speculative-*.csv`), by [`HoldOut::SpeculativeRuns`] and
/// [`HoldOut::SpeculativeClassOut`]. Measured by
/// `tests/tests/suite/speculative_accuracy.rs`
/// (`speculative_runs_leave_one_run_out` holds these to its errors, to
/// 0.1 point).
pub const SPECULATIVE_BANDS: [BandRecord; 4] = [
    speculative_band(
        Figure::Throughput,
        HoldOut::SpeculativeRuns,
        [14.8, 8.5, 28.7],
    ),
    speculative_band(Figure::Tpot, HoldOut::SpeculativeRuns, [14.7, 8.6, 39.3]),
    speculative_band(
        Figure::Throughput,
        HoldOut::SpeculativeClassOut,
        [46.4, 40.7, 92.0],
    ),
    speculative_band(
        Figure::Tpot,
        HoldOut::SpeculativeClassOut,
        [46.0, 41.7, 75.4],
    ),
];

/// The 57 points' band: MAPE, median and p90 of the absolute errors, %.
const fn speculative_band(figure: Figure, hold_out: HoldOut, pct: [f64; 3]) -> BandRecord {
    BandRecord {
        figure,
        hold_out,
        regime: None,
        stats: ErrorStats {
            figures: 57,
            mape_pct: pct[0],
            median_abs_pct: pct[1],
            p90_abs_pct: pct[2],
        },
    }
}
