//! The embedded presets as JSON, for a build without the `toml` feature
//! (the web page): every `data/**/*.toml` becomes `$OUT_DIR/data/**/*.json`
//! with the same values, so the page parses them with serde_json and carries
//! no TOML parser. A build with `toml` (the default) embeds the TOML files
//! themselves and does not use these.
//!
//! Prose for whoever edits or audits the files, which no code reads, is
//! left out: a model's `notes` (how the preset was made; optional), the
//! `source` of a GPU or a model (where each figure comes from) and a
//! calibration's `description`, `command`, `fitted_on` and `runs` (how it
//! was made); the required ones are kept empty. A model's `[config]` is
//! kept whole, so the page reads exactly what the CLI reads. The page shows
//! none of them; the CLI, which embeds the TOML files, has them all. A
//! calibration's `[fit]` (`bands::FitSummary`) is kept whole: it is typed,
//! and the page prints its bands.

// A build script runs at build time, on the build machine: reading data/
// and writing OUT_DIR is its job, not core's (core/clippy.toml's I/O rule is
// for the library).
#![allow(clippy::disallowed_methods, clippy::disallowed_macros)]

use std::path::Path;

fn convert(dir: &Path, out: &Path) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let target = out.join(path.file_name().unwrap_or_default());
        if path.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
            convert(&path, &target)?;
        } else if path.extension().is_some_and(|e| e == "toml") {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut value: toml::Value =
                toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            let prose: &[&str] = if dir.ends_with("models") || dir.ends_with("gpus") {
                &["source"]
            } else if dir.ends_with("calibrations") {
                &["description", "command", "fitted_on", "runs"]
            } else {
                &[]
            };
            if let Some(table) = value.as_table_mut() {
                table.remove("notes");
                for key in prose {
                    if let Some(v) = table.get_mut(*key) {
                        *v = match v {
                            toml::Value::Array(_) => toml::Value::Array(Vec::new()),
                            _ => toml::Value::String(String::new()),
                        };
                    }
                }
            }
            let json =
                serde_json::to_string(&value).map_err(|e| format!("{}: {e}", path.display()))?;
            std::fs::write(target.with_extension("json"), json).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// `data/speculative/acceptance_published.csv` as a Rust table
/// (`speculative::PUBLISHED_ACCEPTANCE`): its first six columns, the
/// machine-read ones, which hold no comma; the sources after them stay in
/// the file. Without `prose` (the page's build) a row's label and run are
/// left empty, as the presets' prose is: the page names the file, the CLI
/// each row. A malformed row fails the build, naming its line.
fn acceptance_table(csv: &Path, out: &Path, prose: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(csv).map_err(|e| format!("{}: {e}", csv.display()))?;
    let mut rows = String::from("&[\n");
    let lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#'));
    for (n, line) in lines.skip(1) {
        let bad = |why: &str| format!("{}:{}: {why}", csv.display(), n + 1);
        let f: Vec<&str> = line.splitn(7, ',').collect();
        let [checkpoint, family, method, rates, run, label, _] = f[..] else {
            return Err(bad("fewer than seven columns"));
        };
        let method = match method {
            "mtp" => "Mtp",
            "eagle" => "Eagle",
            "eagle3" => "Eagle3",
            "draft_model" => "DraftModel",
            _ => return Err(bad("method is not mtp, eagle, eagle3 or draft_model")),
        };
        // In thousandths (the sources give three decimals at most): two
        // bytes a rate in the page's module instead of eight.
        let mut values: Vec<u16> = Vec::new();
        for r in rates.split(' ') {
            let v: f64 = r.parse().map_err(|_| bad("a rate is not a number"))?;
            let milli = (v * 1000.0).round();
            if !(v > 0.0 && v <= 1.0) || (milli - v * 1000.0).abs() > 1e-6 {
                return Err(bad("rates are in (0, 1], to three decimals"));
            }
            // In (0, 1000] by the check above.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let milli = milli as u16;
            if values.last().is_some_and(|&l| milli > l) {
                return Err(bad("a rate is above the one before"));
            }
            values.push(milli);
        }
        let (run, label) = if prose { (run, label) } else { ("", "") };
        rows.push_str(&format!(
            "    PublishedAcceptance {{ checkpoint: {checkpoint:?}, family: {family:?}, method: Method::{method}, rates_milli: &{values:?}, run: {run:?}, label: {label:?} }},\n"
        ));
    }
    rows.push(']');
    std::fs::write(out.join("acceptance_published.rs"), rows).map_err(|e| e.to_string())
}

fn main() -> Result<(), String> {
    println!("cargo:rerun-if-changed=../data");
    let out = std::env::var("OUT_DIR").map_err(|e| e.to_string())?;
    acceptance_table(
        Path::new("../data/speculative/acceptance_published.csv"),
        Path::new(&out),
        std::env::var_os("CARGO_FEATURE_TOML").is_some(),
    )?;
    let out = Path::new(&out).join("data");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    convert(Path::new("../data"), &out)
}
