//! `--enable-expert-parallel` and `--data-parallel-size`
//! (docs/reference/vllm-expert-data-parallel.md): where the experts go, what
//! one GPU holds, the GPU count, how a cell's requests spread over the
//! replicas, and the setups vLLM refuses.

use decodecalc_core::command::parse_vllm_command;
use decodecalc_core::engine::EngineSettings;
use decodecalc_core::matrix::{Phase, Predictor};
use decodecalc_core::model::Layer;
use decodecalc_core::scenario::{Capacity, Plan, Request};
use decodecalc_core::Warning;
use decodecalc_tests::Fs;
use std::path::PathBuf;

/// A model of the real configs, `data/hub/`.
fn hub(repo: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../data/hub")
        .join(format!("{}.json", repo.replace('/', "--")))
        .display()
        .to_string()
}

fn plan(model: &str, gpu: &str, tp: i64, dp: i64, ep: bool) -> Plan {
    Request {
        model: Some(hub(model)),
        gpu: Some(gpu.to_string()),
        engine: EngineSettings {
            tensor_parallel_size: Some(tp),
            data_parallel_size: Some(dp),
            enable_expert_parallel: Some(ep),
            ..EngineSettings::default()
        },
        ..Request::default()
    }
    .resolve(&Fs)
    .unwrap()
}

fn capacity(model: &str, gpu: &str, tp: i64, dp: i64, ep: bool) -> Capacity {
    plan(model, gpu, tp, dp, ep).capacity().unwrap()
}

/// The experts one GPU holds (rank 0's: the first `n % ep` ranks hold one more).
fn local_experts(p: &Plan) -> (u64, u64) {
    p.per_gpu
        .layers
        .iter()
        .find_map(|l| match l {
            Layer::Moe(e) => Some((e.local_experts, e.num_experts)),
            _ => None,
        })
        .unwrap()
}

/// vLLM logs each EP rank's share as "[EP Rank r/N] Expert parallelism is
/// enabled. ... Local/global number of experts: L/G" (fused_moe/layer.py).
/// Three public logs, and a model of the corpus with the logged global count
/// at the logged TP x DP:
/// - 32/128 at EP rank 0/4 (TP 4): https://github.com/QwenLM/Qwen3-VL/issues/1520
///   (a Qwen3 MoE of 128 experts; Qwen3-30B-A3B has 128);
/// - 128/256 at EP rank 0/2 (TP 2): https://github.com/vllm-project/vllm/pull/37505
///   (256 experts, as DeepSeek-V3);
/// - 16/64 at EP rank 0/4 and 3/4 with DP 2 x TP 2 (`Worker_DP1_TP1_EP3`):
///   https://github.com/vllm-project/vllm/pull/28037 (64 experts, as
///   DeepSeek-V2-Lite's routed experts).
#[test]
fn each_gpu_holds_the_logged_share_of_the_experts() {
    let cases = [
        ("Qwen/Qwen3-30B-A3B", 4, 1, (32, 128)),
        ("deepseek-ai/DeepSeek-V3", 2, 1, (128, 256)),
        ("deepseek-ai/DeepSeek-V2-Lite", 2, 2, (16, 64)),
    ];
    for (model, tp, dp, logged) in cases {
        let p = plan(model, "h100", tp, dp, true);
        assert_eq!(local_experts(&p), logged, "{model} TP {tp} DP {dp}");
        let cap = p.capacity().unwrap();
        assert_eq!(cap.expert_parallel_size, (tp * dp) as u64);
        assert_eq!(cap.gpus, (tp * dp) as u64);
    }
    // 160 experts over 24 GPUs (DeepSeek-V2): 160 = 6 x 24 + 16, so the
    // first 16 ranks hold 7 (`determine_expert_map`); rank 0's figure.
    let p = plan("deepseek-ai/DeepSeek-V2", "h100", 8, 3, true);
    assert_eq!(local_experts(&p), (7, 160));
}

/// Qwen3-30B-A3B (bfloat16; hidden 2048, 48 layers, 128 experts of 768,
/// 32 query and 4 KV heads of 128, vocabulary 151,936 untied) at TP 2,
/// DP 2 with expert parallelism: 4 GPUs, 32 experts whole on each, the
/// rest split over the 2 GPUs of a replica. By hand, in bytes:
///   experts   48 x 32 x 3 x 2048 x 768 x 2          = 14,495,514,624
///   router    48 x 2048 x 128 x 2 (every GPU)         =     25,165,824
///   attention 48 x (2 x 2048 x 2048 + 2 x 2048 x 256) x 2 = 905,969,664
///   embedding + lm_head 2 x 75,968 x 2048 x 2          =    622,329,856
///   norms     (48 x (2 x 2048 + 2 x 128) + 2048) x 2   =        421,888
///   rotary cos/sin cache 40,960 x 128 x 2             =     10,485,760
///   total                                             = 16,059,887,616
/// Without expert parallelism the same GPUs split each expert's 768 over
/// TP x DP = 4 GPUs (`FusedMoEParallelConfig.make` flattens TP across
/// DP): the expert bytes are the same, 768 / 4 = 192 each of 128.
#[test]
fn weights_per_gpu_follow_the_placement_by_hand() {
    let ep = capacity("Qwen/Qwen3-30B-A3B", "h100", 2, 2, true);
    assert_eq!(ep.weights_bytes, 16_059_887_616);
    assert_eq!(ep.gpus, 4);
    assert_eq!(ep.data_parallel_size, 2);
    let p = plan("Qwen/Qwen3-30B-A3B", "h100", 2, 2, false);
    let moe = p
        .per_gpu
        .layers
        .iter()
        .find_map(|l| match l {
            Layer::Moe(e) => Some(*e),
            _ => None,
        })
        .unwrap();
    assert_eq!((moe.local_experts, moe.expert_intermediate), (128, 192));
    assert_eq!(p.capacity().unwrap().weights_bytes, ep.weights_bytes);
    // TP 2 alone: each expert split in two, or half the experts whole: the
    // same bytes either way.
    let tp = capacity("Qwen/Qwen3-30B-A3B", "h100", 2, 1, false);
    let tp_ep = capacity("Qwen/Qwen3-30B-A3B", "h100", 2, 1, true);
    assert_eq!(tp.weights_bytes, tp_ep.weights_bytes);
    assert!(ep.weights_bytes < tp.weights_bytes);
    // A dense model's replicas hold it whole, as one replica does.
    let one = capacity("Qwen/Qwen3-8B", "h100", 1, 1, false);
    let four = capacity("Qwen/Qwen3-8B", "h100", 1, 4, false);
    assert_eq!(one.weights_bytes, four.weights_bytes);
    assert_eq!(one.kv_cache_tokens, four.kv_cache_tokens);
    assert_eq!(four.gpus, 4);
}

/// vLLM refuses expert parallelism on a model without experts
/// (`ModelConfig._verify_with_expert_parallelism`, config/model.py) and
/// more local replicas than replicas (`ParallelConfig`, config/parallel.py).
#[test]
fn refused_setups_are_refused_as_vllm_refuses_them() {
    let r = Request {
        model: Some(hub("Qwen/Qwen3-8B")),
        gpu: Some("h100".to_string()),
        engine: EngineSettings {
            tensor_parallel_size: Some(2),
            enable_expert_parallel: Some(true),
            ..EngineSettings::default()
        },
        ..Request::default()
    };
    let e = r.resolve(&Fs).unwrap_err();
    assert!(e.message.contains("no experts"), "{e}");
    assert!(e
        .hint
        .as_deref()
        .unwrap_or("")
        .contains("--data-parallel-size"));
    let r = Request {
        model: Some(hub("Qwen/Qwen3-30B-A3B")),
        gpu: Some("h100".to_string()),
        engine: EngineSettings {
            data_parallel_size: Some(2),
            data_parallel_size_local: Some(4),
            ..EngineSettings::default()
        },
        ..Request::default()
    };
    let e = r.resolve(&Fs).unwrap_err();
    assert!(
        e.message.contains("must be <= data_parallel_size (2)"),
        "{e}"
    );
}

#[test]
fn a_launch_line_reads_the_short_forms_and_names_what_is_not_modelled() {
    let c = parse_vllm_command(
        "vllm serve deepseek-ai/DeepSeek-V3 -tp 8 -dp 2 -dpl 2 -ep --enable-eplb \
         --all2all-backend deepep_low_latency --data-parallel-address 10.0.0.1",
    )
    .unwrap();
    assert_eq!(c.settings.tensor_parallel_size, Some(8));
    assert_eq!(c.settings.data_parallel_size, Some(2));
    assert_eq!(c.settings.data_parallel_size_local, Some(2));
    assert_eq!(c.settings.enable_expert_parallel, Some(true));
    let not_modelled = |flag: &str| Warning::FlagNotModelled { flag: flag.into() };
    assert!(
        c.warnings.contains(&not_modelled("--enable-eplb")),
        "{:?}",
        c.warnings
    );
    assert!(
        c.warnings
            .contains(&not_modelled("--all2all-backend deepep_low_latency")),
        "{:?}",
        c.warnings
    );
    // Read and applied (the address of the data-parallel group changes no
    // figure), so no warning; and no flag unknown.
    let w: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
    assert!(
        !w.iter().any(|w| w.contains("data-parallel-address")),
        "{w:?}"
    );
    assert!(
        !c.warnings
            .iter()
            .any(|w| matches!(w, Warning::UnknownFlag { .. })),
        "{w:?}"
    );
}

/// A cell's requests spread over the replicas, each admitting its share into
/// its own KV cache: twice the replicas run twice the requests where one
/// replica's KV cache is the limit; the harness's budget is one replica's.
#[test]
fn a_cells_requests_spread_over_the_replicas() {
    let one = plan("Qwen/Qwen3-30B-A3B", "h100", 1, 1, true);
    let one_cap = one.capacity().unwrap();
    let two = plan("Qwen/Qwen3-30B-A3B", "h100", 1, 2, true);
    let two_cap = two.capacity().unwrap();
    let ctx = 32_768;
    let c = 4 * one_cap.kv_cache_tokens / ctx;
    // Distinct prompts: no shared prompt blocks, so the KV cache binds.
    let distinct = decodecalc_core::harness::Workload::Distinct;
    let p1 = Predictor::new(&one, &one_cap, one.calibration.params)
        .unwrap()
        .with_workload(distinct);
    let p2 = Predictor::new(&two, &two_cap, two.calibration.params)
        .unwrap()
        .with_workload(distinct);
    let v1 = p1.verdict(Phase::Decode, ctx, c);
    let v2 = p2.verdict(Phase::Decode, ctx, c);
    assert!(v1.admission.running < c);
    assert!(v2.admission.running > v1.admission.running);
    assert_eq!(v2.harness_budget_tokens, two_cap.kv_cache_tokens);
    // Odd requests: one replica takes one more.
    let v = p2.verdict(Phase::Decode, 1024, 7);
    assert_eq!(v.admission.running, 7);
    // What timing still leaves out: the other replicas' prefill stalls,
    // under data parallelism only (expert parallelism alone is priced).
    assert!(two
        .warnings
        .contains(&Warning::DataParallelMoeTiming { replicas: 2 }));
    assert!(!one
        .warnings
        .iter()
        .any(|w| matches!(w, Warning::DataParallelMoeTiming { .. })));
}
