//! Checks every `data/**/*.toml` is TOML, so a malformed preset fails the
//! build naming its file (the CLI embeds the files and reads them at run
//! time; the web page takes them as the values of
//! `core/src/presets/baked.rs`, which `presets::baked_source` writes and a
//! test checks); fingerprints them (`presets::DATA_TOML_HASH`: the page's
//! build fails when `baked.rs` was written from other files); and makes
//! `data/speculative/acceptance_published.csv` a Rust table.

// A build script runs at build time, on the build machine: reading data/
// and writing OUT_DIR is its job, not core's (core/clippy.toml's I/O rule is
// for the library).
#![allow(clippy::disallowed_methods, clippy::disallowed_macros)]

use std::path::Path;

/// Every `*.toml` under `dir`, checked to be TOML, as (path, text).
fn toml_files(dir: &Path, out: &mut Vec<(String, String)>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            toml_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "toml") {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            toml::from_str::<toml::Value>(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            out.push((path.display().to_string(), text));
        }
    }
    Ok(())
}

/// FNV-1a (64 bits) over each file's path and text, in path order: what
/// `core/src/presets/baked.rs` was written from (`presets::DATA_TOML_HASH`).
/// A fingerprint against forgetting to regenerate, not against tampering.
fn fingerprint(files: &mut [(String, String)]) -> u64 {
    files.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (path, text) in files.iter() {
        for b in path.bytes().chain([0]).chain(text.bytes()).chain([0]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
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
    let mut files = Vec::new();
    toml_files(Path::new("../data"), &mut files)?;
    std::fs::write(
        Path::new(&out).join("data_toml_hash.rs"),
        format!("{:#x}", fingerprint(&mut files)),
    )
    .map_err(|e| e.to_string())
}
