//! One error type for every fallible step: what went wrong (naming the file,
//! line or field), where one helps a hint saying what would be valid, and, for
//! a program that shows errors beside their input (the web page), what kind of
//! fault it is and which field it is about.

use std::fmt;

/// What kind of fault an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ErrorKind {
    /// A value outside what is valid (a flag, a file field, a form field).
    InvalidValue,
    /// A value that is needed was not given.
    MissingField,
    /// A preset id no embedded preset has.
    UnknownPreset,
    /// A file that does not parse: TOML, JSON, CSV or a log, at a location.
    Parse,
    /// A setup vLLM would refuse at start-up (it would not serve).
    WouldNotStart,
    /// Anything else (a file that cannot be read, a fit that fails).
    #[default]
    Other,
}

impl ErrorKind {
    /// The process's exit code for an error of this kind. Every kind is
    /// input the run cannot go on with (a value, a file, a setup vLLM
    /// refuses), so 2, uv's and clap's code for a refused invocation; 1 is
    /// the CLI's for a result over a threshold (`compare --max-mape`), which
    /// is no error.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::InvalidValue
            | ErrorKind::MissingField
            | ErrorKind::UnknownPreset
            | ErrorKind::Parse
            | ErrorKind::WouldNotStart
            | ErrorKind::Other => 2,
        }
    }
}

/// The input an [`Error`] is about, typed, so that a program shows the
/// error beside that input (the web page beside its form field) without
/// reading the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A flag, as the command line spells it (`--max-num-seqs`).
    Flag(String),
    /// A field of a file: the file as the user named it, and where in it
    /// (`[engine] max_num_seqs`).
    FileField { file: String, field: String },
    /// A field named without its origin (a config.json key, a value of
    /// the scenario the user did not give).
    Field(String),
}

impl Subject {
    /// The flag `--name` (given with or without its dashes).
    pub fn flag(name: &str) -> Subject {
        Subject::Flag(format!("--{}", name.trim_start_matches('-')))
    }

    /// Field `field` of file `file`.
    pub fn in_file(file: impl fmt::Display, field: impl Into<String>) -> Subject {
        Subject::FileField {
            file: file.to_string(),
            field: field.into(),
        }
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Flag(name) | Subject::Field(name) => f.write_str(name),
            Subject::FileField { file, field } => write!(f, "{file}: {field}"),
        }
    }
}

/// A subject written at a call site as text: a flag's spelling
/// (`"--max-num-seqs"`), else a field's name. Typed origins (the label
/// functions, [`Subject::in_file`]) build the variant directly.
impl From<&str> for Subject {
    fn from(text: &str) -> Subject {
        match text.strip_prefix("--") {
            Some(_) => Subject::Flag(text.to_string()),
            None => Subject::Field(text.to_string()),
        }
    }
}

impl From<&String> for Subject {
    fn from(text: &String) -> Subject {
        Subject::from(text.as_str())
    }
}

impl From<String> for Subject {
    fn from(text: String) -> Subject {
        Subject::from(text.as_str())
    }
}

impl From<&Subject> for Subject {
    fn from(s: &Subject) -> Subject {
        s.clone()
    }
}

/// What a parser of one value takes to name that value in its errors: a
/// typed [`Subject`] (`&Subject`, from the label functions) or a literal
/// (`"--kv-cache-dtype"`, a config.json key).
pub trait AsSubject: Into<Subject> + Copy + fmt::Display {}

impl<T: Into<Subject> + Copy + fmt::Display> AsSubject for T {}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// One line: what is wrong, naming the file, line or field.
    pub message: String,
    /// One line: what would be valid, or how to find out.
    pub hint: Option<String>,
    pub kind: ErrorKind,
    /// The input the error is about. The web page puts the error beside
    /// the form field of a [`Subject::Flag`].
    pub subject: Option<Subject>,
}

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            hint: None,
            kind: ErrorKind::Other,
            subject: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn of_kind(mut self, kind: ErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// Name the input the error is about (see [`Error::subject`]).
    pub fn about(mut self, subject: impl Into<Subject>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Prefix the message with where the value came from (a file, a
    /// section of one). The subject is unchanged: see [`Error::in_flag`].
    pub fn context(mut self, origin: impl fmt::Display) -> Self {
        self.message = format!("{origin}: {}", self.message);
        self
    }

    /// Prefix the message with the input the value came from (a flag, a
    /// file's field), which becomes the error's subject when it has none.
    pub fn within(self, subject: impl Into<Subject>) -> Self {
        let subject = subject.into();
        let mut e = self.context(&subject);
        if e.subject.is_none() {
            e.subject = Some(subject);
        }
        e
    }

    /// A field that has a value outside what is valid.
    pub fn field(
        subject: impl Into<Subject>,
        value: impl fmt::Display,
        valid: impl Into<String>,
    ) -> Self {
        let subject = subject.into();
        Error::new(format!("invalid value `{value}` for `{subject}`"))
            .with_hint(valid)
            .of_kind(ErrorKind::InvalidValue)
            .about(subject)
    }

    /// A value that is needed and was not given.
    pub fn missing(
        subject: impl Into<Subject>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        Error::new(message)
            .with_hint(hint)
            .of_kind(ErrorKind::MissingField)
            .about(subject)
    }

    /// The flag the error is about (`--max-num-seqs`), when its subject is
    /// one: a file's field is not a flag.
    pub fn flag(&self) -> Option<&str> {
        match &self.subject {
            Some(Subject::Flag(name)) => Some(name),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_error_names_its_flag_and_a_file_field_is_no_flag() {
        let e = Error::field("--max-num-seqs", -1, "a positive count");
        assert_eq!(e.kind, ErrorKind::InvalidValue);
        assert_eq!(e.flag(), Some("--max-num-seqs"));
        assert_eq!(e.message, "invalid value `-1` for `--max-num-seqs`");
        let f = Error::field(
            Subject::in_file("s.toml", "[engine] max_num_seqs"),
            -1,
            "a positive count",
        );
        assert_eq!(f.flag(), None);
        assert_eq!(
            f.subject,
            Some(Subject::FileField {
                file: "s.toml".into(),
                field: "[engine] max_num_seqs".into()
            })
        );
        assert_eq!(
            f.message,
            "invalid value `-1` for `s.toml: [engine] max_num_seqs`"
        );
        // A flag as the context of an error names it; a file does not.
        let g = Error::new("bad list").within(Subject::flag("contexts"));
        assert_eq!(g.flag(), Some("--contexts"));
        assert_eq!(g.message, "--contexts: bad list");
        assert_eq!(Error::new("x").context("a.csv").subject, None);
        // A subject already named stays.
        let h = Error::field("head_dim", 0, "a positive size").within("--model");
        assert_eq!(h.subject, Some(Subject::Field("head_dim".into())));
    }
}
