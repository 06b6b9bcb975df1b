//! A GPU as the calculator needs it.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    pub id: String,
    pub name: String,
    /// Device memory as the CUDA runtime reports it (`cudaMemGetInfo` total),
    /// which is what vLLM multiplies by `--gpu-memory-utilization`. Not the
    /// marketing figure: an RTX 3090 "24 GB" reports about 23.69 GiB.
    pub memory_bytes: u64,
    /// Peak DRAM bandwidth, GB/s (10^9 bytes per second).
    pub bandwidth_gb_s: f64,
    /// Dense FP16/BF16 tensor throughput with FP32 accumulate, TFLOPS.
    pub fp16_tflops: f64,
    pub tdp_w: f64,
    /// Where the figures come from.
    pub source: String,
}

impl Gpu {
    pub fn validate(&self) -> Result<()> {
        if self.memory_bytes == 0 {
            return Err(Error::field(
                "gpu.memory_bytes",
                0,
                "the device memory in bytes, a positive whole number",
            ));
        }
        for (field, v) in [
            ("gpu.bandwidth_gb_s", self.bandwidth_gb_s),
            ("gpu.fp16_tflops", self.fp16_tflops),
            ("gpu.tdp_w", self.tdp_w),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::field(field, v, "a positive number"));
            }
        }
        Ok(())
    }
}
