//! Mamba hybrids: NemotronH (Mamba2 + attention + MLP or MoE), Granite 4.0-H
//! (Mamba2 + attention, MoE with a shared expert), Falcon-H1 (attention and
//! Mamba2 side by side), Jamba (Mamba1 + attention + MoE) and LFM2 (short
//! convolutions + attention).

use super::moe::routed;
use super::{gated_mlp, Built, Ctx, Ropes};
use crate::dtype::FloatDtype;
use crate::error::{Error, Result};
use crate::model::{
    AttentionLayer, Layer, Mamba1Layer, Mamba2Layer, MlpLayer, MoeLayer, ShortConvLayer,
};
use serde_json::Value;

/// NemotronH's MoE block (`E`): routed experts and shared experts with the
/// family's non-gated ReLU^2 MLPs; Nemotron-3 Super's "latent" experts run
/// in `moe_latent_size` dimensions between a down- and an up-projection
/// (`vllm/model_executor/models/nemotron_h.py`, `NemotronHMoE`).
fn nemotron_moe(x: &Ctx) -> Result<MoeLayer> {
    let inter = x.c.u("moe_intermediate_size")?;
    let shared = match x.c.opt("moe_shared_expert_intermediate_size")? {
        Some(s) => s * x.c.u_or("n_shared_experts", 1)?,
        None => x.c.u_or("n_shared_experts", 0)? * inter,
    };
    Ok(MoeLayer {
        shared_intermediate: shared,
        gated: false,
        latent_dim: x.c.opt("moe_latent_size")?.filter(|d| *d > 0),
        ..routed(
            x.c.u("n_routed_experts")?,
            x.c.u("num_experts_per_tok")?,
            inter,
        )?
    })
}

/// The layer pattern: `hybrid_override_pattern`, or newer configs'
/// `layers_block_type` list (mamba, attention, mlp, moe), which transformers'
/// `NemotronHConfig` maps to the same characters.
fn nemotron_pattern(x: &Ctx) -> Result<String> {
    if let Some(p) = x.c.s("hybrid_override_pattern") {
        return Ok(p.to_string());
    }
    let Some(types) = x.c.strings("layers_block_type")? else {
        return Err(Error::new("missing field `hybrid_override_pattern`")
            .with_hint("NemotronH configs give hybrid_override_pattern or layers_block_type"));
    };
    types
        .iter()
        .map(|t| match *t {
            "mamba" => Ok('M'),
            "attention" => Ok('*'),
            "mlp" => Ok('-'),
            "moe" => Ok('E'),
            other => Err(Error::field(
                "layers_block_type",
                other,
                "mamba, attention, mlp or moe per layer",
            )),
        })
        .collect()
}

/// `vllm/model_executor/models/nemotron_h.py`: one layer per character of
/// `hybrid_override_pattern`: `M` Mamba2, `*` attention, `-` ReLU^2 MLP, `E`
/// MoE. The SSM state is float32 under `auto`.
pub fn nemotron_h(x: &Ctx) -> Result<Built> {
    let pattern = nemotron_pattern(x)?;
    let pattern = pattern.as_str();
    if pattern.chars().count() as u64 != x.n_layers {
        return Err(Error::field(
            "hybrid_override_pattern",
            pattern,
            format!(
                "{} characters, one per layer (num_hidden_layers)",
                x.n_layers
            ),
        ));
    }
    let mamba = Mamba2Layer {
        num_heads: x.c.u("mamba_num_heads")?,
        head_dim: x.c.u("mamba_head_dim")?,
        state_size: x.c.u("ssm_state_size")?,
        n_groups: x.c.u("n_groups")?,
        conv_kernel: x.c.u("conv_kernel")?,
    };
    let attn = AttentionLayer {
        qkv_bias: x.c.b_or("attention_bias", false)?,
        ..x.attention()?
    };
    let moe = if pattern.contains('E') {
        Some(nemotron_moe(x)?)
    } else {
        None
    };
    let mut layers = Vec::new();
    for ch in pattern.chars() {
        layers.push(match (ch, moe) {
            ('M', _) => Layer::Mamba2(mamba),
            ('*', _) => Layer::Attention(attn),
            ('-', _) => Layer::Mlp(MlpLayer {
                intermediate: x.c.u("intermediate_size")?,
                gated: false,
            }),
            ('E', Some(m)) => Layer::Moe(m),
            (other, _) => {
                return Err(Error::field(
                    "hybrid_override_pattern",
                    other,
                    "M (Mamba2), * (attention), - (MLP) or E (MoE), one per layer",
                ))
            }
        });
    }
    // NemotronH attention has no positional rotation (the Mamba layers
    // carry position).
    Ok(Built {
        ssm_auto: Some(FloatDtype::Float32),
        ropes: Ropes::None,
        ..Built::layers(layers)?
    })
}

/// `vllm/model_executor/models/granitemoehybrid.py`: `layer_types` "mamba"
/// or "attention" per layer; every layer has an MoE block with a shared
/// expert (or a dense MLP when there are no experts).
pub fn granite_moe_hybrid(x: &Ctx) -> Result<Built> {
    let t = x.layer_types()?.ok_or_else(|| {
        Error::new("missing field `layer_types`")
            .with_hint("GraniteMoeHybrid configs list \"mamba\" or \"attention\" per layer")
    })?;
    let heads_m = x.c.u("mamba_n_heads")?;
    let expand = x.c.u_or("mamba_expand", 2)?;
    let mamba = Mamba2Layer {
        num_heads: heads_m,
        head_dim: x
            .c
            .u_or("mamba_d_head", expand * x.hidden / heads_m.max(1))?,
        state_size: x.c.u("mamba_d_state")?,
        n_groups: x.c.u_or("mamba_n_groups", 1)?,
        conv_kernel: x.c.u_or("mamba_d_conv", 4)?,
    };
    let experts = x.c.u_or("num_local_experts", 0)?;
    let inter = x.c.u("intermediate_size")?;
    let shared = x.c.u_or("shared_intermediate_size", 0)?;
    let attn = AttentionLayer {
        qkv_bias: x.c.b_or("attention_bias", false)?,
        ..x.attention()?
    };
    let ffn = if experts > 0 {
        Layer::Moe(MoeLayer {
            shared_intermediate: shared,
            ..routed(experts, x.c.u("num_experts_per_tok")?, inter)?
        })
    } else {
        gated_mlp(shared.max(inter))
    };
    let mut layers = Vec::new();
    for kind in &t {
        layers.push(match *kind {
            "mamba" => Layer::Mamba2(mamba),
            "attention" => Layer::Attention(attn),
            other => {
                return Err(Error::field(
                    "layer_types",
                    other,
                    "\"mamba\" or \"attention\"",
                ))
            }
        });
        layers.push(ffn);
    }
    // Granite 4.0-H's attention is "nope" (no position embedding).
    let nope = x.c.s("position_embedding_type") == Some("nope");
    Ok(Built {
        ropes: if nope { Ropes::None } else { Ropes::One },
        ..Built::layers(layers)?
    })
}

/// `vllm/model_executor/models/falcon_h1.py`: every layer runs attention and
/// a Mamba2 mixer side by side, then a gated MLP; the Mamba width is its own
/// (`mamba_d_ssm`).
pub fn falcon_h1(x: &Ctx) -> Result<Built> {
    let heads_m = x.c.u("mamba_n_heads")?;
    let d_ssm =
        x.c.u_or("mamba_d_ssm", x.c.u_or("mamba_expand", 2)? * x.hidden)?;
    let mamba = Mamba2Layer {
        num_heads: heads_m,
        head_dim: match x.c.get("mamba_d_head") {
            Some(Value::String(s)) if s == "auto" => d_ssm / heads_m.max(1),
            _ => x.c.u_or("mamba_d_head", d_ssm / heads_m.max(1))?,
        },
        state_size: x.c.u("mamba_d_state")?,
        n_groups: x.c.u_or("mamba_n_groups", 1)?,
        conv_kernel: x.c.u_or("mamba_d_conv", 4)?,
    };
    let inter = x.c.u("intermediate_size")?;
    let attn = AttentionLayer {
        qkv_bias: x.c.b_or("attention_bias", false)?,
        ..x.attention()?
    };
    let mut layers = Vec::new();
    for _ in 0..x.n_layers {
        layers.push(Layer::Attention(attn));
        layers.push(Layer::Mamba2(mamba));
        layers.push(gated_mlp(inter));
    }
    Built::layers(layers)
}

/// `vllm/model_executor/models/jamba.py`: attention every
/// `attn_layer_period` layers (at `attn_layer_offset`), Mamba1 elsewhere;
/// MoE every `expert_layer_period` layers.
pub fn jamba(x: &Ctx) -> Result<Built> {
    let period = x.c.u("attn_layer_period")?;
    let offset = x.c.u_or("attn_layer_offset", 0)?;
    let e_period = x.c.u_or("expert_layer_period", 1)?.max(1);
    let e_offset = x.c.u_or("expert_layer_offset", 0)?;
    let experts = x.c.u_or("num_experts", 1)?;
    let inter = x.c.u("intermediate_size")?;
    let dt_rank = match x.c.get("mamba_dt_rank") {
        Some(Value::String(s)) if s == "auto" => x.hidden.div_ceil(16),
        _ => x.c.u("mamba_dt_rank")?,
    };
    let mamba = Mamba1Layer {
        intermediate: x.c.u_or("mamba_expand", 2)? * x.hidden,
        state_size: x.c.u("mamba_d_state")?,
        conv_kernel: x.c.u("mamba_d_conv")?,
        dt_rank,
    };
    let attn = x.attention()?;
    let moe = if experts > 1 {
        Some(routed(experts, x.c.u("num_experts_per_tok")?, inter)?)
    } else {
        None
    };
    let mut layers = Vec::new();
    for i in 0..x.n_layers {
        layers.push(if i % period == offset {
            Layer::Attention(attn)
        } else {
            Layer::Mamba1(mamba)
        });
        layers.push(match moe {
            Some(m) if i % e_period == e_offset => Layer::Moe(m),
            _ => gated_mlp(inter),
        });
    }
    // Jamba's attention layers have no positional rotation.
    Ok(Built {
        ropes: Ropes::None,
        ..Built::layers(layers)?
    })
}

/// LFM2-VL (`vllm/model_executor/models/lfm2_vl.py`): the LFM2 text model
/// of `text_config` (`lfm2.py`) with a SigLIP2 tower and its projector.
/// `layer_types` marks each layer `full_attention` (per-head q/k norms,
/// head_dim = hidden / heads) or a short convolution of `conv_dim` channels
/// and `conv_L_cache` taps; every layer has a gated MLP, whose width with
/// `block_auto_adjust_ff_dim` is `2 intermediate_size / 3`, times
/// `block_ffn_dim_multiplier`, rounded up to `block_multiple_of`. vLLM ties
/// lm_head to the embedding whatever the config says.
pub fn lfm2_vl(x: &Ctx) -> Result<Built> {
    let types = x.layer_types()?.ok_or_else(|| {
        Error::new("missing field `layer_types`")
            .with_hint("LFM2 configs list `conv` or `full_attention` per layer")
    })?;
    let attention = AttentionLayer {
        qk_norm: true,
        ..x.attention()?
    };
    let conv = ShortConvLayer {
        dim: x.c.u("conv_dim")?,
        conv_kernel: x.c.u("conv_L_cache")?,
    };
    let mut inter = x.c.u("intermediate_size")?;
    if x.c.b_or("block_auto_adjust_ff_dim", false)? {
        let multiplier =
            x.c.get("block_ffn_dim_multiplier")
                .and_then(Value::as_f64)
                .filter(|m| m.is_finite() && *m > 0.0 && *m <= 64.0)
                .unwrap_or(1.0);
        let raw = crate::units::saturating_u64((2 * inter / 3) as f64 * multiplier);
        let multiple = x.c.u_or("block_multiple_of", 256)?.max(1);
        inter = crate::units::div_ceil(raw, multiple) * multiple;
    }
    let mut layers = Vec::new();
    for t in types {
        layers.push(match t {
            "full_attention" => Layer::Attention(attention),
            "conv" => Layer::ShortConv(conv),
            other => {
                return Err(Error::field(
                    "layer_types",
                    other,
                    "\"conv\" or \"full_attention\" per layer",
                ))
            }
        });
        layers.push(gated_mlp(inter));
    }
    let mut built = Built::layers(layers)?;
    built.encoder = super::vision::siglip2_lfm2(x)?;
    Ok(built)
}
