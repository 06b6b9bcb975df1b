//! `decodecalc capacity`: the memory breakdown and the allocator's figures.

use super::{setup, Diagnostics, Output};
use crate::args::CommonArgs;
use crate::render;

/// The `Examples:` of `decodecalc capacity --help` (run by cli/tests/cmd/capacity.md).
pub const EXAMPLES: &str = "\
Examples:
  decodecalc capacity                  # the reference run's memory breakdown
  decodecalc capacity --model llama-3.1-8b --gpu rtx3090 --max-model-len 32768 --kv-cache-dtype fp8
  decodecalc capacity --gpu l40s --vllm-command \"vllm serve Qwen/Qwen3-8B --max-model-len 16k\"";

pub fn run(args: &CommonArgs, diag: &mut Diagnostics) -> Output {
    let setup = setup(args, diag)?;
    let (plan, capacity) = (&setup.plan, &setup.capacity);
    let table = render::capacity(plan, capacity, args.format())?;
    // The breakdown still prints (it shows why); the error and the exit
    // code are the same as every other subcommand's.
    match capacity.startup_error() {
        Some(e) => {
            diag.errors.push(e);
            Ok((table, 2))
        }
        None => Ok((table, 0)),
    }
}
