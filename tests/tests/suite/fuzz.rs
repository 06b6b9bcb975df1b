//! Bounded fuzzing of every parser and of the calculation behind it: inputs
//! are the real files of data/ and the fixtures, mutated by proptest
//! strategies (byte-level edits with interesting tokens), and random flag
//! values and launch lines. The property: no panic and no hang; a rejected
//! input returns an error naming where it is.
//!
//! Each target runs `DECODECALC_FUZZ_CASES` inputs (default 2,000; the
//! test command sets 10,000) from proptest's deterministic runner: a count,
//! not a time, so a run is the same on any machine and a failure replays.

use decodecalc_core::engine::{EngineSettings, HarnessSettings, TokenCount};
use decodecalc_core::matrix::Predictor;
use decodecalc_core::presets::{self, Kind, ModelFile};
use decodecalc_core::scenario::{loaded_from_config_json, ReadError, Request, World};
use decodecalc_core::solve::SpeedTarget;
use decodecalc_measured::compare::compare;
use decodecalc_measured::rows::parse_measured;
use decodecalc_tests::reference;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use std::panic::{catch_unwind, AssertUnwindSafe};

fn case_budget() -> u64 {
    std::env::var("DECODECALC_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(2_000)
        .max(20)
}

/// Tokens that tend to break parsers and arithmetic.
const TOKENS: [&str; 28] = [
    "-1",
    "0",
    "1e308",
    "-1e308",
    "NaN",
    "nan",
    "inf",
    "99999999999999999999",
    "18446744073709551616",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "'",
    "=",
    "\n",
    ",",
    "k",
    "16K",
    "-0.5",
    "1.5",
    "true",
    "null",
    "#",
    "\\",
    "\u{0}",
    "4294967296",
];

#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, usize),
    Delete(usize, usize),
    Replace(usize, usize, usize),
    Truncate(usize),
    DuplicateLine(usize),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), 1usize..12, 0..TOKENS.len()).prop_map(|(a, n, t)| Edit::Replace(a, n, t)),
        any::<usize>().prop_map(Edit::Truncate),
        any::<usize>().prop_map(Edit::DuplicateLine),
    ];
    prop::collection::vec(edit, 1..6)
}

/// Apply edits at character boundaries (the text stays UTF-8).
fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let n = chars.len().max(1);
        match *e {
            Edit::Insert(a, t) => {
                let at = a % (chars.len() + 1);
                for (i, ch) in TOKENS[t].chars().enumerate() {
                    chars.insert(at + i, ch);
                }
            }
            Edit::Delete(a, k) => {
                let at = a % n;
                let end = (at + k).min(chars.len());
                if at < end {
                    chars.drain(at..end);
                }
            }
            Edit::Replace(a, k, t) => {
                let at = a % n;
                let end = (at + k).min(chars.len());
                if at < end {
                    chars.splice(at..end, TOKENS[t].chars());
                }
            }
            Edit::Truncate(a) => chars.truncate(a % n),
            Edit::DuplicateLine(a) => {
                let s: String = chars.iter().collect();
                let lines: Vec<&str> = s.lines().collect();
                if !lines.is_empty() {
                    let i = a % lines.len();
                    let mut out: Vec<&str> = lines.clone();
                    out.insert(i, lines[i]);
                    chars = out.join("\n").chars().collect();
                }
            }
        }
    }
    chars.into_iter().collect()
}

/// Run `check` on values of `strategy` until the budget is spent; a panic
/// fails the test with the input that caused it.
fn fuzz<S: Strategy>(name: &str, strategy: S, check: impl Fn(&S::Value))
where
    S::Value: std::fmt::Debug,
{
    let mut runner = TestRunner::deterministic();
    let mut cases = 0u64;
    let budget = case_budget();
    while cases < budget {
        let value = strategy.new_tree(&mut runner).unwrap().current();
        let r = catch_unwind(AssertUnwindSafe(|| check(&value)));
        assert!(r.is_ok(), "{name}: panicked on input {value:?}");
        cases += 1;
    }
    eprintln!("fuzz {name}: {cases} inputs");
}

/// A world holding one file.
struct OneFile(&'static str, String);

impl World for OneFile {
    fn read(&self, path: &str) -> Result<String, ReadError> {
        if path == self.0 {
            Ok(self.1.clone())
        } else {
            Err(ReadError::NoFileAccess { path: path.into() })
        }
    }
}

/// Resolve, then compute everything a page or the CLI would.
fn exercise(request: &Request, world: &dyn World) {
    let Ok(plan) = request.resolve(world) else {
        return;
    };
    let Ok(cap) = plan.capacity() else {
        return;
    };
    let Ok(p) = Predictor::new(&plan, &cap, plan.calibration.params) else {
        return;
    };
    let _ = p.matrix();
    let c = plan.harness.concurrency.first().copied().unwrap_or(1);
    let _ = p.max_context(c, SpeedTarget::default());
    let ctx = plan.harness.contexts_tokens.first().copied().unwrap_or(0);
    let _ = p.max_concurrency(ctx, SpeedTarget::default());
}

#[test]
fn fuzz_scenario_toml() {
    let seed = presets::find(Kind::Scenario, presets::REFERENCE_SCENARIO)
        .unwrap()
        .text;
    fuzz("scenario TOML", edits(), |e| {
        let world = OneFile("./s.toml", mutate(seed, e));
        let req = Request {
            scenario: Some("./s.toml".into()),
            ..Request::default()
        };
        if let Err(err) = req.resolve(&world) {
            assert!(!err.message.is_empty());
        }
        exercise(&req, &world);
    });
}

#[test]
fn fuzz_model_and_gpu_presets() {
    let models: Vec<&str> = presets::FILES
        .iter()
        .filter(|f| f.kind == Kind::Model)
        .map(|f| f.text)
        .collect();
    let gpu = presets::find(Kind::Gpu, "rtx3090").unwrap().text;
    fuzz(
        "preset TOML",
        (0..models.len(), edits(), edits()),
        |(i, e, g)| {
            let text = mutate(models[*i], e);
            if let Ok(file) = ModelFile::parse("m.toml", &text) {
                let _ = file.load("m.toml");
            }
            let _ = presets::parse_gpu("g.toml", &mutate(gpu, g));
            let world = OneFile("./m.toml", text);
            let req = Request {
                model: Some("./m.toml".into()),
                gpu: Some("rtx3090".into()),
                engine: EngineSettings {
                    max_model_len: Some(8192),
                    ..EngineSettings::default()
                },
                harness: HarnessSettings {
                    contexts: Some(vec![TokenCount::Number(0), TokenCount::Number(2048)]),
                    concurrency: Some(vec![1, 8]),
                    max_tokens: Some(1024),
                    ..HarnessSettings::default()
                },
                ..Request::default()
            };
            exercise(&req, &world);
        },
    );
}

#[test]
fn fuzz_measured_csv_and_harness_json() {
    let csv = presets::find(Kind::Measured, "rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32")
        .unwrap()
        .text;
    let json = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/benchmark_results.json"
    ))
    .unwrap();
    let (plan, cap) = reference();
    let p = Predictor::new(&plan, &cap, plan.calibration.params).unwrap();
    fuzz(
        "measured CSV / harness JSON",
        (any::<bool>(), edits()),
        |(as_json, e)| {
            let text = if *as_json {
                mutate(&json, e)
            } else {
                mutate(csv, e)
            };
            if let Ok(rows) = parse_measured("m", &text) {
                let _ = compare(&p, &rows);
            }
        },
    );
}

#[test]
fn fuzz_config_json() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/configs");
    let seeds: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    fuzz("config.json", (0..seeds.len(), edits()), |(i, e)| {
        let text = mutate(&seeds[*i], e);
        if loaded_from_config_json("c.json", &text).is_err() {
            return;
        }
        let world = OneFile("./c.json", text);
        let req = Request {
            model: Some("./c.json".into()),
            gpu: Some("h100-sxm".into()),
            engine: EngineSettings {
                max_model_len: Some(4096),
                ..EngineSettings::default()
            },
            harness: HarnessSettings {
                contexts: Some(vec![TokenCount::Number(0), TokenCount::Number(1024)]),
                concurrency: Some(vec![1, 4]),
                max_tokens: Some(512),
                ..HarnessSettings::default()
            },
            ..Request::default()
        };
        exercise(&req, &world);
    });
}

fn flag_value() -> impl Strategy<Value = String> {
    prop_oneof![
        (0..TOKENS.len()).prop_map(|t| TOKENS[t].to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        "[a-z0-9_.,-]{0,12}",
    ]
}

#[test]
fn fuzz_vllm_serve_lines() {
    let flags = [
        "--max-model-len",
        "--gpu-memory-utilization",
        "--max-num-seqs",
        "--max-num-batched-tokens",
        "--kv-cache-dtype",
        "--block-size",
        "--quantization",
        "--enable-prefix-caching",
        "-tp",
        "--tensor-parallel-size",
        "--mamba-ssm-cache-dtype",
        "--foo",
        "--kv-cache-memory-bytes",
    ];
    let line = prop::collection::vec((0..flags.len(), flag_value()), 0..8);
    fuzz("vllm serve lines", line, |parts| {
        let mut text = String::from("vllm serve meta-llama/Llama-3.1-8B");
        for (f, v) in parts {
            text.push_str(&format!(" {} {}", flags[*f], v));
        }
        let req = Request {
            vllm_command: Some(text),
            harness: HarnessSettings {
                contexts: Some(vec![TokenCount::Number(0)]),
                concurrency: Some(vec![1, 16]),
                max_tokens: Some(256),
                ..HarnessSettings::default()
            },
            ..Request::default()
        };
        exercise(&req, &decodecalc_core::scenario::NoFiles);
    });
}

#[test]
fn fuzz_flag_values() {
    let engine = (
        prop::option::of(any::<f64>()),
        prop::option::of(any::<i64>()),
        prop::option::of(any::<i64>()),
        prop::option::of(any::<i64>()),
        prop::option::of(any::<i64>()),
        prop::option::of(any::<i64>()),
        prop::option::of(flag_value()),
    );
    let harness = (
        prop::option::of(flag_value()),
        prop::option::of(flag_value()),
        prop::option::of(any::<i64>()),
    );
    fuzz(
        "flag values",
        (engine, harness, any::<bool>()),
        |((u, l, s, b, bs, tp, kv), (ctx, c, mt), hybrid)| {
            let contexts = ctx
                .as_ref()
                .and_then(|t| decodecalc_core::engine::parse_token_list("--contexts", t).ok());
            let concurrency = c
                .as_ref()
                .and_then(|t| decodecalc_core::engine::parse_count_list("--concurrency", t).ok());
            let req = Request {
                model: Some(
                    if *hybrid {
                        "nemotron-nano-12b-v2-awq4"
                    } else {
                        "qwen3-30b-a3b"
                    }
                    .into(),
                ),
                gpu: Some("a100-80gb".into()),
                engine: EngineSettings {
                    gpu_memory_utilization: *u,
                    max_model_len: *l,
                    max_num_seqs: *s,
                    max_num_batched_tokens: *b,
                    block_size: *bs,
                    tensor_parallel_size: *tp,
                    kv_cache_dtype: kv.clone(),
                    ..EngineSettings::default()
                },
                harness: HarnessSettings {
                    contexts,
                    concurrency,
                    max_tokens: *mt,
                    ..HarnessSettings::default()
                },
                ..Request::default()
            };
            exercise(&req, &decodecalc_core::scenario::NoFiles);
        },
    );
}

#[test]
fn a_100_mb_input_is_refused_by_its_size() {
    let big = "a".repeat(100 << 20);
    let err = parse_measured("big.csv", &big).unwrap_err();
    assert!(
        err.to_string().contains("more than the 8388608 bytes"),
        "{err}"
    );
    assert!(loaded_from_config_json("big.json", &big).is_err());
    assert!(decodecalc_core::command::parse_vllm_command(&big).is_err());
}
