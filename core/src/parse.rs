//! Parsing text into values, with errors that name the origin, line and column.
//! Text only: reading files is the caller's job (see [`crate::scenario::World`]).

use crate::error::{Error, Result};
use serde::de::DeserializeOwned;

/// The largest input any parser takes (8 MiB): measured runs, configs and
/// presets are all far smaller; a larger text is refused before parsing, so
/// a pasted 100 MB file costs nothing.
pub const MAX_INPUT_BYTES: usize = 8 << 20;

/// Refuse a text larger than [`MAX_INPUT_BYTES`].
pub fn check_size(origin: &str, text: &str) -> Result<()> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(Error::new(format!(
            "{origin}: {} bytes is more than the {} bytes (8 MiB) an input may have",
            text.len(),
            MAX_INPUT_BYTES
        ))
        .with_hint(
            "give the model's config.json, a scenario or a measured run, not a larger file",
        ));
    }
    Ok(())
}

/// 1-based line and column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before.len(), |i| before.len() - i - 1)
        + 1;
    (line, col)
}

/// The dotted name of the key assigned on 1-based `line` (`engine.max_num_seqs`),
/// if that line is a `key = value` line.
#[cfg(feature = "toml")]
fn field_at(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?;
    let (key, _) = here.split_once('=')?;
    let key = key.trim();
    if key.is_empty() || key.starts_with('#') || key.starts_with('[') {
        return None;
    }
    let table = lines
        .get(..line - 1)?
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('[') && l.ends_with(']'))
        .map(|l| l.trim_matches(['[', ']']).trim().to_string());
    Some(match table {
        Some(t) => format!("{t}.{key}"),
        None => key.to_string(),
    })
}

/// Parse TOML into `T`; an error names `origin:line:column` and the field.
#[cfg(feature = "toml")]
pub fn toml<T: DeserializeOwned>(origin: &str, text: &str) -> Result<T> {
    check_size(origin, text)?;
    toml::from_str(text).map_err(|e| {
        let (place, field) = match e.span() {
            Some(span) => {
                let (line, col) = line_col(text, span.start);
                (format!("{origin}:{line}:{col}"), field_at(text, line))
            }
            None => (origin.to_string(), None),
        };
        let message = e.message().trim().replace('\n', " ");
        let message = match field {
            Some(f) if !message.contains(&f) => format!("field `{f}`: {message}"),
            _ => message,
        };
        Error::new(format!("{place}: {message}"))
            .with_hint("see data/README.md for the fields each kind of file takes")
            .of_kind(crate::ErrorKind::Parse)
    })
}

/// Without the `toml` feature (the web page) there are no TOML files to
/// read: the embedded presets are values (`presets::read`), and the page
/// has no files of its own of these kinds. So a text is refused by name,
/// and no deserializer is linked for `T`.
#[cfg(not(feature = "toml"))]
pub fn toml<T: DeserializeOwned>(origin: &str, text: &str) -> Result<T> {
    check_size(origin, text)?;
    Err(
        Error::new(format!("{origin}: this build reads no TOML files"))
            .with_hint(
                "this build reads its embedded presets only: give files to the decodecalc CLI",
            )
            .of_kind(crate::ErrorKind::Parse),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Sample {
        a: u64,
        b: String,
    }

    #[test]
    fn errors_name_line_and_field() {
        let err = toml::<Sample>("x.toml", "a = 1\nb = 2\n").unwrap_err();
        assert!(
            err.message.starts_with("x.toml:2:5: field `b`:"),
            "{}",
            err.message
        );
        assert!(err.message.contains("string"), "{}", err.message);
        let err = toml::<Sample>("x.toml", "a = 1\nc = \"z\"\n").unwrap_err();
        assert!(err.message.contains("unknown field `c`"), "{}", err.message);
        let err = toml::<Sample>("x.toml", "a = 1\n").unwrap_err();
        assert!(err.message.contains("missing field `b`"), "{}", err.message);
        let err = toml::<Sample>("x.toml", "a = = 1\n").unwrap_err();
        assert!(err.message.starts_with("x.toml:1:"), "{}", err.message);
    }

    #[test]
    fn line_col_is_one_based() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("ab", 99), (1, 3));
    }
}
