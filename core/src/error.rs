//! One error type for every fallible step: what went wrong (naming the file,
//! line or field) and, where one helps, a hint saying what would be valid.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// One line: what is wrong, naming the file, line or field.
    pub message: String,
    /// One line: what would be valid, or how to find out.
    pub hint: Option<String>,
}

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            hint: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Prefix the message with where the value came from (a file, a flag).
    pub fn context(mut self, origin: impl fmt::Display) -> Self {
        self.message = format!("{origin}: {}", self.message);
        self
    }

    /// A field that has a value outside what is valid.
    pub fn field(field: &str, value: impl fmt::Display, valid: impl Into<String>) -> Self {
        Error::new(format!("invalid value `{value}` for `{field}`")).with_hint(valid)
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
