//! decodecalc-core: the pure model of how vLLM 0.32 sizes and spends GPU memory
//! when it serves a model, and what a benchmark harness then sees per cell.
//!
//! Invariants (see ARCHITECTURE.md):
//! - no I/O, no clock, no environment: every input arrives as a value or a
//!   `&str` with a name for error messages; embedded presets are compile-time data;
//! - no panic on any input: every fallible step returns [`Error`];
//! - byte counts are `u64`, token counts are `u64`, units are named in identifiers.

pub mod allocator;
pub mod arrivals;
pub mod bands;
pub mod breakdown;
pub mod command;
pub mod config;
pub mod dtype;
pub mod engine;
pub mod error;
pub mod flags;
pub mod gpu;
pub mod harness;
pub mod matrix;
pub mod memory;
pub mod model;
pub mod multimodal;
pub mod parse;
pub mod presets;
pub mod quant;
pub mod rank;
pub mod scenario;
pub mod serve;
pub mod solve;
pub mod speculative;
mod stats;
pub mod timing;
pub mod units;
pub mod version;
pub mod vllm_log;
pub mod warning;

pub use error::{AsSubject, Error, ErrorKind, Subject};
pub use warning::Warning;

/// The vLLM release whose behaviour this crate models. Every formula that
/// depends on the engine's version cites `docs/reference/vllm-memory-model.md`.
pub const VLLM_VERSION: &str = "0.32.0";
