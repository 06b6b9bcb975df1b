//! Scenarios: a model, a GPU, `vllm serve` flags and harness settings, and the
//! boundary to the outside world. Core never reads a file itself: a caller
//! hands it a [`World`] that can (the CLI) or cannot (the web page).

use crate::allocator::{admit, KvGroup, KvLayout, KvPool};
use crate::command::{parse_vllm_command, VllmCommand};
use crate::engine::{flag, EngineArgs, EngineSettings, Harness, HarnessSettings};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::memory::NonKvEstimate;
use crate::parse;
use crate::presets::{self, Kind, LoadedModel, ModelFile};
use crate::quant::WeightQuant;
use crate::timing::TimingParams;
use serde::{Deserialize, Serialize};

/// Where files come from. The CLI reads the file system; the web page has no
/// files but the ones a user drops in.
pub trait World {
    /// The text of the file at `path`, or a one-line reason it cannot be read.
    fn read(&self, path: &str) -> std::result::Result<String, String>;

    /// What is at `path`: nothing, a regular file, or something else (a
    /// directory, FIFO, socket or device). A world without files has nothing.
    fn entry(&self, _path: &str) -> Entry {
        Entry::Missing
    }
}

/// What a path names ([`World::entry`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Missing,
    File,
    Directory,
    /// A FIFO, socket or device: never read (it could block or never end).
    Special,
}

/// A world with no files: only embedded presets resolve.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoFiles;

impl World for NoFiles {
    fn read(&self, path: &str) -> std::result::Result<String, String> {
        Err(format!("cannot read `{path}`: no file access here"))
    }
}

/// A name is a path when it has a path separator or a file extension.
pub fn is_path(name: &str) -> bool {
    name.contains('/')
        || name.contains('\\')
        || [".toml", ".csv", ".json"].iter().any(|e| name.ends_with(e))
}

/// The text of a preset of `kind` or of a file: its origin (the path, or the
/// preset's embedded path) and text.
pub fn load_text(world: &dyn World, kind: Kind, name: &str) -> Result<(String, String)> {
    // A bare name is a preset, unless no preset has it and something of that
    // name exists (then reading it says what it is).
    let path_like = is_path(name)
        || (presets::find(kind, name).is_err() && world.entry(name) != Entry::Missing);
    if path_like {
        let text = world.read(name).map_err(|why| {
            Error::new(why).with_hint(format!(
                "give an existing file or a {} preset: {}",
                kind.name(),
                presets::ids(kind).collect::<Vec<_>>().join(", ")
            ))
        })?;
        Ok((name.to_string(), text))
    } else {
        let f = presets::find(kind, name)?;
        Ok((f.path.to_string(), f.text.to_string()))
    }
}

/// A model by preset id, Hugging Face repo id of a preset, model file
/// (`.toml`), `config.json`, or a folder holding a `config.json`. A bare name
/// is tried as a preset first, a path-like one (`org/name`, `./dir`) as a
/// file or folder first; the other is tried next, and an error names both.
pub fn load_model(world: &dyn World, name: &str) -> Result<LoadedModel> {
    if name.ends_with(".toml") {
        let (origin, text) = load_text(world, Kind::Model, name)?;
        return ModelFile::parse(&origin, &text)?.load(&origin);
    }
    if !is_path(name) {
        if let Ok(f) = presets::find(Kind::Model, name) {
            return presets::model(f.id);
        }
    }
    // A config.json by any name, or a folder holding one; a FIFO or a
    // device is read as itself, so the error says what it is.
    let path = match world.entry(name) {
        Entry::File | Entry::Special => name.to_string(),
        _ if name.ends_with(".json") => name.to_string(),
        _ => format!("{}/config.json", name.trim_end_matches('/')),
    };
    match world.read(&path) {
        Ok(text) => {
            let mut m = loaded_from_config_json(&path, &text)?;
            if m.quant.method == crate::quant::QuantMethod::None {
                if let Some(q) = hf_quant_beside(world, &path)? {
                    m.quant = q;
                }
            }
            Ok(m)
        }
        // Something is there but cannot be read as a config.json.
        Err(why) if world.entry(&path) != Entry::Missing => Err(Error::new(why).with_hint(
            "give a regular config.json file (UTF-8, at most 8 MiB) or a folder holding one",
        )),
        // No such file or folder: a preset's id or Hugging Face repo.
        Err(why) => match presets::find(Kind::Model, name) {
            Ok(f) => presets::model(f.id),
            Err(_) => Err(Error::new(format!(
                "{why}; and `{name}` is no model preset (id or Hugging Face repo)"
            ))
            .with_hint(format!(
                "give a config.json, a folder holding one, a model file or a preset: {}",
                presets::ids(Kind::Model).collect::<Vec<_>>().join(", ")
            ))),
        },
    }
}

/// MXFP4 MoE weights on the Triton kernels vLLM 0.32 picks for gpt-oss on
/// CUDA pad each GPU's expert intermediate size to a multiple of 64
/// (`vllm/model_executor/layers/fused_moe/oracle/mxfp4.py`,
/// `mxfp4_round_up_hidden_size_and_intermediate_size`): 1,440 per GPU at
/// TP 2 becomes 1,472.
const MXFP4_INTERMEDIATE_ALIGN: u64 = 64;

/// A ModelOpt checkpoint's `hf_quant_config.json` beside its config.json
/// (vLLM 0.32 reads it when config.json has no `quantization_config`:
/// `vllm/transformers_utils/config.py`, `get_hf_file_to_dict` of
/// `hf_quant_config.json`), also as `NAME.hf_quant_config.json` beside
/// `NAME.json`. None when there is neither.
fn hf_quant_beside(world: &dyn World, config_path: &str) -> Result<Option<WeightQuant>> {
    let dir = match config_path.rfind('/') {
        Some(i) => &config_path[..=i],
        None => "",
    };
    let mut candidates = vec![format!("{dir}hf_quant_config.json")];
    if let Some(stem) = config_path.strip_suffix(".json") {
        candidates.push(format!("{stem}.hf_quant_config.json"));
    }
    for path in candidates {
        let Ok(text) = world.read(&path) else {
            continue;
        };
        parse::check_size(&path, &text)?;
        let v = crate::config::parse_json(&path, &text)?;
        let Some(inner) = v.get("quantization").and_then(serde_json::Value::as_object) else {
            return Err(Error::new(format!("{path}: missing field `quantization`"))
                .with_hint("a ModelOpt hf_quant_config.json holds {\"quantization\": {\"quant_algo\": ...}}"));
        };
        let mut qc = inner.clone();
        qc.insert("quant_method".into(), "modelopt".into());
        let q = crate::quant::from_hf_config(&serde_json::Value::Object(qc))
            .map_err(|e| e.context(&path))?;
        return Ok(Some(q));
    }
    Ok(None)
}

/// A model from the text of a Hugging Face `config.json`, with its
/// `quantization_config` if it has one.
pub fn loaded_from_config_json(origin: &str, text: &str) -> Result<LoadedModel> {
    parse::check_size(origin, text)?;
    let v = crate::config::parse_json(origin, text)?;
    let model = crate::config::model_from_config(&v).map_err(|e| e.context(origin))?;
    let quant = match v.get("quantization_config").filter(|q| !q.is_null()) {
        Some(qc) => crate::quant::from_hf_config(qc).map_err(|e| e.context(origin))?,
        None => crate::quant::WeightQuant::none(),
    };
    let name = v
        .get("_name_or_path")
        .and_then(serde_json::Value::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or(origin)
        .to_string();
    Ok(LoadedModel {
        id: origin.to_string(),
        name,
        model,
        quant,
        published_params: None,
        checkpoint_bytes: None,
        config: v,
    })
}

pub fn load_gpu(world: &dyn World, name: &str) -> Result<Gpu> {
    let (origin, text) = load_text(world, Kind::Gpu, name)?;
    presets::parse_gpu(&origin, &text)
}

/// Non-KV memory pinned by a scenario to what a measurement implies.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MemoryPin {
    pub non_kv_bytes: i64,
    /// How the figure was derived.
    pub derivation: String,
}

/// A scenario file (`data/scenarios/*.toml`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub id: String,
    pub description: Option<String>,
    pub model: String,
    pub gpu: String,
    pub vllm_version: Option<String>,
    /// The launch command, for the reader.
    pub launch: Option<String>,
    /// The measured run of this scenario, if any (a `data/measured` id).
    pub measured: Option<String>,
    /// The timing calibration to use by default (a `data/calibrations` id,
    /// a path, or `none`).
    pub calibration: Option<String>,
    #[serde(default)]
    pub engine: EngineSettings,
    #[serde(default)]
    pub harness: HarnessSettings,
    pub memory: Option<MemoryPin>,
}

impl ScenarioFile {
    pub fn parse(origin: &str, text: &str) -> Result<ScenarioFile> {
        parse::toml(origin, text)
    }
}

/// What a user asked for: a scenario and/or explicit values that override it.
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

/// The model preset whose Hugging Face repo (or id) is `repo`, or `repo`
/// itself when it is a path.
pub fn model_for_repo(repo: &str) -> Result<String> {
    // A Hugging Face repo id has one slash; a file path ends in .toml or
    // .json or starts at a directory.
    if repo.ends_with(".toml") || repo.ends_with(".json") || repo.starts_with(['/', '.']) {
        return Ok(repo.to_string());
    }
    // Ids and repos in any case, with or without `-Instruct` (`presets::find`).
    if let Ok(f) = presets::find(Kind::Model, repo) {
        return Ok(f.id.to_string());
    }
    let known: Vec<String> = presets::FILES
        .iter()
        .filter(|f| f.kind == Kind::Model)
        .filter_map(|f| ModelFile::parse(f.path, f.text).ok()?.hf_repo)
        .collect();
    Err(
        Error::new(format!("no model preset for `{repo}`")).with_hint(format!(
            "known repos: {}; or pass --model with a preset or a file",
            known.join(", ")
        )),
    )
}

/// The scenario preset whose own launch line reads as `command` does.
fn matching_scenario(command: &VllmCommand, model: Option<&str>) -> Option<(String, ScenarioFile)> {
    presets::FILES
        .iter()
        .filter(|f| f.kind == Kind::Scenario)
        .filter_map(|f| {
            Some((
                f.path.to_string(),
                ScenarioFile::parse(f.path, f.text).ok()?,
            ))
        })
        .find(|(_, s)| {
            let Some(own) = s.launch.as_deref().and_then(|l| parse_vllm_command(l).ok()) else {
                return false;
            };
            let own_model = own.model.as_deref().and_then(|m| model_for_repo(m).ok());
            own.settings == command.settings
                && own_model.as_deref() == model
                && model == Some(s.model.as_str())
        })
}

/// A calibration file (`data/calibrations/*.toml`), as `decodecalc calibrate` writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrationFile {
    pub id: String,
    /// The GPU calibration class it was fitted for (`gpu::CALIBRATION_CLASSES`).
    pub class: String,
    /// The GPU presets of the runs it was fitted on.
    pub gpus: Vec<String>,
    /// The vLLM releases of those runs.
    pub vllm_versions: Vec<String>,
    pub description: String,
    /// The measured files or presets it was fitted on.
    pub fitted_on: Vec<String>,
    /// The runs of its class among them.
    pub runs: Vec<String>,
    /// The command that produced it.
    pub command: String,
    pub params: TimingParams,
    /// Figures of the fit, for the reader and the error bands (errors in
    /// percent, counts): `loo_<family>_median_abs_pct` and `_p90_abs_pct`
    /// per family (`calibrate::FAMILIES`), `runs`, `figures`.
    #[serde(default)]
    pub fit: std::collections::BTreeMap<String, f64>,
}

impl CalibrationFile {
    pub fn parse(origin: &str, text: &str) -> Result<CalibrationFile> {
        let file: CalibrationFile = parse::toml(origin, text)?;
        file.params.validate(origin)?;
        if file.class != crate::calibrate::SHARED
            && crate::gpu::class_distance(&file.class, &file.class).is_none()
        {
            let names: Vec<&str> = crate::gpu::CALIBRATION_CLASSES
                .iter()
                .map(|x| x.0)
                .collect();
            return Err(Error::field(
                &format!("{origin}: class"),
                &file.class,
                format!("one of {}, or shared", names.join(", ")),
            ));
        }
        Ok(file)
    }

    pub fn to_toml(&self) -> Result<String> {
        toml::to_string(self).map_err(|e| Error::new(format!("cannot write the calibration: {e}")))
    }

    /// The cross-validated error band of a family, if the fit recorded one:
    /// (median, 90th percentile) of absolute leave-one-run-out errors, %.
    pub fn band(&self, family: &str) -> Option<(f64, f64)> {
        Some((
            *self.fit.get(&format!("loo_{family}_median_abs_pct"))?,
            *self.fit.get(&format!("loo_{family}_p90_abs_pct"))?,
        ))
    }

    /// A family's band in one workload regime, if the fit recorded it:
    /// (figures, median, 90th percentile) of absolute leave-one-run-out
    /// errors, % (keys named by `calibrate::regime_key`).
    pub fn regime_band(
        &self,
        family: &str,
        regime: crate::calibrate::Regime,
    ) -> Option<(f64, f64, f64)> {
        let get = |what| {
            self.fit
                .get(&crate::calibrate::regime_key(family, regime, what))
                .copied()
        };
        Some((get("figures")?, get("median_abs_pct")?, get("p90_abs_pct")?))
    }
}

/// The timing parameters in use and where they came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calibration {
    /// A calibration id, a path, or `none`.
    pub id: String,
    pub params: TimingParams,
    /// Set when the calibration was fitted on another GPU: which, and why it was chosen.
    pub transferred: Option<String>,
    /// The file's fit figures (empty for `none`).
    #[serde(skip)]
    pub file: Option<CalibrationFile>,
    /// Set when none of the fit's runs used the modelled release: which
    /// releases they used. The timing model is the same for every release;
    /// the runs it was fitted on are not.
    pub fitted_on_releases: Option<String>,
}

impl Calibration {
    pub fn none() -> Calibration {
        Calibration {
            id: "none".to_string(),
            params: TimingParams::FIRST_PRINCIPLES,
            transferred: None,
            file: None,
            fitted_on_releases: None,
        }
    }

    /// The id, with where it came from when it was transferred and the
    /// releases it was fitted on when they are not the modelled one.
    pub fn label(&self) -> String {
        let mut notes = Vec::new();
        if let Some(t) = &self.transferred {
            notes.push(t.clone());
        }
        if let Some(r) = &self.fitted_on_releases {
            notes.push(format!("fitted on vLLM {r}"));
        }
        if notes.is_empty() {
            self.id.clone()
        } else {
            format!("{} ({})", self.id, notes.join("; "))
        }
    }

    /// The error band of a family as a sentence fragment: "+-9% median,
    /// +-21% p90 (leave-one-run-out, 27 runs, ampere-datacenter)"; for a
    /// borrowed calibration the leave-class-out figures. None without a
    /// cross-validated fit.
    pub fn band(&self, family: &str) -> Option<String> {
        let f = self.file.as_ref()?;
        let runs = f.fit.get("runs").copied().unwrap_or(0.0);
        if self.transferred.is_some() {
            let m = f.fit.get(&format!("transfer_{family}_median_abs_pct"))?;
            let p = f.fit.get(&format!("transfer_{family}_p90_abs_pct"))?;
            let classes = f.fit.get("transfer_classes").copied().unwrap_or(0.0);
            return Some(format!(
                "+-{m:.0}% median, +-{p:.0}% p90 (borrowed; leave-class-out over {classes:.0} classes)"
            ));
        }
        let (m, p) = f.band(family)?;
        if f.fit.get("loo_from_other_class").copied() == Some(1.0) {
            return Some(format!(
                "+-{m:.0}% median, +-{p:.0}% p90 (its class's only run, {runs:.0}, predicted from another class's parameters: a new model on {} is not yet checked)",
                f.class
            ));
        }
        Some(format!(
            "+-{m:.0}% median, +-{p:.0}% p90 (leave-one-run-out, {runs:.0} runs on {})",
            f.class
        ))
    }
}

/// One figure's cross-validated error band for one prediction: absolute
/// errors, %, and the workload regime they were measured in (None: the
/// class-wide figures, because the regime had fewer than
/// [`crate::calibrate::MIN_REGIME_FIGURES`] or the calibration is borrowed).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Band {
    pub median_abs_pct: f64,
    pub p90_abs_pct: f64,
    pub regime: Option<crate::calibrate::Regime>,
    /// Leave-class-out figures (the calibration is borrowed).
    pub borrowed: bool,
}

/// The bands of one cell's figures, from its regime.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CellBands {
    pub regime: crate::calibrate::Regime,
    pub tpot: Option<Band>,
    pub throughput: Option<Band>,
    pub ttft: Option<Band>,
}

impl Calibration {
    /// The band of `family` for a prediction in `regime`: the regime's own
    /// leave-one-run-out figures where it has enough, else the class-wide
    /// ones; for a borrowed calibration the leave-class-out figures.
    pub fn band_in(&self, family: &str, regime: crate::calibrate::Regime) -> Option<Band> {
        let f = self.file.as_ref()?;
        if self.transferred.is_some() {
            return Some(Band {
                median_abs_pct: *f.fit.get(&format!("transfer_{family}_median_abs_pct"))?,
                p90_abs_pct: *f.fit.get(&format!("transfer_{family}_p90_abs_pct"))?,
                regime: None,
                borrowed: true,
            });
        }
        if let Some((n, m, p)) = f.regime_band(family, regime) {
            if n >= crate::calibrate::MIN_REGIME_FIGURES as f64 {
                return Some(Band {
                    median_abs_pct: m,
                    p90_abs_pct: p,
                    regime: Some(regime),
                    borrowed: false,
                });
            }
        }
        let (m, p) = f.band(family)?;
        Some(Band {
            median_abs_pct: m,
            p90_abs_pct: p,
            regime: None,
            borrowed: false,
        })
    }

    /// The bands of a cell with `concurrency` requests over `context_tokens`.
    pub fn cell_bands(&self, concurrency: u64, context_tokens: u64) -> Option<CellBands> {
        let regime = crate::calibrate::Regime::of(concurrency, context_tokens);
        let tpot = self.band_in("tpot", regime);
        let throughput = self.band_in("throughput", regime);
        let ttft = self.band_in("ttft", regime);
        (tpot.is_some() || throughput.is_some() || ttft.is_some()).then_some(CellBands {
            regime,
            tpot,
            throughput,
            ttft,
        })
    }

    /// The regime bands the file records for `family`, as table lines:
    /// "2+ requests, context < 8K: +-6% median, +-14% p90 (31 figures)".
    pub fn regime_bands(&self, family: &str) -> Vec<String> {
        let Some(f) = self.file.as_ref().filter(|_| self.transferred.is_none()) else {
            return Vec::new();
        };
        crate::calibrate::Regime::ALL
            .iter()
            .filter_map(|r| {
                let (n, m, p) = f.regime_band(family, *r)?;
                let own = n >= crate::calibrate::MIN_REGIME_FIGURES as f64;
                Some(format!(
                    "{}: +-{m:.0}% median, +-{p:.0}% p90 ({n:.0} figures{})",
                    r.label(),
                    if own {
                        ""
                    } else {
                        "; too few, the class-wide band is used"
                    }
                ))
            })
            .collect()
    }
}

/// The cross-validated error band of each timing figure a prediction uses,
/// as [`Calibration::band`] words it; None where the calibration has none
/// (`--calibration none`, or a file fitted without cross-validation).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ErrorBands {
    /// Time per output token: TPOT, ITL, time between tokens.
    pub tpot: Option<String>,
    /// Output and total throughput.
    pub throughput: Option<String>,
    pub ttft: Option<String>,
    pub prefill: Option<String>,
    /// Time per output token by workload regime, one line each (empty when
    /// the file records none or the calibration is borrowed).
    pub tpot_by_regime: Vec<String>,
}

impl Calibration {
    pub fn bands(&self) -> ErrorBands {
        ErrorBands {
            tpot: self.band("tpot"),
            throughput: self.band("throughput"),
            ttft: self.band("ttft"),
            prefill: self.band("prefill"),
            tpot_by_regime: self.regime_bands("tpot"),
        }
    }
}

/// The embedded calibration for `gpu`: fitted on it or on its class, else
/// the joint fit's shared values (`calibrate::SHARED`). Returns the
/// id and, when it was fitted for another class, a note saying which class's
/// parameters are borrowed.
pub fn nearest_calibration(gpu: &Gpu) -> Option<(String, Option<String>)> {
    let mut best: Option<(u32, String, Option<String>)> = None;
    for f in presets::FILES
        .iter()
        .filter(|f| f.kind == Kind::Calibration)
    {
        let Ok(c) = CalibrationFile::parse(f.path, f.text) else {
            continue;
        };
        let (distance, note) = if c.gpus.contains(&gpu.id) {
            (0, None)
        } else if gpu.calibration_class.as_deref() == Some(c.class.as_str()) {
            (1, None)
        } else if c.class == crate::calibrate::SHARED {
            (
                2,
                Some(format!(
                    "no calibration fitted for {}'s class ({}): the joint fit's shared values are borrowed",
                    gpu.id,
                    gpu.calibration_class.as_deref().unwrap_or("none")
                )),
            )
        } else {
            continue;
        };
        if best.as_ref().is_none_or(|b| distance < b.0) {
            best = Some((distance, c.id, note));
        }
    }
    best.map(|(_, id, note)| (id, note))
}

pub fn load_calibration(world: &dyn World, name: &str) -> Result<Calibration> {
    if name == "none" {
        return Ok(Calibration::none());
    }
    let (origin, text) = load_text(world, Kind::Calibration, name)?;
    let file = CalibrationFile::parse(&origin, &text)?;
    Ok(Calibration {
        id: if is_path(name) {
            name.to_string()
        } else {
            file.id.clone()
        },
        params: file.params,
        transferred: None,
        file: Some(file),
        fitted_on_releases: None,
    })
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
    /// What was not applied or was assumed, one line each (shown as warnings).
    pub warnings: Vec<String>,
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
    fn resolve_with_log(&self, world: &dyn World, origin: &str, text: &str) -> Result<Plan> {
        use crate::vllm_log::{parse, LogFigure};
        let log = parse(origin, text)?;
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
        let predicted_plan = base.resolve_plain(world)?;
        let predicted = predicted_plan.capacity()?;
        let mut pinned = base.clone();
        let pins = log.available_kv_gib.is_some() && base.engine.kv_cache_memory_bytes.is_none();
        if let (true, Some(gib)) = (pins, log.available_kv_gib) {
            let bytes = crate::units::saturating_u64((gib * crate::units::GIB as f64).round());
            pinned.engine.kv_cache_memory_bytes = Some(i64::try_from(bytes).unwrap_or(i64::MAX));
        }
        let mut plan = pinned.resolve_plain(world)?;
        let cap = plan.capacity()?;
        let gib = |b: u64| b as f64 / crate::units::GIB as f64;
        // The log prints GiB to two decimals: half a unit is in the band.
        let rounding = |logged: f64| 100.0 * 0.005 / logged.max(0.01);
        let mut figures = Vec::new();
        if let Some(w) = log.model_loading_gib {
            figures.push(LogFigure::new(
                "weights GiB (Model loading took)",
                w,
                gib(predicted.weights_bytes),
                1.0 + rounding(w),
            ));
        }
        if let Some(a) = log.available_kv_gib {
            figures.push(LogFigure::new(
                "available KV cache memory GiB (predicted)",
                a,
                gib(predicted.kv_pool_bytes),
                3.0 + rounding(a),
            ));
        }
        if let Some(t) = log.kv_cache_tokens {
            figures.push(LogFigure::new(
                "GPU KV cache size tokens (from the logged pool)",
                t as f64,
                cap.kv_cache_tokens as f64,
                0.5,
            ));
        }
        if let Some((_, x)) = log.max_concurrency {
            figures.push(LogFigure::new(
                "maximum concurrency (from the logged pool)",
                x,
                cap.max_concurrency,
                0.5 + 100.0 * 0.005 / x.max(0.01),
            ));
        }
        if let Some(b) = log.attention_block_size_tokens {
            figures.push(LogFigure::new(
                "attention block size tokens",
                b as f64,
                cap.block_size_tokens as f64,
                0.0,
            ));
        }
        for f in figures.iter().filter(|f| !f.agrees) {
            plan.warnings.push(format!(
                "{origin}: {} is {} in the log, {:.2} here ({:+.2}%): check the model, GPU and flags",
                f.figure, f.logged, f.predicted, f.error_pct
            ));
        }
        if !log.ignored_args.is_empty() {
            plan.warnings.push(format!(
                "{origin}: flags of the log not modelled: {}",
                log.ignored_args.join(", ")
            ));
        }
        if pins {
            plan.warnings.push(format!(
                "{origin}: the KV pool is the log's available KV cache memory ({} GiB)",
                log.available_kv_gib.unwrap_or_default()
            ));
        }
        plan.log_check = figures;
        Ok(plan)
    }

    fn resolve_plain(&self, world: &dyn World) -> Result<Plan> {
        let mut warnings = Vec::new();
        // A pasted launch line: its model and flags, between the scenario
        // and the explicit flags.
        let command = match &self.vllm_command {
            Some(text) => {
                let mut c = parse_vllm_command(text).map_err(|e| e.context("--vllm-command"))?;
                c.settings.validate(&flag)?;
                warnings.append(&mut c.warnings);
                Some(c)
            }
            None => None,
        };
        // An explicit --model wins over the launch line's model, which is then
        // not looked up at all (it may be a checkpoint we have no preset of).
        let command_model = match (
            &self.model,
            command.as_ref().and_then(|c| c.model.as_deref()),
        ) {
            (None, Some(m)) => Some(model_for_repo(m)?),
            (Some(explicit), Some(m)) => {
                if !explicit.eq_ignore_ascii_case(m) {
                    warnings.push(format!(
                        "--model {explicit} overrides the launch line's model {m}"
                    ));
                }
                None
            }
            (_, None) => None,
        };
        let scenario = match (&self.scenario, &self.model, &self.gpu, &command) {
            (Some(name), _, _, _) => {
                let (origin, text) = load_text(world, Kind::Scenario, name)?;
                Some((origin.clone(), ScenarioFile::parse(&origin, &text)?))
            }
            (None, _, _, Some(c)) => {
                // The scenario whose own launch line says the same, if any.
                let found = matching_scenario(c, command_model.as_deref());
                if let Some((_, s)) = &found {
                    warnings.push(format!(
                        "the launch line is scenario {}'s; using its harness settings and measured memory",
                        s.id
                    ));
                }
                found
            }
            (None, None, None, None) => {
                let f = presets::find(Kind::Scenario, presets::REFERENCE_SCENARIO)?;
                Some((f.path.to_string(), ScenarioFile::parse(f.path, f.text)?))
            }
            (None, None, Some(_), None) => {
                return Err(
                    Error::new("--gpu was given without --model").with_hint(format!(
                        "add --model (presets: {}) or --scenario",
                        presets::ids(Kind::Model).collect::<Vec<_>>().join(", ")
                    )),
                )
            }
            (None, Some(_), _, None) => None,
        };
        let (mut base_engine, base_harness, scenario_model, scenario_gpu) = match &scenario {
            Some((_, s)) => (
                // The scenario's `vllm_version` is its engine's release.
                EngineSettings {
                    vllm_version: s.engine.vllm_version.clone().or(s.vllm_version.clone()),
                    ..s.engine.clone()
                },
                s.harness.clone(),
                Some(s.model.clone()),
                Some(s.gpu.clone()),
            ),
            None => Default::default(),
        };
        let model_name = self
            .model
            .clone()
            .or(command_model)
            .or(scenario_model.clone())
            .ok_or_else(|| {
                Error::new("the launch line names no model")
                    .with_hint("add the model after `vllm serve`, or pass --model")
            })?;
        // A model without a scenario runs on the reference GPU unless --gpu says otherwise.
        let gpu_name = self
            .gpu
            .clone()
            .or(scenario_gpu.clone())
            .unwrap_or_else(|| "rtx3090".to_string());
        let model = load_model(world, &model_name)?;
        let gpu = load_gpu(world, &gpu_name)?;
        // Each layer's values are checked on their own first, so an error
        // names the file field or the flag that holds the bad value.
        if let Some((origin, _)) = &scenario {
            base_engine.validate(&|f| format!("{origin}: [engine] {f}"))?;
            base_harness.validate(&|f| format!("{origin}: [harness] {f}"))?;
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
                format!("{origin}: [engine] {f}")
            } else {
                f.to_string()
            }
        };
        // `--hf-overrides` changes the config the model is built from.
        let model = match &settings.hf_overrides {
            Some(o) => model.with_overrides(&label("hf_overrides"), o)?,
            None => model,
        };
        for entry in model.quant.unmatched_unquantized(&model.model) {
            warnings.push(format!(
                "{}: `{entry}` in the checkpoint's unquantized-module list names no module of this model; it changes nothing",
                model.id
            ));
        }
        let engine = settings
            .resolve_labelled(
                model.model.max_position_embeddings,
                gpu.memory_bytes,
                &gpu.name,
                &label,
            )?
            .for_model(&settings, &model.model);
        // A KV pool larger than the card cannot be allocated.
        if let Some(b) = engine
            .kv_cache_memory_bytes
            .filter(|b| *b > gpu.memory_bytes)
        {
            return Err(Error::field(
                &label("kv_cache_memory_bytes"),
                b,
                format!(
                    "at most the GPU's {} bytes ({} as the CUDA runtime reports it), less the non-KV memory",
                    gpu.memory_bytes, gpu.id
                ),
            ));
        }
        let harness = base_harness.overlay(&self.harness).resolve(&engine)?;
        // A scenario's pinned non-KV figure holds only while what sets non-KV
        // memory is unchanged: model, GPU, weights, batch limits.
        let pin = scenario.as_ref().and_then(|(origin, s)| {
            // Compared as resolved values: restating a scenario's own flag
            // (as a pasted launch line does) keeps the pin.
            let own = s
                .engine
                .resolve_for(model.model.max_position_embeddings, &gpu)
                .ok();
            let unchanged = !self.estimate_non_kv
                && settings.hf_overrides.is_none()
                && Some(model_name.clone()) == scenario_model
                && Some(gpu_name.clone()) == scenario_gpu
                && own.as_ref().is_some_and(|o| {
                    o.weight_quant(&model.quant) == engine.weight_quant(&model.quant)
                        && o.vllm_version == engine.vllm_version
                        && o.dtype == engine.dtype
                        && o.tensor_parallel_size == engine.tensor_parallel_size
                        && o.pipeline_parallel_size == engine.pipeline_parallel_size
                        && o.max_num_seqs == engine.max_num_seqs
                        && o.max_num_batched_tokens == engine.max_num_batched_tokens
                });
            s.memory
                .as_ref()
                .filter(|_| unchanged)
                .map(|m| (origin.clone(), m.clone()))
        });
        let pinned = match pin {
            Some((origin, m)) => {
                if m.non_kv_bytes <= 0 {
                    return Err(Error::field(
                        "memory.non_kv_bytes",
                        m.non_kv_bytes,
                        "a positive number of bytes",
                    )
                    .context(origin));
                }
                Some((m.non_kv_bytes as u64, m.derivation))
            }
            None => None,
        };
        let chosen = self
            .calibration
            .clone()
            .or_else(|| scenario.as_ref().and_then(|(_, s)| s.calibration.clone()))
            .map(|name| (name, None))
            .or_else(|| nearest_calibration(&gpu));
        let calibration = match chosen {
            Some((name, transferred)) => {
                let mut c = load_calibration(world, &name)?;
                if c.transferred.is_none() {
                    c.transferred = transferred;
                }
                c
            }
            None => Calibration::none(),
        };
        // Timing is one model for every release; say when the fit saw others.
        let mut calibration = calibration;
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
}

/// Running requests the engine admits at one context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RunningAtContext {
    pub context_tokens: u64,
    /// Distinct prompts (no prefix sharing), capped by max_num_seqs.
    pub max_running_requests: u64,
    /// Identical prompts as the harness sends them (full prompt blocks shared
    /// under prefix caching), capped by max_num_seqs.
    pub max_running_identical_prompts: u64,
    pub blocks_per_request: u64,
}

/// The memory breakdown and allocator figures of a plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Capacity {
    pub scenario: String,
    pub vllm_version: String,
    pub total_bytes: u64,
    pub gpu_memory_utilization: f64,
    pub requested_bytes: u64,
    /// The model's parameters (embedding and untied lm_head included).
    pub model_params: u64,
    /// GPUs the model is split across; every byte figure here is per GPU.
    pub tensor_parallel_size: u64,
    /// Pipeline stages; the byte figures are those of `kv_stage` (the stage
    /// with the fewest KV blocks, which sets every stage's count).
    pub pipeline_parallel_size: u64,
    pub kv_stage: crate::model::PipelineStage,
    /// The dtype the weights are served in (`--dtype` resolved).
    pub dtype: &'static str,
    pub weights_bytes: u64,
    pub activation_bytes: u64,
    pub cudagraph_bytes: u64,
    pub non_torch_bytes: u64,
    pub non_kv_estimate_bytes: u64,
    pub non_kv_bytes: u64,
    pub non_kv_source: NonKvSource,
    pub kv_pool_bytes: u64,
    pub kv_unallocated_bytes: u64,
    pub kv_cache_dtype: &'static str,
    pub attention_bytes_per_token_per_layer: u64,
    pub mamba_state_bytes_per_layer: u64,
    pub block_size_tokens: u64,
    pub page_bytes: u64,
    pub bytes_per_block: u64,
    pub num_blocks: u64,
    pub usable_blocks: u64,
    pub kv_groups: Vec<KvGroup>,
    pub padding_slots: u64,
    pub kv_cache_tokens: u64,
    pub max_model_len_tokens: u64,
    pub max_concurrency: f64,
    pub max_num_seqs: u64,
    pub max_running_requests: Vec<RunningAtContext>,
    pub startup_failure: Option<String>,
    /// A start-up log's figures against the prediction (`--vllm-log`).
    pub log_check: Vec<crate::vllm_log::LogFigure>,
    pub layout: KvLayout,
    pub pool: KvPool,
}

impl Capacity {
    /// The error every subcommand reports for a setup vLLM would refuse to
    /// start (no KV memory, a request that does not fit), None otherwise.
    pub fn startup_error(&self) -> Option<Error> {
        self.startup_failure.as_ref().map(|why| {
            Error::new(format!("vLLM would not start: {why}")).with_hint(
                "lower --max-model-len (or --kv-cache-memory-bytes), raise --gpu-memory-utilization, choose a smaller --kv-cache-dtype or a larger GPU",
            )
        })
    }

    /// Non-KV memory besides weights, activation peak and CUDA graphs: the
    /// non-torch estimate, plus whatever a pinned measured figure adds.
    pub fn other_non_kv_bytes(&self) -> u64 {
        self.non_kv_bytes
            .saturating_sub(self.weights_bytes + self.activation_bytes + self.cudagraph_bytes)
    }

    /// Device memory vLLM does not request (`total - requested`).
    pub fn unrequested_bytes(&self) -> u64 {
        self.total_bytes.saturating_sub(self.requested_bytes)
    }
}

impl Plan {
    /// A plan from parts already loaded and resolved, with the
    /// first-principles non-KV estimate (no scenario, no pin). The ranking
    /// sweep builds hundreds of these without parsing a file.
    pub fn assemble(
        model: LoadedModel,
        gpu: Gpu,
        engine: EngineArgs,
        harness: Harness,
        calibration: Calibration,
    ) -> Result<Plan> {
        let quant = engine.weight_quant(&model.quant);
        // The served dtype replaces the checkpoint's (`--dtype`).
        let dtype = engine.dtype.resolve(
            model.model.dtype,
            &model.model.architecture,
            crate::engine::gpu_supports_bf16(&gpu),
        )?;
        // Fp8Config's activation dtypes are bfloat16 and float16
        // (vllm/model_executor/layers/quantization/fp8.py); vLLM refuses
        // another model dtype for the method.
        if quant.method == crate::quant::QuantMethod::Fp8
            && dtype == crate::dtype::FloatDtype::Float32
        {
            return Err(Error::new(
                "--dtype float32 is not supported with fp8 weights: vLLM's fp8 method runs in bfloat16 or float16",
            )
            .with_hint("use --dtype auto, bfloat16 or float16 with --quantization fp8"));
        }
        let mut per_gpu = model.model.shard(engine.tensor_parallel_size)?;
        per_gpu.dtype = dtype;
        if quant.method == crate::quant::QuantMethod::Mxfp4 {
            per_gpu.pad_expert_intermediate(MXFP4_INTERMEDIATE_ALIGN);
        }
        let stages = per_gpu.pipeline_stages(engine.pipeline_parallel_size)?;
        // Each stage's estimate and block count; the fewest blocks win.
        let mut best: Option<(
            u64,
            crate::model::PipelineStage,
            crate::model::Model,
            NonKvEstimate,
        )> = None;
        for stage in &stages {
            let m = per_gpu.stage(stage);
            let est = NonKvEstimate::for_stage(&m, stage, &quant, &engine, &gpu);
            let blocks = KvLayout::new(&m, &engine)
                .map(|l| KvPool::new(&l, &engine, gpu.memory_bytes, est.total_bytes()).num_blocks)
                .unwrap_or(0);
            if best.as_ref().is_none_or(|b| blocks < b.0) {
                best = Some((blocks, *stage, m, est));
            }
        }
        let Some((_, kv_stage, kv_stage_model, estimate)) = best else {
            return Err(Error::new("the model has no layers to place")
                .with_hint("check the model's num_hidden_layers"));
        };
        Ok(Plan {
            scenario_id: format!("{} on {}", model.id, gpu.id),
            measured: None,
            non_kv_bytes: estimate.total_bytes(),
            non_kv_source: NonKvSource::Estimated,
            model,
            per_gpu,
            stages,
            kv_stage,
            kv_stage_model,
            gpu,
            engine,
            harness,
            estimate,
            calibration,
            warnings: Vec::new(),
            log_check: Vec::new(),
        })
    }

    /// The KV layout of the stage that sizes the cache (every stage gets the
    /// same number of blocks).
    pub fn layout(&self) -> Result<KvLayout> {
        KvLayout::new(&self.kv_stage_model, &self.engine)
    }

    pub fn capacity(&self) -> Result<Capacity> {
        let layout = self.layout()?;
        let pool = KvPool::new(
            &layout,
            &self.engine,
            self.gpu.memory_bytes,
            self.non_kv_bytes,
        );
        let running = self
            .harness
            .contexts_tokens
            .iter()
            .map(|&ctx| {
                let tokens = ctx + 1;
                let d = admit(&layout, &pool, &self.engine, ctx, tokens, u64::MAX, false);
                let same = admit(&layout, &pool, &self.engine, ctx, tokens, u64::MAX, true);
                RunningAtContext {
                    context_tokens: ctx,
                    max_running_requests: d.running,
                    max_running_identical_prompts: same.running,
                    blocks_per_request: layout.request_blocks(tokens),
                }
            })
            .collect();
        Ok(Capacity {
            scenario: self.scenario_id.clone(),
            vllm_version: self.engine.vllm_version.to_string(),
            total_bytes: self.gpu.memory_bytes,
            gpu_memory_utilization: self.engine.gpu_memory_utilization,
            requested_bytes: pool.requested_bytes,
            model_params: self.model.model.params(),
            tensor_parallel_size: self.engine.tensor_parallel_size,
            pipeline_parallel_size: self.engine.pipeline_parallel_size,
            kv_stage: self.kv_stage,
            dtype: self.per_gpu.dtype.name(),
            weights_bytes: self.estimate.weights_bytes,
            activation_bytes: self.estimate.activation_bytes,
            cudagraph_bytes: self.estimate.cudagraph_bytes,
            non_torch_bytes: self.estimate.non_torch_bytes,
            non_kv_estimate_bytes: self.estimate.total_bytes(),
            non_kv_bytes: self.non_kv_bytes,
            non_kv_source: self.non_kv_source.clone(),
            kv_pool_bytes: pool.kv_pool_bytes,
            kv_unallocated_bytes: pool.kv_unallocated_bytes,
            kv_cache_dtype: layout.kv_cache_dtype.name(),
            attention_bytes_per_token_per_layer: layout.attention_bytes_per_token_per_layer,
            mamba_state_bytes_per_layer: layout.mamba_state_bytes_per_layer,
            block_size_tokens: layout.block_size_tokens,
            page_bytes: layout.page_bytes,
            bytes_per_block: layout.bytes_per_block,
            num_blocks: pool.num_blocks,
            usable_blocks: pool.usable_blocks,
            kv_groups: layout.groups.clone(),
            padding_slots: layout.padding_slots(),
            kv_cache_tokens: pool.kv_cache_tokens,
            max_model_len_tokens: self.engine.max_model_len_tokens,
            max_concurrency: pool.max_concurrency,
            max_num_seqs: self.engine.max_num_seqs,
            max_running_requests: running,
            startup_failure: pool.startup_failure(),
            log_check: self.log_check.clone(),
            layout,
            pool,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::calibrate::Regime;

    /// A calibration whose file records a class-wide TPOT band of 10 / 20 %
    /// and, in the batched long-context regime, `figures` figures at 4 / 8 %.
    fn calibration(figures: f64, transferred: bool) -> Calibration {
        let mut fit = std::collections::BTreeMap::new();
        for (k, v) in [
            ("runs", 3.0),
            ("loo_tpot_median_abs_pct", 10.0),
            ("loo_tpot_p90_abs_pct", 20.0),
            ("loo_tpot_batched-long_figures", figures),
            ("loo_tpot_batched-long_median_abs_pct", 4.0),
            ("loo_tpot_batched-long_p90_abs_pct", 8.0),
            ("transfer_tpot_median_abs_pct", 30.0),
            ("transfer_tpot_p90_abs_pct", 40.0),
        ] {
            fit.insert(k.to_string(), v);
        }
        Calibration {
            id: "x".into(),
            params: TimingParams::FIRST_PRINCIPLES,
            transferred: transferred.then(|| "borrowed".to_string()),
            file: Some(CalibrationFile {
                id: "x".into(),
                class: "x".into(),
                gpus: Vec::new(),
                vllm_versions: Vec::new(),
                description: String::new(),
                fitted_on: Vec::new(),
                runs: Vec::new(),
                command: String::new(),
                params: TimingParams::FIRST_PRINCIPLES,
                fit,
            }),
            fitted_on_releases: None,
        }
    }

    #[test]
    fn a_cell_takes_its_regimes_band_only_when_the_regime_has_enough_figures() {
        let c = calibration(5.0, false);
        let b = c.cell_bands(8, 65_536).unwrap();
        assert_eq!(b.regime, Regime::BatchedLong);
        let t = b.tpot.unwrap();
        assert_eq!((t.median_abs_pct, t.p90_abs_pct), (4.0, 8.0));
        assert_eq!(t.regime, Some(Regime::BatchedLong));
        // Another regime, and the same one with too few figures: class-wide.
        let t = c.cell_bands(1, 65_536).unwrap().tpot.unwrap();
        assert_eq!((t.median_abs_pct, t.regime), (10.0, None));
        let t = calibration(4.0, false)
            .cell_bands(8, 65_536)
            .unwrap()
            .tpot
            .unwrap();
        assert_eq!((t.median_abs_pct, t.regime), (10.0, None));
        // Borrowed: the leave-class-out figures.
        let t = calibration(5.0, true)
            .cell_bands(8, 65_536)
            .unwrap()
            .tpot
            .unwrap();
        assert_eq!(
            (t.median_abs_pct, t.p90_abs_pct, t.borrowed),
            (30.0, 40.0, true)
        );
        // No cross-validated file: no band.
        assert_eq!(Calibration::none().cell_bands(8, 65_536), None);
    }

    #[test]
    fn regimes_split_at_one_request_and_eight_thousand_tokens() {
        assert_eq!(Regime::of(1, 8191), Regime::Batch1Short);
        assert_eq!(Regime::of(1, 8192), Regime::Batch1Long);
        assert_eq!(Regime::of(2, 0), Regime::BatchedShort);
        assert_eq!(Regime::of(64, 131_072), Regime::BatchedLong);
    }
}
