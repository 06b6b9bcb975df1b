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

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "phase,context_tokens,concurrency,status,total_tok_s,per_request_tok_s,ttft_ms,tbt_ms,avg_active_requests,output_tokens,measured_s\n";

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
