//! The timing model's parameters: efficiencies and times, each with a
//! physical meaning, that calibration fits.

use super::machine::AttnKernel;
use crate::error::{Error, Result};
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
    /// it delays the first token a client sees, ms. The server handles
    /// requests one at a time (one API-server process unless
    /// `--api-server-count` says otherwise), so a burst of k requests
    /// reaches the engine over k times this: what spreads a closed loop's
    /// waves of equal requests over many steps (issue 24, cause 8: with
    /// the cost paid in parallel, aiconfigurator's closed-loop runs were
    /// predicted in lock-step waves, TTFT 65% too long at the median
    /// against 40% taken in turn). Offline runs and the
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

    pub(super) fn attn_bw_eff(&self, k: AttnKernel) -> f64 {
        match k {
            AttnKernel::Flash => self.attn_bw_eff_flash,
            AttnKernel::Triton => self.attn_bw_eff_triton,
        }
    }

    pub(super) fn prefill_attn_eff(&self, k: AttnKernel) -> f64 {
        match k {
            AttnKernel::Flash => self.prefill_attn_eff_flash,
            AttnKernel::Triton => self.prefill_attn_eff_triton,
        }
    }
}
