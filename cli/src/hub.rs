//! The Hugging Face Hub: a repo's `config.json` (and, where the repo has
//! them, `hf_quant_config.json` and `model.safetensors.index.json`) fetched
//! into the standard Hub cache with the Hub's own client (`hf-hub`), so the
//! next run, and `hf download`, find them there. The environment is the
//! one `huggingface_hub` reads: `HF_ENDPOINT`, `HF_TOKEN` (else the token
//! file `hf auth login` writes), `HF_HUB_CACHE` / `HF_HOME`, and
//! `HF_HUB_OFFLINE`. Errors are typed ([`HubError`]); core words them.

use decodecalc_api::scenario::{hub_refusal, HubError, HubFailure, HUB_ENDPOINT, HUB_FILES};
use hf_hub::api::sync::{ApiBuilder, ApiError};
use hf_hub::{Cache, Repo, RepoType};

/// The longest a fetch of the three small files may take before it is
/// given up (the client itself sets no read timeout), seconds.
pub const FETCH_TIMEOUT_S: u64 = 60;

/// The Hub's address: `$HF_ENDPOINT`, else the public Hub.
pub fn endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .map(|e| e.trim().trim_end_matches('/').to_string())
        .filter(|e| !e.is_empty())
        .unwrap_or_else(|| HUB_ENDPOINT.to_string())
}

/// Whether `HF_HUB_OFFLINE` asks for no network (the values
/// `huggingface_hub` takes as true: 1, ON, YES, TRUE, any case).
pub fn offline() -> bool {
    std::env::var("HF_HUB_OFFLINE").is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_uppercase().as_str(),
            "1" | "ON" | "YES" | "TRUE"
        )
    })
}

/// The token sent: `$HF_TOKEN`, else the token file beside the cache
/// (`$HF_HOME/token`, which `hf auth login` writes).
fn token(cache: &Cache) -> Option<String> {
    std::env::var("HF_TOKEN")
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .or_else(|| cache.token())
}

/// Fetch `repo`'s files into the Hub cache at `cache_dir`; the snapshot
/// folder that holds them. Bounded by [`FETCH_TIMEOUT_S`].
pub fn fetch(cache_dir: Option<std::path::PathBuf>, repo: &str) -> Result<String, HubError> {
    let endpoint = endpoint();
    let error = |failure| HubError {
        repo: repo.to_string(),
        endpoint: endpoint.clone(),
        failure,
    };
    let Some(cache_dir) = cache_dir else {
        return Err(error(HubFailure::Other(
            "no cache folder to fetch into: set HF_HUB_CACHE or HF_HOME".into(),
        )));
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let (repo_id, address) = (repo.to_string(), endpoint.clone());
    // The client has no read timeout: the fetch runs on its own thread and
    // is given up after the bound (the thread ends with the process).
    std::thread::spawn(move || {
        let _ = tx.send(fetch_files(&cache_dir, &address, &repo_id));
    });
    match rx.recv_timeout(std::time::Duration::from_secs(FETCH_TIMEOUT_S)) {
        Ok(result) => result.map_err(error),
        Err(_) => Err(error(HubFailure::Unreachable(format!(
            "no answer within {FETCH_TIMEOUT_S} s"
        )))),
    }
}

/// The fetch itself: config.json, then the optional files.
fn fetch_files(
    cache_dir: &std::path::Path,
    endpoint: &str,
    repo: &str,
) -> Result<String, HubFailure> {
    let cache = Cache::new(cache_dir.to_path_buf());
    let token = token(&cache);
    let token_sent = token.is_some();
    let api = ApiBuilder::from_cache(cache)
        .with_endpoint(endpoint.to_string())
        .with_token(token)
        .with_progress(false)
        .build()
        .map_err(|e| HubFailure::Other(e.to_string()))?;
    let api = api.repo(Repo::new(repo.to_string(), RepoType::Model));
    let mut snapshot = None;
    for (i, file) in HUB_FILES.iter().enumerate() {
        match api.download(file) {
            Ok(path) => {
                if snapshot.is_none() {
                    snapshot = path.parent().map(std::path::Path::to_path_buf);
                }
            }
            Err(e) => {
                if let Some(f) = failure(i, &e, token_sent) {
                    return Err(f);
                }
            }
        }
    }
    snapshot
        .and_then(|p| p.to_str().map(str::to_string))
        .ok_or_else(|| HubFailure::Other("the cache's snapshot path is not UTF-8".into()))
}

/// What hf-hub's error for `HUB_FILES[file_index]` means: None for an
/// optional file the repo lacks ([`hub_refusal`] reads the Hub's answer).
fn failure(file_index: usize, e: &ApiError, token_sent: bool) -> Option<HubFailure> {
    match e {
        ApiError::RequestError(boxed) => match boxed.as_ref() {
            ureq::Error::Status(status, response) => hub_refusal(
                file_index,
                response.header("x-error-code"),
                *status,
                token_sent,
            ),
            ureq::Error::Transport(t) => Some(HubFailure::Unreachable(t.to_string())),
        },
        ApiError::MissingHeader(h) => Some(HubFailure::Other(format!(
            "its answer lacks the `{h}` header (is $HF_ENDPOINT a Hugging Face Hub?)"
        ))),
        other => Some(HubFailure::Other(other.to_string())),
    }
}
