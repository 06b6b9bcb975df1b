//! The KV cache's layout: each layer's page (attention KV bytes per token,
//! the Mamba state in its dtypes), the hybrid block-size alignment that makes
//! an attention page hold a Mamba state, and vLLM's grouping of layers into
//! KV-cache groups of one page size (docs/reference/vllm-memory-model.md
//! section 2).

use crate::dtype::{FloatDtype, KvCacheDtype, MambaDtype};
use crate::engine::{defaults, EngineArgs};
use crate::error::{Error, Result};
use crate::model::Model;
use crate::units::{div_ceil, lcm};
use serde::Serialize;

use super::MambaCacheMode;

/// What kind of layers a KV-cache group holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupKind {
    FullAttention,
    SlidingWindow,
    /// Chunked local attention (`ChunkedLocalAttentionSpec`): the group's
    /// `window_tokens` is the chunk.
    ChunkedLocal,
    Mamba,
}

/// One KV-cache group: `layers` real layers in `slots` (= group size) slots;
/// the difference is padding that costs memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct KvGroup {
    pub kind: GroupKind,
    /// The window of a sliding-window group, or the chunk of a
    /// chunked-local one, tokens.
    pub window_tokens: Option<u64>,
    pub layers: u64,
    pub slots: u64,
    /// Tokens per block of this group. Equal to the layout's block size
    /// unless the model's attention layers differ in KV bytes per token
    /// (Gemma 4's global layers): vLLM then scales the block size of the
    /// smaller specs so every page has the same bytes
    /// (`vllm/v1/core/kv_cache_utils.py`, `unify_kv_cache_spec_page_size`).
    pub block_tokens: u64,
    /// KV bytes one token takes in one layer of this group (0 for Mamba;
    /// rounded up for a packed group of caches of several page sizes).
    pub bytes_per_token: u64,
    /// Bytes one block of this group holds over its layers: their pages
    /// summed (a padding slot holds none). A packed group's caches differ
    /// in page size (DeepSeek-V4, `allocator::dsv4`).
    pub pages_bytes: u64,
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
    /// Groups of caches of different page sizes packed side by side in one
    /// block (vLLM's block-outermost layout, DeepSeek-V4): a block is the
    /// widest group's pages, `page_bytes` is that block, and
    /// `attention_bytes_per_token_per_layer` one compressed latent.
    pub packed: bool,
}

/// An attention layer's bucket: layers with the same spec share groups
/// (full attention, each sliding window, each chunk; also by KV bytes per
/// token). Chunked local layers are full attention to the allocator before
/// 0.14 (`version::CHUNKED_LOCAL_GROUPS`).
fn layer_spec(
    a: &crate::model::AttentionLayer,
    kv_bytes_per_token: u64,
    version: crate::version::VllmVersion,
) -> LayerSpec {
    let (kind, window) = match (a.sliding_window_tokens, a.chunk_tokens) {
        (Some(w), _) => (GroupKind::SlidingWindow, Some(w)),
        (None, Some(c)) if version.chunked_local_groups() => (GroupKind::ChunkedLocal, Some(c)),
        _ => (GroupKind::FullAttention, None),
    };
    (kind, window, kv_bytes_per_token)
}

/// How many steps' tokens are in flight at once: one per pipeline stage,
/// two under async scheduling from `version::SLIDING_IN_FLIGHT_TOKENS`.
pub(super) fn in_flight_batches(engine: &EngineArgs) -> u64 {
    if engine.pipeline_parallel_size > 1 {
        engine.pipeline_parallel_size
    } else if engine.async_scheduling
        && engine.vllm_version >= crate::version::SLIDING_IN_FLIGHT_TOKENS
    {
        2
    } else {
        1
    }
}

impl KvLayout {
    pub fn new(model: &Model, engine: &EngineArgs) -> Result<KvLayout> {
        if model.has_dsv4_attention() {
            return super::dsv4::layout(model, engine);
        }
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
        let k = engine
            .speculative
            .as_ref()
            .map_or(0, |sp| sp.num_speculative_tokens);
        let state_of = |m: &crate::model::StateShape| {
            (
                (m.conv_elems + k * m.spec_row_elems) * conv_dtype.bytes(),
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
        let mut specs: Vec<LayerSpec> = attn
            .iter()
            .map(|a| layer_spec(a, bytes_of(a), version))
            .collect();
        specs.extend(mamba.iter().map(|_| (GroupKind::Mamba, None, 0)));
        let (group_size, mut groups) = group_layers(&specs, block_size, attn_bytes, version)?;
        for g in &mut groups {
            g.pages_bytes = g.layers * page;
        }
        let in_flight_batches = in_flight_batches(engine);
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
            packed: false,
        })
    }
}

impl KvLayout {
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
                pages_bytes: 0,
            });
        }
    }
    Ok((group_size, groups))
}

#[cfg(test)]
mod tests {
    use super::super::tests::engine;
    use super::*;
    use crate::engine::EngineSettings;
    use crate::presets;

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
