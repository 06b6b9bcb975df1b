//! `matrix --explain`: one cell's figures and the step that makes them.

use super::*;

/// One `name  value` line of an explanation.
pub(super) fn line(out: &mut String, k: &str, v: String) {
    out.push_str(&format!("  {k:<34} {v}\n"));
}

/// `matrix --explain CONTEXT:CONCURRENCY` (or `CONTEXT` for a prefill row).
pub fn explain(p: &Predictor, which: &ExplainCell) -> Result<String, Error> {
    let plan = p.plan;
    let ctx = which.context_tokens;
    match which.concurrency {
        None if ctx > plan.engine.max_model_len_tokens => Err(which.invalid()),
        None => Ok(explain_prefill(p, ctx)),
        Some(c) => {
            check_model_len(
                "--explain",
                ctx,
                plan.harness.max_tokens,
                plan.engine.max_model_len_tokens,
            )?;
            Ok(explain_decode(p, ctx, c))
        }
    }
}

/// The cold prefill of one request at `ctx`: its terms.
pub(super) fn explain_prefill(p: &Predictor, ctx: u64) -> String {
    let t = prefill_row(&p.work, &p.params, &p.plan.harness, ctx);
    let mut out = format!(
        "Prefill {} (cold, one request) | calibration {}\n",
        format_tokens(ctx),
        p.plan.calibration.label()
    );
    line(&mut out, "prompt tokens", grouped(t.prompt_tokens));
    line(
        &mut out,
        "chunks of max_num_batched_tokens",
        format!("{}", t.terms.chunks),
    );
    let ms = |x: f64| format!("{:.1} ms", x * 1e3);
    let terms = &t.terms;
    line(
        &mut out,
        "GEMMs (linear layers, Mamba scan)",
        ms(terms.gemm_s),
    );
    if terms.moe_s > 0.0 {
        line(&mut out, "fused MoE (measured kernels)", ms(terms.moe_s));
    }
    if terms.state_s > 0.0 {
        line(&mut out, "Mamba state read+write", ms(terms.state_s));
    }
    if terms.allreduce_s > 0.0 {
        line(
            &mut out,
            "all-reduces and pipeline sends",
            ms(terms.allreduce_s),
        );
    }
    line(&mut out, "per-layer small kernels", ms(terms.layers_s));
    line(&mut out, "attention (quadratic)", ms(terms.attention_s));
    line(
        &mut out,
        "host (scheduler, launch)",
        format!("{:.1} ms", t.terms.host_s * 1e3),
    );
    line(&mut out, "TTFT cold", format!("{:.0} ms", t.ttft_ms));
    line(&mut out, "prefill tok/s", format!("{:.1}", t.tok_s));
    out
}

/// A decode cell: its memory, its step's terms, admission and what the
/// harness reports.
pub(super) fn explain_decode(p: &Predictor, ctx: u64, c: u64) -> String {
    let plan = p.plan;
    let cap = p.capacity;
    let cell = p.cell(Phase::Decode, ctx, c);
    let mut out = format!(
        "Sustained decode {} x {c} | {} | calibration {}\n\nMemory\n",
        format_tokens(ctx),
        cell.status.name(),
        plan.calibration.label()
    );
    line(
        &mut out,
        "prompt tokens (server side)",
        grouped(cell.prompt_tokens),
    );
    line(
        &mut out,
        "block size",
        format!("{} tokens", grouped(cap.block_size_tokens)),
    );
    line(
        &mut out,
        "blocks per running request",
        format!(
            "{} (+{} shared by all)",
            cell.blocks_per_request, cell.shared_blocks
        ),
    );
    line(
        &mut out,
        "blocks for all requests",
        format!(
            "{} of {} usable",
            grouped(cell.blocks_needed),
            grouped(cell.usable_blocks)
        ),
    );
    let limit = match cell.limit {
        RunningLimit::None => "all of them",
        RunningLimit::MaxNumSeqs => "capped by max_num_seqs",
        RunningLimit::KvBlocks => "capped by free KV blocks",
    };
    line(
        &mut out,
        "requests running at once",
        format!("{} of {c} ({limit})", cell.running_requests),
    );
    line(
        &mut out,
        "harness check C x (context + max_tokens)",
        format!(
            "{} tokens vs KV cache {} tokens",
            grouped(cell.harness_tokens_needed),
            grouped(cell.harness_budget_tokens)
        ),
    );
    if cell.running_requests == 0 {
        out.push_str("\nNot run: over capacity.\n");
        return out;
    }
    let t = p.decode_timing(ctx, c, cell.running_requests);
    // With replicas the step priced is the busiest replica's, over its share
    // (`Predictor::decode_timing`).
    let dp = plan.engine.data_parallel_size.max(1);
    let mine = cell
        .running_requests
        .div_ceil(dp)
        .min(c.div_ceil(dp))
        .max(1);
    explain_step(&mut out, plan, &t, mine);
    explain_reported(&mut out, &t);
    out
}

/// The decode step's terms, each with its share of the step.
pub(super) fn explain_step(out: &mut String, plan: &Plan, t: &DecodeTiming, running: u64) {
    let s = t.step;
    let total = s.total_s();
    let share = |x: f64| format!("{:7.2} ms  {:5.1}%", x * 1e3, 100.0 * x / total);
    out.push_str(&format!(
        "\nDecode step{} with {running} sequences at {:.0} tokens of context (window middle)\n",
        if plan.engine.data_parallel_size > 1 {
            " of the busiest replica"
        } else {
            ""
        },
        t.window_context_tokens
    ));
    line(
        out,
        if s.async_scheduling {
            "host (overlapped: async scheduling)"
        } else {
            "host (scheduler, sampler, launch)"
        },
        share(s.host_s),
    );
    line(
        out,
        if s.compute_s > s.weights_s {
            "GEMMs: compute-bound"
        } else {
            "GEMMs: weight-read-bound"
        },
        format!(
            "{}  (weights {:.2} ms, compute {:.2} ms)",
            share(s.gemm_s()),
            s.weights_s * 1e3,
            s.compute_s * 1e3
        ),
    );
    if s.moe_s > 0.0 {
        line(out, "fused MoE (measured kernels)", share(s.moe_s));
    }
    line(out, "Mamba state read+write", share(s.state_s));
    line(out, "attention KV reads", share(s.attention_s));
    let e = &plan.engine;
    let dispatches = e.data_parallel_size > 1 && plan.model.model.is_moe();
    if e.tensor_parallel_size > 1 || e.pipeline_parallel_size > 1 || dispatches {
        let dispatch = if dispatches {
            format!(", MoE dispatch over {} replicas", e.data_parallel_size)
        } else {
            String::new()
        };
        line(
            out,
            &format!(
                "all-reduce over {} GPUs, {} pipeline sends{dispatch}",
                e.tensor_parallel_size,
                e.pipeline_parallel_size - 1
            ),
            share(s.allreduce_s),
        );
    }
    if s.layers_s > 0.0 {
        line(out, "per-layer small kernels", share(s.layers_s));
    }
    if s.launch_s > 0.0 {
        line(
            out,
            "eager kernel launches (past CUDA-graph sizes)",
            share(s.launch_s),
        );
    }
    if let Some(sp) = &plan.engine.speculative {
        line(
            out,
            &format!(
                "{} drafter, {} pass{} of {} draft tokens ({:.2} ms fixed a pass, {})",
                sp.method.name(),
                sp.drafter_passes(),
                if sp.drafter_passes() == 1 { "" } else { "es" },
                sp.num_speculative_tokens,
                decodecalc_api::timing::spec_pass_overhead_s(plan.gpu.calibration_class()) * 1e3,
                plan.gpu.calibration_class()
            ),
            share(s.draft_s),
        );
    }
    line(
        out,
        "step",
        format!("{:7.2} ms  (dominant: {})", total * 1e3, s.dominant()),
    );
}

/// Admission of a request, and the cell's figures as the harness reports them.
pub(super) fn explain_reported(out: &mut String, t: &DecodeTiming) {
    out.push_str("\nAdmission (each request recomputes its prompt past the last cached block)\n");
    line(
        out,
        "recomputed tokens per request",
        grouped(t.recomputed_tokens),
    );
    line(
        out,
        "per request",
        format!("{:.1} ms", t.admission.total_s() * 1e3),
    );
    line(
        out,
        "window opens after",
        format!("{:.1} s", t.window_start_s),
    );
    out.push_str("\nAs the harness reports it\n");
    line(out, "total tok/s", format!("{:.1}", t.total_tok_s));
    line(
        out,
        "per request tok/s",
        format!("{:.1}", t.per_request_tok_s),
    );
    if t.step.tokens_per_seq != 1.0 {
        line(
            out,
            "tokens per request per step (acceptance)",
            format!("{:.2}", t.step.tokens_per_seq),
        );
    }
    line(out, "time between tokens", format!("{:.1} ms", t.tbt_ms));
    line(
        out,
        "TTFT cold (median)",
        format!("{:.0} ms", t.ttft_cold_ms),
    );
    if let Some(ms) = t.ttft_cached_ms {
        line(out, "TTFT cached (median)", format!("{ms:.0} ms"));
    }
}
