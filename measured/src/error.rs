//! What goes wrong reading a measured run or checking a prediction against
//! it, as typed facts: each variant holds the file, the place in it and the
//! values, and says its message ([`Display`](fmt::Display)), its hint
//! ([`Error::hint`]) and the input it is about ([`Error::subject`]). The
//! faces show it as core's [`decodecalc_core::Error`] (`From`), the one
//! shape the CLI's `error:` / `hint:` lines and the page's error boxes read.

use decodecalc_core::error::{ErrorKind, Subject};
use std::fmt;

/// What a CSV header must hold (a hint lists the columns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderRule {
    /// These columns, in any order, other columns besides.
    Names(String),
    /// Exactly these columns, in this order.
    Exactly(String),
}

impl fmt::Display for HeaderRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderRule::Names(list) => write!(f, "the header must name: {list}"),
            HeaderRule::Exactly(list) => write!(f, "the header must be: {list}"),
        }
    }
}

/// Which measured file format a JSON file was read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonFormat {
    /// llm-inference-bench's `benchmark_results.json`.
    Harness,
    /// `vllm bench serve --save-result`.
    SaveResult,
}

/// An error of this crate.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// An error of the model or of core's input checks (a file too large,
    /// a plan that cannot be simulated), passed on as it is.
    Model(decodecalc_core::Error),
    /// A CSV whose header row cannot be read.
    Header { origin: String, reason: String },
    /// A column the reader needs is not in the header.
    MissingColumn {
        origin: String,
        column: String,
        rule: HeaderRule,
    },
    /// An exact header with another column at `at` (1-based): `wanted` is
    /// None for a column past the last one the file has.
    WrongColumn {
        origin: String,
        at: usize,
        found: String,
        wanted: Option<String>,
        rule: HeaderRule,
    },
    /// A row the CSV reader refuses (another number of fields than the
    /// header's).
    Row {
        origin: String,
        line: usize,
        reason: String,
        fields: usize,
    },
    /// A file with a header and no rows.
    NoRows { origin: String, expected: String },
    /// A CSV field outside what is valid: `at` is `file:LINE: column `name``.
    Cell {
        at: String,
        value: String,
        valid: String,
    },
    /// A JSON file's field outside what is valid.
    Field {
        subject: Subject,
        value: String,
        valid: String,
    },
    /// A file that is not JSON (`truncated`: it ends before the JSON does).
    Json {
        origin: String,
        line: usize,
        column: usize,
        reason: String,
        truncated: bool,
        format: JsonFormat,
    },
    /// JSON of another shape than the format's.
    Shape {
        origin: String,
        what: String,
        format: JsonFormat,
    },
    /// A `--save-result` file whose requests all failed.
    NothingCompleted { origin: String },
    /// More rows than a run may have.
    TooManyRows {
        origin: String,
        rows: usize,
        max: usize,
    },
    /// One cell measured on two rows.
    Twice {
        origin: String,
        context_tokens: u64,
        concurrency: u64,
        first: String,
    },
    /// A measured cell that is not in the scenario's grid: `column` is
    /// `context_tokens` or `concurrency`, `grid` the scenario's list by name.
    OffGrid {
        origin: String,
        column: &'static str,
        value: u64,
        grid: &'static str,
        have: Vec<String>,
    },
}

impl Error {
    /// A JSON file's field with a value outside what is valid.
    pub fn field(subject: Subject, value: impl fmt::Display, valid: impl Into<String>) -> Error {
        Error::Field {
            subject,
            value: value.to_string(),
            valid: valid.into(),
        }
    }

    /// What would be valid, or how to find out.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            Error::Model(e) => return e.hint.clone(),
            Error::Header { .. } => return None,
            Error::MissingColumn { rule, .. } | Error::WrongColumn { rule, .. } => rule.to_string(),
            Error::Row { fields, .. } => format!("each row has {fields} fields"),
            Error::NoRows { expected, .. } => expected.clone(),
            Error::Cell { valid, .. } | Error::Field { valid, .. } => valid.clone(),
            Error::Json {
                format: JsonFormat::Harness,
                ..
            } => "the file must be valid JSON".into(),
            Error::Json {
                format: JsonFormat::SaveResult,
                ..
            } => "give the complete file vllm bench serve --save-result wrote".into(),
            Error::Shape {
                format: JsonFormat::Harness,
                ..
            } => "expected llm-inference-bench's benchmark_results.json: an object with `metadata`, `prefill` and `results`".into(),
            Error::Shape {
                format: JsonFormat::SaveResult,
                ..
            } => format!(
                "give the JSON that vllm bench serve --save-result wrote (it has {}); a harness benchmark_results.json goes with --measured and its scenario",
                crate::bench::REQUIRED_KEYS.join(", ")
            ),
            Error::NothingCompleted { .. } => {
                "a run whose requests all failed measured nothing; check the server's log".into()
            }
            Error::TooManyRows { .. } => "give one row per measured cell".into(),
            Error::Twice { .. } => "keep one row per (phase, context, concurrency) cell".into(),
            Error::OffGrid {
                column: "concurrency",
                ..
            } => "pass --concurrency to match the measured run".into(),
            Error::OffGrid { .. } => "compare against the scenario the run was measured with, or pass --contexts/--prefill-contexts to match".into(),
        })
    }

    /// The input the error is about, where it is one field.
    pub fn subject(&self) -> Option<Subject> {
        match self {
            Error::Model(e) => e.subject.clone(),
            Error::Field { subject, .. } => Some(subject.clone()),
            _ => None,
        }
    }

    /// What kind of fault it is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Model(e) => e.kind,
            Error::Cell { .. } | Error::Field { .. } | Error::OffGrid { .. } => {
                ErrorKind::InvalidValue
            }
            Error::MissingColumn { .. } => ErrorKind::MissingField,
            Error::Header { .. }
            | Error::WrongColumn { .. }
            | Error::Row { .. }
            | Error::Json { .. }
            | Error::Shape { .. } => ErrorKind::Parse,
            Error::NoRows { .. }
            | Error::NothingCompleted { .. }
            | Error::TooManyRows { .. }
            | Error::Twice { .. } => ErrorKind::Other,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Model(e) => f.write_str(&e.message),
            Error::Header { origin, reason } => {
                write!(f, "{origin}: cannot read the header row: {reason}")
            }
            Error::MissingColumn { origin, column, .. } => {
                write!(f, "{origin}:1: missing column `{column}`")
            }
            Error::WrongColumn {
                origin,
                at,
                found,
                wanted: Some(want),
                ..
            } => write!(f, "{origin}:1: column {at} is `{found}`, not `{want}`"),
            Error::WrongColumn {
                origin, at, found, ..
            } => write!(f, "{origin}:1: column {at} (`{found}`) is not one of the file's"),
            Error::Row {
                origin,
                line,
                reason,
                ..
            } => write!(f, "{origin}:{line}: {reason}"),
            Error::NoRows { origin, .. } => write!(f, "{origin}: no rows"),
            Error::Cell { at, value, .. } => write!(f, "{at} has `{value}`"),
            Error::Field { subject, value, .. } => {
                write!(f, "invalid value `{value}` for `{subject}`")
            }
            Error::Json {
                origin,
                line,
                column,
                reason,
                truncated,
                format,
            } => {
                write!(f, "{origin}:{line}:{column}: ")?;
                if *format == JsonFormat::SaveResult {
                    f.write_str(if *truncated {
                        "ends before the JSON does (a truncated file?): "
                    } else {
                        "is not valid JSON: "
                    })?;
                }
                f.write_str(reason)
            }
            Error::Shape {
                origin,
                what,
                format: JsonFormat::Harness,
            } => write!(f, "{origin}: {what}"),
            Error::Shape { origin, what, .. } => write!(
                f,
                "{origin}: not a `vllm bench serve --save-result` file: {what}"
            ),
            Error::NothingCompleted { origin } => write!(f, "{origin}: no request completed"),
            Error::TooManyRows { origin, rows, max } => write!(
                f,
                "{origin}: {rows} measured rows, more than the {max} a run may have"
            ),
            Error::Twice {
                origin,
                context_tokens,
                concurrency,
                first,
            } => write!(
                f,
                "{origin}: the cell {context_tokens} x {concurrency} is measured twice (also at {first})"
            ),
            Error::OffGrid {
                origin,
                column,
                value,
                grid,
                have,
            } => write!(
                f,
                "{origin}: column `{column}` has {value}, which is not among the scenario's {grid} ({})",
                have.join(", ")
            ),
        }
    }
}

impl std::error::Error for Error {}

impl From<decodecalc_core::Error> for Error {
    fn from(e: decodecalc_core::Error) -> Error {
        Error::Model(e)
    }
}

/// The error as the faces show it: its message, hint, kind and subject.
impl From<Error> for decodecalc_core::Error {
    fn from(e: Error) -> decodecalc_core::Error {
        if let Error::Model(inner) = e {
            return inner;
        }
        let mut out = decodecalc_core::Error::new(e.to_string()).of_kind(e.kind());
        out.hint = e.hint();
        out.subject = e.subject();
        out
    }
}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_faces_see_the_message_hint_kind_and_subject_of_the_variant() {
        let e = Error::Field {
            subject: Subject::in_file("r.json", "burstiness"),
            value: "-1".into(),
            valid: "a positive number".into(),
        };
        let shown = decodecalc_core::Error::from(e);
        assert_eq!(shown.message, "invalid value `-1` for `r.json: burstiness`");
        assert_eq!(shown.hint.as_deref(), Some("a positive number"));
        assert_eq!(shown.kind, ErrorKind::InvalidValue);
        assert_eq!(
            shown.subject,
            Some(Subject::in_file("r.json", "burstiness"))
        );
        // Core's errors pass through unchanged.
        let core = decodecalc_core::Error::new("too large").with_hint("smaller");
        assert_eq!(
            decodecalc_core::Error::from(Error::from(core.clone())),
            core
        );
        let off = Error::OffGrid {
            origin: "m.csv:3".into(),
            column: "concurrency",
            value: 3,
            grid: "concurrency levels",
            have: vec!["1".into(), "2".into()],
        };
        assert_eq!(
            off.to_string(),
            "m.csv:3: column `concurrency` has 3, which is not among the scenario's concurrency levels (1, 2)"
        );
        assert_eq!(
            off.hint().as_deref(),
            Some("pass --concurrency to match the measured run")
        );
    }
}
