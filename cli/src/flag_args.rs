//! The CLI's setup flags, generated from core's tables: the engine flags
//! (`decodecalc_api::flags::ENGINE_FLAGS`) and the request flags
//! (`flags::REQUEST_FLAGS`: scenario, model, GPU, launch line, log,
//! calibration and the workload). One clap argument per row (and the `--no-`
//! form of a switch), its help from the row's explanation, unit and default;
//! the values are read by the parsers the launch-line reader and the web
//! form use (`EngineSettings::set_flag`, `Request::set`), so a flag's rule
//! has one home.

use crate::files::Fs;
use clap::{Arg, ArgAction, ArgMatches, Command};
use decodecalc_api::flags::{FlagKind, RequestFlag, ENGINE_FLAGS, REQUEST_FLAGS};
use decodecalc_api::scenario::{Request, World};
use decodecalc_api::{engine::EngineSettings, Error};

/// The engine flags given on the command line, as (table row, text, on).
#[derive(Debug, Default)]
pub struct EngineFlagArgs {
    given: Vec<(
        &'static decodecalc_api::flags::EngineFlag,
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
                    // Checked as it is read, by the table's own parser and range.
                    let check = move |text: &str| -> Result<String, Error> {
                        let mut s = EngineSettings::default();
                        s.set_flag(f, Some(text), true)?;
                        s.check_ranges(&decodecalc_api::engine::flag)?;
                        Ok(text.to_string())
                    };
                    let arg = arg
                        .action(ArgAction::Set)
                        .value_parser(check)
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

/// The request flags given on the command line, as (flag, text); a switch's
/// text is empty.
#[derive(Debug, Default)]
pub struct RequestFlagArgs {
    given: Vec<(&'static RequestFlag, String)>,
}

/// The clap id of a request flag.
fn request_id(f: &RequestFlag) -> String {
    f.flag.replace('-', "_")
}

impl RequestFlagArgs {
    /// The request these flags and `engine` describe, built by core's one
    /// request builder ([`Request::set`]). `--vllm-log` names a file: its
    /// text is read here.
    pub fn request(&self, engine: &EngineFlagArgs) -> Result<Request, Error> {
        let mut r = Request {
            engine: engine.settings()?,
            ..Request::default()
        };
        for (f, text) in &self.given {
            match f.flag {
                "vllm-log" => {
                    let log = Fs.read(text).map_err(|why| {
                        why.into_error("give the start-up log vLLM printed, as a text file")
                            .about("--vllm-log")
                    })?;
                    r.vllm_log = Some((text.clone(), log));
                }
                _ if f.switch => r.set(f.flag, "on")?,
                _ => r.set(f.flag, text)?,
            }
        }
        Ok(r)
    }

    /// The text given for `flag`, if it was given.
    pub fn text(&self, flag: &str) -> Option<&str> {
        self.given
            .iter()
            .find(|(f, _)| f.flag == flag)
            .map(|(_, t)| t.as_str())
    }
}

impl clap::FromArgMatches for RequestFlagArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for f in REQUEST_FLAGS {
            let id = request_id(f);
            if f.switch {
                if m.get_flag(&id) {
                    given.push((f, String::new()));
                }
            } else if let Some(v) = m.get_one::<String>(&id) {
                given.push((f, v.clone()));
            }
        }
        Ok(RequestFlagArgs { given })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for RequestFlagArgs {
    fn augment_args(cmd: Command) -> Command {
        let mut cmd = cmd;
        for f in REQUEST_FLAGS {
            let arg = Arg::new(request_id(f))
                .long(f.flag)
                .help(format!("{} [default: {}]", f.help, f.default));
            cmd = cmd.arg(if f.switch {
                arg.action(ArgAction::SetTrue)
            } else {
                let flag = f.flag;
                // Checked as it is read, by the parser the request uses.
                let check = move |text: &str| -> Result<String, Error> {
                    if flag != "vllm-log" {
                        Request::default().set(flag, text)?;
                    }
                    Ok(text.to_string())
                };
                arg.action(ArgAction::Set)
                    .allow_hyphen_values(true)
                    .value_parser(check)
                    .value_name(match (flag, f.unit) {
                        ("vllm-log", _) => "FILE".to_string(),
                        (_, "") => "VALUE".to_string(),
                        (_, unit) => unit.to_uppercase(),
                    })
            });
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
