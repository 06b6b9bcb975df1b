//! The panels under the chart: a measured run compared, a `vllm bench
//! serve` result, and the plan panel's answers and ranking.

use super::*;

pub(super) fn comparison_view(c: &Result<Comparison, decodecalc_core::Error>) -> Html {
    let c = match c {
        Err(e) => return measured_error(e),
        Ok(c) => c,
    };
    let (m, agree, cells) = (
        &c.summary.metrics,
        c.summary.status_agreement,
        c.summary.cells,
    );
    let mut t = format!(
        r#"<section><h2>Compared with the measured run</h2><table id="compare-summary" data-status-agreement="{agree}" data-cells="{cells}"><tr><th>metric</th><th>n</th><th>MAPE %</th><th>max abs %</th></tr>"#
    );
    for (name, x) in [
        ("total_tok_s", &m.total_tok_s),
        ("per_request_tok_s", &m.per_request_tok_s),
        ("tbt_ms", &m.tbt_ms),
        ("ttft_ms", &m.ttft_ms),
        ("prefill_tok_s", &m.prefill_tok_s),
        ("avg_active_requests", &m.avg_active_requests),
    ] {
        let _ = write!(
            t,
            r#"<tr data-metric="{name}" data-mape-pct="{}"><th>{name}</th><td>{}</td><td>{:.2}</td><td>{:.2}</td></tr>"#,
            json_number(x.mape_pct),
            x.n,
            x.mape_pct,
            x.max_abs_pct,
        );
    }
    let _ = write!(
        t,
        r#"</table><p class="note">Statuses: {agree} of {cells} agree.</p></section>"#
    );
    raw(t)
}

/// A `vllm bench serve --save-result` file's figures beside the prediction
/// of its workload on this setup.
pub(super) fn bench_view(
    b: &Result<Vec<FigureComparison>, decodecalc_core::Error>,
    name: Option<&str>,
) -> Html {
    let figures = match b {
        Err(e) => return measured_error(e),
        Ok(f) => f,
    };
    let mut t = format!(
        r#"<section><h2>vllm bench serve: {} against its workload predicted here</h2><table id="bench-compare"><tr><th>figure</th><th>measured</th><th>predicted</th><th>error %</th></tr>"#,
        esc(name.unwrap_or("the file"))
    );
    for f in figures {
        let _ = write!(
            t,
            r#"<tr data-figure="{fig}" data-measured="{}" data-predicted="{}" data-error-pct="{}"><th>{fig}</th><td>{:.2}</td><td>{:.2}</td><td>{:+.1}</td></tr>"#,
            json_number(f.measured),
            json_number(f.predicted),
            json_number(f.error_pct),
            f.measured,
            f.predicted,
            f.error_pct,
            fig = esc(f.figure),
        );
    }
    t.push_str("</table></section>");
    raw(t)
}

pub(super) fn plan_panel(o: &Output, dispatch: &Dispatch) -> Html {
    let a = match &o.answers {
        None => {
            return raw(r#"<section id="plan"><h2>Plan</h2><p class="note">Fill in --plan-context and --plan-concurrency for the largest context, the most requests, the smallest settings and the cheapest GPUs for that cell.</p></section>"#.to_string());
        }
        Some(Err(e)) => {
            return raw(format!(
                r#"<section id="plan"><h2>Plan</h2>{}</section>"#,
                error_box("error-plan", e)
            ));
        }
        Some(Ok(a)) => a,
    };
    let tok = |v: Option<u64>| {
        v.map_or("none".to_string(), |x| {
            format!("{x} ({})", format_tokens(x))
        })
    };
    let setting = |s: &decodecalc_core::solve::SmallestSetting, digits: usize| match s.value {
        Some(v) => format!("{v:.digits$}"),
        None => esc(&format!(
            "cannot fit on this GPU; {}",
            s.suggestions.join("; ")
        )),
    };
    let (ctx, n) = (format_tokens(a.context_tokens), a.concurrency);
    let (mc, mn) = (&a.max_context, &a.max_concurrency);
    let valid_ctx = mc
        .valid_max_context_tokens
        .map(|x| format!(r#" data-valid-max-context="{x}""#))
        .unwrap_or_default();
    let answers = format!(
        r#"<div><h2>Plan for {ctx} x {n}</h2><table id="plan-answers"{valid_ctx} data-valid-max-concurrency="{}"><tr><th>largest context for {n} requests, distinct prompts</th><td>{}</td></tr><tr><th>largest context for {n} requests, one shared cached prompt (engine / harness / valid)</th><td>{} / {} / {}</td></tr><tr><th>most requests at {ctx}, distinct prompts</th><td>{}</td></tr><tr><th>most requests at {ctx}, one shared cached prompt (engine / harness / valid)</th><td>{} / {} / {}</td></tr><tr><th>smallest --gpu-memory-utilization, workload {}</th><td>{}</td></tr><tr><th>smallest --max-model-len, workload {}</th><td>{}</td></tr></table></div>"#,
        mn.valid_max_concurrency,
        tok(mc.distinct_max_context_tokens),
        tok(mc.engine_max_context_tokens),
        tok(mc.harness_max_context_tokens),
        tok(mc.valid_max_context_tokens),
        mn.distinct_max_concurrency,
        mn.engine_max_concurrency,
        mn.harness_max_concurrency,
        mn.valid_max_concurrency,
        a.utilization.workload.name(),
        setting(&a.utilization, 4),
        a.max_model_len.workload.name(),
        setting(&a.max_model_len, 0),
    );
    let ranking = match &a.ranking {
        // A sweep of every GPU, TP size and KV dtype: run on request only.
        None => {
            let d = dispatch.clone();
            let onclick = Callback::from(move |_: MouseEvent| d.dispatch(Action::Rank));
            html! {
                <button id="rank-gpus" {onclick}>{ "rank the GPUs for this cell" }</button>
            }
        }
        Some(rows) => {
            let mut t = String::from(
                r#"<div><h2>Cheapest configurations for this cell, distinct prompts (estimated on-demand prices; GPUs without one after, fastest per GPU first)</h2><table id="ranking"><tr><th>GPU</th><th>TP</th><th>KV dtype</th><th>total tok/s</th><th>per request</th><th>tok/s per GPU</th><th>USD per M tokens</th></tr>"#,
            );
            for r in rows {
                let _ = write!(
                    t,
                    r#"<tr data-gpu="{gpu}"><td>{gpu}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
                    r.tensor_parallel_size,
                    esc(r.kv_cache_dtype),
                    grouped_f(r.total_tok_s, 1),
                    grouped_f(r.per_request_tok_s, 1),
                    grouped_f(r.tok_s_per_gpu, 1),
                    r.usd_per_million_output_tokens
                        .map_or(String::new(), |x| format!("{x:.3}")),
                    gpu = esc(&r.gpu),
                );
            }
            t.push_str("</table></div>");
            raw(t)
        }
    };
    html! {
        <section id="plan">{ raw(answers) }{ ranking }</section>
    }
}
