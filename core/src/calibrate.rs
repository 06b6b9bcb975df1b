//! Calibration: fit the timing parameters to measured runs by bounded least
//! squares (Levenberg-Marquardt from the `levenberg-marquardt` crate; bounds by
//! a logistic change of variables), jointly over runs on several GPU
//! classes, then say which parameters the data pin down, and cross-validate.
//!
//! The joint model is hierarchical. Each parameter has a shared value `u`
//! (in log-odds of its bounds) and each GPU class with data a deviation
//! `d_c`; a class uses `lo + (hi - lo) logistic(u + d_c)`. Two priors keep
//! what the data do not determine at a physical value: every deviation is
//! pulled to 0 with width [`CLASS_PRIOR_LOGODDS`], every shared value to the
//! first-principles one with width [`SHARED_PRIOR_LOGODDS`]. A class with
//! plenty of data moves away from the shared value where its data say so;
//! one with none has no parameters of its own and uses the shared values
//! ([`JointFit::params_for`]).
//!
//! Residuals are log ratios (predicted / measured), so every figure weighs
//! the same whatever its scale: decode total tok/s and time between tokens
//! at weight 1, TTFT at [`WEIGHT_TTFT`], prefill tok/s at 1; for serving
//! runs output throughput and TPOT at 1, TTFT at [`WEIGHT_TTFT`].
//! Per-request tok/s is 1 / time between tokens per request, so it adds no
//! information.

use crate::engine::Harness;
use crate::error::{Error, Result};
use crate::matrix::{Phase, Predictor, Status};
use crate::measured::MeasuredRow;
use crate::serve::Workload;
use crate::timing::{decode_cell, prefill_row, TimingParams, Work, N_PARAMS};
use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt};
use nalgebra::{DMatrix, DVector, Dyn, Owned};
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
const PATIENCE: usize = 40;

/// The most runs one fit takes: leave-one-run-out refits once per run, so
/// this bounds a calibration's time (the public corpus has 69).
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
    /// Runs of one group (one model on one GPU setup, measured at several
    /// max_model_len) are left out together in cross-validation.
    pub group: String,
    /// The GPU preset it ran on.
    pub gpu: String,
    /// The file or preset it came from.
    pub source: String,
    /// The GPU's calibration class.
    pub class: String,
    /// vLLM release the run used.
    pub vllm_version: String,
    pub work: Work,
    /// The harness settings, for harness points.
    pub harness: Option<Harness>,
    pub points: Vec<Observed>,
}

impl Run {
    /// The workload regime of point `i`.
    fn regime_of(&self, i: usize) -> Regime {
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
            let r =
                crate::serve::simulate_lengths(&run.work, p, workload, lengths, *max_running).ok();
            let get = |f: fn(&crate::serve::ServeResult) -> f64| r.as_ref().map_or(f64::NAN, f);
            if workload.arrival == crate::serve::Arrival::Offline {
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
fn run_residuals(run: &Run, p: &TimingParams, out: &mut Vec<f64>) {
    for point in &run.points {
        for (_, predicted, measured, w) in predict_point(run, p, point) {
            log_ratio(predicted, Some(measured), w, out);
        }
    }
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Log-odds of each parameter inside its bounds (a bound moves just inside).
fn logodds(p: &TimingParams) -> [f64; N_PARAMS] {
    let mut out = [0.0; N_PARAMS];
    for ((o, v), (lo, hi)) in out.iter_mut().zip(p.to_array()).zip(TimingParams::BOUNDS) {
        let u = ((v - lo) / (hi - lo)).clamp(1e-6, 1.0 - 1e-6);
        *o = (u / (1.0 - u)).ln();
    }
    out
}

fn from_logodds(x: &[f64; N_PARAMS]) -> TimingParams {
    let mut v = [0.0; N_PARAMS];
    for ((slot, u), (lo, hi)) in v.iter_mut().zip(x).zip(TimingParams::BOUNDS) {
        *slot = lo + (hi - lo) * logistic(*u);
    }
    TimingParams::from_array(v)
}

/// One class's fitted parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassFit {
    pub class: String,
    pub params: TimingParams,
    /// The runs it was fitted on.
    pub runs: Vec<String>,
    /// vLLM releases of those runs.
    pub vllm_versions: Vec<String>,
}

/// A joint fit: the shared values and each class's parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointFit {
    pub shared: TimingParams,
    pub classes: Vec<ClassFit>,
    /// Half the sum of squared residuals (priors included) at the optimum.
    pub objective: f64,
    pub evaluations: usize,
    pub termination: String,
}

impl JointFit {
    /// The parameters a run or GPU of `class` uses: its class's own when
    /// fitted, else the shared values, which are what the hierarchical model
    /// expects of a class it has no data on. (Borrowing the nearest fitted
    /// class instead predicted the left-out classes worse: leave-one-run-out
    /// TPOT median 30% against 7% for the H100 run, 13% against 10% for the
    /// RTX 3090 run, better only for the L4, 8% against 27%; measured
    /// 2026-12-02 with `decodecalc calibrate` on the shipped corpus.)
    /// Returns them and the class they come from (None: shared).
    pub fn params_for(&self, class: &str) -> (TimingParams, Option<&str>) {
        match self.classes.iter().find(|c| c.class == class) {
            Some(c) => (c.params, Some(c.class.as_str())),
            None => (self.shared, None),
        }
    }
}

/// The least-squares problem: runs, their classes, and the free variables
/// `[shared (when free); one deviation vector per class]`.
struct Problem<'r> {
    runs: &'r [Run],
    classes: Vec<String>,
    /// Class index of each run.
    run_class: Vec<usize>,
    shared_free: bool,
    /// Shared log-odds when they are held fixed.
    shared_fixed: [f64; N_PARAMS],
    prior: [f64; N_PARAMS],
    theta: DVector<f64>,
}

impl<'r> Problem<'r> {
    fn new(runs: &'r [Run], start: Option<&JointFit>, shared_free: bool) -> Problem<'r> {
        let mut classes: Vec<String> = runs.iter().map(|r| r.class.clone()).collect();
        classes.sort();
        classes.dedup();
        let run_class = runs
            .iter()
            .map(|r| classes.iter().position(|c| *c == r.class).unwrap_or(0))
            .collect();
        let prior = logodds(&TimingParams::FIRST_PRINCIPLES);
        let shared = start.map_or(prior, |s| logodds(&s.shared));
        let mut theta = Vec::new();
        if shared_free {
            theta.extend(shared);
        }
        for c in &classes {
            let own = start
                .and_then(|s| s.classes.iter().find(|x| x.class == *c))
                .map(|x| logodds(&x.params));
            for k in 0..N_PARAMS {
                let d = own.map_or(0.0, |o| {
                    o.get(k).copied().unwrap_or(0.0) - shared.get(k).copied().unwrap_or(0.0)
                });
                theta.push(d);
            }
        }
        Problem {
            runs,
            classes,
            run_class,
            shared_free,
            shared_fixed: shared,
            prior,
            theta: DVector::from_vec(theta),
        }
    }

    fn shared(&self, theta: &DVector<f64>) -> [f64; N_PARAMS] {
        if !self.shared_free {
            return self.shared_fixed;
        }
        let mut s = [0.0; N_PARAMS];
        for (k, x) in s.iter_mut().enumerate() {
            *x = theta.get(k).copied().unwrap_or(0.0);
        }
        s
    }

    fn offset(&self, class: usize) -> usize {
        (if self.shared_free { N_PARAMS } else { 0 }) + class * N_PARAMS
    }

    fn class_params(&self, theta: &DVector<f64>, class: usize) -> TimingParams {
        let shared = self.shared(theta);
        let off = self.offset(class);
        let mut x = [0.0; N_PARAMS];
        for (k, slot) in x.iter_mut().enumerate() {
            *slot =
                shared.get(k).copied().unwrap_or(0.0) + theta.get(off + k).copied().unwrap_or(0.0);
        }
        from_logodds(&x)
    }

    /// Residuals of each run (by run) and of the priors.
    fn residual_parts(
        &self,
        theta: &DVector<f64>,
        only_class: Option<usize>,
    ) -> Vec<Option<Vec<f64>>> {
        let params: Vec<TimingParams> = (0..self.classes.len())
            .map(|c| self.class_params(theta, c))
            .collect();
        self.runs
            .iter()
            .zip(&self.run_class)
            .map(|(run, &c)| {
                if only_class.is_some_and(|o| o != c) {
                    return None;
                }
                let mut out = Vec::new();
                if let Some(p) = params.get(c) {
                    run_residuals(run, p, &mut out);
                }
                Some(out)
            })
            .collect()
    }

    fn priors(&self, theta: &DVector<f64>) -> Vec<f64> {
        let mut out = Vec::new();
        for c in 0..self.classes.len() {
            let off = self.offset(c);
            for k in 0..N_PARAMS {
                out.push(theta.get(off + k).copied().unwrap_or(0.0) / CLASS_PRIOR_LOGODDS);
            }
        }
        if self.shared_free {
            let s = self.shared(theta);
            for (x, p) in s.iter().zip(self.prior) {
                out.push((x - p) / SHARED_PRIOR_LOGODDS);
            }
        }
        out
    }

    fn all_residuals(&self, theta: &DVector<f64>) -> Vec<f64> {
        let mut out: Vec<f64> = self
            .residual_parts(theta, None)
            .into_iter()
            .flatten()
            .flatten()
            .collect();
        out.extend(self.priors(theta));
        out
    }

    fn result(&self, objective: f64, evaluations: usize, termination: String) -> JointFit {
        let shared = from_logodds(&self.shared(&self.theta));
        let classes = self
            .classes
            .iter()
            .enumerate()
            .map(|(c, name)| {
                let runs: Vec<&Run> = self
                    .runs
                    .iter()
                    .zip(&self.run_class)
                    .filter(|(_, &rc)| rc == c)
                    .map(|(r, _)| r)
                    .collect();
                let mut versions: Vec<String> =
                    runs.iter().map(|r| r.vllm_version.clone()).collect();
                // In release order (0.8.5 before 0.11.0).
                versions.sort_by_key(|v| crate::version::VllmVersion::parse("", v).ok());
                versions.dedup();
                ClassFit {
                    class: name.clone(),
                    params: self.class_params(&self.theta, c),
                    runs: runs.iter().map(|r| r.id.clone()).collect(),
                    vllm_versions: versions,
                }
            })
            .collect();
        JointFit {
            shared,
            classes,
            objective,
            evaluations,
            termination,
        }
    }
}

impl LeastSquaresProblem<f64, Dyn, Dyn> for Problem<'_> {
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
        let r = self.all_residuals(&self.theta);
        r.iter()
            .all(|x| x.is_finite())
            .then(|| DVector::from_vec(r))
    }

    fn jacobian(&self) -> Option<DMatrix<f64>> {
        // Central differences; a class's deviation moves only its runs'
        // residuals, so only those are recomputed; priors are analytic.
        let base = self.residual_parts(&self.theta, None);
        let lens: Vec<usize> = base
            .iter()
            .map(|p| p.as_ref().map_or(0, Vec::len))
            .collect();
        let starts: Vec<usize> = lens
            .iter()
            .scan(0, |acc, l| {
                let s = *acc;
                *acc += l;
                Some(s)
            })
            .collect();
        let n_data: usize = lens.iter().sum();
        let n_prior = self.priors(&self.theta).len();
        let n = self.theta.len();
        let mut j = DMatrix::zeros(n_data + n_prior, n);
        // A step of 1% in log-odds: the serving simulation is a chain of
        // discrete events (a request that arrives during a step waits for
        // its end), so its figures move in small jumps as a parameter
        // moves; differences over a wider step average them out where a
        // tiny one would read a jump as a huge derivative.
        let h = 1e-2;
        let shared_cols = if self.shared_free { N_PARAMS } else { 0 };
        // Only the deviations are perturbed: a run's parameters are
        // `u + d_c`, so its derivative by a shared `u_k` is its derivative by
        // its class's `d_{c,k}` (the shared columns are filled from them).
        for k in shared_cols..n {
            let class = (k - shared_cols) / N_PARAMS;
            let mut plus = self.theta.clone();
            let mut minus = self.theta.clone();
            *plus.get_mut(k)? += h;
            *minus.get_mut(k)? -= h;
            let a = self.residual_parts(&plus, Some(class));
            let b = self.residual_parts(&minus, Some(class));
            for (run, (ra, rb)) in a.iter().zip(&b).enumerate() {
                let (Some(ra), Some(rb)) = (ra, rb) else {
                    continue;
                };
                let (start, len) = (*starts.get(run)?, *lens.get(run)?);
                if ra.len() != len || rb.len() != len {
                    return None;
                }
                for (i, (x, y)) in ra.iter().zip(rb).enumerate() {
                    let d = (x - y) / (2.0 * h);
                    *j.get_mut((start + i, k))? = d;
                    if self.shared_free {
                        *j.get_mut((start + i, (k - shared_cols) % N_PARAMS))? = d;
                    }
                }
            }
        }
        // Priors: d_c / s_c, and (u - prior) / s_shared.
        let mut row = n_data;
        for c in 0..self.classes.len() {
            let off = self.offset(c);
            for k in 0..N_PARAMS {
                *j.get_mut((row, off + k))? = 1.0 / CLASS_PRIOR_LOGODDS;
                row += 1;
            }
        }
        if self.shared_free {
            for k in 0..N_PARAMS {
                *j.get_mut((row, k))? = 1.0 / SHARED_PRIOR_LOGODDS;
                row += 1;
            }
        }
        j.iter().all(|x| x.is_finite()).then_some(j)
    }
}

fn solve(problem: Problem<'_>) -> JointFit {
    let (problem, report) = LevenbergMarquardt::new()
        .with_ftol(1e-10)
        .with_xtol(1e-8)
        .with_patience(PATIENCE)
        .minimize(problem);
    problem.result(
        report.objective_function,
        report.number_of_evaluations,
        format!("{:?}", report.termination),
    )
}

/// Fit every run jointly (see the module doc). `start` warm-starts the fit
/// (leave-one-out refits start from the full fit). Deterministic.
pub fn fit_joint(runs: &[Run], start: Option<&JointFit>) -> Result<JointFit> {
    if runs.len() > MAX_FIT_RUNS {
        return Err(Error::new(format!(
            "{} runs to fit; a calibration takes at most {MAX_FIT_RUNS}",
            runs.len()
        ))
        .with_hint("split the measured runs into several calibrations (one per GPU class)"));
    }
    let figures: usize = runs
        .iter()
        .map(|r| {
            let mut v = Vec::new();
            run_residuals(r, &TimingParams::FIRST_PRINCIPLES, &mut v);
            v.len()
        })
        .sum();
    if figures > MAX_FIT_FIGURES {
        return Err(Error::new(format!(
            "{figures} measured figures to fit; a calibration takes at most {MAX_FIT_FIGURES}"
        ))
        .with_hint("fit on fewer runs or points (one GPU class at a time)"));
    }
    if figures < 2 * N_PARAMS {
        return Err(Error::new(format!(
            "only {figures} measured figures to fit {N_PARAMS} parameters"
        ))
        .with_hint("calibrate on measured runs with at least two dozen figures between them (a harness run with prefill rows and a dozen decode cells, or several serving runs)"));
    }
    if start.is_some() {
        return Ok(solve(Problem::new(runs, start, true)));
    }
    // Three fixed starting points (first principles, and every parameter
    // halved and one and a half times, inside its bounds); the best wins.
    let fp = TimingParams::FIRST_PRINCIPLES;
    let scaled = |f: f64| {
        let mut v = fp.to_array();
        for (x, (lo, hi)) in v.iter_mut().zip(TimingParams::BOUNDS) {
            *x = (*x * f).clamp(lo, hi);
        }
        TimingParams::from_array(v)
    };
    let mut best: Option<JointFit> = None;
    for p in [fp, scaled(0.5), scaled(1.5)] {
        let seed = JointFit {
            shared: p,
            classes: Vec::new(),
            objective: 0.0,
            evaluations: 0,
            termination: String::new(),
        };
        let fit = solve(Problem::new(runs, Some(&seed), true));
        if best.as_ref().is_none_or(|b| fit.objective < b.objective) {
            best = Some(fit);
        }
    }
    best.ok_or_else(|| Error::new("the fit did not run"))
}

/// Leave-one-run-out: for each run, the parameters a fit without it gives
/// its class (or, when it was its class's only run, the shared values), so
/// it can be predicted unseen. Each refit starts from `full`.
pub fn leave_one_run_out(
    runs: &[Run],
    full: &JointFit,
) -> Vec<(usize, TimingParams, Option<String>)> {
    let mut groups: Vec<&str> = runs.iter().map(|r| r.group.as_str()).collect();
    groups.sort();
    groups.dedup();
    let mut out = Vec::new();
    for g in groups {
        let rest: Vec<Run> = runs.iter().filter(|r| r.group != g).cloned().collect();
        let fit = solve(Problem::new(&rest, Some(full), true));
        for (i, r) in runs.iter().enumerate().filter(|(_, r)| r.group == g) {
            let (p, from) = fit.params_for(&r.class);
            out.push((i, p, from.map(str::to_string)));
        }
    }
    out.sort_by_key(|x| x.0);
    out
}

/// Errors of a run's figures under `p`, percent, by figure name.
pub fn run_errors(run: &Run, p: &TimingParams) -> Vec<(usize, &'static str, f64)> {
    let mut out = Vec::new();
    for (i, point) in run.points.iter().enumerate() {
        for (name, predicted, measured, _) in predict_point(run, p, point) {
            out.push((i, name, (predicted / measured - 1.0) * 100.0));
        }
    }
    out
}

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
        group: id.clone(),
        id,
        gpu: plan.gpu.id.clone(),
        source: plan
            .measured
            .clone()
            .unwrap_or_else(|| plan.scenario_id.clone()),
        class: plan
            .gpu
            .calibration_class
            .clone()
            .unwrap_or_else(|| plan.gpu.id.clone()),
        vllm_version: crate::VLLM_VERSION.to_string(),
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
    /// Why not, when not.
    pub note: Option<String>,
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
    let joint = fit_joint(&runs, None)?;
    let Some(class) = joint.classes.first() else {
        return Err(Error::new("the fit did not run"));
    };
    let params = class.params;
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
        .filter(|k| moved.get(*k) == Some(&true))
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
            let note = if unmoved {
                Some("no measured figure depends on it: it stays at its prior".to_string())
            } else if at_bound {
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
            let p = fit_joint(std::slice::from_ref(&rest), None)
                .ok()
                .and_then(|f| f.classes.first().map(|c| c.params))
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

// ----- Cross-validated reports of a joint fit.

/// What a figure measures, for error summaries: time per output token (TPOT,
/// ITL, time between tokens, an offline run's wall time per token), output
/// throughput, time to first token, prefill throughput.
pub fn family(figure: &str) -> &'static str {
    match figure {
        "mean_tpot_ms" | "median_itl_ms" | "tbt_ms" | "ms_per_output_token" => "tpot",
        "output_tok_s" | "total_tok_s" => "throughput",
        "mean_ttft_ms" | "median_ttft_ms" | "ttft_ms" => "ttft",
        _ => "prefill",
    }
}

/// A family's name in tables.
pub fn family_label(family: &str) -> &'static str {
    match family {
        "tpot" => "time per output token",
        "throughput" => "output throughput",
        "ttft" => "TTFT",
        _ => "prefill tok/s",
    }
}

/// The summary families in display order.
pub const FAMILIES: [&str; 4] = ["tpot", "throughput", "ttft", "prefill"];

/// Prompt or context length from which a point counts as long-context: at
/// 8K tokens a bf16 8B model's KV read per sequence reaches a tenth of its
/// weight read, so decode attention starts to matter.
pub const LONG_CONTEXT_TOKENS: u64 = 8192;

/// A calibration file's `[fit]` key for a family's leave-one-run-out
/// figure `what` in `regime` (written by [`calibration_files`], read by
/// `scenario::CalibrationFile::regime_band`).
pub fn regime_key(family: &str, regime: Regime, what: &str) -> String {
    format!("loo_{family}_{}_{what}", regime.name())
}

/// The fewest cross-validated figures a workload regime needs for its own
/// error band; with fewer, the class-wide band stands in and says so.
pub const MIN_REGIME_FIGURES: usize = 5;

/// A workload regime, for error bands: one request at a time or several, a
/// short or a long context. The timing terms that dominate differ between
/// them (the weights read at batch 1; attention at long context; the host's
/// per-sequence share when batched), and so does the error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Regime {
    Batch1Short,
    Batch1Long,
    BatchedShort,
    BatchedLong,
}

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

    /// In words, for tables.
    pub fn label(self) -> &'static str {
        match self {
            Regime::Batch1Short => "1 request, context < 8K",
            Regime::Batch1Long => "1 request, context >= 8K",
            Regime::BatchedShort => "2+ requests, context < 8K",
            Regime::BatchedLong => "2+ requests, context >= 8K",
        }
    }
}

impl Observed {
    /// The point's workload regime.
    pub fn regime(&self) -> Regime {
        match self {
            Observed::Harness { row, .. } => Regime::of(row.concurrency, row.context_tokens),
            Observed::Serve {
                workload, lengths, ..
            } => {
                let concurrency = match workload.arrival {
                    crate::serve::Arrival::Serve {
                        max_concurrency, ..
                    } => max_concurrency
                        .unwrap_or(workload.num_prompts)
                        .min(workload.num_prompts),
                    crate::serve::Arrival::Offline => workload.num_prompts,
                };
                let input = if lengths.is_empty() {
                    workload.input_tokens
                } else {
                    let n = lengths.len() as u64;
                    lengths.iter().map(|l| l.0).sum::<u64>() / n.max(1)
                };
                Regime::of(concurrency, input)
            }
        }
    }
}

/// Errors of one family in one class: in-sample and leave-one-run-out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FamilyErrors {
    pub family: &'static str,
    pub points: usize,
    /// With the first-principles parameters (`--calibration none`).
    pub first_principles_mape_pct: f64,
    pub in_sample_mape_pct: f64,
    pub loo_mape_pct: f64,
    pub loo_median_abs_pct: f64,
    pub loo_p90_abs_pct: f64,
}

/// A class's errors in one workload regime.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegimeErrors {
    pub regime: Regime,
    pub families: Vec<FamilyErrors>,
}

/// A class's fit and its cross-validated errors.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassReport {
    pub fit: ClassFit,
    pub points: usize,
    pub families: Vec<FamilyErrors>,
    /// The same errors by workload regime (regimes with no figure left out).
    pub regimes: Vec<RegimeErrors>,
    /// Where this class's runs were predicted from when left out: its own
    /// other runs, or (its only run) the shared values.
    pub loo_from: Vec<String>,
}

/// One run's errors.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    pub id: String,
    pub class: String,
    pub vllm_version: String,
    /// (point, figure, in-sample error %, leave-one-run-out error %,
    /// first-principles error %, the point's regime).
    pub errors: Vec<(String, &'static str, f64, f64, f64, Regime)>,
    /// The class whose parameters predicted it when it was left out (None: shared).
    pub loo_from: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointReport {
    pub fit: JointFit,
    pub classes: Vec<ClassReport>,
    pub runs: Vec<RunReport>,
    /// Over every run: the same errors, all classes together.
    pub overall: Vec<FamilyErrors>,
    /// Leave-class-out: each class's runs predicted by a fit without any run
    /// of that class, from its shared values (what a GPU of an unfitted
    /// class gets), all classes pooled (in-sample columns unused).
    pub transfer: Vec<FamilyErrors>,
    /// Classes that contributed to `transfer`.
    pub transfer_classes: usize,
}

/// (figure, in-sample error, leave-one-out error, first-principles error
/// (%), the point's regime).
type Errors = (&'static str, f64, f64, f64, Regime);

fn family_errors(errors: &[Errors]) -> Vec<FamilyErrors> {
    FAMILIES
        .iter()
        .filter_map(|&f| {
            let e: Vec<(f64, f64, f64)> = errors
                .iter()
                .filter(|x| family(x.0) == f)
                .map(|x| (x.1, x.2, x.3))
                .collect();
            if e.is_empty() {
                return None;
            }
            let n = e.len() as f64;
            let loo: Vec<f64> = e.iter().map(|x| x.1.abs()).collect();
            Some(FamilyErrors {
                family: f,
                points: e.len(),
                first_principles_mape_pct: e.iter().map(|x| x.2.abs()).sum::<f64>() / n,
                in_sample_mape_pct: e.iter().map(|x| x.0.abs()).sum::<f64>() / n,
                loo_mape_pct: loo.iter().sum::<f64>() / n,
                loo_median_abs_pct: crate::stats::percentile(&loo, 50.0),
                loo_p90_abs_pct: crate::stats::percentile(&loo, 90.0),
            })
        })
        .collect()
}

/// Fit `runs` jointly, then leave each run out and predict it.
pub fn joint_report(runs: &[Run]) -> Result<JointReport> {
    let fit = fit_joint(runs, None)?;
    let loo = leave_one_run_out(runs, &fit);
    let mut reports = Vec::new();
    for (run, (_, loo_params, from)) in runs.iter().zip(&loo) {
        let (own, _) = fit.params_for(&run.class);
        let a = run_errors(run, &own);
        let b = run_errors(run, loo_params);
        let c = run_errors(run, &TimingParams::FIRST_PRINCIPLES);
        let errors = a
            .iter()
            .zip(&b)
            .zip(&c)
            .map(|((x, y), z)| {
                let point = run.points.get(x.0);
                let label = point.map(Observed::label).unwrap_or_default();
                let regime = run.regime_of(x.0);
                (label, x.1, x.2, y.2, z.2, regime)
            })
            .collect();
        reports.push(RunReport {
            id: run.id.clone(),
            class: run.class.clone(),
            vllm_version: run.vllm_version.clone(),
            errors,
            loo_from: from.clone(),
        });
    }
    let flat = |filter: &dyn Fn(&RunReport) -> bool| -> Vec<Errors> {
        reports
            .iter()
            .filter(|r| filter(r))
            .flat_map(|r| r.errors.iter().map(|e| (e.1, e.2, e.3, e.4, e.5)))
            .collect()
    };
    let classes = fit
        .classes
        .iter()
        .map(|c| {
            let errors = flat(&|r: &RunReport| r.class == c.class);
            let mut from: Vec<String> = reports
                .iter()
                .filter(|r| r.class == c.class)
                .map(|r| r.loo_from.clone().unwrap_or_else(|| "shared".to_string()))
                .collect();
            from.sort();
            from.dedup();
            let regimes = Regime::ALL
                .iter()
                .filter_map(|&regime| {
                    let mine: Vec<Errors> =
                        errors.iter().filter(|e| e.4 == regime).copied().collect();
                    (!mine.is_empty()).then(|| RegimeErrors {
                        regime,
                        families: family_errors(&mine),
                    })
                })
                .collect();
            ClassReport {
                fit: c.clone(),
                points: errors.len(),
                families: family_errors(&errors),
                regimes,
                loo_from: from,
            }
        })
        .collect();
    let overall = family_errors(&flat(&|_| true));
    // Leave-class-out (a class's only run left out is exactly that already).
    let mut transfer_errors: Vec<Errors> = Vec::new();
    let mut transfer_classes = 0;
    for c in &fit.classes {
        let rest: Vec<Run> = runs
            .iter()
            .filter(|r| r.class != c.class)
            .cloned()
            .collect();
        if rest.is_empty() {
            continue;
        }
        transfer_classes += 1;
        let mine: Vec<&Run> = runs.iter().filter(|r| r.class == c.class).collect();
        let without = if mine.len() == 1 {
            None
        } else {
            Some(solve(Problem::new(&rest, Some(&fit), true)))
        };
        for run in mine {
            let p = match &without {
                Some(f) => f.params_for(&c.class).0,
                None => loo
                    .iter()
                    .zip(runs)
                    .find(|(_, r)| r.id == run.id)
                    .map_or(fit.shared, |(l, _)| l.1),
            };
            transfer_errors.extend(
                run_errors(run, &p)
                    .into_iter()
                    .map(|e| (e.1, e.2, e.2, 0.0, run.regime_of(e.0))),
            );
        }
    }
    Ok(JointReport {
        fit,
        classes,
        runs: reports,
        overall,
        transfer: family_errors(&transfer_errors),
        transfer_classes,
    })
}

/// The calibration files of a joint report, one per class and `shared`
/// (the shared values, for GPUs of a class with no fitted runs): `sources`
/// are the measured files or presets, `command` the command line that
/// fitted it.
pub fn calibration_files(
    report: &JointReport,
    runs: &[Run],
    sources: &[String],
    command: &str,
) -> Vec<crate::scenario::CalibrationFile> {
    let mut files: Vec<crate::scenario::CalibrationFile> = report
        .classes
        .iter()
        .map(|c| {
            let mine: Vec<&Run> = runs.iter().filter(|r| r.class == c.fit.class).collect();
            let mut gpus: Vec<String> = mine.iter().map(|r| r.gpu.clone()).collect();
            gpus.sort();
            gpus.dedup();
            let mut fitted_on: Vec<String> = mine.iter().map(|r| r.source.clone()).collect();
            fitted_on.sort();
            fitted_on.dedup();
            if fitted_on.is_empty() {
                fitted_on = sources.to_vec();
            }
            let mut fit = std::collections::BTreeMap::new();
            fit.insert("runs".to_string(), mine.len() as f64);
            // 1 when every left-out run of the class was predicted from
            // another class's parameters (it was the class's only run).
            fit.insert(
                "loo_from_other_class".to_string(),
                if c.loo_from.iter().all(|f| *f != c.fit.class) { 1.0 } else { 0.0 },
            );
            fit.insert("figures".to_string(), c.points as f64);
            for f in &c.families {
                let k = f.family;
                fit.insert(format!("in_sample_{k}_mape_pct"), f.in_sample_mape_pct);
                fit.insert(format!("loo_{k}_mape_pct"), f.loo_mape_pct);
                fit.insert(format!("loo_{k}_median_abs_pct"), f.loo_median_abs_pct);
                fit.insert(format!("loo_{k}_p90_abs_pct"), f.loo_p90_abs_pct);
            }
            for r in &c.regimes {
                for f in &r.families {
                    let key = |what| regime_key(f.family, r.regime, what);
                    fit.insert(key("figures"), f.points as f64);
                    fit.insert(key("median_abs_pct"), f.loo_median_abs_pct);
                    fit.insert(key("p90_abs_pct"), f.loo_p90_abs_pct);
                }
            }
            for f in &report.transfer {
                let k = f.family;
                fit.insert(format!("transfer_{k}_median_abs_pct"), f.loo_median_abs_pct);
                fit.insert(format!("transfer_{k}_p90_abs_pct"), f.loo_p90_abs_pct);
            }
            fit.insert("transfer_classes".to_string(), report.transfer_classes as f64);
            crate::scenario::CalibrationFile {
                id: c.fit.class.clone(),
                class: c.fit.class.clone(),
                gpus: gpus.clone(),
                vllm_versions: c.fit.vllm_versions.clone(),
                description: format!(
                    "GPU class {} (fitted on {} with vLLM {}): runs: {}, fitted jointly with the other classes",
                    c.fit.class,
                    gpus.join(", "),
                    c.fit.vllm_versions.join(", "),
                    mine.len()
                ),
                fitted_on,
                runs: c.fit.runs.clone(),
                command: command.to_string(),
                params: c.fit.params,
                fit,
            }
        })
        .collect();
    let mut versions: Vec<String> = runs.iter().map(|r| r.vllm_version.clone()).collect();
    versions.sort_by_key(|v| crate::version::VllmVersion::parse("", v).ok());
    versions.dedup();
    let mut fit = std::collections::BTreeMap::new();
    fit.insert("runs".to_string(), runs.len() as f64);
    fit.insert(
        "transfer_classes".to_string(),
        report.transfer_classes as f64,
    );
    for f in &report.transfer {
        let k = f.family;
        fit.insert(format!("transfer_{k}_median_abs_pct"), f.loo_median_abs_pct);
        fit.insert(format!("transfer_{k}_p90_abs_pct"), f.loo_p90_abs_pct);
    }
    files.push(crate::scenario::CalibrationFile {
        id: SHARED.to_string(),
        class: SHARED.to_string(),
        gpus: Vec::new(),
        vllm_versions: versions,
        description: format!(
            "the joint fit's shared values over {} runs in {} GPU classes: what a GPU of a class with no fitted run uses",
            runs.len(),
            report.classes.len()
        ),
        fitted_on: sources.to_vec(),
        runs: runs.iter().map(|r| r.id.clone()).collect(),
        command: command.to_string(),
        params: report.fit.shared,
        fit,
    });
    files
}

/// The id and class of the shared-values calibration.
pub const SHARED: &str = "shared";
