//! Measured runs in decodecalc's CSV layout (`data/measured/*.csv`), one row per
//! cell of the seed page's "All measurements" table.

use crate::columns::{Columns, Header, Row};
use crate::error::{Error, JsonFormat, Result};
use decodecalc_core::matrix::{Phase, Status};
use serde::Serialize;
use serde_json::Value;

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

/// Parse a measured CSV. Errors name `origin`, the line and the column.
pub fn parse_csv(origin: &str, text: &str) -> Result<Vec<MeasuredRow>> {
    let (columns, records) = Columns::read(origin, text, &COLUMNS, Header::AnyOrder)?;
    let rows = columns
        .rows(records)
        .map(|row| measured_row(&row?))
        .collect::<Result<Vec<MeasuredRow>>>()?;
    if rows.is_empty() {
        return Err(columns.no_rows("one row per measured cell"));
    }
    Ok(rows)
}

/// One row of a measured CSV (columns by their position in [`COLUMNS`]).
fn measured_row(row: &Row) -> Result<MeasuredRow> {
    let float = |col: usize| row.number(col, 0.0..=f64::MAX, "a non-negative number, or empty");
    let int = |col: usize| row.number(col, .., "a non-negative whole number, or empty");
    let phase = row.one_of(
        0,
        &[("prefill", Phase::Prefill), ("decode", Phase::Decode)],
        "prefill or decode",
    )?;
    let status =
        Status::parse(row.get(3)).ok_or_else(|| row.bad(3, "valid, queued or over_capacity"))?;
    Ok(MeasuredRow {
        source: row.source(),
        phase,
        context_tokens: int(1)?.ok_or_else(|| row.bad(1, "a token count"))?,
        concurrency: match int(2)? {
            Some(c) if c > 0 => c,
            _ => return Err(row.bad(2, "a positive request count")),
        },
        status,
        total_tok_s: float(4)?,
        per_request_tok_s: float(5)?,
        ttft_ms: float(6)?,
        tbt_ms: float(7)?,
        avg_active_requests: float(8)?,
        output_tokens: int(9)?,
        measured_s: float(10)?,
    })
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
        return Err(Error::TooManyRows {
            origin: rows.first().map_or("", |r| r.source.as_str()).to_string(),
            rows: rows.len(),
            max: MAX_MEASURED_ROWS,
        });
    }
    // The cells seen, in order (a sorted Vec rather than a hash map: the
    // web page links no hash map of its own; rows usually come in order, so
    // each insertion is at the end).
    let mut seen: Vec<((bool, u64, u64), &str)> = Vec::with_capacity(rows.len());
    for r in rows {
        let key = (r.phase == Phase::Prefill, r.context_tokens, r.concurrency);
        match seen.binary_search_by_key(&key, |s| s.0) {
            Ok(at) => {
                let first = seen.get(at).map_or("", |s| s.1);
                return Err(Error::Twice {
                    origin: r.source.clone(),
                    context_tokens: r.context_tokens,
                    concurrency: r.concurrency,
                    first: first.to_string(),
                });
            }
            Err(at) => seen.insert(at, (key, r.source.as_str())),
        }
    }
    Ok(())
}

fn json_shape_error(origin: &str, what: String) -> Error {
    Error::Shape {
        origin: origin.to_string(),
        what,
        format: JsonFormat::Harness,
    }
}

/// A harness row with no figures, which the callers fill in.
fn bare_row(
    source: String,
    phase: Phase,
    context_tokens: u64,
    concurrency: u64,
    status: Status,
) -> MeasuredRow {
    MeasuredRow {
        source,
        phase,
        context_tokens,
        concurrency,
        status,
        total_tok_s: None,
        per_request_tok_s: None,
        ttft_ms: None,
        tbt_ms: None,
        avg_active_requests: None,
        output_tokens: None,
        measured_s: None,
    }
}

/// Parse llm-inference-bench's `benchmark_results.json` (format in
/// docs/reference/harness.md). Cells absent from `results` but in the
/// grid of `metadata` were skipped as over capacity. Per-request tok/s is
/// `output_tps_per_user_p50` where present, else 1 / `inter_token_latency_p50`
/// (the JSON's own `per_request_avg_tps` is aggregate / C, not what the page shows).
pub fn parse_harness_json(origin: &str, text: &str) -> Result<Vec<MeasuredRow>> {
    decodecalc_core::parse::check_size(origin, text)?;
    let root: Value = serde_json::from_str(text).map_err(|e| Error::Json {
        origin: origin.to_string(),
        line: e.line(),
        column: e.column(),
        reason: e.to_string(),
        truncated: e.is_eof(),
        format: JsonFormat::Harness,
    })?;
    let obj = root
        .as_object()
        .ok_or_else(|| json_shape_error(origin, "the top level is not an object".into()))?;
    let results = obj
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| json_shape_error(origin, "missing array `results`".into()))?;
    let json = HarnessJson { origin };
    let mut rows = match obj.get("prefill") {
        Some(prefill) => json.prefill_rows(prefill)?,
        None => Vec::new(),
    };
    for (i, v) in results.iter().enumerate() {
        rows.push(json.result_row(&format!("results[{i}]"), v)?);
    }
    json.add_skipped_cells(obj.get("metadata"), &mut rows);
    if rows.is_empty() {
        return Err(json_shape_error(
            origin,
            "no prefill rows and no results".into(),
        ));
    }
    // At most MAX_MEASURED_ROWS rows, each cell once, before they are put
    // in order: prefill rows first, then decode, each by context then
    // concurrency. The (cell, row index) pairs kept as a sorted set (the
    // cells are distinct), so that the web page links no sort of rows.
    check_rows(&rows)?;
    let order = decodecalc_core::units::sorted_set(rows.iter().enumerate().map(|(i, r)| {
        (
            (r.phase == Phase::Decode, r.context_tokens, r.concurrency),
            i,
        )
    }));
    let mut slots: Vec<Option<MeasuredRow>> = rows.into_iter().map(Some).collect();
    Ok(order
        .into_iter()
        .filter_map(|(_, i)| slots.get_mut(i).and_then(Option::take))
        .collect())
}

/// Fields of a harness `benchmark_results.json` named `origin`.
struct HarnessJson<'a> {
    origin: &'a str,
}

impl HarnessJson<'_> {
    /// `v[key]` (the object at `at`), a non-negative number or absent.
    fn num(&self, v: &Value, at: &str, key: &str) -> Result<Option<f64>> {
        match v.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(x) => match x.as_f64() {
                Some(f) if f.is_finite() && f >= 0.0 => Ok(Some(f)),
                _ => Err(json_shape_error(
                    self.origin,
                    format!("{at}.{key} is `{x}`, not a non-negative number"),
                )),
            },
        }
    }

    /// `v[key]` (the object at `at`), a whole number or a token count such as `8K`.
    fn count(&self, v: &Value, at: &str, key: &str) -> Result<u64> {
        match v.get(key) {
            Some(Value::String(t)) => decodecalc_core::units::parse_tokens(t),
            Some(x) => x.as_u64(),
            None => None,
        }
        .ok_or_else(|| {
            json_shape_error(
                self.origin,
                format!("{at}.{key} is missing or not a whole number"),
            )
        })
    }

    /// The `prefill` object: one row per context length.
    fn prefill_rows(&self, prefill: &Value) -> Result<Vec<MeasuredRow>> {
        let map = prefill
            .as_object()
            .ok_or_else(|| json_shape_error(self.origin, "`prefill` is not an object".into()))?;
        let mut rows = Vec::new();
        for (key, v) in map {
            let at = format!("prefill[\"{key}\"]");
            let ctx = decodecalc_core::units::parse_tokens(key).ok_or_else(|| {
                json_shape_error(
                    self.origin,
                    format!("{at}: the key is not a context length"),
                )
            })?;
            rows.push(MeasuredRow {
                total_tok_s: self.num(v, &at, "tok_per_sec")?,
                ttft_ms: self.num(v, &at, "ttft_seconds")?.map(|s| s * 1e3),
                ..bare_row(
                    format!("{}: {at}", self.origin),
                    Phase::Prefill,
                    ctx,
                    1,
                    Status::Valid,
                )
            });
        }
        Ok(rows)
    }

    /// One decode cell of `results` (at `at`).
    fn result_row(&self, at: &str, v: &Value) -> Result<MeasuredRow> {
        let concurrency = self.count(v, at, "concurrency")?;
        if concurrency == 0 {
            return Err(json_shape_error(
                self.origin,
                format!("{at}.concurrency is 0"),
            ));
        }
        let itl_s = self.num(v, at, "inter_token_latency_p50")?;
        let per_user = self.num(v, at, "output_tps_per_user_p50")?;
        let limited = v
            .get("capacity_limited")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Ok(MeasuredRow {
            source: format!("{}: {at}", self.origin),
            phase: Phase::Decode,
            context_tokens: self.count(v, at, "context_tokens")?,
            concurrency,
            status: if limited {
                Status::Queued
            } else {
                Status::Valid
            },
            total_tok_s: self.num(v, at, "aggregate_tps")?,
            per_request_tok_s: per_user.or(itl_s.filter(|s| *s > 0.0).map(|s| 1.0 / s)),
            ttft_ms: self.num(v, at, "ttft_p50")?.map(|s| s * 1e3),
            tbt_ms: itl_s.map(|s| s * 1e3),
            avg_active_requests: self.num(v, at, "avg_running_reqs")?,
            output_tokens: self
                .num(v, at, "client_output_tokens")?
                .map(|t| decodecalc_core::units::saturating_u64(t.round())),
            measured_s: self.num(v, at, "measurement_seconds")?,
        })
    }

    /// Cells of the grid in `metadata` that are not in `rows` were skipped
    /// as over capacity: a row each.
    fn add_skipped_cells(&self, meta: Option<&Value>, rows: &mut Vec<MeasuredRow>) {
        let list = |key: &str| -> Vec<u64> {
            meta.and_then(|m| m.get(key))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| match x {
                            Value::String(t) => decodecalc_core::units::parse_tokens(t),
                            other => other.as_u64(),
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        for ctx in list("context_lengths") {
            for c in list("concurrency_levels") {
                let present = rows.iter().any(|r| {
                    r.phase == Phase::Decode && r.context_tokens == ctx && r.concurrency == c
                });
                if !present {
                    rows.push(bare_row(
                        format!("{}: metadata (skipped cell)", self.origin),
                        Phase::Decode,
                        ctx,
                        c,
                        Status::OverCapacity,
                    ));
                }
            }
        }
    }
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
            err,
            Error::Twice {
                origin: "m.csv:3".into(),
                context_tokens: 0,
                concurrency: 1,
                first: "m.csv:2".into()
            }
        );
        assert_eq!(
            err.to_string(),
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
            matches!(&err, Error::MissingColumn { column, .. } if column == "concurrency"),
            "{err:?}"
        );
    }

    #[test]
    fn non_numeric_cell_names_line_and_column() {
        let err = parse_csv("m.csv", &format!("{HEAD}decode,0,1,valid,fast,,,,,,\n")).unwrap_err();
        assert_eq!(err.to_string(), "m.csv:2: column `total_tok_s` has `fast`");
        assert_eq!(
            err.hint().as_deref(),
            Some("a non-negative number, or empty")
        );
    }

    #[test]
    fn short_row_is_an_error() {
        let err = parse_csv("m.csv", &format!("{HEAD}decode,0,1\n")).unwrap_err();
        assert!(
            matches!(&err, Error::Row { origin, line: 2, fields: 11, .. } if origin == "m.csv"),
            "{err:?}"
        );
    }
}
