//! Rotary position embeddings in a config: the longest context vLLM derives
//! from `max_position_embeddings` and the rope scaling, and the cos/sin
//! cache it builds at load time (a load-time buffer of the model).

use super::fields::Cfg;
use super::{Ctx, Ropes, MAX_FIELD};
use crate::error::{Error, Result};
use crate::model::{Layer, Module};
use serde_json::Value;

/// The longest context vLLM 0.32 derives from the config
/// (`_get_and_verify_max_len` in vllm/config/model.py, with
/// `iter_rope_parameters` in vllm/transformers_utils/config.py):
/// `max_position_embeddings`, times the rope scaling factor unless the rope
/// type already states the scaled length (su, longrope, llama3, the YaRN
/// variants) or the model is a Gemma 3 (whose 128K is already scaled). With
/// several rope tables (one per layer type) the last factor given wins.
pub(super) fn derived_max_len(c: Cfg, top: Cfg) -> Result<u64> {
    let max_pos = c.u("max_position_embeddings")?;
    let gemma3 = [c, top]
        .iter()
        .any(|x| x.s("model_type").is_some_and(|t| t.contains("gemma3")));
    let Some(params) = c.object("rope_parameters").or(c.object("rope_scaling")) else {
        return Ok(max_pos);
    };
    if gemma3 {
        return Ok(max_pos);
    }
    let tables: Vec<Cfg> = if params.get("factor").is_some()
        || params.get("rope_type").is_some()
        || params.get("type").is_some()
    {
        vec![params]
    } else {
        params
            .0
            .values()
            .filter_map(|v| v.as_object().map(Cfg))
            .collect()
    };
    let mut factor = 1.0;
    for t in tables {
        let kind = t.s("rope_type").or(t.s("type")).unwrap_or("default");
        let states_its_length = matches!(
            kind,
            "su" | "longrope" | "llama3" | "yarn" | "deepseek_yarn" | "deepseek_llama_scaling"
        );
        if !states_its_length {
            if let Some(f) = t.get("factor").and_then(Value::as_f64) {
                factor = f;
            }
        }
    }
    if !(factor.is_finite() && (1.0..=1024.0).contains(&factor)) {
        return Err(Error::field(
            "rope_scaling.factor",
            factor,
            "a scaling factor from 1 to 1024",
        ));
    }
    let scaled = crate::units::saturating_u64(max_pos as f64 * factor);
    if scaled > MAX_FIELD {
        return Err(Error::field(
            "max_position_embeddings",
            scaled,
            format!("at most {MAX_FIELD} (2^26) tokens once scaled by rope_scaling.factor"),
        ));
    }
    Ok(scaled)
}

/// The rotary embedding's cos/sin cache that vLLM builds when it loads the
/// model (`vllm/model_executor/layers/rotary_embedding/`: one
/// `[positions, rotary_dim]` table in the model dtype per distinct rope,
/// shared by the layers): `max_position_embeddings` positions, times the
/// factor for `linear` and `dynamic` scaling, `original_max_position_embeddings
/// x factor` for `yarn`; which tables a family builds is its reader's
/// [`Ropes`].
pub(super) fn rope_cache(x: &Ctx, ropes: Ropes, layers: &[Layer]) -> Result<Vec<Module>> {
    if ropes == Ropes::None {
        return Ok(Vec::new());
    }
    let attention: Vec<_> = layers
        .iter()
        .filter_map(|l| match l {
            Layer::Attention(a) => Some(a),
            _ => None,
        })
        .collect();
    let Some(first) = attention.first() else {
        return Ok(Vec::new());
    };
    let max_pos = x.c.u("max_position_embeddings")?;
    let params = x.c.object("rope_scaling").or(x.c.object("rope_parameters"));
    // Gemma 4 gives one rope per layer type under rope_parameters.
    let per_type = params.and_then(|p| {
        p.object("sliding_attention")
            .zip(p.object("full_attention"))
    });
    if let Some((sliding, full)) = per_type {
        let head = |window: bool| {
            attention
                .iter()
                .find(|a| a.sliding_window_tokens.is_some() == window)
                .map_or(first.head_dim, |a| a.head_dim)
        };
        return Ok(vec![
            one_rope(x, Some(sliding), head(true), max_pos)?,
            one_rope(x, Some(full), head(false), max_pos)?,
        ]);
    }
    let head = first.mla.map_or(first.head_dim, |m| m.qk_rope_head_dim);
    let mut out = vec![one_rope(x, params, head, max_pos)?];
    // Gemma 3's local layers have their own, unscaled rope.
    if ropes == Ropes::WithLocal {
        out.push(one_rope(x, None, head, max_pos)?);
    }
    // DeepSeek-V4 names its rotated width (`rope_dim`, qk_rope_head_dim),
    // which a `partial_rotary_factor` does not shrink
    // (`vllm/models/deepseek_v4/common/rope.py`; `get_rope` takes
    // `rope_dim` before the factor).
    if first.mla.is_some_and(|m| m.dsv4.is_some()) {
        for t in &mut out {
            t.out_features = head;
        }
    }
    Ok(out)
}

/// One `[positions, rotary_dim]` cos/sin table for a rope described by
/// `params` (`rope_scaling` / `rope_parameters`, or none).
fn one_rope(x: &Ctx, params: Option<Cfg>, head: u64, max_pos: u64) -> Result<Module> {
    let partial = params
        .and_then(|r| r.get("partial_rotary_factor"))
        .or(x.c.get("partial_rotary_factor"))
        .and_then(Value::as_f64)
        .filter(|f| *f > 0.0 && *f <= 1.0);
    // MiniMax-M2 names the rotated width itself (`rotary_dim`).
    let rotary_dim = match (partial, x.c.opt("rotary_dim")?) {
        (Some(f), _) => crate::units::saturating_u64(head as f64 * f),
        (None, Some(d)) if d > 0 && d <= head => d,
        _ => head,
    };
    let kind = params.and_then(|r| r.s("rope_type").or(r.s("type")));
    let factor = params
        .and_then(|r| r.get("factor"))
        .and_then(Value::as_f64)
        .filter(|f| f.is_finite() && *f >= 1.0 && *f <= 1024.0)
        .unwrap_or(1.0);
    let scaled = |n: u64| crate::units::saturating_u64(n as f64 * factor);
    let positions = match kind {
        Some("linear" | "dynamic") => scaled(max_pos),
        Some("yarn") => {
            match params.and_then(|r| r.opt("original_max_position_embeddings").transpose()) {
                Some(orig) => scaled(orig?),
                None => max_pos,
            }
        }
        _ => max_pos,
    };
    Ok(Module {
        name: "rope_cos_sin_cache",
        kind: crate::model::ModuleKind::Buffer,
        in_features: positions,
        out_features: rotary_dim,
        count: 1,
        fp8: false,
    })
}

#[cfg(test)]
mod tests {
    use crate::config::model_from_config;
    use serde_json::json;

    #[test]
    fn the_derived_max_len_follows_vllm_0_32s_rope_rule() {
        let llama = |rope: serde_json::Value, model_type: &str| {
            model_from_config(&json!({
                "architectures": ["LlamaForCausalLM"], "model_type": model_type,
                "hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 8,
                "num_key_value_heads": 8, "intermediate_size": 2048, "vocab_size": 1000,
                "max_position_embeddings": 32768, "rope_scaling": rope
            }))
            .map(|m| m.max_position_embeddings)
        };
        // Linear and dynamic scaling lengthen the context by their factor.
        assert_eq!(
            llama(json!({"rope_type": "linear", "factor": 4.0}), "llama").unwrap(),
            131_072
        );
        assert_eq!(
            llama(json!({"type": "dynamic", "factor": 2.0}), "llama").unwrap(),
            65_536
        );
        // YaRN, llama3 and longrope state their length already; Gemma 3's is
        // already scaled; no scaling leaves it.
        let yarn =
            json!({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192});
        assert_eq!(llama(yarn, "llama").unwrap(), 32_768);
        assert_eq!(
            llama(json!({"rope_type": "llama3", "factor": 8.0}), "llama").unwrap(),
            32_768
        );
        assert_eq!(
            llama(json!({"rope_type": "linear", "factor": 8.0}), "gemma3_text").unwrap(),
            32_768
        );
        assert_eq!(llama(serde_json::Value::Null, "llama").unwrap(), 32_768);
        // Factors are bounded, and the bound named.
        let e = llama(json!({"rope_type": "linear", "factor": 2000.0}), "llama").unwrap_err();
        assert!(e.message.contains("rope_scaling.factor"), "{}", e.message);
    }
}
