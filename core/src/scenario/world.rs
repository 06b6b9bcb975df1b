//! The boundary to the outside world: files through [`World`], presets by id.

use super::*;

/// Where files come from. The CLI reads the file system; the web page has no
/// files but the ones a user drops in.
pub trait World {
    /// The text of the file at `path`, or why it cannot be read.
    fn read(&self, path: &str) -> std::result::Result<String, ReadError>;

    /// What is at `path`: nothing, a regular file, or something else (a
    /// directory, FIFO, socket or device). A world without files has nothing.
    fn entry(&self, _path: &str) -> Entry {
        Entry::Missing
    }

    /// Where a Hugging Face Hub repo's (`org/name`) config is: its folder
    /// in the local Hub cache (a path [`World::read`] reads `config.json`
    /// under, fetched from the Hub first when the world can), or a config
    /// file the world holds for it (the CLI embeds a corpus of real
    /// configs). `Ok(None)`: the world has none and cannot fetch it (the
    /// page, or the CLI offline); an error: the Hub was asked and said no,
    /// or could not be reached.
    fn hub_snapshot(&self, _repo: &str) -> std::result::Result<Option<String>, HubError> {
        Ok(None)
    }
}

/// Why a world could not read a file: what the World reports, typed, and
/// worded once here (`Display`), whichever world it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Nothing at the path, or the system refused it (`reason`: the
    /// system's words, e.g. "No such file or directory (os error 2)").
    Unreadable { path: String, reason: String },
    /// A directory, FIFO, socket or device: never read (it could block or
    /// never end).
    NotRegular { path: String },
    /// Larger than an input may be.
    TooLarge { path: String, limit_bytes: u64 },
    /// Not UTF-8 text: the first invalid byte's offset.
    NotUtf8 { path: String, offset_bytes: u64 },
    /// A world without files (the page), or without this one.
    NoFileAccess { path: String },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Unreadable { path, reason } => write!(f, "cannot read `{path}`: {reason}"),
            ReadError::NotRegular { path } => write!(
                f,
                "`{path}` is not a regular file (a directory, FIFO, socket or device)"
            ),
            ReadError::TooLarge { path, limit_bytes } => write!(
                f,
                "`{path}` has more than the {limit_bytes} bytes ({} MiB) an input may have",
                limit_bytes >> 20
            ),
            ReadError::NotUtf8 { path, offset_bytes } => write!(
                f,
                "`{path}` is not UTF-8 text (invalid byte at offset {offset_bytes})"
            ),
            ReadError::NoFileAccess { path } => {
                write!(f, "cannot read `{path}`: no file access here")
            }
        }
    }
}

impl ReadError {
    /// The user-facing error, with the caller's hint.
    pub fn into_error(self, hint: impl Into<String>) -> Error {
        let kind = match self {
            ReadError::NotUtf8 { .. } => crate::ErrorKind::Parse,
            _ => crate::ErrorKind::Other,
        };
        Error::new(self.to_string()).with_hint(hint).of_kind(kind)
    }
}

/// Why a Hub repo's files could not be fetched, as the world saw it; core
/// words the error and its hint ([`HubError::into_error`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HubError {
    /// The repo id asked for (`org/name`).
    pub repo: String,
    /// The Hub's address (`HF_ENDPOINT`, else https://huggingface.co).
    pub endpoint: String,
    pub failure: HubFailure,
}

/// What went wrong fetching a repo from the Hub.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HubFailure {
    /// No such repo (or a private one the token cannot see): HTTP 404, or
    /// the Hub's `X-Error-Code: RepoNotFound`.
    RepoNotFound,
    /// A gated repo and no token, or a token without access:
    /// `X-Error-Code: GatedRepo`. `token_sent`: whether a token went with
    /// the request.
    Gated { token_sent: bool },
    /// HTTP 401 or 403 without an error code saying why: to a client
    /// without a token the Hub answers so for a private repo and for one
    /// that does not exist alike.
    Refused { status: u16, token_sent: bool },
    /// The repo exists but has no `config.json` (a GGUF-only repo, say).
    NoConfig,
    /// The Hub could not be reached (no network, DNS, refused connection,
    /// no answer within the bound), with the transport's reason.
    Unreachable(String),
    /// Anything else the Hub answered (HTTP status, malformed headers),
    /// or the cache could not be written, with the reason.
    Other(String),
}

/// The public Hub's address (the CLI's `$HF_ENDPOINT` replaces it).
pub const HUB_ENDPOINT: &str = "https://huggingface.co";

/// The files a repo fetch asks for, the first required: the config, a
/// ModelOpt quantization config, and the sharded checkpoint's index, whose
/// `total_size` is the checkpoint's exact byte count
/// ([`safetensors_total_beside`]).
pub const HUB_FILES: [&str; 3] = [
    "config.json",
    "hf_quant_config.json",
    "model.safetensors.index.json",
];

/// What an unsuccessful answer for `HUB_FILES[file_index]` means: None when
/// the file is optional and the repo lacks it (skip it), else the failure.
/// The Hub's `X-Error-Code` decides first (it answers 401 to an anonymous
/// client for a missing repo), then the status. One rule for the CLI's
/// fetch and the page's.
pub fn hub_refusal(
    file_index: usize,
    error_code: Option<&str>,
    status: u16,
    token_sent: bool,
) -> Option<HubFailure> {
    let optional = file_index > 0;
    match (error_code, status) {
        (Some("EntryNotFound"), _) => (!optional).then_some(HubFailure::NoConfig),
        (Some("RepoNotFound"), _) | (None, 404) => (!optional).then_some(HubFailure::RepoNotFound),
        (Some("GatedRepo"), _) => Some(HubFailure::Gated { token_sent }),
        // Without a code (a cross-origin answer may not expose it):
        // missing, private or gated alike.
        (_, 401 | 403) => Some(HubFailure::Refused { status, token_sent }),
        (_, status) => Some(HubFailure::Other(format!("HTTP {status}"))),
    }
}

impl HubError {
    /// The user-facing error: what failed, naming the repo, and a hint.
    pub fn into_error(self) -> Error {
        let (repo, endpoint) = (&self.repo, &self.endpoint);
        let (message, hint) = match &self.failure {
            HubFailure::RepoNotFound => (
                format!("`{repo}` is no model preset, no file here, and no repo on the Hub ({endpoint})"),
                "check the repo id's spelling on the Hub; a private repo needs a token with access in $HF_TOKEN".to_string(),
            ),
            HubFailure::Gated { token_sent: false } => (
                format!("`{repo}` is a gated or private repo on the Hub ({endpoint}) and no token was sent"),
                format!("accept its license on {endpoint}/{repo}, then set $HF_TOKEN to a token with read access (or run `hf auth login`)"),
            ),
            HubFailure::Gated { token_sent: true } => (
                format!("the Hub ({endpoint}) refused the token for `{repo}`: it is gated or private and the token has no access"),
                format!("accept its license on {endpoint}/{repo} with the token's account, or set $HF_TOKEN to a token that has access"),
            ),
            HubFailure::Refused { status, token_sent } => (
                format!("the Hub ({endpoint}) refused `{repo}` (HTTP {status}) without saying why: it does not exist, or it is private or gated"),
                if *token_sent {
                    format!("check the repo id on {endpoint}; for a private or gated repo, use a token ($HF_TOKEN) whose account has access")
                } else {
                    format!("check the repo id on {endpoint}; a private or gated repo needs $HF_TOKEN set to a token with read access")
                },
            ),
            HubFailure::NoConfig => (
                format!("`{repo}` on the Hub ({endpoint}) has no config.json"),
                "give the repo of the original (non-GGUF) checkpoint, or a config.json by path".to_string(),
            ),
            HubFailure::Unreachable(why) => (
                format!("cannot reach the Hub ({endpoint}) for `{repo}`: {why}"),
                format!("check the network (or $HF_ENDPOINT), or fetch it elsewhere and copy the cache: `hf download {repo} config.json`; HF_HUB_OFFLINE=1 reads only the local cache"),
            ),
            HubFailure::Other(why) => (
                format!("cannot fetch `{repo}` from the Hub ({endpoint}): {why}"),
                format!("retry, or fetch its config.json with `hf download {repo} config.json` and give the folder"),
            ),
        };
        let kind = match self.failure {
            HubFailure::RepoNotFound => crate::ErrorKind::UnknownPreset,
            _ => crate::ErrorKind::Other,
        };
        Error::new(message)
            .with_hint(hint)
            .of_kind(kind)
            .about("--model")
    }
}

/// Whether `name` reads as a Hugging Face Hub repo id: `org/name`, both
/// parts non-empty, of the characters the Hub allows, not a file name.
pub fn is_hub_repo(name: &str) -> bool {
    let ok = |part: &str| {
        !part.is_empty()
            && part.len() <= 96
            && !part.starts_with('.')
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    match name.split_once('/') {
        Some((org, repo)) => {
            ok(org) && ok(repo) && !repo.ends_with(".json") && !repo.ends_with(".toml")
        }
        None => false,
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
    fn read(&self, path: &str) -> std::result::Result<String, ReadError> {
        Err(ReadError::NoFileAccess { path: path.into() })
    }
}

/// A name is a path when it has a path separator or a file extension.
pub fn is_path(name: &str) -> bool {
    name.contains('/')
        || name.contains('\\')
        || [".toml", ".csv", ".json"].iter().any(|e| name.ends_with(e))
}

/// What a name given for a file of `kind` is: an embedded preset, or a file
/// the world read (its path and text).
enum Found {
    Preset(&'static presets::Embedded),
    File(String, String),
}

fn find_file(world: &dyn World, kind: Kind, name: &str) -> Result<Found> {
    // A bare name is a preset, unless no preset has it and something of that
    // name exists (then reading it says what it is).
    let path_like = is_path(name)
        || (presets::find(kind, name).is_err() && world.entry(name) != Entry::Missing);
    if path_like {
        let text = world.read(name).map_err(|why| {
            why.into_error(format!(
                "give an existing file or a {} preset: {}",
                kind.name(),
                presets::ids(kind).collect::<Vec<_>>().join(", ")
            ))
            .about(kind.flag())
        })?;
        Ok(Found::File(name.to_string(), text))
    } else {
        presets::find(kind, name).map(Found::Preset)
    }
}

/// The text of a preset of `kind` or of a file: its origin (the path, or the
/// preset's embedded path) and text. For a kind of file that has a reader,
/// [`load`].
pub fn load_text(world: &dyn World, kind: Kind, name: &str) -> Result<(String, String)> {
    Ok(match find_file(world, kind, name)? {
        Found::Preset(f) => (f.path.to_string(), f.text.to_string()),
        Found::File(path, text) => (path, text),
    })
}

/// A preset or a file of one kind, read: its origin (the path, or the
/// preset's embedded path) and value.
pub fn load<T: PresetFile>(world: &dyn World, name: &str) -> Result<(String, T)> {
    match find_file(world, T::KIND, name)? {
        Found::Preset(f) => Ok((f.path.to_string(), presets::read(f)?)),
        Found::File(path, text) => {
            let value = T::parse(&path, &text)?;
            Ok((path, value))
        }
    }
}

/// A model by preset id, Hugging Face repo id of a preset, model file
/// (`.toml`), `config.json`, or a folder holding a `config.json`. A bare name
/// is tried as a preset first, a path-like one (`org/name`, `./dir`) as a
/// file or folder first; the other is tried next, and an error names both.
pub fn load_model(world: &dyn World, name: &str) -> Result<LoadedModel> {
    if name.ends_with(".toml") {
        let (origin, file) = load::<ModelFile>(world, name)?;
        return file.load(&origin);
    }
    if !is_path(name) {
        if let Ok(f) = presets::find(Kind::Model, name) {
            return presets::model(f.id);
        }
    }
    // A Hub repo id that names no file here: its config.json from the local
    // Hub cache, when the world has the repo there.
    let snapshot = if world.entry(name) == Entry::Missing && is_hub_repo(name) {
        world.hub_snapshot(name).map_err(HubError::into_error)?
    } else {
        None
    };
    let repo = snapshot.as_ref().map(|_| name);
    let name = snapshot.as_deref().unwrap_or(name);
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
            // A model named by its Hub repo goes by it, wherever its
            // config came from.
            if let Some(repo) = repo {
                m.id = repo.to_string();
                m.name = repo.to_string();
            }
            m.checkpoint_bytes = safetensors_total_beside(world, &path)?;
            Ok(m)
        }
        // Something is there but cannot be read as a config.json.
        Err(why) if world.entry(&path) != Entry::Missing => Err(why.into_error(
            "give a regular config.json file (UTF-8, at most 8 MiB) or a folder holding one",
        )),
        // No such file or folder: a preset's id or Hugging Face repo.
        Err(why) => match presets::find(Kind::Model, name) {
            Ok(f) => presets::model(f.id),
            Err(_) if is_hub_repo(name) => Err(Error::new(format!(
                "`{name}` is no model preset, no file here, and not in the local Hugging Face cache; the Hub was not asked (offline)"
            ))
            .with_hint(format!(
                "fetch its config.json into the cache (`hf download {name} config.json`), or give a config.json or a folder holding one; the CLI asks the Hub itself unless HF_HUB_OFFLINE is set; the cache is $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub"
            ))
            .of_kind(crate::ErrorKind::UnknownPreset)
            .about("--model")),
            Err(_) => Err(Error::new(format!(
                "{why}; and `{name}` is no model preset (id or Hugging Face repo)"
            ))
            .with_hint(format!(
                "give a config.json, a folder holding one, a model file or a preset: {}",
                presets::ids(Kind::Model).collect::<Vec<_>>().join(", ")
            ))
            .of_kind(crate::ErrorKind::UnknownPreset)
            .about("--model")),
        },
    }
}

/// A ModelOpt checkpoint's `hf_quant_config.json` beside its config.json
/// (vLLM 0.32 reads it when config.json has no `quantization_config`:
/// `vllm/transformers_utils/config.py`, `get_hf_file_to_dict` of
/// `hf_quant_config.json`), also as `NAME.hf_quant_config.json` beside
/// `NAME.json`. None when there is neither.
pub(super) fn hf_quant_beside(world: &dyn World, config_path: &str) -> Result<Option<WeightQuant>> {
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

/// The checkpoint's exact byte count: `metadata.total_size` of the
/// `model.safetensors.index.json` beside a config.json (the index a sharded
/// safetensors checkpoint has; the Hub's `hf download` and the CLI's fetch
/// put it there). None when there is no index; an error naming the file when
/// it does not hold a total size.
pub(super) fn safetensors_total_beside(
    world: &dyn World,
    config_path: &str,
) -> Result<Option<u64>> {
    let Some(dir) = config_path.strip_suffix("config.json") else {
        return Ok(None);
    };
    if !(dir.is_empty() || dir.ends_with('/')) {
        return Ok(None);
    }
    let path = format!("{dir}model.safetensors.index.json");
    if world.entry(&path) == Entry::Missing {
        return Ok(None);
    }
    let text = world
        .read(&path)
        .map_err(|why| why.into_error("a model.safetensors.index.json is a regular JSON file"))?;
    parse::check_size(&path, &text)?;
    let v = crate::config::parse_json(&path, &text)?;
    let total = v
        .get("metadata")
        .and_then(|m| m.get("total_size"))
        .and_then(serde_json::Value::as_u64)
        .filter(|&b| b > 0 && b <= MAX_CHECKPOINT_BYTES);
    match total {
        Some(b) => Ok(Some(b)),
        None => Err(Error::new(format!(
            "{path}: `metadata.total_size` is missing or not a byte count in 1..={MAX_CHECKPOINT_BYTES}"
        ))
        .with_hint("the index a sharded safetensors checkpoint has: {\"metadata\": {\"total_size\": BYTES}, \"weight_map\": {...}}")
        .of_kind(crate::ErrorKind::Parse)),
    }
}

/// The largest checkpoint a safetensors index may state: 16 TiB (the
/// largest open checkpoints of 2026 are about 2 TB).
pub const MAX_CHECKPOINT_BYTES: u64 = 16 << 40;

/// A model from the text of a Hugging Face `config.json`, with its
/// `quantization_config` if it has one.
pub fn loaded_from_config_json(origin: &str, text: &str) -> Result<LoadedModel> {
    parse::check_size(origin, text)?;
    let v = crate::config::parse_json(origin, text)?;
    let model = crate::config::model_from_config(&v).map_err(|e| e.context(origin))?;
    let quant = crate::quant::from_config_json(&v)
        .map_err(|e| e.context(origin))?
        .unwrap_or_else(crate::quant::WeightQuant::none);
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
    Ok(load::<Gpu>(world, name)?.1)
}

#[cfg(test)]
mod tests {
    use super::{is_hub_repo, ReadError};

    /// Each refusal a World reports is worded in one place, with the bound
    /// it broke, and a text that is not UTF-8 is a parse error.
    #[test]
    fn read_errors_are_typed_and_worded_once() {
        let p = || "x.json".to_string();
        let cases = [
            (
                ReadError::Unreadable {
                    path: p(),
                    reason: "No such file or directory (os error 2)".into(),
                },
                "cannot read `x.json`: No such file or directory (os error 2)",
            ),
            (
                ReadError::NotRegular { path: p() },
                "`x.json` is not a regular file (a directory, FIFO, socket or device)",
            ),
            (
                ReadError::TooLarge {
                    path: p(),
                    limit_bytes: 8 << 20,
                },
                "`x.json` has more than the 8388608 bytes (8 MiB) an input may have",
            ),
            (
                ReadError::NotUtf8 {
                    path: p(),
                    offset_bytes: 17,
                },
                "`x.json` is not UTF-8 text (invalid byte at offset 17)",
            ),
            (
                ReadError::NoFileAccess { path: p() },
                "cannot read `x.json`: no file access here",
            ),
        ];
        for (e, words) in cases {
            let parse = matches!(e, ReadError::NotUtf8 { .. });
            let err = e.into_error("a hint");
            assert_eq!(err.message, words);
            assert_eq!(err.hint.as_deref(), Some("a hint"));
            assert_eq!(err.kind == crate::ErrorKind::Parse, parse);
        }
    }

    #[test]
    fn hub_repo_ids_are_org_slash_name_and_no_file_names() {
        for yes in ["Qwen/Qwen3.6-27B", "meta-llama/Llama-3.1-8B", "a/b.c_d"] {
            assert!(is_hub_repo(yes), "{yes}");
        }
        for no in [
            "qwen3-8b",
            "./Qwen/Qwen3-8B",
            "/abs/path",
            "a/b/c",
            "org/config.json",
            "org/model.toml",
            "org/",
            "/name",
            "org/.hidden",
            "org/na me",
        ] {
            assert!(!is_hub_repo(no), "{no}");
        }
    }
}
