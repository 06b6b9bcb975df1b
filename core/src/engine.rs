//! The `vllm serve` flags that change memory or scheduling, and the harness
//! settings of a measured matrix. Each has a partial form (every field
//! optional: a scenario file's table or the command line) and a resolved form.

use crate::dtype::{FloatDtype, KvCacheDtype, MambaDtype};
use crate::error::{AsSubject, Error, Result, Subject};
use crate::gpu::Gpu;
use crate::quant::{QuantMethod, WeightQuant};
use crate::version::VllmVersion;
use serde::Serialize;

// The harness settings were engine.rs's: their paths stay.
pub use crate::harness::{
    harness_defaults, parse_count_list, parse_token_list, Harness, HarnessSettings, TokenCount,
};

/// Defaults that do not change between releases (the ones that do are
/// `crate::version`'s: utilization, batch limits, prefix caching, async
/// scheduling).
pub mod defaults {
    /// `--block-size` on CUDA (also TRITON_ATTN's kernel alignment).
    pub const BLOCK_SIZE_TOKENS: u64 = 16;
}

pub use crate::flags::EngineSettings;

/// Resolved engine flags.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineArgs {
    /// `None`: the checkpoint's own quantization.
    pub quantization: Option<QuantMethod>,
    pub kv_cache_dtype: KvCacheDtype,
    pub gpu_memory_utilization: f64,
    pub max_model_len_tokens: u64,
    pub max_num_seqs: u64,
    pub max_num_batched_tokens: u64,
    pub enable_prefix_caching: bool,
    /// `--block-size` if given: for hybrid models a lower bound that vLLM raises.
    pub block_size_tokens: Option<u64>,
    pub mamba_ssm_cache_dtype: MambaDtype,
    pub mamba_cache_dtype: MambaDtype,
    /// `--kv-cache-memory-bytes`, if given.
    pub kv_cache_memory_bytes: Option<u64>,
    /// GPUs the model is split across (1: no tensor parallelism).
    pub tensor_parallel_size: u64,
    /// `--dtype` as given (auto resolves against the checkpoint and the GPU:
    /// [`ServeDtype::resolve`]).
    pub dtype: ServeDtype,
    /// Pipeline stages (1: none); every stage holds `tensor_parallel_size` GPUs.
    pub pipeline_parallel_size: u64,
    /// Replicas (1: none), each on `tensor x pipeline` GPUs with its own
    /// engine and KV cache (`--data-parallel-size`).
    pub data_parallel_size: u64,
    /// `--enable-expert-parallel`: MoE layers hold whole experts.
    pub enable_expert_parallel: bool,
    /// `--attention-backend` as given (`None`: vLLM picks; `timing::AttnKernel::select`).
    pub attention_backend: Option<String>,
    /// Whether the scheduler runs one step ahead of the GPU.
    pub async_scheduling: bool,
    /// `--enforce-eager`.
    pub enforce_eager: bool,
    /// `--disable-custom-all-reduce`.
    pub disable_custom_all_reduce: bool,
    /// Decode steps past this context run eagerly (V0); None: all captured.
    pub max_seq_len_to_capture_tokens: Option<u64>,
    /// The vLLM release modelled.
    pub vllm_version: VllmVersion,
    /// `--speculative-config` resolved against the model
    /// ([`EngineArgs::for_model`]); None without speculative decoding.
    pub speculative: Option<crate::speculative::Speculative>,
    /// `--limit-mm-per-prompt` and `--language-model-only`.
    pub mm_limits: crate::multimodal::MmLimits,
    /// `--skip-mm-profiling`.
    pub skip_mm_profiling: bool,
}

/// vLLM's `--dtype`: `auto` or a fixed float dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ServeDtype {
    Auto,
    Fixed(FloatDtype),
}

/// Model types vLLM refuses to run in float16 (`_FLOAT16_NOT_SUPPORTED_MODELS`
/// in vllm/config/model.py: "Numerical instability"), by the `architectures`
/// names that carry them.
const NO_FLOAT16: [(&str, &str); 5] = [
    ("Gemma2", "gemma2"),
    ("Gemma3ForCausalLM", "gemma3_text"),
    ("Gemma3ForConditionalGeneration", "gemma3"),
    ("Glm4ForCausalLM", "glm4"),
    ("Plamo2", "plamo2"),
];

/// Whether a GPU computes in bfloat16 (its architecture's row of
/// `gpu::Arch::info`: compute capability 8.0 on, vllm/platforms/cuda.py).
pub fn gpu_supports_bf16(gpu: &crate::gpu::Gpu) -> bool {
    gpu.arch.info().bf16
}

impl ServeDtype {
    pub const NAMES: &'static str = "auto, bfloat16, float16 (or half), float32 (or float)";

    /// vLLM's `--dtype` choices (`_STR_DTYPE_TO_TORCH_DTYPE` in
    /// vllm/config/model.py, matched lower-cased): `half` is float16, `float`
    /// is float32.
    pub fn parse(field: impl AsSubject, text: &str) -> Result<ServeDtype> {
        match text.to_ascii_lowercase().as_str() {
            "auto" => Ok(ServeDtype::Auto),
            "bfloat16" => Ok(ServeDtype::Fixed(FloatDtype::Bfloat16)),
            "half" | "float16" => Ok(ServeDtype::Fixed(FloatDtype::Float16)),
            "float" | "float32" => Ok(ServeDtype::Fixed(FloatDtype::Float32)),
            _ => Err(Error::field(field, text, format!("one of {}", Self::NAMES))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ServeDtype::Auto => "auto",
            ServeDtype::Fixed(d) => d.name(),
        }
    }

    /// The dtype vLLM serves a checkpoint in (`_get_and_verify_dtype` and
    /// `_resolve_auto_dtype`, vllm/config/model.py, read at vLLM 0.32):
    /// the platform's dtypes are bfloat16, float16, float32 (float16,
    /// float32 without bfloat16), less float16 for the model types that
    /// refuse it; `auto` serves a float32 checkpoint in the first of those
    /// (bfloat16 on Ampere and later) and any other checkpoint dtype as is
    /// when the platform has it, else in the first. A fixed dtype is taken as
    /// given; float16 for a model type that refuses it is an error, and so is
    /// bfloat16 on a GPU without it (the worker's dtype check).
    pub fn resolve(
        self,
        checkpoint: FloatDtype,
        architecture: &str,
        bf16: bool,
    ) -> Result<FloatDtype> {
        let refuses_fp16 = NO_FLOAT16
            .iter()
            .find(|(arch, _)| architecture.starts_with(arch))
            .map(|(_, model_type)| *model_type);
        let mut supported = Vec::with_capacity(3);
        if bf16 {
            supported.push(FloatDtype::Bfloat16);
        }
        if refuses_fp16.is_none() {
            supported.push(FloatDtype::Float16);
        }
        supported.push(FloatDtype::Float32);
        let preferred = supported.first().copied().unwrap_or(FloatDtype::Float32);
        match self {
            ServeDtype::Auto if checkpoint == FloatDtype::Float32 => Ok(preferred),
            ServeDtype::Auto if supported.contains(&checkpoint) => Ok(checkpoint),
            ServeDtype::Auto => Ok(preferred),
            ServeDtype::Fixed(FloatDtype::Float16) if refuses_fp16.is_some() => {
                Err(Error::new(format!(
                    "--dtype float16: vLLM refuses float16 for model type `{}` ({architecture}): numerical instability",
                    refuses_fp16.unwrap_or_default()
                ))
                .with_hint("use --dtype bfloat16, float32 or auto"))
            }
            ServeDtype::Fixed(FloatDtype::Bfloat16) if !bf16 => Err(Error::new(
                "--dtype bfloat16: this GPU has no bfloat16 (compute capability below 8.0)",
            )
            .with_hint("use --dtype float16 (or half), float32 or auto")),
            ServeDtype::Fixed(d) => Ok(d),
        }
    }
}

/// Names a field in an error: plain (`max_num_seqs`), as a flag
/// (`--max-num-seqs`) or in a file (`scenario.toml: [engine] max_num_seqs`).
pub type Label<'a> = &'a dyn Fn(&str) -> Subject;

/// The plain field name.
pub fn plain(field: &str) -> Subject {
    Subject::Field(field.to_string())
}

/// The command-line flag for a field.
pub fn flag(field: &str) -> Subject {
    Subject::flag(&field.replace('_', "-"))
}

/// The largest value a count flag may take (2^40: far above any real setting,
/// far below what would overflow the arithmetic).
pub const MAX_COUNT: u64 = 1 << 40;

/// The most simultaneous requests a concurrency list may name, and the most
/// any solver answer reports (2^24).
pub const MAX_CONCURRENCY: u64 = 1 << 24;

/// The most cells a matrix may have (contexts x concurrencies + prefill rows).
pub const MAX_CELLS: u64 = 4096;

/// A count the flag table has checked (`flags::Valid::Count`), or `default`.
fn count(v: Option<i64>, default: u64) -> u64 {
    v.and_then(|x| u64::try_from(x).ok()).unwrap_or(default)
}

impl EngineSettings {
    /// Check each value that is set on its own, naming fields with `label`.
    pub fn validate(&self, label: Label) -> Result<()> {
        self.resolve_labelled(u64::MAX, 0, "", label).map(|_| ())
    }

    /// Resolve against vLLM 0.32's defaults for this model and a GPU of
    /// this much memory (whose name is not an A100's).
    pub fn resolve(
        &self,
        model_max_position_tokens: u64,
        gpu_memory_bytes: u64,
    ) -> Result<EngineArgs> {
        self.resolve_labelled(model_max_position_tokens, gpu_memory_bytes, "", &plain)
    }

    /// Resolve against vLLM 0.32's defaults for this model and GPU.
    pub fn resolve_for(&self, model_max_position_tokens: u64, gpu: &Gpu) -> Result<EngineArgs> {
        self.resolve_labelled(
            model_max_position_tokens,
            gpu.memory_bytes,
            &gpu.name,
            &plain,
        )
    }

    /// [`EngineSettings::resolve`] naming fields with `label`. What a value
    /// may be on its own is the flag table's rule (`check_ranges`); what
    /// depends on the model, the GPU or the release is checked here.
    pub fn resolve_labelled(
        &self,
        model_max_position_tokens: u64,
        gpu_memory_bytes: u64,
        gpu_name: &str,
        label: Label,
    ) -> Result<EngineArgs> {
        self.check_ranges(label)?;
        let version = match self.vllm_version.as_deref() {
            None => crate::version::MODELLED,
            Some(t) => VllmVersion::parse_capacity(&label("vllm_version"), t)?,
        };
        let max_model_len = count(self.max_model_len, model_max_position_tokens);
        if max_model_len > model_max_position_tokens {
            return Err(Error::field(
                label("max_model_len"),
                max_model_len,
                format!(
                    "at most the model's max_position_embeddings, {model_max_position_tokens} tokens"
                ),
            ));
        }
        let (default_seqs, default_tokens) = crate::version::batch_defaults(
            version,
            crate::version::UsageContext::Serve,
            gpu_memory_bytes,
            gpu_name,
            max_model_len,
        );
        let max_num_seqs = count(self.max_num_seqs, default_seqs);
        let max_num_batched_tokens = count(self.max_num_batched_tokens, default_tokens);
        // vLLM's SchedulerConfig refuses a token budget below the sequence
        // count (`vllm/config/scheduler.py`, `_verify_args`).
        if self.max_num_batched_tokens.is_some() && max_num_batched_tokens < max_num_seqs {
            return Err(Error::field(
                label("max_num_batched_tokens"),
                max_num_batched_tokens,
                format!("at least max_num_seqs ({max_num_seqs}), as vLLM requires"),
            ));
        }
        Ok(EngineArgs {
            quantization: match self.quantization.as_deref() {
                None | Some("auto") => None,
                Some(q) => Some(QuantMethod::parse(&label("quantization"), q)?),
            },
            kv_cache_dtype: self.kv_cache_dtype_at(version, label)?,
            gpu_memory_utilization: self
                .gpu_memory_utilization
                .unwrap_or_else(|| version.gpu_memory_utilization_default()),
            max_model_len_tokens: max_model_len,
            max_num_seqs,
            max_num_batched_tokens,
            // A hybrid model's default is the release's
            // ([`EngineArgs::for_model`]); this is a plain model's.
            enable_prefix_caching: self
                .enable_prefix_caching
                .unwrap_or_else(|| version.prefix_caching_default(false)),
            block_size_tokens: self.block_size.and_then(|b| u64::try_from(b).ok()),
            mamba_ssm_cache_dtype: mamba_dtype(self.mamba_ssm_cache_dtype.as_deref(), || {
                label("mamba_ssm_cache_dtype")
            })?,
            mamba_cache_dtype: mamba_dtype(self.mamba_cache_dtype.as_deref(), || {
                label("mamba_cache_dtype")
            })?,
            kv_cache_memory_bytes: match self.kv_cache_memory_bytes {
                Some(_) if version < crate::version::KV_CACHE_MEMORY_BYTES_FLAG => {
                    return Err(Error::new(format!(
                        "--kv-cache-memory-bytes: vLLM {version} has no such flag (it exists from {})",
                        crate::version::KV_CACHE_MEMORY_BYTES_FLAG
                    ))
                    .with_hint("set the pool through --gpu-memory-utilization, or give --vllm-version 0.10.2 or later")
                    .of_kind(crate::ErrorKind::InvalidValue)
                    .about(label("kv_cache_memory_bytes")));
                }
                b => b.and_then(|b| u64::try_from(b).ok()),
            },
            tensor_parallel_size: count(self.tensor_parallel_size, 1),
            dtype: match self.dtype.as_deref() {
                None => ServeDtype::Auto,
                Some(t) => ServeDtype::parse(&label("dtype"), t)?,
            },
            // vLLM needs at least one stage; whether the model has a layer
            // for every stage is checked against the model (`Model::pipeline_stages`).
            pipeline_parallel_size: count(self.pipeline_parallel_size, 1),
            data_parallel_size: self.data_parallel_size_checked(label)?,
            enable_expert_parallel: self.enable_expert_parallel.unwrap_or(false),
            attention_backend: self.attention_backend_at(version, label)?,
            async_scheduling: self
                .async_scheduling
                .unwrap_or_else(|| version.async_scheduling_default()),
            enforce_eager: self.enforce_eager.unwrap_or(false),
            disable_custom_all_reduce: self.disable_custom_all_reduce.unwrap_or(false),
            max_seq_len_to_capture_tokens: self
                .max_seq_len_to_capture
                .and_then(|n| u64::try_from(n).ok()),
            vllm_version: version,
            speculative: None,
            mm_limits: crate::multimodal::MmLimits::parse(
                &label("limit_mm_per_prompt"),
                self.limit_mm_per_prompt.as_deref(),
                self.language_model_only.unwrap_or(false),
            )?,
            skip_mm_profiling: self.skip_mm_profiling.unwrap_or(false),
        })
    }

    /// `--data-parallel-size`, with vLLM's check that the replicas on this
    /// node are not more than all of them
    /// (`ParallelConfig._validate_parallel_config`, vllm/config/parallel.py).
    fn data_parallel_size_checked(&self, label: Label) -> Result<u64> {
        let dp = count(self.data_parallel_size, 1);
        match self.data_parallel_size_local.and_then(|l| u64::try_from(l).ok()) {
            Some(local) if local > dp => Err(Error::new(format!(
                "{}: data_parallel_size_local ({local}) must be <= data_parallel_size ({dp})",
                label("data_parallel_size_local")
            ))
            .with_hint("give --data-parallel-size-local at most --data-parallel-size (the replicas on this node among all)")
            .of_kind(crate::ErrorKind::InvalidValue)
            .about(label("data_parallel_size_local"))),
            _ => Ok(dp),
        }
    }

    /// `--kv-cache-dtype`, refused where `version` does not have it yet.
    fn kv_cache_dtype_at(&self, version: VllmVersion, label: Label) -> Result<KvCacheDtype> {
        let Some(t) = self.kv_cache_dtype.as_deref() else {
            return Ok(KvCacheDtype::Auto);
        };
        let d = KvCacheDtype::parse(&label("kv_cache_dtype"), t)?;
        let since = crate::version::kv_cache_dtype_since(d);
        if version < since {
            return Err(Error::field(
                label("kv_cache_dtype"),
                t,
                format!("a KV dtype vLLM {version} accepts: `{t}` exists from {since} (config/cache.py); or a later --vllm-version"),
            ));
        }
        Ok(d)
    }

    /// `--attention-backend`, refused where `version` does not have it.
    fn attention_backend_at(&self, version: VllmVersion, label: Label) -> Result<Option<String>> {
        let Some(b) = self.attention_backend.as_deref() else {
            return Ok(None);
        };
        let name = attention_backend(&label("attention_backend"), b)?;
        if !version.has_attention_backend(&name) {
            return Err(Error::field(
                label("attention_backend"),
                b,
                format!("a backend vLLM {version} has (v1/attention/backends/registry.py): `{name}` is not in that release"),
            ));
        }
        Ok(Some(name))
    }
}

fn mamba_dtype(text: Option<&str>, field: impl Fn() -> Subject) -> Result<MambaDtype> {
    match text {
        None => Ok(MambaDtype::Auto),
        Some(t) => MambaDtype::parse(&field(), t),
    }
}

/// `--attention-backend`: one of vLLM's `AttentionBackendEnum` names
/// (vllm/attention/backends/registry.py), any case.
pub const ATTENTION_BACKENDS: [&str; 12] = [
    "FLASH_ATTN",
    "FLASHINFER",
    "TRITON_ATTN",
    "FLEX_ATTENTION",
    "TREE_ATTN",
    "FLASHMLA",
    "FLASH_ATTN_MLA",
    "FLASHINFER_MLA",
    "TRITON_MLA",
    "CUTLASS_MLA",
    "ROCM_ATTN",
    "ROCM_AITER_FA",
];

fn attention_backend(field: impl AsSubject, text: &str) -> Result<String> {
    let upper = text.trim().to_ascii_uppercase();
    // vLLM 0.10's spelling of TRITON_ATTN.
    let upper = if upper == "TRITON_ATTN_VLLM_V1" {
        "TRITON_ATTN".to_string()
    } else {
        upper
    };
    if ATTENTION_BACKENDS.contains(&upper.as_str()) {
        Ok(upper)
    } else {
        Err(Error::field(
            field,
            text,
            format!("one of {}", ATTENTION_BACKENDS.join(", ")),
        ))
    }
}

impl EngineArgs {
    /// What depends on the model: prefix caching for a hybrid model, unless
    /// `settings` gives it (`version::prefix_caching_default`), and the
    /// speculative config (`crate::speculative`), fields named by `label`.
    pub fn for_model(
        mut self,
        settings: &EngineSettings,
        model: &crate::model::Model,
        label: Label,
    ) -> Result<Self> {
        // vllm/config/model.py `_verify_with_expert_parallelism` (0.11, 0.32).
        if self.enable_expert_parallel && !model.is_moe() {
            return Err(Error::new(format!(
                "{}: the model has no experts: vLLM refuses expert parallelism when the number of experts is not greater than 0",
                label("enable_expert_parallel")
            ))
            .with_hint("drop --enable-expert-parallel for a dense model (--data-parallel-size alone runs replicas)")
            .of_kind(crate::ErrorKind::InvalidValue)
            .about(label("enable_expert_parallel")));
        }
        crate::allocator::check_dsv4_kv_dtype(model, self.kv_cache_dtype)
            .map_err(|e| e.about(label("kv_cache_dtype")))?;
        if settings.enable_prefix_caching.is_none() {
            self.enable_prefix_caching =
                self.vllm_version.prefix_caching_default(model.is_hybrid());
        }
        if let Some(text) = &settings.speculative_config {
            let field = label("speculative_config");
            let config = crate::speculative::SpeculativeConfig::parse(&field, text)?;
            self.speculative = Some(crate::speculative::Speculative::resolve(
                &field,
                &config,
                model,
                self.tensor_parallel_size,
            )?);
        }
        if let Some(text) = &settings.spec_acceptance {
            let field = label("spec_acceptance");
            let Some(spec) = self.speculative.as_mut() else {
                return Err(Error::new(format!(
                    "{field}: acceptance rates without speculative decoding"
                ))
                .with_hint(r#"give --speculative-config too, e.g. '{"method": "mtp", "num_speculative_tokens": 3}'"#)
                .of_kind(crate::ErrorKind::InvalidValue)
                .about(field));
            };
            spec.acceptance =
                crate::speculative::parse_acceptance(&field, text, spec.num_speculative_tokens)?;
            spec.acceptance_source = field.to_string();
        }
        Ok(self)
    }

    /// GPUs the setup takes: tensor x pipeline x data parallel
    /// (vLLM's world size across the replicas, `world_size_across_dp`).
    pub fn gpus(&self) -> u64 {
        self.tensor_parallel_size
            .saturating_mul(self.pipeline_parallel_size)
            .saturating_mul(self.data_parallel_size)
    }

    /// GPUs the experts are spread over whole: `tp x dp` with expert
    /// parallelism (`FusedMoEParallelConfig.make`), else 1.
    pub fn expert_parallel_size(&self) -> u64 {
        if self.enable_expert_parallel {
            self.tensor_parallel_size
                .saturating_mul(self.data_parallel_size)
        } else {
            1
        }
    }

    /// Whether the MoE layers run sequence parallel
    /// (`ParallelConfig.use_sequence_parallel_moe`, vllm/config/parallel.py:
    /// the default all2all backend, expert parallelism, TP > 1 and DP > 1),
    /// for a model whose file splits its tokens so
    /// ([`crate::timing::SEQUENCE_PARALLEL_MOE_ARCHITECTURES`]).
    pub fn sequence_parallel_moe(&self, architecture: &str) -> bool {
        self.enable_expert_parallel
            && self.tensor_parallel_size > 1
            && self.data_parallel_size > 1
            && crate::timing::SEQUENCE_PARALLEL_MOE_ARCHITECTURES
                .iter()
                .any(|p| architecture.starts_with(p))
    }

    /// What the timing model still leaves out under data parallelism of a
    /// MoE model (`model_is_moe`): the replicas step in lock-step, each
    /// priced as the busiest one with its MoE layers over every replica's
    /// tokens and their dispatch and combine (`timing::MoeParallel`), but a
    /// replica's timeline holds only its own prompts' prefill chunks, not
    /// the other replicas' it also waits for, and a group wider than one
    /// server is priced at the GPU's own link. Expert parallelism within
    /// one replica and dense replicas (independent in vLLM 0.32) are
    /// modelled whole.
    pub fn parallel_timing_caveat(&self, model_is_moe: bool) -> Option<crate::Warning> {
        (model_is_moe && self.data_parallel_size > 1).then_some(
            crate::Warning::DataParallelMoeTiming {
                replicas: self.data_parallel_size,
            },
        )
    }

    /// The weight layout in force: `--quantization` if given, else the checkpoint's.
    pub fn weight_quant(&self, checkpoint: &WeightQuant) -> WeightQuant {
        let mut q = match self.quantization {
            Some(m) if m == checkpoint.method => checkpoint.clone(),
            // `--quantization fp8` on an unquantized checkpoint: vLLM quantizes
            // online at load time (`WeightQuant::online_fp8`).
            Some(QuantMethod::Fp8) if checkpoint.method == QuantMethod::None => {
                WeightQuant::online_fp8()
            }
            Some(m) => WeightQuant::for_method(m),
            None => checkpoint.clone(),
        };
        // The release's layout of the weights it repacks.
        q.release = Some(self.vllm_version);
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::GIB;

    const GPU_24GB: u64 = 25_437_405_184;

    #[test]
    fn defaults_follow_vllm_for_a_24gb_gpu() {
        let args = EngineSettings::default()
            .resolve(131_072, GPU_24GB)
            .unwrap();
        assert_eq!(args.max_num_seqs, 256);
        assert_eq!(args.max_num_batched_tokens, 2048);
        assert_eq!(args.gpu_memory_utilization, 0.92);
        assert_eq!(args.max_model_len_tokens, 131_072);
        assert_eq!(args.kv_cache_dtype, KvCacheDtype::Auto);
        assert!(args.enable_prefix_caching);
        let big = EngineSettings::default()
            .resolve(131_072, 80 * GIB)
            .unwrap();
        assert_eq!((big.max_num_seqs, big.max_num_batched_tokens), (1024, 8192));
    }

    #[test]
    fn dtype_auto_resolves_as_vllm_does() {
        use FloatDtype::{Bfloat16 as Bf, Float16 as Fp, Float32 as F32};
        let auto = ServeDtype::Auto;
        // float32 checkpoints: the platform's first dtype.
        assert_eq!(auto.resolve(F32, "LlamaForCausalLM", true).unwrap(), Bf);
        assert_eq!(auto.resolve(F32, "LlamaForCausalLM", false).unwrap(), Fp);
        // Gemma-2 without bfloat16 and without float16 is left with float32.
        assert_eq!(auto.resolve(F32, "Gemma2ForCausalLM", false).unwrap(), F32);
        // A bf16 checkpoint on a GPU without bf16 falls back to float16.
        assert_eq!(auto.resolve(Bf, "LlamaForCausalLM", false).unwrap(), Fp);
        assert_eq!(auto.resolve(Fp, "LlamaForCausalLM", true).unwrap(), Fp);
        let half = ServeDtype::parse("--dtype", "HALF").unwrap();
        assert!(half.resolve(Bf, "Gemma2ForCausalLM", true).is_err());
        assert!(ServeDtype::Fixed(Bf)
            .resolve(Fp, "LlamaForCausalLM", false)
            .is_err());
        let e = ServeDtype::parse("--dtype", "int3").unwrap_err();
        assert!(e.message.contains("--dtype") && e.hint.is_some(), "{e}");
    }

    #[test]
    fn utilization_outside_zero_one_is_rejected() {
        for bad in [0.0, -0.5, 1.5, f64::NAN] {
            let s = EngineSettings {
                gpu_memory_utilization: Some(bad),
                ..EngineSettings::default()
            };
            let err = s.resolve(4096, GPU_24GB).unwrap_err();
            assert!(err.message.contains("gpu_memory_utilization"), "{err}");
            assert!(err.hint.unwrap().contains("(0, 1]"));
        }
    }

    #[test]
    fn context_above_max_model_len_is_rejected() {
        let args = EngineSettings {
            max_model_len: Some(32_768),
            ..EngineSettings::default()
        }
        .resolve(131_072, GPU_24GB)
        .unwrap();
        let h = HarnessSettings {
            contexts: Some(vec![TokenCount::Text("32k".into())]),
            ..HarnessSettings::default()
        };
        let err = h.resolve(&args).unwrap_err();
        assert!(err.message.contains("exceeds max_model_len 32768"), "{err}");
        assert!(err.hint.unwrap().contains("24576"));
    }

    #[test]
    fn empty_concurrency_is_rejected() {
        let args = EngineSettings::default()
            .resolve(131_072, GPU_24GB)
            .unwrap();
        let h = HarnessSettings {
            concurrency: Some(vec![]),
            ..HarnessSettings::default()
        };
        assert!(h
            .resolve(&args)
            .unwrap_err()
            .message
            .contains("concurrency"));
    }
}
