//! `decodecalc`: the command-line face of decodecalc-core. Thin: it parses
//! flags, reads files (the [`World`] core asks for), and prints what core
//! computes. Data goes to stdout; errors to stderr as `error:` then `hint:`.
//!
//! The binary is `main.rs`, three lines around [`main_with`]; tests call
//! [`main_with`] directly and see exactly what a user sees.

mod engine_flags;
mod render;
mod svg;
mod table;

use clap::{Args, Parser, Subcommand, ValueEnum};
use decodecalc_core::calibrate::{fit, FitReport};
use decodecalc_core::compare::{check_rows, compare, Comparison};
use decodecalc_core::engine::{parse_count_list, parse_token_list, HarnessSettings};
use decodecalc_core::matrix::Predictor;
use decodecalc_core::measured::{parse_measured, MeasuredRow};
use decodecalc_core::presets::{self, Kind};
use decodecalc_core::scenario::{load_text, CalibrationFile, Plan, Request, World};
use decodecalc_core::solve::{
    alternatives, smallest_max_model_len, smallest_utilization, SpeedTarget,
};
use decodecalc_core::units::parse_tokens;
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
    /// The context x concurrency matrix: status, running requests, decode
    /// speed, TTFT and prefill speed per cell, as the harness measures them.
    Matrix(MatrixArgs),
    /// The memory breakdown and the KV-cache allocator's figures.
    Capacity(CommonArgs),
    /// Fit the timing model to a measured run and write a calibration file.
    Calibrate(CalibrateArgs),
    /// Compare predictions with a measured run, cell by cell.
    Compare(CompareArgs),
    /// What `vllm bench serve` would print for this setup: request and
    /// output throughput, TTFT, TPOT, ITL and end-to-end latency, as that
    /// tool defines them (random dataset, fixed lengths).
    BenchServe(BenchServeArgs),
    /// Inverse questions: the largest context, the most requests, the
    /// smallest --max-model-len or --gpu-memory-utilization for a cell.
    Solve(SolveArgs),
    /// Every GPU x tensor-parallel size x KV dtype that serves a workload,
    /// cheapest per million output tokens first.
    Rank(RankArgs),
    /// List the embedded presets (models, GPUs, scenarios, measured runs).
    Presets(PresetsArgs),
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

#[derive(Args, Debug)]
pub struct PresetsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// List what changed between the vLLM releases `--vllm-version` models
    /// instead, release by release, with the vLLM file each rule is read from.
    #[arg(long)]
    versions: bool,
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
    /// The `vllm serve` flags, generated from core's flag table.
    #[command(flatten)]
    engine: engine_flags::EngineFlagArgs,
    /// Prompt lengths, comma-separated; k = 1024 (0,16k,32k).
    #[arg(long, allow_hyphen_values = true)]
    contexts: Option<String>,
    /// Prompt lengths of the cold-prefill rows, comma-separated.
    #[arg(long, allow_hyphen_values = true)]
    prefill_contexts: Option<String>,
    /// Simultaneous requests, comma-separated (1,2,4,8).
    #[arg(long, allow_hyphen_values = true)]
    concurrency: Option<String>,
    /// Use the first-principles non-KV estimate even where the scenario pins
    /// a measured figure.
    #[arg(long)]
    estimate_non_kv: bool,
    /// A pasted `vllm serve MODEL --flag ...` line: its model and flags are
    /// used; explicit flags here override them. Unknown flags are warned about.
    #[arg(long)]
    vllm_command: Option<String>,
    /// A vLLM start-up log (the output of `vllm serve` up to "Application
    /// startup complete"): its release, model and flags fill what is not
    /// given, its "Available KV cache memory" pins the KV pool, and each
    /// logged figure is shown against the prediction (`capacity`).
    #[arg(long, value_name = "FILE")]
    vllm_log: Option<String>,
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

#[derive(Args, Debug)]
struct MatrixArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Also draw the grid as an SVG heat map into this file.
    #[arg(long)]
    svg: Option<String>,
    /// Explain one cell instead of printing the matrix: CONTEXT:CONCURRENCY
    /// (such as 16K:32) for a decode cell, or CONTEXT for its prefill row.
    #[arg(long)]
    explain: Option<String>,
}

#[derive(Args, Debug)]
struct CalibrateArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// A measured run: decodecalc's CSV, the harness's
    /// benchmark_results.json, a runs CSV (data/runs), or a preset of either.
    /// Default: the scenario's. Give it several times to fit them jointly
    /// (per GPU class, with leave-one-run-out errors).
    #[arg(long)]
    measured: Vec<String>,
    /// Write the calibration here (TOML); without it, print it. One harness run only.
    #[arg(long, conflicts_with = "out_dir")]
    out: Option<String>,
    /// Fit jointly and write one calibration per GPU class into this directory
    /// (`<class>.toml`).
    #[arg(long)]
    out_dir: Option<String>,
    /// The calibration's id. Default: the file name of --out, else GPU-vllm0.32.
    #[arg(long)]
    id: Option<String>,
}

#[derive(Args, Debug)]
struct CompareArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// The measured run: decodecalc's CSV, the harness's
    /// benchmark_results.json, or a measured preset. Default: the scenario's.
    #[arg(long)]
    measured: Option<String>,
    /// Also refit leaving each measured cell out and report those errors.
    #[arg(long)]
    cross_validate: bool,
    /// Also draw measured against predicted total tok/s into this SVG file.
    #[arg(long)]
    svg: Option<String>,
    /// Exit with code 1 when the total tok/s MAPE (leave-one-out if
    /// --cross-validate) exceeds this many percent.
    #[arg(long, allow_negative_numbers = true)]
    max_mape: Option<f64>,
}

/// `vllm bench serve`'s own flags (docs/reference/vllm-bench-serve.md).
#[derive(Args, Debug)]
struct BenchServeArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Only `random` is modelled (fixed lengths); for ShareGPT give its mean
    /// lengths as --random-input-len and --random-output-len.
    #[arg(long, default_value = "random")]
    dataset_name: String,
    #[arg(long, default_value_t = 1024)]
    random_input_len: u64,
    #[arg(long, default_value_t = 128)]
    random_output_len: u64,
    /// Lengths vary by this fraction either way; modelled at their means.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    random_range_ratio: f64,
    /// A prefix shared by every prompt: not modelled, give 0.
    #[arg(long, default_value_t = 0)]
    random_prefix_len: u64,
    #[arg(long, default_value_t = 1000)]
    num_prompts: u64,
    /// Requests in flight at most (default: no limit).
    #[arg(long)]
    max_concurrency: Option<u64>,
    /// Requests per second, or inf (all at once). At a finite rate the
    /// arrivals are the tool's own: gamma-distributed gaps drawn with
    /// --seed, as numpy draws them.
    #[arg(long, default_value = "inf", allow_hyphen_values = true)]
    request_rate: String,
    /// Generate to --random-output-len whatever the model says (forced on
    /// for the random dataset since vLLM 0.23).
    #[arg(long)]
    ignore_eos: bool,
    /// The gaps' gamma shape at a finite --request-rate (1: Poisson).
    #[arg(long, default_value_t = decodecalc_core::serve::DEFAULT_BURSTINESS)]
    burstiness: f64,
    /// The seed the tool draws its arrival gaps with.
    #[arg(long, default_value_t = decodecalc_core::serve::DEFAULT_SEED)]
    seed: u64,
    /// Compare with this `--save-result` JSON instead: its workload replaces the flags above.
    #[arg(long)]
    result: Option<String>,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum SolveFor {
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
struct SolveArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// What to solve for.
    #[arg(long = "for", value_enum)]
    solve_for: SolveFor,
    /// The context of the target cell (k = 1024).
    #[arg(long, allow_hyphen_values = true)]
    context: Option<String>,
    /// Also require this per-request decode speed, tok/s.
    #[arg(long, allow_negative_numbers = true)]
    min_per_request_tok_s: Option<f64>,
}

#[derive(Args, Debug)]
struct RankArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// The workload's context (k = 1024); --concurrency gives its requests.
    #[arg(long, allow_hyphen_values = true)]
    context: String,
    /// GPU presets to consider, comma-separated (default: the whole catalog).
    #[arg(long)]
    gpus: Option<String>,
    /// Tensor-parallel sizes to consider (default 1,2,4,8).
    #[arg(long, default_value = "1,2,4,8")]
    tp: String,
    /// Override a price: GPU=USD_PER_HOUR (repeatable).
    #[arg(long)]
    price: Vec<String>,
    /// Also require this per-request decode speed, tok/s.
    #[arg(long, allow_negative_numbers = true)]
    min_per_request_tok_s: Option<f64>,
}

/// Files come from the file system.
struct Fs;

/// Every file this run has read, so that no output is written onto one.
static INPUTS: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

impl World for Fs {
    fn entry(&self, path: &str) -> decodecalc_core::scenario::Entry {
        use decodecalc_core::scenario::Entry;
        match std::fs::metadata(path) {
            Err(_) => Entry::Missing,
            Ok(m) if m.is_file() => Entry::File,
            Ok(m) if m.is_dir() => Entry::Directory,
            Ok(_) => Entry::Special,
        }
    }

    fn read(&self, path: &str) -> Result<String, String> {
        use std::io::Read;
        let limit = decodecalc_core::parse::MAX_INPUT_BYTES;
        // A FIFO would block (even on open), a device (/dev/zero) never end:
        // regular files only, checked before opening.
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
        if !meta.is_file() {
            return Err(format!(
                "`{path}` is not a regular file (a directory, FIFO, socket or device)"
            ));
        }
        let file = std::fs::File::open(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
        // Read at most one byte past the limit, whatever size the file states.
        let mut bytes = Vec::new();
        file.take(limit as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read `{path}`: {e}"))?;
        if bytes.len() > limit {
            return Err(format!(
                "`{path}` has more than the {limit} bytes (8 MiB) an input may have"
            ));
        }
        if let (Ok(mut inputs), Ok(canonical)) = (INPUTS.lock(), std::fs::canonicalize(path)) {
            inputs.push(canonical);
        }
        String::from_utf8(bytes).map_err(|e| {
            format!(
                "`{path}` is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            )
        })
    }
}

impl CommonArgs {
    fn request(&self) -> Result<Request, Error> {
        let engine = self.engine.settings()?;
        let harness = HarnessSettings {
            contexts: self
                .contexts
                .as_deref()
                .map(|t| parse_token_list("--contexts", t))
                .transpose()?,
            prefill_contexts: self
                .prefill_contexts
                .as_deref()
                .map(|t| parse_token_list("--prefill-contexts", t))
                .transpose()?,
            concurrency: self
                .concurrency
                .as_deref()
                .map(|t| parse_count_list("--concurrency", t))
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
}

/// The measured rows named by `--measured` (a path or a preset), or the scenario's.
fn measured_rows(name: Option<&str>, plan: &Plan) -> Result<(String, Vec<MeasuredRow>), Error> {
    let name =
        match name.map(str::to_string).or_else(|| plan.measured.clone()) {
            Some(n) => n,
            None => return Err(
                Error::new("no measured run: the scenario names none").with_hint(
                    "pass --measured FILE (decodecalc CSV or the harness's benchmark_results.json)",
                ),
            ),
        };
    let (origin, text) = load_text(&Fs, Kind::Measured, &name)?;
    Ok((origin.clone(), parse_measured(&origin, &text)?))
}

/// A `vllm bench serve --save-result` file, with a warning when its lengths
/// vary and are modelled at their means.
fn read_bench_result(
    path: &str,
    warnings: &mut Vec<String>,
) -> Result<decodecalc_core::bench_serve::BenchResult, Error> {
    let text = Fs.read(path).map_err(|why| {
        Error::new(why).with_hint("give the JSON vllm bench serve --save-result wrote")
    })?;
    let r = decodecalc_core::bench_serve::parse(path, &text)?;
    if r.lengths_vary && r.lengths.is_empty() {
        warnings.push(format!(
            "{path}: request lengths vary; modelled at their means ({:.0} in, {:.0} out)",
            r.mean_input_tokens, r.mean_output_tokens
        ));
    }
    Ok(r)
}

/// `bench-serve`, and `compare` with a `--save-result` file: predict the
/// workload on the flags' setup, beside the file's figures when given.
fn bench_serve(
    common: &CommonArgs,
    workload: &decodecalc_core::serve::Workload,
    measured: Option<&decodecalc_core::bench_serve::BenchResult>,
    warnings: &mut Vec<String>,
) -> Result<(String, u8), Error> {
    let plan = resolve(common, warnings)?;
    let capacity = plan.capacity()?;
    // The client paces arrivals as its release did.
    let workload = &decodecalc_core::serve::Workload {
        arrival: workload.arrival.for_release(plan.engine.vllm_version),
        ..*workload
    };
    let lengths = measured.map_or(&[][..], |m| m.lengths.as_slice());
    let predicted = decodecalc_core::bench_serve::predict_lengths(
        &plan,
        &capacity,
        &plan.calibration.params,
        workload,
        lengths,
    )?;
    let comparison = measured.map(|m| decodecalc_core::bench_serve::compare(m, &predicted));
    Ok((
        render::bench_serve(
            &plan,
            workload,
            &predicted,
            comparison.as_deref(),
            common.format.format,
        )?,
        0,
    ))
}

/// Whether a measured file is a `vllm bench serve --save-result` JSON
/// rather than the harness's.
fn is_bench_result(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    t.starts_with('{') && t.contains("\"completed\"") && !t.contains("\"results\"")
}

/// The workload `bench-serve`'s flags describe.
fn bench_workload(
    args: &BenchServeArgs,
    warnings: &mut Vec<String>,
) -> Result<decodecalc_core::serve::Workload, Error> {
    if args.dataset_name != "random" {
        return Err(Error::field("--dataset-name", &args.dataset_name, "random (for ShareGPT, pass its mean lengths as --random-input-len and --random-output-len)"));
    }
    if !(args.random_range_ratio.is_finite() && (0.0..1.0).contains(&args.random_range_ratio)) {
        return Err(Error::field(
            "--random-range-ratio",
            args.random_range_ratio,
            "a fraction in [0, 1), as vLLM requires",
        ));
    }
    if args.random_range_ratio > 0.0 {
        warnings.push(format!(
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
    let request_rate = match args.request_rate.trim() {
        "inf" | "Inf" | "INF" => None,
        t => match t.parse::<f64>() {
            Ok(r) if r.is_finite() && r > 0.0 && r <= 1e6 => Some(r),
            Ok(r) if r.is_infinite() && r > 0.0 => None,
            _ => {
                return Err(Error::field(
                    "--request-rate",
                    t,
                    "requests per second in (0, 1000000], or inf",
                ))
            }
        },
    };
    let w = decodecalc_core::serve::Workload {
        input_tokens: args.random_input_len,
        output_tokens: args.random_output_len,
        num_prompts: args.num_prompts,
        arrival: decodecalc_core::serve::Arrival::Serve {
            request_rate,
            max_concurrency: args.max_concurrency,
            burstiness: args.burstiness,
            seed: args.seed,
            pacing: decodecalc_core::arrivals::Pacing::Rescaled,
        },
    };
    w.validate()?;
    Ok(w)
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

fn is_runs_file(name: &str) -> bool {
    name.ends_with(".csv")
        && Fs
            .read(name)
            .is_ok_and(|t| t.trim_start_matches('\u{feff}').starts_with("run,point,"))
}

/// The runs of one `--measured` source for a joint fit: a runs file carries
/// its setups; a harness run is paired with the scenario preset that names
/// it, else with the flags.
fn measured_runs(
    name: &str,
    common: &CommonArgs,
    warnings: &mut Vec<String>,
) -> Result<(String, Vec<decodecalc_core::calibrate::Run>), Error> {
    let (origin, text) = match presets::find(Kind::Runs, name) {
        Ok(f) => (f.path.to_string(), f.text.to_string()),
        Err(_) => load_text(&Fs, Kind::Measured, name)?,
    };
    if text
        .trim_start_matches('\u{feff}')
        .starts_with("run,point,")
    {
        let rows = decodecalc_core::runs::parse_csv(&origin, &text)?;
        return Ok((origin, decodecalc_core::runs::build(&Fs, &rows)?));
    }
    if text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('{')
        && text.contains("\"completed\"")
    {
        // A vllm bench serve --save-result file: the setup comes from the flags.
        let result = decodecalc_core::bench_serve::parse(&origin, &text)?;
        let plan = resolve(common, warnings)?;
        let capacity = plan.capacity()?;
        return Ok((
            origin,
            vec![decodecalc_core::bench_serve::as_run(
                &plan, &capacity, &result,
            )?],
        ));
    }
    let rows = parse_measured(&origin, &text)?;
    let mut request = common.request()?;
    if request.scenario.is_none() && request.model.is_none() && request.gpu.is_none() {
        request.scenario = presets::FILES
            .iter()
            .filter(|f| f.kind == Kind::Scenario)
            .find(|f| {
                decodecalc_core::scenario::ScenarioFile::parse(f.path, f.text).is_ok_and(|s| {
                    s.measured
                        .as_deref()
                        .is_some_and(|m| origin.ends_with(&format!("{m}.csv")) || m == name)
                })
            })
            .map(|f| f.id.to_string());
    }
    let plan = request.resolve(&Fs)?;
    warnings.extend(plan.warnings.iter().cloned());
    let capacity = plan.capacity()?;
    let predictor = Predictor::new(&plan, &capacity, plan.calibration.params)?;
    check_rows(&predictor, &rows)?;
    let mut run = decodecalc_core::calibrate::harness_run(&predictor, &rows);
    run.source = origin.clone();
    Ok((origin, vec![run]))
}

/// Write an output file, never onto a file this run read.
fn write_file(path: &str, text: &str) -> Result<(), Error> {
    if let (Ok(inputs), Ok(target)) = (INPUTS.lock(), std::fs::canonicalize(path)) {
        if inputs.contains(&target) {
            return Err(
                Error::new(format!("`{path}` is one of this run's inputs")).with_hint(
                    "write the output to another file: decodecalc never overwrites what it reads",
                ),
            );
        }
    }
    std::fs::write(path, text).map_err(|e| {
        Error::new(format!("cannot write `{path}`: {e}"))
            .with_hint("check that the directory exists and is writable")
    })
}

/// Resolve the plan the flags describe; its warnings go to stderr.
fn resolve(args: &CommonArgs, warnings: &mut Vec<String>) -> Result<Plan, Error> {
    let plan = args.request()?.resolve(&Fs)?;
    warnings.extend(plan.warnings.iter().cloned());
    Ok(plan)
}

fn run(cli: Cli, argv: &[String], warnings: &mut Vec<String>) -> Result<(String, u8), Error> {
    match cli.command {
        Command::Matrix(args) => {
            let plan = resolve(&args.common, warnings)?;
            let capacity = plan.capacity()?;
            let predictor = Predictor::new(&plan, &capacity, plan.calibration.params)?;
            if let Some(which) = &args.explain {
                return Ok((render::explain(&predictor, which)?, 0));
            }
            let matrix = predictor.matrix();
            if let Some(path) = &args.svg {
                let title = format!(
                    "{} on {}: total tok/s and TTFT",
                    plan.model.name, plan.gpu.name
                );
                write_file(path, &svg::matrix(&matrix, &title)?)?;
            }
            Ok((
                render::matrix(&plan, &capacity, &matrix, args.common.format.format)?,
                0,
            ))
        }
        Command::Capacity(args) => {
            let plan = resolve(&args, warnings)?;
            let capacity = plan.capacity()?;
            let table = render::capacity(&plan, &capacity, args.format.format)?;
            // The breakdown still prints (it shows why); the exit code and the
            // error are the same as every other subcommand's.
            match capacity.startup_error() {
                Some(e) => {
                    let hint = e.hint.map(|h| format!("\nhint: {h}")).unwrap_or_default();
                    warnings.push(format!("error: {}{hint}", e.message));
                    Ok((table, 2))
                }
                None => Ok((table, 0)),
            }
        }
        Command::Calibrate(args) if joint_calibration(&args) => {
            let mut runs = Vec::new();
            let mut sources = Vec::new();
            for m in &args.measured {
                let (origin, mut r) = measured_runs(m, &args.common, warnings)?;
                sources.push(origin);
                runs.append(&mut r);
            }
            let report = decodecalc_core::calibrate::joint_report(&runs)?;
            let command = format!(
                "decodecalc {}",
                argv.iter().skip(1).cloned().collect::<Vec<_>>().join(" ")
            );
            let files =
                decodecalc_core::calibrate::calibration_files(&report, &runs, &sources, &command);
            if let Some(dir) = &args.out_dir {
                for f in &files {
                    write_file(&format!("{dir}/{}.toml", f.id), &f.to_toml()?)?;
                }
            }
            Ok((render::joint(&report, args.common.format.format)?, 0))
        }
        Command::Calibrate(args) => {
            let plan = resolve(&args.common, warnings)?;
            let capacity = plan.capacity()?;
            let predictor = Predictor::new(&plan, &capacity, plan.calibration.params)?;
            let (origin, rows) = measured_rows(args.measured.first().map(String::as_str), &plan)?;
            check_rows(&predictor, &rows)?;
            let report = fit(&predictor, &rows)?;
            let fitted = predictor.with_params(report.params);
            let comparison = compare(&fitted, &rows, true)?;
            let id = args.id.clone().unwrap_or_else(|| {
                args.out
                    .as_deref()
                    .and_then(|o| std::path::Path::new(o).file_stem())
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_else(|| format!("{}-vllm0.32", plan.gpu.id))
            });
            let file = calibration_file(&plan, &report, &comparison, &id, &origin, argv);
            let toml = file.to_toml()?;
            let mut out = render::calibration(
                &report,
                &comparison,
                &plan,
                args.common.format.format,
                &rows,
            )?;
            match &args.out {
                Some(path) => write_file(path, &toml)?,
                None if args.common.format.format == Format::Table => {
                    out.push('\n');
                    out.push_str(&toml);
                }
                None => {}
            }
            Ok((out, 0))
        }
        Command::Compare(args)
            if args.measured.as_deref().is_some_and(|m| {
                m.ends_with(".json") && Fs.read(m).is_ok_and(|t| is_bench_result(&t))
            }) =>
        {
            let path = args.measured.clone().unwrap_or_default();
            let r = read_bench_result(&path, warnings)?;
            bench_serve(&args.common, &r.workload(), Some(&r), warnings)
        }
        Command::Compare(args) => {
            let plan = resolve(&args.common, warnings)?;
            let capacity = plan.capacity()?;
            let predictor = Predictor::new(&plan, &capacity, plan.calibration.params)?;
            let (_, rows) = measured_rows(args.measured.as_deref(), &plan)?;
            let comparison = compare(&predictor, &rows, args.cross_validate)?;
            if let Some(path) = &args.svg {
                write_file(path, &svg::comparison(&comparison)?)?;
            }
            let out = render::comparison(&comparison, args.common.format.format)?;
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
                    warnings.push(format!(
                        "error: total tok/s MAPE {gate:.2}% ({which}) exceeds --max-mape {limit}"
                    ));
                    warnings.push(
                        "hint: the prediction is off this run by more than the gate allows; the table on stdout shows each cell's error"
                            .to_string(),
                    );
                    Ok((out, 1))
                }
                _ => Ok((out, 0)),
            }
        }
        Command::BenchServe(args) => {
            let measured = match &args.result {
                Some(path) => Some(read_bench_result(path, warnings)?),
                None => None,
            };
            let workload = match &measured {
                Some(r) => r.workload(),
                None => bench_workload(&args, warnings)?,
            };
            bench_serve(&args.common, &workload, measured.as_ref(), warnings)
        }
        Command::Solve(args) => {
            let request = args.common.request()?;
            let plan = resolve(&args.common, warnings)?;
            let speed = match args.min_per_request_tok_s {
                Some(x) if !(x.is_finite() && x > 0.0) => {
                    return Err(Error::field(
                        "--min-per-request-tok-s",
                        x,
                        "a positive speed in tok/s",
                    ))
                }
                x => SpeedTarget {
                    min_per_request_tok_s: x,
                },
            };
            let context = match &args.context {
                None => None,
                Some(t) => Some(parse_tokens(t).ok_or_else(|| {
                    Error::field(
                        "--context",
                        t,
                        "a token count such as 32768, 32K (x1024) or 32k (x1000)",
                    )
                })?),
            };
            let concurrency = plan.harness.concurrency.first().copied();
            let need_context = || {
                context.ok_or_else(|| {
                    Error::new("--context is required for this question")
                        .with_hint("add --context 32k (the prompt length of the target cell)")
                })
            };
            let need_concurrency = || match (&args.common.concurrency, concurrency) {
                (Some(_), Some(c)) => Ok(c),
                _ => Err(Error::new("--concurrency is required for this question")
                    .with_hint("add --concurrency 16 (requests at once in the target cell)")),
            };
            let capacity = plan.capacity()?;
            let out = match args.solve_for {
                SolveFor::MaxContext => {
                    let predictor = Predictor::new(&plan, &capacity, plan.calibration.params)?;
                    render::solved_context(
                        &predictor.max_context(need_concurrency()?, speed),
                        args.common.format.format,
                    )?
                }
                SolveFor::MaxConcurrency => {
                    let predictor = Predictor::new(&plan, &capacity, plan.calibration.params)?;
                    let ctx = need_context()?;
                    if ctx.saturating_add(plan.harness.max_tokens)
                        > plan.engine.max_model_len_tokens
                    {
                        return Err(Error::new(format!(
                            "context {ctx} + max_tokens {} exceeds max_model_len {}",
                            plan.harness.max_tokens, plan.engine.max_model_len_tokens
                        ))
                        .with_hint("ask --for max-model-len, or use a smaller --context"));
                    }
                    render::solved_concurrency(
                        &predictor.max_concurrency(ctx, speed),
                        args.common.format.format,
                    )?
                }
                SolveFor::MaxModelLen | SolveFor::GpuMemoryUtilization => {
                    let (ctx, c) = (need_context()?, need_concurrency()?);
                    let mut answer = if args.solve_for == SolveFor::MaxModelLen {
                        smallest_max_model_len(&plan, ctx, c, speed)?
                    } else {
                        smallest_utilization(&plan, ctx, c, speed)?
                    };
                    if answer.value.is_none() {
                        match alternatives(&request, &Fs, ctx, c, speed) {
                            Ok(alts) => answer
                                .suggestions
                                .extend(alts.into_iter().map(|a| format!("or {a}"))),
                            Err(e) => answer.suggestions.push(e.message),
                        }
                    }
                    render::solved_setting(
                        &answer,
                        args.solve_for == SolveFor::MaxModelLen,
                        &plan,
                        args.common.format.format,
                    )?
                }
            };
            Ok((out, 0))
        }
        Command::Rank(args) => {
            let request = args.common.request()?;
            let model_name = request.model.clone().ok_or_else(|| {
                Error::new("rank needs --model")
                    .with_hint("add --model with a preset, a config.json or a folder")
            })?;
            let model = decodecalc_core::scenario::load_model(&Fs, &model_name)?;
            let context = parse_tokens(&args.context).ok_or_else(|| {
                Error::field(
                    "--context",
                    &args.context,
                    "a token count such as 32768, 32K (x1024) or 32k (x1000)",
                )
            })?;
            let concurrency = match &args.common.concurrency {
                Some(t) => match parse_count_list("--concurrency", t)?.as_slice() {
                    [c] if *c > 0 => *c as u64,
                    _ => {
                        return Err(Error::field(
                            "--concurrency",
                            t,
                            "one positive request count for the workload",
                        ))
                    }
                },
                None => {
                    return Err(
                        Error::new("rank needs --concurrency").with_hint("add --concurrency 32")
                    )
                }
            };
            if let Some(x) = args.min_per_request_tok_s {
                if !(x.is_finite() && x > 0.0) {
                    return Err(Error::field(
                        "--min-per-request-tok-s",
                        x,
                        "a positive speed in tok/s",
                    ));
                }
            }
            let gpus: Vec<decodecalc_core::gpu::Gpu> = match &args.gpus {
                Some(list) => list
                    .split(',')
                    .map(|g| decodecalc_core::scenario::load_gpu(&Fs, g.trim()))
                    .collect::<Result<_, _>>()?,
                None => presets::ids(Kind::Gpu)
                    .map(presets::gpu)
                    .collect::<Result<_, _>>()?,
            };
            let tps: Vec<u64> = parse_count_list("--tp", &args.tp)?
                .into_iter()
                .map(|t| {
                    u64::try_from(t)
                        .ok()
                        .filter(|&t| t > 0)
                        .ok_or_else(|| Error::field("--tp", t, "positive sizes such as 1,2,4,8"))
                })
                .collect::<Result<_, _>>()?;
            let dtypes: Vec<decodecalc_core::dtype::KvCacheDtype> =
                match &request.engine.kv_cache_dtype {
                    Some(d) => vec![decodecalc_core::dtype::KvCacheDtype::parse(
                        "--kv-cache-dtype",
                        d,
                    )?],
                    None => decodecalc_core::rank::RANKED_KV_DTYPES.to_vec(),
                };
            let prices = decodecalc_core::rank::Prices::embedded()?.with_overrides(&args.price)?;
            let mut engine = request.engine.clone();
            engine.kv_cache_dtype = None;
            engine.tensor_parallel_size = None;
            let sweep = decodecalc_core::rank::Sweep {
                model: &model,
                gpus: &gpus,
                tps: &tps,
                dtypes: &dtypes,
                engine: &engine,
                harness: &request.harness,
            };
            let workload = decodecalc_core::rank::Workload {
                context_tokens: context,
                concurrency,
                min_per_request_tok_s: args.min_per_request_tok_s,
            };
            let ranked = decodecalc_core::rank::rank(&sweep, workload, &prices)?;
            Ok((
                render::ranked(
                    &ranked,
                    &prices,
                    &model.name,
                    workload,
                    args.common.format.format,
                )?,
                0,
            ))
        }
        Command::Presets(args) => Ok((render::presets(&args)?, 0)),
    }
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
    let m = &comparison.summary.metrics;
    let mut fit = std::collections::BTreeMap::new();
    fit.insert("residuals".to_string(), report.residuals as f64);
    fit.insert(
        "in_sample_total_tok_s_mape_pct".to_string(),
        m.total_tok_s.mape_pct,
    );
    fit.insert("in_sample_tbt_ms_mape_pct".to_string(), m.tbt_ms.mape_pct);
    fit.insert("in_sample_ttft_ms_mape_pct".to_string(), m.ttft_ms.mape_pct);
    fit.insert(
        "in_sample_prefill_tok_s_mape_pct".to_string(),
        m.prefill_tok_s.mape_pct,
    );
    if let Some(cv) = &comparison.cross_validation {
        fit.insert(
            "loo_total_tok_s_mape_pct".to_string(),
            cv.total_tok_s.mape_pct,
        );
        fit.insert("loo_tbt_ms_mape_pct".to_string(), cv.tbt_ms.mape_pct);
        fit.insert(
            "loo_prefill_tok_s_mape_pct".to_string(),
            cv.prefill_tok_s.mape_pct,
        );
    }
    CalibrationFile {
        id: id.to_string(),
        class: plan
            .gpu
            .calibration_class
            .clone()
            .unwrap_or_else(|| "ampere-geforce".to_string()),
        gpus: vec![plan.gpu.id.clone()],
        vllm_versions: vec![decodecalc_core::VLLM_VERSION.to_string()],
        description: format!(
            "{} with vLLM {}, fitted on {} ({})",
            plan.gpu.name,
            decodecalc_core::VLLM_VERSION,
            plan.model.name,
            plan.engine.kv_cache_dtype.name()
        ),
        fitted_on: vec![measured.to_string()],
        runs: vec![plan
            .measured
            .clone()
            .unwrap_or_else(|| plan.scenario_id.clone())],
        command: format!(
            "decodecalc {}",
            argv.iter().skip(1).cloned().collect::<Vec<_>>().join(" ")
        ),
        params: report.params,
        fit,
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
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let text = e.render().to_string();
            return if e.use_stderr() {
                let sub = argv.get(1).filter(|a| !a.starts_with('-'));
                let help = match sub {
                    Some(s) => format!("decodecalc {} --help", sanitize(s)),
                    None => "decodecalc --help".to_string(),
                };
                // clap's message as one `error:` line, its tips and the
                // help pointer as one `hint:` line (its usage block dropped).
                let mut error = String::new();
                let mut tips = Vec::new();
                for line in text.lines().map(str::trim) {
                    if let Some(tip) = line.strip_prefix("tip: ") {
                        tips.push(tip.to_string());
                    } else if line.starts_with("Usage:") || line.starts_with("For more information")
                    {
                        break;
                    } else if !line.is_empty() {
                        if !error.is_empty() {
                            error.push(' ');
                        }
                        error.push_str(line);
                    }
                }
                if !error.starts_with("error:") {
                    error = format!("error: {error}");
                }
                tips.push(format!("`{help}` lists every flag and the values it takes"));
                Outcome {
                    stdout: String::new(),
                    stderr: format!(
                        "{}\nhint: {}\n",
                        sanitize(&error),
                        sanitize(&tips.join("; "))
                    ),
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
    let mut warnings = Vec::new();
    let result = run(cli, &argv, &mut warnings);
    // Diagnostics that are errors already carry their `error:` prefix.
    let mut stderr: String = warnings
        .iter()
        .map(
            |w| match w.starts_with("error: ") || w.starts_with("hint: ") {
                true => format!("{w}\n"),
                false => format!("warning: {w}\n"),
            },
        )
        .collect();
    match result {
        Ok((stdout, code)) => Outcome {
            stdout: sanitize(&stdout),
            stderr: sanitize(&stderr),
            code,
        },
        Err(e) => {
            stderr.push_str(&format!("error: {}\n", e.message));
            if let Some(hint) = &e.hint {
                stderr.push_str(&format!("hint: {hint}\n"));
            }
            Outcome {
                stdout: String::new(),
                stderr: sanitize(&stderr),
                code: 2,
            }
        }
    }
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
