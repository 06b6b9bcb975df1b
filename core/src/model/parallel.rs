//! A model over several GPUs: the part one GPU holds under tensor
//! parallelism (the shard, and its experts' kernel padding) and the stages
//! of pipeline parallelism with the tensors each stage loads.

use super::{
    AttentionLayer, DeltaNetLayer, Layer, Mamba1Layer, Mamba2Layer, MlpLayer, Model, Module,
    ModuleKind, MoeLayer, MtpBlock, ShortConvLayer,
};
use serde::Serialize;

/// One pipeline-parallel stage: decoder layers `start_layer..end_layer` of
/// the model, on stage `rank` of `size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PipelineStage {
    pub rank: u64,
    pub size: u64,
    pub start_layer: u64,
    pub end_layer: u64,
}

impl PipelineStage {
    /// The whole model as one stage.
    pub fn whole(layers: u64) -> PipelineStage {
        PipelineStage {
            rank: 0,
            size: 1,
            start_layer: 0,
            end_layer: layers,
        }
    }

    pub fn is_first(&self) -> bool {
        self.rank == 0
    }

    pub fn is_last(&self) -> bool {
        self.rank + 1 >= self.size
    }

    pub fn layers(&self) -> u64 {
        self.end_layer.saturating_sub(self.start_layer)
    }
}

/// DeepSeek-V4 splits its attention's output groups with the heads
/// (`n_local_groups = o_groups / tp`): a tensor-parallel size that does not
/// divide them is refused.
fn dsv4_output_groups_split(layers: &[Layer], tp: u64) -> crate::error::Result<()> {
    for l in layers {
        let Layer::Attention(a) = l else { continue };
        let Some(v) = a.mla.and_then(|m| m.dsv4) else {
            continue;
        };
        let groups = a.num_heads / v.heads_per_group.max(1);
        if !groups.is_multiple_of(tp) {
            return Err(crate::error::Error::field(
                "--tensor-parallel-size",
                tp,
                format!("a divisor of the model's o_groups ({groups})"),
            ));
        }
    }
    Ok(())
}

impl Model {
    /// The part of the model one GPU holds under tensor parallelism over
    /// `tp` GPUs, as vLLM splits it: attention heads, KV heads (replicated
    /// when fewer than `tp`), Mamba heads and groups (groups replicated when
    /// fewer), DeltaNet heads, MLP and expert intermediate sizes, and the
    /// vocabulary (embedding and lm_head) divide by `tp`; the hidden size and
    /// norms do not.
    pub fn shard(&self, tp: u64) -> crate::error::Result<Model> {
        use crate::error::Error;
        if tp <= 1 {
            return Ok(self.clone());
        }
        let split = |what: &str, n: u64| {
            if n.is_multiple_of(tp) {
                Ok(n / tp)
            } else {
                Err(Error::field(
                    "--tensor-parallel-size",
                    tp,
                    format!("a divisor of the model's {what} ({n})"),
                ))
            }
        };
        let shard_layers = |layers: &[Layer]| -> crate::error::Result<Vec<Layer>> {
            let mut out = Vec::with_capacity(layers.len());
            for l in layers {
                out.push(match *l {
                    Layer::Attention(a) => Layer::Attention(AttentionLayer {
                        num_heads: split("num_attention_heads", a.num_heads)?,
                        num_kv_heads: if a.mla.is_some() {
                            a.num_kv_heads
                        } else {
                            (a.num_kv_heads / tp).max(1)
                        },
                        ..a
                    }),
                    Layer::Mamba2(m) => Layer::Mamba2(Mamba2Layer {
                        num_heads: split("mamba_num_heads", m.num_heads)?,
                        n_groups: (m.n_groups / tp).max(1),
                        ..m
                    }),
                    Layer::Mamba1(m) => Layer::Mamba1(Mamba1Layer {
                        intermediate: split("Mamba intermediate size", m.intermediate)?,
                        ..m
                    }),
                    Layer::DeltaNet(d) => Layer::DeltaNet(DeltaNetLayer {
                        key_heads: (d.key_heads / tp).max(1),
                        value_heads: split("linear_num_value_heads", d.value_heads)?,
                        ..d
                    }),
                    Layer::ShortConv(c) => Layer::ShortConv(ShortConvLayer {
                        dim: split("conv_dim", c.dim)?,
                        ..c
                    }),
                    Layer::Mlp(f) => Layer::Mlp(MlpLayer {
                        intermediate: f.intermediate.div_ceil(tp),
                        ..f
                    }),
                    Layer::Moe(e) => Layer::Moe(MoeLayer {
                        expert_intermediate: e.expert_intermediate.div_ceil(tp),
                        shared_intermediate: e.shared_intermediate.div_ceil(tp),
                        ..e
                    }),
                });
            }
            Ok(out)
        };
        dsv4_output_groups_split(&self.layers, tp)?;
        let layers = shard_layers(&self.layers)?;
        let mtp = match &self.mtp {
            Some(b) => Some(MtpBlock {
                count: b.count,
                layers: shard_layers(&b.layers)?,
            }),
            None => None,
        };
        // Encoders split their projections across the GPUs too.
        let encoder = self
            .encoder
            .iter()
            .map(|m| Module {
                out_features: if m.kind == ModuleKind::Encoder {
                    m.out_features.div_ceil(tp)
                } else {
                    m.out_features
                },
                ..m.clone()
            })
            .collect();
        Ok(Model {
            vocab_size: self.vocab_size.div_ceil(tp),
            layers,
            encoder,
            mtp,
            ..self.clone()
        })
    }

    /// The part of the model one GPU holds with data parallelism and
    /// expert parallelism besides tensor parallelism, as vLLM places the
    /// MoE layers (`FusedMoEParallelConfig.make`,
    /// vllm/model_executor/layers/fused_moe/config.py, 0.11 and 0.32): the
    /// MoE layers span the `tp x dp` GPUs of every replica. Without expert
    /// parallelism each expert's intermediate size is split across all
    /// `tp x dp` of them (tensor parallelism "flattened" across the
    /// replicas); with it each GPU holds `num_experts / (tp x dp)` experts
    /// whole, the first `num_experts % (tp x dp)` ranks one more
    /// (`determine_expert_map`, fused_moe/expert_map_manager.py in 0.32,
    /// layer.py in 0.11): the figure is rank 0's, the GPU with the most.
    /// Everything else, the shared experts included, is split across the
    /// `tp` GPUs of a replica only, except that vLLM keeps the shared
    /// experts whole where the MoE runs sequence parallel (expert
    /// parallelism with `tp > 1` and `dp > 1`:
    /// `ParallelConfig.use_sequence_parallel_moe`, vllm/config/parallel.py;
    /// `DeepseekV2MoE`'s shared experts with `disable_tp`,
    /// models/deepseek_v2.py, 0.32).
    pub fn shard_parallel(&self, tp: u64, dp: u64, ep: bool) -> crate::error::Result<Model> {
        let mut out = self.shard(tp)?;
        let (tp, dp) = (tp.max(1), dp.max(1));
        let span = tp.saturating_mul(dp);
        if span <= 1 || (!ep && dp <= 1) {
            return Ok(out);
        }
        let whole_shared = ep && tp > 1 && dp > 1;
        let place = |full: &MoeLayer, mine: &mut MoeLayer| {
            if ep {
                mine.local_experts = full.num_experts.div_ceil(span);
                mine.expert_intermediate = full.expert_intermediate;
            } else {
                mine.expert_intermediate = full.expert_intermediate.div_ceil(span);
            }
            if whole_shared {
                mine.shared_intermediate = full.shared_intermediate;
            }
        };
        let place_all = |full: &[Layer], mine: &mut [Layer]| {
            for (f, m) in full.iter().zip(mine.iter_mut()) {
                if let (Layer::Moe(f), Layer::Moe(m)) = (f, m) {
                    place(f, m);
                }
            }
        };
        place_all(&self.layers, &mut out.layers);
        if let (Some(full), Some(mine)) = (&self.mtp, out.mtp.as_mut()) {
            place_all(&full.layers, &mut mine.layers);
        }
        Ok(out)
    }

    /// Whether any layer (the MTP block's included) is a mixture of experts.
    pub fn is_moe(&self) -> bool {
        let moe = |ls: &[Layer]| ls.iter().any(|l| matches!(l, Layer::Moe(_)));
        moe(&self.layers) || self.mtp.as_ref().is_some_and(|b| moe(&b.layers))
    }

    /// The stages of pipeline parallelism over `pp` stages, as vLLM splits
    /// the decoder layers (`get_pp_indices`, vllm/distributed/utils.py, read
    /// at its newest stored version; `VLLM_PP_LAYER_PARTITION` is not
    /// modelled): `layers / pp` each, and the remainder one more each on the
    /// stages before the last, starting from the second-to-last. The first
    /// stage holds the embedding, the last the final norm and `lm_head`
    /// (with tied embeddings the last stage holds its own copy of the table as
    /// `lm_head`).
    pub fn pipeline_stages(&self, pp: u64) -> crate::error::Result<Vec<PipelineStage>> {
        use crate::error::Error;
        let n = self.decoder_layers().len() as u64;
        if pp == 0 || pp > n {
            return Err(Error::field(
                "--pipeline-parallel-size",
                pp,
                format!(
                    "between 1 and the model's {n} decoder layers (each pipeline stage needs at least one layer)"
                ),
            ));
        }
        let base = n / pp;
        let rem = n % pp;
        let mut start = 0;
        let mut stages = Vec::new();
        for rank in 0..pp {
            // Stage indices pp-2, pp-3, ..., pp-1-rem get one more layer.
            let extra = u64::from(rank + 1 < pp && rank + 1 + rem >= pp);
            let count = base + extra;
            stages.push(PipelineStage {
                rank,
                size: pp,
                start_layer: start,
                end_layer: start + count,
            });
            start += count;
        }
        Ok(stages)
    }

    /// What one pipeline stage holds: its decoder layers (the embedding and
    /// `lm_head` are chosen in [`Model::stage_modules`]).
    pub fn stage(&self, stage: &PipelineStage) -> Model {
        let ranges = self.decoder_layers();
        let pick = |i: u64| usize::try_from(i).ok().and_then(|i| ranges.get(i)).cloned();
        let layers = match (
            pick(stage.start_layer),
            stage.end_layer.checked_sub(1).and_then(pick),
        ) {
            (Some(a), Some(b)) => self.layers.get(a.start..b.end).unwrap_or_default().to_vec(),
            _ => Vec::new(),
        };
        Model {
            layers,
            ..self.clone()
        }
    }

    /// The weight tensors of `self` (a stage's model) on that stage: the
    /// embedding on the first stage, `lm_head` and the final norm on the
    /// last; with tied embeddings the last stage loads the table into its
    /// own `lm_head`.
    pub fn stage_modules(
        &self,
        stage: &PipelineStage,
        quant: &crate::quant::WeightQuant,
    ) -> Vec<Module> {
        let (first, last) = (stage.is_first(), stage.is_last());
        let mut out = Vec::new();
        for m in quant.modules_of(self, stage.start_layer) {
            match m.kind {
                ModuleKind::Embedding => {
                    if first {
                        out.push(m.clone());
                    }
                    if last && !first && self.tie_word_embeddings {
                        out.push(Module {
                            name: "lm_head",
                            kind: ModuleKind::LmHead,
                            ..m
                        });
                    }
                }
                ModuleKind::LmHead if !last => {}
                _ if m.name == "final_norm" && !last => {}
                _ => out.push(m),
            }
        }
        out
    }

    /// Round every MoE layer's expert intermediate size up to a multiple of
    /// `align` (kernel padding of the per-GPU shard).
    pub fn pad_expert_intermediate(&mut self, align: u64) {
        for l in &mut self.layers {
            if let Layer::Moe(e) = l {
                e.expert_intermediate = e.expert_intermediate.div_ceil(align.max(1)) * align.max(1);
            }
        }
    }
}
