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
