//! `bench-serve`: predicted against measured figures of a `vllm bench
//! serve` run.

use super::*;

/// `decodecalc bench-serve`: the figures as `vllm bench serve` prints them,
/// with the error band of the calibration in use; beside a `--save-result`
/// file's, when given.
pub fn bench_serve(
    plan: &Plan,
    w: &decodecalc_api::serve::Workload,
    r: &decodecalc_api::serve::ServeResult,
    comparison: Option<&[decodecalc_api::measured::FigureComparison]>,
    format: Format,
) -> Result<String, Error> {
    #[derive(Serialize)]
    struct Out<'a> {
        model: &'a str,
        gpu: &'a str,
        vllm_version: String,
        calibration: String,
        workload: &'a decodecalc_api::serve::Workload,
        predicted: &'a decodecalc_api::serve::ServeResult,
        tpot_band: Option<decodecalc_api::scenario::Band>,
        ttft_band: Option<decodecalc_api::scenario::Band>,
        throughput_band: Option<decodecalc_api::scenario::Band>,
        comparison: Option<&'a [decodecalc_api::measured::FigureComparison]>,
    }
    let c = &plan.calibration;
    if format == Format::Json {
        return json(&Out {
            model: &plan.model.name,
            gpu: &plan.gpu.name,
            vllm_version: plan.engine.vllm_version.to_string(),
            calibration: c.label(),
            workload: w,
            predicted: r,
            tpot_band: c.band_in(decodecalc_api::bands::Figure::Tpot, None),
            ttft_band: c.band_in(decodecalc_api::bands::Figure::Ttft, None),
            throughput_band: c.band_in(decodecalc_api::bands::Figure::Throughput, None),
            comparison,
        });
    }
    // What was predicted, named above the figures (without --model or
    // --gpu that is a preset the user did not choose).
    let head = if format == Format::Table {
        format!(
            "{} | vLLM {} | calibration {}\n{}\n\n",
            plan.setup_title(),
            plan.engine.vllm_version,
            c.label(),
            // `vllm bench serve --dataset-name random`: every prompt its own.
            decodecalc_api::harness::Workload::Distinct.describe(w.output_tokens),
        )
    } else {
        String::new()
    };
    if let Some(cmp) = comparison {
        return Ok(head + &emit(&comparison_table(cmp), format)?);
    }
    let mut out = head + &emit(&predicted_table(w, r), format)?;
    if format == Format::Table {
        out.push_str(&format!(
            "\n{}, vLLM {} `vllm serve` defaults unless flagged; calibration {}.\n",
            plan.setup_title(),
            plan.engine.vllm_version,
            c.label()
        ));
        out.push_str(&bands_text(&c.bands()));
    }
    Ok(out)
}

/// Measured against predicted, a row per figure the result file has.
fn comparison_table(cmp: &[decodecalc_api::measured::FigureComparison]) -> Table {
    let mut t = Table::new(&[
        ("Figure", false),
        ("Measured", true),
        ("Predicted", true),
        ("Error %", true),
    ]);
    for f in cmp {
        t.push(vec![
            f.figure.into(),
            format!("{:.2}", f.measured),
            format!("{:.2}", f.predicted),
            format!("{:+.1}", f.error_pct),
        ]);
    }
    t
}

/// The predicted figures, named and ordered as `vllm bench serve` prints them.
fn predicted_table(
    w: &decodecalc_api::serve::Workload,
    r: &decodecalc_api::serve::ServeResult,
) -> Table {
    let mut t = Table::new(&[("Figure", false), ("Predicted", true)]);
    let row = |t: &mut Table, name: &str, v: String| t.push(vec![name.into(), v]);
    let conc = match w.arrival {
        decodecalc_api::serve::Arrival::Serve {
            max_concurrency: Some(c),
            ..
        } => c.to_string(),
        _ => "none".into(),
    };
    let two = |x: f64| format!("{x:.2}");
    for (name, value) in [
        ("Successful requests", r.completed.to_string()),
        ("Maximum request concurrency", conc),
        (
            "Requests the engine runs at once",
            r.max_running.to_string(),
        ),
        ("Benchmark duration (s)", two(r.duration_s)),
        ("Total input tokens", r.total_input_tokens.to_string()),
        ("Total generated tokens", r.total_output_tokens.to_string()),
        ("Request throughput (req/s)", two(r.request_throughput)),
        ("Output token throughput (tok/s)", two(r.output_throughput)),
        (
            "Total token throughput (tok/s)",
            two(r.total_token_throughput),
        ),
    ] {
        row(&mut t, name, value);
    }
    for (name, s) in [
        ("TTFT", &r.ttft),
        ("TPOT", &r.tpot),
        ("ITL", &r.itl),
        ("E2EL", &r.e2el),
    ] {
        row(
            &mut t,
            &format!("Mean {name} (ms)"),
            format!("{:.2}", s.mean_ms),
        );
        row(
            &mut t,
            &format!("Median {name} (ms)"),
            format!("{:.2}", s.median_ms),
        );
        row(
            &mut t,
            &format!("P99 {name} (ms)"),
            format!("{:.2}", s.p99_ms),
        );
    }
    t
}
