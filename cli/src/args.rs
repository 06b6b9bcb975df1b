//! The argument groups every subcommand shares (the setup flags, the output
//! format) and the typed values of flags: each flag value is parsed by a clap
//! value parser returning core's [`Error`], which `main_with` prints as
//! `error:` naming the flag and `hint:` saying what is valid (exit code 2).

use crate::flag_args;
use clap::{Args, ValueEnum};
use decodecalc_api::engine::parse_count_list;
use decodecalc_api::scenario::Request;
use decodecalc_api::units::parse_tokens;
use decodecalc_api::Error;

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Table,
    Csv,
    Json,
    Markdown,
}

#[derive(Args, Debug)]
pub struct FormatArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Flags named as `vllm serve` names them where they mean the same thing,
/// and the setup and workload flags: both generated from core's flag tables
/// (`flag_args`).
#[derive(Args, Debug)]
pub struct CommonArgs {
    /// What runs and the workload (`flags::REQUEST_FLAGS`).
    #[command(flatten)]
    pub setup: flag_args::RequestFlagArgs,
    /// The `vllm serve` flags (`flags::ENGINE_FLAGS`).
    #[command(flatten)]
    pub engine: flag_args::EngineFlagArgs,
    #[command(flatten)]
    pub format: FormatArgs,
}

impl CommonArgs {
    pub fn request(&self) -> Result<Request, Error> {
        self.setup.request(&self.engine)
    }

    /// The format of the output.
    pub fn format(&self) -> Format {
        self.format.format
    }
}

/// A comma-separated flag value: its items.
#[derive(Clone, Debug)]
pub struct Listed<T> {
    pub values: Vec<T>,
}

/// `--tp`: positive tensor-parallel sizes.
pub fn tp_sizes(text: &str) -> Result<Listed<u64>, Error> {
    Ok(Listed {
        values: parse_count_list("--tp", text)?
            .into_iter()
            .map(|t| {
                u64::try_from(t)
                    .ok()
                    .filter(|&t| t > 0)
                    .ok_or_else(|| Error::field("--tp", t, "positive sizes such as 1,2,4,8"))
            })
            .collect::<Result<_, _>>()?,
    })
}

/// `--gpus`: GPU presets or files, comma-separated.
pub fn names(text: &str) -> Result<Listed<String>, Error> {
    Ok(Listed {
        values: text.split(',').map(|g| g.trim().to_string()).collect(),
    })
}

/// `--context`: one token count, as vLLM reads it (16K = 16,384; 16k = 16,000).
pub fn context(text: &str) -> Result<u64, Error> {
    parse_tokens(text).ok_or_else(|| {
        Error::field(
            "--context",
            text,
            "a token count such as 32768, 32K (x1024) or 32k (x1000)",
        )
    })
}

/// `--min-per-request-tok-s`: a positive speed.
pub fn speed(text: &str) -> Result<f64, Error> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| Error::field("--min-per-request-tok-s", text, "a positive speed in tok/s"))
}

/// The most rows `rank --top` may ask for (a sweep of the whole catalog is
/// a few hundred configurations).
pub const MAX_TOP: u64 = 10_000;

/// `rank --top`: how many configurations to print.
pub fn top(text: &str) -> Result<u64, Error> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|n| (1..=MAX_TOP).contains(n))
        .ok_or_else(|| {
            Error::field(
                "--top",
                text,
                format!("a count of configurations from 1 to {MAX_TOP}"),
            )
        })
}

/// `matrix --explain`: a decode cell `CONTEXT:CONCURRENCY` or a prefill
/// row's `CONTEXT`.
#[derive(Clone, Debug)]
pub struct ExplainCell {
    pub text: String,
    pub context_tokens: u64,
    /// None: the prefill row.
    pub concurrency: Option<u64>,
}

impl ExplainCell {
    pub fn parse(text: &str) -> Result<ExplainCell, Error> {
        let bad = || invalid_cell(text);
        let (ctx_text, c_text) = match text.split_once(':') {
            Some((a, b)) => (a, Some(b)),
            None => (text, None),
        };
        let context_tokens = parse_tokens(ctx_text).ok_or_else(bad)?;
        let concurrency = c_text
            .map(|c| {
                c.trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|&c| c > 0)
                    .ok_or_else(bad)
            })
            .transpose()?;
        Ok(ExplainCell {
            text: text.to_string(),
            context_tokens,
            concurrency,
        })
    }

    /// The error for a cell the matrix does not have.
    pub fn invalid(&self) -> Error {
        invalid_cell(&self.text)
    }
}

fn invalid_cell(text: &str) -> Error {
    Error::field(
        "--explain",
        text,
        "CONTEXT:CONCURRENCY such as 16K:32, or CONTEXT such as 8K for a prefill row",
    )
}

/// `bench-serve --request-rate`: requests per second, None for `inf`.
#[derive(Clone, Copy, Debug)]
pub struct RequestRate(pub Option<f64>);

pub fn request_rate(text: &str) -> Result<RequestRate, Error> {
    match text.trim() {
        "inf" | "Inf" | "INF" => Ok(RequestRate(None)),
        t => match t.parse::<f64>() {
            Ok(r) if r.is_finite() && r > 0.0 && r <= 1e6 => Ok(RequestRate(Some(r))),
            Ok(r) if r.is_infinite() && r > 0.0 => Ok(RequestRate(None)),
            _ => Err(Error::field(
                "--request-rate",
                t,
                "requests per second in (0, 1000000], or inf",
            )),
        },
    }
}

/// `bench-serve --dataset-name`: only `random` is modelled.
pub fn dataset_name(text: &str) -> Result<String, Error> {
    match text {
        "random" => Ok(text.to_string()),
        _ => Err(Error::field("--dataset-name", text, "random (for ShareGPT, pass its mean lengths as --random-input-len and --random-output-len)")),
    }
}
