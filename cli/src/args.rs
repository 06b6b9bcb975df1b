//! The argument groups every subcommand shares (the setup flags, the output
//! format) and the typed values of flags: each flag value is parsed by a clap
//! value parser returning core's [`Error`], which `main_with` prints as
//! `error:` naming the flag and `hint:` saying what is valid (exit code 2).

use crate::engine_flags;
use crate::files::Fs;
use clap::{Args, ValueEnum};
use decodecalc_core::engine::{parse_count_list, parse_token_list, HarnessSettings, TokenCount};
use decodecalc_core::scenario::{Request, World};
use decodecalc_core::units::parse_tokens;
use decodecalc_core::Error;

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

/// Flags named as `vllm serve` names them where they mean the same thing.
#[derive(Args, Debug)]
pub struct CommonArgs {
    /// Scenario preset or .toml path. Default: the reference run, unless
    /// --model or --gpu is given (then vLLM's and the harness's defaults).
    #[arg(long)]
    pub scenario: Option<String>,
    /// Model preset or .toml path.
    #[arg(long)]
    pub model: Option<String>,
    /// GPU preset or .toml path.
    #[arg(long)]
    pub gpu: Option<String>,
    /// The `vllm serve` flags, generated from core's flag table.
    #[command(flatten)]
    pub engine: engine_flags::EngineFlagArgs,
    /// Prompt lengths, comma-separated; k = 1024 (0,16k,32k).
    #[arg(long, allow_hyphen_values = true, value_parser = token_list("--contexts"))]
    pub contexts: Option<Listed<TokenCount>>,
    /// Prompt lengths of the cold-prefill rows, comma-separated.
    #[arg(long, allow_hyphen_values = true, value_parser = token_list("--prefill-contexts"))]
    pub prefill_contexts: Option<Listed<TokenCount>>,
    /// Simultaneous requests, comma-separated (1,2,4,8).
    #[arg(long, allow_hyphen_values = true, value_parser = count_list("--concurrency"))]
    pub concurrency: Option<Listed<i64>>,
    /// Use the first-principles non-KV estimate even where the scenario pins
    /// a measured figure.
    #[arg(long)]
    pub estimate_non_kv: bool,
    /// A pasted `vllm serve MODEL --flag ...` line: its model and flags are
    /// used; explicit flags here override them. Unknown flags are warned about.
    #[arg(long)]
    pub vllm_command: Option<String>,
    /// A vLLM start-up log (the output of `vllm serve` up to "Application
    /// startup complete"): its release, model and flags fill what is not
    /// given, its "Available KV cache memory" pins the KV pool, and each
    /// logged figure is shown against the prediction (`capacity`).
    #[arg(long, value_name = "FILE")]
    pub vllm_log: Option<String>,
    /// Timing calibration: a preset, a .toml path, or `none` (first
    /// principles). Default: the scenario's, else one fitted on the same GPU.
    #[arg(long)]
    pub calibration: Option<String>,
    /// Output tokens per request (the harness's max_tokens).
    #[arg(long, allow_negative_numbers = true)]
    pub max_tokens: Option<i64>,
    #[command(flatten)]
    pub format: FormatArgs,
}

impl CommonArgs {
    pub fn request(&self) -> Result<Request, Error> {
        let engine = self.engine.settings()?;
        let harness = HarnessSettings {
            contexts: self.contexts.as_ref().map(|l| l.values.clone()),
            prefill_contexts: self.prefill_contexts.as_ref().map(|l| l.values.clone()),
            concurrency: self.concurrency.as_ref().map(|l| l.values.clone()),
            max_tokens: self.max_tokens,
            window_s: None,
            prompt_scale: None,
            prompt_extra_tokens: None,
        };
        Ok(Request {
            scenario: self.scenario.clone(),
            model: self.model.clone(),
            gpu: self.gpu.clone(),
            engine,
            harness,
            estimate_non_kv: self.estimate_non_kv,
            calibration: self.calibration.clone(),
            vllm_command: self.vllm_command.clone(),
            vllm_log: match &self.vllm_log {
                Some(path) => Some((
                    path.clone(),
                    Fs.read(path).map_err(|why| {
                        Error::new(why)
                            .with_hint("give the start-up log vLLM printed, as a text file")
                    })?,
                )),
                None => None,
            },
        })
    }

    /// The format of the output.
    pub fn format(&self) -> Format {
        self.format.format
    }
}

/// A comma-separated flag value: its items, and its text for messages.
#[derive(Clone, Debug)]
pub struct Listed<T> {
    pub text: String,
    pub values: Vec<T>,
}

/// `--contexts`-like lists: token counts as written (checked when the plan
/// resolves them).
fn token_list(
    flag: &'static str,
) -> impl Fn(&str) -> Result<Listed<TokenCount>, Error> + Clone + Send + Sync + 'static {
    move |text| {
        Ok(Listed {
            text: text.to_string(),
            values: parse_token_list(flag, text)?,
        })
    }
}

/// `--concurrency`-like lists: whole numbers.
fn count_list(
    flag: &'static str,
) -> impl Fn(&str) -> Result<Listed<i64>, Error> + Clone + Send + Sync + 'static {
    move |text| {
        Ok(Listed {
            text: text.to_string(),
            values: parse_count_list(flag, text)?,
        })
    }
}

/// `--tp`: positive tensor-parallel sizes.
pub fn tp_sizes(text: &str) -> Result<Listed<u64>, Error> {
    Ok(Listed {
        text: text.to_string(),
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
        text: text.to_string(),
        values: text.split(',').map(|g| g.trim().to_string()).collect(),
    })
}

/// `--context`: one token count (k = 1024, as vLLM reads it).
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
