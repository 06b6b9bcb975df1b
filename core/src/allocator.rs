//! vLLM 0.32's KV-cache allocator: page sizes, the hybrid block-size alignment,
//! layer grouping, the number of blocks, the figures the server logs, and how
//! many blocks a request holds.
//!
//! Every rule here restates ../shared/reference/vllm-memory-model.md sections
//! 2 and 3 (read from vLLM 0.32's `platforms/interface.py`,
//! `v1/core/kv_cache_utils.py` and the v1 scheduler).

use crate::dtype::{FloatDtype, KvCacheDtype, MambaDtype};
use crate::engine::{defaults, EngineArgs};
use crate::error::{Error, Result};
use crate::model::Model;
use crate::units::{div_ceil, div_floor};
use serde::Serialize;

/// What kind of layers a KV-cache group holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupKind {
    FullAttention,
    Mamba,
}

/// One KV-cache group: `layers` real layers in `slots` (= group size) slots;
/// the difference is padding that costs memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct KvGroup {
    pub kind: GroupKind,
    pub layers: u64,
    pub slots: u64,
}

/// How Mamba states are cached (`mamba_cache_mode`): `Align` when prefix
/// caching is on (states kept at block boundaries), `None` otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MambaCacheMode {
    None,
    Align,
}

/// The per-layer memory layout of the KV cache.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KvLayout {
    pub kv_cache_dtype: KvCacheDtype,
    /// Bytes one token takes in one attention layer (all its KV heads, scales included).
    pub attention_bytes_per_token_per_layer: u64,
    pub mamba_conv_state_bytes_per_layer: u64,
    pub mamba_ssm_state_bytes_per_layer: u64,
    /// The Mamba state of one layer before padding to the page size.
    pub mamba_state_bytes_per_layer: u64,
    pub mamba_conv_dtype: Option<FloatDtype>,
    pub mamba_ssm_dtype: Option<FloatDtype>,
    pub mamba_cache_mode: MambaCacheMode,
    pub block_size_tokens: u64,
    /// Bytes of one block of one layer (attention page = Mamba page after padding).
    pub page_bytes: u64,
    /// Layers per group (slots), shared by all groups.
    pub group_size_layers: u64,
    pub groups: Vec<KvGroup>,
    /// `group_size * page_bytes`: one block across all groups' overlaid tensors.
    pub bytes_per_block: u64,
}

impl KvLayout {
    pub fn new(model: &Model, engine: &EngineArgs) -> Result<KvLayout> {
        let attn: Vec<_> = model.attention_layers().collect();
        let mamba: Vec<_> = model.mamba_layers().collect();
        let attn_bytes = match attn.first() {
            Some(a) => {
                a.num_kv_heads
                    * engine
                        .kv_cache_dtype
                        .bytes_per_token_per_head(a.head_dim, model.dtype)
            }
            None => 0,
        };
        if attn.iter().any(|a| {
            a.num_kv_heads
                * engine
                    .kv_cache_dtype
                    .bytes_per_token_per_head(a.head_dim, model.dtype)
                != attn_bytes
                || a.sliding_window_tokens.is_some()
        }) {
            return Err(Error::new(
                "attention layers of different shapes or sliding windows are not modelled yet",
            ));
        }
        // Mamba conv state in `--mamba-cache-dtype` (auto = model dtype), SSM
        // state in `--mamba-ssm-cache-dtype` (auto = per architecture; float32
        // for NemotronH). Reference doc sections 4 and 5.
        let conv_dtype = engine.mamba_cache_dtype.resolve(model.dtype);
        let ssm_dtype = match engine.mamba_ssm_cache_dtype {
            MambaDtype::Auto => model.mamba_ssm_auto_dtype,
            fixed => fixed.resolve(model.dtype),
        };
        let (conv_bytes, ssm_bytes) = match mamba.first() {
            Some(m) => (
                m.conv_state_elems() * conv_dtype.bytes(),
                m.ssm_state_elems() * ssm_dtype.bytes(),
            ),
            None => (0, 0),
        };
        if mamba.iter().any(|m| {
            m.conv_state_elems() * conv_dtype.bytes() + m.ssm_state_elems() * ssm_dtype.bytes()
                != conv_bytes + ssm_bytes
        }) {
            return Err(Error::new("Mamba layers of different shapes are not modelled yet"));
        }
        let mamba_state = conv_bytes + ssm_bytes;
        let align = defaults::BLOCK_SIZE_TOKENS;
        let requested = engine.block_size_tokens.unwrap_or(defaults::BLOCK_SIZE_TOKENS);
        // Hybrid alignment: raise the attention block size until one attention
        // page holds one Mamba layer's state, in steps of the kernel alignment
        // (16 tokens); a user's --block-size is a lower bound. Section 2.
        let block_size = if !mamba.is_empty() && attn_bytes > 0 {
            requested.max(align * div_ceil(mamba_state, align * attn_bytes))
        } else {
            requested
        };
        let page = if attn_bytes > 0 {
            block_size * attn_bytes
        } else {
            mamba_state
        };
        let mut buckets: Vec<(GroupKind, u64)> = Vec::new();
        if !attn.is_empty() {
            buckets.push((GroupKind::FullAttention, attn.len() as u64));
        }
        if !mamba.is_empty() {
            buckets.push((GroupKind::Mamba, mamba.len() as u64));
        }
        let min = buckets.iter().map(|b| b.1).min().unwrap_or(0);
        let max = buckets.iter().map(|b| b.1).max().unwrap_or(0);
        if min == 0 {
            return Err(Error::new("the model has no attention or Mamba layers")
                .with_hint("check num_hidden_layers and hybrid_override_pattern"));
        }
        // Grouping rule: group size = smallest bucket, or the largest when
        // max < 1.5 * min (compared in integers: 2 * max < 3 * min).
        let group_size = if 2 * max < 3 * min { max } else { min };
        let mut groups = Vec::new();
        for (kind, count) in buckets {
            let n = div_ceil(count, group_size);
            for i in 0..n {
                let layers = (count - i * group_size).min(group_size);
                groups.push(KvGroup {
                    kind,
                    layers,
                    slots: group_size,
                });
            }
        }
        Ok(KvLayout {
            kv_cache_dtype: engine.kv_cache_dtype,
            attention_bytes_per_token_per_layer: attn_bytes,
            mamba_conv_state_bytes_per_layer: conv_bytes,
            mamba_ssm_state_bytes_per_layer: ssm_bytes,
            mamba_state_bytes_per_layer: mamba_state,
            mamba_conv_dtype: (!mamba.is_empty()).then_some(conv_dtype),
            mamba_ssm_dtype: (!mamba.is_empty()).then_some(ssm_dtype),
            mamba_cache_mode: if engine.enable_prefix_caching {
                MambaCacheMode::Align
            } else {
                MambaCacheMode::None
            },
            block_size_tokens: block_size,
            page_bytes: page,
            group_size_layers: group_size,
            bytes_per_block: group_size * page,
            groups,
        })
    }

    pub fn attention_groups(&self) -> u64 {
        self.groups
            .iter()
            .filter(|g| g.kind == GroupKind::FullAttention)
            .count() as u64
    }

    pub fn mamba_groups(&self) -> u64 {
        self.groups
            .iter()
            .filter(|g| g.kind == GroupKind::Mamba)
            .count() as u64
    }

    /// Padding slots across all groups (each costs a page per block).
    pub fn padding_slots(&self) -> u64 {
        self.groups.iter().map(|g| g.slots - g.layers).sum()
    }

    /// Attention blocks for `tokens` tokens in one attention group.
    pub fn attention_blocks(&self, tokens: u64) -> u64 {
        div_ceil(tokens.max(1), self.block_size_tokens)
    }

    /// Pages a group may need for one request of `max_model_len` tokens, as the
    /// start-up log counts them: attention `ceil(len / block)`, Mamba 3 pages in
    /// align mode (running, boundary, prefill checkpoint) or 1.
    pub fn max_pages_per_request(&self, max_model_len_tokens: u64) -> u64 {
        self.groups
            .iter()
            .map(|g| match g.kind {
                GroupKind::FullAttention => self.attention_blocks(max_model_len_tokens),
                GroupKind::Mamba => match self.mamba_cache_mode {
                    MambaCacheMode::Align => 3,
                    MambaCacheMode::None => 1,
                },
            })
            .sum()
    }

    /// Blocks one running request holds at `tokens` tokens (prompt + generated),
    /// none shared: attention `ceil(tokens / block)` per attention group plus
    /// one block per Mamba group. Section 3.
    pub fn request_blocks(&self, tokens: u64) -> u64 {
        self.attention_groups() * self.attention_blocks(tokens) + self.mamba_groups()
    }

    /// Blocks the scheduler must find free to admit a prompt of `prompt_tokens`
    /// (`scheduler_reserve_full_isl`): the whole prompt's attention blocks plus,
    /// per Mamba group, `min(ceil(P / block), 2)` in align mode, else 1.
    pub fn admission_blocks(&self, prompt_tokens: u64) -> u64 {
        let attn = self.attention_blocks(prompt_tokens);
        let per_mamba = match self.mamba_cache_mode {
            MambaCacheMode::Align => attn.min(2),
            MambaCacheMode::None => 1,
        };
        self.attention_groups() * attn + self.mamba_groups() * per_mamba
    }
}

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
    let v = (total_bytes as f64 * utilization).ceil();
    if v.is_finite() && v >= 0.0 {
        // Saturating float-to-int cast; total * utilization <= total fits u64.
        v as u64
    } else {
        0
    }
}

impl KvPool {
    pub fn new(
        layout: &KvLayout,
        engine: &EngineArgs,
        total_bytes: u64,
        non_kv_bytes: u64,
    ) -> KvPool {
        let requested = requested_bytes(total_bytes, engine.gpu_memory_utilization);
        let kv_pool = requested.saturating_sub(non_kv_bytes);
        let num_blocks = div_floor(kv_pool, layout.bytes_per_block);
        let pages = layout.max_pages_per_request(engine.max_model_len_tokens);
        let max_concurrency = if pages == 0 {
            0.0
        } else {
            num_blocks as f64 / pages as f64
        };
        let kv_cache_tokens = (max_concurrency * engine.max_model_len_tokens as f64).floor();
        let min_kv_bytes_to_start: u64 = layout
            .groups
            .iter()
            .map(|g| {
                let pages = match g.kind {
                    GroupKind::FullAttention => {
                        layout.attention_blocks(engine.max_model_len_tokens)
                    }
                    GroupKind::Mamba => match layout.mamba_cache_mode {
                        MambaCacheMode::Align => 3,
                        MambaCacheMode::None => 1,
                    },
                };
                pages * layout.page_bytes * g.layers
            })
            .sum();
        KvPool {
            requested_bytes: requested,
            non_kv_bytes,
            kv_pool_bytes: kv_pool,
            num_blocks,
            usable_blocks: num_blocks.saturating_sub(1),
            kv_unallocated_bytes: kv_pool - num_blocks * layout.bytes_per_block,
            max_concurrency,
            kv_cache_tokens: if kv_cache_tokens.is_finite() && kv_cache_tokens >= 0.0 {
                kv_cache_tokens as u64
            } else {
                0
            },
            min_kv_bytes_to_start,
        }
    }

    /// Why vLLM would refuse to start, if it would.
    pub fn startup_failure(&self) -> Option<String> {
        if self.kv_pool_bytes == 0 {
            Some(format!(
                "no memory left for the KV cache: the non-KV memory ({} bytes) fills the requested budget ({} bytes)",
                self.non_kv_bytes, self.requested_bytes
            ))
        } else if self.kv_pool_bytes < self.min_kv_bytes_to_start {
            Some(format!(
                "the KV cache ({} bytes) cannot hold one request of max_model_len ({} bytes needed)",
                self.kv_pool_bytes, self.min_kv_bytes_to_start
            ))
        } else {
            None
        }
    }
}

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
/// With prefix caching, the prompt's full blocks are shared (the harness sends
/// one prompt to all requests after a scout request cached it).
pub fn admit(
    layout: &KvLayout,
    pool: &KvPool,
    engine: &EngineArgs,
    prompt_tokens: u64,
    tokens: u64,
    concurrency: u64,
) -> Admission {
    let bs = layout.block_size_tokens;
    let shared_prompt = if engine.enable_prefix_caching {
        prompt_tokens / bs.max(1)
    } else {
        0
    };
    let attn_groups = layout.attention_groups();
    let shared = attn_groups * shared_prompt;
    let per_request = attn_groups * (layout.attention_blocks(tokens) - shared_prompt.min(layout.attention_blocks(tokens)))
        + layout.mamba_groups();
    // Admitting a request briefly needs its whole prompt's private blocks plus,
    // in align mode, a prefill checkpoint per Mamba group.
    let admit_private = layout.admission_blocks(prompt_tokens) - attn_groups * shared_prompt.min(layout.attention_blocks(prompt_tokens));
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
