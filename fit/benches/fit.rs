//! Speed of the fit: `cargo bench -p decodecalc-fit --bench fit`.
//! Figures go in the README with this command.

// Benchmarks stop on a broken fixture, like tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use decodecalc_core::matrix::Predictor;
use decodecalc_core::measured::parse_csv;
use decodecalc_core::presets::{self, Kind};
use decodecalc_core::scenario::{NoFiles, Plan, Request};
use decodecalc_fit::fit;
use divan::black_box;

fn main() {
    divan::main();
}

fn reference() -> Plan {
    Request::default().resolve(&NoFiles).unwrap()
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
