//! The joint calibration over every measured run, cross-validated by model
//! family, GPU and GPU class with cold refits: the shipped bands hold for a
//! refit, the held-out errors meet their bars and are the README's tables,
//! and the fit recovers known parameters from synthetic runs.

#![allow(clippy::cast_possible_truncation)]

use approx::assert_relative_eq;
use decodecalc_core::bands::{Figure, HoldOut};
use decodecalc_core::presets::{self, Kind};
use decodecalc_core::scenario::CalibrationFile;
use decodecalc_core::serve::simulate;
use decodecalc_core::timing::{EngineGeneration, Scope, TimingParams};
use decodecalc_fit::{
    fit_joint, joint_report, run_errors, JointReport, Observed, ServeMeasured, CV_HOLD_OUTS,
    MAX_CLASS_PARAMS,
};

use decodecalc_tests::corpus_runs;
use std::sync::OnceLock;

/// The report `decodecalc calibrate --measured public-decode-speed
/// --measured rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32` prints: the joint
/// fit and its cold refits without each model family, GPU and class,
/// computed once and shared by the tests here.
fn report() -> &'static JointReport {
    static R: OnceLock<JointReport> = OnceLock::new();
    R.get_or_init(|| joint_report(&corpus_runs()).unwrap())
}

/// A refit of the corpus predicts each class's held-out figures inside the
/// bands its shipped file states (the bands outputs print), so no shipped
/// band is narrower than what a fresh cross-validation measures. The fitted
/// values themselves may drift with the optimizer; the bands are the claim.
#[test]
fn a_refit_s_held_out_errors_fall_inside_the_shipped_bands() {
    let r = report();
    let mut checked = 0;
    for c in &r.fit.classes {
        let f = presets::find(Kind::Calibration, &c.class).unwrap();
        let shipped = CalibrationFile::parse(f.path, f.text).unwrap();
        assert_eq!(shipped.runs, c.runs, "{}", c.class);
        assert!(shipped.command.contains("--out-dir data/calibrations"));
        let group = r.classes.iter().find(|g| g.name == c.class).unwrap();
        for fig in &group.figures {
            for (k, hold_out) in CV_HOLD_OUTS.iter().enumerate().take(2) {
                let refit = fig.held_out[k];
                let band = shipped.fit.band(fig.figure, *hold_out, None).unwrap().stats;
                for (what, a, b) in [
                    ("median", refit.median_abs_pct, band.median_abs_pct),
                    ("p90", refit.p90_abs_pct, band.p90_abs_pct),
                ] {
                    assert!(
                        a <= b + 0.05,
                        "{} {:?} {}: refit {what} {a:.2}% outside the shipped {b:.2}%; rerun the command in the file",
                        c.class,
                        fig.figure,
                        hold_out.name()
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 40, "{checked}");
}

/// Cross-validation refits start cold: the parameters a held-out run is
/// predicted with are those of a fit that never saw its unit, started from
/// the fixed starting points (ARCHITECTURE.md's invariant): checked for the
/// L4 (its class's only GPU) and for the Qwen3 dense family.
#[test]
fn leave_out_refits_start_cold() {
    let r = report();
    let runs = corpus_runs();
    for (hold_out, k, unit) in [
        (HoldOut::LeaveGpuOut, 1, "l4"),
        (HoldOut::LeaveFamilyOut, 0, "Qwen3ForCausalLM"),
    ] {
        let held = |x: &decodecalc_fit::Run| match hold_out {
            HoldOut::LeaveGpuOut => x.gpu == unit,
            _ => x.family == unit,
        };
        let rest: Vec<_> = runs.iter().filter(|x| !held(x)).cloned().collect();
        let cold = fit_joint(&rest).unwrap();
        let mut seen = 0;
        for (i, run) in runs.iter().enumerate().filter(|(_, x)| held(x)) {
            let (p, _) = cold.params_for(&run.class, run.engine());
            let want = run_errors(run, &p);
            let got = &r.runs[i].errors;
            for (w, g) in want.iter().zip(got) {
                assert_eq!(w.2, g.held_out_pct[k], "{}: {}", run.id, g.point);
            }
            seen += 1;
        }
        assert!(seen > 0, "{unit}");
    }
}

/// Held-out time per output token over the whole corpus, with every GPU and
/// every model family left out in turn, within issue 24's bars (10% median
/// and 25% p90 on both): a change that makes predictions for unseen GPUs or
/// models worse than that fails here.
#[test]
fn leave_gpu_out_and_leave_family_out_errors() {
    let r = report();
    let tpot = r.overall.figure(Figure::Tpot).unwrap();
    let [family, gpu, class] = tpot.held_out;
    eprintln!(
        "time per output token, {} figures: leave-family-out median {:.1}% p90 {:.1}%; leave-GPU-out median {:.1}% p90 {:.1}%; leave-class-out median {:.1}% p90 {:.1}%",
        tpot.figures,
        family.median_abs_pct,
        family.p90_abs_pct,
        gpu.median_abs_pct,
        gpu.p90_abs_pct,
        class.median_abs_pct,
        class.p90_abs_pct
    );
    assert_eq!(tpot.figures, 207);
    assert!(
        gpu.median_abs_pct <= BAR_GPU_MEDIAN,
        "{}",
        gpu.median_abs_pct
    );
    assert!(gpu.p90_abs_pct <= BAR_GPU_P90, "{}", gpu.p90_abs_pct);
    assert!(
        family.median_abs_pct <= BAR_FAMILY_MEDIAN,
        "{}",
        family.median_abs_pct
    );
    assert!(
        family.p90_abs_pct <= BAR_FAMILY_P90,
        "{}",
        family.p90_abs_pct
    );
    // The V1 engine's runs, every release decodecalc predicts for
    // (`--vllm-version` takes 0.10 onwards), meet issue 24's bars: 10%
    // median and 25% p90, a GPU or a model family left out. The V0 runs
    // (the A100's Qwen2.5 benchmark on vLLM 0.6.3) carry the V0 engine's
    // host costs, which only they measure: holding the A100 out leaves
    // those unmeasured, a prediction decodecalc never makes to a user.
    let v1 = r
        .engines
        .iter()
        .find(|g| g.name == EngineGeneration::V1.name())
        .and_then(|g| g.figure(Figure::Tpot))
        .unwrap();
    let [v1_family, v1_gpu, _] = v1.held_out;
    eprintln!(
        "V1 engine, {} figures: leave-family-out median {:.1}% p90 {:.1}%; leave-GPU-out median {:.1}% p90 {:.1}%",
        v1.figures,
        v1_family.median_abs_pct,
        v1_family.p90_abs_pct,
        v1_gpu.median_abs_pct,
        v1_gpu.p90_abs_pct
    );
    assert_eq!(v1.figures, 60);
    for s in [v1_family, v1_gpu] {
        assert!(s.median_abs_pct <= 10.0, "{}", s.median_abs_pct);
        assert!(s.p90_abs_pct <= 25.0, "{}", s.p90_abs_pct);
    }
    // The reference run keeps its in-sample figures inside the joint fit.
    let geforce = r
        .classes
        .iter()
        .find(|c| c.name == "ampere-geforce")
        .unwrap();
    for f in &geforce.figures {
        let bar = if f.figure == Figure::Ttft { 5.0 } else { 3.0 };
        assert!(
            f.in_sample_mape_pct <= bar,
            "{:?}: {}",
            f.figure,
            f.in_sample_mape_pct
        );
    }
}

// Issue 24's bars: 10% median and 25% p90 of held-out time per output
// token, a GPU or a model family left out. Met since the A100's GPTQ/AWQ
// GEMMs and every measured GPU's prefill attention come from kernel tables
// (2026-12-06): leave-GPU-out 18.1% / 39.2% -> 7.4% / 17.0%, leave-family-out
// 14.6% / 36.4% -> 7.6% / 16.6%; before, the A100 held out left its
// dequantizing kernels to values nothing else pinned.
const BAR_GPU_MEDIAN: f64 = 10.0;
const BAR_GPU_P90: f64 = 25.0;
const BAR_FAMILY_MEDIAN: f64 = 10.0;
const BAR_FAMILY_P90: f64 = 25.0;

/// Doc sync: the README's held-out table of a file is its report's.
fn readme_has_held_out_rows(held: &decodecalc_fit::HeldOutReport) {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"),
    )
    .unwrap();
    for g in held
        .gpus
        .iter()
        .chain(&held.families)
        .chain(std::iter::once(&held.overall))
    {
        for f in &g.figures {
            let row = format!(
                "| {} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {:+.1} |",
                g.name,
                g.runs,
                f.figure.label(),
                f.stats.figures,
                f.stats.mape_pct,
                f.stats.median_abs_pct,
                f.stats.p90_abs_pct,
                f.mean_signed_pct
            );
            assert!(
                readme.contains(&row),
                "README lacks the held-out row\n{row}"
            );
        }
    }
}

/// vLLM V1 runs on A100s (`data/runs/a100-vllm-v1.csv`: tokenkaki's Qwen3-8B
/// on an A100 40GB at vLLM 0.9.2 and 0.19.1, GPUStack's Qwen3-14B on an
/// A100 80GB at 0.11.0 with every prompt sent at once), which no fit sees:
/// the fitted A100 runs are all V0 (vLLM 0.6), so these check the engine
/// split. The unloaded runs are predicted within 19% (p90); the saturated
/// ones are the model's known miss under load (issue 24, cause 8): TPOT
/// too fast, by 90% where 4-token requests share every step with prompts.
#[test]
fn a100_v1_runs_no_fit_saw() {
    let r = report();
    let held = decodecalc_fit::held_out_report(
        &r.fit,
        &decodecalc_tests::held_out_runs_of("a100-vllm-v1"),
    );
    let tpot = |name: &str| {
        held.gpus
            .iter()
            .find(|g| g.name == name)
            .and_then(|g| g.figures.iter().find(|f| f.figure == Figure::Tpot))
            .unwrap()
            .clone()
    };
    let (unloaded, saturated) = (tpot("a100-40gb"), tpot("a100-80gb"));
    eprintln!(
        "A100 V1: unloaded TPOT median {:.1}% p90 {:.1}%; saturated mean signed {:+.1}%",
        unloaded.stats.median_abs_pct, unloaded.stats.p90_abs_pct, saturated.mean_signed_pct
    );
    assert_eq!((held.overall.runs, held.overall.figures.len()), (6, 3));
    assert!(
        unloaded.stats.p90_abs_pct <= 19.0,
        "{}",
        unloaded.stats.p90_abs_pct
    );
    assert!(
        saturated.mean_signed_pct < -30.0,
        "{}",
        saturated.mean_signed_pct
    );
    readme_has_held_out_rows(&held);
}

/// aiconfigurator's runs with expert and/or data parallelism
/// (`data/runs/aiconfigurator-silicon-vllm-ep.csv`), which no fit sees: the
/// README's table of them is the report's (their errors by GPU and model at
/// the shipped calibrations: `expert_parallel_timing::expert_and_data_parallel_silicon_runs_are_predicted`).
#[test]
fn expert_and_data_parallel_runs_no_fit_saw_are_in_the_readme() {
    let r = report();
    let held = decodecalc_fit::held_out_report(
        &r.fit,
        &decodecalc_tests::held_out_runs_of("aiconfigurator-silicon-vllm-ep"),
    );
    // 55 runs: a batch of 512 or more per rank is its own deployment.
    assert_eq!(held.overall.runs, 55);
    readme_has_held_out_rows(&held);
}

/// aiconfigurator's runs (H100, H200, B200, B300; gpt-oss-120b, Qwen3-32B,
/// Qwen3-235B, MiniMax-M2.5 fp8 and NVFP4, Kimi-K2.5 int4 and NVFP4; vLLM
/// 0.11-0.19), which no fit sees, predicted with the joint fit as shipped:
/// time per output token. Bars as above: today's figures.
#[test]
fn runs_no_fit_saw_are_predicted_within_the_bars() {
    let r = report();
    let held = decodecalc_fit::held_out_report(&r.fit, &decodecalc_tests::held_out_runs());
    let overall = |figure: Figure| {
        held.overall
            .figures
            .iter()
            .find(|f| f.figure == figure)
            .unwrap()
    };
    let tpot = overall(Figure::Tpot);
    eprintln!(
        "held-out runs: {} runs, {} TPOT figures: median {:.1}%, p90 {:.1}%, mean signed {:+.1}%",
        held.overall.runs,
        tpot.stats.figures,
        tpot.stats.median_abs_pct,
        tpot.stats.p90_abs_pct,
        tpot.mean_signed_pct
    );
    // 147 runs: a batch of 512 or more is its own deployment (the
    // generator's max-num-seqs is twice it).
    assert_eq!((held.overall.runs, tpot.stats.figures), (147, 526));
    readme_has_held_out_rows(&held);
    // 8.8% median and 48.4% p90 over the 272 figures of gpt-oss-120b,
    // Qwen3-32B and Qwen3-235B; with MiniMax-M2.5 and Kimi-K2.5 (predicted
    // 22% and 38% too fast) 17.2% and 43.3% over 526; 16.9% and 39.0% since
    // int4 experts are priced by the H200's measured Marlin fused MoE; 15.5%
    // and 37.2% since MiniMax-M2's q/k norms over all heads pay their
    // all-reduce under tensor parallelism (MiniMax-M2.5 21.6% -> 18.6%);
    // 15.2% and 34.1% since the B200 prices Kimi-K2.5's int4 experts by its
    // vLLM 0.24.0 Marlin table (Kimi-K2.5 int4 on the B200 53.3% -> 25.2%);
    // 14.4% and 34.1% served with the engine limits aiconfigurator's
    // generator writes (TTFT 45.2% -> 44.4% median, 156.9% -> 120.1% p90);
    // 14.3% and 33.7% with recompute preemption. 15.7% and 35.2% since the
    // fp8 and NVFP4 checkpoints' runs have the fp8 KV cache that generator
    // writes for them (scripts/aiconfigurator/convert_silicon.py,
    // GENERATOR_KV_NOTE): half the attention bytes makes MiniMax-M2.5 and
    // Qwen3-235B, already predicted too fast, faster still (-17.9% -> -20.1%
    // and -44.9% -> -46.1% on average), while their KV pools, twice as
    // large, stop the queueing their measured TTFT never showed (below). The
    // bar follows the corrected inputs; the MoE steps' gap is the model's.
    // 17.3% and 34.9% since NCCL's large-message line prices the prefills'
    // all-reduces as its tables do (TTFT below): the refit's V1 host cost
    // per sequence fell from 40.7 to 28.5 us, and the batched steps, already
    // too fast, got faster (Qwen3-32B 6.7% -> 10.6%).
    assert!(
        tpot.stats.median_abs_pct <= 17.5,
        "{}",
        tpot.stats.median_abs_pct
    );
    assert!(tpot.stats.p90_abs_pct <= 35.5, "{}", tpot.stats.p90_abs_pct);
    // Kimi-K2.5 int4 on the H200 and the B200, the runs the Marlin kernel
    // prices: TPOT 42.0% median before it on the H200, 53.3% on the B200;
    // the family 27.1% with the H200's table alone, 25.2% with both.
    let kimi = held
        .families
        .iter()
        .find(|g| g.name == "KimiK25ForConditionalGeneration")
        .unwrap();
    let kimi_tpot = kimi
        .figures
        .iter()
        .find(|f| f.figure == Figure::Tpot)
        .unwrap();
    assert!(
        kimi_tpot.stats.median_abs_pct <= 25.5,
        "{}",
        kimi_tpot.stats.median_abs_pct
    );
    // TTFT of closed loops of equal requests: lock-step waves (65% median)
    // no more. 38.2% since a class fits only the kernel parameters its own
    // runs pin down (35.0% when the Hopper class fitted its prefill
    // attention to its runs' TTFT, which the identifiability report does not
    // count as pinned); 39.0% since the fused-MoE kernels count the tables'
    // own routing and the rows' activation traffic (the MoE prefills cost
    // what the kernel tables say, within 14%; TTFT was already too long);
    // 42.1% with MiniMax-M2.5 and Kimi-K2.5; 43.7% since the int4 experts'
    // prefills cost what the H200's Marlin table says (Kimi-K2.5's TTFT 40%
    // -> 63% median: the simulated loop's prefill waves, not the kernel);
    // 44.0% since MiniMax-M2's norm all-reduces lengthen its decode steps,
    // which the simulated prefills wait behind (MiniMax 48.2% -> 47.4%; the
    // other families' TTFT unchanged): the bar from 44.0 to 44.2 for that;
    // 45.2% since the B200's int4 prefills cost what its Marlin table says
    // (Kimi-K2.5's TTFT 63.2% -> 119.9% median, too long as the H200's
    // were: the simulated loop's prefill waves, not the kernel, which
    // matches its table within 4.4% median at 1 to 8,192 tokens); 44.4%
    // (p90 156.9% -> 120.1%) with the engine limits aiconfigurator's
    // generator writes, one or two prompts a step where vLLM's default
    // budget packed eight. Since a full KV cache preempts the last admitted
    // request instead of holding back those it cannot hold to their last
    // token: 44.7% median, 118.1% p90, and +52.8% on average, where the
    // requests held back had made it +111.8%. With the fp8 KV cache the
    // generator writes for fp8 and NVFP4 checkpoints: 44.2%, 112.5% and
    // +31.4% (MiniMax-M2.5 +73.5% -> +16.9% on average: at 512 requests of
    // 1,024 + 1,024 tokens on two B200s a bf16 pool holds about 300 of them
    // and the rest wait 36 s for their first token; measured, 1.3 s). With
    // NCCL's large-message line (a prefill chunk's all-reduce is tens of
    // megabytes, where the one line was 30% to 54% slow): 40.1%, 95.5% and
    // +23.6%.
    let ttft = overall(Figure::Ttft);
    assert!(
        ttft.stats.median_abs_pct <= 40.5,
        "{}",
        ttft.stats.median_abs_pct
    );
    assert!(ttft.stats.p90_abs_pct <= 96.0, "{}", ttft.stats.p90_abs_pct);
    assert!(ttft.mean_signed_pct <= 24.0, "{}", ttft.mean_signed_pct);
}

/// Doc sync, not evidence in itself: the README's accuracy tables are the
/// report's, row by row, as `decodecalc calibrate --format markdown` prints
/// them.
#[test]
fn the_readme_accuracy_tables_are_the_reports() {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"),
    )
    .unwrap();
    let r = report();
    let mut rows = 0;
    let groups = r
        .classes
        .iter()
        .chain(std::iter::once(&r.overall))
        .chain(&r.gpus)
        .chain(&r.families)
        .chain(&r.engines);
    for g in groups {
        for f in &g.figures {
            let [fam, gpu, class] = &f.held_out;
            let row = format!(
                "| {} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
                g.name,
                g.runs,
                f.figure.label(),
                f.figures,
                f.first_principles_mape_pct,
                f.in_sample_mape_pct,
                fam.mape_pct,
                fam.median_abs_pct,
                fam.p90_abs_pct,
                gpu.mape_pct,
                gpu.median_abs_pct,
                gpu.p90_abs_pct,
                class.median_abs_pct,
                class.p90_abs_pct
            );
            assert!(readme.contains(&row), "README lacks the row\n{row}");
            rows += 1;
        }
    }
    assert!(rows >= 30, "{rows}");
}

#[test]
fn the_fit_recovers_known_parameters_from_synthetic_runs() {
    // The A100 runs' setups, "measured" under known parameters. The A100's
    // GEMMs (16-bit and dequantizing) and FlashAttention come from its
    // measured kernel tables, so the fit has none of those to find: what
    // is left are the host's costs.
    let truth = TimingParams {
        host_step_ms: 3.0,
        layer_us: 15.0,
        ..TimingParams::FIRST_PRINCIPLES
    };
    let mut runs: Vec<_> = corpus_runs()
        .into_iter()
        .filter(|r| r.class == "ampere-datacenter")
        .collect();
    for run in &mut runs {
        let work = run.work.clone();
        for p in &mut run.points {
            if let Observed::Serve {
                workload,
                max_running,
                measured,
                ..
            } = p
            {
                let s = simulate(&work, &truth, workload, *max_running).unwrap();
                *measured = ServeMeasured {
                    output_tok_s: Some(s.output_throughput),
                    ..ServeMeasured::default()
                };
            }
        }
    }
    let fit = fit_joint(&runs).unwrap();
    // The A100 runs are vLLM 0.6 (the V0 engine).
    let got = fit.params_for("ampere-datacenter", EngineGeneration::V0).0;
    // What batch-1 decode and prefill determine, within 3%.
    for (name, want, have, tol) in [
        ("host_step_ms", truth.host_step_ms, got.host_step_ms, 0.03),
        ("layer_us", truth.layer_us, got.layer_us, 0.03),
    ] {
        assert!(
            (have / want - 1.0).abs() < tol,
            "{name}: recovered {have}, true {want}"
        );
    }
    // And the synthetic figures come back to within 0.5%.
    for run in &runs {
        for e in decodecalc_fit::run_errors(run, &got) {
            assert!(e.2.abs() < 0.5, "{}: {} {:+.2}%", run.id, e.1, e.2);
        }
    }
}

/// The host's costs are the engine generation's, not the GPU class's
/// (issue 24, cause 1): every shipped class file carries the same
/// engine-scope values for a V1 release and the same for a V0 one, and the
/// V0 engine's fixed cost of a step (its host's, and its per-layer chain of
/// small kernels, unfused before torch.compile) is more than V1's: 1.45
/// against 0.71 ms for 24 layers, 2.10 against 1.34 ms for 80 in the
/// shipped fit, from the A100 vLLM 0.6 runs against the others. (How the
/// fit splits it between the two terms moves between refits: 17.1 against
/// 8.9 us per layer once, 11.4 against 11.3 us now, with the host's step
/// 1.18 against 0.44 ms.)
#[test]
fn engine_scope_parameters_belong_to_the_engine_generation() {
    let files: Vec<CalibrationFile> = presets::ids(Kind::Calibration)
        .map(|id| {
            let f = presets::find(Kind::Calibration, id).unwrap();
            CalibrationFile::parse(f.path, f.text).unwrap()
        })
        .collect();
    assert!(files.len() >= 6);
    let engine_values = |p: &TimingParams| -> Vec<f64> {
        p.to_array()
            .into_iter()
            .zip(TimingParams::SCOPES)
            .filter(|(_, s)| *s == Scope::Engine)
            .map(|(v, _)| v)
            .collect()
    };
    let first = files.first().unwrap();
    let v0 = first.v0_params.expect("the corpus has V0 runs");
    for f in &files {
        assert_eq!(
            engine_values(&f.params),
            engine_values(&first.params),
            "{}",
            f.id
        );
        assert_eq!(
            engine_values(&f.v0_params.unwrap()),
            engine_values(&v0),
            "{}",
            f.id
        );
    }
    let fixed_ms = |p: &TimingParams, layers: f64| p.host_step_ms + layers * p.layer_us / 1e3;
    for layers in [24.0, 48.0, 80.0] {
        let (old, new) = (fixed_ms(&v0, layers), fixed_ms(&first.params, layers));
        assert!(old > 1.3 * new, "{layers} layers: V0 {old} ms, V1 {new} ms");
    }
}

/// A class deviates from the shared values only on the kernel (GPU-scope)
/// parameters its own runs pin down, at most `MAX_CLASS_PARAMS` of them
/// (issue 24: a class fitted on one run had absorbed that run's quirks in
/// 17 parameters). The classes whose kernels the measured tables cover
/// (L4, RTX 4090, Hopper; the A100, whose GPTQ and AWQ runs dequantize
/// through the weight-only tables) pin none.
#[test]
fn a_class_fits_only_the_kernel_parameters_its_runs_pin_down() {
    let fit = &report().fit;
    let shared = fit.shared.to_array();
    for c in &fit.classes {
        assert!(
            c.free.len() <= MAX_CLASS_PARAMS,
            "{}: {:?}",
            c.class,
            c.free
        );
        for (k, (name, v)) in TimingParams::NAMES
            .iter()
            .zip(c.params.to_array())
            .enumerate()
        {
            let gpu = TimingParams::SCOPES[k] == Scope::Gpu;
            assert!(!c.free.contains(name) || gpu, "{}: {name}", c.class);
            if gpu && !c.free.contains(name) {
                assert_relative_eq!(v, shared[k], max_relative = 1e-9);
            }
        }
    }
    let free = |class: &str| {
        fit.classes
            .iter()
            .find(|c| c.class == class)
            .unwrap()
            .free
            .clone()
    };
    for class in [
        "ada-datacenter",
        "ada-geforce",
        "ampere-datacenter",
        "hopper",
    ] {
        assert!(free(class).is_empty(), "{class}: {:?}", free(class));
    }
    assert!(free("ampere-geforce").contains(&"attn_bw_eff_triton"));
}

/// The shipped calibrations were fitted on no mixture-of-experts run (their
/// files say `moe_runs = 0`), so their cross-validations say how dense
/// models do. A MoE model's prediction carries instead the bands of the MoE
/// serving runs no fit saw (aiconfigurator's tensor- and expert-parallel
/// runs: Qwen3-235B-A22B, MiniMax-M2.5, Kimi-K2.5, gpt-oss-120b on H100 to
/// B300), predicted with the shipped fit: the shared file holds them for
/// every class, none narrower than predicting those runs afresh measures; they are twice the
/// dense leave-GPU-out median or more; and the prediction says whose bands
/// they are. A dense model's prediction keeps its class's bands.
#[test]
fn a_moe_model_carries_the_bands_of_moe_runs_no_fit_saw() {
    use decodecalc_core::scenario::Plan;
    use decodecalc_core::Warning;
    use decodecalc_tests::{held_out_runs_of, plan_of};
    let r = report();
    let held = [
        held_out_runs_of("aiconfigurator-silicon-vllm"),
        held_out_runs_of("aiconfigurator-silicon-vllm-ep"),
    ]
    .concat();
    let fresh = decodecalc_fit::unfitted_moe_bands(&r.fit, &held);
    let fresh_tpot = fresh
        .iter()
        .find(|b| b.figure == Figure::Tpot && b.regime.is_none())
        .unwrap()
        .stats;
    eprintln!(
        "MoE runs no fit saw: {} TPOT figures, median {:.1}%, p90 {:.1}%",
        fresh_tpot.figures, fresh_tpot.median_abs_pct, fresh_tpot.p90_abs_pct
    );
    // 581 of the 671 figures are MoE models' (Qwen3-32B is dense).
    assert!(
        (550..=620).contains(&fresh_tpot.figures),
        "{}",
        fresh_tpot.figures
    );
    assert!(
        (18.0..=30.0).contains(&fresh_tpot.median_abs_pct),
        "{}",
        fresh_tpot.median_abs_pct
    );
    for f in presets::FILES
        .iter()
        .filter(|f| f.kind == Kind::Calibration)
    {
        let shipped = CalibrationFile::parse(f.path, f.text).unwrap();
        assert_eq!(shipped.moe_runs, 0, "{}", f.path);
        // One home: the shared file.
        let holds = shipped.fit.hold_outs().contains(&HoldOut::UnfittedMoeRuns);
        assert_eq!(holds, shipped.class == "shared", "{}", f.path);
        if !holds {
            continue;
        }
        for b in &fresh {
            let s = shipped
                .fit
                .band(b.figure, HoldOut::UnfittedMoeRuns, b.regime)
                .unwrap_or_else(|| panic!("{}: no {:?} {:?}", f.path, b.figure, b.regime))
                .stats;
            assert!(
                b.stats.median_abs_pct <= s.median_abs_pct + 0.05
                    && b.stats.p90_abs_pct <= s.p90_abs_pct + 0.05,
                "{}: {:?} {:?}: fresh {:.1}/{:.1} outside shipped {:.1}/{:.1}; rerun the command in the file",
                f.path,
                b.figure,
                b.regime,
                b.stats.median_abs_pct,
                b.stats.p90_abs_pct,
                s.median_abs_pct,
                s.p90_abs_pct
            );
        }
    }
    let plan = |model: &str, gpu: &str| plan_of(&[("model", model), ("gpu", gpu)]);
    let moe_warning = |p: &Plan| {
        p.warnings.iter().find_map(|w| match w {
            Warning::MoeFittedOnDenseRuns { moe_bands, .. } => Some(*moe_bands),
            _ => None,
        })
    };
    let moe = plan("qwen3-30b-a3b", "l40s");
    assert_eq!(moe_warning(&moe), Some(true), "{:?}", moe.warnings);
    assert_eq!(moe.calibration.hold_out(), Some(HoldOut::UnfittedMoeRuns));
    let moe_tpot = moe.calibration.bands().tpot.unwrap();
    let dense = plan("llama-3.1-8b", "l40s");
    assert_eq!(moe_warning(&dense), None);
    let dense_tpot = dense.calibration.bands().tpot.unwrap();
    assert_eq!(dense_tpot.hold_out, HoldOut::LeaveGpuOut);
    assert!(
        moe_tpot.median_abs_pct >= 2.0 * dense_tpot.median_abs_pct,
        "MoE {:.1}% against dense {:.1}%",
        moe_tpot.median_abs_pct,
        dense_tpot.median_abs_pct
    );
    assert_eq!(moe_warning(&plan("qwen3-8b", "h100")), None);
    // Without a calibration file (first principles) no band is shown.
    let none = plan_of(&[
        ("model", "qwen3-30b-a3b"),
        ("gpu", "l40s"),
        ("calibration", "none"),
    ]);
    assert_eq!(moe_warning(&none), None);
    assert_eq!(none.calibration.bands().tpot, None);
}
