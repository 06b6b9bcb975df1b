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
//!
//! One concern a file: [`TimingParams`], the fitted efficiencies and times
//! (`params`); the model's bytes and FLOPs per step, [`ModelCost`], and
//! [`Work`], which joins it to the machine and the schedule (`work`); the
//! GPU's figures, kernel families and link, [`Machine`] (`machine`); the
//! engine's schedule settings, [`Schedule`] (`schedule`); one step's time,
//! [`Work::step`] (`step`); the cell figures on the harness's timeline,
//! [`decode_cell`] and [`prefill_row`] (`cell`).

mod cell;
mod collective;
mod kernels;
mod machine;
mod params;
mod pass_overhead;
mod schedule;
mod step;
mod work;

pub use crate::stats::median;
pub use cell::{decode_cell, harness_timeline, prefill_row, DecodeTiming, PrefillTiming};
pub use collective::{
    AllReduceImpl, AllReduceKernel, LinkKind, MoeParallel, CUSTOM_ALLREDUCE_MAX_BYTES,
    CUSTOM_ALLREDUCE_WORLD_SIZES, NCCL_HOST_STEP_US, SEQUENCE_PARALLEL_MOE_ARCHITECTURES,
};
pub use kernels::{
    touched_experts, DecodeAttentionKernel, GdnDecodeKernel, GemmFormat, GemmKernel, KernelFigures,
    MoeFormat, MoeKernel, MoeShape, PrefillAttentionKernel, Routing, GEMM_SMOOTH_P,
    L2_RESIDENT_FACTOR, ROUTING_POWER_LAW_ALPHA,
};
pub use machine::{
    AttnKernel, Machine, NativeLowPrecision, WeightKernel, ALLREDUCE_LATENCY_NVLINK_S,
    ALLREDUCE_LATENCY_PCIE_S, DEFAULT_LINK_GB_S,
};
pub use params::{EngineGeneration, Scope, TimingParams, N_PARAMS};
pub use pass_overhead::{
    class_pass_overhead, spec_pass_overhead_s, ClassPassOverhead, SPEC_PASS_OVERHEAD_BY_CLASS,
    SPEC_PASS_OVERHEAD_S,
};
pub use schedule::Schedule;
pub use step::{Batch, PrefillTerms, StepTerms, ACTIVATION_BYTES};
pub use work::{KvBudget, ModelCost, MoeRead, SpecWork, Work};

#[cfg(test)]
mod test_support {
    use super::Work;
    use crate::scenario::{NoFiles, Request};

    pub(super) fn reference_work() -> (crate::scenario::Plan, Work) {
        let plan = Request::default().resolve(&NoFiles).unwrap();
        let cap = plan.capacity().unwrap();
        let quant = plan.engine.weight_quant(&plan.model.quant);
        let work = Work::new(&plan.per_gpu, &quant, &plan.engine, &plan.gpu, &cap.layout);
        (plan, work)
    }

    /// Llama-3.1-8B with `--quantization fp8` on `gpu`.
    pub(super) fn fp8_work(gpu: &str) -> Work {
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
}
