//! A pasted `vllm serve ...` launch line, read into the same settings the
//! flags give. Flags that do not change memory or speed are named in
//! warnings; flags decodecalc does not model are named too, never dropped
//! silently.

use crate::engine::EngineSettings;
use crate::error::{Error, Result};
use serde::Serialize;

/// What a launch line says.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct VllmCommand {
    /// The model argument (a Hugging Face repo id or a path).
    pub model: Option<String>,
    pub settings: EngineSettings,
    /// What was not applied, one warning each.
    pub warnings: Vec<crate::Warning>,
}

/// Split like a POSIX shell: whitespace separates, quotes group, a backslash
/// escapes the next character; a backslash-newline continues the line and
/// lines starting with `#` are comments.
fn shell_words(text: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    let joined = lines.join("\n");
    let mut chars = joined.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(n) => {
                    cur.push(n);
                    in_word = true;
                }
            },
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(n) => cur.push(n),
                        None => {
                            return Err(Error::new("the launch line has an unclosed ' quote")
                                .with_hint("close the quote or remove it"))
                        }
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => {
                            if let Some(n) = chars.next() {
                                cur.push(n);
                            }
                        }
                        Some(n) => cur.push(n),
                        None => {
                            return Err(Error::new("the launch line has an unclosed \" quote")
                                .with_hint("close the quote or remove it"))
                        }
                    }
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// Flags that change nothing decodecalc predicts.
const NO_EFFECT: [&str; 31] = [
    "host",
    "port",
    "served-model-name",
    "api-key",
    "trust-remote-code",
    "disable-log-requests",
    "disable-log-stats",
    "enable-log-requests",
    "uvicorn-log-level",
    "chat-template",
    "tool-call-parser",
    "enable-auto-tool-choice",
    "reasoning-parser",
    "download-dir",
    "revision",
    "tokenizer",
    "tokenizer-mode",
    "seed",
    "generation-config",
    "load-format",
    "allowed-origins",
    "middleware",
    "response-role",
    "root-path",
    // Where the data-parallel replicas run and talk, not how many
    // (vllm/engine/arg_utils.py): one launch line per node or rank.
    "data-parallel-address",
    "data-parallel-rpc-port",
    "data-parallel-backend",
    "data-parallel-start-rank",
    "data-parallel-rank",
    "headless",
    // Which experts a GPU holds, not how many (`determine_expert_map`).
    "expert-placement-strategy",
];

/// Boolean flags (they take no value).
/// Switches vLLM has that are not in the flag table (the table's own
/// switches are `crate::flags::FlagKind::Switch` / `Set` rows).
const BOOLEAN: [&str; 9] = [
    "trust-remote-code",
    "disable-log-requests",
    "disable-log-stats",
    "enable-log-requests",
    "enable-auto-tool-choice",
    "enable-chunked-prefill",
    "no-enable-chunked-prefill",
    "headless",
    "enable-eplb",
];

/// Flags that change memory or speed in ways decodecalc does not model yet.
/// With expert parallelism: EPLB's redundant experts
/// (`eplb_config.num_redundant_experts`, more experts a GPU) and the
/// all-to-all backend (DeepEP's buffers, `VLLM_DEEPEP_BUFFER_SIZE_MB`, are
/// device memory outside the estimate; docs/reference/vllm-expert-data-parallel.md).
const NOT_MODELLED: [&str; 10] = [
    // `data` replicates the vision tower on every TP rank (more weight
    // memory) and splits the dummy batch across ranks; decodecalc models
    // the default `weights` mode.
    "mm-encoder-tp-mode",
    // The vision attention kernel (FlashAttention, SDPA, ...): its own
    // temporaries in the tower's pass are not modelled.
    "mm-encoder-attn-backend",
    "enable-eplb",
    "eplb-config",
    "all2all-backend",
    "cpu-offload-gb",
    "num-gpu-blocks-override",
    "no-enable-chunked-prefill",
    "max-num-partial-prefills",
    "compilation-config",
];

/// What one vLLM flag did to the settings ([`apply_flag`]).
#[derive(Clone, Debug, PartialEq)]
pub enum FlagEffect {
    /// `--model`: the model, which is not an engine setting.
    Model(String),
    Applied,
    /// A flag vLLM has that decodecalc does not model.
    NotModelled,
    /// A flag that changes nothing decodecalc computes.
    NoEffect,
    Unknown,
}

/// Apply one vLLM flag (`name` as vLLM spells it without the dashes,
/// `value` its argument, None for a switch) to `s`: the one mapping from
/// vLLM's flags to [`EngineSettings`], shared by the launch-line reader and
/// the start-up log's non-default args (`crate::vllm_log`).
pub fn apply_flag(s: &mut EngineSettings, name: &str, value: Option<&str>) -> Result<FlagEffect> {
    let need = || {
        value.map(str::to_string).ok_or_else(|| {
            Error::new(format!("--{name} needs a value in the launch line"))
                .with_hint(format!("write --{name} VALUE or --{name}=VALUE"))
        })
    };
    if name == "model" {
        return Ok(FlagEffect::Model(need()?));
    }
    if let Some((flag, on)) = crate::flags::find(name).filter(|f| f.0.vllm) {
        s.set_flag(flag, value, on)?;
        return Ok(FlagEffect::Applied);
    }
    Ok(match name {
        "enable-chunked-prefill" => FlagEffect::NoEffect,
        n if NOT_MODELLED.contains(&n) => FlagEffect::NotModelled,
        n if NO_EFFECT.contains(&n) => FlagEffect::NoEffect,
        _ => FlagEffect::Unknown,
    })
}

/// Read a launch line: `vllm serve MODEL --flag value ...` (also `python -m
/// vllm.entrypoints.openai.api_server --model MODEL ...`, `--flag=value`,
/// backslash continuations and `#` comment lines, as the seed page shows it).
pub fn parse_vllm_command(text: &str) -> Result<VllmCommand> {
    crate::parse::check_size("the launch line", text)?;
    let words = shell_words(text)?;
    let (mut i, image_version) = skip_program(&words);
    let mut cmd = VllmCommand::default();
    match image_version {
        Some(tag) if crate::version::VllmVersion::parse("the image tag", &tag).is_ok() => {
            cmd.settings.vllm_version = Some(tag.trim_start_matches('v').to_string());
        }
        Some(tag) => cmd
            .warnings
            .push(crate::Warning::ImageTagWithoutRelease { tag }),
        None => {}
    }
    while let Some(word) = words.get(i) {
        i += 1;
        // vLLM's short forms: `-q`, and the flag table's (`-tp`, `-dp`, `-ep`, ...).
        let word = &match word.as_str() {
            "-q" => "--quantization".to_string(),
            other => match other.strip_prefix('-') {
                Some(short)
                    if !short.starts_with('-')
                        && crate::flags::ENGINE_FLAGS.iter().any(|f| {
                            f.aliases
                                .contains(&short.split('=').next().unwrap_or_default())
                        }) =>
                {
                    format!("-{other}")
                }
                _ => other.to_string(),
            },
        };
        let Some(flag) = word.strip_prefix("--") else {
            if cmd.model.is_none() && !word.starts_with('-') {
                cmd.model = Some(word.clone());
            } else {
                cmd.warnings
                    .push(crate::Warning::IgnoredArgument { word: word.clone() });
            }
            continue;
        };
        let (name, value) = flag_and_value(flag, &words, &mut i);
        read_flag(&mut cmd, &name, value)?;
    }
    Ok(cmd)
}

/// Where the flags start in `words`: past leading environment assignments
/// and the program (`vllm serve`, `python -m ...`, `docker run [docker
/// flags] vllm/vllm-openai:TAG [serve]`), with the image's tag if a
/// container image was named.
fn skip_program(words: &[String]) -> (usize, Option<String>) {
    let mut i = 0;
    // Leading environment assignments, then the program.
    while words
        .get(i)
        .is_some_and(|w| w.contains('=') && !w.starts_with('-'))
    {
        i += 1;
    }
    let mut image_version = None;
    match words.get(i).map(String::as_str) {
        Some("vllm") if words.get(i + 1).map(String::as_str) == Some("serve") => i += 2,
        // `docker run [docker flags] vllm/vllm-openai:v0.19.0 [vllm flags]`:
        // the image tag names the release.
        Some("docker" | "podman") => {
            match words
                .iter()
                .position(|w| w.contains("vllm-openai") || w.starts_with("vllm/"))
            {
                Some(at) => {
                    image_version = words
                        .get(at)
                        .and_then(|w| w.rsplit_once(':'))
                        .map(|(_, tag)| tag.to_string());
                    i = at + 1;
                    if words.get(i).map(String::as_str) == Some("serve") {
                        i += 1;
                    }
                }
                None => i = words.len(),
            }
        }
        Some(p) if p.starts_with("python") => {
            while words.get(i).is_some_and(|w| !w.starts_with("--")) {
                i += 1;
            }
        }
        _ => {}
    }
    (i, image_version)
}

/// A flag's name (dashes for underscores) and its value: after `=`, else
/// the next word (`*i`, then consumed) unless the flag is a switch or the
/// next word is a flag.
fn flag_and_value(flag: &str, words: &[String], i: &mut usize) -> (String, Option<String>) {
    let (name, inline) = match flag.split_once('=') {
        Some((n, v)) => (n.to_string(), Some(v.to_string())),
        None => (flag.to_string(), None),
    };
    let name = name.replace('_', "-");
    let is_bool = BOOLEAN.contains(&name.as_str())
        || crate::flags::find(&name).is_some_and(|(f, _)| {
            matches!(
                f.kind,
                crate::flags::FlagKind::Switch | crate::flags::FlagKind::Set
            )
        });
    let value = match (&inline, is_bool) {
        (Some(v), _) => Some(v.clone()),
        (None, true) => None,
        (None, false) => match words.get(*i) {
            Some(v) if !v.starts_with("--") => {
                *i += 1;
                Some(v.clone())
            }
            _ => None,
        },
    };
    (name, value)
}

/// A flag as the launch line wrote it: `--name` and its value, if any.
fn as_written(name: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("--{name} {v}"),
        None => format!("--{name}"),
    }
}

/// Apply one flag of the launch line to `cmd`, warning about those not applied.
fn read_flag(cmd: &mut VllmCommand, name: &str, value: Option<String>) -> Result<()> {
    match apply_flag(&mut cmd.settings, name, value.as_deref())? {
        FlagEffect::Model(m) => cmd.model = Some(m),
        FlagEffect::Applied | FlagEffect::NoEffect => {}
        FlagEffect::NotModelled => cmd.warnings.push(crate::Warning::FlagNotModelled {
            flag: as_written(name, value.as_deref()),
        }),
        FlagEffect::Unknown => cmd.warnings.push(crate::Warning::UnknownFlag {
            flag: as_written(name, value.as_deref()),
        }),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "# Untuned out-of-the-box baseline. Spec decode: none. KV cache: int4_per_token_head
# 1x RTX 3090 24GB (Zagitta/gpu-unlock), 350 W limit (VBIOS max), PCIe Gen4 x16 | AMD Ryzen 9 7900X 12C | 32 GB DDR5 | Ubuntu 24.04.5, NVIDIA driver 595.99.02
vllm serve cyankiwi/NVIDIA-Nemotron-Nano-12B-v2-AWQ-4bit --max-model-len 131072 --gpu-memory-utilization 0.94 --max-num-seqs 128 --enable-prefix-caching --trust-remote-code --kv-cache-dtype int4_per_token_head --attention-backend TRITON_ATTN";

    #[test]
    fn reads_the_seed_launch_line() {
        let c = parse_vllm_command(SEED).unwrap();
        assert_eq!(
            c.model.as_deref(),
            Some("cyankiwi/NVIDIA-Nemotron-Nano-12B-v2-AWQ-4bit")
        );
        assert_eq!(c.settings.max_model_len, Some(131_072));
        assert_eq!(c.settings.gpu_memory_utilization, Some(0.94));
        assert_eq!(c.settings.max_num_seqs, Some(128));
        assert_eq!(c.settings.enable_prefix_caching, Some(true));
        assert_eq!(
            c.settings.kv_cache_dtype.as_deref(),
            Some("int4_per_token_head")
        );
        assert_eq!(c.settings.attention_backend.as_deref(), Some("TRITON_ATTN"));
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    #[test]
    fn a_docker_image_tag_names_the_release() {
        let c = parse_vllm_command(
            "docker run --gpus all -p 8000:8000 --ipc=host vllm/vllm-openai:v0.19.0 --model Qwen/Qwen3-8B --max-model-len 16384",
        )
        .unwrap();
        assert_eq!(c.settings.vllm_version.as_deref(), Some("0.19.0"));
        assert_eq!(c.model.as_deref(), Some("Qwen/Qwen3-8B"));
        assert_eq!(c.settings.max_model_len, Some(16_384));
        let latest = parse_vllm_command("docker run vllm/vllm-openai:latest --model m").unwrap();
        assert_eq!(latest.settings.vllm_version, None);
        assert_eq!(
            latest.warnings,
            [crate::Warning::ImageTagWithoutRelease {
                tag: "latest".into()
            }]
        );
        assert_eq!(
            latest.warnings[0].to_string(),
            "the image tag `latest` names no release; give --vllm-version"
        );
    }

    #[test]
    fn other_forms_and_warnings() {
        let c = parse_vllm_command(
            "CUDA_VISIBLE_DEVICES=0 python -m vllm.entrypoints.openai.api_server \\\n  --model=m/x --max-model-len 32k \"--kv-cache-dtype\" 'fp8' --foo bar --enforce-eager --port 8000",
        )
        .unwrap();
        assert_eq!(c.model.as_deref(), Some("m/x"));
        // vLLM reads a lowercase k as 1,000 (`human_readable_int`).
        assert_eq!(c.settings.max_model_len, Some(32_000));
        assert_eq!(c.settings.kv_cache_dtype.as_deref(), Some("fp8"));
        assert_eq!(c.settings.enforce_eager, Some(true));
        assert_eq!(
            c.warnings,
            [crate::Warning::UnknownFlag {
                flag: "--foo bar".into()
            }]
        );
        assert_eq!(c.warnings[0].to_string(), "unknown flag --foo bar ignored");
        let e = parse_vllm_command("vllm serve m --max-num-seqs many").unwrap_err();
        assert!(e.message.contains("--max-num-seqs"), "{e}");
        let e = parse_vllm_command("vllm serve m --max-model-len").unwrap_err();
        assert!(e.message.contains("needs a value"), "{e}");
        assert!(parse_vllm_command("vllm serve 'm").is_err());
    }

    #[test]
    fn dtype_and_pipeline_parallelism_are_read() {
        let c = parse_vllm_command("vllm serve m --dtype half -pp 2 --pipeline-parallel-size=4")
            .unwrap();
        assert_eq!(c.settings.dtype.as_deref(), Some("half"));
        assert_eq!(c.settings.pipeline_parallel_size, Some(4));
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }
}
