//! decodecalc's fit (issue 28: the fit is a crate of its own, so the page,
//! which fits nothing, links none of it). Calibration: fit the timing parameters to measured runs by bounded least
//! squares (Levenberg-Marquardt from the `levenberg-marquardt` crate; bounds by
//! a logistic change of variables), jointly over runs on several GPU
//! classes, then say which parameters the data pin down, and cross-validate.
//!
//! The joint model is hierarchical. Each parameter has a shared value `u`
//! (in log-odds of its bounds). A GPU-scope parameter (an efficiency or a
//! kernel floor, [`Scope::Gpu`]) has a deviation `d_c` for each GPU class
//! with data; an engine-scope one (the host's costs, [`Scope::Engine`]) a
//! deviation `d_g` for each engine generation ([`EngineGeneration`]: V0 or
//! V1) with data. A run uses `lo + (hi - lo) logistic(u + d)` with the
//! deviation of its class or of its generation, so what an old release's
//! host costs is not stored as a property of the GPU it was measured on.
//! Two priors keep what the data do not determine at a physical value:
//! every deviation is pulled to 0 with width [`CLASS_PRIOR_LOGODDS`], every
//! shared value to the first-principles one with width
//! [`SHARED_PRIOR_LOGODDS`]. A class or generation with plenty of data
//! moves away from the shared value where its data say so; one with none
//! uses the shared values ([`JointFit::params_for`]).
//!
//! Residuals are log ratios (predicted / measured), so every figure weighs
//! the same whatever its scale: decode total tok/s and time between tokens
//! at weight 1, TTFT at [`WEIGHT_TTFT`], prefill tok/s at 1; for serving
//! runs output throughput and TPOT at 1, TTFT at [`WEIGHT_TTFT`].
//! Per-request tok/s is 1 / time between tokens per request, so it adds no
//! information.

mod joint;
mod report;
mod run;
mod single;

pub mod compare;
pub mod error;
pub mod runs;

pub use decodecalc_core::bands::{
    Figure, HoldOut, Regime, LONG_CONTEXT_TOKENS, MIN_REGIME_FIGURES,
};
pub use decodecalc_core::scenario::SHARED;
pub use joint::*;
pub use report::*;
pub use run::*;
pub use single::*;
