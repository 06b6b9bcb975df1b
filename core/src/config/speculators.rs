//! A drafter in the `speculators` format (vllm-project/speculators): its
//! config.json holds a `speculators_config` (the algorithm, the proposal's
//! token count, the verifier) and the decoder layers' fields under
//! `transformer_layer_config`. vLLM 0.32 reads it as the layer config with
//! the algorithm's architecture and fields (`SpeculatorsConfig`,
//! `vllm/transformers_utils/configs/speculators/base.py` and `algos.py`);
//! this module does the same, so the drafter is read like any other.

use super::fields::Cfg;
use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// The algorithms vLLM 0.32 registers (`SUPPORTED_SPECULATORS_TYPES`).
const ALGORITHMS: &str = "eagle3, peagle, dflash, dflash2, dspark";

/// The speculators fields of `root`: the algorithm, the proposal's token
/// count and the verifier's name; None for any other config.json.
pub fn speculators_of(root: &Value) -> Option<(&str, Option<u64>, &str)> {
    let s = root.get("speculators_config")?;
    let algo = root
        .get("speculators_model_type")
        .and_then(Value::as_str)
        .unwrap_or("");
    let k = s
        .pointer("/proposal_methods/0/speculative_tokens")
        .and_then(Value::as_u64);
    let verifier = s
        .pointer("/verifier/name_or_path")
        .and_then(Value::as_str)
        .unwrap_or("");
    Some((algo, k, verifier))
}

/// The method vLLM runs a speculators algorithm as
/// (`SpeculatorsConfig.build_vllm_speculative_config`).
pub fn method_of_algorithm(algo: &str) -> &str {
    match algo {
        "peagle" => "eagle3",
        "dflash2" => "dflash",
        a => a,
    }
}

/// `root` as vLLM reads a speculators-format config: the
/// `transformer_layer_config` with the algorithm's architecture and fields;
/// None when `root` is no such config.
pub(super) fn layer_config(root: &Value) -> Result<Option<Value>> {
    let Some((algo, ..)) = speculators_of(root) else {
        return Ok(None);
    };
    let top = Cfg(root
        .as_object()
        .ok_or_else(|| Error::new("config.json is not a JSON object"))?);
    let Some(layer) = root
        .get("transformer_layer_config")
        .and_then(Value::as_object)
    else {
        return Err(Error::new("a speculators-format config needs `transformer_layer_config`")
            .with_hint("vLLM reads the drafter's layers from transformer_layer_config (\"Must provide transformer_layer_config\")"));
    };
    let mut c: Map<String, Value> = layer.clone();
    let model_type = layer
        .get("model_type")
        .and_then(Value::as_str)
        .unwrap_or("llama");
    let arch = match (algo, model_type) {
        ("eagle3", "llama") => "Eagle3LlamaForCausalLM",
        ("eagle3", "qwen3") => "Eagle3Qwen3ForCausalLM",
        ("peagle", "llama") => "PeagleLlamaForCausalLM",
        ("peagle", "qwen3") => "PeagleQwen3ForCausalLM",
        ("eagle3" | "peagle", t) => {
            return Err(Error::field(
                "transformer_layer_config.model_type",
                t,
                format!("llama or qwen3 (vLLM: \"Unsupported model_type {t} for Eagle3 speculator\")"),
            ))
        }
        ("dflash", _) => "DFlashDraftModel",
        ("dflash2", _) => "DFlash2DraftModel",
        ("dspark", _) => "Qwen3DSparkModel",
        (a, _) => {
            return Err(Error::field(
                "speculators_model_type",
                a,
                format!("one of {ALGORITHMS} (vLLM: \"Please ensure you're loading a speculators-format model\")"),
            ))
        }
    };
    c.insert("architectures".into(), Value::from(vec![arch]));
    for k in [
        "draft_vocab_size",
        "target_hidden_size",
        "torch_dtype",
        "dtype",
    ] {
        if let (Some(v), false) = (top.get(k), c.contains_key(k)) {
            c.insert(k.into(), v.clone());
        }
    }
    // DFlash takes its target layers from `aux_hidden_state_layer_ids`
    // (vLLM indexes them one lower; only their count sizes `fc`).
    if algo.starts_with("dflash") {
        let ids = top.numbers("aux_hidden_state_layer_ids")?;
        if ids.is_empty() {
            return Err(Error::new(
                "a speculators DFlash config needs `aux_hidden_state_layer_ids`",
            )
            .with_hint("the target layers whose hidden states the drafter reads"));
        }
        let mut d = Map::new();
        d.insert("target_layer_ids".into(), Value::from(ids));
        c.insert("dflash_config".into(), Value::Object(d));
    }
    Ok(Some(Value::Object(c)))
}
