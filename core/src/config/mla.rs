//! DeepSeek-V2 and V3: multi-head latent attention (the cache holds one
//! latent and the rotary key per token) and MoE with shared experts after
//! `first_k_dense_replace` dense layers
//! (`vllm/model_executor/models/deepseek_v2.py`, which serves both).

use super::moe::routed;
use super::{gated_mlp, Built, Ctx};
use crate::error::Result;
use crate::model::{AttentionLayer, Layer, MlaDims, MoeLayer};

pub fn deepseek(x: &Ctx) -> Result<Built> {
    let mla = MlaDims {
        // DeepSeek-V2-Lite projects queries directly (q_lora_rank null).
        q_lora_rank: x.c.opt("q_lora_rank")?.filter(|r| *r > 0),
        kv_lora_rank: x.c.u("kv_lora_rank")?,
        qk_nope_head_dim: x.c.u("qk_nope_head_dim")?,
        qk_rope_head_dim: x.c.u("qk_rope_head_dim")?,
        v_head_dim: x.c.u("v_head_dim")?,
    };
    let heads = x.c.u("num_attention_heads")?;
    let dense = x.c.u_or("first_k_dense_replace", 0)?;
    let moe_inter = x.c.u("moe_intermediate_size")?;
    let moe = MoeLayer {
        shared_intermediate: x.c.u_or("n_shared_experts", 0)? * moe_inter,
        ..routed(
            x.c.u("n_routed_experts")?,
            x.c.u("num_experts_per_tok")?,
            moe_inter,
        )?
    };
    let attn = AttentionLayer {
        num_heads: heads,
        num_kv_heads: 1,
        head_dim: mla.kv_lora_rank + mla.qk_rope_head_dim,
        sliding_window_tokens: None,
        qkv_bias: false,
        qk_norm: false,
        output_gate: false,
        mla: Some(mla),
        kv_shared: false,
    };
    let step = x.c.u_or("moe_layer_freq", 1)?.max(1);
    let mut layers = Vec::new();
    for i in 0..x.n_layers {
        layers.push(Layer::Attention(attn));
        layers.push(if i < dense || i % step != 0 {
            gated_mlp(x.c.u("intermediate_size")?)
        } else {
            Layer::Moe(moe)
        });
    }
    Built::layers(layers)
}
