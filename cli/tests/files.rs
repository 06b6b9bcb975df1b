//! The binary against hostile files and outputs: special files are refused
//! without blocking or reading forever, no output is written onto an input,
//! and a failed write of stdout is an error (exit 2), not silence.

// Tests assert by panicking; the workspace's no-panic lints are for the product.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_decodecalc"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("decodecalc-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_full_disk_on_stdout_is_an_error() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_decodecalc"))
        .arg("capacity")
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: cannot write the output: No space left on device"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn devices_and_fifos_are_refused_by_name() {
    let o = run(&["compare", "--measured", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with(
        "error: `/dev/zero` is not a regular file (a directory, FIFO, socket or device)"
    ));
    let fifo = scratch("pipe.json");
    let _ = std::fs::remove_file(&fifo);
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // Opening a FIFO with no writer blocks: the binary must not try.
    let o = run(&["capacity", "--model", fifo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a regular file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_output_is_never_written_onto_an_input() {
    let measured = scratch("m.csv");
    let original = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/measured/rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32.csv"
    ))
    .unwrap();
    std::fs::write(&measured, &original).unwrap();
    let m = measured.to_str().unwrap();
    let o = run(&["calibrate", "--measured", m, "--out", m]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(&format!("error: `{m}` is one of this run's inputs")),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&measured).unwrap(), original);
}

/// A Hub repo id (`--model ORG/NAME`) that is no preset and no file is read
/// from the local Hugging Face cache, in the layout `hf download` and the
/// hf-hub crate write (`models--ORG--NAME/refs/main` naming
/// `snapshots/COMMIT/`), found by `$HF_HUB_CACHE`: the same config.json given
/// as a file predicts the same. A repo neither there nor in the embedded
/// corpus gets an error saying where it looked.
#[test]
fn a_hub_repo_id_is_read_from_the_local_hub_cache() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/hub/Qwen--Qwen3.5-27B.json"
    );
    // A repo the embedded corpus lacks, so only the cache can answer.
    let cache = hub_cache_with("hub-cache", "example-org--Qwen3.5-27B-copy", fixture, None);
    // vLLM's default 1,024 sequences exceed this hybrid's 351 blocks, which
    // it refuses (version::MAMBA_BLOCKS_CHECK).
    let args = |model: &'static str| {
        [
            "capacity",
            "--model",
            model,
            "--gpu",
            "h100",
            "--max-num-seqs",
            "256",
            "--format",
            "json",
        ]
    };
    let by_repo = with_cache(&cache, &args("example-org/Qwen3.5-27B-copy"));
    assert_eq!(by_repo.status.code(), Some(0), "{}", stderr(&by_repo));
    let by_file = run(&args(fixture));
    for k in ["kv_cache_tokens", "weights_bytes", "model_params"] {
        assert_eq!(json_field(&by_repo, k), json_field(&by_file, k), "{k}");
    }
    let missing = with_cache(
        &cache,
        &["capacity", "--model", "Qwen/Qwen9-1B", "--gpu", "h100"],
    );
    assert_eq!(missing.status.code(), Some(2));
    let text = stderr(&missing);
    assert!(
        text.starts_with("error: `Qwen/Qwen9-1B` is no model preset, no file here, and not in the local Hugging Face cache")
            && text.contains("hint: fetch its config.json into the cache (`hf download Qwen/Qwen9-1B config.json`"),
        "{text}"
    );
}

/// Every config of the real corpus (`data/hub/`) is known by its repo id
/// offline: with an empty Hub cache, `--model Qwen/Qwen3-14B` predicts what
/// the file predicts, and the title names the repo; an NVFP4 repo picks up
/// the ModelOpt hf_quant_config.json stored beside its config (4.5 bits a
/// weight, not 16). A config in the cache wins over the embedded one: it is
/// the revision the user downloaded.
#[test]
fn the_real_config_corpus_answers_repo_ids_offline() {
    let empty = scratch("hub-empty");
    std::fs::create_dir_all(&empty).unwrap();
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/hub/Qwen--Qwen3-14B.json"
    );
    let args = |model: &'static str| {
        [
            "capacity", "--model", model, "--gpu", "h100", "--format", "json",
        ]
    };
    let by_repo = with_cache(&empty, &args("Qwen/Qwen3-14B"));
    assert_eq!(by_repo.status.code(), Some(0), "{}", stderr(&by_repo));
    let by_file = run(&args(file));
    for k in ["kv_cache_tokens", "weights_bytes", "model_params"] {
        assert_eq!(json_field(&by_repo, k), json_field(&by_file, k), "{k}");
    }
    let title = with_cache(
        &empty,
        &["capacity", "--model", "Qwen/Qwen3-14B", "--gpu", "h100"],
    );
    assert!(
        String::from_utf8_lossy(&title.stdout).starts_with("Qwen/Qwen3-14B on h100-sxm |"),
        "{}",
        String::from_utf8_lossy(&title.stdout)
    );
    let nvfp4 = with_cache(&empty, &args("nvidia/Qwen3-32B-NVFP4"));
    assert_eq!(nvfp4.status.code(), Some(0), "{}", stderr(&nvfp4));
    let params = json_field(&nvfp4, "model_params").as_f64().unwrap();
    let weights = json_field(&nvfp4, "weights_bytes").as_f64().unwrap();
    assert!(
        weights < 0.4 * 2.0 * params,
        "{weights} bytes for {params} parameters"
    );
    // The cache's revision, with 20 of the 40 layers, wins.
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    config["num_hidden_layers"] = 20.into();
    let cache = hub_cache_with("hub-newer", "Qwen--Qwen3-14B", file, Some(&config));
    let cached = with_cache(&cache, &args("Qwen/Qwen3-14B"));
    assert_eq!(cached.status.code(), Some(0), "{}", stderr(&cached));
    let (fewer, all) = (
        json_field(&cached, "model_params").as_f64().unwrap(),
        json_field(&by_repo, "model_params").as_f64().unwrap(),
    );
    assert!(fewer < 0.7 * all, "{fewer} vs {all}");
}

/// A Hub cache under the scratch folder `name` holding `repo_dir`
/// (`ORG--NAME`) at one snapshot: `config` if given, else a copy of `file`.
fn hub_cache_with(
    name: &str,
    repo_dir: &str,
    file: &str,
    config: Option<&serde_json::Value>,
) -> std::path::PathBuf {
    let cache = scratch(name);
    let repo = cache.join(format!("models--{repo_dir}"));
    let snap = repo.join("snapshots").join("0123abcd");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs").join("main"), "0123abcd\n").unwrap();
    match config {
        Some(c) => std::fs::write(snap.join("config.json"), c.to_string()).unwrap(),
        None => {
            std::fs::copy(file, snap.join("config.json")).unwrap();
        }
    }
    cache
}

/// The binary with `$HF_HUB_CACHE` at `cache`.
fn with_cache(cache: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_decodecalc"))
        .args(args)
        .env("HF_HUB_CACHE", cache)
        .output()
        .unwrap()
}

/// A field of a command's JSON output.
fn json_field(o: &Output, k: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v.get(k).cloned().unwrap_or_default()
}
