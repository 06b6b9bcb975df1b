//! A vLLM start-up log, as `vllm serve` prints it (releases 0.10 to 0.32):
//! the release, the flags the user gave (the `non-default args: {...}` line)
//! and the figures the engine measured and derived ("Model loading took",
//! "Available KV cache memory", "GPU KV cache size", "Maximum concurrency",
//! the hybrid block-size and padding lines). Wordings are vLLM's
//! (`v1/worker/gpu_model_runner.py`, `v1/worker/gpu_worker.py`,
//! `v1/core/kv_cache_utils.py`, `entrypoints/utils.py`;
//! docs/reference/vllm-versions.md, "Log wording"): from 0.28 the size and
//! concurrency share one line, from 0.30 it starts with the device name, and
//! 0.14+ prints `Available KV cache memory` without trailing zeros.
//!
//! Where a figure is printed once per worker (tensor parallelism), the first
//! (rank 0's) is read.

use crate::engine::EngineSettings;
use crate::error::{Error, Result};
use crate::version::VllmVersion;
use serde::Serialize;

/// What a start-up log says.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct VllmLog {
    pub version: Option<VllmVersion>,
    /// The model the server loaded (`model` of the non-default args).
    pub model: Option<String>,
    /// The flags of the non-default args line that decodecalc models.
    #[serde(skip)]
    pub settings: EngineSettings,
    /// Non-default args it does not model, by name.
    pub ignored_args: Vec<String>,
    pub model_loading_gib: Option<f64>,
    pub available_kv_gib: Option<f64>,
    pub kv_cache_tokens: Option<u64>,
    /// `(tokens per request, concurrency)`.
    pub max_concurrency: Option<(u64, f64)>,
    pub attention_block_size_tokens: Option<u64>,
    pub mamba_padding_pct: Option<f64>,
    /// Speculative decoding's per-position acceptance rates over the log's
    /// `SpecDecoding metrics` lines, each line weighted by its drafted
    /// tokens (`vllm/v1/spec_decode/metrics.py`); None without such lines.
    pub spec_acceptance: Option<Vec<f64>>,
}

/// A `SpecDecoding metrics` line's drafted tokens and per-position
/// acceptance rates (comma-separated, so the field is found by its name and
/// runs to the next field's).
fn spec_metrics(line: &str) -> Option<(f64, Vec<f64>)> {
    line.find("SpecDecoding metrics:")?;
    let drafted = number_after(line, "Drafted:").and_then(float)?;
    let at = line.find("Per-position acceptance rate:")? + "Per-position acceptance rate:".len();
    let rest = line.get(at..)?;
    let end = rest.find(", Avg").unwrap_or(rest.len());
    let rates: Option<Vec<f64>> = rest
        .get(..end)?
        .split(',')
        .map(|t| crate::units::parse_f64(t.trim()).filter(|r| (0.0..=1.0).contains(r)))
        .collect();
    Some((drafted, rates?)).filter(|(d, r)| *d > 0.0 && !r.is_empty() && r.len() <= 64)
}

/// The number after `prefix` in `line` (digits, `,` and `.`).
fn number_after<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let at = line.find(prefix)? + prefix.len();
    let rest = line.get(at..)?.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
        .unwrap_or(rest.len());
    let n = rest.get(..end)?.trim_end_matches(['.', ',']);
    (!n.is_empty()).then_some(n)
}

fn float(n: &str) -> Option<f64> {
    crate::units::parse_f64(&n.replace(',', ""))
}

fn count(n: &str) -> Option<u64> {
    n.replace(',', "").parse::<u64>().ok()
}

/// The values of a Python dict literal of scalars (`{'a': 1, 'b': 'x',
/// 'c': True, 'd': None}`): key and value text, quotes removed. Nested
/// values (lists, dicts) are kept as their text.
fn python_dict(text: &str) -> Vec<(String, String)> {
    let t = text.trim();
    let inner = t.strip_prefix('{').unwrap_or(t);
    let inner = inner.strip_suffix('}').unwrap_or(inner);
    let mut out = Vec::new();
    let mut depth = 0_i32;
    let mut quote: Option<char> = None;
    let mut item = String::new();
    let mut items = Vec::new();
    for c in inner.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[' | '{' | '(') => depth += 1,
            (None, ']' | '}' | ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    for it in items {
        if let Some((k, v)) = it.split_once(':') {
            let unquote = |s: &str| s.trim().trim_matches(['\'', '"']).to_string();
            out.push((unquote(k), unquote(v)));
        }
    }
    out
}

/// A Python literal of dicts, lists, strings, numbers, `True`, `False` and
/// `None` (what `repr` prints) as JSON text: single-quoted strings
/// double-quoted, the constants lower-cased or `null`.
fn python_to_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(match word.as_str() {
            "True" => "true",
            "False" => "false",
            "None" => "null",
            w => w,
        });
        word.clear();
    };
    for c in text.chars() {
        match quote {
            Some(q) if c == q => {
                out.push('"');
                quote = None;
            }
            Some(_) if c == '"' => out.push_str("\\\""),
            Some(_) => out.push(c),
            None if c == '\'' || c == '"' => {
                flush(&mut word, &mut out);
                out.push('"');
                quote = Some(c);
            }
            None if c.is_alphanumeric() || c == '_' || c == '.' || c == '-' => word.push(c),
            None => {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Read a start-up log. A text with none of the lines is an error (it is
/// not a vLLM log); each figure is optional.
pub fn parse(origin: &str, text: &str) -> Result<VllmLog> {
    crate::parse::check_size(origin, text)?;
    let mut log = VllmLog::default();
    let mut spec_lines: Vec<(f64, Vec<f64>)> = Vec::new();
    for line in text.lines() {
        if log.version.is_none() {
            let v = number_after(line, "Initializing a V1 LLM engine (v")
                .or_else(|| number_after(line, "vLLM API server version"))
                .or_else(|| {
                    line.contains('█')
                        .then(|| number_after(line, "version"))
                        .flatten()
                });
            log.version = v.and_then(|t| VllmVersion::parse(origin, t).ok());
        }
        if let Some(at) = line.find("non-default args: ") {
            if log.model.is_none() {
                read_args(
                    &mut log,
                    line.get(at + "non-default args: ".len()..).unwrap_or(""),
                )?;
            }
        }
        let first = |slot: &mut Option<f64>, prefix: &str| {
            if slot.is_none() {
                *slot = number_after(line, prefix).and_then(float);
            }
        };
        first(&mut log.model_loading_gib, "Model loading took");
        first(&mut log.available_kv_gib, "Available KV cache memory:");
        first(&mut log.mamba_padding_pct, "Padding mamba page size by");
        if log.kv_cache_tokens.is_none() {
            log.kv_cache_tokens = number_after(line, "KV cache size:").and_then(count);
        }
        if log.attention_block_size_tokens.is_none() {
            log.attention_block_size_tokens =
                number_after(line, "Setting attention block size to").and_then(count);
        }
        if let Some((drafted, rates)) = spec_metrics(line) {
            spec_lines.push((drafted, rates));
        }
        if log.max_concurrency.is_none() {
            let tokens = number_after(line, "Maximum concurrency for").and_then(count);
            let x = line
                .find("tokens per request:")
                .and_then(|i| number_after(line.get(i..).unwrap_or(""), "tokens per request:"))
                .and_then(float);
            if let (Some(t), Some(x)) = (tokens, x) {
                log.max_concurrency = Some((t, x));
            }
        }
    }
    log.spec_acceptance = weighted_rates(&spec_lines);
    if log.version.is_none()
        && log.available_kv_gib.is_none()
        && log.kv_cache_tokens.is_none()
        && log.model_loading_gib.is_none()
        && log.spec_acceptance.is_none()
    {
        return Err(Error::new(format!(
            "{origin}: no vLLM start-up line found (\"Model loading took\", \"Available KV cache memory\", \"GPU KV cache size\")"
        ))
        .with_hint("paste the log `vllm serve` prints up to \"Application startup complete\""));
    }
    Ok(log)
}

/// Per-position rates averaged over `lines` (drafted tokens, rates), each
/// weighted by its drafted tokens; positions as many as the shortest line's.
fn weighted_rates(lines: &[(f64, Vec<f64>)]) -> Option<Vec<f64>> {
    let positions = lines.iter().map(|(_, r)| r.len()).min()?;
    let total: f64 = lines.iter().map(|(d, _)| d).sum();
    Some(
        (0..positions)
            .map(|i| {
                lines
                    .iter()
                    .map(|(d, r)| d * r.get(i).copied().unwrap_or(0.0))
                    .sum::<f64>()
                    / total
            })
            .collect(),
    )
}

/// The non-default args line: each entry is a vLLM flag by its field name,
/// applied as the launch-line reader applies it (`command::apply_flag`);
/// `True` is the switch, `False` its `no-` form (or the default), `None`
/// nothing.
fn read_args(log: &mut VllmLog, dict: &str) -> Result<()> {
    use crate::command::{apply_flag, FlagEffect};
    for (key, value) in python_dict(dict) {
        let flag = key.replace('_', "-");
        let (name, arg) = match value.as_str() {
            "None" => continue,
            "True" => (flag, None),
            "False" => (format!("no-{flag}"), None),
            _ => (flag, Some(value.as_str())),
        };
        if key == "model_tag" {
            continue;
        }
        // A dict value (`speculative_config`, `hf_overrides`) is Python's
        // repr; the flags take JSON.
        let json;
        let (name, arg) = match arg {
            Some(a) if a.trim_start().starts_with('{') => {
                json = python_to_json(a);
                (name, Some(json.as_str()))
            }
            _ => (name, arg),
        };
        match apply_flag(&mut log.settings, &name, arg)
            .map_err(|e| e.context("non-default args"))?
        {
            FlagEffect::Model(m) => log.model = Some(m),
            FlagEffect::Applied | FlagEffect::NoEffect => {}
            // `False` of a switch without a `no-` form is its default.
            FlagEffect::Unknown if value == "False" => {}
            FlagEffect::NotModelled | FlagEffect::Unknown => log.ignored_args.push(key),
        }
    }
    Ok(())
}

/// One logged figure against decodecalc's.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogFigure {
    pub figure: &'static str,
    pub logged: f64,
    /// Predicted without the log's pool (the model, GPU and flags alone).
    pub predicted: f64,
    pub error_pct: f64,
    /// How far the two may differ before they are flagged (the log's
    /// rounding included).
    pub tolerance_pct: f64,
    pub agrees: bool,
}

impl LogFigure {
    pub fn new(figure: &'static str, logged: f64, predicted: f64, tolerance_pct: f64) -> Self {
        let error_pct = if logged == 0.0 {
            0.0
        } else {
            100.0 * (predicted / logged - 1.0)
        };
        LogFigure {
            figure,
            logged,
            predicted,
            error_pct,
            tolerance_pct,
            agrees: error_pct.abs() <= tolerance_pct,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_of_0_19_and_0_28_are_read() {
        let log = parse(
            "log",
            "(APIServer pid=1) INFO [entrypoints/utils.py:233] non-default args: {'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 8192, 'gpu_memory_utilization': 0.95, 'enable_prefix_caching': False, 'foo': [1, 2]}\n\
             (EngineCore pid=242) INFO [v1/engine/core.py:105] Initializing a V1 LLM engine (v0.19.0) with config: model='x'\n\
             INFO [v1/worker/gpu_model_runner.py:4820] Model loading took 14.99 GiB memory and 14.429680 seconds\n\
             INFO [v1/worker/gpu_worker.py:436] Available KV cache memory: 58.11 GiB\n\
             INFO [v1/core/kv_cache_utils.py:1319] GPU KV cache size: 476,016 tokens\n\
             INFO [v1/core/kv_cache_utils.py:1324] Maximum concurrency for 8,192 tokens per request: 58.11x\n",
        )
        .unwrap();
        assert_eq!(log.version, Some(VllmVersion::new(0, 19, 0)));
        assert_eq!(
            log.model.as_deref(),
            Some("meta-llama/Llama-3.1-8B-Instruct")
        );
        assert_eq!(log.settings.max_model_len, Some(8192));
        assert_eq!(log.settings.gpu_memory_utilization, Some(0.95));
        assert_eq!(log.settings.enable_prefix_caching, Some(false));
        assert_eq!(log.ignored_args, ["foo"]);
        assert_eq!(log.model_loading_gib, Some(14.99));
        assert_eq!(log.available_kv_gib, Some(58.11));
        assert_eq!(log.kv_cache_tokens, Some(476_016));
        assert_eq!(log.max_concurrency, Some((8192, 58.11)));
        // 0.28+: one line; 0.30+: the device name first.
        let one = parse(
            "log",
            "INFO GPU KV cache size: 1,263,908 tokens, Maximum concurrency for 131,072 tokens per request: 9.64x\nSetting attention block size to 4896 tokens to ensure that attention page size is >= mamba page size.\nPadding mamba page size by 0.05% to ensure that mamba page size and attention page size are exactly equal.\n",
        )
        .unwrap();
        assert_eq!(one.kv_cache_tokens, Some(1_263_908));
        assert_eq!(one.max_concurrency, Some((131_072, 9.64)));
        assert_eq!(one.attention_block_size_tokens, Some(4896));
        assert_eq!(one.mamba_padding_pct, Some(0.05));
        assert!(parse("log", "hello\nworld\n").is_err());
    }
}
