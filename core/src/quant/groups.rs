//! Checkpoints that quantize their modules group by group: a
//! compressed-tensors `config_groups` (each group a weight scheme and the
//! `targets` it applies to) and ModelOpt's `MIXED_PRECISION`
//! `quantized_layers` (each module name its algorithm), read by one rule.
//!
//! vLLM 0.32 picks each module's scheme by matching its name against the
//! targets (`vllm/model_executor/layers/quantization/compressed_tensors/
//! compressed_tensors.py`, `_quantization_scheme_map_from_config`: every
//! group's targets in one map, in the groups' order; `get_scheme_dict`:
//! `should_ignore_layer` first, then `utils.py` `find_matched_target`: the
//! first target equal to the module's name or a `re:` regex matching it,
//! then a fused module whose parts all match, then a target contained in
//! the module's class name, such as `Linear`). A module no target matches
//! stays unquantized (`UnquantizedLinearMethod`); the `lm_head`
//! (`ParallelLMHead`) only where a target names it. ModelOpt's
//! `ModelOptMixedPrecisionConfig` (`modelopt.py`, `_resolve_quant_algo`,
//! `get_quant_method`) does the same with exact names ("Layer not in
//! quantized_layers — leave unquantized").
//!
//! A [`WeightQuant`] holds one method with per-kind and per-layer fp8
//! carve-outs, so the groups map onto it kind by kind
//! ([`by_group`]): the group of the experts (else of the MLP) is the
//! method; a kind another fp8 group covers in every layer it names is an
//! `fp8_kinds` entry; layers of the method's kind an fp8 group covers are
//! `fp8_layers`; a kind no group covers is unquantized. Anything else (two
//! non-fp8 schemes for different kinds) is refused rather than read with
//! the wrong bytes.

use super::{Fp8Layers, QuantMethod, WeightQuant};
use crate::error::{Error, Result};

/// The module kinds a target can cover.
const KINDS: [&str; 5] = ["attention", "mamba", "mlp", "experts", "lm_head"];

/// Modules the model holds fused that checkpoints name by their parts
/// (`packed_modules_mapping` of vLLM's Qwen3.5 / Qwen3-Next Gated DeltaNet,
/// `vllm/model_executor/models/qwen3_5.py`): the kind, the model's module
/// ([`crate::model::Module::name`]) and the checkpoint's names of its parts.
pub(super) const FUSED: [(&str, &str, [&str; 2]); 2] = [
    ("mamba", "in_proj_qkvz", ["in_proj_qkv", "in_proj_z"]),
    ("mamba", "in_proj_ba", ["in_proj_a", "in_proj_b"]),
];

/// One scheme and the module names, regexes or class names it targets.
pub(super) struct Group {
    pub scheme: WeightQuant,
    pub targets: Vec<String>,
}

/// What one target covers.
struct Target {
    /// The module kinds it covers (every linear kind for `Linear`).
    kinds: Vec<&'static str>,
    /// The decoder layers it names; None: every layer.
    layers: Option<Vec<u64>>,
    /// The modules it names (`in_proj_qkv`, or a regex's alternation
    /// `(in_proj_qkv|in_proj_z)`), for fused modules; None: any module.
    leaves: Option<Vec<String>>,
}

/// The decoder layers a target names: `layers.7.` or a regex's
/// `layers\.(56|57|58)\.`; None where it names no layer.
fn layers_named(path: &str) -> Option<Vec<u64>> {
    let (_, rest) = path.split_once("layers.")?;
    let digits = |s: &str| -> Option<u64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    if let Some(inner) = rest.strip_prefix('(') {
        let (list, _) = inner.split_once(')')?;
        return list.split('|').map(digits).collect();
    }
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    digits(rest.get(..end)?).map(|n| vec![n])
}

/// The modules a target's last path component names: itself, or the
/// branches of one regex alternation (`(gate|up)_proj`); None where it is
/// any other regex.
fn leaves(last: &str) -> Option<Vec<String>> {
    let plain = |s: &str| !s.contains(['*', '+', '?', '[', ']', '(', ')', '|', '\\', '^']);
    if plain(last) {
        return Some(vec![last.to_string()]);
    }
    let (head, rest) = last.split_once('(')?;
    let (alts, tail) = rest.split_once(')')?;
    let out: Vec<String> = alts
        .split('|')
        .map(|a| format!("{head}{a}{tail}"))
        .collect();
    out.iter().all(|l| plain(l)).then_some(out)
}

/// The kinds a module path (or a regex over paths, its `\\.` unescaped)
/// covers: the container it names (`linear_attn`, `self_attn`, `experts`,
/// `shared_expert`, `mlp` / `ffn`), else its projection's name. A regex
/// that leaves `.*` after an MLP container (`.*ffn.*(gate|up)_proj$`) or
/// names only projections (`.*(gate|up|down)_proj$`) reaches the routed
/// experts' too. The MTP block, the vision tower and the embeddings are
/// not kinds a group decides here (their own lists do).
fn kinds_of(path: &str, regex: bool) -> Vec<&'static str> {
    let p = path.to_ascii_lowercase();
    if p.contains("lm_head") {
        return vec!["lm_head"];
    }
    let skipped = [
        "mtp",
        "nextn",
        "embed",
        "visual",
        "vision",
        "multi_modal",
        "audio",
    ];
    if skipped.iter().any(|s| p.contains(s)) {
        return Vec::new();
    }
    let comps: Vec<&str> = p.split('.').collect();
    let has = |keys: &[&str]| {
        comps
            .iter()
            .position(|c| keys.iter().any(|k| c.contains(k)))
    };
    if has(&["linear_attn", "mixer", "mamba"]).is_some() {
        return vec!["mamba"];
    }
    if has(&["attn", "attention"]).is_some() {
        return vec!["attention"];
    }
    if has(&["shared_expert"]).is_some() {
        return vec!["mlp"];
    }
    if has(&["experts"]).is_some() {
        return vec!["experts"];
    }
    if let Some(i) = has(&["mlp", "ffn", "feed_forward", "block_sparse_moe"]) {
        let wild = comps
            .get(i + 1..)
            .is_some_and(|r| r.iter().any(|c| c.contains('*')));
        return if regex && wild {
            vec!["mlp", "experts"]
        } else {
            vec!["mlp"]
        };
    }
    let last = comps.last().copied().unwrap_or_default();
    if [
        "q_proj",
        "k_proj",
        "v_proj",
        "o_proj",
        "qkv_proj",
        "(q|k|v|o)_proj",
    ]
    .iter()
    .any(|l| last.ends_with(l))
    {
        vec!["attention"]
    } else if last.ends_with("_proj") && ["gate", "up", "down"].iter().any(|l| last.contains(l)) {
        if regex {
            vec!["mlp", "experts"]
        } else {
            vec!["mlp"]
        }
    } else {
        Vec::new()
    }
}

fn target(t: &str) -> Target {
    let (regex, path) = match t.strip_prefix("re:") {
        Some(p) => (true, p.trim_end_matches('$').replace("\\.", ".")),
        None => (false, t.to_string()),
    };
    if !regex && !path.contains('.') && path != "lm_head" {
        // A class name: `Linear` covers every linear layer (and vLLM maps
        // the fused experts to it); others (`Qwen3Attention`, skipped by
        // vLLM as attention quantization) cover no weights here.
        let kinds = if path.ends_with("Linear") {
            KINDS.iter().copied().filter(|k| *k != "lm_head").collect()
        } else {
            Vec::new()
        };
        return Target {
            kinds,
            layers: None,
            leaves: None,
        };
    }
    Target {
        kinds: kinds_of(&path, regex),
        layers: layers_named(&path),
        leaves: path.rsplit('.').next().and_then(leaves),
    }
}

/// What the groups make of one kind: for each group, the layers its targets
/// name (None: all), and the exact module names.
struct Cover {
    /// (group, layers) in the groups' order, a group at most once.
    groups: Vec<(usize, Option<Vec<u64>>)>,
    /// The exact module names targeted; None once a target covers the
    /// whole kind (a regex or a class name).
    leaves: Option<Vec<String>>,
}

impl Cover {
    /// The first group covering the kind in every layer.
    fn whole(&self) -> Option<usize> {
        self.groups
            .iter()
            .find(|(_, l)| l.is_none())
            .map(|(g, _)| *g)
    }

    /// The group whose scheme the kind takes: the one covering every
    /// layer, else the one naming the most layers (the first on a tie).
    fn decides(&self) -> Option<usize> {
        self.whole().or_else(|| {
            self.groups
                .iter()
                .rev()
                .max_by_key(|(_, l)| l.as_ref().map_or(0, Vec::len))
                .map(|(g, _)| *g)
        })
    }
}

fn cover(groups: &[Group], kind: &str) -> Cover {
    let mut c = Cover {
        groups: Vec::new(),
        leaves: Some(Vec::new()),
    };
    for (gi, g) in groups.iter().enumerate() {
        for t in g.targets.iter().map(|t| target(t)) {
            if !t.kinds.contains(&kind) {
                continue;
            }
            match (t.leaves, &mut c.leaves) {
                (Some(l), Some(ls)) => ls.extend(l),
                _ => c.leaves = None,
            }
            let entry = c.groups.iter_mut().find(|(i, _)| *i == gi);
            match (entry, t.layers) {
                (None, l) => c.groups.push((gi, l)),
                (Some((_, Some(have))), Some(more)) => have.extend(more),
                (Some((_, l)), None) => *l = None,
                (Some((_, None)), Some(_)) => {}
            }
        }
    }
    c
}

/// Contiguous runs of a set of layers, as `fp8_layers` entries.
fn runs(kind: &str, layers: &[u64]) -> Vec<Fp8Layers> {
    let mut out: Vec<Fp8Layers> = Vec::new();
    for &l in crate::units::sorted_set(layers.iter().copied()).iter() {
        match out.last_mut() {
            Some(r) if r.last + 1 == l => r.last = l,
            _ => out.push(Fp8Layers {
                kind: kind.to_string(),
                first: l,
                last: l,
            }),
        }
    }
    out
}

fn refuse(kind: &str, what: &str) -> Error {
    Error::field("quantization_config.config_groups", kind, what).with_hint(
        "decodecalc reads one method per checkpoint with fp8 carve-outs by kind or layer: \
         the experts' (else the MLP's) group's scheme, fp8 groups for other kinds or layers",
    )
}

/// The [`WeightQuant`] of `groups` (none empty), the `unquantized` kinds of
/// its ignore list added.
pub(super) fn by_group(groups: &[Group], unquantized: Vec<String>) -> Result<WeightQuant> {
    let covers: Vec<(&str, Cover)> = KINDS.iter().map(|k| (*k, cover(groups, k))).collect();
    let primary = ["experts", "mlp"]
        .iter()
        .find_map(|k| {
            covers
                .iter()
                .find(|(c, _)| c == k)
                .and_then(|(_, c)| c.decides())
        })
        .unwrap_or(0);
    let Some(main) = groups.get(primary) else {
        return Err(refuse("(none)", "at least one group with weights"));
    };
    let mut q = main.scheme.clone();
    q.unquantized = unquantized;
    let scheme = |g: usize| groups.get(g).map(|x| &x.scheme);
    let same = |a: usize, b: usize| a == b || scheme(a) == scheme(b);
    let fp8 = |g: usize| scheme(g).is_some_and(|s| s.method == QuantMethod::Fp8);
    for (kind, c) in &covers {
        // The group that covers the kind in every layer, else the one
        // naming the most layers, decides its scheme.
        let whole = c.whole();
        let Some(decides) = c.decides() else {
            if *kind != "lm_head" {
                q.unquantized.push(kind.to_string());
            }
            continue;
        };
        if *kind == "lm_head" {
            q.lm_head_quantized = true;
        }
        if !same(decides, primary) {
            if !fp8(decides) {
                return Err(refuse(kind, "the experts' or MLP's scheme, or fp8"));
            }
            q.fp8_kinds.push(kind.to_string());
            if main.scheme.method != QuantMethod::Fp8 {
                q.block = q.block.or(groups.get(decides).and_then(|g| g.scheme.block));
            }
        }
        // The other groups' layers: fp8 carve-outs of the deciding scheme
        // (vLLM takes the first target matching a module: a layer list
        // before a whole-kind target, or in place of one).
        for (g, layers) in &c.groups {
            let Some(layers) = layers else { continue };
            if same(*g, decides) || whole.is_some_and(|w| w < *g) {
                continue;
            }
            if !(fp8(*g) && same(decides, primary)) || *kind == "lm_head" {
                return Err(refuse(kind, "fp8 layers inside the method's kind"));
            }
            q.fp8_layers.extend(runs(kind, layers));
        }
        // A fused module none of whose parts is named stays unquantized.
        if let Some(leaves) = &c.leaves {
            for (_, fused, parts) in FUSED.iter().filter(|(k, _, _)| k == kind) {
                if !parts.iter().any(|p| leaves.iter().any(|l| l == p)) {
                    q.unquantized.push(fused.to_string());
                }
            }
        }
    }
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_lists_and_regex_alternations_name_layers() {
        assert_eq!(
            layers_named("model.language_model.layers.12.mlp.up_proj"),
            Some(vec![12])
        );
        assert_eq!(
            layers_named(".*layers.(56|57|63).mlp.(gate|up|down)_proj$"),
            Some(vec![56, 57, 63])
        );
        assert_eq!(layers_named(".*attn.*(wq_b|wo_a)$"), None);
        assert_eq!(runs("mlp", &[57, 56, 63]).len(), 2);
    }
}
