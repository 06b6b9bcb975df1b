//! `--vllm-version`: one test per entry of `version::CHANGES`. Each runs the
//! same setup at the release before the change and at the change, and checks
//! that the figure the entry names differs as it says while the others stay.
//! A last test checks every entry of the table has a test here.

use decodecalc_core::allocator::MambaCacheMode;
use decodecalc_core::engine::EngineSettings;
use decodecalc_core::scenario::{Capacity, NoFiles, Plan, Request};
use decodecalc_core::version::{self, VllmVersion, CHANGES};
use decodecalc_tests::Fs;

fn plan(model: &str, gpu: &str, version: &str, engine: EngineSettings) -> Plan {
    Request {
        model: Some(model.into()),
        gpu: Some(gpu.into()),
        engine: EngineSettings {
            vllm_version: Some(version.into()),
            ..engine
        },
        calibration: Some("none".into()),
        ..Request::default()
    }
    .resolve(&Fs)
    .unwrap_or_else(|e| panic!("{model} on {gpu} at {version}: {e}"))
}

fn cap(p: &Plan) -> Capacity {
    p.capacity().unwrap()
}

fn at(model: &str, gpu: &str, before: &str, since: &str, engine: EngineSettings) -> (Plan, Plan) {
    (
        plan(model, gpu, before, engine.clone()),
        plan(model, gpu, since, engine),
    )
}

/// Pages one Mamba group reserves for a request of 8,192 tokens at start-up.
fn mamba_pages(l: &decodecalc_core::allocator::KvLayout) -> u64 {
    l.groups
        .iter()
        .find(|g| g.kind == decodecalc_core::allocator::GroupKind::Mamba)
        .map(|g| l.group_max_pages(g, 8192))
        .unwrap()
}

/// Fixed flags, so that only the release differs.
fn fixed() -> EngineSettings {
    EngineSettings {
        gpu_memory_utilization: Some(0.9),
        max_model_len: Some(8192),
        max_num_seqs: Some(256),
        max_num_batched_tokens: Some(2048),
        async_scheduling: Some(true),
        enable_prefix_caching: Some(true),
        ..EngineSettings::default()
    }
}

const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/hub/");

fn real(name: &str) -> String {
    format!("{REAL}{name}.json")
}

#[test]
fn kv_cache_memory_bytes_exists_from_0_10_2() {
    let engine = EngineSettings {
        kv_cache_memory_bytes: Some(10 << 30),
        ..fixed()
    };
    let r = Request {
        model: Some("llama-3.1-8b".into()),
        gpu: Some("h100-sxm".into()),
        engine: EngineSettings {
            vllm_version: Some("0.10.1".into()),
            ..engine.clone()
        },
        ..Request::default()
    }
    .resolve(&NoFiles);
    let e = r.err().unwrap();
    assert!(
        e.message.contains("no such flag (it exists from 0.10.2)"),
        "{e}"
    );
    let p = plan("llama-3.1-8b", "h100-sxm", "0.10.2", engine);
    assert_eq!(cap(&p).kv_pool_bytes, 10 << 30);
}

#[test]
fn capture_sizes_step_by_16_from_0_11_1() {
    let (a, b) = at("llama-3.1-8b", "h100-sxm", "0.11.0", "0.11.1", fixed());
    // max = min(2 x 256, 512, 2048) = 512: 1, 2, 4 and 8..512 by 8 (67 sizes);
    // then 8..248 by 8 and 256..512 by 16 (3 + 31 + 17 = 51).
    assert_eq!(a.estimate.cudagraphs.piecewise_graphs, 67);
    assert_eq!(b.estimate.cudagraphs.piecewise_graphs, 51);
    assert!(a.estimate.cudagraphs.capture_sizes.contains(&264));
    assert!(!b.estimate.cudagraphs.capture_sizes.contains(&264));
    assert_eq!(a.estimate.weights_bytes, b.estimate.weights_bytes);
}

/// Speculative decoding with k = 2 at eight sequences: the largest capture
/// size is 8 x 3 x 2 = 48 from 0.13 (16 before); from 0.29 the uniform
/// decode batches of 1, 2 and 4 requests of 3 tokens (3, 6, 12) join.
#[test]
fn capture_sizes_follow_the_draft_tokens_from_0_13_and_0_29() {
    let engine = EngineSettings {
        max_num_seqs: Some(8),
        speculative_config: Some(r#"{"method": "mtp", "num_speculative_tokens": 2}"#.into()),
        ..fixed()
    };
    let m = real("nvidia--Qwen3.6-27B-NVFP4");
    let sizes = |p: &Plan| p.estimate.cudagraphs.capture_sizes.clone();
    let (a, b) = at(&m, "rtx5090", "0.12.0", "0.13.0", engine.clone());
    assert_eq!(sizes(&a), [1, 2, 4, 8, 16]);
    assert_eq!(sizes(&b), [1, 2, 4, 8, 16, 24, 32, 40, 48]);
    let (c, d) = at(&m, "rtx5090", "0.28.0", "0.29.0", engine);
    assert_eq!(sizes(&c), sizes(&b));
    assert_eq!(sizes(&d), [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48]);
}

#[test]
fn async_scheduling_is_the_default_from_0_14() {
    let engine = EngineSettings {
        async_scheduling: None,
        ..fixed()
    };
    let (a, b) = at("llama-3.1-8b", "h100-sxm", "0.13.0", "0.14.0", engine);
    assert!(!a.engine.async_scheduling);
    assert!(b.engine.async_scheduling);
}

#[test]
fn the_request_is_rounded_up_from_0_14() {
    let (a, b) = at("llama-3.1-8b", "h100-sxm", "0.13.0", "0.14.0", fixed());
    let (a, b) = (cap(&a), cap(&b));
    // 85,017,755,648 B x 0.9 = 76,515,980,083.2: floor, then ceil.
    assert_eq!(a.total_bytes, 85_017_755_648);
    assert_eq!(a.requested_bytes, 76_515_980_083);
    assert_eq!(b.requested_bytes, 76_515_980_084);
}

/// Llama 4 Scout's 36 chunked local layers (chunks of 8,192) and 12 global
/// ones, on 4 H200s (2 KV heads of 128 per GPU: 1,024 B a token and layer
/// in bf16), 131,072-token requests, 8,192 batched tokens.
#[test]
fn chunked_local_layers_get_their_own_groups_from_0_14() {
    let engine = EngineSettings {
        max_model_len: Some(131_072),
        max_num_batched_tokens: Some(8_192),
        tensor_parallel_size: Some(4),
        ..fixed()
    };
    let scout = real("meta-llama--Llama-4-Scout-17B-16E-Instruct");
    let (a, b) = at(&scout, "h200", "0.13.0", "0.14.0", engine.clone());
    let newest = plan(&scout, "h200", "0.32.0", engine);
    let (a, b, newest) = (cap(&a), cap(&b), cap(&newest));
    use decodecalc_core::allocator::GroupKind;
    let kinds = |c: &Capacity| -> Vec<(GroupKind, Option<u64>, u64)> {
        c.layout
            .groups
            .iter()
            .map(|g| (g.kind, g.window_tokens, g.layers))
            .collect()
    };
    // 0.13: the hybrid KV-cache manager is off, so all 48 layers are full
    // attention in one group: 131,072 / 16 = 8,192 pages of 48 x 16 x
    // 1,024 B, 6,442,450,944 B a request.
    assert_eq!(kinds(&a), [(GroupKind::FullAttention, None, 48)]);
    assert_eq!(a.layout.max_pages_per_request(131_072), 8_192);
    assert_eq!(a.bytes_per_block, 786_432);
    // 0.14: buckets of 36 chunked and 12 full layers (36 >= 1.25 x 12):
    // groups of 12, three chunked and one full. A chunked group keeps
    // ceil(min(8,192 + 8,192, 131,072) / 16) = 1,024 pages: 8,192 + 3 x
    // 1,024 pages of 12 x 16 x 1,024 B, 2,214,592,512 B a request.
    let chunked = (GroupKind::ChunkedLocal, Some(8_192), 12);
    assert_eq!(
        kinds(&b),
        [
            chunked,
            chunked,
            chunked,
            (GroupKind::FullAttention, None, 12)
        ]
    );
    assert_eq!(b.layout.max_pages_per_request(131_072), 8_192 + 3 * 1_024);
    assert_eq!(b.bytes_per_block, 196_608);
    // 0.32: two batches in flight under async scheduling (0.26), so
    // ceil(min(8,192 + 16,384, 131,072) / 16) = 1,536 pages a chunked
    // group: 12,800 pages, 2,516,582,400 B a request.
    assert_eq!(kinds(&newest), kinds(&b));
    assert_eq!(
        newest.layout.max_pages_per_request(131_072),
        8_192 + 3 * 1_536
    );
    // A request takes 6,442,450,944 / 2,516,582,400 = 2.56 times less from
    // about the same pool: the 0.32 run holds more than twice the context.
    let per_request = |c: &Capacity| c.pool.kv_pool_bytes as f64 / c.max_concurrency;
    assert!((per_request(&a) / 6_442_450_944.0 - 1.0).abs() < 1e-3);
    assert!((per_request(&newest) / 2_516_582_400.0 - 1.0).abs() < 1e-3);
    assert!(
        newest.kv_cache_tokens > 2 * a.kv_cache_tokens,
        "{} vs {}",
        newest.kv_cache_tokens,
        a.kv_cache_tokens
    );
}

#[test]
fn utilization_defaults_to_0_92_from_0_20() {
    let engine = EngineSettings {
        gpu_memory_utilization: None,
        ..fixed()
    };
    let (a, b) = at("llama-3.1-8b", "h100-sxm", "0.19.1", "0.20.0", engine);
    assert_eq!(a.engine.gpu_memory_utilization, 0.9);
    assert_eq!(b.engine.gpu_memory_utilization, 0.92);
}

#[test]
fn the_cuda_graph_estimate_comes_off_the_budget_from_0_20() {
    // 0.20 also moves the capture sizes? No: only the budget term (0.20.1
    // adds max_num_batched_tokens as a size, which 2048 > 512 is not).
    let (a, b) = at("llama-3.1-8b", "h100-sxm", "0.19.1", "0.20.0", fixed());
    assert!(!a.estimate.cudagraph_in_budget && b.estimate.cudagraph_in_budget);
    assert_eq!(a.estimate.cudagraph_bytes, b.estimate.cudagraph_bytes);
    let (ca, cb) = (cap(&a), cap(&b));
    assert!(a.estimate.cudagraph_bytes > 256 << 20);
    assert_eq!(
        ca.kv_pool_bytes - cb.kv_pool_bytes,
        a.estimate.cudagraph_bytes
    );
}

#[test]
fn nemotron_h_ssm_state_is_float32_from_0_20() {
    // The preset's config.json names no mamba_ssm_cache_dtype.
    let (a, b) = at(
        "nemotron-nano-12b-v2-awq4",
        "rtx3090",
        "0.19.1",
        "0.20.0",
        fixed(),
    );
    let (la, lb) = (cap(&a).layout, cap(&b).layout);
    assert_eq!(la.mamba_ssm_dtype.unwrap().name(), "float16");
    assert_eq!(lb.mamba_ssm_dtype.unwrap().name(), "float32");
    assert_eq!(
        la.mamba_ssm_state_bytes_per_layer * 2,
        lb.mamba_ssm_state_bytes_per_layer
    );
    // A config that names it keeps it at every release.
    let named = real("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
    let (a, _) = at(&named, "h100-sxm", "0.19.1", "0.20.0", fixed());
    assert_eq!(cap(&a).layout.mamba_ssm_dtype.unwrap().name(), "float32");
}

#[test]
fn the_logged_kv_size_comes_from_concurrency_from_0_20_1() {
    let (a, b) = at(
        "nemotron-nano-12b-v2-awq4",
        "rtx3090",
        "0.20.0",
        "0.20.1",
        fixed(),
    );
    let (ca, cb) = (cap(&a), cap(&b));
    assert_eq!(ca.num_blocks, cb.num_blocks);
    let groups = ca.kv_groups.len() as u64;
    assert_eq!(groups, 6);
    assert_eq!(
        ca.kv_cache_tokens,
        ca.num_blocks / groups * ca.block_size_tokens
    );
    assert_eq!(
        cb.kv_cache_tokens,
        decodecalc_core::units::saturating_u64((cb.max_concurrency * 8192.0).floor())
    );
    assert_ne!(ca.kv_cache_tokens, cb.kv_cache_tokens);
}

#[test]
fn batch_limits_join_the_capture_sizes_from_0_20_1_and_0_31() {
    // A size that fits below the largest (512) and is no step of 8 or 16:
    // max_num_batched_tokens from 0.20.1, max_num_seqs from 0.31.
    for (seqs, tokens, size, before, since) in [
        (256, 300, 300, "0.20.0", "0.20.1"),
        (100, 2048, 100, "0.30.0", "0.31.0"),
    ] {
        let engine = EngineSettings {
            max_num_seqs: Some(seqs),
            max_num_batched_tokens: Some(tokens),
            ..fixed()
        };
        let (a, b) = at("llama-3.1-8b", "h100-sxm", before, since, engine);
        assert!(
            !a.estimate.cudagraphs.capture_sizes.contains(&size),
            "{since}"
        );
        assert!(
            b.estimate.cudagraphs.capture_sizes.contains(&size),
            "{since}"
        );
    }
}

#[test]
fn non_kv_counts_the_runner_buffers_from_0_27() {
    let (a, b) = at("llama-3.1-8b", "h100-sxm", "0.26.0", "0.27.0", fixed());
    // 2,048 tokens x (4,096 x 2 B + 16 B) of input buffers, and the non-torch
    // estimate instead of 0.19's logged 256 MiB.
    let input = 2048 * (4096 * 2 + 16);
    assert_eq!(
        b.estimate.non_torch_bytes - a.estimate.non_torch_bytes,
        input + (256 << 20)
    );
    assert_eq!(a.estimate.activation_bytes, b.estimate.activation_bytes);
}

#[test]
fn hybrid_models_cache_prefixes_by_default_from_0_26() {
    let engine = EngineSettings {
        enable_prefix_caching: None,
        ..fixed()
    };
    let (a, b) = at(
        "nemotron-nano-12b-v2-awq4",
        "rtx3090",
        "0.25.1",
        "0.26.0",
        engine.clone(),
    );
    assert!(!a.engine.enable_prefix_caching);
    assert!(b.engine.enable_prefix_caching);
    assert_eq!(cap(&a).layout.mamba_cache_mode, MambaCacheMode::None);
    assert_eq!(cap(&b).layout.mamba_cache_mode, MambaCacheMode::All);
    // A plain model caches prefixes in both.
    let (a, b) = at("llama-3.1-8b", "h100-sxm", "0.25.1", "0.26.0", engine);
    assert!(a.engine.enable_prefix_caching && b.engine.enable_prefix_caching);
}

#[test]
fn sliding_windows_reserve_two_batches_under_async_from_0_26() {
    let (a, b) = at("gemma-2-9b", "h100-sxm", "0.25.1", "0.26.0", fixed());
    assert_eq!(cap(&a).layout.in_flight_tokens, 2048);
    assert_eq!(cap(&b).layout.in_flight_tokens, 4096);
    // Gemma 2's 4,096-token window: min(4095 + 2048, 8192) = 6,143 tokens is
    // 384 blocks + 1; with 4,096 in flight the whole 8,192 (512 + 1).
    let pages =
        |c: &Capacity| c.layout.max_pages_per_request(8192) - c.layout.attention_groups() * 512;
    let (pa, pb) = (pages(&cap(&a)), pages(&cap(&b)));
    assert_eq!(pa, 385 * cap(&a).layout.groups.len() as u64 / 2);
    assert_eq!(pb, 513 * cap(&b).layout.groups.len() as u64 / 2);
}

#[test]
fn gpus_of_160_gib_get_16k_batched_tokens_from_0_28() {
    let engine = EngineSettings {
        max_num_seqs: None,
        max_num_batched_tokens: None,
        ..fixed()
    };
    let (a, b) = at("llama-3.1-8b", "b200", "0.27.1", "0.28.0", engine);
    assert_eq!(a.engine.max_num_batched_tokens, 8192);
    assert_eq!(b.engine.max_num_batched_tokens, 16_384);
    assert_eq!(a.engine.max_num_seqs, 1024);
}

#[test]
fn hybrid_prefix_caching_uses_align_mode_from_0_28() {
    let (a, b) = at(
        "nemotron-nano-12b-v2-awq4",
        "rtx3090",
        "0.27.1",
        "0.28.0",
        fixed(),
    );
    let (la, lb) = (cap(&a).layout, cap(&b).layout);
    assert_eq!(la.mamba_cache_mode, MambaCacheMode::All);
    assert_eq!(lb.mamba_cache_mode, MambaCacheMode::Align);
    // `all`: blocks a multiple of lcm(chunk_size 128, 16); align: of 16.
    assert_eq!(la.block_size_tokens % 128, 0);
    assert!(la.block_size_tokens >= lb.block_size_tokens);
    // `all` keeps a state page per block of the request, align two.
    assert_eq!(mamba_pages(&la), 8192_u64.div_ceil(la.block_size_tokens));
    assert_eq!(mamba_pages(&lb), 2);
}

#[test]
fn mamba2_reserves_a_checkpoint_page_from_0_32() {
    let pages = |p: &Plan| mamba_pages(&cap(p).layout);
    let (a, b) = at(
        "nemotron-nano-12b-v2-awq4",
        "rtx3090",
        "0.31.0",
        "0.32.0",
        fixed(),
    );
    assert_eq!((pages(&a), pages(&b)), (2, 3));
    // Gated DeltaNet layers (Qwen3-Next) have no checkpoint page.
    let (a, b) = at("qwen3-next-80b-a3b", "h200", "0.31.0", "0.32.0", fixed());
    assert_eq!((pages(&a), pages(&b)), (2, 2));
}

#[test]
fn kv_group_sizes_follow_the_release_s_ratio() {
    // Gemma 2 with 8 full-attention and 11 sliding-window layers (1.375x):
    // groups of the larger count from 0.18 (below 1.5x), of the smaller in
    // 0.12-0.17 (not below 1.25x); 8 and 9 layers (1.125x) group by 9 from
    // 0.12, by 8 before. (The rule alone: the allocator's unit test
    // `grouping_ratio_follows_the_release`.)
    let types = |full: usize, sliding: usize| {
        let mut t = vec!["\"full_attention\""; full];
        t.extend(vec!["\"sliding_attention\""; sliding]);
        format!(
            "{{\"num_hidden_layers\": {}, \"layer_types\": [{}]}}",
            full + sliding,
            t.join(", ")
        )
    };
    let size = |full, sliding, v: &str| {
        let engine = EngineSettings {
            hf_overrides: Some(types(full, sliding)),
            ..fixed()
        };
        cap(&plan("gemma-2-9b", "h100-sxm", v, engine))
            .layout
            .group_size_layers
    };
    assert_eq!((size(8, 11, "0.17.1"), size(8, 11, "0.18.0")), (8, 11));
    assert_eq!((size(8, 9, "0.11.2"), size(8, 9, "0.12.0")), (8, 9));
}

#[test]
fn hybrid_prefix_caching_reaches_mamba_from_0_11_1() {
    let (a, b) = at(
        "nemotron-nano-12b-v2-awq4",
        "rtx3090",
        "0.11.0",
        "0.11.1",
        fixed(),
    );
    assert_eq!(cap(&a).layout.mamba_cache_mode, MambaCacheMode::None);
    assert_eq!(cap(&b).layout.mamba_cache_mode, MambaCacheMode::All);
}

#[test]
fn mamba_cache_modes_arrive_in_0_15() {
    // Qwen3-Next's DeltaNet does not support `all`: before the modes its
    // states are not prefix-cached, from 0.15 it gets `align`.
    let (a, b) = at("qwen3-next-80b-a3b", "h200", "0.14.1", "0.15.0", fixed());
    assert_eq!(cap(&a).layout.mamba_cache_mode, MambaCacheMode::None);
    assert_eq!(cap(&b).layout.mamba_cache_mode, MambaCacheMode::Align);
}

#[test]
fn tree_attn_is_gone_from_0_21() {
    let engine = EngineSettings {
        attention_backend: Some("TREE_ATTN".into()),
        ..fixed()
    };
    let p = plan("llama-3.1-8b", "h100-sxm", "0.20.2", engine.clone());
    assert_eq!(p.engine.attention_backend.as_deref(), Some("TREE_ATTN"));
    let e = Request {
        model: Some("llama-3.1-8b".into()),
        gpu: Some("h100-sxm".into()),
        engine: EngineSettings {
            vllm_version: Some("0.21.0".into()),
            ..engine
        },
        ..Request::default()
    }
    .resolve(&NoFiles)
    .err()
    .unwrap();
    assert!(e.message.contains("TREE_ATTN"), "{e}");
    assert!(e.hint.unwrap().contains("not in that release"));
}

#[test]
fn kv_cache_dtypes_arrive_release_by_release() {
    for (dtype, before, since) in [
        ("bfloat16", "0.10.2", "0.11.0"),
        ("float16", "0.17.1", "0.18.0"),
        ("fp8_per_token_head", "0.19.1", "0.20.0"),
        ("int8_per_token_head", "0.19.1", "0.20.0"),
        ("int4_per_token_head", "0.24.0", "0.25.0"),
    ] {
        let engine = EngineSettings {
            kv_cache_dtype: Some(dtype.into()),
            ..fixed()
        };
        let refused = Request {
            model: Some("llama-3.1-8b".into()),
            gpu: Some("h100-sxm".into()),
            engine: EngineSettings {
                vllm_version: Some(before.into()),
                ..engine.clone()
            },
            ..Request::default()
        }
        .resolve(&NoFiles)
        .err()
        .unwrap_or_else(|| panic!("{dtype} accepted at {before}"));
        assert!(
            refused
                .hint
                .unwrap()
                .contains(&format!("exists from {since}")),
            "{dtype}"
        );
        plan("llama-3.1-8b", "h100-sxm", since, engine);
    }
}

#[test]
fn versions_outside_the_table_are_refused_with_the_range() {
    for bad in ["0.9.2", "0.34", "latest"] {
        let err = decodecalc_tests::rejects(
            &[
                "capacity",
                "--model",
                "llama-3.1-8b",
                "--gpu",
                "rtx3090",
                "--vllm-version",
                bad,
            ],
            "--vllm-version",
        );
        assert!(
            err.contains("0.10.0 to 0.33.0") || err.contains("such as 0.32.0"),
            "{err}"
        );
    }
}

#[test]
fn mxfp4_experts_follow_the_release_s_layout() {
    // gpt-oss-20b at TP 2: per GPU 32 experts x 24 layers of w13 [2,944 x
    // 2,880] and w2 [2,880 x 1,472]. 0.17-0.21 pad the values to 64 bytes,
    // 0.25 frees the checkpoint's scales, 0.26 pads the swizzled scales' K
    // to 4 groups. (The logged 0.19.0 figure is 7.01 GiB; this gives 6.957.)
    let weights = |v: &str| {
        let engine = EngineSettings {
            tensor_parallel_size: Some(2),
            ..fixed()
        };
        plan("gpt-oss-20b", "h100-sxm", v, engine)
            .estimate
            .weights_bytes
    };
    let e = 32 * 24;
    let padded = e * ((2944 * 1472) + (2880 * 768) - (2944 * 1440) - (2880 * 736));
    assert_eq!(weights("0.17.0") - weights("0.16.0"), padded);
    assert_eq!(weights("0.21.0") - weights("0.22.0"), padded);
    // The checkpoint's scales: 2,944 x 90 + 2,880 x 46 bytes per expert.
    assert_eq!(
        weights("0.24.0") - weights("0.25.0"),
        e * (2944 * 90 + 2880 * 46)
    );
    // K padded from 2 to 4 groups: 90 -> 92 and 46 -> 48 per swizzled row,
    // whose count is padded to 256 (2,944 and 2,880 both become 3,072).
    let k4 = weights("0.26.0") - weights("0.25.0");
    assert_eq!(k4, e * (3072 * 2 + 3072 * 2));
}

/// Every entry of `version::CHANGES` is named by a test above (by its
/// release), so the table and the tests cannot drift apart.
#[test]
fn every_change_has_a_test() {
    let me = include_str!("versions.rs");
    for c in CHANGES {
        let v = c.since;
        let tag = format!("\"{v}\"");
        assert!(me.contains(&tag), "no test runs {v} ({}); add one", c.what);
    }
    assert!(CHANGES.len() >= 18);
    assert!(CHANGES.windows(2).all(|w| w[0].since <= w[1].since));
    assert_eq!(version::MODELLED, VllmVersion::new(0, 32, 0));
}

/// The README's table of releases is `decodecalc presets --versions
/// --format markdown`.
#[test]
fn the_readme_table_is_the_version_table() {
    let out = decodecalc_tests::run(&["presets", "--versions", "--format", "markdown"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    assert!(
        readme.contains(&out.stdout),
        "README.md's vLLM releases table differs from `decodecalc presets --versions --format markdown`:\n{}",
        out.stdout
    );
}

/// Every output names the release it models.
#[test]
fn every_output_names_the_release() {
    let v = "0.26.0";
    let json = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--vllm-version", v, "--format", "json"]);
        decodecalc_tests::json(&all)
    };
    for out in [
        json(&["matrix"]),
        json(&["capacity"]),
        json(&["compare"]),
        json(&["solve", "--for", "max-concurrency", "--context", "16K"]),
        json(&["solve", "--for", "max-context", "--concurrency", "8"]),
        json(&[
            "bench-serve",
            "--model",
            "qwen3-8b",
            "--gpu",
            "h100",
            "--num-prompts",
            "10",
        ]),
    ] {
        assert_eq!(out["vllm_version"], v, "{out}");
    }
    let ranked = json(&[
        "rank",
        "--model",
        "qwen3-8b",
        "--context",
        "16K",
        "--concurrency",
        "8",
        "--gpus",
        "h100",
    ]);
    let rows = ranked["configurations"].as_array().unwrap();
    assert!(
        !rows.is_empty() && rows.iter().all(|r| r["vllm_version"] == v),
        "{ranked}"
    );
}

#[test]
fn bench_serve_rescales_its_arrivals_from_0_10_0() {
    use decodecalc_core::arrivals::{schedule, Pacing};
    let old = VllmVersion::parse("t", "0.9.2").unwrap();
    let new = VllmVersion::parse("t", "0.10.0").unwrap();
    // 100 requests at 5 per second, seed 0: the same numpy draws either way.
    let a = schedule(100, 5.0, 1.0, 0, Pacing::of(old));
    let b = schedule(100, 5.0, 1.0, 0, Pacing::of(new));
    // Through 0.9.2 the first goes at once and the run lasts the draws'
    // sum, 18.37 s; from 0.10.0 the first waits its gap and the last is due
    // at exactly 100 / 5 = 20 s.
    assert_eq!(a.due_s[0], 0.0);
    assert!((a.end_s - 18.37296826295015).abs() < 1e-9);
    assert!(b.due_s[0] > 0.0);
    assert!((b.end_s - 20.0).abs() < 1e-12);
}

/// Qwen3-VL's multimodal profile item before and from 0.13.0 (issue 26;
/// the RTX 3090 log of `other_public_logs_at_their_own_release`, vLLM
/// 0.11.0: "Encoder cache will be initialized with a budget of 153600
/// tokens, and profiled with 1 video items of the maximum feature size").
/// Up to 0.12.0 `qwen3_vl.py::get_max_video_tokens` counts each of the
/// video's 12,288 soft tokens as 12.5 (its timestamp text), so the video
/// outranks the 16,384-token image, and `profile_run` copies the 12,288
/// output rows into zeros of the 153,600-row budget; from 0.13.0 the video
/// counts 12,288 and the image is the item, its output cached as it is.
#[test]
fn qwen3_vl_profiles_a_padded_video_item_before_0_13() {
    use decodecalc_core::multimodal::{profile, VisionTower};
    let model = format!(
        "{}/fixtures/configs/qwen3-vl-30b-a3b-instruct.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let engine = EngineSettings {
        tensor_parallel_size: Some(4),
        max_model_len: Some(65_536),
        ..fixed()
    };
    let (a, b) = at(&model, "rtx3090", "0.12.0", "0.13.0", engine);
    let tower = VisionTower::from_config(&a.model.config, 2048).unwrap();
    let old = profile(&tower, &a.engine, 2).unwrap();
    let new = profile(&tower, &b.engine, 2).unwrap();
    assert_eq!(
        (old.modality, old.items, old.tokens_per_item),
        ("video", 1, 153_600)
    );
    assert_eq!(
        (new.modality, new.items, new.tokens_per_item),
        ("image", 1, 16_384)
    );
    // Kept: the pixel values (patches x 3 x 2 x 16 x 16 in bf16) and the
    // outputs, 2,048 x (1 + 3 deepstack) = 8,192 wide in bf16: the padded
    // 153,600 rows and the last unpadded output before, 16,384 rows after.
    let row = 8_192 * 2;
    assert_eq!(
        old.kept_bytes,
        49_152 * 1_536 * 2 + (153_600 + 12_288) * row
    );
    assert_eq!(new.kept_bytes, 65_536 * 1_536 * 2 + 16_384 * row);
    assert!(a.estimate.activation_bytes > b.estimate.activation_bytes + (2 << 30));
}
