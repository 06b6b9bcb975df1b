//! Tensor-parallel all-reduce: which implementation vLLM runs and what one
//! call costs. vLLM's rules are read from
//! `vllm/distributed/device_communicators/custom_all_reduce.py` (no code
//! copied): its own kernel runs for world sizes 2, 4, 6 and 8, above two
//! GPUs only when they are all NVLink-connected, only with working GPU
//! peer-to-peer access, and for messages under its 8 MiB buffer; NCCL runs
//! otherwise. Each implementation's latency is
//! `base + per_step x steps + bytes x 2 (n - 1) / n / (link bandwidth x bw_eff)`
//! (one step for vLLM's kernel per extra GPU, 2 (n - 1) for NCCL's ring),
//! with the constants fitted per GPU to aiconfigurator's measured
//! all-reduce tables (`scripts/aiconfigurator/fit_allreduce.py`, in the
//! GPU presets' `[[kernels.allreduce]]`); a GPU without tables of its own
//! link kind takes [`LinkKind`]'s defaults, fitted the same way to every
//! measured GPU of that kind.

use serde::{Deserialize, Serialize};

/// World sizes vLLM's custom all-reduce supports.
pub const CUSTOM_ALLREDUCE_WORLD_SIZES: [u64; 4] = [2, 4, 6, 8];

/// vLLM's custom all-reduce buffer: messages of this size or more go to NCCL.
pub const CUSTOM_ALLREDUCE_MAX_BYTES: f64 = 8.0 * 1024.0 * 1024.0;

/// The link between the GPUs of one server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// NVLink (every generation), or AMD's Infinity Fabric: all GPUs
    /// directly connected.
    NvLink,
    /// PCIe only.
    Pcie,
}

impl LinkKind {
    /// The kind of a GPU preset's `interconnect` (`nvlink4`, `pcie5`,
    /// `infinity-fabric`, ...); none named: PCIe.
    pub fn of(interconnect: Option<crate::gpu::Link>) -> LinkKind {
        if interconnect.is_some_and(crate::gpu::Link::is_fast) {
            LinkKind::NvLink
        } else {
            LinkKind::Pcie
        }
    }

    /// Constants for a GPU without all-reduce tables of this link kind:
    /// fitted to every measured GPU of the kind at once
    /// (`fit_allreduce.py`'s per-kind lines; for PCIe NCCL the RTX PRO 6000
    /// server's, since the L40S server's 4- and 8-GPU NCCL rows cross a
    /// host bridge and are no PCIe switch's figures).
    pub fn defaults(self, implementation: AllReduceImpl) -> AllReduceKernel {
        let (base_us, per_step_us, bw_eff) = match (self, implementation) {
            (LinkKind::NvLink, AllReduceImpl::Custom) => (5.18, 0.262, 0.407),
            (LinkKind::NvLink, AllReduceImpl::Nccl) => (7.48, 1.022, 0.496),
            (LinkKind::Pcie, AllReduceImpl::Custom) => (3.98, 0.796, 0.608),
            (LinkKind::Pcie, AllReduceImpl::Nccl) => (2.63, 1.913, 0.389),
        };
        AllReduceKernel {
            implementation,
            base_us,
            per_step_us,
            bw_eff,
        }
    }
}

/// Which all-reduce runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AllReduceImpl {
    /// vLLM's own one-/two-shot kernel over peer-to-peer memory.
    Custom,
    /// NCCL's ring.
    Nccl,
}

impl AllReduceImpl {
    /// vLLM's choice for `world` GPUs on `link`, with or without peer-to-
    /// peer access, for a message of `bytes` (`--disable-custom-all-reduce`
    /// is `p2p` false's effect, and is passed as such).
    pub fn choose(world: u64, link: LinkKind, p2p: bool, bytes: f64) -> AllReduceImpl {
        let custom = CUSTOM_ALLREDUCE_WORLD_SIZES.contains(&world)
            && (world == 2 || link == LinkKind::NvLink)
            && p2p
            && bytes < CUSTOM_ALLREDUCE_MAX_BYTES;
        if custom {
            AllReduceImpl::Custom
        } else {
            AllReduceImpl::Nccl
        }
    }
}

/// One all-reduce implementation's constants on one GPU.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllReduceKernel {
    pub implementation: AllReduceImpl,
    /// A call's fixed latency, microseconds.
    pub base_us: f64,
    /// What each step adds (a GPU more for vLLM's kernel, a ring step for
    /// NCCL), microseconds.
    pub per_step_us: f64,
    /// Fraction of the link's bandwidth the transfer reaches.
    pub bw_eff: f64,
}

impl AllReduceKernel {
    /// One all-reduce of `bytes` over `world` GPUs linked at
    /// `link_bytes_s` each way, seconds.
    pub fn latency_s(&self, world: u64, bytes: f64, link_bytes_s: f64) -> f64 {
        let n = world.max(1) as f64;
        let steps = match self.implementation {
            AllReduceImpl::Custom => n - 1.0,
            AllReduceImpl::Nccl => 2.0 * (n - 1.0),
        };
        (self.base_us + self.per_step_us * steps) * 1e-6
            + bytes * 2.0 * (n - 1.0) / n / (link_bytes_s * self.bw_eff)
    }
}
