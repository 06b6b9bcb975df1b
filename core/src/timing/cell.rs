//! The cell figures on the harness's timeline (docs/reference/harness.md
//! and the harness source it describes, llm-inference-bench
//! `llm_decode_bench.py`): a decode cell's throughput, time between tokens
//! and TTFT, and a cold prefill row.

use super::params::TimingParams;
use super::step::{PrefillTerms, StepTerms};
use super::work::Work;
use crate::engine::Harness;
use crate::stats::median;
use serde::Serialize;

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
    /// Median over requests of the time to their first token, on the
    /// workload's timeline (the harness's: cached prompts).
    pub ttft_ms: f64,
    /// The same with every prompt prefilled whole (distinct prompts).
    pub ttft_cold_ms: f64,
    /// The same with the prompt a prefix-cache hit past its last full block
    /// (the harness's); None without prefix caching.
    pub ttft_cached_ms: Option<f64>,
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
    let bs = work.schedule.block_size_tokens;
    let caching = work.schedule.enable_prefix_caching;
    let cached_blocks = if caching && context_tokens > 0 {
        prompt.saturating_sub(1) / bs
    } else {
        0
    };
    let cached_tail = prompt - cached_blocks * bs;
    let cold = work.prefill(p, prompt as f64, prompt as f64);
    let cached = work.prefill(p, cached_tail as f64, prompt as f64);
    let (tail, admission) = match harness.workload {
        crate::harness::Workload::Harness => (cached_tail, cached),
        crate::harness::Workload::Distinct => (prompt, cold),
    };
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
        mid = (prompt as f64 + decode_before / step.per_token_s().max(1e-9))
            .min((prompt + harness.max_tokens) as f64);
        step = work.decode_step(p, r, mid);
    }
    // Time per token of each stream: with speculative decoding a step
    // yields the mean acceptance length of tokens per stream.
    let t_step = step.per_token_s().max(1e-9);
    let total_tok_s = r / t_step;
    let end_s = window_start_s + harness.window_s;
    let ramp_tokens_per_admission = admission.chunks.max(1.0);
    let tbt: Vec<f64> = (1..=running.max(1))
        .map(|k| {
            let k = k as f64;
            let first = k * per_request_s;
            let tokens = 1.0 + (r - k) * ramp_tokens_per_admission + (end_s - ramp_s) / t_step;
            (end_s - first) / (tokens - 1.0).max(1.0)
        })
        .collect();
    let rate: Vec<f64> = tbt.iter().map(|t| 1.0 / t.max(1e-12)).collect();
    let tbt_s = median(&tbt);
    let per_request = median(&rate);
    DecodeTiming {
        prompt_tokens: prompt,
        recomputed_tokens: tail,
        total_tok_s,
        per_request_tok_s: per_request,
        tbt_ms: tbt_s * 1e3,
        ttft_ms: (r + 1.0) / 2.0 * per_request_s * 1e3,
        ttft_cold_ms: (r + 1.0) / 2.0 * cold.total_s() * 1e3,
        ttft_cached_ms: caching.then(|| (r + 1.0) / 2.0 * cached.total_s() * 1e3),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::test_support::reference_work;
    use approx::assert_relative_eq;

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
