//! Decode and prefill timing: a step's time from bytes and FLOPs over the
//! GPU's bandwidth and tensor throughput, each at an efficiency, and the
//! cell figures the harness reports (docs/reference/harness.md and the
//! harness source it describes, llm-inference-bench `llm_decode_bench.py`).
//!
//! How the terms combine (ARCHITECTURE.md says why):
//! - decode step, `R` running sequences at context `L`:
//!   `overhead + max(weights / (BW e_w), R * flops / (peak e_c))
//!    + R * state / (BW e_s) + (R + h) * kv(L) / (BW e_kv)`;
//! - prefill of `t` tokens ending at context `P`, in chunks of
//!   `max_num_batched_tokens`: per chunk `overhead + max(weights / (BW e_w),
//!   chunk * prefill_flops / (peak e_pc))`, plus attention
//!   `pair_flops * t (2P - t + 1) / 2 / (peak e_pa)`.

use crate::allocator::{GroupKind, KvLayout};
use crate::engine::{EngineArgs, Harness};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::model::Model;
use crate::model::{Layer, ModuleKind};
use crate::quant::WeightQuant;
use serde::{Deserialize, Serialize};

/// The timing model's parameters: each an efficiency (a fraction of a peak)
/// or a time, each with a physical meaning. Calibration fits them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingParams {
    /// Fixed time per engine step (kernel launches not hidden by CUDA graphs,
    /// scheduling, sampling), ms.
    pub step_overhead_ms: f64,
    /// Fraction of peak DRAM bandwidth reached streaming the weights once per step.
    pub weight_bw_eff: f64,
    /// Fraction of the tensor peak reached by decode GEMMs once they are compute-bound.
    pub gemm_compute_eff: f64,
    /// Fraction of peak bandwidth reached reading and writing Mamba states.
    pub state_bw_eff: f64,
    /// Fraction of peak bandwidth the decode attention kernel reaches reading KV
    /// with many sequences in flight.
    pub attn_bw_eff: f64,
    /// Sequences' worth of KV reading a step pays regardless of batch: the
    /// attention kernel's latency with few sequences (it reaches half its
    /// peak bandwidth at this many sequences).
    pub attn_half_batch: f64,
    /// Fraction of the tensor peak reached by prefill GEMMs (linear layers, Mamba scan).
    pub prefill_gemm_eff: f64,
    /// Fraction of the tensor peak reached by prefill attention (its quadratic part).
    pub prefill_attn_eff: f64,
}

impl TimingParams {
    pub const NAMES: [&'static str; 8] = [
        "step_overhead_ms",
        "weight_bw_eff",
        "gemm_compute_eff",
        "state_bw_eff",
        "attn_bw_eff",
        "attn_half_batch",
        "prefill_gemm_eff",
        "prefill_attn_eff",
    ];

    /// Physical bounds of each parameter, in [`TimingParams::NAMES`] order.
    pub const BOUNDS: [(f64, f64); 8] = [
        (0.0, 20.0),
        (0.01, 1.0),
        (0.01, 1.0),
        (0.01, 1.0),
        (0.01, 1.0),
        (0.0, 64.0),
        (0.01, 1.0),
        (0.01, 1.0),
    ];

    /// First-principles defaults (`--calibration none`): typical fractions of
    /// peak for well-tuned kernels, not fitted to anything. Decode attention
    /// and prefill attention get lower figures than GEMMs: they are
    /// latency- and occupancy-bound at serving batch sizes.
    pub const FIRST_PRINCIPLES: TimingParams = TimingParams {
        step_overhead_ms: 0.5,
        weight_bw_eff: 0.8,
        gemm_compute_eff: 0.5,
        state_bw_eff: 0.8,
        attn_bw_eff: 0.25,
        attn_half_batch: 1.0,
        prefill_gemm_eff: 0.6,
        prefill_attn_eff: 0.25,
    };

    pub fn to_array(&self) -> [f64; 8] {
        [
            self.step_overhead_ms,
            self.weight_bw_eff,
            self.gemm_compute_eff,
            self.state_bw_eff,
            self.attn_bw_eff,
            self.attn_half_batch,
            self.prefill_gemm_eff,
            self.prefill_attn_eff,
        ]
    }

    pub fn from_array(v: [f64; 8]) -> TimingParams {
        let [a, b, c, d, e, f, g, h] = v;
        TimingParams {
            step_overhead_ms: a,
            weight_bw_eff: b,
            gemm_compute_eff: c,
            state_bw_eff: d,
            attn_bw_eff: e,
            attn_half_batch: f,
            prefill_gemm_eff: g,
            prefill_attn_eff: h,
        }
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

/// What one token costs a model on a GPU, from its shapes, weights and KV layout.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Work {
    /// Bytes read once per step: every weight but the embedding table.
    pub weight_read_bytes: u64,
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
    pub bandwidth_bytes_s: f64,
    pub peak_flops: f64,
    pub max_num_batched_tokens: u64,
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
    /// For MoE layers: (experts, top_k, bytes of one expert) per layer.
    pub moe_layers: Vec<(u64, u64, u64)>,
    /// Pipeline stages a step runs through in turn: each pays the step
    /// overhead, and each boundary a point-to-point send of the hidden
    /// states and residual (vLLM's `IntermediateTensors`), 1/tp of them per
    /// GPU of the TP group.
    pub pipeline_parallel_size: u64,
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
        let modules = model.modules();
        let mut weight_read_bytes = 0;
        let mut linear_params = 0u64;
        let mut lm_head_params = 0u64;
        for m in &modules {
            let bytes = quant.module_bytes(m, model.dtype);
            match m.kind {
                // Encoders run on images at prefill, not in a decode step.
                ModuleKind::Embedding | ModuleKind::Encoder | ModuleKind::Buffer => {}
                ModuleKind::ExpertLinear => {}
                ModuleKind::LmHead => {
                    lm_head_params += m.params();
                    weight_read_bytes += bytes;
                }
                ModuleKind::AttentionLinear | ModuleKind::MambaLinear | ModuleKind::MlpLinear => {
                    linear_params += m.params();
                    weight_read_bytes += bytes;
                }
                ModuleKind::Other => weight_read_bytes += bytes,
            }
        }
        // Experts: all held, top_k of num_experts computed per token; the
        // bytes an expert step reads depend on the batch (see `moe_read_bytes`).
        let mut active_expert_params = 0.0;
        let mut moe_layers = Vec::new();
        for l in &model.layers {
            if let Layer::Moe(e) = l {
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
                moe_layers.push((e.num_experts, e.top_k, bytes));
            }
        }
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
        // Under pipeline parallelism `layout` is one stage's; a step reads the
        // KV cache of every stage's layers.
        let whole = if engine.pipeline_parallel_size > 1 {
            KvLayout::new(model, engine).ok()
        } else {
            None
        };
        let kv_layout = whole.as_ref().unwrap_or(layout);
        let mut kv_bytes_per_token = 0;
        let mut sliding_kv = Vec::new();
        for g in &kv_layout.groups {
            let bytes = g.layers * g.bytes_per_token;
            match (g.kind, g.window_tokens) {
                (GroupKind::FullAttention, _) => kv_bytes_per_token += bytes,
                (GroupKind::SlidingWindow, Some(w)) => sliding_kv.push((bytes, w)),
                _ => {}
            }
        }
        let linear = (linear_params as f64 + active_expert_params) * 2.0;
        Work {
            weight_read_bytes,
            decode_flops_per_token: linear + 2.0 * lm_head_params as f64,
            prefill_flops_per_token: linear + scan_flops,
            state_bytes_per_seq,
            kv_bytes_per_token,
            sliding_kv,
            attn_flops_per_pair,
            bandwidth_bytes_s: gpu.bandwidth_bytes_s(),
            peak_flops: gpu.gemm_peak_flops(),
            max_num_batched_tokens: engine.max_num_batched_tokens.max(1),
            block_size_tokens: layout.block_size_tokens.max(1),
            enable_prefix_caching: engine.enable_prefix_caching,
            tensor_parallel_size: engine.tensor_parallel_size.max(1),
            // Each mixer and each feed-forward block ends in a row-parallel
            // projection, reduced across the GPUs.
            allreduce_layers: model.layers.len() as u64,
            hidden_size: model.hidden_size,
            interconnect_bytes_s: gpu.interconnect_gb_s.unwrap_or(32.0) * 1e9,
            allreduce_latency_s: if gpu
                .interconnect
                .as_deref()
                .is_some_and(|i| i.starts_with("nvlink") || i.starts_with("infinity"))
            {
                ALLREDUCE_LATENCY_NVLINK_S
            } else {
                ALLREDUCE_LATENCY_PCIE_S
            },
            moe_layers,
            pipeline_parallel_size: engine.pipeline_parallel_size.max(1),
        }
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

    /// Expert bytes a step over `tokens` tokens reads: per MoE layer the
    /// expected number of distinct experts top-k routing touches,
    /// `E * (1 - (1 - k/E)^tokens)`.
    fn moe_read_bytes(&self, tokens: f64) -> f64 {
        self.moe_layers
            .iter()
            .map(|&(e, k, bytes)| {
                let e = e.max(1) as f64;
                let touched = e * (1.0 - (1.0 - (k as f64 / e).min(1.0)).powf(tokens));
                touched * bytes as f64
            })
            .sum()
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
        (self.weight_read_bytes as f64 + self.moe_read_bytes(tokens))
            / (self.bandwidth_bytes_s * p.weight_bw_eff)
    }

    /// One decode step with `running` sequences at `context_tokens` each.
    pub fn decode_step(&self, p: &TimingParams, running: f64, context_tokens: f64) -> StepTerms {
        let weights_s = self.weights_s(p, running);
        let compute_s =
            running * self.decode_flops_per_token / (self.peak_flops * p.gemm_compute_eff);
        let state_s =
            running * self.state_bytes_per_seq as f64 / (self.bandwidth_bytes_s * p.state_bw_eff);
        let attention_s = if running > 0.0 {
            (running + p.attn_half_batch) * self.kv_bytes(context_tokens)
                / (self.bandwidth_bytes_s * p.attn_bw_eff)
        } else {
            0.0
        };
        StepTerms {
            overhead_s: self.pipeline_parallel_size as f64 * p.step_overhead_ms / 1e3,
            weights_s,
            compute_s,
            state_s,
            attention_s,
            allreduce_s: self.allreduce_s(running),
        }
    }

    /// Prefill of `tail_tokens` tokens whose last token is at `context_tokens`
    /// (a cold prefill has `tail == context`), in max_num_batched_tokens chunks.
    pub fn prefill(&self, p: &TimingParams, tail_tokens: f64, context_tokens: f64) -> PrefillTerms {
        let tail = tail_tokens.max(0.0).min(context_tokens.max(0.0));
        let chunk = self.max_num_batched_tokens as f64;
        let full = (tail / chunk).floor();
        let rest = tail - full * chunk;
        let per_chunk = |n: f64| {
            let compute = n * self.prefill_flops_per_token / (self.peak_flops * p.prefill_gemm_eff);
            compute.max(self.weights_s(p, n)) + self.allreduce_s(n)
        };
        let mut gemm_s = full * per_chunk(chunk);
        let mut chunks = full;
        if rest > 0.0 {
            gemm_s += per_chunk(rest);
            chunks += 1.0;
        }
        // Each new token attends to every token up to itself:
        // sum over i = P - t + 1 ..= P of i = t (2P - t + 1) / 2.
        let pairs = tail * (2.0 * context_tokens - tail + 1.0) / 2.0;
        PrefillTerms {
            chunks,
            overhead_s: chunks * self.pipeline_parallel_size as f64 * p.step_overhead_ms / 1e3,
            gemm_s,
            attention_s: pairs * self.attn_flops_per_pair / (self.peak_flops * p.prefill_attn_eff),
        }
    }
}

/// The terms of one decode step, seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StepTerms {
    pub overhead_s: f64,
    /// Streaming the weights once.
    pub weights_s: f64,
    /// GEMM FLOPs for the batch; the GEMMs take the larger of the two.
    pub compute_s: f64,
    /// Mamba states read and written.
    pub state_s: f64,
    /// Attention reading KV.
    pub attention_s: f64,
    /// All-reduces across tensor-parallel GPUs.
    pub allreduce_s: f64,
}

impl StepTerms {
    pub fn gemm_s(&self) -> f64 {
        self.weights_s.max(self.compute_s)
    }

    pub fn total_s(&self) -> f64 {
        self.overhead_s + self.gemm_s() + self.state_s + self.attention_s + self.allreduce_s
    }

    /// The name of the largest term.
    pub fn dominant(&self) -> &'static str {
        let gemm = if self.compute_s > self.weights_s {
            ("GEMM compute", self.compute_s)
        } else {
            ("weight reads", self.weights_s)
        };
        [
            ("step overhead", self.overhead_s),
            gemm,
            ("Mamba state traffic", self.state_s),
            ("attention KV reads", self.attention_s),
            ("tensor-parallel all-reduce", self.allreduce_s),
        ]
        .into_iter()
        .fold(
            ("step overhead", f64::MIN),
            |a, b| if b.1 > a.1 { b } else { a },
        )
        .0
    }
}

/// The terms of a prefill, seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PrefillTerms {
    pub chunks: f64,
    pub overhead_s: f64,
    pub gemm_s: f64,
    pub attention_s: f64,
}

impl PrefillTerms {
    pub fn total_s(&self) -> f64 {
        self.overhead_s + self.gemm_s + self.attention_s
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

    #[test]
    fn work_per_token_of_the_reference_model() {
        let (_, w) = reference_work();
        // Weights 8,944,804,864 B less the 131,072 x 5,120 bf16 embedding table.
        assert_eq!(w.weight_read_bytes, 8_944_804_864 - 1_342_177_280);
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
        assert_relative_eq!(
            s.weights_s,
            7_602_627_584.0 / (936e9 * 0.8),
            max_relative = 1e-12
        );
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
        assert_relative_eq!(
            s.total_s(),
            0.5e-3 + 10.153_188e-3 + 0.397_610e-3,
            max_relative = 1e-5
        );
        assert_eq!(s.dominant(), "weight reads");
        // 64 sequences at 16K: compute-bound GEMMs; attention pays (64 + 1) sequences' KV.
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
    fn prefill_attention_counts_causal_pairs() {
        let (_, w) = reference_work();
        let p = TimingParams::FIRST_PRINCIPLES;
        let cold = w.prefill(&p, 8_192.0, 8_192.0);
        assert_eq!(cold.chunks, 4.0);
        assert_relative_eq!(
            cold.attention_s,
            8_192.0 * 8_193.0 / 2.0 * 122_880.0 / (142e12 * 0.25),
            max_relative = 1e-12
        );
        // A 1,928-token tail at 16,616: pairs t (2P - t + 1) / 2.
        let tail = w.prefill(&p, 1_928.0, 16_616.0);
        assert_eq!(tail.chunks, 1.0);
        assert_relative_eq!(
            tail.attention_s,
            1_928.0 * (2.0 * 16_616.0 - 1_928.0 + 1.0) / 2.0 * 122_880.0 / (142e12 * 0.25),
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
