//! DeepSeek-V4's KV cache as vLLM 0.32 allocates it: the caches each layer
//! registers, their pages, and the packed grouping of caches of different
//! page sizes into one per-block layout.
//!
//! Read from the vLLM 0.32.0 wheel (no code copied):
//! - `vllm/models/deepseek_v4/attention.py`: `DeepseekV4Attention.get_kv_cache_spec`
//!   (the compressed latents, `MLAAttentionSpec` with `tokens_per_state = r`,
//!   block `cache_config.block_size`, none for r = 1),
//!   `DeepseekV4IndexerCache.get_kv_cache_spec` (r = 4: the indexer's keys,
//!   fp8 128 + a 4-byte scale, one per 4 tokens), `_resolve_dsv4_kv_cache_dtype`
//!   (the FlashMLA layout turns `auto` and every `fp8*` dtype into
//!   `fp8_ds_mla` and refuses the rest);
//! - `vllm/v1/attention/backends/mla/sparse_swa.py`: `DeepseekV4SWACache`
//!   (every layer: the last `sliding_window` latents, 64-token blocks);
//! - `vllm/models/deepseek_v4/compressor.py`: `CompressorStateCache`
//!   (r > 1, and the indexer's: float32 running states of `2 x coff x head`
//!   over a window of `coff x r` tokens, blocks of 4 for r = 4 and 8 for
//!   r = 128);
//! - `vllm/v1/kv_cache_interface.py`: page sizes (`AttentionSpec`: states
//!   per block x bytes per state, `_apply_alignment_padding`: rounded up to
//!   576 B under `fp8_ds_mla`, else 512 B), `UniformTypeKVCacheSpecs`
//!   (caches of one type and block size share a group whose page is the sum
//!   of theirs), `SlidingWindowSpec.max_admission_blocks_per_request`;
//! - `vllm/v1/core/kv_cache_utils.py`: `_get_packed_kv_cache_groups` (the
//!   indexer backend declares block-outermost layouts, so the caches are
//!   bucketed by type and block size, balanced buckets split into groups of
//!   `_approximate_gcd` repeats of their pattern) and
//!   `_get_kv_cache_bytes_per_block` (one block is the widest group's pages,
//!   rounded up to the caches' block-stride alignments: 1 here, since every
//!   backend's kernel block is the cache's own block);
//! - `vllm/platforms/interface.py`, `_preferred_block_size_for_backends`:
//!   the sparse MLA (`[256]`), indexer (`[256]`), SWA (`MultipleOf(32)`) and
//!   compressor (`MultipleOf(1)`) backends agree on 256 tokens.
//!
//! docs/reference/pending-architectures.md works the figures for
//! DeepSeek-V4-Flash and -Pro.

use super::{GroupKind, KvGroup, KvLayout, MambaCacheMode};
use crate::dtype::KvCacheDtype;
use crate::engine::EngineArgs;
use crate::error::{Error, Result};
use crate::model::{AttentionLayer, Model};
use crate::units::div_ceil;

/// Tokens per block of the compressed and indexer caches: the only size the
/// V4 sparse MLA and indexer backends take.
pub const BLOCK_TOKENS: u64 = 256;
/// Tokens per block of the sliding-window cache (`DeepseekV4SWACache`'s
/// default, which the model does not change).
const SWA_BLOCK_TOKENS: u64 = 64;
/// Bytes of one latent in `fp8_ds_mla`: 448 fp8 values, 64 bf16 rotary
/// values (128 B), 7 UE8M0 scales (one per 64) and a pad byte.
pub const FP8_DS_MLA_STATE_BYTES: u64 = 584;
/// Page alignment under `fp8_ds_mla` (FlashMLA's stride).
const FP8_DS_MLA_ALIGN_BYTES: u64 = 576;

/// One cache one layer registers.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Cache {
    kind: GroupKind,
    window_tokens: Option<u64>,
    block_tokens: u64,
    page_bytes: u64,
}

/// A page of `block_tokens / tokens_per_state` states of `state_bytes`,
/// padded to the alignment.
fn page(block_tokens: u64, tokens_per_state: u64, state_bytes: u64) -> u64 {
    let raw = block_tokens / tokens_per_state.max(1) * state_bytes;
    div_ceil(raw, FP8_DS_MLA_ALIGN_BYTES) * FP8_DS_MLA_ALIGN_BYTES
}

/// The caches of one DeepSeek-V4 layer, in the order vLLM registers them
/// (the indexer's before the layer's own; the order changes no figure).
fn layer_caches(a: &AttentionLayer) -> Vec<Cache> {
    let Some(m) = a.mla else {
        return Vec::new();
    };
    let Some(v4) = m.dsv4 else {
        return Vec::new();
    };
    let latent = FP8_DS_MLA_STATE_BYTES;
    let r = v4.compress_ratio;
    let state = |head: u64, coff: u64, r: u64, block: u64| Cache {
        kind: GroupKind::SlidingWindow,
        window_tokens: Some(coff * r),
        block_tokens: block,
        page_bytes: page(block, 1, 2 * coff * head * 4),
    };
    let state_block = if r == 4 { 4 } else { 8 };
    let mut out = Vec::new();
    if let Some(i) = m.indexer {
        out.push(Cache {
            kind: GroupKind::FullAttention,
            window_tokens: None,
            block_tokens: BLOCK_TOKENS,
            page_bytes: page(BLOCK_TOKENS, r, i.cache_bytes_per_token()),
        });
        out.push(state(i.head_dim, 2, r, state_block));
    }
    out.push(Cache {
        kind: GroupKind::SlidingWindow,
        window_tokens: Some(v4.window_tokens),
        block_tokens: SWA_BLOCK_TOKENS,
        page_bytes: page(SWA_BLOCK_TOKENS, 1, latent),
    });
    if r > 1 {
        out.push(Cache {
            kind: GroupKind::FullAttention,
            window_tokens: None,
            block_tokens: BLOCK_TOKENS,
            page_bytes: page(BLOCK_TOKENS, r, latent),
        });
        out.push(state(
            m.kv_lora_rank + m.qk_rope_head_dim,
            v4.coff(),
            r,
            state_block,
        ));
    }
    out
}

/// Caches of one type and block size (a bucket of `UniformTypeKVCacheSpecs`):
/// how many of each page size, in the order they appeared.
struct Bucket {
    kind: GroupKind,
    window_tokens: Option<u64>,
    block_tokens: u64,
    pages: Vec<(u64, u64)>,
}

impl Bucket {
    fn total(&self) -> u64 {
        self.pages.iter().map(|p| p.1).sum()
    }

    /// Most caches of one page size: the pattern's repeats when balanced.
    fn max_per_page(&self) -> u64 {
        self.pages.iter().map(|p| p.1).max().unwrap_or(0)
    }

    /// As many caches of each page size: the bucket repeats one pattern.
    fn balanced(&self) -> bool {
        self.pages
            .iter()
            .all(|p| Some(&p.1) == self.pages.first().map(|f| &f.1))
    }
}

/// The chunk that pads `values` up least (ties to the larger), searched from
/// `lower` to the largest value (`_approximate_gcd`).
fn approximate_gcd(values: &[u64], lower: u64) -> u64 {
    let top = values.iter().copied().max().unwrap_or(0);
    let mut best = (lower.max(1), u64::MAX);
    for d in lower.max(1)..=top {
        let pad: u64 = values.iter().map(|x| (d - x % d) % d).sum();
        if pad <= best.1 {
            best = (d, pad);
        }
    }
    best.0
}

/// The groups of the packed grouping, each with its caches' pages summed.
fn packed_groups(buckets: &[Bucket]) -> Result<Vec<KvGroup>> {
    let floor = buckets
        .iter()
        .filter(|b| b.balanced() && b.pages.len() > 1)
        .map(Bucket::max_per_page)
        .max()
        .unwrap_or(0);
    let repeats = (floor > 0).then(|| {
        let counts: Vec<u64> = buckets
            .iter()
            .filter(|b| b.balanced())
            .map(Bucket::max_per_page)
            .collect();
        approximate_gcd(&counts, floor)
    });
    let groups_of = |b: &Bucket| match repeats {
        Some(r) if b.balanced() => div_ceil(b.max_per_page(), r),
        _ => 1,
    };
    // Sliding-window buckets with no repeat pattern may be split one state
    // per group to fit a block the others set: vLLM's "state buckets".
    if repeats.is_none() && buckets.iter().any(|b| b.kind == GroupKind::SlidingWindow) {
        return Err(Error::new(
            "this DeepSeek-V4 layer pattern packs its sliding-window caches as single states, which is not modelled",
        )
        .with_hint("the published checkpoints have layers that compress 4 tokens, whose caches set the pattern"));
    }
    let mut out = Vec::new();
    for b in buckets {
        // Unbalanced buckets stay whole (`groups_of`), so a split bucket
        // repeats one pattern of one cache per page size.
        let n = groups_of(b);
        let repeats = b.max_per_page();
        for i in 0..n {
            // Group i holds pattern repeats i, i + n, ...: one cache of
            // each page size per repeat.
            let reps = if n == 1 { 0 } else { div_ceil(repeats - i, n) };
            let (layers, pages_bytes) = if n == 1 {
                (b.total(), b.pages.iter().map(|(p, c)| p * c).sum())
            } else {
                (
                    reps * b.pages.len() as u64,
                    reps * b.pages.iter().map(|p| p.0).sum::<u64>(),
                )
            };
            out.push(KvGroup {
                kind: b.kind,
                window_tokens: b.window_tokens,
                layers,
                slots: layers,
                block_tokens: b.block_tokens,
                bytes_per_token: div_ceil(pages_bytes, b.block_tokens * layers.max(1)),
                pages_bytes,
            });
        }
    }
    Ok(out)
}

/// Whether vLLM 0.32 can run DeepSeek-V4's attention on `gpu` as modelled:
/// its CUDA attention is FlashMLA's sparse kernels, which
/// `vllm/v1/attention/ops/flashmla.py` (`is_flashmla_sparse_supported`)
/// allows on the compute-capability families 9.0 and 10.x only, or on
/// SM12x FlashInfer's class in the same fp8_ds_mla layout
/// (`_select_dsv4_attn_cls`, `vllm/models/deepseek_v4/nvidia/model.py`).
/// Older CUDA GPUs cannot run it; AMD GPUs take vLLM's ROCm path
/// (`deepseek_v4/amd/`), which is not modelled.
pub fn check_gpu(model: &Model, gpu: &crate::gpu::Gpu) -> Result<()> {
    use crate::gpu::Arch;
    if !model.has_dsv4_attention() {
        return Ok(());
    }
    match gpu.arch {
        Arch::Sm90 | Arch::Sm100 | Arch::Sm103 | Arch::Sm120 | Arch::Sm121 => Ok(()),
        Arch::Gfx942 | Arch::Gfx950 => Err(Error::new(format!(
            "--gpu {}: DeepSeek-V4 on AMD GPUs runs vLLM's ROCm attention path, which is not modelled",
            gpu.id
        ))
        .with_hint("pick an NVIDIA Hopper or Blackwell GPU (h100, h200, b200, gb200, rtx-pro-6000, ...)")
        .of_kind(crate::ErrorKind::Other)),
        _ => Err(Error::new(format!(
            "--gpu {}: vLLM 0.32 cannot run DeepSeek-V4 on {} ({}): its sparse MLA attention (FlashMLA) needs compute capability 9.0 or 10.x, or FlashInfer's class on 12.x",
            gpu.id,
            gpu.name,
            gpu.arch.info().name
        ))
        .with_hint("pick a Hopper or Blackwell GPU (h100, h200, b200, gb200, rtx-pro-6000, rtx5090, ...)")
        .of_kind(crate::ErrorKind::WouldNotStart)),
    }
}

/// The KV dtypes vLLM 0.32 serves DeepSeek-V4 with: its FlashMLA attention
/// stores every fp8 dtype as `fp8_ds_mla` (`_resolve_dsv4_kv_cache_dtype`)
/// and refuses the rest. Engine resolution asks (`EngineArgs::for_model`),
/// so a setup vLLM refuses is refused before its capacity is worked out
/// (and `rank` skips it as it skips every setup `for_model` refuses).
pub fn check_kv_dtype(model: &Model, kv: KvCacheDtype) -> Result<()> {
    match kv {
        _ if !model.has_dsv4_attention() => Ok(()),
        KvCacheDtype::Auto
        | KvCacheDtype::Fp8
        | KvCacheDtype::Fp8E4m3
        | KvCacheDtype::Fp8E5m2
        | KvCacheDtype::Fp8PerTokenHead => Ok(()),
        other => Err(Error::field("--kv-cache-dtype", other.name(), "auto or an fp8 dtype")
            .with_hint("vLLM 0.32's DeepSeek-V4 FlashMLA attention stores its KV cache as fp8_ds_mla and refuses other dtypes (FlashInfer's bf16 rows on SM100 are not modelled)")),
    }
}

/// DeepSeek-V4's KV layout under `engine`.
pub(super) fn layout(model: &Model, engine: &EngineArgs) -> Result<KvLayout> {
    if engine.vllm_version < crate::version::MODELLED {
        return Err(Error::new(format!(
            "DeepSeek-V4's KV cache is modelled from vLLM {} only; vLLM {} is not",
            crate::version::MODELLED,
            engine.vllm_version
        ))
        .with_hint("the release that first served DeepSeek-V4 and its KV layout then are not established; use --vllm-version 0.32.0"));
    }
    check_kv_dtype(model, engine.kv_cache_dtype)?;
    // `_select_dsv4_attn_cls` (nvidia/model.py): FlashMLA unless a FlashInfer
    // backend is named (or on SM12x, whose FlashInfer class keeps the
    // fp8_ds_mla layout); FlashInfer's SM100 class stores plain bf16 or fp8
    // rows, with other pages, which are not modelled.
    if let Some(b) = engine
        .attention_backend
        .as_deref()
        .filter(|b| !b.starts_with("FLASHMLA"))
    {
        return Err(Error::field(
            "--attention-backend",
            b,
            "FLASHMLA_SPARSE or FLASHMLA_SPARSE_DSV4, or none",
        )
        .with_hint(
            "DeepSeek-V4's KV cache is modelled for vLLM 0.32's FlashMLA layout (fp8_ds_mla) only",
        ));
    }
    if let Some(b) = engine.block_size_tokens.filter(|b| *b != BLOCK_TOKENS) {
        return Err(
            Error::field("--block-size", b, format!("{BLOCK_TOKENS}")).with_hint(
                "DeepSeek-V4's sparse MLA and indexer backends take 256-token blocks only",
            ),
        );
    }
    let mut buckets: Vec<Bucket> = Vec::new();
    for a in model.attention_layers() {
        if a.mla.and_then(|m| m.dsv4).is_none() {
            return Err(Error::new(
                "a model mixing DeepSeek-V4 attention with other attention layers is not modelled",
            ));
        }
        for c in layer_caches(a) {
            let same = |b: &&mut Bucket| {
                b.kind == c.kind
                    && b.window_tokens == c.window_tokens
                    && b.block_tokens == c.block_tokens
            };
            match buckets.iter_mut().find(same) {
                Some(b) => match b.pages.iter_mut().find(|p| p.0 == c.page_bytes) {
                    Some(p) => p.1 += 1,
                    None => b.pages.push((c.page_bytes, 1)),
                },
                None => buckets.push(Bucket {
                    kind: c.kind,
                    window_tokens: c.window_tokens,
                    block_tokens: c.block_tokens,
                    pages: vec![(c.page_bytes, 1)],
                }),
            }
        }
    }
    let groups = packed_groups(&buckets)?;
    let bytes_per_block = groups.iter().map(|g| g.pages_bytes).max().unwrap_or(0);
    Ok(KvLayout {
        kv_cache_dtype: engine.kv_cache_dtype,
        attention_bytes_per_token_per_layer: FP8_DS_MLA_STATE_BYTES,
        mamba_conv_state_bytes_per_layer: 0,
        mamba_ssm_state_bytes_per_layer: 0,
        mamba_state_bytes_per_layer: 0,
        mamba_conv_dtype: None,
        mamba_ssm_dtype: None,
        mamba_cache_mode: MambaCacheMode::None,
        block_size_tokens: BLOCK_TOKENS,
        page_bytes: bytes_per_block,
        group_size_layers: groups.iter().map(|g| g.layers).max().unwrap_or(0),
        bytes_per_block,
        groups,
        in_flight_tokens: engine
            .max_num_batched_tokens
            .saturating_mul(super::layout::in_flight_batches(engine)),
        mamba_checkpoint_pages: 0,
        mamba_spec_pages: 0,
        vllm_version: engine.vllm_version,
        packed: true,
    })
}
