//! Measured runs in decodecalc's CSV layout (`data/measured/*.csv`), one row per
//! cell of the seed page's "All measurements" table.

use crate::error::{Error, Result};
use crate::matrix::{Phase, Status};
use serde::Serialize;

/// The columns, in order.
pub const COLUMNS: [&str; 11] = [
    "phase",
    "context_tokens",
    "concurrency",
    "status",
    "total_tok_s",
    "per_request_tok_s",
    "ttft_ms",
    "tbt_ms",
    "avg_active_requests",
    "output_tokens",
    "measured_s",
];

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeasuredRow {
    /// Where the row came from (`file.csv:23`, `file.json: results[4]`), for errors.
    pub source: String,
    pub phase: Phase,
    pub context_tokens: u64,
    pub concurrency: u64,
    pub status: Status,
    pub total_tok_s: Option<f64>,
    pub per_request_tok_s: Option<f64>,
    pub ttft_ms: Option<f64>,
    pub tbt_ms: Option<f64>,
    pub avg_active_requests: Option<f64>,
    pub output_tokens: Option<u64>,
    pub measured_s: Option<f64>,
}

fn cell(rec: &csv::StringRecord, idx: usize) -> &str {
    rec.get(idx).unwrap_or("").trim()
}

/// Parse a measured CSV. Errors name `origin`, the line and the column.
pub fn parse_csv(origin: &str, text: &str) -> Result<Vec<MeasuredRow>> {
    crate::parse::check_size(origin, text)?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| Error::new(format!("{origin}: cannot read the header row: {e}")))?
        .clone();
    let mut index = [0usize; COLUMNS.len()];
    for (slot, name) in index.iter_mut().zip(COLUMNS) {
        *slot = headers
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| {
                Error::new(format!("{origin}:1: missing column `{name}`"))
                    .with_hint(format!("the header must name: {}", COLUMNS.join(",")))
            })?;
    }
    let mut rows = Vec::new();
    for (i, rec) in reader.records().enumerate() {
        let line = i + 2;
        let rec = rec.map_err(|e| {
            Error::new(format!("{origin}:{line}: {e}"))
                .with_hint(format!("each row has {} fields", headers.len()))
        })?;
        let get = |col: usize| cell(&rec, index.get(col).copied().unwrap_or(usize::MAX));
        let bad = |col: usize, what: &str| {
            Error::new(format!(
                "{origin}:{line}: column `{}` has `{}`",
                COLUMNS.get(col).copied().unwrap_or("?"),
                get(col)
            ))
            .with_hint(what.to_string())
        };
        let float = |col: usize| -> Result<Option<f64>> {
            let t = get(col);
            if t.is_empty() {
                return Ok(None);
            }
            match t.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Ok(Some(v)),
                _ => Err(bad(col, "a non-negative number, or empty")),
            }
        };
        let int = |col: usize| -> Result<Option<u64>> {
            let t = get(col);
            if t.is_empty() {
                return Ok(None);
            }
            t.parse::<u64>()
                .map(Some)
                .map_err(|_| bad(col, "a non-negative whole number, or empty"))
        };
        let phase = match get(0) {
            "prefill" => Phase::Prefill,
            "decode" => Phase::Decode,
            _ => return Err(bad(0, "prefill or decode")),
        };
        let status =
            Status::parse(get(3)).ok_or_else(|| bad(3, "valid, queued or over_capacity"))?;
        rows.push(MeasuredRow {
            source: format!("{origin}:{line}"),
            phase,
            context_tokens: int(1)?.ok_or_else(|| bad(1, "a token count"))?,
            concurrency: match int(2)? {
                Some(c) if c > 0 => c,
                _ => return Err(bad(2, "a positive request count")),
            },
            status,
            total_tok_s: float(4)?,
            per_request_tok_s: float(5)?,
            ttft_ms: float(6)?,
            tbt_ms: float(7)?,
            avg_active_requests: float(8)?,
            output_tokens: int(9)?,
            measured_s: float(10)?,
        });
    }
    if rows.is_empty() {
        return Err(Error::new(format!("{origin}: no rows")).with_hint("one row per measured cell"));
    }
    Ok(rows)
}

/// Parse a measured run: the harness's `benchmark_results.json` when the
/// text is a JSON object, else decodecalc's CSV.
pub fn parse_measured(origin: &str, text: &str) -> Result<Vec<MeasuredRow>> {
    let rows = if text.trim_start().starts_with('{') {
        parse_harness_json(origin, text)?
    } else {
        parse_csv(origin, text)?
    };
    check_rows(&rows)?;
    Ok(rows)
}

/// The most cells a measured run may have (a harness grid of 64 contexts x
/// 64 concurrencies, twice over).
pub const MAX_MEASURED_ROWS: usize = 8192;

/// A measured run has each (phase, context, concurrency) cell once, and at
/// most [`MAX_MEASURED_ROWS`] of them.
pub fn check_rows(rows: &[MeasuredRow]) -> Result<()> {
    if rows.len() > MAX_MEASURED_ROWS {
        return Err(Error::new(format!(
            "{}: {} measured rows, more than the {MAX_MEASURED_ROWS} a run may have",
            rows.first().map_or("", |r| r.source.as_str()),
            rows.len()
        ))
        .with_hint("give one row per measured cell"));
    }
    let mut seen: std::collections::HashMap<(bool, u64, u64), &str> =
        std::collections::HashMap::with_capacity(rows.len());
    for r in rows {
        let key = (r.phase == Phase::Prefill, r.context_tokens, r.concurrency);
        if let Some(first) = seen.insert(key, r.source.as_str()) {
            return Err(Error::new(format!(
                "{}: the cell {} x {} is measured twice (also at {first})",
                r.source, r.context_tokens, r.concurrency
            ))
            .with_hint("keep one row per (phase, context, concurrency) cell"));
        }
    }
    Ok(())
}

fn json_shape_error(origin: &str, what: String) -> Error {
    Error::new(format!("{origin}: {what}")).with_hint(
        "expected llm-inference-bench's benchmark_results.json: an object with `metadata`, `prefill` and `results`",
    )
}

/// Parse llm-inference-bench's `benchmark_results.json` (format in
/// docs/reference/harness.md). Cells absent from `results` but in the
/// grid of `metadata` were skipped as over capacity. Per-request tok/s is
/// `output_tps_per_user_p50` where present, else 1 / `inter_token_latency_p50`
/// (the JSON's own `per_request_avg_tps` is aggregate / C, not what the page shows).
pub fn parse_harness_json(origin: &str, text: &str) -> Result<Vec<MeasuredRow>> {
    crate::parse::check_size(origin, text)?;
    use serde_json::Value;
    let root: Value = serde_json::from_str(text).map_err(|e| {
        Error::new(format!("{origin}:{}:{}: {e}", e.line(), e.column()))
            .with_hint("the file must be valid JSON")
    })?;
    let obj = root
        .as_object()
        .ok_or_else(|| json_shape_error(origin, "the top level is not an object".into()))?;
    let results = obj
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| json_shape_error(origin, "missing array `results`".into()))?;
    let num = |v: &Value, at: &str, key: &str| -> Result<Option<f64>> {
        match v.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(x) => match x.as_f64() {
                Some(f) if f.is_finite() && f >= 0.0 => Ok(Some(f)),
                _ => Err(json_shape_error(
                    origin,
                    format!("{at}.{key} is `{x}`, not a non-negative number"),
                )),
            },
        }
    };
    let count = |v: &Value, at: &str, key: &str| -> Result<u64> {
        match v.get(key) {
            Some(Value::String(t)) => crate::units::parse_tokens(t),
            Some(x) => x.as_u64(),
            None => None,
        }
        .ok_or_else(|| {
            json_shape_error(
                origin,
                format!("{at}.{key} is missing or not a whole number"),
            )
        })
    };
    let mut rows = Vec::new();
    if let Some(prefill) = obj.get("prefill") {
        let map = prefill
            .as_object()
            .ok_or_else(|| json_shape_error(origin, "`prefill` is not an object".into()))?;
        for (key, v) in map {
            let at = format!("prefill[\"{key}\"]");
            let ctx = crate::units::parse_tokens(key).ok_or_else(|| {
                json_shape_error(origin, format!("{at}: the key is not a context length"))
            })?;
            rows.push(MeasuredRow {
                source: format!("{origin}: {at}"),
                phase: Phase::Prefill,
                context_tokens: ctx,
                concurrency: 1,
                status: Status::Valid,
                total_tok_s: num(v, &at, "tok_per_sec")?,
                per_request_tok_s: None,
                ttft_ms: num(v, &at, "ttft_seconds")?.map(|s| s * 1e3),
                tbt_ms: None,
                avg_active_requests: None,
                output_tokens: None,
                measured_s: None,
            });
        }
    }
    for (i, v) in results.iter().enumerate() {
        let at = format!("results[{i}]");
        let concurrency = count(v, &at, "concurrency")?;
        if concurrency == 0 {
            return Err(json_shape_error(origin, format!("{at}.concurrency is 0")));
        }
        let itl_s = num(v, &at, "inter_token_latency_p50")?;
        let per_user = num(v, &at, "output_tps_per_user_p50")?;
        let limited = v
            .get("capacity_limited")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        rows.push(MeasuredRow {
            source: format!("{origin}: {at}"),
            phase: Phase::Decode,
            context_tokens: count(v, &at, "context_tokens")?,
            concurrency,
            status: if limited {
                Status::Queued
            } else {
                Status::Valid
            },
            total_tok_s: num(v, &at, "aggregate_tps")?,
            per_request_tok_s: per_user.or(itl_s.filter(|s| *s > 0.0).map(|s| 1.0 / s)),
            ttft_ms: num(v, &at, "ttft_p50")?.map(|s| s * 1e3),
            tbt_ms: itl_s.map(|s| s * 1e3),
            avg_active_requests: num(v, &at, "avg_running_reqs")?,
            output_tokens: num(v, &at, "client_output_tokens")?
                .map(|t| crate::units::saturating_u64(t.round())),
            measured_s: num(v, &at, "measurement_seconds")?,
        });
    }
    // Cells of the grid that are not in `results` were skipped as over capacity.
    let meta = obj.get("metadata");
    let list = |key: &str| -> Vec<u64> {
        meta.and_then(|m| m.get(key))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| match x {
                        Value::String(t) => crate::units::parse_tokens(t),
                        other => other.as_u64(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    for ctx in list("context_lengths") {
        for c in list("concurrency_levels") {
            let present = rows
                .iter()
                .any(|r| r.phase == Phase::Decode && r.context_tokens == ctx && r.concurrency == c);
            if !present {
                rows.push(MeasuredRow {
                    source: format!("{origin}: metadata (skipped cell)"),
                    phase: Phase::Decode,
                    context_tokens: ctx,
                    concurrency: c,
                    status: Status::OverCapacity,
                    total_tok_s: None,
                    per_request_tok_s: None,
                    ttft_ms: None,
                    tbt_ms: None,
                    avg_active_requests: None,
                    output_tokens: None,
                    measured_s: None,
                });
            }
        }
    }
    if rows.is_empty() {
        return Err(json_shape_error(
            origin,
            "no prefill rows and no results".into(),
        ));
    }
    rows.sort_by_key(|r| (r.phase == Phase::Decode, r.context_tokens, r.concurrency));
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "phase,context_tokens,concurrency,status,total_tok_s,per_request_tok_s,ttft_ms,tbt_ms,avg_active_requests,output_tokens,measured_s\n";

    #[test]
    fn a_cell_measured_twice_is_refused_naming_both_lines() {
        let row = "decode,0,1,valid,30.0,30.0,40,33,1.00,900,30.0\n";
        let err = parse_measured("m.csv", &format!("{HEAD}{row}{row}")).unwrap_err();
        assert_eq!(
            err.message,
            "m.csv:3: the cell 0 x 1 is measured twice (also at m.csv:2)"
        );
        // The same context and concurrency in the prefill phase is another cell.
        let prefill = "prefill,0,1,valid,3000.0,,200,,,,\n";
        assert_eq!(
            parse_measured("m.csv", &format!("{HEAD}{row}{prefill}"))
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn parses_a_row_with_empty_fields() {
        let rows = parse_csv(
            "m.csv",
            &format!("{HEAD}decode,16384,64,over_capacity,,,,,,,\n"),
        )
        .unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].status, Status::OverCapacity);
        assert_eq!(rows[0].total_tok_s, None);
    }

    #[test]
    fn missing_column_is_named() {
        let err = parse_csv("m.csv", "phase,context_tokens\nprefill,1\n").unwrap_err();
        assert!(
            err.message.contains("missing column `concurrency`"),
            "{err}"
        );
    }

    #[test]
    fn non_numeric_cell_names_line_and_column() {
        let err = parse_csv("m.csv", &format!("{HEAD}decode,0,1,valid,fast,,,,,,\n")).unwrap_err();
        assert_eq!(err.message, "m.csv:2: column `total_tok_s` has `fast`");
    }

    #[test]
    fn short_row_is_an_error() {
        let err = parse_csv("m.csv", &format!("{HEAD}decode,0,1\n")).unwrap_err();
        assert!(err.message.starts_with("m.csv:2:"), "{err}");
    }
}
