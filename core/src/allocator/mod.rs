//! vLLM 0.32's KV-cache allocator: page sizes, the hybrid block-size alignment,
//! layer grouping, the number of blocks, the figures the server logs, and how
//! many blocks a request holds.
//!
//! Every rule here restates docs/reference/vllm-memory-model.md sections
//! 2 and 3 (read from vLLM 0.32's `platforms/interface.py`,
//! `v1/core/kv_cache_utils.py` and the v1 scheduler).

use crate::dtype::{FloatDtype, KvCacheDtype, MambaDtype};
use crate::engine::{defaults, EngineArgs};
use crate::error::{Error, Result};
use crate::model::Model;
use crate::units::{div_ceil, div_floor, lcm, saturating_u64};
use serde::Serialize;

/// What kind of layers a KV-cache group holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupKind {
    FullAttention,
    SlidingWindow,
    Mamba,
}

/// One KV-cache group: `layers` real layers in `slots` (= group size) slots;
/// the difference is padding that costs memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct KvGroup {
    pub kind: GroupKind,
    /// The window of a sliding-window group, tokens.
    pub window_tokens: Option<u64>,
    pub layers: u64,
    pub slots: u64,
    /// Tokens per block of this group. Equal to the layout's block size
    /// unless the model's attention layers differ in KV bytes per token
    /// (Gemma 4's global layers): vLLM then scales the block size of the
    /// smaller specs so every page has the same bytes
    /// (`vllm/v1/core/kv_cache_utils.py`, `unify_kv_cache_spec_page_size`).
    pub block_tokens: u64,
    /// KV bytes one token takes in one layer of this group (0 for Mamba).
    pub bytes_per_token: u64,
}

pub use crate::version::MambaCacheMode;

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
    /// Tokens scheduled but not yet settled, which a sliding window keeps
    /// blocks for at start-up: `max_num_batched_tokens`, twice that under
    /// async scheduling from 0.26 (`version::SLIDING_IN_FLIGHT_TOKENS`),
    /// `pp` times under pipeline parallelism.
    pub in_flight_tokens: u64,
    /// Extra pages a Mamba group reserves in align mode (a Mamba2 prefill
    /// checkpoint from 0.32: `version::MAMBA2_CHECKPOINT_PAGE`).
    pub mamba_checkpoint_pages: u64,
    /// State pages each Mamba group keeps per request for speculative
    /// decoding's draft tokens (`num_speculative_blocks` = k: one state per
    /// draft position to roll back to; `vllm/model_executor/layers/mamba/
    /// abstract.py`, `MambaSpec` in `v1/kv_cache_interface.py`); 0 without.
    pub mamba_spec_pages: u64,
    /// The release whose allocator is modelled.
    pub vllm_version: crate::version::VllmVersion,
}

impl KvLayout {
    pub fn new(model: &Model, engine: &EngineArgs) -> Result<KvLayout> {
        let attn: Vec<_> = model.attention_layers().collect();
        let mamba: Vec<_> = model.state_layers().collect();
        let bytes_of = |a: &crate::model::AttentionLayer| {
            a.kv_bytes_per_token(engine.kv_cache_dtype, model.dtype)
        };
        // Layers that reuse another layer's KV (Gemma 4's shared layers)
        // get no KV-cache spec (`vllm/v1/worker/gpu_model_runner.py`).
        let attn: Vec<_> = attn.into_iter().filter(|a| !a.kv_shared).collect();
        let per_token: Vec<u64> = attn.iter().map(|a| bytes_of(a)).collect();
        let attn_bytes = page_bytes_per_token(&per_token, !mamba.is_empty())?;
        let version = engine.vllm_version;
        let (conv_dtype, ssm_dtype) = state_dtypes(model, engine);
        let mamba_cache_mode = if mamba.is_empty() {
            MambaCacheMode::None
        } else {
            version.mamba_cache_mode(engine.enable_prefix_caching, &model.architecture)
        };
        let state_of = |m: &crate::model::StateShape| {
            (
                m.conv_elems * conv_dtype.bytes(),
                m.ssm_elems * ssm_dtype.bytes(),
            )
        };
        let (conv_bytes, ssm_bytes) = mamba.first().map_or((0, 0), state_of);
        if mamba.iter().any(|m| state_of(m) != (conv_bytes, ssm_bytes)) {
            return Err(Error::new(
                "recurrent layers of different shapes are not modelled yet",
            ));
        }
        let mamba_state = conv_bytes + ssm_bytes;
        let requested = engine
            .block_size_tokens
            .unwrap_or(defaults::BLOCK_SIZE_TOKENS);
        let block_size = if !mamba.is_empty() && attn_bytes > 0 {
            hybrid_block_size(
                requested,
                mamba_state,
                attn_bytes,
                mamba_cache_mode,
                model.mamba_chunk_tokens,
            )
        } else {
            requested
        };
        let page = if attn_bytes > 0 {
            block_size * attn_bytes
        } else {
            mamba_state
        };
        // Buckets of layers with the same spec: full attention, each sliding
        // window, Mamba; attention also by KV bytes per token.
        let mut specs: Vec<LayerSpec> = attn
            .iter()
            .map(|a| {
                let kind = match a.sliding_window_tokens {
                    None => GroupKind::FullAttention,
                    Some(_) => GroupKind::SlidingWindow,
                };
                (kind, a.sliding_window_tokens, bytes_of(a))
            })
            .collect();
        specs.extend(mamba.iter().map(|_| (GroupKind::Mamba, None, 0)));
        let (group_size, groups) = group_layers(&specs, block_size, attn_bytes, version)?;
        let in_flight_batches = if engine.pipeline_parallel_size > 1 {
            engine.pipeline_parallel_size
        } else if engine.async_scheduling && version >= crate::version::SLIDING_IN_FLIGHT_TOKENS {
            2
        } else {
            1
        };
        let mamba2 = model
            .layers
            .iter()
            .any(|l| matches!(l, crate::model::Layer::Mamba2(_)));
        Ok(KvLayout {
            kv_cache_dtype: engine.kv_cache_dtype,
            attention_bytes_per_token_per_layer: attn_bytes,
            mamba_conv_state_bytes_per_layer: conv_bytes,
            mamba_ssm_state_bytes_per_layer: ssm_bytes,
            mamba_state_bytes_per_layer: mamba_state,
            mamba_conv_dtype: (!mamba.is_empty()).then_some(conv_dtype),
            mamba_ssm_dtype: (!mamba.is_empty()).then_some(ssm_dtype),
            mamba_cache_mode,
            block_size_tokens: block_size,
            page_bytes: page,
            group_size_layers: group_size,
            bytes_per_block: group_size * page,
            groups,
            in_flight_tokens: engine
                .max_num_batched_tokens
                .saturating_mul(in_flight_batches),
            mamba_spec_pages: engine
                .speculative
                .as_ref()
                .map_or(0, |sp| sp.num_speculative_tokens),
            mamba_checkpoint_pages: if mamba2 {
                version.mamba2_checkpoint_pages()
            } else {
                0
            },
            vllm_version: version,
        })
    }

    /// Tokens per block of the group (see [`KvGroup::block_tokens`]).
    fn block_of(&self, group: &KvGroup) -> u64 {
        group.block_tokens.max(1)
    }

    /// The line vLLM 0.32 logs when the hybrid alignment raises the block
    /// size (`vllm/platforms/interface.py`), None when it does not.
    pub fn block_size_log_line(&self, requested_tokens: u64) -> Option<String> {
        (self.mamba_state_bytes_per_layer > 0
            && self.attention_bytes_per_token_per_layer > 0
            && self.block_size_tokens > requested_tokens)
            .then(|| {
                format!(
                    "Setting attention block size to {} tokens to ensure that attention page size is >= mamba page size.",
                    self.block_size_tokens
                )
            })
    }

    /// The Mamba page padding vLLM 0.32 logs, in percent of the unpadded
    /// state (`100 * (page - state) / state`), None when nothing is padded.
    pub fn mamba_padding_percent(&self) -> Option<f64> {
        let state = self.mamba_state_bytes_per_layer;
        (state > 0 && self.attention_bytes_per_token_per_layer > 0 && self.page_bytes > state)
            .then(|| 100.0 * (self.page_bytes - state) as f64 / state as f64)
    }

    /// The padding line as vLLM prints it (`%.2f%%`).
    pub fn mamba_padding_log_line(&self) -> Option<String> {
        self.mamba_padding_percent().map(|pct| {
            format!(
                "Padding mamba page size by {pct:.2}% to ensure that mamba page size and attention page size are exactly equal."
            )
        })
    }

    fn count(&self, kind: GroupKind) -> u64 {
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
            GroupKind::Mamba => match self.mamba_cache_mode {
                // Every block's state is kept, like attention's.
                MambaCacheMode::All => blocks + self.mamba_spec_pages,
                _ => 1 + self.mamba_spec_pages,
            },
        }
    }

    /// Pages a group may need for one request of `max_model_len` tokens, as the
    /// start-up log counts them: full attention `ceil(len / block)`; a sliding
    /// window `ceil(min(window - 1 + in-flight tokens, len) / block) + 1`;
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
            GroupKind::SlidingWindow => self.group_blocks(group, prompt_tokens),
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

/// One layer's KV-cache spec: kind, sliding window, KV bytes per token.
type LayerSpec = (GroupKind, Option<u64>, u64);

/// The page's bytes per token: the largest attention layer's KV bytes per
/// token. Smaller specs get proportionally larger blocks, which vLLM
/// requires to divide evenly; a hybrid model's attention layers must all be
/// alike here.
fn page_bytes_per_token(per_token: &[u64], hybrid: bool) -> Result<u64> {
    let attn_bytes = per_token.iter().copied().max().unwrap_or(0);
    for &b in per_token {
        if b == 0 || !attn_bytes.is_multiple_of(b) {
            return Err(Error::new(format!(
                "attention layers of {b} and {attn_bytes} KV bytes per token cannot share one page size"
            ))
            .with_hint("vLLM unifies page sizes only when the larger is a multiple of the smaller"));
        }
        if b != attn_bytes && hybrid {
            return Err(Error::new(
                "a hybrid model with attention layers of different KV shapes is not modelled yet",
            ));
        }
    }
    Ok(attn_bytes)
}

/// Recurrent state dtypes (conv, SSM/DeltaNet): the conv state in
/// `--mamba-cache-dtype` (auto = model dtype), the SSM state in
/// `--mamba-ssm-cache-dtype` (auto = per architecture; float32 for
/// NemotronH, whose fallback was float16 before 0.20; config.json's own
/// value wins in every release). Reference doc sections 4 and 5.
fn state_dtypes(model: &Model, engine: &EngineArgs) -> (FloatDtype, FloatDtype) {
    let conv = engine.mamba_cache_dtype.resolve(model.dtype);
    let ssm = match engine.mamba_ssm_cache_dtype {
        MambaDtype::Auto
            if !model.mamba_ssm_dtype_named
                && model.architecture.starts_with("NemotronH")
                && engine.vllm_version < crate::version::NEMOTRON_H_SSM_FP32 =>
        {
            FloatDtype::Float16
        }
        MambaDtype::Auto => model.mamba_ssm_auto_dtype,
        fixed => fixed.resolve(model.dtype),
    };
    (conv, ssm)
}

/// Hybrid alignment: the attention block size raised until one attention
/// page holds one Mamba layer's state, in steps of the kernel alignment:
/// the backends' 16-token kernel block, or a larger --block-size, which
/// becomes the step (vLLM 0.32 `vllm/platforms/interface.py`,
/// `_align_hybrid_block_size`: alignment = max(kernel block, block_size),
/// N = alignment * cdiv(mamba_page, alignment * attention bytes per token)).
/// In `all` mode (0.11.1-0.27 with prefix caching) the step is the Mamba
/// chunk size made a multiple of the alignment (`lcm(chunk_size, alignment)
/// * cdiv(state tokens, that)`; 0.26 `vllm/platforms/interface.py`).
fn hybrid_block_size(
    requested: u64,
    mamba_state_bytes: u64,
    attn_bytes: u64,
    mode: MambaCacheMode,
    chunk_tokens: u64,
) -> u64 {
    let align = requested.max(defaults::BLOCK_SIZE_TOKENS);
    let step = match mode {
        MambaCacheMode::All => lcm(chunk_tokens.max(1), align),
        _ => align,
    };
    requested.max(step * div_ceil(mamba_state_bytes, step * attn_bytes))
}

/// vLLM's grouping of layers into KV-cache groups
/// (`vllm/v1/core/kv_cache_utils.py`, uniform page size): layers with the
/// same spec form a bucket; group size = the smallest bucket, or the largest
/// when max < 1.5 * min (in integers: 2 * max < 3 * min); each bucket splits
/// round-robin into `ceil(n / size)` groups (`layers[i::n]`, so 28 Mamba
/// layers in 5 groups are 6, 6, 6, 5, 5). `specs` holds one (kind, window,
/// KV bytes per token) per layer; a bucket's block is the layout's block
/// times `page_bytes_per_token / its bytes`.
fn group_layers(
    specs: &[LayerSpec],
    block_size: u64,
    page_bytes_per_token: u64,
    version: crate::version::VllmVersion,
) -> Result<(u64, Vec<KvGroup>)> {
    let mut buckets: Vec<(LayerSpec, u64)> = Vec::new();
    for spec in specs {
        match buckets.iter_mut().find(|b| b.0 == *spec) {
            Some(b) => b.1 += 1,
            None => buckets.push((*spec, 1)),
        }
    }
    let min = buckets.iter().map(|b| b.1).min().unwrap_or(0);
    let max = buckets.iter().map(|b| b.1).max().unwrap_or(0);
    if min == 0 {
        return Err(Error::new("the model has no attention or Mamba layers")
            .with_hint("check num_hidden_layers and hybrid_override_pattern"));
    }
    // The largest count sets the group size while below 1.5x (1.25x in
    // 0.12-0.17) the smallest; before 0.12 the smallest always does.
    let group_size = match version.grouping_ratio_quarters() {
        Some(q) if 4 * max < q * min => max,
        _ => min,
    };
    let mut groups = Vec::new();
    for ((kind, window_tokens, bytes), count) in buckets {
        let block_tokens = if kind == GroupKind::Mamba || bytes == 0 {
            block_size
        } else {
            block_size * (page_bytes_per_token / bytes)
        };
        let n = div_ceil(count, group_size);
        for i in 0..n {
            groups.push(KvGroup {
                kind,
                window_tokens,
                layers: div_ceil(count - i, n),
                slots: group_size,
                block_tokens,
                bytes_per_token: bytes,
            });
        }
    }
    Ok((group_size, groups))
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
            .map(|g| {
                layout.group_max_pages(g, engine.max_model_len_tokens)
                    * layout.page_bytes
                    * g.layers
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineSettings;
    use crate::presets;
    use approx::assert_relative_eq;

    const RTX3090_BYTES: u64 = 25_438_126_080;

    fn engine(settings: EngineSettings, max_pos: u64) -> EngineArgs {
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
    fn mamba_state_dtypes_change_the_page_and_block_size() {
        let model = presets::model("nemotron-nano-12b-v2").unwrap().model;
        let args = engine(
            EngineSettings {
                mamba_ssm_cache_dtype: Some("bfloat16".into()),
                ..EngineSettings::default()
            },
            model.max_position_embeddings,
        );
        let l = KvLayout::new(&model, &args).unwrap();
        // bf16 KV (auto): 8 x 512 = 4,096 B/token/layer; Mamba 73,728 + 2,621,440.
        assert_eq!(l.attention_bytes_per_token_per_layer, 4_096);
        assert_eq!(l.mamba_state_bytes_per_layer, 2_695_168);
        assert_eq!(l.block_size_tokens, 672); // 16 x ceil(2,695,168 / (16 x 4,096))
                                              // Without prefix caching, Mamba groups need one page per request, not three.
        let mut no_cache = args.clone();
        no_cache.enable_prefix_caching = false;
        let l = KvLayout::new(&model, &no_cache).unwrap();
        assert_eq!(l.mamba_cache_mode, MambaCacheMode::None);
        assert_eq!(l.max_pages_per_request(131_072), 196 + 5);
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
                num_heads: 16,
                num_kv_heads: 8,
                head_dim: 256,
                sliding_window_tokens: window,
                qkv_bias: false,
                qk_norm: true,
                output_gate: false,
                mla: None,
                kv_shared: false,
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

    #[test]
    fn grouping_ratio_follows_the_release() {
        use crate::version::VllmVersion;
        let v = VllmVersion::new;
        // Buckets of 8 full-attention and 11 sliding-window layers (1.375x),
        // and of 8 and 9 (1.125x).
        let specs = |a: usize, b: usize| -> Vec<LayerSpec> {
            let mut s = vec![(GroupKind::FullAttention, None, 1024); a];
            s.extend(vec![(GroupKind::SlidingWindow, Some(4096), 1024); b]);
            s
        };
        let size = |a, b, ver| group_layers(&specs(a, b), 16, 1024, ver).unwrap().0;
        // 0.18+: the larger count while below 1.5x; 0.12-0.17 below 1.25x;
        // before 0.12 the smaller count always.
        assert_eq!(size(8, 11, v(0, 18, 0)), 11);
        assert_eq!(size(8, 11, v(0, 17, 1)), 8);
        assert_eq!(size(8, 9, v(0, 12, 0)), 9);
        assert_eq!(size(8, 9, v(0, 11, 2)), 8);
    }
}
