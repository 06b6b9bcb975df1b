//! A model as vLLM sees it: a list of layers (attention, Mamba2, MLP) with
//! their dimensions, built from the fields of a Hugging Face `config.json`.
//!
//! Layer dimensions and parameter counts follow the published configs in
//! ../shared/reference/models-and-gpus.md; the Nemotron-H split (Mamba in+out
//! projection 168.4 M per layer, attention 62.9 M, MLP 209.7 M) is checked in
//! the tests below.

use crate::dtype::FloatDtype;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The fields of a Hugging Face `config.json` that decodecalc reads. Unknown
/// fields are ignored (a real config.json has many); missing required ones are
/// an error naming the field.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct ModelConfig {
    #[serde(default)]
    pub architectures: Vec<String>,
    pub hidden_size: Option<u64>,
    pub num_hidden_layers: Option<u64>,
    pub num_attention_heads: Option<u64>,
    pub num_key_value_heads: Option<u64>,
    pub head_dim: Option<u64>,
    pub intermediate_size: Option<u64>,
    pub vocab_size: Option<u64>,
    #[serde(default)]
    pub tie_word_embeddings: bool,
    pub max_position_embeddings: Option<u64>,
    pub torch_dtype: Option<String>,
    #[serde(default)]
    pub attention_bias: bool,
    // Nemotron-H (hybrid Mamba2).
    pub hybrid_override_pattern: Option<String>,
    pub mamba_num_heads: Option<u64>,
    pub mamba_head_dim: Option<u64>,
    pub ssm_state_size: Option<u64>,
    pub n_groups: Option<u64>,
    pub conv_kernel: Option<u64>,
    pub expand: Option<u64>,
}

/// One attention layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AttentionLayer {
    pub num_heads: u64,
    pub num_kv_heads: u64,
    pub head_dim: u64,
    /// `None` for full attention.
    pub sliding_window_tokens: Option<u64>,
    pub qkv_bias: bool,
    pub qk_norm: bool,
}

/// One Mamba2 mixer layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mamba2Layer {
    pub num_heads: u64,
    pub head_dim: u64,
    pub state_size: u64,
    pub n_groups: u64,
    pub conv_kernel: u64,
}

impl Mamba2Layer {
    /// `mamba_num_heads * mamba_head_dim` (reference doc section 5).
    pub fn intermediate(&self) -> u64 {
        self.num_heads * self.head_dim
    }

    /// `intermediate + 2 * n_groups * ssm_state_size`.
    pub fn conv_dim(&self) -> u64 {
        self.intermediate() + 2 * self.n_groups * self.state_size
    }

    /// Conv state elements: `conv_dim * (conv_kernel - 1)`.
    pub fn conv_state_elems(&self) -> u64 {
        self.conv_dim() * self.conv_kernel.saturating_sub(1)
    }

    /// SSM state elements: `heads * head_dim * state_size`.
    pub fn ssm_state_elems(&self) -> u64 {
        self.num_heads * self.head_dim * self.state_size
    }

    /// Output width of `in_proj`: z and x (2 x intermediate), B and C
    /// (2 x n_groups x state), dt (one per head).
    pub fn in_proj_out(&self) -> u64 {
        2 * self.intermediate() + 2 * self.n_groups * self.state_size + self.num_heads
    }
}

/// One feed-forward layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MlpLayer {
    pub intermediate: u64,
    /// SwiGLU-style gate (gate + up + down) or not (up + down, as Nemotron-H's ReLU^2).
    pub gated: bool,
}

/// A mixture-of-experts feed-forward layer: all experts live in memory,
/// `top_k` of them run per token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MoeLayer {
    pub num_experts: u64,
    pub top_k: u64,
    pub expert_intermediate: u64,
    /// Intermediate size of an always-on shared expert (0 when there is none).
    pub shared_intermediate: u64,
    pub gated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Layer {
    Attention(AttentionLayer),
    Mamba2(Mamba2Layer),
    Mlp(MlpLayer),
    Moe(MoeLayer),
}

/// Which module a weight tensor belongs to, for quantization decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModuleKind {
    Embedding,
    LmHead,
    /// A linear layer inside an attention block.
    AttentionLinear,
    /// A linear layer inside a Mamba mixer (in_proj, out_proj).
    MambaLinear,
    /// A linear layer inside an MLP (or a shared expert).
    MlpLinear,
    /// A routed expert's linear layer.
    ExpertLinear,
    /// Norms, biases, conv1d, A/D/dt: never quantized.
    Other,
}

/// One weight tensor (or a set of identical ones), `in_features x out_features`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Module {
    pub name: &'static str,
    pub kind: ModuleKind,
    pub in_features: u64,
    pub out_features: u64,
    /// How many layers carry this exact module.
    pub count: u64,
}

impl Module {
    pub fn params(&self) -> u64 {
        self.in_features * self.out_features * self.count
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Model {
    pub architecture: String,
    pub hidden_size: u64,
    pub vocab_size: u64,
    pub tie_word_embeddings: bool,
    pub dtype: FloatDtype,
    pub max_position_embeddings: u64,
    pub layers: Vec<Layer>,
    /// What `--mamba-ssm-cache-dtype auto` resolves to for this architecture.
    pub mamba_ssm_auto_dtype: FloatDtype,
}

/// The architectures this version models, as `config.json` names them.
pub const SUPPORTED_ARCHITECTURES: [&str; 5] = [
    "NemotronHForCausalLM",
    "LlamaForCausalLM",
    "MistralForCausalLM",
    "Qwen2ForCausalLM",
    "Qwen3ForCausalLM",
];

fn need(field: &'static str, value: Option<u64>) -> Result<u64> {
    match value {
        Some(0) => Err(Error::field(field, 0, "a positive whole number")),
        Some(v) => Ok(v),
        None => Err(Error::new(format!("missing field `{field}`"))
            .with_hint("config.json of this architecture must set it")),
    }
}

/// Add `n` copies of a weight tensor, merging with an identical entry.
fn add(
    out: &mut Vec<Module>,
    n: u64,
    name: &'static str,
    kind: ModuleKind,
    in_features: u64,
    out_features: u64,
) {
    let same = |m: &&mut Module| {
        m.name == name
            && m.kind == kind
            && m.in_features == in_features
            && m.out_features == out_features
    };
    match out.iter_mut().find(same) {
        Some(m) => m.count += n,
        None => out.push(Module {
            name,
            kind,
            in_features,
            out_features,
            count: n,
        }),
    }
}

impl Model {
    /// Build the layer list from config.json fields.
    pub fn from_config(cfg: &ModelConfig) -> Result<Model> {
        let arch = match cfg.architectures.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err(
                    Error::new("missing field `architectures`").with_hint(format!(
                        "set architectures = [\"...\"], one of {}",
                        SUPPORTED_ARCHITECTURES.join(", ")
                    )),
                )
            }
            many => {
                return Err(Error::field(
                    "architectures",
                    format!("{many:?}"),
                    "exactly one architecture name",
                ))
            }
        };
        let hidden = need("hidden_size", cfg.hidden_size)?;
        let vocab = need("vocab_size", cfg.vocab_size)?;
        let max_pos = need("max_position_embeddings", cfg.max_position_embeddings)?;
        let dtype = match &cfg.torch_dtype {
            Some(t) => FloatDtype::parse("torch_dtype", t)?,
            None => FloatDtype::Bfloat16,
        };
        let heads = need("num_attention_heads", cfg.num_attention_heads)?;
        let kv_heads = need(
            "num_key_value_heads",
            cfg.num_key_value_heads.or(cfg.num_attention_heads),
        )?;
        if heads % kv_heads != 0 {
            return Err(Error::field(
                "num_key_value_heads",
                kv_heads,
                format!("a divisor of num_attention_heads ({heads})"),
            ));
        }
        let head_dim = match cfg.head_dim {
            Some(d) => need("head_dim", Some(d))?,
            None if hidden % heads == 0 => hidden / heads,
            None => {
                return Err(Error::new("missing field `head_dim`")
                    .with_hint("hidden_size is not a multiple of num_attention_heads"))
            }
        };
        let attention = |qkv_bias: bool, qk_norm: bool| {
            Layer::Attention(AttentionLayer {
                num_heads: heads,
                num_kv_heads: kv_heads,
                head_dim,
                sliding_window_tokens: None,
                qkv_bias,
                qk_norm,
            })
        };
        let intermediate = need("intermediate_size", cfg.intermediate_size)?;
        let (layers, ssm_auto) = match arch.as_str() {
            "NemotronHForCausalLM" => {
                let pattern = cfg
                    .hybrid_override_pattern
                    .as_deref()
                    .ok_or_else(|| Error::new("missing field `hybrid_override_pattern`"))?;
                let n_layers = need("num_hidden_layers", cfg.num_hidden_layers)?;
                if pattern.chars().count() as u64 != n_layers {
                    return Err(Error::field(
                        "hybrid_override_pattern",
                        pattern,
                        format!("{n_layers} characters, one per layer (num_hidden_layers)"),
                    ));
                }
                let mamba = Mamba2Layer {
                    num_heads: need("mamba_num_heads", cfg.mamba_num_heads)?,
                    head_dim: need("mamba_head_dim", cfg.mamba_head_dim)?,
                    state_size: need("ssm_state_size", cfg.ssm_state_size)?,
                    n_groups: need("n_groups", cfg.n_groups)?,
                    conv_kernel: need("conv_kernel", cfg.conv_kernel)?,
                };
                let mut layers = Vec::with_capacity(pattern.len());
                for c in pattern.chars() {
                    layers.push(match c {
                        'M' => Layer::Mamba2(mamba),
                        '*' => attention(cfg.attention_bias, false),
                        '-' => Layer::Mlp(MlpLayer {
                            intermediate,
                            gated: false,
                        }),
                        other => {
                            return Err(Error::field(
                                "hybrid_override_pattern",
                                other,
                                "M (Mamba2), * (attention) or - (MLP); MoE layers (E) are not modelled yet",
                            ))
                        }
                    });
                }
                // NemotronH keeps its SSM state in float32 under `auto`
                // (../shared/reference/vllm-memory-model.md section 4).
                (layers, FloatDtype::Float32)
            }
            "LlamaForCausalLM" | "MistralForCausalLM" | "Qwen2ForCausalLM" | "Qwen3ForCausalLM" => {
                let n_layers = need("num_hidden_layers", cfg.num_hidden_layers)?;
                let qkv_bias = arch == "Qwen2ForCausalLM" || cfg.attention_bias;
                let qk_norm = arch == "Qwen3ForCausalLM";
                let mut layers = Vec::new();
                for _ in 0..n_layers {
                    layers.push(attention(qkv_bias, qk_norm));
                    layers.push(Layer::Mlp(MlpLayer {
                        intermediate,
                        gated: true,
                    }));
                }
                (layers, dtype)
            }
            other => {
                return Err(Error::new(format!("unknown model architecture `{other}`"))
                    .with_hint(format!("supported: {}", SUPPORTED_ARCHITECTURES.join(", "))))
            }
        };
        Ok(Model {
            architecture: arch,
            hidden_size: hidden,
            vocab_size: vocab,
            tie_word_embeddings: cfg.tie_word_embeddings,
            dtype,
            max_position_embeddings: max_pos,
            layers,
            mamba_ssm_auto_dtype: ssm_auto,
        })
    }

    pub fn attention_layers(&self) -> impl Iterator<Item = &AttentionLayer> {
        self.layers.iter().filter_map(|l| match l {
            Layer::Attention(a) => Some(a),
            _ => None,
        })
    }

    pub fn mamba_layers(&self) -> impl Iterator<Item = &Mamba2Layer> {
        self.layers.iter().filter_map(|l| match l {
            Layer::Mamba2(m) => Some(m),
            _ => None,
        })
    }

    pub fn is_hybrid(&self) -> bool {
        self.mamba_layers().next().is_some()
    }

    /// Every weight tensor, grouped where layers repeat. Norm weights, biases and
    /// Mamba's conv1d, A, D and dt_bias are `Other` (kept at the model dtype).
    pub fn modules(&self) -> Vec<Module> {
        let h = self.hidden_size;
        let mut out: Vec<Module> = Vec::new();
        let o = &mut out;
        add(
            o,
            1,
            "embed_tokens",
            ModuleKind::Embedding,
            self.vocab_size,
            h,
        );
        for layer in &self.layers {
            match layer {
                Layer::Attention(a) => {
                    let q = a.num_heads * a.head_dim;
                    let kv = a.num_kv_heads * a.head_dim;
                    add(o, 1, "q_proj", ModuleKind::AttentionLinear, h, q);
                    add(o, 1, "k_proj", ModuleKind::AttentionLinear, h, kv);
                    add(o, 1, "v_proj", ModuleKind::AttentionLinear, h, kv);
                    add(o, 1, "o_proj", ModuleKind::AttentionLinear, q, h);
                    add(o, 1, "input_norm", ModuleKind::Other, 1, h);
                    if a.qkv_bias {
                        add(o, 1, "qkv_bias", ModuleKind::Other, 1, q + 2 * kv);
                    }
                    if a.qk_norm {
                        add(o, 1, "qk_norm", ModuleKind::Other, 1, 2 * a.head_dim);
                    }
                }
                Layer::Mamba2(m) => {
                    add(o, 1, "in_proj", ModuleKind::MambaLinear, h, m.in_proj_out());
                    add(
                        o,
                        1,
                        "out_proj",
                        ModuleKind::MambaLinear,
                        m.intermediate(),
                        h,
                    );
                    // conv1d weight (conv_dim x kernel) and bias (conv_dim).
                    add(
                        o,
                        1,
                        "conv1d",
                        ModuleKind::Other,
                        m.conv_kernel + 1,
                        m.conv_dim(),
                    );
                    // A_log, D, dt_bias: one value per head each.
                    add(o, 1, "a_d_dt", ModuleKind::Other, 3, m.num_heads);
                    add(o, 1, "mixer_norm", ModuleKind::Other, 1, m.intermediate());
                    add(o, 1, "input_norm", ModuleKind::Other, 1, h);
                }
                Layer::Mlp(f) => {
                    if f.gated {
                        add(o, 1, "gate_proj", ModuleKind::MlpLinear, h, f.intermediate);
                    }
                    add(o, 1, "up_proj", ModuleKind::MlpLinear, h, f.intermediate);
                    add(o, 1, "down_proj", ModuleKind::MlpLinear, f.intermediate, h);
                    add(o, 1, "input_norm", ModuleKind::Other, 1, h);
                }
                Layer::Moe(e) => {
                    let (n, i) = (e.num_experts, e.expert_intermediate);
                    add(o, 1, "router", ModuleKind::Other, h, n);
                    if e.gated {
                        add(o, n, "expert_gate_proj", ModuleKind::ExpertLinear, h, i);
                    }
                    add(o, n, "expert_up_proj", ModuleKind::ExpertLinear, h, i);
                    add(o, n, "expert_down_proj", ModuleKind::ExpertLinear, i, h);
                    let s = e.shared_intermediate;
                    if s > 0 {
                        if e.gated {
                            add(o, 1, "shared_gate_proj", ModuleKind::MlpLinear, h, s);
                        }
                        add(o, 1, "shared_up_proj", ModuleKind::MlpLinear, h, s);
                        add(o, 1, "shared_down_proj", ModuleKind::MlpLinear, s, h);
                    }
                    add(o, 1, "input_norm", ModuleKind::Other, 1, h);
                }
            }
        }
        add(o, 1, "final_norm", ModuleKind::Other, 1, h);
        if !self.tie_word_embeddings {
            add(o, 1, "lm_head", ModuleKind::LmHead, h, self.vocab_size);
        }
        out
    }

    /// Total parameters, embedding and (untied) lm_head included.
    pub fn params(&self) -> u64 {
        self.modules().iter().map(Module::params).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn nemotron_nano_12b_v2_layers_and_params() {
        let model = presets::model("nemotron-nano-12b-v2").unwrap().model;
        assert_eq!(model.layers.len(), 62);
        assert_eq!(model.mamba_layers().count(), 28);
        assert_eq!(model.attention_layers().count(), 6);
        let m = *model.mamba_layers().next().unwrap();
        assert_eq!(m.conv_dim(), 12_288);
        assert_eq!(m.conv_state_elems(), 36_864);
        assert_eq!(m.ssm_state_elems(), 1_310_720);
        let mods = model.modules();
        let per_layer = |names: &[&str]| -> u64 {
            mods.iter()
                .filter(|m| names.contains(&m.name))
                .map(|m| m.in_features * m.out_features)
                .sum()
        };
        // Reference split: Mamba in+out 168.4 M, attention 62.9 M, MLP 209.7 M per layer.
        assert_eq!(per_layer(&["in_proj", "out_proj"]), 168_427_520);
        assert_eq!(
            per_layer(&["q_proj", "k_proj", "v_proj", "o_proj"]),
            62_914_560
        );
        assert_eq!(per_layer(&["up_proj", "down_proj"]), 209_715_200);
        // Model card: 12.31 B parameters.
        let params = model.params() as f64;
        assert!((params / 12.31e9 - 1.0).abs() < 0.002, "{params}");
    }

    #[test]
    fn llama_3_1_8b_params_match_published() {
        let model = presets::model("llama-3.1-8b").unwrap().model;
        // Published: 8.03 B parameters.
        let params = model.params() as f64;
        assert!((params / 8.03e9 - 1.0).abs() < 0.002, "{params}");
        assert!(!model.is_hybrid());
    }

    #[test]
    fn moe_layers_hold_every_expert() {
        // Qwen3-30B-A3B's shape: 48 layers, 128 experts x 768, top-8, hidden 2048.
        let moe = MoeLayer {
            num_experts: 128,
            top_k: 8,
            expert_intermediate: 768,
            shared_intermediate: 0,
            gated: true,
        };
        let model = Model {
            architecture: "test".into(),
            hidden_size: 2048,
            vocab_size: 151_936,
            tie_word_embeddings: false,
            dtype: FloatDtype::Bfloat16,
            max_position_embeddings: 40_960,
            layers: vec![Layer::Moe(moe)],
            mamba_ssm_auto_dtype: FloatDtype::Bfloat16,
        };
        let experts: u64 = model
            .modules()
            .iter()
            .filter(|m| m.kind == ModuleKind::ExpertLinear)
            .map(Module::params)
            .sum();
        assert_eq!(experts, 128 * 3 * 2048 * 768);
        let router = model
            .modules()
            .into_iter()
            .find(|m| m.name == "router")
            .unwrap();
        assert_eq!(router.params(), 2048 * 128);
    }

    #[test]
    fn unknown_architecture_lists_supported() {
        let cfg = ModelConfig {
            architectures: vec!["FooForCausalLM".into()],
            hidden_size: Some(8),
            vocab_size: Some(8),
            max_position_embeddings: Some(8),
            num_attention_heads: Some(2),
            intermediate_size: Some(8),
            ..ModelConfig::default()
        };
        let err = Model::from_config(&cfg).unwrap_err();
        assert!(err.message.contains("FooForCausalLM"));
        assert!(err.hint.unwrap().contains("NemotronHForCausalLM"));
    }

    #[test]
    fn missing_field_is_named() {
        let cfg = ModelConfig {
            architectures: vec!["LlamaForCausalLM".into()],
            ..ModelConfig::default()
        };
        let err = Model::from_config(&cfg).unwrap_err();
        assert!(err.message.contains("hidden_size"), "{err}");
    }
}
