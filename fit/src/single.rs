//! One harness run: the single-run fit the `calibrate` and `compare`
//! subcommands use on a measured matrix, and which parameters it pins down.

use crate::error::{Error, Result};
use crate::*;
use decodecalc_core::matrix::{Phase, Predictor, Status};
use decodecalc_core::timing::{TimingParams, N_PARAMS};
use decodecalc_measured::rows::MeasuredRow;
use nalgebra::DMatrix;
use serde::Serialize;

// ----- One harness run: the single-run fit the `calibrate` and `compare`
// subcommands use on a measured matrix.

/// A harness run from a predictor and its measured rows (over-capacity rows
/// and cells the capacity model says cannot run are skipped).
pub fn harness_run(predictor: &Predictor, rows: &[MeasuredRow]) -> Run {
    let plan = predictor.plan;
    let points = rows
        .iter()
        .filter(|r| r.status != Status::OverCapacity)
        .filter_map(|r| {
            let cell = predictor.cell(r.phase, r.context_tokens, r.concurrency);
            (cell.running_requests > 0).then(|| Observed::Harness {
                row: r.clone(),
                running: cell.running_requests,
            })
        })
        .collect();
    let id = plan
        .measured
        .clone()
        .unwrap_or_else(|| plan.scenario_id.clone());
    Run {
        id,
        gpu: plan.gpu.id.clone(),
        source: plan
            .measured
            .clone()
            .unwrap_or_else(|| plan.scenario_id.clone()),
        class: plan.gpu.calibration_class().to_string(),
        family: plan.model.model.architecture.clone(),
        vllm_version: decodecalc_core::VLLM_VERSION.to_string(),
        work: predictor.work.clone(),
        harness: Some(plan.harness.clone()),
        points,
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
    /// Why not, when not (the CLI words it).
    pub why_not: Option<NotPinned>,
}

/// Why the data do not determine a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum NotPinned {
    /// No measured figure depends on it: it stays at its prior.
    Unmoved,
    /// The data push it to this bound rather than pin it.
    AtBound { bound: f64 },
    /// Its standard error is over half its value.
    Loose,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FitReport {
    pub params: TimingParams,
    pub parameters: Vec<ParamReport>,
    /// Half the sum of squared residuals (priors included) at the optimum.
    pub objective: f64,
    pub residuals: usize,
    pub evaluations: usize,
    pub termination: String,
}

/// Fit the timing parameters to one measured harness run.
pub fn fit(predictor: &Predictor, rows: &[MeasuredRow]) -> Result<FitReport> {
    let run = harness_run(predictor, rows);
    let runs = [run];
    let joint = fit_joint(&runs)?;
    let Some(class) = joint.classes.first() else {
        return Err(Error::DidNotRun);
    };
    let params = runs
        .first()
        .map_or(class.params, |r| joint.params_for(&r.class, r.engine()).0);
    let mut res = Vec::new();
    for r in &runs {
        run_residuals(r, &params, &mut res);
    }
    Ok(FitReport {
        params,
        parameters: parameter_reports(&runs, &params),
        objective: joint.objective,
        residuals: res.len(),
        evaluations: joint.evaluations,
        termination: joint.termination,
    })
}

/// Standard errors from `s^2 (J^T J)^-1` with J in the natural parameters,
/// over the data residuals of `runs` (all of one class).
pub fn parameter_reports(runs: &[Run], params: &TimingParams) -> Vec<ParamReport> {
    parameter_reports_over(runs, params, &|_| true)
}

/// [`parameter_reports`] with only the parameters `fitted` keeps free: the
/// others count as known (their standard errors are not estimated), so
/// what another group's data set does not blur what these runs pin.
pub(crate) fn parameter_reports_over(
    runs: &[Run],
    params: &TimingParams,
    fitted: &dyn Fn(usize) -> bool,
) -> Vec<ParamReport> {
    let v = params.to_array();
    let eval = |p: &TimingParams| {
        let mut out = Vec::new();
        for r in runs {
            run_residuals(r, p, &mut out);
        }
        out
    };
    let base = eval(params);
    let mut j = DMatrix::zeros(base.len(), N_PARAMS);
    for k in 0..N_PARAMS {
        let (lo, hi) = TimingParams::BOUNDS.get(k).copied().unwrap_or((0.0, 1.0));
        let h = 1e-4 * (hi - lo);
        let mut up = v;
        let mut down = v;
        if let (Some(u), Some(d)) = (up.get_mut(k), down.get_mut(k)) {
            *u = (*u + h).min(hi);
            *d = (*d - h).max(lo);
        }
        let a = eval(&TimingParams::from_array(up));
        let b = eval(&TimingParams::from_array(down));
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
    let dof = base.len().saturating_sub(N_PARAMS).max(1) as f64;
    let s2 = base.iter().map(|r| r * r).sum::<f64>() / dof;
    // Columns the data do not move at all are singular: report them as
    // undetermined rather than let them spoil the others' errors.
    let moved: Vec<bool> = (0..N_PARAMS)
        .map(|k| j.column(k).iter().any(|x| x.abs() > 1e-9))
        .collect();
    let idx: Vec<usize> = (0..N_PARAMS)
        .filter(|k| moved.get(*k) == Some(&true) && fitted(*k))
        .collect();
    let sub = DMatrix::from_fn(base.len(), idx.len(), |r, c| {
        idx.get(c)
            .and_then(|&k| j.get((r, k)).copied())
            .unwrap_or(0.0)
    });
    let cov = (sub.transpose() * &sub).try_inverse();
    TimingParams::NAMES
        .iter()
        .zip(v)
        .zip(TimingParams::BOUNDS)
        .enumerate()
        .map(|(k, ((&name, value), (lower, upper)))| {
            let std_error = idx.iter().position(|&x| x == k).and_then(|c| {
                cov.as_ref()
                    .and_then(|m| m.get((c, c)).copied())
                    .filter(|d| d.is_finite() && *d >= 0.0)
                    .map(|d| (d * s2).sqrt())
            });
            let edge = 1e-3 * (upper - lower);
            let at_bound = value - lower < edge || upper - value < edge;
            let unmoved = moved.get(k) == Some(&false);
            let loose = std_error.is_none_or(|e| e > 0.5 * value.abs());
            let why_not = if unmoved {
                Some(NotPinned::Unmoved)
            } else if at_bound {
                Some(NotPinned::AtBound {
                    bound: if value - lower < edge { lower } else { upper },
                })
            } else if loose {
                Some(NotPinned::Loose)
            } else {
                None
            };
            ParamReport {
                name,
                value,
                lower,
                upper,
                std_error,
                pinned_down: why_not.is_none(),
                why_not,
            }
        })
        .collect()
}

/// Leave-one-cell-out: for each measured cell that is not over capacity,
/// the parameters fitted on the other cells, each fit started afresh from
/// the first-principles values (the same three starts as [`fit`]), so
/// nothing of the held-out cell reaches its prediction, not even through a
/// starting point. A fit that cannot run (too few figures left) keeps
/// `fallback`.
pub fn leave_one_out(
    predictor: &Predictor,
    rows: &[MeasuredRow],
    fallback: &TimingParams,
) -> Vec<(usize, TimingParams)> {
    let run = harness_run(predictor, rows);
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.status != Status::OverCapacity)
        .map(|(i, r)| {
            let mut rest = run.clone();
            rest.points.retain(|p| match p {
                Observed::Harness { row, .. } => {
                    !(row.phase == r.phase
                        && row.context_tokens == r.context_tokens
                        && row.concurrency == r.concurrency)
                }
                Observed::Serve { .. } => true,
            });
            let p = fit_joint(std::slice::from_ref(&rest))
                .ok()
                .map(|f| f.params_for(&rest.class, rest.engine()).0)
                .unwrap_or(*fallback);
            (i, p)
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
