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
//! - fp8: one byte per weight and an fp32 scale per output feature.

use crate::dtype::FloatDtype;
use crate::error::{Error, Result};
use crate::model::{Module, ModuleKind};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuantMethod {
    /// Unquantized: every weight at the model dtype.
    None,
    Awq,
    Gptq,
    CompressedTensors,
    Fp8,
}

impl QuantMethod {
    pub const NAMES: &'static str = "none, awq, gptq, compressed-tensors, fp8";

    pub fn parse(field: &str, text: &str) -> Result<Self> {
        match text {
            "none" | "bf16" | "bfloat16" | "fp16" | "float16" => Ok(QuantMethod::None),
            "awq" | "awq_marlin" => Ok(QuantMethod::Awq),
            "gptq" | "gptq_marlin" => Ok(QuantMethod::Gptq),
            "compressed-tensors" | "compressed_tensors" => Ok(QuantMethod::CompressedTensors),
            "fp8" => Ok(QuantMethod::Fp8),
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
        }
    }
}

/// A checkpoint's weight quantization.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
        }
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
        }
        q
    }

    pub fn validate(&self) -> Result<()> {
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

    fn quantizes(&self, module: &Module) -> bool {
        if self.method == QuantMethod::None {
            return false;
        }
        let listed = |s: &str| self.unquantized.iter().any(|u| u == s);
        let kind_name = match module.kind {
            ModuleKind::Embedding | ModuleKind::Other => return false,
            ModuleKind::LmHead => return self.lm_head_quantized && !listed("lm_head"),
            ModuleKind::AttentionLinear => "attention",
            ModuleKind::MambaLinear => "mamba",
            ModuleKind::MlpLinear => "mlp",
            ModuleKind::ExpertLinear => "experts",
        };
        !(listed(kind_name) || listed(module.name))
    }

    /// Bytes one module takes on the GPU.
    pub fn module_bytes(&self, module: &Module, model_dtype: FloatDtype) -> u64 {
        let (inp, out, n) = (module.in_features, module.out_features, module.count);
        if !self.quantizes(module) {
            return inp * out * n * model_dtype.bytes();
        }
        let per = match self.method {
            QuantMethod::None => inp * out * model_dtype.bytes(),
            QuantMethod::Fp8 => inp * out + out * 4,
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
    }
}
