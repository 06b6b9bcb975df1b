//! The memory bar, the error bands and a pasted start-up log's figures
//! against the prediction.

use super::*;

/// A pasted start-up log's figures against decodecalc's, each flagged.
pub(super) fn log_check(o: &Output) -> Html {
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
pub(super) fn error_bands(b: &decodecalc_core::scenario::ErrorBands) -> String {
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
pub(super) fn memory_bar(o: &Output) -> Html {
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
