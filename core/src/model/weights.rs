//! A model's weight tensors: which module each belongs to (for
//! quantization decisions), the tensors of each layer kind, of the whole
//! model and of its MTP block, and the parameter count they sum to.

use super::{
    AttentionLayer, DeltaNetLayer, Dsv4Dims, Layer, Mamba1Layer, Mamba2Layer, MlaDims, MlpLayer,
    Model, MoeLayer, ShortConvLayer,
};
use serde::Serialize;

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
    /// Stored as fp8 by a per-layer precision carve-out of the checkpoint
    /// ([`crate::quant::WeightQuant::fp8_layers`]), whatever the method
    /// quantizes the module's kind to elsewhere.
    pub fp8: bool,
}

impl Module {
    pub fn params(&self) -> u64 {
        self.in_features * self.out_features * self.count
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
    merge(
        out,
        Module {
            name,
            kind,
            in_features,
            out_features,
            count: n,
            fp8: false,
        },
    );
}

/// Add `module`, merging with an identical entry (the same tensor stored
/// the same way).
fn merge(out: &mut Vec<Module>, module: Module) {
    let same = |m: &&mut Module| {
        m.name == module.name
            && m.kind == module.kind
            && m.in_features == module.in_features
            && m.out_features == module.out_features
            && m.fp8 == module.fp8
    };
    match out.iter_mut().find(same) {
        Some(m) => m.count += module.count,
        None => out.push(module),
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
            if a.head_gate {
                add(o, 1, "g_proj", A, h, a.num_heads);
            }
        }
    }
    add(o, 1, "input_norm", X, 1, h);
}

/// A multi-head latent attention layer's projections, `heads` query heads.
fn mla_modules(o: &mut Vec<Module>, h: u64, heads: u64, m: &MlaDims) {
    if let Some(v4) = m.dsv4 {
        return dsv4_modules(o, h, heads, m, &v4);
    }
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

/// A DeepSeek-V4 attention layer's tensors and its decoder layer's
/// hyper-connections (vLLM 0.32 `vllm/models/deepseek_v4/attention.py`,
/// `compressor.py`, `nvidia/model.py`): `fused_wqa_wkv` (the query latent
/// and the one key/value latent `d` wide), their norms, `wq_b`, the grouped
/// `wo_a` and `wo_b`, the attention sink; a compressor (`ape`,
/// `fused_wkv_wgate`, its norm) when the layer compresses; the indexer's
/// `wq_b`, `weights_proj` and its own compressor (head 128, overlapping)
/// with r = 4. The compressors and `weights_proj` are built without the
/// quantization config, so they are `Other` here (never quantized); the
/// rest are quantized linears. Tensor parallelism splits the heads and
/// output groups; the latents, compressors and indexer are replicated.
fn dsv4_modules(o: &mut Vec<Module>, h: u64, heads: u64, m: &MlaDims, v4: &Dsv4Dims) {
    let d = m.kv_lora_rank + m.qk_rope_head_dim;
    let q_lora = m.q_lora_rank.unwrap_or(h);
    let groups = heads / v4.heads_per_group.max(1);
    add(o, 1, "q_a_proj", A, h, q_lora);
    add(o, 1, "kv_a_proj", A, h, d);
    add(o, 1, "q_a_norm", X, 1, q_lora);
    add(o, 1, "kv_a_norm", X, 1, d);
    add(o, 1, "q_b_proj", A, q_lora, heads * d);
    add(
        o,
        1,
        "wo_a",
        A,
        v4.heads_per_group * d,
        groups * v4.o_lora_rank,
    );
    add(o, 1, "wo_b", A, groups * v4.o_lora_rank, h);
    add(o, 1, "attn_sink", X, 1, heads);
    // A compressor of `width` per state: `ape` (r x coff x width),
    // `fused_wkv_wgate` (h -> 2 x coff x width), its RMSNorm.
    let compressor = |o: &mut Vec<Module>, width: u64| {
        let c = v4.coff() * width;
        add(o, 1, "compressor_ape", X, v4.compress_ratio, c);
        add(o, 1, "compressor_wkv_wgate", X, h, 2 * c);
        add(o, 1, "compressor_norm", X, 1, width);
    };
    if v4.compress_ratio > 1 {
        compressor(o, d);
    }
    if let Some(i) = m.indexer {
        add(o, 1, "indexer_wq_b", A, q_lora, i.heads * i.head_dim);
        add(o, 1, "indexer_weights_proj", X, h, i.heads);
        compressor(o, i.head_dim);
    }
    // Hyper-connections of the decoder layer, before attention and before
    // the feed-forward block: `hc_*_fn` (mix x hc_mult h, mix = (2 + hc)
    // hc), `hc_*_base` (mix) and `hc_*_scale` (3) each.
    let hc = v4.hc_mult;
    let mix = (2 + hc) * hc;
    add(o, 1, "hc_fn", X, 2 * mix, hc * h);
    add(o, 1, "hc_base_scale", X, 2, mix + 3);
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
    // The router scores every expert; the GPU holds its local ones.
    add(o, 1, "router", X, h, n);
    if e.router_bias {
        add(o, 1, "router_bias", X, 1, n);
    }
    if e.hash_table_rows > 0 {
        add(o, 1, "hash_routing_table", X, e.hash_table_rows, e.top_k);
    }
    let n = e.local_experts;
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
    /// Every weight tensor, grouped where layers repeat. Norm weights, biases,
    /// routers and the recurrent layers' conv1d, A, D and dt are `Other`.
    pub fn modules(&self) -> Vec<Module> {
        self.modules_marked(0, &|_, _| false)
    }

    /// [`Model::modules`], those of kind `k` in decoder layer `i` marked
    /// [`Module::fp8`] where `fp8(i, k)`; `first_decoder_layer` is the index
    /// of this model's first decoder layer (a pipeline stage's start).
    pub fn modules_marked(
        &self,
        first_decoder_layer: u64,
        fp8: &dyn Fn(u64, ModuleKind) -> bool,
    ) -> Vec<Module> {
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
        for (i, range) in self.decoder_layers().into_iter().enumerate() {
            let index = first_decoder_layer + i as u64;
            for layer in self.layers.get(range).unwrap_or_default() {
                let mut own = Vec::new();
                layer_modules(&mut own, h, layer);
                for m in own {
                    let marked = fp8(index, m.kind);
                    merge(o, Module { fp8: marked, ..m });
                }
            }
        }
        add(o, 1, "final_norm", ModuleKind::Other, 1, h);
        // DeepSeek-V4 mixes its hyper-connection streams once more before
        // the final norm: `hc_head_fn` (hc x hc h), `hc_head_base` (hc),
        // `hc_head_scale` (1).
        if let Some(hc) = self
            .attention_layers()
            .find_map(|a| a.mla.and_then(|m| m.dsv4))
            .map(|v| v.hc_mult)
        {
            add(o, 1, "hc_head", ModuleKind::Other, 1, hc * hc * h + hc + 1);
        }
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
    use crate::dtype::FloatDtype;
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
            local_experts: 128,
            top_k: 8,
            expert_intermediate: 768,
            shared_intermediate: 0,
            gated: true,
            latent_dim: None,
            router_bias: false,
            hash_table_rows: 0,
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
