//! Shared helpers for the integration tests in `tests/tests/`: paths into
//! `data/`, the measured reference run, the CLI run in process, and a
//! file-system World.
// Test support: a failing read or a refused command must fail the calling test.
#![allow(clippy::panic, clippy::unwrap_used, clippy::indexing_slicing)]

use decodecalc_core::scenario::{Capacity, NoFiles, Plan, ReadError, Request, World};
use decodecalc_measured::rows::{parse_csv, MeasuredRow};
use serde_json::Value;
use std::path::PathBuf;

/// The CLI in process: `decodecalc ARGS...`, offline: a Hub repo id is
/// read from the local cache or the embedded corpus, never fetched (the
/// fetch is `cli/tests/files.rs`'s, against a local Hub).
pub fn run(args: &[&str]) -> decodecalc::Outcome {
    offline();
    let mut all = vec!["decodecalc"];
    all.extend_from_slice(args);
    decodecalc::main_with(all)
}

/// No Hub fetches from the in-process CLI or its World in this test process:
/// the cache and the embedded corpus only (`HF_HUB_OFFLINE`).
pub fn offline() {
    static OFFLINE: std::sync::Once = std::sync::Once::new();
    OFFLINE.call_once(|| std::env::set_var("HF_HUB_OFFLINE", "1"));
}

/// A command that succeeds, its stdout parsed as JSON.
pub fn json(args: &[&str]) -> Value {
    let out = run(args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// A bad input: exit code 2, nothing on stdout, one `error:` line naming
/// `names`, then one `hint:` line. Returns stderr.
pub fn rejects(args: &[&str], names: &str) -> String {
    let out = run(args);
    assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
    assert!(out.stdout.is_empty());
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{args:?}: {}", out.stderr);
    assert!(lines[0].starts_with("error: "), "{}", out.stderr);
    assert!(lines[1].starts_with("hint: "), "{}", out.stderr);
    assert!(
        lines[0].contains(names),
        "{args:?}: `{names}` not in {}",
        lines[0]
    );
    out.stderr
}

/// Files from the file system, for tests that resolve real config.json paths.
#[derive(Debug, Clone, Copy)]
pub struct Fs;

impl World for Fs {
    fn read(&self, path: &str) -> Result<String, ReadError> {
        std::fs::read_to_string(path).map_err(|e| ReadError::Unreadable {
            path: path.into(),
            reason: e.to_string(),
        })
    }
}

/// The repository's `data/` directory.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("data")
}

/// The reference run's measured CSV, read from disk (not the embedded copy).
pub fn reference_measured() -> Vec<MeasuredRow> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(REFERENCE_MEASURED);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    // Named as the CLI names the embedded file, so that a run built from
    // these rows is the run `decodecalc calibrate` builds (rows carry it).
    parse_csv(REFERENCE_MEASURED, &text).unwrap_or_else(|e| panic!("{e}"))
}

/// The reference run's measured CSV, by its path in the repository.
const REFERENCE_MEASURED: &str = "data/measured/rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32.csv";

/// A scratch file with `text`, unique per test and process.
pub fn scratch_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("decodecalc-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// The plan a request of these flags (name, value, as `Request::set`
/// takes them) resolves to from embedded data.
pub fn plan_of(flags: &[(&str, &str)]) -> Plan {
    let mut request = Request::default();
    for (flag, value) in flags {
        request
            .set(flag, value)
            .unwrap_or_else(|e| panic!("{flag}: {e}"));
    }
    request.resolve(&NoFiles).unwrap_or_else(|e| panic!("{e}"))
}

/// The reference scenario resolved from embedded data, and its capacity.
pub fn reference() -> (Plan, Capacity) {
    let plan = Request::default()
        .resolve(&NoFiles)
        .unwrap_or_else(|e| panic!("{e}"));
    let cap = plan.capacity().unwrap_or_else(|e| panic!("{e}"));
    (plan, cap)
}

/// The runs the shipped calibrations are fitted on, as `decodecalc
/// calibrate --measured public-decode-speed --measured
/// rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32` builds them: the public
/// serving runs (`data/runs/public-decode-speed.csv`, read from disk) and the
/// reference harness run.
pub fn corpus_runs() -> Vec<decodecalc_fit::Run> {
    let path = data_dir().join("runs").join("public-decode-speed.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let rows = decodecalc_fit::runs::parse_csv("data/runs/public-decode-speed.csv", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut runs = decodecalc_fit::runs::build(&NoFiles, &rows).unwrap_or_else(|e| panic!("{e}"));
    let (plan, cap) = reference();
    let predictor = decodecalc_core::matrix::Predictor::new(&plan, &cap, plan.calibration.params)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut reference = decodecalc_fit::harness_run(&predictor, &reference_measured());
    reference.source = REFERENCE_MEASURED.into();
    runs.push(reference);
    runs
}

/// The runs of aiconfigurator's silicon sample that no fit uses
/// (`data/runs/aiconfigurator-silicon-vllm.csv`), read from disk.
pub fn held_out_runs() -> Vec<decodecalc_fit::Run> {
    held_out_runs_of("aiconfigurator-silicon-vllm")
}

/// The runs of `data/runs/{file}.csv`, read from disk, their models
/// through the CLI's World (Hub repo ids from the embedded corpus).
pub fn held_out_runs_of(file: &str) -> Vec<decodecalc_fit::Run> {
    offline();
    let path = data_dir().join("runs").join(format!("{file}.csv"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let rows = decodecalc_fit::runs::parse_csv(&format!("data/runs/{file}.csv"), &text)
        .unwrap_or_else(|e| panic!("{e}"));
    decodecalc_fit::runs::build(&decodecalc::CliWorld, &rows).unwrap_or_else(|e| panic!("{e}"))
}
