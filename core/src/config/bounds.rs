//! The bounds a config.json is held to before any arithmetic: the largest
//! dimension, layer count and parameter count, and the KV and recurrent-state
//! bytes a model may take ([`check_size`], in 128 bits).

use crate::error::{Error, Result};
use crate::model::Layer;

/// The largest value any config.json dimension may hold (64 M: above every
/// published vocabulary, context length and dimension). Enforced by
/// `Cfg::opt` for every whole-number field.
pub const MAX_FIELD: u64 = 1 << 26;

/// The most layers a model may have.
pub const MAX_LAYERS: u64 = 4096;

/// The most parameters a model may have (10^15), and the most bytes one
/// layer's recurrent state or one token's KV in a layer may take (1 TiB).
pub const MAX_PARAMS: u128 = 1_000_000_000_000_000;
/// The most KV-cache bytes one token may take over all layers (at 8 B an
/// element, above any KV dtype): 1 GiB, far above any real model (a few
/// MiB at most), so that a request's KV bytes at the longest context
/// (2^26 tokens) stay below 2^56.
pub const MAX_KV_BYTES_PER_TOKEN: u128 = 1 << 30;
/// The most recurrent-state bytes one request may take over all layers
/// (at 4 B an element): 1 TiB.
pub const MAX_STATE_BYTES_PER_REQUEST: u128 = 1 << 40;

/// Reject a model whose parameter count or per-layer state would overflow
/// the calculator's 64-bit arithmetic (computed in 128 bits here).
pub(super) fn check_size(layers: &[Layer], hidden: u64, vocab: u64) -> Result<()> {
    let too_big = |what: &str| {
        Error::new(format!("the model is implausibly large: {what}"))
            .with_hint("check the config.json's dimensions (hidden_size, heads, experts, layers)")
    };
    let h = u128::from(hidden);
    let mut params: u128 = 2 * u128::from(vocab) * h;
    let mut kv_per_token: u128 = 0;
    let mut state_per_request: u128 = 0;
    for l in layers {
        params = params.saturating_add(layer_params_bound(l, h));
        if let Some(st) = l.state() {
            let bytes = (u128::from(st.conv_elems) + u128::from(st.ssm_elems)) * 4;
            state_per_request = state_per_request.saturating_add(bytes);
        }
        if let Layer::Attention(a) = l {
            let elems = match a.mla {
                Some(m) => u128::from(m.kv_lora_rank) + u128::from(m.qk_rope_head_dim),
                None => 2 * u128::from(a.num_kv_heads) * u128::from(a.head_dim),
            };
            kv_per_token = kv_per_token.saturating_add(elems * 8);
        }
    }
    if state_per_request > MAX_STATE_BYTES_PER_REQUEST {
        return Err(too_big(
            "one request's recurrent state over all layers exceeds 1 TiB (2^40 bytes)",
        ));
    }
    if kv_per_token > MAX_KV_BYTES_PER_TOKEN {
        return Err(too_big(
            "one token's KV cache over all layers exceeds 1 GiB (2^30 bytes)",
        ));
    }
    if params > MAX_PARAMS {
        return Err(too_big("more than 10^15 parameters"));
    }
    Ok(())
}

/// An upper bound of one layer's parameters, in 128 bits.
fn layer_params_bound(l: &Layer, h: u128) -> u128 {
    let u = u128::from;
    match l {
        Layer::Attention(a) => {
            4 * u(a.num_heads.max(a.num_kv_heads)) * u(a.head_dim.max(1)) * h
                + a.mla.map_or(0, |m| {
                    u(m.kv_lora_rank + m.qk_rope_head_dim + m.q_lora_rank.unwrap_or(0))
                        * (h + u(a.num_heads)
                            * u(m.qk_nope_head_dim + m.v_head_dim + m.qk_rope_head_dim))
                })
        }
        Layer::Mamba2(m) => 3 * u(m.num_heads) * u(m.head_dim) * h,
        Layer::Mamba1(m) => 4 * u(m.intermediate) * (h + u(m.state_size + m.dt_rank)),
        Layer::DeltaNet(d) => 4 * u(d.key_dim().max(d.value_dim())) * h,
        Layer::ShortConv(c) => 4 * u(c.dim) * h,
        Layer::Mlp(f) => 3 * u(f.intermediate) * h,
        Layer::Moe(e) => {
            let width = u(e.latent_dim.unwrap_or(e.top_k.max(1)).max(1)).max(h);
            3 * (u(e.num_experts) * u(e.expert_intermediate) + u(e.shared_intermediate)) * width
        }
    }
}
