//! DeepSeek-V4 (`DeepseekV4ForCausalLM`: DeepSeek-V4-Flash, DeepSeek-V4-Pro;
//! vLLM 0.32 `vllm/models/deepseek_v4/`, CUDA classes in `nvidia/model.py`,
//! attention in `attention.py` and `compressor.py`): every layer attends a
//! sliding window of MLA-style latents and, where `compress_ratios` says
//! r > 1, one compressed latent per r tokens (r = 4 layers select among
//! them with an indexer); every layer is MoE, the first `num_hash_layers`
//! routed by a token-hash table. docs/reference/pending-architectures.md
//! ("DeepseekV4ForCausalLM") lists the fields read and works the
//! parameter totals by hand.

use super::moe::deepseek_experts;
use super::{Built, Ctx, Ropes};
use crate::error::{Error, Result};
use crate::model::{AttentionLayer, Dsv4Dims, IndexerDims, Layer, MlaDims, MoeLayer};

/// The compression ratios vLLM 0.32's DeepSeek-V4 builds: 0 and 1 (the
/// sliding window alone), 4 and 128 (`CompressorStateCache` asserts one of
/// those two; 2 is DeepSeek-V4.1's, `DeepseekV41ForCausalLM`).
const RATIOS: [u64; 4] = [0, 1, 4, 128];

/// The attention of a layer of compression ratio `ratio` (config value,
/// 0 read as 1).
fn attention(x: &Ctx, ratio: u64) -> Result<AttentionLayer> {
    let heads = x.c.u("num_attention_heads")?;
    let head_dim = x.c.u("head_dim")?;
    let rope = x.c.u("qk_rope_head_dim")?;
    if rope >= head_dim {
        return Err(Error::field(
            "qk_rope_head_dim",
            rope,
            format!("less than head_dim ({head_dim})"),
        ));
    }
    let groups = x.c.u("o_groups")?;
    if !heads.is_multiple_of(groups) {
        return Err(Error::field(
            "o_groups",
            groups,
            format!("a divisor of num_attention_heads ({heads})"),
        ));
    }
    let ratio = ratio.max(1);
    let mla = MlaDims {
        q_lora_rank: Some(x.c.u("q_lora_rank")?),
        // One latent of head_dim per token: head_dim - rope "no-position"
        // values and the rotary part; keys and values share it.
        kv_lora_rank: head_dim - rope,
        qk_nope_head_dim: head_dim - rope,
        qk_rope_head_dim: rope,
        v_head_dim: head_dim,
        // Only the layers that compress 4 tokens into one have an indexer
        // (`DeepseekV4Attention.__init__`).
        indexer: if ratio == 4 {
            Some(IndexerDims {
                heads: x.c.u("index_n_heads")?,
                head_dim: x.c.u("index_head_dim")?,
            })
        } else {
            None
        },
        dsv4: Some(Dsv4Dims {
            compress_ratio: ratio,
            window_tokens: x.c.u("sliding_window")?,
            o_lora_rank: x.c.u("o_lora_rank")?,
            heads_per_group: heads / groups,
            hc_mult: x.c.u("hc_mult")?,
        }),
    };
    // One latent per token, replicated on every GPU (`max_tp_shards=1`).
    Ok(AttentionLayer {
        mla: Some(mla),
        ..AttentionLayer::full(heads, 1, head_dim)
    })
}

/// The feed-forward block of layer `i` (`DeepseekV4MoE`): routed experts and
/// `n_shared_experts` shared ones of `moe_intermediate_size`; layers below
/// `num_hash_layers` route by the token-hash table `tid2eid` (vocab x top_k),
/// the others by the learned gate with its `e_score_correction_bias`
/// (`topk_method: noaux_tc`).
fn moe(x: &Ctx, i: u64) -> Result<MoeLayer> {
    let base = deepseek_experts(x)?;
    Ok(if i < x.c.u_or("num_hash_layers", 0)? {
        MoeLayer {
            hash_table_rows: x.c.u("vocab_size")?,
            ..base
        }
    } else {
        MoeLayer {
            router_bias: x.c.s("topk_method") == Some("noaux_tc"),
            ..base
        }
    })
}

/// DeepSeek-V4's decoder layers, and its MTP layer: a decoder layer with the
/// sliding window only (`compress_ratio` 1 for layers past
/// `num_hidden_layers`, `DeepseekV4Attention.__init__`) and a learned router.
/// `compress_ratios` holds one entry per layer, and may hold the MTP layer's
/// after them (ignored: vLLM reads only the first `num_hidden_layers`).
pub fn deepseek_v4(x: &Ctx) -> Result<Built> {
    let ratios = x.c.numbers("compress_ratios")?;
    x.per_layer_entries("compress_ratios", ratios.len(), true)?;
    let mut layers = Vec::new();
    for (i, r) in (0..x.n_layers).zip(&ratios) {
        if !RATIOS.contains(r) {
            return Err(Error::field(
                "compress_ratios",
                r,
                "0, 1, 4 or 128 per layer (vLLM 0.32's DeepSeek-V4 compressors)",
            ));
        }
        layers.push(Layer::Attention(attention(x, *r)?));
        layers.push(Layer::Moe(moe(x, i)?));
    }
    let mtp = vec![
        Layer::Attention(attention(x, 1)?),
        Layer::Moe(moe(x, x.n_layers)?),
    ];
    Ok(Built {
        layers,
        ssm_auto: None,
        encoder: Vec::new(),
        // Two rotary tables: the sliding-window layers' plain one and the
        // compressed layers' YaRN one (`common/rope.py`,
        // `build_deepseek_v4_rope`), each max_position_embeddings long.
        ropes: Ropes::WithLocal,
        mtp_layers: Some(mtp),
    })
}
