//! The corpus of real config.json files (`tests/fixtures/configs/real/`,
//! copied verbatim from public sources; provenance in SOURCES.md there):
//! every file loads or is refused with a specific reason, every supported
//! architecture is covered, and parameter counts match the published totals.

// Tests assert by panicking; the workspace's no-panic lints are for the product.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use decodecalc_core::config::ARCHITECTURES;
use decodecalc_core::presets::LoadedModel;
use decodecalc_core::scenario::loaded_from_config_json;
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/configs/real")
}

/// Every config.json of the corpus (not the ModelOpt `hf_quant_config.json`s).
fn corpus() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            name.ends_with(".json") && !name.ends_with(".hf_quant_config.json")
        })
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn load(file: &str) -> LoadedModel {
    let path = corpus_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    loaded_from_config_json(file, &text).unwrap_or_else(|e| panic!("{e}"))
}

/// Reasons a real file may be refused for: a model kind decodecalc does not
/// size, or an architecture it does not model (named in the message).
const REFUSALS: [&str; 3] = [
    "is an encoder-only model",
    "is an encoder-decoder",
    "unknown model architecture `",
];

#[test]
fn every_real_config_loads_or_is_refused_for_a_named_reason() {
    let files = corpus();
    assert!(files.len() >= 100, "corpus has {} files", files.len());
    let mut loaded = 0;
    let mut refused = Vec::new();
    let mut failures = Vec::new();
    for (name, text) in &files {
        match loaded_from_config_json(name, text) {
            Ok(m) => {
                loaded += 1;
                assert!(m.model.params() > 0, "{name}");
            }
            Err(e) if REFUSALS.iter().any(|r| e.message.contains(r)) => {
                refused.push(format!("{name}: {}", e.message));
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("refused:\n{}", refused.join("\n"));
    assert!(loaded >= 78, "{loaded} of {} files load", files.len());
}

/// Supported architectures of which no verbatim public copy was found yet;
/// their fixtures in `tests/fixtures/configs/` are reconstructed (SOURCES.md
/// there). The test fails when one gains a real file, so the list shrinks.
const NO_REAL_FILE_YET: &[&str] = &[
    "GraniteForCausalLM",
    "Gemma3ForCausalLM",
    "GraniteMoeHybridForCausalLM",
    "FalconH1ForCausalLM",
    "JambaForCausalLM",
];

#[test]
fn every_supported_architecture_has_real_files() {
    let files = corpus();
    let missing: Vec<&str> = ARCHITECTURES
        .iter()
        .map(|a| a.name)
        .filter(|name| {
            let quoted = format!("\"{name}\"");
            !files.iter().any(|(_, t)| t.contains(&quoted))
        })
        .collect();
    assert_eq!(missing, NO_REAL_FILE_YET);
}

#[test]
fn parameter_counts_match_the_published_totals_within_one_percent() {
    let text = std::fs::read_to_string(corpus_dir().join("published.csv")).unwrap();
    let mut checked = 0;
    let mut off = Vec::new();
    for row in csv::Reader::from_reader(text.as_bytes()).records() {
        let row = row.unwrap();
        let (file, published) = (&row[0], &row[2]);
        let Ok(published) = published.parse::<f64>() else {
            continue;
        };
        let params = load(file).model.params() as f64;
        checked += 1;
        if (params / published - 1.0).abs() > 0.01 {
            off.push(format!("{file}: {params:.4e} vs published {published:.4e}"));
        }
    }
    assert!(off.is_empty(), "{}", off.join("\n"));
    assert!(checked >= 11, "only {checked} published counts");
}
