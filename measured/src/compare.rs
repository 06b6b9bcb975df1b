//! Comparison of predictions with a measured run: per cell, measured and
//! predicted figures with signed errors; a summary of absolute percentage
//! errors per metric; optionally the same for leave-one-out predictions.

use crate::error::{Error, Result};
use crate::rows::MeasuredRow;
use decodecalc_core::matrix::{Cell, Phase, Predictor, Status};
use decodecalc_core::timing::TimingParams;
use decodecalc_core::units::format_tokens;
use serde::Serialize;

/// The figures compared, measured or predicted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Figures {
    pub total_tok_s: Option<f64>,
    pub per_request_tok_s: Option<f64>,
    pub tbt_ms: Option<f64>,
    pub ttft_ms: Option<f64>,
    pub avg_active_requests: Option<f64>,
}

impl Figures {
    fn of_row(r: &MeasuredRow) -> Figures {
        Figures {
            total_tok_s: r.total_tok_s,
            per_request_tok_s: r.per_request_tok_s,
            tbt_ms: r.tbt_ms,
            ttft_ms: r.ttft_ms,
            avg_active_requests: r.avg_active_requests,
        }
    }

    fn of_cell(c: &Cell) -> Figures {
        Figures {
            total_tok_s: c.total_tok_s,
            per_request_tok_s: c.per_request_tok_s,
            tbt_ms: c.tbt_ms,
            ttft_ms: c.harness_ttft_ms(),
            avg_active_requests: c.avg_active_requests,
        }
    }
}

fn pct(predicted: Option<f64>, measured: Option<f64>) -> Option<f64> {
    match (predicted, measured) {
        (Some(p), Some(m)) if m != 0.0 => Some((p / m - 1.0) * 100.0),
        _ => None,
    }
}

fn errors(predicted: &Figures, measured: &Figures) -> Figures {
    Figures {
        total_tok_s: pct(predicted.total_tok_s, measured.total_tok_s),
        per_request_tok_s: pct(predicted.per_request_tok_s, measured.per_request_tok_s),
        tbt_ms: pct(predicted.tbt_ms, measured.tbt_ms),
        ttft_ms: pct(predicted.ttft_ms, measured.ttft_ms),
        avg_active_requests: pct(predicted.avg_active_requests, measured.avg_active_requests),
    }
}

/// One measured cell next to its prediction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellComparison {
    pub phase: Phase,
    pub context_tokens: u64,
    pub concurrency: u64,
    pub measured_status: Status,
    pub predicted_status: Status,
    pub measured: Figures,
    pub predicted: Figures,
    /// Signed error of the prediction, percent of the measured value.
    pub error_pct: Figures,
    /// The prediction of a fit that did not see this cell (with `--cross-validate`).
    pub loo_predicted: Option<Figures>,
    pub loo_error_pct: Option<Figures>,
}

/// Absolute percentage errors of one metric.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Metric {
    pub n: usize,
    pub mape_pct: f64,
    pub max_abs_pct: f64,
}

impl Metric {
    fn of(errors: impl Iterator<Item = f64>) -> Metric {
        let v: Vec<f64> = errors.map(f64::abs).collect();
        let n = v.len();
        Metric {
            n,
            mape_pct: if n == 0 {
                0.0
            } else {
                v.iter().sum::<f64>() / n as f64
            },
            max_abs_pct: v.iter().copied().fold(0.0, f64::max),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Metrics {
    /// Decode cells.
    pub total_tok_s: Metric,
    pub per_request_tok_s: Metric,
    pub tbt_ms: Metric,
    pub ttft_ms: Metric,
    /// Prefill rows.
    pub prefill_tok_s: Metric,
    pub avg_active_requests: Metric,
}

impl Metrics {
    fn of(cells: &[CellComparison], pick: impl Fn(&CellComparison) -> Option<Figures>) -> Metrics {
        let decode = |f: fn(&Figures) -> Option<f64>| {
            Metric::of(
                cells
                    .iter()
                    .filter(|c| c.phase == Phase::Decode)
                    .filter_map(|c| pick(c).as_ref().and_then(f)),
            )
        };
        Metrics {
            total_tok_s: decode(|f| f.total_tok_s),
            per_request_tok_s: decode(|f| f.per_request_tok_s),
            tbt_ms: decode(|f| f.tbt_ms),
            ttft_ms: decode(|f| f.ttft_ms),
            prefill_tok_s: Metric::of(
                cells
                    .iter()
                    .filter(|c| c.phase == Phase::Prefill)
                    .filter_map(|c| pick(c).and_then(|f| f.total_tok_s)),
            ),
            avg_active_requests: decode(|f| f.avg_active_requests),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Measured cells compared (prefill rows and decode cells).
    pub cells: usize,
    /// Cells whose predicted status equals the measured one.
    pub status_agreement: usize,
    pub metrics: Metrics,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub scenario: String,
    /// The vLLM release modelled.
    pub vllm_version: String,
    pub calibration: String,
    pub summary: Summary,
    /// Leave-one-out errors, with `--cross-validate`.
    pub cross_validation: Option<Metrics>,
    pub cells: Vec<CellComparison>,
}

/// Check that every measured row is a cell of the plan's grid.
pub fn check_rows(predictor: &Predictor, rows: &[MeasuredRow]) -> Result<()> {
    let h = &predictor.plan.harness;
    for r in rows {
        let (list, name) = match r.phase {
            Phase::Prefill => (&h.prefill_contexts_tokens, "prefill contexts"),
            Phase::Decode => (&h.contexts_tokens, "contexts"),
        };
        if !list.contains(&r.context_tokens) {
            return Err(Error::OffGrid {
                origin: r.source.clone(),
                column: "context_tokens",
                value: r.context_tokens,
                grid: name,
                have: list.iter().map(|&c| format_tokens(c)).collect(),
            });
        }
        if r.phase == Phase::Decode && !h.concurrency.contains(&r.concurrency) {
            return Err(Error::OffGrid {
                origin: r.source.clone(),
                column: "concurrency",
                value: r.concurrency,
                grid: "concurrency levels",
                have: h.concurrency.iter().map(u64::to_string).collect(),
            });
        }
    }
    Ok(())
}

/// Compare the predictor's cells with `rows`.
pub fn compare(predictor: &Predictor, rows: &[MeasuredRow]) -> Result<Comparison> {
    check_rows(predictor, rows)?;
    Ok(comparison(predictor, rows, None))
}

/// The comparison of checked `rows` ([`check_rows`]), with the leave-one-out
/// refits' params when there are any (`decodecalc_fit::compare`, which the
/// page, fitting nothing, does not link).
pub fn comparison(
    predictor: &Predictor,
    rows: &[MeasuredRow],
    loo: Option<&[(usize, TimingParams)]>,
) -> Comparison {
    let cells: Vec<CellComparison> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let cell = predictor.cell(r.phase, r.context_tokens, r.concurrency);
            let measured = Figures::of_row(r);
            let predicted = Figures::of_cell(&cell);
            let loo_predicted =
                loo.unwrap_or_default()
                    .iter()
                    .find(|(j, _)| *j == i)
                    .map(|(_, params)| {
                        Figures::of_cell(&predictor.with_params(*params).cell(
                            r.phase,
                            r.context_tokens,
                            r.concurrency,
                        ))
                    });
            CellComparison {
                phase: r.phase,
                context_tokens: r.context_tokens,
                concurrency: r.concurrency,
                measured_status: r.status,
                predicted_status: cell.status,
                error_pct: errors(&predicted, &measured),
                loo_error_pct: loo_predicted.as_ref().map(|p| errors(p, &measured)),
                measured,
                predicted,
                loo_predicted,
            }
        })
        .collect();
    let summary = Summary {
        cells: cells.len(),
        status_agreement: cells
            .iter()
            .filter(|c| c.measured_status == c.predicted_status)
            .count(),
        metrics: Metrics::of(&cells, |c| Some(c.error_pct)),
    };
    let cross_validation = loo.map(|_| Metrics::of(&cells, |c| c.loo_error_pct));
    Comparison {
        scenario: predictor.plan.scenario_id.clone(),
        vllm_version: predictor.plan.engine.vllm_version.to_string(),
        calibration: predictor.plan.calibration.label(),
        summary,
        cross_validation,
        cells,
    }
}

impl Comparison {
    /// What a one-run fit records of itself: each figure's in-sample error
    /// and, with `--cross-validate`, its leave-cell-out band (decode total
    /// tok/s as throughput, time between tokens as TPOT, TTFT; prefill rows'
    /// tok/s as prefill).
    pub fn fit_summary(&self) -> decodecalc_core::bands::FitSummary {
        use decodecalc_core::bands::{
            BandRecord, ErrorStats, Figure, FitSummary, HoldOut, InSample,
        };
        let pick = |c: &CellComparison, f: &Figures, figure: Figure| match (c.phase, figure) {
            (Phase::Prefill, Figure::Prefill) => f.total_tok_s,
            (Phase::Decode, Figure::Throughput) => f.total_tok_s,
            (Phase::Decode, Figure::Tpot) => f.tbt_ms,
            (Phase::Decode, Figure::Ttft) => f.ttft_ms,
            _ => None,
        };
        let mut summary = FitSummary {
            runs: 1,
            figures: 0,
            in_sample: Vec::new(),
            bands: Vec::new(),
        };
        for figure in Figure::ALL {
            let own: Vec<f64> = self
                .cells
                .iter()
                .filter_map(|c| pick(c, &c.error_pct, figure))
                .filter(|x| x.is_finite())
                .collect();
            if let Some(s) = ErrorStats::of(&own) {
                summary.figures += s.figures;
                summary.in_sample.push(InSample {
                    figure,
                    figures: s.figures,
                    mape_pct: s.mape_pct,
                });
            }
            let held: Vec<f64> = self
                .cells
                .iter()
                .filter_map(|c| pick(c, c.loo_error_pct.as_ref()?, figure))
                .filter(|x| x.is_finite())
                .collect();
            if let Some(stats) = ErrorStats::of(&held) {
                summary.bands.push(BandRecord {
                    figure,
                    hold_out: HoldOut::LeaveCellOut,
                    regime: None,
                    stats,
                });
            }
        }
        summary
    }
}
