//! The façade the faces call: the CLI (`decodecalc`) and the page
//! (`decodecalc-web`) reach the model through this crate and through no
//! other (the page's `Cargo.toml` names no other decodecalc crate, so Cargo
//! holds it; the CLI adds `decodecalc-fit` for `calibrate`).
//!
//! Two things live here and nowhere else:
//! - [`Setup`]: what the user said, resolved (the plan) with its memory
//!   (the capacity), and the predictor every timed answer starts from;
//! - [`measured::Run`]: a measured file read as whichever of the two
//!   formats it is (a harness matrix or a `vllm bench serve` result) and
//!   checked against a setup's predictor ([`measured::Run::check`]).
//!
//! The rest is the model's vocabulary, named once, module by module as the
//! crates that own it call them: each module below lists the items the
//! faces use, so this file is the map of what a face may touch. An item a
//! face needs and this file does not list is added here, with the concern
//! it belongs to; nothing else of core (the layer arithmetic, the readers'
//! internals, the allocator's steps) is reachable from a face.

mod setup;

pub use decodecalc_core::{Error, ErrorKind, Subject, Warning, VLLM_VERSION};
pub use setup::Setup;

/// What a user gives: the scenario as one value, the files it names (the
/// `World`), the Hub, and scenario and calibration files.
pub mod scenario {
    pub use decodecalc_core::scenario::{
        hub_refusal, is_hub_repo, load_model, load_text, model_for_repo, Band, Calibration,
        CalibrationFile, Capacity, Entry, ErrorBands, HubError, HubFailure, NoFiles, Plan,
        ReadError, Request, ScenarioFile, World, HUB_ENDPOINT, HUB_FILES,
    };
}

/// Every flag, in the two tables the CLI's arguments and the page's form
/// are generated from.
pub mod flags {
    pub use decodecalc_core::flags::{
        choices, describe, EngineFlag, FlagGroup, FlagKind, RequestFlag, ENGINE_FLAGS,
        REQUEST_FLAGS,
    };
}

/// Engine settings: a flag's label and the list values flags take.
pub mod engine {
    pub use decodecalc_core::engine::{flag, parse_count_list, EngineSettings};
}

/// The embedded presets (models, GPUs, scenarios, measured runs).
pub mod presets {
    pub use decodecalc_core::presets::{find, Kind, FILES};
}

/// The vLLM releases modelled.
pub mod version {
    pub use decodecalc_core::version::{CAPACITY_OLDEST, CHANGES, MODELLED, NEWEST};
}

/// `--speculative-config` and `--spec-acceptance`.
pub mod speculative {
    pub use decodecalc_core::speculative::{parse_acceptance, Speculative, SpeculativeConfig};
}

/// The bound every input text is held to.
pub mod parse {
    pub use decodecalc_core::parse::MAX_INPUT_BYTES;
}

/// The harness's workload and vLLM's length rule.
pub mod harness {
    pub use decodecalc_core::harness::{check_model_len, Workload};
}

/// The memory breakdown as rows.
pub mod breakdown {
    pub use decodecalc_core::breakdown::{grouped, grouped_f, Amount, BreakdownRow, Segment};
}

/// The KV cache's running-request limit.
pub mod allocator {
    pub use decodecalc_core::allocator::RunningLimit;
}

/// The matrix of cells and its predictor.
pub mod matrix {
    pub use decodecalc_core::matrix::{Cell, Matrix, Phase, Predictor, Status};
}

/// The inverse questions.
pub mod solve {
    pub use decodecalc_core::solve::{
        alternatives, sizing_workload, smallest_max_model_len, smallest_utilization,
        MaxConcurrency, MaxContext, SmallestSetting, SpeedTarget,
    };
}

/// Configurations ranked for a workload.
pub mod rank {
    pub use decodecalc_core::rank::{Question, Ranked, Ranking, Workload, RANKED_TP_SIZES};
}

/// Error bands as data.
pub mod bands {
    pub use decodecalc_core::bands::{Figure, HoldOut, Regime, MIN_REGIME_FIGURES};
}

/// The timing's parameters and a cell's timing.
pub mod timing {
    pub use decodecalc_core::timing::{
        prefill_row, spec_pass_overhead_s, DecodeTiming, Scope, TimingParams,
    };
}

/// A serving run simulated (`vllm bench serve`'s workload and figures).
pub mod serve {
    pub use decodecalc_core::serve::{
        Arrival, ServeResult, Workload, DEFAULT_BURSTINESS, DEFAULT_SEED,
    };
}

/// When `vllm bench serve` sends each request.
pub mod arrivals {
    pub use decodecalc_core::arrivals::Pacing;
}

/// Tokens, bytes and numbers as text.
pub mod units {
    pub use decodecalc_core::units::{format_tokens, gib, mib, parse_tokens, FromText, MIB};
}

/// Measured runs and the comparison with them (`decodecalc-measured`), and
/// a measured file read as the format it is.
pub mod measured {
    pub use decodecalc_measured::bench::{self, BenchResult, FigureComparison};
    pub use decodecalc_measured::compare::{
        check_rows, compare, CellComparison, Comparison, Figures, Metric, Metrics, Summary,
    };
    pub use decodecalc_measured::rows::{parse_measured, MeasuredRow};

    pub use crate::setup::{Checked, Run};
}
