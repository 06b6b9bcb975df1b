//! Speculative decoding: `--speculative-config` as vLLM takes it, what it
//! adds to memory (the drafter's weights and KV cache, the lookahead slots
//! of each request) and what it does to a decode step (the target verifies
//! `k + 1` tokens per request; the drafter runs `k` passes; the tokens a
//! step yields follow from the per-position acceptance rates).
//!
//! vLLM's rules are those of `vllm/config/speculative.py`
//! (`SpeculativeConfig`, 0.32.0 wheel) unless a line says otherwise.

use crate::error::{Error, ErrorKind, Result};
use serde::Serialize;
use serde_json::Value;

/// How the draft tokens are proposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The checkpoint's own multi-token-prediction layers
    /// (`num_nextn_predict_layers`, `mtp_num_hidden_layers`).
    Mtp,
    /// An EAGLE head: a small separate checkpoint (`model`).
    Eagle,
    /// An EAGLE-3 head (`model`).
    Eagle3,
    /// A smaller model of the same vocabulary (`model`).
    DraftModel,
    /// Prompt lookup: drafts copied from the prompt's n-grams; no weights.
    Ngram,
    /// Suffix decoding (Arctic Inference): drafts from a suffix tree of
    /// prompts and past outputs; no GPU weights.
    Suffix,
}

impl Method {
    /// Every spelling vLLM 0.32 takes for `method`, with what it is. The
    /// per-family MTP names (`deepseek_mtp`, `qwen3_next_mtp`, ...) are
    /// older spellings of `mtp` that vLLM still maps to it.
    pub const SPELLINGS: [(&'static str, Method); 13] = [
        ("mtp", Method::Mtp),
        ("deepseek_mtp", Method::Mtp),
        ("qwen3_next_mtp", Method::Mtp),
        ("qwen3_5_mtp", Method::Mtp),
        ("glm4_moe_mtp", Method::Mtp),
        ("mimo_mtp", Method::Mtp),
        ("ernie_mtp", Method::Mtp),
        ("eagle", Method::Eagle),
        ("eagle3", Method::Eagle3),
        ("draft_model", Method::DraftModel),
        ("ngram", Method::Ngram),
        ("suffix", Method::Suffix),
        ("longcat_flash_mtp", Method::Mtp),
    ];

    pub fn name(self) -> &'static str {
        match self {
            Method::Mtp => "mtp",
            Method::Eagle => "eagle",
            Method::Eagle3 => "eagle3",
            Method::DraftModel => "draft_model",
            Method::Ngram => "ngram",
            Method::Suffix => "suffix",
        }
    }

    /// Whether the method proposes from a model on the GPU (else from text).
    pub fn has_drafter(self) -> bool {
        !matches!(self, Method::Ngram | Method::Suffix)
    }

    fn parse(text: &str) -> Option<Method> {
        let t = text.trim().to_ascii_lowercase();
        Method::SPELLINGS
            .iter()
            .find(|(s, _)| *s == t)
            .map(|(_, m)| *m)
    }
}

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

/// Keys vLLM takes that change nothing decodecalc computes (sampling and
/// loading details of the drafter).
const NO_EFFECT_KEYS: [&str; 13] = [
    "revision",
    "code_revision",
    "max_model_len",
    "disable_by_batch_size",
    "disable_padded_drafter_batch",
    "enforce_eager",
    "speculative_token_tree",
    "suffix_decoding_max_tree_depth",
    "suffix_decoding_max_cached_requests",
    "suffix_decoding_max_spec_factor",
    "suffix_decoding_min_token_prob",
    "draft_load_config",
    "rejection_sample_method",
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
fn bad_key(field: &str, key: &str, value: &Value, valid: impl Into<String>) -> Error {
    Error::new(format!("invalid value `{value}` for `{key}` in {field}"))
        .with_hint(valid)
        .of_kind(ErrorKind::InvalidValue)
        .about(field)
}

/// A count field of the object: a whole number from 1 to `max`.
fn count(
    o: &serde_json::Map<String, Value>,
    field: &str,
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
    pub fn parse(field: &str, text: &str) -> Result<SpeculativeConfig> {
        let v: Value = crate::config::parse_json(field, text)?;
        let Some(o) = v.as_object() else {
            return Err(Error::field(
                field,
                text,
                r#"a JSON object such as '{"method": "mtp", "num_speculative_tokens": 3}'"#,
            ));
        };
        let mut ignored_keys = Vec::new();
        for k in o.keys() {
            if NO_EFFECT_KEYS.contains(&k.as_str()) {
                ignored_keys.push(k.clone());
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
                bad_key(
                    field,
                    "method",
                    &Value::String(m.clone()),
                    "one of mtp, eagle, eagle3, draft_model, ngram, suffix (vLLM 0.32's methods decodecalc models)",
                )
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
}

impl Speculative {
    /// What `config` means for `model` at tensor parallelism `tp` and
    /// pipeline parallelism `pp`, refused where vLLM refuses it.
    pub fn resolve(
        field: &str,
        config: &SpeculativeConfig,
        model: &crate::model::Model,
        tp: u64,
        pp: u64,
    ) -> Result<Speculative> {
        let refuse = |why: String, hint: &str| {
            Err(Error::new(format!("{field}: {why}"))
                .with_hint(hint.to_string())
                .of_kind(ErrorKind::InvalidValue)
                .about(field))
        };
        // vLLM infers the method from the drafter's name when none is given.
        let method = match (config.method, &config.model) {
            (Some(m), _) => m,
            (None, Some(name)) => {
                let n = name.to_ascii_lowercase();
                if n.contains("eagle3") {
                    Method::Eagle3
                } else if n.contains("eagle") {
                    Method::Eagle
                } else {
                    Method::DraftModel
                }
            }
            (None, None) => {
                return refuse(
                    "no `method` and no `model`: vLLM cannot tell what drafts".into(),
                    r#"give a method, e.g. '{"method": "mtp", "num_speculative_tokens": 1}' or '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}'"#,
                )
            }
        };
        if pp > 1 {
            return refuse(
                format!("speculative decoding with pipeline parallelism ({pp} stages) is not supported by vLLM"),
                "drop --pipeline-parallel-size or the speculative config",
            );
        }
        let mtp_modules = model.mtp.as_ref().map_or(0, |b| b.count);
        let k = match method {
            Method::Mtp => {
                if mtp_modules == 0 {
                    return refuse(
                        format!(
                            "method mtp needs the model's own MTP layers, and {}'s config names none (num_nextn_predict_layers, mtp_num_hidden_layers)",
                            model.architecture
                        ),
                        "use a checkpoint that ships MTP layers (DeepSeek-V3, GLM-4.5+, Qwen3-Next, Qwen3.5, Nemotron 3 Super), or method eagle3 / draft_model with a drafter",
                    );
                }
                let k = config.num_speculative_tokens.unwrap_or(mtp_modules);
                // More tokens than MTP modules run the modules again; vLLM
                // takes a multiple of their count.
                if k > mtp_modules && k % mtp_modules != 0 {
                    return refuse(
                        format!("num_speculative_tokens {k} is not a multiple of the model's {mtp_modules} MTP layers"),
                        "use a multiple of the MTP layer count",
                    );
                }
                k
            }
            Method::Eagle | Method::Eagle3 | Method::DraftModel => {
                if config.model.is_none() {
                    return refuse(
                        format!(
                            "method {} needs the drafter's checkpoint in `model`",
                            method.name()
                        ),
                        r#"add "model": "<the drafter's Hugging Face id>""#,
                    );
                }
                match config.num_speculative_tokens {
                    Some(k) => k,
                    None => {
                        return refuse(
                            format!("method {} needs num_speculative_tokens", method.name()),
                            r#"add "num_speculative_tokens": 3 (or another count)"#,
                        )
                    }
                }
            }
            Method::Ngram | Method::Suffix => {
                if let (Some(lo), Some(hi)) = (config.prompt_lookup_min, config.prompt_lookup_max) {
                    if lo > hi {
                        return refuse(
                            format!("prompt_lookup_min ({lo}) is above prompt_lookup_max ({hi})"),
                            "give prompt_lookup_min <= prompt_lookup_max",
                        );
                    }
                }
                match config.num_speculative_tokens {
                    Some(k) => k,
                    None => {
                        return refuse(
                            format!("method {} needs num_speculative_tokens", method.name()),
                            r#"add "num_speculative_tokens": 4 (or another count)"#,
                        )
                    }
                }
            }
        };
        if let Some(d) = config.draft_tensor_parallel_size {
            let ok = match method {
                Method::DraftModel => d == 1 || d == tp,
                _ => d == tp,
            };
            if !ok {
                return refuse(
                    format!("draft_tensor_parallel_size {d} with --tensor-parallel-size {tp}"),
                    "the drafter runs at the target's tensor parallelism (a draft model may also use 1)",
                );
            }
        }
        Ok(Speculative {
            method,
            num_speculative_tokens: k,
            draft_model: config.model.clone().filter(|_| method != Method::Mtp),
            mtp_modules: if method == Method::Mtp {
                mtp_modules
            } else {
                0
            },
        })
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
