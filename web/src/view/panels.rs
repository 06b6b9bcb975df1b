//! The panels under the chart: a measured run compared, a `vllm bench
//! serve` result, and the plan panel's answers and ranking.

use super::*;

pub(super) fn comparison_view(c: &Result<Comparison, decodecalc_api::Error>) -> Html {
    let c = match c {
        Err(e) => return measured_error(e),
        Ok(c) => c,
    };
    let (m, agree, cells) = (
        &c.summary.metrics,
        c.summary.status_agreement,
        c.summary.cells,
    );
    let mut t = Markup::new();
    t.open("section")
        .leaf("h2", "Compared with the measured run")
        .open("table")
        .attr("id", "compare-summary")
        .attr("data-status-agreement", agree)
        .attr("data-cells", cells);
    head_row(&mut t, &["metric", "n", "MAPE %", "max abs %"]);
    for (name, x) in [
        ("total_tok_s", &m.total_tok_s),
        ("per_request_tok_s", &m.per_request_tok_s),
        ("tbt_ms", &m.tbt_ms),
        ("ttft_ms", &m.ttft_ms),
        ("prefill_tok_s", &m.prefill_tok_s),
        ("avg_active_requests", &m.avg_active_requests),
    ] {
        t.open("tr")
            .attr("data-metric", name)
            .attr("data-mape-pct", json_number(x.mape_pct))
            .leaf("th", name)
            .leaf("td", x.n)
            .leaf("td", format_args!("{:.2}", x.mape_pct))
            .leaf("td", format_args!("{:.2}", x.max_abs_pct))
            .close();
    }
    t.close()
        .open("p")
        .attr("class", "note")
        .text(format_args!("Statuses: {agree} of {cells} agree."));
    t.html()
}

/// A table's heading row: a `th` per column.
fn head_row(t: &mut Markup, heads: &[&str]) {
    t.open("tr");
    for h in heads {
        t.leaf("th", h);
    }
    t.close();
}

/// A `vllm bench serve --save-result` file's figures beside the prediction
/// of its workload on this setup.
pub(super) fn bench_view(
    b: &Result<Vec<FigureComparison>, decodecalc_api::Error>,
    name: Option<&str>,
) -> Html {
    let figures = match b {
        Err(e) => return measured_error(e),
        Ok(f) => f,
    };
    let mut t = Markup::new();
    t.open("section")
        .leaf(
            "h2",
            format_args!(
                "vllm bench serve: {} against its workload predicted here",
                name.unwrap_or("the file")
            ),
        )
        .open("table")
        .attr("id", "bench-compare");
    head_row(&mut t, &["figure", "measured", "predicted", "error %"]);
    for f in figures {
        t.open("tr")
            .attr("data-figure", f.figure)
            .attr("data-measured", json_number(f.measured))
            .attr("data-predicted", json_number(f.predicted))
            .attr("data-error-pct", json_number(f.error_pct))
            .leaf("th", f.figure)
            .leaf("td", format_args!("{:.2}", f.measured))
            .leaf("td", format_args!("{:.2}", f.predicted))
            .leaf("td", format_args!("{:+.1}", f.error_pct))
            .close();
    }
    t.html()
}

pub(super) fn plan_panel(o: &Output, dispatch: &Dispatch) -> Html {
    let a = match &o.answers {
        None => {
            return html! {
                <section id="plan">
                    <h2>{ "Plan" }</h2>
                    <p class="note">{ "Fill in --plan-context and --plan-concurrency for the largest context, the most requests, the smallest settings and the cheapest GPUs for that cell." }</p>
                </section>
            };
        }
        Some(Err(e)) => {
            let mut m = Markup::new();
            m.open("section").attr("id", "plan").leaf("h2", "Plan");
            error_box(&mut m, "error-plan", e);
            return m.html();
        }
        Some(Ok(a)) => a,
    };
    let ranking = match &a.ranking {
        // A sweep of every GPU, TP size and KV dtype: run on request only.
        None => {
            let d = dispatch.clone();
            let onclick = Callback::from(move |_: MouseEvent| d.dispatch(Action::Rank));
            html! {
                <button id="rank-gpus" {onclick}>{ "rank the GPUs for this cell" }</button>
            }
        }
        Some(rows) => ranking_table(rows),
    };
    html! {
        <section id="plan">{ plan_answers(a) }{ ranking }</section>
    }
}

/// The solvers' answers for the plan panel's target cell.
fn plan_answers(a: &crate::Answers) -> Html {
    let tok = |v: Option<u64>| {
        v.map_or("none".to_string(), |x| {
            format!("{x} ({})", format_tokens(x))
        })
    };
    let setting = |s: &decodecalc_api::solve::SmallestSetting, digits: usize| match s.value {
        Some(v) => format!("{v:.digits$}"),
        None => format!("cannot fit on this GPU; {}", s.suggestions.join("; ")),
    };
    let (ctx, n) = (format_tokens(a.context_tokens), a.concurrency);
    let (mc, mn) = (&a.max_context, &a.max_concurrency);
    let mut answers = Markup::new();
    answers
        .open("div")
        .leaf("h2", format_args!("Plan for {ctx} x {n}"))
        .open("table")
        .attr("id", "plan-answers")
        .attr_opt("data-valid-max-context", mc.valid_max_context_tokens)
        .attr("data-valid-max-concurrency", mn.valid_max_concurrency);
    let three = |a: String, b: String, c: String| format!("{a} / {b} / {c}");
    for (question, answer) in [
        (
            format!("largest context for {n} requests, distinct prompts"),
            tok(mc.distinct_max_context_tokens),
        ),
        (
            format!("largest context for {n} requests, one shared cached prompt (engine / harness / valid)"),
            three(
                tok(mc.engine_max_context_tokens),
                tok(mc.harness_max_context_tokens),
                tok(mc.valid_max_context_tokens),
            ),
        ),
        (
            format!("most requests at {ctx}, distinct prompts"),
            mn.distinct_max_concurrency.to_string(),
        ),
        (
            format!("most requests at {ctx}, one shared cached prompt (engine / harness / valid)"),
            three(
                mn.engine_max_concurrency.to_string(),
                mn.harness_max_concurrency.to_string(),
                mn.valid_max_concurrency.to_string(),
            ),
        ),
        (
            format!(
                "smallest --gpu-memory-utilization, workload {}",
                a.utilization.workload.name()
            ),
            setting(&a.utilization, 4),
        ),
        (
            format!(
                "smallest --max-model-len, workload {}",
                a.max_model_len.workload.name()
            ),
            setting(&a.max_model_len, 0),
        ),
    ] {
        answers
            .open("tr")
            .leaf("th", question)
            .leaf("td", answer)
            .close();
    }
    answers.html()
}

const RANKING_TITLE: &str = "Cheapest configurations for this cell, distinct prompts (estimated on-demand prices; GPUs without one after, fastest per GPU first)";

/// The cheapest configurations for the target cell, once asked for.
fn ranking_table(rows: &[decodecalc_api::rank::Ranked]) -> Html {
    let mut t = Markup::new();
    t.open("div")
        .leaf("h2", RANKING_TITLE)
        .open("table")
        .attr("id", "ranking");
    head_row(
        &mut t,
        &[
            "GPU",
            "TP",
            "KV dtype",
            "total tok/s",
            "per request",
            "tok/s per GPU",
            "USD per M tokens",
        ],
    );
    for r in rows {
        t.open("tr")
            .attr("data-gpu", &r.gpu)
            .leaf("td", &r.gpu)
            .leaf("td", r.tensor_parallel_size)
            .leaf("td", r.kv_cache_dtype)
            .leaf("td", grouped_f(r.total_tok_s, 1))
            .leaf("td", grouped_f(r.per_request_tok_s, 1))
            .leaf("td", grouped_f(r.tok_s_per_gpu, 1))
            .leaf(
                "td",
                r.usd_per_million_output_tokens
                    .map_or(String::new(), |x| format!("{x:.3}")),
            )
            .close();
    }
    t.html()
}
