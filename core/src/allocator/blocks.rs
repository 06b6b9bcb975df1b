//! The pages and blocks a KV-cache group holds for one request: running, at
//! `max_model_len` as the start-up log counts them, and free to admit a
//! prompt (docs/reference/vllm-memory-model.md section 3).

use super::{GroupKind, KvGroup, KvLayout, MambaCacheMode};
use crate::units::div_ceil;

impl KvLayout {
    /// Tokens per block of the group (see [`KvGroup::block_tokens`]).
    pub(super) fn block_of(&self, group: &KvGroup) -> u64 {
        group.block_tokens.max(1)
    }

    pub(super) fn count(&self, kind: GroupKind) -> u64 {
        self.groups.iter().filter(|g| g.kind == kind).count() as u64
    }

    /// Groups of full-attention layers.
    pub fn attention_groups(&self) -> u64 {
        self.count(GroupKind::FullAttention)
    }

    pub fn mamba_groups(&self) -> u64 {
        self.count(GroupKind::Mamba)
    }

    /// Padding slots across all groups (each costs a page per block).
    pub fn padding_slots(&self) -> u64 {
        self.groups.iter().map(|g| g.slots - g.layers).sum()
    }

    /// Blocks a group holds for a running request at `tokens` tokens:
    /// full attention `ceil(tokens / block)`; a sliding window at most the
    /// window plus one block, `ceil(window / block) + 1`; Mamba one. Section 3.
    pub fn group_blocks(&self, group: &KvGroup, tokens: u64) -> u64 {
        let bs = self.block_of(group);
        let blocks = div_ceil(tokens.max(1), bs);
        match group.kind {
            GroupKind::FullAttention => blocks,
            GroupKind::SlidingWindow => {
                let window = group.window_tokens.unwrap_or(0);
                blocks.min(div_ceil(window, bs) + 1)
            }
            // The blocks wholly before the current chunk are freed: the
            // tokens computed, `tokens - 1`, rounded down to the chunk
            // (`ChunkedLocalAttentionManager.get_num_skipped_tokens`,
            // v1/core/single_type_kv_cache_manager.py).
            GroupKind::ChunkedLocal => {
                let chunk = group.window_tokens.unwrap_or(0).max(1);
                let skipped = (tokens.saturating_sub(1) / chunk) * chunk;
                blocks - (skipped / bs).min(blocks)
            }
            GroupKind::Mamba => match self.mamba_cache_mode {
                // Every block's state is kept, like attention's.
                MambaCacheMode::All => blocks + self.mamba_spec_pages,
                _ => 1 + self.mamba_spec_pages,
            },
        }
    }

    /// Pages a group may need for one request of `max_model_len` tokens, as the
    /// start-up log counts them: full attention `ceil(len / block)`; a sliding
    /// window `ceil(min(window - 1 + in-flight tokens, len) / block) + 1`; a
    /// chunked local group `ceil(min(chunk + in-flight tokens, len) / block)`
    /// (`ChunkedLocalAttentionSpec`, whose in-flight tokens follow the
    /// sliding window's, docs/reference/vllm-versions.md section 7);
    /// Mamba in align mode 2 pages (running, boundary) plus a Mamba2 prefill
    /// checkpoint from 0.32, in all mode one per block, else 1
    /// (`MambaSpec.max_memory_usage_bytes`, `v1/kv_cache_interface.py`).
    pub fn group_max_pages(&self, group: &KvGroup, max_model_len_tokens: u64) -> u64 {
        let bs = self.block_of(group);
        match group.kind {
            GroupKind::FullAttention => div_ceil(max_model_len_tokens.max(1), bs),
            GroupKind::SlidingWindow => {
                let window = group.window_tokens.unwrap_or(0);
                let tokens =
                    (window.saturating_sub(1) + self.in_flight_tokens).min(max_model_len_tokens);
                div_ceil(tokens, bs) + 1
            }
            GroupKind::ChunkedLocal => {
                let chunk = group.window_tokens.unwrap_or(0);
                let tokens = chunk
                    .saturating_add(self.in_flight_tokens)
                    .min(max_model_len_tokens);
                div_ceil(tokens.max(1), bs)
            }
            GroupKind::Mamba => match self.mamba_cache_mode {
                MambaCacheMode::Align => 2 + self.mamba_spec_pages + self.mamba_checkpoint_pages,
                MambaCacheMode::All => div_ceil(max_model_len_tokens.max(1), bs),
                MambaCacheMode::None => 1 + self.mamba_spec_pages,
            },
        }
    }

    /// Sum of [`KvLayout::group_max_pages`] over the groups.
    pub fn max_pages_per_request(&self, max_model_len_tokens: u64) -> u64 {
        self.groups
            .iter()
            .map(|g| self.group_max_pages(g, max_model_len_tokens))
            .sum()
    }

    /// Blocks one running request holds at `tokens` tokens (prompt + generated),
    /// none shared. Section 3.
    pub fn request_blocks(&self, tokens: u64) -> u64 {
        self.groups
            .iter()
            .map(|g| self.group_blocks(g, tokens))
            .sum()
    }

    /// Blocks a group needs free to admit a prompt of `prompt_tokens` of which
    /// `hit_blocks` full blocks are prefix-cache hits
    /// (`scheduler_reserve_full_isl`): the prompt's attention blocks less the
    /// hits; per Mamba group in align mode `min(ceil(P / block), 2)` (running
    /// state + prefill checkpoint) and one more on a partial prefix hit, else 1.
    pub fn group_admission_blocks(
        &self,
        group: &KvGroup,
        prompt_tokens: u64,
        hit_blocks: u64,
    ) -> u64 {
        let prompt = div_ceil(prompt_tokens.max(1), self.block_of(group));
        match group.kind {
            GroupKind::FullAttention => prompt - hit_blocks.min(prompt),
            GroupKind::SlidingWindow | GroupKind::ChunkedLocal => {
                self.group_blocks(group, prompt_tokens)
            }
            GroupKind::Mamba => {
                self.mamba_spec_pages
                    + match self.mamba_cache_mode {
                        MambaCacheMode::Align => prompt.min(2) + u64::from(hit_blocks > 0),
                        MambaCacheMode::All => prompt - hit_blocks.min(prompt),
                        MambaCacheMode::None => 1,
                    }
            }
        }
    }

    /// Blocks the scheduler must find free to admit a prompt with no cache hits.
    pub fn admission_blocks(&self, prompt_tokens: u64) -> u64 {
        self.groups
            .iter()
            .map(|g| self.group_admission_blocks(g, prompt_tokens, 0))
            .sum()
    }
}
