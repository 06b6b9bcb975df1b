//! The multimodal part of vLLM's profile run: before the dummy text forward,
//! `profile_run` (`v1/worker/gpu_model_runner.py`, 0.19.0 and 0.32.0 alike)
//! pushes a batch of dummy items of the largest size through the vision
//! encoder (`embed_multimodal`) and keeps the batch and the encoder outputs
//! (also in the encoder cache) until the end of the profile. Both raise the
//! measured peak, so the KV pool shrinks (docs/reference/vllm-multimodal-profile.md).
//!
//! Modelled for the towers whose source was read: Gemma 3's SigLIP
//! (`gemma3_mm.py`, `siglip.py`), Mistral 3's Pixtral (`mistral3.py`,
//! `pixtral.py`) and the Qwen3-VL tower Qwen3-VL and Qwen3.5 / 3.6 share
//! (`qwen3_vl.py`, `qwen3_5.py`). Other multimodal architectures get no
//! term here (their text profile only, as before).
//!
//! Everything is derived from `vision_config` and the engine flags; the two
//! Qwen processor sizes are the published `preprocessor_config.json` /
//! `video_preprocessor_config.json` values (config.json does not hold them).

use crate::engine::EngineArgs;
use crate::error::AsSubject;
use crate::error::{Error, Result};
use crate::memory::NonKvEstimate;
use crate::version::{VllmVersion, MM_OUTPUTS_UNPADDED, QWEN_VL_VIDEO_SOFT_TOKENS};
use serde::Serialize;
use serde_json::Value;

/// Qwen3-VL / Qwen3.5 image processor `size.longest_edge`: 16,777,216 pixels
/// (4096 x 4096), i.e. 16,384 merged tokens of 32 x 32 pixels. Public vLLM
/// logs of the family print "Encoder cache will be initialized with a
/// budget of 16384 tokens, and profiled with 1 image items"
/// (noonghunna/club-3090 issue 1047).
pub const QWEN_VL_IMAGE_MAX_PIXELS: u64 = 16_777_216;
/// Qwen3-VL / Qwen3.5 video processor `size.longest_edge`: 25,165,824
/// pixels over a temporal patch of 2 frames.
pub const QWEN_VL_VIDEO_MAX_PIXELS: u64 = 25_165_824;
/// vLLM's cap on an image's aspect ratio when it factorises the largest
/// patch grid (`qwen2_vl.py`, `get_image_size_with_most_features`).
const QWEN_VL_MAX_ASPECT: u64 = 200;
/// Items per prompt when `--limit-mm-per-prompt` does not name a modality
/// (`config/multimodal.py`, `get_limit_per_prompt`).
pub const DEFAULT_LIMIT_PER_PROMPT: u64 = 999;

/// `--limit-mm-per-prompt` and `--language-model-only`, resolved: items per
/// prompt by modality.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MmLimits {
    /// `--language-model-only`: every modality's limit is 0.
    pub language_model_only: bool,
    /// Named modalities and their counts, as given.
    pub named: Vec<(String, u64)>,
}

impl MmLimits {
    /// Read vLLM's JSON (`{"image": 2, "audio": 0}`; a modality's value may
    /// be an object with a `count`, default 999).
    pub fn parse(
        flag: impl AsSubject,
        json: Option<&str>,
        language_model_only: bool,
    ) -> Result<MmLimits> {
        let mut named = Vec::new();
        if let Some(text) = json {
            let v = crate::config::parse_json(&flag.to_string(), text)?;
            let Some(map) = v.as_object() else {
                return Err(Error::field(
                    flag,
                    text,
                    "a JSON object of items per prompt, such as '{\"image\": 0}'",
                ));
            };
            for (k, item) in map {
                let count = match item {
                    Value::Object(o) => match o.get("count") {
                        None => Some(DEFAULT_LIMIT_PER_PROMPT),
                        Some(c) => c.as_u64(),
                    },
                    other => other.as_u64(),
                };
                let Some(count) = count else {
                    return Err(Error::field(
                        flag,
                        text,
                        "each modality's limit is a whole number of items (or {\"count\": N, ...})",
                    ));
                };
                named.push((k.clone(), count));
            }
        }
        Ok(MmLimits {
            language_model_only,
            named,
        })
    }

    /// Items per prompt of `modality`.
    pub fn limit(&self, modality: &str) -> u64 {
        if self.language_model_only {
            return 0;
        }
        self.named
            .iter()
            .find(|(k, _)| k == modality)
            .map_or(DEFAULT_LIMIT_PER_PROMPT, |(_, n)| *n)
    }
}

/// One dummy item of the largest size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DummyItem {
    /// Patches the vision transformer runs over.
    pub patches: u64,
    /// Elements of its pixel values, cast to the model dtype.
    pub pixel_elements: u64,
    /// Tokens it takes in the prompt (the encoder budget's unit).
    pub budget_tokens: u64,
    /// Rows of its encoder output (kept in the encoder cache).
    pub embeddings: u64,
}

/// A vision tower as the profile run sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VisionTower {
    pub family: &'static str,
    pub hidden: u64,
    pub intermediate: u64,
    /// A gated MLP (gate and up projections) rather than fc1 + activation.
    pub gated: bool,
    /// Per-patch `[h]`-wide copies the rotary embedding makes of q and k.
    pub rotary_copies: u64,
    /// Per-patch `[h]`-wide tensors alive through the whole tower pass
    /// (Qwen3-VL's interpolated position embeddings).
    pub pass_tensors: u64,
    /// Width of one encoder output row.
    pub output_width: u64,
    pub image: DummyItem,
    pub video: Option<DummyItem>,
}

fn num(v: &Value, k: &str) -> Option<u64> {
    v.get(k).and_then(Value::as_u64)
}

/// A square `image_size` image's patch grid side (`image_size /
/// patch_size`) and its pixel values (`num_channels x image_size^2`): the
/// dummy image of the SigLIP and Pixtral towers.
fn square_image(v: &Value) -> Option<(u64, u64)> {
    let side = num(v, "image_size")?;
    let patch = num(v, "patch_size")?.max(1);
    let channels = num(v, "num_channels").unwrap_or(3);
    Some((
        side / patch,
        channels.saturating_mul(side).saturating_mul(side),
    ))
}

/// `left <= right`, `left * right = n`, the pair closest to a square.
fn closest_factor_pair(n: u64) -> (u64, u64) {
    let mut d = n.isqrt();
    while d > 1 {
        if n.is_multiple_of(d) {
            return (d, n / d);
        }
        d -= 1;
    }
    (1, n)
}

/// Qwen2-VL's factorisation of the largest grid of merged patches under
/// `max_pixels` (`qwen2_vl.py`, `get_image_size_with_most_features`):
/// `(height, width)` in merged units of `unit` pixels.
fn qwen_largest_grid(max_pixels: u64, unit: u64) -> (u64, u64) {
    let max_seq = max_pixels / unit.saturating_mul(unit).max(1);
    let mut seq = max_seq;
    while seq > 0 {
        let (h, w) = closest_factor_pair(seq);
        if w <= QWEN_VL_MAX_ASPECT * h {
            return (h, w);
        }
        seq -= 1;
    }
    (1, 1)
}

impl VisionTower {
    /// The tower of a config.json, or None for an architecture whose
    /// multimodal profile is not modelled. `text_hidden` is the language
    /// model's width.
    pub fn from_config(config: &Value, text_hidden: u64) -> Option<VisionTower> {
        let arch = config
            .get("architectures")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str)?;
        let v = config.get("vision_config")?;
        match arch {
            // SigLIP (`siglip.py`), one crop of image_size^2 (pan-and-scan
            // off by default), mm_tokens_per_image output rows each.
            "Gemma3ForConditionalGeneration" => {
                let (grid, pixel_elements) = square_image(v)?;
                let tokens = num(config, "mm_tokens_per_image").unwrap_or(256);
                Some(VisionTower {
                    family: "SigLIP (Gemma 3)",
                    hidden: num(v, "hidden_size")?,
                    intermediate: num(v, "intermediate_size")?,
                    gated: false,
                    rotary_copies: 0,
                    pass_tensors: 0,
                    output_width: text_hidden,
                    image: DummyItem {
                        patches: grid.saturating_mul(grid),
                        pixel_elements,
                        budget_tokens: tokens,
                        embeddings: tokens,
                    },
                    video: None,
                })
            }
            // Pixtral (`pixtral.py`, `mistral3.py`): an image_size^2 image,
            // its patch grid merged spatial_merge_size^2 to one row; the
            // prompt adds an [IMG_BREAK] per row of merged patches.
            "Mistral3ForConditionalGeneration" => {
                let (grid, pixel_elements) = square_image(v)?;
                let merge = num(config, "spatial_merge_size").unwrap_or(2).max(1);
                let merged = grid / merge;
                Some(VisionTower {
                    family: "Pixtral (Mistral 3)",
                    hidden: num(v, "hidden_size")?,
                    intermediate: num(v, "intermediate_size")?,
                    gated: true,
                    rotary_copies: 2,
                    pass_tensors: 0,
                    output_width: text_hidden,
                    image: DummyItem {
                        patches: grid.saturating_mul(grid),
                        pixel_elements,
                        budget_tokens: (merged + 1).saturating_mul(merged),
                        embeddings: merged.saturating_mul(merged),
                    },
                    video: None,
                })
            }
            // Qwen3-VL's tower (`qwen3_vl.py`), also Qwen3.5 / 3.6's.
            "Qwen3VLForConditionalGeneration"
            | "Qwen3VLMoeForConditionalGeneration"
            | "Qwen3_5ForConditionalGeneration"
            | "Qwen3_5MoeForConditionalGeneration" => {
                let patch = num(v, "patch_size")?.max(1);
                let merge = num(v, "spatial_merge_size").unwrap_or(2).max(1);
                let temporal = num(v, "temporal_patch_size").unwrap_or(2).max(1);
                let channels = num(v, "in_channels").unwrap_or(3);
                let unit = patch * merge;
                let per_patch = channels * temporal * patch * patch;
                let deepstack = v
                    .get("deepstack_visual_indexes")
                    .and_then(Value::as_array)
                    .map_or(0, |a| a.len() as u64);
                let out = num(v, "out_hidden_size").unwrap_or(text_hidden);
                // One image, or a video of two frames (one temporal patch),
                // at the largest grid the processor allows.
                let item = |max_pixels: u64| {
                    let (h, w) = qwen_largest_grid(max_pixels, unit);
                    let tokens = h.saturating_mul(w);
                    let patches = tokens.saturating_mul(merge * merge);
                    DummyItem {
                        patches,
                        pixel_elements: patches.saturating_mul(per_patch),
                        budget_tokens: tokens,
                        embeddings: tokens,
                    }
                };
                Some(VisionTower {
                    family: "Qwen3-VL",
                    hidden: num(v, "hidden_size")?,
                    intermediate: num(v, "intermediate_size")?,
                    gated: false,
                    rotary_copies: 4,
                    pass_tensors: 1,
                    output_width: out.saturating_mul(1 + deepstack),
                    image: item(QWEN_VL_IMAGE_MAX_PIXELS),
                    video: Some(item(QWEN_VL_VIDEO_MAX_PIXELS / temporal)),
                })
            }
            _ => None,
        }
    }

    /// The item vLLM profiles with: the modality with the most tokens per
    /// item among those whose limit is above 0
    /// (`MultiModalBudget.get_modality_with_max_tokens`); None when every
    /// limit is 0 (the tower is then not even loaded).
    pub fn dummy_item(
        &self,
        limits: &MmLimits,
        release: VllmVersion,
    ) -> Option<(&'static str, DummyItem, u64)> {
        let image = Some(("image", self.image, limits.limit("image")));
        let video = self.video.map(|mut v| {
            // Before 0.13 Qwen3-VL counted each video token as the
            // timestamp text it becomes, 12.5 tokens (`int(...)`).
            if self.family == "Qwen3-VL" && release < QWEN_VL_VIDEO_SOFT_TOKENS {
                v.budget_tokens = v.embeddings.saturating_mul(25) / 2;
            }
            ("video", v, limits.limit("video"))
        });
        [image, video]
            .into_iter()
            .flatten()
            .filter(|(_, _, limit)| *limit > 0)
            .max_by_key(|(_, item, _)| item.budget_tokens)
    }

    /// Whether `--limit-mm-per-prompt` (or `--language-model-only`) turns
    /// every modality of the tower off, so vLLM does not load it
    /// (`_mark_tower_model` in the model files).
    pub fn disabled(&self, limits: &MmLimits) -> bool {
        self.dummy_item(limits, crate::version::MODELLED).is_none()
    }
}

/// What the multimodal dummy batch costs the profile run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MmProfile {
    pub modality: &'static str,
    /// Dummy items in the batch.
    pub items: u64,
    pub tokens_per_item: u64,
    /// Pixel values and encoder outputs, alive to the end of the profile.
    pub kept_bytes: u64,
    /// The tower's pass: its widest moment plus the pixel values.
    pub encoder_peak_bytes: u64,
}

/// The dummy batch of vLLM's profile run (0.19.0 and 0.32.0:
/// `multimodal/encoder_budget.py`, `MultiModalBudget._get_max_items`;
/// `v1/core/encoder_cache_manager.py`, `compute_mm_encoder_budget`): with the
/// encoder budget `max(max_num_batched_tokens, tokens per item)`, `items =
/// max(1, min(budget / tokens, max_num_seqs x per_prompt))` where
/// `per_prompt = max(1, min(limit, max_model_len / tokens))`. Before 0.13
/// (0.11.0-0.12.0, `v1/worker/gpu_model_runner.py::profile_run`) an output
/// with fewer rows than the budget is copied into zeros of the budget's
/// rows, which stay cached through the text forward
/// ([`crate::version::MM_OUTPUTS_UNPADDED`]).
pub fn profile(tower: &VisionTower, engine: &EngineArgs, dtype_bytes: u64) -> Option<MmProfile> {
    if engine.skip_mm_profiling {
        return None;
    }
    let (modality, item, limit) = tower.dummy_item(&engine.mm_limits, engine.vllm_version)?;
    let tokens = item.budget_tokens.max(1);
    let budget = engine.max_num_batched_tokens.max(tokens);
    let per_prompt = limit.min(engine.max_model_len_tokens / tokens).max(1);
    let items = (budget / tokens)
        .min(engine.max_num_seqs.saturating_mul(per_prompt))
        .max(1);
    let d = dtype_bytes;
    let pixels = items.saturating_mul(item.pixel_elements).saturating_mul(d);
    let row = tower.output_width.saturating_mul(d);
    let outputs = if engine.vllm_version < MM_OUTPUTS_UNPADDED && item.embeddings < budget {
        // Before 0.13 each output was copied into zeros of the encoder
        // budget's rows; the last original stays referenced (`output`, the
        // loop's variable) through the text forward.
        items
            .saturating_mul(budget)
            .saturating_add(item.embeddings)
            .saturating_mul(row)
    } else {
        items.saturating_mul(item.embeddings).saturating_mul(row)
    };
    // The tower's widest moment per patch (weights mode: its projections
    // are split across the TP group, the residual stream is not).
    // Attention: the block's input (held by the caller), the norm's output,
    // the qkv projection, the rotary copies of q and k, the attention
    // output. MLP: the block's input, the stream after attention, the
    // norm's output, fc1 (gate and up when gated) and the activation.
    let tp = engine.tensor_parallel_size.max(1);
    let h = tower.hidden;
    let attention = 2 * h + (3 * h + tower.rotary_copies * h + h) / tp;
    let fc1 = if tower.gated {
        2 * tower.intermediate
    } else {
        tower.intermediate
    };
    let mlp = 3 * h + (fc1 + tower.intermediate) / tp;
    let per_patch = (attention.max(mlp) + tower.pass_tensors * h).saturating_mul(d);
    let encoder = items
        .saturating_mul(item.patches)
        .saturating_mul(per_patch)
        .saturating_add(pixels);
    Some(MmProfile {
        modality,
        items,
        tokens_per_item: tokens,
        kept_bytes: pixels.saturating_add(outputs),
        encoder_peak_bytes: encoder,
    })
}

impl NonKvEstimate {
    /// Add the multimodal dummy batch to the profile's peak: the batch and
    /// its encoder outputs stay alive through the text forward and the
    /// sampler, and the tower's own pass is a third moment (with cuBLAS's
    /// workspace, which its first GEMM allocates).
    pub fn add_multimodal(&mut self, mm: &MmProfile, cublas_bytes: u64) {
        self.multimodal_kept_bytes = mm.kept_bytes;
        self.encoder_peak_bytes = mm.encoder_peak_bytes;
        self.persistent_profile_bytes = self.persistent_profile_bytes.saturating_add(mm.kept_bytes);
        let text = self.activation_bytes.saturating_add(mm.kept_bytes);
        let encoder = mm.encoder_peak_bytes.saturating_add(cublas_bytes);
        self.activation_bytes = text.max(encoder);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qwen_largest_grid_is_vllms_factorisation() {
        // 16,777,216 / 32^2 = 16,384 merged tokens = 128 x 128.
        assert_eq!(qwen_largest_grid(QWEN_VL_IMAGE_MAX_PIXELS, 32), (128, 128));
        // Video: 25,165,824 / 2 / 32^2 = 12,288 = 96 x 128 (no divisor
        // between 96 and sqrt(12,288) = 110.9).
        assert_eq!(
            qwen_largest_grid(QWEN_VL_VIDEO_MAX_PIXELS / 2, 32),
            (96, 128)
        );
        // A prime: 1 x 211 is past the 200:1 cap, so 210 = 14 x 15.
        assert_eq!(qwen_largest_grid(211, 1), (14, 15));
    }

    #[test]
    fn limits_read_vllms_json() {
        let l = MmLimits::parse(
            "--limit-mm-per-prompt",
            Some(r#"{"image": 2, "audio": 0, "video": {"count": 1, "num_frames": 8}}"#),
            false,
        )
        .unwrap();
        assert_eq!(l.limit("image"), 2);
        assert_eq!(l.limit("audio"), 0);
        assert_eq!(l.limit("video"), 1);
        assert_eq!(l.limit("other"), 999);
        let off = MmLimits::parse("x", None, true).unwrap();
        assert_eq!(off.limit("image"), 0);
        assert!(MmLimits::parse("x", Some("[1]"), false).is_err());
        assert!(MmLimits::parse("x", Some(r#"{"image": -1}"#), false).is_err());
    }
}
