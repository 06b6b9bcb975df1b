//! The binary against hostile files and outputs: special files are refused
//! without blocking or reading forever, no output is written onto an input,
//! and a failed write of stdout is an error (exit 2), not silence.

// Tests assert by panicking; the workspace's no-panic lints are for the product.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_decodecalc"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("decodecalc-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_full_disk_on_stdout_is_an_error() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_decodecalc"))
        .arg("capacity")
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: cannot write the output: No space left on device"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn devices_and_fifos_are_refused_by_name() {
    let o = run(&["compare", "--measured", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with(
        "error: `/dev/zero` is not a regular file (a directory, FIFO, socket or device)"
    ));
    let fifo = scratch("pipe.json");
    let _ = std::fs::remove_file(&fifo);
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // Opening a FIFO with no writer blocks: the binary must not try.
    let o = run(&["capacity", "--model", fifo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a regular file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_output_is_never_written_onto_an_input() {
    let measured = scratch("m.csv");
    let original = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/measured/rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32.csv"
    ))
    .unwrap();
    std::fs::write(&measured, &original).unwrap();
    let m = measured.to_str().unwrap();
    let o = run(&["calibrate", "--measured", m, "--out", m]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(&format!("error: `{m}` is one of this run's inputs")),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&measured).unwrap(), original);
}

/// A Hub repo id (`--model ORG/NAME`) that is no preset and no file is read
/// from the local Hugging Face cache, in the layout `hf download` and the
/// hf-hub crate write (`models--ORG--NAME/refs/main` naming
/// `snapshots/COMMIT/`), found by `$HF_HUB_CACHE`: the same config.json given
/// as a file predicts the same. A repo neither there nor in the embedded
/// corpus gets an error saying where it looked.
#[test]
fn a_hub_repo_id_is_read_from_the_local_hub_cache() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/hub/Qwen--Qwen3.5-27B.json"
    );
    // A repo the embedded corpus lacks, so only the cache can answer.
    let cache = hub_cache_with("hub-cache", "example-org--Qwen3.5-27B-copy", fixture, None);
    // vLLM's default 1,024 sequences exceed this hybrid's 351 blocks, which
    // it refuses (version::MAMBA_BLOCKS_CHECK).
    let args = |model: &'static str| {
        [
            "capacity",
            "--model",
            model,
            "--gpu",
            "h100",
            "--max-num-seqs",
            "256",
            "--format",
            "json",
        ]
    };
    let by_repo = with_cache(&cache, &args("example-org/Qwen3.5-27B-copy"));
    assert_eq!(by_repo.status.code(), Some(0), "{}", stderr(&by_repo));
    let by_file = run(&args(fixture));
    for k in ["kv_cache_tokens", "weights_bytes", "model_params"] {
        assert_eq!(json_field(&by_repo, k), json_field(&by_file, k), "{k}");
    }
    let missing = with_cache(
        &cache,
        &["capacity", "--model", "Qwen/Qwen9-1B", "--gpu", "h100"],
    );
    assert_eq!(missing.status.code(), Some(2));
    let text = stderr(&missing);
    assert!(
        text.starts_with("error: `Qwen/Qwen9-1B` is no model preset, no file here, and not in the local Hugging Face cache; the Hub was not asked (offline)")
            && text.contains("hint: fetch its config.json into the cache (`hf download Qwen/Qwen9-1B config.json`")
            && text.contains("the CLI asks the Hub itself unless HF_HUB_OFFLINE is set"),
        "{text}"
    );
}

/// Every config of the real corpus (`data/hub/`) is known by its repo id
/// offline: with an empty Hub cache, `--model Qwen/Qwen3-14B` predicts what
/// the file predicts, and the title names the repo; an NVFP4 repo picks up
/// the ModelOpt hf_quant_config.json stored beside its config (4.5 bits a
/// weight, not 16). A config in the cache wins over the embedded one: it is
/// the revision the user downloaded.
#[test]
fn the_real_config_corpus_answers_repo_ids_offline() {
    let empty = scratch("hub-empty");
    std::fs::create_dir_all(&empty).unwrap();
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/hub/Qwen--Qwen3-14B.json"
    );
    let args = |model: &'static str| {
        [
            "capacity", "--model", model, "--gpu", "h100", "--format", "json",
        ]
    };
    let by_repo = with_cache(&empty, &args("Qwen/Qwen3-14B"));
    assert_eq!(by_repo.status.code(), Some(0), "{}", stderr(&by_repo));
    let by_file = run(&args(file));
    for k in ["kv_cache_tokens", "weights_bytes", "model_params"] {
        assert_eq!(json_field(&by_repo, k), json_field(&by_file, k), "{k}");
    }
    let title = with_cache(
        &empty,
        &["capacity", "--model", "Qwen/Qwen3-14B", "--gpu", "h100"],
    );
    assert!(
        String::from_utf8_lossy(&title.stdout).starts_with("Qwen/Qwen3-14B on h100-sxm |"),
        "{}",
        String::from_utf8_lossy(&title.stdout)
    );
    let nvfp4 = with_cache(&empty, &args("nvidia/Qwen3-32B-NVFP4"));
    assert_eq!(nvfp4.status.code(), Some(0), "{}", stderr(&nvfp4));
    let params = json_field(&nvfp4, "model_params").as_f64().unwrap();
    let weights = json_field(&nvfp4, "weights_bytes").as_f64().unwrap();
    assert!(
        weights < 0.4 * 2.0 * params,
        "{weights} bytes for {params} parameters"
    );
    // The cache's revision, with 20 of the 40 layers, wins.
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    config["num_hidden_layers"] = 20.into();
    let cache = hub_cache_with("hub-newer", "Qwen--Qwen3-14B", file, Some(&config));
    let cached = with_cache(&cache, &args("Qwen/Qwen3-14B"));
    assert_eq!(cached.status.code(), Some(0), "{}", stderr(&cached));
    let (fewer, all) = (
        json_field(&cached, "model_params").as_f64().unwrap(),
        json_field(&by_repo, "model_params").as_f64().unwrap(),
    );
    assert!(fewer < 0.7 * all, "{fewer} vs {all}");
}

/// A Hub cache under the scratch folder `name` holding `repo_dir`
/// (`ORG--NAME`) at one snapshot: `config` if given, else a copy of `file`.
fn hub_cache_with(
    name: &str,
    repo_dir: &str,
    file: &str,
    config: Option<&serde_json::Value>,
) -> std::path::PathBuf {
    let cache = scratch(name);
    let repo = cache.join(format!("models--{repo_dir}"));
    let snap = repo.join("snapshots").join("0123abcd");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs").join("main"), "0123abcd\n").unwrap();
    match config {
        Some(c) => std::fs::write(snap.join("config.json"), c.to_string()).unwrap(),
        None => {
            std::fs::copy(file, snap.join("config.json")).unwrap();
        }
    }
    cache
}

/// The binary with `$HF_HUB_CACHE` at `cache`, offline (the Hub is not asked).
fn with_cache(cache: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_decodecalc"))
        .args(args)
        .env("HF_HUB_CACHE", cache)
        .env("HF_HUB_OFFLINE", "1")
        .output()
        .unwrap()
}

/// A field of a command's JSON output.
fn json_field(o: &Output, k: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v.get(k).cloned().unwrap_or_default()
}

/// A stand-in for the Hugging Face Hub speaking its file protocol, as
/// `huggingface_hub` and hf-hub use it: `GET /{org}/{name}/resolve/{rev}/{file}`
/// (a `Range: bytes=0-0` probe first) answered with `ETag`, `X-Repo-Commit`
/// and `Content-Range`; 404 with `X-Error-Code: RepoNotFound` for a missing
/// repo and `EntryNotFound` for a missing file; 401 with `GatedRepo` for a
/// gated repo asked without its token.
mod hub {
    use std::collections::BTreeMap;
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::sync::{Arc, Mutex};

    /// Commit every repo is served at.
    pub const COMMIT: &str = "4f1c2a9d0e8b7c6a5f4e3d2c1b0a99887766554f";

    #[derive(Default)]
    pub struct Repo {
        pub files: BTreeMap<&'static str, String>,
        /// The token a gated repo needs.
        pub token: Option<&'static str>,
    }

    /// The server: its address and every request line it answered.
    pub struct Hub {
        pub endpoint: String,
        pub requests: Arc<Mutex<Vec<String>>>,
    }

    /// Serve `repos` on a free local port until the test process ends.
    pub fn serve(repos: BTreeMap<&'static str, Repo>) -> Hub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = Vec::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    head.push(line.trim_end().to_string());
                }
                let Some(request) = head.first().cloned() else {
                    continue;
                };
                seen.lock().unwrap().push(request.clone());
                let header = |name: &str| {
                    head.iter().skip(1).find_map(|h| {
                        let (k, v) = h.split_once(':')?;
                        k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
                    })
                };
                let reply = answer(&repos, &request, header("authorization"), header("range"));
                let _ = stream.write_all(&reply);
            }
        });
        Hub { endpoint, requests }
    }

    fn answer(
        repos: &BTreeMap<&'static str, Repo>,
        request: &str,
        auth: Option<String>,
        range: Option<String>,
    ) -> Vec<u8> {
        let path = request.split(' ').nth(1).unwrap_or("");
        let parts: Vec<&str> = path.trim_start_matches('/').splitn(5, '/').collect();
        let [org, name, "resolve", _rev, file] = parts[..] else {
            return reply(404, &[], "");
        };
        // A bare 401, as an anonymous client may get for a private repo.
        if name.starts_with("private-") {
            return reply(401, &[], "Unauthorized");
        }
        let Some(repo) = repos.get(format!("{org}/{name}").as_str()) else {
            return reply(
                404,
                &[("X-Error-Code", "RepoNotFound".into())],
                "Repository not found",
            );
        };
        if let Some(token) = repo.token {
            if auth.as_deref() != Some(&format!("Bearer {token}")) {
                return reply(
                    401,
                    &[("X-Error-Code", "GatedRepo".into())],
                    "Access restricted",
                );
            }
        }
        let Some(body) = repo.files.get(file) else {
            return reply(
                404,
                &[("X-Error-Code", "EntryNotFound".into())],
                "Entry not found",
            );
        };
        // The Hub's ETag is the file's hash; any stable tag will do.
        let tag = format!(
            "\"{:016x}\"",
            body.bytes()
                .fold(0xcbf29ce484222325u64, |h, b| (h ^ u64::from(b))
                    .wrapping_mul(0x100000001b3))
        );
        let len = body.len();
        let start: usize = range
            .as_deref()
            .and_then(|r| r.strip_prefix("bytes="))
            .and_then(|r| r.split('-').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let end = match range.as_deref() {
            Some("bytes=0-0") => 1,
            _ => len,
        };
        let headers = [
            ("ETag", tag),
            ("X-Repo-Commit", COMMIT.to_string()),
            (
                "Content-Range",
                format!("bytes {start}-{}/{len}", end.max(1) - 1),
            ),
        ];
        reply(206, &headers, &body[start.min(len)..end.min(len)])
    }

    /// An address nothing listens at (a port bound, then let go).
    pub fn gone() -> String {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        format!("http://127.0.0.1:{port}")
    }

    fn reply(status: u16, headers: &[(&str, String)], body: &str) -> Vec<u8> {
        let mut out = format!(
            "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        for (k, v) in headers {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
        out.push_str("\r\n");
        out.push_str(body);
        out.into_bytes()
    }
}

/// The binary against a Hub at `endpoint` with the cache at `cache`, no
/// token unless given, never offline.
fn with_hub(endpoint: &str, cache: &std::path::Path, token: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_decodecalc"));
    cmd.args(args)
        .env("HF_ENDPOINT", endpoint)
        .env("HF_HUB_CACHE", cache)
        .env("HF_HOME", cache.join("home"))
        .env_remove("HF_HUB_OFFLINE")
        .env_remove("HF_TOKEN");
    if let Some(t) = token {
        cmd.env("HF_TOKEN", t);
    }
    cmd.output().unwrap()
}

/// Yi-34B's published safetensors total: 2 bytes (bf16) x the 34,388,917,248
/// parameters `data/hub/published.csv` lists for 01-ai/Yi-34B.
const YI_34B_CHECKPOINT_BYTES: u64 = 2 * 34_388_917_248;

/// `--model ORG/NAME` that no preset, file or cache holds is fetched from
/// the Hub (`$HF_ENDPOINT`) into the standard cache layout, predicts what
/// the same config.json by path predicts, and shows the safetensors index's
/// total beside the computed weights; a second run is served from the cache
/// with the Hub gone.
#[test]
fn a_hub_repo_is_fetched_into_the_cache_and_served_from_it_with_the_hub_gone() {
    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/hub/01-ai--Yi-34B.json"
    );
    let index = format!(
        "{{\"metadata\": {{\"total_size\": {YI_34B_CHECKPOINT_BYTES}}}, \"weight_map\": {{}}}}"
    );
    let mut repos = std::collections::BTreeMap::new();
    repos.insert(
        "acme/Yi-34B-mirror",
        hub::Repo {
            files: [
                ("config.json", std::fs::read_to_string(config).unwrap()),
                ("model.safetensors.index.json", index),
            ]
            .into(),
            token: None,
        },
    );
    let server = hub::serve(repos);
    let cache = scratch("hub-fetch");
    let _ = std::fs::remove_dir_all(&cache);
    let args = [
        "capacity",
        "--model",
        "acme/Yi-34B-mirror",
        "--gpu",
        "h100",
        "--format",
        "json",
    ];
    let fetched = with_hub(&server.endpoint, &cache, None, &args);
    assert_eq!(fetched.status.code(), Some(0), "{}", stderr(&fetched));
    let by_file = run(&[
        "capacity", "--model", config, "--gpu", "h100", "--format", "json",
    ]);
    for k in ["kv_cache_tokens", "weights_bytes", "model_params"] {
        assert_eq!(json_field(&fetched, k), json_field(&by_file, k), "{k}");
    }
    assert_eq!(
        json_field(&fetched, "checkpoint_bytes"),
        YI_34B_CHECKPOINT_BYTES
    );
    // The computed bf16 weights are within 0.01% of the checkpoint's files.
    let weights = json_field(&fetched, "weights_bytes").as_f64().unwrap();
    assert!(
        (weights / YI_34B_CHECKPOINT_BYTES as f64 - 1.0).abs() < 1e-4,
        "{weights}"
    );
    // The standard cache layout, which `hf download` and vLLM read too.
    let repo_dir = cache.join("models--acme--Yi-34B-mirror");
    assert_eq!(
        std::fs::read_to_string(repo_dir.join("refs/main")).unwrap(),
        hub::COMMIT
    );
    assert!(repo_dir
        .join("snapshots")
        .join(hub::COMMIT)
        .join("config.json")
        .is_file());
    let asked = server.requests.lock().unwrap().clone();
    for file in [
        "config.json",
        "hf_quant_config.json",
        "model.safetensors.index.json",
    ] {
        let line = format!("GET /acme/Yi-34B-mirror/resolve/main/{file} HTTP/1.1");
        assert!(asked.contains(&line), "{line} not in {asked:?}");
    }
    // The table shows the checkpoint beside the computed weights.
    let table = with_hub(&server.endpoint, &cache, None, &args[..5]);
    // Its note wraps: compare with runs of spaces and line breaks as one.
    let text = String::from_utf8_lossy(&table.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains(
            "checkpoint_bytes 68,777,834,496 bytes 64.054 GiB; the checkpoint's files, whole model"
        ) && text.contains("computed weights for the whole model 68,778,883,072 B (+0.0%)"),
        "{text}"
    );
    // With the Hub gone (nothing listens at this address any more), the
    // cache answers.
    let gone = hub::gone();
    let again = with_hub(&gone, &cache, None, &args);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(
        json_field(&again, "kv_cache_tokens"),
        json_field(&fetched, "kv_cache_tokens")
    );
}

/// Each way the Hub says no gets an error naming the repo and the Hub,
/// exit 2: a missing repo (404), a gated repo without a token (401) or with
/// the wrong one, a bare 401 that does not say why, a repo without a
/// config.json, no Hub at the address; the gated repo with its token loads.
#[test]
fn hub_refusals_name_the_repo_and_say_what_would_work() {
    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/hub/01-ai--Yi-34B.json"
    );
    let mut repos = std::collections::BTreeMap::new();
    repos.insert(
        "acme/gated-34b",
        hub::Repo {
            files: [("config.json", std::fs::read_to_string(config).unwrap())].into(),
            token: Some("hf_secret"),
        },
    );
    repos.insert(
        "acme/only-gguf",
        hub::Repo {
            files: [("model-Q4_K_M.gguf", "GGUF".to_string())].into(),
            token: None,
        },
    );
    let server = hub::serve(repos);
    let cache = scratch("hub-refusals");
    let _ = std::fs::remove_dir_all(&cache);
    let ask = |model: &str, token: Option<&str>| {
        with_hub(
            &server.endpoint,
            &cache,
            token,
            &["capacity", "--model", model, "--gpu", "h100"],
        )
    };
    let ep = &server.endpoint;
    let cases = [
        (
            ask("acme/nothing-here", None),
            format!("error: `acme/nothing-here` is no model preset, no file here, and no repo on the Hub ({ep})"),
            "hint: check the repo id's spelling on the Hub",
        ),
        (
            ask("acme/gated-34b", None),
            format!("error: `acme/gated-34b` is a gated or private repo on the Hub ({ep}) and no token was sent"),
            "then set $HF_TOKEN to a token with read access",
        ),
        (
            ask("acme/gated-34b", Some("hf_wrong")),
            format!("error: the Hub ({ep}) refused the token for `acme/gated-34b`"),
            "or set $HF_TOKEN to a token that has access",
        ),
        (
            ask("acme/private-model", None),
            format!("error: the Hub ({ep}) refused `acme/private-model` (HTTP 401) without saying why: it does not exist, or it is private or gated"),
            "a private or gated repo needs $HF_TOKEN set to a token with read access",
        ),
        (
            ask("acme/only-gguf", None),
            format!("error: `acme/only-gguf` on the Hub ({ep}) has no config.json"),
            "hint: give the repo of the original (non-GGUF) checkpoint",
        ),
    ];
    for (out, error, hint) in cases {
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(text.starts_with(&error) && text.contains(hint), "{text}");
    }
    let gone = hub::gone();
    let unreachable = with_hub(
        &gone,
        &cache,
        None,
        &["capacity", "--model", "acme/gated-34b", "--gpu", "h100"],
    );
    let text = stderr(&unreachable);
    assert_eq!(unreachable.status.code(), Some(2), "{text}");
    assert!(
        text.starts_with(&format!(
            "error: cannot reach the Hub ({gone}) for `acme/gated-34b`:"
        )) && text.contains("HF_HUB_OFFLINE=1 reads only the local cache"),
        "{text}"
    );
    let granted = ask("acme/gated-34b", Some("hf_secret"));
    assert_eq!(granted.status.code(), Some(0), "{}", stderr(&granted));
}
