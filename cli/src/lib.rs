//! `decodecalc`: the command-line face of decodecalc-core. Thin: it parses
//! flags, reads files (the [`World`](decodecalc_api::scenario::World) core asks for), and prints what core
//! computes. Data goes to stdout; errors to stderr as `error:` then `hint:`.
//!
//! The binary is `main.rs`, three lines around [`main_with`]; tests call
//! [`main_with`] directly and see exactly what a user sees.

mod args;
mod cmd;
mod files;
mod flag_args;
mod hub;
mod render;
mod svg;
mod table;

/// The CLI's World: files, the local Hugging Face cache and the embedded
/// config.json corpus by repo id (what `--model org/name` reads).
pub use files::Fs as CliWorld;

use clap::{Parser, Subcommand};
use cmd::bench_serve::BenchServeArgs;
use cmd::calibrate::CalibrateArgs;
use cmd::compare::CompareArgs;
use cmd::matrix::MatrixArgs;
use cmd::presets::PresetsArgs;
use cmd::rank::RankArgs;
use cmd::solve::SolveArgs;

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
    /// The context x concurrency matrix: status, running requests, decode
    /// speed, TTFT and prefill speed per cell, as the harness measures them.
    #[command(after_help = cmd::matrix::EXAMPLES)]
    Matrix(MatrixArgs),
    /// The memory breakdown and the KV-cache allocator's figures.
    #[command(after_help = cmd::capacity::EXAMPLES)]
    Capacity(args::CommonArgs),
    /// Fit the timing model to a measured run and write a calibration file.
    #[command(after_help = cmd::calibrate::EXAMPLES)]
    Calibrate(CalibrateArgs),
    /// Compare predictions with a measured run, cell by cell.
    #[command(after_help = cmd::compare::EXAMPLES)]
    Compare(CompareArgs),
    /// What `vllm bench serve` would print for this setup: request and
    /// output throughput, TTFT, TPOT, ITL and end-to-end latency, as that
    /// tool defines them (random dataset, fixed lengths).
    #[command(after_help = cmd::bench_serve::EXAMPLES)]
    BenchServe(BenchServeArgs),
    /// Inverse questions: the largest context, the most requests, the
    /// smallest --max-model-len or --gpu-memory-utilization for a cell.
    #[command(after_help = cmd::solve::EXAMPLES)]
    Solve(SolveArgs),
    /// Every GPU x tensor-parallel size x KV dtype that serves a workload,
    /// cheapest per million output tokens first.
    #[command(after_help = cmd::rank::EXAMPLES)]
    Rank(RankArgs),
    /// List the embedded presets (models, GPUs, scenarios, measured runs).
    #[command(after_help = cmd::presets::EXAMPLES)]
    Presets(PresetsArgs),
}

fn run(cli: Cli, argv: &[String], diag: &mut cmd::Diagnostics) -> cmd::Output {
    match cli.command {
        Command::Matrix(args) => cmd::matrix::run(&args, diag),
        Command::Capacity(args) => cmd::capacity::run(&args, diag),
        Command::Calibrate(args) => cmd::calibrate::run(&args, argv, diag),
        Command::Compare(args) => cmd::compare::run(&args, diag),
        Command::BenchServe(args) => cmd::bench_serve::run(&args, diag),
        Command::Solve(args) => cmd::solve::run(&args, diag),
        Command::Rank(args) => cmd::rank::run(&args, diag),
        Command::Presets(args) => cmd::presets::run(&args),
    }
}

/// What one invocation printed and its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    /// 0 on success, 1 when `compare --max-mape` is exceeded, 2 on bad input
    /// (clap's usage errors included).
    pub code: u8,
}

/// Run the command line `args` (with the program name first).
pub fn main_with<I, T>(args: I) -> Outcome
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let argv: Vec<String> = args
        .into_iter()
        .map(|a| a.into().to_string_lossy().to_string())
        .collect();
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => return clap_outcome(&e, &argv),
    };
    let mut diag = cmd::Diagnostics::default();
    let result = run(cli, &argv, &mut diag);
    let mut stderr: String = diag
        .warnings
        .iter()
        .map(|w| format!("warning: {w}\n"))
        .collect();
    for e in &diag.errors {
        stderr.push_str(&error_lines(e));
    }
    match result {
        Ok((stdout, code)) => Outcome {
            stdout: sanitize(&stdout),
            stderr: sanitize(&stderr),
            code,
        },
        Err(e) => refusal(stderr, &e),
    }
}

/// An error as stderr shows it: its `error:` line and its `hint:` line.
fn error_lines(e: &decodecalc_api::Error) -> String {
    match &e.hint {
        Some(hint) => format!("error: {}\nhint: {hint}\n", e.message),
        None => format!("error: {}\n", e.message),
    }
}

/// A refused run: what stderr holds so far, then the error and its hint;
/// the exit code its kind has (`ErrorKind::exit_code`).
fn refusal(mut stderr: String, e: &decodecalc_api::Error) -> Outcome {
    stderr.push_str(&error_lines(e));
    Outcome {
        stdout: String::new(),
        stderr: sanitize(&stderr),
        code: e.kind.exit_code(),
    }
}

/// What clap's refusal (or its `--help` and `--version`) prints. A flag
/// value our value parsers refused is core's error, printed as every other;
/// clap's own message becomes one `error:` line, its tips and the help
/// pointer one `hint:` line (its usage block dropped).
fn clap_outcome(e: &clap::Error, argv: &[String]) -> Outcome {
    use std::error::Error as _;
    if let Some(err) = e
        .source()
        .and_then(|s| s.downcast_ref::<decodecalc_api::Error>())
    {
        return refusal(String::new(), err);
    }
    let text = e.render().to_string();
    if !e.use_stderr() {
        return Outcome {
            stdout: text,
            stderr: String::new(),
            code: 0,
        };
    }
    let sub = argv.get(1).filter(|a| !a.starts_with('-'));
    let help = match sub {
        Some(s) => format!("decodecalc {} --help", sanitize(s)),
        None => "decodecalc --help".to_string(),
    };
    let (error, mut tips) = clap_error_text(e);
    tips.push(format!("`{help}` lists every flag and the values it takes"));
    Outcome {
        stdout: String::new(),
        stderr: format!(
            "error: {}\nhint: {}\n",
            sanitize(&error),
            sanitize(&tips.join("; "))
        ),
        code: 2,
    }
}

/// Clap's refusal as one sentence and its tips, from the error's kind and
/// context (the argument, the value, the suggestions), not from its
/// rendered text.
fn clap_error_text(e: &clap::Error) -> (String, Vec<String>) {
    use clap::error::{ContextKind as K, ErrorKind};
    let get = |k: K| e.get(k).map(ToString::to_string).filter(|v| !v.is_empty());
    let arg = get(K::InvalidArg).unwrap_or_default();
    let error = match e.kind() {
        ErrorKind::UnknownArgument => format!("unexpected argument '{arg}' found"),
        ErrorKind::InvalidSubcommand => format!(
            "unrecognized subcommand '{}'",
            get(K::InvalidSubcommand).unwrap_or_default()
        ),
        ErrorKind::InvalidValue => match get(K::InvalidValue).filter(|v| !v.is_empty()) {
            Some(v) => format!("invalid value '{v}' for '{arg}'"),
            None => format!("a value is required for '{arg}' but none was supplied"),
        },
        ErrorKind::MissingRequiredArgument => {
            format!("the following required arguments were not provided: {arg}")
        }
        ErrorKind::ArgumentConflict => match get(K::PriorArg) {
            Some(prior) if prior != arg => {
                format!("the argument '{arg}' cannot be used with '{prior}'")
            }
            _ => format!("the argument '{arg}' cannot be used multiple times"),
        },
        ErrorKind::NoEquals => format!("equal sign is needed when assigning values to '{arg}'"),
        kind => {
            let what = kind.as_str().unwrap_or("the command line is not valid");
            if arg.is_empty() {
                what.to_string()
            } else {
                format!("{what}: '{arg}'")
            }
        }
    };
    let mut tips = Vec::new();
    for (k, what) in [
        (K::SuggestedArg, "a similar argument exists"),
        (K::SuggestedSubcommand, "a similar subcommand exists"),
        (K::SuggestedValue, "a similar value exists"),
    ] {
        if let Some(s) = get(k) {
            tips.push(format!("{what}: '{s}'"));
        }
    }
    // Clap's other tips (such as passing a value that looks like a flag
    // after `--`), one per line.
    if let Some(s) = get(K::Suggested) {
        tips.extend(
            s.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from),
        );
    }
    if let Some(v) = get(K::ValidValue) {
        tips.push(format!("possible values: {v}"));
    }
    (error, tips)
}

/// Text for a terminal: control characters (ESC, OSC, BEL, ...) and the
/// bidirectional overrides that reorder what a reader sees (RLO, LRI, ...)
/// from files and flags are written as `\u{..}` escapes; newlines and tabs
/// stay.
pub fn sanitize(text: &str) -> String {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return text.to_string();
    }
    text.chars()
        .map(|c| match unsafe_char(c) {
            true => c.escape_unicode().to_string(),
            false => c.to_string(),
        })
        .collect()
}
