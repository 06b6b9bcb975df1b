//! The CLI's engine flags, generated from core's table
//! (`decodecalc_core::flags::ENGINE_FLAGS`): one clap argument per row (and
//! the `--no-` form of a switch), its help from the row's explanation, unit
//! and vLLM default; the values are read by the same parser the launch-line
//! reader uses (`EngineSettings::set_flag`), so a flag's rule has one home.

use clap::{Arg, ArgAction, ArgMatches, Command};
use decodecalc_core::flags::{FlagKind, ENGINE_FLAGS};
use decodecalc_core::{engine::EngineSettings, Error};

/// The engine flags given on the command line, as (table row, text, on).
#[derive(Debug, Default)]
pub struct EngineFlagArgs {
    given: Vec<(
        &'static decodecalc_core::flags::EngineFlag,
        Option<String>,
        bool,
    )>,
}

/// The clap id of a switch's `--no-` form.
fn no_id(field: &str) -> String {
    format!("no_{field}")
}

impl EngineFlagArgs {
    /// The settings the flags give; a bad value is an error naming its flag.
    pub fn settings(&self) -> Result<EngineSettings, Error> {
        let mut s = EngineSettings::default();
        for (flag, text, on) in &self.given {
            s.set_flag(flag, text.as_deref(), *on)?;
        }
        Ok(s)
    }
}

impl clap::FromArgMatches for EngineFlagArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for f in ENGINE_FLAGS {
            match f.kind {
                FlagKind::Switch => {
                    if m.get_flag(f.field) {
                        given.push((f, None, true));
                    } else if m.get_flag(&no_id(f.field)) {
                        given.push((f, None, false));
                    }
                }
                FlagKind::Set => {
                    if m.get_flag(f.field) {
                        given.push((f, None, true));
                    }
                }
                FlagKind::Int | FlagKind::Float | FlagKind::Text => {
                    if let Some(v) = m.get_one::<String>(f.field) {
                        given.push((f, Some(v.clone()), true));
                    }
                }
            }
        }
        Ok(EngineFlagArgs { given })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for EngineFlagArgs {
    fn augment_args(cmd: Command) -> Command {
        let mut cmd = cmd;
        for f in ENGINE_FLAGS {
            let help = if f.vllm {
                format!("{} [vLLM default: {}]", f.help, f.default)
            } else {
                format!("{} [default: {}]", f.help, f.default)
            };
            let arg = Arg::new(f.field).long(f.flag).help(help);
            cmd = cmd.arg(match f.kind {
                FlagKind::Switch => arg
                    .action(ArgAction::SetTrue)
                    .overrides_with(no_id(f.field)),
                FlagKind::Set => arg.action(ArgAction::SetTrue),
                FlagKind::Int | FlagKind::Float | FlagKind::Text => {
                    let arg = arg
                        .action(ArgAction::Set)
                        .allow_negative_numbers(true)
                        .value_name(if f.unit.is_empty() {
                            "VALUE".to_string()
                        } else {
                            f.unit.to_uppercase()
                        });
                    match f.short {
                        Some(c) => arg.short(c),
                        None => arg,
                    }
                }
            });
            if f.kind == FlagKind::Switch {
                cmd = cmd.arg(
                    Arg::new(no_id(f.field))
                        .long(format!("no-{}", f.flag))
                        .action(ArgAction::SetTrue)
                        .overrides_with(f.field)
                        .help(format!("Turn --{} off", f.flag)),
                );
            }
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
