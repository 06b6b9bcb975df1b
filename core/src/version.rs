//! vLLM releases: what changed between them that decodecalc models, each
//! entry citing the file and release it was read from
//! (docs/reference/vllm-decode-kernels.md; read from the PyPI wheels 0.6.3,
//! 0.8.0, 0.10.0, 0.11.0, 0.13.0, 0.14.0, 0.23.0 and 0.32.0, no code copied).
//!
//! The capacity model is 0.32's throughout; these entries serve the timing
//! model and the measured runs of other releases it is fitted on.

use crate::error::{Error, Result};
use serde::Serialize;

/// A vLLM release, `major.minor.patch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct VllmVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

/// The releases whose step structure and scheduler defaults are tabled here.
pub const OLDEST: VllmVersion = VllmVersion::new(0, 6, 0);
pub const NEWEST: VllmVersion = VllmVersion::new(0, 33, 0);

/// The release decodecalc's capacity model restates.
pub const MODELLED: VllmVersion = VllmVersion::new(0, 32, 0);

impl VllmVersion {
    pub const fn new(major: u32, minor: u32, patch: u32) -> VllmVersion {
        VllmVersion {
            major,
            minor,
            patch,
        }
    }

    /// `0.6.3`, `0.11`, `v0.23.0`, `0.10.1.post1` (the post and dev tails are
    /// ignored); refused outside [`OLDEST`]..=[`NEWEST`].
    pub fn parse(field: &str, text: &str) -> Result<VllmVersion> {
        let t = text.trim().trim_start_matches('v');
        let mut parts = t.split(['.', '+', '-']);
        let mut num = || parts.next().and_then(|p| p.parse::<u32>().ok());
        let (Some(major), Some(minor)) = (num(), num()) else {
            return Err(Error::field(
                field,
                text,
                "a vLLM release such as 0.32.0 or 0.11",
            ));
        };
        let patch = num().unwrap_or(0);
        let v = VllmVersion::new(major, minor, patch);
        if v < OLDEST || v > NEWEST {
            return Err(Error::field(
                field,
                text,
                format!("a vLLM release from {OLDEST} to {NEWEST}"),
            ));
        }
        Ok(v)
    }

    /// The V1 engine is the default from 0.8.0 (`envs.py`, `VLLM_USE_V1`);
    /// V0 is removed in 0.11.0.
    pub fn v1_engine(self) -> bool {
        self >= VllmVersion::new(0, 8, 0)
    }

    /// `--async-scheduling` is on unless disabled from 0.14.0
    /// (`config/scheduler.py`, `config/vllm.py`: `async_scheduling=None` is
    /// auto-on); 0.10.0 to 0.13 have the flag, off by default; before, no
    /// such mode.
    pub fn async_scheduling_default(self) -> bool {
        self >= VllmVersion::new(0, 14, 0)
    }

    /// V0 captures decode steps as CUDA graphs only while the longest
    /// context is at most `max_seq_len_to_capture`, 8192 by default
    /// (0.6.3 `config.py`, `ModelConfig`; `worker/model_runner.py`); V1
    /// captures every decode step whatever the context.
    pub fn max_seq_len_to_capture(self) -> Option<u64> {
        (!self.v1_engine()).then_some(8192)
    }
}

impl std::fmt::Display for VllmVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Who starts the engine: the OpenAI server (`vllm serve`) or the offline
/// `LLM` class; V1's batch defaults differ between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageContext {
    Serve,
    Offline,
}

const GIB: u64 = 1 << 30;

/// `(max_num_seqs, max_num_batched_tokens)` when neither is given.
///
/// - V0 (0.6.x, `engine/arg_utils.py`, `config.py::SchedulerConfig`): 256
///   sequences; chunked prefill is off unless max_model_len exceeds 32,768
///   (then on with a 512-token budget), and without it the budget is
///   `max(max_model_len, 2048)`.
/// - V1 (0.11.0 `engine/arg_utils.py::_set_default_args`, 0.23.0 / 0.32.0
///   `get_batch_defaults`): by device memory and name; a GPU of 70 GiB or
///   more whose name does not contain "A100" gets 1024 sequences and 8,192
///   tokens for the server (16,384 offline), others 256 and 2,048 (8,192
///   offline); from 0.32 a GPU of 160 GiB or more gets 1024 and 16,384 for
///   both. The budget never exceeds `max_num_seqs x max_model_len`.
pub fn batch_defaults(
    v: VllmVersion,
    usage: UsageContext,
    gpu_memory_bytes: u64,
    gpu_name: &str,
    max_model_len_tokens: u64,
) -> (u64, u64) {
    if !v.v1_engine() {
        let budget = if max_model_len_tokens > 32_768 {
            512
        } else {
            max_model_len_tokens.max(2048)
        };
        return (256, budget);
    }
    let a100 = gpu_name.to_ascii_lowercase().contains("a100");
    let (seqs, tokens) = if v >= VllmVersion::new(0, 32, 0) && gpu_memory_bytes >= 160 * GIB {
        (1024, 16_384)
    } else if gpu_memory_bytes >= 70 * GIB && !a100 {
        match usage {
            UsageContext::Serve => (1024, 8192),
            UsageContext::Offline => (1024, 16_384),
        }
    } else {
        match usage {
            UsageContext::Serve => (256, 2048),
            UsageContext::Offline => (256, 8192),
        }
    };
    (
        seqs,
        tokens.min(seqs.saturating_mul(max_model_len_tokens.max(1))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_are_bounded() {
        let v = |t| VllmVersion::parse("--vllm-version", t);
        assert_eq!(v("0.6.3").unwrap(), VllmVersion::new(0, 6, 3));
        assert_eq!(v("v0.11").unwrap(), VllmVersion::new(0, 11, 0));
        assert_eq!(v("0.10.1.post1").unwrap(), VllmVersion::new(0, 10, 1));
        let e = v("0.5.4").unwrap_err();
        assert!(e.hint.unwrap_or_default().contains("0.6.0 to 0.33.0"));
        assert!(v("latest").is_err());
        assert!(v("1.0").is_err());
    }

    #[test]
    fn async_scheduling_is_default_from_0_14() {
        assert!(!VllmVersion::new(0, 11, 0).async_scheduling_default());
        assert!(!VllmVersion::new(0, 13, 0).async_scheduling_default());
        assert!(VllmVersion::new(0, 14, 0).async_scheduling_default());
        assert!(VllmVersion::new(0, 32, 0).async_scheduling_default());
    }

    #[test]
    fn batch_defaults_follow_memory_name_and_release() {
        let a100 = 84_987_740_160;
        let h100 = 85_028_995_072;
        let b200 = 191_468_240_896;
        let d = batch_defaults;
        let (s, u) = (UsageContext::Serve, UsageContext::Offline);
        // The A100 80GB stays in the small tier by name.
        assert_eq!(
            d(MODELLED, s, a100, "NVIDIA A100-SXM4-80GB", 32_768),
            (256, 2048)
        );
        assert_eq!(
            d(MODELLED, s, h100, "NVIDIA H100 80GB HBM3", 32_768),
            (1024, 8192)
        );
        assert_eq!(
            d(MODELLED, u, h100, "NVIDIA H100 80GB HBM3", 32_768),
            (1024, 16_384)
        );
        // 160 GiB and more: 16,384 for the server too from 0.32, not in 0.23.
        assert_eq!(d(MODELLED, s, b200, "NVIDIA B200", 32_768), (1024, 16_384));
        assert_eq!(
            d(VllmVersion::new(0, 23, 0), s, b200, "NVIDIA B200", 32_768),
            (1024, 8192)
        );
        // V0: no chunked prefill up to 32K (the whole prompt in one step), 512 above.
        let v063 = VllmVersion::new(0, 6, 3);
        assert_eq!(d(v063, u, a100, "A100", 32_768), (256, 32_768));
        assert_eq!(d(v063, u, a100, "A100", 65_536), (256, 512));
        assert_eq!(d(v063, u, a100, "A100", 1024), (256, 2048));
        // Capped at max_num_seqs x max_model_len.
        assert_eq!(d(MODELLED, s, h100, "H100", 4), (1024, 4096));
    }
}
