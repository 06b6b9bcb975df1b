//! Scenario files (`data/scenarios/*.toml`) and the scenario a pasted launch line is.

use super::*;

/// Non-KV memory pinned by a scenario to what a measurement implies.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::scenario))]
#[serde(deny_unknown_fields)]
pub struct MemoryPin {
    pub non_kv_bytes: i64,
    /// How the figure was derived.
    pub derivation: String,
}

/// A scenario file (`data/scenarios/*.toml`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::scenario))]
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
        .filter_map(|f| presets::read::<ModelFile>(f).ok()?.hf_repo)
        .collect();
    Err(
        Error::new(format!("no model preset for `{repo}`")).with_hint(format!(
            "known repos: {}; or pass --model with a preset or a file",
            known.join(", ")
        )),
    )
}

/// The scenario preset whose own launch line reads as `command` does.
pub(super) fn matching_scenario(
    command: &VllmCommand,
    model: Option<&str>,
) -> Option<(String, ScenarioFile)> {
    presets::FILES
        .iter()
        .filter(|f| f.kind == Kind::Scenario)
        .filter_map(|f| Some((f.path.to_string(), presets::read::<ScenarioFile>(f).ok()?)))
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
