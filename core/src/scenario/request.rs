//! What a user asked for ([`Request`]), resolved against a [`World`] into a [`Plan`].

use super::*;
use crate::engine::plain;
use crate::harness::{parse_count_list, parse_token_list};
use crate::Subject;

/// What a user asked for: a scenario and/or explicit values that override it.
/// Both faces build it flag by flag with [`Request::set`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    /// Scenario preset id or path. With no scenario, no model and no GPU, the
    /// reference scenario.
    pub scenario: Option<String>,
    pub model: Option<String>,
    pub gpu: Option<String>,
    pub engine: EngineSettings,
    pub harness: HarnessSettings,
    /// Use the first-principles non-KV estimate even where the scenario pins one.
    pub estimate_non_kv: bool,
    /// Timing calibration: a preset id, a path, or `none`. Default: the
    /// scenario's, else one fitted on the same GPU, else `none`.
    pub calibration: Option<String>,
    /// A pasted `vllm serve ...` line; explicit values above override it.
    pub vllm_command: Option<String>,
    /// A vLLM start-up log (origin, text): its release, model and flags set
    /// the setup where nothing explicit does, its available KV memory pins
    /// the pool, and its figures are checked against the prediction
    /// ([`crate::vllm_log`]).
    pub vllm_log: Option<(String, String)>,
}

impl Request {
    /// Set one flag from its text as the user typed it: an engine flag
    /// (`flags::ENGINE_FLAGS`) or a request flag (`flags::REQUEST_FLAGS`),
    /// named without its dashes (`max-num-seqs`, `contexts`). The one place
    /// the command line and the web form turn text into a request. An empty
    /// value is refused (leave the flag out for its default).
    pub fn set(&mut self, flag: &str, text: &str) -> Result<()> {
        if let Some((f, on)) = crate::flags::find(flag) {
            let value = (f.kind != crate::flags::FlagKind::Set).then_some(text);
            return self.engine.set_flag(f, value, on);
        }
        let dashed = format!("--{flag}");
        let lists = ["contexts", "prefill-contexts", "concurrency"];
        if text.trim().is_empty() && !lists.contains(&flag) {
            return Err(Error::field(
                &dashed,
                text,
                "a value; leave the flag out for its default",
            ));
        }
        let owned = Some(text.to_string());
        match flag {
            "scenario" => self.scenario = owned,
            "model" => self.model = owned,
            "gpu" => self.gpu = owned,
            "calibration" => self.calibration = owned,
            "vllm-command" => self.vllm_command = owned,
            "vllm-log" => self.vllm_log = Some((dashed, text.to_string())),
            "contexts" => self.harness.contexts = Some(parse_token_list(&dashed, text)?),
            "prefill-contexts" => {
                self.harness.prefill_contexts = Some(parse_token_list(&dashed, text)?)
            }
            "concurrency" => self.harness.concurrency = Some(parse_count_list(&dashed, text)?),
            "max-tokens" => {
                self.harness.max_tokens =
                    Some(crate::units::parse_human_int(text).ok_or_else(|| {
                        Error::field(&dashed, text, "a whole number of tokens, such as 8192")
                    })?)
            }
            "workload" => {
                self.harness.workload = Some(crate::harness::Workload::parse(&dashed, text)?)
            }
            "estimate-non-kv" => self.estimate_non_kv = true,
            _ => {
                return Err(Error::new(format!("unknown flag `{dashed}`"))
                    .with_hint("see `decodecalc matrix --help` for the flags")
                    .of_kind(crate::ErrorKind::InvalidValue)
                    .about(dashed))
            }
        }
        Ok(())
    }
}

/// Where the non-KV figure in use came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NonKvSource {
    /// First-principles estimate.
    Estimated,
    /// Pinned by the scenario file (`[memory]`), with its derivation.
    Pinned { derivation: String },
}

/// A resolved scenario, ready to compute.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    pub scenario_id: String,
    pub measured: Option<String>,
    pub model: LoadedModel,
    /// What one GPU column holds across the pipeline: the model's tensor-parallel
    /// shard with every layer, in the served dtype (the model itself without
    /// tensor parallelism). A decode step runs through all of it, stage after
    /// stage.
    pub per_gpu: crate::model::Model,
    /// The pipeline stages (one without pipeline parallelism).
    pub stages: Vec<crate::model::PipelineStage>,
    /// The stage that sizes the KV cache: vLLM gives every worker the same
    /// number of blocks, the smallest any worker can hold
    /// (`get_kv_cache_configs` in vllm/v1/core/kv_cache_utils.py, read at its
    /// newest stored version), so the stage with the fewest blocks decides.
    pub kv_stage: crate::model::PipelineStage,
    /// What one GPU of `kv_stage` holds (its layers of `per_gpu`).
    pub kv_stage_model: crate::model::Model,
    pub gpu: Gpu,
    pub engine: EngineArgs,
    pub harness: Harness,
    pub estimate: NonKvEstimate,
    pub non_kv_bytes: u64,
    pub non_kv_source: NonKvSource,
    pub calibration: Calibration,
    /// What was not applied or was assumed (shown as warnings).
    pub warnings: Vec<crate::Warning>,
    /// A start-up log's figures against the prediction, when one was given.
    pub log_check: Vec<crate::vllm_log::LogFigure>,
}

impl Request {
    pub fn resolve(&self, world: &dyn World) -> Result<Plan> {
        match &self.vllm_log {
            Some((origin, text)) => self.resolve_with_log(world, origin, text),
            None => self.resolve_plain(world),
        }
    }

    /// With a start-up log: the log's release, model and flags under the
    /// explicit ones; the prediction without the log's pool, then the plan
    /// with the pool pinned to the logged available memory, carrying each
    /// logged figure against the prediction.
    /// This request under a start-up log: the log's release, model and
    /// flags beneath the explicit ones, the log itself dropped.
    fn under_log(&self, origin: &str, log: &crate::vllm_log::VllmLog) -> Result<Request> {
        let mut base = self.clone();
        base.vllm_log = None;
        base.engine = log.settings.overlay(&self.engine);
        if base.engine.vllm_version.is_none() {
            base.engine.vllm_version = log.version.map(|v| v.to_string());
        }
        if base.model.is_none() && base.scenario.is_none() && base.vllm_command.is_none() {
            if let Some(m) = &log.model {
                base.model = Some(model_for_repo(m).map_err(|e| e.context(origin))?);
            }
        }
        Ok(base)
    }

    fn resolve_with_log(&self, world: &dyn World, origin: &str, text: &str) -> Result<Plan> {
        use crate::vllm_log::{parse, LogFigure};
        let log = parse(origin, text)?;
        let mut base = self.under_log(origin, &log)?;
        let acceptance_note = log_acceptance(origin, &log, &mut base.engine);
        let predicted_plan = base.resolve_plain(world)?;
        let predicted = predicted_plan.capacity()?;
        let mut pinned = base.clone();
        let pins = log.available_kv_gib.is_some() && base.engine.kv_cache_memory_bytes.is_none();
        if let (true, Some(gib)) = (pins, log.available_kv_gib) {
            let bytes = crate::units::saturating_u64((gib * crate::units::GIB as f64).round());
            // A pool larger than the card: the log was taken on another GPU
            // than the one predicted (without --gpu, the reference RTX 3090).
            let gpu = &predicted_plan.gpu;
            if bytes > gpu.memory_bytes {
                return Err(Error::new(format!(
                    "{origin}: the log's available KV cache memory ({gib:.2} GiB) is more than the GPU's {:.2} GiB ({})",
                    crate::units::gib(gpu.memory_bytes),
                    gpu.id
                ))
                .with_hint("pass --gpu with the GPU the log was taken on (`decodecalc presets` lists them)")
                .about("--gpu"));
            }
            pinned.engine.kv_cache_memory_bytes = Some(i64::try_from(bytes).unwrap_or(i64::MAX));
        }
        let mut plan = pinned.resolve_plain(world)?;
        let cap = plan.capacity()?;
        let gib = |b: u64| b as f64 / crate::units::GIB as f64;
        // The log prints GiB to two decimals: half a unit is in the band.
        let rounding = |logged: f64| 100.0 * 0.005 / logged.max(0.01);
        // Each logged figure: its value, the prediction, and the band (in %)
        // it may differ by; a logged count of two decimals (concurrency) or a
        // GiB figure is also off by half its last digit.
        let logged = [
            (
                "weights GiB (Model loading took)",
                log.model_loading_gib,
                gib(predicted.weights_bytes),
                1.0,
                true,
            ),
            (
                "available KV cache memory GiB (predicted)",
                log.available_kv_gib,
                gib(predicted.kv_pool_bytes),
                3.0,
                true,
            ),
            (
                "GPU KV cache size tokens (from the logged pool)",
                log.kv_cache_tokens.map(|t| t as f64),
                cap.kv_cache_tokens as f64,
                0.5,
                false,
            ),
            (
                "maximum concurrency (from the logged pool)",
                log.max_concurrency.map(|(_, x)| x),
                cap.max_concurrency,
                0.5,
                true,
            ),
            (
                "attention block size tokens",
                log.attention_block_size_tokens.map(|b| b as f64),
                cap.block_size_tokens as f64,
                0.0,
                false,
            ),
        ];
        let figures: Vec<LogFigure> = logged
            .into_iter()
            .filter_map(|(figure, logged, predicted, band_pct, rounded)| {
                let band = band_pct + if rounded { rounding(logged?) } else { 0.0 };
                Some(LogFigure::new(figure, logged?, predicted, band))
            })
            .collect();
        for f in figures.iter().filter(|f| !f.agrees) {
            plan.warnings.push(crate::Warning::LoggedFigureDiffers {
                log: origin.to_string(),
                figure: f.figure,
                logged: f.logged,
                predicted: f.predicted,
                error_pct: f.error_pct,
            });
        }
        if !log.ignored_args.is_empty() {
            plan.warnings.push(crate::Warning::LogFlagsNotModelled {
                log: origin.to_string(),
                flags: log.ignored_args.clone(),
            });
        }
        plan.warnings.extend(acceptance_note);
        if pins {
            plan.warnings.push(crate::Warning::KvPoolFromLog {
                log: origin.to_string(),
                gib: log.available_kv_gib.unwrap_or_default(),
            });
        }
        plan.log_check = figures;
        Ok(plan)
    }

    fn resolve_plain(&self, world: &dyn World) -> Result<Plan> {
        let mut warnings = Vec::new();
        let (command, command_model) = self.launch_line(&mut warnings)?;
        let scenario = self.scenario_file(
            world,
            command.as_ref(),
            command_model.as_deref(),
            &mut warnings,
        )?;
        let (mut base_engine, base_harness, scenario_model, scenario_gpu) =
            scenario_base(scenario.as_ref().map(|(_, s)| s));
        let model_name = self.model_name(command_model, scenario_model.as_deref())?;
        let model = load_model(world, &model_name)?;
        crate::speculative::check_target(&model_name, &model)?;
        // A model without a GPU is a question with no answer: no silent
        // default (issue 25); the hint names the GPUs that hold it.
        let gpu_name = match self.gpu.clone().or(scenario_gpu.clone()) {
            Some(g) => g,
            None => return Err(no_gpu_for(world, &model)),
        };
        let gpu = load_gpu(world, &gpu_name)?;
        // Each layer's values are checked on their own first, so an error
        // names the file field or the flag that holds the bad value.
        if let Some((origin, _)) = &scenario {
            base_engine.validate(&|f| Subject::in_file(origin, format!("[engine] {f}")))?;
            base_harness.validate(&|f| Subject::in_file(origin, format!("[harness] {f}")))?;
        }
        if let Some(c) = &command {
            base_engine = base_engine.overlay(&c.settings);
        }
        self.engine.validate(&flag)?;
        self.harness.validate(&flag)?;
        let settings = base_engine.overlay(&self.engine);
        let scenario_origin = scenario.as_ref().map(|(o, _)| o.clone());
        let label = |f: &str| {
            if self.engine.is_set(f) {
                flag(f)
            } else if let Some(origin) = &scenario_origin {
                Subject::in_file(origin, format!("[engine] {f}"))
            } else {
                plain(f)
            }
        };
        // `--hf-overrides` changes the config the model is built from.
        let model = match &settings.hf_overrides {
            Some(o) => model.with_overrides(&label("hf_overrides"), o)?,
            None => model,
        };
        warnings.extend(model_warnings(&model));
        let engine = settings
            .resolve_labelled(
                model.model.max_position_embeddings,
                gpu.memory_bytes,
                &gpu.name,
                &label,
            )?
            .for_model(&settings, &model.model, &label)?;
        crate::allocator::check_dsv4_gpu(&model.model, &gpu)?;
        let mut engine = engine;
        warnings.extend(engine.parallel_timing_caveat(model.model.is_moe()));
        if let Some(sp) = engine.speculative.as_mut() {
            let published = settings.spec_acceptance.is_none();
            let field = label("speculative_config");
            warnings.extend(settle_speculative(
                sp,
                world,
                published,
                &model_name,
                &model,
                &field,
            )?);
            warnings.push(crate::Warning::pass_overhead(gpu.calibration_class()));
        }
        kv_pool_fits_the_card(&engine, &gpu, &label)?;
        let harness = base_harness.overlay(&self.harness).resolve(&engine)?;
        // A scenario's pinned non-KV figure holds only while what sets non-KV
        // memory is unchanged: model, GPU, weights, batch limits.
        let unchanged = !self.estimate_non_kv
            && settings.hf_overrides.is_none()
            && Some(model_name) == scenario_model
            && Some(gpu_name) == scenario_gpu;
        let pinned = match &scenario {
            Some((origin, s)) if unchanged => pinned_non_kv(origin, s, &model, &gpu, &engine)?,
            _ => None,
        };
        let mut calibration =
            self.calibration_for(world, scenario.as_ref().map(|(_, s)| s), &gpu, &engine)?;
        if model.model.is_moe() {
            warnings.extend(calibration.band_a_moe_model(world, &model.name));
        }
        if engine.speculative.is_some() {
            calibration.band_speculative(gpu.calibration_class());
        }
        let scenario_id = match &scenario {
            Some((_, s)) if self.model.is_none() && self.gpu.is_none() => s.id.clone(),
            Some((_, s)) => format!("{} (model/GPU overridden)", s.id),
            None => format!("{} on {}", model.id, gpu.id),
        };
        // The per-GPU shard and the estimate as for any plan; then what the
        // scenario adds: its id, its measured run, its pinned non-KV figure.
        let mut plan = Plan::assemble(model, gpu, engine, harness, calibration)?;
        plan.scenario_id = scenario_id;
        plan.measured = scenario.and_then(|(_, s)| s.measured);
        plan.warnings = warnings;
        if let Some((bytes, derivation)) = pinned {
            plan.non_kv_bytes = bytes;
            plan.non_kv_source = NonKvSource::Pinned { derivation };
        }
        Ok(plan)
    }

    /// The model asked for: `--model`, else the launch line's, else the
    /// scenario's.
    fn model_name(
        &self,
        command_model: Option<String>,
        scenario_model: Option<&str>,
    ) -> Result<String> {
        self.model
            .clone()
            .or(command_model)
            .or(scenario_model.map(str::to_string))
            .ok_or_else(|| {
                Error::missing(
                    "--model",
                    "the launch line names no model",
                    "add the model after `vllm serve`, or pass --model",
                )
            })
    }

    /// A pasted launch line (its model and flags, between the scenario and
    /// the explicit flags) and the model preset it names, unless an explicit
    /// `--model` wins (the launch line's model is then not looked up at all:
    /// it may be a checkpoint we have no preset of).
    fn launch_line(
        &self,
        warnings: &mut Vec<crate::Warning>,
    ) -> Result<(Option<VllmCommand>, Option<String>)> {
        let Some(text) = &self.vllm_command else {
            return Ok((None, None));
        };
        let mut c = parse_vllm_command(text).map_err(|e| e.within("--vllm-command"))?;
        c.settings.validate(&flag)?;
        warnings.append(&mut c.warnings);
        let model = match (&self.model, c.model.as_deref()) {
            (None, Some(m)) => Some(model_for_repo(m)?),
            (Some(explicit), Some(m)) => {
                if !explicit.eq_ignore_ascii_case(m) {
                    warnings.push(crate::Warning::ModelOverridesLaunchLine {
                        given: explicit.clone(),
                        launch_line: m.to_string(),
                    });
                }
                None
            }
            (_, None) => None,
        };
        Ok((Some(c), model))
    }

    /// The scenario file in force: `--scenario`, else the preset whose own
    /// launch line reads as the pasted one, else the reference scenario when
    /// nothing at all is given.
    fn scenario_file(
        &self,
        world: &dyn World,
        command: Option<&VllmCommand>,
        command_model: Option<&str>,
        warnings: &mut Vec<crate::Warning>,
    ) -> Result<Option<(String, ScenarioFile)>> {
        match (&self.scenario, &self.model, &self.gpu, command) {
            (Some(name), _, _, _) => load::<ScenarioFile>(world, name).map(Some),
            (None, _, _, Some(c)) => {
                let found = matching_scenario(c, command_model);
                if let Some((_, s)) = &found {
                    warnings.push(crate::Warning::LaunchLineIsScenario {
                        scenario: s.id.clone(),
                    });
                }
                Ok(found)
            }
            (None, None, None, None) => {
                let f = presets::find(Kind::Scenario, presets::REFERENCE_SCENARIO)?;
                Ok(Some((f.path.to_string(), presets::read(f)?)))
            }
            (None, None, Some(_), None) => Err(Error::missing(
                "--model",
                "--gpu was given without --model",
                format!(
                    "add --model (presets: {}) or --scenario",
                    presets::ids(Kind::Model).collect::<Vec<_>>().join(", ")
                ),
            )),
            (None, Some(_), _, None) => Ok(None),
        }
    }

    /// The timing calibration: `--calibration`, else the scenario's, else
    /// the nearest fitted on this GPU's class; noting when the fit saw no run
    /// of this release (timing is one model for every release).
    fn calibration_for(
        &self,
        world: &dyn World,
        scenario: Option<&ScenarioFile>,
        gpu: &Gpu,
        engine: &EngineArgs,
    ) -> Result<Calibration> {
        let chosen = self
            .calibration
            .clone()
            .or_else(|| scenario.and_then(|s| s.calibration.clone()))
            .map(|name| (name, None))
            .or_else(|| nearest_calibration(gpu));
        let mut calibration = match chosen {
            Some((name, transferred)) => {
                let mut c = load_calibration(world, &name).map_err(|e| {
                    if e.subject.is_none() {
                        e.about("--calibration")
                    } else {
                        e
                    }
                })?;
                if c.transferred.is_none() {
                    c.transferred = transferred;
                }
                c.measured_gpu = c.file.as_ref().is_some_and(|f| f.gpus.contains(&gpu.id));
                c
            }
            None => Calibration::none(),
        };
        if let Some(fit) = calibration.file.as_ref() {
            let ours = engine.vllm_version;
            let seen = fit
                .vllm_versions
                .iter()
                .filter_map(|t| crate::version::VllmVersion::parse("", t).ok())
                .any(|v| v.major == ours.major && v.minor == ours.minor);
            if !seen && !fit.vllm_versions.is_empty() {
                calibration.fitted_on_releases = Some(fit.vllm_versions.join(", "));
            }
        }
        Ok(calibration)
    }
}

/// A scenario's pinned non-KV figure, where the setup is the scenario's own
/// in what sets non-KV memory (compared as resolved values: restating a
/// scenario's own flag, as a pasted launch line does, keeps the pin).
fn pinned_non_kv(
    origin: &str,
    s: &ScenarioFile,
    model: &LoadedModel,
    gpu: &Gpu,
    engine: &EngineArgs,
) -> Result<Option<(u64, String)>> {
    let Some(m) = &s.memory else {
        return Ok(None);
    };
    let own = s
        .engine
        .resolve_for(model.model.max_position_embeddings, gpu)
        .ok();
    let same = own.as_ref().is_some_and(|o| {
        o.weight_quant(&model.quant) == engine.weight_quant(&model.quant)
            && o.vllm_version == engine.vllm_version
            && o.dtype == engine.dtype
            && o.tensor_parallel_size == engine.tensor_parallel_size
            && o.pipeline_parallel_size == engine.pipeline_parallel_size
            && o.max_num_seqs == engine.max_num_seqs
            && o.max_num_batched_tokens == engine.max_num_batched_tokens
    });
    if !same {
        return Ok(None);
    }
    match u64::try_from(m.non_kv_bytes) {
        Ok(bytes) if bytes > 0 => Ok(Some((bytes, m.derivation.clone()))),
        _ => Err(Error::field(
            "memory.non_kv_bytes",
            m.non_kv_bytes,
            "a positive number of bytes",
        )
        .context(origin)),
    }
}

/// GPUs listed in a hint at most.
const HINT_GPUS: usize = 8;

/// The error for a model named without a GPU (by --model, a launch line or
/// a start-up log): its hint lists the GPU presets, smallest first, whose
/// memory holds the weights with a fifth to spare for activations and a
/// KV cache.
fn no_gpu_for(world: &dyn World, model: &LoadedModel) -> Error {
    let weights = crate::memory::weights_bytes(&model.model, &model.quant);
    let mut fits: Vec<(u64, String)> = presets::ids(Kind::Gpu)
        .filter_map(|id| {
            load_gpu(world, id)
                .ok()
                .map(|g| (g.memory_bytes, id.to_string()))
        })
        .filter(|(bytes, _)| *bytes / 5 * 4 >= weights)
        .collect();
    fits.sort();
    let shown: Vec<String> = fits
        .iter()
        .take(HINT_GPUS)
        .map(|(bytes, id)| format!("{id} ({:.0} GiB)", crate::units::gib(*bytes)))
        .collect();
    let hint = if shown.is_empty() {
        format!(
            "add --gpu and --tensor-parallel-size: no single GPU preset holds its {:.1} GiB of weights (`decodecalc presets` lists them)",
            crate::units::gib(weights)
        )
    } else {
        let more = fits.len().saturating_sub(HINT_GPUS);
        format!(
            "add --gpu; presets that hold its {:.1} GiB of weights on one GPU: {}{}",
            crate::units::gib(weights),
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more (`decodecalc presets`)")
            } else {
                String::new()
            }
        )
    };
    Error::missing(
        "--gpu",
        format!(
            "no GPU given for {}: which GPU should it run on?",
            model.name
        ),
        hint,
    )
}

/// What a user should know about the model itself: unquantized-module
/// entries that name nothing, and what of it the timing does not model.
fn model_warnings(model: &LoadedModel) -> Vec<crate::Warning> {
    let mut out: Vec<crate::Warning> = model
        .quant
        .unmatched_unquantized(&model.model)
        .into_iter()
        .map(|entry| crate::Warning::UnmatchedUnquantized {
            model: model.id.clone(),
            entry,
        })
        .collect();
    let sparse = model
        .model
        .attention_layers()
        .any(|a| a.mla.is_some_and(|m| m.indexer.is_some()));
    if model.model.has_dsv4_attention() {
        out.push(crate::Warning::Dsv4AttentionTimedDense {
            model: model.id.clone(),
        });
    }
    if sparse {
        out.push(crate::Warning::SparseAttentionTimedDense {
            model: model.id.clone(),
        });
    }
    out
}

/// What a scenario file sets before flags and a launch line: its engine
/// settings (its `vllm_version` is its engine's release), its harness, its
/// model and its GPU; nothing without a scenario.
fn scenario_base(
    scenario: Option<&ScenarioFile>,
) -> (
    EngineSettings,
    HarnessSettings,
    Option<String>,
    Option<String>,
) {
    match scenario {
        Some(s) => (
            EngineSettings {
                vllm_version: s.engine.vllm_version.clone().or(s.vllm_version.clone()),
                ..s.engine.clone()
            },
            s.harness.clone(),
            Some(s.model.clone()),
            Some(s.gpu.clone()),
        ),
        None => Default::default(),
    }
}

/// A `--kv-cache-memory-bytes` larger than the card cannot be allocated.
fn kv_pool_fits_the_card(
    engine: &EngineArgs,
    gpu: &Gpu,
    label: &dyn Fn(&str) -> Subject,
) -> Result<()> {
    match engine
        .kv_cache_memory_bytes
        .filter(|b| *b > gpu.memory_bytes)
    {
        Some(b) => Err(Error::field(
            label("kv_cache_memory_bytes"),
            b,
            format!(
                "at most the GPU's {} bytes ({} as the CUDA runtime reports it), less the non-KV memory",
                gpu.memory_bytes, gpu.id
            ),
        )),
        None => Ok(()),
    }
}

/// What speculative decoding's speed assumes, one line each: the acceptance
/// and where it is from, and the config's fields that change nothing.
/// A speculative config's acceptance (the published figures for the model,
/// unless `--spec-acceptance` gave them: `published` false) and its drafter
/// (`field` names the flag or file field), and the notes they add.
fn settle_speculative(
    sp: &mut crate::speculative::Speculative,
    world: &dyn World,
    published: bool,
    model_name: &str,
    model: &LoadedModel,
    field: &Subject,
) -> Result<Vec<crate::Warning>> {
    if published {
        let names = [model_name, &model.id, &model.name];
        sp.use_published_acceptance(&names, &model.model.architecture, "");
    }
    sp.attach_drafter(field, &model.model, |name| load_model(world, name))?;
    Ok(speculative_notes(sp))
}

fn speculative_notes(sp: &crate::speculative::Speculative) -> Vec<crate::Warning> {
    let mut out = vec![crate::Warning::SpeculativeAcceptance {
        method: sp.method.name(),
        draft_tokens: sp.num_speculative_tokens,
        acceptance: sp.acceptance.clone(),
        mean_acceptance_length: sp.mean_acceptance_length(),
        source: sp.acceptance_source.clone(),
    }];
    if !sp.ignored_keys.is_empty() {
        out.push(crate::Warning::SpeculativeFieldsNotModelled {
            fields: sp.ignored_keys.clone(),
        });
    }
    out
}

/// The acceptance the server measured (its log's `SpecDecoding metrics`
/// lines' per-position rates) as `--spec-acceptance`, unless one is given or
/// no speculative config is: the plan's note naming them.
fn log_acceptance(
    origin: &str,
    log: &crate::vllm_log::VllmLog,
    engine: &mut crate::engine::EngineSettings,
) -> Option<crate::Warning> {
    let rates = log.spec_acceptance.as_ref()?;
    if engine.spec_acceptance.is_some() || engine.speculative_config.is_none() {
        return None;
    }
    let text: Vec<String> = rates
        .iter()
        .map(|r| format!("{:.4}", r.max(1e-4)))
        .collect();
    let rates = text.join(",");
    engine.spec_acceptance = Some(rates.clone());
    Some(crate::Warning::LogAcceptance {
        log: origin.to_string(),
        rates,
    })
}
