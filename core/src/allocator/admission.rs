//! Admission: how many of `concurrency` identical requests the engine runs
//! at once, with the blocks shared under prefix caching and the extra
//! blocks held while the last one is admitted.

use super::{KvLayout, KvPool};
use crate::engine::EngineArgs;
use crate::units::div_floor;
use serde::Serialize;

/// How many of `concurrency` identical requests the engine runs at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Admission {
    pub running: u64,
    /// Blocks shared by all requests (full prompt blocks under prefix caching).
    pub shared_blocks: u64,
    /// Blocks each running request holds privately.
    pub blocks_per_request: u64,
    /// Extra blocks held while the last request is admitted.
    pub admission_extra_blocks: u64,
    /// What limited `running`.
    pub limit: RunningLimit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunningLimit {
    /// All requests run.
    None,
    MaxNumSeqs,
    KvBlocks,
}

/// Running requests when `concurrency` requests with the same `prompt_tokens`
/// prompt arrive together and each has `tokens` tokens (prompt + generated).
///
/// With `prefix_cached` (prefix caching on and the prompt already cached, as
/// after the harness's scout request) the prompt's full blocks are hits shared by every
/// request: at most `(P - 1) / block` blocks, since vLLM always computes the
/// last prompt token. Each request then holds its own tail and generated
/// blocks plus one block per Mamba group. Admitting one needs, besides its
/// private attention blocks, per Mamba group `min(ceil(P / block), 2)` blocks in
/// align mode (running state + prefill checkpoint) and one more on a partial
/// prefix hit (vLLM 0.32 `MambaManager`); without prefix caching one.
pub fn admit(
    layout: &KvLayout,
    pool: &KvPool,
    engine: &EngineArgs,
    prompt_tokens: u64,
    tokens: u64,
    concurrency: u64,
    prefix_cached: bool,
) -> Admission {
    let bs = layout.block_size_tokens.max(1);
    let attn_groups = layout.attention_groups();
    let hit_blocks = if prefix_cached && engine.enable_prefix_caching && attn_groups > 0 {
        prompt_tokens.saturating_sub(1) / bs
    } else {
        0
    };
    // Only full-attention blocks are shared; sliding windows and Mamba states
    // are each request's own.
    let shared = attn_groups * hit_blocks;
    // Speculative decoding's draft and lookahead slots, up to max_model_len.
    let spec = engine
        .speculative
        .as_ref()
        .map_or(0, crate::speculative::Speculative::held_slots);
    let tokens = tokens.max(prompt_tokens);
    let tokens = (tokens + spec).min(tokens.max(engine.max_model_len_tokens));
    let per_request = layout.request_blocks(tokens) - shared;
    let admit_private: u64 = layout
        .groups
        .iter()
        .map(|g| layout.group_admission_blocks(g, prompt_tokens, hit_blocks))
        .sum();
    let extra = admit_private.saturating_sub(per_request);
    let fit = match pool.usable_blocks.checked_sub(shared + extra) {
        Some(free) => div_floor(free, per_request),
        None => 0,
    };
    let cap = concurrency.min(engine.max_num_seqs);
    let running = cap.min(fit);
    let limit = if running == concurrency {
        RunningLimit::None
    } else if fit < cap {
        RunningLimit::KvBlocks
    } else {
        RunningLimit::MaxNumSeqs
    };
    Admission {
        running,
        shared_blocks: shared,
        blocks_per_request: per_request,
        admission_extra_blocks: extra,
        limit,
    }
}
