//! The joint fit over runs on several GPU classes and engine generations.

use crate::error::{Error, Result};
use crate::*;
use decodecalc_core::timing::{EngineGeneration, Scope, TimingParams, N_PARAMS};
use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt};
use nalgebra::{DMatrix, DVector, Dyn, Owned};
use serde::Serialize;

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
    /// Its GPU-scope parameters ([`decodecalc_core::timing::Scope::Gpu`]) with the
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
    /// Its engine-scope parameters ([`decodecalc_core::timing::Scope::Engine`]) with
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
                versions.sort_by_key(|v| decodecalc_core::version::VllmVersion::parse("", v).ok());
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
        return Err(Error::TooManyRuns {
            runs: runs.len(),
            max: MAX_FIT_RUNS,
        });
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
        return Err(Error::TooManyFigures {
            figures,
            max: MAX_FIT_FIGURES,
        });
    }
    if figures < 2 * N_PARAMS {
        return Err(Error::TooFewFigures {
            figures,
            params: N_PARAMS,
        });
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
    let best = best.ok_or(Error::DidNotRun)?;
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
