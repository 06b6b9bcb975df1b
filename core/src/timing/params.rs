//! The timing model's parameters: efficiencies and times, each with a
//! physical meaning, that calibration fits.

use super::machine::AttnKernel;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Declares the parameters from one table: each row its documentation,
/// its name, its bounds `(lo, hi)`, its first-principles value and its
/// [`Scope`]. The struct, [`N_PARAMS`], the names, bounds,
/// first-principles values and the array forms are all generated from it,
/// so a parameter is one row.
macro_rules! timing_params {
    ($( $(#[$meta:meta])* $name:ident: ($lo:expr, $hi:expr), $fp:expr, $scope:ident; )*) => {
        /// The timing model's parameters: each an efficiency (a fraction of a peak)
        /// or a time, each with a physical meaning. Calibration fits them.
        ///
        /// A calibration file that lacks a parameter (written before it
        /// existed) gets its first-principles value.
        #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::timing))]
        #[serde(deny_unknown_fields, default)]
        pub struct TimingParams {
            $( $(#[$meta])* pub $name: f64, )*
        }

        /// How many timing parameters there are.
        pub const N_PARAMS: usize = [$(stringify!($name)),*].len();

        impl TimingParams {
            /// The parameters' names, in the table's order (that of
            /// [`TimingParams::to_array`]).
            pub const NAMES: [&'static str; N_PARAMS] = [$(stringify!($name)),*];

            /// Physical bounds of each parameter, in [`TimingParams::NAMES`] order.
            /// Lower bounds are positive: the joint fit works in log-odds.
            pub const BOUNDS: [(f64, f64); N_PARAMS] = [$(($lo, $hi)),*];

            /// First-principles defaults (`--calibration none`): typical fractions of
            /// peak for well-tuned kernels and a host cost of the order a V1 engine
            /// step takes, not fitted to anything. Decode and prefill attention get
            /// lower figures than GEMMs: they are latency- and occupancy-bound at
            /// serving batch sizes, the Triton kernel more so.
            pub const FIRST_PRINCIPLES: TimingParams = TimingParams { $($name: $fp),* };

            /// What each parameter is a property of, in [`TimingParams::NAMES`]
            /// order: the GPU's kernels, or the engine's host side.
            pub const SCOPES: [Scope; N_PARAMS] = [$(Scope::$scope),*];

            /// The values in the table's order.
            pub fn to_array(&self) -> [f64; N_PARAMS] {
                [$(self.$name),*]
            }

            /// The parameters from values in the table's order.
            pub fn from_array(v: [f64; N_PARAMS]) -> TimingParams {
                let [$($name),*] = v;
                TimingParams { $($name),* }
            }
        }
    };
}

/// What a timing parameter is a property of: the calibration fits a
/// GPU-scope parameter per GPU class and an engine-scope one per engine
/// generation ([`EngineGeneration`]), so the host's per-step cost of an old
/// release is not stored as a property of the GPU it was measured on
/// (issue 24, cause 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The GPU's kernels: bandwidth and compute efficiencies, kernel floors.
    Gpu,
    /// The engine's host side and the kernels it launches around the
    /// GEMMs: per-step and per-sequence host cost, the API server's cost per
    /// request, the per-layer chain of small kernels (fused by torch.compile
    /// in V1, not in V0), eager launches.
    Engine,
}

/// The engine generations whose host costs differ: V0 (releases before
/// 0.8.0, [`crate::version::VllmVersion::v1_engine`]) runs scheduling,
/// sampling and detokenizing in the step's loop with unfused per-layer
/// kernels; V1 moves detokenizing out of the loop and compiles the layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EngineGeneration {
    V0,
    V1,
}

impl EngineGeneration {
    pub const ALL: [EngineGeneration; 2] = [EngineGeneration::V0, EngineGeneration::V1];

    pub fn of(v: crate::version::VllmVersion) -> EngineGeneration {
        if v.v1_engine() {
            EngineGeneration::V1
        } else {
            EngineGeneration::V0
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            EngineGeneration::V0 => "v0",
            EngineGeneration::V1 => "v1",
        }
    }
}

timing_params! {
    /// Host time per engine step whatever the batch (scheduling, input
    /// preparation, CUDA-graph launch, output processing), ms.
    host_step_ms: (0.001, 20.0), 1.0, Engine;
    /// Host time per scheduled sequence per step (sampling, detokenizing,
    /// streaming the output), microseconds.
    host_per_seq_us: (0.01, 500.0), 20.0, Engine;
    /// Fraction of peak DRAM bandwidth the dense 16-bit GEMMs (cuBLAS)
    /// reach streaming their weights once per step.
    weight_bw_eff: (0.01, 1.0), 0.8, Gpu;
    /// Fraction of peak DRAM bandwidth the dequantizing weight-only GEMMs
    /// (Marlin, AWQ, GPTQ, bitsandbytes) reach streaming theirs, on a GPU
    /// without a measured weight-only table of its memory kind. Starts at
    /// the median of the measured ones (int4 and int8 on the A100, L40S
    /// and H200: 0.50 to 0.84, `data/gpus/*.toml`).
    quant_weight_bw_eff: (0.01, 1.0), 0.73, Gpu;
    /// Fraction of peak DRAM bandwidth the low-precision W x A GEMMs reach:
    /// fp8 (CUTLASS `scaled_mm`, which also quantizes the activations to
    /// fp8 every step) and NVFP4 (`vllm/model_executor/layers/quantization/
    /// fp8.py`, `modelopt.py`). Unfitted data leave it at the 16-bit value.
    fp8_weight_bw_eff: (0.01, 1.0), 0.8, Gpu;
    /// Fraction of the tensor peak reached by decode GEMMs once they are compute-bound.
    gemm_compute_eff: (0.01, 1.0), 0.5, Gpu;
    /// Fraction of peak bandwidth reached reading and writing Mamba states.
    state_bw_eff: (0.01, 1.0), 0.8, Gpu;
    /// Fraction of peak bandwidth the FlashAttention-family decode kernels
    /// (FLASH_ATTN, FLASHINFER, the MLA kernels) reach reading KV.
    attn_bw_eff_flash: (0.01, 1.0), 0.6, Gpu;
    /// The same for the Triton attention kernel (TRITON_ATTN: the backend of
    /// the quantized per-token-head KV caches and of older GPUs).
    attn_bw_eff_triton: (0.01, 1.0), 0.25, Gpu;
    /// Sequences' worth of KV reading a step pays regardless of batch: the
    /// attention kernel's latency with few sequences (it reaches half its
    /// peak bandwidth at this many sequences).
    attn_half_batch: (0.001, 64.0), 1.0, Gpu;
    /// Fraction of the tensor peak reached by prefill GEMMs (linear layers, Mamba scan).
    prefill_gemm_eff: (0.01, 1.0), 0.6, Gpu;
    /// Fraction of the tensor peak reached by the FlashAttention-family
    /// kernels' prefill attention (its quadratic part).
    prefill_attn_eff_flash: (0.01, 1.0), 0.4, Gpu;
    /// The same for the Triton kernel.
    prefill_attn_eff_triton: (0.01, 1.0), 0.15, Gpu;
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
    serve_request_ms: (0.001, 500.0), 15.0, Engine;
    /// GPU time per layer a step pays whatever the bytes: the chain of small
    /// kernels around the GEMMs (norms, rotary, activation, residual adds,
    /// the attention kernel's launch) and the gaps between them, even inside
    /// a CUDA graph, microseconds. An engine property: how many kernels
    /// that chain has is set by the release (V1 compiles and fuses them,
    /// V0 launched each), and a small kernel's latency differs little
    /// between GPUs.
    layer_us: (0.001, 200.0), 5.0, Engine;
    /// The shortest a dequantizing GEMM takes however few bytes it reads
    /// (Marlin-class kernels' fixed cost), microseconds, on a GPU without a
    /// measured weight-only table of its architecture. Starts at the median
    /// of the measured floors (5.1 to 11.3 us on the L40S, H200 and A100).
    quant_gemm_floor_us: (0.001, 200.0), 7.6, Gpu;
    /// What launching one layer's kernels costs the host when a decode step
    /// runs eagerly rather than as a CUDA graph (`--enforce-eager`, or V0
    /// past `max_seq_len_to_capture`): the step takes at least that times
    /// the layers, microseconds.
    eager_layer_us: (0.001, 500.0), 30.0, Engine;
}

impl Default for TimingParams {
    fn default() -> TimingParams {
        TimingParams::FIRST_PRINCIPLES
    }
}

impl TimingParams {
    /// Every parameter finite and inside its bounds.
    pub fn validate(&self, origin: &str) -> Result<()> {
        for ((name, v), (lo, hi)) in Self::NAMES.iter().zip(self.to_array()).zip(Self::BOUNDS) {
            if !(v.is_finite() && v >= lo && v <= hi) {
                return Err(Error::field(
                    crate::Subject::in_file(origin, format!("[params] {name}")),
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
