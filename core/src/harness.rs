//! The benchmark harness's settings (docs/reference/harness.md): the matrix's
//! contexts and concurrencies, the output length, the measurement window and
//! the prompt relation; and vLLM's rule that a request's prompt plus output
//! fits in `max_model_len` ([`check_model_len`]), in one place.

use crate::engine::{plain, EngineArgs, Label, MAX_CELLS, MAX_CONCURRENCY, MAX_COUNT};
use crate::error::AsSubject;
use crate::error::{Error, Result};
use crate::units::{format_tokens, parse_tokens};
use serde::{Deserialize, Serialize};

/// Harness settings (docs/reference/harness.md), partial form.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::harness))]
#[serde(deny_unknown_fields)]
pub struct HarnessSettings {
    /// Prompt lengths; `16k` = 16,384 tokens.
    pub contexts: Option<Vec<TokenCount>>,
    /// Prompt lengths of the cold-prefill rows; default: the non-zero contexts.
    pub prefill_contexts: Option<Vec<TokenCount>>,
    pub concurrency: Option<Vec<i64>>,
    pub max_tokens: Option<i64>,
    /// Length of the sustained-decode measurement window, seconds.
    pub window_s: Option<f64>,
    /// Prompt tokens the server sees per nominal context token (the harness
    /// sizes its document by a characters-per-token estimate).
    pub prompt_scale: Option<f64>,
    /// Prompt tokens beyond the document: the fixed request, the chat template.
    pub prompt_extra_tokens: Option<i64>,
    /// How the requests' prompts relate ([`Workload`]); default: the harness's.
    pub workload: Option<Workload>,
}

/// How a cell's requests relate to each other, which decides what the KV
/// cache must hold and whether a prompt is a prefix-cache hit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::harness))]
#[serde(rename_all = "snake_case")]
pub enum Workload {
    /// llm-inference-bench's way (docs/reference/harness.md): a scout
    /// request prefills the prompt once, then all C requests send that same
    /// prompt (a prefix-cache hit, shared blocks) asking for `max_tokens`
    /// each; a cell is skipped as over capacity when C x (context +
    /// max_tokens) exceeds the server's KV cache tokens.
    #[default]
    Harness,
    /// Every request its own prompt, as `vllm bench serve --dataset-name
    /// random` sends them: prefix caching shares nothing, and all C run at
    /// once only while each holds its prompt plus `max_tokens` of output.
    Distinct,
}

impl Workload {
    pub const ALL: [Workload; 2] = [Workload::Harness, Workload::Distinct];

    pub fn name(self) -> &'static str {
        match self {
            Workload::Harness => "harness",
            Workload::Distinct => "distinct",
        }
    }

    /// The workload named `text` (`--workload`, a scenario's `[harness]
    /// workload`, the form), or an error naming `field`.
    pub fn parse(field: &str, text: &str) -> Result<Workload> {
        Workload::ALL
            .into_iter()
            .find(|w| w.name() == text.trim())
            .ok_or_else(|| {
                Error::field(
                    field,
                    text,
                    "harness (one prompt shared by all requests, cached by a scout) or distinct (every request its own prompt)",
                )
            })
    }

    /// One line saying what the workload assumes, for headers.
    pub fn describe(self, max_tokens: u64) -> String {
        let out = crate::breakdown::grouped(max_tokens);
        match self {
            Workload::Harness => format!(
                "workload harness: all requests send one identical prompt, cached by a scout request (prefix caching), {out} output tokens each; --workload distinct for separate prompts"
            ),
            Workload::Distinct => format!(
                "workload distinct: every request sends its own prompt (nothing shared in the prefix cache) and holds it plus {out} output tokens in the KV cache"
            ),
        }
    }
}

/// A token count as written in a file: a number or a string such as "16k".
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::harness))]
#[serde(untagged)]
pub enum TokenCount {
    Number(i64),
    Text(String),
}

/// Read from whichever the file has, an integer or a string: one visitor,
/// where `#[serde(untagged)]` would buffer the value and try each variant.
impl<'de> Deserialize<'de> for TokenCount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Count;
        impl serde::de::Visitor<'_> for Count {
            type Value = TokenCount;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a token count: an integer or a string such as \"16k\"")
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<TokenCount, E> {
                Ok(TokenCount::Number(n))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<TokenCount, E> {
                i64::try_from(n)
                    .map(TokenCount::Number)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(n), &self))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<TokenCount, E> {
                Ok(TokenCount::Text(s.to_string()))
            }
        }
        d.deserialize_any(Count)
    }
}

impl TokenCount {
    pub fn tokens(&self, field: impl AsSubject) -> Result<u64> {
        let bad = |v: &dyn std::fmt::Display| {
            Error::field(
                field,
                v.to_string(),
                "a non-negative token count up to 2^40, such as 0, 8192 or 16K (K = 1024; k = 1000)",
            )
        };
        let n = match self {
            TokenCount::Number(n) if *n >= 0 => *n as u64,
            TokenCount::Number(n) => return Err(bad(n)),
            TokenCount::Text(t) => parse_tokens(t).ok_or_else(|| bad(t))?,
        };
        if n > MAX_COUNT {
            return Err(bad(&n));
        }
        Ok(n)
    }
}

/// A comma-separated list of token counts as a flag or form field gives it
/// (`0,16k,32k`); `flag` names it in errors.
pub fn parse_token_list(flag: &str, text: &str) -> Result<Vec<TokenCount>> {
    if text.trim().is_empty() {
        return Err(Error::new(format!("{flag} is empty")).with_hint(format!(
            "give a comma-separated list, such as {flag} 0,16k,32k"
        )));
    }
    Ok(text
        .split(',')
        .map(|s| TokenCount::Text(s.trim().to_string()))
        .collect())
}

/// A comma-separated list of request counts (`1,2,4,8`).
pub fn parse_count_list(flag: &str, text: &str) -> Result<Vec<i64>> {
    if text.trim().is_empty() {
        return Err(Error::new(format!("{flag} is empty")).with_hint(format!(
            "give a comma-separated list, such as {flag} 1,2,4,8"
        )));
    }
    text.split(',')
        .map(|s| {
            s.trim().parse::<i64>().map_err(|_| {
                Error::field(
                    flag,
                    s.trim(),
                    "whole numbers separated by commas, such as 1,2,4,8",
                )
            })
        })
        .collect()
}

/// The harness's settings for a run, resolved.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Harness {
    pub contexts_tokens: Vec<u64>,
    pub prefill_contexts_tokens: Vec<u64>,
    pub concurrency: Vec<u64>,
    pub max_tokens: u64,
    pub window_s: f64,
    pub prompt_scale: f64,
    pub prompt_extra_tokens: u64,
    pub workload: Workload,
}

impl Harness {
    /// Prompt tokens the server sees for a nominal context:
    /// `round(context * prompt_scale) + prompt_extra_tokens`.
    pub fn prompt_tokens(&self, context_tokens: u64) -> u64 {
        crate::units::saturating_u64((context_tokens as f64 * self.prompt_scale).round())
            .saturating_add(self.prompt_extra_tokens)
    }
}

/// Default harness grid: the reference run's (contexts 0..120K, 1..128
/// requests, 8,192 output tokens, a 30 s window; harness.md).
pub mod harness_defaults {
    pub const CONTEXTS_TOKENS: [u64; 5] = [0, 16_384, 32_768, 65_536, 122_880];
    pub const CONCURRENCY: [u64; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
    pub const MAX_TOKENS: u64 = 8192;
    pub const WINDOW_S: f64 = 30.0;
    pub const PROMPT_SCALE: f64 = 1.0;
    /// llm-inference-bench's fixed request and chat template, 160 tokens on
    /// the reference run's tokenizer (its prefill rows: prompt tokens =
    /// 1.00415 x context + 160, exact to a token at all five contexts).
    pub const PROMPT_EXTRA_TOKENS: u64 = 160;
}

impl HarnessSettings {
    pub fn overlay(&self, other: &HarnessSettings) -> HarnessSettings {
        HarnessSettings {
            contexts: other.contexts.clone().or(self.contexts.clone()),
            prefill_contexts: other
                .prefill_contexts
                .clone()
                .or(self.prefill_contexts.clone()),
            concurrency: other.concurrency.clone().or(self.concurrency.clone()),
            max_tokens: other.max_tokens.or(self.max_tokens),
            window_s: other.window_s.or(self.window_s),
            prompt_scale: other.prompt_scale.or(self.prompt_scale),
            prompt_extra_tokens: other.prompt_extra_tokens.or(self.prompt_extra_tokens),
            workload: other.workload.or(self.workload),
        }
    }

    /// Check each value that is set on its own, naming fields with `label`.
    pub fn validate(&self, label: Label) -> Result<()> {
        self.resolve_labelled(None, label).map(|_| ())
    }

    /// Resolve and check against the engine: every context plus `max_tokens`
    /// must fit in `max_model_len` ([`check_model_len`]).
    pub fn resolve(&self, engine: &EngineArgs) -> Result<Harness> {
        self.resolve_labelled(Some(engine.max_model_len_tokens), &plain)
    }

    fn resolve_labelled(&self, max_model_len: Option<u64>, label: Label) -> Result<Harness> {
        // Defaults fit the engine: max_tokens at most half of max_model_len,
        // and only the default contexts that leave room for it.
        let max_tokens_default = match max_model_len {
            Some(len) => harness_defaults::MAX_TOKENS.min((len / 2).max(1)),
            None => harness_defaults::MAX_TOKENS,
        };
        let max_tokens = match self.max_tokens {
            None => max_tokens_default,
            Some(x) if x > 0 && x.unsigned_abs() <= MAX_COUNT => x.unsigned_abs(),
            Some(x) => {
                return Err(Error::field(
                    label("max_tokens"),
                    x,
                    format!("a positive whole number up to {MAX_COUNT}"),
                ))
            }
        };
        let contexts_tokens = match &self.contexts {
            None => harness_defaults::CONTEXTS_TOKENS
                .iter()
                .copied()
                .filter(|&c| max_model_len.is_none_or(|len| fits_model_len(c, max_tokens, len)))
                .collect(),
            Some(list) => token_list(list, &label("contexts"))?,
        };
        let prefill_contexts_tokens = match &self.prefill_contexts {
            None => contexts_tokens.iter().copied().filter(|&c| c > 0).collect(),
            Some(list) => token_list(list, &label("prefill_contexts"))?,
        };
        let concurrency = match &self.concurrency {
            None => harness_defaults::CONCURRENCY.to_vec(),
            Some(list) => request_counts(list, &label("concurrency"))?,
        };
        check_grid(
            &contexts_tokens,
            &prefill_contexts_tokens,
            &concurrency,
            label,
        )?;
        let harness = Harness {
            contexts_tokens,
            prefill_contexts_tokens,
            concurrency,
            max_tokens,
            window_s: self.window_s.unwrap_or(harness_defaults::WINDOW_S),
            prompt_scale: self.prompt_scale.unwrap_or(harness_defaults::PROMPT_SCALE),
            prompt_extra_tokens: match self.prompt_extra_tokens {
                None => harness_defaults::PROMPT_EXTRA_TOKENS,
                Some(t) if (0..=1 << 24).contains(&t) => t.unsigned_abs(),
                Some(t) => {
                    return Err(Error::field(
                        label("prompt_extra_tokens"),
                        t,
                        "a non-negative token count up to 16777216",
                    ))
                }
            },
            workload: self.workload.unwrap_or_default(),
        };
        if !(harness.window_s.is_finite() && harness.window_s > 0.0 && harness.window_s <= 1e6) {
            return Err(Error::field(
                label("window_s"),
                harness.window_s,
                "a positive number of seconds",
            ));
        }
        if !(harness.prompt_scale.is_finite() && (0.5..=2.0).contains(&harness.prompt_scale)) {
            return Err(Error::field(
                label("prompt_scale"),
                harness.prompt_scale,
                "a ratio between 0.5 and 2, such as 1.0",
            ));
        }
        if let Some(max_model_len) = max_model_len {
            for &ctx in &harness.prefill_contexts_tokens {
                check_model_len(&label("prefill_contexts"), ctx, 0, max_model_len)?;
            }
            for &ctx in &harness.contexts_tokens {
                check_model_len(&label("contexts"), ctx, harness.max_tokens, max_model_len)?;
            }
        }
        Ok(harness)
    }
}

fn token_list(list: &[TokenCount], field: impl AsSubject) -> Result<Vec<u64>> {
    list.iter().map(|c| c.tokens(field)).collect()
}

fn request_counts(list: &[i64], field: impl AsSubject) -> Result<Vec<u64>> {
    list.iter()
        .map(|&c| match u64::try_from(c) {
            Ok(n) if n > 0 && n <= MAX_CONCURRENCY => Ok(n),
            _ => Err(Error::field(
                field,
                c,
                "positive request counts up to 16,777,216, such as 1,2,4,8",
            )),
        })
        .collect()
}

/// The matrix's rows and columns: none empty, none twice, at most
/// [`MAX_CELLS`] cells.
fn check_grid(contexts: &[u64], prefill: &[u64], concurrency: &[u64], label: Label) -> Result<()> {
    for (name, list, example) in [
        ("contexts", contexts, "a context length, such as 0,16k,32k"),
        (
            "concurrency",
            concurrency,
            "a request count, such as 1,2,4,8",
        ),
    ] {
        if list.is_empty() {
            return Err(Error::new(format!("`{}` is empty", label(name)))
                .with_hint(format!("give at least one {example}"))
                .of_kind(crate::ErrorKind::MissingField)
                .about(label(name)));
        }
    }
    for (name, list) in [
        ("contexts", contexts),
        ("prefill_contexts", prefill),
        ("concurrency", concurrency),
    ] {
        if let Some(dup) = list
            .iter()
            .enumerate()
            .find(|(i, v)| list.get(..*i).is_some_and(|before| before.contains(v)))
            .map(|(_, v)| *v)
        {
            return Err(Error::new(format!("`{}` lists {dup} twice", label(name)))
                .with_hint("give each value once; every value is a row or column of the matrix")
                .of_kind(crate::ErrorKind::InvalidValue)
                .about(label(name)));
        }
    }
    let cells = (contexts.len() as u64)
        .saturating_mul(concurrency.len() as u64)
        .saturating_add(prefill.len() as u64);
    if cells > MAX_CELLS {
        return Err(Error::new(format!(
            "{} contexts x {} concurrencies (+ {} prefill rows) is {cells} cells, more than the {MAX_CELLS} a matrix may have",
            contexts.len(),
            concurrency.len(),
            prefill.len()
        ))
        .with_hint("ask for fewer contexts or concurrencies")
        .of_kind(crate::ErrorKind::InvalidValue)
        .about(label("contexts")));
    }
    Ok(())
}

/// Whether a request of `context_tokens` prompt and `output_tokens` output
/// fits in `max_model_len_tokens` ([`check_model_len`]).
pub fn fits_model_len(context_tokens: u64, output_tokens: u64, max_model_len_tokens: u64) -> bool {
    context_tokens.saturating_add(output_tokens) <= max_model_len_tokens
}

/// vLLM's rule for one request, in one place: its prompt plus the output it
/// asks for must fit in `max_model_len`, or the OpenAI server refuses it
/// ("This model's maximum context length is ... However, you requested ...",
/// `_validate_input` in vllm/entrypoints/openai/serving_engine.py); a cold
/// prefill row (`output_tokens` 0) needs its prompt to fit. `field` names
/// what the user set (`--contexts`, `--context`, `--random-input-len`).
pub fn check_model_len(
    field: impl AsSubject,
    context_tokens: u64,
    output_tokens: u64,
    max_model_len_tokens: u64,
) -> Result<()> {
    if fits_model_len(context_tokens, output_tokens, max_model_len_tokens) {
        return Ok(());
    }
    let e = if output_tokens == 0 {
        Error::new(format!(
            "prefill context {} exceeds max_model_len {max_model_len_tokens}",
            format_tokens(context_tokens),
        ))
        .with_hint("use prefill contexts up to max_model_len, or raise --max-model-len")
    } else {
        Error::new(format!(
            "context {} + max_tokens {output_tokens} = {} tokens exceeds max_model_len {max_model_len_tokens}",
            format_tokens(context_tokens),
            context_tokens.saturating_add(output_tokens),
        ))
        .with_hint(format!(
            "use contexts up to {} tokens, lower --max-tokens, or raise --max-model-len",
            max_model_len_tokens.saturating_sub(output_tokens)
        ))
    };
    Err(e.of_kind(crate::ErrorKind::InvalidValue).about(field))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A token count reads from an integer or a string, and refuses
    /// anything else (a float, an integer past i64).
    #[test]
    fn token_counts_read_integers_and_strings() {
        let read = |json: &str| serde_json::from_str::<Vec<TokenCount>>(json);
        assert_eq!(
            read(r#"[0, "16K", -1]"#).unwrap(),
            vec![
                TokenCount::Number(0),
                TokenCount::Text("16K".into()),
                TokenCount::Number(-1)
            ]
        );
        assert!(read("[1.5]").is_err());
        assert!(read("[9223372036854775808]").is_err());
        assert!(read("[true]").is_err());
    }
}
