//! Measured runs, the inputs decodecalc checks itself against: the
//! benchmark harness's `benchmark_results.json` and decodecalc's CSV
//! ([`rows`], over [`columns`], the one CSV reader of measured data), `vllm
//! bench serve --save-result` files and what the model predicts for them
//! ([`bench`]), and predicted against measured cell by cell ([`compare`]).
//!
//! Pure like core (no I/O: texts come in as `&str`), and apart from it: the
//! model does not know how it is measured. The CLI, the page and the fit
//! depend on this crate; core does not.

pub mod bench;
pub mod columns;
pub mod compare;
pub mod error;
pub mod rows;
