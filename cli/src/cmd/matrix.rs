//! `decodecalc matrix`: the context x concurrency grid, or one cell explained.

use super::{setup, Diagnostics, Output};
use crate::args::{CommonArgs, ExplainCell};
use crate::files::write_file;
use crate::{render, svg};
use clap::Args;

/// The `Examples:` of `decodecalc matrix --help` (run by cli/tests/cmd/matrix.md).
pub const EXAMPLES: &str = "\
Examples:
  decodecalc matrix                    # the reference run's grid, every cell
  decodecalc matrix --explain 16K:32   # one cell's memory and decode-step terms
  decodecalc matrix --model qwen3-8b --gpu h100 --contexts 0,32K --concurrency 1,64";

#[derive(Args, Debug)]
pub struct MatrixArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Also draw the grid as an SVG heat map into this file.
    #[arg(long)]
    pub svg: Option<String>,
    /// Explain one cell instead of printing the matrix: CONTEXT:CONCURRENCY
    /// (such as 16K:32) for a decode cell, or CONTEXT for its prefill row.
    #[arg(long, value_parser = ExplainCell::parse)]
    pub explain: Option<ExplainCell>,
    /// Every column in one table (the default text fits 120 columns).
    #[arg(long)]
    pub wide: bool,
}

pub fn run(args: &MatrixArgs, diag: &mut Diagnostics) -> Output {
    let setup = setup(&args.common, diag)?;
    let (plan, capacity) = (&setup.plan, &setup.capacity);
    let predictor = setup.predictor()?;
    if let Some(cell) = &args.explain {
        return Ok((render::explain(&predictor, cell)?, 0));
    }
    let matrix = predictor.matrix();
    if let Some(path) = &args.svg {
        let title = format!("{}: total tok/s and TTFT", plan.setup_title());
        write_file(path, &svg::matrix(&matrix, &title)?)?;
    }
    Ok((
        render::matrix(plan, capacity, &matrix, args.common.format(), args.wide)?,
        0,
    ))
}
