//! The Hugging Face Hub from the browser: a repo's `config.json`, and where
//! the repo has them `hf_quant_config.json` and
//! `model.safetensors.index.json`, fetched from `https://huggingface.co`
//! (the Hub answers cross-origin requests), then read by core exactly as the
//! CLI reads a cached snapshot. Refusals are core's [`HubFailure`], worded by
//! core, so the page and the CLI say the same thing; the page sends no token.

use decodecalc_api::scenario::{
    hub_refusal, is_hub_repo, HubError, HubFailure, HUB_ENDPOINT, HUB_FILES,
};
use decodecalc_api::Error;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The Hub the page asks.
pub const ENDPOINT: &str = HUB_ENDPOINT;

/// The largest file the page keeps (core refuses larger inputs too).
const MAX_FILE_BYTES: usize = decodecalc_api::parse::MAX_INPUT_BYTES;

/// A repo's files as fetched: (file name, text), config.json first.
#[derive(Clone, Debug, PartialEq)]
pub struct HubFiles {
    pub repo: String,
    pub files: Vec<(String, String)>,
}

impl HubFiles {
    /// Where core finds the snapshot: a folder name no uploaded file has.
    pub fn snapshot(&self) -> String {
        format!("hub:{}", self.repo)
    }

    /// The text of `path` if it is one of the fetched files.
    pub fn file(&self, path: &str) -> Option<&str> {
        let name = path.strip_prefix(&self.snapshot())?.strip_prefix('/')?;
        self.files
            .iter()
            .find(|(f, _)| f == name)
            .map(|(_, t)| t.as_str())
    }
}

/// A repo id the page accepts, or the error shown beside the field.
pub fn check_repo(repo: &str) -> Result<String, Error> {
    let repo = repo.trim();
    if is_hub_repo(repo) {
        Ok(repo.to_string())
    } else {
        Err(Error::field(
            "hub-repo",
            repo,
            "a Hugging Face repo id: ORG/NAME (letters, digits, - _ .)",
        ))
    }
}

/// The error a failed fetch shows: core's words, with the page's hint where
/// a token would help (the page holds none).
pub fn error(repo: &str, failure: HubFailure) -> Error {
    let hint = match failure {
        HubFailure::Gated { .. } => Some(format!(
            "the page sends no token: accept the license on {ENDPOINT}/{repo}, download its config.json and load it with \"or a model's config.json\""
        )),
        HubFailure::Refused { .. } => Some(format!(
            "check the repo id on {ENDPOINT}; the page sends no token, so for a private or gated repo download its config.json and load it with \"or a model's config.json\""
        )),
        _ => None,
    };
    let e = HubError {
        repo: repo.to_string(),
        endpoint: ENDPOINT.to_string(),
        failure,
    }
    .into_error();
    match hint {
        Some(h) => e.with_hint(h),
        None => e,
    }
}

/// Fetch the repo's files.
pub async fn fetch(repo: &str) -> Result<HubFiles, HubFailure> {
    let mut files = Vec::new();
    for (i, file) in HUB_FILES.iter().enumerate() {
        if let Some(text) = get(i, &format!("{ENDPOINT}/{repo}/resolve/main/{file}")).await? {
            files.push((file.to_string(), text));
        }
    }
    Ok(HubFiles {
        repo: repo.to_string(),
        files,
    })
}

/// GET `url`, the `file_index`th of `HUB_FILES`: its text, None for an
/// optional file the repo lacks, or why not ([`hub_refusal`]).
async fn get(file_index: usize, url: &str) -> Result<Option<String>, HubFailure> {
    let unreachable = |why: &str| {
        HubFailure::Unreachable(format!(
            "the browser could not fetch {url} ({why}: offline, blocked, or no cross-origin answer)"
        ))
    };
    let window = web_sys::window().ok_or_else(|| unreachable("no window"))?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|_| unreachable("the request failed"))?
        .dyn_into()
        .map_err(|_| unreachable("no response"))?;
    let status = response.status();
    if !(200..=299).contains(&status) {
        let code = response.headers().get("x-error-code").ok().flatten();
        // The page sends no token.
        return match hub_refusal(file_index, code.as_deref(), status, false) {
            Some(failure) => Err(failure),
            None => Ok(None),
        };
    }
    let text = JsFuture::from(
        response
            .text()
            .map_err(|_| HubFailure::Other("the answer has no text".into()))?,
    )
    .await
    .ok()
    .and_then(|v| v.as_string())
    .ok_or_else(|| HubFailure::Other("the answer is not text".into()))?;
    if text.len() > MAX_FILE_BYTES {
        return Err(HubFailure::Other(format!(
            "{url} has more than the {MAX_FILE_BYTES} bytes (8 MiB) an input may have"
        )));
    }
    Ok(Some(text))
}
