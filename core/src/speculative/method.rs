//! The speculative methods vLLM 0.32 accepts (`SpeculativeMethod`) and how it
//! settles the method when the config leaves it out or names a generic one:
//! from the drafter's name (`SpeculativeConfig.__post_init__`) and, once the
//! drafter's config.json is read, from its architecture
//! ([`Method::of_drafter`]). All of it is `vllm/config/speculative.py`
//! (0.32.0 wheel) unless a line says otherwise.

use serde::Serialize;

/// How the draft tokens are proposed (`SpeculativeMethod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The checkpoint's own multi-token-prediction layers
    /// (`num_nextn_predict_layers`, `mtp_num_hidden_layers`).
    Mtp,
    /// An EAGLE-1 head: a small separate checkpoint (`model`) of the
    /// target's layer shape reading the token's embedding and the target's
    /// last hidden state (`fc`, 2h -> h); the target's embedding and lm_head.
    Eagle,
    /// An EAGLE-3 head (`model`).
    Eagle3,
    /// A DFlash block drafter (`model`): a few decoder layers with their own
    /// KV cache that propose all `k` tokens in one pass from the target's
    /// hidden states (`vllm/v1/spec_decode/dflash.py`).
    Dflash,
    /// A smaller model of the same vocabulary (`model`).
    DraftModel,
    /// Prompt lookup: drafts copied from the prompt's n-grams; no weights
    /// (`ngram` on the host, `ngram_gpu` on the GPU).
    Ngram,
    /// Suffix decoding (Arctic Inference): drafts from a suffix tree of
    /// prompts and past outputs; no GPU weights.
    Suffix,
    /// A method vLLM 0.32 has whose drafter decodecalc does not read: `dspark`,
    /// `medusa`, `mlp_speculator`, `custom_class`, `extract_hidden_states`
    /// (its name).
    Unmodelled(&'static str),
}

/// vLLM 0.32's per-family MTP method names (`MTPModelTypes`), deprecated
/// spellings of `mtp` that it rewrites to it.
const MTP_ALIASES: [&str; 26] = [
    "deepseek_mtp",
    "dots3_note_mtp",
    "mimo_mtp",
    "mimo_v2_mtp",
    "glm4_moe_mtp",
    "glm4_moe_lite_mtp",
    "glm_ocr_mtp",
    "ernie_mtp",
    "nemotron_h_mtp",
    "exaone_moe_mtp",
    "exaone4_5_mtp",
    "qwen3_next_mtp",
    "qwen4_exp_mtp",
    "qwen3_5_mtp",
    "longcat_flash_mtp",
    "bailing_hybrid_v3_mtp",
    "minimax_m3_mtp",
    "bailing_hybrid_mtp",
    "kimi_k3_mtp",
    "pangu_ultra_moe_mtp",
    "step3p5_mtp",
    "hy_v3_mtp",
    "hy_v4_mtp",
    "gemma4_mtp",
    "inkling_mtp",
    "glm5_next_mtp",
];

/// Methods vLLM 0.32 has whose drafter decodecalc does not read, and what
/// vLLM 0.32 does with each (read from its source: the model runners'
/// choice of proposer, `vllm/v1/worker/gpu_model_runner.py` and
/// `vllm/v1/worker/gpu/spec_decode/__init__.py`; which runner a config
/// gets, `VllmConfig.use_v2_model_runner`, `vllm/config/vllm.py`; the
/// draft architectures it registers, `vllm/model_executor/models/registry.py`).
const UNMODELLED: [(&str, &str); 5] = [
    ("dspark", "vLLM 0.32 runs DSpark drafters (V2 model runner only) but decodecalc does not model them: their weights, KV cache and steps would be missing"),
    ("medusa", "vLLM 0.32 runs Medusa heads (V1 model runner, MedusaProposer) but decodecalc does not read them: their weights and steps would be missing"),
    ("mlp_speculator", "vLLM 0.32 cannot run it: its model registry has no MLPSpeculator (the entry is commented out) and the V1 model runner it falls back to has no proposer for it (\"Unknown speculative decoding method: mlp_speculator\")"),
    ("custom_class", "vLLM 0.32 imports a proposer class of your own (V1 model runner); decodecalc cannot know what it costs"),
    ("extract_hidden_states", "vLLM 0.32's extract_hidden_states speculates nothing: it caches the target's hidden states (for a KV connector) and returns the sampled tokens as drafts; decodecalc does not model it"),
];

/// Why a method of [`UNMODELLED`] is refused.
pub(super) fn unmodelled_reason(name: &str) -> &'static str {
    UNMODELLED
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("decodecalc does not model it", |(_, why)| why)
}

/// The decoder classes decodecalc reads whose EAGLE-1 heads vLLM 0.32
/// registers: a head's config names the target's decoder class and vLLM
/// runs it as `Eagle{arch}` (`EAGLEConfig`,
/// `vllm/transformers_utils/configs/eagle.py`; the `Eagle*` rows of
/// `vllm/model_executor/models/registry.py`: Llama, Mistral, MiniCPM,
/// Cohere, Llama 4), so no other decoder class is an EAGLE-1 head.
const EAGLE_1_ARCHITECTURES: [&str; 2] = ["LlamaForCausalLM", "MistralForCausalLM"];

/// Every spelling of `method` vLLM 0.32 takes (its `Literal`; exact case),
/// for a refusal's hint.
pub const METHODS_HINT: &str = "one of vLLM 0.32's methods: mtp (or a per-family name such as deepseek_mtp), eagle, eagle3, dflash, dspark, draft_model, ngram, ngram_gpu, suffix, medusa, mlp_speculator, custom_class, extract_hidden_states";

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Mtp => "mtp",
            Method::Eagle => "eagle",
            Method::Eagle3 => "eagle3",
            Method::Dflash => "dflash",
            Method::DraftModel => "draft_model",
            Method::Ngram => "ngram",
            Method::Suffix => "suffix",
            Method::Unmodelled(name) => name,
        }
    }

    /// Whether the method proposes from a model on the GPU (else from text).
    pub fn has_drafter(self) -> bool {
        !matches!(self, Method::Ngram | Method::Suffix)
    }

    /// A `method` value as vLLM's `Literal` validates it: the exact
    /// spelling (`"[ngram]"` is a `model` value, not a method).
    pub(super) fn parse(text: &str) -> Option<Method> {
        Some(match text {
            "mtp" => Method::Mtp,
            "eagle" => Method::Eagle,
            "eagle3" => Method::Eagle3,
            "dflash" => Method::Dflash,
            "draft_model" => Method::DraftModel,
            "ngram" | "ngram_gpu" => Method::Ngram,
            "suffix" => Method::Suffix,
            t if MTP_ALIASES.contains(&t) => Method::Mtp,
            t => Method::Unmodelled(UNMODELLED.iter().find(|(u, _)| *u == t)?.0),
        })
    }

    /// The method vLLM settles on before it reads the drafter's config:
    /// `method` as given, else `custom_class` for a dotted import path,
    /// `ngram` for the model names `ngram` / `[ngram]`, else `draft_model`;
    /// then, for the methods whose drafter it loads as a model (`mtp`,
    /// `draft_model`, `medusa`, `mlp_speculator`), the drafter's name
    /// decides: `eagle-` EAGLE-1, `eagle3` EAGLE-3, `dflash` DFlash,
    /// `dspark` DSpark, in that order.
    pub fn settle(method: Option<Method>, model: Option<&str>) -> Method {
        let given = match (method, model) {
            (Some(m), _) => m,
            (None, Some(name)) if is_custom_proposer_path(name) => {
                Method::Unmodelled("custom_class")
            }
            (None, Some("ngram" | "[ngram]")) => Method::Ngram,
            (None, _) => Method::DraftModel,
        };
        match model.filter(|_| given.redetected()) {
            Some(name) => by_name(name).unwrap_or(given),
            None => given,
        }
    }

    /// Whether vLLM detects the method again from the drafter (its name,
    /// then its config): the methods whose drafter it loads as a model
    /// without a method of its own (`mtp`, `draft_model`, `medusa`,
    /// `mlp_speculator`).
    fn redetected(self) -> bool {
        matches!(
            self,
            Method::Mtp
                | Method::DraftModel
                | Method::Unmodelled("medusa")
                | Method::Unmodelled("mlp_speculator")
        )
    }

    /// The method a drafter's architecture implies where vLLM detects it
    /// from the config rather than the name (a Muse-Glimmer DFlash head, the
    /// DSpark drafters), for a drafter given with a method vLLM re-detects
    /// ([`Method::settle`]).
    pub fn of_drafter(self, architecture: &str) -> Method {
        let redetected = self.redetected();
        match architecture {
            "MuseGlimmerAssistantModel" if redetected => Method::Dflash,
            "Qwen3DSparkModel" | "Qwen3OmniDSparkModel" | "Gemma4DSparkModel" if redetected => {
                Method::Unmodelled("dspark")
            }
            _ => self,
        }
    }
}

impl Method {
    /// Whether a drafter of architecture `arch`, of family `family` (the
    /// `family` of its `crate::config::ARCHITECTURES` row), is what this
    /// method runs: an EAGLE-3 head for eagle3, a DFlash head for dflash
    /// (vLLM registers no `DFlash{arch}` for a plain decoder), a decoder
    /// model for draft_model, and for EAGLE-1 a decoder class vLLM has an
    /// `Eagle{arch}` of ([`EAGLE_1_ARCHITECTURES`]).
    pub fn drafter_fits(self, arch: &str, family: &str) -> bool {
        match self {
            Method::Eagle3 => family == "eagle3",
            Method::Dflash => family == "dflash",
            Method::Eagle => EAGLE_1_ARCHITECTURES.contains(&arch),
            Method::DraftModel => !matches!(family, "eagle3" | "dflash"),
            _ => true,
        }
    }
}

/// The method a drafter of architecture family `family` is for.
pub(super) fn method_of_family(family: &str) -> &'static str {
    match family {
        "eagle3" => "eagle3",
        "dflash" => "dflash",
        _ => "draft_model, or eagle for an EAGLE-1 head of a Llama or Mistral target",
    }
}

/// Refuse a drafter given as the model to serve. vLLM 0.32 serves a
/// speculators-format checkpoint's verifier with it as the drafter
/// (`maybe_override_with_speculators`, vllm/transformers_utils/config.py);
/// decodecalc asks for that setup spelled out. An EAGLE-3 or DFlash head is
/// no model vLLM serves on its own.
pub fn check_target(name: &str, loaded: &crate::presets::LoadedModel) -> crate::error::Result<()> {
    use crate::error::{Error, ErrorKind};
    if let Some((algo, k, verifier)) = crate::config::speculators_of(&loaded.config) {
        let method = crate::config::method_of_algorithm(algo);
        let k = k.map_or(String::new(), |k| {
            format!(", \"num_speculative_tokens\": {k}")
        });
        return Err(Error::new(format!(
            "{name} is a speculators-format drafter ({algo}) of {verifier}: vLLM serves {verifier} with it as the drafter"
        ))
        .with_hint(format!(
            "--model {verifier} --speculative-config '{{\"method\": \"{method}\", \"model\": \"{name}\"{k}}}'"
        ))
        .of_kind(ErrorKind::InvalidValue)
        .about("--model"));
    }
    let family = crate::config::ARCHITECTURES
        .iter()
        .find(|a| a.name == loaded.model.architecture)
        .map_or("", |a| a.family);
    if matches!(family, "eagle3" | "dflash") {
        return Err(Error::new(format!(
            "{name} is a {family} drafter (`{}`), not a model vLLM serves on its own",
            loaded.model.architecture
        ))
        .with_hint(format!(
            "serve its target with --speculative-config '{{\"method\": \"{family}\", \"model\": \"{name}\", \"num_speculative_tokens\": 5}}'"
        ))
        .of_kind(ErrorKind::InvalidValue)
        .about("--model"));
    }
    Ok(())
}

/// The method a drafter's name implies, in vLLM's order of checks.
fn by_name(name: &str) -> Option<Method> {
    let n = name.to_ascii_lowercase();
    if n.contains("eagle-") {
        Some(Method::Eagle)
    } else if n.contains("eagle3") {
        Some(Method::Eagle3)
    } else if n.contains("dflash") {
        Some(Method::Dflash)
    } else if n.contains("dspark") {
        Some(Method::Unmodelled("dspark"))
    } else {
        None
    }
}

/// `SpeculativeConfig._is_custom_proposer_path`: a dotted Python import path
/// (`pkg.MyProposer`), not a URL and without a slash.
fn is_custom_proposer_path(model: &str) -> bool {
    if ["http://", "https://", "file://"]
        .iter()
        .any(|p| model.starts_with(p))
        || model.contains('/')
    {
        return false;
    }
    let parts: Vec<&str> = model.split('.').collect();
    parts.len() >= 2 && parts.iter().all(|p| is_identifier(p))
}

/// Python's `str.isidentifier` for ASCII names.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vllm_settles_the_method_from_the_drafters_name() {
        let s = |m: Option<&str>, model: Option<&str>| {
            Method::settle(m.and_then(Method::parse), model).name()
        };
        assert_eq!(s(None, Some("yuhuili/EAGLE-LLaMA3-Instruct-8B")), "eagle");
        assert_eq!(
            s(None, Some("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B")),
            "eagle3"
        );
        assert_eq!(s(None, Some("z-lab/Qwen3.6-27B-DFlash")), "dflash");
        assert_eq!(
            s(None, Some("deepseek-ai/dspark_qwen3_8b_block7")),
            "dspark"
        );
        assert_eq!(s(None, Some("Qwen/Qwen3-0.6B")), "draft_model");
        assert_eq!(s(None, Some("[ngram]")), "ngram");
        assert_eq!(s(None, Some("my_pkg.MyProposer")), "custom_class");
        // An explicit draft_model is re-detected; an explicit eagle3 is not.
        assert_eq!(s(Some("draft_model"), Some("org/x-dflash")), "dflash");
        assert_eq!(s(Some("eagle3"), Some("org/x-dflash")), "eagle3");
        // Exact spellings only, as vLLM's Literal.
        assert!(Method::parse("[ngram]").is_none());
        assert!(Method::parse("MTP").is_none());
        assert_eq!(Method::parse("qwen3_5_mtp"), Some(Method::Mtp));
        assert_eq!(
            Method::DraftModel.of_drafter("MuseGlimmerAssistantModel"),
            Method::Dflash
        );
    }
}
