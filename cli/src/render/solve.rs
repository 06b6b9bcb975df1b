//! `solve`'s answers and `rank`'s table.

use super::*;

/// A solver's answer: its JSON, or its rows as an Answer / Value table.
pub(super) fn answer_table<T: Serialize>(
    head: String,
    answer: &T,
    rows: Vec<(&str, String)>,
    format: Format,
) -> Result<String, Error> {
    if format == Format::Json {
        return json(answer);
    }
    Ok(head + &kv_table(rows, format)?)
}

pub(super) fn kv_table(rows: Vec<(&str, String)>, format: Format) -> Result<String, Error> {
    let mut t = Table::new(&[("Answer", false), ("Value", true)]);
    for (k, v) in rows {
        t.push(vec![k.to_string(), v]);
    }
    emit(&t, format)
}

pub(super) fn tokens_or_none(v: Option<u64>) -> String {
    v.map_or("none".to_string(), |x| {
        format!("{} ({})", grouped(x), format_tokens(x))
    })
}

/// The line above a solve answer: what was solved for.
pub(super) fn solve_head(plan: &Plan, format: Format) -> String {
    if format == Format::Table {
        format!(
            "{} | vLLM {} | calibration {}\n\n",
            plan.setup_title(),
            plan.engine.vllm_version,
            plan.calibration.label()
        )
    } else {
        String::new()
    }
}

pub fn solved_context(
    a: &decodecalc_api::solve::MaxContext,
    plan: &Plan,
    format: Format,
) -> Result<String, Error> {
    answer_table(
        solve_head(plan, format),
        a,
        vec![
            ("vLLM release", a.vllm_version.clone()),
            ("requests at once", a.concurrency.to_string()),
            (
                "output tokens per request (--max-tokens)",
                grouped(a.max_tokens),
            ),
            (
                "distinct prompts: largest context, all run",
                tokens_or_none(a.distinct_max_context_tokens),
            ),
            (
                "one shared prompt: largest context, all run",
                tokens_or_none(a.engine_max_context_tokens),
            ),
            (
                "one shared prompt: largest the harness runs",
                tokens_or_none(a.harness_max_context_tokens),
            ),
            (
                "one shared prompt: largest measured valid",
                tokens_or_none(a.valid_max_context_tokens),
            ),
            (
                "contexts allowed (max_model_len - max_tokens)",
                grouped(a.limit_tokens),
            ),
        ],
        format,
    )
}

pub fn solved_concurrency(
    a: &decodecalc_api::solve::MaxConcurrency,
    plan: &Plan,
    format: Format,
) -> Result<String, Error> {
    answer_table(
        solve_head(plan, format),
        a,
        vec![
            ("vLLM release", a.vllm_version.clone()),
            ("context", format_tokens(a.context_tokens)),
            (
                "output tokens per request (--max-tokens)",
                grouped(a.max_tokens),
            ),
            (
                "distinct prompts: most requests, all run",
                a.distinct_max_concurrency.to_string(),
            ),
            (
                "one shared prompt: most requests, all run",
                a.engine_max_concurrency.to_string(),
            ),
            (
                "one shared prompt: most the harness runs",
                a.harness_max_concurrency.to_string(),
            ),
            (
                "one shared prompt: most measured valid",
                a.valid_max_concurrency.to_string(),
            ),
        ],
        format,
    )
}

pub fn solved_setting(
    a: &decodecalc_api::solve::SmallestSetting,
    max_model_len: bool,
    plan: &Plan,
    format: Format,
) -> Result<String, Error> {
    if format == Format::Json {
        return json(a);
    }
    let name = if max_model_len {
        "--max-model-len"
    } else {
        "--gpu-memory-utilization"
    };
    let value = match a.value {
        Some(v) if max_model_len => format!("{v:.0}"),
        Some(v) => format!("{v} (round up: {:.3})", (v * 1000.0).ceil() / 1000.0),
        None => format!("cannot fit on this GPU ({}) at any setting", plan.gpu.id),
    };
    let mut rows = vec![
        ("vLLM release", a.vllm_version.clone()),
        (
            "cell",
            format!("{} x {}", format_tokens(a.context_tokens), a.concurrency),
        ),
        ("workload", a.workload.name().to_string()),
        (name, value),
    ];
    for s in &a.suggestions {
        rows.push(("what it would take", s.clone()));
    }
    Ok(solve_head(plan, format) + &kv_table(rows, format)?)
}

pub fn ranked(
    ranking: &decodecalc_api::rank::Ranking,
    model: &str,
    w: decodecalc_api::rank::Workload,
    top: u64,
    format: Format,
) -> Result<String, Error> {
    let prices = &ranking.prices;
    let all = &ranking.ranked;
    let shown = usize::try_from(top).map_or(all.len(), |n| n.min(all.len()));
    let rows = all.get(..shown).unwrap_or(all);
    if format == Format::Json {
        #[derive(Serialize)]
        struct Out<'a> {
            model: &'a str,
            workload: decodecalc_api::rank::Workload,
            prompts: decodecalc_api::harness::Workload,
            prices_source: &'a str,
            prices_date: &'a str,
            /// Configurations vLLM would start.
            considered: usize,
            /// Configurations that serve it, all of them (`configurations`
            /// is cut at --top).
            serving: usize,
            configurations: &'a [decodecalc_api::rank::Ranked],
            unpriced_gpus: &'a [String],
        }
        return json(&Out {
            model,
            workload: w,
            prompts: ranking.prompts,
            prices_source: &prices.source,
            prices_date: &prices.date,
            considered: ranking.considered,
            serving: all.len(),
            configurations: rows,
            unpriced_gpus: &ranking.unpriced,
        });
    }
    let t = ranked_table(rows);
    let mut out = String::new();
    if format == Format::Table {
        out.push_str(&format!(
            "{model}: {} x {} requests{} | vLLM {} | {} of {} configurations serve it | prices: {} ({})\n{}\n\n",
            format_tokens(w.context_tokens),
            w.concurrency,
            w.min_per_request_tok_s
                .map(|x| format!(" at >= {x} tok/s each"))
                .unwrap_or_default(),
            rows.first().map_or("-", |r| r.vllm_version.as_str()),
            all.len(),
            ranking.considered,
            prices.source,
            prices.date,
            ranking.prompts.describe(ranking.max_tokens),
        ));
    }
    out.push_str(&emit(&t, format)?);
    if format == Format::Table {
        out.push('\n');
        if shown < all.len() {
            out.push_str(&format!(
                "{} more serve it, not shown (--top {shown}; --top {} shows all)\n",
                all.len() - shown,
                all.len()
            ));
        }
        let left = ranking.considered.saturating_sub(all.len());
        if left > 0 {
            out.push_str(&format!(
                "{left} configurations vLLM would start do not serve it: not every request runs at once{}\n",
                if w.min_per_request_tok_s.is_some() {
                    ", or too slowly"
                } else {
                    ""
                }
            ));
        }
        if rows.iter().any(|r| r.calibration.starts_with("shared")) {
            out.push_str("shared: the GPU's class has no fitted run; its timing uses the joint fit's shared values\n");
        }
        if !ranking.unpriced.is_empty() {
            out.push_str(&format!(
                "No price for {}: ranked after the priced ones by tok/s per GPU, their price columns empty (give one with --price GPU=USD_PER_HOUR)\n",
                ranking.unpriced.join(", ")
            ));
        }
    }
    Ok(out)
}

/// The ranked configurations, one row each.
fn ranked_table(rows: &[decodecalc_api::rank::Ranked]) -> Table {
    let mut t = Table::new(&[
        ("#", true),
        ("GPU", false),
        ("TP", true),
        ("KV dtype", false),
        ("Total tok/s", true),
        ("Req tok/s", true),
        ("tok/s/GPU", true),
        ("USD/h", true),
        ("USD/M tok", true),
        ("Calibration", false),
    ]);
    for (i, r) in rows.iter().enumerate() {
        t.push(vec![
            (i + 1).to_string(),
            r.gpu.clone(),
            r.tensor_parallel_size.to_string(),
            r.kv_cache_dtype.to_string(),
            grouped_f(r.total_tok_s, 1),
            grouped_f(r.per_request_tok_s, 1),
            grouped_f(r.tok_s_per_gpu, 1),
            r.usd_per_hour.map_or(String::new(), |x| format!("{x:.2}")),
            r.usd_per_million_output_tokens
                .map_or(String::new(), |x| format!("{x:.3}")),
            // The calibration's name; why it was borrowed is in the JSON.
            r.calibration
                .split_once(" (")
                .map_or(r.calibration.as_str(), |(name, _)| name)
                .to_string(),
        ]);
    }
    t
}
