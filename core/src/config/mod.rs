//! Reading a Hugging Face `config.json` (or a model preset's `[config]`
//! table, which holds the same fields) into a [`Model`].
//!
//! One small reader per architecture family (`dense`, `gemma`, `moe`,
//! `hybrid`, `linear`, `mla`), behind [`ARCHITECTURES`], the table from
//! `architectures` names to readers; the supported list that errors and docs
//! print is derived from it. Field names and layer layouts follow each
//! family's published config.json (the corpus in
//! `data/hub/`, sources listed there) and vLLM 0.32's
//! model code (`vllm/model_executor/models/<family>.py`, cited per reader).

mod dense;
mod fields;
mod gemma;
mod hybrid;
mod linear;
mod mla;
mod moe;
mod vision;

pub use fields::python_json_to_strict;

use crate::dtype::FloatDtype;
use crate::error::{Error, Result};
use crate::model::{AttentionLayer, Layer, MlpLayer, Model, Module};
use fields::Cfg;
use serde_json::Value;

/// The largest value any config.json dimension may hold (64 M: above every
/// published vocabulary, context length and dimension). Enforced by
/// `Cfg::opt` for every whole-number field.
pub const MAX_FIELD: u64 = 1 << 26;

/// The most layers a model may have.
pub const MAX_LAYERS: u64 = 4096;

/// The most parameters a model may have (10^15), and the most bytes one
/// layer's recurrent state or one token's KV in a layer may take (1 TiB).
pub const MAX_PARAMS: u128 = 1_000_000_000_000_000;
/// The most KV-cache bytes one token may take over all layers (at 8 B an
/// element, above any KV dtype): 1 GiB, far above any real model (a few
/// MiB at most), so that a request's KV bytes at the longest context
/// (2^26 tokens) stay below 2^56.
pub const MAX_KV_BYTES_PER_TOKEN: u128 = 1 << 30;
/// The most recurrent-state bytes one request may take over all layers
/// (at 4 B an element): 1 TiB.
pub const MAX_STATE_BYTES_PER_REQUEST: u128 = 1 << 40;

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
    fn layers(layers: Vec<Layer>) -> Result<Built> {
        Ok(Built {
            layers,
            ssm_auto: None,
            encoder: Vec::new(),
            ropes: Ropes::One,
        })
    }
}

type Reader = fn(&Ctx) -> Result<Built>;

/// One architecture: its `architectures` name, what it is, whether embeddings
/// are tied when the config does not say, and its reader.
#[derive(Debug)]
pub struct Architecture {
    pub name: &'static str,
    pub family: &'static str,
    tie_default: bool,
    read: Reader,
    /// Values of fields a sparse `text_config` may leave out: the defaults
    /// of the family's transformers config class, which vLLM reads.
    defaults: &'static [(&'static str, u64)],
}

macro_rules! arch {
    ($name:literal, $family:literal, $tie:literal, $read:path) => {
        arch!($name, $family, $tie, $read, &[])
    };
    ($name:literal, $family:literal, $tie:literal, $read:path, $defaults:expr) => {
        Architecture {
            name: $name,
            family: $family,
            tie_default: $tie,
            read: $read,
            defaults: $defaults,
        }
    };
}

/// `Gemma3TextConfig`'s defaults (transformers `models/gemma3/configuration_gemma3.py`):
/// the published Gemma 3 multimodal configs omit them from `text_config`.
const GEMMA3_TEXT_DEFAULTS: &[(&str, u64)] = &[
    ("vocab_size", 262_208),
    ("hidden_size", 2304),
    ("intermediate_size", 9216),
    ("num_hidden_layers", 26),
    ("num_attention_heads", 8),
    ("num_key_value_heads", 4),
    ("head_dim", 256),
    ("max_position_embeddings", 131_072),
    ("sliding_window", 4096),
    ("sliding_window_pattern", 6),
];

/// Every architecture this version models, as config.json names them.
pub static ARCHITECTURES: &[Architecture] = &[
    arch!("LlamaForCausalLM", "dense", false, dense::llama),
    arch!(
        "LlamaForCausalLMEagle3",
        "eagle3",
        false,
        dense::llama_eagle3
    ),
    arch!(
        "Eagle3LlamaForCausalLM",
        "eagle3",
        false,
        dense::llama_eagle3
    ),
    arch!("MistralForCausalLM", "dense", false, dense::mistral),
    arch!("Qwen2ForCausalLM", "dense", false, dense::qwen2),
    arch!("Qwen3ForCausalLM", "dense", false, dense::qwen3),
    arch!("GraniteForCausalLM", "dense", false, dense::granite),
    arch!("Phi3ForCausalLM", "dense", false, dense::phi3),
    arch!(
        "Qwen3VLForConditionalGeneration",
        "dense + vision",
        false,
        dense::qwen3_vl
    ),
    arch!(
        "Mistral3ForConditionalGeneration",
        "dense + vision",
        false,
        dense::mistral3
    ),
    arch!("Gemma2ForCausalLM", "sliding window", true, gemma::gemma2),
    arch!("Gemma3ForCausalLM", "sliding window", true, gemma::gemma3),
    arch!(
        "Gemma3ForConditionalGeneration",
        "sliding window + vision",
        true,
        gemma::gemma3_mm,
        GEMMA3_TEXT_DEFAULTS
    ),
    arch!(
        "Gemma4ForConditionalGeneration",
        "sliding window + vision",
        true,
        gemma::gemma4
    ),
    arch!("Qwen3MoeForCausalLM", "MoE", false, moe::qwen3_moe),
    arch!("MixtralForCausalLM", "MoE", false, moe::mixtral),
    arch!(
        "GptOssForCausalLM",
        "MoE + sliding window",
        false,
        moe::gpt_oss
    ),
    arch!(
        "NemotronHForCausalLM",
        "Mamba2 hybrid",
        false,
        hybrid::nemotron_h
    ),
    arch!(
        "GraniteMoeHybridForCausalLM",
        "Mamba2 hybrid + MoE",
        true,
        hybrid::granite_moe_hybrid
    ),
    arch!(
        "FalconH1ForCausalLM",
        "Mamba2 hybrid",
        false,
        hybrid::falcon_h1
    ),
    arch!(
        "JambaForCausalLM",
        "Mamba1 hybrid + MoE",
        false,
        hybrid::jamba
    ),
    arch!(
        "Qwen3NextForCausalLM",
        "DeltaNet hybrid + MoE",
        false,
        linear::qwen3_next
    ),
    arch!(
        "Qwen3_5ForConditionalGeneration",
        "DeltaNet hybrid + vision",
        false,
        linear::qwen3_5
    ),
    arch!(
        "Qwen3_5MoeForConditionalGeneration",
        "DeltaNet hybrid + MoE + vision",
        false,
        linear::qwen3_5_moe
    ),
    arch!(
        "DeciLMForCausalLM",
        "dense, per-layer blocks",
        false,
        dense::decilm
    ),
    arch!(
        "Lfm2VlForConditionalGeneration",
        "short-convolution hybrid + vision",
        true,
        hybrid::lfm2_vl
    ),
    arch!(
        "VoxtralForConditionalGeneration",
        "dense + audio",
        false,
        dense::voxtral
    ),
    arch!("Olmo3ForCausalLM", "sliding window", false, dense::olmo3),
    arch!(
        "Exaone4ForCausalLM",
        "sliding window",
        false,
        dense::exaone4
    ),
    arch!("MiniMaxM2ForCausalLM", "MoE", false, moe::minimax_m2),
    arch!(
        "PhiMoEForCausalLM",
        "MoE + sliding window",
        false,
        moe::phimoe
    ),
    arch!("DeepseekV2ForCausalLM", "MLA + MoE", false, mla::deepseek),
    arch!("DeepseekV3ForCausalLM", "MLA + MoE", false, mla::deepseek),
    arch!(
        "DeepseekV32ForCausalLM",
        "MLA + sparse attention + MoE",
        false,
        mla::deepseek
    ),
    arch!(
        "GlmMoeDsaForCausalLM",
        "MLA + sparse attention + MoE",
        false,
        mla::deepseek
    ),
    arch!(
        "KimiK25ForConditionalGeneration",
        "MLA + MoE + vision",
        false,
        mla::kimi_k25
    ),
];

/// Architectures decodecalc recognises but refuses, with the reason.
const REFUSED: &[(&str, &str)] = &[
    (
        "Bert",
        "an encoder-only model (vLLM serves it for embeddings or scoring, not generation)",
    ),
    (
        "Roberta",
        "an encoder-only model (vLLM serves it for embeddings or scoring, not generation)",
    ),
    (
        "XLMRoberta",
        "an encoder-only model (vLLM serves it for embeddings or scoring, not generation)",
    ),
    (
        "ModernBert",
        "an encoder-only model (vLLM serves it for embeddings or scoring, not generation)",
    ),
    (
        "T5",
        "an encoder-decoder model (no decoder-only KV cache to size)",
    ),
    (
        "Bart",
        "an encoder-decoder model (no decoder-only KV cache to size)",
    ),
    (
        "Whisper",
        "an encoder-decoder speech model (no decoder-only KV cache to size)",
    ),
];

/// The supported names, comma-separated, for errors and docs.
pub fn supported_list() -> String {
    ARCHITECTURES
        .iter()
        .map(|a| a.name)
        .collect::<Vec<_>>()
        .join(", ")
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
        if t.len() as u64 != self.n_layers {
            return Err(Error::field(
                "layer_types",
                format!("({} entries)", t.len()),
                format!(
                    "{} entries, one per layer (num_hidden_layers)",
                    self.n_layers
                ),
            ));
        }
        Ok(Some(t))
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
        Ok(AttentionLayer {
            num_heads: heads,
            num_kv_heads: kv_heads,
            head_dim,
            sliding_window_tokens: None,
            qkv_bias: false,
            qk_norm: false,
            output_gate: false,
            mla: None,
            kv_shared: false,
        })
    }
}

/// A gated (SwiGLU-style) MLP.
pub(crate) fn gated_mlp(intermediate: u64) -> Layer {
    Layer::Mlp(MlpLayer {
        intermediate,
        gated: true,
    })
}

/// The one architecture name of a config.json, looked up in the table.
fn architecture(top: Cfg) -> Result<&'static Architecture> {
    let name = match top
        .get("architectures")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([one]) => one.as_str().unwrap_or_default(),
        Some([]) | None => {
            return Err(
                Error::new("missing field `architectures`").with_hint(format!(
                    "set architectures = [\"...\"], one of {}",
                    supported_list()
                )),
            )
        }
        Some(many) => {
            return Err(Error::field(
                "architectures",
                many.iter()
                    .map(|v| v.as_str().unwrap_or("?"))
                    .collect::<Vec<_>>()
                    .join(", "),
                "exactly one architecture name",
            ))
        }
    };
    if let Some(a) = ARCHITECTURES.iter().find(|a| a.name == name) {
        return Ok(a);
    }
    if let Some((_, why)) = REFUSED.iter().find(|(prefix, _)| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with("For") || rest == "Model")
    }) {
        return Err(Error::new(format!("`{name}` is {why}")).with_hint(format!(
            "decodecalc sizes decoder models: {}",
            supported_list()
        )));
    }
    Err(Error::new(format!("unknown model architecture `{name}`"))
        .with_hint(format!("supported: {}", supported_list())))
}

/// The dtype the checkpoint stores (`torch_dtype`, or `dtype` as newer
/// transformers write it), bfloat16 when none is given.
fn checkpoint_dtype(c: Cfg, top: Cfg) -> Result<FloatDtype> {
    let field = ["torch_dtype", "dtype"];
    let found = field
        .iter()
        .find_map(|k| c.s(k).map(|v| (*k, v)))
        .or_else(|| field.iter().find_map(|k| top.s(k).map(|v| (*k, v))));
    match found {
        Some((k, v)) => FloatDtype::parse(k, v),
        None => Ok(FloatDtype::Bfloat16),
    }
}

/// `num_hidden_layers`, or for NemotronH configs that leave it out (the
/// transformers config derives it), the length of the layer pattern.
fn layer_count(c: Cfg) -> Result<u64> {
    if c.get("num_hidden_layers").is_some() {
        return c.u("num_hidden_layers");
    }
    if let Some(p) = c.s("hybrid_override_pattern") {
        return Ok(p.chars().count() as u64);
    }
    if let Some(t) = c.strings("layers_block_type")? {
        return Ok(t.len() as u64);
    }
    c.u("num_hidden_layers")
}

/// A config.json's `quantization_config`: the top level's, else its
/// `text_config`'s (Kimi-K2.5 keeps its int4 scheme there; vLLM serves the
/// checkpoint in int4).
pub fn quantization_config(root: &Value) -> Option<&Value> {
    fn own(v: &Value) -> Option<&Value> {
        v.get("quantization_config").filter(|q| !q.is_null())
    }
    own(root).or_else(|| root.get("text_config").and_then(own))
}

/// Build a model from config.json fields.
pub fn model_from_config(root: &Value) -> Result<Model> {
    let top = Cfg(root
        .as_object()
        .ok_or_else(|| Error::new("config.json is not a JSON object"))?);
    let arch = architecture(top)?;
    // Multimodal wrappers keep the language model under text_config, which
    // may leave the family's defaults out. Voxtral repeats the text width at
    // the top level but not its layers.
    let text = match top.object("text_config") {
        Some(t) if top.get("hidden_size").is_none() || top.get("num_hidden_layers").is_none() => t,
        _ => top,
    };
    let mut merged = text.0.clone();
    for (k, v) in arch.defaults {
        merged.entry(*k).or_insert_with(|| Value::from(*v));
    }
    let c = Cfg(&merged);
    let ctx = Ctx {
        arch: arch.name,
        c,
        top,
        hidden: c.u("hidden_size")?,
        n_layers: layer_count(c)?,
    };
    if ctx.n_layers > MAX_LAYERS {
        return Err(Error::field(
            "num_hidden_layers",
            ctx.n_layers,
            format!("at most {MAX_LAYERS} layers"),
        ));
    }
    let vocab = c.u("vocab_size")?;
    // An EAGLE-3 head's logits cover its own smaller vocabulary.
    let head_vocab = match arch.family {
        "eagle3" => c.opt("draft_vocab_size")?.unwrap_or(vocab),
        _ => vocab,
    };
    let max_pos = derived_max_len(c, top)?;
    let dtype = checkpoint_dtype(c, top)?;
    let built = (arch.read)(&ctx)?;
    // A config that names its SSM cache dtype decides `auto`: NemotronH's
    // `mamba_ssm_cache_dtype`, Qwen3.5's `mamba_ssm_dtype` (vLLM 0.32
    // `vllm/model_executor/models/config.py`, `NemotronHForCausalLMConfig`
    // and `Qwen3_5ForConditionalGenerationConfig` copy it into the cache
    // config while the user leaves `auto`).
    let named = ["mamba_ssm_cache_dtype", "mamba_ssm_dtype"]
        .iter()
        .find_map(|k| c.s(k).map(|v| (*k, v)));
    let ssm_auto = match named {
        Some((k, t)) => FloatDtype::parse(k, t)?,
        None => built.ssm_auto.unwrap_or(dtype),
    };
    let tie = match c.get("tie_word_embeddings") {
        Some(_) => c.b_or("tie_word_embeddings", arch.tie_default)?,
        None => top.b_or("tie_word_embeddings", arch.tie_default)?,
    };
    let mut encoder = built.encoder;
    encoder.extend(rope_cache(&ctx, built.ropes, &built.layers)?);
    check_size(&built.layers, ctx.hidden, vocab)?;
    let mut model = Model {
        architecture: arch.name.to_string(),
        hidden_size: ctx.hidden,
        vocab_size: head_vocab,
        sampled_vocab_size: vocab,
        tie_word_embeddings: tie,
        dtype,
        max_position_embeddings: max_pos,
        layers: built.layers,
        mamba_ssm_auto_dtype: ssm_auto,
        mamba_ssm_dtype_named: named.is_some(),
        mamba_chunk_tokens: match c.opt("mamba_chunk_size")? {
            Some(n) => n,
            None => c.opt("chunk_size")?.unwrap_or(2048),
        },
        encoder,
        mtp: None,
    };
    model.mtp = mtp_block(c, &model)?;
    Ok(model)
}

/// The config's multi-token-prediction modules, each shaped like the last
/// decoder layer with full attention: DeepSeek, GLM and Nemotron-H name
/// their count `num_nextn_predict_layers`, Qwen3-Next and Qwen3.5
/// `mtp_num_hidden_layers`, MiniMax-M2 `mtp_transformer_layers`.
fn mtp_block(c: Cfg, model: &Model) -> Result<Option<crate::model::MtpBlock>> {
    let mut count = None;
    for key in [
        "num_nextn_predict_layers",
        "mtp_num_hidden_layers",
        "mtp_transformer_layers",
    ] {
        if let Some(n) = c.opt(key)? {
            if n > MAX_MTP_LAYERS {
                return Err(Error::field(
                    key,
                    n,
                    format!("at most {MAX_MTP_LAYERS} MTP layers"),
                ));
            }
            count = Some(n);
            break;
        }
    }
    let Some(count) = count.filter(|&n| n > 0) else {
        return Ok(None);
    };
    let full = |l: &Layer| matches!(l, Layer::Attention(a) if a.sliding_window_tokens.is_none() && !a.kv_shared);
    let mut block: Vec<Layer> = Vec::new();
    for range in model.decoder_layers() {
        let layers = model.layers.get(range).unwrap_or_default();
        if layers.iter().any(full) {
            block = layers.to_vec();
        }
    }
    // Nemotron-H's blocks are one module each: its MTP block is an
    // attention and a feed-forward block (`mtp_hybrid_override_pattern`
    // "*E"), the last of each kind.
    if block.len() == 1 {
        if let Some(ffn) = model
            .layers
            .iter()
            .rev()
            .find(|l| matches!(l, Layer::Mlp(_) | Layer::Moe(_)))
        {
            block.push(*ffn);
        }
    }
    if block.is_empty() {
        return Ok(None);
    }
    Ok(Some(crate::model::MtpBlock {
        count,
        layers: block,
    }))
}

/// MTP modules a config may name (the largest real one has 1; MiMo's 3).
const MAX_MTP_LAYERS: u64 = 16;

/// The longest context vLLM 0.32 derives from the config
/// (`_get_and_verify_max_len` in vllm/config/model.py, with
/// `iter_rope_parameters` in vllm/transformers_utils/config.py):
/// `max_position_embeddings`, times the rope scaling factor unless the rope
/// type already states the scaled length (su, longrope, llama3, the YaRN
/// variants) or the model is a Gemma 3 (whose 128K is already scaled). With
/// several rope tables (one per layer type) the last factor given wins.
fn derived_max_len(c: Cfg, top: Cfg) -> Result<u64> {
    let max_pos = c.u("max_position_embeddings")?;
    let gemma3 = [c, top]
        .iter()
        .any(|x| x.s("model_type").is_some_and(|t| t.contains("gemma3")));
    let Some(params) = c.object("rope_parameters").or(c.object("rope_scaling")) else {
        return Ok(max_pos);
    };
    if gemma3 {
        return Ok(max_pos);
    }
    let tables: Vec<Cfg> = if params.get("factor").is_some()
        || params.get("rope_type").is_some()
        || params.get("type").is_some()
    {
        vec![params]
    } else {
        params
            .0
            .values()
            .filter_map(|v| v.as_object().map(Cfg))
            .collect()
    };
    let mut factor = 1.0;
    for t in tables {
        let kind = t.s("rope_type").or(t.s("type")).unwrap_or("default");
        let states_its_length = matches!(
            kind,
            "su" | "longrope" | "llama3" | "yarn" | "deepseek_yarn" | "deepseek_llama_scaling"
        );
        if !states_its_length {
            if let Some(f) = t.get("factor").and_then(Value::as_f64) {
                factor = f;
            }
        }
    }
    if !(factor.is_finite() && (1.0..=1024.0).contains(&factor)) {
        return Err(Error::field(
            "rope_scaling.factor",
            factor,
            "a scaling factor from 1 to 1024",
        ));
    }
    let scaled = crate::units::saturating_u64(max_pos as f64 * factor);
    if scaled > MAX_FIELD {
        return Err(Error::field(
            "max_position_embeddings",
            scaled,
            format!("at most {MAX_FIELD} (2^26) tokens once scaled by rope_scaling.factor"),
        ));
    }
    Ok(scaled)
}

/// The rotary embedding's cos/sin cache that vLLM builds when it loads the
/// model (`vllm/model_executor/layers/rotary_embedding/`: one
/// `[positions, rotary_dim]` table in the model dtype per distinct rope,
/// shared by the layers): `max_position_embeddings` positions, times the
/// factor for `linear` and `dynamic` scaling, `original_max_position_embeddings
/// x factor` for `yarn`; which tables a family builds is its reader's
/// [`Ropes`].
fn rope_cache(x: &Ctx, ropes: Ropes, layers: &[Layer]) -> Result<Vec<Module>> {
    if ropes == Ropes::None {
        return Ok(Vec::new());
    }
    let attention: Vec<_> = layers
        .iter()
        .filter_map(|l| match l {
            Layer::Attention(a) => Some(a),
            _ => None,
        })
        .collect();
    let Some(first) = attention.first() else {
        return Ok(Vec::new());
    };
    let max_pos = x.c.u("max_position_embeddings")?;
    let params = x.c.object("rope_scaling").or(x.c.object("rope_parameters"));
    // Gemma 4 gives one rope per layer type under rope_parameters.
    let per_type = params.and_then(|p| {
        p.object("sliding_attention")
            .zip(p.object("full_attention"))
    });
    if let Some((sliding, full)) = per_type {
        let head = |window: bool| {
            attention
                .iter()
                .find(|a| a.sliding_window_tokens.is_some() == window)
                .map_or(first.head_dim, |a| a.head_dim)
        };
        return Ok(vec![
            one_rope(x, Some(sliding), head(true), max_pos)?,
            one_rope(x, Some(full), head(false), max_pos)?,
        ]);
    }
    let head = first.mla.map_or(first.head_dim, |m| m.qk_rope_head_dim);
    let mut out = vec![one_rope(x, params, head, max_pos)?];
    // Gemma 3's local layers have their own, unscaled rope.
    if ropes == Ropes::WithLocal {
        out.push(one_rope(x, None, head, max_pos)?);
    }
    Ok(out)
}

/// One `[positions, rotary_dim]` cos/sin table for a rope described by
/// `params` (`rope_scaling` / `rope_parameters`, or none).
fn one_rope(x: &Ctx, params: Option<Cfg>, head: u64, max_pos: u64) -> Result<Module> {
    let partial = params
        .and_then(|r| r.get("partial_rotary_factor"))
        .or(x.c.get("partial_rotary_factor"))
        .and_then(Value::as_f64)
        .filter(|f| *f > 0.0 && *f <= 1.0);
    // MiniMax-M2 names the rotated width itself (`rotary_dim`).
    let rotary_dim = match (partial, x.c.opt("rotary_dim")?) {
        (Some(f), _) => crate::units::saturating_u64(head as f64 * f),
        (None, Some(d)) if d > 0 && d <= head => d,
        _ => head,
    };
    let kind = params.and_then(|r| r.s("rope_type").or(r.s("type")));
    let factor = params
        .and_then(|r| r.get("factor"))
        .and_then(Value::as_f64)
        .filter(|f| f.is_finite() && *f >= 1.0 && *f <= 1024.0)
        .unwrap_or(1.0);
    let scaled = |n: u64| crate::units::saturating_u64(n as f64 * factor);
    let positions = match kind {
        Some("linear" | "dynamic") => scaled(max_pos),
        Some("yarn") => {
            match params.and_then(|r| r.opt("original_max_position_embeddings").transpose()) {
                Some(orig) => scaled(orig?),
                None => max_pos,
            }
        }
        _ => max_pos,
    };
    Ok(Module {
        name: "rope_cos_sin_cache",
        kind: crate::model::ModuleKind::Buffer,
        in_features: positions,
        out_features: rotary_dim,
        count: 1,
    })
}

/// Reject a model whose parameter count or per-layer state would overflow
/// the calculator's 64-bit arithmetic (computed in 128 bits here).
fn check_size(layers: &[Layer], hidden: u64, vocab: u64) -> Result<()> {
    let too_big = |what: &str| {
        Error::new(format!("the model is implausibly large: {what}"))
            .with_hint("check the config.json's dimensions (hidden_size, heads, experts, layers)")
    };
    let h = u128::from(hidden);
    let mut params: u128 = 2 * u128::from(vocab) * h;
    let mut kv_per_token: u128 = 0;
    let mut state_per_request: u128 = 0;
    for l in layers {
        params = params.saturating_add(layer_params_bound(l, h));
        if let Some(st) = l.state() {
            let bytes = (u128::from(st.conv_elems) + u128::from(st.ssm_elems)) * 4;
            state_per_request = state_per_request.saturating_add(bytes);
        }
        if let Layer::Attention(a) = l {
            let elems = match a.mla {
                Some(m) => u128::from(m.kv_lora_rank) + u128::from(m.qk_rope_head_dim),
                None => 2 * u128::from(a.num_kv_heads) * u128::from(a.head_dim),
            };
            kv_per_token = kv_per_token.saturating_add(elems * 8);
        }
    }
    if state_per_request > MAX_STATE_BYTES_PER_REQUEST {
        return Err(too_big(
            "one request's recurrent state over all layers exceeds 1 TiB (2^40 bytes)",
        ));
    }
    if kv_per_token > MAX_KV_BYTES_PER_TOKEN {
        return Err(too_big(
            "one token's KV cache over all layers exceeds 1 GiB (2^30 bytes)",
        ));
    }
    if params > MAX_PARAMS {
        return Err(too_big("more than 10^15 parameters"));
    }
    Ok(())
}

/// An upper bound of one layer's parameters, in 128 bits.
fn layer_params_bound(l: &Layer, h: u128) -> u128 {
    let u = u128::from;
    match l {
        Layer::Attention(a) => {
            4 * u(a.num_heads.max(a.num_kv_heads)) * u(a.head_dim.max(1)) * h
                + a.mla.map_or(0, |m| {
                    u(m.kv_lora_rank + m.qk_rope_head_dim + m.q_lora_rank.unwrap_or(0))
                        * (h + u(a.num_heads)
                            * u(m.qk_nope_head_dim + m.v_head_dim + m.qk_rope_head_dim))
                })
        }
        Layer::Mamba2(m) => 3 * u(m.num_heads) * u(m.head_dim) * h,
        Layer::Mamba1(m) => 4 * u(m.intermediate) * (h + u(m.state_size + m.dt_rank)),
        Layer::DeltaNet(d) => 4 * u(d.key_dim().max(d.value_dim())) * h,
        Layer::ShortConv(c) => 4 * u(c.dim) * h,
        Layer::Mlp(f) => 3 * u(f.intermediate) * h,
        Layer::Moe(e) => {
            let width = u(e.latent_dim.unwrap_or(e.top_k.max(1)).max(1)).max(h);
            3 * (u(e.num_experts) * u(e.expert_intermediate) + u(e.shared_intermediate)) * width
        }
    }
}

/// Parse a config.json text (the Python json dialect and a BOM accepted).
pub fn parse_json(origin: &str, text: &str) -> Result<Value> {
    serde_json::from_str(&python_json_to_strict(text)).map_err(|e| {
        Error::new(format!("{origin}:{}:{}: {e}", e.line(), e.column()))
            .with_hint("a config.json must be JSON (Python's Infinity and NaN are accepted)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_architecture_lists_supported() {
        let err = model_from_config(&json!({"architectures": ["FooForCausalLM"]})).unwrap_err();
        assert!(err.message.contains("FooForCausalLM"));
        assert!(err.hint.unwrap().contains("NemotronHForCausalLM"));
    }

    #[test]
    fn the_derived_max_len_follows_vllm_0_32s_rope_rule() {
        let llama = |rope: serde_json::Value, model_type: &str| {
            model_from_config(&json!({
                "architectures": ["LlamaForCausalLM"], "model_type": model_type,
                "hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 8,
                "num_key_value_heads": 8, "intermediate_size": 2048, "vocab_size": 1000,
                "max_position_embeddings": 32768, "rope_scaling": rope
            }))
            .map(|m| m.max_position_embeddings)
        };
        // Linear and dynamic scaling lengthen the context by their factor.
        assert_eq!(
            llama(json!({"rope_type": "linear", "factor": 4.0}), "llama").unwrap(),
            131_072
        );
        assert_eq!(
            llama(json!({"type": "dynamic", "factor": 2.0}), "llama").unwrap(),
            65_536
        );
        // YaRN, llama3 and longrope state their length already; Gemma 3's is
        // already scaled; no scaling leaves it.
        let yarn =
            json!({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192});
        assert_eq!(llama(yarn, "llama").unwrap(), 32_768);
        assert_eq!(
            llama(json!({"rope_type": "llama3", "factor": 8.0}), "llama").unwrap(),
            32_768
        );
        assert_eq!(
            llama(json!({"rope_type": "linear", "factor": 8.0}), "gemma3_text").unwrap(),
            32_768
        );
        assert_eq!(llama(serde_json::Value::Null, "llama").unwrap(), 32_768);
        // Factors are bounded, and the bound named.
        let e = llama(json!({"rope_type": "linear", "factor": 2000.0}), "llama").unwrap_err();
        assert!(e.message.contains("rope_scaling.factor"), "{}", e.message);
    }

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

    #[test]
    fn encoder_only_models_are_refused_with_the_reason() {
        let err = model_from_config(&json!({"architectures": ["BertForMaskedLM"]})).unwrap_err();
        assert_eq!(
            err.message,
            "`BertForMaskedLM` is an encoder-only model (vLLM serves it for embeddings or scoring, not generation)"
        );
    }

    #[test]
    fn missing_and_bad_fields_are_named() {
        let err = model_from_config(&json!({"architectures": ["LlamaForCausalLM"]})).unwrap_err();
        assert!(err.message.contains("hidden_size"), "{err}");
        let err = model_from_config(&json!({
            "architectures": ["LlamaForCausalLM"], "hidden_size": -4096
        }))
        .unwrap_err();
        assert!(err.message.contains("hidden_size"), "{err}");
        let err = model_from_config(&json!([1, 2])).unwrap_err();
        assert!(err.message.contains("not a JSON object"), "{err}");
        let err = model_from_config(&json!({
            "architectures": ["LlamaForCausalLM"], "hidden_size": 1u64 << 47
        }))
        .unwrap_err();
        assert_eq!(
            err.message,
            "invalid value `140737488355328` for `hidden_size`"
        );
    }
}
