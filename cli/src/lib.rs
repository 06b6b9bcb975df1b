//! `decodecalc`: the command-line face of decodecalc-core. Thin: it parses
//! flags, reads files (the [`World`] core asks for), and prints what core
//! computes. Data goes to stdout; errors to stderr as `error:` then `hint:`.
//!
//! The binary is `main.rs`, three lines around [`main_with`]; tests call
//! [`main_with`] directly and see exactly what a user sees.

mod render;
mod table;

use clap::{Args, Parser, Subcommand, ValueEnum};
use decodecalc_core::engine::{EngineSettings, HarnessSettings, TokenCount};
use decodecalc_core::scenario::{Request, World};
use decodecalc_core::Error;

#[derive(Parser, Debug)]
#[command(
    name = "decodecalc",
    version,
    about = "Capacity and decode calculator for serving LLMs with vLLM 0.32 on your own GPUs",
    long_about = "For each context length x number of simultaneous requests: does it fit in vLLM's KV cache, \
                  will requests queue, and what the memory arithmetic behind it is. \
                  With no scenario flags it predicts the reference run (NVIDIA-Nemotron-Nano-12B-v2 AWQ 4-bit \
                  on an RTX 3090, vLLM 0.32.0) from embedded data."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The context x concurrency matrix: status and running requests per cell.
    Matrix(CommonArgs),
    /// The memory breakdown and the KV-cache allocator's figures.
    Capacity(CommonArgs),
    /// List the embedded presets (models, GPUs, scenarios, measured runs).
    Presets(FormatArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Format {
    Table,
    Csv,
    Json,
    Markdown,
}

#[derive(Args, Debug)]
struct FormatArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// Flags named as `vllm serve` names them where they mean the same thing.
#[derive(Args, Debug)]
struct CommonArgs {
    /// Scenario preset or .toml path. Default: the reference run, unless
    /// --model or --gpu is given (then vLLM's and the harness's defaults).
    #[arg(long)]
    scenario: Option<String>,
    /// Model preset or .toml path.
    #[arg(long)]
    model: Option<String>,
    /// GPU preset or .toml path.
    #[arg(long)]
    gpu: Option<String>,
    /// Weight quantization: auto (the checkpoint's), none, awq, gptq, compressed-tensors, fp8.
    #[arg(long)]
    quantization: Option<String>,
    /// auto, bfloat16, float16, fp8, fp8_e4m3, fp8_e5m2, fp8_per_token_head,
    /// int8_per_token_head, int4_per_token_head.
    #[arg(long)]
    kv_cache_dtype: Option<String>,
    /// Fraction of device memory vLLM may use, in (0, 1].
    #[arg(long, allow_negative_numbers = true)]
    gpu_memory_utilization: Option<f64>,
    #[arg(long, allow_negative_numbers = true)]
    max_model_len: Option<i64>,
    #[arg(long, allow_negative_numbers = true)]
    max_num_seqs: Option<i64>,
    #[arg(long, allow_negative_numbers = true)]
    max_num_batched_tokens: Option<i64>,
    #[arg(long, overrides_with = "no_enable_prefix_caching")]
    enable_prefix_caching: bool,
    #[arg(long, overrides_with = "enable_prefix_caching")]
    no_enable_prefix_caching: bool,
    /// Tokens per KV block (a multiple of 16; hybrid models raise it).
    #[arg(long, allow_negative_numbers = true)]
    block_size: Option<i64>,
    /// auto, float32, bfloat16, float16 (auto = float32 for NemotronH).
    #[arg(long)]
    mamba_ssm_cache_dtype: Option<String>,
    /// Conv state dtype: auto (the model dtype), float32, bfloat16, float16.
    #[arg(long)]
    mamba_cache_dtype: Option<String>,
    /// Prompt lengths, comma-separated; k = 1024 (0,16k,32k).
    #[arg(long, allow_hyphen_values = true)]
    contexts: Option<String>,
    /// Prompt lengths of the cold-prefill rows, comma-separated.
    #[arg(long, allow_hyphen_values = true)]
    prefill_contexts: Option<String>,
    /// Simultaneous requests, comma-separated (1,2,4,8).
    #[arg(long, allow_hyphen_values = true)]
    concurrency: Option<String>,
    /// KV-cache pool in bytes, as vLLM's flag: skips the memory estimate.
    #[arg(long, allow_negative_numbers = true)]
    kv_cache_memory_bytes: Option<i64>,
    /// Use the first-principles non-KV estimate even where the scenario pins
    /// a measured figure.
    #[arg(long)]
    estimate_non_kv: bool,
    /// Timing calibration: a preset, a .toml path, or `none` (first
    /// principles). Default: the scenario's, else one fitted on the same GPU.
    #[arg(long)]
    calibration: Option<String>,
    /// Output tokens per request (the harness's max_tokens).
    #[arg(long, allow_negative_numbers = true)]
    max_tokens: Option<i64>,
    #[command(flatten)]
    format: FormatArgs,
}

/// Files come from the file system.
struct Fs;

impl World for Fs {
    fn read(&self, path: &str) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read `{path}`: {e}"))
    }
}

fn token_list(flag: &str, text: &str) -> Result<Vec<TokenCount>, Error> {
    if text.trim().is_empty() {
        return Err(Error::new(format!("{flag} is empty")).with_hint(format!(
            "give a comma-separated list, such as {flag} 0,16k,32k"
        )));
    }
    Ok(text
        .split(',')
        .map(|s| TokenCount::Text(s.trim().to_string()))
        .collect())
}

fn count_list(flag: &str, text: &str) -> Result<Vec<i64>, Error> {
    if text.trim().is_empty() {
        return Err(Error::new(format!("{flag} is empty")).with_hint(format!(
            "give a comma-separated list, such as {flag} 1,2,4,8"
        )));
    }
    text.split(',')
        .map(|s| {
            s.trim().parse::<i64>().map_err(|_| {
                Error::field(
                    flag,
                    s.trim(),
                    "whole numbers separated by commas, such as 1,2,4,8",
                )
            })
        })
        .collect()
}

impl CommonArgs {
    fn request(&self) -> Result<Request, Error> {
        let engine = EngineSettings {
            quantization: self.quantization.clone(),
            kv_cache_dtype: self.kv_cache_dtype.clone(),
            gpu_memory_utilization: self.gpu_memory_utilization,
            max_model_len: self.max_model_len,
            max_num_seqs: self.max_num_seqs,
            max_num_batched_tokens: self.max_num_batched_tokens,
            enable_prefix_caching: if self.enable_prefix_caching {
                Some(true)
            } else if self.no_enable_prefix_caching {
                Some(false)
            } else {
                None
            },
            block_size: self.block_size,
            mamba_ssm_cache_dtype: self.mamba_ssm_cache_dtype.clone(),
            mamba_cache_dtype: self.mamba_cache_dtype.clone(),
            attention_backend: None,
            kv_cache_memory_bytes: self.kv_cache_memory_bytes,
        };
        let harness = HarnessSettings {
            contexts: self
                .contexts
                .as_deref()
                .map(|t| token_list("--contexts", t))
                .transpose()?,
            prefill_contexts: self
                .prefill_contexts
                .as_deref()
                .map(|t| token_list("--prefill-contexts", t))
                .transpose()?,
            concurrency: self
                .concurrency
                .as_deref()
                .map(|t| count_list("--concurrency", t))
                .transpose()?,
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
        })
    }
}

fn run(cli: Cli) -> Result<String, Error> {
    match cli.command {
        Command::Matrix(args) => {
            let plan = args.request()?.resolve(&Fs)?;
            let capacity = plan.capacity()?;
            let matrix = decodecalc_core::matrix::matrix(&plan, &capacity)?;
            render::matrix(&plan, &capacity, &matrix, args.format.format)
        }
        Command::Capacity(args) => {
            let plan = args.request()?.resolve(&Fs)?;
            let capacity = plan.capacity()?;
            render::capacity(&plan, &capacity, args.format.format)
        }
        Command::Presets(args) => render::presets(&args),
    }
}

/// What one invocation printed and its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    /// 0 on success, 2 on bad input (clap's usage errors included).
    pub code: u8,
}

/// Run the command line `args` (with the program name first).
pub fn main_with<I, T>(args: I) -> Outcome
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let text = e.render().to_string();
            return if e.use_stderr() {
                Outcome {
                    stdout: String::new(),
                    stderr: text,
                    code,
                }
            } else {
                Outcome {
                    stdout: text,
                    stderr: String::new(),
                    code,
                }
            };
        }
    };
    match run(cli) {
        Ok(stdout) => Outcome {
            stdout,
            stderr: String::new(),
            code: 0,
        },
        Err(e) => {
            let mut stderr = format!("error: {}\n", e.message);
            if let Some(hint) = &e.hint {
                stderr.push_str(&format!("hint: {hint}\n"));
            }
            Outcome {
                stdout: String::new(),
                stderr,
                code: 2,
            }
        }
    }
}
