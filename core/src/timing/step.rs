//! One engine step's time: a [`Batch`] of decoding sequences and prefill
//! chunks, its bytes and FLOPs ([`super::ModelCost`]) over the machine's
//! bandwidth and peak ([`super::Machine`]) at the fitted efficiencies, plus
//! the host's share as the schedule settings ([`super::Schedule`]) overlap it.

use super::params::TimingParams;
use super::work::Work;
use serde::Serialize;

/// Bytes of one activation value that GPUs exchange (bf16).
pub const ACTIVATION_BYTES: f64 = 2.0;

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
    /// Collectives of one step over `tokens` tokens: per layer, an
    /// all-reduce of `tokens x hidden` bf16 values by the implementation
    /// vLLM picks (`super::collective`), and the norms' over all heads
    /// (`ModelCost::norm_allreduces`); zero without tensor parallelism.
    /// Under data parallelism each MoE layer dispatches and combines its
    /// tokens across the replicas instead ([`super::MoeParallel::layer_s`]).
    /// Pipeline boundaries add a send each.
    pub fn allreduce_s(&self, tokens: f64) -> f64 {
        let m = &self.machine;
        let tp = m.tensor_parallel_size;
        // Pipeline boundaries: two tensors (hidden states and residual) of
        // bf16 activations, 1/tp of them per GPU.
        let boundaries = m.pipeline_parallel_size.saturating_sub(1) as f64;
        let p2p = boundaries
            * (m.allreduce_latency_s
                + tokens * self.model.hidden_size as f64 * ACTIVATION_BYTES * 2.0
                    / tp.max(1) as f64
                    / m.interconnect_bytes_s);
        let token_bytes = self.model.hidden_size as f64 * ACTIVATION_BYTES;
        let tp_allreduce = |bytes: f64| {
            if tp <= 1 {
                return 0.0;
            }
            let kernel = match super::AllReduceImpl::choose(tp, m.link, m.p2p, bytes) {
                super::AllReduceImpl::Custom => &m.custom_allreduce,
                _ => &m.nccl_allreduce,
            };
            kernel.latency_s(tp, bytes, m.interconnect_bytes_s)
        };
        let allreduce = tp_allreduce(tokens * token_bytes);
        // Norms across every head reduce each token's sums of squares.
        let norms = self.model.norm_allreduces as f64
            * tp_allreduce(tokens * self.model.norm_allreduce_token_bytes as f64);
        let moe = (self.model.moe_layers.len() as u64).min(self.model.allreduce_layers);
        let moe_layer =
            m.moe_parallel
                .layer_s(tp, tokens, token_bytes, m.interconnect_bytes_s, allreduce);
        p2p + (self.model.allreduce_layers - moe) as f64 * allreduce
            + moe as f64 * moe_layer
            + norms
    }

    /// The MoE layers through the GPU's measured fused-MoE kernels over
    /// `tokens` tokens, seconds: None unless every MoE layer's format has
    /// figures (then the experts stream with the other weights instead).
    /// Whether the MoE layers run as measured fused-MoE kernels (what
    /// [`Work::moe_s`] prices), so their expert reads are not weight reads.
    fn fused_moe(&self) -> bool {
        !self.model.moe_layers.is_empty()
            && self.machine.kernels.as_ref().is_some_and(|k| {
                self.model
                    .moe_layers
                    .iter()
                    .all(|m| m.format.is_some_and(|f| k.moe(f).is_some()))
            })
    }

    pub fn moe_s(&self, tokens: f64) -> Option<f64> {
        if self.model.moe_layers.is_empty() || tokens <= 0.0 {
            return None;
        }
        let k = self.machine.kernels.as_ref()?;
        // Under data parallelism the experts run over every replica's tokens.
        let tokens = self.machine.moe_parallel.expert_tokens(tokens);
        let mut total = 0.0;
        for (m, touched) in self.model.moe_touched(tokens) {
            let kernel = k.moe(m.format?)?;
            // Under expert parallelism a GPU computes the rows routed to
            // its own experts only: top_k x its share of the experts.
            let share = m.local_experts.min(m.experts) as f64 / m.experts.max(1) as f64;
            let shape = super::MoeShape {
                top_k: m.shape.top_k * share,
                ..m.shape
            };
            total += kernel.latency_s(
                &shape,
                tokens,
                touched,
                self.machine.bandwidth_bytes_s,
                self.machine.peak_flops,
            );
        }
        Some(total)
    }

    fn weights_s(&self, p: &TimingParams, tokens: f64) -> f64 {
        // A fused-MoE kernel prices its layers whole (`moe_s`): their
        // expert reads and their dequantizing floors are not counted here.
        let fused = self.fused_moe();
        let (moe_dense, moe_quant, moe_fp8) = if fused {
            (0.0, 0.0, 0.0)
        } else {
            self.model
                .moe_read_bytes(self.machine.moe_parallel.expert_tokens(tokens))
        };
        // The experts' GEMMs, of which `expert_quant_gemms` dequantize and
        // the rest are 16-bit.
        let (quant_gemms, gemms) = if fused {
            let expert = self.model.expert_gemms();
            let quant = self.model.expert_quant_gemms.min(expert);
            (
                self.model.quant_gemms.saturating_sub(quant),
                self.model.gemms.saturating_sub(expert - quant),
            )
        } else {
            (self.model.quant_gemms, self.model.gemms)
        };
        let bw = self.machine.bandwidth_bytes_s;
        let quant_bytes = self.model.quant_weight_bytes as f64 + moe_quant;
        // The dequantizing GEMMs: the measured weight-only kernel of their
        // width where the GPU has one (its bandwidth and a floor per call),
        // else the fitted efficiency and floor; borrowed across memory
        // kinds, only the kernel's floor is the table's, in the fitted form.
        let fitted = |floor_us: f64| {
            (quant_bytes / (bw * p.quant_weight_bw_eff)).max(quant_gemms as f64 * floor_us / 1e6)
        };
        let quant = match self.quant_kernel() {
            Some((g, true)) => fitted(g.floor_us),
            Some((g, false)) => {
                quant_bytes / (bw * g.bw_eff) + quant_gemms as f64 * g.floor_us / 1e6
            }
            None => fitted(p.quant_gemm_floor_us),
        };
        let (dense_eff, lowp_eff, floors_s) = match &self.machine.kernels {
            Some(k) => {
                let dense = k.gemm(super::GemmFormat::Bf16);
                let lowp = k.gemm(self.model.low_precision_format).or(dense);
                (
                    dense.map_or(p.weight_bw_eff, |g| g.bw_eff),
                    lowp.map_or(p.fp8_weight_bw_eff, |g| g.bw_eff),
                    dense.map_or(0.0, |g| gemms as f64 * g.floor_us / 1e6),
                )
            }
            None => (p.weight_bw_eff, p.fp8_weight_bw_eff, 0.0),
        };
        (self.model.dense_weight_bytes as f64 + moe_dense) / (bw * dense_eff)
            + (self.model.fp8_weight_bytes as f64 + moe_fp8) / (bw * lowp_eff)
            + quant
            + floors_s
    }

    /// The measured weight-only GEMM kernel the dequantizing layers run
    /// through, if the GPU has figures for their width, and whether only
    /// its floor applies (`KernelFigures::weight_only_floor_only`).
    fn quant_kernel(&self) -> Option<(&super::GemmKernel, bool)> {
        let format = self.model.quant_format?;
        let k = self.machine.kernels.as_ref()?;
        Some((k.gemm(format)?, k.weight_only_floor_only))
    }

    /// The decode GEMMs' compute efficiency: the 16-bit kernel's from the
    /// tables where the GPU has them, else the fitted one.
    fn gemm_compute_eff(&self, p: &TimingParams) -> f64 {
        self.machine
            .kernels
            .as_ref()
            .and_then(|k| k.gemm(super::GemmFormat::Bf16))
            .map_or(p.gemm_compute_eff, |g| g.compute_eff)
    }

    /// The prefill GEMMs' compute efficiency: a prefill chunk's GEMMs are
    /// the same kernels over more rows, so where the GPU has measured
    /// kernel figures their compute-bound efficiency is the 16-bit
    /// kernel's, as for decode, and a dequantizing model's the weight-only
    /// kernel's of its width. The fitted one stands in where no table
    /// measured the kernel: a GPU without figures, or without the
    /// weight-only kernel of a dequantizing model. (Fitted per class for
    /// every model, it absorbed what serving runs' TTFT carries besides the
    /// GEMMs: 0.33 to 0.90 across classes whose measured bf16 GEMMs reach
    /// 0.65 to 0.84.)
    fn prefill_gemm_eff(&self, p: &TimingParams) -> f64 {
        if self.model.quant_weight_bytes > 0 {
            return match self.quant_kernel() {
                Some((g, false)) => g.compute_eff,
                _ => p.prefill_gemm_eff,
            };
        }
        self.machine
            .kernels
            .as_ref()
            .and_then(|k| k.gemm(super::GemmFormat::Bf16))
            .map_or(p.prefill_gemm_eff, |g| g.compute_eff)
    }

    /// Decode attention over `seqs` sequences reading `kv_bytes` in all:
    /// with the GPU's measured FlashAttention-family kernel, one call per
    /// attention layer (floor, per-sequence cost, KV over bandwidth); else
    /// the fitted efficiency with `attn_half_batch` sequences of latency.
    fn decode_attention_s(&self, p: &TimingParams, seqs: f64, kv_bytes: f64) -> f64 {
        if seqs <= 0.0 {
            return 0.0;
        }
        let kernel = self.machine.attention_kernel;
        match self.flash_kernels().and_then(|k| k.decode_attention) {
            Some(a) => {
                let layers = self.model.attention_layers as f64;
                layers * (a.floor_us + seqs * a.per_seq_us) * 1e-6
                    + kv_bytes / (self.machine.bandwidth_bytes_s * a.bw_eff)
            }
            None => {
                let mean = kv_bytes / seqs;
                (kv_bytes + p.attn_half_batch * mean)
                    / (self.machine.bandwidth_bytes_s * p.attn_bw_eff(kernel))
            }
        }
    }

    /// Recurrent states read and written for `seq_states` sequences' worth
    /// of state: a gated-delta-net model's through the GPU's measured GDN
    /// decode kernels where it has them (their bandwidth, and a floor per
    /// GDN layer when the step decodes), else at the fitted efficiency.
    fn state_s(&self, p: &TimingParams, seq_states: f64, b: &Batch) -> f64 {
        let bytes = seq_states * self.model.state_bytes_per_seq as f64;
        let bw = self.machine.bandwidth_bytes_s;
        let gdn = self
            .machine
            .kernels
            .as_ref()
            .and_then(|k| k.gdn_decode)
            .filter(|_| self.model.gdn_layers > 0);
        match gdn {
            Some(g) => {
                let floors = if b.decode_seqs > 0.0 {
                    self.model.gdn_layers as f64 * g.floor_us * 1e-6
                } else {
                    0.0
                };
                floors + bytes / (bw * g.bw_eff)
            }
            None => bytes / (bw * p.state_bw_eff),
        }
    }

    /// The GPU's measured kernel figures where its attention runs the
    /// FlashAttention family they time (the Triton kernel has no table).
    fn flash_kernels(&self) -> Option<&super::KernelFigures> {
        self.machine
            .kernels
            .as_ref()
            .filter(|_| self.machine.attention_kernel == super::AttnKernel::Flash)
    }

    /// Prefill attention over the step's prompt chunks: with the GPU's
    /// measured FlashAttention-family kernel, one call per attention layer
    /// (its floor only where no decode call of the step pays one: vLLM runs
    /// a mixed step's attention as one varlen call), a cost per query row
    /// and the pairs' FLOPs; else the pairs' FLOPs at the fitted efficiency.
    fn prefill_attention_s(&self, p: &TimingParams, b: &Batch) -> f64 {
        if b.prefill_tokens <= 0.0 {
            return 0.0;
        }
        let kernel = self.machine.attention_kernel;
        let peak = self.machine.peak_flops;
        let flops = b.prefill_pairs * self.model.attn_flops_per_pair;
        match self.flash_kernels().and_then(|k| k.prefill_attention) {
            Some(a) => {
                let layers = self.model.attention_layers as f64;
                let floors = if b.decode_seqs > 0.0 {
                    0.0
                } else {
                    layers * a.floor_us * 1e-6
                };
                floors
                    + b.prefill_tokens * self.model.attn_query_heads as f64 * a.row_ns * 1e-9
                    + flops / (peak * a.compute_eff)
            }
            None => flops / (peak * p.prefill_attn_eff(kernel)),
        }
    }

    /// One engine step over `batch`.
    pub fn step(&self, p: &TimingParams, b: &Batch) -> StepTerms {
        // Speculative decoding: each decoding sequence runs its bonus token
        // and `k` draft tokens through the target.
        let spec = self.spec.as_ref().filter(|_| b.decode_seqs > 0.0);
        let per_seq = spec.map_or(1.0, |s| 1.0 + s.num_speculative_tokens as f64);
        let decode_tokens = b.decode_seqs * per_seq;
        let tokens = decode_tokens + b.prefill_tokens;
        let seqs = b.decode_seqs + b.prefill_seqs;
        let peak = self.machine.peak_flops;
        let moe_s = self.moe_s(tokens);
        // The fused-MoE kernel computes the experts itself.
        let experts = if moe_s.is_some() {
            self.model.expert_flops_per_token
        } else {
            0.0
        };
        let compute_s = decode_tokens * (self.model.decode_flops_per_token - experts)
            / (peak * self.gemm_compute_eff(p))
            + b.prefill_tokens * (self.model.prefill_flops_per_token - experts)
                / (peak * self.prefill_gemm_eff(p));
        let decode_attention_s = self.decode_attention_s(p, b.decode_seqs, b.decode_kv_bytes);
        let prefill_attention_s = self.prefill_attention_s(p, b);
        let eager = b.prefill_tokens == 0.0
            && b.decode_seqs > 0.0
            && self
                .schedule
                .cuda_graph_max_context_tokens
                .is_some_and(|limit| b.max_context_tokens > limit as f64);
        StepTerms {
            launch_s: if eager {
                self.model.layers as f64 * p.eager_layer_us / 1e6
            } else {
                0.0
            },
            host_s: if seqs > 0.0 {
                p.host_step_ms / 1e3 + seqs * p.host_per_seq_us / 1e6
            } else {
                0.0
            },
            async_scheduling: self.schedule.async_scheduling,
            smooth_gemm: self.machine.kernels.is_some(),
            weights_s: if tokens > 0.0 {
                self.weights_s(p, tokens)
            } else {
                0.0
            },
            compute_s,
            moe_s: moe_s.unwrap_or(0.0),
            // With speculation a recurrent layer keeps the state after each
            // of the k + 1 tokens (to roll back to the last accepted one):
            // one read and k + 1 writes instead of one of each.
            state_s: self.state_s(p, seqs + b.decode_seqs * (per_seq - 1.0) / 2.0, b),
            draft_s: spec.map_or(0.0, |s| self.draft_s(p, s, b, decode_tokens)),
            tokens_per_seq: spec.map_or(1.0, |s| s.mean_acceptance_length),
            attention_s: decode_attention_s + prefill_attention_s,
            allreduce_s: if tokens > 0.0 {
                self.allreduce_s(tokens)
            } else {
                0.0
            },
            layers_s: if tokens > 0.0 {
                self.model.layers as f64 * p.layer_us / 1e6
            } else {
                0.0
            },
        }
    }

    /// The drafter's passes in a step of `b` (none for a drafter on the
    /// host): the first over every token the target ran (its prompt chunks
    /// included, whose KV the drafter also writes; for DFlash, its one pass,
    /// the bonus and `k` masked queries of each request), the others over
    /// one token per decoding sequence; its attention reads its own layers'
    /// share of the KV the target reads.
    fn draft_s(&self, p: &TimingParams, s: &super::SpecWork, b: &Batch, decode_tokens: f64) -> f64 {
        let passes = s.drafter_passes as f64;
        let Some(draft) = s.draft.as_deref() else {
            return passes * s.pass_overhead_s;
        };
        let kv_share = if self.model.kv_bytes_per_token > 0 {
            draft.model.kv_bytes_per_token as f64 / self.model.kv_bytes_per_token as f64
        } else {
            0.0
        };
        let kv = b.decode_kv_bytes * kv_share;
        let first = draft.step(
            p,
            &Batch {
                decode_seqs: decode_tokens + b.prefill_tokens,
                decode_kv_bytes: kv,
                max_context_tokens: b.max_context_tokens,
                ..Batch::default()
            },
        );
        let rest = draft.step(
            p,
            &Batch {
                decode_seqs: b.decode_seqs,
                decode_kv_bytes: kv,
                max_context_tokens: b.max_context_tokens,
                ..Batch::default()
            },
        );
        first.gpu_s()
            + (s.drafter_passes.saturating_sub(1)) as f64 * rest.gpu_s()
            + passes * s.pass_overhead_s
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
        let chunk = self.schedule.max_num_batched_tokens as f64;
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
            out.gemm_s += count * s.gemm_s();
            out.moe_s += count * s.moe_s;
            out.state_s += count * s.state_s;
            out.allreduce_s += count * s.allreduce_s;
            out.layers_s += count * s.layers_s;
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

/// The terms of one engine step, seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StepTerms {
    /// The host's share: scheduling, input preparation, sampling, output.
    pub host_s: f64,
    /// Whether the host's share overlaps the GPU's.
    pub async_scheduling: bool,
    /// Whether the GEMMs turn from weight-read-bound to compute-bound
    /// smoothly, as the measured kernels do (the GPU has kernel figures),
    /// or at a sharp corner.
    pub smooth_gemm: bool,
    /// Streaming the weights once.
    pub weights_s: f64,
    /// GEMM FLOPs for the batch; the GEMMs take the larger of the two.
    pub compute_s: f64,
    /// The MoE layers through measured fused-MoE kernels (0 when the
    /// experts are counted in the weights and FLOPs instead).
    pub moe_s: f64,
    /// Mamba states read and written.
    pub state_s: f64,
    /// Attention: decode KV reads and prefill's quadratic part.
    pub attention_s: f64,
    /// Collectives across GPUs: tensor-parallel all-reduces, pipeline
    /// sends, and under data parallelism the MoE layers' dispatch and
    /// combine.
    pub allreduce_s: f64,
    /// The layers' fixed kernel time.
    pub layers_s: f64,
    /// Launching every kernel from the host, when the step runs eagerly:
    /// the GPU's share is at least this.
    pub launch_s: f64,
    /// The speculative drafter's passes (0 without one on the GPU).
    pub draft_s: f64,
    /// Tokens each decoding sequence gains in the step: 1, or with
    /// speculative decoding the mean acceptance length.
    pub tokens_per_seq: f64,
}

impl StepTerms {
    pub fn gemm_s(&self) -> f64 {
        if self.smooth_gemm {
            super::kernels::smooth_max(self.weights_s, self.compute_s)
        } else {
            self.weights_s.max(self.compute_s)
        }
    }

    /// The GPU's share.
    pub fn gpu_s(&self) -> f64 {
        (self.gemm_s()
            + self.moe_s
            + self.state_s
            + self.attention_s
            + self.allreduce_s
            + self.layers_s
            + self.draft_s)
            .max(self.launch_s)
    }

    /// Time per token of each decoding sequence: the step over the tokens
    /// it gains.
    pub fn per_token_s(&self) -> f64 {
        self.total_s() / self.tokens_per_seq.max(1.0)
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
            ("fused MoE", self.moe_s),
            ("Mamba state traffic", self.state_s),
            ("attention KV reads", self.attention_s),
            ("all-reduces and MoE dispatch across GPUs", self.allreduce_s),
            ("per-layer kernels", self.layers_s),
            ("eager kernel launches", self.launch_s),
            ("speculative drafter", self.draft_s),
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
    /// GEMMs (weights or compute).
    pub gemm_s: f64,
    /// Fused-MoE kernels.
    pub moe_s: f64,
    /// Mamba / GDN state reads and writes.
    pub state_s: f64,
    /// All-reduces across tensor-parallel GPUs and pipeline sends.
    pub allreduce_s: f64,
    /// The per-layer chain of small kernels.
    pub layers_s: f64,
    pub attention_s: f64,
    /// The chunks' step times summed (host overlapped when asynchronous).
    pub total: f64,
}

impl PrefillTerms {
    pub fn total_s(&self) -> f64 {
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::test_support::reference_work;
    use approx::assert_relative_eq;

    #[test]
    fn decode_step_terms_by_hand() {
        // The fitted-parameter path: a GPU without kernel figures.
        let (_, mut w) = reference_work();
        w.machine.kernels = None;
        let p = TimingParams::FIRST_PRINCIPLES;
        let s = w.decode_step(&p, 1.0, 0.0);
        let weights = 2_101_832_704.0 / (936e9 * 0.8) + 5_500_794_880.0 / (936e9 * 0.73);
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
    fn kernel_figures_replace_the_fitted_gemm_efficiencies() {
        // The RTX 3090 borrows the A100's measured kernels (its preset's
        // kernels_from): 16-bit GEMMs stream at their table efficiency,
        // each GEMM call pays the table's floor, and the memory-to-compute
        // turn is smooth.
        let (_, w) = reference_work();
        assert_eq!(w.machine.kernels_from.as_deref(), Some("a100-80gb"));
        let k = w.machine.kernels.clone().unwrap();
        let bf16 = *k.gemm(crate::timing::GemmFormat::Bf16).unwrap();
        let p = TimingParams::FIRST_PRINCIPLES;
        let s = w.decode_step(&p, 1.0, 0.0);
        // 62 layers x 2 GEMMs + lm_head, less the 112 dequantizing ones.
        assert_eq!(w.model.gemms, 62 * 2 + 1 - 112);
        // Its AWQ GEMMs: the A100's weight-only table lends its floor only
        // (HBM2e against GDDR6X), under the fitted efficiency's bytes.
        assert!(k.weight_only_floor_only);
        let int4 = *k.gemm(crate::timing::GemmFormat::Int4).unwrap();
        assert!(112.0 * int4.floor_us / 1e6 < 5_500_794_880.0 / (936e9 * 0.73));
        let weights = 2_101_832_704.0 / (936e9 * bf16.bw_eff)
            + 5_500_794_880.0 / (936e9 * 0.73)
            + 13.0 * bf16.floor_us / 1e6;
        assert_relative_eq!(s.weights_s, weights, max_relative = 1e-12);
        assert_relative_eq!(
            s.compute_s,
            23_273_144_320.0 / (142e12 * bf16.compute_eff),
            max_relative = 1e-12
        );
        assert!(s.smooth_gemm);
        let fourth = (s.weights_s.powi(4) + s.compute_s.powi(4)).powf(0.25);
        assert_relative_eq!(s.gemm_s(), fourth, max_relative = 1e-12);
        // The reference's int4 KV cache runs the Triton kernel, which the
        // tables do not measure: its attention keeps the fitted efficiency.
        let s = w.decode_step(&p, 64.0, 16_384.0);
        assert_relative_eq!(
            s.attention_s,
            65.0 * 6_528.0 * 16_384.0 / (936e9 * 0.25),
            max_relative = 1e-12
        );
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
        w.schedule.cuda_graph_max_context_tokens = Some(8192);
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

    /// A prefill's terms are its steps' terms, each apart (`matrix
    /// --explain CONTEXT` lists them): the reference's 8K cold prefill on
    /// one GPU, four 2,048-token chunks, has GEMMs, Mamba state traffic and
    /// small kernels and no all-reduce, and with a synchronous host they
    /// and the attention sum to its time.
    #[test]
    fn a_prefill_s_terms_are_its_steps_terms_apart() {
        let (_, mut w) = reference_work();
        w.schedule.async_scheduling = false;
        let p = TimingParams::FIRST_PRINCIPLES;
        let t = w.prefill(&p, 8_192.0, 8_192.0);
        let step = w.step(
            &p,
            &Batch {
                prefill_tokens: 2_048.0,
                prefill_seqs: 1.0,
                prefill_pairs: 1.0,
                ..Batch::default()
            },
        );
        assert_relative_eq!(t.gemm_s, 4.0 * step.gemm_s(), max_relative = 1e-12);
        assert_relative_eq!(t.state_s, 4.0 * step.state_s, max_relative = 1e-12);
        assert_relative_eq!(t.layers_s, 4.0 * 62.0 * 5e-6, max_relative = 1e-12);
        assert_eq!((t.allreduce_s, t.moe_s), (0.0, 0.0));
        let parts =
            t.gemm_s + t.moe_s + t.state_s + t.allreduce_s + t.layers_s + t.attention_s + t.host_s;
        assert_relative_eq!(parts, t.total_s(), max_relative = 1e-12);
    }
}
