//! The README's examples, in two kinds of block:
//!
//! - ```console blocks (`$ decodecalc ...`, then the output): trycmd runs
//!   each command and checks the lines shown, in `cargo test -p decodecalc
//!   --test examples` (cli/tests/examples.rs); nothing of them is repeated
//!   here.
//! - ```sh blocks: what that test leaves out, the joint calibrations (one
//!   to two minutes each; one writes `--out-dir data/calibrations`). Here
//!   each `decodecalc ...` line runs and exits 0, from the repository root
//!   as the README shows them, with `--out` and `--out-dir` sent to scratch
//!   files so the shipped data is never overwritten.
//!
//! And every `decodecalc` command line of a code block is in one of the
//! two, so none sits in a block that no test runs.

use decodecalc::main_with;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// The `decodecalc` command lines of the README's ```sh blocks
/// (continuations joined).
fn examples() -> Vec<String> {
    let text = readme();
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let line = line.trim();
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head);
            continue;
        }
        pending.push_str(line);
        let cmd = std::mem::take(&mut pending);
        if cmd.starts_with("decodecalc ") {
            out.push(cmd);
        }
    }
    out
}

/// Split a command line as a POSIX shell would for these examples: words,
/// double-quoted strings, and a `#` comment after whitespace.
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut started = false;
    for ch in cmd.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            '#' if !quoted && !started => break,
            c if c.is_whitespace() && !quoted => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

#[test]
fn every_sh_example_runs() {
    let examples = examples();
    assert!(examples.len() >= 2, "{} examples", examples.len());
    let scratch = std::env::temp_dir().join(format!("decodecalc-readme-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    // Paths in the examples are relative to the repository's root; the
    // process's directory is left alone (other tests share the process).
    let mut failed = Vec::new();
    for (i, cmd) in examples.iter().enumerate() {
        // The accuracy section's command: its whole output (every row of
        // the tables by class, GPU, family and held-out runs) is what
        // tests/tests/suite/calibration.rs computes once and finds in the README,
        // so it is not fitted a second time here.
        if cmd.starts_with(ACCURACY_COMMAND) {
            continue;
        }
        let mut args: Vec<String> = words(cmd)
            .into_iter()
            .map(|a| {
                let p = root().join(&a);
                if !a.starts_with('-') && a.contains('/') && p.exists() {
                    p.display().to_string()
                } else {
                    a
                }
            })
            .collect();
        if let Some(k) = args.iter().position(|a| a == "--out") {
            args[k + 1] = scratch.join(format!("out-{i}.toml")).display().to_string();
        }
        if let Some(k) = args.iter().position(|a| a == "--out-dir") {
            let dir = scratch.join(format!("out-{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            args[k + 1] = dir.display().to_string();
        }
        let out = main_with(&args);
        if out.code != 0 {
            failed.push(format!("{cmd}\n  exit {}: {}", out.code, out.stderr.trim()));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The README's accuracy command (checked by tests/tests/suite/calibration.rs).
const ACCURACY_COMMAND: &str = "decodecalc calibrate --measured public-decode-speed --measured rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32 --held-out aiconfigurator-silicon-vllm --held-out aiconfigurator-silicon-vllm-ep --held-out a100-vllm-v1 --format markdown";

#[test]
fn the_splitter_keeps_quoted_launch_lines_whole() {
    assert_eq!(
        words("decodecalc matrix --vllm-command \"vllm serve X --max-model-len 32k\" --gpu l40s  # note"),
        ["decodecalc", "matrix", "--vllm-command", "vllm serve X --max-model-len 32k", "--gpu", "l40s"]
    );
}

/// A `decodecalc` command line in a code block is either a ```sh line
/// (run above) or a `$ ` line of a ```console block (run by trycmd, which
/// skips blocks marked `ignore` and of other languages).
#[test]
fn every_readme_command_is_run_by_a_test() {
    let text = readme();
    let mut lang: Option<String> = None;
    let (mut sh, mut console) = (0, 0);
    let mut unrun = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if let Some(info) = line.strip_prefix("```") {
            lang = match lang {
                Some(_) => None,
                None => Some(info.trim().to_string()),
            };
            continue;
        }
        let Some(lang) = lang.as_deref() else {
            continue;
        };
        let trimmed = line.trim_start();
        match lang {
            "sh" if trimmed.starts_with("decodecalc ") => sh += 1,
            "console" if line.starts_with("$ decodecalc ") => console += 1,
            // (A console block's output lines are not commands.)
            "console" => {}
            _ if trimmed.starts_with("decodecalc ") || trimmed.starts_with("$ decodecalc ") => {
                unrun.push(format!("README.md:{}: ```{lang}: {line}", n + 1));
            }
            _ => {}
        }
    }
    assert!(
        unrun.is_empty(),
        "no test runs these:\n{}",
        unrun.join("\n")
    );
    assert_eq!(sh, examples().len());
    // The console examples trycmd checks (a drop would mean blocks that
    // stopped being ```console).
    assert!(console >= 20, "{console} console examples");
}
