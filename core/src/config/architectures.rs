//! The architectures this version models ([`ARCHITECTURES`]: each
//! `architectures` name with its family, tied-embedding default, reader and
//! sparse `text_config` defaults), the ones it recognises but refuses, and
//! the lookup of a config.json's one name in them.

use super::fields::Cfg;
use super::{dense, dsv4, gemma, hybrid, linear, mla, moe, Built, Ctx};
use crate::error::{Error, Result};
use serde_json::Value;

type Reader = fn(&Ctx) -> Result<Built>;

/// One architecture: its `architectures` name, what it is, whether embeddings
/// are tied when the config does not say, and its reader.
#[derive(Debug)]
pub struct Architecture {
    pub name: &'static str,
    pub family: &'static str,
    pub(super) tie_default: bool,
    pub(super) read: Reader,
    /// Values of fields a sparse `text_config` may leave out: the defaults
    /// of the family's transformers config class, which vLLM reads.
    pub(super) defaults: &'static [(&'static str, u64)],
}

macro_rules! arch {
    ($name:literal, $family:literal, $tie:literal, $read:path) => {
        arch!($name, $family, $tie, $read, &[])
    };
    ($name:literal, $family:literal, $tie:literal, $read:path, $defaults:expr) => {
        Architecture {
            name: $name,
            family: $family,
            tie_default: $tie,
            read: $read,
            defaults: $defaults,
        }
    };
}

/// `Gemma3TextConfig`'s defaults (transformers `models/gemma3/configuration_gemma3.py`):
/// the published Gemma 3 multimodal configs omit them from `text_config`.
const GEMMA3_TEXT_DEFAULTS: &[(&str, u64)] = &[
    ("vocab_size", 262_208),
    ("hidden_size", 2304),
    ("intermediate_size", 9216),
    ("num_hidden_layers", 26),
    ("num_attention_heads", 8),
    ("num_key_value_heads", 4),
    ("head_dim", 256),
    ("max_position_embeddings", 131_072),
    ("sliding_window", 4096),
    ("sliding_window_pattern", 6),
];

/// Every architecture this version models, as config.json names them.
pub static ARCHITECTURES: &[Architecture] = &[
    arch!("LlamaForCausalLM", "dense", false, dense::llama),
    arch!(
        "LlamaForCausalLMEagle3",
        "eagle3",
        false,
        dense::llama_eagle3
    ),
    arch!(
        "Eagle3LlamaForCausalLM",
        "eagle3",
        false,
        dense::llama_eagle3
    ),
    arch!("DFlashDraftModel", "dflash", false, dense::qwen3_dflash),
    // Muse-Glimmer's DFlash head, which vLLM 0.32 runs with the same model
    // (`vllm/model_executor/models/registry.py`).
    arch!(
        "MuseGlimmerAssistantModel",
        "dflash",
        false,
        dense::qwen3_dflash
    ),
    arch!("MistralForCausalLM", "dense", false, dense::mistral),
    arch!("Qwen2ForCausalLM", "dense", false, dense::qwen2),
    arch!("Qwen3ForCausalLM", "dense", false, dense::qwen3),
    arch!("GraniteForCausalLM", "dense", false, dense::granite),
    arch!("Phi3ForCausalLM", "dense", false, dense::phi3),
    arch!(
        "Qwen3VLForConditionalGeneration",
        "dense + vision",
        false,
        dense::qwen3_vl
    ),
    arch!(
        "Mistral3ForConditionalGeneration",
        "dense + vision",
        false,
        dense::mistral3
    ),
    arch!("Gemma2ForCausalLM", "sliding window", true, gemma::gemma2),
    arch!("Gemma3ForCausalLM", "sliding window", true, gemma::gemma3),
    arch!(
        "Gemma3ForConditionalGeneration",
        "sliding window + vision",
        true,
        gemma::gemma3_mm,
        GEMMA3_TEXT_DEFAULTS
    ),
    arch!(
        "Gemma4ForConditionalGeneration",
        "sliding window + vision",
        true,
        gemma::gemma4
    ),
    arch!("Qwen3MoeForCausalLM", "MoE", false, moe::qwen3_moe),
    arch!(
        "Qwen3VLMoeForConditionalGeneration",
        "MoE + vision",
        false,
        moe::qwen3_vl_moe
    ),
    arch!("MixtralForCausalLM", "MoE", false, moe::mixtral),
    arch!(
        "GptOssForCausalLM",
        "MoE + sliding window",
        false,
        moe::gpt_oss
    ),
    arch!(
        "NemotronHForCausalLM",
        "Mamba2 hybrid",
        false,
        hybrid::nemotron_h
    ),
    arch!(
        "GraniteMoeHybridForCausalLM",
        "Mamba2 hybrid + MoE",
        true,
        hybrid::granite_moe_hybrid
    ),
    arch!(
        "FalconH1ForCausalLM",
        "Mamba2 hybrid",
        false,
        hybrid::falcon_h1
    ),
    arch!(
        "JambaForCausalLM",
        "Mamba1 hybrid + MoE",
        false,
        hybrid::jamba
    ),
    arch!(
        "Qwen3NextForCausalLM",
        "DeltaNet hybrid + MoE",
        false,
        linear::qwen3_next
    ),
    arch!(
        "Qwen3_5ForConditionalGeneration",
        "DeltaNet hybrid + vision",
        false,
        linear::qwen3_5
    ),
    arch!(
        "Qwen3_5MoeForConditionalGeneration",
        "DeltaNet hybrid + MoE + vision",
        false,
        linear::qwen3_5_moe
    ),
    arch!(
        "DeciLMForCausalLM",
        "dense, per-layer blocks",
        false,
        dense::decilm
    ),
    arch!(
        "Lfm2VlForConditionalGeneration",
        "short-convolution hybrid + vision",
        true,
        hybrid::lfm2_vl
    ),
    arch!(
        "VoxtralForConditionalGeneration",
        "dense + audio",
        false,
        dense::voxtral
    ),
    arch!("Olmo3ForCausalLM", "sliding window", false, dense::olmo3),
    arch!(
        "Exaone4ForCausalLM",
        "sliding window",
        false,
        dense::exaone4
    ),
    arch!("MiniMaxM2ForCausalLM", "MoE", false, moe::minimax_m2),
    arch!(
        "PhiMoEForCausalLM",
        "MoE + sliding window",
        false,
        moe::phimoe
    ),
    arch!(
        "Llama4ForConditionalGeneration",
        "MoE + chunked attention + vision",
        false,
        moe::llama4
    ),
    arch!(
        "LagunaForCausalLM",
        "MoE + sliding window",
        false,
        moe::laguna
    ),
    arch!("DeepseekV2ForCausalLM", "MLA + MoE", false, mla::deepseek),
    arch!(
        "DeepseekV4ForCausalLM",
        "compressed MLA + sliding window + MoE",
        false,
        dsv4::deepseek_v4
    ),
    arch!("DeepseekV3ForCausalLM", "MLA + MoE", false, mla::deepseek),
    arch!(
        "DeepseekV32ForCausalLM",
        "MLA + sparse attention + MoE",
        false,
        mla::deepseek
    ),
    arch!(
        "GlmMoeDsaForCausalLM",
        "MLA + sparse attention + MoE",
        false,
        mla::deepseek
    ),
    arch!(
        "KimiK25ForConditionalGeneration",
        "MLA + MoE + vision",
        false,
        mla::kimi_k25
    ),
];

/// Architectures decodecalc recognises but refuses, with the reason.
const REFUSED: &[(&str, &str)] = &[
    (
        "Bert",
        "an encoder-only model (vLLM serves it for embeddings or scoring, not generation)",
    ),
    (
        "Roberta",
        "an encoder-only model (vLLM serves it for embeddings or scoring, not generation)",
    ),
    (
        "XLMRoberta",
        "an encoder-only model (vLLM serves it for embeddings or scoring, not generation)",
    ),
    (
        "ModernBert",
        "an encoder-only model (vLLM serves it for embeddings or scoring, not generation)",
    ),
    (
        "T5",
        "an encoder-decoder model (no decoder-only KV cache to size)",
    ),
    (
        "Bart",
        "an encoder-decoder model (no decoder-only KV cache to size)",
    ),
    (
        "Whisper",
        "an encoder-decoder speech model (no decoder-only KV cache to size)",
    ),
];

/// The supported names, comma-separated, for errors and docs.
pub fn supported_list() -> String {
    ARCHITECTURES
        .iter()
        .map(|a| a.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The one architecture name of a config.json, looked up in the table.
pub(super) fn architecture(top: Cfg) -> Result<&'static Architecture> {
    let name = match top
        .get("architectures")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([one]) => one.as_str().unwrap_or_default(),
        Some([]) | None => {
            return Err(
                Error::new("missing field `architectures`").with_hint(format!(
                    "set architectures = [\"...\"], one of {}",
                    supported_list()
                )),
            )
        }
        Some(many) => {
            return Err(Error::field(
                "architectures",
                many.iter()
                    .map(|v| v.as_str().unwrap_or("?"))
                    .collect::<Vec<_>>()
                    .join(", "),
                "exactly one architecture name",
            ))
        }
    };
    if let Some(a) = ARCHITECTURES.iter().find(|a| a.name == name) {
        return Ok(a);
    }
    if let Some((_, why)) = REFUSED.iter().find(|(prefix, _)| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with("For") || rest == "Model")
    }) {
        return Err(Error::new(format!("`{name}` is {why}")).with_hint(format!(
            "decodecalc sizes decoder models: {}",
            supported_list()
        )));
    }
    Err(Error::new(format!("unknown model architecture `{name}`"))
        .with_hint(format!("supported: {}", supported_list())))
}

#[cfg(test)]
mod tests {
    use crate::config::model_from_config;
    use serde_json::json;

    #[test]
    fn unknown_architecture_lists_supported() {
        let err = model_from_config(&json!({"architectures": ["FooForCausalLM"]})).unwrap_err();
        assert!(err.message.contains("FooForCausalLM"));
        assert!(err.hint.unwrap().contains("NemotronHForCausalLM"));
    }

    #[test]
    fn encoder_only_models_are_refused_with_the_reason() {
        let err = model_from_config(&json!({"architectures": ["BertForMaskedLM"]})).unwrap_err();
        assert_eq!(
            err.message,
            "`BertForMaskedLM` is an encoder-only model (vLLM serves it for embeddings or scoring, not generation)"
        );
    }
}
