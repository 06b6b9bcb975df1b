//! Speculative decoding: `--speculative-config` as vLLM takes it, what it
//! adds to memory (the drafter's weights and KV cache, the lookahead slots
//! of each request) and what it does to a decode step (the target verifies
//! `k + 1` tokens per request; the drafter runs `k` passes; the tokens a
//! step yields follow from the per-position acceptance rates).
//!
//! vLLM's rules are those of `vllm/config/speculative.py`
//! (`SpeculativeConfig`, 0.32.0 wheel) unless a line says otherwise.

use crate::error::AsSubject;
use crate::error::{Error, ErrorKind, Result};
use serde::Serialize;
use serde_json::Value;

mod method;
pub use method::{check_target, Method, METHODS_HINT};

/// The keys of `--speculative-config` that decodecalc reads.
const READ_KEYS: [&str; 7] = [
    "method",
    "num_speculative_tokens",
    "model",
    "draft_tensor_parallel_size",
    "prompt_lookup_max",
    "prompt_lookup_min",
    "quantization",
];

/// Keys vLLM 0.32 takes that change nothing decodecalc computes (sampling,
/// kernels and loading details of the drafter; `SpeculativeConfig`'s
/// fields). Any other key is refused, as vLLM's config refuses extra fields.
const NO_EFFECT_KEYS: [&str; 25] = [
    "enforce_eager",
    "moe_backend",
    "attention_backend",
    "kv_cache_dtype",
    "max_model_len",
    "revision",
    "code_revision",
    "index_share_for_mtp_iteration",
    "disable_padded_drafter_batch",
    "disable_eagle_block_drop",
    "use_local_argmax_reduction",
    "use_heterogeneous_vocab",
    "parallel_drafting",
    "num_speculative_tokens_per_batch_size",
    "suffix_decoding_max_tree_depth",
    "suffix_decoding_max_cached_requests",
    "suffix_decoding_max_spec_factor",
    "suffix_decoding_min_token_prob",
    "draft_load_config",
    "rejection_sample_method",
    "synthetic_acceptance_rates",
    "synthetic_acceptance_length",
    "enable_adaptive_verification",
    "draft_sample_method",
    "dspark_draft_topk",
];

/// Most draft tokens per step decodecalc takes (vLLM has no bound; real
/// configurations use 1 to 15).
pub const MAX_SPECULATIVE_TOKENS: u64 = 32;

/// `--speculative-config` as given: the JSON object's fields decodecalc
/// reads, checked on their own (what depends on the model is
/// [`Speculative::resolve`]'s).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpeculativeConfig {
    /// None: inferred from `model` as vLLM does.
    pub method: Option<Method>,
    pub num_speculative_tokens: Option<u64>,
    /// The drafter's checkpoint (EAGLE, EAGLE-3, draft model).
    pub model: Option<String>,
    pub draft_tensor_parallel_size: Option<u64>,
    pub prompt_lookup_max: Option<u64>,
    pub prompt_lookup_min: Option<u64>,
    /// Keys given that change nothing decodecalc computes.
    pub ignored_keys: Vec<String>,
}

/// A bad value of one key of the object; the error is about the flag (or
/// the file field) that holds the object.
fn bad_key(field: impl AsSubject, key: &str, value: &Value, valid: impl Into<String>) -> Error {
    Error::new(format!("invalid value `{value}` for `{key}` in {field}"))
        .with_hint(valid)
        .of_kind(ErrorKind::InvalidValue)
        .about(field)
}

/// A count field of the object: a whole number from 1 to `max`.
fn count(
    o: &serde_json::Map<String, Value>,
    field: impl AsSubject,
    key: &str,
    max: u64,
) -> Result<Option<u64>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if (1..=max).contains(&n) => Ok(Some(n)),
            _ => Err(bad_key(
                field,
                key,
                v,
                format!("a whole number from 1 to {max}"),
            )),
        },
    }
}

impl SpeculativeConfig {
    /// Read the JSON text of `--speculative-config` (`field` names it in
    /// errors: the flag, or a file's field).
    pub fn parse(field: impl AsSubject, text: &str) -> Result<SpeculativeConfig> {
        let v: Value = crate::config::parse_json(&field.to_string(), text).map_err(|e| {
            e.with_hint(r#"a JSON object such as '{"method": "mtp", "num_speculative_tokens": 3}' (quote it for the shell)"#)
        })?;
        let Some(o) = v.as_object() else {
            return Err(Error::field(
                field,
                text,
                r#"a JSON object such as '{"method": "mtp", "num_speculative_tokens": 3}'"#,
            ));
        };
        let mut ignored_keys = Vec::new();
        for k in o.keys() {
            if k == "tensor_parallel_size" {
                return Err(Error::new(format!(
                    "{field}: `tensor_parallel_size` is not a field of vLLM's SpeculativeConfig"
                ))
                .with_hint("give the drafter's tensor parallelism as draft_tensor_parallel_size (1 or the target's)")
                .of_kind(ErrorKind::InvalidValue)
                .about(field));
            }
            if NO_EFFECT_KEYS.contains(&k.as_str()) {
                // A null is vLLM's default: nothing given.
                if !o.get(k).is_some_and(Value::is_null) {
                    ignored_keys.push(k.clone());
                }
            } else if !READ_KEYS.contains(&k.as_str()) {
                return Err(Error::new(format!(
                    "{field}: vLLM's SpeculativeConfig has no field `{k}`"
                ))
                .with_hint(format!(
                    "fields decodecalc reads: {}; fields it accepts without effect: {}",
                    READ_KEYS.join(", "),
                    NO_EFFECT_KEYS.join(", ")
                ))
                .of_kind(ErrorKind::InvalidValue)
                .about(field));
            }
        }
        let text_of = |key: &str| -> Result<Option<String>> {
            match o.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(v) => Err(bad_key(field, key, v, "a string")),
            }
        };
        let method = match text_of("method")? {
            Some(m) => Some(Method::parse(&m).ok_or_else(|| {
                bad_key(field, "method", &Value::String(m.clone()), METHODS_HINT)
            })?),
            None => None,
        };
        if let Some(q) = text_of("quantization")? {
            ignored_keys.push(format!("quantization ({q})"));
        }
        // vLLM: "Expected num_speculative_tokens to be greater than zero".
        let k = count(o, field, "num_speculative_tokens", MAX_SPECULATIVE_TOKENS)?;
        Ok(SpeculativeConfig {
            method,
            num_speculative_tokens: k,
            model: text_of("model")?,
            draft_tensor_parallel_size: count(o, field, "draft_tensor_parallel_size", 1024)?,
            prompt_lookup_max: count(o, field, "prompt_lookup_max", 1 << 16)?,
            prompt_lookup_min: count(o, field, "prompt_lookup_min", 1 << 16)?,
            ignored_keys,
        })
    }
}

/// Speculative decoding resolved against the model and the engine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Speculative {
    pub method: Method,
    /// Draft tokens proposed per request per step (`k`).
    pub num_speculative_tokens: u64,
    /// The drafter's checkpoint, for EAGLE, EAGLE-3 and draft models.
    pub draft_model: Option<String>,
    /// The MTP modules the drafter runs (`method: mtp`): the checkpoint's.
    pub mtp_modules: u64,
    /// Per-position acceptance rates, positions 1 to `k`: the share of
    /// steps whose draft token at that position is accepted (so each is at
    /// most the one before), as vLLM's "Per-position acceptance rate" log
    /// line gives them.
    pub acceptance: Vec<f64>,
    /// Where the rates come from: `--spec-acceptance`, or the method's
    /// default and its source ([`DEFAULT_ACCEPTANCE`]).
    pub acceptance_source: String,
    /// Fields of the config that change nothing decodecalc computes.
    pub ignored_keys: Vec<String>,
    /// A draft model's or an EAGLE-3 head's checkpoint, loaded by
    /// [`Speculative::attach_drafter`]; None for the other methods.
    #[serde(skip)]
    pub drafter: Option<Box<crate::presets::LoadedModel>>,
    /// GPUs the drafter is split across (`draft_tensor_parallel_size`, else
    /// the target's).
    pub draft_tensor_parallel_size: Option<u64>,
}

/// A method's default acceptance: the conditional acceptance of the first
/// draft position `first` (the chance it is accepted), and `decay`, the
/// factor each later position's conditional acceptance is of the one before
/// (position j is accepted, given j-1 was, with chance first x decay^(j-1)).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AcceptanceCurve {
    pub first: f64,
    pub decay: f64,
    /// Where the figures come from.
    pub source: &'static str,
}

impl AcceptanceCurve {
    /// Per-position acceptance rates for positions 1 to `k`.
    pub fn rates(&self, k: u64) -> Vec<f64> {
        let mut out = Vec::new();
        let (mut p, mut c) = (1.0, self.first);
        for _ in 0..k {
            p *= c.clamp(0.0, 1.0);
            out.push(p);
            c *= self.decay;
        }
        out
    }
}

/// The default acceptance of each method: fitted by
/// `scripts/spec-acceptance-fit.py` to the published mean acceptance lengths
/// in `data/speculative/acceptance_curves.csv` (vLLM on B300, SPEED-Bench
/// coding, k = 1 to 8, thinking on and off; MTP's root-mean-square error
/// 0.66 tokens across its three models, EAGLE-3's 0.20). Workload-dependent: chat and
/// code accept more than creative text; `--spec-acceptance` overrides.
pub const DEFAULT_ACCEPTANCE: [(Method, AcceptanceCurve); 7] = [
    (
        Method::Mtp,
        AcceptanceCurve {
            first: 0.843,
            decay: 0.944,
            source: "MTP default: fit to InferenceX golden AL curves of Qwen3.5-397B, GLM-5.2 and DeepSeek-V4-Pro (data/speculative/acceptance_curves.csv; scripts/spec-acceptance-fit.py)",
        },
    ),
    (
        Method::Eagle3,
        AcceptanceCurve {
            first: 0.787,
            decay: 0.973,
            source: "EAGLE-3 default: fit to InferenceX golden AL curves of Kimi-K2.5 and MiniMax-M3 (data/speculative/acceptance_curves.csv; scripts/spec-acceptance-fit.py)",
        },
    ),
    (
        Method::Eagle,
        AcceptanceCurve {
            first: 0.75,
            decay: 0.97,
            source: "EAGLE default: assumed below EAGLE-3 (no published per-position curve collected)",
        },
    ),
    (
        Method::Dflash,
        AcceptanceCurve {
            first: 0.877,
            decay: 0.997,
            source: "DFlash default: least squares on the per-position rates of z-lab's Gemma-4-31B DFlash drafter at k = 7 (club-3090, data/speculative/acceptance_positions.csv)",
        },
    ),
    (
        Method::DraftModel,
        AcceptanceCurve {
            first: 0.75,
            decay: 0.97,
            source: "draft-model default: assumed (no published per-position curve collected)",
        },
    ),
    (
        Method::Ngram,
        AcceptanceCurve {
            first: 0.5,
            decay: 0.9,
            source: "n-gram default: assumed; prompt lookup accepts only what the prompt repeats (give --spec-acceptance)",
        },
    ),
    (
        Method::Suffix,
        AcceptanceCurve {
            first: 0.5,
            decay: 0.9,
            source: "suffix default: assumed; suffix decoding accepts only repeated text (give --spec-acceptance)",
        },
    ),
];

/// A method without a row of [`DEFAULT_ACCEPTANCE`] (none today).
const FALLBACK_ACCEPTANCE: AcceptanceCurve = AcceptanceCurve {
    first: 0.5,
    decay: 0.9,
    source: "assumed",
};

mod published;
pub use published::{PublishedAcceptance, PUBLISHED_ACCEPTANCE};

/// `--spec-acceptance`: per-position acceptance rates, comma separated,
/// each in (0, 1] and none above the one before; positions past the last
/// given continue at the last given ratio (or the last rate itself when
/// one is given).
pub fn parse_acceptance(field: impl AsSubject, text: &str, k: u64) -> Result<Vec<f64>> {
    let valid = "per-position acceptance rates, such as 0.8,0.6,0.45: each in (0, 1], none above the one before (vLLM logs them as \"Per-position acceptance rate\")";
    let mut given = Vec::new();
    for part in text.split(',') {
        let v = crate::units::parse_f64(part.trim())
            .filter(|v| *v > 0.0 && *v <= 1.0)
            .ok_or_else(|| Error::field(field, text, valid))?;
        if given.last().is_some_and(|&last: &f64| v > last) {
            return Err(Error::field(field, text, valid));
        }
        given.push(v);
        if given.len() as u64 > MAX_SPECULATIVE_TOKENS {
            return Err(Error::field(
                field,
                text,
                format!("at most {MAX_SPECULATIVE_TOKENS} rates"),
            ));
        }
    }
    if given.is_empty() {
        return Err(Error::field(field, text, valid));
    }
    Ok(extend_rates(&given, k))
}

/// Per-position rates `given` for positions 1 to `k`: cut to `k`, or
/// continued past the last at the last ratio (the last rate itself when one
/// is given).
pub fn extend_rates(given: &[f64], k: u64) -> Vec<f64> {
    let ratio = match given {
        [.., a, b] => b / a,
        [a] => *a,
        [] => 0.0,
    };
    let mut out = given.to_vec();
    while (out.len() as u64) < k {
        let last = out.last().copied().unwrap_or(0.0);
        out.push(last * ratio);
    }
    out.truncate(usize::try_from(k).unwrap_or(usize::MAX));
    out
}

/// Why vLLM refuses a speculative config, and what would be valid.
type Refusal = (String, &'static str);

/// What vLLM says of a drafter method given without `model` (with or
/// without a count: `SpeculativeConfig.__post_init__`, `_verify_args`).
fn no_drafter(method: Method, k: Option<u64>) -> Refusal {
    let why = if k.is_some() {
        "num_speculative_tokens was provided but without speculative model"
    } else {
        "num_speculative_tokens must be provided with speculative model"
    };
    (
        format!(
            "method {} needs the drafter's checkpoint in `model` (vLLM: \"{why}\")",
            method.name()
        ),
        r#"add "model": "<the drafter's Hugging Face id, preset or config.json>", or use method mtp (the checkpoint's own MTP layers) or ngram"#,
    )
}

/// The draft tokens per step `method` proposes for `model`.
fn draft_tokens(
    method: Method,
    config: &SpeculativeConfig,
    model: &crate::model::Model,
) -> std::result::Result<u64, Refusal> {
    let needs_k = || {
        config.num_speculative_tokens.ok_or_else(|| {
            (
                format!("method {} needs num_speculative_tokens", method.name()),
                r#"add "num_speculative_tokens": 3 (or another count)"#,
            )
        })
    };
    match method {
        Method::Mtp => {
            let modules = model.mtp.as_ref().map_or(0, |b| b.count);
            if modules == 0 {
                return Err((
                    format!(
                        "method mtp needs the model's own MTP layers, and {}'s config names none (num_nextn_predict_layers, mtp_num_hidden_layers); vLLM: \"Unsupported speculative method: 'mtp'\"",
                        model.architecture
                    ),
                    "use a checkpoint that ships MTP layers (DeepSeek-V3, GLM-4.5+, Qwen3-Next, Qwen3.5, Nemotron 3 Super), or method ngram",
                ));
            }
            // k defaults to the MTP layer count only when `model` names the
            // checkpoint; `{"method": "mtp"}` alone fails vLLM's check.
            let k = match (config.num_speculative_tokens, &config.model) {
                (Some(k), _) => k,
                (None, Some(_)) => modules,
                (None, None) => return needs_k(),
            };
            // More tokens than MTP modules run the modules again; vLLM
            // takes a multiple of their count.
            if k > modules && !k.is_multiple_of(modules) {
                return Err((
                    format!("num_speculative_tokens {k} is not a multiple of the model's {modules} MTP layers"),
                    "use a multiple of the MTP layer count",
                ));
            }
            Ok(k)
        }
        Method::DraftModel | Method::Eagle | Method::Eagle3 | Method::Dflash => {
            match &config.model {
                Some(_) => needs_k(),
                None => Err(no_drafter(method, config.num_speculative_tokens)),
            }
        }
        Method::Unmodelled("custom_class") if config.model.is_none() => Err((
            "method custom_class requires `model` to hold the proposer's import path (vLLM's words: \"requires 'model' to contain the custom proposer module path\")".into(),
            r#"add "model": "my_module.MyProposer""#,
        )),
        Method::Unmodelled(name) => Err((
            format!("method {name}: {}", method::unmodelled_reason(name)),
            "modelled: mtp (the checkpoint's own MTP layers), eagle, eagle3, dflash, draft_model, ngram and suffix",
        )),
        // Suffix decoding drafts up to its tree depth (24) without k.
        Method::Suffix => Ok(config.num_speculative_tokens.unwrap_or(24)),
        Method::Ngram => {
            if let (Some(lo), Some(hi)) = (config.prompt_lookup_min, config.prompt_lookup_max) {
                if lo > hi {
                    return Err((
                        format!("prompt_lookup_min ({lo}) is above prompt_lookup_max ({hi})"),
                        "give prompt_lookup_min <= prompt_lookup_max",
                    ));
                }
            }
            needs_k()
        }
    }
}

impl Speculative {
    /// What `config` means for `model` at tensor parallelism `tp`, refused
    /// where vLLM refuses it. (vLLM 0.32 does not refuse pipeline
    /// parallelism; the drafter runs with the last stage.)
    pub fn resolve(
        field: impl AsSubject,
        config: &SpeculativeConfig,
        model: &crate::model::Model,
        tp: u64,
    ) -> Result<Speculative> {
        Self::checked(config, model, tp).map_err(|(why, hint)| {
            Error::new(format!("{field}: {why}"))
                .with_hint(hint)
                .of_kind(ErrorKind::InvalidValue)
                .about(field)
        })
    }

    fn checked(
        config: &SpeculativeConfig,
        model: &crate::model::Model,
        tp: u64,
    ) -> std::result::Result<Speculative, Refusal> {
        let method = Method::settle(config.method, config.model.as_deref());
        let k = draft_tokens(method, config, model)?;
        // Fields of one method only, refused with any other
        // (`SpeculativeConfig.__post_init__`).
        for (key, only) in [
            ("index_share_for_mtp_iteration", "mtp"),
            ("dspark_draft_topk", "dspark"),
        ] {
            if method.name() != only && config.ignored_keys.iter().any(|k| k == key) {
                return Err((
                    format!(
                        "`{key}` is a field of method {only} only, and the method is {}",
                        method.name()
                    ),
                    "drop the field, as vLLM 0.32 refuses it with any other method",
                ));
            }
        }
        if let Some(d) = config.draft_tensor_parallel_size {
            if d != 1 && d != tp {
                return Err((
                    format!("draft_tensor_parallel_size {d} with --tensor-parallel-size {tp}"),
                    "1 or the target's --tensor-parallel-size, as vLLM requires",
                ));
            }
        }
        let curve = DEFAULT_ACCEPTANCE
            .iter()
            .find(|(m, _)| *m == method)
            .map_or(FALLBACK_ACCEPTANCE, |(_, c)| *c);
        let mtp_modules = model.mtp.as_ref().map_or(0, |b| b.count);
        Ok(Speculative {
            method,
            num_speculative_tokens: k,
            draft_model: config.model.clone().filter(|_| method != Method::Mtp),
            mtp_modules: if method == Method::Mtp {
                mtp_modules
            } else {
                0
            },
            acceptance: curve.rates(k),
            acceptance_source: curve.source.to_string(),
            ignored_keys: config.ignored_keys.clone(),
            drafter: None,
            draft_tensor_parallel_size: config.draft_tensor_parallel_size,
        })
    }

    /// Load a draft model's checkpoint (`method: draft_model`) with
    /// `load` (the World's model loader), refused as vLLM refuses a drafter
    /// of another vocabulary (`SpeculativeConfig._verify_args`).
    pub fn attach_drafter(
        &mut self,
        field: impl AsSubject,
        target: &crate::model::Model,
        load: impl FnOnce(&str) -> Result<crate::presets::LoadedModel>,
    ) -> Result<()> {
        let (Method::DraftModel | Method::Eagle | Method::Eagle3 | Method::Dflash, Some(name)) =
            (self.method, self.draft_model.clone())
        else {
            return Ok(());
        };
        let refuse = |why: String, hint: String| {
            Error::new(format!("{field}: {why}"))
                .with_hint(hint)
                .of_kind(ErrorKind::InvalidValue)
                .about(field)
        };
        let mut drafter = load(&name).map_err(|e| e.within(field))?;
        let arch = drafter.model.architecture.clone();
        // vLLM re-detects a generic method from the drafter's architecture.
        self.method = self.method.of_drafter(&arch);
        let family = crate::config::ARCHITECTURES
            .iter()
            .find(|a| a.name == arch)
            .map_or("", |a| a.family);
        if !self.method.drafter_fits(&arch, family) {
            return Err(refuse(
                format!(
                    "the drafter {name} is a `{arch}` checkpoint, which vLLM does not run as method {}",
                    self.method.name()
                ),
                format!(
                    "give the method its checkpoint is for ({}), or a drafter of method {}",
                    method::method_of_family(family),
                    self.method.name()
                ),
            ));
        }
        // An EAGLE-3 head's own logits cover a smaller vocabulary; the one
        // it samples (`vocab_size`) is the target's.
        if drafter.model.sampled_vocab_size != target.sampled_vocab_size {
            return Err(refuse(
                format!(
                    "the drafter {name} has a vocabulary of {} tokens and the model {}: vLLM needs them equal",
                    drafter.model.sampled_vocab_size, target.sampled_vocab_size
                ),
                "choose a drafter of the same family (its tokenizer)".into(),
            ));
        }
        // An EAGLE-1 head is its config's decoder layers plus `fc`, which
        // fuses the token's embedding with the target's hidden state
        // (2h -> h; vLLM 0.32 `vllm/model_executor/models/llama_eagle.py`).
        if self.method == Method::Eagle {
            let h = drafter.model.hidden_size;
            drafter.model.encoder.push(crate::model::Module {
                name: "eagle_fc",
                kind: crate::model::ModuleKind::MlpLinear,
                in_features: 2 * h,
                out_features: h,
                count: 1,
                fp8: false,
            });
        }
        self.drafter = Some(Box::new(drafter));
        Ok(())
    }

    /// Whether the drafter's tensors of `kind` are the target's (vLLM shares
    /// them: `SpecDecodeBaseProposer._maybe_share_embeddings` and
    /// `_maybe_share_lm_head`, vllm/v1/spec_decode/llm_base_proposer.py):
    /// an EAGLE, EAGLE-3 or DFlash head takes the target's embedding and
    /// rotary tables, and its lm_head too unless it has a draft vocabulary
    /// of its own. A draft model shares nothing.
    pub fn shares_with_target(&self, kind: crate::model::ModuleKind) -> bool {
        use crate::model::ModuleKind as K;
        let head = matches!(self.method, Method::Eagle | Method::Eagle3 | Method::Dflash);
        let own_vocab = self
            .drafter
            .as_ref()
            .is_some_and(|d| d.model.vocab_size != d.model.sampled_vocab_size);
        match kind {
            K::Embedding | K::Buffer => head,
            K::LmHead => head && self.method != Method::Eagle3 && !own_vocab,
            _ => false,
        }
    }

    /// What one GPU holds of the draft model, in the target's served dtype
    /// (`served`): split over `draft_tensor_parallel_size`, else the
    /// target's `tp`. None without a draft model.
    pub fn drafter_per_gpu(
        &self,
        tp: u64,
        served: crate::dtype::FloatDtype,
    ) -> Option<Result<crate::model::Model>> {
        let d = self.drafter.as_ref()?;
        Some(
            d.model
                .shard(self.draft_tensor_parallel_size.unwrap_or(tp))
                .map(|mut m| {
                    m.dtype = served;
                    m
                }),
        )
    }

    /// KV slots a decoding request holds beyond its context: the `k` draft
    /// tokens scheduled for verification, and the drafter's lookahead
    /// (`VllmConfig.num_lookahead_tokens`, vllm/config/vllm.py): `k` for a
    /// drafter that writes KV (MTP, EAGLE, a draft model), `k + 1` for
    /// DFlash (its bonus query and one per draft token), none for n-gram
    /// and suffix; the scheduler allocates them (`KVCacheManager.allocate_slots`).
    pub fn held_slots(&self) -> u64 {
        let k = self.num_speculative_tokens;
        let lookahead = match self.method {
            Method::Dflash => k + 1,
            m if m.has_drafter() => k,
            _ => 0,
        };
        k + lookahead
    }

    /// Tokens a running request gains per step on average: the bonus token
    /// plus each draft position's acceptance rate (vLLM's "mean acceptance
    /// length").
    pub fn mean_acceptance_length(&self) -> f64 {
        1.0 + self.acceptance.iter().sum::<f64>()
    }

    /// Drafter passes a decode step runs: one per draft token, except
    /// DFlash, which proposes the whole block of `k` in one pass over the
    /// bonus token and `k` mask tokens (`DFlashProposer.set_inputs_first_pass`,
    /// vllm/v1/spec_decode/dflash.py). None run on the GPU for n-gram and
    /// suffix, whose host time the pass overhead stands for.
    pub fn drafter_passes(&self) -> u64 {
        match self.method {
            Method::Dflash => 1,
            _ => self.num_speculative_tokens,
        }
    }

    /// Tokens the target processes per running request in a decode step.
    pub fn tokens_per_step(&self) -> u64 {
        self.num_speculative_tokens + 1
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_config_is_read_as_vllm_reads_it_and_its_refusals_name_the_field() {
        let c = SpeculativeConfig::parse(
            "--speculative-config",
            r#"{"method":"deepseek_mtp","num_speculative_tokens":2}"#,
        )
        .unwrap();
        assert_eq!(c.method, Some(Method::Mtp));
        assert_eq!(c.num_speculative_tokens, Some(2));
        let e = SpeculativeConfig::parse(
            "--speculative-config",
            r#"{"method":"mtp","num_speculative_tokens":0}"#,
        )
        .unwrap_err();
        assert_eq!(e.flag(), Some("--speculative-config"));
        assert_eq!(
            e.message,
            "invalid value `0` for `num_speculative_tokens` in --speculative-config"
        );
        let e = SpeculativeConfig::parse("--speculative-config", r#"{"method":"mtp","tokens":2}"#)
            .unwrap_err();
        assert!(e.message.contains("no field `tokens`"), "{}", e.message);
        let e = SpeculativeConfig::parse("--speculative-config", r#"{"method":"medusa2"}"#)
            .unwrap_err();
        assert!(e.hint.unwrap().contains("eagle3"));
        assert!(SpeculativeConfig::parse("--speculative-config", "[1]").is_err());
    }
}
