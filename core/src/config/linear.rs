//! Gated-DeltaNet hybrids: Qwen3-Next and Qwen3.5 / Qwen3.6, three linear
//! attention (DeltaNet) layers to one full attention layer with an output
//! gate (`vllm/model_executor/models/qwen3_next.py`, `qwen3_5.py`).

use super::moe::routed;
use super::{gated_mlp, vision, Built, Ctx};
use crate::error::{Error, Result};
use crate::model::{AttentionLayer, DeltaNetLayer, Layer, MoeLayer};

fn delta_net(x: &Ctx) -> Result<DeltaNetLayer> {
    Ok(DeltaNetLayer {
        key_heads: x.c.u("linear_num_key_heads")?,
        value_heads: x.c.u("linear_num_value_heads")?,
        key_head_dim: x.c.u("linear_key_head_dim")?,
        value_head_dim: x.c.u("linear_value_head_dim")?,
        conv_kernel: x.c.u("linear_conv_kernel_dim")?,
    })
}

/// Routed experts plus one gated shared expert.
fn moe(x: &Ctx) -> Result<MoeLayer> {
    Ok(MoeLayer {
        shared_intermediate: x.c.u_or("shared_expert_intermediate_size", 0)?,
        ..routed(
            x.c.u("num_experts")?,
            x.c.u("num_experts_per_tok")?,
            x.c.u("moe_intermediate_size")?,
        )?
    })
}

/// Full attention where `layer_types` says `full_attention` (else every
/// `full_attention_interval`-th layer), DeltaNet elsewhere; each followed by
/// `ffn`.
fn layers(x: &Ctx, ffn: Layer) -> Result<Vec<Layer>> {
    let interval = x.c.u_or("full_attention_interval", 4)?.max(1);
    let types = x.layer_types()?;
    let delta = delta_net(x)?;
    let attn = AttentionLayer {
        qk_norm: true,
        output_gate: x.c.b_or("attn_output_gate", true)?,
        ..x.attention()?
    };
    let mut out = Vec::new();
    for i in 0..x.n_layers {
        let full = match &types {
            Some(t) => match t.get(usize::try_from(i).unwrap_or(usize::MAX)) {
                Some(&"full_attention") => true,
                Some(&"linear_attention") => false,
                other => {
                    return Err(Error::field(
                        "layer_types",
                        other.unwrap_or(&""),
                        "\"linear_attention\" or \"full_attention\" per layer",
                    ))
                }
            },
            None => (i + 1) % interval == 0,
        };
        out.push(if full {
            Layer::Attention(attn)
        } else {
            Layer::DeltaNet(delta)
        });
        out.push(ffn);
    }
    Ok(out)
}

/// Qwen3-Next: every layer MoE with a shared expert.
pub fn qwen3_next(x: &Ctx) -> Result<Built> {
    Built::layers(layers(x, Layer::Moe(moe(x)?))?)
}

/// Qwen3.5 / Qwen3.6 dense: SwiGLU MLP of `intermediate_size`, and the
/// vision encoder (`vision_config`).
pub fn qwen3_5(x: &Ctx) -> Result<Built> {
    let mut built = Built::layers(layers(x, gated_mlp(x.c.u("intermediate_size")?))?)?;
    built.encoder = vision::qwen_vl(x)?;
    Ok(built)
}

/// Qwen3.5 / Qwen3.6 MoE: Qwen3-Next's MoE layers and the vision encoder.
pub fn qwen3_5_moe(x: &Ctx) -> Result<Built> {
    let mut built = Built::layers(layers(x, Layer::Moe(moe(x)?))?)?;
    built.encoder = vision::qwen_vl(x)?;
    Ok(built)
}
