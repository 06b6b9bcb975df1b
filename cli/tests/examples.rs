//! The documented examples run as tests (trycmd, issue 13), so a broken
//! example fails CI:
//!
//! - README.md's ```console blocks: each `$ decodecalc ...` line runs the
//!   real binary from the repository root, and its output must match the
//!   lines shown (`...` stands for lines left out, `[..]` for the rest of a
//!   line; stderr is merged into stdout, as a terminal shows it).
//! - `cli/tests/cmd/<subcommand>.md`: each subcommand's `--help` must end
//!   with its `Examples:` lines, and each of those lines runs as written,
//!   with its key output lines checked. `calibrate.md` writes a file, so
//!   it runs in a sandbox (its `calibrate.out/` holds the file expected).
//!
//! Examples that write into the repository or take minutes (the joint
//! calibration) stay in ```sh blocks, which `tests/tests/suite/readme.rs` runs.
//! Everything here is deterministic: embedded presets and files of the
//! repository, no clock, no network, no timeout.
//!
//! After an output change, `python3 scripts/refresh-examples.py` refreshes
//! every shown figure in one command (it runs `TRYCMD=dump cargo test -p
//! decodecalc --test examples` itself); review its diff.

// Tests assert by panicking; the workspace's no-panic lints are for the product.
#![allow(clippy::expect_used)]

use std::path::PathBuf;

#[test]
fn readme_and_help_examples() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    // The README's paths (tests/fixtures/...) are relative to the root, and
    // trycmd runs a case without a `.in/` folder in the current directory.
    std::env::set_current_dir(&root).expect("the repository root");
    trycmd::TestCases::new()
        .register_bin(
            "decodecalc",
            PathBuf::from(env!("CARGO_BIN_EXE_decodecalc")),
        )
        .case("README.md")
        .case("cli/tests/cmd/*.md");
}
