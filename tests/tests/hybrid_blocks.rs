//! The attention block size and Mamba page padding vLLM 0.32 logs for each
//! hybrid family, worked by hand from the real config.json files
//! (`tests/fixtures/configs/real/`) with vLLM's rule
//! (`vllm/platforms/interface.py`, `_align_hybrid_block_size`):
//! N = 16 * ceil(state / (16 * attention bytes per token)) for the 16-token
//! kernel block, the Mamba page padded to N * attention bytes per token, and
//! "Padding mamba page size by {100 * (page - state) / state:.2f}%".
//! Defaults throughout: `--kv-cache-dtype auto` (bf16), TP 1, no --block-size.

// Tests assert by panicking; the workspace's no-panic lints are for the product.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use decodecalc_core::allocator::KvLayout;
use decodecalc_core::engine::EngineSettings;
use decodecalc_core::scenario::loaded_from_config_json;

fn layout(file: &str) -> KvLayout {
    let path = format!(
        "{}/fixtures/configs/real/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let m = loaded_from_config_json(file, &text).unwrap_or_else(|e| panic!("{e}"));
    let args = EngineSettings {
        max_model_len: Some(4096),
        ..EngineSettings::default()
    }
    .resolve(m.model.max_position_embeddings, 80 << 30)
    .unwrap();
    KvLayout::new(&m.model, &args).unwrap()
}

/// (file, conv state B, SSM state B, attention B/token, block N, logged %)
/// per layer, each worked out in the comment above its row.
const CASES: [(&str, u64, u64, u64, u64, &str); 5] = [
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
    let path = format!(
        "{}/fixtures/configs/real/Qwen--Qwen3.5-27B.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let m = loaded_from_config_json("q", &std::fs::read_to_string(path).unwrap()).unwrap();
    let args = EngineSettings {
        max_model_len: Some(4096),
        block_size: Some(800),
        ..EngineSettings::default()
    }
    .resolve(m.model.max_position_embeddings, 80 << 30)
    .unwrap();
    let l = KvLayout::new(&m.model, &args).unwrap();
    assert_eq!(l.block_size_tokens, 800);
    assert_eq!(l.block_size_log_line(800), None);
    // (3,276,800 - 3,207,168) / 3,207,168 = 2.17%.
    assert_eq!(
        l.mamba_padding_log_line().unwrap(),
        "Padding mamba page size by 2.17% to ensure that mamba page size and attention page size are exactly equal."
    );
}
