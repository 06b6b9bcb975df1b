//! Typed access to the fields of a config.json object: every error names
//! the field and what would be valid.

use super::MAX_FIELD;
use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// One JSON object of a config.json (the file's top level, its
/// `text_config` or its `vision_config`).
#[derive(Clone, Copy)]
pub struct Cfg<'a>(pub &'a Map<String, Value>);

impl<'a> Cfg<'a> {
    pub fn get(&self, k: &str) -> Option<&'a Value> {
        self.0.get(k).filter(|v| !v.is_null())
    }

    /// A nested object (`text_config`, `vision_config`, ...).
    pub fn object(&self, k: &str) -> Option<Cfg<'a>> {
        self.get(k).and_then(Value::as_object).map(Cfg)
    }

    /// A whole number, at most [`MAX_FIELD`] (so that no product of a few
    /// of them overflows 64 bits).
    pub fn opt(&self, k: &str) -> Result<Option<u64>> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => match v.as_u64() {
                Some(n) if n <= MAX_FIELD => Ok(Some(n)),
                Some(n) => Err(Error::field(
                    k,
                    n,
                    format!("at most {MAX_FIELD} (2^26), the largest dimension decodecalc accepts"),
                )),
                None => Err(Error::field(k, v, "a non-negative whole number")),
            },
        }
    }

    /// A positive whole number the architecture requires.
    pub fn u(&self, k: &str) -> Result<u64> {
        match self.opt(k)? {
            Some(0) => Err(Error::field(k, 0, "a positive whole number")),
            Some(v) => Ok(v),
            None => Err(Error::new(format!("missing field `{k}`"))
                .with_hint("config.json of this architecture must set it")),
        }
    }

    pub fn u_or(&self, k: &str, default: u64) -> Result<u64> {
        Ok(self.opt(k)?.unwrap_or(default))
    }

    /// The first of several spellings of one field.
    pub fn first(&self, keys: &[&str]) -> Result<u64> {
        for k in keys {
            if self.get(k).is_some() {
                return self.u(k);
            }
        }
        Err(
            Error::new(format!("missing field `{}`", keys.join("` or `")))
                .with_hint("config.json of this architecture must set one of them"),
        )
    }

    /// A boolean; a value of another type is an error (not silently the default).
    pub fn b_or(&self, k: &str, default: bool) -> Result<bool> {
        match self.get(k) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(Error::field(k, v, "true or false")),
        }
    }

    pub fn s(&self, k: &str) -> Option<&'a str> {
        self.get(k).and_then(Value::as_str)
    }

    /// A list of strings; any other element is an error.
    pub fn strings(&self, k: &str) -> Result<Option<Vec<&'a str>>> {
        let Some(v) = self.get(k) else {
            return Ok(None);
        };
        let a = v
            .as_array()
            .ok_or_else(|| Error::field(k, "(not a list)", "a list of strings"))?;
        a.iter()
            .map(|x| {
                x.as_str()
                    .ok_or_else(|| Error::field(k, x, "a list of strings"))
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    /// A list of whole numbers (layer indices); other elements are errors.
    pub fn numbers(&self, k: &str) -> Result<Vec<u64>> {
        match self.get(k).and_then(Value::as_array) {
            None => Ok(Vec::new()),
            Some(a) => a
                .iter()
                .map(|x| {
                    x.as_u64()
                        .filter(|n| *n <= MAX_FIELD)
                        .ok_or_else(|| Error::field(k, x, "a list of layer indices"))
                })
                .collect(),
        }
    }
}

/// Python's `json` writes `Infinity`, `-Infinity` and `NaN` for non-finite
/// floats (Hugging Face's `save_pretrained` does, e.g. NemotronH's
/// `time_step_limit: [0.0, Infinity]`), and some editors add a UTF-8 byte
/// order mark. Strict JSON has neither: this turns the text into strict
/// JSON (`±1.7976931348623157e308` for the infinities, `null` for NaN; no
/// field decodecalc reads is a float of that kind) and leaves everything
/// inside strings alone. Line numbers are unchanged, so parse errors point
/// at the right line.
pub fn python_json_to_strict(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(ch) = rest.chars().next() {
        if in_string {
            out.push(ch);
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == '"' {
                in_string = false;
            }
            rest = &rest[ch.len_utf8()..];
            continue;
        }
        let token = [
            ("-Infinity", "-1.7976931348623157e308"),
            ("Infinity", "1.7976931348623157e308"),
            ("NaN", "null"),
        ]
        .into_iter()
        .find(|(word, _)| rest.starts_with(word));
        if let Some((word, strict)) = token {
            out.push_str(strict);
            rest = &rest[word.len()..];
            continue;
        }
        if ch == '"' {
            in_string = true;
        }
        out.push(ch);
        rest = &rest[ch.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_floats_and_bom_become_strict_json() {
        let text = "\u{feff}{\"a\": [0.0, Infinity, -Infinity, NaN], \"s\": \"NaN \\\" Infinity\"}";
        let v: Value = serde_json::from_str(&python_json_to_strict(text)).unwrap();
        assert_eq!(v["a"][1].as_f64(), Some(f64::MAX));
        assert_eq!(v["a"][2].as_f64(), Some(-f64::MAX));
        assert!(v["a"][3].is_null());
        assert_eq!(v["s"].as_str(), Some("NaN \" Infinity"));
    }
}
