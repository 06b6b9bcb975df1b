//! The Hugging Face Hub: a repo's `config.json` (and, where the repo has
//! them, `hf_quant_config.json` and `model.safetensors.index.json`) fetched
//! into the standard Hub cache with the Hub's own client (`hf-hub`), so the
//! next run, and `hf download`, find them there. The environment is the
//! one `huggingface_hub` reads: `HF_ENDPOINT`, `HF_TOKEN` (else the token
//! file `hf auth login` writes), `HF_HUB_CACHE` / `HF_HOME`, and
//! `HF_HUB_OFFLINE`. Errors are typed ([`HubError`]); core words them.

use decodecalc_core::scenario::{HubError, HubFailure};
use hf_hub::api::sync::{ApiBuilder, ApiError};
use hf_hub::{Cache, Repo, RepoType};

/// The files fetched: the first is required, the others are read when the
/// repo has them (a ModelOpt quantization config; the sharded checkpoint's
/// index, whose `total_size` is the checkpoint's exact byte count).
const FILES: [&str; 3] = [
    "config.json",
    "hf_quant_config.json",
    "model.safetensors.index.json",
];

/// The longest a fetch of the three small files may take before it is
/// given up (the client itself sets no read timeout), seconds.
pub const FETCH_TIMEOUT_S: u64 = 60;

/// The Hub's address: `$HF_ENDPOINT`, else the public Hub.
pub fn endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .map(|e| e.trim().trim_end_matches('/').to_string())
        .filter(|e| !e.is_empty())
        .unwrap_or_else(|| "https://huggingface.co".to_string())
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
    for (i, file) in FILES.iter().enumerate() {
        match api.download(file) {
            Ok(path) => {
                if snapshot.is_none() {
                    snapshot = path.parent().map(std::path::Path::to_path_buf);
                }
            }
            Err(e) => match failure(&e, token_sent) {
                // An optional file the repo (which has a config.json) lacks.
                Missing::File | Missing::Repo if i > 0 => {}
                Missing::File => return Err(HubFailure::NoConfig),
                Missing::Repo => return Err(HubFailure::RepoNotFound),
                Missing::No(f) => return Err(f),
            },
        }
    }
    snapshot
        .and_then(|p| p.to_str().map(str::to_string))
        .ok_or_else(|| HubFailure::Other("the cache's snapshot path is not UTF-8".into()))
}

/// What a failed download means.
enum Missing {
    /// The repo has no such file (`X-Error-Code: EntryNotFound`).
    File,
    /// No such repo (404, or `X-Error-Code: RepoNotFound`).
    Repo,
    /// Something else.
    No(HubFailure),
}

/// The meaning of hf-hub's error: the Hub's `X-Error-Code` first (it
/// answers 401 for a missing repo to an anonymous client), then the status.
fn failure(e: &ApiError, token_sent: bool) -> Missing {
    match e {
        ApiError::RequestError(boxed) => match boxed.as_ref() {
            ureq::Error::Status(status, response) => {
                match (response.header("x-error-code"), *status) {
                    (Some("EntryNotFound"), _) => Missing::File,
                    (Some("RepoNotFound"), _) | (None, 404) => Missing::Repo,
                    (Some("GatedRepo"), _) => Missing::No(HubFailure::Gated { token_sent }),
                    (_, status @ (401 | 403)) => {
                        Missing::No(HubFailure::Refused { status, token_sent })
                    }
                    (_, status) => Missing::No(HubFailure::Other(format!("HTTP {status}"))),
                }
            }
            ureq::Error::Transport(t) => Missing::No(HubFailure::Unreachable(t.to_string())),
        },
        ApiError::MissingHeader(h) => Missing::No(HubFailure::Other(format!(
            "its answer lacks the `{h}` header (is $HF_ENDPOINT a Hugging Face Hub?)"
        ))),
        other => Missing::No(HubFailure::Other(other.to_string())),
    }
}
