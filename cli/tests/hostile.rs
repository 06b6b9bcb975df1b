//! The hostile-input suite: every kind of bad input the README's "Bad input"
//! table lists, run through the real binary under a CPU-time limit of 5 s and
//! an address-space limit of 2 GiB (`prlimit`, so a hang or a runaway
//! allocation is killed by the kernel instead of timed by the test). Each case
//! asserts the exit code, the `error:` / `hint:` shape, and the words the
//! error must name. The README table is rendered from these cases, and the
//! last test checks the README holds exactly that table.

// Tests assert by panicking; the workspace's no-panic lints are for the product.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The limits every case runs under.
const CPU_SECONDS: u32 = 5;
const ADDRESS_SPACE_BYTES: u64 = 2 << 30;

/// What a case's file is.
enum File {
    Text(String),
    /// A file of this many bytes, all zeros, made sparse (nothing is written).
    Sparse(u64),
    Fifo,
    Dir,
}

struct Case {
    /// The README's description of the input.
    input: &'static str,
    /// The arguments, relative to the case's scratch folder.
    args: Vec<String>,
    /// How the README shows the command, when the arguments are too long
    /// or hold control characters.
    shown: Option<&'static str>,
    files: Vec<(&'static str, File)>,
    /// stdout goes to /dev/full.
    full_disk: bool,
    /// Expected exit code.
    code: i32,
    /// Words the `error:` line (or, for code 0, a `warning:` line) must hold.
    names: &'static str,
}

fn case(input: &'static str, args: &[&str], names: &'static str) -> Case {
    Case {
        input,
        args: args.iter().map(|s| s.to_string()).collect(),
        shown: None,
        files: Vec::new(),
        full_disk: false,
        code: 2,
        names,
    }
}

impl Case {
    fn file(mut self, name: &'static str, f: File) -> Case {
        self.files.push((name, f));
        self
    }
    fn shown(mut self, s: &'static str) -> Case {
        self.shown = Some(s);
        self
    }
    fn accepted(mut self) -> Case {
        self.code = 0;
        self
    }
    fn exit(mut self, code: i32) -> Case {
        self.code = code;
        self
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn reference_csv() -> String {
    std::fs::read_to_string(
        repo().join("data/measured/rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32.csv"),
    )
    .unwrap()
}

/// A Llama-3.1-8B config.json with `edit` applied.
fn config(edit: Value) -> File {
    let mut base = json!({
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": 4096, "intermediate_size": 14336,
        "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
        "vocab_size": 128256, "max_position_embeddings": 131072,
        "torch_dtype": "bfloat16", "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
        "tie_word_embeddings": false
    });
    for (k, v) in edit.as_object().unwrap() {
        base[k] = v.clone();
    }
    File::Text(serde_json::to_string_pretty(&base).unwrap())
}

fn text(s: &str) -> File {
    File::Text(s.to_string())
}

fn gpu_file(field: &str, value: &str) -> File {
    let a10 = std::fs::read_to_string(repo().join("data/gpus/a10.toml")).unwrap();
    let out: Vec<String> = a10
        .lines()
        .map(|l| {
            if l.starts_with(&format!("{field} =")) {
                format!("{field} = {value}")
            } else if l.starts_with("id =") {
                "id = \"my-gpu\"".to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    File::Text(out.join("\n"))
}

/// The A10 preset as a GPU file of its own kernel figures, `kernels`
/// (TOML tables) in place of the ones it borrows.
fn gpu_file_with_kernels(kernels: &str) -> File {
    let a10 = std::fs::read_to_string(repo().join("data/gpus/a10.toml")).unwrap();
    let mut out: Vec<String> = a10
        .lines()
        .filter(|l| !l.starts_with("kernels_from ="))
        .map(|l| {
            if l.starts_with("id =") {
                "id = \"my-gpu\"".to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    out.push(format!("\n[kernels]\nsource = \"mine\"\n{kernels}"));
    File::Text(out.join("\n"))
}

/// A runs file (`data/runs` format) of `n` one-point runs.
fn many_runs(n: u64) -> String {
    let mut t = decodecalc_fit::runs::COLUMNS.join(",");
    t.push('\n');
    for i in 0..n {
        t.push_str(&format!("r{i},p,0.11.0,qwen2.5-0.5b,a100-80gb,1,4096,0.9,offline,{},128,1,1,300,,,,,,,,made up,,,,,,,\n", 16 + i));
    }
    t
}

fn list(n: u64) -> String {
    (1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
}

/// Every case, in the README's order: files, then flags, then data files.
fn cases() -> Vec<Case> {
    let mut all = file_cases();
    all.extend(flag_cases());
    all.extend(data_file_cases());
    all
}

/// Presets and paths, special and huge files, config.json.
// One case a line, as the README's table lists them.
#[rustfmt::skip]
fn file_cases() -> Vec<Case> {
    let csv = reference_csv();
    vec![
        // Presets and paths.
        case("unknown model preset", &["capacity", "--model", "no-such-model"], "`no-such-model` is no model preset"),
        case("unknown GPU preset", &["capacity", "--model", "qwen3-8b", "--gpu", "tpu-v9"], "tpu-v9"),
        case("missing file", &["capacity", "--model", "missing/config.json"], "cannot read `missing/config.json`"),
        case("folder without config.json", &["capacity", "--model", "empty"], "cannot read `empty/config.json`")
            .file("empty", File::Dir),
        // Special and huge files.
        case("a 100 MB file (refused before it is read)", &["capacity", "--model", "big.json"], "(8 MiB) an input may have")
            .file("big.json", File::Sparse(100_000_000)),
        case("a device as a file", &["capacity", "--model", "/dev/zero"], "`/dev/zero` is not a regular file"),
        case("a FIFO as a file (would block on open)", &["compare", "--measured", "pipe.csv"], "`pipe.csv` is not a regular file")
            .file("pipe.csv", File::Fifo),
        case("a directory as a file", &["compare", "--measured", "empty"], "`empty` is not a regular file")
            .file("empty", File::Dir),
        case("`--out` naming a file the run read", &["calibrate", "--measured", "m.csv", "--out", "m.csv"], "`m.csv`")
            .file("m.csv", File::Text(csv.clone())),
        Case { full_disk: true, ..case("stdout that cannot be written", &["capacity"], "cannot write the output").shown("decodecalc capacity > /dev/full") },
        // config.json.
        case("config.json as Python writes it (`Infinity`, `NaN`)", &["capacity", "--model", "inf.json", "--gpu", "h100"], "")
            .file("inf.json", config(json!({"time_step_limit": [0.0, 1.0]})))
            .accepted(),
        case("config.json that is not JSON", &["capacity", "--model", "bad.json"], "bad.json:1:")
            .file("bad.json", text("{\"architectures\": [\"LlamaForCausalLM\"],")),
        case("unknown architecture", &["capacity", "--model", "arch.json"], "unknown model architecture `FrobForCausalLM`")
            .file("arch.json", config(json!({"architectures": ["FrobForCausalLM"]}))),
        case("an encoder-only model", &["capacity", "--model", "bert.json"], "is an encoder-only model")
            .file("bert.json", config(json!({"architectures": ["BertModel"]}))),
        case("a missing dimension", &["capacity", "--model", "nolayers.json"], "num_hidden_layers")
            .file("nolayers.json", config(json!({"num_hidden_layers": null}))),
        case("a dimension above 2^26 (`max_position_embeddings` 2^47)", &["capacity", "--model", "huge.json"], "max_position_embeddings")
            .file("huge.json", config(json!({"max_position_embeddings": 140_737_488_355_328_u64}))),
        case("one token's KV cache over all layers above 1 GiB", &["capacity", "--model", "kv.json"], "one token's KV cache over all layers exceeds 1 GiB")
            .file("kv.json", config(json!({"hidden_size": 64, "intermediate_size": 64, "num_hidden_layers": 4096, "num_attention_heads": 524_288, "num_key_value_heads": 524_288, "head_dim": 128}))),
        case("dimensions and counts at their bounds (4,096 layers, 2^24 sequences and batched tokens, a 1 PB GPU), overflow-checked", &["matrix", "--model", "wide.json", "--gpu", "huge.toml", "--max-num-seqs", "16777216", "--max-num-batched-tokens", "16777216", "--max-model-len", "1024", "--contexts", "0,512", "--concurrency", "1,65536,16777216"], "")
            .file("wide.json", config(json!({"hidden_size": 64, "intermediate_size": 64, "num_hidden_layers": 4096, "num_attention_heads": 128, "num_key_value_heads": 128, "head_dim": 128, "torch_dtype": "float32", "max_position_embeddings": 67_108_864})))
            .file("huge.toml", gpu_file("memory_bytes", "1_000_000_000_000_000"))
            .accepted(),
        case("`head_dim` 0", &["capacity", "--model", "hd.json"], "head_dim")
            .file("hd.json", config(json!({"head_dim": 0}))),
        case("a non-boolean `tie_word_embeddings`", &["capacity", "--model", "tie.json"], "tie_word_embeddings")
            .file("tie.json", config(json!({"tie_word_embeddings": "yes"}))),
        case("`layer_types` shorter than the layers", &["capacity", "--model", "lt.json"], "layer_types")
            .file("lt.json", config(json!({"architectures": ["Qwen3ForCausalLM"], "head_dim": 128, "layer_types": ["full_attention"], "use_sliding_window": true, "sliding_window": 4096}))),
        case("more experts per token than experts", &["capacity", "--model", "moe.json"], "num_experts_per_tok")
            .file("moe.json", config(json!({"architectures": ["MixtralForCausalLM"], "num_local_experts": 8, "num_experts_per_tok": 9}))),
        case("an unquantized-module list that names no module", &["capacity", "--model", "q.json", "--gpu", "h100"], "`nonexistent_proj` in the checkpoint's unquantized-module list names no module")
            .file("q.json", config(json!({"quantization_config": {"quant_method": "fp8", "modules_to_not_convert": ["model.layers.0.nonexistent_proj"]}})))
            .accepted(),
    ]
}

/// Flags.
// One case a line, as the README's table lists them.
#[rustfmt::skip]
fn flag_cases() -> Vec<Case> {
    let contexts = list(6251);
    let concurrency = list(2000);
    vec![
        // Flags.
        case("a flag the parser rejects", &["matrix", "--frobnicate"], "--frobnicate"),
        Case { args: vec!["capacity".into(), "--gpu".into(), "\u{1b}]0;pwned\u{7}\u{202e}".into(), "--model".into(), "qwen3-8b".into()], ..case("control characters or bidi overrides in a flag (ESC, OSC, RLO)", &[], "\\u{1b}]0;pwned\\u{7}\\u{202e}").shown("decodecalc capacity --gpu $'\\e]0;pwned\\a\\u202e' --model qwen3-8b") },
        case("`--gpu-memory-utilization` above 1", &["capacity", "--gpu-memory-utilization", "1.5"], "--gpu-memory-utilization"),
        case("a negative count", &["capacity", "--max-num-seqs", "-5"], "--max-num-seqs"),
        case("a tensor-parallel size of 0", &["capacity", "--tensor-parallel-size", "0"], "--tensor-parallel-size"),
        case("a token count vLLM would not read", &["capacity", "--max-model-len", "1.5K"], "--max-model-len"),
        case("a value twice in a list", &["matrix", "--contexts", "0,16K,0"], "--contexts"),
        case("empty or malformed list", &["matrix", "--contexts", "16k,,x"], "--contexts"),
        case("6,251 contexts x 2,000 concurrencies", &["matrix", "--contexts", &contexts, "--concurrency", &concurrency], "4096")
            .shown("decodecalc matrix --contexts 1,2,...,6251 --concurrency 1,2,...,2000"),
        case("a context + max_tokens above max_model_len", &["matrix", "--contexts", "128K", "--max-model-len", "32K"], "max_model_len"),
        case("unknown `--kv-cache-dtype`", &["capacity", "--kv-cache-dtype", "fp3"], "--kv-cache-dtype"),
        case("unknown `--quantization`", &["capacity", "--quantization", "int3"], "--quantization"),
        case("`--max-num-batched-tokens` below `--max-num-seqs`", &["capacity", "--max-num-seqs", "256", "--max-num-batched-tokens", "128"], "--max-num-batched-tokens"),
        case("`--kv-cache-memory-bytes` above the card", &["capacity", "--kv-cache-memory-bytes", "1000000000000"], "--kv-cache-memory-bytes"),
        case("malformed `--hf-overrides`", &["capacity", "--hf-overrides", "{"], "--hf-overrides"),
        case("a launch line with an unclosed quote", &["capacity", "--vllm-command", "vllm serve 'qwen"], "--vllm-command"),
        case("a setup vLLM would not start (`capacity` too)", &["capacity", "--model", "qwen2.5-72b", "--gpu", "rtx3090"], "vLLM would not start"),
        case("a model without a GPU (no silent default)", &["matrix", "--model", "llama-3.1-8b"], "no GPU given for Llama-3.1-8B"),
        case("`bench-serve --num-prompts` above its cap", &["bench-serve", "--num-prompts", "1000000000"], "--num-prompts"),
        case("a price above 1,000 USD per GPU-hour", &["rank", "--model", "qwen3-8b", "--context", "16k", "--concurrency", "8", "--price", "h100=5000"], "--price"),
        case("`rank` with nothing that serves the workload", &["rank", "--model", "qwen2.5-72b", "--context", "128K", "--concurrency", "8", "--gpus", "rtx3090", "--tp", "1"], "no configuration of the sweep serves"),
        case("unknown scenario or calibration preset", &["matrix", "--calibration", "no-such-fit"], "no-such-fit"),
        case("an unknown Mamba dtype", &["capacity", "--mamba-ssm-cache-dtype", "fp4"], "--mamba-ssm-cache-dtype"),
        case("a malformed `--explain` cell", &["matrix", "--explain", "16K:x"], "--explain"),
    ]
}

/// GPU, scenario and measured files.
// One case a line, as the README's table lists them.
#[rustfmt::skip]
fn data_file_cases() -> Vec<Case> {
    let csv = reference_csv();
    let header = csv.lines().next().unwrap().to_string();
    let first_row = csv.lines().nth(1).unwrap().to_string();
    let prefill_only = format!("{header}\n{first_row}\n");
    let duplicate = format!("{header}\n{first_row}\n{first_row}\n");
    let many_rows = format!("{header}\n{}", format!("{first_row}\n").repeat(150_000));
    vec![
        // GPU and scenario files.
        case("a GPU file with a bandwidth of 1e-300", &["capacity", "--model", "qwen3-8b", "--gpu", "gpu.toml"], "bandwidth_gb_s")
            .file("gpu.toml", gpu_file("bandwidth_gb_s", "1e-300")),
        case("a GPU file whose prefill attention runs at 3x the tensor peak", &["capacity", "--model", "qwen3-8b", "--gpu", "k.toml"], "kernels.prefill_attention.compute_eff")
            .file("k.toml", gpu_file_with_kernels("[kernels.prefill_attention]\ncompute_eff = 3.0\nfloor_us = 10.0\nrow_ns = 0.5\n")),
        case("a scenario file that is not TOML", &["capacity", "--scenario", "s.toml"], "s.toml:2:")
            .file("s.toml", text("id = \"x\"\nmodel = \n")),
        case("a scenario file with an unknown field", &["capacity", "--scenario", "s.toml"], "frobnicate")
            .file("s.toml", text("id = \"x\"\nmodel = \"qwen3-8b\"\ngpu = \"h100\"\nfrobnicate = 1\n")),
        // Measured files.
        case("a measured cell twice", &["compare", "--measured", "dup.csv"], "also at dup.csv:2")
            .file("dup.csv", File::Text(duplicate)),
        case("a measured file of 150,000 rows", &["compare", "--measured", "rows.csv"], "8192")
            .file("rows.csv", File::Text(many_rows)),
        case("a measured CSV without a column", &["compare", "--measured", "cols.csv"], "status")
            .file("cols.csv", text("phase,context_tokens,concurrency\nprefill,8192,1\n")),
        case("a runs file of 129 runs (a fit takes at most 128)", &["calibrate", "--measured", "runs.csv"], "a calibration takes at most 128")
            .file("runs.csv", File::Text(many_runs(129))),
        case("`compare --svg` of a run with no timed decode cell", &["compare", "--measured", "p.csv", "--svg", "out.svg"], "no timed decode cell")
            .file("p.csv", File::Text(prefill_only)),
        case("a measured CSV with a non-numeric cell", &["compare", "--measured", "nn.csv"], "nn.csv:2: column `total_tok_s` has `fast`")
            .file("nn.csv", File::Text(format!("{header}\nprefill,8192,1,valid,fast,,2338,,,,\n"))),
        case("a measured context the scenario lacks", &["compare", "--measured", "ctx.csv"], "ctx.csv:2: column `context_tokens` has 12345")
            .file("ctx.csv", File::Text(format!("{header}\nprefill,12345,1,valid,3587.0,,2338,,,,\n"))),
        case("`compare --max-mape` exceeded", &["compare", "--max-mape", "0.5"], "exceeds --max-mape 0.5").exit(1),
        case("a `--vllm-log` that is no vLLM start-up log", &["capacity", "--vllm-log", "log.txt"], "log.txt: no vLLM start-up line found")
            .file("log.txt", text("hello\nworld\n")),
        case("a JSON of another tool", &["compare", "--measured", "other.json"], "other.json")
            .file("other.json", text("{\"foo\": 1}")),
        case("a truncated `vllm bench serve` result", &["bench-serve", "--result", "t.json"], "t.json")
            .file("t.json", text("{\"date\": \"20260101-000000\", \"backend\": \"vllm\", \"num_prompts\": 10")),
    ]
}

fn prepare(dir: &Path, c: &Case) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    for (name, f) in &c.files {
        let path = dir.join(name);
        match f {
            File::Text(t) => std::fs::write(&path, t).unwrap(),
            File::Sparse(n) => std::fs::File::create(&path).unwrap().set_len(*n).unwrap(),
            File::Fifo => assert!(Command::new("mkfifo")
                .arg(&path)
                .status()
                .unwrap()
                .success()),
            File::Dir => std::fs::create_dir_all(&path).unwrap(),
        }
    }
}

/// Run one case under the limits; the problems found, if any.
fn check(i: usize, c: &Case) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("decodecalc-hostile-{}-{i}", std::process::id()));
    prepare(&dir, c);
    let mut cmd = Command::new("prlimit");
    cmd.arg(format!("--cpu={CPU_SECONDS}"))
        .arg(format!("--as={ADDRESS_SPACE_BYTES}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_decodecalc"))
        .args(&c.args)
        .current_dir(&dir)
        .stdin(Stdio::null());
    if c.full_disk {
        cmd.stdout(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        );
    }
    let out = cmd
        .output()
        .expect("prlimit (util-linux) runs the binary under the limits");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let _ = std::fs::remove_dir_all(&dir);
    let mut problems = Vec::new();
    let mut bad = |m: String| problems.push(format!("{}: {m}\nstderr: {stderr}", c.input));
    let Some(code) = out.status.code() else {
        bad(format!(
            "killed by a signal ({:?}): over {CPU_SECONDS} s of CPU or {ADDRESS_SPACE_BYTES} B of memory",
            out.status
        ));
        return problems;
    };
    if code != c.code {
        bad(format!("exit code {code}, expected {}", c.code));
    }
    if stderr.contains(['\u{1b}', '\u{7}', '\u{202e}']) {
        bad("a raw control character on stderr".into());
    }
    let lines: Vec<&str> = stderr.lines().collect();
    if c.code != 0 {
        let error = lines.iter().position(|l| l.starts_with("error: "));
        match error {
            None => bad("no `error:` line".into()),
            Some(e) => {
                if !lines[e].contains(c.names) {
                    bad(format!("the error does not name `{}`", c.names));
                }
                if !lines.get(e + 1).is_some_and(|l| l.starts_with("hint: ")) {
                    bad("no `hint:` line after the error".into());
                }
            }
        }
    } else if !c.names.is_empty()
        && !lines
            .iter()
            .any(|l| l.starts_with("warning: ") && l.contains(c.names))
    {
        bad(format!("no warning naming `{}`", c.names));
    }
    problems
}

#[test]
fn every_hostile_input_gets_its_error_within_the_limits() {
    let all = cases();
    let problems: Vec<String> = all
        .iter()
        .enumerate()
        .flat_map(|(i, c)| check(i, c))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    assert!(all.len() >= 45);
}

/// Markdown code for `s`, which may itself hold backticks.
fn code_span(s: &str) -> String {
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

/// The README's table, rendered from the cases.
fn table() -> String {
    let mut t =
        String::from("| input | example | exit | what the error names |\n|---|---|---|---|\n");
    for c in cases() {
        let example = c.shown.map(str::to_string).unwrap_or_else(|| {
            let args: Vec<String> = c
                .args
                .iter()
                .map(|a| {
                    if a.contains([' ', '{', '\'']) {
                        format!("'{a}'")
                    } else {
                        a.clone()
                    }
                })
                .collect();
            format!("decodecalc {}", args.join(" "))
        });
        let names = if c.code == 0 && c.names.is_empty() {
            "accepted".to_string()
        } else if c.code == 0 {
            format!("accepted, with a warning: {}", code_span(c.names))
        } else {
            code_span(c.names)
        };
        let names = names.replace('|', "\\|");
        t.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            c.input,
            code_span(&example).replace('|', "\\|"),
            c.code,
            names
        ));
    }
    t
}

#[test]
fn the_readme_table_is_the_suite() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = "<!-- hostile-inputs: rendered from cli/tests/hostile.rs -->\n";
    let end = "<!-- /hostile-inputs -->";
    let from = readme.find(start).map(|i| i + start.len());
    let to = readme.find(end);
    let (Some(from), Some(to)) = (from, to) else {
        panic!(
            "README.md lacks the hostile-inputs markers; the table is:\n{}",
            table()
        );
    };
    assert_eq!(&readme[from..to], table(), "README.md's hostile-input table differs from the suite; it should read:\nBEGIN TABLE\n{}END TABLE", table());
}
