//! A model as vLLM sees it: a list of layers (attention, with MLA; Mamba2,
//! Mamba1 and gated DeltaNet recurrent layers; MLP; MoE) with their
//! dimensions. `config.rs` builds it from a Hugging Face `config.json`.
//!
//! Layer dimensions and parameter counts follow the published configs in
//! docs/reference/models-and-gpus.md; the Nemotron-H split (Mamba in+out
//! projection 168.4 M per layer, attention 62.9 M, MLP 209.7 M) is checked in
//! the tests below.

use crate::dtype::{FloatDtype, KvCacheDtype};
use serde::Serialize;

/// Multi-head latent attention (DeepSeek): the KV cache holds one latent
/// vector and the rotary key per token instead of per-head K and V.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MlaDims {
    /// `None`: queries are projected directly, without a low-rank step.
    pub q_lora_rank: Option<u64>,
    pub kv_lora_rank: u64,
    pub qk_nope_head_dim: u64,
    pub qk_rope_head_dim: u64,
    pub v_head_dim: u64,
    /// DeepSeek sparse attention's indexer (DeepSeek-V3.2, GLM-5), None
    /// without one.
    pub indexer: Option<IndexerDims>,
}

/// The lightning indexer of DeepSeek sparse attention
/// (`vllm/model_executor/models/deepseek_v2.py`, `Indexer`): `heads` query
/// heads of `head_dim` from the query latent, one key of `head_dim` per
/// token from the hidden state, a per-head weight. Its keys are cached per
/// token in fp8 with one float32 scale per 128 elements
/// (`DeepseekV32IndexerCache`), whatever the KV-cache dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct IndexerDims {
    pub heads: u64,
    pub head_dim: u64,
}

impl IndexerDims {
    /// Cache bytes per token: fp8 keys and a 4-byte scale per 128.
    pub fn cache_bytes_per_token(&self) -> u64 {
        self.head_dim + 4 * self.head_dim.div_ceil(128)
    }
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
    /// The query projection also produces an output gate (Qwen3-Next).
    pub output_gate: bool,
    pub mla: Option<MlaDims>,
    /// The layer reads another layer's KV (Gemma 4's last
    /// `num_kv_shared_layers`): no k/v projections and no KV cache.
    pub kv_shared: bool,
}

impl AttentionLayer {
    /// KV-cache bytes one token takes in this layer: per KV head at the KV
    /// dtype (scales included); for MLA one latent of `kv_lora_rank +
    /// qk_rope_head_dim` elements (one byte each for fp8 dtypes, else the
    /// 16-bit element size).
    pub fn kv_bytes_per_token(&self, dtype: KvCacheDtype, model_dtype: FloatDtype) -> u64 {
        if self.kv_shared {
            return 0;
        }
        match self.mla {
            Some(m) => {
                let elems = m.kv_lora_rank + m.qk_rope_head_dim;
                // The indexer's cache shares the layer's blocks: vLLM groups
                // the two specs as one type of full attention whose page is
                // the sum of theirs (`UniformTypeKVCacheSpecs`,
                // vllm/v1/kv_cache_interface.py).
                let indexer = m.indexer.map_or(0, |i| i.cache_bytes_per_token());
                indexer
                    + match dtype {
                        KvCacheDtype::Auto => elems * model_dtype.bytes(),
                        KvCacheDtype::Bfloat16 | KvCacheDtype::Float16 => elems * 2,
                        _ => elems,
                    }
            }
            None => self.num_kv_heads * dtype.bytes_per_token_per_head(self.head_dim, model_dtype),
        }
    }

    /// Attention FLOPs per (query, key) pair: QK^T and PV, 2 FLOPs each.
    pub fn flops_per_pair(&self) -> u64 {
        match self.mla {
            Some(m) => {
                2 * self.num_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim)
            }
            None => 4 * self.num_heads * self.head_dim,
        }
    }
}

/// A recurrent layer's state: elements of its conv state and of its SSM (or
/// DeltaNet) state, per sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StateShape {
    pub conv_elems: u64,
    pub ssm_elems: u64,
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

/// One Mamba (v1) mixer layer (Jamba).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mamba1Layer {
    /// `expand * hidden_size`.
    pub intermediate: u64,
    pub state_size: u64,
    pub conv_kernel: u64,
    pub dt_rank: u64,
}

/// One gated DeltaNet layer (Qwen3-Next's linear attention).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DeltaNetLayer {
    pub key_heads: u64,
    pub value_heads: u64,
    pub key_head_dim: u64,
    pub value_head_dim: u64,
    pub conv_kernel: u64,
}

impl DeltaNetLayer {
    pub fn key_dim(&self) -> u64 {
        self.key_heads * self.key_head_dim
    }

    pub fn value_dim(&self) -> u64 {
        self.value_heads * self.value_head_dim
    }

    /// Convolved channels: queries, keys and values.
    pub fn conv_dim(&self) -> u64 {
        2 * self.key_dim() + self.value_dim()
    }
}

/// One short-convolution layer (LFM2's `ShortConv`,
/// vllm/model_executor/layers/mamba/short_conv.py): `in_proj` to three
/// `dim`-wide streams (B, C, x), a depthwise causal convolution of
/// `conv_kernel` taps, `out_proj`. Its per-request state is the last
/// `conv_kernel - 1` inputs, no SSM state
/// (`MambaStateShapeCalculator.short_conv_state_shape`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ShortConvLayer {
    pub dim: u64,
    pub conv_kernel: u64,
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
    /// Intermediate size of the always-on shared experts together (0 when none).
    pub shared_intermediate: u64,
    pub gated: bool,
    /// Latent experts (Nemotron-3 Super): the routed experts run in this
    /// width, between a down-projection from the hidden size and an
    /// up-projection back (`vllm/model_executor/models/nemotron_h.py`).
    pub latent_dim: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Layer {
    Attention(AttentionLayer),
    Mamba2(Mamba2Layer),
    Mamba1(Mamba1Layer),
    DeltaNet(DeltaNetLayer),
    ShortConv(ShortConvLayer),
    Mlp(MlpLayer),
    Moe(MoeLayer),
}

impl Layer {
    /// The per-sequence state of a recurrent layer (vLLM keeps these in
    /// "Mamba" KV-cache groups), None for other layers.
    pub fn state(&self) -> Option<StateShape> {
        match self {
            Layer::Mamba2(m) => Some(StateShape {
                conv_elems: m.conv_state_elems(),
                ssm_elems: m.ssm_state_elems(),
            }),
            Layer::Mamba1(m) => Some(StateShape {
                conv_elems: m.intermediate * m.conv_kernel.saturating_sub(1),
                ssm_elems: m.intermediate * m.state_size,
            }),
            Layer::DeltaNet(d) => Some(StateShape {
                conv_elems: d.conv_dim() * d.conv_kernel.saturating_sub(1),
                ssm_elems: d.value_heads * d.key_head_dim * d.value_head_dim,
            }),
            Layer::ShortConv(c) => Some(StateShape {
                conv_elems: c.dim * c.conv_kernel.saturating_sub(1),
                ssm_elems: 0,
            }),
            _ => None,
        }
    }
}

/// Which module a weight tensor belongs to, for quantization decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModuleKind {
    Embedding,
    LmHead,
    /// A linear layer inside an attention block.
    AttentionLinear,
    /// A linear layer inside a recurrent mixer (Mamba in_proj/out_proj, DeltaNet projections).
    MambaLinear,
    /// A linear layer inside an MLP (or a shared expert).
    MlpLinear,
    /// A routed expert's linear layer.
    ExpertLinear,
    /// Norms, biases, routers, conv1d, A/D/dt: never quantized.
    Other,
    /// A vision or audio encoder's tensor, or its projector: loaded with the
    /// model, kept in the model dtype, never read by a decode step.
    Encoder,
    /// A buffer the model allocates at load time that is no parameter: the
    /// rotary embedding's cos/sin cache. Counted in the weights' memory
    /// (vLLM's "Model loading took" includes it), not in the parameters.
    Buffer,
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

/// One pipeline-parallel stage: decoder layers `start_layer..end_layer` of
/// the model, on stage `rank` of `size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PipelineStage {
    pub rank: u64,
    pub size: u64,
    pub start_layer: u64,
    pub end_layer: u64,
}

impl PipelineStage {
    /// The whole model as one stage.
    pub fn whole(layers: u64) -> PipelineStage {
        PipelineStage {
            rank: 0,
            size: 1,
            start_layer: 0,
            end_layer: layers,
        }
    }

    pub fn is_first(&self) -> bool {
        self.rank == 0
    }

    pub fn is_last(&self) -> bool {
        self.rank + 1 >= self.size
    }

    pub fn layers(&self) -> u64 {
        self.end_layer.saturating_sub(self.start_layer)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Model {
    pub architecture: String,
    pub hidden_size: u64,
    /// Vocabulary rows this model holds (a shard's under tensor parallelism).
    pub vocab_size: u64,
    /// The whole vocabulary, which every GPU samples from: vLLM all-gathers
    /// the logits across the TP group (`logits_processor.py`).
    pub sampled_vocab_size: u64,
    pub tie_word_embeddings: bool,
    pub dtype: FloatDtype,
    pub max_position_embeddings: u64,
    pub layers: Vec<Layer>,
    /// What `--mamba-ssm-cache-dtype auto` resolves to for this architecture.
    pub mamba_ssm_auto_dtype: FloatDtype,
    /// Whether config.json names the SSM state dtype (`mamba_ssm_cache_dtype`),
    /// so no release's fallback applies.
    pub mamba_ssm_dtype_named: bool,
    /// Tokens per chunk of the Mamba scan (`mamba_chunk_size` or
    /// `chunk_size`; vLLM's default 2048 without either:
    /// `ModelConfig.get_mamba_chunk_size`).
    pub mamba_chunk_tokens: u64,
    /// Vision / audio encoder tensors vLLM loads with a multimodal model,
    /// and load-time buffers (the rotary cos/sin cache), replicated per GPU.
    pub encoder: Vec<Module>,
    /// The multi-token-prediction block the checkpoint ships, which vLLM
    /// loads only for speculative decoding with `method: mtp`
    /// (`crate::speculative`); None when the config names none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtp: Option<MtpBlock>,
}

/// A checkpoint's multi-token-prediction (MTP) modules: `count` of them
/// (`num_nextn_predict_layers`, `mtp_num_hidden_layers`,
/// `mtp_transformer_layers`), each a decoder layer shaped like the model's
/// last full-attention layer (`layers`: its mixer and feed-forward block)
/// behind a projection of the concatenated embedding and hidden state
/// (`eh_proj`, 2h -> h) and three norms (the embedding's, the hidden
/// state's, the shared head's). vLLM 0.32's MTP drafters
/// (`vllm/model_executor/models/deepseek_mtp.py`, `qwen3_5_mtp.py`,
/// `glm4_moe_mtp.py`) reuse the target's embedding and `lm_head`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MtpBlock {
    pub count: u64,
    pub layers: Vec<Layer>,
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

// Short names of the tensor kinds, for the per-layer tensor lists below.
use ModuleKind::{
    AttentionLinear as A, ExpertLinear as E, MambaLinear as M, MlpLinear as F, Other as X,
};

/// An attention layer's tensors (hidden size `h`).
fn attention_modules(o: &mut Vec<Module>, h: u64, a: &AttentionLayer) {
    match a.mla {
        Some(m) => mla_modules(o, h, a.num_heads, &m),
        None => {
            let q = a.num_heads * a.head_dim;
            let kv = a.num_kv_heads * a.head_dim;
            let q_out = if a.output_gate { 2 * q } else { q };
            add(o, 1, "q_proj", A, h, q_out);
            if !a.kv_shared {
                add(o, 1, "k_proj", A, h, kv);
                add(o, 1, "v_proj", A, h, kv);
            }
            add(o, 1, "o_proj", A, q, h);
            if a.qkv_bias {
                add(o, 1, "qkv_bias", X, 1, q + 2 * kv);
            }
            if a.qk_norm {
                add(o, 1, "qk_norm", X, 1, 2 * a.head_dim);
            }
        }
    }
    add(o, 1, "input_norm", X, 1, h);
}

/// A multi-head latent attention layer's projections, `heads` query heads.
fn mla_modules(o: &mut Vec<Module>, h: u64, heads: u64, m: &MlaDims) {
    let qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    match m.q_lora_rank {
        Some(r) => {
            add(o, 1, "q_a_proj", A, h, r);
            add(o, 1, "q_a_norm", X, 1, r);
            add(o, 1, "q_b_proj", A, r, heads * qk);
        }
        None => add(o, 1, "q_proj", A, h, heads * qk),
    }
    add(o, 1, "kv_a_proj", A, h, m.kv_lora_rank + m.qk_rope_head_dim);
    add(o, 1, "kv_a_norm", X, 1, m.kv_lora_rank);
    add(
        o,
        1,
        "kv_b_proj",
        A,
        m.kv_lora_rank,
        heads * (m.qk_nope_head_dim + m.v_head_dim),
    );
    add(o, 1, "o_proj", A, heads * m.v_head_dim, h);
    if let Some(i) = m.indexer {
        // wq_b from the query latent (or the hidden state without one), wk,
        // its LayerNorm (weight and bias), weights_proj per head.
        add(
            o,
            1,
            "indexer_wq_b",
            A,
            m.q_lora_rank.unwrap_or(h),
            i.heads * i.head_dim,
        );
        add(o, 1, "indexer_wk", A, h, i.head_dim);
        add(o, 1, "indexer_k_norm", X, 2, i.head_dim);
        add(o, 1, "indexer_weights_proj", X, h, i.heads);
    }
}

/// A Mamba2 mixer layer's tensors.
fn mamba2_modules(o: &mut Vec<Module>, h: u64, m: &Mamba2Layer) {
    add(o, 1, "in_proj", M, h, m.in_proj_out());
    add(o, 1, "out_proj", M, m.intermediate(), h);
    // conv1d weight (conv_dim x kernel) and bias (conv_dim).
    add(o, 1, "conv1d", X, m.conv_kernel + 1, m.conv_dim());
    // A_log, D, dt_bias: one value per head each.
    add(o, 1, "a_d_dt", X, 3, m.num_heads);
    add(o, 1, "mixer_norm", X, 1, m.intermediate());
    add(o, 1, "input_norm", X, 1, h);
}

/// A Mamba1 mixer layer's tensors.
fn mamba1_modules(o: &mut Vec<Module>, h: u64, m: &Mamba1Layer) {
    let (i, n, r) = (m.intermediate, m.state_size, m.dt_rank);
    add(o, 1, "in_proj", M, h, 2 * i);
    add(o, 1, "x_proj", M, i, r + 2 * n);
    add(o, 1, "dt_proj", M, r, i);
    add(o, 1, "out_proj", M, i, h);
    // conv1d weight and bias; dt bias; A_log (i x n); D; the
    // dt/B/C layernorms Jamba adds.
    add(o, 1, "conv1d", X, m.conv_kernel + 1, i);
    add(o, 1, "a_log", X, n, i);
    add(o, 1, "d_dt_bias", X, 2, i);
    add(o, 1, "dt_b_c_norms", X, 1, r + 2 * n);
    add(o, 1, "input_norm", X, 1, h);
}

/// A gated DeltaNet layer's tensors.
fn deltanet_modules(o: &mut Vec<Module>, h: u64, d: &DeltaNetLayer) {
    add(
        o,
        1,
        "in_proj_qkvz",
        M,
        h,
        2 * d.key_dim() + 2 * d.value_dim(),
    );
    add(o, 1, "in_proj_ba", M, h, 2 * d.value_heads);
    add(o, 1, "out_proj", M, d.value_dim(), h);
    add(o, 1, "conv1d", X, d.conv_kernel, d.conv_dim());
    add(o, 1, "a_log_dt_bias", X, 2, d.value_heads);
    add(o, 1, "mixer_norm", X, 1, d.value_head_dim);
    add(o, 1, "input_norm", X, 1, h);
}

/// A short-convolution layer's tensors: in_proj to B, C and x, the
/// depthwise conv (one `conv_kernel` filter per channel), out_proj.
fn short_conv_modules(o: &mut Vec<Module>, h: u64, c: &ShortConvLayer) {
    add(o, 1, "in_proj", M, h, 3 * c.dim);
    add(o, 1, "conv1d", X, c.conv_kernel, c.dim);
    add(o, 1, "out_proj", M, c.dim, h);
    add(o, 1, "input_norm", X, 1, h);
}

/// A dense MLP layer's tensors.
fn mlp_modules(o: &mut Vec<Module>, h: u64, f: &MlpLayer) {
    if f.gated {
        add(o, 1, "gate_proj", F, h, f.intermediate);
    }
    add(o, 1, "up_proj", F, h, f.intermediate);
    add(o, 1, "down_proj", F, f.intermediate, h);
    add(o, 1, "input_norm", X, 1, h);
}

/// A mixture-of-experts layer's tensors: router, experts, shared expert.
fn moe_modules(o: &mut Vec<Module>, h: u64, e: &MoeLayer) {
    let (n, i) = (e.num_experts, e.expert_intermediate);
    add(o, 1, "router", X, h, n);
    // Latent experts work in `latent_dim` between two projections.
    let w = match e.latent_dim {
        Some(l) => {
            add(o, 1, "latent_down_proj", F, h, l);
            add(o, 1, "latent_up_proj", F, l, h);
            l
        }
        None => h,
    };
    if e.gated {
        add(o, n, "expert_gate_proj", E, w, i);
    }
    add(o, n, "expert_up_proj", E, w, i);
    add(o, n, "expert_down_proj", E, i, w);
    let s = e.shared_intermediate;
    if s > 0 {
        if e.gated {
            add(o, 1, "shared_gate_proj", F, h, s);
        }
        add(o, 1, "shared_up_proj", F, h, s);
        add(o, 1, "shared_down_proj", F, s, h);
    }
    add(o, 1, "input_norm", X, 1, h);
}

/// One layer's tensors (hidden size `h`).
fn layer_modules(o: &mut Vec<Module>, h: u64, layer: &Layer) {
    match layer {
        Layer::Attention(a) => attention_modules(o, h, a),
        Layer::Mamba2(m) => mamba2_modules(o, h, m),
        Layer::Mamba1(m) => mamba1_modules(o, h, m),
        Layer::DeltaNet(d) => deltanet_modules(o, h, d),
        Layer::ShortConv(c) => short_conv_modules(o, h, c),
        Layer::Mlp(f) => mlp_modules(o, h, f),
        Layer::Moe(e) => moe_modules(o, h, e),
    }
}

impl Model {
    pub fn attention_layers(&self) -> impl Iterator<Item = &AttentionLayer> {
        self.layers.iter().filter_map(|l| match l {
            Layer::Attention(a) => Some(a),
            _ => None,
        })
    }

    /// Recurrent layers (Mamba2, Mamba1, DeltaNet) and their state shapes.
    pub fn state_layers(&self) -> impl Iterator<Item = StateShape> + '_ {
        self.layers.iter().filter_map(Layer::state)
    }

    pub fn mamba_layers(&self) -> impl Iterator<Item = &Mamba2Layer> {
        self.layers.iter().filter_map(|l| match l {
            Layer::Mamba2(m) => Some(m),
            _ => None,
        })
    }

    pub fn is_hybrid(&self) -> bool {
        self.state_layers().next().is_some()
    }

    /// Every weight tensor, grouped where layers repeat. Norm weights, biases,
    /// routers and the recurrent layers' conv1d, A, D and dt are `Other`.
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
            layer_modules(o, h, layer);
        }
        add(o, 1, "final_norm", ModuleKind::Other, 1, h);
        if !self.tie_word_embeddings {
            add(o, 1, "lm_head", ModuleKind::LmHead, h, self.vocab_size);
        }
        out.extend(self.encoder.iter().cloned());
        out
    }

    /// The tensors of the MTP block (all `count` modules), without the
    /// embedding and `lm_head` the drafter shares with the target.
    pub fn mtp_modules(&self) -> Vec<Module> {
        let h = self.hidden_size;
        let mut out: Vec<Module> = Vec::new();
        let Some(mtp) = &self.mtp else {
            return out;
        };
        for _ in 0..mtp.count {
            let o = &mut out;
            for layer in &mtp.layers {
                layer_modules(o, h, layer);
            }
            add(o, 1, "eh_proj", ModuleKind::MlpLinear, 2 * h, h);
            add(o, 1, "mtp_norms", ModuleKind::Other, 3, h);
        }
        out
    }

    /// The part of the model one GPU holds under tensor parallelism over
    /// `tp` GPUs, as vLLM splits it: attention heads, KV heads (replicated
    /// when fewer than `tp`), Mamba heads and groups (groups replicated when
    /// fewer), DeltaNet heads, MLP and expert intermediate sizes, and the
    /// vocabulary (embedding and lm_head) divide by `tp`; the hidden size and
    /// norms do not.
    pub fn shard(&self, tp: u64) -> crate::error::Result<Model> {
        use crate::error::Error;
        if tp <= 1 {
            return Ok(self.clone());
        }
        let split = |what: &str, n: u64| {
            if n.is_multiple_of(tp) {
                Ok(n / tp)
            } else {
                Err(Error::field(
                    "--tensor-parallel-size",
                    tp,
                    format!("a divisor of the model's {what} ({n})"),
                ))
            }
        };
        let shard_layers = |layers: &[Layer]| -> crate::error::Result<Vec<Layer>> {
            let mut out = Vec::with_capacity(layers.len());
            for l in layers {
                out.push(match *l {
                    Layer::Attention(a) => Layer::Attention(AttentionLayer {
                        num_heads: split("num_attention_heads", a.num_heads)?,
                        num_kv_heads: if a.mla.is_some() {
                            a.num_kv_heads
                        } else {
                            (a.num_kv_heads / tp).max(1)
                        },
                        ..a
                    }),
                    Layer::Mamba2(m) => Layer::Mamba2(Mamba2Layer {
                        num_heads: split("mamba_num_heads", m.num_heads)?,
                        n_groups: (m.n_groups / tp).max(1),
                        ..m
                    }),
                    Layer::Mamba1(m) => Layer::Mamba1(Mamba1Layer {
                        intermediate: split("Mamba intermediate size", m.intermediate)?,
                        ..m
                    }),
                    Layer::DeltaNet(d) => Layer::DeltaNet(DeltaNetLayer {
                        key_heads: (d.key_heads / tp).max(1),
                        value_heads: split("linear_num_value_heads", d.value_heads)?,
                        ..d
                    }),
                    Layer::ShortConv(c) => Layer::ShortConv(ShortConvLayer {
                        dim: split("conv_dim", c.dim)?,
                        ..c
                    }),
                    Layer::Mlp(f) => Layer::Mlp(MlpLayer {
                        intermediate: f.intermediate.div_ceil(tp),
                        ..f
                    }),
                    Layer::Moe(e) => Layer::Moe(MoeLayer {
                        expert_intermediate: e.expert_intermediate.div_ceil(tp),
                        shared_intermediate: e.shared_intermediate.div_ceil(tp),
                        ..e
                    }),
                });
            }
            Ok(out)
        };
        let layers = shard_layers(&self.layers)?;
        let mtp = match &self.mtp {
            Some(b) => Some(MtpBlock {
                count: b.count,
                layers: shard_layers(&b.layers)?,
            }),
            None => None,
        };
        // Encoders split their projections across the GPUs too.
        let encoder = self
            .encoder
            .iter()
            .map(|m| Module {
                out_features: if m.kind == ModuleKind::Encoder {
                    m.out_features.div_ceil(tp)
                } else {
                    m.out_features
                },
                ..m.clone()
            })
            .collect();
        Ok(Model {
            vocab_size: self.vocab_size.div_ceil(tp),
            layers,
            encoder,
            mtp,
            ..self.clone()
        })
    }

    /// The model's decoder layers as ranges of `layers`: a mixer (attention,
    /// Mamba, DeltaNet) with the feed-forward block after it. NemotronH is the
    /// exception: every entry of its `hybrid_override_pattern` (a Mamba, an
    /// attention or an MLP block) is a decoder layer of its own
    /// (`num_hidden_layers` counts them all).
    pub fn decoder_layers(&self) -> Vec<std::ops::Range<usize>> {
        let each_own = self.architecture.starts_with("NemotronH");
        let mut out: Vec<std::ops::Range<usize>> = Vec::new();
        let mut has_ffn = true;
        for (i, l) in self.layers.iter().enumerate() {
            let ffn = matches!(l, Layer::Mlp(_) | Layer::Moe(_));
            match out.last_mut() {
                Some(r) if !each_own && ffn && !has_ffn => {
                    r.end = i + 1;
                    has_ffn = true;
                }
                _ => {
                    out.push(i..i + 1);
                    has_ffn = ffn;
                }
            }
        }
        out
    }

    /// The stages of pipeline parallelism over `pp` stages, as vLLM splits
    /// the decoder layers (`get_pp_indices`, vllm/distributed/utils.py, read
    /// at its newest stored version; `VLLM_PP_LAYER_PARTITION` is not
    /// modelled): `layers / pp` each, and the remainder one more each on the
    /// stages before the last, starting from the second-to-last. The first
    /// stage holds the embedding, the last the final norm and `lm_head`
    /// (with tied embeddings the last stage holds its own copy of the table as
    /// `lm_head`).
    pub fn pipeline_stages(&self, pp: u64) -> crate::error::Result<Vec<PipelineStage>> {
        use crate::error::Error;
        let n = self.decoder_layers().len() as u64;
        if pp == 0 || pp > n {
            return Err(Error::field(
                "--pipeline-parallel-size",
                pp,
                format!(
                    "between 1 and the model's {n} decoder layers (each pipeline stage needs at least one layer)"
                ),
            ));
        }
        let base = n / pp;
        let rem = n % pp;
        let mut start = 0;
        let mut stages = Vec::new();
        for rank in 0..pp {
            // Stage indices pp-2, pp-3, ..., pp-1-rem get one more layer.
            let extra = u64::from(rank + 1 < pp && rank + 1 + rem >= pp);
            let count = base + extra;
            stages.push(PipelineStage {
                rank,
                size: pp,
                start_layer: start,
                end_layer: start + count,
            });
            start += count;
        }
        Ok(stages)
    }

    /// What one pipeline stage holds: its decoder layers (the embedding and
    /// `lm_head` are chosen in [`Model::stage_modules`]).
    pub fn stage(&self, stage: &PipelineStage) -> Model {
        let ranges = self.decoder_layers();
        let pick = |i: u64| usize::try_from(i).ok().and_then(|i| ranges.get(i)).cloned();
        let layers = match (
            pick(stage.start_layer),
            stage.end_layer.checked_sub(1).and_then(pick),
        ) {
            (Some(a), Some(b)) => self.layers.get(a.start..b.end).unwrap_or_default().to_vec(),
            _ => Vec::new(),
        };
        Model {
            layers,
            ..self.clone()
        }
    }

    /// The weight tensors of `self` (a stage's model) on that stage: the
    /// embedding on the first stage, `lm_head` and the final norm on the
    /// last; with tied embeddings the last stage loads the table into its
    /// own `lm_head`.
    pub fn stage_modules(&self, stage: &PipelineStage) -> Vec<Module> {
        let (first, last) = (stage.is_first(), stage.is_last());
        let mut out = Vec::new();
        for m in self.modules() {
            match m.kind {
                ModuleKind::Embedding => {
                    if first {
                        out.push(m.clone());
                    }
                    if last && !first && self.tie_word_embeddings {
                        out.push(Module {
                            name: "lm_head",
                            kind: ModuleKind::LmHead,
                            ..m
                        });
                    }
                }
                ModuleKind::LmHead if !last => {}
                _ if m.name == "final_norm" && !last => {}
                _ => out.push(m),
            }
        }
        out
    }

    /// Round every MoE layer's expert intermediate size up to a multiple of
    /// `align` (kernel padding of the per-GPU shard).
    pub fn pad_expert_intermediate(&mut self, align: u64) {
        for l in &mut self.layers {
            if let Layer::Moe(e) = l {
                e.expert_intermediate = e.expert_intermediate.div_ceil(align.max(1)) * align.max(1);
            }
        }
    }

    /// Total parameters, embedding and (untied) lm_head included.
    pub fn params(&self) -> u64 {
        self.modules()
            .iter()
            .filter(|m| m.kind != ModuleKind::Buffer)
            .map(Module::params)
            .sum()
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
            latent_dim: None,
        };
        let model = Model {
            architecture: "test".into(),
            hidden_size: 2048,
            vocab_size: 151_936,
            sampled_vocab_size: 151_936,
            tie_word_embeddings: false,
            dtype: FloatDtype::Bfloat16,
            max_position_embeddings: 40_960,
            layers: vec![Layer::Moe(moe)],
            mamba_ssm_auto_dtype: FloatDtype::Bfloat16,
            mamba_ssm_dtype_named: false,
            mamba_chunk_tokens: 2048,
            encoder: Vec::new(),
            mtp: None,
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
}
