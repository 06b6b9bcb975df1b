//! Non-KV memory: what vLLM 0.32 subtracts from the requested budget before
//! the KV cache gets the rest (`determine_available_memory`):
//! `available_kv = requested - (consumed + transient peak) - cudagraph estimate`.
//!
//! The engine measures these on the GPU at start-up; here each is estimated
//! from first principles (model shapes, flags, GPU) and every estimate can be
//! overridden by a pinned figure. Where a term is a constant rather than a
//! formula it says so; those constants are estimates, not measurements.

use crate::engine::EngineArgs;
use crate::gpu::Gpu;
use crate::model::{Layer, Model, PipelineStage};
use crate::quant::WeightQuant;
use crate::units::MIB;
use serde::Serialize;

/// Constants of the estimate, each with its origin.
pub mod constants {
    use super::MIB;

    /// Non-torch memory the engine consumes after its baseline snapshot and
    /// before the KV cache: CUDA kernel images loaded lazily (vLLM's custom ops,
    /// Marlin, Triton and Inductor kernels), cuBLAS/cuBLASLt workspaces, and
    /// allocator segments that weight loading leaves part-used. Estimate; vLLM
    /// logs it as `non_torch_memory` (typically a few hundred MiB on one GPU).
    pub const NON_TORCH_BYTES: u64 = 512 * MIB;

    /// vLLM counts at least 1 MiB for each CUDA graph after the first of a
    /// mode (`profile_cudagraph_memory`, vLLM 0.32).
    pub const MIN_BYTES_PER_GRAPH: u64 = MIB;

    /// Device memory one piecewise graph segment costs beyond the shared pool
    /// (graph exec object, kernel nodes and their parameters). Estimate: vLLM
    /// logs of ~0.5 GiB for ~70 sizes x ~33 segments on dense 8B models.
    pub const BYTES_PER_GRAPH_SEGMENT: u64 = 256 * 1024;

    /// Tokens per Mamba2 chunk in the chunked scan (the model's `chunk_size`).
    pub const MAMBA_CHUNK_TOKENS: u64 = 256;

    // Tensor-parallel communication memory that lands after vLLM's baseline
    // snapshot and so counts as non-torch growth (vLLM 0.19, H100 SXM; the
    // derivation is docs/reference/nccl-tp-memory.md). vLLM's own pynccl
    // communicator, custom all-reduce and torch symmetric memory are set up
    // before the snapshot (vllm/v1/worker/gpu_worker.py takes it after
    // `init_worker_distributed_environment`) and count nowhere.

    /// FlashInfer's fused all-reduce + RMSNorm workspace, built by the
    /// compilation pass on GPUs with NVSwitch multicast (Hopper and
    /// Blackwell SXM) at TP 2, 4 or 8 without pipeline parallelism: three
    /// buffers, each rounded up to the 512 MiB multicast granularity
    /// (vllm/compilation/collective_fusion.py; flashinfer's
    /// `trtllm_create_ipc_workspace_for_all_reduce_fusion`). The 512 MiB
    /// unit is inferred from the logs (TP 2 totals are equal across models
    /// whose raw buffers differ 2x), not measured on hardware.
    pub const FLASHINFER_FUSION_WORKSPACE_BYTES: u64 = 3 * 512 * MIB;

    /// Torch's ProcessGroupNCCL communicator for the TP group, created at
    /// its first collective (after the snapshot): a 4 MiB base, three 2 MiB
    /// arrays per point-to-point channel, and per ring channel a 2 MiB send
    /// and a 10 MiB receive buffer (LL 512 KiB + LL128 4.69 MiB + Simple 4
    /// MiB, rounded to 2 MiB) (NCCL 2.27 `src/init.cc`, `src/transport/p2p.cc`).
    pub const NCCL_BASE_BYTES: u64 = 4 * MIB;
    pub const NCCL_PER_P2P_CHANNEL_BYTES: u64 = 6 * MIB;
    pub const NCCL_PER_RING_CHANNEL_BYTES: u64 = 12 * MIB;
    /// NVLS (NVLink SHARP) set-up above 2 GPUs with multicast: 2 MiB per
    /// ring channel plus a 2 MiB credit buffer (`src/transport/nvls.cc`).
    pub const NVLS_PER_CHANNEL_BYTES: u64 = 2 * MIB;
    pub const NVLS_CREDIT_BYTES: u64 = 2 * MIB;

    /// NCCL's channel counts (collective ring, point-to-point): over
    /// NVLink (and AMD's Infinity Fabric) 24 and 32, NCCL's search on an
    /// H100 HGX as its logs print it ("24 coll channels, 32 p2p channels");
    /// over PCIe 2 and 2 (Gen 3/4) or 4 and 4 (Gen 5). Hand evaluation of
    /// NCCL's search, inferred.
    pub const NVLINK_CHANNELS: (u64, u64) = (24, 32);
    pub const PCIE4_CHANNELS: (u64, u64) = (2, 2);
    pub const PCIE5_CHANNELS: (u64, u64) = (4, 4);

    /// The one fitted part: what the named terms over-predict on the public
    /// H100 TP 2 / TP 4 logs (data/startup-logs/vllm0.19-h100-llm-d.csv,
    /// `non_torch_gib` minus the TP 1 rows'), most likely part of the TP 1
    /// baseline that a multi-GPU worker already holds before its snapshot.
    pub const TP_BASELINE_OFFSET_BYTES: u64 = 130 * MIB;

    /// Streaming multiprocessors assumed when a GPU preset does not say;
    /// only sizes the sampler's Triton scratch buffer.
    pub const DEFAULT_SMS: u64 = 82;
}

/// The CUDA graph capture plan vLLM 0.32 derives from the flags
/// (`_set_cudagraph_sizes`, mode FULL_AND_PIECEWISE).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CudaGraphPlan {
    pub capture_sizes: Vec<u64>,
    pub piecewise_graphs: u64,
    /// FULL decode graphs: capture sizes up to max_num_seqs.
    pub full_graphs: u64,
    /// Segments a piecewise graph is split into (attention and Mamba layers split it).
    pub segments_per_piecewise_graph: u64,
}

impl CudaGraphPlan {
    pub fn new(model: &Model, engine: &EngineArgs) -> CudaGraphPlan {
        // Largest size: min(2 * max_num_seqs, 512), then capped by max_num_batched_tokens.
        let max = (2 * engine.max_num_seqs)
            .min(512)
            .min(engine.max_num_batched_tokens);
        let mut sizes: Vec<u64> = [1, 2, 4].into_iter().filter(|&s| s <= max).collect();
        sizes.extend((8..256).step_by(8).filter(|&s| s <= max));
        sizes.extend((256..=max).step_by(16));
        if engine.max_num_batched_tokens <= max {
            sizes.push(engine.max_num_batched_tokens);
        }
        if engine.max_num_seqs <= (2 * engine.max_num_seqs).min(512) && engine.max_num_seqs <= max {
            sizes.push(engine.max_num_seqs);
        }
        sizes.sort_unstable();
        sizes.dedup();
        let full_graphs = sizes.iter().filter(|&&s| s <= engine.max_num_seqs).count() as u64;
        let splitting = model
            .layers
            .iter()
            .filter(|l| matches!(l, Layer::Attention(_)) || l.state().is_some())
            .count() as u64;
        CudaGraphPlan {
            piecewise_graphs: sizes.len() as u64,
            full_graphs,
            capture_sizes: sizes,
            segments_per_piecewise_graph: splitting + 1,
        }
    }
}

/// The first-principles estimate of everything that is not KV cache.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NonKvEstimate {
    pub weights_bytes: u64,
    /// Transient peak of the profile run: the dummy forward of
    /// max_num_batched_tokens tokens or the dummy sampler, whichever is larger.
    pub activation_bytes: u64,
    pub forward_peak_bytes: u64,
    pub sampler_peak_bytes: u64,
    pub cudagraph_bytes: u64,
    /// Non-torch memory and persistent buffers (sampler scratch included).
    pub non_torch_bytes: u64,
    /// The part of `non_torch_bytes` that tensor parallelism adds: NCCL and
    /// FlashInfer's fusion workspace ([`tp_comm_bytes`]).
    pub tp_comm_bytes: u64,
    pub cudagraphs: CudaGraphPlan,
}

impl NonKvEstimate {
    pub fn total_bytes(&self) -> u64 {
        self.weights_bytes + self.activation_bytes + self.cudagraph_bytes + self.non_torch_bytes
    }
}

/// Communication memory one GPU of a tensor-parallel group holds beyond a
/// single GPU's (0 at TP 1): torch's NCCL communicator, NVLS set-up, and
/// FlashInfer's fusion workspace where it is built (see the constants).
/// Pipeline parallelism adds only NCCL's point-to-point buffers, which the
/// public PP 2 log shows as negligible (0.07 GiB of non-torch memory in all).
pub fn tp_comm_bytes(engine: &EngineArgs, gpu: &Gpu) -> u64 {
    let tp = engine.tensor_parallel_size;
    if tp <= 1 {
        return 0;
    }
    let link = gpu.interconnect.as_deref().unwrap_or("pcie4");
    let fast_link = link.starts_with("nvlink") || link.starts_with("infinity");
    // NVSwitch multicast: Hopper and Blackwell SXM (NVLink 4 and 5).
    let multicast = link == "nvlink4" || link == "nvlink5";
    let (ring, p2p) = if fast_link {
        constants::NVLINK_CHANNELS
    } else if link == "pcie5" {
        constants::PCIE5_CHANNELS
    } else {
        constants::PCIE4_CHANNELS
    };
    let nccl = constants::NCCL_BASE_BYTES
        + p2p * constants::NCCL_PER_P2P_CHANNEL_BYTES
        + ring * constants::NCCL_PER_RING_CHANNEL_BYTES;
    let nvls = if multicast && tp > 2 {
        ring * constants::NVLS_PER_CHANNEL_BYTES + constants::NVLS_CREDIT_BYTES
    } else {
        0
    };
    let fusion = multicast
        && matches!(tp, 2 | 4 | 8)
        && engine.pipeline_parallel_size == 1
        && !engine.enforce_eager;
    let workspace = if fusion {
        constants::FLASHINFER_FUSION_WORKSPACE_BYTES
    } else {
        0
    };
    (nccl + nvls + workspace).saturating_sub(constants::TP_BASELINE_OFFSET_BYTES)
}

/// Weight bytes on the GPU under the given quantization.
pub fn weights_bytes(model: &Model, quant: &WeightQuant) -> u64 {
    model
        .modules()
        .iter()
        .map(|m| quant.module_bytes(m, model.dtype))
        .sum()
}

/// Bytes one token's activations take inside the widest layer during an eager
/// forward: the outputs that coexist while that layer runs (model dtype).
fn layer_transient_bytes_per_token(model: &Model) -> u64 {
    let d = model.dtype.bytes();
    model
        .layers
        .iter()
        .map(|l| match l {
            // q, k, v and the attention output.
            Layer::Attention(a) => (2 * a.num_heads + 2 * a.num_kv_heads) * a.head_dim * d,
            // in_proj output, then the gated-norm input and output.
            Layer::Mamba2(m) => (m.in_proj_out() + 2 * m.intermediate()) * d,
            // in_proj (x and z), x_proj output, the scan output.
            Layer::Mamba1(m) => (3 * m.intermediate + m.dt_rank + 2 * m.state_size) * d,
            // q, k, v, z projections, b and a, the output before out_proj.
            Layer::DeltaNet(x) => (2 * x.key_dim() + 3 * x.value_dim() + 2 * x.value_heads) * d,
            // gate+up output and the activation's output (up and activation without a gate).
            Layer::Mlp(f) => {
                if f.gated {
                    3 * f.intermediate * d
                } else {
                    2 * f.intermediate * d
                }
            }
            // Each token's top-k experts (gate+up and activation outputs), the
            // shared expert's, and the router logits in fp32.
            Layer::Moe(e) => {
                let per = if e.gated { 3 } else { 2 };
                (e.top_k * e.expert_intermediate + e.shared_intermediate) * per * d
                    + e.num_experts * 4
            }
        })
        .max()
        .unwrap_or(0)
}

impl NonKvEstimate {
    pub fn new(model: &Model, quant: &WeightQuant, engine: &EngineArgs, gpu: &Gpu) -> Self {
        let whole = PipelineStage::whole(model.decoder_layers().len() as u64);
        Self::for_stage(model, &whole, quant, engine, gpu)
    }

    /// The estimate for one pipeline stage: `model` is the stage's model
    /// ([`Model::stage`]); its weights are the stage's tensors
    /// ([`Model::stage_modules`]) and only the last stage runs the sampler.
    pub fn for_stage(
        model: &Model,
        stage: &PipelineStage,
        quant: &WeightQuant,
        engine: &EngineArgs,
        gpu: &Gpu,
    ) -> Self {
        let d = model.dtype.bytes();
        let tokens = engine.max_num_batched_tokens;
        // Profile run (gpu_model_runner.profile_run): an eager forward of
        // max_num_batched_tokens tokens with no attention metadata (attention and
        // Mamba kernels are skipped), so the GEMM outputs set the peak, on top of
        // the hidden state and residual.
        let residual = 2 * model.hidden_size * d;
        let forward_peak = tokens * (residual + layer_transient_bytes_per_token(model));
        // Dummy sampler: logits for min(tokens, max_num_seqs) requests in the
        // model dtype, an fp32 copy, fp32 softmax probabilities and fp32
        // exponential noise (top-p 0.9 / top-k path, no logprobs).
        let reqs = tokens.min(engine.max_num_seqs);
        // Only the last pipeline stage computes logits and samples.
        let vocab_sampled = if stage.is_last() { model.vocab_size } else { 0 };
        let sampler_peak = reqs * vocab_sampled * (d + 4 + 4 + 4);
        let activation = forward_peak.max(sampler_peak);
        // The sampler's persistent Triton scratch: min(next_pow2(min(SMs, reqs)), SMs) x vocab x 4 B.
        let sms = constants::DEFAULT_SMS;
        let rows = reqs.min(sms).next_power_of_two().min(sms);
        let sampler_scratch = rows * vocab_sampled * 4;
        // Persistent input buffers sized by max_num_batched_tokens: embeddings
        // input (hidden x dtype) and token/position ids.
        let input_buffers = tokens * (model.hidden_size * d + 16);
        let tp_buffers = tp_comm_bytes(engine, gpu);
        let non_torch = constants::NON_TORCH_BYTES + sampler_scratch + input_buffers + tp_buffers;
        // CUDA graphs: the first graph of the largest size allocates the pool
        // for its activations; each further graph costs its segments' overhead,
        // at least 1 MiB (vLLM's floor).
        let plan = CudaGraphPlan::new(model, engine);
        let largest = plan.capture_sizes.last().copied().unwrap_or(0);
        let first = largest * (residual + layer_transient_bytes_per_token(model));
        let per_piecewise = (plan.segments_per_piecewise_graph
            * constants::BYTES_PER_GRAPH_SEGMENT)
            .max(constants::MIN_BYTES_PER_GRAPH);
        let per_full = constants::MIN_BYTES_PER_GRAPH;
        // `--enforce-eager` captures no graph (vLLM's `CompilationConfig`
        // sets the mode to NONE), so none is profiled or held.
        let cudagraph = if engine.enforce_eager {
            0
        } else {
            first
                + plan.piecewise_graphs.saturating_sub(1) * per_piecewise
                + plan.full_graphs.saturating_sub(1) * per_full
        };
        NonKvEstimate {
            weights_bytes: model
                .stage_modules(stage)
                .iter()
                .map(|m| quant.module_bytes(m, model.dtype))
                .sum(),
            activation_bytes: activation,
            forward_peak_bytes: forward_peak,
            sampler_peak_bytes: sampler_peak,
            cudagraph_bytes: cudagraph,
            non_torch_bytes: non_torch,
            tp_comm_bytes: tp_buffers,
            cudagraphs: plan,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineSettings;
    use crate::presets;

    fn args(max_num_seqs: Option<i64>) -> EngineArgs {
        EngineSettings {
            max_num_seqs,
            ..EngineSettings::default()
        }
        .resolve(131_072, 25_438_126_080)
        .unwrap()
    }

    #[test]
    fn capture_sizes_follow_vllm_0_32() {
        let model = presets::model("nemotron-nano-12b-v2").unwrap().model;
        // max_num_seqs 128, 2048 batched tokens: largest 256; 1, 2, 4, 8..248 by 8, 256.
        let p = CudaGraphPlan::new(&model, &args(Some(128)));
        assert_eq!(p.piecewise_graphs, 35);
        assert_eq!(p.full_graphs, 19);
        assert_eq!(p.capture_sizes.last(), Some(&256));
        assert_eq!(p.segments_per_piecewise_graph, 35); // 28 Mamba + 6 attention + 1
                                                        // Default 256 sequences: largest 512, sizes from 256 on step 16: 51 sizes.
        let p = CudaGraphPlan::new(&model, &args(None));
        assert_eq!(p.piecewise_graphs, 51);
        assert_eq!(p.capture_sizes.last(), Some(&512));
    }

    #[test]
    fn profile_run_peak_is_the_larger_of_forward_and_sampler() {
        let loaded = presets::model("nemotron-nano-12b-v2-awq4").unwrap();
        let gpu = presets::gpu("rtx3090").unwrap();
        let e = NonKvEstimate::new(&loaded.model, &loaded.quant, &args(Some(128)), &gpu);
        // Forward: 2048 tokens x (2 x 5120 x 2 B residual + Mamba in_proj 22,656 and
        // gated norm 2 x 10,240 at 2 B) = 2048 x 106,752 B.
        assert_eq!(e.forward_peak_bytes, 218_628_096);
        // Sampler: 128 requests x 131,072 vocab x (2 + 4 + 4 + 4) B.
        assert_eq!(e.sampler_peak_bytes, 234_881_024);
        assert_eq!(e.activation_bytes, 234_881_024);
        // Weights: the checkpoint layout of the model preset (8.94 GB).
        assert_eq!(e.weights_bytes, 8_944_804_864);
    }
}
