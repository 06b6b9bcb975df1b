//! Presets embedded at compile time from `data/` (so the CLI and the web page
//! work from any directory, offline), and the file formats they share with
//! user-supplied files.

use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::model::Model;
use crate::parse;
use crate::quant::WeightQuant;
use serde::{Deserialize, Serialize};

#[cfg(feature = "bake")]
mod bake;
#[cfg(feature = "bake")]
pub use bake::{baked_source, page_value, WithoutProse};
// Written by `bake::baked_source`: a function per kind, an arm per preset.
#[cfg(any(not(feature = "toml"), feature = "bake"))]
#[allow(clippy::too_many_lines)]
mod baked;

/// A fingerprint of every `data/**/*.toml` file as this build sees them
/// (core/build.rs). `baked.rs` records the one it was written from; the
/// page, which reads its presets from `baked.rs` alone, does not build when
/// the two differ, so a preset edited without regenerating `baked.rs`
/// cannot reach the page.
pub const DATA_TOML_HASH: u64 = include!(concat!(env!("OUT_DIR"), "/data_toml_hash.rs"));

#[cfg(not(feature = "toml"))]
const _: () = assert!(
    baked::FROM_DATA_TOML_HASH == DATA_TOML_HASH,
    "core/src/presets/baked.rs was written from other data/*.toml files: rewrite it with `UPDATE_BAKED=1 cargo test -p decodecalc-tests --test suite data::baked`"
);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Gpu,
    Model,
    Scenario,
    Measured,
    Calibration,
    Prices,
    /// Published vLLM start-up logs (CSV), the checks of the capacity model.
    StartupLogs,
    /// Measured serving runs (`decodecalc_fit::runs::parse_csv`), the timing model's corpus.
    Runs,
    /// Measured per-kernel latencies (`data/kernels/*.csv`, from
    /// aiconfigurator's tables): what the timing model's kernel constants
    /// are fitted to (`timing::collective` for the all-reduce).
    Kernels,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Gpu => "GPU",
            Kind::Model => "model",
            Kind::Scenario => "scenario",
            Kind::Measured => "measured run",
            Kind::Calibration => "calibration",
            Kind::Prices => "price list",
            Kind::StartupLogs => "start-up log set",
            Kind::Runs => "measured runs",
            Kind::Kernels => "kernel table",
        }
    }

    /// The flag that names a preset of this kind.
    pub fn flag(self) -> &'static str {
        match self {
            Kind::Gpu => "--gpu",
            Kind::Model => "--model",
            Kind::Scenario => "--scenario",
            Kind::Measured | Kind::Runs => "--measured",
            Kind::Calibration => "--calibration",
            Kind::Prices => "--prices",
            Kind::StartupLogs => "--vllm-log",
            // No flag names a kernel table; they describe GPUs.
            Kind::Kernels => "--gpu",
        }
    }
}

/// One embedded file of `data/`.
#[derive(Clone, Copy, Debug)]
pub struct Embedded {
    pub kind: Kind,
    pub id: &'static str,
    /// Path relative to the repository root, for messages.
    pub path: &'static str,
    /// The file's text; empty for a TOML file in a build without the
    /// `toml` feature (the page), which reads it as a value ([`read`]).
    pub text: &'static str,
}

/// A kind of file that is also a kind of preset: read from text (a user's
/// file, or an embedded one), or, in the web page, the value baked from the
/// embedded file ([`baked`]).
pub trait PresetFile: Clone + Send + 'static {
    /// The kind of preset it is.
    const KIND: Kind;
    /// The file as the CLI reads it: parsed and checked.
    fn parse(origin: &str, text: &str) -> Result<Self>;
    /// The baked value of the preset `id` (`core/src/presets/baked.rs`).
    #[cfg(any(not(feature = "toml"), feature = "bake"))]
    fn baked(id: &str) -> Option<Self>;
}

/// An embedded preset as a value: its TOML parsed and checked (the CLI), or
/// the value baked from that TOML (the web page, which so links no TOML or
/// JSON reader for presets; a test checks the two are equal).
pub fn read<T: PresetFile>(f: &Embedded) -> Result<T> {
    #[cfg(feature = "toml")]
    return parsed_once(f);
    #[cfg(not(feature = "toml"))]
    T::baked(f.id).ok_or_else(|| {
        Error::new(format!("{}: not among the baked presets", f.path))
            .with_hint("rewrite core/src/presets/baked.rs: UPDATE_BAKED=1 cargo test -p decodecalc-tests --test suite data::baked")
    })
}

/// An embedded preset's TOML parsed once per process and then cloned: the
/// timing model asks for a GPU preset (`kernels_from`, the link of the
/// GPU whose kernel figures it borrows) at every step it prices, and an
/// alias lookup ([`find`]) reads every preset of its kind. The file is
/// embedded, so its parse cannot change while the process runs.
#[cfg(feature = "toml")]
fn parsed_once<T: PresetFile>(f: &Embedded) -> Result<T> {
    use std::any::Any;
    use std::collections::BTreeMap;
    use std::sync::{Mutex, OnceLock};
    type Cache = Mutex<BTreeMap<&'static str, Box<dyn Any + Send>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    // A poisoned lock (a panic elsewhere while it was held) only loses the cache.
    if let Some(hit) = cache.lock().ok().and_then(|c| {
        c.get(f.path)
            .and_then(|v| v.downcast_ref::<Result<T>>())
            .cloned()
    }) {
        return hit;
    }
    let parsed = T::parse(f.path, f.text);
    if let Ok(mut c) = cache.lock() {
        c.insert(f.path, Box::new(parsed.clone()));
    }
    parsed
}

/// A data file's text as embedded: the file itself ...
macro_rules! data_file {
    ($dir:literal, $id:literal, $ext:ident) => {
        include_str!(concat!(
            "../../../data/",
            $dir,
            "/",
            $id,
            ".",
            stringify!($ext)
        ))
    };
}

/// ... or, without the `toml` feature (the web page), nothing for a TOML
/// file: the page takes its presets as values ([`baked`]), not as text.
#[cfg(feature = "toml")]
macro_rules! embedded_text {
    ($dir:literal, $id:literal, $ext:ident) => {
        data_file!($dir, $id, $ext)
    };
}
#[cfg(not(feature = "toml"))]
macro_rules! embedded_text {
    ($dir:literal, $id:literal, toml) => {
        ""
    };
    ($dir:literal, $id:literal, $ext:ident) => {
        data_file!($dir, $id, $ext)
    };
}

macro_rules! embed {
    ($kind:expr, $dir:literal, $id:literal, $ext:ident) => {
        Embedded {
            kind: $kind,
            id: $id,
            path: concat!("data/", $dir, "/", $id, ".", stringify!($ext)),
            text: embedded_text!($dir, $id, $ext),
        }
    };
}

/// Every file of `data/` (a test checks none is missing).
pub static FILES: &[Embedded] = &[
    embed!(Kind::Gpu, "gpus", "rtx3090", toml),
    embed!(Kind::Gpu, "gpus", "rtx3090-ti", toml),
    embed!(Kind::Gpu, "gpus", "rtx4090", toml),
    embed!(Kind::Gpu, "gpus", "rtx5090", toml),
    embed!(Kind::Gpu, "gpus", "rtx-a6000", toml),
    embed!(Kind::Gpu, "gpus", "rtx6000-ada", toml),
    embed!(Kind::Gpu, "gpus", "l4", toml),
    embed!(Kind::Gpu, "gpus", "l40s", toml),
    embed!(Kind::Gpu, "gpus", "a10", toml),
    embed!(Kind::Gpu, "gpus", "a40", toml),
    embed!(Kind::Gpu, "gpus", "a100-40gb", toml),
    embed!(Kind::Gpu, "gpus", "a100-80gb", toml),
    embed!(Kind::Gpu, "gpus", "a100-80gb-pcie", toml),
    embed!(Kind::Gpu, "gpus", "h100-sxm", toml),
    embed!(Kind::Gpu, "gpus", "h100-pcie", toml),
    embed!(Kind::Gpu, "gpus", "h200", toml),
    embed!(Kind::Gpu, "gpus", "h100-nvl", toml),
    embed!(Kind::Gpu, "gpus", "h20-3e", toml),
    embed!(Kind::Gpu, "gpus", "gb200", toml),
    embed!(Kind::Gpu, "gpus", "gb300", toml),
    embed!(Kind::Gpu, "gpus", "b200", toml),
    embed!(Kind::Gpu, "gpus", "mi300x", toml),
    embed!(Kind::Gpu, "gpus", "rtx3080", toml),
    embed!(Kind::Gpu, "gpus", "rtx3080-12gb", toml),
    embed!(Kind::Gpu, "gpus", "rtx4080", toml),
    embed!(Kind::Gpu, "gpus", "rtx4080-super", toml),
    embed!(Kind::Gpu, "gpus", "rtx5070-ti", toml),
    embed!(Kind::Gpu, "gpus", "rtx5080", toml),
    embed!(Kind::Gpu, "gpus", "rtx-pro-6000", toml),
    embed!(Kind::Gpu, "gpus", "rtx-pro-6000-server", toml),
    embed!(Kind::Gpu, "gpus", "rtx-pro-6000-maxq", toml),
    embed!(Kind::Gpu, "gpus", "dgx-spark", toml),
    embed!(Kind::Gpu, "gpus", "l20", toml),
    embed!(Kind::Gpu, "gpus", "t4", toml),
    embed!(Kind::Gpu, "gpus", "v100-16gb", toml),
    embed!(Kind::Gpu, "gpus", "v100-32gb", toml),
    embed!(Kind::Gpu, "gpus", "v100-pcie-16gb", toml),
    embed!(Kind::Gpu, "gpus", "v100-pcie-32gb", toml),
    embed!(Kind::Gpu, "gpus", "h20", toml),
    embed!(Kind::Gpu, "gpus", "b300", toml),
    embed!(Kind::Gpu, "gpus", "mi325x", toml),
    embed!(Kind::Gpu, "gpus", "mi355x", toml),
    embed!(Kind::Model, "models", "nemotron-nano-12b-v2", toml),
    embed!(Kind::Model, "models", "nemotron-nano-12b-v2-awq4", toml),
    embed!(Kind::Model, "models", "nemotron-nano-12b-v2-awq8", toml),
    embed!(Kind::Model, "models", "nemotron-nano-9b-v2", toml),
    embed!(Kind::Model, "models", "nemotron-h-8b", toml),
    embed!(Kind::Model, "models", "llama-3.1-8b", toml),
    embed!(Kind::Model, "models", "llama-3.1-70b", toml),
    embed!(Kind::Model, "models", "mistral-7b-v0.3", toml),
    embed!(Kind::Model, "models", "qwen2.5-7b", toml),
    embed!(Kind::Model, "models", "qwen2.5-32b", toml),
    embed!(Kind::Model, "models", "qwen2.5-0.5b", toml),
    embed!(Kind::Model, "models", "qwen2.5-1.5b", toml),
    embed!(Kind::Model, "models", "qwen2.5-3b", toml),
    embed!(Kind::Model, "models", "qwen2.5-14b", toml),
    embed!(Kind::Model, "models", "qwen2.5-72b", toml),
    embed!(Kind::Model, "models", "qwen2.5-0.5b-gptq-int4", toml),
    embed!(Kind::Model, "models", "qwen2.5-0.5b-gptq-int8", toml),
    embed!(Kind::Model, "models", "qwen2.5-0.5b-awq", toml),
    embed!(Kind::Model, "models", "qwen2.5-1.5b-gptq-int4", toml),
    embed!(Kind::Model, "models", "qwen2.5-1.5b-gptq-int8", toml),
    embed!(Kind::Model, "models", "qwen2.5-1.5b-awq", toml),
    embed!(Kind::Model, "models", "qwen2.5-3b-gptq-int4", toml),
    embed!(Kind::Model, "models", "qwen2.5-3b-gptq-int8", toml),
    embed!(Kind::Model, "models", "qwen2.5-3b-awq", toml),
    embed!(Kind::Model, "models", "qwen2.5-7b-gptq-int4", toml),
    embed!(Kind::Model, "models", "qwen2.5-7b-gptq-int8", toml),
    embed!(Kind::Model, "models", "qwen2.5-7b-awq", toml),
    embed!(Kind::Model, "models", "qwen2.5-14b-gptq-int4", toml),
    embed!(Kind::Model, "models", "qwen2.5-14b-gptq-int8", toml),
    embed!(Kind::Model, "models", "qwen2.5-14b-awq", toml),
    embed!(Kind::Model, "models", "qwen2.5-32b-gptq-int4", toml),
    embed!(Kind::Model, "models", "qwen2.5-32b-gptq-int8", toml),
    embed!(Kind::Model, "models", "qwen2.5-32b-awq", toml),
    embed!(Kind::Model, "models", "qwen2.5-72b-gptq-int4", toml),
    embed!(Kind::Model, "models", "qwen2.5-72b-gptq-int8", toml),
    embed!(Kind::Model, "models", "qwen2.5-72b-awq", toml),
    embed!(Kind::Model, "models", "qwen3-8b", toml),
    embed!(Kind::Model, "models", "qwen3-32b", toml),
    embed!(Kind::Model, "models", "qwen3-30b-a3b", toml),
    embed!(Kind::Model, "models", "mixtral-8x7b", toml),
    embed!(Kind::Model, "models", "gemma-2-9b", toml),
    embed!(Kind::Model, "models", "gemma-3-12b", toml),
    embed!(Kind::Model, "models", "gpt-oss-20b", toml),
    embed!(Kind::Model, "models", "gpt-oss-120b", toml),
    embed!(Kind::Model, "models", "qwen3-235b-a22b-fp8", toml),
    embed!(Kind::Model, "models", "jamba-1.5-mini", toml),
    embed!(Kind::Model, "models", "qwen3-next-80b-a3b", toml),
    embed!(
        Kind::Model,
        "models",
        "qwen3.8-27b-uncensored-nvfp4-v3",
        toml
    ),
    embed!(Kind::Model, "models", "deepseek-v3", toml),
    embed!(
        Kind::Scenario,
        "scenarios",
        "rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32",
        toml
    ),
    embed!(Kind::Calibration, "calibrations", "ada-datacenter", toml),
    embed!(Kind::Calibration, "calibrations", "ada-geforce", toml),
    embed!(Kind::Calibration, "calibrations", "ampere-datacenter", toml),
    embed!(Kind::Calibration, "calibrations", "ampere-geforce", toml),
    embed!(Kind::Calibration, "calibrations", "hopper", toml),
    embed!(Kind::Calibration, "calibrations", "shared", toml),
    embed!(Kind::Prices, "prices", "on-demand", toml),
    #[cfg(feature = "corpus")]
    embed!(
        Kind::StartupLogs,
        "startup-logs",
        "vllm0.19-h100-llm-d",
        csv
    ),
    #[cfg(feature = "corpus")]
    embed!(Kind::StartupLogs, "startup-logs", "other-public-logs", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Runs, "runs", "public-decode-speed", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Runs, "runs", "aiconfigurator-silicon-vllm", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Runs, "runs", "aiconfigurator-silicon-vllm-ep", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Runs, "runs", "a100-vllm-v1", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Runs, "runs", "speculative-decoding", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Runs, "runs", "speculative-sweeps", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Runs, "runs", "speculative-dflash", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Runs, "runs", "speculative-cross-rig", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Kernels, "kernels", "allreduce", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Kernels, "kernels", "allgather_reducescatter", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Kernels, "kernels", "context_attention", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Kernels, "kernels", "gdn", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Kernels, "kernels", "gemm", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Kernels, "kernels", "gemm_weight_only", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Kernels, "kernels", "generation_attention", csv),
    #[cfg(feature = "corpus")]
    embed!(Kind::Kernels, "kernels", "moe", csv),
    embed!(
        Kind::Measured,
        "measured",
        "rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32",
        csv
    ),
];

/// The scenario `decodecalc matrix` runs when given none: the seed's run.
pub const REFERENCE_SCENARIO: &str = "rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32";

/// The preset of `kind` named `id`: its id in any case, else one of its other
/// names ([`other_names`]).
pub fn find(kind: Kind, id: &str) -> Result<&'static Embedded> {
    let wanted = id.trim();
    let of_kind = || FILES.iter().filter(move |f| f.kind == kind);
    of_kind()
        .find(|f| f.id.eq_ignore_ascii_case(wanted))
        .or_else(|| {
            let key = name_key(kind, wanted);
            of_kind().find(|f| other_names(f).iter().any(|n| name_key(kind, n) == key))
        })
        .ok_or_else(|| {
            let known: Vec<&str> = ids(kind).collect();
            Error::new(format!("unknown {} preset `{id}`", kind.name()))
                .with_hint(format!(
                    "known: {}; or give a path to a .toml file",
                    known.join(", ")
                ))
                .of_kind(crate::ErrorKind::UnknownPreset)
                .about(kind.flag())
        })
}

/// The names a preset answers to besides its id: a GPU's `aliases`, a model's
/// id and Hugging Face repo (both compared without an `-Instruct`/`-it` suffix).
pub fn other_names(f: &Embedded) -> Vec<String> {
    match f.kind {
        Kind::Gpu => read::<Gpu>(f).map(|g| g.aliases).unwrap_or_default(),
        Kind::Model => match read::<ModelFile>(f) {
            Ok(m) => std::iter::once(m.id).chain(m.hf_repo).collect(),
            Err(_) => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// A name as [`find`] compares it: lowercase; for models without a trailing
/// `-instruct` or `-it` (`meta-llama/Llama-3.1-8B-Instruct` names the
/// `meta-llama/Llama-3.1-8B` preset's config).
fn name_key(kind: Kind, name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    if kind != Kind::Model {
        return lower;
    }
    ["-instruct", "-it"]
        .iter()
        .find_map(|s| lower.strip_suffix(s))
        .unwrap_or(&lower)
        .to_string()
}

pub fn ids(kind: Kind) -> impl Iterator<Item = &'static str> {
    FILES.iter().filter(move |f| f.kind == kind).map(|f| f.id)
}

/// A model file: a checkpoint. Either `[config]` (config.json fields) or
/// `base` (another model preset whose config it shares), and optionally
/// `[quantization]` (the checkpoint's `quantization_config`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelFile {
    pub id: String,
    pub name: String,
    pub hf_repo: Option<String>,
    /// Where the config and sizes come from. Empty in the web page's
    /// embedded presets (`presets::WithoutProse`: the page shows no provenance).
    pub source: String,
    pub base: Option<String>,
    /// Published parameter count, for checks.
    pub published_params: Option<f64>,
    /// Published size of the checkpoint's weight files, bytes, for checks.
    pub checkpoint_bytes: Option<u64>,
    /// The fields of the checkpoint's config.json.
    pub config: Option<serde_json::Map<String, serde_json::Value>>,
    pub quantization: Option<WeightQuant>,
    /// Notes for the reader (checkpoint size, assumptions).
    pub notes: Option<String>,
}

/// A model resolved from its file: layers and weight layout.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoadedModel {
    pub id: String,
    pub name: String,
    pub model: Model,
    pub quant: WeightQuant,
    pub published_params: Option<f64>,
    pub checkpoint_bytes: Option<u64>,
    /// The config.json fields it was built from (for `--hf-overrides`).
    #[serde(skip)]
    pub config: serde_json::Value,
}

impl LoadedModel {
    /// The model with `--hf-overrides` applied: `overrides` (a JSON object,
    /// as vLLM's flag takes it) merged into the config it was built from,
    /// nested objects key by key (vllm/transformers_utils/config.py applies
    /// a dict of overrides to the Hugging Face config the same way), and the
    /// layers rebuilt. The weight layout stays the checkpoint's.
    pub fn with_overrides(
        &self,
        flag: impl crate::AsSubject,
        overrides: &str,
    ) -> Result<LoadedModel> {
        let o: serde_json::Value = crate::config::parse_json(&flag.to_string(), overrides)?;
        if !o.is_object() {
            return Err(Error::field(
                flag,
                overrides,
                "a JSON object of config.json fields, such as '{\"max_position_embeddings\": 131072}'",
            ));
        }
        let mut merged = self.config.clone();
        merge(&mut merged, &o);
        let model = crate::config::model_from_config(&merged).map_err(|e| e.within(flag))?;
        Ok(LoadedModel {
            model,
            config: merged,
            ..self.clone()
        })
    }
}

fn merge(into: &mut serde_json::Value, from: &serde_json::Value) {
    match (into, from) {
        (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                    _ => {
                        a.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

impl ModelFile {
    pub fn parse(origin: &str, text: &str) -> Result<ModelFile> {
        parse::toml(origin, text)
    }

    /// Resolve `base` chains among presets (at most 4 deep).
    pub fn load(self, origin: &str) -> Result<LoadedModel> {
        let mut config = self.config.clone();
        let mut quant = self.quantization.clone();
        let mut published = self.published_params;
        let mut base = self.base.clone();
        let mut depth = 0;
        while let Some(b) = base {
            depth += 1;
            if depth > 4 {
                return Err(
                    Error::new(format!("{origin}: `base` chain deeper than 4 presets"))
                        .with_hint("point `base` at a preset that has a [config] table"),
                );
            }
            let f = find(Kind::Model, &b).map_err(|e| e.context(format!("{origin}: base")))?;
            let parent: ModelFile = read(f)?;
            config = config.or(parent.config);
            quant = quant.or(parent.quantization);
            published = published.or(parent.published_params);
            base = parent.base;
        }
        let config = config.ok_or_else(|| {
            Error::new(format!("{origin}: no [config] table and no `base`")).with_hint(
                "give the config.json fields under [config], or base = \"<model preset>\"",
            )
        })?;
        let json = serde_json::Value::Object(config);
        let model = crate::config::model_from_config(&json)
            .map_err(|e| e.context(format!("{origin}: [config]")))?;
        // Without a [quantization] table, the checkpoint's own
        // quantization_config (as config.json has it) decides.
        let quant = match quant {
            Some(q) => q,
            None => crate::quant::from_config_json(&json)
                .map_err(|e| e.context(format!("{origin}: [config.quantization_config]")))?
                .unwrap_or_else(WeightQuant::none),
        };
        quant
            .validate()
            .map_err(|e| e.context(format!("{origin}: [quantization]")))?;
        Ok(LoadedModel {
            id: self.id,
            name: self.name,
            model,
            quant,
            published_params: published,
            checkpoint_bytes: self.checkpoint_bytes,
            config: json,
        })
    }
}

/// A model preset by id.
pub fn model(id: &str) -> Result<LoadedModel> {
    let f = find(Kind::Model, id)?;
    read::<ModelFile>(f)?.load(f.path)
}

pub fn parse_gpu(origin: &str, text: &str) -> Result<Gpu> {
    let gpu: Gpu = parse::toml(origin, text)?;
    gpu.validate().map_err(|e| e.context(origin))?;
    Ok(gpu)
}

/// A GPU preset by id.
pub fn gpu(id: &str) -> Result<Gpu> {
    let f = find(Kind::Gpu, id)?;
    read(f)
}

/// Each kind of preset file: its reader and its function in `baked.rs`.
macro_rules! preset_files {
    ($($ty:ty => $kind:ident, $parse:path, $baked:ident;)*) => {$(
        impl PresetFile for $ty {
            const KIND: Kind = Kind::$kind;
            fn parse(origin: &str, text: &str) -> Result<Self> {
                $parse(origin, text)
            }
            #[cfg(any(not(feature = "toml"), feature = "bake"))]
            fn baked(id: &str) -> Option<Self> {
                baked::$baked(id)
            }
        }
    )*};
}

preset_files! {
    Gpu => Gpu, parse_gpu, gpu;
    ModelFile => Model, ModelFile::parse, model;
    crate::scenario::ScenarioFile => Scenario, crate::scenario::ScenarioFile::parse, scenario;
    crate::scenario::CalibrationFile => Calibration, crate::scenario::CalibrationFile::parse, calibration;
    crate::rank::Prices => Prices, crate::rank::Prices::parse, prices;
}

/// A baked model's `[config]`: the JSON serde_json wrote of it, read back
/// as config.json is (exactly: `float_roundtrip`).
#[cfg(any(not(feature = "toml"), feature = "bake"))]
fn config_object(json: &str) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::from_str(json) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    }
}

/// A model file as the Rust expression that makes it: `[config]` as its
/// JSON text ([`config_object`]), the rest field by field.
#[cfg(feature = "bake")]
impl databake::Bake for ModelFile {
    fn bake(&self, env: &databake::CrateEnv) -> databake::TokenStream {
        let ModelFile {
            id,
            name,
            hf_repo,
            source,
            base,
            published_params,
            checkpoint_bytes,
            config,
            quantization,
            notes,
        } = self;
        let (id, name, hf_repo, source, base) = (
            id.bake(env),
            name.bake(env),
            hf_repo.bake(env),
            source.bake(env),
            base.bake(env),
        );
        let (published_params, checkpoint_bytes, quantization, notes) = (
            published_params.bake(env),
            checkpoint_bytes.bake(env),
            quantization.bake(env),
            notes.bake(env),
        );
        let config = match config {
            Some(c) => {
                let json = serde_json::Value::Object(c.clone()).to_string();
                databake::quote!(Some(crate::presets::config_object(#json)))
            }
            None => databake::quote!(None),
        };
        databake::quote! {
            crate::presets::ModelFile {
                id: #id,
                name: #name,
                hf_repo: #hf_repo,
                source: #source,
                base: #base,
                published_params: #published_params,
                checkpoint_bytes: #checkpoint_bytes,
                config: #config,
                quantization: #quantization,
                notes: #notes,
            }
        }
    }
}
