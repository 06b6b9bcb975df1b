//! `decodecalc compare`: predictions against a measured run, cell by cell
//! (or against a `vllm bench serve --save-result` file).

use super::{bench_serve, setup, Diagnostics, Output};
use crate::args::CommonArgs;
use crate::files::{measured_rows, read_bench_result, write_file, Fs};
use crate::{render, svg};
use clap::Args;
use decodecalc_api::measured::bench::is_save_result;
use decodecalc_api::measured::compare;
use decodecalc_api::scenario::World;
use decodecalc_api::Error;
use decodecalc_fit::compare::compare_cross_validated;

/// The `Examples:` of `decodecalc compare --help` (run by cli/tests/cmd/compare.md).
pub const EXAMPLES: &str = "\
Examples:
  decodecalc compare                   # the reference run, cell by cell
  decodecalc compare --cross-validate --max-mape 5   # exit 1 if the leave-one-out MAPE is over 5%
  decodecalc compare --calibration none              # first-principles efficiencies, no fit";

#[derive(Args, Debug)]
pub struct CompareArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The measured run: decodecalc's CSV, the harness's
    /// benchmark_results.json, or a measured preset. Default: the scenario's.
    #[arg(long)]
    pub measured: Option<String>,
    /// Also refit leaving each measured cell out and report those errors.
    #[arg(long)]
    pub cross_validate: bool,
    /// Also draw measured against predicted total tok/s into this SVG file.
    #[arg(long)]
    pub svg: Option<String>,
    /// Exit with code 1 when the total tok/s MAPE (leave-one-out if
    /// --cross-validate) exceeds this many percent.
    #[arg(long, allow_negative_numbers = true)]
    pub max_mape: Option<f64>,
    /// Every column (measured, predicted and error of each figure) in one
    /// table; the default text fits 120 columns.
    #[arg(long)]
    pub wide: bool,
}

pub fn run(args: &CompareArgs, diag: &mut Diagnostics) -> Output {
    if let Some(path) = args
        .measured
        .as_deref()
        .filter(|m| m.ends_with(".json") && Fs.read(m).is_ok_and(|t| is_save_result(&t)))
    {
        let r = read_bench_result(path, diag)?;
        return bench_serve::predict(&args.common, &r.workload(), Some(&r), diag);
    }
    let setup = setup(&args.common, diag)?;
    let predictor = setup.predictor()?;
    let (_, rows) = measured_rows(args.measured.as_deref(), &setup.plan)?;
    let comparison = if args.cross_validate {
        compare_cross_validated(&predictor, &rows)?
    } else {
        compare(&predictor, &rows)?
    };
    if let Some(path) = &args.svg {
        write_file(path, &svg::comparison(&comparison)?)?;
    }
    let out = render::comparison(&comparison, args.common.format(), args.wide)?;
    let gate = match (&comparison.cross_validation, args.cross_validate) {
        (Some(cv), true) => cv.total_tok_s.mape_pct,
        _ => comparison.summary.metrics.total_tok_s.mape_pct,
    };
    match args.max_mape {
        Some(limit) if !(limit.is_finite() && limit >= 0.0) => Err(Error::field(
            "--max-mape",
            limit,
            "a non-negative percentage such as 5",
        )),
        Some(limit) if gate > limit => {
            let which = if args.cross_validate {
                "leave-one-out"
            } else {
                "in sample"
            };
            diag.errors.push(
                Error::new(format!(
                    "total tok/s MAPE {gate:.2}% ({which}) exceeds --max-mape {limit}"
                ))
                .with_hint("the prediction is off this run by more than the gate allows; the table on stdout shows each cell's error"),
            );
            Ok((out, 1))
        }
        _ => Ok((out, 0)),
    }
}
