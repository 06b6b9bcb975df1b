//! One module per subcommand: its flags and its run, from the flags to the
//! text printed. Each `run` returns stdout and the exit code; its warnings go
//! to stderr.

pub mod bench_serve;
pub mod calibrate;
pub mod capacity;
pub mod compare;
pub mod matrix;
pub mod presets;
pub mod rank;
pub mod solve;

use crate::args::CommonArgs;
use crate::files::Fs;
use decodecalc_api::scenario::Plan;
use decodecalc_api::{Error, Setup};

/// What a subcommand prints on stdout and its exit code.
pub type Output = Result<(String, u8), Error>;

/// What a run says on stderr beside its output, typed: warnings, and errors
/// that do not stop the output (`capacity` prints the breakdown of a setup
/// vLLM would refuse, then the refusal; `compare --max-mape` its table,
/// then the gate's verdict). `main_with` writes them, each error as
/// `error:` and `hint:` lines; the subcommand's code is the exit code.
#[derive(Debug, Default)]
pub struct Diagnostics {
    pub warnings: Vec<String>,
    pub errors: Vec<Error>,
}

impl Diagnostics {
    pub fn warn(&mut self, warning: impl Into<String>) {
        self.warnings.push(warning.into());
    }

    pub fn extend(&mut self, warnings: impl IntoIterator<Item = String>) {
        self.warnings.extend(warnings);
    }
}

/// The setup the flags describe; its warnings go to stderr.
pub fn setup(args: &CommonArgs, diag: &mut Diagnostics) -> Result<Setup, Error> {
    Setup::of_plan(resolve(args, diag)?)
}

/// Resolve the plan the flags describe; its warnings go to stderr.
pub fn resolve(args: &CommonArgs, diag: &mut Diagnostics) -> Result<Plan, Error> {
    let plan = args.request()?.resolve(&Fs)?;
    diag.extend(plan.warnings.iter().map(ToString::to_string));
    Ok(plan)
}
