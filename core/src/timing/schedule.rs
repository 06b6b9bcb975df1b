//! The engine's schedule settings a step's time depends on: how steps are
//! batched, whether the host's share overlaps the GPU's, which decode steps
//! run as CUDA graphs, and how prefix caching finds cached prompt blocks.

use crate::allocator::KvLayout;
use crate::engine::EngineArgs;
use serde::Serialize;

/// The schedule settings of a resolved engine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Schedule {
    /// Whether the host's share of a step overlaps the GPU's.
    pub async_scheduling: bool,
    /// The longest context a decode step still runs as a CUDA graph at
    /// (None: every decode step does; 0: none, `--enforce-eager`).
    pub cuda_graph_max_context_tokens: Option<u64>,
    pub max_num_batched_tokens: u64,
    pub max_num_seqs: u64,
    /// Tokens per KV block (prefix-cache hits come in whole blocks).
    pub block_size_tokens: u64,
    pub enable_prefix_caching: bool,
}

impl Schedule {
    /// The settings of `engine` on its KV `layout` (whose block size it uses).
    pub fn of(engine: &EngineArgs, layout: &KvLayout) -> Schedule {
        Schedule {
            async_scheduling: engine.async_scheduling,
            cuda_graph_max_context_tokens: if engine.enforce_eager {
                Some(0)
            } else {
                engine.max_seq_len_to_capture_tokens
            },
            max_num_batched_tokens: engine.max_num_batched_tokens.max(1),
            max_num_seqs: engine.max_num_seqs.max(1),
            block_size_tokens: layout.block_size_tokens.max(1),
            enable_prefix_caching: engine.enable_prefix_caching,
        }
    }
}
