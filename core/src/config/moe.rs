//! Mixture-of-experts transformers: Qwen3-MoE, Mixtral, gpt-oss, MiniMax-M2,
//! PhiMoE, Llama 4, Laguna (`vllm/model_executor/models/qwen3_moe.py`,
//! `mixtral.py`, `gpt_oss.py`, `minimax_m2.py`, `phimoe.py`, `llama4.py` and
//! `mllama4.py`, `laguna.py`).

use super::{gated_mlp, vision, Built, Ctx};
use crate::error::{Error, Result};
use crate::model::{AttentionLayer, Layer, MoeLayer};
use serde_json::Value;

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
        local_experts: num_experts,
        top_k,
        expert_intermediate,
        shared_intermediate: 0,
        gated: true,
        latent_dim: None,
        router_bias: false,
        hash_table_rows: 0,
    })
}

/// DeepSeek's MoE block (`DeepseekV2MoE` in `deepseek_v2.py`, and V4's
/// `DeepseekV4MoE`): `n_routed_experts` routed experts, `num_experts_per_tok`
/// of them per token, beside `n_shared_experts` shared ones, all of
/// `moe_intermediate_size`.
pub(crate) fn deepseek_experts(x: &Ctx) -> Result<MoeLayer> {
    let inter = x.c.u("moe_intermediate_size")?;
    Ok(MoeLayer {
        shared_intermediate: x.c.u_or("n_shared_experts", 0)? * inter,
        ..routed(
            x.c.u("n_routed_experts")?,
            x.c.u("num_experts_per_tok")?,
            inter,
        )?
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

/// `vllm/model_executor/models/qwen3_vl_moe.py`: Qwen3-VL's model with a
/// Qwen3-MoE text model (`text_config`) and the same vision transformer.
pub fn qwen3_vl_moe(x: &Ctx) -> Result<Built> {
    let mut built = qwen3_moe(x)?;
    built.encoder = vision::qwen_vl(x)?;
    Ok(built)
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
/// difference of 0.0002% of the 229 B parameters; spanning every head, they
/// all-reduce under tensor parallelism (`qk_norm_across_heads`). The checkpoint's MTP
/// modules (`num_mtp_modules`, layers 62 on) are skipped when vLLM loads it
/// without speculative decoding (`load_weights`).
pub fn minimax_m2(x: &Ctx) -> Result<Built> {
    let moe = local_experts(x)?;
    let a = AttentionLayer {
        qkv_bias: x.c.b_or("attention_bias", false)?,
        qk_norm: x.c.b_or("use_qk_norm", true)?,
        // vLLM builds these norms whatever the config says (no
        // `use_qk_norm` read in minimax_m2.py, 0.17 to 0.32).
        qk_norm_across_heads: true,
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

/// Llama 4 (`Llama4ForConditionalGeneration`, `vllm/model_executor/models/
/// mllama4.py` around the text model of `llama4.py`; fields of
/// `text_config`). Attention: no biases; a layer is NoPE, global full
/// attention, where `no_rope_layers[i]` is 0, and otherwise uses RoPE and
/// chunked local attention over `attention_chunk_size` tokens. transformers'
/// `Llama4TextConfig` fills an empty or missing `no_rope_layers` with
/// `int((i + 1) % no_rope_layer_interval != 0)` (interval 4): every fourth
/// layer global, as in Scout's (`[]`) and Maverick's (absent) configs. The
/// q/k norm of the RoPE layers (`use_qk_norm`) is an RMSNorm without
/// weight: no parameters. Feed-forward: layer i is MoE when
/// `interleave_moe_layer_step` divides i + 1 (`Llama4DecoderLayer`): top-k
/// of `num_local_experts` routed experts of `intermediate_size` and one
/// always-on shared expert of the same width (`Llama4MoE`); else a dense
/// SwiGLU MLP of `intermediate_size_mlp`. The vision encoder and projector
/// are `vision::llama4`'s. Maverick (401,583,781,376) matches its published
/// safetensors total exactly.
pub fn llama4(x: &Ctx) -> Result<Built> {
    let a = x.attention()?;
    let chunk = x.c.opt("attention_chunk_size")?.filter(|c| *c > 0);
    let nope = x.c.numbers("no_rope_layers")?;
    if !nope.is_empty() && nope.len() as u64 != x.n_layers {
        return Err(Error::field(
            "no_rope_layers",
            format!("({} entries)", nope.len()),
            format!("{} entries, one per layer (num_hidden_layers)", x.n_layers),
        ));
    }
    let interval = x.c.u_or("no_rope_layer_interval", 4)?.max(1);
    let step = x.c.u_or("interleave_moe_layer_step", 1)?;
    let inter = x.c.u("intermediate_size")?;
    let moe = MoeLayer {
        shared_intermediate: inter,
        ..local_experts(x)?
    };
    let dense = gated_mlp(x.c.u("intermediate_size_mlp")?);
    let mut layers = Vec::new();
    for i in 0..x.n_layers {
        let uses_rope = match nope.get(usize::try_from(i).unwrap_or(usize::MAX)) {
            Some(flag) => *flag != 0,
            None => (i + 1) % interval != 0,
        };
        layers.push(Layer::Attention(AttentionLayer {
            chunk_tokens: chunk.filter(|_| uses_rope),
            ..a
        }));
        layers.push(if step > 0 && (i + 1) % step == 0 {
            Layer::Moe(moe)
        } else {
            dense
        });
    }
    let mut built = Built::layers(layers)?;
    built.encoder = vision::llama4(x)?;
    Ok(built)
}

/// Laguna (poolside's Laguna-XS.2; `vllm/model_executor/models/laguna.py`,
/// `LagunaAttention`, `LagunaMoE`, `LagunaModel`). Attention: the layer's
/// own head count (`num_attention_heads_per_layer`, else
/// `num_attention_heads`), per-head q/k RMSNorms, q/k/v bias as `qkv_bias`
/// says, and the output gate `g_proj` of `gating`: `true` or `"per-head"`
/// one value per head (hidden -> heads), `"per-element"` one per output
/// element (hidden -> heads x head_dim, the parameters of a q_proj that
/// also produces the gate). `layer_types`' `sliding_attention` layers slide
/// over `sliding_window` (`LagunaModel` clears the model-wide window, so
/// the full layers stay full). Feed-forward: a SwiGLU MLP of
/// `intermediate_size`, or `num_experts` routed experts of
/// `moe_intermediate_size` (top `num_experts_per_tok`, a sigmoid router with
/// a score-correction bias per expert) and one shared expert of
/// `shared_expert_intermediate_size`.
///
/// Which layers are dense is an assumption: laguna.py decides it from
/// `mlp_only_layers` and `decoder_sparse_step` (Qwen3-MoE's rule), which
/// the published config.json does not set; they come from the remote-code
/// `configuration_laguna.LagunaConfig` (`auto_map`), not read here. The
/// config's `mlp_layer_types` (`"dense"` then 39 `"sparse"`) is assumed to
/// be what that class maps to them (`mlp_only_layers = [0]`, step 1); a
/// config without `mlp_layer_types` is read with Qwen3-MoE's rule (every
/// layer sparse by default). Likewise `qkv_bias`, absent from the config,
/// is assumed false. Laguna-XS.2: 33,442,617,088 parameters (computed in
/// docs/reference/pending-architectures.md; no published total).
pub fn laguna(x: &Ctx) -> Result<Built> {
    let base = AttentionLayer {
        qk_norm: true,
        qkv_bias: x.c.b_or("qkv_bias", false)?,
        ..x.attention()?
    };
    let (head_gate, output_gate) = match x.c.get("gating") {
        None | Some(Value::Bool(false)) => (false, false),
        Some(Value::Bool(true)) => (true, false),
        Some(Value::String(g)) if g == "per-head" => (true, false),
        Some(Value::String(g)) if g == "per-element" => (false, true),
        Some(other) => {
            return Err(Error::field(
                "gating",
                other,
                "true, false, \"per-head\" or \"per-element\"",
            ))
        }
    };
    let heads = x.c.numbers("num_attention_heads_per_layer")?;
    if !heads.is_empty() && heads.len() as u64 != x.n_layers {
        return Err(Error::field(
            "num_attention_heads_per_layer",
            format!("({} entries)", heads.len()),
            format!("{} entries, one per layer (num_hidden_layers)", x.n_layers),
        ));
    }
    if let Some(h) = heads
        .iter()
        .find(|h| **h == 0 || !h.is_multiple_of(base.num_kv_heads))
    {
        return Err(Error::field(
            "num_attention_heads_per_layer",
            h,
            format!("multiples of num_key_value_heads ({})", base.num_kv_heads),
        ));
    }
    let window = x.c.opt("sliding_window")?;
    let sliding = x.sliding_layers(|_| false)?;
    let moe = MoeLayer {
        shared_intermediate: x.c.u_or("shared_expert_intermediate_size", 0)?,
        router_bias: true,
        ..routed(
            x.c.u("num_experts")?,
            x.c.u("num_experts_per_tok")?,
            x.c.u("moe_intermediate_size")?,
        )?
    };
    let dense = gated_mlp(x.c.u("intermediate_size")?);
    let kinds = x.c.strings("mlp_layer_types")?;
    if let Some(k) = &kinds {
        if k.len() as u64 != x.n_layers {
            return Err(Error::field(
                "mlp_layer_types",
                format!("({} entries)", k.len()),
                format!("{} entries, one per layer (num_hidden_layers)", x.n_layers),
            ));
        }
    }
    let step = x.c.u_or("decoder_sparse_step", 1)?.max(1);
    let only_mlp = x.c.numbers("mlp_only_layers")?;
    let mut layers = Vec::new();
    for (i, slides) in (0..x.n_layers).zip(&sliding) {
        let at = usize::try_from(i).unwrap_or(usize::MAX);
        layers.push(Layer::Attention(AttentionLayer {
            num_heads: heads.get(at).copied().unwrap_or(base.num_heads),
            sliding_window_tokens: window.filter(|_| *slides),
            head_gate,
            output_gate,
            ..base
        }));
        let sparse = match kinds.as_ref().and_then(|k| k.get(at)) {
            Some(&"dense") => false,
            Some(&"sparse") => true,
            Some(other) => {
                return Err(Error::field(
                    "mlp_layer_types",
                    other,
                    "\"dense\" or \"sparse\" per layer",
                ))
            }
            None => !only_mlp.contains(&i) && (i + 1) % step == 0,
        };
        layers.push(if sparse { Layer::Moe(moe) } else { dense });
    }
    Built::layers(layers)
}
