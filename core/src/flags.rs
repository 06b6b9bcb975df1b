//! The engine flags, in one table: each `vllm serve` flag decodecalc
//! models (and decodecalc's own `--vllm-version`), with its scenario-file
//! field, vLLM spelling, value kind, unit, vLLM default and a one-line
//! explanation. The [`engine_flags!`] invocation below generates from it
//! [`EngineSettings`] (the partial settings a scenario file, the command
//! line, a launch line or a start-up log gives), its overlay, its
//! field test and the parser of one flag ([`EngineSettings::set_flag`]);
//! the launch-line and log readers (`command::apply_flag`) look flags up in
//! [`ENGINE_FLAGS`]. Adding a flag is one row here.

use crate::engine::{MAX_CONCURRENCY, MAX_COUNT};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// How a flag takes its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlagKind {
    /// A whole number, read as vLLM reads it (32768, 32K = x1024, 32k = x1000).
    Int,
    /// A number.
    Float,
    /// A word or a JSON text.
    Text,
    /// `--flag` on, `--no-flag` off.
    Switch,
    /// `--flag` alone turns it on.
    Set,
}

/// One row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EngineFlag {
    /// The scenario file's field (`[engine]` table) and the settings field.
    pub field: &'static str,
    /// The flag as vLLM spells it, without the dashes.
    pub flag: &'static str,
    /// vLLM's short forms (`tp`, `pp`).
    pub aliases: &'static [&'static str],
    /// The CLI's one-letter form, if it has one.
    pub short: Option<char>,
    pub kind: FlagKind,
    /// The unit of its value ("" for none).
    pub unit: &'static str,
    /// What vLLM does without it.
    pub default: &'static str,
    /// One line for help texts and the web form.
    pub help: &'static str,
    /// Whether `vllm serve` has it (false: decodecalc's own, not read from a
    /// launch line).
    pub vllm: bool,
    /// The values vLLM takes, for a number checked by the table alone
    /// ([`EngineSettings::check_ranges`]); None where the rule is
    /// `EngineSettings::resolve_labelled`'s (it depends on the model, the
    /// GPU or the release).
    pub valid: Option<Valid>,
}

/// The values a number flag takes, where the table alone decides them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Valid {
    /// From the first to the second, both included.
    Range(f64, f64),
    /// Above 0, at most 1.
    Fraction,
    /// A whole number from 1 to this.
    Count(u64),
    /// A positive multiple of the first, at most the second.
    MultipleOf(u64, u64),
}

impl Valid {
    pub fn admits(self, v: f64) -> bool {
        v.is_finite()
            && match self {
                Valid::Range(lo, hi) => v >= lo && v <= hi,
                Valid::Fraction => v > 0.0 && v <= 1.0,
                Valid::Count(max) => v >= 1.0 && v <= max as f64 && v.fract() == 0.0,
                Valid::MultipleOf(step, max) => {
                    v >= 1.0 && v <= max as f64 && v.fract() == 0.0 && (v % step as f64) == 0.0
                }
            }
    }

    /// What is valid, in words, for a hint (`unit` follows the numbers).
    pub fn describe(self, unit: &str) -> String {
        let unit = if unit.is_empty() || unit == "fraction" {
            String::new()
        } else {
            format!(" {unit}")
        };
        match self {
            Valid::Range(lo, hi) => format!("a number from {lo} to {hi}{unit}"),
            Valid::Fraction => "a fraction in (0, 1], such as 0.9".to_string(),
            Valid::Count(max) => format!("a positive whole number up to {max}{unit}"),
            Valid::MultipleOf(step, max) => {
                format!("a positive multiple of {step}{unit} up to {max}")
            }
        }
    }
}

/// A flag's value type: how its text is read.
trait FlagValue: Sized {
    /// `on` is false for a switch's `--no-` form (other kinds ignore it).
    fn read(flag: &str, text: Option<&str>, on: bool) -> Result<Self>;
    /// The value as a number, for range checks.
    fn number(&self) -> Option<f64> {
        None
    }
}

fn need<'a>(flag: &str, text: Option<&'a str>) -> Result<&'a str> {
    text.ok_or_else(|| {
        Error::new(format!("--{flag} needs a value"))
            .with_hint(format!("write --{flag} VALUE or --{flag}=VALUE"))
    })
}

impl FlagValue for i64 {
    fn number(&self) -> Option<f64> {
        Some(*self as f64)
    }
    fn read(flag: &str, text: Option<&str>, _on: bool) -> Result<i64> {
        let v = need(flag, text)?;
        crate::units::parse_human_int(v).ok_or_else(|| {
            Error::field(
                format!("--{flag}"),
                v,
                "a whole number, as vLLM reads it: 32768, 32K (x1024) or 32k (x1000)",
            )
        })
    }
}

impl FlagValue for f64 {
    fn number(&self) -> Option<f64> {
        Some(*self)
    }
    fn read(flag: &str, text: Option<&str>, _on: bool) -> Result<f64> {
        let v = need(flag, text)?;
        crate::units::parse_f64(v)
            .ok_or_else(|| Error::field(format!("--{flag}"), v, "a number such as 0.9"))
    }
}

impl FlagValue for String {
    fn read(flag: &str, text: Option<&str>, _on: bool) -> Result<String> {
        need(flag, text).map(str::to_string)
    }
}

impl FlagValue for bool {
    /// A switch given alone is on; `true` / `false` as its value (a start-up
    /// log's `non-default args`) say which.
    fn read(flag: &str, text: Option<&str>, on: bool) -> Result<bool> {
        let v = match text {
            None => true,
            Some(t) if t.eq_ignore_ascii_case("true") => true,
            Some(t) if t.eq_ignore_ascii_case("false") => false,
            Some(t) => {
                return Err(Error::field(
                    format!("--{flag}"),
                    t,
                    "no value (a switch), or true / false",
                ))
            }
        };
        Ok(v == on)
    }
}

macro_rules! engine_flags {
    ($(
        $(#[$doc:meta])*
        $field:ident: $ty:ty = $flag:literal $([$($alias:literal),*])? $(short $short:literal)?,
            $kind:ident, unit $unit:literal, default $default:literal, vllm $vllm:literal,
            $(valid $valid:expr,)?
            $help:literal;
    )*) => {
        /// Engine flags as a scenario file or the command line gives them:
        /// every field optional; later layers override earlier ones
        /// ([`EngineSettings::overlay`]). Generated from the table in
        /// `crate::flags`.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::flags))]
        #[serde(deny_unknown_fields)]
        pub struct EngineSettings {
            $( $(#[$doc])* #[serde(default)] pub $field: Option<$ty>, )*
        }

        /// Every engine flag, in the table's order.
        pub static ENGINE_FLAGS: &[EngineFlag] = &[
            $( EngineFlag {
                field: stringify!($field),
                flag: $flag,
                aliases: &[$($($alias),*)?],
                short: engine_flags!(@short $($short)?),
                kind: FlagKind::$kind,
                unit: $unit,
                default: $default,
                help: $help,
                vllm: $vllm,
                valid: engine_flags!(@valid $($valid)?),
            }, )*
        ];

        impl EngineSettings {
            /// `other`'s fields win where set.
            pub fn overlay(&self, other: &EngineSettings) -> EngineSettings {
                EngineSettings {
                    $( $field: other.$field.clone().or_else(|| self.$field.clone()), )*
                }
            }

            /// Whether the field named `field` (snake case) is set.
            pub fn is_set(&self, field: &str) -> bool {
                match field {
                    $( stringify!($field) => self.$field.is_some(), )*
                    _ => false,
                }
            }

            /// The field named `field` as a number, where it is one and set.
            fn number(&self, field: &str) -> Option<f64> {
                match field {
                    $( stringify!($field) => self.$field.as_ref().and_then(FlagValue::number), )*
                    _ => None,
                }
            }

            /// Set the field of `flag` from its text (None: the flag alone);
            /// `on` is false for a switch's `--no-` form.
            pub fn set_flag(&mut self, flag: &EngineFlag, text: Option<&str>, on: bool) -> Result<()> {
                match flag.field {
                    $( stringify!($field) => {
                        self.$field = Some(<$ty as FlagValue>::read(flag.flag, text, on)?);
                    } )*
                    _ => {}
                }
                Ok(())
            }
        }
    };
    (@valid $valid:expr) => { Some($valid) };
    (@valid) => { None };
    (@short $c:literal) => { Some($c) };
    (@short) => { None };
}

impl EngineSettings {
    /// Every set value of a row with a range inside it, naming the field
    /// with `label` (the flag on the command line, the field in a file).
    pub fn check_ranges(&self, label: crate::engine::Label) -> Result<()> {
        for f in ENGINE_FLAGS {
            let (Some(valid), Some(v)) = (f.valid, self.number(f.field)) else {
                continue;
            };
            if !valid.admits(v) {
                return Err(Error::field(
                    label(f.field),
                    v,
                    format!(
                        "{} (vLLM refuses others): {}",
                        valid.describe(f.unit),
                        f.help
                    ),
                ));
            }
        }
        Ok(())
    }
}

engine_flags! {
    quantization: String = "quantization", Text, unit "",
        default "the checkpoint's quantization_config", vllm true,
        "Weight quantization method: awq, gptq, fp8 (online from a 16-bit checkpoint), mxfp4, nvfp4, ...";
    kv_cache_dtype: String = "kv-cache-dtype", Text, unit "",
        default "auto (the model dtype)", vllm true,
        "KV cache element type: auto, fp8, int4_per_token_head, ... (bytes per token follow from it)";
    gpu_memory_utilization: f64 = "gpu-memory-utilization", Float, unit "fraction",
        default "0.92 (0.9 before 0.20)", vllm true,
        valid Valid::Fraction,
        "Share of the GPU's memory vLLM may take for weights, activations, CUDA graphs and the KV cache";
    max_model_len: i64 = "max-model-len", Int, unit "tokens",
        default "the model's max_position_embeddings", vllm true,
        valid Valid::Count(MAX_COUNT),
        "Longest prompt + output a request may have";
    max_num_seqs: i64 = "max-num-seqs", Int, unit "sequences",
        default "256 (1024 on GPUs of 70 GiB or more, but A100s)", vllm true,
        valid Valid::Count(MAX_CONCURRENCY),
        "Most requests the scheduler runs at once";
    max_num_batched_tokens: i64 = "max-num-batched-tokens", Int, unit "tokens",
        default "2048 (8192 from 70 GiB, 16384 from 160 GiB; A100s 2048)", vllm true,
        valid Valid::Count(MAX_CONCURRENCY),
        "Tokens one engine step may process (decode tokens plus prompt chunks)";
    enable_prefix_caching: bool = "enable-prefix-caching", Switch, unit "",
        default "on (hybrid models: from 0.26)", vllm true,
        "Reuse KV blocks of prompts seen before";
    block_size: i64 = "block-size", Int, unit "tokens",
        default "16 (hybrid models: raised to fit a Mamba state page)", vllm true,
        valid Valid::MultipleOf(16, 1 << 20),
        "Tokens per KV cache block";
    mamba_ssm_cache_dtype: String = "mamba-ssm-cache-dtype", Text, unit "",
        default "auto (the model's or float32 where it says so)", vllm true,
        "Element type of the Mamba SSM state";
    mamba_cache_dtype: String = "mamba-cache-dtype", Text, unit "",
        default "auto", vllm true,
        "Element type of the Mamba conv state (and the SSM state unless set apart)";
    /// TRITON_ATTN's 16-token alignment is assumed when it is given.
    attention_backend: String = "attention-backend", Text, unit "",
        default "picked by GPU and KV dtype", vllm true,
        "Attention kernel: FLASH_ATTN, FLASHINFER, TRITON_ATTN, ...";
    /// The KV pool size, skipping vLLM's profiling (the utilization then no
    /// longer sizes the pool).
    kv_cache_memory_bytes: i64 = "kv-cache-memory-bytes", Int, unit "bytes",
        default "none: the pool is what the utilization leaves", vllm true,
        valid Valid::Count(MAX_COUNT),
        "KV pool size outright (from 0.10.2)";
    /// GPUs one model is split across.
    tensor_parallel_size: i64 = "tensor-parallel-size" ["tp"] short 't', Int, unit "GPUs",
        default "1", vllm true,
        valid Valid::Count(MAX_COUNT),
        "GPUs each layer is split across";
    /// auto, bfloat16, float16 (half), float32 (float).
    dtype: String = "dtype", Text, unit "",
        default "auto (the checkpoint's; bfloat16 for float32 checkpoints)", vllm true,
        "Activation and weight dtype of unquantized layers";
    /// Stages the layers are split across.
    pipeline_parallel_size: i64 = "pipeline-parallel-size" ["pp"], Int, unit "stages",
        default "1", vllm true,
        valid Valid::Count(MAX_COUNT),
        "Pipeline stages the layers are split across";
    /// Replicas of the model (`ParallelConfig.data_parallel_size`,
    /// vllm/config/parallel.py): each its own engine, scheduler and KV
    /// cache on `tensor x pipeline` GPUs; a MoE model's expert layers span
    /// every replica's GPUs (`model::Model::shard_parallel`).
    data_parallel_size: i64 = "data-parallel-size" ["dp"], Int, unit "replicas",
        default "1", vllm true,
        valid Valid::Count(MAX_COUNT),
        "Replicas of the model, each on tensor x pipeline GPUs with its own KV cache; requests are spread across them";
    /// Replicas on this node (`data_parallel_size_local`, at most
    /// `data_parallel_size`): where the GPUs are, not how many.
    data_parallel_size_local: i64 = "data-parallel-size-local" ["dpl"], Int, unit "replicas",
        default "data-parallel-size", vllm true,
        valid Valid::Range(0.0, 1_099_511_627_776.0),
        "Replicas run on this node (no per-GPU figure changes)";
    /// `ParallelConfig.enable_expert_parallel`: the MoE layers hold whole
    /// experts, `num_experts / (tp x dp)` a GPU, instead of splitting each.
    enable_expert_parallel: bool = "enable-expert-parallel" ["ep"], Switch, unit "",
        default "off (experts split by tensor parallelism)", vllm true,
        "Expert parallelism: each GPU of the tensor x data parallel group holds its share of the experts whole";
    async_scheduling: bool = "async-scheduling", Switch, unit "",
        default "on from 0.14", vllm true,
        "Schedule the next step while the GPU runs this one";
    /// A JSON object merged into the model's config.json
    /// (`presets::LoadedModel::with_overrides`).
    hf_overrides: String = "hf-overrides", Text, unit "JSON",
        default "none", vllm true,
        "JSON merged into the model's config.json (rope scaling, say)";
    /// CPU memory pinned per GPU for swapped-out KV blocks
    /// (`CacheConfig.swap_space` in vllm/config/cache.py, `ge=0`). V1
    /// preempts by recomputation, and host memory is not a GPU figure, so
    /// nothing decodecalc computes depends on it.
    swap_space: f64 = "swap-space", Float, unit "GiB", default "4", vllm true,
        valid Valid::Range(0.0, 65536.0),
        "CPU swap space per GPU (host memory: no GPU figure changes)";
    enforce_eager: bool = "enforce-eager", Set, unit "",
        default "off (CUDA graphs)", vllm true,
        "No CUDA graphs: every step launches its kernels one by one";
    /// `ParallelConfig.disable_custom_all_reduce` (vllm/config/parallel.py):
    /// vLLM's own all-reduce kernel is never set up, so every tensor-parallel
    /// all-reduce goes through NCCL (`timing::collective`).
    disable_custom_all_reduce: bool = "disable-custom-all-reduce", Set, unit "",
        default "off (vLLM's custom all-reduce where it applies)", vllm true,
        "Tensor-parallel all-reduces through NCCL only, never vLLM's own kernel";
    /// V0's flag: decode steps with a longer context run eagerly (V1
    /// captures every decode step; `version` sets it for V0 runs).
    max_seq_len_to_capture: i64 = "max-seq-len-to-capture", Int, unit "tokens",
        default "8192 (V0 only)", vllm true,
        valid Valid::Count(MAX_COUNT),
        "Longest context a decode step runs as a CUDA graph (V0)";
    /// Items per prompt by modality (`crate::multimodal::MmLimits`): the
    /// profile run's dummy batch is the largest item of a modality whose
    /// limit is above 0, and with every limit 0 vLLM loads no vision tower.
    limit_mm_per_prompt: String = "limit-mm-per-prompt", Text, unit "JSON",
        default "999 per modality", vllm true,
        "Multimodal items per prompt, as JSON: {\"image\": 0} leaves the vision tower and its profile out";
    /// `MultiModalConfig.language_model_only`: every modality's limit is 0.
    language_model_only: bool = "language-model-only", Set, unit "",
        default "off", vllm true,
        "Serve a multimodal model as text only: no vision tower, no multimodal profile";
    /// `MultiModalConfig.skip_mm_profiling`: the profile run skips the
    /// encoder's dummy batch (the tower is still loaded).
    skip_mm_profiling: bool = "skip-mm-profiling", Set, unit "",
        default "off", vllm true,
        "Leave the vision encoder's dummy batch out of the start-up profile (a larger KV pool, no margin for images)";
    /// Speculative decoding (`crate::speculative`): a JSON object with
    /// `method`, `num_speculative_tokens`, `model`, ...
    speculative_config: String = "speculative-config", Text, unit "JSON",
        default "none", vllm true,
        "Speculative decoding, as JSON: {\"method\": \"mtp\", \"num_speculative_tokens\": 3} (mtp, eagle, eagle3, dflash, draft_model, ngram, suffix)";
    /// Per-position acceptance rates of speculative decoding
    /// (`speculative::parse_acceptance`), instead of the method's default.
    spec_acceptance: String = "spec-acceptance", Text, unit "",
        default "the method's published default (speculative::DEFAULT_ACCEPTANCE)", vllm false,
        "Speculative decoding's per-position acceptance rates, such as 0.8,0.6,0.45 (vLLM logs them)";
    /// The release whose defaults and memory accounting apply
    /// (`crate::version`); 0.32.0 when not given.
    vllm_version: String = "vllm-version", Text, unit "",
        default "0.32.0", vllm false,
        "The vLLM release modelled (0.10.0 to 0.33.0)";
}

/// Which group of a form or help text a request flag belongs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlagGroup {
    /// What runs: the scenario, model, GPU, launch line, calibration.
    Setup,
    /// What the benchmark harness sends: contexts, concurrencies, output length.
    Workload,
}

/// A flag of a request besides the engine's: what to run and the harness's
/// workload. With [`ENGINE_FLAGS`], every flag both faces take;
/// `scenario::Request::set` reads them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RequestFlag {
    /// Without the dashes, as the CLI and the web form's element ids spell it.
    pub flag: &'static str,
    pub group: FlagGroup,
    /// A switch (`--estimate-non-kv`) takes no value.
    pub switch: bool,
    pub unit: &'static str,
    /// What decodecalc does without it.
    pub default: &'static str,
    pub help: &'static str,
}

const fn request_flag(
    flag: &'static str,
    group: FlagGroup,
    unit: &'static str,
    default: &'static str,
    help: &'static str,
) -> RequestFlag {
    RequestFlag {
        flag,
        group,
        switch: false,
        unit,
        default,
        help,
    }
}

/// The request flags, in the order forms and help list them.
pub static REQUEST_FLAGS: &[RequestFlag] = &[
    request_flag(
        "scenario",
        FlagGroup::Setup,
        "",
        "the reference run when no model, GPU or launch line is given",
        "Scenario preset or file: a model, a GPU, flags and a measured run",
    ),
    request_flag(
        "model",
        FlagGroup::Setup,
        "",
        "the scenario's",
        "Model preset, Hugging Face repo of a preset, config.json, or a folder holding one",
    ),
    request_flag(
        "gpu",
        FlagGroup::Setup,
        "",
        "the scenario's (required with --model, a launch line or a log)",
        "GPU preset (id or alias) or a GPU file",
    ),
    request_flag(
        "vllm-command",
        FlagGroup::Setup,
        "",
        "none",
        "A `vllm serve ...` line: its model and flags, under the explicit ones",
    ),
    request_flag(
        "vllm-log",
        FlagGroup::Setup,
        "",
        "none",
        "vLLM's start-up log: pins the KV pool to its available memory and checks each logged figure",
    ),
    request_flag(
        "calibration",
        FlagGroup::Setup,
        "",
        "the scenario's, else the fit of the GPU's class",
        "Timing calibration: a preset, a file, or none",
    ),
    request_flag(
        "contexts",
        FlagGroup::Workload,
        "tokens",
        "0,16K,32K,64K,120K (those that fit max_model_len)",
        "Prompt lengths, one matrix row each (16K = 16,384; 16k = 16,000)",
    ),
    request_flag(
        "prefill-contexts",
        FlagGroup::Workload,
        "tokens",
        "the non-zero contexts",
        "Prompt lengths of the cold-prefill rows (one request each)",
    ),
    request_flag(
        "concurrency",
        FlagGroup::Workload,
        "requests",
        "1,2,4,8,16,32,64,128",
        "Simultaneous requests, one matrix column each",
    ),
    request_flag(
        "max-tokens",
        FlagGroup::Workload,
        "tokens",
        "8192 (at most half of max_model_len)",
        "Output tokens each request asks for",
    ),
    request_flag(
        "workload",
        FlagGroup::Workload,
        "",
        "harness (matrix, compare); solve answers both",
        "harness: one prompt shared by all requests, cached by a scout; distinct: every request its own prompt",
    ),
    RequestFlag {
        flag: "estimate-non-kv",
        group: FlagGroup::Setup,
        switch: true,
        unit: "",
        default: "off: a scenario's measured non-KV figure is used",
        help: "Use the first-principles non-KV estimate even where the scenario pins a measured one",
    },
];

/// What a help text or a form shows of any flag, engine or request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FlagHelp {
    pub help: &'static str,
    pub unit: &'static str,
    pub default: &'static str,
    /// `vllm serve`'s flag (an engine flag vLLM has), else decodecalc's.
    pub vllm: bool,
    pub switch: bool,
}

/// The help of the flag named `flag` (without dashes), from either table.
pub fn describe(flag: &str) -> Option<FlagHelp> {
    if let Some((f, _)) = find(flag) {
        return Some(FlagHelp {
            help: f.help,
            unit: f.unit,
            default: f.default,
            vllm: f.vllm,
            switch: matches!(f.kind, FlagKind::Switch | FlagKind::Set),
        });
    }
    REQUEST_FLAGS
        .iter()
        .find(|r| r.flag == flag)
        .map(|r| FlagHelp {
            help: r.help,
            unit: r.unit,
            default: r.default,
            vllm: false,
            switch: r.switch,
        })
}

/// The values a flag takes where they are a closed list (a form's select):
/// the parsers' own lists, the presets, the modelled releases. None for a
/// free value (a number, a JSON text, a path).
pub fn choices(flag: &str) -> Option<Vec<String>> {
    use crate::presets::{ids, Kind};
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let switch = find(flag).map(|(f, _)| f.kind);
    Some(match flag {
        "model" => ids(Kind::Model).map(str::to_string).collect(),
        "gpu" => ids(Kind::Gpu).map(str::to_string).collect(),
        "calibration" => std::iter::once("none")
            .chain(ids(Kind::Calibration))
            .map(str::to_string)
            .collect(),
        "quantization" => std::iter::once("auto")
            .chain(crate::quant::QuantMethod::ALL.iter().map(|m| m.name()))
            .map(str::to_string)
            .collect(),
        "kv-cache-dtype" => crate::dtype::KvCacheDtype::ALL
            .iter()
            .map(|d| d.name().to_string())
            .collect(),
        "mamba-ssm-cache-dtype" | "mamba-cache-dtype" => {
            owned(&["auto", "float32", "bfloat16", "float16"])
        }
        "dtype" => owned(&["auto", "bfloat16", "float16", "float32"]),
        "workload" => crate::harness::Workload::ALL
            .iter()
            .map(|w| w.name().to_string())
            .collect(),
        // The modelled release's backends (an older release's are refused
        // by name when `--vllm-version` names it).
        "attention-backend" => crate::engine::ATTENTION_BACKENDS
            .iter()
            .filter(|b| crate::version::MODELLED.has_attention_backend(b))
            .map(|b| b.to_string())
            .collect(),
        "vllm-version" => crate::version::tabled_releases()
            .iter()
            .map(ToString::to_string)
            .collect(),
        "estimate-non-kv" => owned(&["on"]),
        _ if switch == Some(FlagKind::Switch) => owned(&["true", "false"]),
        _ if switch == Some(FlagKind::Set) => owned(&["on"]),
        _ => return None,
    })
}

/// The row of a flag as vLLM spells it (or one of its short forms), or as
/// its `--no-` form for a switch: (row, on).
pub fn find(name: &str) -> Option<(&'static EngineFlag, bool)> {
    if let Some(f) = ENGINE_FLAGS
        .iter()
        .find(|f| f.flag == name || f.aliases.contains(&name))
    {
        return Some((f, true));
    }
    let base = name.strip_prefix("no-")?;
    ENGINE_FLAGS
        .iter()
        .find(|f| f.flag == base && f.kind == FlagKind::Switch)
        .map(|f| (f, false))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn each_field_is_one_row_and_every_row_reads_its_flag() {
        let mut fields: Vec<&str> = ENGINE_FLAGS.iter().map(|f| f.field).collect();
        fields.sort_unstable();
        fields.dedup();
        assert_eq!(fields.len(), ENGINE_FLAGS.len());
        for f in ENGINE_FLAGS {
            assert_eq!(f.field.replace('_', "-"), f.flag, "{}", f.field);
            let text = match f.kind {
                FlagKind::Int => Some("32K"),
                FlagKind::Float => Some("0.5"),
                FlagKind::Text => Some("x"),
                FlagKind::Switch | FlagKind::Set => None,
            };
            let mut s = EngineSettings::default();
            s.set_flag(f, text, true).unwrap();
            assert!(s.is_set(f.field), "{}", f.field);
            assert_eq!(EngineSettings::default().overlay(&s), s);
            assert!(!f.help.is_empty() && !f.default.is_empty());
        }
    }

    #[test]
    fn the_workload_defaults_are_the_harness_constants() {
        use crate::harness::harness_defaults as d;
        let row = |f: &str| REQUEST_FLAGS.iter().find(|r| r.flag == f).unwrap();
        let contexts: Vec<String> = d::CONTEXTS_TOKENS
            .iter()
            .map(|&c| crate::units::format_tokens(c))
            .collect();
        assert!(row("contexts").default.starts_with(&contexts.join(",")));
        let conc: Vec<String> = d::CONCURRENCY.iter().map(u64::to_string).collect();
        assert_eq!(row("concurrency").default, conc.join(","));
        assert!(row("max-tokens")
            .default
            .starts_with(&d::MAX_TOKENS.to_string()));
        // No request flag is also an engine flag.
        assert!(REQUEST_FLAGS.iter().all(|r| find(r.flag).is_none()));
    }

    #[test]
    fn every_choice_is_a_value_its_flag_takes() {
        let mut flags: Vec<&str> = ENGINE_FLAGS.iter().map(|f| f.flag).collect();
        flags.extend(REQUEST_FLAGS.iter().map(|r| r.flag));
        let mut with_choices = 0;
        for flag in flags {
            let Some(values) = choices(flag) else {
                continue;
            };
            with_choices += 1;
            for v in values {
                let mut r = crate::scenario::Request::default();
                r.set(flag, &v).unwrap();
                // The value resolves (a preset loads, a dtype parses, a
                // release is modelled) on a model and GPU that take it.
                if flag == "model" || flag == "gpu" || flag == "calibration" {
                    continue;
                }
                if let Err(e) = r.engine.validate(&crate::engine::flag) {
                    panic!("--{flag} {v}: {e}");
                }
            }
        }
        assert_eq!(with_choices, 19);
    }

    #[test]
    fn short_forms_and_no_forms_find_their_row() {
        assert_eq!(find("tp").unwrap().0.field, "tensor_parallel_size");
        let (f, on) = find("no-enable-prefix-caching").unwrap();
        assert_eq!((f.field, on), ("enable_prefix_caching", false));
        assert!(find("no-enforce-eager").is_none());
        let mut s = EngineSettings::default();
        s.set_flag(f, None, on).unwrap();
        assert_eq!(s.enable_prefix_caching, Some(false));
        let e = s.set_flag(find("max-num-seqs").unwrap().0, Some("many"), true);
        assert!(e.unwrap_err().message.contains("--max-num-seqs"));
        // A row's range refuses what vLLM refuses, from any source.
        let mut s = EngineSettings::default();
        s.set_flag(find("swap-space").unwrap().0, Some("-1"), true)
            .unwrap();
        let e = s.check_ranges(&crate::engine::flag).unwrap_err();
        assert!(e.message.contains("`--swap-space`"), "{e}");
        s.swap_space = Some(4.0);
        assert!(s.check_ranges(&crate::engine::flag).is_ok());
    }
}
