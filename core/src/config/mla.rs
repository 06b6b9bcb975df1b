//! DeepSeek-V2, V3 and V3.2, GLM-5 and Kimi-K2 / K2.5: multi-head latent
//! attention (the cache holds one latent and the rotary key per token; with
//! DeepSeek sparse attention also the indexer's key) and MoE with shared
//! experts after `first_k_dense_replace` dense layers
//! (`vllm/model_executor/models/deepseek_v2.py`, which serves them all).

use super::moe::deepseek_experts;
use super::{gated_mlp, Built, Ctx};
use crate::error::Result;
use crate::model::{AttentionLayer, IndexerDims, Layer, MlaDims};

pub fn deepseek(x: &Ctx) -> Result<Built> {
    let mla = MlaDims {
        // DeepSeek-V2-Lite projects queries directly (q_lora_rank null).
        q_lora_rank: x.c.opt("q_lora_rank")?.filter(|r| *r > 0),
        kv_lora_rank: x.c.u("kv_lora_rank")?,
        qk_nope_head_dim: x.c.u("qk_nope_head_dim")?,
        qk_rope_head_dim: x.c.u("qk_rope_head_dim")?,
        v_head_dim: x.c.u("v_head_dim")?,
        // DeepSeek-V3.2 and GLM-5 add the sparse-attention indexer.
        dsv4: None,
        indexer: match x.c.opt("index_n_heads")? {
            Some(heads) if heads > 0 => Some(IndexerDims {
                heads,
                head_dim: x.c.u("index_head_dim")?,
            }),
            _ => None,
        },
    };
    let heads = x.c.u("num_attention_heads")?;
    let dense = x.c.u_or("first_k_dense_replace", 0)?;
    let moe = deepseek_experts(x)?;
    let attn = AttentionLayer {
        mla: Some(mla),
        ..AttentionLayer::full(heads, 1, mla.kv_lora_rank + mla.qk_rope_head_dim)
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

/// Kimi-K2.5 (`vllm/model_executor/models/kimi_k25.py`): the DeepSeek-V3
/// text model of `text_config` (Kimi-K2) and the MoonViT vision tower with
/// its patch-merging projector.
pub fn kimi_k25(x: &Ctx) -> Result<Built> {
    let mut built = deepseek(x)?;
    built.encoder = super::vision::moonvit(x)?;
    Ok(built)
}
