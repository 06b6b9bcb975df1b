//! Cross-validated reports of a joint fit, the calibration files it
//! writes, and errors on runs no fit saw.

use crate::error::Result;
use crate::*;
use decodecalc_core::bands::{BandRecord, ErrorStats, FitSummary, InSample};
use decodecalc_core::timing::{EngineGeneration, TimingParams};
use serde::Serialize;

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
                    decodecalc_core::serve::Arrival::Serve {
                        max_concurrency, ..
                    } => max_concurrency
                        .unwrap_or(workload.num_prompts)
                        .min(workload.num_prompts),
                    decodecalc_core::serve::Arrival::Offline => workload.num_prompts,
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
        HoldOut::LeaveCellOut
        | HoldOut::UnfittedMoeRuns
        | HoldOut::SpeculativeRuns
        | HoldOut::SpeculativeClassOut => &run.id,
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
    pub engine: EngineGeneration,
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
    /// By engine generation: V1, every release decodecalc predicts for
    /// (`--vllm-version` takes 0.10 onwards), and V0, whose runs are fitted
    /// for what they say of their GPU's kernels, its host costs their own.
    pub engines: Vec<GroupReport>,
    pub overall: GroupReport,
}

/// Whether `run` served a mixture-of-experts model.
fn serves_moe(run: &Run) -> bool {
    !run.work.model.moe_layers.is_empty()
}

/// How many of `runs` served a mixture-of-experts model.
fn moe_runs<'a>(runs: impl Iterator<Item = &'a Run>) -> u32 {
    let n = runs.filter(|r| serves_moe(r)).count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The band records under `hold_out` of each figure over every regime and
/// in each regime, where `stats` has figures for them.
fn band_records(
    hold_out: HoldOut,
    stats: impl Fn(Figure, Option<Regime>) -> Option<ErrorStats>,
) -> Vec<BandRecord> {
    let mut out = Vec::new();
    for figure in Figure::ALL {
        for regime in std::iter::once(None).chain(Regime::ALL.map(Some)) {
            if let Some(stats) = stats(figure, regime) {
                out.push(BandRecord {
                    figure,
                    hold_out,
                    regime,
                    stats,
                });
            }
        }
    }
    out
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
            out.extend(band_records(h, |figure, regime| {
                held_out_stats(&runs, figure, regime, k)
            }));
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
///
/// The last report is kept for the process: the same runs asked again (the
/// tests' shared report, then the README's `calibrate --out-dir` command
/// in the same test process) are not fitted twice. A fit is a pure function
/// of its runs, so the kept report is the one a refit would make.
pub fn joint_report(runs: &[Run]) -> Result<JointReport> {
    use std::sync::Mutex;
    static LAST: Mutex<Option<(Vec<Run>, JointReport)>> = Mutex::new(None);
    // Held while fitting, so that a second caller with the same runs waits
    // for the first one's report instead of fitting beside it. A poisoned
    // lock (a panic while fitting) only loses the kept report.
    let Ok(mut last) = LAST.lock() else {
        return joint_report_afresh(runs);
    };
    if let Some((kept, report)) = last.as_ref() {
        if kept.as_slice() == runs {
            return Ok(report.clone());
        }
    }
    let report = joint_report_afresh(runs)?;
    *last = Some((runs.to_vec(), report.clone()));
    Ok(report)
}

fn joint_report_afresh(runs: &[Run]) -> Result<JointReport> {
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
            engine: run.engine(),
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
    let engines = groups(|r| r.engine.name());
    let all: Vec<&RunReport> = reports.iter().collect();
    let overall = GroupReport::of("all", &all);
    Ok(JointReport {
        fit,
        runs: reports,
        classes,
        gpus,
        families,
        engines,
        overall,
    })
}

/// The calibration files of a joint report, one per class and `shared`
/// (the shared values, for GPUs of a class with no fitted runs): `sources`
/// are the measured files or presets, `command` the command line that
/// fitted it. A class's file carries its leave-family-out bands (a new
/// model on a GPU it was fitted on) and leave-GPU-out bands (a GPU of the
/// class it never saw); the shared file the leave-class-out bands and
/// `moe_bands`, those of the MoE runs no fit saw
/// ([`unfitted_moe_bands`]), which a MoE model carries on any class.
pub fn calibration_files(
    report: &JointReport,
    runs: &[Run],
    sources: &[String],
    command: &str,
    moe_bands: &[BandRecord],
) -> Vec<decodecalc_core::scenario::CalibrationFile> {
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
    let mut files: Vec<decodecalc_core::scenario::CalibrationFile> = report
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
            decodecalc_core::scenario::CalibrationFile {
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
                moe_runs: moe_runs(mine.iter().copied()),
                command: command.to_string(),
                params: report.fit.params_for(&c.class, EngineGeneration::V1).0,
                v0_params: report.fit.v0_params(&c.class),
                fit,
            }
        })
        .collect();
    let mut versions: Vec<String> = runs.iter().map(|r| r.vllm_version.clone()).collect();
    versions.sort_by_key(|v| decodecalc_core::version::VllmVersion::parse("", v).ok());
    versions.dedup();
    files.push(decodecalc_core::scenario::CalibrationFile {
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
        moe_runs: moe_runs(runs.iter()),
        command: command.to_string(),
        params: report.fit.params_for(SHARED, EngineGeneration::V1).0,
        v0_params: report.fit.v0_params(SHARED),
        fit: FitSummary {
            runs: u32::try_from(runs.len()).unwrap_or(u32::MAX),
            figures: count(&report.overall),
            in_sample: in_sample(&report.overall),
            // The MoE runs no fit saw band a MoE model on any class: one
            // home, the shared file (`scenario::Calibration::moe_bands`).
            bands: [
                report.bands(None, &[HoldOut::LeaveClassOut]),
                moe_bands.to_vec(),
            ]
            .concat(),
        },
    });
    files
}

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

/// The bands of the mixture-of-experts runs among `runs`, none of which
/// `fit` saw, predicted with its parameters for their class (no refit):
/// each figure over every regime and in each regime it has figures in,
/// under [`HoldOut::UnfittedMoeRuns`]. What a MoE prediction carries where
/// the fitted corpus has no MoE run.
pub fn unfitted_moe_bands(fit: &JointFit, runs: &[Run]) -> Vec<BandRecord> {
    let errors: Vec<(Figure, Regime, f64)> = runs
        .iter()
        .filter(|r| serves_moe(r))
        .flat_map(|r| {
            let (p, _) = fit.params_for(&r.class, r.engine());
            run_errors(r, &p)
                .into_iter()
                .map(|(i, name, e)| (Figure::of(name), r.regime_of(i), e))
                .filter(|x| x.2.is_finite())
                .collect::<Vec<_>>()
        })
        .collect();
    band_records(HoldOut::UnfittedMoeRuns, |figure, regime| {
        let v: Vec<f64> = errors
            .iter()
            .filter(|e| e.0 == figure && regime.is_none_or(|g| e.1 == g))
            .map(|e| e.2)
            .collect();
        ErrorStats::of(&v)
    })
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
