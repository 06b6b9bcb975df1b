//! `decodecalc presets`: the embedded presets, or the release table.

use super::Output;
use crate::args::Format;
use crate::render;
use clap::Args;

/// The `Examples:` of `decodecalc presets --help` (run by cli/tests/cmd/presets.md).
pub const EXAMPLES: &str = "\
Examples:
  decodecalc presets                   # models, GPUs, scenarios, calibrations, measured runs
  decodecalc presets --versions        # what changes between the vLLM releases modelled";

#[derive(Args, Debug)]
pub struct PresetsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// List what changed between the vLLM releases `--vllm-version` models
    /// instead, release by release, with the vLLM file each rule is read from.
    #[arg(long)]
    pub versions: bool,
}

pub fn run(args: &PresetsArgs) -> Output {
    Ok((render::presets(args)?, 0))
}
