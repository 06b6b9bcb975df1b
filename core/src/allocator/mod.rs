//! vLLM 0.32's KV-cache allocator: page sizes, the hybrid block-size alignment,
//! layer grouping, the number of blocks, the figures the server logs, and how
//! many blocks a request holds.
//!
//! Every rule here restates docs/reference/vllm-memory-model.md sections
//! 2 and 3 (read from vLLM 0.32's `platforms/interface.py`,
//! `v1/core/kv_cache_utils.py` and the v1 scheduler).
//!
//! One file a concept: `layout` (page sizes, the hybrid block-size
//! alignment, layer grouping: [`KvLayout::new`]), `blocks` (the pages and
//! blocks a group and a request hold), `dsv4` (DeepSeek-V4's caches and
//! vLLM's packed grouping of caches of several page sizes), `pool` (the memory budget, the number
//! of blocks and the logged figures: [`KvPool`]) and `admission` (how many
//! requests run at once: [`admit`]).

mod admission;
mod blocks;
mod dsv4;
mod layout;
mod pool;

pub use crate::version::MambaCacheMode;
pub use admission::{admit, Admission, RunningLimit};
pub use dsv4::check_gpu as check_dsv4_gpu;
pub use dsv4::check_kv_dtype as check_dsv4_kv_dtype;
pub use layout::{GroupKind, KvGroup, KvLayout};
pub use pool::{requested_bytes, KvPool};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EngineArgs, EngineSettings};
    use crate::presets;
    use approx::assert_relative_eq;

    pub(super) const RTX3090_BYTES: u64 = 25_438_126_080;

    pub(super) fn engine(settings: EngineSettings, max_pos: u64) -> EngineArgs {
        settings.resolve(max_pos, RTX3090_BYTES).unwrap()
    }

    /// docs/reference/vllm-memory-model.md section 6, step by step.
    #[test]
    fn worked_example_nemotron_nano_12b_v2_int4() {
        let model = presets::model("nemotron-nano-12b-v2-awq4").unwrap().model;
        let args = engine(
            EngineSettings {
                kv_cache_dtype: Some("int4_per_token_head".into()),
                gpu_memory_utilization: Some(0.94),
                max_model_len: Some(131_072),
                max_num_seqs: Some(128),
                ..EngineSettings::default()
            },
            model.max_position_embeddings,
        );
        let l = KvLayout::new(&model, &args).unwrap();
        assert_eq!(l.attention_bytes_per_token_per_layer, 1_088); // 8 x (128 + 8)
        assert_eq!(l.mamba_conv_state_bytes_per_layer, 73_728); // 12,288 x 3 x 2
        assert_eq!(l.mamba_ssm_state_bytes_per_layer, 5_242_880); // 128 x 80 x 128 x 4
        assert_eq!(l.mamba_state_bytes_per_layer, 5_316_608);
        assert_eq!(l.block_size_tokens, 4_896); // 16 x ceil(5,316,608 / 17,408)
        assert_eq!(l.page_bytes, 5_326_848);
        assert_eq!(l.group_size_layers, 6);
        assert_eq!(l.attention_groups(), 1);
        assert_eq!(l.mamba_groups(), 5);
        let sizes: Vec<u64> = l.groups.iter().map(|g| g.layers).collect();
        assert_eq!(sizes, [6, 6, 6, 6, 5, 5]);
        assert_eq!(l.padding_slots(), 2);
        assert_eq!(l.bytes_per_block, 31_961_088);
        assert_eq!(l.request_blocks(1), 6);
        assert_eq!(l.request_blocks(4_896), 6);
        assert_eq!(l.request_blocks(4_897), 7);
        assert_eq!(l.max_pages_per_request(131_072), 27 + 15);
        // Budget: ceil(25,438,126,080 x 0.94) = 23,911,838,516 (the product is ...515.2).
        assert_eq!(requested_bytes(RTX3090_BYTES, 0.94), 23_911_838_516);
        // A pool of exactly 405 blocks and a bit.
        let non_kv = 23_911_838_516 - 405 * 31_961_088 - 1_000;
        let pool = KvPool::new(&l, &args, RTX3090_BYTES, non_kv);
        assert_eq!(pool.num_blocks, 405);
        assert_eq!(pool.usable_blocks, 404);
        assert_eq!(pool.kv_unallocated_bytes, 1_000);
        assert_relative_eq!(pool.max_concurrency, 405.0 / 42.0, epsilon = 1e-12);
        assert_eq!(pool.kv_cache_tokens, 1_263_908); // floor(405 / 42 x 131,072)
        assert_eq!(pool.startup_failure(), None);
        // 67 requests of 6 blocks fit in 404 usable blocks; 68 do not.
        let a = admit(&l, &pool, &args, 0, 1, 128, true);
        assert_eq!(
            (a.running, a.blocks_per_request, a.limit),
            (67, 6, RunningLimit::KvBlocks)
        );
        // 16K prompt shared by 32 requests: 3 full blocks shared, 1 + 5 private each;
        // admission holds 1 + 5 x (2 + 1) private blocks: 10 more than steady state.
        let a = admit(&l, &pool, &args, 16_384, 16_385, 32, true);
        assert_eq!(a.shared_blocks, 3);
        assert_eq!(a.blocks_per_request, 6);
        assert_eq!(a.admission_extra_blocks, 10);
        assert_eq!(a.running, 32);
        // Distinct 16K prompts: 4 + 5 blocks each, admission 4 + 5 x 2.
        let a = admit(&l, &pool, &args, 16_384, 16_385, u64::MAX, false);
        assert_eq!((a.blocks_per_request, a.admission_extra_blocks), (9, 5));
        assert_eq!(a.running, (404 - 5) / 9);
    }

    #[test]
    fn dense_llama_3_1_8b_bf16_and_fp8() {
        let model = presets::model("llama-3.1-8b").unwrap().model;
        for (dtype, bytes_per_token, block_bytes, blocks) in [
            ("auto", 4_096u64, 2_097_152u64, 2_724u64),
            ("bfloat16", 4_096, 2_097_152, 2_724),
            ("fp8", 2_048, 1_048_576, 5_449),
            ("fp8_e4m3", 2_048, 1_048_576, 5_449),
        ] {
            let args = engine(
                EngineSettings {
                    kv_cache_dtype: Some(dtype.into()),
                    gpu_memory_utilization: Some(0.9),
                    max_model_len: Some(8_192),
                    ..EngineSettings::default()
                },
                model.max_position_embeddings,
            );
            let l = KvLayout::new(&model, &args).unwrap();
            assert_eq!(
                l.attention_bytes_per_token_per_layer, bytes_per_token,
                "{dtype}"
            );
            assert_eq!(l.block_size_tokens, 16);
            assert_eq!(l.groups.len(), 1);
            assert_eq!(l.group_size_layers, 32);
            // 16 tokens x 32 layers x the bytes above (128 KiB per token in
            // bf16, the well-known figure).
            assert_eq!(l.bytes_per_block, block_bytes);
            // requested = ceil(25,438,126,080 x 0.9) = 22,894,313,472; non-KV pinned at 16 GiB.
            let pool = KvPool::new(&l, &args, RTX3090_BYTES, 16 << 30);
            assert_eq!(pool.requested_bytes, 22_894_313_472);
            assert_eq!(pool.kv_pool_bytes, 5_714_444_288);
            assert_eq!(pool.num_blocks, blocks, "{dtype}");
            // 512 pages per 8,192-token request; the logged size is num_blocks x 16 tokens.
            assert_relative_eq!(pool.max_concurrency, blocks as f64 / 512.0);
            assert_eq!(pool.kv_cache_tokens, blocks * 16);
            // Dense models have no Mamba groups: a 1,000-token request holds 63 blocks.
            assert_eq!(l.request_blocks(1_000), 63);
        }
    }

    #[test]
    fn sliding_window_layers_hold_the_window_plus_one_block() {
        use crate::dtype::FloatDtype;
        use crate::model::{AttentionLayer, Layer, Model};
        // Gemma-3-12B's shape: 48 layers, 5 of every 6 with a 1,024-token window,
        // 8 KV heads x 256.
        let attn = |window| {
            Layer::Attention(AttentionLayer {
                sliding_window_tokens: window,
                qk_norm: true,
                ..AttentionLayer::full(16, 8, 256)
            })
        };
        let layers = (0..48)
            .map(|i| attn(if i % 6 == 5 { None } else { Some(1_024) }))
            .collect();
        let model = Model {
            architecture: "test".into(),
            hidden_size: 3_840,
            vocab_size: 262_208,
            sampled_vocab_size: 262_208,
            tie_word_embeddings: true,
            dtype: FloatDtype::Bfloat16,
            max_position_embeddings: 131_072,
            layers,
            mamba_ssm_auto_dtype: FloatDtype::Bfloat16,
            mamba_ssm_dtype_named: false,
            mamba_chunk_tokens: 2048,
            encoder: Vec::new(),
            mtp: None,
        };
        let args = engine(
            EngineSettings {
                max_model_len: Some(32_768),
                ..EngineSettings::default()
            },
            131_072,
        );
        let l = KvLayout::new(&model, &args).unwrap();
        // Buckets of 8 full and 40 sliding layers: 40 >= 1.5 x 8, so groups of 8:
        // one full-attention group and five sliding-window groups.
        assert_eq!(l.group_size_layers, 8);
        assert_eq!(l.attention_groups(), 1);
        assert_eq!(l.count(GroupKind::SlidingWindow), 5);
        // 8 x 1,024 B per token per layer, 16-token blocks: a 128 KiB page.
        assert_eq!(l.page_bytes, 16 * 8 * 1_024);
        // 32K tokens: 2,048 full-attention blocks + 5 x (1,024 / 16 + 1).
        assert_eq!(l.request_blocks(32_768), 2_048 + 5 * 65);
        assert_eq!(l.request_blocks(500), 32 + 5 * 32);
        // Start-up accounting with 0.32's async scheduling (two batches of
        // 2,048 in flight): ceil(min(1,023 + 4,096, 32,768) / 16) + 1 = 321
        // per window group.
        assert_eq!(l.in_flight_tokens, 4096);
        assert_eq!(l.max_pages_per_request(32_768), 2_048 + 5 * 321);
    }

    #[test]
    fn chunked_local_layers_hold_the_current_chunk() {
        use crate::dtype::FloatDtype;
        use crate::model::{AttentionLayer, Layer, Model};
        // Three layers chunked over 8,192 tokens, one global (Llama 4's
        // pattern), 8 KV heads x 128.
        let attn = |chunk| {
            Layer::Attention(AttentionLayer {
                chunk_tokens: chunk,
                ..AttentionLayer::full(40, 8, 128)
            })
        };
        let model = Model {
            architecture: "test".into(),
            hidden_size: 5_120,
            vocab_size: 202_048,
            sampled_vocab_size: 202_048,
            tie_word_embeddings: false,
            dtype: FloatDtype::Bfloat16,
            max_position_embeddings: 131_072,
            layers: (0..4)
                .map(|i| attn((i % 4 != 3).then_some(8_192)))
                .collect(),
            mamba_ssm_auto_dtype: FloatDtype::Bfloat16,
            mamba_ssm_dtype_named: false,
            mamba_chunk_tokens: 2048,
            encoder: Vec::new(),
            mtp: None,
        };
        let settings = |v: &str| EngineSettings {
            max_model_len: Some(65_536),
            max_num_batched_tokens: Some(2_048),
            async_scheduling: Some(false),
            vllm_version: Some(v.into()),
            ..EngineSettings::default()
        };
        // 0.32: one full group and three chunked ones of one layer each.
        let l = KvLayout::new(&model, &engine(settings("0.32.0"), 131_072)).unwrap();
        assert_eq!(l.count(GroupKind::ChunkedLocal), 3);
        assert_eq!(l.attention_groups(), 1);
        // Running at t tokens, a chunked group holds the blocks from the
        // current chunk's start, ((t - 1) / 8,192) x 8,192: 8,192 tokens
        // are 512 blocks; 8,193 one; 20,000 ceil(20,000 / 16) - 1,024 = 226.
        let chunked = |t| l.request_blocks(t) - t.div_ceil(16);
        assert_eq!(chunked(8_192), 3 * 512);
        assert_eq!(chunked(8_193), 3);
        assert_eq!(chunked(20_000), 3 * 226);
        assert_eq!(l.admission_blocks(20_000), 1_250 + 3 * 226);
        // At start-up ceil(min(8,192 + 2,048, 65,536) / 16) = 640 pages a
        // chunked group, 4,096 the full one.
        assert_eq!(l.max_pages_per_request(65_536), 4_096 + 3 * 640);
        // Before 0.14 all four layers are full attention in one group.
        let l = KvLayout::new(&model, &engine(settings("0.13.0"), 131_072)).unwrap();
        assert_eq!(l.groups.len(), 1);
        assert_eq!(l.groups.first().map(|g| g.layers), Some(4));
        assert_eq!(l.max_pages_per_request(65_536), 4_096);
    }
}
