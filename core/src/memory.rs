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
use crate::version::MODELLED;
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

    /// Non-torch growth over the profile run as vLLM 0.19 logs it on one
    /// GPU ("non-torch forward increase memory"): 0.24-0.27 GiB over 39
    /// public H100 logs (data/startup-logs/vllm0.19-h100-llm-d.csv and the
    /// llm-d series it comes from; docs/reference/vllm-profile-memory.md).
    /// Measured, not derived: lazily loaded kernels and library state.
    pub const NON_TORCH_BYTES_PROFILED: u64 = 256 * MIB;

    /// cuBLAS's workspace through torch's allocator: 32 MiB on compute
    /// capability 9.0, `4096 KiB x 2 + 16 KiB x 8` elsewhere (PyTorch
    /// `aten/src/ATen/cuda/CublasHandlePool.cpp`).
    pub const CUBLAS_WORKSPACE_HOPPER_BYTES: u64 = 32 * MIB;
    pub const CUBLAS_WORKSPACE_BYTES: u64 = 4096 * 1024 * 2 + 16 * 1024 * 8;

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

/// The CUDA graph capture plan vLLM derives from the flags
/// (`config/vllm.py`, `_set_cudagraph_sizes`, mode FULL_AND_PIECEWISE from
/// 0.11; the size rules by release are `crate::version`'s).
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
        // Largest size: min(2 * max_num_seqs, 512), then capped by
        // max_num_batched_tokens; with speculative decoding a decode step
        // runs 1 + k tokens per request, which the size scales by.
        let v = engine.vllm_version;
        let per_request = match &engine.speculative {
            Some(s) if v >= crate::version::CAPTURE_SPEC_TOKENS => 1 + s.num_speculative_tokens,
            _ => 1,
        };
        let max = (2 * engine.max_num_seqs * per_request)
            .min(512)
            .min(engine.max_num_batched_tokens);
        let mut sizes: Vec<u64> = [1, 2, 4].into_iter().filter(|&s| s <= max).collect();
        if v >= crate::version::CAPTURE_STEP_16 {
            sizes.extend((8..256).step_by(8).filter(|&s| s <= max));
            sizes.extend((256..=max).step_by(16));
        } else {
            sizes.extend((8..=max).step_by(8));
        }
        if v >= crate::version::CAPTURE_ADDS_BATCHED_TOKENS && engine.max_num_batched_tokens <= max
        {
            sizes.push(engine.max_num_batched_tokens);
        }
        if v >= crate::version::CAPTURE_ADDS_MAX_NUM_SEQS && engine.max_num_seqs <= max {
            sizes.push(engine.max_num_seqs);
        }
        if per_request > 1 && v >= crate::version::CAPTURE_SPEC_UNIFORM_DECODE {
            // Uniform decode batches: n requests of 1 + k tokens, n over the
            // same grid up to max_num_seqs.
            let counts = [1, 2, 4]
                .into_iter()
                .chain((8..256).step_by(8))
                .chain((256..=engine.max_num_seqs.min(512)).step_by(16))
                .chain([engine.max_num_seqs]);
            sizes.extend(
                counts
                    .filter(|&n| n <= engine.max_num_seqs)
                    .map(|n| n * per_request)
                    .filter(|&s| s <= max),
            );
        }
        let sizes = crate::units::sorted_set(sizes);
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
    /// Every weight on the GPU, the speculative drafter's included.
    pub weights_bytes: u64,
    /// The part of `weights_bytes` that is the speculative drafter's.
    pub draft_weights_bytes: u64,
    /// Transient peak of the profile run: the dummy forward of
    /// max_num_batched_tokens tokens or the dummy sampler, whichever is larger.
    pub activation_bytes: u64,
    pub forward_peak_bytes: u64,
    pub sampler_peak_bytes: u64,
    /// Buffers alive at both moments of the profile (cuBLAS and MoE
    /// workspaces, pipeline receive buffers), inside `activation_bytes`.
    pub persistent_profile_bytes: u64,
    /// The multimodal dummy batch's pixel values and encoder outputs, kept
    /// to the end of the profile (`crate::multimodal`); inside
    /// `persistent_profile_bytes`. 0 for a text-only profile.
    pub multimodal_kept_bytes: u64,
    /// The vision tower's pass over the dummy batch, a third moment of the
    /// profile (`crate::multimodal`); 0 for a text-only profile.
    pub encoder_peak_bytes: u64,
    pub cudagraph_bytes: u64,
    /// Whether the release subtracts the CUDA-graph estimate from the KV
    /// budget (`version::CUDAGRAPH_IN_BUDGET`); before, graphs live in the
    /// headroom `gpu_memory_utilization` leaves.
    pub cudagraph_in_budget: bool,
    /// Non-torch memory and persistent buffers.
    pub non_torch_bytes: u64,
    /// The part of `non_torch_bytes` that tensor parallelism adds: NCCL and
    /// FlashInfer's fusion workspace ([`tp_comm_bytes`]).
    pub tp_comm_bytes: u64,
    pub cudagraphs: CudaGraphPlan,
}

impl NonKvEstimate {
    /// What comes off the requested budget before the KV cache.
    pub fn total_bytes(&self) -> u64 {
        let graphs = if self.cudagraph_in_budget {
            self.cudagraph_bytes
        } else {
            0
        };
        self.weights_bytes + self.activation_bytes + graphs + self.non_torch_bytes
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
    let link = gpu.interconnect.unwrap_or(crate::gpu::Link::Pcie4);
    let fast_link = link.is_fast();
    let multicast = link.has_multicast();
    let (ring, p2p) = if fast_link {
        constants::NVLINK_CHANNELS
    } else if link == crate::gpu::Link::Pcie5 {
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

/// cuBLAS's workspace through torch's allocator on `gpu`.
pub fn cublas_workspace_bytes(gpu: &Gpu) -> u64 {
    if gpu.arch == crate::gpu::Arch::Sm90 {
        constants::CUBLAS_WORKSPACE_HOPPER_BYTES
    } else {
        constants::CUBLAS_WORKSPACE_BYTES
    }
}

/// Weight bytes on the GPU under the given quantization.
pub fn weights_bytes(model: &Model, quant: &WeightQuant) -> u64 {
    quant
        .modules_of(model, 0)
        .iter()
        .map(|m| quant.module_bytes(m, model.dtype))
        .sum()
}

/// Bytes per token of the widest layer's outputs in the profile forward,
/// beyond the residuals and the attention output buffer: the qkv projection,
/// an MLP's gate+up and activation outputs, a Mamba / DeltaNet layer's
/// projections; a MoE layer's routed experts work in the persistent
/// workspace ([`moe_workspace_bytes`]), so only its shared expert and router
/// logits count here.
fn forward_transient_bytes_per_token(model: &Model) -> u64 {
    let d = model.dtype.bytes();
    model
        .layers
        .iter()
        .map(|l| match l {
            Layer::Attention(a) => (a.num_heads + 2 * a.num_kv_heads) * a.head_dim * d,
            Layer::Moe(e) => {
                let per = if e.gated { 3 } else { 2 };
                e.shared_intermediate * per * d + e.num_experts * 4
            }
            // In float32 a gated MLP holds one more [T, I] tensor: inferred
            // from the one public float32 log (llmd-llama31-8b-fp32, 2.21 GiB
            // against 1.76 without it), cause not confirmed.
            Layer::Mlp(f) if f.gated && d == 4 => 4 * f.intermediate * d,
            _ => layer_transient_bytes_for(l, d),
        })
        .max()
        .unwrap_or(0)
}

/// The fused-MoE workspace the profile's first MoE layer requests and the
/// workspace manager keeps: `r256(max(T k max(Ie, H), T H) d) + r256(T k
/// max(2 Ie, H) d)` for T tokens, k experts per token, expert intermediate Ie
/// (per GPU) and hidden H (0.19 `model_executor/layers/fused_moe/fused_moe.py`,
/// `TritonExperts.workspace_shapes`; `v1/worker/workspace.py`).
fn moe_workspace_bytes(model: &Model, tokens: u64) -> u64 {
    let d = model.dtype.bytes();
    let h = model.hidden_size;
    let r256 = |b: u64| b.div_ceil(256) * 256;
    model
        .layers
        .iter()
        .filter_map(|l| match l {
            Layer::Moe(e) => {
                let tk = tokens.saturating_mul(e.top_k);
                let ws13 = tk
                    .saturating_mul(e.expert_intermediate.max(h))
                    .max(tokens * h);
                let ws2 = tk.saturating_mul((2 * e.expert_intermediate).max(h));
                Some(r256(ws13.saturating_mul(d)) + r256(ws2.saturating_mul(d)))
            }
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// One layer's transient bytes per token (the CUDA-graph pool estimate's
/// and the profile forward's, for the recurrent and MLP kinds).
fn layer_transient_bytes_for(l: &Layer, d: u64) -> u64 {
    match l {
        // q, k, v and the attention output.
        Layer::Attention(a) => (2 * a.num_heads + 2 * a.num_kv_heads) * a.head_dim * d,
        // in_proj output, then the gated-norm input and output.
        Layer::Mamba2(m) => (m.in_proj_out() + 2 * m.intermediate()) * d,
        // in_proj (x and z), x_proj output, the scan output.
        Layer::Mamba1(m) => (3 * m.intermediate + m.dt_rank + 2 * m.state_size) * d,
        // q, k, v, z projections, b and a, the output before out_proj.
        Layer::DeltaNet(x) => (2 * x.key_dim() + 3 * x.value_dim() + 2 * x.value_heads) * d,
        // in_proj's B, C and x, the convolved stream, the output before out_proj.
        Layer::ShortConv(c) => 5 * c.dim * d,
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
            (e.top_k * e.expert_intermediate + e.shared_intermediate) * per * d + e.num_experts * 4
        }
    }
}

/// Bytes one token's activations take inside the widest layer during an eager
/// forward: the outputs that coexist while that layer runs (model dtype);
/// sizes the CUDA-graph pool's first capture.
fn layer_transient_bytes_per_token(model: &Model) -> u64 {
    let d = model.dtype.bytes();
    model
        .layers
        .iter()
        .map(|l| layer_transient_bytes_for(l, d))
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
        let version = engine.vllm_version;
        let hidden = model.hidden_size;
        // The profile run (docs/reference/vllm-profile-memory.md, read from
        // vLLM 0.19 `v1/worker/gpu_model_runner.py::profile_run`): its torch
        // peak is the larger of the forward moment and the sampler moment,
        // plus buffers alive at both.
        //
        // Forward: an eager forward of max_num_batched_tokens tokens with no
        // attention metadata (attention and Mamba kernels are skipped), so
        // the GEMM outputs set the peak: the attention output buffer, the
        // incoming and the new residual and the widest layer's outputs, plus
        // Inductor's L2-flush buffer while it autotunes (compiled runs only).
        let attn_out = model
            .attention_layers()
            .map(|a| a.num_heads * a.head_dim * d)
            .max()
            .unwrap_or(0);
        let l2_flush = if engine.enforce_eager {
            0
        } else {
            gpu.l2_cache_bytes.unwrap_or(0)
        };
        let forward_peak = tokens
            .saturating_mul(2 * hidden * d + attn_out + forward_transient_bytes_per_token(model))
            + l2_flush;
        // Sampler (last pipeline stage only): R = min(tokens, max_num_seqs)
        // requests' logits over the whole padded vocabulary in the model dtype
        // (all-gathered under TP), an fp32 copy (none for fp32 logits),
        // fp32 probabilities and exponential noise, the Triton top-k/top-p
        // scratch of min(next_pow2(min(SMs, R)), SMs) rows (R >= 8 before
        // 0.32), the forward's hidden states still held, and the R last-token
        // rows with their random copy (`v1/sample/sampler.py`,
        // `v1/sample/ops/topk_topp_triton.py`).
        let reqs = tokens.min(engine.max_num_seqs);
        let vocab = if stage.is_last() {
            model.sampled_vocab_size
        } else {
            0
        };
        let padded_vocab = vocab.div_ceil(64) * 64;
        let fp32_copy = if d == 4 && padded_vocab == vocab {
            0
        } else {
            4 * reqs * vocab
        };
        let sms = gpu.sm_count.unwrap_or(constants::DEFAULT_SMS);
        let scratch_rows = if reqs >= 8 || version >= MODELLED {
            reqs.min(sms).next_power_of_two().min(sms)
        } else {
            0
        };
        let sampler_peak = if vocab == 0 {
            0
        } else {
            reqs * padded_vocab * d
                + fp32_copy
                + 8 * reqs * vocab
                + 4 * scratch_rows * vocab
                + tokens * hidden * d
                + 2 * reqs * hidden * d
        };
        // Alive at both moments: cuBLAS's workspace, the fused-MoE workspace
        // (Triton experts; MXFP4's monolithic kernel has none), and on every
        // stage but the first the hidden state and residual received.
        let cublas = cublas_workspace_bytes(gpu);
        let moe_workspace = if quant.method == crate::quant::QuantMethod::Mxfp4 {
            0
        } else {
            moe_workspace_bytes(model, tokens)
        };
        let pp_buffers = if stage.is_first() {
            0
        } else {
            2 * tokens * hidden * d
        };
        let persistent = cublas + moe_workspace + pp_buffers;
        let activation = forward_peak.max(sampler_peak) + persistent;
        // Non-torch growth over the profile. Before 0.27 vLLM counts torch
        // buffers the runner allocated before the profile nowhere, and the
        // logs show 0.24-0.27 GiB of non-torch growth on one GPU; from 0.27
        // the drop in free memory counts everything (`utils/mem_utils.py`),
        // so the runner's input buffers (embeddings input and token ids of
        // max_num_batched_tokens) and the estimated non-torch memory count.
        let tp_buffers = tp_comm_bytes(engine, gpu);
        let non_torch = if version < crate::version::NON_KV_FROM_FREE_MEMORY {
            constants::NON_TORCH_BYTES_PROFILED + tp_buffers
        } else {
            let input_buffers = tokens * (hidden * d + 16);
            constants::NON_TORCH_BYTES + input_buffers + tp_buffers
        };
        // CUDA graphs: the first graph of the largest size allocates the pool
        // for its activations; each further graph costs its segments' overhead,
        // at least 1 MiB (vLLM's floor).
        let plan = CudaGraphPlan::new(model, engine);
        let largest = plan.capture_sizes.last().copied().unwrap_or(0);
        let first = largest * (2 * hidden * d + layer_transient_bytes_per_token(model));
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
                .stage_modules(stage, quant)
                .iter()
                .map(|m| quant.module_bytes(m, model.dtype))
                .sum(),
            draft_weights_bytes: 0,
            activation_bytes: activation,
            forward_peak_bytes: forward_peak,
            sampler_peak_bytes: sampler_peak,
            persistent_profile_bytes: persistent,
            multimodal_kept_bytes: 0,
            encoder_peak_bytes: 0,
            cudagraph_bytes: cudagraph,
            cudagraph_in_budget: version.cudagraph_in_budget(),
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
        // Forward: 2048 tokens x (2 x 5120 x 2 B residuals + the attention
        // output buffer 40 x 128 x 2 B + Mamba in_proj 22,656 and gated norm
        // 2 x 10,240 at 2 B) = 2048 x 116,992 B, plus the RTX 3090's 6 MiB L2.
        assert_eq!(gpu.l2_cache_bytes, Some(6 << 20));
        assert_eq!(e.forward_peak_bytes, 2048 * 116_992 + (6 << 20));
        // Sampler: 128 requests x 131,072 vocab: logits 2 B, an fp32 copy,
        // probabilities and noise 4 B each; Triton scratch of 82 rows (the
        // 3090's SMs) x 4 B; the forward's 2048 x 5120 x 2 B hidden states;
        // 2 x 128 last-token rows x 5120 x 2 B.
        assert_eq!(gpu.sm_count, Some(82));
        let r_v = 128 * 131_072;
        let sampler = r_v * (2 + 4 + 8) + 82 * 131_072 * 4 + 2048 * 5120 * 2 + 2 * 128 * 5120 * 2;
        assert_eq!(e.sampler_peak_bytes, sampler);
        // Plus cuBLAS's 8.125 MiB workspace (not a Hopper).
        assert_eq!(e.persistent_profile_bytes, 8_519_680);
        assert_eq!(e.activation_bytes, sampler + 8_519_680);
        // Weights: the checkpoint layout of the model preset (8.94 GB).
        assert_eq!(e.weights_bytes, 8_944_804_864);
    }
}
