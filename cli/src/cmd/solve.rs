//! `decodecalc solve`: the inverse questions (the largest context, the most
//! requests, the smallest --max-model-len or --gpu-memory-utilization).

use super::{setup, Diagnostics, Output};
use crate::args::{context, speed, CommonArgs};
use crate::files::Fs;
use crate::render;
use clap::{Args, ValueEnum};
use decodecalc_api::scenario::{Plan, Request};
use decodecalc_api::solve::{
    alternatives, sizing_workload, smallest_max_model_len, smallest_utilization, SpeedTarget,
};
use decodecalc_api::{Error, Setup};

/// The `Examples:` of `decodecalc solve --help` (run by cli/tests/cmd/solve.md).
pub const EXAMPLES: &str = "\
Examples:
  decodecalc solve --for max-concurrency --context 32K   # most requests that run at 32K
  decodecalc solve --for max-context --concurrency 16    # longest context for 16 requests
  decodecalc solve --for gpu-memory-utilization --context 32K --concurrency 32";

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum SolveFor {
    /// The largest context at which --concurrency requests all run.
    MaxContext,
    /// The most requests that all run at --context.
    MaxConcurrency,
    /// The smallest --max-model-len at which --context x --concurrency fits.
    MaxModelLen,
    /// The smallest --gpu-memory-utilization at which --context x --concurrency fits.
    GpuMemoryUtilization,
}

#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// What to solve for.
    #[arg(long = "for", value_enum)]
    pub solve_for: SolveFor,
    /// The context of the target cell (k = 1024).
    #[arg(long, allow_hyphen_values = true, value_parser = context)]
    pub context: Option<u64>,
    /// Also require this per-request decode speed, tok/s.
    #[arg(long, allow_negative_numbers = true, value_parser = speed)]
    pub min_per_request_tok_s: Option<f64>,
}

impl SolveArgs {
    /// The target cell's context, which the question needs.
    fn need_context(&self) -> Result<u64, Error> {
        self.context.ok_or_else(|| {
            Error::new("--context is required for this question")
                .with_hint("add --context 32k (the prompt length of the target cell)")
        })
    }

    /// The target cell's requests, which the question needs: the first of
    /// --concurrency as the plan resolved it.
    fn need_concurrency(&self, plan: &Plan) -> Result<u64, Error> {
        match (
            self.common.setup.text("concurrency"),
            plan.harness.concurrency.first(),
        ) {
            (Some(_), Some(&c)) => Ok(c),
            _ => Err(Error::new("--concurrency is required for this question")
                .with_hint("add --concurrency 16 (requests at once in the target cell)")),
        }
    }
}

pub fn run(args: &SolveArgs, diag: &mut Diagnostics) -> Output {
    let request = args.common.request()?;
    let setup = setup(&args.common, diag)?;
    let speed = SpeedTarget {
        min_per_request_tok_s: args.min_per_request_tok_s,
    };
    let format = args.common.format();
    let out = match args.solve_for {
        SolveFor::MaxContext => {
            let predictor = setup.predictor()?;
            render::solved_context(
                &predictor.max_context(args.need_concurrency(&setup.plan)?, speed),
                &setup.plan,
                format,
            )?
        }
        SolveFor::MaxConcurrency => max_concurrency(args, &setup, speed)?,
        SolveFor::MaxModelLen | SolveFor::GpuMemoryUtilization => {
            // One answer, for the workload core's sizing rule names.
            let mut request = request;
            let mut plan = setup.plan;
            let workload = sizing_workload(request.harness.workload);
            request.harness.workload = Some(workload);
            plan.harness.workload = workload;
            smallest_setting(args, &request, &plan, speed)?
        }
    };
    Ok((out, 0))
}

/// `--for max-concurrency`: the most requests at --context.
fn max_concurrency(args: &SolveArgs, setup: &Setup, speed: SpeedTarget) -> Result<String, Error> {
    let (plan, predictor) = (&setup.plan, setup.predictor()?);
    let ctx = args.need_context()?;
    decodecalc_api::harness::check_model_len(
        "--context",
        ctx,
        plan.harness.max_tokens,
        plan.engine.max_model_len_tokens,
    )?;
    render::solved_concurrency(
        &predictor.max_concurrency(ctx, speed),
        plan,
        args.common.format(),
    )
}

/// `--for max-model-len` and `--for gpu-memory-utilization`: the smallest
/// setting at which the target cell fits, or what else would.
fn smallest_setting(
    args: &SolveArgs,
    request: &Request,
    plan: &Plan,
    speed: SpeedTarget,
) -> Result<String, Error> {
    let (ctx, c) = (args.need_context()?, args.need_concurrency(plan)?);
    let max_model_len = args.solve_for == SolveFor::MaxModelLen;
    let mut answer = if max_model_len {
        smallest_max_model_len(plan, ctx, c, speed)?
    } else {
        smallest_utilization(plan, ctx, c, speed)?
    };
    if answer.value.is_none() {
        match alternatives(request, &Fs, ctx, c, speed) {
            Ok(alts) => answer
                .suggestions
                .extend(alts.into_iter().map(|a| format!("or {a}"))),
            Err(e) => answer.suggestions.push(e.message),
        }
    }
    render::solved_setting(&answer, max_model_len, plan, args.common.format())
}
