//! The `decodecalc` binary: everything happens in the library's [`decodecalc::main_with`].

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let out = decodecalc::main_with(std::env::args_os());
    // A closed pipe (`decodecalc matrix | head`) is not an error worth a panic.
    let _ = std::io::stdout().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    ExitCode::from(out.code)
}
