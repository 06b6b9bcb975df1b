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
use decodecalc_core::scenario::Plan;
use decodecalc_core::Error;

/// What a subcommand prints on stdout and its exit code.
pub type Output = Result<(String, u8), Error>;

/// Resolve the plan the flags describe; its warnings go to stderr.
pub fn resolve(args: &CommonArgs, warnings: &mut Vec<String>) -> Result<Plan, Error> {
    let plan = args.request()?.resolve(&Fs)?;
    warnings.extend(plan.warnings.iter().cloned());
    Ok(plan)
}
