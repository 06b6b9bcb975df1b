//! Gemma 2 and Gemma 3: interleaved sliding-window and global attention
//! (`vllm/model_executor/models/gemma2.py`, `gemma3.py`, `gemma3_mm.py`).

use super::{gated_mlp, vision, Built, Ctx};
use crate::error::Result;
use crate::model::{AttentionLayer, Layer};

/// Whether layer `i` uses the sliding window: `layer_types` when the config
/// has it, else the family's rule.
fn local_layers(x: &Ctx, rule: impl Fn(u64) -> bool) -> Result<Vec<bool>> {
    let types = x.layer_types()?;
    Ok((0..x.n_layers)
        .map(|i| match &types {
            Some(t) => t
                .get(usize::try_from(i).unwrap_or(usize::MAX))
                .is_some_and(|s| *s == "sliding_attention"),
            None => rule(i),
        })
        .collect())
}

fn build(x: &Ctx, local: &[bool], qk_norm: bool) -> Result<Built> {
    let inter = x.c.u("intermediate_size")?;
    let w = x.c.u("sliding_window")?;
    let a = AttentionLayer {
        qk_norm,
        ..x.attention()?
    };
    let mut layers = Vec::new();
    for &l in local {
        layers.push(Layer::Attention(AttentionLayer {
            sliding_window_tokens: l.then_some(w),
            ..a
        }));
        layers.push(gated_mlp(inter));
    }
    Built::layers(layers)
}

/// Gemma 2: even layers local, odd layers global.
pub fn gemma2(x: &Ctx) -> Result<Built> {
    build(x, &local_layers(x, |i| i % 2 == 0)?, false)
}

/// Gemma 3: five local layers to one global (`sliding_window_pattern` 6),
/// q/k norms.
pub fn gemma3(x: &Ctx) -> Result<Built> {
    let pattern = x.c.u_or("sliding_window_pattern", 6)?.max(1);
    build(x, &local_layers(x, |i| (i + 1) % pattern != 0)?, true)
}

/// Gemma 3 with its SigLIP vision tower and projector (4B, 12B, 27B).
pub fn gemma3_mm(x: &Ctx) -> Result<Built> {
    let mut built = gemma3(x)?;
    built.encoder = vision::siglip_gemma3(x)?;
    Ok(built)
}
