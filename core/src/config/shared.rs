//! What every family's reader shares: the language model's fields and
//! common dimensions ([`Ctx`]: layer types, sliding layers, standard
//! attention), the gated MLP, and what a reader produces ([`Built`], with
//! the rotary tables it builds, [`Ropes`]).

use super::fields::Cfg;
use crate::dtype::FloatDtype;
use crate::error::{Error, Result};
use crate::model::{AttentionLayer, Layer, MlpLayer, Module};

/// What one family's reader produces.
pub(crate) struct Built {
    pub layers: Vec<Layer>,
    /// What `--mamba-ssm-cache-dtype auto` resolves to, when the family
    /// fixes it (NemotronH: float32); otherwise the model dtype.
    pub ssm_auto: Option<FloatDtype>,
    /// Vision / audio encoders and projectors vLLM loads with the model.
    pub encoder: Vec<Module>,
    /// The rotary tables the family's attention builds.
    pub ropes: Ropes,
    /// The layers of one MTP module where the family says what they are
    /// (DeepSeek-V4: a sliding-window-only layer); None: the last decoder
    /// layer with full attention, as `mtp_block` finds it.
    pub mtp_layers: Option<Vec<Layer>>,
}

/// Which rotary cos/sin tables a family's attention builds at load time.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ropes {
    /// No positional rotation (NemotronH, Jamba, Granite 4.0-H's "nope").
    None,
    /// One table, or one per layer type where `rope_parameters` gives them
    /// per type (Gemma 4).
    One,
    /// A scaled global table and an unscaled local one (Gemma 3).
    WithLocal,
}

impl Built {
    pub(super) fn layers(layers: Vec<Layer>) -> Result<Built> {
        Ok(Built {
            layers,
            ssm_auto: None,
            encoder: Vec::new(),
            ropes: Ropes::One,
            mtp_layers: None,
        })
    }
}

/// The language model's fields and the dimensions every family shares.
pub(crate) struct Ctx<'a> {
    pub arch: &'a str,
    /// The language model's object (`text_config` for multimodal wrappers).
    pub c: Cfg<'a>,
    /// The file's top level (vision_config, image token fields).
    pub top: Cfg<'a>,
    pub hidden: u64,
    pub n_layers: u64,
}

impl Ctx<'_> {
    /// Per-layer `layer_types` entries, checked to be one per layer.
    pub fn layer_types(&self) -> Result<Option<Vec<&str>>> {
        let Some(t) = self.c.strings("layer_types")? else {
            return Ok(None);
        };
        self.per_layer_entries("layer_types", t.len(), false)?;
        Ok(Some(t))
    }

    /// A per-layer list has one entry per layer (`or_more`: at least one).
    pub fn per_layer_entries(&self, field: &str, len: usize, or_more: bool) -> Result<()> {
        let n = len as u64;
        if n == self.n_layers || (or_more && n > self.n_layers) {
            return Ok(());
        }
        let at_least = if or_more { "at least " } else { "" };
        Err(Error::field(
            field,
            format!("({len} entries)"),
            format!(
                "{at_least}{} entries, one per layer (num_hidden_layers)",
                self.n_layers
            ),
        ))
    }

    /// Whether each layer uses the sliding window: `layer_types` when the
    /// config has it (each entry `sliding_attention` or `full_attention`),
    /// else the family's rule.
    pub fn sliding_layers(&self, rule: impl Fn(u64) -> bool) -> Result<Vec<bool>> {
        match self.layer_types()? {
            Some(t) => t
                .iter()
                .map(|s| match *s {
                    "sliding_attention" => Ok(true),
                    "full_attention" => Ok(false),
                    other => Err(Error::field(
                        "layer_types",
                        other,
                        "\"sliding_attention\" or \"full_attention\" per layer",
                    )),
                })
                .collect(),
            None => Ok((0..self.n_layers).map(rule).collect()),
        }
    }

    /// Standard multi-head / grouped-query attention from `num_attention_heads`,
    /// `num_key_value_heads` and `head_dim` (or hidden / heads).
    pub fn attention(&self) -> Result<AttentionLayer> {
        let heads = self.c.u("num_attention_heads")?;
        let kv_heads = self.c.u_or("num_key_value_heads", heads)?;
        if kv_heads == 0 || !heads.is_multiple_of(kv_heads) {
            return Err(Error::field(
                "num_key_value_heads",
                kv_heads,
                format!("a divisor of num_attention_heads ({heads})"),
            ));
        }
        // NemotronH spells it `attention_head_dim`.
        let head_dim = match self
            .c
            .opt("head_dim")?
            .or(self.c.opt("attention_head_dim")?)
        {
            Some(0) => return Err(Error::field("head_dim", 0, "a positive whole number")),
            Some(d) => d,
            None if self.hidden.is_multiple_of(heads) => self.hidden / heads,
            None => {
                return Err(Error::new("missing field `head_dim`")
                    .with_hint("hidden_size is not a multiple of num_attention_heads"))
            }
        };
        Ok(AttentionLayer::full(heads, kv_heads, head_dim))
    }
}

/// A gated (SwiGLU-style) MLP.
pub(crate) fn gated_mlp(intermediate: u64) -> Layer {
    Layer::Mlp(MlpLayer {
        intermediate,
        gated: true,
    })
}

#[cfg(test)]
mod tests {
    use crate::config::model_from_config;
    use serde_json::{json, Value};

    #[test]
    fn layer_types_of_the_wrong_length_or_kind_are_errors() {
        let gemma = |types: Value| {
            json!({
                "architectures": ["Gemma2ForCausalLM"], "hidden_size": 256,
                "num_hidden_layers": 2, "num_attention_heads": 2, "head_dim": 128,
                "intermediate_size": 512, "vocab_size": 1000,
                "max_position_embeddings": 4096, "sliding_window": 1024,
                "layer_types": types
            })
        };
        let short = model_from_config(&gemma(json!(["sliding_attention"]))).unwrap_err();
        assert_eq!(
            short.message,
            "invalid value `(1 entries)` for `layer_types`"
        );
        let odd = model_from_config(&gemma(json!(["sliding_attention", "chunked"]))).unwrap_err();
        assert_eq!(odd.message, "invalid value `chunked` for `layer_types`");
        let ok = model_from_config(&gemma(json!(["sliding_attention", "full_attention"]))).unwrap();
        assert_eq!(
            ok.attention_layers()
                .filter(|a| a.sliding_window_tokens.is_some())
                .count(),
            1
        );
        let tie = model_from_config(&json!({
            "architectures": ["LlamaForCausalLM"], "hidden_size": 256, "num_hidden_layers": 2,
            "num_attention_heads": 2, "intermediate_size": 512, "vocab_size": 1000,
            "max_position_embeddings": 4096, "tie_word_embeddings": "yes"
        }))
        .unwrap_err();
        assert_eq!(
            tie.message,
            "invalid value `\"yes\"` for `tie_word_embeddings`"
        );
    }
}
