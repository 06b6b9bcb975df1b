//! Dense decoder families: Llama, Mistral, Qwen2, Qwen3, Granite, Phi-3,
//! Qwen3-VL (Qwen3 with its vision transformer) and Mistral 3 (Mistral Small
//! 3.x: a Mistral text model with a Pixtral vision encoder).

use super::fields::Cfg;
use super::{gated_mlp, vision, Built, Ctx};
use crate::error::{Error, Result};
use crate::model::{AttentionLayer, Layer};

/// `n` attention + gated-MLP blocks.
fn blocks(x: &Ctx, attn: AttentionLayer) -> Result<Built> {
    // A `layer_types` list must still be one entry per layer (transformers
    // validates it on load), even where the family takes the window from
    // `use_sliding_window` instead.
    x.layer_types()?;
    let inter = x.c.u("intermediate_size")?;
    let mut layers = Vec::new();
    for _ in 0..x.n_layers {
        layers.push(Layer::Attention(attn));
        layers.push(gated_mlp(inter));
    }
    Built::layers(layers)
}

/// The window of every layer, when the config turns it on. vLLM 0.32's
/// Llama-based models take `sliding_window` per layer from `layer_types`
/// (`vllm/model_executor/models/llama.py`, `LlamaAttention`), and Qwen2 /
/// Qwen3 only with `use_sliding_window` (`qwen2.py`).
fn window(x: &Ctx, enabled: bool) -> Result<Option<u64>> {
    if enabled {
        x.c.opt("sliding_window")
    } else {
        Ok(None)
    }
}

/// `vllm/model_executor/models/llama.py`: q/k/v/o without bias unless
/// `attention_bias`, SwiGLU MLP.
pub fn llama(x: &Ctx) -> Result<Built> {
    let a = AttentionLayer {
        qkv_bias: x.c.b_or("attention_bias", false)?,
        ..x.attention()?
    };
    blocks(x, a)
}

/// An EAGLE-3 draft head (`vllm/model_executor/models/llama_eagle3.py`):
/// Llama decoder layers whose first q/k/v projection reads the token's
/// embedding and the fused hidden state side by side (2h inputs), `fc`
/// fusing three of the target's hidden states (3h -> h), and an `lm_head`
/// over its own `draft_vocab_size` (`model_from_config` sizes the
/// vocabulary); the embedding is the target's.
pub fn llama_eagle3(x: &Ctx) -> Result<Built> {
    let a = AttentionLayer {
        qkv_bias: x.c.b_or("attention_bias", false)?,
        ..x.attention()?
    };
    let mut built = blocks(x, a)?;
    let h = x.hidden;
    let qkv = (a.num_heads + 2 * a.num_kv_heads) * a.head_dim;
    built.encoder.push(crate::model::Module {
        name: "eagle3_qkv_second_input",
        kind: crate::model::ModuleKind::AttentionLinear,
        in_features: h,
        out_features: qkv,
        count: 1,
        fp8: false,
    });
    built.encoder.push(crate::model::Module {
        name: "eagle3_fc",
        kind: crate::model::ModuleKind::MlpLinear,
        in_features: 3 * h,
        out_features: h,
        count: 1,
        fp8: false,
    });
    Ok(built)
}

/// A DFlash drafter (`DFlashDraftModel`; vLLM 0.32
/// `vllm/model_executor/models/qwen3_dflash.py`): Qwen3 decoder layers,
/// each sliding where `layer_types` says so (every layer with
/// `dflash_config.use_swa` and no sliding entry; the window
/// `dflash_config.swa_window_size`, else `sliding_window`:
/// `_resolve_layer_attention`), `fc` projecting the target's hidden states
/// at the `target_layer_ids` (`target_hidden_size` x their count -> h, the
/// layer count when the config names none: `_get_dflash_fc_input_size`)
/// and `hidden_norm`. The embedding and lm_head are the target's unless the
/// head has a draft vocabulary (`Speculative::shares_with_target`).
pub fn qwen3_dflash(x: &Ctx) -> Result<Built> {
    let d = x.c.object("dflash_config");
    let use_swa = match d {
        Some(d) => d.b_or("use_swa", false)?,
        None => false,
    };
    let window = match d.map(|d| d.opt("swa_window_size")).transpose()?.flatten() {
        Some(w) => Some(w),
        None => x.c.opt("sliding_window")?,
    };
    let types = x.sliding_layers(|_| use_swa)?;
    let forced = use_swa && !types.iter().any(|s| *s);
    let base = AttentionLayer {
        qk_norm: true,
        qkv_bias: x.c.b_or("attention_bias", false)?,
        ..x.attention()?
    };
    let inter = x.c.u("intermediate_size")?;
    let mut layers = Vec::new();
    for sliding in types {
        let sliding_window_tokens = if sliding || forced {
            Some(window.ok_or_else(|| {
                Error::new("missing field `sliding_window`").with_hint(
                    "a DFlash drafter's sliding layers need dflash_config.swa_window_size or sliding_window",
                )
            })?)
        } else {
            None
        };
        layers.push(Layer::Attention(AttentionLayer {
            sliding_window_tokens,
            ..base
        }));
        layers.push(gated_mlp(inter));
    }
    let targets = match d {
        Some(d) if d.get("target_layer_ids").is_some() => {
            d.numbers("target_layer_ids")?.len() as u64
        }
        _ => match x.c.numbers("eagle_aux_hidden_state_layer_ids")?.len() as u64 {
            0 => x.n_layers,
            n => n,
        },
    };
    let h = x.hidden;
    let mut built = Built::layers(layers)?;
    built.encoder.push(crate::model::Module {
        name: "dflash_fc",
        kind: crate::model::ModuleKind::MlpLinear,
        in_features: x.c.u_or("target_hidden_size", h)? * targets,
        out_features: h,
        count: 1,
        fp8: false,
    });
    built.encoder.push(crate::model::Module {
        name: "dflash_hidden_norm",
        kind: crate::model::ModuleKind::Other,
        in_features: 1,
        out_features: h,
        count: 1,
        fp8: false,
    });
    Ok(built)
}

/// `vllm/model_executor/models/mistral.py` (Llama layers); Mistral 7B v0.1
/// applies `sliding_window` to every layer.
pub fn mistral(x: &Ctx) -> Result<Built> {
    let a = AttentionLayer {
        sliding_window_tokens: window(x, true)?,
        ..x.attention()?
    };
    blocks(x, a)
}

/// `vllm/model_executor/models/qwen2.py`: q/k/v bias.
pub fn qwen2(x: &Ctx) -> Result<Built> {
    let a = AttentionLayer {
        qkv_bias: true,
        sliding_window_tokens: window(x, x.c.b_or("use_sliding_window", false)?)?,
        ..x.attention()?
    };
    blocks(x, a)
}

/// `vllm/model_executor/models/qwen3.py`: per-head q/k RMSNorm, no bias.
pub fn qwen3(x: &Ctx) -> Result<Built> {
    let a = AttentionLayer {
        qk_norm: true,
        qkv_bias: x.c.b_or("attention_bias", false)?,
        sliding_window_tokens: window(x, x.c.b_or("use_sliding_window", false)?)?,
        ..x.attention()?
    };
    blocks(x, a)
}

/// `vllm/model_executor/models/granite.py`: Llama layers (the embedding,
/// residual, attention and logits multipliers change no weight or cache).
pub fn granite(x: &Ctx) -> Result<Built> {
    llama(x)
}

/// `vllm/model_executor/models/phi3.py` is Llama's model with fused
/// `qkv_proj` and `gate_up_proj` (the same parameters as separate ones).
/// Phi-3-mini's configs set `sliding_window` 2047 and no `layer_types`: the
/// Llama attention passes no window of its own, so `Attention` takes the
/// model-wide one (`cache_config.sliding_window`, vllm/attention/layer.py),
/// which vLLM sets from the config when `layer_types` does not interleave
/// two kinds (`EngineArgs.create_engine_config`): every layer slides.
pub fn phi3(x: &Ctx) -> Result<Built> {
    let a = AttentionLayer {
        sliding_window_tokens: window(x, x.c.b_or("use_sliding_window", true)?)?,
        ..x.attention()?
    };
    blocks(x, a)
}

/// `vllm/model_executor/models/qwen3_vl.py`: a Qwen3 text model
/// (`text_config`) and the Qwen3-VL vision transformer with its deepstack
/// mergers.
pub fn qwen3_vl(x: &Ctx) -> Result<Built> {
    let mut built = qwen3(x)?;
    built.encoder = vision::qwen_vl(x)?;
    Ok(built)
}

/// `vllm/model_executor/models/mistral3.py`: the text model (`text_config`,
/// Mistral layers) plus the Pixtral vision encoder and its projector.
pub fn mistral3(x: &Ctx) -> Result<Built> {
    let mut built = blocks(x, x.attention()?)?;
    built.encoder = vision::pixtral(x)?;
    Ok(built)
}

/// Sliding-window layers by `layer_types` (or every layer but each fourth
/// without it), the window `sliding_window`, the others full attention; a
/// gated MLP each. vLLM keeps the full layers full: for a `layer_types`
/// that interleaves two kinds it sets no model-wide window
/// (`EngineArgs.create_engine_config`).
fn interleaved_window_blocks(x: &Ctx, attn: AttentionLayer) -> Result<Built> {
    let window = x.c.u("sliding_window")?;
    let local = x.sliding_layers(|i| (i + 1) % 4 != 0)?;
    let inter = x.c.u("intermediate_size")?;
    let mut layers = Vec::new();
    for &l in &local {
        layers.push(Layer::Attention(AttentionLayer {
            sliding_window_tokens: l.then_some(window),
            ..attn
        }));
        layers.push(gated_mlp(inter));
    }
    Built::layers(layers)
}

/// OLMo 3 (`vllm/model_executor/models/olmo3.py`; olmo2.py in older
/// releases): three sliding-window layers to one full, q/k/v/o without
/// bias, head_dim = hidden / heads, post-norms (two a layer, as many as
/// pre-norms). Its q/k norms span the whole projection (6,144 weights a
/// layer), counted as per-head norms (256): 0.001% of the parameters.
pub fn olmo3(x: &Ctx) -> Result<Built> {
    let a = AttentionLayer {
        qk_norm: true,
        ..x.attention()?
    };
    interleaved_window_blocks(x, a)
}

/// EXAONE 4.0 (`vllm/model_executor/models/exaone4.py`): `layer_types`
/// (from `sliding_window_pattern`, "LLLG": three sliding layers to one
/// full), per-head q/k norms, biases only with `attention_bias`, post-norms.
pub fn exaone4(x: &Ctx) -> Result<Built> {
    let a = AttentionLayer {
        qkv_bias: x.c.b_or("attention_bias", false)?,
        qk_norm: true,
        ..x.attention()?
    };
    interleaved_window_blocks(x, a)
}

/// DeciLM ("nemotron-nas": Llama-3.3-Nemotron-Super-49B, Llama-3.1-Nemotron-
/// Ultra-253B; `vllm/model_executor/models/nemotron_nas.py`): a Llama whose
/// layers each follow `block_configs[i]`. An attention of `no_op` is absent
/// (no module, no input norm, no KV cache); otherwise Llama attention with
/// `num_attention_heads / n_heads_in_group` KV heads. A gated MLP of
/// `int(2 ffn_mult hidden / 3)` rounded up to a multiple of 256
/// (`_ffn_mult_to_intermediate_size`), or of `intermediate_size`, unless
/// `no_op`. vLLM builds `replace_with_linear` blocks as ordinary ones, which
/// the checkpoint's weights would not fit, so they are refused.
pub fn decilm(x: &Ctx) -> Result<Built> {
    let blocks =
        x.c.get("block_configs")
            .and_then(serde_json::Value::as_array)
            .ok_or_else(|| {
                Error::new("missing field `block_configs`")
                    .with_hint("a DeciLM config.json lists one block config per layer")
            })?;
    if blocks.len() as u64 != x.n_layers {
        return Err(Error::field(
            "block_configs",
            format!("({} entries)", blocks.len()),
            format!("{} entries, one per layer (num_hidden_layers)", x.n_layers),
        ));
    }
    let base = AttentionLayer {
        qkv_bias: x.c.b_or("attention_bias", false)?,
        ..x.attention()?
    };
    let mut layers = Vec::new();
    for b in blocks {
        let (attention, ffn) = (block_part(b, "attention")?, block_part(b, "ffn")?);
        for c in [&attention, &ffn] {
            if c.b_or("replace_with_linear", false)? {
                return Err(Error::new(
                    "block_configs: a block replaced by a linear layer is not modelled",
                )
                .with_hint("vLLM 0.32's nemotron_nas.py builds only no_op and full blocks"));
            }
        }
        if !attention.b_or("no_op", false)? {
            let group = attention.u("n_heads_in_group")?;
            if !base.num_heads.is_multiple_of(group) {
                return Err(Error::field(
                    "block_configs: n_heads_in_group",
                    group,
                    format!("a divisor of num_attention_heads ({})", base.num_heads),
                ));
            }
            layers.push(Layer::Attention(AttentionLayer {
                num_kv_heads: base.num_heads / group,
                ..base
            }));
        }
        if !ffn.b_or("no_op", false)? {
            let inter = match ffn.get("ffn_mult").and_then(serde_json::Value::as_f64) {
                Some(m) if m.is_finite() && m > 0.0 && m <= 64.0 => {
                    let raw = crate::units::saturating_u64(2.0 * m * x.hidden as f64 / 3.0);
                    crate::units::div_ceil(raw, 256) * 256
                }
                Some(m) => {
                    return Err(Error::field(
                        "block_configs: ffn_mult",
                        m,
                        "a positive multiplier up to 64",
                    ))
                }
                None => ffn.u("intermediate_size")?,
            };
            layers.push(gated_mlp(inter));
        }
    }
    Built::layers(layers)
}

/// One part (`attention`, `ffn`) of a DeciLM block config.
fn block_part<'a>(block: &'a serde_json::Value, k: &str) -> Result<Cfg<'a>> {
    block
        .get(k)
        .and_then(serde_json::Value::as_object)
        .map(Cfg)
        .ok_or_else(|| Error::new(format!("block_configs: missing `{k}`")))
}

/// Voxtral (`vllm/model_executor/models/voxtral.py`): a Llama text model of
/// `text_config`, a Whisper audio encoder and its adapter (run at prefill
/// only; no KV cache of their own).
pub fn voxtral(x: &Ctx) -> Result<Built> {
    let mut built = llama(x)?;
    built.encoder = vision::whisper_voxtral(x)?;
    Ok(built)
}
