//! Speed of the model and of the fit: `cargo bench -p decodecalc-tests
//! --bench speed` (in the tests crate, which depends on both).
//! Figures go in the README with this command.

// Benchmarks stop on a broken fixture, like tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use decodecalc_core::dtype::KvCacheDtype;
use decodecalc_core::engine::{EngineSettings, HarnessSettings};
use decodecalc_core::matrix::{Phase, Predictor};
use decodecalc_core::presets::{self, Kind};
use decodecalc_core::rank::Sweep;
use decodecalc_core::scenario::{NoFiles, Plan, Request};
use decodecalc_fit::fit;
use decodecalc_measured::rows::parse_csv;
use divan::black_box;

fn main() {
    divan::main();
}

fn reference() -> Plan {
    Request::default().resolve(&NoFiles).unwrap()
}

/// Resolving the reference scenario (parsing its files) and its capacity.
#[divan::bench]
fn capacity_reference() {
    let plan = Request::default().resolve(&NoFiles).unwrap();
    black_box(plan.capacity().unwrap());
}

/// The full 45-cell reference matrix (40 decode cells + 5 prefill rows), timing included.
#[divan::bench]
fn matrix_reference(b: divan::Bencher) {
    let plan = reference();
    let cap = plan.capacity().unwrap();
    b.bench(|| {
        let p = Predictor::new(&plan, &cap, plan.calibration.params).unwrap();
        black_box(p.matrix())
    });
}

/// Every GPU of the catalog x tensor-parallel 1/2/4/8 x every KV dtype x the
/// 40 reference decode cells, for the reference model.
#[divan::bench(sample_count = 20)]
fn catalog_sweep(b: divan::Bencher) {
    let model = presets::model("nemotron-nano-12b-v2-awq4").unwrap();
    let gpus: Vec<_> = presets::ids(Kind::Gpu)
        .map(|id| presets::gpu(id).unwrap())
        .collect();
    let engine = EngineSettings {
        max_model_len: Some(131_072),
        max_num_seqs: Some(128),
        ..EngineSettings::default()
    };
    let harness = HarnessSettings::default();
    b.bench(|| {
        let sweep = Sweep {
            model: &model,
            gpus: &gpus,
            tps: &[1, 2, 4, 8],
            dtypes: &KvCacheDtype::ALL,
            engine: &engine,
            harness: &harness,
            drafter: None,
        };
        let mut cells = 0usize;
        for (plan, _) in sweep.plans(None, None).unwrap() {
            let cap = plan.capacity().unwrap();
            if cap.startup_failure.is_some() {
                continue;
            }
            let p = Predictor::new(&plan, &cap, plan.calibration.params).unwrap();
            for &ctx in &plan.harness.contexts_tokens {
                for &c in &plan.harness.concurrency {
                    black_box(p.cell(Phase::Decode, ctx, c));
                    cells += 1;
                }
            }
        }
        black_box(cells)
    });
}

/// Fitting the timing parameters to the measured reference run alone.
#[divan::bench]
fn calibration_reference(b: divan::Bencher) {
    let plan = reference();
    let cap = plan.capacity().unwrap();
    let f = presets::find(Kind::Measured, "rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32").unwrap();
    let rows = parse_csv(f.path, f.text).unwrap();
    b.bench(|| {
        let p = Predictor::new(&plan, &cap, plan.calibration.params).unwrap();
        black_box(fit(&p, &rows).unwrap())
    });
}

/// The embedded corpus as the shipped calibrations are fitted on it: the
/// public serving runs and the reference harness run.
fn corpus() -> Vec<decodecalc_fit::Run> {
    let f = presets::find(Kind::Runs, "public-decode-speed").unwrap();
    let rows = decodecalc_fit::runs::parse_csv(f.path, f.text).unwrap();
    let mut runs = decodecalc_fit::runs::build(&NoFiles, &rows).unwrap();
    let plan = reference();
    let cap = plan.capacity().unwrap();
    let m = presets::find(Kind::Measured, "rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32").unwrap();
    let measured = parse_csv(m.path, m.text).unwrap();
    let p = Predictor::new(&plan, &cap, plan.calibration.params).unwrap();
    runs.push(decodecalc_fit::harness_run(&p, &measured));
    runs
}

/// The joint fit of the whole corpus (76 runs, 5 GPU classes, 17
/// parameters each), without its leave-one-run-out refits.
#[divan::bench(sample_count = 5)]
fn joint_fit_corpus(b: divan::Bencher) {
    let runs = corpus();
    b.bench(|| black_box(decodecalc_fit::fit_joint(&runs).unwrap()));
}

/// One `bench-serve` prediction: Qwen3-8B on an H100, 1,000 random
/// requests of 1,024 in / 128 out at concurrency 64.
#[divan::bench]
fn bench_serve_prediction(b: divan::Bencher) {
    let plan = Request {
        model: Some("qwen3-8b".into()),
        gpu: Some("h100".into()),
        ..Request::default()
    }
    .resolve(&NoFiles)
    .unwrap();
    let cap = plan.capacity().unwrap();
    let w = decodecalc_core::serve::Workload {
        input_tokens: 1024,
        output_tokens: 128,
        num_prompts: 1000,
        arrival: decodecalc_core::serve::Arrival::serve(None, Some(64)),
    };
    b.bench(|| {
        black_box(
            decodecalc_measured::bench::predict(&plan, &cap, &plan.calibration.params, &w).unwrap(),
        )
    });
}
