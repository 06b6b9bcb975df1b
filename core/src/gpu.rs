//! A GPU as the calculator needs it.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::gpu))]
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
    /// The DRAM technology that bandwidth is of (every preset names it; a
    /// GPU file may leave it out). A GPU without kernel tables borrows a
    /// measured GPU's figures (`kernels_from`) of its own architecture and,
    /// where one was measured, of its memory kind
    /// (`gpus::every_kernel_lender_shares_the_architecture_and_memory_kind`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_type: Option<MemoryType>,
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
    /// Link between GPUs of one server, for tensor parallelism.
    #[serde(default)]
    pub interconnect: Option<Link>,
    /// Per-GPU unidirectional interconnect bandwidth, GB/s.
    #[serde(default)]
    pub interconnect_gb_s: Option<f64>,
    /// Whether the driver gives GPU peer-to-peer access between cards
    /// (default true). GeForce drivers from Ada on block it, so vLLM's
    /// custom all-reduce cannot run and NCCL does even at 2 GPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p2p: Option<bool>,
    /// The chip's architecture (`sm86`, `sm90`, `gfx942`, ...): what it
    /// computes natively ([`ARCHS`]).
    pub arch: Arch,
    /// Which line of boards it is; with `arch`, its calibration class
    /// ([`Gpu::calibration_class`]).
    pub segment: Segment,
    /// Where the figures come from. Empty in the web page's embedded
    /// presets (`presets::WithoutProse`: the page shows no provenance).
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

/// A GPU architecture: an NVIDIA compute capability (`sm_XY`) or an AMD
/// instruction set (`gfxNNN`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::gpu))]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    Sm70,
    Sm75,
    Sm80,
    Sm86,
    Sm89,
    Sm90,
    Sm100,
    Sm103,
    Sm120,
    Sm121,
    Gfx942,
    Gfx950,
}

/// What an architecture computes natively, and the calibration classes of
/// its boards: a row of [`Arch::info`]'s table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchInfo {
    /// The architecture's name (`Ampere`, `Hopper`, `CDNA3`, ...).
    pub name: &'static str,
    /// Kernel generation, counted from Volta (0): Turing 1, Ampere 2, Ada 3,
    /// Hopper 4, Blackwell 5; CDNA3 sits with Hopper, CDNA4 with Blackwell.
    pub generation: u32,
    /// bfloat16 arithmetic: vLLM's CUDA platform lists bfloat16 among its
    /// supported dtypes from compute capability 8.0 on
    /// (vllm/platforms/cuda.py); ROCm's CDNA chips have it.
    pub bf16: bool,
    /// FP8 tensor cores (Ada, Hopper, Blackwell, CDNA3 on): FP8 weights run
    /// native GEMMs, not a weight-only dequantizing kernel.
    pub fp8: bool,
    /// FP4 tensor cores (Blackwell, CDNA4): NVFP4 / MXFP4 weights run native GEMMs.
    pub fp4: bool,
    /// FlashAttention's kernels: vLLM's FLASH_ATTN backend supports compute
    /// capability 8.0 on (`supports_compute_capability`,
    /// vllm/v1/attention/backends/flash_attn.py); ROCm has its own flash
    /// kernels. Without them vLLM picks the Triton attention backend.
    pub flash_attention: bool,
    /// Calibration class of its GeForce and workstation boards, and of its
    /// data-centre boards ([`CALIBRATION_CLASSES`]).
    pub class_geforce: &'static str,
    pub class_datacenter: &'static str,
}

/// Every architecture a preset or a GPU file may name.
pub const ARCHS: [Arch; 12] = [
    Arch::Sm70,
    Arch::Sm75,
    Arch::Sm80,
    Arch::Sm86,
    Arch::Sm89,
    Arch::Sm90,
    Arch::Sm100,
    Arch::Sm103,
    Arch::Sm120,
    Arch::Sm121,
    Arch::Gfx942,
    Arch::Gfx950,
];

impl Arch {
    /// The table of capabilities: one row per architecture (the match is
    /// exhaustive, so a new architecture cannot miss its row), one column
    /// per field of [`ArchInfo`].
    pub const fn info(self) -> ArchInfo {
        const NONE: (bool, bool, bool) = (false, false, false);
        const BF16: (bool, bool, bool) = (true, false, false);
        const FP8: (bool, bool, bool) = (true, true, false);
        const FP4: (bool, bool, bool) = (true, true, true);
        #[rustfmt::skip]
        let (name, generation, bf16_fp8_fp4, flash_attention, classes) = match self {
            // arch          name                gen  bf16/fp8/fp4  flash  class of GeForce/workstation boards, of data-centre boards
            Arch::Sm70 =>   ("Volta",            0,   NONE,         false, ("volta-datacenter", "volta-datacenter")),
            Arch::Sm75 =>   ("Turing",           1,   NONE,         false, ("turing-datacenter", "turing-datacenter")),
            Arch::Sm80 =>   ("Ampere",           2,   BF16,         true,  ("ampere-datacenter", "ampere-datacenter")),
            Arch::Sm86 =>   ("Ampere",           2,   BF16,         true,  ("ampere-geforce", "ampere-datacenter")),
            Arch::Sm89 =>   ("Ada",              3,   FP8,          true,  ("ada-geforce", "ada-datacenter")),
            Arch::Sm90 =>   ("Hopper",           4,   FP8,          true,  ("hopper", "hopper")),
            Arch::Sm100 =>  ("Blackwell",        5,   FP4,          true,  ("blackwell-datacenter", "blackwell-datacenter")),
            Arch::Sm103 =>  ("Blackwell Ultra",  5,   FP4,          true,  ("blackwell-datacenter", "blackwell-datacenter")),
            Arch::Sm120 =>  ("Blackwell",        5,   FP4,          true,  ("blackwell-geforce", "blackwell-geforce")),
            Arch::Sm121 =>  ("Blackwell (GB10)", 5,   FP4,          true,  ("blackwell-geforce", "blackwell-geforce")),
            Arch::Gfx942 => ("CDNA3",            4,   FP8,          true,  ("cdna3", "cdna3")),
            Arch::Gfx950 => ("CDNA4",            5,   FP4,          true,  ("cdna4", "cdna4")),
        };
        ArchInfo {
            name,
            generation,
            bf16: bf16_fp8_fp4.0,
            fp8: bf16_fp8_fp4.1,
            fp4: bf16_fp8_fp4.2,
            flash_attention,
            class_geforce: classes.0,
            class_datacenter: classes.1,
        }
    }
}

/// The line of boards a GPU belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::gpu))]
#[serde(rename_all = "lowercase")]
pub enum Segment {
    Geforce,
    Workstation,
    Datacenter,
}

/// A GPU's DRAM technology, as its datasheet names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::gpu))]
#[serde(rename_all = "lowercase")]
pub enum MemoryType {
    Hbm2,
    Hbm2e,
    Hbm3,
    Hbm3e,
    Gddr6,
    Gddr6x,
    Gddr7,
    Lpddr5x,
}

/// The family of a [`MemoryType`]: stacked on the package, graphics DRAM
/// on the board, or low-power DRAM shared with the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryKind {
    Hbm,
    Gddr,
    Lpddr,
}

impl MemoryType {
    /// Its family.
    pub fn kind(self) -> MemoryKind {
        match self {
            MemoryType::Hbm2 | MemoryType::Hbm2e | MemoryType::Hbm3 | MemoryType::Hbm3e => {
                MemoryKind::Hbm
            }
            MemoryType::Gddr6 | MemoryType::Gddr6x | MemoryType::Gddr7 => MemoryKind::Gddr,
            MemoryType::Lpddr5x => MemoryKind::Lpddr,
        }
    }
}

/// The link between the GPUs of one server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::gpu))]
#[serde(rename_all = "kebab-case")]
pub enum Link {
    Pcie3,
    Pcie4,
    Pcie5,
    Nvlink2,
    Nvlink3,
    Nvlink4,
    Nvlink5,
    /// AMD's Infinity Fabric: all GPUs of the server directly connected.
    InfinityFabric,
    /// A network port between machines (DGX Spark's ConnectX-7).
    Connectx7,
}

impl Link {
    /// NVLink of any generation or Infinity Fabric: every GPU directly
    /// connected to every other.
    pub fn is_fast(self) -> bool {
        matches!(
            self,
            Link::Nvlink2 | Link::Nvlink3 | Link::Nvlink4 | Link::Nvlink5 | Link::InfinityFabric
        )
    }

    /// NVSwitch multicast (NVLS): Hopper and Blackwell SXM (NVLink 4 and 5).
    pub fn has_multicast(self) -> bool {
        matches!(self, Link::Nvlink4 | Link::Nvlink5)
    }
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
    /// The family whose kernels behave alike (`ampere-geforce`, `hopper`,
    /// ...), from its architecture and segment: an uncalibrated GPU borrows
    /// the nearest family's calibration.
    pub fn calibration_class(&self) -> &'static str {
        let info = self.arch.info();
        match self.segment {
            Segment::Datacenter => info.class_datacenter,
            Segment::Geforce | Segment::Workstation => info.class_geforce,
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
        Ok(())
    }

    /// The link between its GPUs, as a kind.
    pub fn link(&self) -> crate::timing::LinkKind {
        crate::timing::LinkKind::of(self.interconnect)
    }

    /// The all-reduce constants of `implementation` on this GPU: its own
    /// or borrowed kernel figures' when they were measured on the same kind
    /// of link, else the link kind's defaults; NCCL's through host memory
    /// when the cards have no peer-to-peer access
    /// ([`crate::timing::AllReduceKernel::through_host`]).
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
        let kernel = measured.unwrap_or_else(|| self.link().defaults(implementation));
        // Without peer access NCCL stages its ring steps through host memory.
        if self.p2p == Some(false) {
            kernel.through_host()
        } else {
            kernel
        }
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
        let mut kernels = other.kernels?;
        // A dequantizing kernel's bandwidth efficiency is set by the ALU work
        // each byte it streams costs against the memory's rate (int4: 0.72
        // of peak on the A100's HBM2e, 0.84 on the L40S's GDDR6, 0.50 on the
        // H200's HBM3e), so it travels only to a GPU of the lender's memory
        // kind; its floor, timed on cache-resident shapes, travels within
        // the architecture.
        kernels.weight_only_floor_only =
            self.memory_type.is_none() || self.memory_type != other.memory_type;
        Some((kernels, Some(from.to_string())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The architecture table and the class table agree: each board line of
    /// an architecture lands in a known class of the same generation.
    #[test]
    fn every_architecture_names_classes_of_its_generation() {
        for arch in ARCHS {
            let info = arch.info();
            for class in [info.class_geforce, info.class_datacenter] {
                let row = CALIBRATION_CLASSES.iter().find(|c| c.0 == class);
                assert_eq!(row.map(|c| c.2), Some(info.generation), "{arch:?}: {class}");
            }
            // Capabilities only accumulate: fp4 implies fp8 implies bf16.
            assert!(!info.fp4 || info.fp8, "{arch:?}");
            assert!(!info.fp8 || info.bf16, "{arch:?}");
        }
        // A data-centre GA102 (A10, A40) is calibrated with the A100s, the
        // same chip on a GeForce or workstation board with the RTX 3090.
        assert_eq!(Arch::Sm86.info().class_datacenter, "ampere-datacenter");
        assert_eq!(Arch::Sm86.info().class_geforce, "ampere-geforce");
        assert!(!Arch::Sm75.info().bf16 && Arch::Sm80.info().bf16);
        assert!(!Arch::Sm86.info().fp8 && Arch::Sm89.info().fp8 && !Arch::Sm90.info().fp4);
    }
}
