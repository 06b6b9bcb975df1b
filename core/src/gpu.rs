//! A GPU as the calculator needs it.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    pub id: String,
    pub name: String,
    /// Other names the preset answers to (`h100` for `h100-sxm`), matched
    /// case-insensitively like the id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Device memory as the CUDA runtime reports it (`cudaMemGetInfo` total),
    /// which is what vLLM multiplies by `--gpu-memory-utilization`. Not the
    /// marketing figure: an RTX 3090 "24 GB" reports about 23.69 GiB.
    pub memory_bytes: u64,
    /// Peak DRAM bandwidth, GB/s (10^9 bytes per second).
    pub bandwidth_gb_s: f64,
    /// Dense FP16/BF16 tensor throughput with FP32 accumulate, TFLOPS.
    pub fp16_tflops: f64,
    /// Dense FP16 tensor throughput with FP16 accumulate, TFLOPS, where it
    /// differs (GeForce cards run it at twice the FP32-accumulate rate).
    #[serde(default)]
    pub fp16_acc16_tflops: Option<f64>,
    pub tdp_w: f64,
    /// Streaming multiprocessors (AMD: compute units) as the runtime reports
    /// them; sizes the sampler's Triton scratch at start-up.
    #[serde(default)]
    pub sm_count: Option<u64>,
    /// L2 cache as the runtime reports it; Inductor's autotuning flushes it
    /// with a buffer of this size during vLLM's profile run.
    #[serde(default)]
    pub l2_cache_bytes: Option<u64>,
    /// Link between GPUs of one server (`pcie4`, `nvlink4`, ...), for tensor parallelism.
    #[serde(default)]
    pub interconnect: Option<String>,
    /// Per-GPU unidirectional interconnect bandwidth, GB/s.
    #[serde(default)]
    pub interconnect_gb_s: Option<f64>,
    /// Whether the driver gives GPU peer-to-peer access between cards
    /// (default true). GeForce drivers from Ada on block it, so vLLM's
    /// custom all-reduce cannot run and NCCL does even at 2 GPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p2p: Option<bool>,
    /// The family whose kernels behave alike (`ampere-geforce`, `hopper`, ...):
    /// an uncalibrated GPU borrows the nearest family's calibration.
    #[serde(default)]
    pub calibration_class: Option<String>,
    /// Where the figures come from. Empty in the web page's embedded
    /// presets (core/build.rs: the page shows no provenance).
    pub source: String,
    /// Kernel figures fitted to measured kernel tables
    /// (`timing::kernels`; `scripts/aiconfigurator/fit_kernels.py`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernels: Option<crate::timing::KernelFigures>,
    /// A GPU without tables of its own: the preset whose kernel figures it
    /// takes (same architecture; efficiencies are fractions of this GPU's
    /// own bandwidth and peak).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernels_from: Option<String>,
}

/// Calibration classes in order of kernel generation, with their segment;
/// distance between two classes = 10 if the segments differ, plus how many
/// generations apart they are. Generations count from Volta (0): Turing 1,
/// Ampere 2, Ada 3, Hopper 4, Blackwell 5 (RTX PRO and DGX Spark share the
/// GeForce Blackwell kernels, sm_120/121); CDNA3 sits with Hopper, CDNA4 with
/// Blackwell.
pub const CALIBRATION_CLASSES: [(&str, &str, u32); 11] = [
    ("ampere-geforce", "geforce", 2),
    ("ada-geforce", "geforce", 3),
    ("blackwell-geforce", "geforce", 5),
    ("volta-datacenter", "datacenter", 0),
    ("turing-datacenter", "datacenter", 1),
    ("ampere-datacenter", "datacenter", 2),
    ("ada-datacenter", "datacenter", 3),
    ("hopper", "datacenter", 4),
    ("blackwell-datacenter", "datacenter", 5),
    ("cdna3", "amd", 4),
    ("cdna4", "amd", 5),
];

/// How far apart two calibration classes are (None if either is unknown).
pub fn class_distance(a: &str, b: &str) -> Option<u32> {
    let find = |c: &str| CALIBRATION_CLASSES.iter().find(|x| x.0 == c);
    let (x, y) = (find(a)?, find(b)?);
    Some(if x.1 == y.1 { 0 } else { 10 } + x.2.abs_diff(y.2))
}

impl Gpu {
    /// Reject a calibration class that is not one of [`CALIBRATION_CLASSES`].
    fn validate_class(&self) -> Result<()> {
        match &self.calibration_class {
            Some(c) if class_distance(c, c).is_none() => {
                let names: Vec<&str> = CALIBRATION_CLASSES.iter().map(|x| x.0).collect();
                Err(Error::field(
                    "gpu.calibration_class",
                    c,
                    format!("one of {}", names.join(", ")),
                ))
            }
            _ => Ok(()),
        }
    }

    /// The tensor peak the timing model's GEMM efficiencies are relative to:
    /// the FP16-accumulate rate where the card has one. On the reference RTX
    /// 3090 the measured cold prefill alone reaches 78.6 TFLOPS on its linear
    /// layers (3,587 tok/s x 21.9 GFLOP/token), above the 71 TFLOPS
    /// FP32-accumulate peak, so the kernels run at the faster rate.
    pub fn gemm_peak_flops(&self) -> f64 {
        self.fp16_acc16_tflops.unwrap_or(self.fp16_tflops) * 1e12
    }

    /// Peak DRAM bandwidth, bytes per second.
    pub fn bandwidth_bytes_s(&self) -> f64 {
        self.bandwidth_gb_s * 1e9
    }

    pub fn validate(&self) -> Result<()> {
        if self.memory_bytes < 1 << 30 || self.memory_bytes > 1 << 50 {
            return Err(Error::field(
                "gpu.memory_bytes",
                self.memory_bytes,
                "the device memory in bytes, from 2^30 (1 GiB) to 2^50 (1 PiB)",
            ));
        }
        // Physically plausible ranges, wide enough for every card from a T4
        // to the next generations, narrow enough that a typo (1e-300, 1e30)
        // cannot give a "valid" cell of 0 tok/s or a 300-digit TTFT.
        for (field, v, lo, hi) in [
            ("gpu.bandwidth_gb_s", self.bandwidth_gb_s, 10.0, 1e5),
            ("gpu.fp16_tflops", self.fp16_tflops, 1.0, 1e5),
            ("gpu.tdp_w", self.tdp_w, 5.0, 1e4),
            (
                "gpu.fp16_acc16_tflops",
                self.fp16_acc16_tflops.unwrap_or(self.fp16_tflops),
                1.0,
                1e5,
            ),
            (
                "gpu.interconnect_gb_s",
                self.interconnect_gb_s.unwrap_or(1.0),
                0.1,
                1e5,
            ),
        ] {
            if !(v.is_finite() && (lo..=hi).contains(&v)) {
                return Err(Error::field(
                    field,
                    crate::units::short_float(v),
                    format!("a number from {lo} to {hi} (physically plausible for a GPU)"),
                ));
            }
        }
        if let Some(k) = &self.kernels {
            k.validate("gpu")?;
        }
        self.validate_class()
    }

    /// The link between its GPUs, as a kind.
    pub fn link(&self) -> crate::timing::LinkKind {
        crate::timing::LinkKind::of(self.interconnect.as_deref())
    }

    /// The all-reduce constants of `implementation` on this GPU: its own
    /// or borrowed kernel figures' when they were measured on the same kind
    /// of link, else the link kind's defaults.
    pub fn allreduce_kernel(
        &self,
        implementation: crate::timing::AllReduceImpl,
    ) -> crate::timing::AllReduceKernel {
        self.allreduce_kernel_of(self.kernel_figures().as_ref(), implementation)
    }

    /// [`Gpu::allreduce_kernel`] from figures already resolved by
    /// [`Gpu::kernel_figures`].
    pub fn allreduce_kernel_of(
        &self,
        figures: Option<&(crate::timing::KernelFigures, Option<String>)>,
        implementation: crate::timing::AllReduceImpl,
    ) -> crate::timing::AllReduceKernel {
        let measured = figures.and_then(|(k, from)| {
            let same_link = match from {
                None => true,
                Some(id) => crate::presets::gpu(id).is_ok_and(|g| g.link() == self.link()),
            };
            same_link
                .then(|| {
                    k.allreduce
                        .iter()
                        .copied()
                        .find(|a| a.implementation == implementation)
                })
                .flatten()
        });
        measured.unwrap_or_else(|| self.link().defaults(implementation))
    }

    /// The kernel figures its step times use: its own, else those of the
    /// preset it names in `kernels_from` (with that preset's id), else none
    /// (the fitted efficiencies of `TimingParams` stand in).
    pub fn kernel_figures(&self) -> Option<(crate::timing::KernelFigures, Option<String>)> {
        if let Some(k) = &self.kernels {
            return Some((k.clone(), None));
        }
        let from = self.kernels_from.as_deref()?;
        let other = crate::presets::gpu(from).ok()?;
        Some((other.kernels?, Some(from.to_string())))
    }
}
