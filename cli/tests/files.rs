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

/// A Hub repo id that is no preset is read from the local Hugging Face
/// cache, in the layout `hf download` and the hf-hub crate write
/// (`models--ORG--NAME/refs/main` naming `snapshots/COMMIT/`), found by
/// `$HF_HUB_CACHE`; the same config.json given as a file predicts the same.
/// Without the repo in the cache, the error says where it looked.
#[test]
fn a_hub_repo_id_is_read_from_the_local_hub_cache() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/configs/real/Qwen--Qwen3.5-27B.json"
    );
    let cache = scratch("hub-cache");
    let repo = cache.join("models--Qwen--Qwen3.5-27B");
    let snap = repo.join("snapshots").join("0123abcd");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs").join("main"), "0123abcd\n").unwrap();
    std::fs::copy(fixture, snap.join("config.json")).unwrap();
    let with_cache = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_decodecalc"))
            .args(args)
            .env("HF_HUB_CACHE", &cache)
            .output()
            .unwrap()
    };
    let by_repo = with_cache(&[
        "capacity",
        "--model",
        "Qwen/Qwen3.5-27B",
        "--gpu",
        "h100",
        "--format",
        "json",
    ]);
    assert_eq!(by_repo.status.code(), Some(0), "{}", stderr(&by_repo));
    let by_file = run(&[
        "capacity", "--model", fixture, "--gpu", "h100", "--format", "json",
    ]);
    let field = |o: &Output, k: &str| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v[k].clone()
    };
    for k in ["kv_cache_tokens", "weights_bytes", "model_params"] {
        assert_eq!(field(&by_repo, k), field(&by_file, k), "{k}");
    }
    let missing = with_cache(&["capacity", "--model", "Qwen/Qwen9-1B", "--gpu", "h100"]);
    assert_eq!(missing.status.code(), Some(2));
    let text = stderr(&missing);
    assert!(
        text.starts_with("error: `Qwen/Qwen9-1B` is no model preset, no file here, and not in the local Hugging Face cache")
            && text.contains("hint: fetch its config.json into the cache (`hf download Qwen/Qwen9-1B config.json`"),
        "{text}"
    );
}
