//! `decodecalc calibrate`: fit the timing model to one measured run (and
//! write its calibration file), or to several jointly, per GPU class.

use super::{setup, Diagnostics, Output};
use crate::args::{CommonArgs, Format};
use crate::files::{is_runs_file, measured_rows, write_file, Fs};
use crate::render;
use clap::Args;
use decodecalc_api::measured::Run as MeasuredRun;
use decodecalc_api::measured::{check_rows, Comparison};
use decodecalc_api::presets::{self, Kind};
use decodecalc_api::scenario::{load_text, CalibrationFile, Plan};
use decodecalc_api::Error;
use decodecalc_api::Setup;
use decodecalc_fit::compare::compare_cross_validated;
use decodecalc_fit::{fit, FitReport, Run};

/// The `Examples:` of `decodecalc calibrate --help` (run by cli/tests/cmd/calibrate.md).
pub const EXAMPLES: &str = "\
Examples:
  decodecalc calibrate                 # fit the reference run, print its calibration
  decodecalc calibrate --measured rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32 --out my-fit.toml";

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// A measured run: decodecalc's CSV, the harness's
    /// benchmark_results.json, a runs CSV (data/runs), or a preset of either.
    /// Default: the scenario's. Give it several times to fit them jointly
    /// (per GPU class, with leave-one-run-out errors).
    #[arg(long)]
    pub measured: Vec<String>,
    /// Write the calibration here (TOML); without it, print it. One harness run only.
    #[arg(long, conflicts_with = "out_dir")]
    pub out: Option<String>,
    /// Fit jointly and write one calibration per GPU class into this directory
    /// (`<class>.toml`).
    #[arg(long)]
    pub out_dir: Option<String>,
    /// Runs to predict with the joint fit and score, never fitted on (a runs
    /// CSV or preset, as --measured takes): by GPU and model family. Give it
    /// several times.
    #[arg(long)]
    pub held_out: Vec<String>,
    /// The calibration's id. Default: the file name of --out, else GPU-vllm0.32.
    #[arg(long)]
    pub id: Option<String>,
}

pub fn run(args: &CalibrateArgs, argv: &[String], diag: &mut Diagnostics) -> Output {
    if joint_calibration(args) {
        joint(args, argv, diag)
    } else {
        single(args, argv, diag)
    }
}

/// The command line, as a calibration file records it.
fn command_line(argv: &[String]) -> String {
    format!(
        "decodecalc {}",
        argv.iter().skip(1).cloned().collect::<Vec<_>>().join(" ")
    )
}

/// Several runs fitted jointly, one calibration per GPU class.
fn joint(args: &CalibrateArgs, argv: &[String], diag: &mut Diagnostics) -> Output {
    let mut runs = Vec::new();
    let mut sources = Vec::new();
    for m in &args.measured {
        let (origin, mut r) = measured_runs(m, &args.common, diag)?;
        sources.push(origin);
        runs.append(&mut r);
    }
    let report = decodecalc_fit::joint_report(&runs)?;
    let mut held_out = Vec::new();
    for m in &args.held_out {
        held_out.push((m, measured_runs(m, &args.common, diag)?.1));
    }
    // The MoE runs of every held-out file together band a MoE prediction.
    let all_held: Vec<Run> = held_out.iter().flat_map(|h| h.1.iter().cloned()).collect();
    let moe_bands = decodecalc_fit::unfitted_moe_bands(&report.fit, &all_held);
    let files = decodecalc_fit::calibration_files(
        &report,
        &runs,
        &sources,
        &command_line(argv),
        &moe_bands,
    );
    if let Some(dir) = &args.out_dir {
        for f in &files {
            write_file(&format!("{dir}/{}.toml", f.id), &f.to_toml()?)?;
        }
    }
    let mut out = render::joint(&report, args.common.format())?;
    // One table per held-out file: each is its own evidence.
    for (m, held) in &held_out {
        let h = decodecalc_fit::held_out_report(&report.fit, held);
        out.push_str(&render::held_out(m, &h, args.common.format())?);
    }
    Ok((out, 0))
}

/// One harness run fitted, its calibration file written or printed.
fn single(args: &CalibrateArgs, argv: &[String], diag: &mut Diagnostics) -> Output {
    let setup = setup(&args.common, diag)?;
    let (plan, predictor) = (&setup.plan, setup.predictor()?);
    let (origin, rows) = measured_rows(args.measured.first().map(String::as_str), plan)?;
    check_rows(&predictor, &rows)?;
    let report = fit(&predictor, &rows)?;
    let fitted = predictor.with_params(report.params);
    let comparison = compare_cross_validated(&fitted, &rows)?;
    let id = args.id.clone().unwrap_or_else(|| {
        args.out
            .as_deref()
            .and_then(|o| std::path::Path::new(o).file_stem())
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| format!("{}-vllm0.32", plan.gpu.id))
    });
    let file = calibration_file(plan, &report, &comparison, &id, &origin, argv);
    let toml = file.to_toml()?;
    let mut out = render::calibration(&report, &comparison, plan, args.common.format(), &rows)?;
    match &args.out {
        Some(path) => write_file(path, &toml)?,
        None if args.common.format() == Format::Table => {
            out.push('\n');
            out.push_str(&toml);
        }
        None => {}
    }
    Ok((out, 0))
}

/// The calibration file `decodecalc calibrate` writes.
fn calibration_file(
    plan: &Plan,
    report: &FitReport,
    comparison: &Comparison,
    id: &str,
    measured: &str,
    argv: &[String],
) -> CalibrationFile {
    let fit = comparison.fit_summary();
    CalibrationFile {
        id: id.to_string(),
        class: plan.gpu.calibration_class().to_string(),
        gpus: vec![plan.gpu.id.clone()],
        vllm_versions: vec![decodecalc_api::VLLM_VERSION.to_string()],
        description: format!(
            "{} with vLLM {}, fitted on {} ({})",
            plan.gpu.name,
            decodecalc_api::VLLM_VERSION,
            plan.model.name,
            plan.engine.kv_cache_dtype.name()
        ),
        fitted_on: vec![measured.to_string()],
        runs: vec![plan
            .measured
            .clone()
            .unwrap_or_else(|| plan.scenario_id.clone())],
        moe_runs: u32::from(plan.model.model.is_moe()),
        command: command_line(argv),
        params: report.params,
        v0_params: None,
        fit,
    }
}

/// Whether `calibrate` fits jointly: several measured runs, a runs file,
/// or --out-dir.
fn joint_calibration(args: &CalibrateArgs) -> bool {
    args.measured.len() > 1
        || args.out_dir.is_some()
        || args
            .measured
            .iter()
            .any(|m| presets::find(Kind::Runs, m).is_ok() || is_runs_file(m))
}

/// The runs of one `--measured` source for a joint fit: a runs file carries
/// its setups; a harness run is paired with the scenario preset that names
/// it, else with the flags.
fn measured_runs(
    name: &str,
    common: &CommonArgs,
    diag: &mut Diagnostics,
) -> Result<(String, Vec<Run>), Error> {
    let (origin, text) = match presets::find(Kind::Runs, name) {
        Ok(f) => (f.path.to_string(), f.text.to_string()),
        Err(_) => load_text(&Fs, Kind::Measured, name)?,
    };
    if text
        .trim_start_matches('\u{feff}')
        .starts_with("run,point,")
    {
        let rows = decodecalc_fit::runs::parse_csv(&origin, &text)?;
        return Ok((origin, decodecalc_fit::runs::build(&Fs, &rows)?));
    }
    let rows = match MeasuredRun::read(&origin, &text)? {
        MeasuredRun::Matrix(rows) => rows,
        MeasuredRun::Serving(result) => {
            // A vllm bench serve --save-result file: the setup comes from the flags.
            let s = setup(common, diag)?;
            let run = decodecalc_fit::runs::of_bench_result(&s.plan, &s.capacity, &result)?;
            return Ok((origin, vec![run]));
        }
    };
    let mut request = common.request()?;
    if request.scenario.is_none() && request.model.is_none() && request.gpu.is_none() {
        request.scenario = scenario_naming(&origin, name);
    }
    let setup = Setup::resolve(&request, &Fs)?;
    diag.extend(setup.plan.warnings.iter().map(ToString::to_string));
    let predictor = setup.predictor()?;
    check_rows(&predictor, &rows)?;
    let mut run = decodecalc_fit::harness_run(&predictor, &rows);
    run.source = origin.clone();
    Ok((origin, vec![run]))
}

/// The scenario preset whose measured run is `origin` (or `name`).
fn scenario_naming(origin: &str, name: &str) -> Option<String> {
    presets::FILES
        .iter()
        .filter(|f| f.kind == Kind::Scenario)
        .find(|f| {
            decodecalc_api::scenario::ScenarioFile::parse(f.path, f.text).is_ok_and(|s| {
                s.measured
                    .as_deref()
                    .is_some_and(|m| origin.ends_with(&format!("{m}.csv")) || m == name)
            })
        })
        .map(|f| f.id.to_string())
}
