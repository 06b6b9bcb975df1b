//! Dense decoder families: Llama, Mistral, Qwen2, Qwen3, Granite, Phi-3,
//! Qwen3-VL (Qwen3 with its vision transformer) and Mistral 3 (Mistral Small
//! 3.x: a Mistral text model with a Pixtral vision encoder).

use super::{gated_mlp, vision, Built, Ctx};
use crate::error::Result;
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
/// Phi-3-mini's configs set `sliding_window` 2047 but no `layer_types`:
/// vLLM's Llama attention then uses full attention.
pub fn phi3(x: &Ctx) -> Result<Built> {
    llama(x)
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
