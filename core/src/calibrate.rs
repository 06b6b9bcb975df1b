//! Calibration: fit the timing parameters to a measured run by bounded least
//! squares (Levenberg-Marquardt from the `levenberg-marquardt` crate; bounds by
//! a logistic change of variables), then say which parameters the data pin
//! down, and cross-validate by leaving one measured cell out at a time.
//!
//! Residuals are log ratios (predicted / measured), so every cell weighs the
//! same whatever its scale: decode total tok/s and time between tokens at
//! weight 1, TTFT at [`WEIGHT_TTFT`], prefill tok/s at 1. Per-request tok/s is
//! 1 / time between tokens per request, so it adds no information.

use crate::error::{Error, Result};
use crate::matrix::{Phase, Predictor, Status};
use crate::measured::MeasuredRow;
use crate::timing::{decode_cell, prefill_row, TimingParams};
use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt};
use nalgebra::{DMatrix, DVector, Dyn, Owned};
use serde::Serialize;

/// TTFT residuals count less: a median of one sample per request, taken while
/// the ramp is still going, it is the noisiest figure of a cell.
pub const WEIGHT_TTFT: f64 = 0.3;

/// A measured cell the fit uses, with the running count the capacity model gives it.
#[derive(Clone, Debug)]
struct Target {
    row: MeasuredRow,
    running: u64,
}

fn targets(predictor: &Predictor, rows: &[MeasuredRow]) -> Vec<Target> {
    rows.iter()
        .filter(|r| r.status != Status::OverCapacity)
        .map(|r| {
            let cell = predictor.cell(r.phase, r.context_tokens, r.concurrency);
            Target {
                row: r.clone(),
                running: cell.running_requests,
            }
        })
        .filter(|t| t.running > 0)
        .collect()
}

fn log_ratio(predicted: f64, measured: Option<f64>) -> Option<f64> {
    match measured {
        Some(m) if m > 0.0 && predicted > 0.0 && predicted.is_finite() => {
            Some((predicted / m).ln())
        }
        _ => None,
    }
}

/// The weighted log-ratio residuals of `params` on `targets`.
fn residuals(predictor: &Predictor, params: &TimingParams, targets: &[Target]) -> Vec<f64> {
    let plan = predictor.plan;
    let mut out = Vec::new();
    for t in targets {
        let r = &t.row;
        match r.phase {
            Phase::Prefill => {
                let p = prefill_row(&predictor.work, params, &plan.harness, r.context_tokens);
                out.extend(log_ratio(p.tok_s, r.total_tok_s));
            }
            Phase::Decode => {
                let d = decode_cell(
                    &predictor.work,
                    params,
                    &plan.harness,
                    r.context_tokens,
                    r.concurrency,
                    t.running,
                );
                out.extend(log_ratio(d.total_tok_s, r.total_tok_s));
                out.extend(log_ratio(d.tbt_ms, r.tbt_ms));
                out.extend(log_ratio(d.ttft_ms, r.ttft_ms).map(|x| WEIGHT_TTFT * x));
            }
        }
    }
    out
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Unconstrained variable -> parameter inside its bounds.
fn to_params(theta: &DVector<f64>) -> TimingParams {
    let mut v = [0.0; 8];
    for (i, (slot, (lo, hi))) in v.iter_mut().zip(TimingParams::BOUNDS).enumerate() {
        let x = theta.get(i).copied().unwrap_or(0.0);
        *slot = lo + (hi - lo) * logistic(x);
    }
    TimingParams::from_array(v)
}

/// Parameter -> unconstrained variable (parameters at a bound move just inside).
fn to_theta(params: &TimingParams) -> DVector<f64> {
    let v = params.to_array();
    DVector::from_iterator(
        8,
        v.iter().zip(TimingParams::BOUNDS).map(|(&p, (lo, hi))| {
            let u = ((p - lo) / (hi - lo)).clamp(1e-4, 1.0 - 1e-4);
            (u / (1.0 - u)).ln()
        }),
    )
}

struct Problem<'a, 'b> {
    predictor: &'b Predictor<'a>,
    targets: &'b [Target],
    theta: DVector<f64>,
}

impl LeastSquaresProblem<f64, Dyn, Dyn> for Problem<'_, '_> {
    type ResidualStorage = Owned<f64, Dyn>;
    type JacobianStorage = Owned<f64, Dyn, Dyn>;
    type ParameterStorage = Owned<f64, Dyn>;

    fn set_params(&mut self, x: &DVector<f64>) {
        self.theta.copy_from(x);
    }

    fn params(&self) -> DVector<f64> {
        self.theta.clone()
    }

    fn residuals(&self) -> Option<DVector<f64>> {
        let r = residuals(self.predictor, &to_params(&self.theta), self.targets);
        r.iter()
            .all(|x| x.is_finite())
            .then(|| DVector::from_vec(r))
    }

    fn jacobian(&self) -> Option<DMatrix<f64>> {
        // Central differences in the unconstrained variables.
        let base = residuals(self.predictor, &to_params(&self.theta), self.targets);
        let mut j = DMatrix::zeros(base.len(), self.theta.len());
        for k in 0..self.theta.len() {
            let h = 1e-5;
            let mut plus = self.theta.clone();
            let mut minus = self.theta.clone();
            *plus.get_mut(k)? += h;
            *minus.get_mut(k)? -= h;
            let a = residuals(self.predictor, &to_params(&plus), self.targets);
            let b = residuals(self.predictor, &to_params(&minus), self.targets);
            if a.len() != base.len() || b.len() != base.len() {
                return None;
            }
            for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                *j.get_mut((i, k))? = (x - y) / (2.0 * h);
            }
        }
        j.iter().all(|x| x.is_finite()).then_some(j)
    }
}

/// One fitted parameter and how well the data determine it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParamReport {
    pub name: &'static str,
    pub value: f64,
    pub lower: f64,
    pub upper: f64,
    /// Standard error from the Jacobian at the optimum (None where singular).
    pub std_error: Option<f64>,
    /// Whether the data determine it: inside its bounds and a standard
    /// error under half its value.
    pub pinned_down: bool,
    /// Why not, when not.
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FitReport {
    pub params: TimingParams,
    pub parameters: Vec<ParamReport>,
    /// Half the sum of squared residuals at the optimum.
    pub objective: f64,
    pub residuals: usize,
    pub evaluations: usize,
    pub termination: String,
}

fn minimize(
    predictor: &Predictor,
    targets: &[Target],
    start: &TimingParams,
) -> (TimingParams, f64, usize, String) {
    let problem = Problem {
        predictor,
        targets,
        theta: to_theta(start),
    };
    let (problem, report) = LevenbergMarquardt::new()
        .with_patience(200)
        .minimize(problem);
    (
        to_params(&problem.theta),
        report.objective_function,
        report.number_of_evaluations,
        format!("{:?}", report.termination),
    )
}

/// Fit the timing parameters to the measured rows (over-capacity rows and
/// cells the capacity model says cannot run are skipped). Deterministic:
/// three fixed starting points, the best result wins.
pub fn fit(predictor: &Predictor, rows: &[MeasuredRow]) -> Result<FitReport> {
    let targets = targets(predictor, rows);
    let n_res = residuals(predictor, &TimingParams::FIRST_PRINCIPLES, &targets).len();
    if n_res < 2 * TimingParams::NAMES.len() {
        return Err(Error::new(format!(
            "only {n_res} measured figures to fit {} parameters",
            TimingParams::NAMES.len()
        ))
        .with_hint(
            "calibrate on a measured run with prefill rows and at least a dozen decode cells",
        ));
    }
    let fp = TimingParams::FIRST_PRINCIPLES;
    let scaled = |f: f64| {
        let mut v = fp.to_array();
        for (x, (lo, hi)) in v.iter_mut().zip(TimingParams::BOUNDS) {
            *x = (*x * f).clamp(lo, hi);
        }
        TimingParams::from_array(v)
    };
    let mut best: Option<(TimingParams, f64, usize, String)> = None;
    for start in [fp, scaled(0.5), scaled(1.5)] {
        let result = minimize(predictor, &targets, &start);
        if best.as_ref().is_none_or(|b| result.1 < b.1) {
            best = Some(result);
        }
    }
    let Some((params, objective, evaluations, termination)) = best else {
        return Err(Error::new("the fit did not run"));
    };
    let parameters = parameter_reports(predictor, &params, &targets, objective, n_res);
    Ok(FitReport {
        params,
        parameters,
        objective,
        residuals: n_res,
        evaluations,
        termination,
    })
}

/// Standard errors from `s^2 (J^T J)^-1` with J in the natural parameters.
fn parameter_reports(
    predictor: &Predictor,
    params: &TimingParams,
    targets: &[Target],
    objective: f64,
    n_res: usize,
) -> Vec<ParamReport> {
    let v = params.to_array();
    let base = residuals(predictor, params, targets);
    let mut j = DMatrix::zeros(base.len(), 8);
    for k in 0..8 {
        let (lo, hi) = TimingParams::BOUNDS.get(k).copied().unwrap_or((0.0, 1.0));
        let h = 1e-4 * (hi - lo);
        let mut up = v;
        let mut down = v;
        if let (Some(u), Some(d)) = (up.get_mut(k), down.get_mut(k)) {
            *u = (*u + h).min(hi);
            *d = (*d - h).max(lo);
        }
        let a = residuals(predictor, &TimingParams::from_array(up), targets);
        let b = residuals(predictor, &TimingParams::from_array(down), targets);
        let (pu, pd) = (
            up.get(k).copied().unwrap_or(0.0),
            down.get(k).copied().unwrap_or(0.0),
        );
        if a.len() == base.len() && b.len() == base.len() && pu > pd {
            for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                if let Some(cell) = j.get_mut((i, k)) {
                    *cell = (x - y) / (pu - pd);
                }
            }
        }
    }
    let dof = n_res.saturating_sub(8).max(1) as f64;
    let s2 = 2.0 * objective / dof;
    let cov = (j.transpose() * &j).try_inverse();
    TimingParams::NAMES
        .iter()
        .zip(v)
        .zip(TimingParams::BOUNDS)
        .enumerate()
        .map(|(k, ((&name, value), (lower, upper)))| {
            let std_error = cov
                .as_ref()
                .and_then(|c| c.get((k, k)).copied())
                .filter(|d| d.is_finite() && *d >= 0.0)
                .map(|d| (d * s2).sqrt());
            let edge = 1e-3 * (upper - lower);
            let at_bound = value - lower < edge || upper - value < edge;
            let loose = std_error.is_none_or(|e| e > 0.5 * value.abs());
            let note = if at_bound {
                Some(format!(
                    "at its bound ({}): the data push it there rather than pin it",
                    if value - lower < edge { lower } else { upper }
                ))
            } else if loose {
                Some("the data leave it loose (standard error over half its value)".to_string())
            } else {
                None
            };
            ParamReport {
                name,
                value,
                lower,
                upper,
                std_error,
                pinned_down: note.is_none(),
                note,
            }
        })
        .collect()
}

/// Leave-one-out: for each measured cell that ran (decode cells and prefill
/// rows), refit without it (from the full fit's parameters) so it can be
/// predicted unseen. Returns, per such row of `rows` (by index), the
/// parameters that did not see it.
pub fn leave_one_out(
    predictor: &Predictor,
    rows: &[MeasuredRow],
    full: &TimingParams,
) -> Vec<(usize, TimingParams)> {
    let all = targets(predictor, rows);
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.status != Status::OverCapacity)
        .map(|(i, r)| {
            let rest: Vec<Target> = all
                .iter()
                .filter(|t| {
                    !(t.row.phase == r.phase
                        && t.row.context_tokens == r.context_tokens
                        && t.row.concurrency == r.concurrency)
                })
                .cloned()
                .collect();
            (i, minimize(predictor, &rest, full).0)
        })
        .collect()
}

/// The harness's prompt-size relation from measured prefill rows: prompt
/// tokens (tok/s x TTFT) against the nominal context, a least-squares line.
/// Returns `(prompt_scale, prompt_extra_tokens)`, or None with fewer than two rows.
pub fn prompt_relation(rows: &[MeasuredRow]) -> Option<(f64, f64)> {
    let pts: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.phase == Phase::Prefill)
        .filter_map(|r| Some((r.context_tokens as f64, r.total_tok_s? * r.ttft_ms? / 1e3)))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    Some((slope, my - slope * mx))
}
