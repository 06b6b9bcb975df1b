//! A measured run against the prediction, and the one-run calibration
//! report.

use super::*;

/// `decodecalc calibrate`'s report.
pub fn calibration(
    report: &FitReport,
    comparison: &Comparison,
    plan: &Plan,
    format: Format,
    rows: &[MeasuredRow],
) -> Result<String, Error> {
    #[derive(Serialize)]
    struct Out<'a> {
        fit: &'a FitReport,
        prompt_relation: Option<(f64, f64)>,
        summary: &'a decodecalc_api::measured::Summary,
        cross_validation: &'a Option<decodecalc_api::measured::Metrics>,
    }
    let relation = prompt_relation(rows);
    if format == Format::Json {
        return json(&Out {
            fit: report,
            prompt_relation: relation,
            summary: &comparison.summary,
            cross_validation: &comparison.cross_validation,
        });
    }
    let mut t = Table::new(&[
        ("Parameter", false),
        ("Value", true),
        ("Std error", true),
        ("Bounds", false),
        ("Pinned down", false),
    ]);
    for p in &report.parameters {
        t.push(vec![
            p.name.into(),
            format!("{:.4}", p.value),
            p.std_error.map_or("-".into(), |e| format!("{e:.4}")),
            format!("[{}, {}]", p.lower, p.upper),
            match p.why_not {
                None => "yes".into(),
                Some(NotPinned::Unmoved) => {
                    "no: no measured figure depends on it: it stays at its prior".into()
                }
                Some(NotPinned::AtBound { bound }) => {
                    format!("no: at its bound ({bound}): the data push it there rather than pin it")
                }
                Some(NotPinned::Loose) => {
                    "no: the data leave it loose (standard error over half its value)".into()
                }
            },
        ]);
    }
    let mut out = String::new();
    if format == Format::Table {
        out.push_str(&format!(
            "Calibration of {} ({} residuals, {} evaluations, {})\n\n",
            plan.setup_title(),
            report.residuals,
            report.evaluations,
            report.termination
        ));
    }
    out.push_str(&emit(&t, format)?);
    if format == Format::Table {
        out.push('\n');
        out.push_str(
            &metrics_table(
                &comparison.summary.metrics,
                comparison.cross_validation.as_ref(),
            )
            .text(),
        );
        if let Some((scale, extra)) = relation {
            out.push_str(&format!(
                "\nHarness prompt size from the prefill rows: {scale:.5} x context + {extra:.0} tokens \
                 (scenario [harness] prompt_scale, prompt_extra_tokens; in use: {} and {})\n",
                plan.harness.prompt_scale, plan.harness.prompt_extra_tokens
            ));
        }
    }
    Ok(out)
}

pub(super) fn metrics_table(m: &Metrics, cv: Option<&Metrics>) -> Table {
    let mut t = Table::new(&[
        ("Metric", false),
        ("n", true),
        ("MAPE %", true),
        ("Max abs %", true),
        ("Leave-one-out MAPE %", true),
        ("Leave-one-out max %", true),
    ]);
    type Pick = fn(&Metrics) -> Metric;
    let rows: [(&str, Pick); 6] = [
        ("total_tok_s", |m| m.total_tok_s),
        ("per_request_tok_s", |m| m.per_request_tok_s),
        ("tbt_ms", |m| m.tbt_ms),
        ("ttft_ms", |m| m.ttft_ms),
        ("prefill_tok_s", |m| m.prefill_tok_s),
        ("avg_active_requests", |m| m.avg_active_requests),
    ];
    for (name, get) in rows {
        let a = get(m);
        let b = cv.map(get);
        t.push(vec![
            name.into(),
            a.n.to_string(),
            format!("{:.2}", a.mape_pct),
            format!("{:.2}", a.max_abs_pct),
            b.map_or(String::new(), |b| format!("{:.2}", b.mape_pct)),
            b.map_or(String::new(), |b| format!("{:.2}", b.max_abs_pct)),
        ]);
    }
    t
}

/// `decodecalc compare`'s output.
pub fn comparison(c: &Comparison, format: Format, wide: bool) -> Result<String, Error> {
    if format == Format::Json {
        return json(c);
    }
    let compact = format == Format::Table && !wide;
    let mut columns = vec![("Phase", false), ("Context", true), ("Requests", true)];
    // Each figure: measured, (predicted,) error; the compact table leaves
    // out requests active (the status says whether all ran).
    let figures: &[&str] = if compact {
        &["Total tok/s", "Per request", "TBT ms", "TTFT ms"]
    } else {
        &["Total tok/s", "Per request", "TBT ms", "TTFT ms", "Active"]
    };
    if compact {
        columns.push(("Status", false));
        for &f in figures {
            columns.extend([(f, true), ("err %", true)]);
        }
    } else {
        columns.extend([("Status measured", false), ("Status predicted", false)]);
        for &f in figures {
            columns.extend([(f, true), ("predicted", true), ("err %", true)]);
        }
    }
    let mut t = Table::new(&columns);
    let f = |v: Option<f64>, d: usize| v.map_or(String::new(), |x| format!("{x:.d$}"));
    let e = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x:+.1}"));
    for cell in &c.cells {
        let (m, p, err) = (&cell.measured, &cell.predicted, &cell.error_pct);
        let mut row = vec![
            cell.phase.name().into(),
            format_tokens(cell.context_tokens),
            cell.concurrency.to_string(),
        ];
        let (ms, ps) = (cell.measured_status, cell.predicted_status);
        if compact {
            row.push(if ms == ps {
                ms.name().to_string()
            } else {
                format!("{} (predicted {})", ms.name(), ps.name())
            });
        } else {
            row.extend([ms.name().to_string(), ps.name().to_string()]);
        }
        for (measured, predicted, error, digits) in [
            (m.total_tok_s, p.total_tok_s, err.total_tok_s, 1),
            (
                m.per_request_tok_s,
                p.per_request_tok_s,
                err.per_request_tok_s,
                1,
            ),
            (m.tbt_ms, p.tbt_ms, err.tbt_ms, 1),
            (m.ttft_ms, p.ttft_ms, err.ttft_ms, 0),
            (
                m.avg_active_requests,
                p.avg_active_requests,
                err.avg_active_requests,
                2,
            ),
        ]
        .into_iter()
        .take(figures.len())
        {
            row.push(f(measured, digits));
            if !compact {
                row.push(f(predicted, digits));
            }
            row.push(e(error));
        }
        t.push(row);
    }
    let mut out = String::new();
    if format == Format::Table {
        out.push_str(&format!(
            "{} | vLLM {} | calibration {} | statuses {}/{} agree\nworkload harness (the measured run's): one shared prompt cached by a scout, so TTFT is the cached one\nerr % = predicted / measured - 1{}\n\n",
            c.scenario,
            c.vllm_version,
            c.calibration,
            c.summary.status_agreement,
            c.summary.cells,
            if compact { "; --wide adds the predicted figures" } else { "" }
        ));
    }
    out.push_str(&emit(&t, format)?);
    if format != Format::Csv {
        out.push('\n');
        let m = metrics_table(&c.summary.metrics, c.cross_validation.as_ref());
        out.push_str(&emit(&m, format)?);
    }
    Ok(out)
}
