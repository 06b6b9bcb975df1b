//! Reading a checkpoint's `quantization_config` (and ModelOpt's
//! `hf_quant_config.json`) into a [`WeightQuant`]: the method, bits, groups,
//! scales and the modules it leaves unquantized, as vLLM 0.32's quantization
//! configs read them (`vllm/model_executor/layers/quantization/`).

use super::groups::{self, Group};
use super::*;

/// ModelOpt `MIXED_PRECISION`: `quantized_layers` maps each module to its
/// algorithm, read as two groups (NVFP4 and per-tensor FP8) by
/// [`groups::by_group`]: a module it never names stays in the model dtype
/// (vLLM 0.32 `vllm/model_executor/layers/quantization/modelopt.py`,
/// `ModelOptMixedPrecisionConfig.get_quant_method`).
fn modelopt_mixed(
    layers: &serde_json::Map<String, serde_json::Value>,
    unquantized: Vec<String>,
) -> Result<WeightQuant> {
    let mut nvfp4 = Vec::new();
    let mut fp8 = Vec::new();
    for (name, spec) in layers {
        let algo = spec
            .get("quant_algo")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_ascii_uppercase();
        match algo.as_str() {
            a if a.contains("NVFP4") => nvfp4.push(name.clone()),
            "FP8" => fp8.push(name.clone()),
            other => {
                return Err(Error::field(
                    format!("quantization_config.quantized_layers.{name}.quant_algo"),
                    other,
                    "NVFP4, W4A16_NVFP4 or FP8",
                ))
            }
        }
    }
    let mut per_tensor_fp8 = WeightQuant::for_method(QuantMethod::Fp8);
    per_tensor_fp8.per_tensor = true;
    let groups = [
        Group {
            scheme: WeightQuant::for_method(QuantMethod::Nvfp4),
            targets: nvfp4,
        },
        Group {
            scheme: per_tensor_fp8,
            targets: fp8,
        },
    ];
    let groups: Vec<Group> = groups
        .into_iter()
        .filter(|g| !g.targets.is_empty())
        .collect();
    groups::by_group(&groups, unquantized)
}

/// The module kind or name an ignore pattern of a `quantization_config`
/// names (`model.layers.*.self_attn` -> `attention`), None for routers.
/// Names that mark a multimodal encoder's modules in unquantized-module lists.
const ENCODER_PATTERNS: [&str; 7] = [
    "vision",
    "visual",
    "multi_modal",
    "mm_projector",
    "image",
    "audio",
    "patch_embed",
];

/// The kind names an unquantized-module list entry can map to
/// ([`ignored_kind`]); any other entry must name a module of the model.
pub(super) const KIND_NAMES: [&str; 9] = [
    "mtp",
    "norm",
    "attention",
    "mamba",
    "mlp",
    "experts",
    "lm_head",
    "embed_tokens",
    "encoder",
];

pub(super) fn ignored_kind(pattern: &str) -> Option<String> {
    // A compressed-tensors regex (`re:.*\.mlp\.gate$`) is read as the
    // module path it matches: its end anchor and escaped dots dropped.
    let p = pattern
        .to_ascii_lowercase()
        .trim_end_matches('$')
        .replace("\\.", ".");
    let leaf = p
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .trim_start_matches(['*', '^']);
    // One part of a module the model holds fused (`linear_attn.in_proj_a`):
    // the fused module (vLLM refuses a layer whose parts differ).
    if let Some((_, fused, _)) = groups::FUSED
        .iter()
        .find(|(_, _, parts)| parts.contains(&leaf))
    {
        return Some(fused.to_string());
    }
    // A regex anchored at a container (`re:.*linear_attn$`) matches that
    // module only, which is no linear layer: it leaves every weight as is
    // (compressed-tensors' `should_ignore_layer` is asked for linear layers).
    if pattern.starts_with("re:")
        && pattern.ends_with('$')
        && ["linear_attn", "self_attn", "attn", "mlp", "mixer"].contains(&leaf)
    {
        return None;
    }
    // A whole decoder layer (`model.layers.61*`): DeepSeek's MTP layer sits
    // at index num_hidden_layers ([`WeightQuant::mtp_quantized`]).
    if let Some(index) = p
        .strip_suffix('*')
        .and_then(|q| q.rsplit_once("layers."))
        .map(|(_, n)| n.trim_end_matches('.'))
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    {
        return Some(format!("layers.{index}"));
    }
    let name = if p.contains("mtp") || p.contains("nextn") {
        // The multi-token-prediction modules (Qwen3.5's `mtp.*`).
        "mtp"
    } else if p.contains("lm_head") {
        "lm_head"
    } else if p.contains("embed") {
        "embed_tokens"
    } else if p.contains("router")
        || p == "gate"
        || (p.ends_with(".gate") && !p.contains("gate_proj"))
        || p.contains("e_score_correction_bias")
        // The multi-token-prediction layer's modules (GLM-5's `eh_proj`),
        // which vLLM loads only for speculative decoding.
        || p.ends_with("eh_proj")
        || p.ends_with("enorm")
        || p.ends_with("hnorm")
    {
        // The router and its score bias (MiniMax-M2 lists both): never
        // quantized anyway.
        return None;
    } else if p.contains("norm") {
        // Norm weights are never quantized.
        "norm"
    } else if ENCODER_PATTERNS.iter().any(|e| p.contains(e)) {
        // Vision and audio encoders, which stay in the model dtype anyway.
        "encoder"
    } else if p.contains("self_attn") || p.contains("attention") || p.ends_with("attn") {
        "attention"
    } else if p.contains("mixer") || p.contains("mamba") || p.contains("linear_attn") {
        "mamba"
    } else if p.contains("shared_expert") {
        "mlp"
    } else if p.contains("experts") {
        "experts"
    } else if p.contains("mlp") {
        "mlp"
    } else {
        return Some(pattern.rsplit('.').next().unwrap_or(pattern).to_string());
    };
    Some(name.to_string())
}

/// Read a checkpoint's `quantization_config` (AWQ, GPTQ, compressed-tensors
/// int/fp8/nvfp4, fp8 with or without block scales, MXFP4, ModelOpt NVFP4).
pub fn from_hf_config(qc: &Value) -> Result<WeightQuant> {
    let qc = QuantConfig(qc);
    let method = qc
        .get("quant_method")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_ascii_lowercase();
    let mut q = match method.as_str() {
        "awq" => qc.awq()?,
        "gptq" => qc.gptq()?,
        "fp8" => qc.fp8(),
        "mxfp4" => {
            let mut q = WeightQuant::for_method(QuantMethod::Mxfp4);
            q.unquantized = qc.list("modules_to_not_convert");
            q
        }
        "modelopt" | "modelopt_fp4" => match qc.modelopt()? {
            ModelOpt::Whole(q) => q,
            ModelOpt::Mixed(q) => return Ok(q),
        },
        "compressed-tensors" => qc.compressed_tensors()?,
        "bitsandbytes" => qc.bitsandbytes(),
        other => {
            return Err(Error::field(
                "quantization_config.quant_method",
                other,
                "awq, gptq, compressed-tensors, fp8, mxfp4, modelopt or bitsandbytes",
            ))
        }
    };
    // Each kind once, in order: the list maps to a few kind names, so the
    // set stays small however long the config's list is.
    q.unquantized = crate::units::sorted_set(std::mem::take(&mut q.unquantized));
    q.validate()?;
    Ok(q)
}

/// The weights of the checkpoint a config.json describes: its
/// `quantization_config` ([`crate::config::quantization_config`]) read by
/// [`from_hf_config`], with the rules of the architectures whose vLLM
/// classes read more of the config ([`deepseek_v4`]). None: unquantized.
pub fn from_config_json(root: &Value) -> Result<Option<WeightQuant>> {
    let Some(qc) = crate::config::quantization_config(root) else {
        return Ok(None);
    };
    let q = from_hf_config(qc)?;
    let v4 = root
        .get("architectures")
        .and_then(Value::as_array)
        .is_some_and(|a| {
            a.iter()
                .any(|n| n.as_str() == Some("DeepseekV4ForCausalLM"))
        });
    Ok(Some(if v4 { deepseek_v4(root, qc, q)? } else { q }))
}

/// DeepSeek-V4's checkpoints (vLLM 0.32):
/// - `quant_method: fp8` becomes `deepseek_v4_fp8`
///   (`vllm/model_executor/models/config.py`, `DeepseekV4ForCausalLMConfig`;
///   `vllm/models/deepseek_v4/quant_config.py`, `DeepseekV4FP8Config`):
///   the linears fp8 with their 128 x 128 block scales, the routed experts
///   MXFP4 (`Mxfp4MoEMethod`) unless `expert_dtype` is `"fp8"` (missing
///   means `"fp4"`).
/// - compressed-tensors with an fp8 group and an NVFP4 group
///   (RedHatAI/DeepSeek-V4-Flash-NVFP4-FP8: `attn.*(fused_wqa_wkv|wq_b|wo_a|wo_b)`
///   fp8 with 128 x 128 blocks, `ffn.*(gate|up|down)_proj`, the routed and
///   shared experts, NVFP4): vLLM applies each group's scheme to its
///   targets, so the model is NVFP4 with fp8-block attention. Only this
///   family's configs are read group by group here; other compressed-tensors
///   configs keep their first group's scheme.
fn deepseek_v4(root: &Value, qc: &Value, q: WeightQuant) -> Result<WeightQuant> {
    let native_fp8 = qc.get("quant_method").and_then(Value::as_str) == Some("fp8");
    match q.method {
        QuantMethod::Fp8
            if native_fp8 && root.get("expert_dtype").and_then(Value::as_str) != Some("fp8") =>
        {
            let mut v4 = WeightQuant::for_method(QuantMethod::Mxfp4);
            v4.fp8_kinds = vec!["attention".into(), "mlp".into()];
            v4.block = q.block;
            v4.unquantized = q.unquantized;
            Ok(v4)
        }
        QuantMethod::Fp8 | QuantMethod::Nvfp4 if !native_fp8 => {
            let groups: Vec<&Value> = qc
                .get("config_groups")
                .and_then(Value::as_object)
                .map(|g| g.values().collect())
                .unwrap_or_default();
            let scheme = |bits: u64| {
                groups.iter().copied().find(|g| {
                    g.get("weights")
                        .and_then(|w| w.get("num_bits"))
                        .and_then(Value::as_u64)
                        == Some(bits)
                })
            };
            let (Some(fp8), Some(_)) = (scheme(8), scheme(4)) else {
                return Ok(q);
            };
            if !group_targets(fp8).iter().all(|t| t.contains("attn")) {
                return Err(Error::field(
                    "quantization_config.config_groups",
                    "(fp8 group)",
                    "fp8 targets in the attention only, as RedHatAI's NVFP4-FP8 build has them",
                ));
            }
            let mut v4 = WeightQuant::for_method(QuantMethod::Nvfp4);
            v4.fp8_kinds = vec!["attention".into()];
            v4.block = fp8
                .get("weights")
                .and_then(|w| w.get("block_structure"))
                .and_then(Value::as_array)
                .and_then(|b| match b.as_slice() {
                    [o, i] => Some([o.as_u64()?, i.as_u64()?]),
                    _ => None,
                });
            v4.unquantized = q.unquantized;
            Ok(v4)
        }
        _ => Ok(q),
    }
}

/// A ModelOpt config: one scheme for the model, or each layer's
/// (`MIXED_PRECISION`, read whole by [`modelopt_mixed`]).
enum ModelOpt {
    Whole(WeightQuant),
    Mixed(WeightQuant),
}

/// A `quantization_config` object, read field by field.
struct QuantConfig<'a>(&'a Value);

impl<'a> QuantConfig<'a> {
    /// The field `k`, None where absent or null.
    fn get(&self, k: &str) -> Option<&'a Value> {
        self.0.get(k).filter(|v| !v.is_null())
    }

    /// A whole number (`k` names it in errors), `d` where absent.
    fn num(v: Option<&Value>, k: &str, d: u64) -> Result<u64> {
        match v {
            None => Ok(d),
            Some(x) => x.as_u64().ok_or_else(|| {
                Error::field(format!("quantization_config.{k}"), x, "a whole number")
            }),
        }
    }

    /// The module kinds (or names) a list of unquantized modules names.
    fn list(&self, k: &str) -> Vec<String> {
        self.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .filter_map(ignored_kind)
                    .collect()
            })
            .unwrap_or_default()
    }

    fn flag(&self, k: &str) -> Option<bool> {
        self.get(k).and_then(Value::as_bool)
    }

    fn awq(&self) -> Result<WeightQuant> {
        let mut q = WeightQuant::for_method(QuantMethod::Awq);
        q.bits = Self::num(self.get("bits").or(self.get("w_bit")), "bits", 4)?;
        q.group_size = Some(Self::num(
            self.get("group_size").or(self.get("q_group_size")),
            "group_size",
            128,
        )?);
        q.zero_point = self.flag("zero_point").unwrap_or(true);
        q.unquantized = self.list("modules_to_not_convert");
        Ok(q)
    }

    fn gptq(&self) -> Result<WeightQuant> {
        let mut q = WeightQuant::for_method(QuantMethod::Gptq);
        q.bits = Self::num(self.get("bits"), "bits", 4)?;
        q.group_size = match self.get("group_size").and_then(Value::as_i64) {
            Some(g) if g > 0 => Some(g as u64),
            _ => None,
        };
        q.zero_point = !self.flag("sym").unwrap_or(true);
        q.lm_head_quantized = self.flag("lm_head").unwrap_or(false);
        Ok(q)
    }

    fn fp8(&self) -> WeightQuant {
        let mut q = WeightQuant::for_method(QuantMethod::Fp8);
        if let Some(b) = self.get("weight_block_size").and_then(Value::as_array) {
            let v: Vec<u64> = b.iter().filter_map(Value::as_u64).collect();
            if let [bo, bi] = v.as_slice() {
                q.block = Some([*bo, *bi]);
            }
        }
        q.unquantized = self.list("ignored_layers");
        q.unquantized.extend(self.list("modules_to_not_convert"));
        q
    }

    fn modelopt(&self) -> Result<ModelOpt> {
        let algo = self
            .get("quant_algo")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_ascii_uppercase();
        let mut q = match algo.as_str() {
            "NVFP4" => WeightQuant::for_method(QuantMethod::Nvfp4),
            "FP8" => WeightQuant::for_method(QuantMethod::Fp8),
            "MIXED_PRECISION" => {
                let layers = self
                    .get("quantized_layers")
                    .and_then(Value::as_object)
                    .ok_or_else(|| {
                        Error::new("missing field `quantization_config.quantized_layers`")
                            .with_hint(
                            "a MIXED_PRECISION ModelOpt config lists each layer's quant_algo there",
                        )
                    })?;
                // Its `ignore` list names what no layer entry covers (the
                // MTP modules); the kinds are decided by the layers.
                let mtp = ["ignore", "exclude_modules"]
                    .iter()
                    .flat_map(|k| self.list(k))
                    .filter(|u| u == "mtp" || u.starts_with("layers."))
                    .collect();
                let q = modelopt_mixed(layers, mtp)?;
                return Ok(ModelOpt::Mixed(q));
            }
            other => {
                return Err(Error::field(
                    "quantization_config.quant_algo",
                    other,
                    "NVFP4, FP8 or MIXED_PRECISION",
                ))
            }
        };
        q.unquantized = self.list("exclude_modules");
        Ok(ModelOpt::Whole(q))
    }

    /// Every group's scheme applied to its targets ([`groups::by_group`]);
    /// a group without weights (activations only) and vLLM's skipped
    /// attention-only groups (one target ending `Attention`) set none.
    fn compressed_tensors(&self) -> Result<WeightQuant> {
        let mut groups = Vec::new();
        for g in self
            .get("config_groups")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|g| g.values())
        {
            let targets = group_targets(g);
            if matches!(targets.as_slice(), [t] if t.ends_with("Attention")) {
                continue;
            }
            let Some(weights) = g.get("weights").filter(|w| !w.is_null()) else {
                continue;
            };
            groups.push(Group {
                scheme: Self::ct_scheme(weights)?,
                targets,
            });
        }
        if groups.is_empty() {
            return Err(
                Error::new("quantization_config.config_groups has no group with `weights`")
                    .with_hint("a compressed-tensors config lists its weight scheme under config_groups.group_0.weights"),
            );
        }
        groups::by_group(&groups, self.list("ignore"))
    }

    /// One compressed-tensors group's weight scheme.
    fn ct_scheme(weights: &Value) -> Result<WeightQuant> {
        let bits = Self::num(weights.get("num_bits"), "num_bits", 8)?;
        let float = weights.get("type").and_then(Value::as_str) == Some("float");
        let group = weights.get("group_size").and_then(Value::as_u64);
        Ok(match (float, bits) {
            (true, 8) => {
                let mut q = WeightQuant::for_method(QuantMethod::Fp8);
                // `strategy: block`: one fp32 scale per `block_structure`
                // block of `[out, in]` weights (Laguna-XS.2-FP8: 128 x 128),
                // as `weight_block_size` gives it for `fp8` checkpoints.
                if weights.get("strategy").and_then(Value::as_str) == Some("block") {
                    let b: Vec<u64> = weights
                        .get("block_structure")
                        .and_then(Value::as_array)
                        .map(|a| a.iter().filter_map(Value::as_u64).collect())
                        .unwrap_or_default();
                    if let [bo, bi] = b.as_slice() {
                        q.block = Some([*bo, *bi]);
                    }
                }
                q
            }
            (true, 4) => WeightQuant::for_method(QuantMethod::Nvfp4),
            (false, b) => {
                let mut q = WeightQuant::for_method(QuantMethod::CompressedTensors);
                q.bits = b;
                q.group_size = group;
                q.zero_point = !weights
                    .get("symmetric")
                    .and_then(Value::as_bool)
                    .unwrap_or(true);
                q
            }
            (true, b) => {
                return Err(Error::field(
                    "quantization_config.num_bits",
                    b,
                    "4 or 8 for float weights",
                ))
            }
        })
    }

    fn bitsandbytes(&self) -> WeightQuant {
        let mut q = WeightQuant::for_method(QuantMethod::Bitsandbytes);
        let flag = |k: &str| self.flag(k).unwrap_or(false);
        if flag("load_in_8bit") || flag("_load_in_8bit") {
            q.bits = 8;
            q.group_size = None;
        }
        q.double_quant = flag("bnb_4bit_use_double_quant");
        q.unquantized = self.list("llm_int8_skip_modules");
        q
    }
}

/// A compressed-tensors scheme group's `targets`: the module names or
/// `re:` patterns it applies to (none when absent).
fn group_targets(g: &Value) -> Vec<String> {
    g.get("targets")
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}
