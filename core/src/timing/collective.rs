//! The collectives a step makes across GPUs: the tensor-parallel
//! all-reduce (which implementation vLLM runs and what one call costs) and,
//! under data parallelism, the MoE layers' dispatch and combine
//! ([`MoeParallel`]). vLLM's rules are read from
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
    /// NCCL's all-gather and reduce-scatter likewise (`fit_allreduce.py
    /// --gather-scatter`), PCIe's the RTX PRO 6000 server's.
    pub fn defaults(self, implementation: AllReduceImpl) -> AllReduceKernel {
        let (base_us, per_step_us, bw_eff) = match (self, implementation) {
            (LinkKind::NvLink, AllReduceImpl::Custom) => (5.18, 0.262, 0.407),
            (LinkKind::NvLink, AllReduceImpl::Nccl) => (7.48, 1.022, 0.496),
            (LinkKind::NvLink, AllReduceImpl::GatherScatter) => (7.30, 1.047, 0.410),
            (LinkKind::Pcie, AllReduceImpl::Custom) => (3.98, 0.796, 0.608),
            (LinkKind::Pcie, AllReduceImpl::Nccl) => (2.63, 1.913, 0.389),
            (LinkKind::Pcie, AllReduceImpl::GatherScatter) => (4.09, 1.962, 0.349),
        };
        AllReduceKernel {
            implementation,
            base_us,
            per_step_us,
            bw_eff,
            large_base_us: None,
            large_bw_eff: None,
        }
    }
}

/// A collective with measured constants: the two all-reduces vLLM picks
/// between ([`AllReduceImpl::choose`]), and NCCL's all-gather or
/// reduce-scatter, which dispatch and combine a MoE layer's tokens under
/// data parallelism ([`MoeParallel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
#[serde(rename_all = "snake_case")]
pub enum AllReduceImpl {
    /// vLLM's own one-/two-shot kernel over peer-to-peer memory.
    Custom,
    /// NCCL's ring.
    Nccl,
    /// NCCL's all-gather or reduce-scatter (`ncclAllGather`,
    /// `ncclReduceScatter`): the same ring steps and bytes, one set of
    /// constants fitted to both tables (within 12.2% median of each on
    /// every measured GPU but the L40S server).
    GatherScatter,
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

/// Microseconds each NCCL ring step takes between GPUs without peer-to-peer
/// access (GeForce cards on stock drivers, or `NCCL_P2P_DISABLE=1`): NCCL
/// moves the step through host memory (its SHM transport) instead of
/// writing into the peer's memory, one PCIe crossing out of the sender and
/// one into the receiver. Derived from a published vLLM A/B on one rig in
/// one sitting, no decodecalc run (noonghunna/club-3090 issue 873,
/// summarised in its `docs/PCIE_P2P.md` at 4a29ab57: 2 x RTX 5090, vLLM
/// 0.25.1, Qwen3.6-35B-A3B NVFP4 at TP 2, decode 218.60 / 221.96 tok/s
/// with P2P off against 299.18 / 299.08 with P2P and vLLM's custom
/// all-reduce): 1.23 / 1.16 ms a token more over the step's 80
/// all-reduces, 15.4 / 14.5 µs a call on top of the custom kernel's
/// 4.9 µs ([`LinkKind::defaults`], 4 KiB), so about 19.8 µs an NCCL
/// call, `base + 2 steps` with PCIe NCCL's 2.63 µs base: 8.5 µs a step.
/// The copy latency `p2pBandwidthLatencyTest` measures with peer access
/// off, two crossings, agrees: 15.23 µs on a 2 x RTX 3090 (the same
/// file), about 14 µs on RTX PRO 6000s (voipmonitor/rtx6kpro
/// `hardware/pcie-bandwidth.md`), 7 to 7.6 µs a crossing. The source
/// calls the rig's P2P-off baseline low (17.7% under an earlier sitting;
/// against that one the difference is 3.8 µs a call), so this is the
/// upper end of what host staging costs on PCIe 5.
pub const NCCL_HOST_STEP_US: f64 = 8.5;

/// One all-reduce implementation's constants on one GPU.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
#[serde(deny_unknown_fields)]
pub struct AllReduceKernel {
    pub implementation: AllReduceImpl,
    /// A call's fixed latency, microseconds.
    pub base_us: f64,
    /// What each step adds (a GPU more for vLLM's kernel and NCCL's
    /// all-gather and reduce-scatter, a ring step for NCCL's all-reduce),
    /// microseconds.
    pub per_step_us: f64,
    /// Fraction of the link's bandwidth the transfer reaches.
    pub bw_eff: f64,
    /// NCCL's large-message regime, where the GPU's table shows one: a
    /// protocol of higher fixed latency (microseconds) and higher
    /// bandwidth (fraction of the link's), which NCCL's tuner takes once it
    /// is the faster (`fit_allreduce.py`, rows from 16 MiB: a prefill
    /// chunk's all-reduce, 42.6 MB for 4,160 tokens of a 5,120-wide model,
    /// takes 318 us on 8 H100s by the small-message line and about 230 us
    /// in the table). Absent: the one line holds at every size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub large_base_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub large_bw_eff: Option<f64>,
}

impl AllReduceKernel {
    /// The same collective between GPUs without peer-to-peer access: NCCL's
    /// ring steps go through host memory ([`NCCL_HOST_STEP_US`] each, at
    /// least); vLLM's custom kernel needs peer access and is left as is
    /// (`AllReduceImpl::choose` never picks it then).
    pub fn through_host(self) -> AllReduceKernel {
        match self.implementation {
            AllReduceImpl::Custom => self,
            // Through host memory no transfer reaches the link's
            // large-message bandwidth: the one line, with its slower steps.
            AllReduceImpl::Nccl | AllReduceImpl::GatherScatter => AllReduceKernel {
                per_step_us: self.per_step_us.max(NCCL_HOST_STEP_US),
                large_base_us: None,
                large_bw_eff: None,
                ..self
            },
        }
    }

    /// One call over `world` GPUs linked at `link_bytes_s` each way,
    /// seconds: an all-reduce of `bytes` on each GPU (each sends and
    /// receives `2 (n - 1) / n` of it), or an all-gather or reduce-scatter
    /// whose whole buffer (the gathered output, the reduced input) is
    /// `bytes` (each GPU moves `(n - 1) / n` of it; nccl-tests' size, the
    /// tables' `buffer_bytes`).
    pub fn latency_s(&self, world: u64, bytes: f64, link_bytes_s: f64) -> f64 {
        let n = world.max(1) as f64;
        let (steps, moved) = match self.implementation {
            AllReduceImpl::Custom => (n - 1.0, 2.0),
            AllReduceImpl::Nccl => (2.0 * (n - 1.0), 2.0),
            AllReduceImpl::GatherScatter => (n - 1.0, 1.0),
        };
        let transfer = |eff: f64| bytes * moved * (n - 1.0) / n / (link_bytes_s * eff);
        let small = (self.base_us + self.per_step_us * steps) * 1e-6 + transfer(self.bw_eff);
        match (self.large_base_us, self.large_bw_eff) {
            (Some(base_us), Some(eff)) if eff > 0.0 => small.min(base_us * 1e-6 + transfer(eff)),
            _ => small,
        }
    }
}

/// How a MoE layer spans the GPUs beyond tensor parallelism, and what its
/// tokens' exchange costs. Read from vLLM 0.32 (no code copied):
///
/// - The MoE layers span all TP x DP GPUs (`FusedMoEParallelConfig.make`,
///   fused_moe/config.py; `Model::shard_parallel`). With data parallelism
///   each replica's tokens reach every GPU of the layer: the runner
///   (fused_moe/runner/moe_runner.py, `do_naive_dispatch_combine`)
///   dispatches them before the experts and combines after, through the
///   all2all manager of `--all2all-backend` (config/parallel.py; default
///   `allgather_reducescatter`, to which 0.32 also maps the removed `naive`
///   and `pplx`; vLLM PR 33728 says it was already the default before).
///   That manager (`AgRsAll2AllManager`,
///   distributed/device_communicators/all2all.py) all-gathers the hidden
///   states over the DP group and reduce-scatters the experts' output back,
///   NCCL's `all_gatherv` / `reduce_scatterv` (cuda_communicator.py).
///   Replicas pad their batch to the busiest one's (`dp_metadata`), so each
///   GPU's experts run over DP x the busiest replica's tokens. With TP > 1
///   the TP all-reduce after the experts stays.
/// - Sequence-parallel MoE (`ParallelConfig.use_sequence_parallel_moe`:
///   the default backend, expert parallelism, TP > 1 and DP > 1; only in
///   the model files that split their tokens with `sequence_parallel_chunk`,
///   [`SEQUENCE_PARALLEL_MOE_ARCHITECTURES`]): each TP rank takes 1/TP of
///   its replica's tokens, the gather and scatter span the whole EP group
///   (TP x DP GPUs), and a TP all-gather restores the replica's tokens
///   instead of the all-reduce.
/// - Without data parallelism nothing is dispatched: with expert
///   parallelism over the TP group each GPU runs its own experts on every
///   token and the TP all-reduce sums them.
///
/// Not priced: the router logits and top-k ids that travel with the hidden
/// states (a few per cent of the bytes), activations quantized before the
/// dispatch (fp8, NVFP4 experts: less), and the other backends (DeepEP,
/// FlashInfer, MoRI, NIXL-EP), which a user must ask for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoeParallel {
    /// Replicas the MoE layers gather tokens from (1: none).
    pub data_parallel_size: u64,
    /// Whether the MoE layers run sequence parallel (see above).
    pub sequence_parallel: bool,
    /// NCCL's all-gather and reduce-scatter on these GPUs.
    pub gather_scatter: AllReduceKernel,
}

/// Architecture-name prefixes whose vLLM 0.32 model file runs its MoE
/// sequence parallel when `use_sequence_parallel_moe` holds
/// (models/deepseek_v2.py for DeepSeek-V2/V3 and Kimi-K2.5's text model;
/// gpt_oss.py, granitemoe.py, llama4.py, nemotron_h.py, qwen3_moe.py,
/// qwen3_next.py, and qwen3_5.py, which builds qwen3_next's MoE block).
/// Others (minimax_m2.py, mixtral.py, glm4_moe.py, deepseek_v4) dispatch
/// over the DP group alone.
pub const SEQUENCE_PARALLEL_MOE_ARCHITECTURES: [&str; 10] = [
    "DeepseekV2For",
    "DeepseekV3For",
    "KimiK25",
    "GptOss",
    "GraniteMoe",
    "Llama4",
    "NemotronH",
    "Qwen3Moe",
    "Qwen3Next",
    "Qwen3_5",
];

impl MoeParallel {
    /// No data parallelism: nothing dispatched.
    pub fn none(link: LinkKind) -> MoeParallel {
        MoeParallel {
            data_parallel_size: 1,
            sequence_parallel: false,
            gather_scatter: link.defaults(AllReduceImpl::GatherScatter),
        }
    }

    /// Tokens each GPU's experts run over when its replica runs `tokens`.
    pub fn expert_tokens(&self, tokens: f64) -> f64 {
        tokens * self.data_parallel_size.max(1) as f64
    }

    /// One MoE layer's collectives for a replica running `tokens` tokens of
    /// `token_bytes` hidden state each, over `tp` GPUs per replica linked
    /// at `link_bytes_s`; `tp_allreduce_s` is the TP all-reduce it makes
    /// without data parallelism, seconds.
    pub fn layer_s(
        &self,
        tp: u64,
        tokens: f64,
        token_bytes: f64,
        link_bytes_s: f64,
        tp_allreduce_s: f64,
    ) -> f64 {
        let dp = self.data_parallel_size.max(1);
        if dp <= 1 || tokens <= 0.0 {
            return tp_allreduce_s;
        }
        let buffer = self.expert_tokens(tokens) * token_bytes;
        let k = &self.gather_scatter;
        // An all-gather and a reduce-scatter of the same buffer.
        let exchange = |world: u64| 2.0 * k.latency_s(world, buffer, link_bytes_s);
        if self.sequence_parallel && tp > 1 {
            exchange(tp.saturating_mul(dp)) + k.latency_s(tp, tokens * token_bytes, link_bytes_s)
        } else {
            exchange(dp) + tp_allreduce_s
        }
    }
}
