//! Files: the [`World`] core reads through (regular files only, bounded),
//! the measured runs and `--save-result` files the subcommands read, and the
//! one writer of output files (never onto a file this run read).

use crate::cmd::Diagnostics;
use decodecalc_api::measured::BenchResult;
use decodecalc_api::measured::{parse_measured, MeasuredRow};
use decodecalc_api::presets::Kind;
use decodecalc_api::scenario::{load_text, Entry, HubError, Plan, ReadError, World};
use decodecalc_api::Error;

/// Files come from the file system.
#[derive(Debug)]
pub struct Fs;

/// Every file this run has read, so that no output is written onto one.
static INPUTS: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

/// The real `config.json` corpus (`data/hub/`, sources in its SOURCES.md),
/// embedded: a Hub repo id it holds is read offline when the local Hub cache
/// lacks it. Files are `{org}--{name}.json`, with a ModelOpt
/// `{org}--{name}.hf_quant_config.json` beside some.
static HUB_CORPUS: include_dir::Dir<'static> =
    include_dir::include_dir!("$CARGO_MANIFEST_DIR/../data/hub");

/// How a path into [`HUB_CORPUS`] starts: no file system path does, so the
/// two never meet, and errors name the file as the repository has it.
const HUB_CORPUS_PREFIX: &str = "embedded:data/hub/";

/// The embedded corpus's file at `path`, if `path` names one.
fn corpus_file(path: &str) -> Option<&'static str> {
    HUB_CORPUS
        .get_file(path.strip_prefix(HUB_CORPUS_PREFIX)?)?
        .contents_utf8()
}

/// The embedded corpus's config of Hub repo `repo` (`org/name`), as a path
/// [`Fs::read`] reads.
pub fn corpus_config(repo: &str) -> Option<String> {
    let path = format!("{HUB_CORPUS_PREFIX}{}.json", repo.replace('/', "--"));
    corpus_file(&path).map(|_| path)
}

impl World for Fs {
    fn entry(&self, path: &str) -> Entry {
        if path.starts_with(HUB_CORPUS_PREFIX) {
            return if corpus_file(path).is_some() {
                Entry::File
            } else {
                Entry::Missing
            };
        }
        match std::fs::metadata(path) {
            Err(_) => Entry::Missing,
            Ok(m) if m.is_file() => Entry::File,
            Ok(m) if m.is_dir() => Entry::Directory,
            Ok(_) => Entry::Special,
        }
    }

    fn read(&self, path: &str) -> Result<String, ReadError> {
        use std::io::Read;
        let unreadable = |e: std::io::Error| ReadError::Unreadable {
            path: path.to_string(),
            reason: e.to_string(),
        };
        if path.starts_with(HUB_CORPUS_PREFIX) {
            return corpus_file(path)
                .map(str::to_string)
                .ok_or_else(|| ReadError::Unreadable {
                    path: path.to_string(),
                    reason: "not in the embedded config corpus".into(),
                });
        }
        let limit = decodecalc_api::parse::MAX_INPUT_BYTES;
        // A FIFO would block (even on open), a device (/dev/zero) never end:
        // regular files only, checked before opening.
        let meta = std::fs::metadata(path).map_err(unreadable)?;
        if !meta.is_file() {
            return Err(ReadError::NotRegular { path: path.into() });
        }
        let file = std::fs::File::open(path).map_err(unreadable)?;
        // Read at most one byte past the limit, whatever size the file states.
        let mut bytes = Vec::new();
        file.take(limit as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(unreadable)?;
        if bytes.len() > limit {
            return Err(ReadError::TooLarge {
                path: path.into(),
                limit_bytes: limit as u64,
            });
        }
        if let (Ok(mut inputs), Ok(canonical)) = (INPUTS.lock(), std::fs::canonicalize(path)) {
            inputs.push(canonical);
        }
        String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
            path: path.into(),
            offset_bytes: e.utf8_error().valid_up_to() as u64,
        })
    }

    /// The local Hub cache's snapshot first (what the user downloaded is
    /// the revision they serve), else the embedded corpus's config, else
    /// the repo's files fetched from the Hub into the cache (not when
    /// `HF_HUB_OFFLINE` is set: then `Ok(None)`).
    fn hub_snapshot(&self, repo: &str) -> Result<Option<String>, HubError> {
        let cache = hub_cache();
        if let Some(snap) = cache
            .as_deref()
            .and_then(|root| hub_snapshot_in(root, repo))
        {
            return Ok(Some(snap));
        }
        if let Some(config) = corpus_config(repo) {
            return Ok(Some(config));
        }
        if crate::hub::offline() {
            return Ok(None);
        }
        crate::hub::fetch(cache, repo).map(Some)
    }
}

/// Snapshot folders of one repo looked at, at most.
const MAX_SNAPSHOTS: usize = 1000;

/// The local Hugging Face Hub cache, where `hf download` (huggingface_hub),
/// the `hf-hub` crate and [`crate::hub::fetch`] put files: `$HF_HUB_CACHE`, else `$HF_HOME/hub`,
/// else `~/.cache/huggingface/hub`.
fn hub_cache() -> Option<std::path::PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(dir) = var("HF_HUB_CACHE") {
        return Some(dir.into());
    }
    if let Some(home) = var("HF_HOME") {
        return Some(std::path::PathBuf::from(home).join("hub"));
    }
    var("HOME").map(|h| std::path::PathBuf::from(h).join(".cache/huggingface/hub"))
}

/// The snapshot of `repo` (`org/name`) in the cache at `root` that holds a
/// config.json: the one `refs/main` names, else the last by name. The
/// cache's layout: `models--{org}--{name}/refs/main` holds a commit, and
/// `snapshots/{commit}/` the files.
fn hub_snapshot_in(root: &std::path::Path, repo: &str) -> Option<String> {
    let dir = root.join(format!("models--{}", repo.replace('/', "--")));
    let has_config = |d: &std::path::Path| d.join("config.json").is_file();
    let main = std::fs::read_to_string(dir.join("refs").join("main")).ok();
    if let Some(commit) = main
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty() && c.chars().all(|ch| ch.is_ascii_alphanumeric()))
    {
        let snap = dir.join("snapshots").join(commit);
        if has_config(&snap) {
            return snap.to_str().map(str::to_string);
        }
    }
    let mut snaps: Vec<std::path::PathBuf> = std::fs::read_dir(dir.join("snapshots"))
        .ok()?
        .take(MAX_SNAPSHOTS)
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| has_config(p))
        .collect();
    snaps.sort();
    snaps.pop().and_then(|p| p.to_str().map(str::to_string))
}

/// Write an output file, never onto a file this run read.
pub fn write_file(path: &str, text: &str) -> Result<(), Error> {
    if let (Ok(inputs), Ok(target)) = (INPUTS.lock(), std::fs::canonicalize(path)) {
        if inputs.contains(&target) {
            return Err(
                Error::new(format!("`{path}` is one of this run's inputs")).with_hint(
                    "write the output to another file: decodecalc never overwrites what it reads",
                ),
            );
        }
    }
    std::fs::write(path, text).map_err(|e| {
        Error::new(format!("cannot write `{path}`: {e}"))
            .with_hint("check that the directory exists and is writable")
    })
}

/// The measured rows named by `--measured` (a path or a preset), or the scenario's.
pub fn measured_rows(name: Option<&str>, plan: &Plan) -> Result<(String, Vec<MeasuredRow>), Error> {
    let name =
        match name.map(str::to_string).or_else(|| plan.measured.clone()) {
            Some(n) => n,
            None => return Err(
                Error::new("no measured run: the scenario names none").with_hint(
                    "pass --measured FILE (decodecalc CSV or the harness's benchmark_results.json)",
                ),
            ),
        };
    let (origin, text) = load_text(&Fs, Kind::Measured, &name)?;
    Ok((origin.clone(), parse_measured(&origin, &text)?))
}

/// A `vllm bench serve --save-result` file, with a warning when its lengths
/// vary and are modelled at their means.
pub fn read_bench_result(path: &str, diag: &mut Diagnostics) -> Result<BenchResult, Error> {
    let text = Fs
        .read(path)
        .map_err(|why| why.into_error("give the JSON vllm bench serve --save-result wrote"))?;
    let r = decodecalc_api::measured::bench::parse(path, &text)?;
    if r.lengths_vary && r.lengths.is_empty() {
        diag.warn(format!(
            "{path}: request lengths vary; modelled at their means ({:.0} in, {:.0} out)",
            r.mean_input_tokens, r.mean_output_tokens
        ));
    }
    Ok(r)
}

/// Whether a file is a runs CSV (`data/runs`).
pub fn is_runs_file(name: &str) -> bool {
    name.ends_with(".csv")
        && Fs
            .read(name)
            .is_ok_and(|t| t.trim_start_matches('\u{feff}').starts_with("run,point,"))
}
