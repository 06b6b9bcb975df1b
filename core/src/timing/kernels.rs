//! Kernel latencies from measured kernel tables: a GEMM per weight format,
//! fused MoE per expert format, decode and prefill attention, GDN decode, each a few figures per GPU fitted to
//! aiconfigurator's published tables (`data/kernels/`, fitted by
//! `scripts/aiconfigurator/fit_kernels.py`, which states the same
//! formulas; written into the GPU presets' `[kernels]` tables). A GPU
//! without tables borrows a measured GPU's figures (`kernels_from`), which
//! its bands say. `tests/tests/suite/kernel_tables.rs` checks the shipped figures
//! reproduce the tables.

use serde::{Deserialize, Serialize};

/// How sharply a GEMM turns from weight-read-bound to compute-bound:
/// `t = floor + (t_mem^P + t_compute^P)^(1/P)`, a smooth maximum (P large
/// would be the sharp roofline corner; measured GEMMs are slower than
/// either bound near it). 4, so the root is two square roots: IEEE
/// arithmetic with no transcendental call, the same bits in the page's
/// WebAssembly as in the CLI (the end-to-end test compares them).
pub const GEMM_SMOOTH_P: f64 = 4.0;

/// Table rows whose working set (a GEMM's weights, an attention call's KV)
/// is under this many L2 caches are left out of fits and checks: the
/// tables time one layer over and over, so such a set stays in L2, which a
/// real step, reading every layer's weights and KV in turn, does not see.
pub const L2_RESIDENT_FACTOR: f64 = 1.0;

/// The smooth maximum of a kernel's memory and compute times
/// ([`GEMM_SMOOTH_P`]).
pub(super) fn smooth_max(t_mem: f64, t_compute: f64) -> f64 {
    let (a, b) = (t_mem * t_mem, t_compute * t_compute);
    (a * a + b * b).sqrt().sqrt()
}

/// A weight format as the GEMM kernels see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
#[serde(rename_all = "snake_case")]
pub enum GemmFormat {
    /// 16-bit weights and activations (cuBLAS).
    Bf16,
    /// fp8 weights and activations (CUTLASS `scaled_mm`, per-tensor scales).
    Fp8,
    /// NVFP4 weights and activations (4-bit values, an fp8 scale per 16).
    Nvfp4,
    /// 4-bit integer weights dequantized to 16-bit tensor cores, 16-bit
    /// activations (vLLM's Marlin for GPTQ and AWQ; measured as
    /// TensorRT-LLM's weight-only kernel, `data/kernels/gemm_weight_only.csv`).
    Int4,
    /// 8-bit integer weights, otherwise as [`GemmFormat::Int4`].
    Int8,
}

impl GemmFormat {
    /// Bytes one weight takes in memory, scales included.
    pub fn weight_bytes(self) -> f64 {
        match self {
            GemmFormat::Bf16 => 2.0,
            GemmFormat::Fp8 => 1.0,
            GemmFormat::Nvfp4 => 0.5625,
            // The tables' per-channel scales are a rounding error of these.
            GemmFormat::Int4 => 0.5,
            GemmFormat::Int8 => 1.0,
        }
    }

    /// The format's tensor peak as a multiple of the 16-bit one.
    pub fn peak_multiple(self) -> f64 {
        match self {
            GemmFormat::Bf16 => 1.0,
            GemmFormat::Fp8 => 2.0,
            GemmFormat::Nvfp4 => 4.0,
            // Dequantized to 16-bit before the tensor cores.
            GemmFormat::Int4 | GemmFormat::Int8 => 1.0,
        }
    }

    /// The table's name of the format.
    pub fn table_name(self) -> &'static str {
        match self {
            GemmFormat::Bf16 => "bfloat16",
            GemmFormat::Fp8 => "fp8",
            GemmFormat::Nvfp4 => "nvfp4",
            GemmFormat::Int4 => "int4_wo",
            GemmFormat::Int8 => "int8_wo",
        }
    }

    /// The dequantizing weight-only format of `bits`-bit integer weights.
    pub fn weight_only(bits: u64) -> Option<GemmFormat> {
        match bits {
            4 => Some(GemmFormat::Int4),
            8 => Some(GemmFormat::Int8),
            _ => None,
        }
    }
}

/// One GEMM kernel family on one GPU.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
#[serde(deny_unknown_fields)]
pub struct GemmKernel {
    pub format: GemmFormat,
    /// Fraction of peak DRAM bandwidth streaming the weights.
    pub bw_eff: f64,
    /// Fraction of the format's tensor peak once compute-bound.
    pub compute_eff: f64,
    /// The shortest call (launch and tail), microseconds.
    pub floor_us: f64,
}

impl GemmKernel {
    /// One GEMM of `m` rows by an `n` x `k` weight, seconds, on a GPU of
    /// `bandwidth_bytes_s` and 16-bit tensor peak `peak_flops`.
    pub fn latency_s(
        &self,
        m: f64,
        n: f64,
        k: f64,
        bandwidth_bytes_s: f64,
        peak_flops: f64,
    ) -> f64 {
        let bytes = n * k * self.format.weight_bytes() + 2.0 * (m * k + m * n);
        let flops = 2.0 * m * n * k;
        let t_mem = bytes / (bandwidth_bytes_s * self.bw_eff);
        let t_compute = flops / (peak_flops * self.format.peak_multiple() * self.compute_eff);
        self.floor_us * 1e-6 + smooth_max(t_mem, t_compute)
    }
}

/// The decode attention kernel (FlashAttention / FlashInfer family) on one
/// GPU: one layer's call for a batch.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
#[serde(deny_unknown_fields)]
pub struct DecodeAttentionKernel {
    /// Fraction of peak DRAM bandwidth reading KV.
    pub bw_eff: f64,
    /// One call's fixed time (launch, the new token's KV write, the
    /// reduction), microseconds.
    pub floor_us: f64,
    /// What each sequence of the batch adds whatever its context, microseconds.
    pub per_seq_us: f64,
}

impl DecodeAttentionKernel {
    /// One layer's decode attention over `seqs` sequences reading
    /// `kv_bytes` of KV in all, seconds.
    pub fn latency_s(&self, seqs: f64, kv_bytes: f64, bandwidth_bytes_s: f64) -> f64 {
        (self.floor_us + seqs * self.per_seq_us) * 1e-6
            + kv_bytes / (bandwidth_bytes_s * self.bw_eff)
    }
}

/// The prefill (context) attention kernel (FlashAttention family) on one
/// GPU: one layer's causal attention over a step's prompt chunks.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
#[serde(deny_unknown_fields)]
pub struct PrefillAttentionKernel {
    /// Fraction of the 16-bit tensor peak on the (query, key) pairs' FLOPs.
    pub compute_eff: f64,
    /// One call's fixed time, microseconds.
    pub floor_us: f64,
    /// What each query row (a prompt token in one query head) costs besides
    /// its pairs' FLOPs (loading it, the softmax rescaling and writing its
    /// output), nanoseconds: a short prompt's attention is mostly this.
    pub row_ns: f64,
}

impl PrefillAttentionKernel {
    /// One layer's prefill attention over `rows` query rows and `flops`
    /// FLOPs of (query, key) pairs, seconds, on a GPU of 16-bit tensor peak
    /// `peak_flops`.
    pub fn latency_s(&self, rows: f64, flops: f64, peak_flops: f64) -> f64 {
        self.floor_us * 1e-6 + rows * self.row_ns * 1e-9 + flops / (peak_flops * self.compute_eff)
    }
}

/// The gated-delta-net decode kernels (causal conv update and the fused
/// recurrent delta rule) on one GPU: one layer's call for a batch.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
#[serde(deny_unknown_fields)]
pub struct GdnDecodeKernel {
    /// Fraction of peak DRAM bandwidth reading and writing the states.
    pub bw_eff: f64,
    /// One layer's fixed time (both kernels' launches), microseconds.
    pub floor_us: f64,
}

/// How skewed real routing is, for the experts a batch touches: expert
/// `r` (by popularity) takes a share proportional to `r^-alpha`.
/// aiconfigurator measures fused MoE under uniform routing and power laws
/// of 1.01 and 1.2 (`data/kernels/moe.csv`); 1.01, the milder, is taken for
/// serving. Uniform routing, the most distinct experts possible, is the
/// upper bound the model used before (issue 24, cause 4).
///
/// Checked against published serving runs (`tests/tests/suite/routing.rs`,
/// `the_routing_assumption_lies_within_the_experts_published_runs_read`):
/// gpt-oss-120b's TPOT growth from 4 to 64 closed-loop requests
/// (aiconfigurator's silicon sample, H100 SXM, H200, B200, TP 1-8), less
/// the model's growth of everything else and priced by each GPU's fused-MoE
/// kernel, says a layer reads 39-109 of 128 experts at 64 tokens (the
/// Hopper runs 78-109, median 93; the B200's 39-74, median 48), against
/// 74.2 here and 110.8 uniform; at 16 tokens 20-48 against 32.9 and 50.5.
/// The split follows the GPU, which routing does not, so 1.01 stays: over
/// the three GPUs' points its TPOT MAPE is 14.3% (0.8: 17.3%, 1.3: 13.6%;
/// 13.2%, 14.9% and 14.0% with the engine's costs of the fit before the
/// weight-only and prefill attention tables).
pub const ROUTING_POWER_LAW_ALPHA: f64 = 1.01;

/// Expected distinct experts `tokens` tokens touch, each routed to
/// `top_k` of `experts`, with popularity `rank^-alpha` (`alpha` 0: uniform):
/// `sum_r 1 - (1 - q_r)^(tokens top_k)`, at least `top_k` once a token
/// is routed. [`Routing`] keeps the per-rank terms for repeated calls.
pub fn touched_experts(experts: u64, top_k: u64, tokens: f64, alpha: f64) -> f64 {
    Routing::new(experts, top_k, alpha).touched(tokens)
}

/// One routing shape (`experts`, `top_k`, popularity exponent) with
/// `ln(1 - q_r)` worked out per rank once: [`Routing::touched`] is then one
/// `exp` per rank, where the sum from scratch is a `powf`, a `ln_1p` and an
/// `exp`. The serving simulation asks it at every step it prices.
#[derive(Clone, Debug, PartialEq)]
pub struct Routing {
    pub experts: u64,
    pub top_k: u64,
    /// `ln(1 - q_r)` for each rank `r`, most popular first.
    log_miss: Vec<f64>,
}

impl Routing {
    pub fn new(experts: u64, top_k: u64, alpha: f64) -> Routing {
        let weights: Vec<f64> = (1..=experts).map(|r| (r as f64).powf(-alpha)).collect();
        let total: f64 = weights.iter().sum();
        Routing {
            experts,
            top_k,
            log_miss: weights.iter().map(|w| (-w / total).ln_1p()).collect(),
        }
    }

    /// Expected distinct experts `tokens` tokens touch ([`touched_experts`]).
    pub fn touched(&self, tokens: f64) -> f64 {
        if tokens <= 0.0 || self.experts == 0 {
            return 0.0;
        }
        let draws = tokens * self.top_k as f64;
        // (1 - q)^draws as exp(draws ln(1 - q)).
        let touched: f64 = self.log_miss.iter().map(|l| 1.0 - (draws * l).exp()).sum();
        touched.max(self.top_k.min(self.experts) as f64)
    }
}

/// An expert weight format as the fused-MoE kernels see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
#[serde(rename_all = "snake_case")]
pub enum MoeFormat {
    Bf16,
    /// Block-scaled fp8 (the fp8 MoE checkpoints' format).
    Fp8,
    Nvfp4,
    /// MXFP4 weights with 16-bit activations (gpt-oss).
    Mxfp4,
    /// 4-bit integer weights with 16-bit activations, a 16-bit scale per
    /// 128 (the tables' group): vLLM's Marlin MoE for AWQ, GPTQ and
    /// compressed-tensors WNA16 experts (vLLM 0.32 `compressed_tensors_moe/
    /// compressed_tensors_moe_wna16.py`; `fused_moe/oracle/int_wna16.py`
    /// tries FlashInfer's TRT-LLM int4 experts first, then Marlin). Measured
    /// on the H200 only (`data/kernels/README.md`).
    Int4,
}

impl MoeFormat {
    pub fn weight_bytes(self) -> f64 {
        match self {
            MoeFormat::Bf16 => 2.0,
            MoeFormat::Fp8 => 1.0,
            MoeFormat::Nvfp4 => 0.5625,
            MoeFormat::Mxfp4 => 0.53125,
            MoeFormat::Int4 => 0.515625,
        }
    }

    pub fn peak_multiple(self) -> f64 {
        match self {
            MoeFormat::Bf16 | MoeFormat::Mxfp4 | MoeFormat::Int4 => 1.0,
            MoeFormat::Fp8 => 2.0,
            MoeFormat::Nvfp4 => 4.0,
        }
    }

    /// The table's name of the format.
    pub fn table_name(self) -> &'static str {
        match self {
            MoeFormat::Bf16 => "bfloat16",
            MoeFormat::Fp8 => "fp8_block",
            MoeFormat::Nvfp4 => "nvfp4",
            MoeFormat::Mxfp4 => "w4a16_mxfp4",
            MoeFormat::Int4 => "int4_wo",
        }
    }
}

/// One MoE layer's experts as a fused-MoE kernel sees them on one GPU.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
pub struct MoeShape {
    /// Width the experts take in and give out (the hidden size, or the
    /// latent width of latent experts).
    pub hidden: f64,
    /// One expert's intermediate size on this GPU.
    pub intermediate: f64,
    pub top_k: f64,
    /// Gate and up projections (gated MLP experts) or up alone.
    pub gated: bool,
}

impl MoeShape {
    /// Weights of one expert: up and down projections, and the gate.
    pub fn expert_params(&self) -> f64 {
        let projections = if self.gated { 3.0 } else { 2.0 };
        projections * self.hidden * self.intermediate
    }

    /// 16-bit activation bytes one routed row (a token at one of its
    /// experts) moves through the kernel: its row gathered in (h), the
    /// up (and gate) output written and read by the activation, the
    /// activation's output written and read by the down projection, the
    /// down output written and read by the weighted sum (h, h).
    pub fn row_activation_bytes(&self) -> f64 {
        let up = if self.gated { 2.0 } else { 1.0 };
        (3.0 * self.hidden + (2.0 * up + 2.0) * self.intermediate) * 2.0
    }
}

/// The fused-MoE kernel of one expert format on one GPU: one layer's call.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
#[serde(deny_unknown_fields)]
pub struct MoeKernel {
    pub format: MoeFormat,
    pub bw_eff: f64,
    pub compute_eff: f64,
    pub floor_us: f64,
    /// What each touched expert adds (its tiles' launch and tail), microseconds.
    pub per_expert_us: f64,
    /// What the kernel family moves per routed row besides its 16-bit
    /// activations (the rows' permutation, activation quantization and
    /// scales), in bytes per hidden element: fitted with the rest.
    pub row_bytes_per_hidden: f64,
}

impl MoeKernel {
    /// One MoE layer of `shape` over `tokens` tokens: `touched` experts'
    /// weights read once, `tokens x top_k` routed rows computed and their
    /// activations moved, seconds. The form `scripts/aiconfigurator/
    /// fit_kernels.py` fits to `data/kernels/moe.csv`.
    pub fn latency_s(
        &self,
        shape: &MoeShape,
        tokens: f64,
        touched: f64,
        bandwidth_bytes_s: f64,
        peak_flops: f64,
    ) -> f64 {
        let params = shape.expert_params();
        let rows = tokens * shape.top_k;
        let bytes = touched * params * self.format.weight_bytes()
            + rows * (shape.row_activation_bytes() + self.row_bytes_per_hidden * shape.hidden);
        let flops = 2.0 * rows * params;
        let t_mem = bytes / (bandwidth_bytes_s * self.bw_eff);
        let t_compute = flops / (peak_flops * self.format.peak_multiple() * self.compute_eff);
        (self.floor_us + touched * self.per_expert_us) * 1e-6 + smooth_max(t_mem, t_compute)
    }
}

/// A GPU's kernel figures, fitted to measured tables.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
#[serde(deny_unknown_fields)]
pub struct KernelFigures {
    /// The tables they were fitted to.
    pub source: String,
    #[serde(default)]
    pub gemm: Vec<GemmKernel>,
    #[serde(default)]
    pub decode_attention: Option<DecodeAttentionKernel>,
    #[serde(default)]
    pub prefill_attention: Option<PrefillAttentionKernel>,
    #[serde(default)]
    pub gdn_decode: Option<GdnDecodeKernel>,
    #[serde(default)]
    pub moe: Vec<MoeKernel>,
    #[serde(default)]
    pub allreduce: Vec<super::AllReduceKernel>,
    /// Set on figures borrowed by a GPU of another memory kind than the
    /// lender's (`Gpu::kernel_figures`): their weight-only GEMMs lend their
    /// floor (a cache-resident call: launch and tail) to the fitted
    /// dequantizing model (`Work::weights_s`) but not their bandwidth
    /// efficiency or their compute efficiency.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub weight_only_floor_only: bool,
}

impl KernelFigures {
    /// The GEMM kernel of `format`, if measured.
    pub fn gemm(&self, format: GemmFormat) -> Option<&GemmKernel> {
        self.gemm.iter().find(|g| g.format == format)
    }

    /// The fused-MoE kernel of `format`, if measured.
    pub fn moe(&self, format: MoeFormat) -> Option<&MoeKernel> {
        self.moe.iter().find(|g| g.format == format)
    }

    /// Every figure inside its physical range.
    pub fn validate(&self, origin: &str) -> crate::error::Result<()> {
        let check = |name: &str, v: f64, lo: f64, hi: f64| {
            if v.is_finite() && v >= lo && v <= hi {
                Ok(())
            } else {
                Err(crate::error::Error::field(
                    crate::Subject::in_file(origin, format!("kernels.{name}")),
                    v,
                    format!("a number in [{lo}, {hi}]"),
                ))
            }
        };
        for g in &self.gemm {
            check("gemm.bw_eff", g.bw_eff, 0.01, 1.0)?;
            check("gemm.compute_eff", g.compute_eff, 0.01, 1.0)?;
            check("gemm.floor_us", g.floor_us, 0.0, 1000.0)?;
        }
        for m in &self.moe {
            check("moe.bw_eff", m.bw_eff, 0.01, 1.0)?;
            check("moe.compute_eff", m.compute_eff, 0.01, 1.0)?;
            check("moe.floor_us", m.floor_us, 0.0, 1000.0)?;
            check("moe.per_expert_us", m.per_expert_us, 0.0, 100.0)?;
            check(
                "moe.row_bytes_per_hidden",
                m.row_bytes_per_hidden,
                0.0,
                100.0,
            )?;
        }
        for a in &self.allreduce {
            check("allreduce.base_us", a.base_us, 0.0, 1000.0)?;
            check("allreduce.per_step_us", a.per_step_us, 0.0, 1000.0)?;
            check("allreduce.bw_eff", a.bw_eff, 0.01, 2.0)?;
        }
        if let Some(a) = &self.decode_attention {
            check("decode_attention.bw_eff", a.bw_eff, 0.01, 1.0)?;
            check("decode_attention.floor_us", a.floor_us, 0.0, 1000.0)?;
            check("decode_attention.per_seq_us", a.per_seq_us, 0.0, 100.0)?;
        }
        if let Some(a) = &self.prefill_attention {
            check("prefill_attention.compute_eff", a.compute_eff, 0.01, 1.0)?;
            check("prefill_attention.floor_us", a.floor_us, 0.0, 1000.0)?;
            check("prefill_attention.row_ns", a.row_ns, 0.0, 1000.0)?;
        }
        if let Some(g) = &self.gdn_decode {
            check("gdn_decode.bw_eff", g.bw_eff, 0.01, 1.0)?;
            check("gdn_decode.floor_us", g.floor_us, 0.0, 1000.0)?;
        }
        Ok(())
    }
}
