//! vLLM releases: what changed between them that decodecalc models, each
//! entry citing the file and tagged release it was read from
//! (docs/reference/vllm-versions.md: the PyPI sources of 36 releases from
//! 0.10.0 to 0.32.0, compared with grep and diff; docs/reference/
//! vllm-decode-kernels.md for the timing entries; no code copied).
//!
//! The capacity model follows the release a user names (`--vllm-version`,
//! `vllm_version` in a scenario, or the image tag of a pasted launch line)
//! from [`CAPACITY_OLDEST`] to [`NEWEST`]; each boundary below is one
//! constant, used by the rule it gates and listed in [`CHANGES`], the table
//! the README prints. The timing model is one model for every release; its
//! runs reach back to [`OLDEST`].

use crate::error::AsSubject;
use crate::error::{Error, Result};
use serde::Serialize;

/// A vLLM release, `major.minor.patch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::version))]
pub struct VllmVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

/// The releases whose step structure and scheduler defaults are tabled here
/// (measured runs for the timing fit).
pub const OLDEST: VllmVersion = VllmVersion::new(0, 6, 0);
pub const NEWEST: VllmVersion = VllmVersion::new(0, 33, 0);

/// The oldest release whose memory accounting and allocator are tabled
/// (`--vllm-version` accepts [`CAPACITY_OLDEST`]..=[`NEWEST`]).
pub const CAPACITY_OLDEST: VllmVersion = VllmVersion::new(0, 10, 0);

/// The release decodecalc models when none is named.
pub const MODELLED: VllmVersion = VllmVersion::new(0, 32, 0);

const fn v(minor: u32, patch: u32) -> VllmVersion {
    VllmVersion::new(0, minor, patch)
}

// Each boundary: the first tagged release with the new rule.
/// `--async-scheduling` is on unless disabled (`config/scheduler.py`).
pub const ASYNC_SCHEDULING_DEFAULT: VllmVersion = v(14, 0);
/// Chunked local attention layers (Llama 4's RoPE layers) get KV-cache
/// groups of their own (`ChunkedLocalAttentionSpec`, `v1/kv_cache_interface.py`):
/// `VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE` defaults to "1" in
/// 0.14.0's `envs.py` and to "0" in 0.13.0's (vLLM PR #29627; off since PR
/// #21761), and while it is off `VllmConfig` turns the hybrid KV-cache
/// manager off for a model with chunked local attention, so every layer is
/// allocated as full attention (docs/reference/pending-architectures.md).
pub const CHUNKED_LOCAL_GROUPS: VllmVersion = v(14, 0);
/// MiniMax-M2's cross-head q and k norms share one all-reduce of each
/// token's two sums of squares (vLLM PR #31493; `forward_qk`,
/// model_executor/layers/mamba/linear_attn.py); two before, one per norm.
pub const QK_NORM_ONE_ALLREDUCE: VllmVersion = v(14, 0);
/// `requested = ceil(total * utilization)` (`v1/worker/utils.py`,
/// `request_memory`); before, the product is not rounded up.
pub const REQUEST_ROUNDS_UP: VllmVersion = v(14, 0);
/// The CUDA-graph estimate (`profile_cudagraph_memory`) is subtracted from
/// the KV budget by default: `VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`
/// defaults to 1 (`envs.py`, `v1/worker/gpu_worker.py`); 0.18-0.19 profile
/// it but subtract it only when the variable is set.
pub const CUDAGRAPH_IN_BUDGET: VllmVersion = v(20, 0);
/// `gpu_memory_utilization` defaults to 0.92 (`config/cache.py`); 0.9 before.
pub const UTILIZATION_092: VllmVersion = v(20, 0);
/// A 160 GiB tier of batch defaults: 1024 sequences, 16,384 tokens for the
/// server too (`engine/arg_utils.py`, `get_batch_defaults`).
pub const BATCH_TIER_160_GIB: VllmVersion = v(28, 0);
/// Prefix caching defaults on for hybrid (attention + Mamba) models
/// (`config/model.py`, `is_prefix_caching_supported`); off from 0.10.2.
pub const HYBRID_PREFIX_CACHING: VllmVersion = v(26, 0);
/// Hybrid models may cache Mamba states for prefix caching (opt-in, for
/// models with `SupportsMambaPrefixCaching`: `model_executor/models/config.py`).
pub const MAMBA_PREFIX_CACHING: VllmVersion = v(11, 1);
/// `mamba_cache_mode` exists (`config/cache.py`); before, prefix caching of
/// a hybrid model cached every block's state (the later `all` mode).
pub const MAMBA_CACHE_MODES: VllmVersion = v(15, 0);
/// With prefix caching the default mode is `align` for every model
/// (`model_executor/models/config.py`); before, `all` where supported.
pub const MAMBA_ALIGN_DEFAULT: VllmVersion = v(28, 0);
/// Mamba2 mixers reserve one prefill-checkpoint page in `align` mode
/// (`model_executor/layers/mamba/mamba_mixer2.py`,
/// `num_prefill_checkpoint_blocks = 1`; `v1/kv_cache_interface.py`).
pub const MAMBA2_CHECKPOINT_PAGE: VllmVersion = v(32, 0);
/// A hybrid model (any Mamba, DeltaNet or short-convolution layer) with full
/// CUDA graphs refuses to start when `max_num_seqs` exceeds the KV pool's
/// blocks, one Mamba state block per decode sequence
/// (`resolve_cudagraph_mode_and_sizes`, config/compilation.py; vLLM PR
/// #38270, merged 2026-03-26). 0.18-0.19 capped the capture sizes instead:
/// Qwen3.6-27B-FP8 on one H100 at 0.95 reached CUDA-graph capture on 0.19.0
/// with 856 blocks for 1,024 sequences (vllm-project/recipes PR #551), and
/// NeMo-RL's Nemotron-Nano-12B-v2 runs started on 0.17.1 and were refused
/// on 0.20.0 (NVIDIA-NeMo/RL issue #2620).
pub const MAMBA_BLOCKS_CHECK: VllmVersion = v(20, 0);
/// The logged "GPU KV cache size" is `int(concurrency * max_model_len)`
/// (`v1/core/kv_cache_utils.py`); before, `(num_blocks // groups) * block`.
pub const KV_SIZE_FROM_CONCURRENCY: VllmVersion = v(20, 1);
/// Layer grouping: a type's layer count may reach 1.5x the group size
/// (`_get_kv_cache_groups_uniform_page_size`); 1.25x from 0.12.0, the
/// smallest count before.
pub const GROUPING_125: VllmVersion = v(12, 0);
pub const GROUPING_150: VllmVersion = v(18, 0);
/// CUDA-graph capture sizes step by 16 from 256 (`config/vllm.py`,
/// `_set_cudagraph_sizes`); by 8 throughout before.
pub const CAPTURE_STEP_16: VllmVersion = v(11, 1);
/// `max_num_batched_tokens` joins the capture sizes when it fits.
pub const CAPTURE_ADDS_BATCHED_TOKENS: VllmVersion = v(20, 1);
/// `max_num_seqs` joins the capture sizes when it fits.
pub const CAPTURE_ADDS_MAX_NUM_SEQS: VllmVersion = v(31, 0);
/// With speculative decoding the largest capture size is
/// `min(max_num_seqs x (1 + k) x 2, 512)`: a decode step runs 1 + k tokens
/// per request (`config/vllm.py`, `_set_cudagraph_sizes`).
pub const CAPTURE_SPEC_TOKENS: VllmVersion = v(13, 0);
/// Qwen3-VL prices its largest video item at its soft tokens; before, at
/// `int(soft tokens x 12.5)` for the timestamp text each token expands to
/// (`model_executor/models/qwen3_vl.py`, `get_max_video_tokens`, 0.11.0 to
/// 0.12.0), so the video (153,600 tokens) outranked the image (16,384)
/// as the profile's dummy item.
pub const QWEN_VL_VIDEO_SOFT_TOKENS: VllmVersion = v(13, 0);
/// The profile run caches each dummy encoder output as it is; before, an
/// output with fewer rows than the encoder budget was copied into zeros of
/// `[encoder budget, width]`, held through the text forward
/// (`v1/worker/gpu_model_runner.py`, `profile_run`, 0.11.0 to 0.12.0).
pub const MM_OUTPUTS_UNPADDED: VllmVersion = v(13, 0);
/// With speculative decoding the capture sizes gain `n x (1 + k)` for the
/// request counts `n` of the size grid (uniform decode batches).
pub const CAPTURE_SPEC_UNIFORM_DECODE: VllmVersion = v(29, 0);
/// A sliding window reserves `2 x max_num_batched_tokens` of in-flight
/// tokens under async scheduling (`v1/kv_cache_interface.py`,
/// `max_in_flight_tokens`); one budget before.
pub const SLIDING_IN_FLIGHT_TOKENS: VllmVersion = v(26, 0);
/// NemotronH's SSM state defaults to float32 when config.json names none
/// (`model_executor/models/config.py`, `NemotronHForCausalLMConfig`);
/// float16 in 0.13-0.19.
pub const NEMOTRON_H_SSM_FP32: VllmVersion = v(20, 0);
/// Non-KV memory is the drop in free memory over start-up plus the
/// transient peak (`utils/mem_utils.py`), so torch buffers the runner
/// allocated before the profile count; before, weights + torch peak
/// increase + non-torch increase, which leaves them out.
pub const NON_KV_FROM_FREE_MEMORY: VllmVersion = v(27, 0);
/// TREE_ATTN leaves the backend registry (`v1/attention/backends/registry.py`).
/// Before 0.13 vLLM took the backend from `VLLM_ATTENTION_BACKEND`, which
/// decodecalc's `--attention-backend` then stands for.
pub const TREE_ATTN_REMOVED: VllmVersion = v(21, 0);
/// `--kv-cache-memory-bytes` exists (`config/cache.py`).
pub const KV_CACHE_MEMORY_BYTES_FLAG: VllmVersion = v(10, 2);
/// `vllm bench serve` draws its arrival gaps up front and rescales them to
/// end at `num_prompts / rate` (`crate::arrivals::Pacing`).
pub const BENCH_ARRIVALS_RESCALED: VllmVersion = v(10, 0);

/// `--kv-cache-dtype` values, by first release (`config/cache.py`).
pub const KV_DTYPE_BFLOAT16: VllmVersion = v(11, 0);
pub const KV_DTYPE_FLOAT16: VllmVersion = v(18, 0);
pub const KV_DTYPE_PER_TOKEN_HEAD: VllmVersion = v(20, 0);
pub const KV_DTYPE_INT4_PER_TOKEN_HEAD: VllmVersion = v(25, 0);

/// MXFP4 experts on the TRITON MoE backend (docs/reference/
/// gpt-oss-mxfp4-weights.md): the bundled Triton kernels of 0.17-0.21 pad
/// the swizzled values to 64 bytes (`cmake/external_projects/
/// triton_kernels.cmake` tags); the checkpoint's block scales are freed from
/// 0.25 (`fused_moe/oracle/mxfp4.py`); the swizzled scales' K is padded to 4
/// from 0.26 (`quantization/utils/mxfp4_utils.py`).
pub const MXFP4_VALUE_PAD: std::ops::Range<VllmVersion> = v(17, 0)..v(22, 0);
pub const MXFP4_SCALES_FREED: VllmVersion = v(25, 0);
pub const MXFP4_SCALE_K_PAD_4: VllmVersion = v(26, 0);

/// One row of the table of changes.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Change {
    pub since: VllmVersion,
    pub what: &'static str,
    /// The vLLM file it was read from, in the `since` release.
    pub file: &'static str,
}

/// What changed, release by release, in what decodecalc models.
pub static CHANGES: &[Change] = &[
    Change { since: BENCH_ARRIVALS_RESCALED, what: "`vllm bench serve` at a finite rate: gaps drawn up front and rescaled so the last request is due at num_prompts / rate (the first sent at once and a fresh gap after each, before)", file: "benchmarks/serve.py" },
    Change { since: KV_CACHE_MEMORY_BYTES_FLAG, what: "`--kv-cache-memory-bytes` sets the KV pool outright", file: "config/cache.py" },
    Change { since: KV_DTYPE_BFLOAT16, what: "`--kv-cache-dtype bfloat16`", file: "config/cache.py" },
    Change { since: CAPTURE_STEP_16, what: "CUDA-graph capture sizes step by 16 from 256 (by 8 before)", file: "config/vllm.py" },
    Change { since: MAMBA_PREFIX_CACHING, what: "hybrid prefix caching (opt-in) caches every block's Mamba state (none before)", file: "model_executor/models/config.py" },
    Change { since: GROUPING_125, what: "KV groups: a layer type may have up to 1.25x the group size (the smallest count before)", file: "v1/core/kv_cache_utils.py" },
    Change { since: CAPTURE_SPEC_TOKENS, what: "speculative decoding: the largest capture size is min(max_num_seqs x (1 + k) x 2, 512)", file: "config/vllm.py" },
    Change { since: QWEN_VL_VIDEO_SOFT_TOKENS, what: "Qwen3-VL's video item counts its soft tokens (x 12.5 for timestamps before, which made it the profile's dummy item)", file: "model_executor/models/qwen3_vl.py" },
    Change { since: MM_OUTPUTS_UNPADDED, what: "multimodal profile: encoder outputs cached as they are (padded with zeros to the encoder budget's rows before)", file: "v1/worker/gpu_model_runner.py" },
    Change { since: REQUEST_ROUNDS_UP, what: "the requested budget is `ceil(total x utilization)`", file: "v1/worker/utils.py" },
    Change { since: QK_NORM_ONE_ALLREDUCE, what: "MiniMax-M2 under tensor parallelism: one all-reduce per layer for its cross-head q and k norms (two before)", file: "model_executor/layers/mamba/linear_attn.py, model_executor/models/minimax_m2.py" },
    Change { since: ASYNC_SCHEDULING_DEFAULT, what: "async scheduling on by default", file: "config/scheduler.py" },
    Change { since: CHUNKED_LOCAL_GROUPS, what: "chunked local attention layers (Llama 4) get their own KV groups, a chunk plus the in-flight tokens per request (allocated as full attention before: the hybrid KV-cache manager was off for them)", file: "envs.py (VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE), v1/kv_cache_interface.py" },
    Change { since: MAMBA_CACHE_MODES, what: "`mamba_cache_mode` none / all / align (hybrid prefix caching cached every block's state before)", file: "config/cache.py" },
    Change { since: MXFP4_VALUE_PAD.start, what: "MXFP4 experts (TRITON backend): values padded to 64 bytes, through 0.21", file: "cmake/external_projects/triton_kernels.cmake" },
    Change { since: KV_DTYPE_FLOAT16, what: "`--kv-cache-dtype float16`", file: "config/cache.py" },
    Change { since: GROUPING_150, what: "KV groups: up to 1.5x the group size", file: "v1/core/kv_cache_utils.py" },
    Change { since: KV_DTYPE_PER_TOKEN_HEAD, what: "`--kv-cache-dtype fp8_per_token_head` and `int8_per_token_head`", file: "config/cache.py" },
    Change { since: UTILIZATION_092, what: "`--gpu-memory-utilization` defaults to 0.92 (0.9 before)", file: "config/cache.py" },
    Change { since: CUDAGRAPH_IN_BUDGET, what: "the CUDA-graph estimate is subtracted from the KV budget (profiled, not subtracted, in 0.18-0.19; not profiled before)", file: "envs.py, v1/worker/gpu_worker.py" },
    Change { since: MAMBA_BLOCKS_CHECK, what: "a hybrid model with CUDA graphs refuses to start when max_num_seqs exceeds the KV pool's blocks (capture sizes were capped instead)", file: "config/compilation.py" },
    Change { since: NEMOTRON_H_SSM_FP32, what: "NemotronH's SSM state defaults to float32 (float16 before)", file: "model_executor/models/config.py" },
    Change { since: KV_SIZE_FROM_CONCURRENCY, what: "logged KV cache tokens = int(concurrency x max_model_len) ((num_blocks // groups) x block size before)", file: "v1/core/kv_cache_utils.py" },
    Change { since: CAPTURE_ADDS_BATCHED_TOKENS, what: "`max_num_batched_tokens` is a capture size when it fits", file: "config/vllm.py" },
    Change { since: TREE_ATTN_REMOVED, what: "the TREE_ATTN attention backend is gone", file: "v1/attention/backends/registry.py" },
    Change { since: MXFP4_SCALES_FREED, what: "MXFP4 experts: the checkpoint's block scales are freed after swizzling (kept before)", file: "model_executor/layers/fused_moe/oracle/mxfp4.py" },
    Change { since: KV_DTYPE_INT4_PER_TOKEN_HEAD, what: "`--kv-cache-dtype int4_per_token_head`", file: "config/cache.py" },
    Change { since: MXFP4_SCALE_K_PAD_4, what: "MXFP4 experts: swizzled scales padded to 4 groups (2 before)", file: "model_executor/layers/quantization/utils/mxfp4_utils.py" },
    Change { since: HYBRID_PREFIX_CACHING, what: "prefix caching on by default for hybrid models (so Mamba states are cached: `all` mode where supported)", file: "config/model.py" },
    Change { since: SLIDING_IN_FLIGHT_TOKENS, what: "a sliding window reserves 2 x max_num_batched_tokens in flight under async scheduling", file: "v1/kv_cache_interface.py" },
    Change { since: NON_KV_FROM_FREE_MEMORY, what: "non-KV memory = the drop in free memory + the transient peak (the runner's buffers now count; weights + peak + non-torch growth before)", file: "utils/mem_utils.py, v1/worker/gpu_worker.py" },
    Change { since: BATCH_TIER_160_GIB, what: "GPUs of 160 GiB or more: 1024 sequences, 16,384 batched tokens", file: "engine/arg_utils.py" },
    Change { since: MAMBA_ALIGN_DEFAULT, what: "hybrid prefix caching uses `align` mode (2 state pages per request)", file: "model_executor/models/config.py" },
    Change { since: CAPTURE_SPEC_UNIFORM_DECODE, what: "speculative decoding: the capture sizes gain n x (1 + k) for the grid's request counts n", file: "config/vllm.py" },
    Change { since: CAPTURE_ADDS_MAX_NUM_SEQS, what: "`max_num_seqs` is a capture size when it fits", file: "config/vllm.py" },
    Change { since: MAMBA2_CHECKPOINT_PAGE, what: "Mamba2 layers reserve a third page (prefill checkpoint) in `align` mode", file: "model_executor/layers/mamba/mamba_mixer2.py" },
];

/// The releases a form offers: every minor release the capacity table
/// covers and every patch release where a rule changes.
pub fn tabled_releases() -> Vec<VllmVersion> {
    crate::units::sorted_set(
        (CAPACITY_OLDEST.minor..=NEWEST.minor)
            .map(|m| VllmVersion::new(0, m, 0))
            .chain(CHANGES.iter().map(|c| c.since)),
    )
}

/// How a hybrid model's Mamba states are cached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MambaCacheMode {
    /// No prefix caching of states: one page per request.
    None,
    /// Two pages per request (running and block-boundary state), three for
    /// Mamba2 from 0.32 (a prefill checkpoint).
    Align,
    /// Every block's state: one page per attention block of the request,
    /// with blocks aligned to the Mamba chunk size.
    All,
}

/// Model types that support `all` mode (`SupportsMambaPrefixCaching` in
/// 0.15-0.27: mamba, mamba2, jamba, zamba2, bamba, nemotron_h,
/// granitemoehybrid, falcon_h1), by `architectures` name prefix.
const MAMBA_ALL_MODE_ARCHITECTURES: [&str; 8] = [
    "MambaForCausalLM",
    "Mamba2ForCausalLM",
    "JambaForCausalLM",
    "Zamba2ForCausalLM",
    "BambaForCausalLM",
    "NemotronHForCausalLM",
    "GraniteMoeHybridForCausalLM",
    "FalconH1ForCausalLM",
];

/// The first release that accepts each `--kv-cache-dtype` decodecalc
/// models (`config/cache.py`, `CacheDType`); auto and the fp8 forms are in
/// every tabled release.
pub fn kv_cache_dtype_since(dtype: crate::dtype::KvCacheDtype) -> VllmVersion {
    use crate::dtype::KvCacheDtype as K;
    match dtype {
        K::Auto | K::Fp8 | K::Fp8E4m3 | K::Fp8E5m2 => CAPACITY_OLDEST,
        K::Bfloat16 => KV_DTYPE_BFLOAT16,
        K::Float16 => KV_DTYPE_FLOAT16,
        K::Fp8PerTokenHead | K::Int8PerTokenHead => KV_DTYPE_PER_TOKEN_HEAD,
        K::Int4PerTokenHead => KV_DTYPE_INT4_PER_TOKEN_HEAD,
    }
}

/// The releases in which an attention backend name exists
/// (`v1/attention/backends/registry.py`; `platforms/interface.py` before
/// 0.11.1): `(name, first release, release that removed it)`.
pub const ATTENTION_BACKEND_RELEASES: [(&str, VllmVersion, Option<VllmVersion>); 12] = [
    ("FLASH_ATTN", v(10, 0), None),
    ("FLASHINFER", v(10, 0), None),
    // 0.10 spells it TRITON_ATTN_VLLM_V1 (accepted as the same name).
    ("TRITON_ATTN", v(10, 0), None),
    ("FLEX_ATTENTION", v(10, 0), None),
    ("TREE_ATTN", v(11, 0), Some(TREE_ATTN_REMOVED)),
    ("FLASHMLA", v(10, 0), None),
    ("FLASH_ATTN_MLA", v(10, 2), None),
    ("FLASHINFER_MLA", v(10, 2), None),
    ("TRITON_MLA", v(10, 0), None),
    ("CUTLASS_MLA", v(10, 1), None),
    ("ROCM_ATTN", v(11, 0), None),
    ("ROCM_AITER_FA", v(10, 0), None),
];

impl VllmVersion {
    pub const fn new(major: u32, minor: u32, patch: u32) -> VllmVersion {
        VllmVersion {
            major,
            minor,
            patch,
        }
    }

    /// `0.6.3`, `0.11`, `v0.23.0`, `0.10.1.post1` (the post and dev tails are
    /// ignored); refused outside [`OLDEST`]..=[`NEWEST`].
    pub fn parse(field: impl AsSubject, text: &str) -> Result<VllmVersion> {
        VllmVersion::parse_from(field, text, OLDEST)
    }

    /// [`VllmVersion::parse`] with its own oldest release.
    fn parse_from(field: impl AsSubject, text: &str, oldest: VllmVersion) -> Result<VllmVersion> {
        let t = text.trim().trim_start_matches('v');
        let mut parts = t.split(['.', '+', '-']);
        let mut num = || parts.next().and_then(|p| p.parse::<u32>().ok());
        let (Some(major), Some(minor)) = (num(), num()) else {
            return Err(Error::field(
                field,
                text,
                "a vLLM release such as 0.32.0 or 0.11",
            ));
        };
        let patch = num().unwrap_or(0);
        let v = VllmVersion::new(major, minor, patch);
        if v < oldest || v > NEWEST {
            let why = if oldest == OLDEST {
                ""
            } else {
                " (the releases whose memory accounting is tabled)"
            };
            return Err(Error::field(
                field,
                text,
                format!("a vLLM release from {oldest} to {NEWEST}{why}"),
            ));
        }
        Ok(v)
    }

    /// The V1 engine is the default from 0.8.0 (`envs.py`, `VLLM_USE_V1`);
    /// V0 is removed in 0.11.0.
    pub fn v1_engine(self) -> bool {
        self >= VllmVersion::new(0, 8, 0)
    }

    /// `--async-scheduling` is on unless disabled from 0.14.0
    /// (`config/scheduler.py`, `config/vllm.py`: `async_scheduling=None` is
    /// auto-on); 0.10.0 to 0.13 have the flag, off by default; before, no
    /// such mode.
    pub fn async_scheduling_default(self) -> bool {
        self >= ASYNC_SCHEDULING_DEFAULT
    }

    /// `--vllm-version`: a release whose capacity rules are tabled,
    /// [`CAPACITY_OLDEST`] to [`NEWEST`].
    pub fn parse_capacity(field: impl AsSubject, text: &str) -> Result<VllmVersion> {
        VllmVersion::parse_from(field, text, CAPACITY_OLDEST)
    }

    /// The default `--gpu-memory-utilization`.
    pub fn gpu_memory_utilization_default(self) -> f64 {
        if self >= UTILIZATION_092 {
            0.92
        } else {
            0.9
        }
    }

    /// Whether the CUDA-graph estimate comes off the KV budget.
    pub fn cudagraph_in_budget(self) -> bool {
        self >= CUDAGRAPH_IN_BUDGET
    }

    /// Whether prefix caching is on by default for this model.
    pub fn prefix_caching_default(self, hybrid: bool) -> bool {
        self.v1_engine() && (!hybrid || self >= HYBRID_PREFIX_CACHING)
    }

    /// The Mamba cache mode of a hybrid model of `architecture` with prefix
    /// caching on or off.
    pub fn mamba_cache_mode(self, prefix_caching: bool, architecture: &str) -> MambaCacheMode {
        if !prefix_caching {
            return MambaCacheMode::None;
        }
        let all_supported = MAMBA_ALL_MODE_ARCHITECTURES
            .iter()
            .any(|a| architecture.starts_with(a));
        if self < MAMBA_PREFIX_CACHING {
            // 0.10-0.11.0: no prefix caching of Mamba states.
            MambaCacheMode::None
        } else if self < MAMBA_ALIGN_DEFAULT && all_supported {
            MambaCacheMode::All
        } else if self < MAMBA_CACHE_MODES {
            // Before the modes, prefix caching of an unsupported hybrid is refused
            // by vLLM; decodecalc caches nothing for it.
            MambaCacheMode::None
        } else {
            MambaCacheMode::Align
        }
    }

    /// Extra pages a Mamba2 layer reserves in `align` mode.
    pub fn mamba2_checkpoint_pages(self) -> u64 {
        u64::from(self >= MAMBA2_CHECKPOINT_PAGE)
    }

    /// Layer grouping: the largest layer count may be this many quarters of
    /// the smallest for the largest to set the group size (None: the
    /// smallest count always does).
    pub fn grouping_ratio_quarters(self) -> Option<u64> {
        if self >= GROUPING_150 {
            Some(6)
        } else if self >= GROUPING_125 {
            Some(5)
        } else {
            None
        }
    }

    /// Whether chunked local attention layers get their own KV-cache groups
    /// (else they are allocated as full attention).
    pub fn chunked_local_groups(self) -> bool {
        self >= CHUNKED_LOCAL_GROUPS
    }

    /// Whether a given `--attention-backend` name exists in this release.
    pub fn has_attention_backend(self, name: &str) -> bool {
        ATTENTION_BACKEND_RELEASES
            .iter()
            .any(|(n, first, gone)| *n == name && self >= *first && gone.is_none_or(|g| self < g))
    }

    /// V0 captures decode steps as CUDA graphs only while the longest
    /// context is at most `max_seq_len_to_capture`, 8192 by default
    /// (0.6.3 `config.py`, `ModelConfig`; `worker/model_runner.py`); V1
    /// captures every decode step whatever the context.
    pub fn max_seq_len_to_capture(self) -> Option<u64> {
        (!self.v1_engine()).then_some(8192)
    }
}

impl std::fmt::Display for VllmVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Who starts the engine: the OpenAI server (`vllm serve`) or the offline
/// `LLM` class; V1's batch defaults differ between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageContext {
    Serve,
    Offline,
}

const GIB: u64 = 1 << 30;

/// `(max_num_seqs, max_num_batched_tokens)` when neither is given.
///
/// - V0 (0.6.x, `engine/arg_utils.py`, `config.py::SchedulerConfig`): 256
///   sequences; chunked prefill is off unless max_model_len exceeds 32,768
///   (then on with a 512-token budget), and without it the budget is
///   `max(max_model_len, 2048)`.
/// - V1 (0.11.0 `engine/arg_utils.py::_set_default_args`, 0.23.0 / 0.32.0
///   `get_batch_defaults`): by device memory and name; a GPU of 70 GiB or
///   more whose name does not contain "A100" gets 1024 sequences and 8,192
///   tokens for the server (16,384 offline), others 256 and 2,048 (8,192
///   offline); from 0.28 a GPU of 160 GiB or more gets 1024 and 16,384 for
///   both. The budget never exceeds `max_num_seqs x max_model_len`.
pub fn batch_defaults(
    v: VllmVersion,
    usage: UsageContext,
    gpu_memory_bytes: u64,
    gpu_name: &str,
    max_model_len_tokens: u64,
) -> (u64, u64) {
    if !v.v1_engine() {
        let budget = if max_model_len_tokens > 32_768 {
            512
        } else {
            max_model_len_tokens.max(2048)
        };
        return (256, budget);
    }
    let a100 = gpu_name.to_ascii_lowercase().contains("a100");
    let (seqs, tokens) = if v >= BATCH_TIER_160_GIB && gpu_memory_bytes >= 160 * GIB {
        (1024, 16_384)
    } else if gpu_memory_bytes >= 70 * GIB && !a100 {
        match usage {
            UsageContext::Serve => (1024, 8192),
            UsageContext::Offline => (1024, 16_384),
        }
    } else {
        match usage {
            UsageContext::Serve => (256, 2048),
            UsageContext::Offline => (256, 8192),
        }
    };
    (
        seqs,
        tokens.min(seqs.saturating_mul(max_model_len_tokens.max(1))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_are_bounded() {
        let v = |t| VllmVersion::parse("--vllm-version", t);
        assert_eq!(v("0.6.3").unwrap(), VllmVersion::new(0, 6, 3));
        assert_eq!(v("v0.11").unwrap(), VllmVersion::new(0, 11, 0));
        assert_eq!(v("0.10.1.post1").unwrap(), VllmVersion::new(0, 10, 1));
        let e = v("0.5.4").unwrap_err();
        assert!(e.hint.unwrap_or_default().contains("0.6.0 to 0.33.0"));
        assert!(v("latest").is_err());
        assert!(v("1.0").is_err());
    }

    #[test]
    fn async_scheduling_is_default_from_0_14() {
        assert!(!VllmVersion::new(0, 11, 0).async_scheduling_default());
        assert!(!VllmVersion::new(0, 13, 0).async_scheduling_default());
        assert!(VllmVersion::new(0, 14, 0).async_scheduling_default());
        assert!(VllmVersion::new(0, 32, 0).async_scheduling_default());
    }

    #[test]
    fn batch_defaults_follow_memory_name_and_release() {
        let a100 = 84_987_740_160;
        let h100 = 85_028_995_072;
        let b200 = 191_468_240_896;
        let d = batch_defaults;
        let (s, u) = (UsageContext::Serve, UsageContext::Offline);
        // The A100 80GB stays in the small tier by name.
        assert_eq!(
            d(MODELLED, s, a100, "NVIDIA A100-SXM4-80GB", 32_768),
            (256, 2048)
        );
        assert_eq!(
            d(MODELLED, s, h100, "NVIDIA H100 80GB HBM3", 32_768),
            (1024, 8192)
        );
        assert_eq!(
            d(MODELLED, u, h100, "NVIDIA H100 80GB HBM3", 32_768),
            (1024, 16_384)
        );
        // 160 GiB and more: 16,384 for the server too from 0.32, not in 0.23.
        assert_eq!(d(MODELLED, s, b200, "NVIDIA B200", 32_768), (1024, 16_384));
        assert_eq!(
            d(VllmVersion::new(0, 23, 0), s, b200, "NVIDIA B200", 32_768),
            (1024, 8192)
        );
        // V0: no chunked prefill up to 32K (the whole prompt in one step), 512 above.
        let v063 = VllmVersion::new(0, 6, 3);
        assert_eq!(d(v063, u, a100, "A100", 32_768), (256, 32_768));
        assert_eq!(d(v063, u, a100, "A100", 65_536), (256, 512));
        assert_eq!(d(v063, u, a100, "A100", 1024), (256, 2048));
        // Capped at max_num_seqs x max_model_len.
        assert_eq!(d(MODELLED, s, h100, "H100", 4), (1024, 4096));
    }
}
