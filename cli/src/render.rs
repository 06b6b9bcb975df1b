//! Rendering core's results. No arithmetic beyond unit conversion for display.

use crate::args::{ExplainCell, Format};
use crate::cmd::presets::PresetsArgs;
use crate::table::Table;
use decodecalc_core::allocator::RunningLimit;
use decodecalc_core::breakdown::{grouped, grouped_f, Amount, BreakdownRow};
use decodecalc_core::compare::{Comparison, Metric, Metrics};
use decodecalc_core::harness::check_model_len;
use decodecalc_core::matrix::{Cell, Matrix, Phase, Predictor, Status};
use decodecalc_core::measured::MeasuredRow;
use decodecalc_core::presets::{self, Kind};
use decodecalc_core::scenario::{Capacity, Plan};
use decodecalc_core::timing::{prefill_row, DecodeTiming};
use decodecalc_core::units::{format_tokens, gib, mib, MIB};
use decodecalc_core::Error;
use decodecalc_fit::{prompt_relation, FitReport, NotPinned};
use serde::Serialize;

fn json<T: Serialize>(value: &T) -> Result<String, Error> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| Error::new(format!("cannot write JSON: {e}")))
}

fn emit(table: &Table, format: Format) -> Result<String, Error> {
    match format {
        Format::Table => Ok(table.text()),
        Format::Markdown => Ok(table.markdown()),
        Format::Csv => table
            .csv()
            .map_err(|e| Error::new(format!("cannot write CSV: {e}"))),
        Format::Json => Err(Error::new("internal: JSON is rendered from core's values")),
    }
}

#[derive(Serialize)]
struct MatrixJson<'a> {
    scenario: &'a str,
    vllm_version: String,
    model: &'a str,
    gpu: &'a str,
    workload: decodecalc_core::harness::Workload,
    max_tokens: u64,
    block_size_tokens: u64,
    num_blocks: u64,
    kv_cache_tokens: u64,
    calibration: &'a str,
    error_bands: &'a decodecalc_core::scenario::ErrorBands,
    cells: &'a [decodecalc_core::matrix::Cell],
}

fn opt_grouped(v: Option<f64>, digits: usize) -> String {
    v.map_or(String::new(), |x| grouped_f(x, digits))
}

/// A cell's band for one figure as a column: "±21%" (its p90).
fn band_cell(b: Option<&decodecalc_core::scenario::Band>) -> String {
    b.map_or(String::new(), |b| format!("±{:.0}%", b.p90_abs_pct))
}

/// The status as the table says it: the harness's rule by name.
/// The engine's own verdict on a decode cell: "all" run at once, or how many.
fn engine_words(c: &Cell) -> String {
    if c.engine_running_requests >= c.concurrency {
        "all".into()
    } else {
        format!("{} of {}", c.engine_running_requests, c.concurrency)
    }
}

/// The lines above a matrix: what runs where, the KV cache, the workload.
fn matrix_header(plan: &Plan, cap: &Capacity, m: &Matrix) -> String {
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
fn matrix_legend(plan: &Plan, cap: &Capacity, m: &Matrix) -> String {
    use decodecalc_core::harness::Workload;
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
fn matrix_wide(m: &Matrix) -> Table {
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
fn speed_cells(c: &Cell, f: impl Fn(Option<f64>, usize) -> String) -> Vec<String> {
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
fn matrix_compact(m: &Matrix) -> String {
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
pub fn band_words(b: &decodecalc_core::scenario::Band) -> String {
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
pub fn hold_out_words(h: decodecalc_core::bands::HoldOut) -> &'static str {
    use decodecalc_core::bands::HoldOut;
    match h {
        HoldOut::LeaveCellOut => "leave-cell-out on the measured run",
        HoldOut::LeaveFamilyOut => "leave-model-family-out: a model the fit never saw",
        HoldOut::LeaveGpuOut => "leave-GPU-out: a GPU the fit never saw",
        HoldOut::LeaveClassOut => "leave-class-out: a GPU class the fit never saw",
    }
}

/// The error bands as lines under a table.
fn bands_text(b: &decodecalc_core::scenario::ErrorBands) -> String {
    let mut out = String::from("\n");
    if let Some(class) = &b.class {
        out.push_str(&format!(
            "Error bands: calibration {class} ({} runs); held-out predictions' absolute errors.\n",
            b.runs
        ));
    }
    for (what, band) in [
        ("time between tokens / TPOT", &b.tpot),
        ("throughput", &b.throughput),
        ("TTFT", &b.ttft),
        ("prefill tok/s", &b.prefill),
    ] {
        out.push_str(&match band {
            Some(x) => format!("Error band, {what}: {}\n", band_words(x)),
            None => format!(
                "Error band, {what}: none measured (first-principles or uncross-validated parameters)\n"
            ),
        });
    }
    for x in &b.tpot_by_regime {
        out.push_str(&format!("  time between tokens, {}\n", band_words(x)));
    }
    out
}

pub fn capacity(plan: &Plan, cap: &Capacity, format: Format) -> Result<String, Error> {
    if format == Format::Json {
        return json(cap);
    }
    let mut t = Table::new(&[
        ("Quantity", false),
        ("Value", true),
        ("Unit", false),
        ("Note", false),
    ]);
    for row in cap.breakdown(plan).iter().filter(|r| r.in_table) {
        t.push(breakdown_cells(row));
    }
    let mut out = String::new();
    if format == Format::Table {
        out.push_str(&format!(
            "{} | {} | vLLM {}\n\n",
            cap.scenario,
            plan.setup_title(),
            cap.vllm_version
        ));
    }
    out.push_str(&emit(&t, format)?);
    if let Some(why) = &cap.startup_failure {
        if format == Format::Table {
            out.push_str(&format!("\nvLLM would not start {why}\n"));
        }
    }
    if !cap.log_check.is_empty() && matches!(format, Format::Table | Format::Markdown) {
        out.push('\n');
        out.push_str(&emit(&log_check(cap), format)?);
    }
    Ok(out)
}

/// One row of the memory breakdown as the capacity table's cells: bytes of
/// a MiB or more with their GiB in the note, a block's bytes in MiB.
fn breakdown_cells(row: &BreakdownRow) -> Vec<String> {
    let note = &row.note;
    let (value, note) = match row.amount {
        Amount::Bytes(v) => (
            grouped(v),
            match (v >= MIB, note.is_empty()) {
                (true, true) => format!("{:.3} GiB", gib(v)),
                (true, false) => format!("{:.3} GiB; {note}", gib(v)),
                (false, _) => note.clone(),
            },
        ),
        Amount::BlockBytes(v) => (grouped(v), format!("{:.2} MiB = {note}", mib(v))),
        Amount::Tokens(v) | Amount::Blocks(v) => (grouped(v), note.clone()),
        Amount::Groups(v) | Amount::Requests(v) => (v.to_string(), note.clone()),
        Amount::Times(x) => (format!("{x:.2}"), note.clone()),
    };
    vec![row.name.clone(), value, row.amount.unit().into(), note]
}

/// A start-up log's figures against the prediction (`--vllm-log`).
fn log_check(cap: &Capacity) -> Table {
    let mut l = Table::new(&[
        ("Start-up log figure", false),
        ("Logged", true),
        ("decodecalc", true),
        ("Error %", true),
        ("Agrees", false),
    ]);
    for f in &cap.log_check {
        l.push(vec![
            f.figure.into(),
            format!("{}", f.logged),
            format!("{:.2}", f.predicted),
            format!("{:+.2}", f.error_pct),
            if f.agrees {
                format!("yes (within {:.2}%)", f.tolerance_pct)
            } else {
                format!("NO (beyond {:.2}%)", f.tolerance_pct)
            },
        ]);
    }
    l
}

#[derive(Serialize)]
struct PresetJson {
    kind: Kind,
    id: &'static str,
    path: &'static str,
}

pub fn presets(args: &PresetsArgs) -> Result<String, Error> {
    if args.versions {
        return versions(args.format);
    }
    let list: Vec<PresetJson> = presets::FILES
        .iter()
        .map(|f| PresetJson {
            kind: f.kind,
            id: f.id,
            path: f.path,
        })
        .collect();
    if args.format == Format::Json {
        return json(&list);
    }
    let mut t = Table::new(&[("Kind", false), ("Id", false), ("File", false)]);
    for p in &list {
        t.push(vec![p.kind.name().into(), p.id.into(), p.path.into()]);
    }
    emit(&t, args.format)
}

/// `presets --versions`: the table of changes `--vllm-version` follows.
fn versions(format: Format) -> Result<String, Error> {
    use decodecalc_core::version::{CAPACITY_OLDEST, CHANGES, MODELLED, NEWEST};
    if format == Format::Json {
        return json(&CHANGES);
    }
    let mut t = Table::new(&[
        ("Release", false),
        ("What changed", false),
        ("vLLM file", false),
    ]);
    for c in CHANGES {
        t.push(vec![c.since.to_string(), c.what.into(), c.file.into()]);
    }
    let mut out = emit(&t, format)?;
    if format != Format::Csv {
        out.push_str(&format!(
            "\n`--vllm-version` takes {CAPACITY_OLDEST} to {NEWEST}; without it, {MODELLED}. Files are inside the `vllm/` package of the release named.\n"
        ));
    }
    Ok(out)
}

/// One `name  value` line of an explanation.
fn line(out: &mut String, k: &str, v: String) {
    out.push_str(&format!("  {k:<34} {v}\n"));
}

/// `matrix --explain CONTEXT:CONCURRENCY` (or `CONTEXT` for a prefill row).
pub fn explain(p: &Predictor, which: &ExplainCell) -> Result<String, Error> {
    let plan = p.plan;
    let ctx = which.context_tokens;
    match which.concurrency {
        None if ctx > plan.engine.max_model_len_tokens => Err(which.invalid()),
        None => Ok(explain_prefill(p, ctx)),
        Some(c) => {
            check_model_len(
                "--explain",
                ctx,
                plan.harness.max_tokens,
                plan.engine.max_model_len_tokens,
            )?;
            Ok(explain_decode(p, ctx, c))
        }
    }
}

/// The cold prefill of one request at `ctx`: its terms.
fn explain_prefill(p: &Predictor, ctx: u64) -> String {
    let t = prefill_row(&p.work, &p.params, &p.plan.harness, ctx);
    let mut out = format!(
        "Prefill {} (cold, one request) | calibration {}\n",
        format_tokens(ctx),
        p.plan.calibration.label()
    );
    line(&mut out, "prompt tokens", grouped(t.prompt_tokens));
    line(
        &mut out,
        "chunks of max_num_batched_tokens",
        format!("{}", t.terms.chunks),
    );
    line(
        &mut out,
        "GEMMs (linear layers, Mamba scan)",
        format!("{:.1} ms", t.terms.gemm_s * 1e3),
    );
    line(
        &mut out,
        "attention (quadratic)",
        format!("{:.1} ms", t.terms.attention_s * 1e3),
    );
    line(
        &mut out,
        "host (scheduler, launch)",
        format!("{:.1} ms", t.terms.host_s * 1e3),
    );
    line(&mut out, "TTFT cold", format!("{:.0} ms", t.ttft_ms));
    line(&mut out, "prefill tok/s", format!("{:.1}", t.tok_s));
    out
}

/// A decode cell: its memory, its step's terms, admission and what the
/// harness reports.
fn explain_decode(p: &Predictor, ctx: u64, c: u64) -> String {
    let plan = p.plan;
    let cap = p.capacity;
    let cell = p.cell(Phase::Decode, ctx, c);
    let mut out = format!(
        "Sustained decode {} x {c} | {} | calibration {}\n\nMemory\n",
        format_tokens(ctx),
        cell.status.name(),
        plan.calibration.label()
    );
    line(
        &mut out,
        "prompt tokens (server side)",
        grouped(cell.prompt_tokens),
    );
    line(
        &mut out,
        "block size",
        format!("{} tokens", grouped(cap.block_size_tokens)),
    );
    line(
        &mut out,
        "blocks per running request",
        format!(
            "{} (+{} shared by all)",
            cell.blocks_per_request, cell.shared_blocks
        ),
    );
    line(
        &mut out,
        "blocks for all requests",
        format!(
            "{} of {} usable",
            grouped(cell.blocks_needed),
            grouped(cell.usable_blocks)
        ),
    );
    let limit = match cell.limit {
        RunningLimit::None => "all of them",
        RunningLimit::MaxNumSeqs => "capped by max_num_seqs",
        RunningLimit::KvBlocks => "capped by free KV blocks",
    };
    line(
        &mut out,
        "requests running at once",
        format!("{} of {c} ({limit})", cell.running_requests),
    );
    line(
        &mut out,
        "harness check C x (context + max_tokens)",
        format!(
            "{} tokens vs KV cache {} tokens",
            grouped(cell.harness_tokens_needed),
            grouped(cell.harness_budget_tokens)
        ),
    );
    if cell.running_requests == 0 {
        out.push_str("\nNot run: over capacity.\n");
        return out;
    }
    let t = p.decode_timing(ctx, c, cell.running_requests);
    explain_step(&mut out, plan, &t, cell.running_requests);
    explain_reported(&mut out, &t);
    out
}

/// The decode step's terms, each with its share of the step.
fn explain_step(out: &mut String, plan: &Plan, t: &DecodeTiming, running: u64) {
    let s = t.step;
    let total = s.total_s();
    let share = |x: f64| format!("{:7.2} ms  {:5.1}%", x * 1e3, 100.0 * x / total);
    out.push_str(&format!(
        "\nDecode step with {running} sequences at {:.0} tokens of context (window middle)\n",
        t.window_context_tokens
    ));
    line(
        out,
        if s.async_scheduling {
            "host (overlapped: async scheduling)"
        } else {
            "host (scheduler, sampler, launch)"
        },
        share(s.host_s),
    );
    line(
        out,
        if s.compute_s > s.weights_s {
            "GEMMs: compute-bound"
        } else {
            "GEMMs: weight-read-bound"
        },
        format!(
            "{}  (weights {:.2} ms, compute {:.2} ms)",
            share(s.gemm_s()),
            s.weights_s * 1e3,
            s.compute_s * 1e3
        ),
    );
    if s.moe_s > 0.0 {
        line(out, "fused MoE (measured kernels)", share(s.moe_s));
    }
    line(out, "Mamba state read+write", share(s.state_s));
    line(out, "attention KV reads", share(s.attention_s));
    if plan.engine.tensor_parallel_size > 1 || plan.engine.pipeline_parallel_size > 1 {
        line(
            out,
            &format!(
                "all-reduce over {} GPUs, {} pipeline sends",
                plan.engine.tensor_parallel_size,
                plan.engine.pipeline_parallel_size - 1
            ),
            share(s.allreduce_s),
        );
    }
    if s.layers_s > 0.0 {
        line(out, "per-layer small kernels", share(s.layers_s));
    }
    line(
        out,
        "step",
        format!("{:7.2} ms  (dominant: {})", total * 1e3, s.dominant()),
    );
}

/// Admission of a request, and the cell's figures as the harness reports them.
fn explain_reported(out: &mut String, t: &DecodeTiming) {
    out.push_str("\nAdmission (each request recomputes its prompt past the last cached block)\n");
    line(
        out,
        "recomputed tokens per request",
        grouped(t.recomputed_tokens),
    );
    line(
        out,
        "per request",
        format!("{:.1} ms", t.admission.total_s() * 1e3),
    );
    line(
        out,
        "window opens after",
        format!("{:.1} s", t.window_start_s),
    );
    out.push_str("\nAs the harness reports it\n");
    line(out, "total tok/s", format!("{:.1}", t.total_tok_s));
    line(
        out,
        "per request tok/s",
        format!("{:.1}", t.per_request_tok_s),
    );
    line(out, "time between tokens", format!("{:.1} ms", t.tbt_ms));
    line(
        out,
        "TTFT cold (median)",
        format!("{:.0} ms", t.ttft_cold_ms),
    );
    if let Some(ms) = t.ttft_cached_ms {
        line(out, "TTFT cached (median)", format!("{ms:.0} ms"));
    }
}

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
        summary: &'a decodecalc_core::compare::Summary,
        cross_validation: &'a Option<decodecalc_core::compare::Metrics>,
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

fn metrics_table(m: &Metrics, cv: Option<&Metrics>) -> Table {
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

/// A solver's answer: its JSON, or its rows as an Answer / Value table.
fn answer_table<T: Serialize>(
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

fn kv_table(rows: Vec<(&str, String)>, format: Format) -> Result<String, Error> {
    let mut t = Table::new(&[("Answer", false), ("Value", true)]);
    for (k, v) in rows {
        t.push(vec![k.to_string(), v]);
    }
    emit(&t, format)
}

fn tokens_or_none(v: Option<u64>) -> String {
    v.map_or("none".to_string(), |x| {
        format!("{} ({})", grouped(x), format_tokens(x))
    })
}

/// The line above a solve answer: what was solved for.
fn solve_head(plan: &Plan, format: Format) -> String {
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
    a: &decodecalc_core::solve::MaxContext,
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
    a: &decodecalc_core::solve::MaxConcurrency,
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
    a: &decodecalc_core::solve::SmallestSetting,
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
    ranking: &decodecalc_core::rank::Ranking,
    model: &str,
    w: decodecalc_core::rank::Workload,
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
            workload: decodecalc_core::rank::Workload,
            prompts: decodecalc_core::harness::Workload,
            prices_source: &'a str,
            prices_date: &'a str,
            /// Configurations vLLM would start.
            considered: usize,
            /// Configurations that serve it, all of them (`configurations`
            /// is cut at --top).
            serving: usize,
            configurations: &'a [decodecalc_core::rank::Ranked],
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

/// `decodecalc calibrate` over several runs: per GPU class, per GPU and
/// per model family, each figure's first-principles and in-sample errors and
/// its held-out errors (leave-model-family-out, leave-GPU-out,
/// leave-class-out: every refit cold); then time per output token by
/// class and workload regime, the bands predictions carry.
pub fn joint(report: &decodecalc_fit::JointReport, format: Format) -> Result<String, Error> {
    use decodecalc_fit::GroupReport;
    if format == Format::Json {
        return json(report);
    }
    let table = |who: &str, groups: &[&GroupReport]| {
        let mut t = Table::new(&[
            (who, false),
            ("Runs", true),
            ("Figure", false),
            ("n", true),
            ("First principles MAPE %", true),
            ("In-sample MAPE %", true),
            ("Family-out MAPE %", true),
            ("Family-out median %", true),
            ("Family-out p90 %", true),
            ("GPU-out MAPE %", true),
            ("GPU-out median %", true),
            ("GPU-out p90 %", true),
            ("Class-out median %", true),
            ("Class-out p90 %", true),
        ]);
        let pct = |x: f64| format!("{x:.1}");
        for g in groups {
            for f in &g.figures {
                let [fam, gpu, class] = &f.held_out;
                t.push(vec![
                    g.name.clone(),
                    g.runs.to_string(),
                    f.figure.label().to_string(),
                    f.figures.to_string(),
                    pct(f.first_principles_mape_pct),
                    pct(f.in_sample_mape_pct),
                    pct(fam.mape_pct),
                    pct(fam.median_abs_pct),
                    pct(fam.p90_abs_pct),
                    pct(gpu.mape_pct),
                    pct(gpu.median_abs_pct),
                    pct(gpu.p90_abs_pct),
                    pct(class.median_abs_pct),
                    pct(class.p90_abs_pct),
                ]);
            }
        }
        t
    };
    let mut classes: Vec<&GroupReport> = report.classes.iter().collect();
    classes.push(&report.overall);
    let gpus: Vec<&GroupReport> = report.gpus.iter().collect();
    let families: Vec<&GroupReport> = report.families.iter().collect();
    let mut out = String::new();
    let sections = [
        ("By GPU class", "GPU class", &classes),
        ("By GPU", "GPU", &gpus),
        ("By model family", "Model family", &families),
    ];
    for (i, (title, who, groups)) in sections.into_iter().enumerate() {
        if format == Format::Csv && i > 0 {
            break;
        }
        if format != Format::Csv {
            out.push_str(&format!("{}{title}:\n\n", if i > 0 { "\n" } else { "" }));
        }
        out.push_str(&emit(&table(who, groups), format)?);
    }
    if format != Format::Csv {
        out.push_str("\nTime per output token by GPU class and workload regime (the bands predictions carry):\n\n");
        out.push_str(&emit(&regime_table(report), format)?);
    }
    if format == Format::Table {
        out.push_str(&format!(
            "\nJoint fit: {} evaluations, {}; {} runs in {} classes.\n",
            report.fit.evaluations,
            report.fit.termination,
            report.runs.len(),
            report.classes.len()
        ));
        use decodecalc_core::timing::{Scope, TimingParams};
        let values = |p: &TimingParams, keep: &dyn Fn(usize, &str) -> bool| {
            TimingParams::NAMES
                .iter()
                .zip(p.to_array())
                .enumerate()
                .filter(|(k, (n, _))| keep(*k, n))
                .map(|(_, (n, v))| format!("  {n:<24} {v:.4}\n"))
                .collect::<String>()
        };
        out.push_str("\n[shared] what a class or engine generation without its own value uses\n");
        out.push_str(&values(&report.fit.shared, &|_, _| true));
        for e in &report.fit.engines {
            out.push_str(&format!(
                "\n[engine {}] {} runs: the host's costs\n",
                e.engine.name(),
                e.runs.len()
            ));
            out.push_str(&values(&e.params, &|k, _| {
                TimingParams::SCOPES.get(k) == Some(&Scope::Engine)
            }));
        }
        for c in &report.fit.classes {
            out.push_str(&format!(
                "\n[{}] fitted on vLLM {}: ",
                c.class,
                c.vllm_versions.join(", ")
            ));
            if c.free.is_empty() {
                out.push_str(
                    "its runs pin no kernel parameter of their own; it uses the shared values\n",
                );
            } else {
                out.push_str("the kernel parameters its runs pin down\n");
                out.push_str(&values(&c.params, &|_, n| c.free.contains(&n)));
            }
        }
    }
    Ok(out)
}

/// Runs no fit saw, predicted with the joint fit: errors by GPU and by
/// model family.
pub fn held_out(report: &decodecalc_fit::HeldOutReport, format: Format) -> Result<String, Error> {
    if format == Format::Json {
        return json(report);
    }
    let mut t = Table::new(&[
        ("Held out", false),
        ("Runs", true),
        ("Figure", false),
        ("n", true),
        ("MAPE %", true),
        ("Median abs %", true),
        ("p90 abs %", true),
        ("Mean signed %", true),
    ]);
    let groups = report
        .gpus
        .iter()
        .chain(&report.families)
        .chain(std::iter::once(&report.overall));
    for g in groups {
        for f in &g.figures {
            t.push(vec![
                g.name.clone(),
                g.runs.to_string(),
                f.figure.label().to_string(),
                f.stats.figures.to_string(),
                format!("{:.1}", f.stats.mape_pct),
                format!("{:.1}", f.stats.median_abs_pct),
                format!("{:.1}", f.stats.p90_abs_pct),
                format!("{:+.1}", f.mean_signed_pct),
            ]);
        }
    }
    let mut out =
        String::from("\nHeld-out runs (no fit saw them), predicted with the joint fit:\n\n");
    out.push_str(&emit(&t, format)?);
    Ok(out)
}

/// The joint report's time-per-output-token errors by class and workload
/// regime under leave-family-out and leave-GPU-out: what a prediction's
/// band is taken from.
fn regime_table(report: &decodecalc_fit::JointReport) -> Table {
    use decodecalc_core::bands::{Figure, Regime, MIN_REGIME_FIGURES};
    let mut t = Table::new(&[
        ("GPU class", false),
        ("Regime", false),
        ("n", true),
        ("Family-out median %", true),
        ("Family-out p90 %", true),
        ("GPU-out median %", true),
        ("GPU-out p90 %", true),
        ("Band used", false),
    ]);
    for c in &report.classes {
        for regime in Regime::ALL {
            let v = report.regime_errors(&c.name, Figure::Tpot, regime);
            let Some([fam, gpu, _]) = v else { continue };
            t.push(vec![
                c.name.clone(),
                regime.label().to_string(),
                fam.figures.to_string(),
                format!("{:.1}", fam.median_abs_pct),
                format!("{:.1}", fam.p90_abs_pct),
                format!("{:.1}", gpu.median_abs_pct),
                format!("{:.1}", gpu.p90_abs_pct),
                if fam.figures >= MIN_REGIME_FIGURES {
                    "this regime's"
                } else {
                    "the class's"
                }
                .to_string(),
            ]);
        }
    }
    t
}

/// `decodecalc bench-serve`: the figures as `vllm bench serve` prints them,
/// with the error band of the calibration in use; beside a `--save-result`
/// file's, when given.
pub fn bench_serve(
    plan: &Plan,
    w: &decodecalc_core::serve::Workload,
    r: &decodecalc_core::serve::ServeResult,
    comparison: Option<&[decodecalc_core::bench_serve::FigureComparison]>,
    format: Format,
) -> Result<String, Error> {
    #[derive(Serialize)]
    struct Out<'a> {
        model: &'a str,
        gpu: &'a str,
        vllm_version: String,
        calibration: String,
        workload: &'a decodecalc_core::serve::Workload,
        predicted: &'a decodecalc_core::serve::ServeResult,
        tpot_band: Option<decodecalc_core::scenario::Band>,
        ttft_band: Option<decodecalc_core::scenario::Band>,
        throughput_band: Option<decodecalc_core::scenario::Band>,
        comparison: Option<&'a [decodecalc_core::bench_serve::FigureComparison]>,
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
            tpot_band: c.band_in(decodecalc_core::bands::Figure::Tpot, None),
            ttft_band: c.band_in(decodecalc_core::bands::Figure::Ttft, None),
            throughput_band: c.band_in(decodecalc_core::bands::Figure::Throughput, None),
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
            decodecalc_core::harness::Workload::Distinct.describe(w.output_tokens),
        )
    } else {
        String::new()
    };
    if let Some(cmp) = comparison {
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
        return Ok(head + &emit(&t, format)?);
    }
    let mut t = Table::new(&[("Figure", false), ("Predicted", true)]);
    let row = |t: &mut Table, name: &str, v: String| t.push(vec![name.into(), v]);
    let conc = match w.arrival {
        decodecalc_core::serve::Arrival::Serve {
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
    let mut out = head + &emit(&t, format)?;
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
