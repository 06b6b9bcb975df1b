//! Reading a Hugging Face `config.json` (or a model preset's `[config]`
//! table, which holds the same fields) into a [`Model`].
//!
//! Field names and layer layouts follow each architecture's published
//! config.json (fixtures in `tests/fixtures/configs/`, sources listed there)
//! and how vLLM 0.32 lays the layers out.

use crate::dtype::FloatDtype;
use crate::error::{Error, Result};
use crate::model::{
    AttentionLayer, DeltaNetLayer, Layer, Mamba1Layer, Mamba2Layer, MlaDims, MlpLayer, Model,
    MoeLayer,
};
use serde_json::{Map, Value};

/// The architectures this version models, as `config.json` names them.
pub const SUPPORTED_ARCHITECTURES: [&str; 16] = [
    "LlamaForCausalLM",
    "MistralForCausalLM",
    "Qwen2ForCausalLM",
    "Qwen3ForCausalLM",
    "Qwen3MoeForCausalLM",
    "MixtralForCausalLM",
    "Gemma2ForCausalLM",
    "Gemma3ForCausalLM",
    "Gemma3ForConditionalGeneration",
    "GptOssForCausalLM",
    "NemotronHForCausalLM",
    "GraniteMoeHybridForCausalLM",
    "FalconH1ForCausalLM",
    "JambaForCausalLM",
    "Qwen3NextForCausalLM",
    "DeepseekV3ForCausalLM",
];

/// The largest value any config.json field may hold (64 M: above every
/// published vocabulary, context length and dimension).
pub const MAX_FIELD: u64 = 1 << 26;

/// The most layers a model may have.
pub const MAX_LAYERS: u64 = 4096;

/// The most parameters a model may have (10^15), and the most bytes one
/// layer's recurrent state or one token's KV in a layer may take (1 TiB).
pub const MAX_PARAMS: u128 = 1_000_000_000_000_000;
pub const MAX_LAYER_BYTES: u128 = 1 << 40;

/// Typed access to config.json fields; errors name the field.
struct Cfg<'a>(&'a Map<String, Value>);

impl Cfg<'_> {
    fn get(&self, k: &str) -> Option<&Value> {
        self.0.get(k).filter(|v| !v.is_null())
    }

    fn opt(&self, k: &str) -> Result<Option<u64>> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| Error::field(k, v, "a non-negative whole number")),
        }
    }

    fn u(&self, k: &str) -> Result<u64> {
        match self.opt(k)? {
            Some(0) => Err(Error::field(k, 0, "a positive whole number")),
            Some(v) => Ok(v),
            None => Err(Error::new(format!("missing field `{k}`"))
                .with_hint("config.json of this architecture must set it")),
        }
    }

    fn u_or(&self, k: &str, default: u64) -> Result<u64> {
        Ok(self.opt(k)?.unwrap_or(default))
    }

    fn first(&self, keys: &[&str]) -> Result<u64> {
        for k in keys {
            if self.get(k).is_some() {
                return self.u(k);
            }
        }
        Err(
            Error::new(format!("missing field `{}`", keys.join("` or `")))
                .with_hint("config.json of this architecture must set one of them"),
        )
    }

    fn b_or(&self, k: &str, default: bool) -> bool {
        self.get(k).and_then(Value::as_bool).unwrap_or(default)
    }

    fn s(&self, k: &str) -> Option<&str> {
        self.get(k).and_then(Value::as_str)
    }

    fn strings(&self, k: &str) -> Option<Vec<String>> {
        self.get(k)?.as_array().map(|a| {
            a.iter()
                .map(|x| x.as_str().unwrap_or_default().to_string())
                .collect()
        })
    }

    fn numbers(&self, k: &str) -> Vec<u64> {
        self.get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default()
    }
}

/// Whether layer `i` uses a sliding window, from `layer_types` when the
/// config has it, else the architecture's rule.
fn sliding(types: &Option<Vec<String>>, i: u64, rule: impl Fn(u64) -> bool) -> bool {
    match types {
        Some(t) => t
            .get(usize::try_from(i).unwrap_or(usize::MAX))
            .is_some_and(|s| s == "sliding_attention"),
        None => rule(i),
    }
}

/// Build a model from config.json fields.
pub fn model_from_config(root: &Value) -> Result<Model> {
    let top = root
        .as_object()
        .ok_or_else(|| Error::new("config.json is not a JSON object"))?;
    let arch = match top
        .get("architectures")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([one]) => one.as_str().unwrap_or_default().to_string(),
        Some([]) | None => {
            return Err(
                Error::new("missing field `architectures`").with_hint(format!(
                    "set architectures = [\"...\"], one of {}",
                    SUPPORTED_ARCHITECTURES.join(", ")
                )),
            )
        }
        Some(many) => {
            return Err(Error::field(
                "architectures",
                format!("{many:?}"),
                "exactly one architecture name",
            ))
        }
    };
    if !SUPPORTED_ARCHITECTURES.contains(&arch.as_str()) {
        return Err(Error::new(format!("unknown model architecture `{arch}`"))
            .with_hint(format!("supported: {}", SUPPORTED_ARCHITECTURES.join(", "))));
    }
    // Multimodal wrappers keep the language model under text_config.
    let inner = top
        .get("text_config")
        .and_then(Value::as_object)
        .filter(|_| top.get("hidden_size").is_none())
        .unwrap_or(top);
    let c = Cfg(inner);
    let hidden = c.u("hidden_size")?;
    let vocab = c.u("vocab_size")?;
    let max_pos = c.u("max_position_embeddings")?;
    let dtype = match c
        .s("torch_dtype")
        .or(c.s("dtype"))
        .or(Cfg(top).s("torch_dtype"))
    {
        Some(t) => FloatDtype::parse("torch_dtype", t)?,
        None => FloatDtype::Bfloat16,
    };
    let n_layers = c.u("num_hidden_layers")?;
    if n_layers > MAX_LAYERS {
        return Err(Error::field(
            "num_hidden_layers",
            n_layers,
            format!("at most {MAX_LAYERS} layers"),
        ));
    }
    let heads = c.u("num_attention_heads")?;
    let kv_heads = c.u_or("num_key_value_heads", heads)?;
    if kv_heads == 0 || heads % kv_heads != 0 {
        return Err(Error::field(
            "num_key_value_heads",
            kv_heads,
            format!("a divisor of num_attention_heads ({heads})"),
        ));
    }
    let head_dim = match c.opt("head_dim")? {
        Some(d) if d > 0 => d,
        _ if hidden % heads == 0 => hidden / heads,
        _ => {
            return Err(Error::new("missing field `head_dim`")
                .with_hint("hidden_size is not a multiple of num_attention_heads"))
        }
    };
    let window = c.opt("sliding_window")?;
    let types = c.strings("layer_types");
    let attn_of =
        |sliding_window_tokens: Option<u64>, qkv_bias: bool, qk_norm: bool| AttentionLayer {
            num_heads: heads,
            num_kv_heads: kv_heads,
            head_dim,
            sliding_window_tokens,
            qkv_bias,
            qk_norm,
            output_gate: false,
            mla: None,
        };
    let attn = |w: Option<u64>, qkv_bias: bool, qk_norm: bool| {
        Layer::Attention(attn_of(w, qkv_bias, qk_norm))
    };
    let gated_mlp = |intermediate: u64| {
        Layer::Mlp(MlpLayer {
            intermediate,
            gated: true,
        })
    };
    let mut layers = Vec::new();
    let mut ssm_auto = dtype;
    match arch.as_str() {
        "LlamaForCausalLM" | "MistralForCausalLM" | "Qwen2ForCausalLM" | "Qwen3ForCausalLM" => {
            let inter = c.u("intermediate_size")?;
            let qkv_bias = arch == "Qwen2ForCausalLM" || c.b_or("attention_bias", false);
            let qk_norm = arch == "Qwen3ForCausalLM";
            // Mistral applies its window to every layer; Qwen2 only with use_sliding_window.
            let w = match arch.as_str() {
                "MistralForCausalLM" => window,
                "Qwen2ForCausalLM" | "Qwen3ForCausalLM" if c.b_or("use_sliding_window", false) => {
                    window
                }
                _ => None,
            };
            for _ in 0..n_layers {
                layers.push(attn(w, qkv_bias, qk_norm));
                layers.push(gated_mlp(inter));
            }
        }
        "Gemma2ForCausalLM" | "Gemma3ForCausalLM" | "Gemma3ForConditionalGeneration" => {
            let inter = c.u("intermediate_size")?;
            let w = c.u("sliding_window")?;
            let gemma3 = arch != "Gemma2ForCausalLM";
            // Gemma 2: every other layer (even ones) local; Gemma 3: five local
            // to one global (sliding_window_pattern 6).
            let pattern = c.u_or("sliding_window_pattern", 6)?.max(1);
            for i in 0..n_layers {
                let local = sliding(&types, i, |i| {
                    if gemma3 {
                        (i + 1) % pattern != 0
                    } else {
                        i % 2 == 0
                    }
                });
                layers.push(attn(local.then_some(w), false, gemma3));
                layers.push(gated_mlp(inter));
            }
        }
        "Qwen3MoeForCausalLM" | "MixtralForCausalLM" => {
            let qwen = arch == "Qwen3MoeForCausalLM";
            let experts = c.first(&["num_experts", "num_local_experts"])?;
            let top_k = c.u("num_experts_per_tok")?;
            let expert_inter = if qwen {
                c.u("moe_intermediate_size")?
            } else {
                c.u("intermediate_size")?
            };
            let step = c.u_or("decoder_sparse_step", 1)?.max(1);
            let dense_layers = c.numbers("mlp_only_layers");
            for i in 0..n_layers {
                layers.push(attn(if qwen { None } else { window }, false, qwen));
                if dense_layers.contains(&i) || (i + 1) % step != 0 {
                    layers.push(gated_mlp(c.u("intermediate_size")?));
                } else {
                    layers.push(Layer::Moe(MoeLayer {
                        num_experts: experts,
                        top_k,
                        expert_intermediate: expert_inter,
                        shared_intermediate: 0,
                        gated: true,
                    }));
                }
            }
        }
        "GptOssForCausalLM" => {
            let w = c.u("sliding_window")?;
            let moe = MoeLayer {
                num_experts: c.first(&["num_local_experts", "num_experts"])?,
                top_k: c.first(&["num_experts_per_tok", "experts_per_token"])?,
                expert_intermediate: c.u("intermediate_size")?,
                shared_intermediate: 0,
                gated: true,
            };
            for i in 0..n_layers {
                let local = sliding(&types, i, |i| i % 2 == 0);
                layers.push(attn(local.then_some(w), true, false));
                layers.push(Layer::Moe(moe));
            }
        }
        "NemotronHForCausalLM" => {
            let pattern = c
                .s("hybrid_override_pattern")
                .ok_or_else(|| Error::new("missing field `hybrid_override_pattern`"))?;
            if pattern.chars().count() as u64 != n_layers {
                return Err(Error::field(
                    "hybrid_override_pattern",
                    pattern,
                    format!("{n_layers} characters, one per layer (num_hidden_layers)"),
                ));
            }
            let mamba = Mamba2Layer {
                num_heads: c.u("mamba_num_heads")?,
                head_dim: c.u("mamba_head_dim")?,
                state_size: c.u("ssm_state_size")?,
                n_groups: c.u("n_groups")?,
                conv_kernel: c.u("conv_kernel")?,
            };
            let inter = c.u("intermediate_size")?;
            for ch in pattern.chars() {
                layers.push(match ch {
                    'M' => Layer::Mamba2(mamba),
                    '*' => attn(None, c.b_or("attention_bias", false), false),
                    '-' => Layer::Mlp(MlpLayer {
                        intermediate: inter,
                        gated: false,
                    }),
                    other => return Err(Error::field(
                        "hybrid_override_pattern",
                        other,
                        "M (Mamba2), * (attention) or - (MLP); MoE layers (E) are not modelled yet",
                    )),
                });
            }
            // NemotronH keeps its SSM state in float32 under `auto`
            // (../shared/reference/vllm-memory-model.md section 4).
            ssm_auto = FloatDtype::Float32;
        }
        "GraniteMoeHybridForCausalLM" => {
            // layer_types: "mamba" or "attention" per layer; every layer has
            // an MoE block with a shared expert (or a dense MLP without experts).
            let t = types.clone().ok_or_else(|| {
                Error::new("missing field `layer_types`")
                    .with_hint("GraniteMoeHybrid configs list \"mamba\" or \"attention\" per layer")
            })?;
            if t.len() as u64 != n_layers {
                return Err(Error::field(
                    "layer_types",
                    t.len(),
                    format!("{n_layers} entries, one per layer (num_hidden_layers)"),
                ));
            }
            let heads_m = c.u("mamba_n_heads")?;
            let expand = c.u_or("mamba_expand", 2)?;
            let mamba = Mamba2Layer {
                num_heads: heads_m,
                head_dim: c.u_or("mamba_d_head", expand * hidden / heads_m.max(1))?,
                state_size: c.u("mamba_d_state")?,
                n_groups: c.u_or("mamba_n_groups", 1)?,
                conv_kernel: c.u_or("mamba_d_conv", 4)?,
            };
            let experts = c.u_or("num_local_experts", 0)?;
            let inter = c.u("intermediate_size")?;
            let shared = c.u_or("shared_intermediate_size", 0)?;
            for kind in &t {
                layers.push(match kind.as_str() {
                    "mamba" => Layer::Mamba2(mamba),
                    "attention" => attn(None, c.b_or("attention_bias", false), false),
                    other => {
                        return Err(Error::field(
                            "layer_types",
                            other,
                            "\"mamba\" or \"attention\"",
                        ))
                    }
                });
                layers.push(if experts > 0 {
                    Layer::Moe(MoeLayer {
                        num_experts: experts,
                        top_k: c.u("num_experts_per_tok")?,
                        expert_intermediate: inter,
                        shared_intermediate: shared,
                        gated: true,
                    })
                } else {
                    gated_mlp(shared.max(inter))
                });
            }
        }
        "FalconH1ForCausalLM" => {
            // Every layer runs attention and a Mamba2 mixer side by side,
            // then a gated MLP; the Mamba width is its own (mamba_d_ssm).
            let heads_m = c.u("mamba_n_heads")?;
            let d_ssm = c.u_or("mamba_d_ssm", c.u_or("mamba_expand", 2)? * hidden)?;
            let mamba = Mamba2Layer {
                num_heads: heads_m,
                head_dim: match c.get("mamba_d_head") {
                    Some(Value::String(s)) if s == "auto" => d_ssm / heads_m.max(1),
                    _ => c.u_or("mamba_d_head", d_ssm / heads_m.max(1))?,
                },
                state_size: c.u("mamba_d_state")?,
                n_groups: c.u_or("mamba_n_groups", 1)?,
                conv_kernel: c.u_or("mamba_d_conv", 4)?,
            };
            let inter = c.u("intermediate_size")?;
            for _ in 0..n_layers {
                layers.push(attn(None, c.b_or("attention_bias", false), false));
                layers.push(Layer::Mamba2(mamba));
                layers.push(gated_mlp(inter));
            }
        }
        "JambaForCausalLM" => {
            let period = c.u("attn_layer_period")?;
            let offset = c.u_or("attn_layer_offset", 0)?;
            let e_period = c.u_or("expert_layer_period", 1)?.max(1);
            let e_offset = c.u_or("expert_layer_offset", 0)?;
            let experts = c.u_or("num_experts", 1)?;
            let inter = c.u("intermediate_size")?;
            let dt_rank = match c.get("mamba_dt_rank") {
                Some(Value::String(s)) if s == "auto" => hidden.div_ceil(16),
                _ => c.u("mamba_dt_rank")?,
            };
            let mamba = Mamba1Layer {
                intermediate: c.u_or("mamba_expand", 2)? * hidden,
                state_size: c.u("mamba_d_state")?,
                conv_kernel: c.u("mamba_d_conv")?,
                dt_rank,
            };
            for i in 0..n_layers {
                layers.push(if i % period == offset {
                    attn(None, false, false)
                } else {
                    Layer::Mamba1(mamba)
                });
                layers.push(if experts > 1 && i % e_period == e_offset {
                    Layer::Moe(MoeLayer {
                        num_experts: experts,
                        top_k: c.u("num_experts_per_tok")?,
                        expert_intermediate: inter,
                        shared_intermediate: 0,
                        gated: true,
                    })
                } else {
                    gated_mlp(inter)
                });
            }
        }
        "Qwen3NextForCausalLM" => {
            let interval = c.u_or("full_attention_interval", 4)?.max(1);
            let delta = DeltaNetLayer {
                key_heads: c.u("linear_num_key_heads")?,
                value_heads: c.u("linear_num_value_heads")?,
                key_head_dim: c.u("linear_key_head_dim")?,
                value_head_dim: c.u("linear_value_head_dim")?,
                conv_kernel: c.u("linear_conv_kernel_dim")?,
            };
            let moe = MoeLayer {
                num_experts: c.u("num_experts")?,
                top_k: c.u("num_experts_per_tok")?,
                expert_intermediate: c.u("moe_intermediate_size")?,
                shared_intermediate: c.u_or("shared_expert_intermediate_size", 0)?,
                gated: true,
            };
            for i in 0..n_layers {
                let full = match &types {
                    Some(t) => t
                        .get(usize::try_from(i).unwrap_or(usize::MAX))
                        .is_some_and(|s| s == "full_attention"),
                    None => (i + 1) % interval == 0,
                };
                layers.push(if full {
                    Layer::Attention(AttentionLayer {
                        output_gate: true,
                        ..attn_of(None, false, true)
                    })
                } else {
                    Layer::DeltaNet(delta)
                });
                layers.push(Layer::Moe(moe));
            }
        }
        "DeepseekV3ForCausalLM" => {
            let mla = MlaDims {
                q_lora_rank: c.opt("q_lora_rank")?,
                kv_lora_rank: c.u("kv_lora_rank")?,
                qk_nope_head_dim: c.u("qk_nope_head_dim")?,
                qk_rope_head_dim: c.u("qk_rope_head_dim")?,
                v_head_dim: c.u("v_head_dim")?,
            };
            let dense = c.u_or("first_k_dense_replace", 0)?;
            let moe_inter = c.u("moe_intermediate_size")?;
            let moe = MoeLayer {
                num_experts: c.u("n_routed_experts")?,
                top_k: c.u("num_experts_per_tok")?,
                expert_intermediate: moe_inter,
                shared_intermediate: c.u_or("n_shared_experts", 0)? * moe_inter,
                gated: true,
            };
            for i in 0..n_layers {
                layers.push(Layer::Attention(AttentionLayer {
                    num_heads: heads,
                    num_kv_heads: 1,
                    head_dim: mla.kv_lora_rank + mla.qk_rope_head_dim,
                    sliding_window_tokens: None,
                    qkv_bias: false,
                    qk_norm: false,
                    output_gate: false,
                    mla: Some(mla),
                }));
                layers.push(if i < dense {
                    gated_mlp(c.u("intermediate_size")?)
                } else {
                    Layer::Moe(moe)
                });
            }
        }
        other => {
            return Err(Error::new(format!("unknown model architecture `{other}`"))
                .with_hint(format!("supported: {}", SUPPORTED_ARCHITECTURES.join(", "))))
        }
    }
    // A config that names its SSM cache dtype decides `auto` (vLLM reads it).
    if let Some(t) = c.s("mamba_ssm_cache_dtype") {
        ssm_auto = FloatDtype::parse("mamba_ssm_cache_dtype", t)?;
    }
    let tie = c.b_or("tie_word_embeddings", arch.starts_with("Gemma"));
    check_size(&layers, hidden, vocab)?;
    Ok(Model {
        architecture: arch,
        hidden_size: hidden,
        vocab_size: vocab,
        tie_word_embeddings: tie,
        dtype,
        max_position_embeddings: max_pos,
        layers,
        mamba_ssm_auto_dtype: ssm_auto,
    })
}

/// Reject a model whose parameter count or per-layer state would overflow
/// the calculator's 64-bit arithmetic (computed in 128 bits here).
fn check_size(layers: &[Layer], hidden: u64, vocab: u64) -> Result<()> {
    let too_big = |what: &str| {
        Error::new(format!("the model is implausibly large: {what}"))
            .with_hint("check the config.json's dimensions (hidden_size, heads, experts, layers)")
    };
    let h = u128::from(hidden);
    let mut params: u128 = 2 * u128::from(vocab) * h;
    for l in layers {
        let per: u128 = match l {
            Layer::Attention(a) => {
                4 * u128::from(a.num_heads.max(a.num_kv_heads)) * u128::from(a.head_dim.max(1)) * h
                    + a.mla.map_or(0, |m| {
                        u128::from(m.kv_lora_rank + m.qk_rope_head_dim + m.q_lora_rank.unwrap_or(0))
                            * (h + u128::from(a.num_heads)
                                * u128::from(
                                    m.qk_nope_head_dim + m.v_head_dim + m.qk_rope_head_dim,
                                ))
                    })
            }
            Layer::Mamba2(m) => 3 * u128::from(m.num_heads) * u128::from(m.head_dim) * h,
            Layer::Mamba1(m) => {
                4 * u128::from(m.intermediate) * (h + u128::from(m.state_size + m.dt_rank))
            }
            Layer::DeltaNet(d) => 4 * u128::from(d.key_dim().max(d.value_dim())) * h,
            Layer::Mlp(f) => 3 * u128::from(f.intermediate) * h,
            Layer::Moe(e) => {
                3 * (u128::from(e.num_experts) * u128::from(e.expert_intermediate)
                    + u128::from(e.shared_intermediate))
                    * h
            }
        };
        params = params.saturating_add(per);
        if let Some(st) = l.state() {
            let bytes = (u128::from(st.conv_elems) + u128::from(st.ssm_elems)) * 4;
            if bytes > MAX_LAYER_BYTES {
                return Err(too_big("a recurrent layer's state exceeds 1 TiB"));
            }
        }
        if let Layer::Attention(a) = l {
            let per_token = u128::from(a.num_kv_heads) * u128::from(a.head_dim) * 8;
            if per_token > MAX_LAYER_BYTES {
                return Err(too_big("one token's KV in a layer exceeds 1 TiB"));
            }
        }
    }
    if params > MAX_PARAMS {
        return Err(too_big("more than 10^15 parameters"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_architecture_lists_supported() {
        let err = model_from_config(&json!({"architectures": ["FooForCausalLM"]})).unwrap_err();
        assert!(err.message.contains("FooForCausalLM"));
        assert!(err.hint.unwrap().contains("NemotronHForCausalLM"));
    }

    #[test]
    fn missing_and_bad_fields_are_named() {
        let err = model_from_config(&json!({"architectures": ["LlamaForCausalLM"]})).unwrap_err();
        assert!(err.message.contains("hidden_size"), "{err}");
        let err = model_from_config(&json!({
            "architectures": ["LlamaForCausalLM"], "hidden_size": -4096
        }))
        .unwrap_err();
        assert!(err.message.contains("hidden_size"), "{err}");
        let err = model_from_config(&json!([1, 2])).unwrap_err();
        assert!(err.message.contains("not a JSON object"), "{err}");
    }
}
