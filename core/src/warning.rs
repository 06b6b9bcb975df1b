//! What a prediction assumed or left out that its user should know, as
//! typed facts: which flag, which figure of which log, which model. A face
//! shows them (the CLI as `warning:` lines on stderr, the page as notes
//! beside the figures) through `Display`, their one wording; a test or a
//! face that needs the fact matches the variant, not the sentence.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Warning {
    /// A pasted `docker run vllm/vllm-openai:TAG` line whose tag names no
    /// release.
    ImageTagWithoutRelease { tag: String },
    /// A word of a launch line that is neither a flag nor the model.
    IgnoredArgument { word: String },
    /// A flag of a launch line that decodecalc reads but does not model
    /// (`flag` as written, with its value).
    FlagNotModelled { flag: String },
    /// A flag of a launch line that vLLM 0.32 does not have.
    UnknownFlag { flag: String },
    /// `--model` given beside a launch line that names another model.
    ModelOverridesLaunchLine { given: String, launch_line: String },
    /// A pasted launch line that is an embedded scenario's own.
    LaunchLineIsScenario { scenario: String },
    /// A figure of a start-up log the prediction misses by more than the
    /// log's rounding and the figure's band.
    LoggedFigureDiffers {
        log: String,
        figure: &'static str,
        logged: f64,
        predicted: f64,
        error_pct: f64,
    },
    /// Flags a start-up log lists that are not modelled.
    LogFlagsNotModelled { log: String, flags: Vec<String> },
    /// The acceptance per position taken from a log's `SpecDecoding
    /// metrics` (as `--spec-acceptance` would give it).
    LogAcceptance { log: String, rates: String },
    /// The KV pool pinned to a log's available KV cache memory.
    KvPoolFromLog { log: String, gib: f64 },
    /// An entry of a checkpoint's unquantized-module list that names no
    /// module of the model.
    UnmatchedUnquantized { model: String, entry: String },
    /// DeepSeek-V4's compressed attention, timed as dense MLA.
    Dsv4AttentionTimedDense { model: String },
    /// DeepSeek sparse attention's top-k decode, timed as dense MLA.
    SparseAttentionTimedDense { model: String },
    /// Data-parallel replicas of a MoE model: what the timing leaves out.
    DataParallelMoeTiming { replicas: u64 },
    /// The speculative decoding a prediction assumes: method, draft tokens,
    /// acceptance per position and where it came from.
    SpeculativeAcceptance {
        method: &'static str,
        draft_tokens: u64,
        acceptance: Vec<f64>,
        mean_acceptance_length: f64,
        source: String,
    },
    /// The fixed time each drafter pass costs beyond its kernels on this
    /// GPU's class (`timing::spec_pass_overhead_s`): `fitted_on` names the
    /// class's own published runs, where it has some.
    SpeculativePassOverhead {
        class: &'static str,
        ms: f64,
        fitted_on: Option<&'static str>,
    },
    /// A mixture-of-experts model timed with a calibration fitted on no MoE
    /// run. `moe_bands`: its bands are those of MoE serving runs no fit saw
    /// (`bands::HoldOut::UnfittedMoeRuns`); else they are dense models'.
    MoeFittedOnDenseRuns {
        model: String,
        calibration: String,
        moe_bands: bool,
    },
    /// Fields of `--speculative-config` read but not modelled.
    SpeculativeFieldsNotModelled { fields: Vec<String> },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::ImageTagWithoutRelease { tag } => {
                write!(f, "the image tag `{tag}` names no release; give --vllm-version")
            }
            Warning::IgnoredArgument { word } => write!(f, "ignored argument `{word}`"),
            Warning::FlagNotModelled { flag } => {
                write!(f, "{flag} is not modelled: predictions assume its default")
            }
            Warning::UnknownFlag { flag } => write!(f, "unknown flag {flag} ignored"),
            Warning::ModelOverridesLaunchLine { given, launch_line } => write!(
                f,
                "--model {given} overrides the launch line's model {launch_line}"
            ),
            Warning::LaunchLineIsScenario { scenario } => write!(
                f,
                "the launch line is scenario {scenario}'s; using its harness settings and measured memory"
            ),
            Warning::LoggedFigureDiffers {
                log,
                figure,
                logged,
                predicted,
                error_pct,
            } => write!(
                f,
                "{log}: {figure} is {logged} in the log, {predicted:.2} here ({error_pct:+.2}%): check the model, GPU and flags"
            ),
            Warning::LogFlagsNotModelled { log, flags } => write!(
                f,
                "{log}: flags of the log not modelled: {}",
                flags.join(", ")
            ),
            Warning::LogAcceptance { log, rates } => write!(
                f,
                "{log}: speculative decoding's acceptance per position is the log's (SpecDecoding metrics): {rates}"
            ),
            Warning::KvPoolFromLog { log, gib } => write!(
                f,
                "{log}: the KV pool is the log's available KV cache memory ({gib} GiB)"
            ),
            Warning::UnmatchedUnquantized { model, entry } => write!(
                f,
                "{model}: `{entry}` in the checkpoint's unquantized-module list names no module of this model; it changes nothing"
            ),
            Warning::Dsv4AttentionTimedDense { model } => write!(
                f,
                "{model}: DeepSeek-V4's attention is timed as dense MLA over the context with its compressed caches' bytes; the compressed layers' fewer (query, key) pairs and the indexer's top-k selection are not modelled"
            ),
            Warning::SparseAttentionTimedDense { model } => write!(
                f,
                "{model}: DeepSeek sparse attention's decode (each query reads only its top-k tokens) is not modelled; the time between tokens is that of dense MLA, too slow at long contexts"
            ),
            Warning::DataParallelMoeTiming { replicas } => write!(
                f,
                "timing with {replicas} data-parallel replicas of a MoE model: the other replicas' prefill chunks, which stall every replica in lock-step, are not modelled (speed figures are a replica's own timeline, so time per output token reads low while prompts arrive), nor links between servers"
            ),
            Warning::SpeculativeAcceptance {
                method,
                draft_tokens,
                acceptance,
                mean_acceptance_length,
                source,
            } => {
                let rates: Vec<String> = acceptance.iter().map(|r| format!("{r:.2}")).collect();
                write!(
                    f,
                    "speculative decoding: {method} with {draft_tokens} draft tokens, acceptance per position {} (mean acceptance length {mean_acceptance_length:.2}) from {source}; the speed-up depends on the workload's text: measure it (vLLM logs SpecDecoding metrics) and give --spec-acceptance",
                    rates.join(", ")
                )
            }
            Warning::SpeculativePassOverhead {
                class,
                ms,
                fitted_on,
            } => f.write_str(&pass_overhead_text(class, *ms, *fitted_on)),
            Warning::SpeculativeFieldsNotModelled { fields } => write!(
                f,
                "speculative decoding: fields not modelled (no figure changes): {}",
                fields.join(", ")
            ),
            Warning::MoeFittedOnDenseRuns {
                model,
                calibration,
                moe_bands: true,
            } => write!(
                f,
                "{model} is a mixture-of-experts model and calibration {calibration} was fitted on no MoE run: its error bands are those of published MoE serving runs no fit saw, wider than a dense model's (README, \"How close it is on runs it was not fitted on\")"
            ),
            Warning::MoeFittedOnDenseRuns {
                model,
                calibration,
                moe_bands: false,
            } => write!(
                f,
                "{model} is a mixture-of-experts model and calibration {calibration} was fitted on no MoE run: its error bands are dense models'; published MoE serving runs no fit saw were predicted further off (README, \"How close it is on runs it was not fitted on\")"
            ),
        }
    }
}

/// A warning in JSON output is its sentence, as the faces show it.
impl serde::Serialize for Warning {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Warning {
    /// The note on the drafter's pass overhead a GPU of calibration class
    /// `class` is timed with (`timing::spec_pass_overhead_s`).
    pub fn pass_overhead(class: &'static str) -> Warning {
        Warning::SpeculativePassOverhead {
            class,
            ms: crate::timing::spec_pass_overhead_s(class) * 1e3,
            fitted_on: crate::timing::class_pass_overhead(class).map(|c| c.fitted_on),
        }
    }
}

/// [`Warning::SpeculativePassOverhead`]'s text: the class's own fit and its
/// runs, or the fit over every run and the range of the classes' own.
fn pass_overhead_text(class: &str, ms: f64, fitted_on: Option<&str>) -> String {
    if let Some(runs) = fitted_on {
        return format!(
            "speculative decoding: each drafter pass costs {ms:.2} ms beyond its kernels, fitted on published runs of this GPU's class ({class}: {runs}); the host's speed moves it (README, \"Speculative decoding\")"
        );
    }
    let (lo, hi) = crate::timing::SPEC_PASS_OVERHEAD_BY_CLASS
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), c| {
            (lo.min(c.seconds), hi.max(c.seconds))
        });
    format!(
        "speculative decoding: each drafter pass costs {ms:.2} ms beyond its kernels, the fit over every published MTP run; no published speculative run is of this GPU's class ({class}), and the classes' own fits range from {:.2} to {:.2} ms (README, \"Speculative decoding\")",
        lo * 1e3,
        hi * 1e3
    )
}
