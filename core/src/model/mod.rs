//! A model as vLLM sees it: a list of layers (attention, with MLA; Mamba2,
//! Mamba1 and gated DeltaNet recurrent layers; MLP; MoE) with their
//! dimensions. `config` builds it from a Hugging Face `config.json`.
//!
//! Layer dimensions and parameter counts follow the published configs in
//! docs/reference/models-and-gpus.md; the Nemotron-H split (Mamba in+out
//! projection 168.4 M per layer, attention 62.9 M, MLP 209.7 M) is checked in
//! the tests of `weights`.
//!
//! One file a concept: this one holds [`Model`], its MTP block and the
//! queries over its layers; `layers` the layer kinds and their dimensions;
//! `weights` the weight tensors ([`Module`]) and parameter counts;
//! `parallel` the per-GPU shard under tensor parallelism and the stages of
//! pipeline parallelism.

mod layers;
mod parallel;
mod weights;

pub use layers::{
    AttentionLayer, DeltaNetLayer, Dsv4Dims, IndexerDims, Layer, Mamba1Layer, Mamba2Layer, MlaDims,
    MlpLayer, MoeLayer, ShortConvLayer, StateShape,
};
pub use parallel::PipelineStage;
pub use weights::{Module, ModuleKind};

use crate::dtype::FloatDtype;
use serde::Serialize;

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

impl Model {
    pub fn attention_layers(&self) -> impl Iterator<Item = &AttentionLayer> {
        self.layers.iter().filter_map(|l| match l {
            Layer::Attention(a) => Some(a),
            _ => None,
        })
    }

    /// Whether the model has DeepSeek-V4's compressed sparse MLA: its KV
    /// layout (`allocator::dsv4`), the GPUs it runs on and its attention
    /// kernel all follow from it.
    pub fn has_dsv4_attention(&self) -> bool {
        self.attention_layers()
            .any(|a| a.mla.is_some_and(|m| m.dsv4.is_some()))
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
}
