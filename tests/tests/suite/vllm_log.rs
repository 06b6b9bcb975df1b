//! `--vllm-log`: a start-up log sets the release, model and flags, pins the
//! KV pool to its available memory and is checked figure by figure against
//! the prediction (`core/src/vllm_log.rs`). The fixture is reconstructed
//! from a public 0.19.0 log's figures (tests/fixtures/vllm-logs/SOURCES.md).

use decodecalc_tests::{rejects, run, scratch_file};
use serde_json::Value;

const LOG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/vllm-logs/llmd-llama31-8b-8k-v0.19.0.log"
);

fn capacity(extra: &[&str]) -> (Value, String) {
    let mut args = vec!["capacity", "--format", "json", "--vllm-log", LOG];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    (serde_json::from_str(&out.stdout).unwrap(), out.stderr)
}

fn figure<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["log_check"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["figure"].as_str().unwrap().starts_with(name))
        .unwrap_or_else(|| panic!("no {name} in {}", v["log_check"]))
}

#[test]
fn the_log_sets_the_setup_pins_the_pool_and_every_figure_agrees() {
    let (v, stderr) = capacity(&["--gpu", "h100"]);
    // From the log: the release, the model, max_model_len and utilization.
    assert_eq!(v["vllm_version"], "0.19.0");
    assert_eq!(v["max_model_len_tokens"], 8192);
    assert_eq!(v["gpu_memory_utilization"], 0.95);
    // The pool is the logged 58.11 GiB, so the allocator reproduces the
    // logged 476,016 tokens (476,032: the log's GiB has two decimals).
    assert_eq!(v["kv_pool_bytes"], 62_395_137_393_u64); // 58.11 x 2^30
    assert_eq!(v["kv_cache_tokens"], 476_032);
    for f in v["log_check"].as_array().unwrap() {
        assert_eq!(f["agrees"], true, "{f}");
    }
    assert_eq!(v["log_check"].as_array().unwrap().len(), 4);
    // The unpinned prediction of the pool: 58.10 GiB against 58.11.
    let a = figure(&v, "available KV");
    assert!(a["error_pct"].as_f64().unwrap().abs() < 0.1, "{a}");
    assert!(stderr.contains("the KV pool is the log's available KV cache memory (58.11 GiB)"));
}

#[test]
fn explicit_flags_win_and_a_wrong_gpu_is_flagged() {
    // Explicit flags win over the log's: the release, and a pool of 20 GB
    // (the log's 58.11 GiB would not fit an L40S). The weights still agree
    // with the log; the available memory is flagged.
    let (v, stderr) = capacity(&[
        "--gpu",
        "l40s",
        "--vllm-version",
        "0.32.0",
        "--kv-cache-memory-bytes",
        "20000000000",
    ]);
    assert_eq!(v["vllm_version"], "0.32.0");
    assert_eq!(figure(&v, "weights")["agrees"], true);
    let a = figure(&v, "available KV");
    assert_eq!(a["agrees"], false, "{a}");
    assert!(
        stderr.contains("available KV cache memory GiB (predicted) is 58.11 in the log"),
        "{stderr}"
    );
}

#[test]
fn a_file_that_is_no_log_is_refused() {
    let path = scratch_file("not-a-log.txt", "hello\n");
    let err = rejects(
        &["capacity", "--vllm-log", path.to_str().unwrap()],
        "no vLLM start-up line found",
    );
    assert!(err.contains("not-a-log.txt"), "{err}");
}

/// A log without --gpu asks for one (issue 25); a log whose KV pool is
/// larger than the GPU predicted says so and names the GPU, instead of
/// rejecting a `--kv-cache-memory-bytes` the user never passed.
#[test]
fn a_log_from_a_larger_gpu_than_the_default_asks_for_gpu() {
    // No GPU at all: asked for, not defaulted.
    let err = rejects(
        &["matrix", "--vllm-log", LOG],
        "no GPU given for Llama-3.1-8B",
    );
    assert!(err.contains("hint: add --gpu"), "{err}");
    let err = rejects(
        &["matrix", "--vllm-log", LOG, "--gpu", "rtx3090"],
        "58.11 GiB",
    );
    assert!(
        err.contains("58.11 GiB")
            && err.contains("23.69 GiB (rtx3090)")
            && !err.contains("kv-cache-memory-bytes"),
        "{err}"
    );
    let err = rejects(&["matrix", "--vllm-log", LOG, "--gpu", "l40s"], "(l40s)");
    assert!(err.contains("44.31 GiB (l40s)"), "{err}");
}
