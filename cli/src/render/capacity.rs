//! Capacity (the memory breakdown and a start-up log's check), the preset
//! list and the modelled releases.

use super::*;

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
pub(super) fn breakdown_cells(row: &BreakdownRow) -> Vec<String> {
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
pub(super) fn log_check(cap: &Capacity) -> Table {
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
pub(super) struct PresetJson {
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
pub(super) fn versions(format: Format) -> Result<String, Error> {
    use decodecalc_api::version::{CAPACITY_OLDEST, CHANGES, MODELLED, NEWEST};
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
