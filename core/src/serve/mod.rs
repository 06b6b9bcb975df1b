//! A serving run step by step: requests arrive, vLLM's scheduler batches
//! decodes and chunked prefills into steps, each step takes what
//! [`Work::step`] says, and the figures come out as `vllm bench serve`
//! defines them (docs/reference/vllm-bench-serve.md) or as an offline
//! `LLM.generate` call measures them (output tokens over its wall time).
//!
//! The scheduler is vLLM V1's, reduced to what sets the timing: every step
//! first gives each running request that has its prompt one decode token,
//! then spends what is left of `max_num_batched_tokens` on prompt chunks,
//! running requests first, then waiting ones in arrival order while fewer
//! than the running limit run (`vllm/v1/core/sched/scheduler.py`,
//! `schedule`). The running limit is `max_num_seqs` or what the KV pool
//! holds at the requests' final length, whichever is smaller, so no request
//! is preempted. Prefix caching finds nothing to reuse: the benchmark's
//! random prompts share no blocks.
//!
//! Steps where nothing arrives, nothing finishes and no prompt is pending
//! are identical but for their contexts, which grow by one token a step; a
//! stretch of `k` of them is evaluated once at its middle context, which is
//! exact for every term linear in context (all but sliding windows past
//! their window).
//!
//! One file a concept: `workload` (the requests and how they arrive,
//! [`Workload`], [`Arrival`]), `sim` (the run in progress: the client's
//! sending, the engine's queue and admission, the scheduler's loop),
//! `steps` (the engine's steps: chunked prefills and stretches of identical
//! steps) and `figures` (what the run measures, [`ServeResult`], [`Stats`]).

mod figures;
mod sim;
mod steps;
mod workload;

pub use figures::{ServeResult, Stats};
pub use workload::{Arrival, Workload, DEFAULT_BURSTINESS, DEFAULT_SEED};

use crate::error::Result;
use crate::timing::{TimingParams, Work};
use sim::Sim;

/// Requests a run may send (vLLM's bench defaults to 1,000).
pub const MAX_PROMPTS: u64 = 100_000;
/// Output tokens a request may ask for.
pub const MAX_OUTPUT_TOKENS: u64 = 1 << 20;
/// Engine steps the simulation may take before it gives up (about a second
/// of work); [`simulate`] says so rather than run on.
pub const MAX_STEPS: u64 = 4_000_000;

/// Run `w` on `work` with `p`; `max_running` is the engine's running limit
/// (at least 1).
pub fn simulate(
    work: &Work,
    p: &TimingParams,
    w: &Workload,
    max_running: u64,
) -> Result<ServeResult> {
    simulate_lengths(work, p, w, &[], max_running)
}

/// [`simulate`] with each request's own (prompt, output) lengths, in the
/// order they are sent (a `--save-detailed` file's `input_lens` and
/// `output_lens`); empty: every request at `w`'s lengths. Their count
/// replaces `w.num_prompts`.
pub fn simulate_lengths(
    work: &Work,
    p: &TimingParams,
    w: &Workload,
    lengths: &[(u64, u64)],
    max_running: u64,
) -> Result<ServeResult> {
    Sim::new(work, p, w, lengths, max_running)?.run()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::{AttnKernel, Machine, ModelCost, Schedule};

    /// A GPU and model on which every step, prefill or decode, takes 10 ms:
    /// no weights, no KV, 1,000 layers at 10 us.
    fn ten_ms_steps() -> (Work, TimingParams) {
        let work = Work {
            model: ModelCost {
                dense_weight_bytes: 0,
                fp8_weight_bytes: 0,
                quant_weight_bytes: 0,
                layers: 1000,
                quant_gemms: 0,
                expert_quant_gemms: 0,
                decode_flops_per_token: 0.0,
                prefill_flops_per_token: 0.0,
                state_bytes_per_seq: 0,
                gdn_layers: 0,
                kv_bytes_per_token: 0,
                sliding_kv: Vec::new(),
                routings: Vec::new(),
                attn_flops_per_pair: 0.0,
                attn_query_heads: 0,
                allreduce_layers: 0,
                hidden_size: 1024,
                norm_allreduces: 0,
                norm_allreduce_token_bytes: 0,
                moe_layers: Vec::new(),
                gemms: 0,
                attention_layers: 0,
                low_precision_format: crate::timing::GemmFormat::Fp8,
                quant_format: None,
                expert_flops_per_token: 0.0,
            },
            machine: Machine {
                bandwidth_bytes_s: 1e12,
                peak_flops: 1e14,
                attention_kernel: AttnKernel::Flash,
                tensor_parallel_size: 1,
                interconnect_bytes_s: 32e9,
                allreduce_latency_s: 0.0,
                pipeline_parallel_size: 1,
                kernels: None,
                kernels_from: None,
                link: crate::timing::LinkKind::Pcie,
                p2p: true,
                custom_allreduce: crate::timing::LinkKind::Pcie
                    .defaults(crate::timing::AllReduceImpl::Custom),
                nccl_allreduce: crate::timing::LinkKind::Pcie
                    .defaults(crate::timing::AllReduceImpl::Nccl),
                moe_parallel: crate::timing::MoeParallel::none(crate::timing::LinkKind::Pcie),
            },
            spec: None,
            kv: None,
            schedule: Schedule {
                async_scheduling: true,
                cuda_graph_max_context_tokens: None,
                max_num_batched_tokens: 2048,
                max_num_seqs: 256,
                block_size_tokens: 16,
                enable_prefix_caching: true,
            },
        };
        let p = TimingParams {
            layer_us: 10.0,
            host_step_ms: 0.001,
            host_per_seq_us: 0.01,
            serve_request_ms: 1.0,
            ..TimingParams::FIRST_PRINCIPLES
        };
        (work, p)
    }

    #[test]
    fn bench_serve_figures_follow_the_tools_definitions_by_hand() {
        let (work, p) = ten_ms_steps();
        // 4 requests of 100 prompt and 11 output tokens, at most 2 in flight.
        let w = Workload {
            input_tokens: 100,
            output_tokens: 11,
            num_prompts: 4,
            arrival: Arrival::serve(None, Some(2)),
        };
        let r = simulate(&work, &p, &w, 256).unwrap();
        // Requests 0 and 1 are sent at 0. The server takes them one at a
        // time, 1 ms each: the engine sees request 0 at 1 ms and request 1
        // at 2 ms. Request 0 prefills alone in a 10 ms step (first token at
        // 11 ms, TTFT 11); request 1 prefills in the next step beside
        // request 0's decode (first token at 21 ms, TTFT 21). Nine decode
        // steps finish request 0 at 111 ms (E2EL 111, TPOT (111 - 11) / 10
        // = 10 ms). Request 2 is sent then and seen at 112 ms; one decode
        // step finishes request 1 at 121 ms (E2EL 121), when request 3 is
        // sent (seen at 122 ms). Request 2 prefills from 121 to 131 ms (TTFT
        // 20), request 3 beside it from 131 to 141 ms (TTFT 20); nine and
        // one decode steps finish them at 231 and 241 ms (E2EL 120 each).
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        assert_eq!((r.completed, r.steps, r.prefill_steps), (4, 24, 4));
        assert!(close(r.duration_s, 0.241), "{}", r.duration_s);
        assert!(
            close(r.ttft.mean_ms, (11.0 + 21.0 + 20.0 + 20.0) / 4.0) && close(r.ttft.p99_ms, 20.97),
            "{:?}",
            r.ttft
        );
        assert!(
            close(r.e2el.mean_ms, (111.0 + 121.0 + 120.0 + 120.0) / 4.0),
            "{:?}",
            r.e2el
        );
        assert!(close(r.tpot.mean_ms, 10.0) && close(r.tpot.median_ms, 10.0));
        // Every gap between tokens is one 10 ms step.
        assert!(close(r.itl.median_ms, 10.0) && close(r.itl.p99_ms, 10.0));
        // Throughputs over the duration: 4 requests, 44 output and 444 total tokens.
        assert!(close(r.request_throughput, 4.0 / 0.241));
        assert!(close(r.output_throughput, 44.0 / 0.241));
        assert!(close(r.total_token_throughput, 444.0 / 0.241));
    }

    #[test]
    fn a_rate_spaces_arrivals_and_an_offline_call_pays_no_server_cost() {
        let (work, p) = ten_ms_steps();
        // Two requests a second, Poisson: numpy's gaps for seed 0 put them at
        // 0.40, 1.03 and 1.5 s, so each runs alone, 1 prefill + 10 decode steps.
        let w = Workload {
            input_tokens: 100,
            output_tokens: 11,
            num_prompts: 3,
            arrival: Arrival::serve(Some(2.0), None),
        };
        let r = simulate(&work, &p, &w, 256).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        // The last is due at num_prompts / rate = 1.5 s and done 111 ms later.
        assert!(close(r.duration_s, 1.611), "{}", r.duration_s);
        assert!(close(r.ttft.mean_ms, 11.0));
        let offline = Workload {
            arrival: Arrival::Offline,
            ..w
        };
        let r = simulate(&work, &p, &offline, 256).unwrap();
        // All three prefill in one step, then ten decode steps: 110 ms.
        assert!(close(r.duration_s, 0.110), "{}", r.duration_s);
        assert!(close(r.ttft.mean_ms, 10.0));
    }

    #[test]
    fn a_long_lone_prompt_takes_its_chunks_in_one_stretch_exactly() {
        // Prefill time with attention growing along the prompt: the stretch
        // of identical chunks must cost what the chunks one by one cost.
        let (mut work, mut p) = ten_ms_steps();
        work.schedule.max_num_batched_tokens = 512;
        work.model.attn_flops_per_pair = 1e6;
        p.prefill_attn_eff_flash = 0.5;
        let w = Workload {
            input_tokens: 129_024,
            output_tokens: 1,
            num_prompts: 1,
            arrival: Arrival::Offline,
        };
        let r = simulate(&work, &p, &w, 256).unwrap();
        assert_eq!((r.steps, r.prefill_steps), (252, 252));
        // By hand: 252 chunks of 10 ms plus their causal pairs
        // 129,024 x 129,025 / 2 at 1e6 FLOPs each over 5e13 FLOP/s.
        let want = 252.0 * 0.010 + 129_024.0 * 129_025.0 / 2.0 * 1e6 / 5e13;
        assert!(
            (r.duration_s / want - 1.0).abs() < 1e-9,
            "{} vs {want}",
            r.duration_s
        );
    }

    #[test]
    fn chunked_prefill_shares_steps_with_decodes() {
        let (mut work, p) = ten_ms_steps();
        work.schedule.max_num_batched_tokens = 64;
        // A 100-token prompt needs two chunks (64 + 36): TTFT two steps.
        let w = Workload {
            input_tokens: 100,
            output_tokens: 2,
            num_prompts: 1,
            arrival: Arrival::Offline,
        };
        let r = simulate(&work, &p, &w, 256).unwrap();
        assert_eq!((r.steps, r.prefill_steps), (3, 2));
        assert!((r.ttft.mean_ms - 20.0).abs() < 1e-6);
    }
}
