//! The integration tests of `data/`, the core and the CLI, as one test
//! binary: one link of the core instead of one per file, and the joint
//! calibration's report, the heaviest fixture, computed once per run
//! (`calibration::report`). Each module is one concern; run
//! one with `cargo test -p decodecalc-tests --test suite <module>::`.

// Tests assert by panicking; the workspace's no-panic lints are for the product.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod calibration;
mod cli;
mod configs;
mod corpus;
mod data;
mod engine_flags;
mod expert_parallel;
mod expert_parallel_timing;
mod fuzz;
mod gpus;
mod held_out;
mod hybrid_blocks;
mod invariants;
mod kernel_tables;
mod minimax;
mod numbers;
mod planning;
mod readme;
mod reference;
mod refusals;
mod routing;
mod solve;
mod speculative;
mod speculative_accuracy;
mod speculative_methods;
mod speculative_sweeps;
mod startup_logs;
mod timing;
mod versions;
mod vllm_log;
