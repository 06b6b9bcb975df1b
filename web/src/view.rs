//! Markup for core's values: the form, the memory bar, the prefill row, the
//! grid, the chart and the comparison. Only layout arithmetic here (pixel
//! positions, percentages of a bar, colours).

use crate::{
    engine_fields, group_fields, Action, ChartMetric, FieldError, Output, State, ESSENTIALS, PLAN,
};
use decodecalc_core::bench_serve::FigureComparison;
use decodecalc_core::breakdown::{grouped, grouped_f, Amount, Segment};
use decodecalc_core::compare::{CellComparison, Comparison, Metric};
use decodecalc_core::flags::FlagGroup;
use decodecalc_core::matrix::{Cell, Phase, Status};
use decodecalc_core::units::{format_tokens, gib};
use std::fmt::Write as _;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

type Dispatch = UseReducerDispatcher<State>;

/// The options of a select field (`""` = the scenario's value): core's list
/// of the values the flag takes (`flags::choices`).
fn options(field: &str) -> Option<Vec<String>> {
    let mut v = vec![String::new()];
    v.extend(decodecalc_core::flags::choices(field)?);
    Some(v)
}

/// What the field resolves to now, shown as its placeholder.
fn in_use(field: &str, out: &Output) -> String {
    let p = &out.plan;
    let list = |v: &[u64]| {
        v.iter()
            .map(|&c| format_tokens(c))
            .collect::<Vec<_>>()
            .join(",")
    };
    match field {
        "model" => p.model.id.clone(),
        "gpu" => p.gpu.id.clone(),
        "vllm-version" => p.engine.vllm_version.to_string(),
        "quantization" => p
            .engine
            .weight_quant(&p.model.quant)
            .method
            .name()
            .to_string(),
        "kv-cache-dtype" => p.engine.kv_cache_dtype.name().to_string(),
        "gpu-memory-utilization" => p.engine.gpu_memory_utilization.to_string(),
        "max-model-len" => p.engine.max_model_len_tokens.to_string(),
        "max-num-seqs" => p.engine.max_num_seqs.to_string(),
        "max-num-batched-tokens" => p.engine.max_num_batched_tokens.to_string(),
        "tensor-parallel-size" => p.engine.tensor_parallel_size.to_string(),
        "enable-prefix-caching" => p.engine.enable_prefix_caching.to_string(),
        "mamba-ssm-cache-dtype" => p.engine.mamba_ssm_cache_dtype.name().to_string(),
        "contexts" => list(&p.harness.contexts_tokens),
        "concurrency" => p
            .harness
            .concurrency
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(","),
        "max-tokens" => p.harness.max_tokens.to_string(),
        "calibration" => p.calibration.id.clone(),
        "vllm-command" => "vllm serve MODEL --flag value ... (pasted launch line)".to_string(),
        "vllm-log" => "paste the start-up log vllm serve printed".to_string(),
        "plan-context" => "plan: target context, e.g. 32K".to_string(),
        "plan-concurrency" => "plan: target requests, e.g. 16".to_string(),
        "plan-min-per-request-tok-s" => "plan: min tok/s per request".to_string(),
        "block-size" => p
            .engine
            .block_size_tokens
            .map_or(String::new(), |b| b.to_string()),
        "pipeline-parallel-size" => p.engine.pipeline_parallel_size.to_string(),
        "dtype" => p.engine.dtype.name().to_string(),
        "async-scheduling" => p.engine.async_scheduling.to_string(),
        "enforce-eager" => p.engine.enforce_eager.to_string(),
        "disable-custom-all-reduce" => p.engine.disable_custom_all_reduce.to_string(),
        "prefill-contexts" => list(&p.harness.prefill_contexts_tokens),
        _ => String::new(),
    }
}

/// The help line under a field: core's one-line explanation, the unit, and
/// the default (vLLM's for a `vllm serve` flag).
fn help_line(field: &str) -> Option<String> {
    let h = decodecalc_core::flags::describe(field)?;
    let unit = if h.unit.is_empty() {
        String::new()
    } else {
        format!(" · {}", h.unit)
    };
    let whose = if h.vllm { "vLLM default" } else { "default" };
    Some(format!("{}{unit} · {whose}: {}", h.help, h.default))
}

fn field_view(
    field: &'static str,
    state: &State,
    dispatch: &Dispatch,
    out: &Result<Output, FieldError>,
) -> Html {
    let value = state.fields.get(field).cloned().unwrap_or_default();
    let current = out.as_ref().map(|o| in_use(field, o)).unwrap_or_default();
    let current = match (current.is_empty(), decodecalc_core::flags::describe(field)) {
        (true, Some(h)) => h.default.to_string(),
        _ => current,
    };
    let help = help_line(field);
    let help_id = format!("help-{field}");
    let error = match out {
        Err(e) if e.field == Some(field) => Some(e.error.clone()),
        _ => None,
    };
    let control = match options(field) {
        Some(opts) => {
            let d = dispatch.clone();
            let onchange = Callback::from(move |e: Event| {
                let el: HtmlSelectElement = e.target_unchecked_into();
                d.dispatch(Action::Set(field.to_string(), el.value()));
            });
            // The options as markup text: they change only with the value.
            let mut list = String::new();
            for o in opts {
                let label = if o.is_empty() {
                    format!("({current})")
                } else {
                    o.clone()
                };
                let _ = write!(
                    list,
                    r#"<option value="{}"{}>{}</option>"#,
                    esc(&o),
                    if o == value { " selected" } else { "" },
                    esc(&label)
                );
            }
            html! {
                <select id={field} {onchange} aria-describedby={help_id.clone()}>
                    { raw(list) }
                </select>
            }
        }
        None => {
            let d = dispatch.clone();
            let oninput = Callback::from(move |e: InputEvent| {
                let el: HtmlInputElement = e.target_unchecked_into();
                d.dispatch(Action::Set(field.to_string(), el.value()));
            });
            if field == "vllm-log" {
                html! { <textarea id={field} rows="3" value={value} placeholder={current} {oninput} aria-describedby={help_id.clone()} /> }
            } else {
                html! { <input id={field} type="text" value={value} placeholder={current} {oninput} aria-describedby={help_id.clone()} /> }
            }
        }
    };
    // The label, help line and error are markup text; the control between
    // them stays a node of its own, so it keeps its focus while one types.
    let mut notes = help
        .map(|h| format!(r#"<div class="help" id="{help_id}">{}</div>"#, esc(&h)))
        .unwrap_or_default();
    if let Some(e) = &error {
        notes.push_str(&error_box(&format!("error-{field}"), e));
    }
    html! {
        <div class="field" data-invalid={error.is_some().then_some("true")}>
            { raw(format!(r#"<label for="{field}">--{field}</label>"#)) }
            { control }
            { raw(notes) }
        </div>
    }
}

/// A file input that reads the chosen file as text and dispatches it.
fn file_input(
    id: &'static str,
    label: &'static str,
    accept: &'static str,
    loaded: Option<&String>,
    dispatch: &Dispatch,
    on_load: fn(String, String) -> Action,
    on_clear: Action,
) -> Html {
    let d = dispatch.clone();
    let onchange = Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        let Ok(reader) = web_sys::FileReader::new() else {
            return;
        };
        let name = file.name();
        let r = reader.clone();
        let d2 = d.clone();
        let onload = Closure::once(move |_: web_sys::ProgressEvent| {
            if let Some(text) = r.result().ok().and_then(|v| v.as_string()) {
                d2.dispatch(on_load(name, text));
            }
        });
        reader.set_onload(Some(onload.as_ref().unchecked_ref()));
        onload.forget();
        let _ = reader.read_as_text(&file);
    });
    let clear = {
        let d = dispatch.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(on_clear.clone()))
    };
    html! {
        <div class="field">
            <label for={id}>{ label }</label>
            <input id={id} type="file" accept={accept} {onchange} />
            { for loaded.map(|n| html! {
                <span class="loaded">{ format!("loaded {n} ") }<button onclick={clear}>{ "clear" }</button></span>
            }) }
        </div>
    }
}

/// A titled, collapsible group of fields.
fn group(
    id: &'static str,
    title: &'static str,
    fields: &[&'static str],
    state: &State,
    dispatch: &Dispatch,
    out: &Result<Output, FieldError>,
    extra: Html,
) -> Html {
    html! {
        <details class="group" id={format!("group-{id}")} open=true>
            <summary>{ title }</summary>
            <div class="form">
                { for fields.iter().map(|f| field_view(f, state, dispatch, out)) }
                { extra }
            </div>
        </details>
    }
}

pub fn page(state: &State, dispatch: Dispatch, out: &Result<Output, FieldError>) -> Html {
    html! {
        <main data-computes={crate::computes().to_string()}>
            { raw(format!(
                r#"<header><h1>decodecalc</h1><p class="sub" id="modelled-version">vLLM {} capacity and decode calculator, offline</p></header>"#,
                out.as_ref().map_or(decodecalc_core::version::MODELLED, |o| o.plan.engine.vllm_version)
            )) }
            <section class="form essentials" aria-label="model, GPU and workload">
                { for ESSENTIALS.iter().map(|f| field_view(f, state, &dispatch, out)) }
                { file_input("model-config", "or a model's config.json", ".json", state.model_file.as_ref().map(|m| &m.0), &dispatch, Action::ModelFile, Action::ClearModelFile) }
            </section>
            { match out {
                Err(e) if e.field.is_none() => raw(format!(
                    r#"<div id="error" role="alert">error: {}{}</div>"#,
                    esc(&e.error.message),
                    hint_line(&e.error)
                )),
                Err(_) => raw(r#"<div id="error-summary">Fix the highlighted field to see the matrix.</div>"#.to_string()),
                Ok(o) => html! { <section class="results">{ results(o, state, &dispatch) }</section> },
            } }
            <section class="groups">
                { group("setup", "setup: launch line, start-up log, calibration", &group_fields(FlagGroup::Setup), state, &dispatch, out,
                    file_input("measured", "compare with a measured run (CSV, benchmark_results.json or vllm bench serve JSON)", ".csv,.json", state.measured.as_ref().map(|m| &m.0), &dispatch, Action::Measured, Action::ClearMeasured)) }
                { group("workload", "workload: what the benchmark harness sends", &group_fields(FlagGroup::Workload), state, &dispatch, out, html! {}) }
                { group("engine-flags", "engine flags: vllm serve", &engine_fields(), state, &dispatch, out, html! {}) }
                { group("plan", "plan: what would make a cell fit or fast", &PLAN, state, &dispatch, out, html! {}) }
            </section>
        </main>
    }
}

fn results(o: &Output, state: &State, dispatch: &Dispatch) -> Html {
    let p = &o.plan;
    let mut head = format!(
        r#"<p id="scenario">{}</p><p id="workload" class="note">{}</p>"#,
        esc(&format!(
            "{} | calibration {} | block {} tokens, {} blocks, KV cache {} tokens",
            p.setup_title(),
            p.calibration.label(),
            grouped(o.capacity.block_size_tokens),
            grouped(o.capacity.num_blocks),
            grouped(o.capacity.kv_cache_tokens)
        )),
        esc(&o.matrix.workload.describe(p.harness.max_tokens)),
    );
    if !p.warnings.is_empty() {
        head.push_str(r#"<ul id="warnings">"#);
        for w in &p.warnings {
            let _ = write!(head, "<li>warning: {}</li>", esc(w));
        }
        head.push_str("</ul>");
    }
    let bands = format!(
        r#"<div id="error-bands" class="note">{}</div>"#,
        error_bands(&p.calibration.bands())
    );
    html! {
        <>
            { raw(head) }
            // A cell's details open right under the grid, not screens below.
            { grid(o, dispatch) }
            { details(o, state) }
            { memory_bar(o) }
            { raw(bands) }
            { log_check(o) }
            { prefill_row(o) }
            { chart(o, state, dispatch) }
            { for o.comparison.as_ref().map(comparison_view) }
            { for o.bench.as_ref().map(|b| bench_view(b, o.measured_name.as_deref())) }
            { plan_panel(o, dispatch) }
        </>
    }
}

/// A pasted start-up log's figures against decodecalc's, each flagged.
fn log_check(o: &Output) -> Html {
    let figures = &o.capacity.log_check;
    if figures.is_empty() {
        return html! {};
    }
    let mut t = String::from(
        "<table id=\"log-check\"><caption>Your vLLM start-up log against the prediction</caption><tr><th>figure</th><th>logged</th><th>decodecalc</th><th>error</th><th>agrees</th></tr>",
    );
    for f in figures {
        let agrees = if f.agrees {
            format!("yes (within {:.2}%)", f.tolerance_pct)
        } else {
            format!("NO (beyond {:.2}%)", f.tolerance_pct)
        };
        let _ = write!(
            t,
            r#"<tr data-figure="{fig}" data-logged="{}" data-predicted="{}" data-agrees="{}"><td>{fig}</td><td>{}</td><td>{:.2}</td><td>{:+.2}%</td><td>{agrees}</td></tr>"#,
            f.logged,
            f.predicted,
            f.agrees,
            f.logged,
            f.predicted,
            f.error_pct,
            fig = esc(f.figure),
        );
    }
    t.push_str("</table>");
    raw(t)
}

/// The calibration's held-out error bands, one sentence per figure, each
/// saying what its predictions held out.
fn error_bands(b: &decodecalc_core::scenario::ErrorBands) -> String {
    use decodecalc_core::bands::HoldOut;
    let words = |x: &decodecalc_core::scenario::Band| {
        let held = match x.hold_out {
            HoldOut::LeaveCellOut => "leave-cell-out",
            HoldOut::LeaveFamilyOut => "a model family held out",
            HoldOut::LeaveGpuOut => "the GPU held out",
            HoldOut::LeaveClassOut => "the GPU class held out",
        };
        format!(
            "+-{:.0}% median, +-{:.0}% p90 ({held}, {} figures)",
            x.median_abs_pct, x.p90_abs_pct, x.figures
        )
    };
    // One line per figure, then one per workload regime: which held-out
    // data each band was measured on.
    let mut lines = vec![format!(
        "Error bands, calibration {} ({} runs), measured on data the fit never saw:",
        b.class.as_deref().unwrap_or("none"),
        b.runs
    )];
    for (what, band) in [
        ("time between tokens", &b.tpot),
        ("throughput", &b.throughput),
        ("TTFT", &b.ttft),
    ] {
        lines.push(match band {
            Some(x) => format!("{what}: {}", words(x)),
            None => format!("{what}: no measured band"),
        });
    }
    for x in &b.tpot_by_regime {
        let regime = x.regime.map_or("every regime", |r| r.label());
        lines.push(format!("time between tokens, {regime}: {}", words(x)));
    }
    let (head, rest) = lines
        .split_first()
        .map_or(("", &[][..]), |(h, r)| (h.as_str(), r));
    let mut out = format!("<p>{}</p><ul>", esc(head));
    for l in rest {
        let _ = write!(out, "<li>{}</li>", esc(l));
    }
    out.push_str("</ul>");
    out
}

/// The GPU's memory as a bar of core's breakdown rows that are segments
/// ([`decodecalc_core::breakdown`]): each named in its hover title with its
/// size and explanation, and listed in a legend.
fn memory_bar(o: &Output) -> Html {
    let c = &o.capacity;
    let total = c.total_bytes.max(1) as f64;
    let rows = c.breakdown(&o.plan);
    let segments: Vec<(Segment, u64, String)> = rows
        .iter()
        .filter_map(|r| match (r.segment, r.amount) {
            (Some(s), Amount::Bytes(b)) if b > 0 => {
                let estimate = if r.estimate { " (estimate)" } else { "" };
                let title = format!("{}: {:.2} GiB{estimate}; {}", s.label(), gib(b), r.note);
                Some((s, b, title))
            }
            _ => None,
        })
        .collect();
    let per_request: Vec<String> = c
        .max_running_requests
        .iter()
        .map(|r| {
            format!(
                "{}: {} blocks",
                format_tokens(r.context_tokens),
                grouped(r.blocks_per_request)
            )
        })
        .collect();
    let mut t = String::from(r#"<section id="memory"><h2>GPU memory</h2><div class="bar">"#);
    for (seg, bytes, title) in &segments {
        let pct = 100.0 * *bytes as f64 / total;
        let label = if pct > 7.0 {
            format!("{} {:.2} GiB", seg.label(), gib(*bytes))
        } else {
            String::new()
        };
        let _ = write!(
            t,
            r#"<div class="seg" data-segment="{}" style="width:{pct:.3}%" title="{title}" aria-label="{title}" data-bytes="{bytes}">{}</div>"#,
            seg.id(),
            esc(&label),
            title = esc(title),
        );
    }
    t.push_str(r#"</div><p class="legend" id="memory-legend">"#);
    for (seg, bytes, title) in &segments {
        let _ = write!(
            t,
            r#"<span title="{}" data-segment="{}"><span class="sw"></span> {} {:.2} GiB </span>"#,
            esc(title),
            seg.id(),
            esc(seg.label()),
            gib(*bytes),
        );
    }
    let _ = write!(
        t,
        r#"</p><p class="note">{:.2} GiB total, {:.2} GiB requested. Block size {} tokens; blocks per request at {}.</p></section>"#,
        gib(c.total_bytes),
        gib(c.requested_bytes),
        grouped(c.block_size_tokens),
        per_request.join(", "),
    );
    raw(t)
}

fn prefill_row(o: &Output) -> Html {
    let rows: Vec<&Cell> = o
        .matrix
        .cells
        .iter()
        .filter(|c| c.phase == Phase::Prefill)
        .collect();
    if rows.is_empty() {
        return html! {};
    }
    let mut t =
        String::from(r#"<section><h2>Prefill</h2><table id="prefill"><tr><th>context</th>"#);
    for c in &rows {
        let _ = write!(t, "<th>{}</th>", format_tokens(c.context_tokens));
    }
    t.push_str("</tr><tr><th>prompt tok/s</th>");
    for c in &rows {
        let _ = write!(
            t,
            r#"<td data-context="{}" data-prefill-tok-s="{}">{}<div class="small">{}</div></td>"#,
            c.context_tokens,
            c.total_tok_s.map(json_number).unwrap_or_default(),
            c.total_tok_s.map(|v| grouped_f(v, 0)).unwrap_or_default(),
            c.ttft_cold_ms
                .map(|v| format!("{} ms TTFT cold", grouped_f(v, 0)))
                .unwrap_or_default(),
        );
    }
    t.push_str("</tr></table></section>");
    raw(t)
}

/// A number exactly as the CLI's JSON writes it.
fn json_number(v: f64) -> String {
    serde_json::to_string(&v).unwrap_or_default()
}

fn fill(c: &Cell, max_total: f64) -> String {
    match (c.status, c.total_tok_s) {
        (Status::OverCapacity, _) | (_, None) => "background-color:#e5e5e5".into(),
        (status, Some(t)) => {
            let x = (t / max_total.max(1e-9)).clamp(0.0, 1.0);
            let hue = if status == Status::Queued {
                40.0
            } else {
                140.0
            };
            format!("background-color:hsl({hue},60%,{:.0}%)", 92.0 - 45.0 * x)
        }
    }
}

/// The decode cells and the largest total tok/s among them.
fn decode_cells(o: &Output) -> (Vec<&Cell>, f64) {
    let decode: Vec<&Cell> = o
        .matrix
        .cells
        .iter()
        .filter(|c| c.phase == Phase::Decode)
        .collect();
    let max_total = decode
        .iter()
        .filter_map(|c| c.total_tok_s)
        .fold(0.0, f64::max);
    (decode, max_total)
}

/// A cell's status as a symbol and a word, so it reads without its colour.
fn status_mark(s: Status) -> (&'static str, &'static str) {
    match s {
        Status::Valid => ("\u{2713}", "runs"),
        Status::Queued => ("\u{25f7}", "queued"),
        Status::OverCapacity => ("\u{2715}", "over capacity"),
    }
}

/// What the legend says each status means.
fn status_meaning(s: Status) -> &'static str {
    match s {
        Status::Valid => "all requests run at once",
        Status::Queued => "some requests wait for a free slot",
        Status::OverCapacity => {
            "the harness skips the cell: C x (context + max_tokens) > the KV cache's tokens"
        }
    }
}

/// The measured run's cell at (context, concurrency), when one is compared.
fn compared(o: &Output, ctx: u64, n: u64) -> Option<&CellComparison> {
    o.comparison
        .as_ref()
        .and_then(|c| c.as_ref().ok())
        .and_then(|c| {
            c.cells
                .iter()
                .find(|x| x.phase == Phase::Decode && x.context_tokens == ctx && x.concurrency == n)
        })
}

/// One decode cell as markup text: predicted (and measured) figures, its
/// status as colour, pattern and text, and its place in data attributes
/// (which the grid's listeners read, [`cell_of`]).
fn grid_cell(t: &mut String, c: &Cell, o: &Output, max_total: f64) {
    let (ctx, n) = (c.context_tokens, c.concurrency);
    let cmp = compared(o, ctx, n);
    let (symbol, word) = status_mark(c.status);
    let attr = |name: &str, v: Option<f64>| {
        v.map(|v| format!(r#" {name}="{}""#, json_number(v)))
            .unwrap_or_default()
    };
    let _ = write!(
        t,
        r#"<td class="cell" tabindex="0" style="{}" title="{}" aria-label="{} x {n}: {word}" data-context="{ctx}" data-concurrency="{n}" data-status="{}"{}{}{}{}><span class="st">{}</span>"#,
        fill(c, max_total),
        esc(&tooltip(c)),
        format_tokens(ctx),
        c.status.name(),
        attr("data-total-tok-s", c.total_tok_s),
        attr(
            "data-measured-total-tok-s",
            cmp.and_then(|x| x.measured.total_tok_s)
        ),
        attr("data-error-pct", cmp.and_then(|x| x.error_pct.total_tok_s)),
        attr(
            "data-band-pct",
            c.error_band
                .and_then(|b| b.throughput)
                .map(|b| b.median_abs_pct)
        ),
        if c.status == Status::Valid {
            symbol.to_string()
        } else {
            format!("{symbol} {word}")
        },
    );
    if let (false, Some(tps)) = (c.status == Status::OverCapacity, c.total_tok_s) {
        let _ = write!(
            t,
            r#"<span class="tps">{}</span><div class="small band">{}</div><div class="small ttft">{}</div>"#,
            grouped_f(tps, 1),
            // The held-out band of this cell's throughput (its p90).
            c.error_band
                .and_then(|b| b.throughput)
                .map(|b| format!("±{:.0}% (p90 held out)", b.p90_abs_pct))
                .unwrap_or_default(),
            // Which TTFT (cached or cold) the grid's title says.
            c.ttft_seen(o.matrix.workload)
                .map(|(v, _)| format!("{} ms TTFT", grouped_f(v, 0)))
                .unwrap_or_default()
        );
    }
    if let Some(x) = cmp {
        let _ = match (x.measured.total_tok_s, x.error_pct.total_tok_s) {
            (Some(m), Some(e)) => write!(
                t,
                r#"<div class="small cmp">measured {m:.1}</div><div class="small err">error {e:+.1}%</div>"#
            ),
            _ => write!(
                t,
                r#"<div class="small cmp">measured {}</div>"#,
                status_mark(x.measured_status).0
            ),
        };
    }
    t.push_str("</td>");
}

/// The grid cell an event happened in, as (context, concurrency): the
/// nearest `td.cell` around its target, by its data attributes.
fn cell_of(e: &Event) -> Option<(u64, u64)> {
    let el: web_sys::Element = e.target()?.dyn_into().ok()?;
    let td = el.closest("td.cell").ok()??;
    let number = |name: &str| td.get_attribute(name)?.parse().ok();
    Some((number("data-context")?, number("data-concurrency")?))
}

/// The decode grid: its table is markup text (it changes only when the
/// figures do, so a cell keeps its focus across renders), and four
/// listeners on its wrapper serve every cell: hover and focus show a cell's
/// details, a click, Enter or Space also ask the plan panel about it
/// (`Action::Activate`).
fn grid(o: &Output, dispatch: &Dispatch) -> Html {
    let h = &o.plan.harness;
    let (decode, max_total) = decode_cells(o);
    let compared_ok = matches!(o.comparison, Some(Ok(_)));
    let ttft = match o.matrix.workload {
        decodecalc_core::harness::Workload::Harness => "TTFT with the prompt cached",
        decodecalc_core::harness::Workload::Distinct => "TTFT cold (each prompt prefilled whole)",
    };
    let title = if compared_ok {
        format!("Sustained decode: total tok/s predicted, measured, error; {ttft}")
    } else {
        format!("Sustained decode: total tok/s; {ttft}")
    };
    let mut t = String::from(
        r#"<table id="matrix"><thead><tr><th title="rows: context; columns: simultaneous requests">context \ requests</th>"#,
    );
    for c in &h.concurrency {
        let _ = write!(t, "<th>{c}</th>");
    }
    t.push_str("</tr></thead><tbody>");
    for &ctx in &h.contexts_tokens {
        let _ = write!(t, "<tr><th>{}</th>", format_tokens(ctx));
        for c in h.concurrency.iter().filter_map(|&n| {
            decode
                .iter()
                .find(|c| c.context_tokens == ctx && c.concurrency == n)
        }) {
            grid_cell(&mut t, c, o, max_total);
        }
        t.push_str("</tr>");
    }
    t.push_str("</tbody></table>");
    let on = |activate: bool| {
        let d = dispatch.clone();
        move |e: &Event| {
            if let Some((ctx, n)) = cell_of(e) {
                d.dispatch(if activate {
                    Action::Activate(ctx, n)
                } else {
                    Action::Focus(ctx, n)
                });
            }
        }
    };
    let (show, activate) = (on(false), on(true));
    let hover = {
        let show = show.clone();
        Callback::from(move |e: MouseEvent| show(&e))
    };
    let focus = Callback::from(move |e: FocusEvent| show(&e));
    let click = {
        let activate = activate.clone();
        Callback::from(move |e: MouseEvent| activate(&e))
    };
    let key = Callback::from(move |e: KeyboardEvent| {
        if e.key() == "Enter" || e.key() == " " {
            e.prevent_default();
            activate(&e);
        }
    });
    let mut legend = String::from(r#"<p class="legend" id="status-legend">"#);
    for s in [Status::Valid, Status::Queued, Status::OverCapacity] {
        let (symbol, word) = status_mark(s);
        let _ = write!(
            legend,
            r#"<span data-status="{}"><span class="sw"></span> {symbol} {word}: {} </span>"#,
            s.name(),
            status_meaning(s)
        );
    }
    legend.push_str("</p>");
    html! {
        <section>
            <h2>{ title }</h2>
            <div class="grid" onmouseover={hover} onfocusin={focus} onclick={click} onkeydown={key}>
                { raw(t) }
            </div>
            { raw(legend) }
            { compare_line(o) }
        </section>
    }
}

/// One sentence under the grid: the measured run compared and core's mean
/// absolute percentage error per metric.
fn compare_line(o: &Output) -> Html {
    let Some(Ok(c)) = &o.comparison else {
        return html! {};
    };
    let m = &c.summary.metrics;
    let part = |what: &str, x: &Metric| format!("{what} {:.2}% ({} cells)", x.mape_pct, x.n);
    let name = o.measured_name.as_deref().unwrap_or("the measured run");
    raw(format!(
        r#"<p id="compare-line" class="note">{}</p>"#,
        esc(&format!("Each cell: predicted (bold), measured, and the error of the prediction (predicted / measured - 1). Against {name}: MAPE {}, {}, {}, {}; statuses agree in {} of {} cells.",
            part("total tok/s", &m.total_tok_s), part("per-request tok/s", &m.per_request_tok_s),
            part("time between tokens", &m.tbt_ms), part("TTFT", &m.ttft_ms),
            c.summary.status_agreement, c.summary.cells))
    ))
}

fn tooltip(c: &Cell) -> String {
    let mut lines = vec![format!(
        "{} x {}: {}",
        format_tokens(c.context_tokens),
        c.concurrency,
        c.status.name()
    )];
    if let (Some(p), Some(t)) = (c.per_request_tok_s, c.tbt_ms) {
        lines.push(format!(
            "per request {p:.1} tok/s, {t:.1} ms between tokens"
        ));
    }
    if let Some(b) = c.error_band {
        let part = |what: &str, x: Option<decodecalc_core::scenario::Band>| {
            x.map(|x| {
                format!(
                    "{what} +-{:.0}% median, +-{:.0}% p90",
                    x.median_abs_pct, x.p90_abs_pct
                )
            })
        };
        let parts: Vec<String> = [part("tok/s", b.throughput), part("between tokens", b.tpot)]
            .into_iter()
            .flatten()
            .collect();
        lines.push(format!(
            "error band ({}): {}",
            b.regime.label(),
            parts.join(", ")
        ));
    }
    lines.push(format!(
        "{} of {} requests run at once",
        c.running_requests, c.concurrency
    ));
    lines.push(format!(
        "KV blocks needed {} of {} free; harness needs {} tokens of {}",
        grouped(c.blocks_needed),
        grouped(c.usable_blocks),
        grouped(c.harness_tokens_needed),
        grouped(c.harness_budget_tokens)
    ));
    lines.join("\n")
}

fn details(o: &Output, state: &State) -> Html {
    let Some((ctx, n)) = state.focused else {
        return raw(r#"<p id="cell-details" class="note">Hover over, click or focus a cell (Tab to it, Enter) for its details.</p>"#.to_string());
    };
    let Some(c) = o
        .matrix
        .cells
        .iter()
        .find(|c| c.phase == Phase::Decode && c.context_tokens == ctx && c.concurrency == n)
    else {
        return html! {};
    };
    let why = if c.status == Status::OverCapacity {
        format!(
            "Over capacity by the harness rule: it needs {} x ({} + max_tokens) = {} tokens, the server's KV cache holds {}. The engine itself would run {} of the {} at once ({} blocks needed, {} free).",
            c.concurrency,
            grouped(c.context_tokens),
            grouped(c.harness_tokens_needed),
            grouped(c.harness_budget_tokens),
            c.engine_running_requests,
            c.concurrency,
            grouped(c.blocks_needed),
            grouped(c.usable_blocks)
        )
    } else {
        format!(
            "{} of {} requests run ({} blocks each + {} shared, {} free). Per request {:.1} tok/s, {:.1} ms between tokens, TTFT {} ms cold (own prompt), {} ms cached (prompt in the prefix cache).",
            c.running_requests,
            c.concurrency,
            grouped(c.blocks_per_request),
            grouped(c.shared_blocks),
            grouped(c.usable_blocks),
            c.per_request_tok_s.unwrap_or(0.0),
            c.tbt_ms.unwrap_or(0.0),
            c.ttft_cold_ms.map_or("-".into(), |v| grouped_f(v, 0)),
            c.ttft_cached_ms.map_or("-".into(), |v| grouped_f(v, 0)),
        )
    };
    raw(format!(
        r#"<p id="cell-details">{} x {n}: {why}</p>"#,
        format_tokens(ctx)
    ))
}

const COLORS: [&str; 8] = [
    "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666",
];

/// Round tick values from 0 to at least `max`: about five steps of 1, 2 or 5
/// times a power of ten.
fn nice_ticks(max: f64) -> (Vec<f64>, f64) {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * mag);
    let mut ticks = Vec::new();
    for i in 0..=12u32 {
        let t = f64::from(i) * step;
        ticks.push(t);
        if t >= max * (1.0 - 1e-9) {
            break;
        }
    }
    (ticks, step)
}

/// A tick label with as many decimals as the step needs.
fn tick_label(t: f64, step: f64) -> String {
    let digits = if step >= 1.0 {
        0
    } else if step >= 0.1 {
        1
    } else if step >= 0.01 {
        2
    } else {
        3
    };
    format!("{t:.digits$}")
}

/// The powers of two from the smallest to the largest concurrency (the ends
/// themselves when no power of two lies between them).
fn log2_ticks(lo: u64, hi: u64) -> Vec<u64> {
    let mut ticks: Vec<u64> = (0..64u32)
        .filter_map(|k| 1u64.checked_shl(k))
        .filter(|&p| p >= lo && p <= hi)
        .collect();
    if ticks.is_empty() {
        ticks = if lo == hi { vec![lo] } else { vec![lo, hi] };
    }
    ticks
}

/// The chart's frame in pixels: plot area, the scales of both axes and
/// where the legend goes (right of the plot, or below it on a narrow
/// screen, where the frame is narrower so its text stays legible).
struct Frame {
    narrow: bool,
    w: f64,
    h: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    x0: f64,
    xspan: f64,
    ymax: f64,
}

impl Frame {
    /// `legend_rows`: the legend's entries (one per context, then the
    /// predicted and measured keys).
    fn new(concurrency: &[u64], ymax: f64, narrow: bool, legend_rows: usize) -> Frame {
        let lo = concurrency.iter().copied().min().unwrap_or(1).max(1);
        let hi = concurrency.iter().copied().max().unwrap_or(1).max(lo);
        let (x0, x1) = ((lo as f64).log2(), (hi as f64).log2());
        let (w, h, left, right, top, bottom) = if narrow {
            let legend_h = 20.0 * legend_rows.div_ceil(2) as f64;
            (400.0, 306.0 + legend_h, 58.0, 384.0, 36.0, 236.0)
        } else {
            (760.0, 330.0, 66.0, 600.0, 40.0, 276.0)
        };
        Frame {
            narrow,
            w,
            h,
            left,
            right,
            top,
            bottom,
            x0,
            xspan: if x1 > x0 { x1 - x0 } else { 1.0 },
            ymax: ymax.max(1e-9),
        }
    }

    /// Where legend entry `i` starts: its line's left end, at its text's
    /// middle height. Right of the plot in one column, or below the x axis
    /// title in two.
    fn legend_at(&self, i: usize) -> (f64, f64) {
        if self.narrow {
            let col = (i % 2) as f64;
            let row = (i / 2) as f64;
            (
                self.left + 170.0 * col - 30.0,
                self.bottom + 66.0 + 20.0 * row,
            )
        } else {
            (self.right + 24.0, self.top + 6.0 + 18.0 * i as f64)
        }
    }

    /// The x axis title's baseline.
    fn x_title_y(&self) -> f64 {
        if self.narrow {
            self.bottom + 40.0
        } else {
            self.h - 12.0
        }
    }

    fn x(&self, c: u64) -> f64 {
        let f = ((c.max(1) as f64).log2() - self.x0) / self.xspan;
        self.left + (self.right - self.left) * f.clamp(0.0, 1.0)
    }

    fn y(&self, v: f64) -> f64 {
        self.bottom - (self.bottom - self.top) * (v / self.ymax)
    }
}

/// The measured run's decode points for the chart's metric:
/// (context, concurrency, value).
fn measured_points(o: &Output, metric: ChartMetric) -> Vec<(u64, u64, f64)> {
    match &o.comparison {
        Some(Ok(c)) => c
            .cells
            .iter()
            .filter(|x| x.phase == Phase::Decode)
            .filter_map(|x| {
                metric
                    .of(&x.measured)
                    .map(|v| (x.context_tokens, x.concurrency, v))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Markup text for `s`: `&`, `<`, `>` and `"` escaped, so it can stand in
/// an element's text or a quoted attribute of the chart's SVG.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A coordinate as the chart writes it: one decimal.
fn px(v: f64) -> String {
    format!("{v:.1}")
}

/// Axes, grid lines, ticks with their labels and both axis titles.
fn chart_axes(
    svg: &mut String,
    f: &Frame,
    yticks: &[f64],
    step: f64,
    xticks: &[u64],
    metric: ChartMetric,
) {
    svg.push_str(r#"<g class="axes">"#);
    for &t in yticks {
        let (y, label) = (px(f.y(t)), tick_label(t, step));
        let _ = write!(
            svg,
            r#"<g class="ytick" data-value="{}"><line x1="{}" x2="{}" y1="{y}" y2="{y}" class="grid-line"></line><text x="{}" y="{}" text-anchor="end" class="axis">{label}</text></g>"#,
            json_number(t),
            px(f.left),
            px(f.right),
            px(f.left - 6.0),
            px(f.y(t) + 4.0),
        );
    }
    for &c in xticks {
        let x = px(f.x(c));
        let _ = write!(
            svg,
            r##"<g class="xtick" data-value="{c}"><line x1="{x}" x2="{x}" y1="{}" y2="{}" stroke="#999"></line><text x="{x}" y="{}" text-anchor="middle" class="axis">{c}</text></g>"##,
            px(f.bottom),
            px(f.bottom + 5.0),
            px(f.bottom + 18.0),
        );
    }
    let (l, r, t, b) = (px(f.left), px(f.right), px(f.top), px(f.bottom));
    let _ = write!(
        svg,
        r##"<line x1="{l}" y1="{b}" x2="{r}" y2="{b}" stroke="#999"></line><line x1="{l}" y1="{t}" x2="{l}" y2="{b}" stroke="#999"></line><text x="{}" y="{}" text-anchor="middle" class="axis-title" id="chart-x-title">simultaneous requests (log2 scale)</text><text x="0" y="0" text-anchor="middle" class="axis-title" id="chart-y-title" transform="translate(16 {}) rotate(-90)">{}</text></g>"##,
        px((f.left + f.right) / 2.0),
        px(f.x_title_y()),
        px((f.top + f.bottom) / 2.0),
        esc(metric.label()),
    );
}

/// A legend entry: a line (or a circle, for the measured key) and a label.
fn legend_entry(svg: &mut String, (lx, ly): (f64, f64), stroke: &str, label: &str, circle: bool) {
    if circle {
        let _ = write!(
            svg,
            r##"<circle class="measured-key" cx="{}" cy="{}" r="4" fill="#fff" stroke="{stroke}" stroke-width="2"></circle>"##,
            px(lx + 11.0),
            px(ly),
        );
    } else {
        let _ = write!(
            svg,
            r#"<line x1="{}" x2="{}" y1="{y}" y2="{y}" stroke="{stroke}" stroke-width="2"></line>"#,
            px(lx),
            px(lx + 22.0),
            y = px(ly),
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{}" y="{}" class="legend-label">{}</text>"#,
        px(lx + 28.0),
        px(ly + 4.0),
        esc(label),
    );
}

/// One predicted line per context and the measured circles on top, with a
/// legend on the right (or below, on a narrow screen).
fn chart_series(
    svg: &mut String,
    f: &Frame,
    o: &Output,
    decode: &[&Cell],
    measured: &[(u64, u64, f64)],
    metric: ChartMetric,
) {
    let contexts = &o.plan.harness.contexts_tokens;
    let color = |i: usize| COLORS.get(i % COLORS.len()).copied().unwrap_or("#000");
    for (i, &ctx) in contexts.iter().enumerate() {
        let pts: Vec<String> = decode
            .iter()
            .filter(|c| c.context_tokens == ctx)
            .filter_map(|c| {
                metric
                    .of_cell(c)
                    .map(|v| format!("{},{}", px(f.x(c.concurrency)), px(f.y(v))))
            })
            .collect();
        let _ = write!(
            svg,
            r#"<g class="series" data-context="{ctx}"><polyline points="{}" fill="none" stroke="{}" stroke-width="2"></polyline>"#,
            pts.join(" "),
            color(i),
        );
        for &(_, n, v) in measured.iter().filter(|m| m.0 == ctx) {
            let _ = write!(
                svg,
                r##"<circle class="measured" cx="{}" cy="{}" r="4" fill="#fff" stroke="{}" stroke-width="2" data-context="{ctx}" data-concurrency="{n}" data-value="{}"><title>measured {} x {n}: {v:.2}</title></circle>"##,
                px(f.x(n)),
                px(f.y(v)),
                color(i),
                json_number(v),
                esc(&format_tokens(ctx)),
            );
        }
        let label = format!("context {}", format_tokens(ctx));
        legend_entry(svg, f.legend_at(i), color(i), &label, false);
        svg.push_str("</g>");
    }
    if !measured.is_empty() {
        // A gap after the contexts' entries when they are one column.
        let first = contexts.len() + usize::from(!f.narrow);
        svg.push_str(r#"<g class="legend-kinds">"#);
        legend_entry(svg, f.legend_at(first), "#888", "predicted", false);
        legend_entry(svg, f.legend_at(first + 1), "#888", "measured", true);
        svg.push_str("</g>");
    }
}

/// The chart as SVG text: read-only markup with no listeners, so it is
/// written as text and handed to the page whole
/// (`Html::from_html_unchecked`); the same nodes built by `html!` cost the
/// module 4 KB of gzipped code more.
fn chart_svg(
    o: &Output,
    f: &Frame,
    decode: &[&Cell],
    measured: &[(u64, u64, f64)],
    (yticks, step): (&[f64], f64),
    xticks: &[u64],
    (metric, title): (ChartMetric, &str),
) -> String {
    let mut svg = String::with_capacity(8192);
    let _ = write!(
        svg,
        r#"<svg id="chart" role="img" aria-labelledby="chart-title" data-metric="{}" width="100%" viewBox="0 0 {} {}" preserveAspectRatio="xMinYMin meet"><text id="chart-title" x="{}" y="22" class="chart-title">{}</text>"#,
        metric.id(),
        f.w,
        f.h,
        px(f.left),
        esc(title),
    );
    chart_axes(&mut svg, f, yticks, step, xticks, metric);
    chart_series(&mut svg, f, o, decode, measured, metric);
    svg.push_str("</svg>");
    svg
}

/// The chart of the chosen metric against concurrency: lines are core's
/// predictions, circles the measured run compared.
fn chart(o: &Output, state: &State, dispatch: &Dispatch) -> Html {
    let metric = state.chart_metric;
    let (decode, _) = decode_cells(o);
    let measured = measured_points(o, metric);
    let ymax = decode
        .iter()
        .filter_map(|c| metric.of_cell(c))
        .chain(measured.iter().map(|m| m.2))
        .fold(0.0, f64::max);
    let (yticks, step) = nice_ticks(ymax);
    let f = Frame::new(
        &o.plan.harness.concurrency,
        yticks.last().copied().unwrap_or(1.0),
        state.narrow,
        o.plan.harness.contexts_tokens.len() + 2 * usize::from(!measured.is_empty()),
    );
    let lo = o
        .plan
        .harness
        .concurrency
        .iter()
        .copied()
        .min()
        .unwrap_or(1);
    let hi = o
        .plan
        .harness
        .concurrency
        .iter()
        .copied()
        .max()
        .unwrap_or(1);
    let xticks = log2_ticks(lo, hi);
    // On a narrow screen the x axis's title alone says what it is against.
    let title = if state.narrow {
        metric.label().to_string()
    } else {
        format!("{} against simultaneous requests", metric.label())
    };
    let svg = chart_svg(
        o,
        &f,
        &decode,
        &measured,
        (&yticks, step),
        &xticks,
        (metric, &title),
    );
    let onchange = {
        let d = dispatch.clone();
        Callback::from(move |e: Event| {
            let el: HtmlSelectElement = e.target_unchecked_into();
            if let Some(m) = ChartMetric::from_id(&el.value()) {
                d.dispatch(Action::ChartMetric(m));
            }
        })
    };
    html! {
        <section id="chart-section">
            <h2>{ "Chart" }</h2>
            <label class="chart-switch">{ "metric " }
                <select id="chart-metric" {onchange}>
                    { for ChartMetric::ALL.iter().map(|m| html! {
                        <option value={m.id()} selected={*m == metric}>{ m.label() }</option>
                    }) }
                </select>
            </label>
            { Html::from_html_unchecked(AttrValue::from(svg)) }
        </section>
    }
}

fn comparison_view(c: &Result<Comparison, decodecalc_core::Error>) -> Html {
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

/// Why a dropped measured file could not be compared, beside its input.
fn measured_error(e: &decodecalc_core::Error) -> Html {
    raw(error_box("error-measured", e))
}

/// An error and its hint as markup text, in an alert box with this id.
fn error_box(id: &str, e: &decodecalc_core::Error) -> String {
    format!(
        r#"<div class="field-error" id="{id}" role="alert">{}{}</div>"#,
        esc(&e.message),
        hint_line(e)
    )
}

/// An error's hint as markup text (`hint: ...`), or nothing.
fn hint_line(e: &decodecalc_core::Error) -> String {
    e.hint
        .as_deref()
        .map(|h| format!(r#"<div class="hint">hint: {}</div>"#, esc(h)))
        .unwrap_or_default()
}

/// Markup text given to the page whole: for read-only parts with no
/// listeners, a fraction of the code the same nodes take built by `html!`.
fn raw(markup: String) -> Html {
    Html::from_html_unchecked(AttrValue::from(markup))
}

/// A `vllm bench serve --save-result` file's figures beside the prediction
/// of its workload on this setup.
fn bench_view(
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

fn plan_panel(o: &Output, dispatch: &Dispatch) -> Html {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Markup written as text escapes what a user gave: a dropped file's
    /// name and an error message quoting the input cannot add elements.
    #[test]
    fn text_markup_escapes_user_text() {
        let markup = |h: Html| match h {
            Html::VRaw(r) => r.html.to_string(),
            _ => String::new(),
        };
        let name = r#"<img src=x onerror="alert(1)">&.json"#;
        let b = markup(bench_view(&Ok(Vec::new()), Some(name)));
        assert!(
            b.contains("vllm bench serve: &lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;.json against"),
            "{b}"
        );
        assert!(!b.contains("<img"), "{b}");
        let e = decodecalc_core::Error::new("bad <b>value</b>").with_hint("give \"1\" & more");
        let m = markup(measured_error(&e));
        assert_eq!(
            m,
            r#"<div class="field-error" id="error-measured" role="alert">bad &lt;b&gt;value&lt;/b&gt;<div class="hint">hint: give &quot;1&quot; &amp; more</div></div>"#
        );
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        let (t, step) = nice_ticks(1234.0);
        assert_eq!(step, 500.0);
        assert_eq!(t, vec![0.0, 500.0, 1000.0, 1500.0]);
        let (t, step) = nice_ticks(0.8);
        assert_eq!((t.len(), step), (5, 0.2));
        assert_eq!(tick_label(0.4, step), "0.4");
        assert_eq!(nice_ticks(0.0).0.last().copied(), Some(1.0));
        assert_eq!(log2_ticks(1, 128), vec![1, 2, 4, 8, 16, 32, 64, 128]);
        assert_eq!(log2_ticks(3, 3), vec![3]);
        assert_eq!(log2_ticks(5, 7), vec![5, 7]);
    }
}
