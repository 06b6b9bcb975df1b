//! `decodecalc rank`: every GPU x tensor-parallel size x KV dtype that serves
//! a workload, cheapest per output token first (the sweep is core's
//! `rank::Question`).

use super::Output;
use crate::args::{context, names, speed, top, tp_sizes, CommonArgs, Listed};
use crate::files::Fs;
use crate::render;
use clap::Args;
use decodecalc_api::rank::{Question, Workload};
use decodecalc_api::Error;

/// The `Examples:` of `decodecalc rank --help` (run by cli/tests/cmd/rank.md).
pub const EXAMPLES: &str = "\
Examples:
  decodecalc rank --model qwen3-8b --context 16K --concurrency 32
  decodecalc rank --model qwen3-8b --context 16K --concurrency 32 --gpus h100,rtx-pro-6000 --tp 1
  decodecalc rank --model qwen3-8b --context 16K --concurrency 32 --top 5";

/// Configurations `rank` prints without --top.
pub const DEFAULT_TOP: u64 = 10;

#[derive(Args, Debug)]
pub struct RankArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The workload's context (16K = 16,384; 16k = 16,000); --concurrency gives its requests.
    #[arg(long, allow_hyphen_values = true, value_parser = context)]
    pub context: u64,
    /// GPU presets to consider, comma-separated (default: the whole catalog).
    #[arg(long, value_parser = names)]
    pub gpus: Option<Listed<String>>,
    /// Tensor-parallel sizes to consider (default 1,2,4,8: core's
    /// rank::RANKED_TP_SIZES).
    #[arg(long, value_parser = tp_sizes)]
    pub tp: Option<Listed<u64>>,
    /// Override a price: GPU=USD_PER_HOUR (repeatable).
    #[arg(long)]
    pub price: Vec<String>,
    /// Also require this per-request decode speed, tok/s.
    #[arg(long, allow_negative_numbers = true, value_parser = speed)]
    pub min_per_request_tok_s: Option<f64>,
    /// Print only the first N configurations (default: 10).
    #[arg(long, allow_negative_numbers = true, value_parser = top)]
    pub top: Option<u64>,
}

use decodecalc_api::speculative::{Speculative, SpeculativeConfig};

pub fn run(args: &RankArgs, diag: &mut super::Diagnostics) -> Output {
    let request = args.common.request()?;
    let model_name = request.model.clone().ok_or_else(|| {
        Error::new("rank needs --model")
            .with_hint("add --model with a preset, a config.json or a folder")
    })?;
    let model = decodecalc_api::scenario::load_model(&Fs, &model_name)?;
    // A speculative config is checked once, here, so that a bad one is an
    // error rather than every configuration of the sweep skipped; the
    // acceptance it assumes is named.
    if let Some(text) = &request.engine.speculative_config {
        let config = SpeculativeConfig::parse("--speculative-config", text)?;
        let mut spec = Speculative::resolve("--speculative-config", &config, &model.model, 1)?;
        if let Some(rates) = &request.engine.spec_acceptance {
            spec.acceptance = decodecalc_api::speculative::parse_acceptance(
                "--spec-acceptance",
                rates,
                spec.num_speculative_tokens,
            )?;
            spec.acceptance_source = "--spec-acceptance".into();
        } else {
            let names = [model_name.as_str(), &model.id, &model.name];
            spec.use_published_acceptance(&names, &model.model.architecture, "");
        }
        diag.warn(format!(
            "speculative decoding: {} with {} draft tokens, mean acceptance length {:.2} ({}) in every configuration",
            spec.method.name(),
            spec.num_speculative_tokens,
            spec.mean_acceptance_length(),
            spec.acceptance_source
        ));
    }
    let concurrency = match &request.harness.concurrency {
        Some(list) => match list.as_slice() {
            [c] if *c > 0 => c.unsigned_abs(),
            _ => {
                return Err(Error::field(
                    "--concurrency",
                    args.common.setup.text("concurrency").unwrap_or_default(),
                    "one positive request count for the workload",
                ))
            }
        },
        None => {
            return Err(Error::new("rank needs --concurrency").with_hint("add --concurrency 32"))
        }
    };
    let workload = Workload {
        context_tokens: args.context,
        concurrency,
        min_per_request_tok_s: args.min_per_request_tok_s,
    };
    let ranking = Question {
        model: &model,
        gpus: args.gpus.as_ref().map(|l| l.values.as_slice()),
        tps: args
            .tp
            .as_ref()
            .map_or(&decodecalc_api::rank::RANKED_TP_SIZES[..], |l| &l.values),
        engine: &request.engine,
        harness: &request.harness,
        workload,
        price_overrides: &args.price,
    }
    .answer(&Fs)?;
    Ok((
        render::ranked(
            &ranking,
            &model.name,
            workload,
            args.top.unwrap_or(DEFAULT_TOP),
            args.common.format(),
        )?,
        0,
    ))
}
