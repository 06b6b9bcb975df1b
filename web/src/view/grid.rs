//! The decode grid, its prefill row, a cell's details and the status
//! marks.

use super::*;

pub(super) fn prefill_row(o: &Output) -> Html {
    let rows: Vec<&Cell> = o
        .matrix
        .cells
        .iter()
        .filter(|c| c.phase == Phase::Prefill)
        .collect();
    if rows.is_empty() {
        return html! {};
    }
    let mut t = Markup::new();
    t.open("section")
        .leaf("h2", "Prefill")
        .open("table")
        .attr("id", "prefill")
        .open("tr")
        .leaf("th", "context");
    for c in &rows {
        t.leaf("th", format_tokens(c.context_tokens));
    }
    t.close().open("tr").leaf("th", "prompt tok/s");
    for c in &rows {
        t.open("td")
            .attr("data-context", c.context_tokens)
            .attr(
                "data-prefill-tok-s",
                c.total_tok_s.map(json_number).unwrap_or_default(),
            )
            .text(c.total_tok_s.map(|v| grouped_f(v, 0)).unwrap_or_default())
            .open("div")
            .attr("class", "small")
            .text(
                c.ttft_cold_ms
                    .map(|v| format!("{} ms TTFT cold", grouped_f(v, 0)))
                    .unwrap_or_default(),
            )
            .close()
            .close();
    }
    t.html()
}

/// The cell's background: core's heat-map colour (`Status::heat_rgb`).
pub(super) fn fill(c: &Cell, max_total: f64) -> String {
    let (r, g, b) = c.status.heat_rgb(c.total_tok_s, max_total);
    format!("background-color:rgb({r},{g},{b})")
}

/// The decode cells and the largest total tok/s among them.
pub(super) fn decode_cells(o: &Output) -> (Vec<&Cell>, f64) {
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

/// The measured run's cell at (context, concurrency), when one is compared.
pub(super) fn compared(o: &Output, ctx: u64, n: u64) -> Option<&CellComparison> {
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
pub(super) fn grid_cell(t: &mut Markup, c: &Cell, o: &Output, max_total: f64) {
    let (ctx, n) = (c.context_tokens, c.concurrency);
    let cmp = compared(o, ctx, n);
    let (symbol, word) = (c.status.symbol(), c.status.word());
    let number = |v: Option<f64>| v.map(json_number);
    t.open("td")
        .attr("class", "cell")
        .attr("tabindex", 0)
        .attr("style", fill(c, max_total))
        .attr("title", tooltip(c))
        .attr(
            "aria-label",
            format_args!("{} x {n}: {word}", format_tokens(ctx)),
        )
        .attr("data-context", ctx)
        .attr("data-concurrency", n)
        .attr("data-status", c.status.name())
        .attr_opt("data-total-tok-s", number(c.total_tok_s))
        .attr_opt(
            "data-measured-total-tok-s",
            number(cmp.and_then(|x| x.measured.total_tok_s)),
        )
        .attr_opt(
            "data-error-pct",
            number(cmp.and_then(|x| x.error_pct.total_tok_s)),
        )
        .attr_opt(
            "data-band-pct",
            number(
                c.error_band
                    .and_then(|b| b.throughput)
                    .map(|b| b.median_abs_pct),
            ),
        )
        .open("span")
        .attr("class", "st");
    if c.status == Status::Valid {
        t.text(symbol);
    } else {
        t.text(format_args!("{symbol} {word}"));
    }
    t.close();
    if let (false, Some(tps)) = (c.status == Status::OverCapacity, c.total_tok_s) {
        t.open("span")
            .attr("class", "tps")
            .text(grouped_f(tps, 1))
            .close()
            .open("div")
            .attr("class", "small band")
            // The held-out band of this cell's throughput (its p90).
            .text(
                c.error_band
                    .and_then(|b| b.throughput)
                    .map(|b| format!("±{:.0}% (p90 held out)", b.p90_abs_pct))
                    .unwrap_or_default(),
            )
            .close()
            .open("div")
            .attr("class", "small ttft")
            // Which TTFT (cached or cold) the grid's title says.
            .text(
                c.ttft_seen(o.matrix.workload)
                    .map(|(v, _)| format!("{} ms TTFT", grouped_f(v, 0)))
                    .unwrap_or_default(),
            )
            .close();
    }
    if let Some(x) = cmp {
        t.open("div").attr("class", "small cmp");
        match (x.measured.total_tok_s, x.error_pct.total_tok_s) {
            (Some(m), Some(e)) => {
                t.text(format_args!("measured {m:.1}"))
                    .close()
                    .open("div")
                    .attr("class", "small err")
                    .text(format_args!("error {e:+.1}%"));
            }
            _ => {
                t.text(format_args!("measured {}", x.measured_status.symbol()));
            }
        }
        t.close();
    }
    t.close();
}

/// The grid cell an event happened in, as (context, concurrency): the
/// nearest `td.cell` around its target, by its data attributes.
pub(super) fn cell_of(e: &Event) -> Option<(u64, u64)> {
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
pub(super) fn grid(o: &Output, dispatch: &Dispatch) -> Html {
    let h = &o.plan.harness;
    let (decode, max_total) = decode_cells(o);
    let compared_ok = matches!(o.comparison, Some(Ok(_)));
    let ttft = match o.matrix.workload {
        decodecalc_api::harness::Workload::Harness => "TTFT with the prompt cached",
        decodecalc_api::harness::Workload::Distinct => "TTFT cold (each prompt prefilled whole)",
    };
    let title = if compared_ok {
        format!("Sustained decode: total tok/s predicted, measured, error; {ttft}")
    } else {
        format!("Sustained decode: total tok/s; {ttft}")
    };
    let mut t = Markup::new();
    t.open("table")
        .attr("id", "matrix")
        .open("thead")
        .open("tr")
        .open("th")
        .attr("title", "rows: context; columns: simultaneous requests")
        .text("context \\ requests")
        .close();
    for c in &h.concurrency {
        t.leaf("th", c);
    }
    t.close().close().open("tbody");
    for &ctx in &h.contexts_tokens {
        t.open("tr").leaf("th", format_tokens(ctx));
        for c in h.concurrency.iter().filter_map(|&n| {
            decode
                .iter()
                .find(|c| c.context_tokens == ctx && c.concurrency == n)
        }) {
            grid_cell(&mut t, c, o, max_total);
        }
        t.close();
    }
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
    let mut legend = Markup::new();
    legend
        .open("p")
        .attr("class", "legend")
        .attr("id", "status-legend");
    for s in [Status::Valid, Status::Queued, Status::OverCapacity] {
        // The swatch: the status's colour at 60% of the largest throughput.
        let (r, g, b) = s.heat_rgb(Some(0.6), 1.0);
        legend
            .open("span")
            .attr("data-status", s.name())
            .open("span")
            .attr("class", "sw")
            .attr("style", format_args!("background-color:rgb({r},{g},{b})"))
            .close()
            .text(format_args!(
                " {} {}: {} ",
                s.symbol(),
                s.word(),
                s.meaning(o.plan.harness.max_tokens, o.capacity.kv_cache_tokens)
            ))
            .close();
    }
    html! {
        <section>
            <h2>{ title }</h2>
            <div class="grid" onmouseover={hover} onfocusin={focus} onclick={click} onkeydown={key}>
                { t.html() }
            </div>
            { legend.html() }
            { compare_line(o) }
        </section>
    }
}

/// One sentence under the grid: the measured run compared and core's mean
/// absolute percentage error per metric.
pub(super) fn compare_line(o: &Output) -> Html {
    let Some(Ok(c)) = &o.comparison else {
        return html! {};
    };
    let m = &c.summary.metrics;
    let part = |what: &str, x: &Metric| format!("{what} {:.2}% ({} cells)", x.mape_pct, x.n);
    let name = o.measured_name.as_deref().unwrap_or("the measured run");
    Markup::new()
        .open("p")
        .attr("id", "compare-line")
        .attr("class", "note")
        .text(format_args!("Each cell: predicted (bold), measured, and the error of the prediction (predicted / measured - 1). Against {name}: MAPE {}, {}, {}, {}; statuses agree in {} of {} cells.",
            part("total tok/s", &m.total_tok_s), part("per-request tok/s", &m.per_request_tok_s),
            part("time between tokens", &m.tbt_ms), part("TTFT", &m.ttft_ms),
            c.summary.status_agreement, c.summary.cells))
        .html()
}

pub(super) fn tooltip(c: &Cell) -> String {
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
        let part = |what: &str, x: Option<decodecalc_api::scenario::Band>| {
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

pub(super) fn details(o: &Output, state: &State) -> Html {
    let Some((ctx, n)) = state.view.focused else {
        return html! {
            <p id="cell-details" class="note">{ "Hover over, click or focus a cell (Tab to it, Enter) for its details." }</p>
        };
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
    Markup::new()
        .open("p")
        .attr("id", "cell-details")
        .text(format_args!("{} x {n}: {why}", format_tokens(ctx)))
        .html()
}
