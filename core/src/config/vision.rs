//! Vision encoders that vLLM loads with a multimodal model, as weight
//! tensors (`ModuleKind::Encoder`: counted in the weights, never read by a
//! decode step). Each follows the encoder's module layout in vLLM 0.32
//! (file cited per function) and the `vision_config` field names.

use super::fields::Cfg;
use super::Ctx;
use crate::error::{Error, Result};
use crate::model::{Module, ModuleKind};

fn module(name: &'static str, in_features: u64, out_features: u64, count: u64) -> Module {
    Module {
        name,
        kind: ModuleKind::Encoder,
        in_features,
        out_features,
        count,
        fp8: false,
    }
}

fn vision_config<'a>(x: &Ctx<'a>) -> Result<Cfg<'a>> {
    x.top.object("vision_config").ok_or_else(|| {
        Error::new("missing field `vision_config`").with_hint(format!(
            "{} configs describe their vision encoder there",
            x.arch
        ))
    })
}

/// Gemma 3's SigLIP tower (`vllm/model_executor/models/siglip.py`) and
/// projector (`gemma3_mm.py`, `Gemma3MultiModalProjector`: one matrix from
/// the vision width to the text width and an RMSNorm).
pub fn siglip_gemma3(x: &Ctx) -> Result<Vec<Module>> {
    let v = vision_config(x)?;
    let h = v.u("hidden_size")?;
    let side = v.u("image_size")? / v.u("patch_size")?;
    let mut out = siglip_tower(v, side * side)?;
    out.push(module("mm_input_projection", h, x.hidden, 1));
    out.push(module("mm_soft_emb_norm", 1, h, 1));
    Ok(out)
}

/// A SigLIP (or SigLIP2) tower of `vision_config` with `positions` learned
/// positions: encoder layers of biased q/k/v/out and a GELU MLP, two
/// LayerNorms with bias each, a patch embedding with bias, the
/// post-LayerNorm.
fn siglip_tower(v: Cfg, positions: u64) -> Result<Vec<Module>> {
    let h = v.u("hidden_size")?;
    let i = v.u("intermediate_size")?;
    let n = v.u("num_hidden_layers")?;
    let p = v.u("patch_size")?;
    let ch = v.u_or("num_channels", 3)?;
    Ok(vec![
        // q, k, v, out projections with biases.
        module("vision_attention", h + 1, 4 * h, n),
        module("vision_fc1", h + 1, i, n),
        module("vision_fc2", i + 1, h, n),
        // Two LayerNorms (weight and bias) per layer.
        module("vision_norms", 4, h, n),
        module("vision_patch_embedding", ch * p * p + 1, h, 1),
        module("vision_position_embedding", positions, h, 1),
        module("vision_post_layernorm", 2, h, 1),
    ])
}

/// Mistral 3's Pixtral encoder (`vllm/model_executor/models/pixtral.py`:
/// bias-free attention and gated MLP, RMSNorms) and projector
/// (`mistral3.py`: RMSNorm, a patch merger over `spatial_merge_size`^2
/// patches, two linear layers to the text width).
pub fn pixtral(x: &Ctx) -> Result<Vec<Module>> {
    let v = vision_config(x)?;
    let h = v.u("hidden_size")?;
    let i = v.u("intermediate_size")?;
    let n = v.u("num_hidden_layers")?;
    let p = v.u("patch_size")?;
    let ch = v.u_or("num_channels", 3)?;
    let merge = x.top.u_or("spatial_merge_size", 2)?;
    let bias = u64::from(x.top.b_or("multimodal_projector_bias", false)?);
    Ok(vec![
        module("vision_attention", h, 4 * h, n),
        module("vision_mlp_gate_up", h, 2 * i, n),
        module("vision_mlp_down", i, h, n),
        module("vision_norms", 2, h, n),
        module("vision_patch_conv", ch * p * p, h, 1),
        module("vision_ln_pre", 1, h, 1),
        module("mm_norm", 1, h, 1),
        module("mm_patch_merger", h * merge * merge, h, 1),
        module("mm_linear_1", h + bias, x.hidden, 1),
        module("mm_linear_2", x.hidden + bias, x.hidden, 1),
    ])
}

/// The Qwen3-VL-style vision transformer of Qwen3.5 / Qwen3.6
/// (`vllm/model_executor/models/qwen3_vl.py`, used by `qwen3_5.py`):
/// fused qkv and MLP with biases, LayerNorms, a learned position table, a
/// patch merger to `out_hidden_size` and one more merger per
/// `deepstack_visual_indexes` entry.
pub fn qwen_vl(x: &Ctx) -> Result<Vec<Module>> {
    let v = vision_config(x)?;
    let h = v.u("hidden_size")?;
    let i = v.u("intermediate_size")?;
    let n = v.first(&["depth", "num_hidden_layers"])?;
    let p = v.u("patch_size")?;
    let t = v.u_or("temporal_patch_size", 2)?;
    let ch = v.u_or("in_channels", 3)?;
    let merge = v.u_or("spatial_merge_size", 2)?;
    let out = v.u_or("out_hidden_size", x.hidden)?;
    let positions = v.u_or("num_position_embeddings", 0)?;
    let deepstack = v.numbers("deepstack_visual_indexes")?.len() as u64;
    let merged = h * merge * merge;
    Ok(vec![
        module("vision_qkv", h + 1, 3 * h, n),
        module("vision_proj", h + 1, h, n),
        module("vision_fc1", h + 1, i, n),
        module("vision_fc2", i + 1, h, n),
        module("vision_norms", 4, h, n),
        module("vision_patch_embed", ch * t * p * p + 1, h, 1),
        module("vision_pos_embed", positions, h, 1),
        module("merger_norm", 2, h, 1),
        module("merger_fc1", merged + 1, merged, 1),
        module("merger_fc2", merged + 1, out, 1),
        module("deepstack_norm", 2, merged, deepstack),
        module("deepstack_fc1", merged + 1, merged, deepstack),
        module("deepstack_fc2", merged + 1, out, deepstack),
    ])
}

/// Gemma 4's vision tower (transformers `Gemma4VisionModel`, which vLLM 0.32
/// instantiates in `gemma4_mm.py`): bias-free attention and gated MLP,
/// four norms and q/k norms per layer, a patch embedding and a two-axis
/// position table of `position_embedding_size`, and `embed_vision` to the
/// text width. 569.55 M parameters for the 26B/31B tower (helper count on
/// the meta device; this layout gives 569,548,080 before the projector).
pub fn gemma4(x: &Ctx) -> Result<Vec<Module>> {
    let v = vision_config(x)?;
    let h = v.u("hidden_size")?;
    let i = v.u("intermediate_size")?;
    let n = v.u("num_hidden_layers")?;
    let p = v.u("patch_size")?;
    let d = v.u_or("head_dim", 64)?;
    let positions = v.u_or("position_embedding_size", 0)?;
    Ok(vec![
        module("vision_attention", h, 4 * h, n),
        module("vision_mlp", h, 3 * i, n),
        module("vision_norms", 1, 4 * h + 2 * d, n),
        module("vision_patch_embedding", 3 * p * p, h, 1),
        module("vision_position_embedding", 2 * positions, h, 1),
        module("embed_vision", h, x.hidden, 1),
    ])
}

/// LFM2-VL's SigLIP2 tower (`vllm/model_executor/models/lfm2_siglip2.py`:
/// a linear patch embedding with bias, `num_patches` learned positions,
/// encoder layers with biased q/k/v/out and a GELU MLP, LayerNorms with
/// bias, the post-LayerNorm; no head) and projector (`lfm2_vl.py`:
/// pixel-unshuffle by `downsample_factor`, two linear layers, biased with
/// `projector_bias`, an optional LayerNorm).
pub fn siglip2_lfm2(x: &Ctx) -> Result<Vec<Module>> {
    let v = vision_config(x)?;
    let h = v.u("hidden_size")?;
    let down = x.top.u_or("downsample_factor", 2)?;
    let proj = x.top.u("projector_hidden_size")?;
    let bias = u64::from(x.top.b_or("projector_bias", true)?);
    let mut out = siglip_tower(v, v.u("num_patches")?)?;
    out.push(module("mm_projector_1", h * down * down + bias, proj, 1));
    out.push(module("mm_projector_2", proj + bias, x.hidden, 1));
    if x.top.b_or("projector_use_layernorm", false)? {
        out.push(module("mm_projector_norm", 2, h * down * down, 1));
    }
    Ok(out)
}

/// Voxtral's Whisper encoder of `audio_config` (`voxtral.py` wrapping
/// vLLM's `WhisperEncoder`): two biased convolutions over the mel bins
/// (kernel 3), `max_source_positions` positions, encoder layers of q/k/v/out
/// with biases (vLLM allocates the k bias the checkpoint lacks), a GELU MLP
/// and two LayerNorms, a final LayerNorm; then the `AudioLanguageAdapter`:
/// two linear layers without bias from the packed frames
/// (`intermediate_size` wide, as transformers' projector reads it) to the
/// text width.
pub fn whisper_voxtral(x: &Ctx) -> Result<Vec<Module>> {
    let a = x.top.object("audio_config").ok_or_else(|| {
        Error::new("missing field `audio_config`")
            .with_hint("Voxtral configs describe their audio encoder there")
    })?;
    let d = a.u("hidden_size")?;
    let i = a.u("intermediate_size")?;
    let n = a.u("num_hidden_layers")?;
    let mel = a.u("num_mel_bins")?;
    let positions = a.u("max_source_positions")?;
    Ok(vec![
        module("audio_conv1", 3 * mel + 1, d, 1),
        module("audio_conv2", 3 * d + 1, d, 1),
        module("audio_position_embedding", positions, d, 1),
        module("audio_attention", d + 1, 4 * d, n),
        module("audio_fc1", d + 1, i, n),
        module("audio_fc2", i + 1, d, n),
        module("audio_norms", 4, d, n),
        module("audio_final_layernorm", 2, d, 1),
        module("audio_adapter_in", i, x.hidden, 1),
        module("audio_adapter_out", x.hidden, x.hidden, 1),
    ])
}

/// Kimi-K2.5's MoonViT (`vision_config` `vt_*` fields): a SigLIP-shaped
/// tower (biased q/k/v/out, a GELU MLP, two LayerNorms a layer, a patch
/// embedding, `init_pos_emb_height x init_pos_emb_width` positions, a final
/// LayerNorm) and the patch merger: a LayerNorm, then two linear layers
/// from `merge_kernel_size` patches of `mm_hidden_size` to the text width.
pub fn moonvit(x: &Ctx) -> Result<Vec<Module>> {
    let v = vision_config(x)?;
    let h = v.u("vt_hidden_size")?;
    let i = v.u("vt_intermediate_size")?;
    let n = v.u("vt_num_hidden_layers")?;
    let p = v.u("patch_size")?;
    let positions = v.u("init_pos_emb_height")? * v.u("init_pos_emb_width")?;
    let merge: u64 = v.numbers("merge_kernel_size")?.iter().product();
    let merged = v.u_or("mm_hidden_size", h)? * merge.max(1);
    Ok(vec![
        module("vision_attention", h + 1, 4 * h, n),
        module("vision_fc1", h + 1, i, n),
        module("vision_fc2", i + 1, h, n),
        module("vision_norms", 4, h, n),
        module("vision_patch_embedding", 3 * p * p + 1, h, 1),
        module("vision_position_embedding", positions, h, 1),
        module("vision_final_layernorm", 2, h, 1),
        module("mm_projector_norm", 2, h, 1),
        module("mm_projector_1", merged + 1, merged, 1),
        module("mm_projector_2", merged + 1, x.hidden, 1),
    ])
}

/// Llama 4's vision encoder and projector
/// (`vllm/model_executor/models/mllama4.py`: `Llama4VisionModel`,
/// `Llama4MultiModalProjector`, both built without the quantization config,
/// so never quantized): a bias-free linear patch embedding
/// (`Llama4UnfoldConvolution`), a class embedding, `(image_size /
/// patch_size)^2 + 1` learned positions, LayerNorms (with bias) before and
/// after the encoder; encoder layers of a biased fused qkv and output
/// projection, a GELU MLP with biases and two LayerNorms; the pixel-shuffle
/// adapter (`Llama4VisionPixelShuffleMLP`: `intermediate_size` ->
/// `projector_input_dim` -> `projector_output_dim`, biased with
/// `multi_modal_projector_bias`) and the projector from `vision_output_dim`
/// to the text width, without bias. Scout's and Maverick's: 850,960,896 +
/// 20,971,520 parameters (docs/reference/pending-architectures.md).
pub fn llama4(x: &Ctx) -> Result<Vec<Module>> {
    let v = vision_config(x)?;
    let h = v.u("hidden_size")?;
    let i = v.u("intermediate_size")?;
    let n = v.u("num_hidden_layers")?;
    let p = v.u("patch_size")?;
    let ch = v.u_or("num_channels", 3)?;
    let side = v.u("image_size")? / p;
    let bias = u64::from(v.b_or("multi_modal_projector_bias", false)?);
    let proj_in = v.u("projector_input_dim")?;
    let proj_out = v.u("projector_output_dim")?;
    Ok(vec![
        module("vision_qkv", h + 1, 3 * h, n),
        module("vision_o_proj", h + 1, h, n),
        module("vision_fc1", h + 1, i, n),
        module("vision_fc2", i + 1, h, n),
        module("vision_norms", 4, h, n),
        module("vision_patch_embedding", ch * p * p, h, 1),
        module("vision_class_embedding", 1, h, 1),
        module("vision_position_embedding", side * side + 1, h, 1),
        module("vision_pre_post_layernorm", 4, h, 1),
        module("vision_adapter_fc1", i + bias, proj_in, 1),
        module("vision_adapter_fc2", proj_in + bias, proj_out, 1),
        module(
            "multi_modal_projector",
            v.u_or("vision_output_dim", proj_out)?,
            x.hidden,
            1,
        ),
    ])
}
