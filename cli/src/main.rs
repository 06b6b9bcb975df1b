//! The `decodecalc` binary: everything happens in the library's [`decodecalc::main_with`].

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let out = decodecalc::main_with(std::env::args_os());
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.stdout.as_bytes())
        .and_then(|()| stdout.flush())
    {
        // A closed pipe (`decodecalc matrix | head`) is the reader's choice.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            let _ = writeln!(
                std::io::stderr(),
                "error: cannot write the output: {e}\nhint: check the disk or the file stdout goes to"
            );
            ExitCode::from(2)
        }
        _ => ExitCode::from(out.code),
    }
}
