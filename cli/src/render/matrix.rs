//! The matrix: its table (compact and wide), header, legend, the error
//! bands' words and the JSON form.

use super::*;

#[derive(Serialize)]
pub(super) struct MatrixJson<'a> {
    scenario: &'a str,
    vllm_version: String,
    model: &'a str,
    gpu: &'a str,
    workload: decodecalc_api::harness::Workload,
    max_tokens: u64,
    block_size_tokens: u64,
    num_blocks: u64,
    kv_cache_tokens: u64,
    calibration: &'a str,
    error_bands: &'a decodecalc_api::scenario::ErrorBands,
    cells: &'a [decodecalc_api::matrix::Cell],
}

/// The status as the table says it: the harness's rule by name.
/// The engine's own verdict on a decode cell: "all" run at once, or how many.
pub(super) fn engine_words(c: &Cell) -> String {
    if c.engine_running_requests >= c.concurrency {
        "all".into()
    } else {
        format!("{} of {}", c.engine_running_requests, c.concurrency)
    }
}

/// The lines above a matrix: what runs where, the KV cache, the workload.
pub(super) fn matrix_header(plan: &Plan, cap: &Capacity, m: &Matrix) -> String {
    format!(
        "{} | vLLM {} | calibration {} | scenario {}\nKV cache {} tokens: {} blocks of {} tokens\n{}\n\n",
        plan.setup_title(),
        plan.engine.vllm_version,
        m.calibration,
        m.scenario,
        grouped(cap.kv_cache_tokens),
        grouped(cap.num_blocks),
        grouped(cap.block_size_tokens),
        m.workload.describe(plan.harness.max_tokens),
    )
}

/// The lines under a matrix: what each status and column means here.
pub(super) fn matrix_legend(plan: &Plan, cap: &Capacity, m: &Matrix) -> String {
    use decodecalc_api::harness::Workload;
    let meaning = |s: Status| {
        format!(
            "{}: {}\n",
            s.word(),
            s.meaning(plan.harness.max_tokens, cap.kv_cache_tokens)
        )
    };
    let rule = match m.workload {
        Workload::Harness => meaning(Status::OverCapacity)
            + "Engine runs: how many of the C requests vLLM itself would run at once, whatever the harness decides\n",
        Workload::Distinct => meaning(Status::Queued),
    };
    format!(
        "\n{rule}TTFT cold: every prompt prefilled whole (distinct prompts); TTFT cached: the prompt already in the prefix cache (the harness's, after its scout)\n± : 90% of held-out figures fall within this of the prediction (bands below)\n"
    )
}

pub fn matrix(
    plan: &Plan,
    cap: &Capacity,
    m: &Matrix,
    format: Format,
    wide: bool,
) -> Result<String, Error> {
    if format == Format::Json {
        return json(&MatrixJson {
            scenario: &m.scenario,
            vllm_version: plan.engine.vllm_version.to_string(),
            model: &plan.model.id,
            gpu: &plan.gpu.id,
            workload: m.workload,
            max_tokens: plan.harness.max_tokens,
            block_size_tokens: cap.block_size_tokens,
            num_blocks: cap.num_blocks,
            kv_cache_tokens: cap.kv_cache_tokens,
            calibration: &m.calibration,
            error_bands: &m.error_bands,
            cells: &m.cells,
        });
    }
    let mut out = String::new();
    if format == Format::Table {
        out.push_str(&matrix_header(plan, cap, m));
    }
    if format == Format::Table && !wide {
        out.push_str(&matrix_compact(m));
    } else {
        out.push_str(&emit(&matrix_wide(m), format)?);
    }
    if format == Format::Table {
        out.push_str(&matrix_legend(plan, cap, m));
        out.push_str(&bands_text(&m.error_bands));
    }
    Ok(out)
}

/// Every column, one row per cell (`--wide`, CSV, Markdown).
pub(super) fn matrix_wide(m: &Matrix) -> Table {
    let mut t = Table::new(&[
        ("Phase", false),
        ("Context", true),
        ("Requests at once", true),
        ("Status", false),
        ("Engine runs", true),
        ("Total tok/s", true),
        ("±", true),
        ("Per request tok/s", true),
        ("Time between tokens ms", true),
        ("± ", true),
        ("TTFT cold ms", true),
        ("TTFT cached ms", true),
        ("Average active requests", true),
        ("Output tokens", true),
        ("Measured for s", true),
        ("KV blocks needed", true),
        ("KV blocks usable", true),
    ]);
    let num = |v: Option<f64>, digits: usize| v.map_or(String::new(), |x| format!("{x:.digits$}"));
    for c in &m.cells {
        let mut row = vec![
            match c.phase {
                Phase::Prefill => "Prefill".into(),
                Phase::Decode => "Sustained decode".into(),
            },
            format_tokens(c.context_tokens),
            c.concurrency.to_string(),
            c.status.name().into(),
            c.engine_running_requests.to_string(),
        ];
        row.extend(speed_cells(c, num));
        row.extend([
            num(c.avg_active_requests, 2),
            num(c.output_tokens, 0),
            num(c.measured_s, 1),
            grouped(c.blocks_needed),
            grouped(c.usable_blocks),
        ]);
        t.push(row);
    }
    t
}

/// A cell's speed columns, from total tok/s to the cached TTFT, each
/// number written by `f` (digits after the point), with their bands.
pub(super) fn speed_cells(c: &Cell, f: impl Fn(Option<f64>, usize) -> String) -> Vec<String> {
    let bands = c.error_band.as_ref();
    vec![
        f(c.total_tok_s, 1),
        band_cell(bands.and_then(|b| b.throughput.as_ref())),
        f(c.per_request_tok_s, 1),
        f(c.tbt_ms, 1),
        band_cell(bands.and_then(|b| b.tpot.as_ref())),
        f(c.ttft_cold_ms, 0),
        f(c.ttft_cached_ms, 0),
    ]
}

/// The default text: the prefill rows, then the decode grid, in columns a
/// 120-column terminal holds (`--wide` for every column).
pub(super) fn matrix_compact(m: &Matrix) -> String {
    // A prefill row's TTFT is its prompt over its prefill speed: the
    // prefill band is the one measured on such rows.
    let prefill_band = band_cell(m.error_bands.prefill.as_ref());
    let mut out = String::new();
    let prefill: Vec<_> = m
        .cells
        .iter()
        .filter(|c| c.phase == Phase::Prefill)
        .collect();
    if !prefill.is_empty() {
        let mut t = Table::new(&[
            ("Prefill context", true),
            ("Prompt tokens", true),
            ("Prefill tok/s", true),
            ("TTFT cold ms", true),
            ("±", true),
        ]);
        for c in prefill {
            t.push(vec![
                format_tokens(c.context_tokens),
                grouped(c.prompt_tokens),
                opt_grouped(c.total_tok_s, 1),
                opt_grouped(c.ttft_cold_ms, 0),
                prefill_band.clone(),
            ]);
        }
        out.push_str(&t.text());
        out.push('\n');
    }
    let mut t = Table::new(&[
        ("Context", true),
        ("Requests", true),
        ("Status", false),
        ("Engine runs", true),
        ("Total tok/s", true),
        ("±", true),
        ("Req tok/s", true),
        ("TBT ms", true),
        ("± ", true),
        ("TTFT cold ms", true),
        ("TTFT cached ms", true),
    ]);
    for c in m.cells.iter().filter(|c| c.phase == Phase::Decode) {
        let mut row = vec![
            format_tokens(c.context_tokens),
            c.concurrency.to_string(),
            c.status.word().into(),
            engine_words(c),
        ];
        row.extend(speed_cells(c, opt_grouped));
        t.push(row);
    }
    out.push_str(&t.text());
    out
}

/// A band in words: "+-9% median, +-21% p90 (leave-GPU-out, 147 figures)".
pub fn band_words(b: &decodecalc_api::scenario::Band) -> String {
    let regime = b
        .regime
        .map_or(String::new(), |r| format!(", {}", r.label()));
    format!(
        "+-{:.0}% median, +-{:.0}% p90 ({}, {} figures{regime})",
        b.median_abs_pct,
        b.p90_abs_pct,
        hold_out_words(b.hold_out),
        b.figures
    )
}

/// What a hold-out says about the prediction it bands.
pub fn hold_out_words(h: decodecalc_api::bands::HoldOut) -> &'static str {
    use decodecalc_api::bands::HoldOut;
    match h {
        HoldOut::LeaveCellOut => "leave-cell-out on the measured run",
        HoldOut::LeaveFamilyOut => "leave-model-family-out: a model the fit never saw",
        HoldOut::LeaveGpuOut => "leave-GPU-out: a GPU the fit never saw",
        HoldOut::LeaveClassOut => "leave-class-out: a GPU class the fit never saw",
        HoldOut::UnfittedMoeRuns => "MoE serving runs no fit saw",
        HoldOut::SpeculativeRuns => "published speculative runs, each left out of the fit",
        HoldOut::SpeculativeClassOut => {
            "published speculative runs, the pass overhead from other GPU classes"
        }
    }
}

/// The error bands as lines under a table.
pub(super) fn bands_text(b: &decodecalc_api::scenario::ErrorBands) -> String {
    let mut out = String::from("\n");
    let moe = b.hold_out == Some(decodecalc_api::bands::HoldOut::UnfittedMoeRuns);
    if let Some(class) = &b.class {
        out.push_str(&if moe {
            format!("Error bands: MoE serving runs no fit saw (calibration {class} was fitted on no MoE run); held-out predictions' absolute errors.\n")
        } else {
            format!(
                "Error bands: calibration {class} ({} runs); held-out predictions' absolute errors.\n",
                b.runs
            )
        });
    }
    let none = if moe {
        "none measured (the MoE runs no fit saw publish no such figure)"
    } else {
        "none measured (first-principles or uncross-validated parameters)"
    };
    use decodecalc_api::bands::Figure;
    for (what, figure, band) in [
        ("time between tokens / TPOT", Figure::Tpot, &b.tpot),
        ("throughput", Figure::Throughput, &b.throughput),
        ("TTFT", Figure::Ttft, &b.ttft),
        ("prefill tok/s", Figure::Prefill, &b.prefill),
    ] {
        out.push_str(&match band {
            // Another figure's errors stand in: say whose.
            Some(x) if x.measured_as != figure => format!(
                "Error band, {what}: {}'s, {}\n",
                x.measured_as.label(),
                band_words(x)
            ),
            Some(x) => format!("Error band, {what}: {}\n", band_words(x)),
            None => format!("Error band, {what}: {none}\n"),
        });
    }
    for x in &b.tpot_by_regime {
        out.push_str(&format!("  time between tokens, {}\n", band_words(x)));
    }
    out
}
