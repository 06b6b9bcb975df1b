//! Weight quantization: how many bytes each weight tensor takes in GPU memory
//! under a checkpoint's `quantization_config` (or `--quantization`).
//!
//! Layouts (as the checkpoints store them and vLLM keeps them after repacking
//! for Marlin kernels, which does not change their size):
//! - AWQ int4: weights packed 8 per int32, an fp16 scale and a packed 4-bit zero
//!   point per `group_size` input features per output feature;
//! - GPTQ int4/int8: packed weights, an fp16 scale per group, packed zero points
//!   (vLLM's Marlin path drops `g_idx` when there is no act-order);
//! - compressed-tensors w4a16/w8a16: packed weights, a 16-bit scale per group,
//!   zero points only for asymmetric schemes;
//! - fp8: one byte per weight and an fp32 scale per output feature;
//! - online fp8 (`--quantization fp8` on a bf16/fp16/fp32 checkpoint): one
//!   byte per weight and one fp32 scale per tensor ([`WeightQuant::online_fp8`]).

use crate::dtype::FloatDtype;
use crate::error::AsSubject;
use crate::error::{Error, Result};
use crate::model::{Module, ModuleKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod groups;
mod hf_config;
use hf_config::KIND_NAMES;
pub use hf_config::{from_config_json, from_hf_config};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::quant))]
#[serde(rename_all = "kebab-case")]
pub enum QuantMethod {
    /// Unquantized: every weight at the model dtype.
    None,
    Awq,
    Gptq,
    CompressedTensors,
    Fp8,
    /// OCP MX FP4: 4-bit values, one 8-bit (E8M0) scale per 32 (gpt-oss experts).
    Mxfp4,
    /// NVIDIA FP4: 4-bit values, one FP8 scale per 16 and a global scale.
    Nvfp4,
    /// bitsandbytes: NF4/FP4 with one absmax per 64 weights (fp32, or 8-bit
    /// with an fp32 scale per 256 absmaxes under double quantization), or
    /// LLM.int8 with an fp32 scale per output row.
    Bitsandbytes,
}

impl QuantMethod {
    pub const NAMES: &'static str =
        "none, awq, gptq, compressed-tensors, fp8, mxfp4, nvfp4, bitsandbytes";

    /// Every method, in [`QuantMethod::NAMES`]'s order.
    pub const ALL: [QuantMethod; 8] = [
        QuantMethod::None,
        QuantMethod::Awq,
        QuantMethod::Gptq,
        QuantMethod::CompressedTensors,
        QuantMethod::Fp8,
        QuantMethod::Mxfp4,
        QuantMethod::Nvfp4,
        QuantMethod::Bitsandbytes,
    ];

    pub fn parse(field: impl AsSubject, text: &str) -> Result<Self> {
        match text {
            "none" | "bf16" | "bfloat16" | "fp16" | "float16" => Ok(QuantMethod::None),
            "awq" | "awq_marlin" => Ok(QuantMethod::Awq),
            "gptq" | "gptq_marlin" => Ok(QuantMethod::Gptq),
            "compressed-tensors" | "compressed_tensors" => Ok(QuantMethod::CompressedTensors),
            "fp8" => Ok(QuantMethod::Fp8),
            "mxfp4" => Ok(QuantMethod::Mxfp4),
            "nvfp4" | "modelopt_fp4" => Ok(QuantMethod::Nvfp4),
            "bitsandbytes" => Ok(QuantMethod::Bitsandbytes),
            _ => Err(Error::field(field, text, format!("one of {}", Self::NAMES))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            QuantMethod::None => "none",
            QuantMethod::Awq => "awq",
            QuantMethod::Gptq => "gptq",
            QuantMethod::CompressedTensors => "compressed-tensors",
            QuantMethod::Fp8 => "fp8",
            QuantMethod::Mxfp4 => "mxfp4",
            QuantMethod::Nvfp4 => "nvfp4",
            QuantMethod::Bitsandbytes => "bitsandbytes",
        }
    }
}

/// Decoder layers `first..=last` whose modules of one kind a checkpoint
/// stores as fp8 (W8A8, one fp32 scale per output channel) while its
/// method quantizes that kind otherwise elsewhere: a sensitivity carve-out,
/// such as the compressed-tensors NVFP4 checkpoints of Qwen3.8-27B whose
/// FP8 config group targets `re:.*layers\.(56|...|63)\.mlp\.(gate|up|down)_proj$`
/// (tsarihan/qwen3.8-27b-uncensored-nvfp4-rtx5090-gb10-playbook
/// scripts/quantize_v3.py, "lifted from the reference build").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::quant))]
#[serde(deny_unknown_fields)]
pub struct Fp8Layers {
    /// The module kind: `attention`, `mamba`, `mlp` or `experts`.
    pub kind: String,
    pub first: u64,
    pub last: u64,
}

impl Fp8Layers {
    fn covers(&self, layer: u64, kind: ModuleKind) -> bool {
        (self.first..=self.last).contains(&layer) && kind_name(kind) == Some(self.kind.as_str())
    }
}

/// A checkpoint's weight quantization.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::quant))]
#[serde(deny_unknown_fields)]
pub struct WeightQuant {
    pub method: QuantMethod,
    /// Bits per quantized weight (4 or 8; 8 for fp8).
    #[serde(default = "default_bits")]
    pub bits: u64,
    /// Input features sharing one scale; `None` = one scale per output feature.
    #[serde(default)]
    pub group_size: Option<u64>,
    /// Whether a zero point is stored per group (asymmetric).
    #[serde(default)]
    pub zero_point: bool,
    /// Module names or kinds left at the model dtype: `lm_head` and
    /// `embed_tokens` always are unless `lm_head_quantized`; kinds `attention`,
    /// `mamba`, `mlp`, `experts` or module names such as `in_proj`.
    #[serde(default)]
    pub unquantized: Vec<String>,
    #[serde(default)]
    pub lm_head_quantized: bool,
    /// fp8 with one fp32 scale per block of `[out, in]` weights (DeepSeek-V3: 128 x 128).
    #[serde(default)]
    pub block: Option<[u64; 2]>,
    /// fp8 with one fp32 scale per weight tensor (online quantization).
    #[serde(default)]
    pub per_tensor: bool,
    /// Module kinds stored as fp8 (per-tensor scale, or `block`'s scales
    /// when set) while the method quantizes the rest otherwise: ModelOpt's
    /// `MIXED_PRECISION` checkpoints (fp8 attention and recurrent
    /// projections, NVFP4 MLPs and experts), compressed-tensors configs
    /// with an fp8 group beside the method's (`groups`), and DeepSeek-V4's
    /// (fp8-block linears, MXFP4 or NVFP4 experts).
    #[serde(default)]
    pub fp8_kinds: Vec<String>,
    /// Decoder layers whose modules of a kind are stored as fp8 ([`Fp8Layers`]).
    #[serde(default)]
    pub fp8_layers: Vec<Fp8Layers>,
    /// bitsandbytes 4-bit with `bnb_4bit_use_double_quant`: the absmaxes are
    /// themselves 8-bit with an fp32 scale per 256.
    #[serde(default)]
    pub double_quant: bool,
    /// The vLLM release whose MXFP4 expert layout applies (set by
    /// `EngineArgs::weight_quant`; None: 0.32's).
    #[serde(skip)]
    pub release: Option<crate::version::VllmVersion>,
}

fn default_bits() -> u64 {
    4
}

impl WeightQuant {
    pub fn none() -> Self {
        WeightQuant {
            method: QuantMethod::None,
            bits: 16,
            group_size: None,
            zero_point: false,
            unquantized: Vec::new(),
            lm_head_quantized: false,
            block: None,
            per_tensor: false,
            fp8_kinds: Vec::new(),
            fp8_layers: Vec::new(),
            double_quant: false,
            release: None,
        }
    }

    /// What `--quantization fp8` makes of an unquantized checkpoint: vLLM
    /// loads the 16-bit (or 32-bit) weights and quantizes every linear layer
    /// to float8_e4m3 after loading, with one fp32 scale per tensor computed
    /// from its maximum (`Fp8LinearMethod.process_weights_after_loading`,
    /// `scaled_fp8_quant` without a scale; the fused-MoE method does the same
    /// per expert: vllm/model_executor/layers/quantization/fp8.py, read at
    /// its newest stored version). `Fp8Config.get_quant_method` hands fp8
    /// methods to `LinearBase` and `FusedMoE` layers only: the embedding and
    /// `lm_head` (vocabulary-parallel embeddings), norms, routers and the
    /// recurrent layers' conv weights stay in the served dtype.
    pub fn online_fp8() -> Self {
        let mut q = WeightQuant::for_method(QuantMethod::Fp8);
        q.per_tensor = true;
        q
    }

    /// The layout vLLM assumes when `--quantization METHOD` is given for a
    /// checkpoint that does not say more: int4 with group 128 and zero points
    /// for AWQ, int4 group 128 symmetric for GPTQ and compressed-tensors,
    /// per-channel fp8.
    pub fn for_method(method: QuantMethod) -> Self {
        let mut q = WeightQuant::none();
        q.method = method;
        match method {
            QuantMethod::None => {}
            QuantMethod::Awq => {
                q.bits = 4;
                q.group_size = Some(128);
                q.zero_point = true;
            }
            QuantMethod::Gptq | QuantMethod::CompressedTensors => {
                q.bits = 4;
                q.group_size = Some(128);
            }
            QuantMethod::Fp8 => q.bits = 8,
            QuantMethod::Mxfp4 => {
                q.bits = 4;
                q.group_size = Some(32);
            }
            QuantMethod::Nvfp4 => {
                q.bits = 4;
                q.group_size = Some(16);
            }
            // vLLM's in-flight bitsandbytes quantization: 4-bit, blocks of 64.
            QuantMethod::Bitsandbytes => {
                q.bits = 4;
                q.group_size = Some(64);
            }
        }
        q
    }

    pub fn validate(&self) -> Result<()> {
        for r in &self.fp8_layers {
            if !["attention", "mamba", "mlp", "experts"].contains(&r.kind.as_str()) {
                return Err(Error::field(
                    "quantization.fp8_layers.kind",
                    &r.kind,
                    "attention, mamba, mlp or experts",
                ));
            }
            if r.first > r.last {
                return Err(Error::field(
                    "quantization.fp8_layers.first",
                    r.first,
                    format!("a decoder layer at most `last` ({})", r.last),
                ));
            }
        }
        match self.method {
            QuantMethod::None => Ok(()),
            QuantMethod::Fp8 if self.bits != 8 => {
                Err(Error::field("quantization.bits", self.bits, "8 for fp8"))
            }
            _ if !matches!(self.bits, 2 | 3 | 4 | 8) => {
                Err(Error::field("quantization.bits", self.bits, "2, 3, 4 or 8"))
            }
            _ if self.group_size == Some(0) => Err(Error::field(
                "quantization.group_size",
                0,
                "a positive group size such as 32, 64 or 128, or leave it out for per-channel",
            )),
            _ => Ok(()),
        }
    }

    /// Entries of the checkpoint's unquantized-module list that name
    /// neither a module kind nor a module of `model`: they change nothing
    /// (vLLM matches them against module prefixes and finds none), and are
    /// reported so a mistyped list does not pass silently.
    pub fn unmatched_unquantized(&self, model: &crate::model::Model) -> Vec<String> {
        let modules = model.modules();
        self.unquantized
            .iter()
            .filter(|u| {
                !KIND_NAMES.contains(&u.as_str())
                    && !u.starts_with("layers.")
                    && !modules.iter().any(|m| m.name == u.as_str())
            })
            .cloned()
            .collect()
    }

    /// Whether the checkpoint stores its MTP modules quantized: not when its
    /// unquantized list names them (`mtp*`) or names the whole layer after
    /// the last decoder layer (`model.layers.61*` of a 61-layer DeepSeek).
    pub fn mtp_quantized(&self, decoder_layers: u64) -> bool {
        let whole = format!("layers.{decoder_layers}");
        !self.unquantized.iter().any(|u| u == "mtp" || *u == whole)
    }

    /// The layout of the MTP block's weights: this one, or, where the
    /// checkpoint leaves them unquantized, every linear kind at the model
    /// dtype (the shared `lm_head` keeps this layout).
    pub fn for_mtp(&self, decoder_layers: u64) -> WeightQuant {
        let mut q = self.clone();
        if !self.mtp_quantized(decoder_layers) {
            for kind in ["attention", "mlp", "experts", "mamba"] {
                q.unquantized.push(kind.to_string());
            }
        }
        q
    }

    /// The weight tensors of `model` (a pipeline stage's, its first decoder
    /// layer `first_decoder_layer`), those of the [`WeightQuant::fp8_layers`]
    /// marked [`Module::fp8`].
    pub fn modules_of(&self, model: &crate::model::Model, first_decoder_layer: u64) -> Vec<Module> {
        model.modules_marked(first_decoder_layer, &|layer, kind| {
            self.fp8_layers.iter().any(|r| r.covers(layer, kind))
        })
    }

    /// Whether `module` is stored in the quantized format (else at the model dtype).
    pub fn quantizes(&self, module: &Module) -> bool {
        if self.method == QuantMethod::None {
            return false;
        }
        let listed = |s: &str| self.unquantized.iter().any(|u| u == s);
        let kind_name = match module.kind {
            // Vision encoders stay in the model dtype (checkpoints list them
            // as unquantized; vLLM's quantized linear methods skip them).
            ModuleKind::Embedding
            | ModuleKind::Other
            | ModuleKind::Encoder
            | ModuleKind::Buffer => return false,
            ModuleKind::LmHead => return self.lm_head_quantized && !listed("lm_head"),
            ModuleKind::AttentionLinear => "attention",
            ModuleKind::MambaLinear => "mamba",
            ModuleKind::MlpLinear => "mlp",
            ModuleKind::ExpertLinear => "experts",
        };
        !(listed(kind_name) || listed(module.name))
    }

    /// Whether a module's GEMM dequantizes its weights on the fly (the
    /// weight-only integer kernels: Marlin, AWQ, GPTQ, bitsandbytes, and the
    /// 4-bit float formats' weight-only paths) rather than streaming them
    /// into a dense GEMM (16-bit, or fp8 and NVFP4 W x A kernels).
    pub fn dequantizes(&self, module: &Module) -> bool {
        if !self.quantizes(module) || module.fp8 {
            return false;
        }
        if self
            .fp8_kinds
            .iter()
            .any(|k| Some(k.as_str()) == kind_name(module.kind))
        {
            return false;
        }
        !matches!(self.method, QuantMethod::Fp8 | QuantMethod::Nvfp4)
    }

    /// Bytes one module takes on the GPU.
    pub fn module_bytes(&self, module: &Module, model_dtype: FloatDtype) -> u64 {
        let (inp, out, n) = (module.in_features, module.out_features, module.count);
        if !self.quantizes(module) {
            return inp * out * n * model_dtype.bytes();
        }
        if module.fp8 {
            return (inp * out + out * 4) * n;
        }
        if self
            .fp8_kinds
            .iter()
            .any(|k| Some(k.as_str()) == kind_name(module.kind))
        {
            // Per-tensor fp8 (ModelOpt's mixed precision), or with the
            // block scales of the fp8 group or checkpoint (compressed-tensors
            // `strategy: block`, DeepSeek-V4).
            return match self.block {
                Some([bo, bi]) => inp * out + out.div_ceil(bo.max(1)) * inp.div_ceil(bi.max(1)) * 4,
                None => inp * out + 4,
            } * n;
        }
        let per = match self.method {
            QuantMethod::None => inp * out * model_dtype.bytes(),
            QuantMethod::Fp8 => match self.block {
                Some([bo, bi]) => inp * out + out.div_ceil(bo.max(1)) * inp.div_ceil(bi.max(1)) * 4,
                None if self.per_tensor => inp * out + 4,
                None => inp * out + out * 4,
            },
            QuantMethod::Mxfp4 if module.kind == ModuleKind::ExpertLinear => {
                mxfp4_expert_bytes(inp, out, self.release.unwrap_or(crate::version::MODELLED))
            }
            QuantMethod::Mxfp4 => (inp * out * 4).div_ceil(8) + out * inp.div_ceil(32),
            QuantMethod::Nvfp4 => (inp * out * 4).div_ceil(8) + out * inp.div_ceil(16) + 4,
            // vllm/model_executor/layers/quantization/bitsandbytes.py keeps
            // the packed weights and bitsandbytes' quant state.
            QuantMethod::Bitsandbytes if self.bits == 8 => inp * out + out * 4,
            QuantMethod::Bitsandbytes => {
                let blocks = (inp * out).div_ceil(self.group_size.unwrap_or(64).max(1));
                let absmax = if self.double_quant {
                    blocks + blocks.div_ceil(256) * 4
                } else {
                    blocks * 4
                };
                (inp * out).div_ceil(2) + absmax
            }
            QuantMethod::Awq | QuantMethod::Gptq | QuantMethod::CompressedTensors => {
                let groups = match self.group_size {
                    Some(g) => inp.div_ceil(g),
                    None => 1,
                };
                let packed = (inp * out * self.bits).div_ceil(8);
                let scales = out * groups * 2;
                let zeros = if self.zero_point {
                    (out * groups * self.bits).div_ceil(8)
                } else {
                    0
                };
                packed + scales + zeros
            }
        };
        per * n
    }
}

/// One MXFP4 expert matrix `[out, in]` as vLLM's TRITON MoE backend (the
/// Hopper default) holds it after loading
/// (docs/reference/gpt-oss-mxfp4-weights.md; `quantization/mxfp4.py`,
/// `fused_moe/oracle/mxfp4.py`, `quantization/utils/mxfp4_utils.py`, the
/// bundled `triton_kernels` layouts): the swizzled 4-bit values (both
/// dimensions padded to 64 bytes with the Triton kernels of 0.17-0.21), the
/// swizzled uint8 block scales (`round_up(out, 256) x round_up(in / 32, 2)`,
/// 4 from 0.26 on), and before 0.25 the checkpoint's scales too, which stay
/// registered. Other backends are assumed to hold the same.
fn mxfp4_expert_bytes(inp: u64, out: u64, v: crate::version::VllmVersion) -> u64 {
    use crate::version::{MXFP4_SCALES_FREED, MXFP4_SCALE_K_PAD_4, MXFP4_VALUE_PAD};
    let pad = |x: u64, m: u64| x.div_ceil(m) * m;
    let value_pad = if MXFP4_VALUE_PAD.contains(&v) { 64 } else { 1 };
    let values = pad(out, value_pad) * pad(inp.div_ceil(2), value_pad);
    let groups = inp.div_ceil(32);
    let k_pad = if v >= MXFP4_SCALE_K_PAD_4 { 4 } else { 2 };
    let swizzled = pad(out, 256) * pad(groups, k_pad);
    let checkpoint = if v < MXFP4_SCALES_FREED {
        out * groups
    } else {
        0
    };
    values + swizzled + checkpoint
}

/// The name `unquantized` and `fp8_kinds` use for a module kind.
fn kind_name(kind: ModuleKind) -> Option<&'static str> {
    match kind {
        ModuleKind::AttentionLinear => Some("attention"),
        ModuleKind::MambaLinear => Some("mamba"),
        ModuleKind::MlpLinear => Some("mlp"),
        ModuleKind::ExpertLinear => Some("experts"),
        ModuleKind::LmHead => Some("lm_head"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn linear(in_features: u64, out_features: u64) -> Module {
        Module {
            name: "up_proj",
            kind: ModuleKind::MlpLinear,
            in_features,
            out_features,
            count: 1,
            fp8: false,
        }
    }

    #[test]
    fn awq_int4_group_128_is_half_a_byte_plus_2_5_bytes_per_group() {
        let q = WeightQuant::for_method(QuantMethod::Awq);
        let m = linear(5120, 20480);
        // 5120*20480/2 packed + 20480*40 groups*(2 B scale + 0.5 B zero).
        assert_eq!(
            q.module_bytes(&m, FloatDtype::Bfloat16),
            52_428_800 + 2_048_000
        );
        let bits_per_weight =
            q.module_bytes(&m, FloatDtype::Bfloat16) as f64 * 8.0 / (5120.0 * 20480.0);
        assert_relative_eq!(bits_per_weight, 4.15625, epsilon = 1e-9);
    }

    #[test]
    fn embedding_and_lm_head_stay_at_model_dtype() {
        let q = WeightQuant::for_method(QuantMethod::Awq);
        let head = Module {
            name: "lm_head",
            kind: ModuleKind::LmHead,
            in_features: 5120,
            out_features: 131_072,
            count: 1,
            fp8: false,
        };
        assert_eq!(
            q.module_bytes(&head, FloatDtype::Bfloat16),
            5120 * 131_072 * 2
        );
    }

    #[test]
    fn fp8_is_one_byte_plus_channel_scales_and_kinds_can_be_excluded() {
        let mut q = WeightQuant::for_method(QuantMethod::Fp8);
        let m = linear(4096, 14336);
        assert_eq!(
            q.module_bytes(&m, FloatDtype::Bfloat16),
            4096 * 14336 + 14336 * 4
        );
        q.unquantized.push("mlp".into());
        assert_eq!(q.module_bytes(&m, FloatDtype::Bfloat16), 4096 * 14336 * 2);
    }

    #[test]
    fn bad_settings_are_rejected() {
        let mut q = WeightQuant::for_method(QuantMethod::Awq);
        q.bits = 5;
        assert!(q.validate().is_err());
        q.bits = 4;
        q.group_size = Some(0);
        assert!(q.validate().unwrap_err().message.contains("group_size"));
        assert!(QuantMethod::parse("--quantization", "int3").is_err());
        let mut q = WeightQuant::for_method(QuantMethod::Nvfp4);
        let layers = |kind: &str, first, last| Fp8Layers {
            kind: kind.into(),
            first,
            last,
        };
        q.fp8_layers = vec![layers("mlp", 56, 63)];
        assert!(q.validate().is_ok());
        for (bad, field) in [
            (layers("lm_head", 0, 0), "fp8_layers.kind"),
            (layers("mlp", 63, 56), "fp8_layers.first"),
        ] {
            q.fp8_layers = vec![bad];
            assert!(q.validate().unwrap_err().message.contains(field), "{field}");
        }
    }
}
