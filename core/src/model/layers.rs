//! The layer kinds a model is made of and their dimensions: attention (with
//! MLA and DeepSeek's sparse-attention indexer), the recurrent layers
//! (Mamba2, Mamba1, gated DeltaNet, short convolution) and their per-request
//! state, MLP and mixture-of-experts.

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
    /// DeepSeek sparse attention's indexer (DeepSeek-V3.2, GLM-5; DeepSeek-V4's
    /// layers that compress 4 tokens into one), None without one.
    pub indexer: Option<IndexerDims>,
    /// DeepSeek-V4's attention: a sliding window over the last tokens and,
    /// in most layers, a cache of compressed tokens. None for the MLA of
    /// DeepSeek-V2/V3.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dsv4: Option<Dsv4Dims>,
}

/// DeepSeek-V4's attention layer (vLLM 0.32 `vllm/models/deepseek_v4/attention.py`,
/// `DeepseekV4Attention`; `compressor.py`, `DeepseekCompressor`): queries
/// from a low-rank latent, one shared key/value latent of `kv_lora_rank +
/// qk_rope_head_dim` (512) per token, a grouped low-rank output projection
/// (`wo_a` per group of `heads_per_group` heads, then `wo_b`), a per-head
/// attention sink, and the decoder layer's hyper-connections (`hc_mult`
/// residual streams mixed per layer). Every layer caches the last
/// `window_tokens` tokens (`DeepseekV4SWACache`); a layer with
/// `compress_ratio` r > 1 also caches one compressed state per r tokens,
/// built by its compressor, whose running state is cached too
/// (`CompressorStateCache`); r = 4 layers add the indexer (`MlaDims::indexer`)
/// with its own compressor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Dsv4Dims {
    /// `max(1, compress_ratios[i])`: 1 for a sliding window only, else
    /// tokens per compressed state (4 or 128 in the published checkpoints).
    pub compress_ratio: u64,
    /// `sliding_window` (128).
    pub window_tokens: u64,
    pub o_lora_rank: u64,
    /// `num_attention_heads / o_groups`: the heads one `wo_a` group reads.
    pub heads_per_group: u64,
    /// `hc_mult`: the residual streams the hyper-connections mix.
    pub hc_mult: u64,
}

impl Dsv4Dims {
    /// The compressor's width factor: 2 when compressed windows overlap
    /// (r = 4), else 1 (`DeepseekCompressor.coff`).
    pub fn coff(&self) -> u64 {
        if self.compress_ratio == 4 {
            2
        } else {
            1
        }
    }
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
    /// Chunked local attention (Llama 4's RoPE layers): a token attends only
    /// to the tokens of its own chunk of this many (`attention_chunk_size`);
    /// None for attention over the whole context or a sliding window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk_tokens: Option<u64>,
    /// A per-head output gate `g_proj`, hidden -> one value per query head
    /// (Laguna, `gating: true` / `"per-head"`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub head_gate: bool,
    /// The q and k norms span all heads, not one head (MiniMax-M2's
    /// `MiniMaxText01RMSNormTP`): under tensor parallelism each GPU holds a
    /// share of the heads, so the layer all-reduces every token's sums of
    /// squares before it normalises (`timing::ModelCost::norm_allreduces`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub qk_norm_across_heads: bool,
}

impl AttentionLayer {
    /// Full attention over `num_heads` query and `num_kv_heads` KV heads of
    /// `head_dim`: no window, bias, norm, gate, latent or sharing; readers
    /// set what their family adds on top (`..AttentionLayer::full(..)`).
    pub fn full(num_heads: u64, num_kv_heads: u64, head_dim: u64) -> AttentionLayer {
        AttentionLayer {
            num_heads,
            num_kv_heads,
            head_dim,
            sliding_window_tokens: None,
            qkv_bias: false,
            qk_norm: false,
            output_gate: false,
            mla: None,
            kv_shared: false,
            chunk_tokens: None,
            head_gate: false,
            qk_norm_across_heads: false,
        }
    }

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
    /// Conv-state elements one more token adds: with speculative decoding
    /// vLLM 0.32 keeps `conv_kernel - 1 + k` rows of the conv state of a
    /// Mamba2 or Gated DeltaNet layer (`MambaStateShapeCalculator`,
    /// vllm/model_executor/layers/mamba/mamba_utils.py, `num_spec`, which
    /// `nemotron_h.py`, `mamba2.py`, `qwen3_next.py`, `qwen3_5.py` pass);
    /// 0 for Mamba1 and short convolutions, whose models pass none.
    pub spec_row_elems: u64,
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
    /// The model's routed experts (the router's outputs).
    pub num_experts: u64,
    /// Routed experts whose weights this GPU holds: every one, except under
    /// expert parallelism, where each GPU holds its share of them whole
    /// (`Model::shard_parallel`).
    pub local_experts: u64,
    pub top_k: u64,
    pub expert_intermediate: u64,
    /// Intermediate size of the always-on shared experts together (0 when none).
    pub shared_intermediate: u64,
    pub gated: bool,
    /// Latent experts (Nemotron-3 Super): the routed experts run in this
    /// width, between a down-projection from the hidden size and an
    /// up-projection back (`vllm/model_executor/models/nemotron_h.py`).
    pub latent_dim: Option<u64>,
    /// The router's score-correction bias, one value per expert (Laguna's
    /// `e_score_correction_bias`). DeepSeek's and GLM's routers have one
    /// too, which their readers leave out (256 values a layer, a few
    /// millionths of their totals).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub router_bias: bool,
    /// Rows of a token-hash routing table (DeepSeek-V4's first
    /// `num_hash_layers` layers: `tid2eid`, one row of `top_k` expert ids
    /// per vocabulary entry, instead of a learned router's choice); 0 for
    /// learned routing.
    #[serde(skip_serializing_if = "is_zero")]
    pub hash_table_rows: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
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
                spec_row_elems: m.conv_dim(),
            }),
            Layer::Mamba1(m) => Some(StateShape {
                conv_elems: m.intermediate * m.conv_kernel.saturating_sub(1),
                ssm_elems: m.intermediate * m.state_size,
                spec_row_elems: 0,
            }),
            Layer::DeltaNet(d) => Some(StateShape {
                conv_elems: d.conv_dim() * d.conv_kernel.saturating_sub(1),
                ssm_elems: d.value_heads * d.key_head_dim * d.value_head_dim,
                spec_row_elems: d.conv_dim(),
            }),
            Layer::ShortConv(c) => Some(StateShape {
                conv_elems: c.dim * c.conv_kernel.saturating_sub(1),
                ssm_elems: 0,
                spec_row_elems: 0,
            }),
            _ => None,
        }
    }
}
