//! Shared helpers for the integration tests in `tests/tests/`: paths into
//! `data/` and the measured reference run.
// Test support: failing to read a fixture must fail the calling test.
#![allow(clippy::panic)]

use decodecalc_core::measured::{parse_csv, MeasuredRow};
use decodecalc_core::scenario::{Capacity, NoFiles, Plan, Request};
use std::path::PathBuf;

/// The repository's `data/` directory.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("data")
}

/// The reference run's measured CSV, read from disk (not the embedded copy).
pub fn reference_measured() -> Vec<MeasuredRow> {
    let path = data_dir()
        .join("measured")
        .join("rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32.csv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse_csv(&path.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}"))
}

/// A scratch file with `text`, unique per test and process.
pub fn scratch_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("decodecalc-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// The reference scenario resolved from embedded data, and its capacity.
pub fn reference() -> (Plan, Capacity) {
    let plan = Request::default()
        .resolve(&NoFiles)
        .unwrap_or_else(|e| panic!("{e}"));
    let cap = plan.capacity().unwrap_or_else(|e| panic!("{e}"));
    (plan, cap)
}
