//! The machine a step runs on: the GPU's bandwidth and tensor peak, the
//! kernel families that read the weights ([`WeightKernel`]) and the KV cache
//! ([`AttnKernel`]), and the link between the GPUs of a parallel group.

use crate::dtype::KvCacheDtype;
use crate::engine::EngineArgs;
use crate::gpu::Gpu;
use crate::quant::WeightQuant;
use serde::Serialize;

/// The decode attention kernel family a setup runs, which sets how much of
/// the bandwidth reading KV reaches (docs/reference/vllm-decode-kernels.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttnKernel {
    /// FLASH_ATTN, FLASHINFER and the MLA kernels: tiled, split-KV kernels
    /// on 16-bit or fp8 KV.
    Flash,
    /// TRITON_ATTN (unified Triton attention): the only backend for the
    /// per-token-head quantized KV caches, and the one GPUs without
    /// FlashAttention (before compute capability 8.0) get.
    Triton,
}

impl AttnKernel {
    /// The family of `--attention-backend NAME` if given, else of the backend
    /// vLLM 0.32 picks for this KV dtype on this GPU class.
    pub fn select(backend: Option<&str>, kv: KvCacheDtype, gpu: &Gpu) -> AttnKernel {
        if let Some(b) = backend {
            return if b.to_ascii_uppercase().starts_with("TRITON") {
                AttnKernel::Triton
            } else {
                AttnKernel::Flash
            };
        }
        let quantized_per_token_head = matches!(
            kv,
            KvCacheDtype::Fp8PerTokenHead
                | KvCacheDtype::Int8PerTokenHead
                | KvCacheDtype::Int4PerTokenHead
        );
        if quantized_per_token_head || !gpu.arch.info().flash_attention {
            AttnKernel::Triton
        } else {
            AttnKernel::Flash
        }
    }
}

/// Latency of one pipeline-parallel send over PCIe (the hidden states
/// from one stage to the next; an estimate, the bandwidth term comes from
/// the GPU preset). Tensor-parallel all-reduces are `super::collective`'s.
pub const ALLREDUCE_LATENCY_PCIE_S: f64 = 20e-6;
/// The same over NVLink (or AMD's Infinity Fabric).
pub const ALLREDUCE_LATENCY_NVLINK_S: f64 = 8e-6;

/// Per-GPU link bandwidth assumed when a GPU preset names none: PCIe 4.0 x16,
/// GB/s one way.
pub const DEFAULT_LINK_GB_S: f64 = 32.0;

/// How a linear layer's weights are read each step, which sets the
/// bandwidth the kernel reaches (docs/reference/vllm-decode-kernels.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WeightKernel {
    /// 16-bit weights: cuBLAS.
    Dense,
    /// fp8 or NVFP4 weights multiplied as such (W x A kernels).
    LowPrecision,
    /// Weight-only integer (and MXFP4 weight-only) formats, dequantized in
    /// the kernel: Marlin, AWQ, GPTQ, bitsandbytes.
    Dequantizing,
}

/// Which low-precision W x A GEMMs a GPU runs as such. vLLM's kernel
/// choosers (docs/reference/vllm-decode-kernels.md, section 2) run fp8
/// weights through CUTLASS `scaled_mm` from compute capability 8.9 (Ada,
/// Hopper; AMD's CDNA3 too) and NVFP4 through FlashInfer / CUTLASS from
/// Blackwell; on older GPUs both fall back to Marlin's weight-only kernels,
/// which dequantize.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NativeLowPrecision {
    pub fp8: bool,
    pub fp4: bool,
}

impl NativeLowPrecision {
    /// From the GPU's architecture (`gpu::Arch::info`).
    pub fn of(gpu: &Gpu) -> NativeLowPrecision {
        let arch = gpu.arch.info();
        NativeLowPrecision {
            fp8: arch.fp8,
            fp4: arch.fp4,
        }
    }
}

impl WeightKernel {
    pub fn of(
        quant: &WeightQuant,
        m: &crate::model::Module,
        native: NativeLowPrecision,
    ) -> WeightKernel {
        if quant.dequantizes(m) {
            return WeightKernel::Dequantizing;
        }
        if !quant.quantizes(m) {
            return WeightKernel::Dense;
        }
        let runs_natively = if quant.method == crate::quant::QuantMethod::Nvfp4 && !m.fp8 {
            native.fp4
        } else {
            native.fp8
        };
        if runs_natively {
            WeightKernel::LowPrecision
        } else {
            WeightKernel::Dequantizing
        }
    }
}

/// The machine's figures a step's time divides by: what the GPU peaks at,
/// the decode attention kernel it runs, and the GPUs a step spans.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Machine {
    /// Peak DRAM bandwidth, bytes per second.
    pub bandwidth_bytes_s: f64,
    /// The GEMMs' tensor peak, FLOP/s.
    pub peak_flops: f64,
    /// The decode attention kernel family.
    pub attention_kernel: AttnKernel,
    /// Tensor parallelism: GPUs, and the link's bandwidth (bytes/s); the
    /// latency (s) of a pipeline send over it.
    pub tensor_parallel_size: u64,
    pub interconnect_bytes_s: f64,
    pub allreduce_latency_s: f64,
    /// Pipeline stages a step runs through in turn: each boundary a
    /// point-to-point send of the hidden states and residual (vLLM's
    /// `IntermediateTensors`), 1/tp of them per GPU of the TP group.
    pub pipeline_parallel_size: u64,
    /// The GPU's kernel figures from measured tables, when it has them or
    /// borrows them: they replace the fitted GEMM and FlashAttention
    /// efficiencies of `TimingParams`.
    pub kernels: Option<super::KernelFigures>,
    /// The preset the kernel figures are borrowed from, if borrowed.
    pub kernels_from: Option<String>,
    /// The link between the GPUs, whether they have peer-to-peer access,
    /// and the two all-reduce implementations' constants on them.
    pub link: super::LinkKind,
    pub p2p: bool,
    pub custom_allreduce: super::AllReduceKernel,
    pub nccl_allreduce: super::AllReduceKernel,
    /// The MoE layers across data-parallel replicas: their dispatch and
    /// combine (`super::collective`). Not serialized (the page's module
    /// carries no serializer for it).
    #[serde(skip)]
    pub moe_parallel: super::MoeParallel,
}

impl Machine {
    /// `gpu` as `engine` runs it: its attention backend and parallel sizes.
    pub fn of(gpu: &Gpu, engine: &EngineArgs) -> Machine {
        let fast_link = gpu.interconnect.is_some_and(crate::gpu::Link::is_fast);
        let link_gb_s = gpu.interconnect_gb_s.unwrap_or(DEFAULT_LINK_GB_S);
        let kernels = gpu.kernel_figures();
        Machine {
            bandwidth_bytes_s: gpu.bandwidth_bytes_s(),
            peak_flops: gpu.gemm_peak_flops(),
            attention_kernel: AttnKernel::select(
                engine.attention_backend.as_deref(),
                engine.kv_cache_dtype,
                gpu,
            ),
            tensor_parallel_size: engine.tensor_parallel_size.max(1),
            interconnect_bytes_s: link_gb_s * crate::units::GB as f64,
            allreduce_latency_s: if fast_link {
                ALLREDUCE_LATENCY_NVLINK_S
            } else {
                ALLREDUCE_LATENCY_PCIE_S
            },
            pipeline_parallel_size: engine.pipeline_parallel_size.max(1),
            link: gpu.link(),
            // `--disable-custom-all-reduce` leaves NCCL, as no P2P does.
            p2p: gpu.p2p.unwrap_or(true) && !engine.disable_custom_all_reduce,
            custom_allreduce: gpu
                .allreduce_kernel_of(kernels.as_ref(), super::AllReduceImpl::Custom),
            nccl_allreduce: gpu.allreduce_kernel_of(kernels.as_ref(), super::AllReduceImpl::Nccl),
            moe_parallel: super::MoeParallel {
                data_parallel_size: engine.data_parallel_size.max(1),
                // The model decides (`Work::new`).
                sequence_parallel: false,
                gather_scatter: gpu
                    .allreduce_kernel_of(kernels.as_ref(), super::AllReduceImpl::GatherScatter),
            },
            kernels: kernels.as_ref().map(|k| k.0.clone()),
            kernels_from: kernels.and_then(|k| k.1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// vLLM 0.32's backend choice as the architecture table gives it:
    /// FlashAttention from compute capability 8.0, Triton before it and for
    /// the per-token-head quantized caches everywhere.
    #[test]
    fn the_attention_kernel_follows_the_architecture() {
        let gpu = |id: &str| crate::presets::gpu(id).unwrap();
        let pick = |id: &str, kv| AttnKernel::select(None, kv, &gpu(id));
        assert_eq!(pick("v100-16gb", KvCacheDtype::Auto), AttnKernel::Triton);
        assert_eq!(pick("t4", KvCacheDtype::Auto), AttnKernel::Triton);
        assert_eq!(pick("a100-80gb", KvCacheDtype::Auto), AttnKernel::Flash);
        assert_eq!(pick("rtx3090", KvCacheDtype::Fp8), AttnKernel::Flash);
        assert_eq!(
            pick("h100-sxm", KvCacheDtype::Int4PerTokenHead),
            AttnKernel::Triton
        );
        let forced = AttnKernel::select(Some("FLASH_ATTN"), KvCacheDtype::Auto, &gpu("t4"));
        assert_eq!(forced, AttnKernel::Flash);
    }
}
