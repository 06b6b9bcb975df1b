//! Gemma 2, 3 and 4: interleaved sliding-window and global attention
//! (`vllm/model_executor/models/gemma2.py`, `gemma3.py`, `gemma3_mm.py`,
//! `gemma4.py`).

use super::{gated_mlp, vision, Built, Ctx, Ropes};
use crate::error::{Error, Result};
use crate::model::{AttentionLayer, Layer, Module, ModuleKind};

fn build(x: &Ctx, local: &[bool], qk_norm: bool) -> Result<Built> {
    let inter = x.c.u("intermediate_size")?;
    let w = x.c.u("sliding_window")?;
    let a = AttentionLayer {
        qk_norm,
        ..x.attention()?
    };
    let mut layers = Vec::new();
    for &l in local {
        layers.push(Layer::Attention(AttentionLayer {
            sliding_window_tokens: l.then_some(w),
            ..a
        }));
        layers.push(gated_mlp(inter));
    }
    Built::layers(layers)
}

/// Gemma 2: even layers local, odd layers global.
pub fn gemma2(x: &Ctx) -> Result<Built> {
    build(x, &x.sliding_layers(|i| i % 2 == 0)?, false)
}

/// Gemma 3: five local layers to one global (`sliding_window_pattern` 6),
/// q/k norms.
pub fn gemma3(x: &Ctx) -> Result<Built> {
    let pattern = x.c.u_or("sliding_window_pattern", 6)?.max(1);
    Ok(Built {
        ropes: Ropes::WithLocal,
        ..build(x, &x.sliding_layers(|i| (i + 1) % pattern != 0)?, true)?
    })
}

/// Gemma 3 with its SigLIP vision tower and projector (4B, 12B, 27B).
pub fn gemma3_mm(x: &Ctx) -> Result<Built> {
    let mut built = gemma3(x)?;
    built.encoder = vision::siglip_gemma3(x)?;
    Ok(built)
}

/// Gemma 4 (`vllm/model_executor/models/gemma4.py`, config from
/// transformers' `Gemma4TextConfig`): sliding layers of `head_dim` and
/// `num_key_value_heads`, full layers of `global_head_dim` with
/// `num_global_key_value_heads` when `attention_k_eq_v` (vLLM still holds a
/// V projection and caches K and V); layer i full when `layer_types` says so,
/// else every sixth, the last always; the last `num_kv_shared_layers` layers
/// reuse an earlier layer's KV (no k/v weights, no cache) and, with
/// `use_double_wide_mlp`, have twice the MLP; with `num_experts` an MoE block
/// runs beside the dense MLP in every layer; per-layer embeddings when
/// `hidden_size_per_layer_input` > 0.
pub fn gemma4(x: &Ctx) -> Result<Built> {
    let base = AttentionLayer {
        qk_norm: true,
        ..x.attention()?
    };
    let k_eq_v = x.c.b_or("attention_k_eq_v", false)?;
    let global = AttentionLayer {
        head_dim: x.c.u_or("global_head_dim", 512)?,
        num_kv_heads: match x.c.opt("num_global_key_value_heads")? {
            Some(k) if k_eq_v && k > 0 => k,
            _ => base.num_kv_heads,
        },
        ..base
    };
    let window = x.c.u("sliding_window")?;
    let shared_from = x
        .n_layers
        .saturating_sub(x.c.u_or("num_kv_shared_layers", 0)?);
    let inter = x.c.u("intermediate_size")?;
    let double_wide = x.c.b_or("use_double_wide_mlp", false)?;
    let moe = match x.c.opt("num_experts")? {
        Some(n) if n > 0 => Some(Layer::Moe(super::moe::routed(
            n,
            x.c.first(&["top_k_experts", "num_experts_per_tok"])?,
            x.c.first(&["moe_intermediate_size", "expert_intermediate_size"])?,
        )?)),
        _ => None,
    };
    let last = x.n_layers.saturating_sub(1);
    let local = x.sliding_layers(|i| (i + 1) % 6 != 0 && i != last)?;
    let mut layers = Vec::new();
    for (i, &l) in (0u64..).zip(local.iter()) {
        let kv_shared = i >= shared_from;
        layers.push(Layer::Attention(if l {
            AttentionLayer {
                sliding_window_tokens: Some(window),
                kv_shared,
                ..base
            }
        } else {
            AttentionLayer {
                kv_shared,
                ..global
            }
        }));
        let wide = if kv_shared && double_wide { 2 } else { 1 };
        layers.push(gated_mlp(wide * inter));
        layers.extend(moe);
    }
    if x.top.get("audio_config").is_some() {
        return Err(Error::new("Gemma 4's audio encoder is not modelled yet")
            .with_hint("the text and vision parts of Gemma 4 26B-A4B and 31B are; E2B/E4B carry an audio tower"));
    }
    let mut encoder = per_layer_embeddings(x)?;
    encoder.extend(vision::gemma4(x)?);
    Ok(Built {
        encoder,
        ..Built::layers(layers)?
    })
}

/// Gemma 4's per-layer embeddings: a table of `vocab_size_per_layer_input`
/// x (layers x `hidden_size_per_layer_input`), a projection from the hidden
/// state to all layers' inputs, and per layer an input gate and a
/// projection back (gemma4.py).
fn per_layer_embeddings(x: &Ctx) -> Result<Vec<Module>> {
    let per = x.c.u_or("hidden_size_per_layer_input", 0)?;
    if per == 0 {
        return Ok(Vec::new());
    }
    let vocab = x.c.u("vocab_size_per_layer_input")?;
    let n = x.n_layers;
    let m = |name, kind, i, o, count| Module {
        name,
        kind,
        in_features: i,
        out_features: o,
        count,
        fp8: false,
    };
    Ok(vec![
        m(
            "embed_tokens_per_layer",
            ModuleKind::Embedding,
            vocab,
            n * per,
            1,
        ),
        m(
            "per_layer_model_projection",
            ModuleKind::MlpLinear,
            x.hidden,
            n * per,
            1,
        ),
        m("per_layer_projection_norm", ModuleKind::Other, 1, per, 1),
        m(
            "per_layer_input_gate",
            ModuleKind::MlpLinear,
            x.hidden,
            per,
            n,
        ),
        m(
            "per_layer_projection",
            ModuleKind::MlpLinear,
            per,
            x.hidden,
            n,
        ),
        m(
            "post_per_layer_input_norm",
            ModuleKind::Other,
            1,
            x.hidden,
            n,
        ),
    ])
}
