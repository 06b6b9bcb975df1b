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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// One line: what is wrong, naming the file, line or field.
    pub message: String,
    /// One line: what would be valid, or how to find out.
    pub hint: Option<String>,
    pub kind: ErrorKind,
    /// The input the error is about, as the user spelled it: a flag
    /// (`--max-num-seqs`), or a file's field (`x.toml: [engine] max_num_seqs`).
    /// The web page puts the error beside the form field of that flag.
    pub field: Option<String>,
}

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            hint: None,
            kind: ErrorKind::Other,
            field: None,
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

    /// Name the input the error is about (see [`Error::field`]).
    pub fn about(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// Prefix the message with where the value came from (a file, a flag).
    /// A flag given as the origin becomes the error's field when it has none.
    pub fn context(mut self, origin: impl fmt::Display) -> Self {
        let origin = origin.to_string();
        if self.field.is_none() && origin.starts_with("--") {
            self.field = Some(origin.clone());
        }
        self.message = format!("{origin}: {}", self.message);
        self
    }

    /// A field that has a value outside what is valid.
    pub fn field(field: &str, value: impl fmt::Display, valid: impl Into<String>) -> Self {
        Error::new(format!("invalid value `{value}` for `{field}`"))
            .with_hint(valid)
            .of_kind(ErrorKind::InvalidValue)
            .about(field)
    }

    /// A value that is needed and was not given.
    pub fn missing(field: &str, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::new(message)
            .with_hint(hint)
            .of_kind(ErrorKind::MissingField)
            .about(field)
    }

    /// The flag the error is about (`--max-num-seqs`), when its field is one:
    /// a file's field is not a flag.
    pub fn flag(&self) -> Option<&str> {
        self.field.as_deref().filter(|f| f.starts_with("--"))
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
        let f = Error::field("s.toml: [engine] max_num_seqs", -1, "a positive count");
        assert_eq!(f.flag(), None);
        assert_eq!(f.field.as_deref(), Some("s.toml: [engine] max_num_seqs"));
        // A flag as the context of an error names it; a file does not.
        let g = Error::new("bad list").context("--contexts");
        assert_eq!(g.flag(), Some("--contexts"));
        assert_eq!(g.message, "--contexts: bad list");
        assert_eq!(Error::new("x").context("a.csv").field, None);
    }
}
