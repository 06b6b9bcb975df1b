//! What goes wrong fitting, as typed facts: each variant holds its values and
//! says its message ([`Display`](fmt::Display)) and hint ([`Error::hint`]).
//! The faces show it as core's [`decodecalc_core::Error`] (`From`), as they
//! show [`decodecalc_measured::error::Error`], which a fit passes on.

use decodecalc_core::error::{ErrorKind, Subject};
use std::fmt;

/// An error of this crate.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// An error of the model (a run's setup the model refuses), passed on.
    Model(decodecalc_core::Error),
    /// An error reading a measured file, passed on.
    Measured(decodecalc_measured::error::Error),
    /// A runs file with more rows than a file may have.
    TooManyRows { origin: String, max: usize },
    /// Rows of one run id with different setups.
    SetupDiffers {
        origin: String,
        run: String,
        first: String,
    },
    /// A run's point on two rows.
    PointTwice {
        origin: String,
        run: String,
        point: String,
    },
    /// A run with no rows.
    EmptyRun,
    /// A run whose setup the model cannot resolve (its GPU, model or flags).
    InRun {
        origin: String,
        run: String,
        error: Box<decodecalc_core::Error>,
    },
    /// More runs than one calibration takes.
    TooManyRuns { runs: usize, max: usize },
    /// More measured figures than one calibration takes.
    TooManyFigures { figures: usize, max: usize },
    /// Too few measured figures for the parameters.
    TooFewFigures { figures: usize, params: usize },
    /// No starting point of the least squares ran.
    DidNotRun,
}

impl Error {
    /// What would be valid, or how to find out.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            Error::Model(e) => return e.hint.clone(),
            Error::InRun { error, .. } => return error.hint.clone(),
            Error::Measured(e) => return e.hint(),
            Error::TooManyRows { .. } => "split the runs across files".into(),
            Error::SetupDiffers { .. } => "rows of one run share vllm_version, model, gpu, tensor_parallel_size, max_model_len, gpu_memory_utilization, workload, hf_overrides, quantization, kv_cache_dtype, speculative_config, max_num_seqs, max_num_batched_tokens, available_kv_gib, data_parallel_size and enable_expert_parallel; give the row another run id".into(),
            Error::PointTwice { .. } => "each point of a run has its own id".into(),
            Error::EmptyRun | Error::DidNotRun => return None,
            Error::TooManyRuns { .. } => {
                "split the measured runs into several calibrations (one per GPU class)".into()
            }
            Error::TooManyFigures { .. } => {
                "fit on fewer runs or points (one GPU class at a time)".into()
            }
            Error::TooFewFigures { .. } => "calibrate on measured runs with at least two dozen figures between them (a harness run with prefill rows and a dozen decode cells, or several serving runs)".into(),
        })
    }

    /// The input the error is about, where it is one field.
    pub fn subject(&self) -> Option<Subject> {
        match self {
            Error::Model(e) => e.subject.clone(),
            Error::Measured(e) => e.subject(),
            _ => None,
        }
    }

    /// What kind of fault it is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Model(e) => e.kind,
            Error::Measured(e) => e.kind(),
            Error::InRun { error, .. } => error.kind,
            Error::SetupDiffers { .. } | Error::PointTwice { .. } => ErrorKind::InvalidValue,
            _ => ErrorKind::Other,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Model(e) => f.write_str(&e.message),
            Error::Measured(e) => write!(f, "{e}"),
            Error::TooManyRows { origin, max } => write!(f, "{origin}: more than {max} rows"),
            Error::SetupDiffers { origin, run, first } => {
                write!(f, "{origin}: run `{run}` has another setup than on {first}")
            }
            Error::PointTwice { origin, run, point } => {
                write!(f, "{origin}: run `{run}` has point `{point}` twice")
            }
            Error::EmptyRun => f.write_str("a run with no rows"),
            Error::InRun { origin, run, error } => {
                write!(f, "{origin}: run `{run}`: {}", error.message)
            }
            Error::TooManyRuns { runs, max } => {
                write!(f, "{runs} runs to fit; a calibration takes at most {max}")
            }
            Error::TooManyFigures { figures, max } => write!(
                f,
                "{figures} measured figures to fit; a calibration takes at most {max}"
            ),
            Error::TooFewFigures { figures, params } => write!(
                f,
                "only {figures} measured figures to fit {params} parameters"
            ),
            Error::DidNotRun => f.write_str("the fit did not run"),
        }
    }
}

impl std::error::Error for Error {}

impl From<decodecalc_core::Error> for Error {
    fn from(e: decodecalc_core::Error) -> Error {
        Error::Model(e)
    }
}

impl From<decodecalc_measured::error::Error> for Error {
    fn from(e: decodecalc_measured::error::Error) -> Error {
        Error::Measured(e)
    }
}

/// The error as the faces show it: its message, hint, kind and subject.
impl From<Error> for decodecalc_core::Error {
    fn from(e: Error) -> decodecalc_core::Error {
        match e {
            Error::Model(inner) => inner,
            Error::Measured(inner) => inner.into(),
            e => {
                let mut out = decodecalc_core::Error::new(e.to_string()).of_kind(e.kind());
                out.hint = e.hint();
                out.subject = e.subject();
                out
            }
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
