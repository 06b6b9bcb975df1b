//! Markup for core's values, a file per panel: `form` (fields, file
//! inputs, groups), `grid` (the decode grid, the prefill row, a cell's
//! details), `memory` (the memory bar, error bands, a start-up log's
//! check), `chart`, `panels` (comparison, `vllm bench serve`, plan); the
//! page's frame and the error boxes here; `markup`, the one writer of
//! markup text. Only layout arithmetic (pixel positions, percentages of a
//! bar, colours).

use crate::{
    engine_fields, group_fields, Action, ChartMetric, FieldError, HubFetch, Output, State,
    ESSENTIALS, PLAN,
};
use decodecalc_api::breakdown::{grouped, grouped_f, Amount, Segment};
use decodecalc_api::flags::FlagGroup;
use decodecalc_api::matrix::{Cell, Phase, Status};
use decodecalc_api::measured::FigureComparison;
use decodecalc_api::measured::{CellComparison, Comparison, Metric};
use decodecalc_api::units::{format_tokens, gib};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

mod chart;
mod form;
mod grid;
mod markup;
mod memory;
mod panels;

use chart::*;
use form::*;
use grid::*;
use markup::Markup;
use memory::*;
use panels::*;

pub(super) type Dispatch = UseReducerDispatcher<State>;

pub fn page(state: &State, dispatch: Dispatch, out: &Result<Output, FieldError>) -> Html {
    html! {
        <main data-computes={crate::computes().to_string()}>
            <header>
                <h1>{ "decodecalc" }</h1>
                <p class="sub" id="modelled-version">{ format!(
                    "vLLM {} capacity and decode calculator, offline",
                    out.as_ref().map_or(decodecalc_api::version::MODELLED, |o| o.plan.engine.vllm_version)
                ) }</p>
            </header>
            <section class="form essentials" aria-label="model, GPU and workload">
                { for ESSENTIALS.iter().map(|f| field_view(f, state, &dispatch, out)) }
                { file_input("model-config", "or a model's config.json", ".json", state.inputs.model_file.as_ref().map(|m| &m.0), &dispatch, Action::ModelFile, Action::ClearModelFile) }
                { hub_input(state, &dispatch) }
            </section>
            { match out {
                Err(e) if e.field.is_none() => {
                    let mut m = Markup::new();
                    m.open("div").attr("id", "error").attr("role", "alert")
                        .text(format_args!("error: {}", e.error.message));
                    hint_line(&mut m, &e.error);
                    m.html()
                }
                Err(_) => html! { <div id="error-summary">{ "Fix the highlighted field to see the matrix." }</div> },
                Ok(o) => html! { <section class="results">{ results(o, state, &dispatch) }</section> },
            } }
            <section class="groups">
                { group("setup", "setup: launch line, start-up log, calibration", &group_fields(FlagGroup::Setup), state, &dispatch, out,
                    file_input("measured", "compare with a measured run (CSV, benchmark_results.json or vllm bench serve JSON)", ".csv,.json", state.inputs.measured.as_ref().map(|m| &m.0), &dispatch, Action::Measured, Action::ClearMeasured)) }
                { group("workload", "workload: what the benchmark harness sends", &group_fields(FlagGroup::Workload), state, &dispatch, out, html! {}) }
                { group("engine-flags", "engine flags: vllm serve", &engine_fields(), state, &dispatch, out, html! {}) }
                { group("plan", "plan: what would make a cell fit or fast", &PLAN, state, &dispatch, out, html! {}) }
            </section>
        </main>
    }
}

pub(super) fn results(o: &Output, state: &State, dispatch: &Dispatch) -> Html {
    let p = &o.plan;
    let mut head = Markup::new();
    head.open("p").attr("id", "scenario").text(format_args!(
        "{} | calibration {} | block {} tokens, {} blocks, KV cache {} tokens",
        p.setup_title(),
        p.calibration.label(),
        grouped(o.capacity.block_size_tokens),
        grouped(o.capacity.num_blocks),
        grouped(o.capacity.kv_cache_tokens)
    ));
    head.close()
        .open("p")
        .attr("id", "workload")
        .attr("class", "note")
        .text(o.matrix.workload.describe(p.harness.max_tokens))
        .close();
    if !p.warnings.is_empty() {
        head.open("ul").attr("id", "warnings");
        for w in &p.warnings {
            head.leaf("li", format_args!("warning: {w}"));
        }
        head.close();
    }
    let mut bands = Markup::new();
    bands
        .open("div")
        .attr("id", "error-bands")
        .attr("class", "note");
    error_bands(&mut bands, &p.calibration.bands());
    html! {
        <>
            { head.html() }
            // A cell's details open right under the grid, not screens below.
            { grid(o, dispatch) }
            { details(o, state) }
            { memory_bar(o) }
            { bands.html() }
            { log_check(o) }
            { prefill_row(o) }
            { chart(o, state, dispatch) }
            { for o.comparison.as_ref().map(comparison_view) }
            { for o.bench.as_ref().map(|b| bench_view(b, o.measured_name.as_deref())) }
            { plan_panel(o, dispatch) }
        </>
    }
}

/// A number exactly as the CLI's JSON writes it.
pub(super) fn json_number(v: f64) -> String {
    serde_json::to_string(&v).unwrap_or_default()
}

/// A coordinate as the chart writes it: one decimal.
pub(super) fn px(v: f64) -> String {
    format!("{v:.1}")
}

/// Why a dropped measured file could not be compared, beside its input.
pub(super) fn measured_error(e: &decodecalc_api::Error) -> Html {
    let mut m = Markup::new();
    error_box(&mut m, "error-measured", e);
    m.html()
}

/// An error and its hint in an alert box with this id.
pub(super) fn error_box(m: &mut Markup, id: &str, e: &decodecalc_api::Error) {
    m.open("div")
        .attr("class", "field-error")
        .attr("id", id)
        .attr("role", "alert")
        .text(&e.message);
    hint_line(m, e);
    m.close();
}

/// An error's hint (`hint: ...`), or nothing.
pub(super) fn hint_line(m: &mut Markup, e: &decodecalc_api::Error) {
    if let Some(h) = &e.hint {
        m.open("div")
            .attr("class", "hint")
            .text(format_args!("hint: {h}"))
            .close();
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
        let e = decodecalc_api::Error::new("bad <b>value</b>").with_hint("give \"1\" & more");
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
