//! Reading a Hugging Face `config.json` (or a model preset's `[config]`
//! table, which holds the same fields) into a [`Model`].
//!
//! One small reader per architecture family (`dense`, `gemma`, `moe`,
//! `hybrid`, `linear`, `mla`), behind [`ARCHITECTURES`], the table from
//! `architectures` names to readers; the supported list that errors and docs
//! print is derived from it. Field names and layer layouts follow each
//! family's published config.json (the corpus in
//! `data/hub/`, sources listed there) and vLLM 0.32's
//! model code (`vllm/model_executor/models/<family>.py`, cited per reader).
//!
//! One file a concept: this one turns a config.json into a [`Model`]
//! ([`model_from_config`]: the architecture's reader, the shared fields, the
//! MTP block); `architectures` holds the table [`ARCHITECTURES`] and the
//! dispatch from an `architectures` name to its reader; `shared` the
//! dimensions every family reads alike (attention, layer types, the gated
//! MLP) and what a reader produces; `rope` the derived context length and
//! the rotary cache; `bounds` the caps on a config's dimensions and sizes;
//! `fields` the typed, bounded field readers.

mod architectures;
mod bounds;
mod dense;
mod dsv4;
mod fields;
mod gemma;
mod hybrid;
mod linear;
mod mla;
mod moe;
mod rope;
mod shared;
mod speculators;
mod vision;

pub use fields::python_json_to_strict;
pub use speculators::{method_of_algorithm, speculators_of};

pub use architectures::{supported_list, Architecture, ARCHITECTURES};
pub use bounds::{
    MAX_FIELD, MAX_KV_BYTES_PER_TOKEN, MAX_LAYERS, MAX_PARAMS, MAX_STATE_BYTES_PER_REQUEST,
};

use crate::dtype::FloatDtype;
use crate::error::{Error, Result};
use crate::model::{Layer, Model};
use architectures::architecture;
use bounds::check_size;
use fields::Cfg;
use rope::{derived_max_len, rope_cache};
use serde_json::Value;
use shared::{gated_mlp, Built, Ctx, Ropes};

/// The dtype the checkpoint stores (`torch_dtype`, or `dtype` as newer
/// transformers write it), bfloat16 when none is given.
fn checkpoint_dtype(c: Cfg, top: Cfg) -> Result<FloatDtype> {
    let field = ["torch_dtype", "dtype"];
    let found = field
        .iter()
        .find_map(|k| c.s(k).map(|v| (*k, v)))
        .or_else(|| field.iter().find_map(|k| top.s(k).map(|v| (*k, v))));
    match found {
        Some((k, v)) => FloatDtype::parse(k, v),
        None => Ok(FloatDtype::Bfloat16),
    }
}

/// `num_hidden_layers`, or for NemotronH configs that leave it out (the
/// transformers config derives it), the length of the layer pattern.
fn layer_count(c: Cfg) -> Result<u64> {
    if c.get("num_hidden_layers").is_some() {
        return c.u("num_hidden_layers");
    }
    if let Some(p) = c.s("hybrid_override_pattern") {
        return Ok(p.chars().count() as u64);
    }
    if let Some(t) = c.strings("layers_block_type")? {
        return Ok(t.len() as u64);
    }
    c.u("num_hidden_layers")
}

/// A config.json's `quantization_config`: the top level's, else its
/// `text_config`'s (Kimi-K2.5 keeps its int4 scheme there; vLLM serves the
/// checkpoint in int4).
pub fn quantization_config(root: &Value) -> Option<&Value> {
    fn own(v: &Value) -> Option<&Value> {
        v.get("quantization_config").filter(|q| !q.is_null())
    }
    own(root).or_else(|| root.get("text_config").and_then(own))
}

/// Build a model from config.json fields.
pub fn model_from_config(root: &Value) -> Result<Model> {
    if let Some(layers) = speculators::layer_config(root)? {
        return model_from_config(&layers);
    }
    let top = Cfg(root
        .as_object()
        .ok_or_else(|| Error::new("config.json is not a JSON object"))?);
    let arch = architecture(top)?;
    // Multimodal wrappers keep the language model under text_config, which
    // may leave the family's defaults out. Voxtral repeats the text width at
    // the top level but not its layers.
    let text = match top.object("text_config") {
        Some(t) if top.get("hidden_size").is_none() || top.get("num_hidden_layers").is_none() => t,
        _ => top,
    };
    let mut merged = text.0.clone();
    for (k, v) in arch.defaults {
        merged.entry(*k).or_insert_with(|| Value::from(*v));
    }
    let c = Cfg(&merged);
    let ctx = Ctx {
        arch: arch.name,
        c,
        top,
        hidden: c.u("hidden_size")?,
        n_layers: layer_count(c)?,
    };
    if ctx.n_layers > MAX_LAYERS {
        return Err(Error::field(
            "num_hidden_layers",
            ctx.n_layers,
            format!("at most {MAX_LAYERS} layers"),
        ));
    }
    let vocab = c.u("vocab_size")?;
    // An EAGLE-3 or DFlash head's logits cover its own draft vocabulary
    // where it has one.
    let head_vocab = match arch.family {
        "eagle3" | "dflash" => c.opt("draft_vocab_size")?.unwrap_or(vocab),
        _ => vocab,
    };
    let max_pos = derived_max_len(c, top)?;
    let dtype = checkpoint_dtype(c, top)?;
    let built = (arch.read)(&ctx)?;
    // A config that names its SSM cache dtype decides `auto`: NemotronH's
    // `mamba_ssm_cache_dtype`, Qwen3.5's `mamba_ssm_dtype` (vLLM 0.32
    // `vllm/model_executor/models/config.py`, `NemotronHForCausalLMConfig`
    // and `Qwen3_5ForConditionalGenerationConfig` copy it into the cache
    // config while the user leaves `auto`).
    let named = ["mamba_ssm_cache_dtype", "mamba_ssm_dtype"]
        .iter()
        .find_map(|k| c.s(k).map(|v| (*k, v)));
    let ssm_auto = match named {
        Some((k, t)) => FloatDtype::parse(k, t)?,
        None => built.ssm_auto.unwrap_or(dtype),
    };
    let tie = match c.get("tie_word_embeddings") {
        Some(_) => c.b_or("tie_word_embeddings", arch.tie_default)?,
        None => top.b_or("tie_word_embeddings", arch.tie_default)?,
    };
    let mut encoder = built.encoder;
    encoder.extend(rope_cache(&ctx, built.ropes, &built.layers)?);
    check_size(&built.layers, ctx.hidden, vocab)?;
    let mut model = Model {
        architecture: arch.name.to_string(),
        hidden_size: ctx.hidden,
        vocab_size: head_vocab,
        sampled_vocab_size: vocab,
        tie_word_embeddings: tie,
        dtype,
        max_position_embeddings: max_pos,
        layers: built.layers,
        mamba_ssm_auto_dtype: ssm_auto,
        mamba_ssm_dtype_named: named.is_some(),
        mamba_chunk_tokens: match c.opt("mamba_chunk_size")? {
            Some(n) => n,
            None => c.opt("chunk_size")?.unwrap_or(2048),
        },
        encoder,
        mtp: None,
    };
    model.mtp = mtp_block(c, &model, built.mtp_layers)?;
    Ok(model)
}

/// The config's multi-token-prediction modules, each shaped like the last
/// decoder layer with full attention: DeepSeek, GLM and Nemotron-H name
/// their count `num_nextn_predict_layers`, Qwen3-Next and Qwen3.5
/// `mtp_num_hidden_layers`, MiniMax-M2 `mtp_transformer_layers`.
fn mtp_block(
    c: Cfg,
    model: &Model,
    family_block: Option<Vec<Layer>>,
) -> Result<Option<crate::model::MtpBlock>> {
    let mut count = None;
    for key in [
        "num_nextn_predict_layers",
        "mtp_num_hidden_layers",
        "mtp_transformer_layers",
    ] {
        if let Some(n) = c.opt(key)? {
            if n > MAX_MTP_LAYERS {
                return Err(Error::field(
                    key,
                    n,
                    format!("at most {MAX_MTP_LAYERS} MTP layers"),
                ));
            }
            count = Some(n);
            break;
        }
    }
    let Some(count) = count.filter(|&n| n > 0) else {
        return Ok(None);
    };
    if let Some(layers) = family_block {
        return Ok(Some(crate::model::MtpBlock { count, layers }));
    }
    let full = |l: &Layer| matches!(l, Layer::Attention(a) if a.sliding_window_tokens.is_none() && !a.kv_shared);
    let mut block: Vec<Layer> = Vec::new();
    for range in model.decoder_layers() {
        let layers = model.layers.get(range).unwrap_or_default();
        if layers.iter().any(full) {
            block = layers.to_vec();
        }
    }
    // Nemotron-H's blocks are one module each: its MTP block is an
    // attention and a feed-forward block (`mtp_hybrid_override_pattern`
    // "*E"), the last of each kind.
    if block.len() == 1 {
        if let Some(ffn) = model
            .layers
            .iter()
            .rev()
            .find(|l| matches!(l, Layer::Mlp(_) | Layer::Moe(_)))
        {
            block.push(*ffn);
        }
    }
    if block.is_empty() {
        return Ok(None);
    }
    Ok(Some(crate::model::MtpBlock {
        count,
        layers: block,
    }))
}

/// MTP modules a config may name (the largest real one has 1; MiMo's 3).
const MAX_MTP_LAYERS: u64 = 16;

/// Parse a config.json text (the Python json dialect and a BOM accepted).
pub fn parse_json(origin: &str, text: &str) -> Result<Value> {
    serde_json::from_str(&python_json_to_strict(text)).map_err(|e| {
        Error::new(format!("{origin}:{}:{}: {e}", e.line(), e.column()))
            .with_hint("a config.json must be JSON (Python's Infinity and NaN are accepted)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn missing_and_bad_fields_are_named() {
        let err = model_from_config(&json!({"architectures": ["LlamaForCausalLM"]})).unwrap_err();
        assert!(err.message.contains("hidden_size"), "{err}");
        let err = model_from_config(&json!({
            "architectures": ["LlamaForCausalLM"], "hidden_size": -4096
        }))
        .unwrap_err();
        assert!(err.message.contains("hidden_size"), "{err}");
        let err = model_from_config(&json!([1, 2])).unwrap_err();
        assert!(err.message.contains("not a JSON object"), "{err}");
        let err = model_from_config(&json!({
            "architectures": ["LlamaForCausalLM"], "hidden_size": 1u64 << 47
        }))
        .unwrap_err();
        assert_eq!(
            err.message,
            "invalid value `140737488355328` for `hidden_size`"
        );
    }
}
