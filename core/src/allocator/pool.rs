//! The memory budget and what the allocator makes of it: the requested
//! bytes, the KV pool, the number of blocks, the figures vLLM logs at
//! start-up and why it would refuse to start (docs/reference/
//! vllm-memory-model.md sections 1 and 2).

use super::KvLayout;
use crate::engine::EngineArgs;
use crate::units::{div_floor, saturating_u64};
use serde::Serialize;

/// The memory budget and what the allocator makes of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KvPool {
    /// `ceil(total * gpu_memory_utilization)`, computed in f64 as vLLM does.
    pub requested_bytes: u64,
    pub non_kv_bytes: u64,
    /// `requested - non_kv`: the bytes vLLM hands to the KV cache.
    pub kv_pool_bytes: u64,
    /// `floor(kv_pool / bytes_per_block)`.
    pub num_blocks: u64,
    /// One block is vLLM's null block.
    pub usable_blocks: u64,
    /// `kv_pool - num_blocks * bytes_per_block`: left over inside the pool.
    pub kv_unallocated_bytes: u64,
    /// The log's "Maximum concurrency for max_model_len tokens per request":
    /// `num_blocks / pages one max_model_len request may need`.
    pub max_concurrency: f64,
    /// The log's "GPU KV cache size: N tokens": `floor(max_concurrency * max_model_len)`.
    pub kv_cache_tokens: u64,
    /// Bytes one `max_model_len` request needs, summed over layers; vLLM
    /// refuses to start when the pool is smaller.
    pub min_kv_bytes_to_start: u64,
}

/// `ceil(total * utilization)` as vLLM computes it (Python float arithmetic,
/// which is IEEE f64 like Rust's). Section 1.
pub fn requested_bytes(total_bytes: u64, utilization: f64) -> u64 {
    saturating_u64((total_bytes as f64 * utilization).ceil())
}

impl KvPool {
    pub fn new(
        layout: &KvLayout,
        engine: &EngineArgs,
        total_bytes: u64,
        non_kv_bytes: u64,
    ) -> KvPool {
        let requested = if engine.vllm_version >= crate::version::REQUEST_ROUNDS_UP {
            requested_bytes(total_bytes, engine.gpu_memory_utilization)
        } else {
            // `total * utilization` unrounded: the budget's integer part.
            saturating_u64((total_bytes as f64 * engine.gpu_memory_utilization).floor())
        };
        // `--kv-cache-memory-bytes` replaces the profiled figure outright.
        let kv_pool = engine
            .kv_cache_memory_bytes
            .unwrap_or_else(|| requested.saturating_sub(non_kv_bytes));
        let num_blocks = div_floor(kv_pool, layout.bytes_per_block);
        let pages = layout.max_pages_per_request(engine.max_model_len_tokens);
        let max_concurrency = if pages == 0 {
            0.0
        } else {
            num_blocks as f64 / pages as f64
        };
        // The logged "GPU KV cache size": from concurrency from 0.20.1,
        // before `(num_blocks // groups) * smallest block` (which under-counts
        // hybrid models: Mamba groups count as groups).
        let kv_cache_tokens = if engine.vllm_version >= crate::version::KV_SIZE_FROM_CONCURRENCY {
            (max_concurrency * engine.max_model_len_tokens as f64).floor()
        } else {
            let groups = layout.groups.len().max(1) as u64;
            let block = layout
                .groups
                .iter()
                .map(|g| layout.block_of(g))
                .min()
                .unwrap_or(layout.block_size_tokens);
            ((num_blocks / groups) * block) as f64
        };
        let min_kv_bytes_to_start: u64 = layout
            .groups
            .iter()
            .map(|g| layout.group_max_pages(g, engine.max_model_len_tokens) * g.pages_bytes)
            .sum();
        KvPool {
            requested_bytes: requested,
            non_kv_bytes,
            kv_pool_bytes: kv_pool,
            num_blocks,
            usable_blocks: num_blocks.saturating_sub(1),
            kv_unallocated_bytes: kv_pool - num_blocks * layout.bytes_per_block,
            max_concurrency,
            kv_cache_tokens: saturating_u64(kv_cache_tokens),
            min_kv_bytes_to_start,
        }
    }

    /// Why vLLM would refuse to start, if it would.
    pub fn startup_failure(&self) -> Option<String> {
        let gib = |b: u64| format!("{:.2} GiB", crate::units::gib(b));
        if self.kv_pool_bytes == 0 {
            Some(format!(
                "no memory left for the KV cache: the non-KV memory ({}) fills the requested budget ({})",
                gib(self.non_kv_bytes),
                gib(self.requested_bytes)
            ))
        } else if self.kv_pool_bytes < self.min_kv_bytes_to_start {
            Some(format!(
                "the KV cache ({}) cannot hold one request of max_model_len ({} needed)",
                gib(self.kv_pool_bytes),
                gib(self.min_kv_bytes_to_start)
            ))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{engine, RTX3090_BYTES};
    use super::*;
    use crate::engine::EngineSettings;
    use crate::presets;

    #[test]
    fn too_small_a_pool_is_a_startup_failure() {
        let model = presets::model("llama-3.1-8b").unwrap().model;
        let args = engine(EngineSettings::default(), model.max_position_embeddings);
        let l = KvLayout::new(&model, &args).unwrap();
        let requested = requested_bytes(RTX3090_BYTES, args.gpu_memory_utilization);
        let pool = KvPool::new(&l, &args, RTX3090_BYTES, requested + 5);
        assert_eq!(pool.kv_pool_bytes, 0);
        assert!(pool.startup_failure().unwrap().contains("no memory left"));
        // 131,072 tokens x 128 KiB = 16 GiB needed; a 1 GiB pool cannot start.
        let pool = KvPool::new(&l, &args, RTX3090_BYTES, requested - (1 << 30));
        assert_eq!(pool.min_kv_bytes_to_start, 16 << 30);
        assert!(pool
            .startup_failure()
            .unwrap()
            .contains("cannot hold one request"));
    }
}
