//! `decodecalc bench-serve`: what `vllm bench serve` would print for this
//! setup, beside a `--save-result` file's figures when given.

use super::{Diagnostics, Output};
use crate::args::{dataset_name, request_rate, CommonArgs, RequestRate};
use crate::files::read_bench_result;
use crate::render;
use clap::Args;
use decodecalc_api::measured::BenchResult;
use decodecalc_api::serve::Workload;
use decodecalc_api::{Error, Setup};

/// The `Examples:` of `decodecalc bench-serve --help` (run by cli/tests/cmd/bench-serve.md).
pub const EXAMPLES: &str = "\
Examples:
  decodecalc bench-serve --model qwen3-8b --gpu h100 --num-prompts 1000 --max-concurrency 64
  decodecalc bench-serve --model qwen3-8b --gpu h100 --num-prompts 200 --request-rate 4 --seed 0";

/// `vllm bench serve`'s own flags (docs/reference/vllm-bench-serve.md).
#[derive(Args, Debug)]
pub struct BenchServeArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Only `random` is modelled (fixed lengths); for ShareGPT give its mean
    /// lengths as --random-input-len and --random-output-len.
    #[arg(long, default_value = "random", value_parser = dataset_name)]
    pub dataset_name: String,
    #[arg(long, default_value_t = 1024)]
    pub random_input_len: u64,
    #[arg(long, default_value_t = 128)]
    pub random_output_len: u64,
    /// Lengths vary by this fraction either way; modelled at their means.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub random_range_ratio: f64,
    /// A prefix shared by every prompt: not modelled, give 0.
    #[arg(long, default_value_t = 0)]
    pub random_prefix_len: u64,
    #[arg(long, default_value_t = 1000)]
    pub num_prompts: u64,
    /// Requests in flight at most (default: no limit).
    #[arg(long)]
    pub max_concurrency: Option<u64>,
    /// Requests per second, or inf (all at once). At a finite rate the
    /// arrivals are the tool's own: gamma-distributed gaps drawn with
    /// --seed, as numpy draws them.
    #[arg(long, default_value = "inf", allow_hyphen_values = true, value_parser = request_rate)]
    pub request_rate: RequestRate,
    /// Generate to --random-output-len whatever the model says (forced on
    /// for the random dataset since vLLM 0.23).
    #[arg(long)]
    pub ignore_eos: bool,
    /// The gaps' gamma shape at a finite --request-rate (1: Poisson).
    #[arg(long, default_value_t = decodecalc_api::serve::DEFAULT_BURSTINESS)]
    pub burstiness: f64,
    /// The seed the tool draws its arrival gaps with.
    #[arg(long, default_value_t = decodecalc_api::serve::DEFAULT_SEED)]
    pub seed: u64,
    /// Compare with this `--save-result` JSON instead: its workload replaces the flags above.
    #[arg(long)]
    pub result: Option<String>,
}

pub fn run(args: &BenchServeArgs, diag: &mut Diagnostics) -> Output {
    let measured = match &args.result {
        Some(path) => Some(read_bench_result(path, diag)?),
        None => None,
    };
    let workload = match &measured {
        Some(r) => r.workload(),
        None => workload(args, diag)?,
    };
    predict(&args.common, &workload, measured.as_ref(), diag)
}

/// `bench-serve`, and `compare` with a `--save-result` file: predict the
/// workload on the flags' setup, beside the file's figures when given.
pub fn predict(
    common: &CommonArgs,
    workload: &Workload,
    measured: Option<&BenchResult>,
    diag: &mut Diagnostics,
) -> Output {
    let mut request = common.request()?;
    let setup_given = request.model.is_some()
        || request.scenario.is_some()
        || request.vllm_command.is_some()
        || request.vllm_log.is_some();
    if let Some((m, id)) = measured.and_then(|m| Some((m, m.model_id.as_deref()?))) {
        // The file names the model it measured: predict that one, not the
        // reference run's, unless the flags say which.
        if !setup_given {
            request.model = Some(
                decodecalc_api::scenario::model_for_repo(id).map_err(|e| e.context(&m.origin))?,
            );
        }
    }
    let plan = request.resolve(&crate::files::Fs)?;
    diag.extend(plan.warnings.iter().map(ToString::to_string));
    if let Some(id) = measured.and_then(|m| m.model_id.as_deref()) {
        let theirs = decodecalc_api::scenario::model_for_repo(id).ok();
        if setup_given && theirs.is_some_and(|t| t != plan.model.id) {
            diag.warn(format!(
                "the result measured `{id}`; predicting {} as the flags say",
                plan.model.name
            ));
        }
    }
    let Setup { plan, capacity } = Setup::of_plan(plan)?;
    let (workload, predicted, comparison) =
        decodecalc_api::measured::bench::predict_run(&plan, &capacity, workload, measured)?;
    let comparison = measured.map(|_| comparison);
    Ok((
        render::bench_serve(
            &plan,
            &workload,
            &predicted,
            comparison.as_deref(),
            common.format(),
        )?,
        0,
    ))
}

/// The workload `bench-serve`'s flags describe.
fn workload(args: &BenchServeArgs, diag: &mut Diagnostics) -> Result<Workload, Error> {
    if !(args.random_range_ratio.is_finite() && (0.0..1.0).contains(&args.random_range_ratio)) {
        return Err(Error::field(
            "--random-range-ratio",
            args.random_range_ratio,
            "a fraction in [0, 1), as vLLM requires",
        ));
    }
    if args.random_range_ratio > 0.0 {
        diag.warn(format!(
            "--random-range-ratio {}: lengths are modelled at their means",
            args.random_range_ratio
        ));
    }
    if args.random_prefix_len > 0 {
        return Err(Error::field(
            "--random-prefix-len",
            args.random_prefix_len,
            "0: a shared prefix (prefix-cache hits) is not modelled yet",
        ));
    }
    let w = Workload {
        input_tokens: args.random_input_len,
        output_tokens: args.random_output_len,
        num_prompts: args.num_prompts,
        arrival: decodecalc_api::serve::Arrival::Serve {
            request_rate: args.request_rate.0,
            max_concurrency: args.max_concurrency,
            burstiness: args.burstiness,
            seed: args.seed,
            pacing: decodecalc_api::arrivals::Pacing::Rescaled,
        },
    };
    w.validate()?;
    Ok(w)
}
