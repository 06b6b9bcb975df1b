//! Calibration: fit the timing parameters to measured runs by bounded least
//! squares (Levenberg-Marquardt from the `levenberg-marquardt` crate; bounds by
//! a logistic change of variables), jointly over runs on several GPU
//! classes, then say which parameters the data pin down, and cross-validate.
//!
//! The joint model is hierarchical. Each parameter has a shared value `u`
//! (in log-odds of its bounds). A GPU-scope parameter (an efficiency or a
//! kernel floor, [`Scope::Gpu`]) has a deviation `d_c` for each GPU class
//! with data; an engine-scope one (the host's costs, [`Scope::Engine`]) a
//! deviation `d_g` for each engine generation ([`EngineGeneration`]: V0 or
//! V1) with data. A run uses `lo + (hi - lo) logistic(u + d)` with the
//! deviation of its class or of its generation, so what an old release's
//! host costs is not stored as a property of the GPU it was measured on.
//! Two priors keep what the data do not determine at a physical value:
//! every deviation is pulled to 0 with width [`CLASS_PRIOR_LOGODDS`], every
//! shared value to the first-principles one with width
//! [`SHARED_PRIOR_LOGODDS`]. A class or generation with plenty of data
//! moves away from the shared value where its data say so; one with none
//! uses the shared values ([`JointFit::params_for`]).
//!
//! Residuals are log ratios (predicted / measured), so every figure weighs
//! the same whatever its scale: decode total tok/s and time between tokens
//! at weight 1, TTFT at [`WEIGHT_TTFT`], prefill tok/s at 1; for serving
//! runs output throughput and TPOT at 1, TTFT at [`WEIGHT_TTFT`].
//! Per-request tok/s is 1 / time between tokens per request, so it adds no
//! information.

use crate::bands::{BandRecord, ErrorStats, FitSummary, InSample};
pub use crate::bands::{Figure, HoldOut, Regime, LONG_CONTEXT_TOKENS, MIN_REGIME_FIGURES};
use crate::engine::Harness;
use crate::error::{Error, Result};
use crate::matrix::{Phase, Predictor, Status};
use crate::measured::MeasuredRow;
use crate::serve::Workload;
use crate::timing::{
    decode_cell, prefill_row, EngineGeneration, Scope, TimingParams, Work, N_PARAMS,
};
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
        crate::version::VllmVersion::parse("", &self.vllm_version)
            .map_or(EngineGeneration::V1, EngineGeneration::of)
    }

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
    /// Its GPU-scope parameters ([`crate::timing::Scope::Gpu`]) with the
    /// shared engine-scope values; [`JointFit::params_for`] combines it with
    /// an engine generation's.
    pub params: TimingParams,
    /// The runs it was fitted on.
    pub runs: Vec<String>,
    /// vLLM releases of those runs.
    pub vllm_versions: Vec<String>,
    /// The GPU-scope parameters it fits on its own (those its runs pin
    /// down, [`MAX_CLASS_PARAMS`] at most); the others are the shared
    /// values. Empty in a one-class fit, where the shared values are its own.
    pub free: Vec<&'static str>,
}

/// One engine generation's fitted parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineFit {
    pub engine: EngineGeneration,
    /// Its engine-scope parameters ([`crate::timing::Scope::Engine`]) with
    /// the shared GPU-scope values.
    pub params: TimingParams,
    /// The runs it was fitted on.
    pub runs: Vec<String>,
}

/// A joint fit: the shared values, each GPU class's and each engine
/// generation's parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointFit {
    pub shared: TimingParams,
    pub classes: Vec<ClassFit>,
    pub engines: Vec<EngineFit>,
    /// Half the sum of squared residuals (priors included) at the optimum.
    pub objective: f64,
    pub evaluations: usize,
    pub termination: String,
}

impl JointFit {
    /// The parameters a run or GPU of `class` on an `engine` release uses:
    /// GPU-scope values from its class when fitted, engine-scope values
    /// from its engine generation when fitted, the shared values otherwise
    /// (what the hierarchical model expects of a class or generation it has
    /// no data on). (Borrowing the nearest fitted class instead predicted
    /// the left-out classes worse: leave-one-run-out TPOT median 30% against
    /// 7% for the H100 run, 13% against 10% for the RTX 3090 run, better only
    /// for the L4, 8% against 27%; measured 2026-12-02 with `decodecalc
    /// calibrate` on the shipped corpus.) Returns them and the class they
    /// come from (None: shared).
    pub fn params_for(
        &self,
        class: &str,
        engine: EngineGeneration,
    ) -> (TimingParams, Option<&str>) {
        let own = self.classes.iter().find(|c| c.class == class);
        let gen = self.engines.iter().find(|e| e.engine == engine);
        let gpu = own.map_or(&self.shared, |c| &c.params).to_array();
        let host = gen.map_or(&self.shared, |e| &e.params).to_array();
        let mut v = [0.0; N_PARAMS];
        for (k, slot) in v.iter_mut().enumerate() {
            let from = match TimingParams::SCOPES.get(k) {
                Some(Scope::Engine) => &host,
                _ => &gpu,
            };
            *slot = from.get(k).copied().unwrap_or(0.0);
        }
        (TimingParams::from_array(v), own.map(|c| c.class.as_str()))
    }

    /// What a V0 release uses on `class`, when the fit had a V0 run.
    pub fn v0_params(&self, class: &str) -> Option<TimingParams> {
        self.engines
            .iter()
            .any(|e| e.engine == EngineGeneration::V0)
            .then(|| self.params_for(class, EngineGeneration::V0).0)
    }
}

/// A group of runs with deviations of their own: a GPU class (on the
/// GPU-scope parameters) or an engine generation (on the engine-scope ones).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Group {
    Class(usize),
    Engine(usize),
}

/// The least-squares problem: runs, their classes and engine generations,
/// and the free variables `[shared (when free); one deviation vector per
/// class; one per engine generation]` (a class's deviations on the
/// engine-scope parameters, and a generation's on the GPU-scope ones, are
/// held at zero by their priors: no residual depends on them).
struct Problem<'r> {
    runs: &'r [Run],
    classes: Vec<String>,
    engines: Vec<EngineGeneration>,
    /// Class index of each run.
    run_class: Vec<usize>,
    /// Engine-generation index of each run.
    run_engine: Vec<usize>,
    shared_free: bool,
    /// Shared log-odds when they are held fixed.
    shared_fixed: [f64; N_PARAMS],
    prior: [f64; N_PARAMS],
    theta: DVector<f64>,
    /// The GPU-scope parameters each class may deviate on (by class
    /// index; None: all of them).
    class_free: Option<Vec<Vec<usize>>>,
}

/// Whether a deviation of `group` moves parameter `k`.
fn acts_on(group: Group, k: usize) -> bool {
    matches!(
        (group, TimingParams::SCOPES.get(k)),
        (Group::Class(_), Some(Scope::Gpu)) | (Group::Engine(_), Some(Scope::Engine))
    )
}

impl<'r> Problem<'r> {
    fn new(runs: &'r [Run], start: Option<&JointFit>, shared_free: bool) -> Problem<'r> {
        let mut classes: Vec<String> = runs.iter().map(|r| r.class.clone()).collect();
        classes.sort();
        classes.dedup();
        let mut engines: Vec<EngineGeneration> = runs.iter().map(Run::engine).collect();
        engines.sort();
        engines.dedup();
        let run_class = runs
            .iter()
            .map(|r| classes.iter().position(|c| *c == r.class).unwrap_or(0))
            .collect();
        let run_engine = runs
            .iter()
            .map(|r| engines.iter().position(|e| *e == r.engine()).unwrap_or(0))
            .collect();
        let prior = logodds(&TimingParams::FIRST_PRINCIPLES);
        let shared = start.map_or(prior, |s| logodds(&s.shared));
        let mut theta = Vec::new();
        if shared_free {
            theta.extend(shared);
        }
        let deviation = |own: Option<[f64; N_PARAMS]>, theta: &mut Vec<f64>| {
            for k in 0..N_PARAMS {
                theta.push(own.map_or(0.0, |o| {
                    o.get(k).copied().unwrap_or(0.0) - shared.get(k).copied().unwrap_or(0.0)
                }));
            }
        };
        for c in &classes {
            let own = start
                .and_then(|s| s.classes.iter().find(|x| x.class == *c))
                .map(|x| logodds(&x.params));
            deviation(own, &mut theta);
        }
        for e in &engines {
            let own = start
                .and_then(|s| s.engines.iter().find(|x| x.engine == *e))
                .map(|x| logodds(&x.params));
            deviation(own, &mut theta);
        }
        Problem {
            runs,
            classes,
            engines,
            run_class,
            run_engine,
            shared_free,
            shared_fixed: shared,
            prior,
            theta: DVector::from_vec(theta),
            class_free: None,
        }
    }

    /// The same problem with each class deviating only on the parameters
    /// `free` names for it (by class name); the others' deviations are
    /// held at zero.
    fn with_class_free(mut self, free: &[(String, Vec<usize>)]) -> Problem<'r> {
        let per_class: Vec<Vec<usize>> = self
            .classes
            .iter()
            .map(|c| {
                free.iter()
                    .find(|(name, _)| name == c)
                    .map(|(_, ks)| ks.clone())
                    .unwrap_or_default()
            })
            .collect();
        for (c, ks) in per_class.iter().enumerate() {
            let off = self.offset(Group::Class(c));
            for k in 0..N_PARAMS {
                if !ks.contains(&k) {
                    if let Some(x) = self.theta.get_mut(off + k) {
                        *x = 0.0;
                    }
                }
            }
        }
        self.class_free = Some(per_class);
        self
    }

    /// Whether a deviation of `group` on parameter `k` is a free variable.
    fn free(&self, group: Group, k: usize) -> bool {
        acts_on(group, k)
            && match (group, &self.class_free) {
                (Group::Class(c), Some(free)) => free.get(c).is_some_and(|ks| ks.contains(&k)),
                _ => true,
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

    fn shared_cols(&self) -> usize {
        if self.shared_free {
            N_PARAMS
        } else {
            0
        }
    }

    fn groups(&self) -> usize {
        self.classes.len() + self.engines.len()
    }

    fn group(&self, g: usize) -> Group {
        if g < self.classes.len() {
            Group::Class(g)
        } else {
            Group::Engine(g - self.classes.len())
        }
    }

    fn offset(&self, group: Group) -> usize {
        let g = match group {
            Group::Class(c) => c,
            Group::Engine(e) => self.classes.len() + e,
        };
        self.shared_cols() + g * N_PARAMS
    }

    /// Adds `group`'s deviations to the log-odds `x` on the parameters it
    /// acts on.
    fn add_deviation(&self, theta: &DVector<f64>, group: Group, x: &mut [f64; N_PARAMS]) {
        let off = self.offset(group);
        for (k, slot) in x.iter_mut().enumerate() {
            if acts_on(group, k) {
                *slot += theta.get(off + k).copied().unwrap_or(0.0);
            }
        }
    }

    /// The log-odds of a group's parameters (shared plus its deviation on
    /// the parameters it acts on).
    fn group_logodds(&self, theta: &DVector<f64>, group: Group) -> [f64; N_PARAMS] {
        let mut x = self.shared(theta);
        self.add_deviation(theta, group, &mut x);
        x
    }

    /// The parameters of a run of `class` on engine `engine`.
    fn run_params(&self, theta: &DVector<f64>, class: usize, engine: usize) -> TimingParams {
        let mut x = self.group_logodds(theta, Group::Class(class));
        self.add_deviation(theta, Group::Engine(engine), &mut x);
        from_logodds(&x)
    }

    fn in_group(&self, run: usize, group: Group) -> bool {
        match group {
            Group::Class(c) => self.run_class.get(run) == Some(&c),
            Group::Engine(e) => self.run_engine.get(run) == Some(&e),
        }
    }

    /// Residuals of each run (by run; None for runs outside `only`).
    fn residual_parts(&self, theta: &DVector<f64>, only: Option<Group>) -> Vec<Option<Vec<f64>>> {
        (0..self.runs.len())
            .map(|i| {
                if only.is_some_and(|g| !self.in_group(i, g)) {
                    return None;
                }
                let (Some(run), Some(&c), Some(&e)) = (
                    self.runs.get(i),
                    self.run_class.get(i),
                    self.run_engine.get(i),
                ) else {
                    return Some(Vec::new());
                };
                let mut out = Vec::new();
                run_residuals(run, &self.run_params(theta, c, e), &mut out);
                Some(out)
            })
            .collect()
    }

    fn priors(&self, theta: &DVector<f64>) -> Vec<f64> {
        let mut out = Vec::new();
        for g in 0..self.groups() {
            let off = self.offset(self.group(g));
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
        let runs_where = |keep: &dyn Fn(usize) -> bool| -> Vec<&Run> {
            self.runs
                .iter()
                .enumerate()
                .filter(|(i, _)| keep(*i))
                .map(|(_, r)| r)
                .collect()
        };
        let classes = self
            .classes
            .iter()
            .enumerate()
            .map(|(c, name)| {
                let runs = runs_where(&|i| self.run_class.get(i) == Some(&c));
                let mut versions: Vec<String> =
                    runs.iter().map(|r| r.vllm_version.clone()).collect();
                // In release order (0.8.5 before 0.11.0).
                versions.sort_by_key(|v| crate::version::VllmVersion::parse("", v).ok());
                versions.dedup();
                ClassFit {
                    class: name.clone(),
                    params: from_logodds(&self.group_logodds(&self.theta, Group::Class(c))),
                    runs: runs.iter().map(|r| r.id.clone()).collect(),
                    vllm_versions: versions,
                    free: Vec::new(),
                }
            })
            .collect();
        let engines = self
            .engines
            .iter()
            .enumerate()
            .map(|(e, &engine)| EngineFit {
                engine,
                params: from_logodds(&self.group_logodds(&self.theta, Group::Engine(e))),
                runs: runs_where(&|i| self.run_engine.get(i) == Some(&e))
                    .iter()
                    .map(|r| r.id.clone())
                    .collect(),
            })
            .collect();
        JointFit {
            shared,
            classes,
            engines,
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
        // Central differences; a group's deviation moves only its runs'
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
        let shared_cols = self.shared_cols();
        // Only the deviations are perturbed: a run's parameter k is `u_k`
        // plus the deviation of the one group (its class or its engine
        // generation) that acts on k, so its derivative by a shared `u_k` is
        // its derivative by that deviation (the shared columns are filled
        // from them). Deviations that act on nothing have no data column.
        for col in shared_cols..n {
            let group = self.group((col - shared_cols) / N_PARAMS);
            let k = (col - shared_cols) % N_PARAMS;
            if !self.free(group, k) {
                continue;
            }
            let mut plus = self.theta.clone();
            let mut minus = self.theta.clone();
            *plus.get_mut(col)? += h;
            *minus.get_mut(col)? -= h;
            let a = self.residual_parts(&plus, Some(group));
            let b = self.residual_parts(&minus, Some(group));
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
                    *j.get_mut((start + i, col))? = d;
                    if self.shared_free {
                        *j.get_mut((start + i, k))? = d;
                    }
                }
            }
        }
        // Priors: d_g / s_g, and (u - prior) / s_shared.
        let mut row = n_data;
        for g in 0..self.groups() {
            let off = self.offset(self.group(g));
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

/// Fit every run jointly (see the module doc), from the three fixed
/// starting points only: there is no way to start a fit from another fit,
/// so a leave-out refit cannot see its held-out data through a starting
/// point (ARCHITECTURE.md's invariant; `tests/tests/suite/calibration.rs`
/// `leave_out_refits_start_cold`). Deterministic.
pub fn fit_joint(runs: &[Run]) -> Result<JointFit> {
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
            engines: Vec::new(),
            objective: 0.0,
            evaluations: 0,
            termination: String::new(),
        };
        let fit = solve(Problem::new(runs, Some(&seed), true));
        if best.as_ref().is_none_or(|b| fit.objective < b.objective) {
            best = Some(fit);
        }
    }
    let best = best.ok_or_else(|| Error::new("the fit did not run"))?;
    if best.classes.len() < 2 {
        // One class: its deviation and the shared value are one parameter.
        return Ok(best);
    }
    // Second pass: each class deviates only where its own runs pin the
    // parameter down, at most MAX_CLASS_PARAMS of them; the rest take the
    // shared values the other classes' data set. Started from the first
    // pass, which saw these runs and no others.
    let free = class_free_params(runs, &best);
    let mut fit = solve(Problem::new(runs, Some(&best), true).with_class_free(&free));
    for c in &mut fit.classes {
        c.free = free
            .iter()
            .find(|(name, _)| *name == c.class)
            .map(|(_, ks)| {
                ks.iter()
                    .filter_map(|&k| TimingParams::NAMES.get(k).copied())
                    .collect()
            })
            .unwrap_or_default();
    }
    Ok(fit)
}

/// The most GPU-scope parameters a class fits on its own in a joint fit.
pub const MAX_CLASS_PARAMS: usize = 6;

/// Each class's GPU-scope parameters its own runs pin down (by
/// [`parameter_reports`] on them at `fit`'s values, the engine-scope ones
/// taken as known: all runs of the engine generation set them), the best determined
/// first (smallest standard error against the value), at most
/// [`MAX_CLASS_PARAMS`].
fn class_free_params(runs: &[Run], fit: &JointFit) -> Vec<(String, Vec<usize>)> {
    fit.classes
        .iter()
        .map(|c| {
            let mine: Vec<Run> = runs
                .iter()
                .filter(|r| r.class == c.class)
                .cloned()
                .collect();
            let engine = mine.first().map_or(EngineGeneration::V1, Run::engine);
            let (p, _) = fit.params_for(&c.class, engine);
            let gpu = |k: usize| TimingParams::SCOPES.get(k) == Some(&Scope::Gpu);
            let mut pinned: Vec<(usize, f64)> = parameter_reports_over(&mine, &p, &gpu)
                .iter()
                .enumerate()
                .filter(|(k, r)| r.pinned_down && gpu(*k))
                .map(|(k, r)| {
                    (
                        k,
                        r.std_error.unwrap_or(f64::MAX) / r.value.abs().max(1e-12),
                    )
                })
                .collect();
            pinned.sort_by(|a, b| a.1.total_cmp(&b.1));
            pinned.truncate(MAX_CLASS_PARAMS);
            let mut ks: Vec<usize> = pinned.into_iter().map(|x| x.0).collect();
            ks.sort_unstable();
            (c.class.clone(), ks)
        })
        .collect()
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
        family: plan.model.model.architecture.clone(),
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
        return Err(Error::new("the fit did not run"));
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
fn parameter_reports_over(
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

// ----- Cross-validated reports of a joint fit.

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

/// The hold-outs a joint report cross-validates by, in the order
/// [`PointErrors::held_out_pct`] lists them.
pub const CV_HOLD_OUTS: [HoldOut; 3] = [
    HoldOut::LeaveFamilyOut,
    HoldOut::LeaveGpuOut,
    HoldOut::LeaveClassOut,
];

/// The unit `hold_out` takes out of a run.
fn unit_of(run: &Run, hold_out: HoldOut) -> &str {
    match hold_out {
        HoldOut::LeaveFamilyOut => &run.family,
        HoldOut::LeaveGpuOut => &run.gpu,
        HoldOut::LeaveClassOut => &run.class,
        HoldOut::LeaveCellOut => &run.id,
    }
}

/// Cross-validation: for each run, the parameters a fit without every run
/// of its unit (model family, GPU, class) gives its class, or the shared
/// values when no run of its class is left; with the class named (None:
/// shared). Every refit is a cold [`fit_joint`]; when the rest is too
/// small to fit, the run is predicted from first principles (None).
pub fn cross_validate(runs: &[Run], hold_out: HoldOut) -> Vec<(TimingParams, Option<String>)> {
    let mut units: Vec<&str> = runs.iter().map(|r| unit_of(r, hold_out)).collect();
    units.sort_unstable();
    units.dedup();
    // One cold refit per unit, each on its own thread: they share nothing,
    // so the result is the same as one after another.
    let fits: Vec<(&str, Option<JointFit>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = units
            .iter()
            .map(|&unit| {
                scope.spawn(move || {
                    let rest: Vec<Run> = runs
                        .iter()
                        .filter(|r| unit_of(r, hold_out) != unit)
                        .cloned()
                        .collect();
                    (unit, fit_joint(&rest).ok())
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut out = vec![(TimingParams::FIRST_PRINCIPLES, None); runs.len()];
    for (unit, fit) in &fits {
        let Some(fit) = fit else { continue };
        for (slot, run) in out.iter_mut().zip(runs) {
            if unit_of(run, hold_out) == *unit {
                let (p, from) = fit.params_for(&run.class, run.engine());
                *slot = (p, from.map(str::to_string));
            }
        }
    }
    out
}

/// One measured figure of a run: its errors in sample, from first
/// principles and under each of [`CV_HOLD_OUTS`] (signed, %).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PointErrors {
    pub point: String,
    /// The measured figure's name (`mean_tpot_ms`, `tbt_ms`, ...).
    pub name: &'static str,
    pub figure: Figure,
    pub regime: Regime,
    pub first_principles_pct: f64,
    pub in_sample_pct: f64,
    pub held_out_pct: [f64; 3],
}

/// One run's errors.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    pub id: String,
    pub class: String,
    pub gpu: String,
    pub family: String,
    pub vllm_version: String,
    pub errors: Vec<PointErrors>,
    /// Whose parameters predicted it under each of [`CV_HOLD_OUTS`]: its
    /// class's (the class named) or the shared values (None).
    pub held_out_from: [Option<String>; 3],
}

/// Errors of one figure over a set of runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FigureErrors {
    pub figure: Figure,
    pub figures: u32,
    /// With the first-principles parameters (`--calibration none`).
    pub first_principles_mape_pct: f64,
    pub in_sample_mape_pct: f64,
    /// Under each of [`CV_HOLD_OUTS`].
    pub held_out: [ErrorStats; 3],
}

/// The errors of a set of runs (a class, a GPU, a model family, all).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupReport {
    pub name: String,
    pub runs: usize,
    pub figures: Vec<FigureErrors>,
}

impl GroupReport {
    fn of(name: &str, runs: &[&RunReport]) -> GroupReport {
        let points: Vec<&PointErrors> = runs.iter().flat_map(|r| r.errors.iter()).collect();
        let figures = Figure::ALL
            .iter()
            .filter_map(|&figure| {
                let mine: Vec<&PointErrors> = points
                    .iter()
                    .copied()
                    .filter(|e| e.figure == figure)
                    .collect();
                let stats = |f: &dyn Fn(&PointErrors) -> f64| {
                    let v: Vec<f64> = mine
                        .iter()
                        .map(|e| f(e))
                        .filter(|x| x.is_finite())
                        .collect();
                    ErrorStats::of(&v)
                };
                let held =
                    |k: usize| stats(&|e| e.held_out_pct.get(k).copied().unwrap_or(f64::NAN));
                Some(FigureErrors {
                    figure,
                    figures: u32::try_from(mine.len()).unwrap_or(u32::MAX),
                    first_principles_mape_pct: stats(&|e| e.first_principles_pct)?.mape_pct,
                    in_sample_mape_pct: stats(&|e| e.in_sample_pct)?.mape_pct,
                    held_out: [held(0)?, held(1)?, held(2)?],
                })
            })
            .collect();
        GroupReport {
            name: name.to_string(),
            runs: runs.len(),
            figures,
        }
    }

    /// The errors of `figure`, if the group has any.
    pub fn figure(&self, figure: Figure) -> Option<&FigureErrors> {
        self.figures.iter().find(|f| f.figure == figure)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointReport {
    pub fit: JointFit,
    pub runs: Vec<RunReport>,
    /// By GPU class, by GPU, by model family, and over every run.
    pub classes: Vec<GroupReport>,
    pub gpus: Vec<GroupReport>,
    pub families: Vec<GroupReport>,
    pub overall: GroupReport,
}

impl JointReport {
    /// The runs of `class`, or every run (None).
    fn runs_of(&self, class: Option<&str>) -> Vec<&RunReport> {
        self.runs
            .iter()
            .filter(|r| class.is_none_or(|c| r.class == c))
            .collect()
    }

    /// The bands of the runs of `class` (None: every run) under
    /// `hold_outs`: each figure over every regime and in each regime it has
    /// figures in.
    fn bands(&self, class: Option<&str>, hold_outs: &[HoldOut]) -> Vec<BandRecord> {
        let runs = self.runs_of(class);
        let mut out = Vec::new();
        for &h in hold_outs {
            let Some(k) = CV_HOLD_OUTS.iter().position(|x| *x == h) else {
                continue;
            };
            for figure in Figure::ALL {
                for regime in std::iter::once(None).chain(Regime::ALL.map(Some)) {
                    if let Some(stats) = held_out_stats(&runs, figure, regime, k) {
                        out.push(BandRecord {
                            figure,
                            hold_out: h,
                            regime,
                            stats,
                        });
                    }
                }
            }
        }
        out
    }
}

/// The held-out errors of `figure` over `runs`, in `regime` (None: every
/// regime), under the `k`th of [`CV_HOLD_OUTS`].
fn held_out_stats(
    runs: &[&RunReport],
    figure: Figure,
    regime: Option<Regime>,
    k: usize,
) -> Option<ErrorStats> {
    let v: Vec<f64> = runs
        .iter()
        .flat_map(|r| r.errors.iter())
        .filter(|e| e.figure == figure && regime.is_none_or(|g| e.regime == g))
        .filter_map(|e| e.held_out_pct.get(k).copied())
        .filter(|x| x.is_finite())
        .collect();
    ErrorStats::of(&v)
}

/// Fit `runs` jointly, then cross-validate: leave each model family, each
/// GPU and each GPU class out in turn, refit cold, and predict what was
/// left out.
pub fn joint_report(runs: &[Run]) -> Result<JointReport> {
    let fit = fit_joint(runs)?;
    let held: Vec<Vec<(TimingParams, Option<String>)>> = CV_HOLD_OUTS
        .iter()
        .map(|&h| cross_validate(runs, h))
        .collect();
    let mut reports = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let (own, _) = fit.params_for(&run.class, run.engine());
        let in_sample = run_errors(run, &own);
        let fp = run_errors(run, &TimingParams::FIRST_PRINCIPLES);
        let params = |k: usize| held.get(k).and_then(|h| h.get(i));
        let ho: Vec<Vec<(usize, &'static str, f64)>> = (0..CV_HOLD_OUTS.len())
            .map(|k| params(k).map_or_else(Vec::new, |(p, _)| run_errors(run, p)))
            .collect();
        let at = |v: &[(usize, &'static str, f64)], j: usize| v.get(j).map_or(f64::NAN, |e| e.2);
        let errors = in_sample
            .iter()
            .enumerate()
            .map(|(j, x)| PointErrors {
                point: run.points.get(x.0).map(Observed::label).unwrap_or_default(),
                name: x.1,
                figure: Figure::of(x.1),
                regime: run.regime_of(x.0),
                first_principles_pct: at(&fp, j),
                in_sample_pct: x.2,
                held_out_pct: [
                    at(ho.first().map_or(&[][..], Vec::as_slice), j),
                    at(ho.get(1).map_or(&[][..], Vec::as_slice), j),
                    at(ho.get(2).map_or(&[][..], Vec::as_slice), j),
                ],
            })
            .collect();
        let from = |k: usize| params(k).and_then(|p| p.1.clone());
        reports.push(RunReport {
            id: run.id.clone(),
            class: run.class.clone(),
            gpu: run.gpu.clone(),
            family: run.family.clone(),
            vllm_version: run.vllm_version.clone(),
            errors,
            held_out_from: [from(0), from(1), from(2)],
        });
    }
    let names = |key: fn(&RunReport) -> &str| {
        let mut v: Vec<String> = reports.iter().map(|r| key(r).to_string()).collect();
        v.sort();
        v.dedup();
        v
    };
    let groups = |key: fn(&RunReport) -> &str| -> Vec<GroupReport> {
        names(key)
            .iter()
            .map(|n| {
                let mine: Vec<&RunReport> = reports.iter().filter(|r| key(r) == n).collect();
                GroupReport::of(n, &mine)
            })
            .collect()
    };
    let classes = groups(|r| &r.class);
    let gpus = groups(|r| &r.gpu);
    let families = groups(|r| &r.family);
    let all: Vec<&RunReport> = reports.iter().collect();
    let overall = GroupReport::of("all", &all);
    Ok(JointReport {
        fit,
        runs: reports,
        classes,
        gpus,
        families,
        overall,
    })
}

/// The calibration files of a joint report, one per class and `shared`
/// (the shared values, for GPUs of a class with no fitted runs): `sources`
/// are the measured files or presets, `command` the command line that
/// fitted it. A class's file carries its leave-family-out bands (a new
/// model on a GPU it was fitted on) and leave-GPU-out bands (a GPU of the
/// class it never saw); the shared file the leave-class-out bands.
pub fn calibration_files(
    report: &JointReport,
    runs: &[Run],
    sources: &[String],
    command: &str,
) -> Vec<crate::scenario::CalibrationFile> {
    let in_sample = |g: &GroupReport| {
        g.figures
            .iter()
            .map(|f| InSample {
                figure: f.figure,
                figures: f.figures,
                mape_pct: f.in_sample_mape_pct,
            })
            .collect::<Vec<_>>()
    };
    let count = |g: &GroupReport| g.figures.iter().map(|f| f.figures).sum::<u32>();
    let mut files: Vec<crate::scenario::CalibrationFile> = report
        .fit
        .classes
        .iter()
        .map(|c| {
            let mine: Vec<&Run> = runs.iter().filter(|r| r.class == c.class).collect();
            let mut gpus: Vec<String> = mine.iter().map(|r| r.gpu.clone()).collect();
            gpus.sort();
            gpus.dedup();
            let mut fitted_on: Vec<String> = mine.iter().map(|r| r.source.clone()).collect();
            fitted_on.sort();
            fitted_on.dedup();
            if fitted_on.is_empty() {
                fitted_on = sources.to_vec();
            }
            let group = report.classes.iter().find(|g| g.name == c.class);
            let fit = FitSummary {
                runs: u32::try_from(mine.len()).unwrap_or(u32::MAX),
                figures: group.map_or(0, count),
                in_sample: group.map(in_sample).unwrap_or_default(),
                bands: report.bands(
                    Some(&c.class),
                    &[HoldOut::LeaveFamilyOut, HoldOut::LeaveGpuOut],
                ),
            };
            crate::scenario::CalibrationFile {
                id: c.class.clone(),
                class: c.class.clone(),
                gpus: gpus.clone(),
                vllm_versions: c.vllm_versions.clone(),
                description: format!(
                    "GPU class {} (fitted on {} with vLLM {}): runs: {}, fitted jointly with the other classes",
                    c.class,
                    gpus.join(", "),
                    c.vllm_versions.join(", "),
                    mine.len()
                ),
                fitted_on,
                runs: c.runs.clone(),
                command: command.to_string(),
                params: report.fit.params_for(&c.class, EngineGeneration::V1).0,
                v0_params: report.fit.v0_params(&c.class),
                fit,
            }
        })
        .collect();
    let mut versions: Vec<String> = runs.iter().map(|r| r.vllm_version.clone()).collect();
    versions.sort_by_key(|v| crate::version::VllmVersion::parse("", v).ok());
    versions.dedup();
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
        params: report.fit.params_for(SHARED, EngineGeneration::V1).0,
        v0_params: report.fit.v0_params(SHARED),
        fit: FitSummary {
            runs: u32::try_from(runs.len()).unwrap_or(u32::MAX),
            figures: count(&report.overall),
            in_sample: in_sample(&report.overall),
            bands: report.bands(None, &[HoldOut::LeaveClassOut]),
        },
    });
    files
}

/// The id and class of the shared-values calibration.
pub const SHARED: &str = "shared";

impl JointReport {
    /// The held-out errors of `figure` in `regime` over the runs of
    /// `class`, under each of [`CV_HOLD_OUTS`] (None when it has none).
    pub fn regime_errors(
        &self,
        class: &str,
        figure: Figure,
        regime: Regime,
    ) -> Option<[ErrorStats; 3]> {
        let runs = self.runs_of(Some(class));
        let stats = |k| held_out_stats(&runs, figure, Some(regime), k);
        Some([stats(0)?, stats(1)?, stats(2)?])
    }
}

/// Errors of one figure over held-out runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeldOutFigure {
    pub figure: Figure,
    pub stats: ErrorStats,
    /// Mean signed error, %: which way the predictions lean.
    pub mean_signed_pct: f64,
}

/// The errors of a set of held-out runs (a GPU, a model family, all).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeldOutGroup {
    pub name: String,
    pub runs: usize,
    pub figures: Vec<HeldOutFigure>,
}

/// Runs no fit saw, predicted with a fit's parameters for their class (the
/// shared values for a class it has no run of): by GPU, by model family,
/// and over all of them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeldOutReport {
    pub gpus: Vec<HeldOutGroup>,
    pub families: Vec<HeldOutGroup>,
    pub overall: HeldOutGroup,
}

/// Predict `runs` with `fit` (no refit) and summarise their errors.
pub fn held_out_report(fit: &JointFit, runs: &[Run]) -> HeldOutReport {
    let errors: Vec<(&Run, Vec<(Figure, f64)>)> = runs
        .iter()
        .map(|r| {
            let (p, _) = fit.params_for(&r.class, r.engine());
            let e = run_errors(r, &p)
                .into_iter()
                .map(|(_, name, e)| (Figure::of(name), e))
                .filter(|x| x.1.is_finite())
                .collect();
            (r, e)
        })
        .collect();
    let group = |name: &str, keep: &dyn Fn(&Run) -> bool| {
        let mine: Vec<&(&Run, Vec<(Figure, f64)>)> = errors.iter().filter(|x| keep(x.0)).collect();
        let figures = Figure::ALL
            .iter()
            .filter_map(|&figure| {
                let v: Vec<f64> = mine
                    .iter()
                    .flat_map(|x| x.1.iter())
                    .filter(|e| e.0 == figure)
                    .map(|e| e.1)
                    .collect();
                let stats = ErrorStats::of(&v)?;
                Some(HeldOutFigure {
                    figure,
                    stats,
                    mean_signed_pct: v.iter().sum::<f64>() / v.len() as f64,
                })
            })
            .collect();
        HeldOutGroup {
            name: name.to_string(),
            runs: mine.len(),
            figures,
        }
    };
    let names = |key: fn(&Run) -> &str| {
        let mut v: Vec<&str> = runs.iter().map(key).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    HeldOutReport {
        gpus: names(|r| &r.gpu)
            .into_iter()
            .map(|g| group(g, &|r: &Run| r.gpu == g))
            .collect(),
        families: names(|r| &r.family)
            .into_iter()
            .map(|f| group(f, &|r: &Run| r.family == f))
            .collect(),
        overall: group("all", &|_| true),
    }
}
