//! The memory bar, the error bands and a pasted start-up log's figures
//! against the prediction.

use super::*;

/// A pasted start-up log's figures against decodecalc's, each flagged.
pub(super) fn log_check(o: &Output) -> Html {
    let figures = &o.capacity.log_check;
    if figures.is_empty() {
        return html! {};
    }
    let mut t = Markup::new();
    t.open("table")
        .attr("id", "log-check")
        .leaf("caption", "Your vLLM start-up log against the prediction")
        .open("tr");
    for head in ["figure", "logged", "decodecalc", "error", "agrees"] {
        t.leaf("th", head);
    }
    t.close();
    for f in figures {
        let agrees = if f.agrees {
            format!("yes (within {:.2}%)", f.tolerance_pct)
        } else {
            format!("NO (beyond {:.2}%)", f.tolerance_pct)
        };
        t.open("tr")
            .attr("data-figure", f.figure)
            .attr("data-logged", f.logged)
            .attr("data-predicted", f.predicted)
            .attr("data-agrees", f.agrees)
            .leaf("td", f.figure)
            .leaf("td", f.logged)
            .leaf("td", format_args!("{:.2}", f.predicted))
            .leaf("td", format_args!("{:+.2}%", f.error_pct))
            .leaf("td", agrees)
            .close();
    }
    t.html()
}

/// The calibration's held-out error bands, one sentence per figure, each
/// saying what its predictions held out.
pub(super) fn error_bands(m: &mut Markup, b: &decodecalc_api::scenario::ErrorBands) {
    use decodecalc_api::bands::HoldOut;
    let words = |x: &decodecalc_api::scenario::Band| {
        let held = match x.hold_out {
            HoldOut::LeaveCellOut => "leave-cell-out",
            HoldOut::LeaveFamilyOut => "a model family held out",
            HoldOut::LeaveGpuOut => "the GPU held out",
            HoldOut::LeaveClassOut => "the GPU class held out",
            HoldOut::UnfittedMoeRuns => "MoE serving runs no fit saw",
            HoldOut::SpeculativeRuns => "published speculative runs, each left out of the fit",
            HoldOut::SpeculativeClassOut => {
                "published speculative runs, the pass overhead from other GPU classes"
            }
        };
        format!(
            "+-{:.0}% median, +-{:.0}% p90 ({held}, {} figures)",
            x.median_abs_pct, x.p90_abs_pct, x.figures
        )
    };
    // One line per figure, then one per workload regime: which held-out
    // data each band was measured on.
    let class = b.class.as_deref().unwrap_or("none");
    let mut lines = vec![if b.hold_out == Some(HoldOut::UnfittedMoeRuns) {
        format!(
            "Error bands from MoE serving runs no fit saw (calibration {class} was fitted on no MoE run):"
        )
    } else {
        format!(
            "Error bands, calibration {class} ({} runs), measured on data the fit never saw:",
            b.runs
        )
    }];
    use decodecalc_api::bands::Figure;
    for (what, figure, band) in [
        ("time between tokens", Figure::Tpot, &b.tpot),
        ("throughput", Figure::Throughput, &b.throughput),
        ("TTFT", Figure::Ttft, &b.ttft),
    ] {
        lines.push(match band {
            // Another figure's errors stand in: say whose.
            Some(x) if x.measured_as != figure => {
                format!("{what}: {}'s, {}", x.measured_as.label(), words(x))
            }
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
    m.leaf("p", head).open("ul");
    for l in rest {
        m.leaf("li", l);
    }
    m.close();
}

/// The GPU's memory as a bar of core's breakdown rows that are segments
/// ([`decodecalc_api::breakdown`]): each named in its hover title with its
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
    let mut t = Markup::new();
    t.open("section")
        .attr("id", "memory")
        .leaf("h2", "GPU memory")
        .open("div")
        .attr("class", "bar");
    for (seg, bytes, title) in &segments {
        let pct = 100.0 * *bytes as f64 / total;
        let label = if pct > 7.0 {
            format!("{} {:.2} GiB", seg.label(), gib(*bytes))
        } else {
            String::new()
        };
        t.open("div")
            .attr("class", "seg")
            .attr("data-segment", seg.id())
            .attr("style", format_args!("width:{pct:.3}%"))
            .attr("title", title)
            .attr("aria-label", title)
            .attr("data-bytes", bytes)
            .text(label)
            .close();
    }
    t.close()
        .open("p")
        .attr("class", "legend")
        .attr("id", "memory-legend");
    for (seg, bytes, title) in &segments {
        t.open("span")
            .attr("title", title)
            .attr("data-segment", seg.id())
            .open("span")
            .attr("class", "sw")
            .close()
            .text(format_args!(" {} {:.2} GiB ", seg.label(), gib(*bytes)))
            .close();
    }
    t.close().open("p").attr("class", "note").text(format_args!(
        "{:.2} GiB total, {:.2} GiB requested. Block size {} tokens; blocks per request at {}.",
        gib(c.total_bytes),
        gib(c.requested_bytes),
        grouped(c.block_size_tokens),
        per_request.join(", "),
    ));
    // The checkpoint's own size beside the computed weights, where known.
    for r in rows.iter().filter(|r| r.name == "checkpoint_bytes") {
        if let Amount::Bytes(b) = r.amount {
            t.close()
                .open("p")
                .attr("class", "note")
                .attr("id", "checkpoint")
                .attr("data-bytes", b)
                .text(format_args!("Checkpoint {:.2} GiB: {}.", gib(b), r.note));
        }
    }
    t.html()
}
