//! Decode and prefill timing: a step's time from bytes and FLOPs over the
//! GPU's bandwidth and tensor throughput, each at an efficiency, plus the
//! host's share of the step, and the cell figures the harness reports
//! (docs/reference/harness.md and the harness source it describes,
//! llm-inference-bench `llm_decode_bench.py`).
//!
//! How the terms combine (ARCHITECTURE.md says why). One engine step runs
//! `d` decoding sequences at contexts `L_i` and `n` prefill tokens.
//!
//! - GPU: `max(W16 / (BW e_w) + max(Wq / (BW e_q), Gq floor_q),
//!   d flops / (peak e_c) + n prefill_flops / (peak e_pc)) +
//!   (d + n_seq) state / (BW e_s) + (sum_i kv(L_i) + h mean kv) /
//!   (BW e_kv[kernel]) + pairs attn_flops / (peak e_pa[kernel]) +
//!   all-reduces + layers layer_us`, where `W16` are the weights the dense
//!   GEMMs stream, `Wq` those the `Gq` dequantizing kernels (Marlin, AWQ,
//!   GPTQ) stream, and `kernel` the decode attention family the backend
//!   belongs to ([`AttnKernel`]).
//! - Host: `host_step + (d + n_seq) host_per_seq` (scheduler, input
//!   preparation, sampler, output processing, graph launch).
//! - The step takes `host + GPU`, or `max(host, GPU)` when the engine
//!   schedules asynchronously (the next step is prepared while the GPU runs
//!   this one; [`crate::version`] says from which release that is the
//!   default).

use crate::allocator::{GroupKind, KvLayout};
use crate::dtype::KvCacheDtype;
use crate::engine::{EngineArgs, Harness};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::model::Model;
use crate::model::{Layer, ModuleKind};
use crate::quant::WeightQuant;
use serde::{Deserialize, Serialize};

/// How many timing parameters there are.
pub const N_PARAMS: usize = 17;

/// The timing model's parameters: each an efficiency (a fraction of a peak)
/// or a time, each with a physical meaning. Calibration fits them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingParams {
    /// Host time per engine step whatever the batch (scheduling, input
    /// preparation, CUDA-graph launch, output processing), ms.
    pub host_step_ms: f64,
    /// Host time per scheduled sequence per step (sampling, detokenizing,
    /// streaming the output), microseconds.
    pub host_per_seq_us: f64,
    /// Fraction of peak DRAM bandwidth the dense 16-bit GEMMs (cuBLAS)
    /// reach streaming their weights once per step.
    pub weight_bw_eff: f64,
    /// Fraction of peak DRAM bandwidth the dequantizing weight-only GEMMs
    /// (Marlin, AWQ, GPTQ, bitsandbytes) reach streaming theirs.
    pub quant_weight_bw_eff: f64,
    /// Fraction of peak DRAM bandwidth the low-precision W x A GEMMs reach:
    /// fp8 (CUTLASS `scaled_mm`, which also quantizes the activations to
    /// fp8 every step) and NVFP4 (`vllm/model_executor/layers/quantization/
    /// fp8.py`, `modelopt.py`). Unfitted data leave it at the 16-bit value.
    #[serde(default = "TimingParams::fp8_default")]
    pub fp8_weight_bw_eff: f64,
    /// Fraction of the tensor peak reached by decode GEMMs once they are compute-bound.
    pub gemm_compute_eff: f64,
    /// Fraction of peak bandwidth reached reading and writing Mamba states.
    pub state_bw_eff: f64,
    /// Fraction of peak bandwidth the FlashAttention-family decode kernels
    /// (FLASH_ATTN, FLASHINFER, the MLA kernels) reach reading KV.
    pub attn_bw_eff_flash: f64,
    /// The same for the Triton attention kernel (TRITON_ATTN: the backend of
    /// the quantized per-token-head KV caches and of older GPUs).
    pub attn_bw_eff_triton: f64,
    /// Sequences' worth of KV reading a step pays regardless of batch: the
    /// attention kernel's latency with few sequences (it reaches half its
    /// peak bandwidth at this many sequences).
    pub attn_half_batch: f64,
    /// Fraction of the tensor peak reached by prefill GEMMs (linear layers, Mamba scan).
    pub prefill_gemm_eff: f64,
    /// Fraction of the tensor peak reached by the FlashAttention-family
    /// kernels' prefill attention (its quadratic part).
    pub prefill_attn_eff_flash: f64,
    /// The same for the Triton kernel.
    pub prefill_attn_eff_triton: f64,
    /// What the OpenAI server adds to a request before the engine sees it
    /// (HTTP, chat template, tokenization, the hop to the engine process):
    /// it delays the first token a client sees, ms. Offline runs and the
    /// harness's matrix (whose TTFT is measured on the same path at every
    /// cell and fitted there) do not pay it.
    pub serve_request_ms: f64,
    /// GPU time per layer a step pays whatever the bytes: the chain of small
    /// kernels around the GEMMs (norms, rotary, activation, residual adds,
    /// the attention kernel's launch) and the gaps between them, even inside
    /// a CUDA graph, microseconds.
    pub layer_us: f64,
    /// The shortest a dequantizing GEMM takes however few bytes it reads
    /// (Marlin-class kernels' fixed cost), microseconds.
    pub quant_gemm_floor_us: f64,
    /// What launching one layer's kernels costs the host when a decode step
    /// runs eagerly rather than as a CUDA graph (`--enforce-eager`, or V0
    /// past `max_seq_len_to_capture`): the step takes at least that times
    /// the layers, microseconds.
    pub eager_layer_us: f64,
}

impl TimingParams {
    pub const NAMES: [&'static str; N_PARAMS] = [
        "host_step_ms",
        "host_per_seq_us",
        "weight_bw_eff",
        "quant_weight_bw_eff",
        "fp8_weight_bw_eff",
        "gemm_compute_eff",
        "state_bw_eff",
        "attn_bw_eff_flash",
        "attn_bw_eff_triton",
        "attn_half_batch",
        "prefill_gemm_eff",
        "prefill_attn_eff_flash",
        "prefill_attn_eff_triton",
        "serve_request_ms",
        "layer_us",
        "quant_gemm_floor_us",
        "eager_layer_us",
    ];

    /// Physical bounds of each parameter, in [`TimingParams::NAMES`] order.
    /// Lower bounds are positive: the joint fit works in log-odds.
    pub const BOUNDS: [(f64, f64); N_PARAMS] = [
        (0.001, 20.0),
        (0.01, 500.0),
        (0.01, 1.0),
        (0.01, 1.0),
        (0.01, 1.0),
        (0.01, 1.0),
        (0.01, 1.0),
        (0.01, 1.0),
        (0.01, 1.0),
        (0.001, 64.0),
        (0.01, 1.0),
        (0.01, 1.0),
        (0.01, 1.0),
        (0.001, 500.0),
        (0.001, 200.0),
        (0.001, 200.0),
        (0.001, 500.0),
    ];

    /// First-principles defaults (`--calibration none`): typical fractions of
    /// peak for well-tuned kernels and a host cost of the order a V1 engine
    /// step takes, not fitted to anything. Decode and prefill attention get
    /// lower figures than GEMMs: they are latency- and occupancy-bound at
    /// serving batch sizes, the Triton kernel more so.
    pub const FIRST_PRINCIPLES: TimingParams = TimingParams {
        host_step_ms: 1.0,
        host_per_seq_us: 20.0,
        weight_bw_eff: 0.8,
        quant_weight_bw_eff: 0.7,
        fp8_weight_bw_eff: 0.8,
        gemm_compute_eff: 0.5,
        state_bw_eff: 0.8,
        attn_bw_eff_flash: 0.6,
        attn_bw_eff_triton: 0.25,
        attn_half_batch: 1.0,
        prefill_gemm_eff: 0.6,
        prefill_attn_eff_flash: 0.4,
        prefill_attn_eff_triton: 0.15,
        serve_request_ms: 15.0,
        layer_us: 5.0,
        quant_gemm_floor_us: 5.0,
        eager_layer_us: 30.0,
    };

    pub fn to_array(&self) -> [f64; N_PARAMS] {
        [
            self.host_step_ms,
            self.host_per_seq_us,
            self.weight_bw_eff,
            self.quant_weight_bw_eff,
            self.fp8_weight_bw_eff,
            self.gemm_compute_eff,
            self.state_bw_eff,
            self.attn_bw_eff_flash,
            self.attn_bw_eff_triton,
            self.attn_half_batch,
            self.prefill_gemm_eff,
            self.prefill_attn_eff_flash,
            self.prefill_attn_eff_triton,
            self.serve_request_ms,
            self.layer_us,
            self.quant_gemm_floor_us,
            self.eager_layer_us,
        ]
    }

    pub fn from_array(v: [f64; N_PARAMS]) -> TimingParams {
        let [a, b, c, d, r, e, f, g, h, i, j, k, l, m, n, o, q] = v;
        TimingParams {
            host_step_ms: a,
            host_per_seq_us: b,
            weight_bw_eff: c,
            quant_weight_bw_eff: d,
            fp8_weight_bw_eff: r,
            gemm_compute_eff: e,
            state_bw_eff: f,
            attn_bw_eff_flash: g,
            attn_bw_eff_triton: h,
            attn_half_batch: i,
            prefill_gemm_eff: j,
            prefill_attn_eff_flash: k,
            prefill_attn_eff_triton: l,
            serve_request_ms: m,
            layer_us: n,
            quant_gemm_floor_us: o,
            eager_layer_us: q,
        }
    }

    /// A calibration file written before the fp8 parameter existed.
    fn fp8_default() -> f64 {
        Self::FIRST_PRINCIPLES.fp8_weight_bw_eff
    }

    /// Every parameter finite and inside its bounds.
    pub fn validate(&self, origin: &str) -> Result<()> {
        for ((name, v), (lo, hi)) in Self::NAMES.iter().zip(self.to_array()).zip(Self::BOUNDS) {
            if !(v.is_finite() && v >= lo && v <= hi) {
                return Err(Error::field(
                    &format!("{origin}: [params] {name}"),
                    v,
                    format!("a number in [{lo}, {hi}]"),
                ));
            }
        }
        Ok(())
    }

    fn attn_bw_eff(&self, k: AttnKernel) -> f64 {
        match k {
            AttnKernel::Flash => self.attn_bw_eff_flash,
            AttnKernel::Triton => self.attn_bw_eff_triton,
        }
    }

    fn prefill_attn_eff(&self, k: AttnKernel) -> f64 {
        match k {
            AttnKernel::Flash => self.prefill_attn_eff_flash,
            AttnKernel::Triton => self.prefill_attn_eff_triton,
        }
    }
}

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
        let pre_ampere = gpu
            .calibration_class
            .as_deref()
            .is_some_and(|c| c.starts_with("volta") || c.starts_with("turing"));
        if quantized_per_token_head || pre_ampere {
            AttnKernel::Triton
        } else {
            AttnKernel::Flash
        }
    }
}

/// Constants of the harness's timeline (llm-inference-bench 0.4.18,
/// `run_one_cell`): what is not a GPU property.
pub mod harness_timeline {
    /// The window opens once every stream has a token and the state has held
    /// for this long across scrapes.
    pub const READY_STABLE_S: f64 = 3.0;
    /// Prometheus scrapes come every 1 to 1.5 s; the window starts at one.
    pub const SCRAPE_INTERVAL_S: f64 = 1.25;
    /// The window never opens before this much time has passed.
    pub const MIN_WARMUP_S: f64 = 2.0;

    /// Warm-up timeout by context: 60 s below 64K, 120 s from 64K, 180 s from
    /// 128K. A queued cell never becomes ready and waits this long.
    pub fn warmup_timeout_s(context_tokens: u64) -> f64 {
        if context_tokens >= 128 * 1024 {
            180.0
        } else if context_tokens >= 64 * 1024 {
            120.0
        } else {
            60.0
        }
    }
}

/// Latency of one small all-reduce over PCIe and over NVLink (estimates of
/// NCCL ring latency on 2-8 GPUs; the bandwidth term comes from the GPU preset).
pub const ALLREDUCE_LATENCY_PCIE_S: f64 = 20e-6;
pub const ALLREDUCE_LATENCY_NVLINK_S: f64 = 8e-6;

/// Per-GPU link bandwidth assumed when a GPU preset names none: PCIe 4.0 x16,
/// GB/s one way.
pub const DEFAULT_LINK_GB_S: f64 = 32.0;

/// One MoE layer's experts as a step reads them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MoeRead {
    pub experts: u64,
    pub top_k: u64,
    /// Bytes of one expert.
    pub expert_bytes: u64,
    /// The GEMM kernel family its weights stream through.
    pub kernel: WeightKernel,
}

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
    /// From the GPU's kernel generation (its calibration class); a GPU of
    /// no class is taken to be recent.
    pub fn of(gpu: &Gpu) -> NativeLowPrecision {
        let generation = gpu.calibration_class.as_deref().and_then(|c| {
            crate::gpu::CALIBRATION_CLASSES
                .iter()
                .find(|x| x.0 == c)
                .map(|x| x.2)
        });
        match generation {
            // Volta 0, Turing 1, Ampere 2, Ada 3, Hopper and CDNA3 4, Blackwell and CDNA4 5.
            Some(g) => NativeLowPrecision {
                fp8: g >= 3,
                fp4: g >= 5,
            },
            None => NativeLowPrecision {
                fp8: true,
                fp4: true,
            },
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
        let runs_natively = if quant.method == crate::quant::QuantMethod::Nvfp4 {
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

/// What one token costs a model on a GPU, from its shapes, weights and KV layout.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Work {
    /// Bytes read once per step by 16-bit GEMMs: every weight but the
    /// embedding table, encoders, buffers and the quantized layers.
    pub dense_weight_bytes: u64,
    /// Bytes read once per step by dequantizing weight-only GEMMs.
    pub quant_weight_bytes: u64,
    /// Bytes read once per step by fp8 / NVFP4 GEMMs.
    pub fp8_weight_bytes: u64,
    /// Layers a step runs through (each pays `layer_us`).
    pub layers: u64,
    /// Dequantizing GEMM kernels per step (each at least `quant_gemm_floor_us`):
    /// two per layer whose projections are quantized (vLLM fuses q/k/v and
    /// gate/up).
    pub quant_gemms: u64,
    /// FLOPs per decoded token in linear layers (lm_head included).
    pub decode_flops_per_token: f64,
    /// FLOPs per prefilled token: linear layers without lm_head, plus the Mamba scan.
    pub prefill_flops_per_token: f64,
    /// Mamba state bytes read and written per sequence per step.
    pub state_bytes_per_seq: u64,
    /// KV bytes read per token of context in full-attention layers.
    pub kv_bytes_per_token: u64,
    /// KV bytes per token in sliding-window layers, with their windows.
    pub sliding_kv: Vec<(u64, u64)>,
    /// Attention FLOPs per (query, key) pair summed over attention layers.
    pub attn_flops_per_pair: f64,
    /// The decode attention kernel family.
    pub attention_kernel: AttnKernel,
    /// Whether the host's share of a step overlaps the GPU's.
    pub async_scheduling: bool,
    /// The longest context a decode step still runs as a CUDA graph at
    /// (None: every decode step does; 0: none, `--enforce-eager`).
    pub cuda_graph_max_context_tokens: Option<u64>,
    pub bandwidth_bytes_s: f64,
    pub peak_flops: f64,
    pub max_num_batched_tokens: u64,
    pub max_num_seqs: u64,
    /// Tokens per KV block (prefix-cache hits come in whole blocks).
    pub block_size_tokens: u64,
    pub enable_prefix_caching: bool,
    /// Tensor parallelism: GPUs, layers that end in an all-reduce, the hidden
    /// size reduced, and the link's bandwidth (bytes/s) and latency (s).
    pub tensor_parallel_size: u64,
    pub allreduce_layers: u64,
    pub hidden_size: u64,
    pub interconnect_bytes_s: f64,
    pub allreduce_latency_s: f64,
    pub moe_layers: Vec<MoeRead>,
    /// Pipeline stages a step runs through in turn: each boundary a
    /// point-to-point send of the hidden states and residual (vLLM's
    /// `IntermediateTensors`), 1/tp of them per GPU of the TP group.
    pub pipeline_parallel_size: u64,
}

/// What one engine step computes: decoding sequences and prefill chunks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Batch {
    /// Sequences producing one token each.
    pub decode_seqs: f64,
    /// KV bytes those sequences read, summed ([`Work::kv_bytes`] of each context).
    pub decode_kv_bytes: f64,
    /// Prompt tokens computed in this step, over all chunks.
    pub prefill_tokens: f64,
    /// Sequences those chunks belong to.
    pub prefill_seqs: f64,
    /// (query, key) pairs of the chunks' causal attention.
    pub prefill_pairs: f64,
    /// The longest context among the decoding sequences (CUDA graphs cover
    /// decode steps up to a context in V0).
    pub max_context_tokens: f64,
}

impl Work {
    /// `model` is what one GPU holds (`Plan::per_gpu`).
    pub fn new(
        model: &Model,
        quant: &WeightQuant,
        engine: &EngineArgs,
        gpu: &Gpu,
        layout: &KvLayout,
    ) -> Work {
        let WeightReads {
            dense: dense_weight_bytes,
            dequantized: quant_weight_bytes,
            low_precision: fp8_weight_bytes,
            linear_params,
            lm_head_params,
        } = weight_reads(model, quant, NativeLowPrecision::of(gpu));
        let (moe_layers, active_expert_params) =
            moe_reads(model, quant, NativeLowPrecision::of(gpu));
        let mut state_bytes_per_seq = 0;
        let mut scan_flops = 0.0;
        let mut attn_flops_per_pair = 0.0;
        for l in &model.layers {
            if let Some(state) = l.state() {
                state_bytes_per_seq += 2 * layout.mamba_state_bytes_per_layer;
                // Chunked scan: about three multiply-adds per state element per token.
                scan_flops += 6.0 * state.ssm_elems as f64;
            }
            if let Layer::Attention(a) = l {
                attn_flops_per_pair += a.flops_per_pair() as f64;
            }
        }
        let (kv_bytes_per_token, sliding_kv) = kv_reads(model, engine, layout);
        let linear = (linear_params as f64 + active_expert_params) * 2.0;
        let nvlink = gpu
            .interconnect
            .as_deref()
            .is_some_and(|i| i.starts_with("nvlink") || i.starts_with("infinity"));
        Work {
            dense_weight_bytes,
            quant_weight_bytes,
            fp8_weight_bytes,
            layers: model.layers.len() as u64,
            quant_gemms: quant_gemm_count(model, quant),
            decode_flops_per_token: linear + 2.0 * lm_head_params as f64,
            prefill_flops_per_token: linear + scan_flops,
            state_bytes_per_seq,
            kv_bytes_per_token,
            sliding_kv,
            attn_flops_per_pair,
            attention_kernel: AttnKernel::select(
                engine.attention_backend.as_deref(),
                engine.kv_cache_dtype,
                gpu,
            ),
            async_scheduling: engine.async_scheduling,
            cuda_graph_max_context_tokens: if engine.enforce_eager {
                Some(0)
            } else {
                engine.max_seq_len_to_capture_tokens
            },
            bandwidth_bytes_s: gpu.bandwidth_bytes_s(),
            peak_flops: gpu.gemm_peak_flops(),
            max_num_batched_tokens: engine.max_num_batched_tokens.max(1),
            max_num_seqs: engine.max_num_seqs.max(1),
            block_size_tokens: layout.block_size_tokens.max(1),
            enable_prefix_caching: engine.enable_prefix_caching,
            tensor_parallel_size: engine.tensor_parallel_size.max(1),
            // Each mixer and each feed-forward block ends in a row-parallel
            // projection, reduced across the GPUs.
            allreduce_layers: model.layers.len() as u64,
            hidden_size: model.hidden_size,
            interconnect_bytes_s: gpu.interconnect_gb_s.unwrap_or(DEFAULT_LINK_GB_S) * 1e9,
            allreduce_latency_s: if nvlink {
                ALLREDUCE_LATENCY_NVLINK_S
            } else {
                ALLREDUCE_LATENCY_PCIE_S
            },
            moe_layers,
            pipeline_parallel_size: engine.pipeline_parallel_size.max(1),
        }
    }

    /// The work of a resolved plan: what one GPU holds, in the weight layout
    /// in force, on the plan's KV layout.
    pub fn of_plan(plan: &crate::scenario::Plan, cap: &crate::scenario::Capacity) -> Work {
        let quant = plan.engine.weight_quant(&plan.model.quant);
        Work::new(&plan.per_gpu, &quant, &plan.engine, &plan.gpu, &cap.layout)
    }

    /// Bytes a one-token step reads in weights (every kernel family).
    pub fn weight_read_bytes(&self) -> u64 {
        self.dense_weight_bytes + self.quant_weight_bytes + self.fp8_weight_bytes
    }

    /// KV bytes one sequence at `context_tokens` reads per step.
    pub fn kv_bytes(&self, context_tokens: f64) -> f64 {
        let sliding: f64 = self
            .sliding_kv
            .iter()
            .map(|&(bytes, w)| bytes as f64 * context_tokens.min(w as f64))
            .sum();
        self.kv_bytes_per_token as f64 * context_tokens + sliding
    }

    /// Expert bytes a step over `tokens` tokens reads, (16-bit,
    /// dequantized, fp8 / NVFP4): per MoE layer the expected number of
    /// distinct experts top-k routing touches, `E * (1 - (1 - k/E)^tokens)`.
    fn moe_read_bytes(&self, tokens: f64) -> (f64, f64, f64) {
        let mut out = (0.0, 0.0, 0.0);
        for m in &self.moe_layers {
            let e = m.experts.max(1) as f64;
            let touched = e * (1.0 - (1.0 - (m.top_k as f64 / e).min(1.0)).powf(tokens));
            let bytes = touched * m.expert_bytes as f64;
            match m.kernel {
                WeightKernel::Dense => out.0 += bytes,
                WeightKernel::Dequantizing => out.1 += bytes,
                WeightKernel::LowPrecision => out.2 += bytes,
            }
        }
        out
    }

    /// All-reduces of one step over `tokens` tokens: per layer, a ring
    /// all-reduce of `tokens x hidden` bf16 values,
    /// `latency + 2 (tp - 1) / tp x bytes / bandwidth`. Zero without tensor parallelism.
    pub fn allreduce_s(&self, tokens: f64) -> f64 {
        let tp = self.tensor_parallel_size as f64;
        // Pipeline boundaries: hidden states and residual, bf16, 1/tp per GPU.
        let boundaries = self.pipeline_parallel_size.saturating_sub(1) as f64;
        let p2p = boundaries
            * (self.allreduce_latency_s
                + tokens * self.hidden_size as f64 * 2.0 * 2.0 / tp / self.interconnect_bytes_s);
        if tp <= 1.0 {
            return p2p;
        }
        let bytes = tokens * self.hidden_size as f64 * 2.0;
        p2p + self.allreduce_layers as f64
            * (self.allreduce_latency_s + 2.0 * (tp - 1.0) / tp * bytes / self.interconnect_bytes_s)
    }

    fn weights_s(&self, p: &TimingParams, tokens: f64) -> f64 {
        let (moe_dense, moe_quant, moe_fp8) = self.moe_read_bytes(tokens);
        let quant = ((self.quant_weight_bytes as f64 + moe_quant)
            / (self.bandwidth_bytes_s * p.quant_weight_bw_eff))
            .max(self.quant_gemms as f64 * p.quant_gemm_floor_us / 1e6);
        (self.dense_weight_bytes as f64 + moe_dense) / (self.bandwidth_bytes_s * p.weight_bw_eff)
            + (self.fp8_weight_bytes as f64 + moe_fp8)
                / (self.bandwidth_bytes_s * p.fp8_weight_bw_eff)
            + quant
    }

    /// One engine step over `batch`.
    pub fn step(&self, p: &TimingParams, b: &Batch) -> StepTerms {
        let tokens = b.decode_seqs + b.prefill_tokens;
        let seqs = b.decode_seqs + b.prefill_seqs;
        let peak = self.peak_flops;
        let compute_s = b.decode_seqs * self.decode_flops_per_token / (peak * p.gemm_compute_eff)
            + b.prefill_tokens * self.prefill_flops_per_token / (peak * p.prefill_gemm_eff);
        let kernel = self.attention_kernel;
        let decode_attention_s = if b.decode_seqs > 0.0 {
            let mean = b.decode_kv_bytes / b.decode_seqs;
            (b.decode_kv_bytes + p.attn_half_batch * mean)
                / (self.bandwidth_bytes_s * p.attn_bw_eff(kernel))
        } else {
            0.0
        };
        let prefill_attention_s =
            b.prefill_pairs * self.attn_flops_per_pair / (peak * p.prefill_attn_eff(kernel));
        let eager = b.prefill_tokens == 0.0
            && b.decode_seqs > 0.0
            && self
                .cuda_graph_max_context_tokens
                .is_some_and(|limit| b.max_context_tokens > limit as f64);
        StepTerms {
            launch_s: if eager {
                self.layers as f64 * p.eager_layer_us / 1e6
            } else {
                0.0
            },
            host_s: if seqs > 0.0 {
                p.host_step_ms / 1e3 + seqs * p.host_per_seq_us / 1e6
            } else {
                0.0
            },
            async_scheduling: self.async_scheduling,
            weights_s: if tokens > 0.0 {
                self.weights_s(p, tokens)
            } else {
                0.0
            },
            compute_s,
            state_s: seqs * self.state_bytes_per_seq as f64
                / (self.bandwidth_bytes_s * p.state_bw_eff),
            attention_s: decode_attention_s + prefill_attention_s,
            allreduce_s: if tokens > 0.0 {
                self.allreduce_s(tokens)
            } else {
                0.0
            },
            layers_s: if tokens > 0.0 {
                self.layers as f64 * p.layer_us / 1e6
            } else {
                0.0
            },
        }
    }

    /// One decode step with `running` sequences at `context_tokens` each.
    pub fn decode_step(&self, p: &TimingParams, running: f64, context_tokens: f64) -> StepTerms {
        self.step(
            p,
            &Batch {
                decode_seqs: running,
                decode_kv_bytes: running * self.kv_bytes(context_tokens),
                max_context_tokens: context_tokens,
                ..Batch::default()
            },
        )
    }

    /// Prefill of `tail_tokens` tokens whose last token is at `context_tokens`
    /// (a cold prefill has `tail == context`), alone, in
    /// max_num_batched_tokens chunks.
    pub fn prefill(&self, p: &TimingParams, tail_tokens: f64, context_tokens: f64) -> PrefillTerms {
        let tail = tail_tokens.max(0.0).min(context_tokens.max(0.0));
        let chunk = self.max_num_batched_tokens as f64;
        let full = (tail / chunk).floor();
        let rest = tail - full * chunk;
        let start = context_tokens - tail;
        let mut out = PrefillTerms::default();
        let mut add = |n: f64, at: f64, count: f64| {
            // Token i (1-based, absolute) attends to i keys: a chunk of n
            // tokens after `at` cached ones has n (2 at + n + 1) / 2 pairs.
            let s = self.step(
                p,
                &Batch {
                    prefill_tokens: n,
                    prefill_seqs: 1.0,
                    prefill_pairs: n * (2.0 * at + n + 1.0) / 2.0,
                    ..Batch::default()
                },
            );
            out.chunks += count;
            out.host_s += count * s.host_s;
            out.gemm_s += count * (s.gemm_s() + s.state_s + s.allreduce_s + s.layers_s);
            out.attention_s += count * s.attention_s;
            out.total += count * s.total_s();
        };
        if full > 0.0 {
            // The full chunks' pairs grow linearly with their start: their
            // sum is `full` chunks at the mean start.
            add(chunk, start + (full - 1.0) / 2.0 * chunk, full);
        }
        if rest > 0.0 {
            add(rest, start + full * chunk, 1.0);
        }
        out
    }
}

/// Weights a step streams, by kernel family, and the parameter counts the
/// FLOPs come from.
struct WeightReads {
    dense: u64,
    dequantized: u64,
    low_precision: u64,
    /// Linear parameters without experts.
    linear_params: u64,
    lm_head_params: u64,
}

/// Embeddings are gathered, not streamed; encoders run on images at
/// prefill; buffers are read by position.
fn weight_reads(model: &Model, quant: &WeightQuant, native: NativeLowPrecision) -> WeightReads {
    let (mut dense, mut dequant, mut lowp, mut linear, mut lm_head) = (0, 0, 0, 0, 0);
    for m in &model.modules() {
        let bytes = quant.module_bytes(m, model.dtype);
        match m.kind {
            ModuleKind::Embedding
            | ModuleKind::Encoder
            | ModuleKind::Buffer
            | ModuleKind::ExpertLinear => continue,
            ModuleKind::LmHead => lm_head += m.params(),
            ModuleKind::AttentionLinear | ModuleKind::MambaLinear | ModuleKind::MlpLinear => {
                linear += m.params()
            }
            ModuleKind::Other => {}
        }
        match WeightKernel::of(quant, m, native) {
            WeightKernel::Dense => dense += bytes,
            WeightKernel::Dequantizing => dequant += bytes,
            WeightKernel::LowPrecision => lowp += bytes,
        }
    }
    WeightReads {
        dense,
        dequantized: dequant,
        low_precision: lowp,
        linear_params: linear,
        lm_head_params: lm_head,
    }
}

/// Dequantizing GEMM kernels a step launches: two per layer whose
/// projections the checkpoint quantizes with a weight-only format.
fn quant_gemm_count(model: &Model, quant: &WeightQuant) -> u64 {
    let probe = |name, kind| crate::model::Module {
        name,
        kind,
        in_features: 1,
        out_features: 1,
        count: 1,
    };
    model
        .layers
        .iter()
        .filter(|l| {
            let m = match l {
                Layer::Attention(_) => probe("o_proj", ModuleKind::AttentionLinear),
                Layer::Mlp(_) => probe("down_proj", ModuleKind::MlpLinear),
                Layer::Moe(_) => probe("expert_down_proj", ModuleKind::ExpertLinear),
                Layer::Mamba2(_) | Layer::Mamba1(_) | Layer::DeltaNet(_) => {
                    probe("out_proj", ModuleKind::MambaLinear)
                }
            };
            quant.dequantizes(&m)
        })
        .count() as u64
        * 2
}

/// Experts: all held, top_k of num_experts computed per token; the bytes an
/// expert step reads depend on the batch (`Work::moe_read_bytes`).
fn moe_reads(
    model: &Model,
    quant: &WeightQuant,
    native: NativeLowPrecision,
) -> (Vec<MoeRead>, f64) {
    let mut active_expert_params = 0.0;
    let mut out = Vec::new();
    for l in &model.layers {
        let Layer::Moe(e) = l else { continue };
        // Latent experts work in their latent width.
        let (h, i) = (
            e.latent_dim.unwrap_or(model.hidden_size),
            e.expert_intermediate,
        );
        let linear = |name, in_features, out_features| crate::model::Module {
            name,
            kind: ModuleKind::ExpertLinear,
            in_features,
            out_features,
            count: 1,
        };
        let mut expert = vec![
            linear("expert_up_proj", h, i),
            linear("expert_down_proj", i, h),
        ];
        if e.gated {
            expert.push(linear("expert_gate_proj", h, i));
        }
        let params: u64 = expert.iter().map(crate::model::Module::params).sum();
        let bytes = expert
            .iter()
            .map(|m| quant.module_bytes(m, model.dtype))
            .sum();
        active_expert_params += (e.top_k * params) as f64;
        out.push(MoeRead {
            experts: e.num_experts,
            top_k: e.top_k,
            expert_bytes: bytes,
            kernel: expert
                .first()
                .map_or(WeightKernel::Dense, |m| WeightKernel::of(quant, m, native)),
        });
    }
    (out, active_expert_params)
}

/// KV bytes per token a step reads: full-attention layers, and sliding-window
/// layers with their windows. Under pipeline parallelism `layout` is one
/// stage's; a step reads the KV cache of every stage's layers.
fn kv_reads(model: &Model, engine: &EngineArgs, layout: &KvLayout) -> (u64, Vec<(u64, u64)>) {
    let whole = if engine.pipeline_parallel_size > 1 {
        KvLayout::new(model, engine).ok()
    } else {
        None
    };
    let kv_layout = whole.as_ref().unwrap_or(layout);
    let mut full = 0;
    let mut sliding = Vec::new();
    for g in &kv_layout.groups {
        let bytes = g.layers * g.bytes_per_token;
        match (g.kind, g.window_tokens) {
            (GroupKind::FullAttention, _) => full += bytes,
            (GroupKind::SlidingWindow, Some(w)) => sliding.push((bytes, w)),
            _ => {}
        }
    }
    (full, sliding)
}

/// The terms of one engine step, seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StepTerms {
    /// The host's share: scheduling, input preparation, sampling, output.
    pub host_s: f64,
    /// Whether the host's share overlaps the GPU's.
    pub async_scheduling: bool,
    /// Streaming the weights once.
    pub weights_s: f64,
    /// GEMM FLOPs for the batch; the GEMMs take the larger of the two.
    pub compute_s: f64,
    /// Mamba states read and written.
    pub state_s: f64,
    /// Attention: decode KV reads and prefill's quadratic part.
    pub attention_s: f64,
    /// All-reduces across tensor-parallel GPUs.
    pub allreduce_s: f64,
    /// The layers' fixed kernel time.
    pub layers_s: f64,
    /// Launching every kernel from the host, when the step runs eagerly:
    /// the GPU's share is at least this.
    pub launch_s: f64,
}

impl StepTerms {
    pub fn gemm_s(&self) -> f64 {
        self.weights_s.max(self.compute_s)
    }

    /// The GPU's share.
    pub fn gpu_s(&self) -> f64 {
        (self.gemm_s() + self.state_s + self.attention_s + self.allreduce_s + self.layers_s)
            .max(self.launch_s)
    }

    pub fn total_s(&self) -> f64 {
        if self.async_scheduling {
            self.gpu_s().max(self.host_s)
        } else {
            self.gpu_s() + self.host_s
        }
    }

    /// The name of the largest term.
    pub fn dominant(&self) -> &'static str {
        let gemm = if self.compute_s > self.weights_s {
            ("GEMM compute", self.compute_s)
        } else {
            ("weight reads", self.weights_s)
        };
        [
            ("host (scheduler, sampler, launch)", self.host_s),
            gemm,
            ("Mamba state traffic", self.state_s),
            ("attention KV reads", self.attention_s),
            ("tensor-parallel all-reduce", self.allreduce_s),
            ("per-layer kernels", self.layers_s),
            ("eager kernel launches", self.launch_s),
        ]
        .into_iter()
        .fold(("host (scheduler, sampler, launch)", f64::MIN), |a, b| {
            if b.1 > a.1 {
                b
            } else {
                a
            }
        })
        .0
    }
}

/// The terms of a prefill, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PrefillTerms {
    pub chunks: f64,
    /// The host's share over all chunks.
    pub host_s: f64,
    /// GEMMs (weights or compute), Mamba states and all-reduces.
    pub gemm_s: f64,
    pub attention_s: f64,
    /// The chunks' step times summed (host overlapped when asynchronous).
    pub total: f64,
}

impl PrefillTerms {
    pub fn total_s(&self) -> f64 {
        self.total
    }
}

/// A decode cell's predicted figures, as the harness defines them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecodeTiming {
    /// Tokens the server sees per prompt.
    pub prompt_tokens: u64,
    /// Prompt tokens each request recomputes (past the last cached block boundary).
    pub recomputed_tokens: u64,
    /// Completion tokens per second over the window, all requests.
    pub total_tok_s: f64,
    /// Median over requests of 1 / their time between tokens.
    pub per_request_tok_s: f64,
    /// Median over requests of (last token - first token) / (tokens - 1).
    pub tbt_ms: f64,
    /// Median over requests of the time to their first token.
    pub ttft_ms: f64,
    /// Output tokens counted in the window.
    pub output_tokens: f64,
    pub measured_s: f64,
    /// Context of each sequence at the middle of the window.
    pub window_context_tokens: f64,
    /// The decode step at that context.
    pub step: StepTerms,
    /// One request's admission: its recomputed prefill.
    pub admission: PrefillTerms,
    /// When the window opens, seconds after the requests are sent.
    pub window_start_s: f64,
}

/// Predict a decode cell: `running` of the cell's requests run at once, all
/// with the same prompt of nominal `context_tokens`.
///
/// Timeline (harness source, `run_one_cell`): the scout has cached the
/// prompt; the C requests are sent at once and admitted one after another,
/// each recomputing its tail past the last cached block boundary (hybrid
/// models cache Mamba states only at boundaries), so request k gets its first
/// token at about `k * p`. While later ones prefill, earlier ones gain about a
/// token per admission step. The window opens when every stream has a token
/// and that has held for 3 s, at a scrape; it lasts `window_s`. A queued cell
/// never becomes ready and opens at the warm-up timeout.
pub fn decode_cell(
    work: &Work,
    p: &TimingParams,
    harness: &Harness,
    context_tokens: u64,
    concurrency: u64,
    running: u64,
) -> DecodeTiming {
    let prompt = harness.prompt_tokens(context_tokens);
    let bs = work.block_size_tokens;
    let cached_blocks = if work.enable_prefix_caching && context_tokens > 0 {
        prompt.saturating_sub(1) / bs
    } else {
        0
    };
    let tail = prompt - cached_blocks * bs;
    let admission = work.prefill(p, tail as f64, prompt as f64);
    let per_request_s = admission.total_s();
    let r = running.max(1) as f64;
    let ramp_s = r * per_request_s;
    let window_start_s = if running < concurrency {
        harness_timeline::warmup_timeout_s(context_tokens)
    } else {
        (ramp_s + harness_timeline::READY_STABLE_S).max(harness_timeline::MIN_WARMUP_S)
            + harness_timeline::SCRAPE_INTERVAL_S / 2.0
    };
    // Contexts grow while decoding: evaluate the step at the window's middle,
    // iterating because the growth depends on the step time.
    let mut step = work.decode_step(p, r, prompt as f64);
    let mut mid = prompt as f64;
    for _ in 0..4 {
        let decode_before = (window_start_s - ramp_s).max(0.0) + harness.window_s / 2.0;
        mid = (prompt as f64 + decode_before / step.total_s().max(1e-9))
            .min((prompt + harness.max_tokens) as f64);
        step = work.decode_step(p, r, mid);
    }
    let t_step = step.total_s().max(1e-9);
    let total_tok_s = r / t_step;
    let end_s = window_start_s + harness.window_s;
    let ramp_tokens_per_admission = admission.chunks.max(1.0);
    let mut tbt: Vec<f64> = (1..=running.max(1))
        .map(|k| {
            let k = k as f64;
            let first = k * per_request_s;
            let tokens = 1.0 + (r - k) * ramp_tokens_per_admission + (end_s - ramp_s) / t_step;
            (end_s - first) / (tokens - 1.0).max(1.0)
        })
        .collect();
    let mut rate: Vec<f64> = tbt.iter().map(|t| 1.0 / t.max(1e-12)).collect();
    let tbt_s = median(&mut tbt);
    let per_request = median(&mut rate);
    DecodeTiming {
        prompt_tokens: prompt,
        recomputed_tokens: tail,
        total_tok_s,
        per_request_tok_s: per_request,
        tbt_ms: tbt_s * 1e3,
        ttft_ms: (r + 1.0) / 2.0 * per_request_s * 1e3,
        output_tokens: total_tok_s * harness.window_s,
        measured_s: harness.window_s,
        window_context_tokens: mid,
        step,
        admission,
        window_start_s,
    }
}

/// A cold prefill row: the scout request's prompt tokens over its TTFT.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PrefillTiming {
    pub prompt_tokens: u64,
    pub tok_s: f64,
    pub ttft_ms: f64,
    pub terms: PrefillTerms,
}

pub fn prefill_row(
    work: &Work,
    p: &TimingParams,
    harness: &Harness,
    context_tokens: u64,
) -> PrefillTiming {
    let prompt = harness.prompt_tokens(context_tokens);
    let terms = work.prefill(p, prompt as f64, prompt as f64);
    let t = terms.total_s().max(1e-12);
    PrefillTiming {
        prompt_tokens: prompt,
        tok_s: prompt as f64 / t,
        ttft_ms: t * 1e3,
        terms,
    }
}

/// Median with linear interpolation between the middle two (the harness's p50).
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values.get(n / 2).copied().unwrap_or(0.0),
        _ => {
            let a = values.get(n / 2 - 1).copied().unwrap_or(0.0);
            let b = values.get(n / 2).copied().unwrap_or(0.0);
            (a + b) / 2.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{NoFiles, Request};
    use approx::assert_relative_eq;

    fn reference_work() -> (crate::scenario::Plan, Work) {
        let plan = Request::default().resolve(&NoFiles).unwrap();
        let cap = plan.capacity().unwrap();
        let quant = plan.engine.weight_quant(&plan.model.quant);
        let work = Work::new(&plan.per_gpu, &quant, &plan.engine, &plan.gpu, &cap.layout);
        (plan, work)
    }

    /// Llama-3.1-8B with `--quantization fp8` on `gpu`.
    fn fp8_work(gpu: &str) -> Work {
        let plan = Request {
            model: Some("llama-3.1-8b".into()),
            gpu: Some(gpu.into()),
            engine: crate::engine::EngineSettings {
                quantization: Some("fp8".into()),
                max_model_len: Some(8192),
                ..Default::default()
            },
            ..Request::default()
        }
        .resolve(&NoFiles)
        .unwrap();
        let cap = plan.capacity().unwrap();
        Work::of_plan(&plan, &cap)
    }

    #[test]
    fn fp8_weights_stream_through_scaled_mm_from_ada_and_marlin_before() {
        // Hopper: CUTLASS scaled_mm reads the fp8 weights as such.
        let h100 = fp8_work("h100-sxm");
        assert!(
            h100.fp8_weight_bytes > 6_000_000_000,
            "{}",
            h100.fp8_weight_bytes
        );
        assert_eq!(h100.quant_weight_bytes, 0);
        // Ampere has no fp8 tensor cores: Marlin's weight-only FP8 kernel
        // dequantizes the same bytes.
        let a100 = fp8_work("a100-80gb");
        assert_eq!(a100.fp8_weight_bytes, 0);
        assert_eq!(a100.quant_weight_bytes, h100.fp8_weight_bytes);
        // The lm_head and the norms stay 16-bit on both.
        assert_eq!(a100.dense_weight_bytes, h100.dense_weight_bytes);
        assert_eq!(
            h100.dense_weight_bytes,
            4096 * 128_256 * 2 + (2 * 32 + 1) * 4096 * 2
        );
    }

    #[test]
    fn work_per_token_of_the_reference_model() {
        let (_, w) = reference_work();
        // Weights 8,944,804,864 B less the 131,072 x 5,120 bf16 embedding table.
        assert_eq!(w.weight_read_bytes(), 8_944_804_864 - 1_342_177_280);
        // Streamed by dense GEMMs: the six attention layers' bf16 projections
        // (6 x 62,914,560 x 2 B), the bf16 lm_head (131,072 x 5,120 x 2 B)
        // and 4,680,704 B of norms, conv1d and SSM parameters; the rest is int4.
        assert_eq!(
            w.dense_weight_bytes,
            754_974_720 + 1_342_177_280 + 4_680_704
        );
        assert_eq!(w.quant_weight_bytes, 5_500_794_880);
        assert_eq!(w.attention_kernel, AttnKernel::Triton);
        // 28 Mamba and 28 MLP layers quantized, the 6 attention layers not:
        // two dequantizing GEMMs each.
        assert_eq!((w.layers, w.quant_gemms), (62, 112));
        assert!(w.async_scheduling);
        // 2 x (6 x 62,914,560 + 28 x 168,427,520 + 28 x 209,715,200 + 671,088,640).
        assert_relative_eq!(w.decode_flops_per_token, 23_273_144_320.0);
        // Read and written: 2 x 28 x 5,316,608 B (the real state, not the padded page).
        assert_eq!(w.state_bytes_per_seq, 297_730_048);
        // 6 attention layers x 8 heads x (128 + 8) B.
        assert_eq!(w.kv_bytes_per_token, 6_528);
        // 4 x 40 heads x 128 x 6 layers.
        assert_relative_eq!(w.attn_flops_per_pair, 122_880.0);
        assert_relative_eq!(w.peak_flops, 142e12);
        assert_relative_eq!(w.bandwidth_bytes_s, 936e9);
    }

    #[test]
    fn decode_step_terms_by_hand() {
        let (_, w) = reference_work();
        let p = TimingParams::FIRST_PRINCIPLES;
        let s = w.decode_step(&p, 1.0, 0.0);
        let weights = 2_101_832_704.0 / (936e9 * 0.8) + 5_500_794_880.0 / (936e9 * 0.7);
        assert_relative_eq!(s.weights_s, weights, max_relative = 1e-12);
        assert_relative_eq!(
            s.compute_s,
            23_273_144_320.0 / (142e12 * 0.5),
            max_relative = 1e-12
        );
        assert_relative_eq!(
            s.state_s,
            297_730_048.0 / (936e9 * 0.8),
            max_relative = 1e-12
        );
        assert_eq!(s.attention_s, 0.0);
        // 62 layers at 5 us of small kernels each.
        assert_relative_eq!(s.layers_s, 62.0 * 5e-6, max_relative = 1e-12);
        // Host: 1 ms + 20 us for the one sequence, hidden under the GPU's
        // 11.5 ms by asynchronous scheduling; added to it without.
        assert_relative_eq!(s.host_s, 1.02e-3, max_relative = 1e-12);
        let gpu = weights + 297_730_048.0 / (936e9 * 0.8) + 62.0 * 5e-6;
        assert_relative_eq!(s.total_s(), gpu, max_relative = 1e-12);
        let sync = StepTerms {
            async_scheduling: false,
            ..s
        };
        assert_relative_eq!(sync.total_s(), gpu + 1.02e-3, max_relative = 1e-12);
        assert_eq!(s.dominant(), "weight reads");
        // 64 sequences at 16K: compute-bound GEMMs; attention pays (64 + 1)
        // sequences' KV at the Triton kernel's efficiency.
        let s = w.decode_step(&p, 64.0, 16_384.0);
        assert!(s.compute_s > s.weights_s);
        assert_relative_eq!(
            s.attention_s,
            65.0 * 6_528.0 * 16_384.0 / (936e9 * 0.25),
            max_relative = 1e-12
        );
        assert_eq!(s.dominant(), "attention KV reads");
    }

    #[test]
    fn eager_decode_steps_pay_their_kernel_launches() {
        let (_, mut w) = reference_work();
        let p = TimingParams {
            eager_layer_us: 300.0,
            ..TimingParams::FIRST_PRINCIPLES
        };
        // CUDA graphs: no launch term.
        assert_eq!(w.decode_step(&p, 1.0, 9_000.0).launch_s, 0.0);
        // V0's limit: graphs up to 8,192 tokens of context, eager past it,
        // where 62 layers x 300 us = 18.6 ms outlasts the GPU's 11.5 ms.
        w.cuda_graph_max_context_tokens = Some(8192);
        assert_eq!(w.decode_step(&p, 1.0, 8_000.0).launch_s, 0.0);
        let s = w.decode_step(&p, 1.0, 9_000.0);
        assert_relative_eq!(s.launch_s, 62.0 * 300e-6, max_relative = 1e-12);
        assert_relative_eq!(s.gpu_s(), 62.0 * 300e-6, max_relative = 1e-12);
        assert_eq!(s.dominant(), "eager kernel launches");
        // Prefill steps are not decode steps: no launch term.
        let chunk = w.prefill(&p, 1000.0, 1000.0);
        assert!(chunk.total > 0.0 && chunk.chunks == 1.0);
    }

    #[test]
    fn prefill_attention_counts_causal_pairs() {
        let (_, w) = reference_work();
        let p = TimingParams::FIRST_PRINCIPLES;
        let cold = w.prefill(&p, 8_192.0, 8_192.0);
        assert_eq!(cold.chunks, 4.0);
        assert_relative_eq!(
            cold.attention_s,
            8_192.0 * 8_193.0 / 2.0 * 122_880.0 / (142e12 * 0.15),
            max_relative = 1e-12
        );
        // A 1,928-token tail at 16,616: pairs t (2P - t + 1) / 2.
        let tail = w.prefill(&p, 1_928.0, 16_616.0);
        assert_eq!(tail.chunks, 1.0);
        assert_relative_eq!(
            tail.attention_s,
            1_928.0 * (2.0 * 16_616.0 - 1_928.0 + 1.0) / 2.0 * 122_880.0 / (142e12 * 0.15),
            max_relative = 1e-12
        );
    }

    #[test]
    fn median_interpolates_like_the_harness() {
        assert_eq!(median(&mut []), 0.0);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn a_queued_cell_opens_its_window_at_the_warmup_timeout() {
        assert_eq!(harness_timeline::warmup_timeout_s(0), 60.0);
        assert_eq!(harness_timeline::warmup_timeout_s(65_536), 120.0);
        assert_eq!(harness_timeline::warmup_timeout_s(131_072), 180.0);
        let (plan, w) = reference_work();
        let t = decode_cell(&w, &plan.calibration.params, &plan.harness, 0, 128, 67);
        assert_eq!(t.window_start_s, 60.0);
        // 16K x 32 recomputes 16,616 - 3 x 4,896 = 1,928 prompt tokens per request.
        let t = decode_cell(&w, &plan.calibration.params, &plan.harness, 16_384, 32, 32);
        assert_eq!(t.prompt_tokens, 16_616);
        assert_eq!(t.recomputed_tokens, 1_928);
        // Median TTFT of a serial ramp: (32 + 1) / 2 admissions.
        assert_relative_eq!(
            t.ttft_ms,
            16.5 * t.admission.total_s() * 1e3,
            max_relative = 1e-12
        );
    }
}
