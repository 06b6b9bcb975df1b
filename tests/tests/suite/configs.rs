//! Hugging Face config.json files of each supported family (fixtures written
//! from the published files; sources in tests/fixtures/configs/SOURCES.md):
//! parameter counts against the published ones, KV bytes per token, recurrent
//! state bytes and block sizes worked by hand.

use decodecalc_core::allocator::{GroupKind, KvLayout};
use decodecalc_core::engine::EngineSettings;
use decodecalc_core::presets::LoadedModel;
use decodecalc_core::quant::QuantMethod;
use decodecalc_core::scenario::loaded_from_config_json;

fn load(name: &str) -> LoadedModel {
    let path = format!(
        "{}/fixtures/configs/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    loaded_from_config_json(&path, &text).unwrap_or_else(|e| panic!("{e}"))
}

fn layout(m: &LoadedModel, kv_dtype: &str) -> KvLayout {
    let args = EngineSettings {
        kv_cache_dtype: Some(kv_dtype.into()),
        max_model_len: Some(4096),
        ..EngineSettings::default()
    }
    .resolve(m.model.max_position_embeddings, 80 << 30)
    .unwrap();
    KvLayout::new(&m.model, &args).unwrap()
}

#[test]
fn parameter_counts_match_the_published_ones_within_one_percent() {
    // Published totals (model cards; SOURCES.md says which were re-read).
    let published = [
        ("llama-3.1-8b", 8.03e9),
        ("mistral-7b-v0.3", 7.25e9),
        ("qwen2.5-7b", 7.61e9),
        ("qwen3-8b", 8.19e9),
        ("qwen3-30b-a3b", 30.5e9),
        ("mixtral-8x7b", 46.7e9),
        ("gemma-2-9b", 9.24e9),
        // 12.2 B with its 0.4 B vision tower; the fixture is the text model.
        ("gemma-3-12b", 11.77e9),
        ("gpt-oss-20b", 20.9e9),
        ("nemotron-nano-12b-v2", 12.31e9),
        ("nemotron-h-8b", 8.1e9),
        ("jamba-1.5-mini", 51.6e9),
        // Constructed from the reference table (SOURCES.md): 32 B published.
        ("granite-4.0-h-small", 32.0e9),
        // Constructed from a config sweep (SOURCES.md).
        ("falcon-h1-7b", 7.59e9),
        ("qwen3-next-80b-a3b", 80.0e9),
        // 671 B without the multi-token-prediction module vLLM does not load.
        ("deepseek-v3", 671e9),
    ];
    for (name, want) in published {
        let got = load(name).model.params() as f64;
        assert!(
            (got / want - 1.0).abs() < 0.01,
            "{name}: {got:.4e} vs {want:.4e}"
        );
    }
}

#[test]
fn kv_bytes_per_token_per_layer_by_family() {
    // (fixture, kv dtype, bytes per token per attention layer)
    let cases = [
        // 8 KV heads x 128 x 2 (K, V) x 2 B.
        ("llama-3.1-8b", "auto", 4_096),
        ("llama-3.1-8b", "fp8", 2_048),
        ("llama-3.1-8b", "int8_per_token_head", 8 * (256 + 8)),
        // 4 KV heads x 128.
        ("qwen2.5-7b", "auto", 2_048),
        // Gemma 3: 8 KV heads x 256.
        ("gemma-3-12b", "bfloat16", 8_192),
        // gpt-oss: 8 KV heads x 64.
        ("gpt-oss-20b", "auto", 2_048),
        // MLA: one latent of 512 + 64 elements.
        ("deepseek-v3", "auto", 1_152),
        ("deepseek-v3", "fp8", 576),
    ];
    for (name, dtype, bytes) in cases {
        let l = layout(&load(name), dtype);
        assert_eq!(
            l.attention_bytes_per_token_per_layer, bytes,
            "{name} {dtype}"
        );
    }
}

#[test]
fn sliding_windows_form_their_own_groups() {
    // Gemma 3 12B: 40 sliding (1,024) + 8 full layers -> groups of 8: 1 full + 5 sliding.
    let l = layout(&load("gemma-3-12b"), "auto");
    let sliding: Vec<_> = l
        .groups
        .iter()
        .filter(|g| g.kind == GroupKind::SlidingWindow)
        .collect();
    assert_eq!(sliding.len(), 5);
    assert!(sliding.iter().all(|g| g.window_tokens == Some(1_024)));
    assert_eq!(l.attention_groups(), 1);
    // gpt-oss-20b: 12 sliding (128) + 12 full: one group of 12 each.
    let l = layout(&load("gpt-oss-20b"), "auto");
    assert_eq!(l.group_size_layers, 12);
    assert_eq!(l.groups.len(), 2);
    // A 4,096-token request: 256 full blocks + min(256, 128/16 + 1 = 9).
    assert_eq!(l.request_blocks(4_096), 256 + 9);
}

#[test]
fn recurrent_state_and_hybrid_block_sizes() {
    // Jamba 1.5 Mini, Mamba1: intermediate 2 x 4,096; conv 8,192 x 3 x 2 B;
    // SSM 8,192 x 16 x 2 B (bf16 under auto).
    let l = layout(&load("jamba-1.5-mini"), "auto");
    assert_eq!(l.mamba_conv_state_bytes_per_layer, 49_152);
    assert_eq!(l.mamba_ssm_state_bytes_per_layer, 262_144);
    // 16 x ceil(311,296 / (16 x 8 x 256 x 2)) = 80 tokens.
    assert_eq!(l.block_size_tokens, 80);
    // Qwen3-Next gated DeltaNet: conv (2 x 16 x 128 + 32 x 128) x 3 x 2 B;
    // state 32 value heads x 128 x 128 x 2 B.
    let l = layout(&load("qwen3-next-80b-a3b"), "auto");
    assert_eq!(l.mamba_conv_state_bytes_per_layer, 49_152);
    assert_eq!(l.mamba_ssm_state_bytes_per_layer, 1_048_576);
    assert_eq!(l.block_size_tokens, 16 * 1_097_728u64.div_ceil(16 * 2_048));
    // Granite 4.0 H Small: Mamba2 128 x 64, one group, state 128, bf16:
    // conv (8,192 + 256) x 3 x 2 B + SSM 128 x 64 x 128 x 2 B; block 16 x 33.
    let l = layout(&load("granite-4.0-h-small"), "auto");
    assert_eq!(l.mamba_state_bytes_per_layer, 50_688 + 2_097_152);
    assert_eq!(l.block_size_tokens, 528);
    // Falcon-H1 7B: attention and Mamba2 in every layer, so 44 + 44 layers in
    // one attention group and one Mamba group; state conv (3,072 + 512) x 3 x 2 B
    // + SSM 24 x 128 x 256 x 2 B; block 16 x ceil(1,594,368 / (16 x 1,024)).
    let l = layout(&load("falcon-h1-7b"), "auto");
    assert_eq!(l.groups.len(), 2);
    assert_eq!(l.group_size_layers, 44);
    assert_eq!(l.mamba_state_bytes_per_layer, 21_504 + 1_572_864);
    assert_eq!(l.block_size_tokens, 1_568);
    // Nemotron-H 8B: Mamba2 128 heads x 64, state 128, fp32 SSM state under auto.
    let l = layout(&load("nemotron-h-8b"), "auto");
    assert_eq!(l.mamba_ssm_state_bytes_per_layer, 128 * 64 * 128 * 4);
}

#[test]
fn quantization_configs_are_read() {
    let oss = load("gpt-oss-20b");
    assert_eq!(oss.quant.method, QuantMethod::Mxfp4);
    assert!(
        oss.quant.unquantized.contains(&"attention".to_string()),
        "{:?}",
        oss.quant.unquantized
    );
    let ds = load("deepseek-v3");
    assert_eq!(ds.quant.method, QuantMethod::Fp8);
    assert_eq!(ds.quant.block, Some([128, 128]));
    let fp8 = load("llama-3.1-8b-fp8");
    assert_eq!(fp8.quant.method, QuantMethod::Fp8);
    // fp8 linear layers, embedding and lm_head at bf16: 6.98 B x 1 B + 2 x 1.05 B x 2 B.
    let bytes = decodecalc_core::memory::weights_bytes(&fp8.model, &fp8.quant) as f64;
    assert!((bytes / 9.08e9 - 1.0).abs() < 0.01, "{bytes}");
    // MXFP4 experts: 4.25 bits per weight; the rest bf16. About 13.8 GB.
    let bytes = decodecalc_core::memory::weights_bytes(&oss.model, &oss.quant) as f64;
    assert!((bytes / 13.76e9 - 1.0).abs() < 0.01, "{bytes}");
}

#[test]
fn bad_config_json_is_named() {
    let err = loaded_from_config_json(
        "c.json",
        "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 8,}",
    )
    .unwrap_err();
    assert!(err.message.starts_with("c.json:1:"), "{err}");
    let err =
        loaded_from_config_json("c.json", "{\"architectures\": [\"BertModel\"]}").unwrap_err();
    assert_eq!(
        err.message,
        "c.json: `BertModel` is an encoder-only model (vLLM serves it for embeddings or scoring, not generation)"
    );
    assert!(err.hint.unwrap().contains("DeepseekV3ForCausalLM"));
    let err = loaded_from_config_json("c.json", "{\"architectures\": [\"FooLM\"]}").unwrap_err();
    assert_eq!(err.message, "c.json: unknown model architecture `FooLM`");
}

#[test]
fn bitsandbytes_checkpoints_hold_half_a_byte_plus_their_absmaxes() {
    // Llama-3.1-8B's config with the quantization_config an unsloth
    // "bnb-4bit" checkpoint carries (nf4, double quantization).
    let path = format!(
        "{}/../data/hub/meta-llama--Llama-3.1-8B-Instruct.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["quantization_config"] = serde_json::json!({
        "quant_method": "bitsandbytes", "load_in_4bit": true, "load_in_8bit": false,
        "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true,
        "bnb_4bit_compute_dtype": "bfloat16", "llm_int8_skip_modules": null
    });
    let m = loaded_from_config_json("bnb.json", &v.to_string()).unwrap();
    assert_eq!(m.quant.method, QuantMethod::Bitsandbytes);
    let q = decodecalc_core::memory::weights_bytes(&m.model, &m.quant) as f64;
    let bf16 = decodecalc_core::memory::weights_bytes(
        &m.model,
        &decodecalc_core::quant::WeightQuant::none(),
    ) as f64;
    // Embedding, lm_head and the rope cache stay 16-bit; every linear weight
    // takes 0.5 B + 1 B per 64 + 4 B per 64 x 256 = 0.515869 B of its 2 B.
    let fixed = 2.0 * 128_256.0 * 4096.0 * 2.0 + 131_072.0 * 128.0 * 2.0;
    let norms = 65.0 * 4096.0 * 2.0;
    let ratio = (q - fixed - norms) / (bf16 - fixed - norms);
    assert!((ratio - 0.515_869 / 2.0).abs() < 1e-4, "{ratio}");
}

/// A config.json of the real corpus (`data/hub/`).
fn real(name: &str) -> LoadedModel {
    let path = format!("{}/../data/hub/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    loaded_from_config_json(&path, &text).unwrap_or_else(|e| panic!("{e}"))
}

/// Llama 4 (`mllama4.py`, `llama4.py`): the parameter totals worked by hand
/// in docs/reference/pending-architectures.md section 4, the layer pattern,
/// and the FP8 checkpoint's weights.
#[test]
fn llama_4_counts_its_text_model_and_vision_encoder() {
    // Shared: attention 5,120 x (40 + 8 + 8) x 128 + 40 x 128 x 5,120 =
    // 62,914,560 a layer, two norms 10,240; embedding and lm_head
    // 2 x 202,048 x 5,120 = 2,068,971,520; final norm 5,120. Vision encoder
    // 850,960,896 (34 layers of 23,807,872, patch 827,904, class 1,408,
    // 577 x 1,408 positions, pre/post LayerNorm 5,632, adapter 5,632 x 4,096
    // + 4,096 x 4,096) and projector 4,096 x 5,120 = 20,971,520.
    let shared = 48 * (62_914_560 + 10_240) + 2_068_971_520 + 5_120;
    let vision = 850_960_896 + 20_971_520;
    // Scout: 48 MoE layers of 16 x 3 x 5,120 x 8,192 experts, a shared
    // expert 3 x 5,120 x 8,192, a router 5,120 x 16: 2,139,176,960 each.
    let scout = shared + 48 * 2_139_176_960 + vision;
    assert_eq!(scout, 108_641_793_536);
    // Maverick: 24 MoE layers (128 experts: 16,232,611,840 each) and 24
    // dense ones of 3 x 5,120 x 16,384 = 251,658,240; its published
    // safetensors total (data/hub/published.csv) is 401,583,781,376.
    let maverick = shared + 24 * 16_232_611_840 + 24 * 251_658_240 + vision;
    assert_eq!(maverick, 401_583_781_376);
    let s = real("meta-llama--Llama-4-Scout-17B-16E-Instruct");
    assert_eq!(s.model.params(), scout);
    let m = real("meta-llama--Llama-4-Maverick-17B-128E-Instruct");
    assert_eq!(m.model.params(), maverick);
    assert!(!m.model.tie_word_embeddings);
    // Every fourth layer (3, 7, ..., 47) is NoPE global attention, the
    // other 36 chunked over 8,192 tokens; 8 KV heads of 128: 4,096 B a
    // token and layer in bf16.
    let attn: Vec<_> = s.model.attention_layers().collect();
    assert_eq!(attn.len(), 48);
    let global: Vec<usize> = attn
        .iter()
        .enumerate()
        .filter(|(_, a)| a.chunk_tokens.is_none())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(global, (3..48).step_by(4).collect::<Vec<_>>());
    assert!(attn
        .iter()
        .all(|a| a.chunk_tokens.is_none_or(|c| c == 8_192) && a.sliding_window_tokens.is_none()));
    assert_eq!(
        layout(&s, "auto").attention_bytes_per_token_per_layer,
        4_096
    );
    // Maverick alternates dense (even) and MoE (odd) layers.
    let ffn: Vec<bool> = m
        .model
        .layers
        .iter()
        .filter_map(|l| match l {
            decodecalc_core::model::Layer::Moe(_) => Some(true),
            decodecalc_core::model::Layer::Mlp(_) => Some(false),
            _ => None,
        })
        .collect();
    assert_eq!(ffn, (0..48).map(|i| i % 2 == 1).collect::<Vec<_>>());
    // The FP8 checkpoint: the same model; compressed-tensors fp8 per
    // channel on the experts and shared experts, while its ignore list
    // keeps attention, routers, lm_head and the vision encoder in bf16.
    let f = real("RedHatAI--Llama-4-Scout-17B-16E-Instruct-FP8-dynamic");
    assert_eq!(f.model.params(), scout);
    assert_eq!(f.quant.method, QuantMethod::Fp8);
    assert_eq!(f.quant.block, None);
    // (`vision_model.patch_embedding.linear` reads as an embedding, which
    // no method quantizes either.)
    assert_eq!(
        f.quant.unquantized,
        ["attention", "embed_tokens", "encoder", "lm_head"]
    );
    // Bytes: embedding and lm_head 2 x 2,068,971,520 / 2 x 2 B; attention
    // 48 x 62,914,560 x 2 B; norms and routers (496,640 + 48 x 81,920) x
    // 2 B; per MoE layer 17 expert-shaped MLPs of fp8 weights plus an fp32
    // scale per output channel: 2 x (41,943,040 + 32,768) + (41,943,040 +
    // 20,480) = 125,915,136; the encoder 871,932,416 x 2 B; the rotary
    // table 10,485,760 positions x 128 x 2 B.
    let bytes = 2_068_971_520 * 2
        + 48 * 62_914_560 * 2
        + (496_640 + 48 * 81_920) * 2
        + 48 * 17 * 125_915_136
        + 871_932_416 * 2
        + 10_485_760 * 128 * 2;
    assert_eq!(
        decodecalc_core::memory::weights_bytes(&f.model, &f.quant),
        bytes
    );
}

/// Laguna (`laguna.py`): per-layer head counts, the per-head output gate,
/// 30 sliding layers of 512 and 10 full ones, a dense first layer, and the
/// compressed-tensors FP8 block weights with their ignore list. No total is
/// published: the count is the one worked in
/// docs/reference/pending-architectures.md.
#[test]
fn laguna_has_per_layer_heads_gates_windows_and_fp8_blocks() {
    let m = real("poolside--Laguna-XS.2-FP8");
    // Full layers (48 heads): q 2,048 x 6,144, k and v 2,048 x 1,024, o
    // 6,144 x 2,048, g 2,048 x 48, q/k norms 256: 29,458,688; sliding
    // layers (64 heads): 37,880,064. Dense layer 0: 3 x 2,048 x 8,192. MoE
    // layers: 257 expert-shaped MLPs of 3 x 2,048 x 512, a router
    // 2,048 x 256 and its 256 biases: 808,976,640. Norms 80 x 2,048,
    // embedding and lm_head 2 x 100,352 x 2,048, final norm 2,048.
    let total = 10 * 29_458_688
        + 30 * 37_880_064
        + 3 * 2_048 * 8_192
        + 39 * 808_976_640
        + 80 * 2_048
        + 2 * 100_352 * 2_048
        + 2_048;
    assert_eq!(total, 33_442_617_088);
    assert_eq!(m.model.params(), total);
    let attn: Vec<_> = m.model.attention_layers().collect();
    let heads: Vec<u64> = attn.iter().map(|a| a.num_heads).collect();
    assert_eq!(
        heads,
        (0..40)
            .map(|i| if i % 4 == 0 { 48 } else { 64 })
            .collect::<Vec<_>>()
    );
    assert!(attn.iter().all(|a| a.head_gate && a.qk_norm));
    assert!(attn
        .iter()
        .all(|a| a.sliding_window_tokens == (a.num_heads == 64).then_some(512)));
    // Compressed-tensors fp8, one fp32 scale per 128 x 128 block; attention
    // (g_proj included), the router (`mlp.gate`) and lm_head stay bf16.
    assert_eq!(m.quant.method, QuantMethod::Fp8);
    assert_eq!(m.quant.block, Some([128, 128]));
    assert_eq!(m.quant.unquantized, ["attention", "lm_head"]);
    // Bytes: embedding and lm_head 2 x 100,352 x 2,048 x 2 B; attention
    // (10 x 29,458,432 + 30 x 37,879,808) x 2 B; norms, routers and their
    // biases (10,240 + 163,840 + 2,048 + 39 x (524,288 + 256)) x 2 B; the
    // dense MLP 3 x (16,777,216 + 64 x 16 x 4); per MoE layer 257 x 3 x
    // (1,048,576 + 4 x 16 x 4); the two rotary tables 262,144 x (128 + 64)
    // x 2 B (the full layers rotate half of each head).
    let bytes = 2 * 100_352 * 2_048 * 2
        + (10 * 29_458_432 + 30 * 37_879_808) * 2
        + (10_240 + 163_840 + 2_048 + 39 * (524_288 + 256)) * 2
        + 3 * (16_777_216 + 64 * 16 * 4)
        + 39 * 257 * 3 * (1_048_576 + 4 * 16 * 4)
        + 262_144 * (128 + 64) * 2;
    assert_eq!(bytes, 35_413_644_032);
    assert_eq!(
        decodecalc_core::memory::weights_bytes(&m.model, &m.quant),
        bytes
    );
    // KV groups (vLLM 0.32): buckets of 10 full and 30 sliding layers,
    // 30 >= 1.5 x 10, so groups of 10: one full, three windows of 512. With
    // 2,048 batched tokens twice in flight (async scheduling), a request of
    // 32,768 tokens reserves 2,048 full pages and per window
    // ceil(min(511 + 4,096, 32,768) / 16) + 1 = 289.
    let args = EngineSettings {
        max_model_len: Some(32_768),
        max_num_batched_tokens: Some(2_048),
        async_scheduling: Some(true),
        ..EngineSettings::default()
    }
    .resolve(m.model.max_position_embeddings, 80 << 30)
    .unwrap();
    let l = KvLayout::new(&m.model, &args).unwrap();
    assert_eq!(l.group_size_layers, 10);
    let windows: Vec<_> = l
        .groups
        .iter()
        .filter(|g| g.kind == GroupKind::SlidingWindow)
        .map(|g| g.window_tokens)
        .collect();
    assert_eq!(windows, vec![Some(512); 3]);
    assert_eq!(l.attention_groups(), 1);
    assert_eq!(l.attention_bytes_per_token_per_layer, 4_096);
    assert_eq!(l.max_pages_per_request(32_768), 2_048 + 3 * 289);
}

/// DeepSeek-V4's parameters from the config's shapes (vLLM 0.32
/// `vllm/models/deepseek_v4/`; the table in docs/reference/pending-
/// architectures.md): per layer the attention (`fused_wqa_wkv` h x
/// (q_lora plus 512), `wq_b` q_lora x H x 512, `wo_a` H x 512 x o_lora, `wo_b`
/// o_groups x o_lora x h, the two latent norms, one sink per head), a
/// compressor where r > 1 (`ape` r x coff x 512, `fused_wkv_wgate` h x 2 x
/// coff x 512, a norm of 512; coff 2 for r = 4), the indexer where r = 4
/// (`wq_b` q_lora x 64 x 128, `weights_proj` h x 64, a compressor of head
/// 128 with coff 2), the hyper-connections (2 x 24 x 4h + 2 x 27), two norms
/// of h; the MoE (experts and one shared expert of 3 x h x moe_inter, the
/// gate, a correction bias per expert or, in the first three layers, the
/// vocab x 6 hash table); embedding, lm_head, final norm, `hc_head`
/// (4 x 4h + 5). The MTP layer is not loaded without speculative decoding.
fn dsv4_params(
    (h, heads, q_lora, groups, experts, inter): (u64, u64, u64, u64, u64, u64),
    (n1, n4, n128): (u64, u64, u64),
) -> u64 {
    let (vocab, layers) = (129_280, n1 + n4 + n128);
    let attention = h * (q_lora + 512)
        + q_lora
        + 512
        + q_lora * heads * 512
        + heads * 512 * 1_024
        + groups * 1_024 * h
        + heads;
    let compressor = |r: u64, head: u64, coff: u64| r * coff * head + h * 2 * coff * head + head;
    let indexer = q_lora * 64 * 128 + h * 64 + compressor(4, 128, 2);
    let hc = 2 * 24 * 4 * h + 2 * 27;
    let moe = experts * 3 * h * inter + 3 * h * inter + experts * h;
    layers * (attention + hc + 2 * h + moe)
        + n4 * (compressor(4, 512, 2) + indexer)
        + n128 * compressor(128, 512, 1)
        + 3 * vocab * 6
        + (layers - 3) * experts
        + 2 * vocab * h
        + h
        + 4 * 4 * h
        + 5
}

/// DeepSeek-V4-Flash, -Pro and RedHatAI's NVFP4 build: parameters and
/// weight bytes in their three formats, worked from the configs by hand.
#[test]
fn deepseek_v4_counts_parameters_and_weights() {
    // Flash: h 4,096, 64 heads, q_lora 1,024, 8 output groups, 256 experts
    // of 2,048; 2 layers of r = 1 (compress_ratios 0), 21 of r = 4, 20 of
    // r = 128. Pro: h 7,168, 128 heads, q_lora 1,536, 16 groups, 384
    // experts of 3,072; 30 of r = 4, 31 of r = 128.
    let flash = dsv4_params((4_096, 64, 1_024, 8, 256, 2_048), (2, 21, 20));
    let pro = dsv4_params((7_168, 128, 1_536, 16, 384, 3_072), (0, 30, 31));
    assert_eq!(flash, 284_334_567_511);
    assert_eq!(pro, 1_572_999_528_803);
    // The model cards' totals, rounded: Flash "284B" (+0.12% here: it
    // leaves the MTP layer out), Pro "1.6T" (-1.7%; with its MTP layer,
    // 25,840,145,979 more, -0.07%).
    assert!((flash as f64 / 284e9 - 1.0).abs() < 0.002);
    assert!(((pro + 25_840_145_979) as f64 / 1.6e12 - 1.0).abs() < 0.001);
    let f = real("deepseek-ai--DeepSeek-V4-Flash");
    let p = real("deepseek-ai--DeepSeek-V4-Pro");
    let nv = real("RedHatAI--DeepSeek-V4-Flash-NVFP4-FP8");
    assert_eq!(f.model.params(), flash);
    assert_eq!(p.model.params(), pro);
    assert_eq!(nv.model.params(), flash);
    let ratios: Vec<Option<u64>> = f
        .model
        .attention_layers()
        .map(|a| a.mla.and_then(|m| m.dsv4).map(|v| v.compress_ratio))
        .collect();
    let mut expected = vec![Some(1), Some(1)];
    for i in 2..43 {
        expected.push(Some(if i % 2 == 0 { 4 } else { 128 }));
    }
    assert_eq!(ratios, expected);
    // The MTP layer: the sliding window only, no compressor, no indexer.
    let mtp = f.model.mtp.as_ref().unwrap();
    assert_eq!(mtp.count, 1);

    // Weights, deepseek_v4_fp8: linears fp8 with an fp32 scale per 128 x
    // 128 block, experts MXFP4 as vLLM 0.32's Mxfp4MoEMethod holds them
    // (4-bit values, uint8 scales padded to 256 rows x 4 per 32 inputs):
    // a 4,096 -> 2,048 expert matrix 2,048 x 2,048 + 2,048 x 128 =
    // 4,456,448 B, the 2,048 -> 4,096 one 4,096 x 1,024 + 4,096 x 64 the same;
    // 43 x 256 x 3 of them = 147,169,738,752 B. Attention linears per layer
    // 4,195,328 + 2,097,664 + 3 x 33,562,624 (q_a, kv_a, wq_b, wo_a, wo_b)
    // and the indexer's wq_b 8,390,656 on the 21 r = 4 layers:
    // 4,776,380,928 B. Shared experts 3 x 8,390,656 a layer: 1,082,394,624.
    // Embedding and lm_head 2 x 129,280 x 4,096 x 2 B; the 392,769,623
    // other parameters (norms, sinks, compressors, weights_proj, gates,
    // biases, hash tables, hyper-connections) at 2 B; two rotary tables of
    // 1,048,576 x 64 at 2 B.
    assert_eq!(f.quant.method, QuantMethod::Mxfp4);
    assert_eq!(f.quant.block, Some([128, 128]));
    let flash_bytes = 147_169_738_752
        + 4_776_380_928
        + 1_082_394_624
        + 2 * 129_280 * 4_096 * 2
        + 392_769_623 * 2
        + 2 * 1_048_576 * 64 * 2;
    assert_eq!(flash_bytes, 156_200_612_526);
    assert_eq!(
        decodecalc_core::memory::weights_bytes(&f.model, &f.quant),
        flash_bytes
    );
    // RedHatAI's build: the attention linears as above, the experts and
    // shared experts NVFP4 (half a byte, an fp8 scale per 16 inputs and a
    // 4-byte global scale per matrix): an expert 4,194,304 + 524,288 + 4 B
    // per matrix, 43 x 256 x 3 of them = 155,826,914,304; shared experts
    // 43 x 3 x 4,718,596 = 608,698,884.
    assert_eq!(nv.quant.method, QuantMethod::Nvfp4);
    assert_eq!(nv.quant.fp8_kinds, ["attention"]);
    assert_eq!(
        decodecalc_core::memory::weights_bytes(&nv.model, &nv.quant),
        flash_bytes - 147_169_738_752 - 1_082_394_624 + 155_826_914_304 + 608_698_884
    );
}

/// DeepSeek-V4-Flash's and -Pro's KV cache as vLLM 0.32 allocates it
/// (`allocator::dsv4`): every cache page worked from the config by hand.
#[test]
fn deepseek_v4_kv_caches_are_vllm_0_32_s_packed_groups() {
    let f = real("deepseek-ai--DeepSeek-V4-Flash");
    let p = real("deepseek-ai--DeepSeek-V4-Pro");
    // KV cache, fp8_ds_mla (auto), 256-token blocks. Pages, rounded up to
    // 576 B: a compressed latent 584 B, 256 / r per block: r = 4 37,376 ->
    // 37,440, r = 128 1,168 -> 1,728; the indexer's key 128 + 4 B, 64 per
    // block: 8,448 -> 8,640; the window's 64-token block of latents 37,376
    // -> 37,440; float32 compressor states of 2 x coff x head: r = 4
    // 4 x 8,192 -> 32,832, the indexer's 4 x 2,048 -> 8,640, r = 128
    // 8 x 4,096 -> 32,832.
    let args = |len: i64, dtype: &str| {
        EngineSettings {
            max_model_len: Some(len),
            max_num_batched_tokens: Some(8_192),
            async_scheduling: Some(true),
            kv_cache_dtype: Some(dtype.into()),
            ..EngineSettings::default()
        }
        .resolve(1_048_576, 141 << 30)
        .unwrap()
    };
    let l = KvLayout::new(&f.model, &args(131_072, "auto")).unwrap();
    // Buckets: 43 window caches; the 256-token caches (21 + 21 + 20, not
    // balanced: one group); the 4-token states (21 + 21); the 8-token
    // states (20). Repeats per group: the chunk from 21 up to 43 padding
    // 43, 21 and 20 least is 22 (pads 1 + 1 + 2), so the window caches
    // split in two groups of 22 and 21.
    let groups: Vec<(GroupKind, Option<u64>, u64, u64, u64)> = l
        .groups
        .iter()
        .map(|g| {
            (
                g.kind,
                g.window_tokens,
                g.block_tokens,
                g.layers,
                g.pages_bytes,
            )
        })
        .collect();
    let swa = |n: u64| (GroupKind::SlidingWindow, Some(128), 64, n, n * 37_440);
    assert_eq!(
        groups,
        vec![
            swa(22),
            swa(21),
            (
                GroupKind::FullAttention,
                None,
                256,
                62,
                21 * (8_640 + 37_440) + 20 * 1_728
            ),
            (
                GroupKind::SlidingWindow,
                Some(8),
                4,
                42,
                21 * (8_640 + 32_832)
            ),
            (GroupKind::SlidingWindow, Some(128), 8, 20, 20 * 32_832),
        ]
    );
    // A block is the widest group: 1,002,240 B, 3,915 B per token of
    // context (21 x (146.25 + 33.75) + 20 x 6.75).
    assert_eq!(l.bytes_per_block, 1_002_240);
    assert_eq!(l.bytes_per_block / 256, 3_915);
    // Pages a 131,072-token request may need with 2 x 8,192 tokens in
    // flight: windows 2 x (ceil(16,511 / 64) + 1) = 518, compressed
    // 131,072 / 256 = 512, states ceil(16,391 / 4) + 1 = 4,099 and
    // ceil(16,511 / 8) + 1 = 2,065.
    assert_eq!(l.max_pages_per_request(131_072), 518 + 512 + 4_099 + 2_065);
    // Every fp8 dtype is fp8_ds_mla; a 16-bit one is refused, as vLLM's
    // FlashMLA layout refuses it.
    let fp8 = KvLayout::new(&f.model, &args(131_072, "fp8")).unwrap();
    assert_eq!(
        (fp8.groups, fp8.bytes_per_block),
        (l.groups, l.bytes_per_block)
    );
    let e = KvLayout::new(&f.model, &args(131_072, "bfloat16")).unwrap_err();
    assert!(e.message.contains("--kv-cache-dtype"), "{e}");
    // The sparse MLA and indexer backends take 256-token blocks only, and
    // the output groups split with the heads: 8 groups over at most 8 GPUs.
    let mut small = args(131_072, "auto");
    small.block_size_tokens = Some(64);
    let e = KvLayout::new(&f.model, &small).unwrap_err();
    assert!(e.message.contains("--block-size"), "{e}");
    let e = f.model.shard(16).unwrap_err();
    assert!(e.message.contains("--tensor-parallel-size"), "{e}");
    assert_eq!(f.model.shard(8).unwrap().attention_layers().count(), 43);
    // Pro: windows 31 + 30 (repeats 31: pads 1 + 1 + 0), the 256-token
    // caches 30 x (8,640 + 37,440) + 31 x 1,728 = 1,435,968 B a block; its
    // first layer compresses 128 tokens, so the 8-token states come before
    // the 4-token ones.
    let l = KvLayout::new(&p.model, &args(131_072, "auto")).unwrap();
    let layers: Vec<u64> = l.groups.iter().map(|g| g.layers).collect();
    assert_eq!(layers, vec![31, 30, 91, 31, 60]);
    assert_eq!(l.bytes_per_block, 30 * (8_640 + 37_440) + 31 * 1_728);
}

/// vLLM 0.32 runs DeepSeek-V4's sparse MLA through FlashMLA, which
/// `is_flashmla_sparse_supported` (vllm/v1/attention/ops/flashmla.py) allows
/// on compute capability 9.0 and 10.x only (FlashInfer's class on 12.x):
/// an A100 or an L4 is refused as vLLM would fail, an AMD GPU as not
/// modelled, and `rank` leaves them out rather than failing.
#[test]
fn deepseek_v4_needs_a_gpu_flashmla_runs_on() {
    let base = [
        "capacity",
        "--model",
        "deepseek-ai/DeepSeek-V4-Flash",
        "--tensor-parallel-size",
        "8",
        "--gpu",
    ];
    for gpu in ["a100", "l4"] {
        let e = decodecalc_tests::rejects(&[&base[..], &[gpu]].concat(), "--gpu");
        assert!(e.contains("FlashMLA"), "{e}");
    }
    let e = decodecalc_tests::rejects(&[&base[..], &["mi300x"]].concat(), "--gpu mi300x");
    assert!(e.contains("ROCm"), "{e}");
    for gpu in ["h200", "b200", "rtx5090"] {
        let out = decodecalc_tests::run(&[&base[..], &[gpu]].concat());
        assert_eq!(out.code, 0, "{gpu}: {}", out.stderr);
    }
    let ranked = decodecalc_tests::json(&[
        "rank",
        "--model",
        "deepseek-ai/DeepSeek-V4-Flash",
        "--gpus",
        "a100,h200",
        "--context",
        "8K",
        "--concurrency",
        "4",
        "--format",
        "json",
    ]);
    let text = ranked.to_string();
    assert!(text.contains("h200") && !text.contains("a100"), "{text}");
    // Every fp8 KV dtype is V4's one fp8_ds_mla layout and its own sparse
    // MLA kernel: a per-token-head dtype changes neither the cache nor the
    // speed (it had selected the Triton kernel's timing).
    let speed = |dtype: &str| {
        let m = decodecalc_tests::json(&[
            "matrix",
            "--model",
            "deepseek-ai/DeepSeek-V4-Flash",
            "--gpu",
            "b200",
            "--kv-cache-dtype",
            dtype,
            "--contexts",
            "8K",
            "--concurrency",
            "4",
            "--format",
            "json",
        ]);
        let s = m.to_string();
        let at = s.find("\"per_request_tok_s\"").unwrap();
        s[at..at + 40].to_string()
    };
    assert_eq!(speed("auto"), speed("fp8_per_token_head"));
}

/// Issue 26: a checkpoint with several scheme groups is read group by
/// group, each module taking the scheme of the group whose targets match
/// its name (vLLM 0.32 `compressed_tensors.py` `get_scheme_dict`, `utils.py`
/// `find_matched_target`; `modelopt.py` `ModelOptMixedPrecisionConfig`).
/// The RTX 5090 sweep's checkpoint has no published config.json; its
/// recipe (tsarihan/qwen3.8-27b-uncensored-nvfp4-rtx5090-gb10-playbook
/// @84b7dbe, scripts/quantize_v3.py: `FP8_TARGETS`, `NVFP4_TARGETS`,
/// `IGNORE`, the FP8_DYNAMIC and NVFP4 preset schemes) written as the
/// `quantization_config` llm-compressor saves reads as the layout the model
/// preset states by hand, to the byte (23.42 GB with the bf16 MTP head and
/// the vision tower: `speculative_sweeps::a_per_layer_fp8_carve_out_gives_the_5090_checkpoint_its_size`).
#[test]
fn scheme_groups_are_read_module_by_module() {
    use decodecalc_core::quant::from_hf_config;
    let recipe = serde_json::json!({
        "quant_method": "compressed-tensors",
        "format": "mixed-precision",
        "config_groups": {
            "group_0": {
                "targets": [
                    "re:.*self_attn\\.(q|k|v|o)_proj$",
                    "re:.*linear_attn\\.(in_proj_qkv|in_proj_z|out_proj)$",
                    "re:.*lm_head",
                    "re:.*layers\\.(56|57|58|59|60|61|62|63)\\.mlp\\.(gate|up|down)_proj$"
                ],
                "weights": {"num_bits": 8, "type": "float", "strategy": "channel",
                            "symmetric": true, "dynamic": false},
                "input_activations": {"num_bits": 8, "type": "float", "strategy": "token",
                                      "dynamic": true}
            },
            "group_1": {
                "targets": ["re:.*mlp\\.(gate|up|down)_proj$"],
                "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group",
                            "group_size": 16, "symmetric": true, "dynamic": false},
                "input_activations": {"num_bits": 4, "type": "float",
                                      "strategy": "tensor_group", "group_size": 16,
                                      "dynamic": "local"}
            }
        },
        "ignore": [
            "re:^mtp.*", "re:.*visual.*", "re:.*linear_attn\\.in_proj_a$",
            "re:.*linear_attn\\.in_proj_b$", "re:.*linear_attn\\.norm$", "re:.*linear_attn$"
        ]
    });
    let read = from_hf_config(&recipe).unwrap();
    let mut r = decodecalc_core::scenario::Request {
        model: Some("qwen3.8-27b-uncensored-nvfp4-v3".into()),
        gpu: Some("rtx5090".into()),
        ..Default::default()
    };
    r.engine.max_model_len = Some(8192);
    let plan = r.resolve(&decodecalc_tests::Fs).unwrap();
    let preset = &plan.model.quant;
    assert_eq!(read.method, QuantMethod::Nvfp4);
    assert_eq!(read.fp8_layers, preset.fp8_layers);
    assert!(read.lm_head_quantized);
    for kind in ["attention", "mamba", "lm_head"] {
        assert!(
            read.fp8_kinds.iter().any(|k| k == kind),
            "{:?}",
            read.fp8_kinds
        );
    }
    assert!(read.unquantized.iter().any(|u| u == "in_proj_ba"));
    let model = &plan.model.model;
    let bytes = |q| decodecalc_core::memory::weights_bytes(model, q);
    assert_eq!(bytes(&read), bytes(preset), "{read:?}\n{preset:?}");
    // The same targets with the groups' order swapped: the whole-MLP
    // NVFP4 regex now comes first and matches layers 56-63 too, so there
    // is no carve-out (the first matching target wins).
    let mut swapped = recipe.clone();
    let groups = swapped["config_groups"].as_object_mut().unwrap();
    let g0 = groups.remove("group_0").unwrap();
    groups.insert("group_2".into(), g0);
    assert!(from_hf_config(&swapped).unwrap().fp8_layers.is_empty());

    // RedHatAI/DeepSeek-V4-Flash-NVFP4-FP8 (data/hub): fp8 attention with
    // 128 x 128 block scales, NVFP4 feed-forward, routed and shared
    // experts alike (`.*ffn.*` reaches both).
    let v4: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/../data/hub/RedHatAI--DeepSeek-V4-Flash-NVFP4-FP8.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    let q = from_hf_config(&v4["quantization_config"]).unwrap();
    assert_eq!(q.method, QuantMethod::Nvfp4);
    assert_eq!(q.fp8_kinds, ["attention"]);
    assert_eq!(q.block, Some([128, 128]));
    // No target names a recurrent layer (the model has none).
    assert_eq!(q.unquantized, ["mamba"]);

    // nvidia/Qwen3.6-27B-NVFP4 (ModelOpt MIXED_PRECISION, per-module
    // names): FP8 attention and Gated DeltaNet projections, NVFP4 MLP and
    // lm_head; in_proj_a / in_proj_b, named by no entry, stay bf16, 48
    // layers x 5,120 x 96 weights at 2 bytes instead of 1 (and a 4-byte
    // per-tensor scale): 23,592,768 B more than reading the whole
    // recurrent kind as FP8 did.
    let m = real("nvidia--Qwen3.6-27B-NVFP4");
    assert_eq!(m.quant.method, QuantMethod::Nvfp4);
    assert!(m.quant.lm_head_quantized);
    assert!(m.quant.unquantized.iter().any(|u| u == "in_proj_ba"));
    let mut kind_fp8 = m.quant.clone();
    kind_fp8.unquantized.retain(|u| u != "in_proj_ba");
    assert_eq!(
        decodecalc_core::memory::weights_bytes(&m.model, &m.quant)
            - decodecalc_core::memory::weights_bytes(&m.model, &kind_fp8),
        48 * (5120 * 96 * 2 - (5120 * 96 + 4))
    );
}
