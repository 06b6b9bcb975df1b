//! The attention block size and Mamba page padding vLLM 0.32 logs for each
//! hybrid family, worked by hand from the real config.json files
//! (`data/hub/`) with vLLM's rule
//! (`vllm/platforms/interface.py`, `_align_hybrid_block_size`):
//! N = 16 * ceil(state / (16 * attention bytes per token)) for the 16-token
//! kernel block, the Mamba page padded to N * attention bytes per token, and
//! "Padding mamba page size by {100 * (page - state) / state:.2f}%".
//! Defaults throughout: `--kv-cache-dtype auto` (bf16), TP 1, no --block-size.

use decodecalc_core::allocator::KvLayout;
use decodecalc_core::engine::EngineSettings;
use decodecalc_core::model::Model;
use decodecalc_core::scenario::loaded_from_config_json;

/// A config.json of `tests/fixtures/configs/`, or of the real corpus
/// (`data/hub/`) for `real/...`.
fn load(rel: &str) -> Model {
    let path = match rel.strip_prefix("real/") {
        Some(file) => format!("{}/../data/hub/{file}", env!("CARGO_MANIFEST_DIR")),
        None => format!("{}/fixtures/configs/{rel}", env!("CARGO_MANIFEST_DIR")),
    };
    let text = std::fs::read_to_string(&path).unwrap();
    loaded_from_config_json(rel, &text)
        .unwrap_or_else(|e| panic!("{e}"))
        .model
}

/// The KV layout at max_model_len 4096, with an optional `--block-size`.
fn layout_of(model: &Model, block_size: Option<i64>) -> KvLayout {
    let args = EngineSettings {
        max_model_len: Some(4096),
        block_size,
        ..EngineSettings::default()
    }
    .resolve(model.max_position_embeddings, 80 << 30)
    .unwrap();
    KvLayout::new(model, &args).unwrap()
}

fn layout(file: &str) -> KvLayout {
    layout_of(&load(&format!("real/{file}")), None)
}

/// (file, conv state B, SSM state B, attention B/token, block N, logged %)
/// per layer, each worked out in the comment above its row.
const CASES: [(&str, u64, u64, u64, u64, &str); 7] = [
    // Granite 4.0-H Small: Mamba2 of 128 heads x 64, one group, state 128:
    // conv 3 x (8,192 + 2*128) x 2; SSM 128 x 64 x 128 x 2 (bf16); KV 2*8*128*2.
    // N = 16 * ceil(2,147,840 / 65,536) = 16 * 33; pad 14,848 / 2,147,840.
    (
        "ibm-granite--granite-4.0-h-small.json",
        50_688,
        2_097_152,
        4_096,
        528,
        "0.69",
    ),
    // Jamba v0.1: Mamba1 of 2 x 4,096 channels, state 16: conv 8,192 x 3 x 2;
    // SSM 8,192 x 16 x 2; KV 2*8*128*2. N = 16 * ceil(311,296 / 65,536) =
    // 16 * 5; pad 16,384 / 311,296.
    (
        "ai21labs--Jamba-v0.1.json",
        49_152,
        262_144,
        4_096,
        80,
        "5.26",
    ),
    // Qwen3.5-27B: conv (4-1) x (2*16*128 + 48*128) x 2 B; DeltaNet state
    // 48 x 128 x 128 in float32 (the config's mamba_ssm_dtype); KV 2*4*256*2.
    // N = 16 * ceil(3,207,168 / 65,536) = 16 * 49; pad 4,096 / 3,207,168.
    (
        "Qwen--Qwen3.5-27B.json",
        61_440,
        3_145_728,
        4_096,
        784,
        "0.13",
    ),
    // Qwen3.5-35B-A3B: conv 3 x (4,096 + 4,096) x 2; state 32 x 128 x 128 x 4;
    // KV 2*2*256*2. N = 16 * ceil(2,146,304 / 32,768) = 16 * 66; pad 16,384.
    (
        "Qwen--Qwen3.5-35B-A3B.json",
        49_152,
        2_097_152,
        2_048,
        1_056,
        "0.76",
    ),
    // Qwen3-Next-80B-A3B: the same DeltaNet, state in bf16 (no
    // mamba_ssm_dtype). N = 16 * ceil(1,097,728 / 32,768) = 16 * 34; pad 16,384.
    (
        "Qwen--Qwen3-Next-80B-A3B-Thinking.json",
        49_152,
        1_048_576,
        2_048,
        544,
        "1.49",
    ),
    // Nemotron-3 Nano 30B-A3B: conv 3 x (64*64 + 2*8*128) x 2; SSM 64 x 64 x
    // 128 x 4 (float32); KV 2*2*128*2. N = 16 * ceil(2,134,016 / 16,384) =
    // 16 * 131; pad 12,288 / 2,134,016.
    (
        "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json",
        36_864,
        2_097_152,
        1_024,
        2_096,
        "0.58",
    ),
    // Nemotron-H-56B: conv 3 x (256*64 + 2*8*256) x 2; SSM 256 x 64 x 256 x 4;
    // KV 2*8*128*2. N = 16 * ceil(16,900,096 / 65,536) = 16 * 258; pad 8,192.
    (
        "nvidia--Nemotron-H-56B-Base-8K.json",
        122_880,
        16_777_216,
        4_096,
        4_128,
        "0.05",
    ),
];

#[test]
fn block_size_and_padding_are_the_ones_vllm_logs() {
    for (file, conv, ssm, attn, block, pct) in CASES {
        let l = layout(file);
        assert_eq!(l.mamba_conv_state_bytes_per_layer, conv, "{file}");
        assert_eq!(l.mamba_ssm_state_bytes_per_layer, ssm, "{file}");
        assert_eq!(l.attention_bytes_per_token_per_layer, attn, "{file}");
        assert_eq!(l.block_size_tokens, block, "{file}");
        assert_eq!(l.page_bytes, block * attn, "{file}");
        assert_eq!(
            l.block_size_log_line(16).unwrap(),
            format!("Setting attention block size to {block} tokens to ensure that attention page size is >= mamba page size."),
            "{file}"
        );
        assert_eq!(
            l.mamba_padding_log_line().unwrap(),
            format!("Padding mamba page size by {pct}% to ensure that mamba page size and attention page size are exactly equal."),
            "{file}"
        );
    }
}

#[test]
fn a_larger_block_size_flag_becomes_the_alignment_step() {
    // --block-size 800 on Qwen3.5-27B: the step is 800 tokens, so
    // N = 800 * ceil(3,207,168 / (800 * 4,096)) = 800 (3,276,800 B >= state).
    let l = layout_of(&load("real/Qwen--Qwen3.5-27B.json"), Some(800));
    assert_eq!(l.block_size_tokens, 800);
    assert_eq!(l.block_size_log_line(800), None);
    // (3,276,800 - 3,207,168) / 3,207,168 = 2.17%.
    assert_eq!(
        l.mamba_padding_log_line().unwrap(),
        "Padding mamba page size by 2.17% to ensure that mamba page size and attention page size are exactly equal."
    );
}

#[test]
fn gemma_4_global_layers_get_proportionally_larger_blocks() {
    use decodecalc_core::allocator::GroupKind;
    // gemma-4-26B-A4B: 25 sliding layers of 8 KV heads x 256 (2*8*256*2 =
    // 8,192 B/token), 5 full layers of 2 global KV heads x 512 (4,096
    // B/token). vLLM unifies the pages: the full layers' block is 16 x
    // 8,192 / 4,096 = 32 tokens, every page 16 x 8,192 = 131,072 B. Buckets
    // of 25 and 5 layers: group size 5, so 5 sliding groups and 1 full group.
    let l = layout("google--gemma-4-26B-A4B.json");
    assert_eq!(l.attention_bytes_per_token_per_layer, 8_192);
    assert_eq!(l.block_size_tokens, 16);
    assert_eq!(l.page_bytes, 131_072);
    assert_eq!(l.group_size_layers, 5);
    let full: Vec<_> = l
        .groups
        .iter()
        .filter(|g| g.kind == GroupKind::FullAttention)
        .collect();
    assert_eq!(full.len(), 1);
    assert_eq!((full[0].block_tokens, full[0].bytes_per_token), (32, 4_096));
    let sliding = l
        .groups
        .iter()
        .filter(|g| g.kind == GroupKind::SlidingWindow)
        .count();
    assert_eq!(sliding, 5);
    // A request of 4,096 tokens: 128 blocks of 32 in the full group, at most
    // ceil(1,024 / 16) + 1 = 65 in each sliding group.
    assert_eq!(l.request_blocks(4_096), 128 + 5 * 65);
}

#[test]
fn gemma_4_kv_shared_layers_hold_no_cache() {
    use decodecalc_core::allocator::GroupKind;
    // An E2B-shaped text model (no audio tower): 35 layers, four sliding to
    // one full, the last 20 reuse earlier layers' KV. The 15 layers with a
    // cache are 12 sliding (1 x 256 x 2 x 2 = 1,024 B/token) and 3 full
    // (1 x 512 x 2 x 2 = 2,048 B/token): the full layers set the page
    // (16 x 2,048), the sliding ones get 32-token blocks; buckets of 12 and
    // 3 make 4 sliding groups and 1 full group of 3 layers.
    let types: Vec<&str> = (0..35)
        .map(|i| {
            if i % 5 == 4 {
                "full_attention"
            } else {
                "sliding_attention"
            }
        })
        .collect();
    let config = serde_json::json!({
        "architectures": ["Gemma4ForConditionalGeneration"],
        "text_config": {
            "hidden_size": 1536, "num_hidden_layers": 35, "num_attention_heads": 8,
            "num_key_value_heads": 1, "head_dim": 256, "global_head_dim": 512,
            "intermediate_size": 6144, "use_double_wide_mlp": true,
            "num_kv_shared_layers": 20, "sliding_window": 512, "layer_types": types,
            "hidden_size_per_layer_input": 256, "vocab_size_per_layer_input": 262144,
            "vocab_size": 262144, "max_position_embeddings": 131072
        },
        "vision_config": {
            "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 16,
            "patch_size": 16, "head_dim": 64, "position_embedding_size": 10240
        }
    });
    let m = loaded_from_config_json("e2b.json", &config.to_string()).unwrap();
    let l = layout_of(&m.model, None);
    assert_eq!(l.page_bytes, 16 * 2_048);
    let layers = |k| -> u64 {
        l.groups
            .iter()
            .filter(|g| g.kind == k)
            .map(|g| g.layers)
            .sum()
    };
    assert_eq!(layers(GroupKind::SlidingWindow), 12);
    assert_eq!(layers(GroupKind::FullAttention), 3);
    assert!(l
        .groups
        .iter()
        .filter(|g| g.kind == GroupKind::SlidingWindow)
        .all(|g| g.block_tokens == 32));
    // Weights: the per-layer embedding table alone is 262,144 x 35 x 256.
    let ple = m
        .model
        .modules()
        .into_iter()
        .find(|x| x.name == "embed_tokens_per_layer")
        .unwrap();
    assert_eq!(ple.params(), 262_144 * 35 * 256);
    // Shared layers have no k/v projections and a double-wide MLP.
    let k_proj: u64 = m
        .model
        .modules()
        .iter()
        .filter(|x| x.name == "k_proj")
        .map(|x| x.count)
        .sum();
    assert_eq!(k_proj, 15);
}

#[test]
fn falcon_h1_block_size_from_its_reconstructed_fixture() {
    // No verbatim Falcon-H1 config.json was found; the fixture in
    // tests/fixtures/configs/ holds the published dimensions (SOURCES.md
    // there). Mamba2 of 24 heads x 128, one group, state 256: conv 3 x
    // (3,072 + 2*256) x 2 = 21,504; SSM 24 x 128 x 256 x 2 = 1,572,864; KV
    // 2*2*128*2 = 1,024. N = 16 * ceil(1,594,368 / 16,384) = 16 * 98; pad
    // 11,264 / 1,594,368 = 0.71%.
    let l = layout_of(&load("falcon-h1-7b.json"), None);
    assert_eq!(
        (
            l.mamba_conv_state_bytes_per_layer,
            l.mamba_ssm_state_bytes_per_layer
        ),
        (21_504, 1_572_864)
    );
    assert_eq!(l.block_size_tokens, 1_568);
    assert_eq!(
        l.mamba_padding_log_line().unwrap(),
        "Padding mamba page size by 0.71% to ensure that mamba page size and attention page size are exactly equal."
    );
}
