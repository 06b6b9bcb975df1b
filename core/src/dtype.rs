//! Data types: the model's own dtype, vLLM's `--kv-cache-dtype` values and the
//! Mamba state dtypes (`--mamba-cache-dtype`, `--mamba-ssm-cache-dtype`).

use crate::error::AsSubject;
use crate::error::{Error, Result};
use serde::Serialize;

/// A floating-point dtype a model or a state tensor is held in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FloatDtype {
    Float32,
    Bfloat16,
    Float16,
}

impl FloatDtype {
    pub fn bytes(self) -> u64 {
        match self {
            FloatDtype::Float32 => 4,
            FloatDtype::Bfloat16 | FloatDtype::Float16 => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FloatDtype::Float32 => "float32",
            FloatDtype::Bfloat16 => "bfloat16",
            FloatDtype::Float16 => "float16",
        }
    }

    /// Parse a Hugging Face `torch_dtype` / `dtype` value.
    pub fn parse(field: impl AsSubject, text: &str) -> Result<Self> {
        match text {
            "float32" | "fp32" => Ok(FloatDtype::Float32),
            "bfloat16" | "bf16" => Ok(FloatDtype::Bfloat16),
            "float16" | "fp16" | "half" => Ok(FloatDtype::Float16),
            _ => Err(Error::field(
                field,
                text,
                "one of float32, bfloat16, float16",
            )),
        }
    }
}

/// Every value vLLM 0.32's `--kv-cache-dtype` accepts
/// (docs/reference/vllm-memory-model.md section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum KvCacheDtype {
    Auto,
    Bfloat16,
    Float16,
    Fp8,
    Fp8E4m3,
    Fp8E5m2,
    Fp8PerTokenHead,
    Int8PerTokenHead,
    Int4PerTokenHead,
}

impl KvCacheDtype {
    pub const ALL: [KvCacheDtype; 9] = [
        KvCacheDtype::Auto,
        KvCacheDtype::Bfloat16,
        KvCacheDtype::Float16,
        KvCacheDtype::Fp8,
        KvCacheDtype::Fp8E4m3,
        KvCacheDtype::Fp8E5m2,
        KvCacheDtype::Fp8PerTokenHead,
        KvCacheDtype::Int8PerTokenHead,
        KvCacheDtype::Int4PerTokenHead,
    ];

    pub fn name(self) -> &'static str {
        match self {
            KvCacheDtype::Auto => "auto",
            KvCacheDtype::Bfloat16 => "bfloat16",
            KvCacheDtype::Float16 => "float16",
            KvCacheDtype::Fp8 => "fp8",
            KvCacheDtype::Fp8E4m3 => "fp8_e4m3",
            KvCacheDtype::Fp8E5m2 => "fp8_e5m2",
            KvCacheDtype::Fp8PerTokenHead => "fp8_per_token_head",
            KvCacheDtype::Int8PerTokenHead => "int8_per_token_head",
            KvCacheDtype::Int4PerTokenHead => "int4_per_token_head",
        }
    }

    pub fn parse(field: impl AsSubject, text: &str) -> Result<Self> {
        KvCacheDtype::ALL
            .into_iter()
            .find(|d| d.name() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = KvCacheDtype::ALL.iter().map(|d| d.name()).collect();
                Error::field(field, text, format!("one of {}", names.join(", ")))
            })
    }

    /// Bytes one token occupies in one attention layer for one KV head, K and V
    /// together, scales included. `model_dtype` resolves `auto`.
    ///
    /// Source: docs/reference/vllm-memory-model.md section 4:
    /// 16-bit: `2 * head_dim * 2`; fp8 (per-tensor scales): `2 * head_dim`;
    /// fp8/int8 per token-head: `2 * head_dim + 8` (an fp32 scale for K and for V);
    /// int4 per token-head: `head_dim + 8` (two 4-bit halves, fp32 scale each).
    pub fn bytes_per_token_per_head(self, head_dim: u64, model_dtype: FloatDtype) -> u64 {
        match self {
            KvCacheDtype::Auto => 2 * head_dim * model_dtype.bytes(),
            KvCacheDtype::Bfloat16 | KvCacheDtype::Float16 => 2 * head_dim * 2,
            KvCacheDtype::Fp8 | KvCacheDtype::Fp8E4m3 | KvCacheDtype::Fp8E5m2 => 2 * head_dim,
            KvCacheDtype::Fp8PerTokenHead | KvCacheDtype::Int8PerTokenHead => 2 * head_dim + 8,
            KvCacheDtype::Int4PerTokenHead => head_dim + 8,
        }
    }
}

/// `--mamba-cache-dtype` / `--mamba-ssm-cache-dtype`: `auto` or a float dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MambaDtype {
    Auto,
    Fixed(FloatDtype),
}

impl MambaDtype {
    pub fn parse(field: impl AsSubject, text: &str) -> Result<Self> {
        match text {
            "auto" => Ok(MambaDtype::Auto),
            "float32" => Ok(MambaDtype::Fixed(FloatDtype::Float32)),
            "bfloat16" => Ok(MambaDtype::Fixed(FloatDtype::Bfloat16)),
            "float16" => Ok(MambaDtype::Fixed(FloatDtype::Float16)),
            _ => Err(Error::field(
                field,
                text,
                "one of auto, float32, bfloat16, float16",
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MambaDtype::Auto => "auto",
            MambaDtype::Fixed(d) => d.name(),
        }
    }

    pub fn resolve(self, auto: FloatDtype) -> FloatDtype {
        match self {
            MambaDtype::Auto => auto,
            MambaDtype::Fixed(d) => d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kv_bytes_per_token_per_head_for_head_dim_128() {
        let bf16 = FloatDtype::Bfloat16;
        let expect = [
            (KvCacheDtype::Auto, 512),
            (KvCacheDtype::Bfloat16, 512),
            (KvCacheDtype::Float16, 512),
            (KvCacheDtype::Fp8, 256),
            (KvCacheDtype::Fp8E4m3, 256),
            (KvCacheDtype::Fp8E5m2, 256),
            (KvCacheDtype::Fp8PerTokenHead, 264),
            (KvCacheDtype::Int8PerTokenHead, 264),
            (KvCacheDtype::Int4PerTokenHead, 136),
        ];
        for (dtype, bytes) in expect {
            assert_eq!(
                dtype.bytes_per_token_per_head(128, bf16),
                bytes,
                "{dtype:?}"
            );
        }
        assert_eq!(
            KvCacheDtype::Auto.bytes_per_token_per_head(128, FloatDtype::Float32),
            1024
        );
    }

    #[test]
    fn kv_dtype_names_round_trip_and_reject_unknown() {
        for d in KvCacheDtype::ALL {
            assert_eq!(KvCacheDtype::parse("kv", d.name()), Ok(d));
        }
        let err = KvCacheDtype::parse("--kv-cache-dtype", "int3").unwrap_err();
        assert!(err.message.contains("int3"));
        assert!(err.hint.unwrap_or_default().contains("int4_per_token_head"));
    }
}
