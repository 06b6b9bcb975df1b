//! Mixture-of-experts transformers: Qwen3-MoE, Mixtral, gpt-oss, MiniMax-M2,
//! PhiMoE (`vllm/model_executor/models/qwen3_moe.py`, `mixtral.py`,
//! `gpt_oss.py`, `minimax_m2.py`, `phimoe.py`).

use super::{gated_mlp, Built, Ctx};
use crate::error::{Error, Result};
use crate::model::{AttentionLayer, Layer, MoeLayer};

/// Routed experts with `top_k <= num_experts` (vLLM refuses more).
pub(crate) fn routed(num_experts: u64, top_k: u64, expert_intermediate: u64) -> Result<MoeLayer> {
    if top_k > num_experts {
        return Err(Error::field(
            "num_experts_per_tok",
            top_k,
            format!("at most the number of experts ({num_experts})"),
        ));
    }
    Ok(MoeLayer {
        num_experts,
        top_k,
        expert_intermediate,
        shared_intermediate: 0,
        gated: true,
        latent_dim: None,
        router_bias: false,
    })
}

/// Qwen3-MoE: every `decoder_sparse_step`-th layer sparse unless listed in
/// `mlp_only_layers`; q/k norms.
pub fn qwen3_moe(x: &Ctx) -> Result<Built> {
    let moe = routed(
        x.c.u("num_experts")?,
        x.c.u("num_experts_per_tok")?,
        x.c.u("moe_intermediate_size")?,
    )?;
    let step = x.c.u_or("decoder_sparse_step", 1)?.max(1);
    let dense = x.c.numbers("mlp_only_layers")?;
    let a = AttentionLayer {
        qk_norm: true,
        ..x.attention()?
    };
    let mut layers = Vec::new();
    for i in 0..x.n_layers {
        layers.push(Layer::Attention(a));
        layers.push(if dense.contains(&i) || (i + 1) % step != 0 {
            gated_mlp(x.c.u("intermediate_size")?)
        } else {
            Layer::Moe(moe)
        });
    }
    Built::layers(layers)
}

/// Mixtral: every layer sparse; experts of `intermediate_size`.
pub fn mixtral(x: &Ctx) -> Result<Built> {
    let moe = local_experts(x)?;
    let a = AttentionLayer {
        sliding_window_tokens: x.c.opt("sliding_window")?,
        ..x.attention()?
    };
    every_layer_sparse(x, a, moe)
}

/// gpt-oss: alternating sliding (even) and full layers, q/k/v bias, every
/// layer sparse.
pub fn gpt_oss(x: &Ctx) -> Result<Built> {
    let w = x.c.u("sliding_window")?;
    let moe = routed(
        x.c.first(&["num_local_experts", "num_experts"])?,
        x.c.first(&["num_experts_per_tok", "experts_per_token"])?,
        x.c.u("intermediate_size")?,
    )?;
    let local_layers = x.sliding_layers(|i| i % 2 == 0)?;
    let a = AttentionLayer {
        qkv_bias: true,
        ..x.attention()?
    };
    let mut layers = Vec::new();
    for &local in &local_layers {
        layers.push(Layer::Attention(AttentionLayer {
            sliding_window_tokens: local.then_some(w),
            ..a
        }));
        layers.push(Layer::Moe(moe));
    }
    Built::layers(layers)
}

/// MiniMax-M2 (M2.5, M2.7; `minimax_m2.py`): every layer full attention
/// (the decoder layer passes no window and the config has none) and sparse,
/// `num_local_experts` experts of `intermediate_size`, no shared expert;
/// partial rotary (`rotary_dim`). Its q/k norms span the whole projection
/// (6,144 + 1,024 weights a layer), counted here as per-head norms (256): a
/// difference of 0.0002% of the 229 B parameters. The checkpoint's MTP
/// modules (`num_mtp_modules`, layers 62 on) are skipped when vLLM loads it
/// without speculative decoding (`load_weights`).
pub fn minimax_m2(x: &Ctx) -> Result<Built> {
    let moe = local_experts(x)?;
    let a = AttentionLayer {
        qkv_bias: x.c.b_or("attention_bias", false)?,
        qk_norm: x.c.b_or("use_qk_norm", true)?,
        ..x.attention()?
    };
    every_layer_sparse(x, a, moe)
}

/// PhiMoE (Phi-3.5-MoE, Phi-mini-MoE; `phimoe.py`): Mixtral's layout with
/// q/k/v biases (o_proj, the LayerNorms and lm_head carry biases too, 0.005%
/// of the parameters, not counted). The layers pass no window of their own,
/// so the config's `sliding_window` applies to all of them: vLLM copies it
/// into the cache config when `layer_types` does not interleave two kinds
/// (`EngineArgs.create_engine_config`, vllm/engine/arg_utils.py).
pub fn phimoe(x: &Ctx) -> Result<Built> {
    let moe = local_experts(x)?;
    let a = AttentionLayer {
        qkv_bias: true,
        sliding_window_tokens: x.c.opt("sliding_window")?,
        ..x.attention()?
    };
    every_layer_sparse(x, a, moe)
}

/// `num_local_experts` routed experts of `intermediate_size`, top
/// `num_experts_per_tok` (Mixtral's spelling, which MiniMax-M2 and PhiMoE
/// share).
fn local_experts(x: &Ctx) -> Result<MoeLayer> {
    routed(
        x.c.u("num_local_experts")?,
        x.c.u("num_experts_per_tok")?,
        x.c.u("intermediate_size")?,
    )
}

/// Every layer the same attention and the same sparse block.
fn every_layer_sparse(x: &Ctx, a: AttentionLayer, moe: MoeLayer) -> Result<Built> {
    let mut layers = Vec::new();
    for _ in 0..x.n_layers {
        layers.push(Layer::Attention(a));
        layers.push(Layer::Moe(moe));
    }
    Built::layers(layers)
}
