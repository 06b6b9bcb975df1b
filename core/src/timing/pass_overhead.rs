//! What a speculative drafter's pass costs beyond its kernels' bytes and
//! FLOPs, by GPU calibration class: fitted on published runs, since no
//! kernel table times it (README, "Speculative decoding").

/// Seconds each drafter pass costs beyond its kernels' work on a GPU of a
/// calibration class without published speculative runs: the mean absolute
/// log error's minimum over every published MTP run
/// (`data/runs/speculative-decoding.csv` and `speculative-sweeps.csv`; 0.25
/// ms grid). Kernels alone predict every run faster than measured (+18% to
/// +415%): what a pass adds on the host (its PIECEWISE graph, the blocking
/// copies of `seq_lens`, the vocabulary gather and argmax, the next pass's
/// inputs; docs/reference/speculative-decoding/FINDINGS.md, section E) is
/// not derived from kernels. The README gives the leave-one-run-out errors
/// (`tests/tests/suite/speculative_accuracy.rs`).
pub const SPEC_PASS_OVERHEAD_S: f64 = 2.0e-3;

/// The same, fitted on one calibration class's own published MTP runs
/// where it has them (the same fit, restricted to the class;
/// `speculative_accuracy::the_shipped_pass_overheads_are_the_fits`):
/// - `ampere-geforce`: the two RTX 3090 pairs (Qwen3.6-27B NVFP4 through
///   Marlin, vLLM 0.24.0; Qwen3.6-35B-A3B int4, a 0.20 nightly). Their MTP
///   steps take 46 to 57 ms and 30 to 38 ms where the kernels say 21 and
///   9 ms, and the 35B-A3B run is slower with MTP than without; its source
///   saw GPU 0 39% busy. One compose on five other hosts' RTX 3090 pairs
///   (`data/runs/speculative-cross-rig.csv`, no fit reads it) is predicted
///   with this at 19% MAPE, so it is not one host's; its cause is not
///   known (FINDINGS.md, sections E and F). Every run is a Qwen3.5/3.6
///   hybrid: a dense Gemma 4 31B with its assistant drafter on the same
///   rig, not in the data, implies 3 to 5 ms.
/// - `blackwell-geforce`: the RTX 5090 and RTX PRO 6000 runs.
/// - `blackwell-datacenter`: DeepSeek-V3.2 on eight B300s (one run).
pub const SPEC_PASS_OVERHEAD_BY_CLASS: [ClassPassOverhead; 3] = [
    ClassPassOverhead {
        class: "ampere-geforce",
        seconds: 9.75e-3,
        fitted_on: "two RTX 3090 pairs' runs, both Qwen3.5/3.6 hybrids",
    },
    ClassPassOverhead {
        class: "blackwell-geforce",
        seconds: 2.0e-3,
        fitted_on: "six RTX 5090 and RTX PRO 6000 runs",
    },
    ClassPassOverhead {
        class: "blackwell-datacenter",
        seconds: 1.5e-3,
        fitted_on: "one run on eight B300s",
    },
];

/// One entry of [`SPEC_PASS_OVERHEAD_BY_CLASS`]: a class, its pass
/// overhead, and the runs it was fitted on, in words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassPassOverhead {
    pub class: &'static str,
    pub seconds: f64,
    pub fitted_on: &'static str,
}

/// The pass overhead fitted on class `class`'s own runs, if it has any.
pub fn class_pass_overhead(class: &str) -> Option<&'static ClassPassOverhead> {
    SPEC_PASS_OVERHEAD_BY_CLASS
        .iter()
        .find(|c| c.class == class)
}

/// The drafter's pass overhead on a GPU of calibration class `class`:
/// the class's own fit where it has one, else [`SPEC_PASS_OVERHEAD_S`].
pub fn spec_pass_overhead_s(class: &str) -> f64 {
    class_pass_overhead(class).map_or(SPEC_PASS_OVERHEAD_S, |c| c.seconds)
}
