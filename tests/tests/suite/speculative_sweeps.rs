//! Speculative decoding's held-out concurrency sweeps (issue 27): the RTX
//! 5090 and RTX PRO 6000 runs of `data/runs/speculative-sweeps.csv`, their
//! running requests capped by the hybrid cache's draft state slots, and the
//! README's table of them.

use super::speculative::{pct, Runs};
use decodecalc_core::presets::{self, Kind};
use decodecalc_core::scenario::{CalibrationFile, Capacity, Plan, Request};
use decodecalc_core::timing::spec_pass_overhead_s;
use decodecalc_tests::Fs;

/// The RTX 5090 sweep's setup (tsarihan/qwen3.8-27b-uncensored-nvfp4-
/// rtx5090-gb10-playbook@84b7dbe, scripts/bench-5090.sh: vLLM 0.27.1,
/// utilization 0.945, 16 sequences, prefix caching, the checkpoint's fp8 KV)
/// with `k` draft tokens, `batched` tokens a step, `len` tokens a request,
/// and the pool pinned to `pool_gib` where a log gave it.
fn tsarihan_5090(
    k: Option<u64>,
    batched: i64,
    len: i64,
    pool_gib: Option<f64>,
) -> (Plan, Capacity) {
    let mut r = Request {
        model: Some("qwen3.8-27b-uncensored-nvfp4-v3".into()),
        gpu: Some("rtx5090".into()),
        ..Request::default()
    };
    let e = &mut r.engine;
    e.vllm_version = Some("0.27.1".into());
    e.gpu_memory_utilization = Some(0.945);
    e.max_model_len = Some(len);
    e.max_num_seqs = Some(16);
    e.max_num_batched_tokens = Some(batched);
    e.enable_prefix_caching = Some(true);
    e.kv_cache_dtype = Some("fp8".into());
    e.speculative_config =
        k.map(|k| format!(r#"{{"method": "mtp", "num_speculative_tokens": {k}}}"#));
    e.kv_cache_memory_bytes = pool_gib.map(|gib| {
        i64::try_from(decodecalc_core::units::saturating_u64(
            (gib * (1u64 << 30) as f64).round(),
        ))
        .unwrap()
    });
    let plan = r.resolve(&Fs).unwrap();
    let cap = plan.capacity().unwrap();
    (plan, cap)
}

/// The sweep's checkpoint is heavier than any published NVFP4 build of the
/// geometry: its recipe keeps the MLP of decoder layers 56-63 and lm_head at
/// FP8 (README.md @84b7dbe, "The recipe"; scripts/quantize_v3.py). With that
/// carve-out (`WeightQuant::fp8_layers`) the weights, the bf16 MTP head and
/// vision tower included, come to the README's "total ... 23.42 GB"; every
/// MLP at NVFP4, as nvidia/Qwen3.6-27B-NVFP4 has it, is 1.2 GB short.
#[test]
fn a_per_layer_fp8_carve_out_gives_the_5090_checkpoint_its_size() {
    let (_, cap) = tsarihan_5090(Some(3), 8192, 98_304, None);
    let published = 23.42e9;
    let err = pct(cap.weights_bytes as f64, published);
    assert!(err.abs() < 0.5, "{} ({err:+.2}%)", cap.weights_bytes);
    let (plan, _) = tsarihan_5090(Some(3), 8192, 98_304, None);
    let mut all_fp4 = plan.model.quant.clone();
    all_fp4.fp8_layers.clear();
    let carved = decodecalc_core::memory::weights_bytes(&plan.model.model, &plan.model.quant);
    let uncarved = decodecalc_core::memory::weights_bytes(&plan.model.model, &all_fp4);
    // 8 layers x 3 x 5,120 x 17,408 weights: 1 byte and a 4-byte scale per
    // output channel at FP8 against 0.5 byte and a byte per 16 at NVFP4.
    assert_eq!(
        carved - uncarved,
        8 * (3 * 5120 * 17_408 * 7 / 16 + 2 * 17_408 * 4 + 5120 * 4) - 8 * 3 * 4
    );
}

/// Why MTP halves the RTX 5090 sweep's throughput from 8 requests on: the
/// KV pool holds too few Gated-DeltaNet states. With prefix caching on,
/// vLLM 0.27.1 keeps each hybrid model's Mamba groups in "align" mode, and
/// `MambaManager` gives a request `1 + num_speculative_blocks` blocks per
/// Mamba group, `num_speculative_blocks` = k (vllm/v1/core/
/// single_type_kv_cache_manager.py:1499-1530 in the 0.27.1 wheel; vllm/
/// model_executor/layers/mamba/abstract.py). A request of 131 + 512 tokens
/// then holds 1 attention block (1,568 tokens) and 3 x 4 GDN blocks, 13 of
/// 52 MiB, against 4 of 49 MiB without MTP. How many requests ran at once
/// is read off the published TTFTs (results/sweep-*.json): at 8 requests,
/// the ones admitted at once start after p50 and the rest wait out a whole
/// request (max), so `n x p50 + (8 - n) x max = 8 x mean`.
#[test]
fn gdn_draft_states_cap_the_running_requests_of_the_5090_sweep() {
    let ran = |mean: f64, p50: f64, max: f64| {
        decodecalc_core::units::saturating_u64(((8.0 * max - 8.0 * mean) / (max - p50)).round())
    };
    let admitted = |(plan, cap): (Plan, Capacity)| {
        let a = decodecalc_core::allocator::admit(
            &cap.layout,
            &cap.pool,
            &plan.engine,
            131,
            131 + 512,
            16,
            false,
        );
        (
            a.running,
            a.blocks_per_request,
            cap.layout.block_size_tokens,
        )
    };
    // Run D (--max-num-batched-tokens 16384): its log's start-up error
    // quotes "the available KV cache memory (3.78 GiB)"; at 8 requests TTFT
    // mean 2.664 s, p50 0.231, max 7.409 (sweep-D-k3-16384.json).
    let d = admitted(tsarihan_5090(Some(3), 16_384, 65_536, Some(3.78)));
    assert_eq!(d, (ran(2.664, 0.231, 7.409), 13, 1600));
    assert_eq!(d.0, 5);
    // Run B (8192), its pool predicted: mean 1.102 s, p50 0.252, max 7.103
    // (sweep-B-k3-8192.json): 7 at once.
    let b = admitted(tsarihan_5090(Some(3), 8192, 98_304, None));
    assert_eq!(b, (ran(1.102, 0.252, 7.103), 13, 1600));
    assert_eq!(b.0, 7);
    // Run A, no MTP: all 16 at once (at 16 requests TTFT max 0.45 s, a
    // request lasting 9.7 s; sweep-A-nomtp-8192.json), 4 blocks each.
    let a = admitted(tsarihan_5090(None, 8192, 98_304, None));
    assert_eq!(a, (16, 4, 1568));
}

/// The wait for a GDN state slot is the TTFT the RTX 5090 sweep measured
/// with MTP: at its logged acceptance (2.02 tokens a step), the serving
/// simulation over the allocator's 7 (run B) and 5 (run D, its logged pool)
/// running requests gives the published mean TTFTs from 8 requests on,
/// 3 to 20 times those without MTP (results/sweep-*.json: B 1,102 and
/// 5,406 ms at 8 and 16 requests, D 2,664 and 8,606 ms; without MTP 343
/// and 440 ms).
#[test]
fn waiting_for_a_gdn_state_slot_is_the_5090_sweep_s_ttft() {
    let mut runs = Runs::load_file("speculative-sweeps");
    for id in [
        "q38-27b-uncens-nvfp4-rtx5090-mtp3",
        "q38-27b-uncens-nvfp4-rtx5090-mtp3-mnbt16384",
    ] {
        let r = runs.runs.iter_mut().find(|r| r.id == id).unwrap();
        let cal = presets::find(Kind::Calibration, &r.class)
            .or_else(|_| presets::find(Kind::Calibration, "shared"))
            .unwrap();
        let p = CalibrationFile::parse(cal.path, cal.text).unwrap().params;
        r.work.spec.as_mut().unwrap().mean_acceptance_length =
            rows_al_in("speculative-sweeps", id).unwrap();
        r.work.spec.as_mut().unwrap().pass_overhead_s = spec_pass_overhead_s(&r.class);
        for (label, pt) in r.points.iter().enumerate().skip(3).take(2) {
            let (_, pred, meas, _) = decodecalc_fit::predict_point(r, &p, pt)
                .into_iter()
                .find(|(f, ..)| *f == "mean_ttft_ms")
                .unwrap();
            eprintln!("{id} point {label}: mean TTFT {meas:.0} ms measured, {pred:.0} predicted ({:+.0}%)", pct(pred, meas));
            assert!(
                pct(pred, meas).abs() < 15.0,
                "{id} {label}: {pred} vs {meas}"
            );
        }
    }
}

/// Concurrency sweeps with and without MTP (data/runs/speculative-sweeps.csv:
/// Qwen3.8-27B on an RTX 5090 and an RTX PRO 6000, one to 64 requests at
/// once), held out: nothing is fitted to them, and they are predicted with
/// the shipped defaults (the acceptance included). Prints the README's
/// table, one row per run, a column per concurrency.
#[test]
fn published_concurrency_sweeps_held_out() {
    let mut runs = Runs::load_file("speculative-sweeps");
    let mut table = String::from(
        "| Run | k | c = 1 | 2 | 4 | 8 | 16 | 32 | 64 | MAPE |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let (mut spec_errors, mut plain_errors) = (Vec::new(), Vec::new());
    let mut by_run: Vec<(String, f64)> = Vec::new();
    let row = |runs: &mut Runs, i: usize, label: &str| {
        let pts = runs.points(i, runs.shipped_overhead(i));
        let k = runs.runs[i]
            .work
            .spec
            .as_ref()
            .map_or("none".to_string(), |s| s.num_speculative_tokens.to_string());
        let errs: Vec<f64> = pts.iter().map(|(m, p)| pct(*p, *m)).collect();
        let cells: Vec<String> = pts
            .iter()
            .zip(&errs)
            .map(|((m, p), e)| format!("{m:.0} / {p:.0} ({e:+.0}%)"))
            .collect();
        let mape = errs.iter().map(|e| e.abs()).sum::<f64>() / errs.len() as f64;
        (
            format!("| {label} | {k} | {} | {mape:.0}% |\n", cells.join(" | ")),
            errs,
            mape,
        )
    };
    for i in 0..runs.runs.len() {
        let id = runs.runs[i].id.clone();
        let (line, errs, mape) = row(&mut runs, i, &id);
        table.push_str(&line);
        by_run.push((id.clone(), mape));
        if runs.runs[i].work.spec.is_some() {
            spec_errors.extend(errs.iter().map(|e| e.abs()));
        } else {
            plain_errors.extend(errs.iter().map(|e| e.abs()));
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    table.push_str(&format!(
        "\nMeasured / predicted output tok/s (error). Points with MTP: {}, mean absolute error {:.0}%; without: {}, {:.0}%.\n",
        spec_errors.len(),
        mean(&spec_errors),
        plain_errors.len(),
        mean(&plain_errors)
    ));
    eprintln!("{table}");
    assert_eq!(runs.runs.len(), 6);
    assert_eq!(spec_errors.len() + plain_errors.len(), 42);
    // What the README says of each run, as bounds on its mean error: with
    // the shipped acceptance (the RTX 5090 build's from its other run, the
    // RTX PRO 6000's from its family, Qwen3.5/3.6) every MTP run is within
    // 12%, and the RTX PRO 6000 without speculation is the worst (-36% at
    // 32 and 64 requests).
    let bound = |id: &str| -> f64 { by_run.iter().find(|(r, _)| r == id).unwrap().1 };
    assert!(bound("q38-27b-w4a4-nvfp4-rtxpro6000-mtp1") < 8.0);
    assert!(bound("q38-27b-w4a4-nvfp4-rtxpro6000-mtp2") < 12.0);
    assert!(bound("q38-27b-uncens-nvfp4-rtx5090-nospec") < 8.0);
    assert!(bound("q38-27b-uncens-nvfp4-rtx5090-mtp3") < 10.0);
    assert!(bound("q38-27b-uncens-nvfp4-rtx5090-mtp3-mnbt16384") < 10.0);
    assert!(bound("q38-27b-w4a4-nvfp4-rtxpro6000-nospec") > 20.0);
    let readme =
        std::fs::read_to_string(decodecalc_tests::data_dir().join("../README.md")).unwrap();
    assert!(
        readme.contains(&table),
        "README.md's concurrency-sweep table differs from this test's:\n{table}"
    );
}

/// The acceptance length run `id` of runs file `file` logged.
pub(super) fn rows_al_in(file: &str, id: &str) -> Option<f64> {
    let f = presets::find(Kind::Runs, file).unwrap();
    decodecalc_fit::runs::parse_csv(f.path, f.text)
        .unwrap()
        .into_iter()
        .find(|r| r.run == id)
        .and_then(|r| r.mean_acceptance_length)
}
