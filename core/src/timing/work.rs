//! The model's work: what one token costs a model on a GPU in bytes read
//! and FLOPs, from its shapes, its weights as the checkpoint quantizes them
//! (each read by a [`WeightKernel`] family), its experts and its KV layout;
//! and [`Work`], that cost with the machine and the schedule settings a
//! step's time also depends on.

use super::machine::{Machine, NativeLowPrecision, WeightKernel};
use super::schedule::Schedule;
use crate::allocator::{GroupKind, KvLayout};
use crate::engine::EngineArgs;
use crate::gpu::Gpu;
use crate::model::Model;
use crate::model::{Layer, ModuleKind};
use crate::quant::WeightQuant;
use serde::Serialize;

/// One MoE layer's experts as a step reads them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MoeRead {
    pub experts: u64,
    /// Experts this GPU holds (fewer than `experts` under expert
    /// parallelism: it reads only the touched ones among them).
    pub local_experts: u64,
    pub top_k: u64,
    /// Bytes of one expert.
    pub expert_bytes: u64,
    /// The GEMM kernel family its weights stream through.
    pub kernel: WeightKernel,
    /// Its experts' shape on this GPU, as the fused-MoE kernels see it.
    pub shape: super::MoeShape,
    /// The fused-MoE kernel format its experts run as, where measured
    /// kernels exist for it (16-bit, fp8, NVFP4, MXFP4; None for the
    /// integer weight-only formats).
    pub format: Option<super::MoeFormat>,
}

/// What one token costs a model, from its shapes, weights and KV layout.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelCost {
    /// Bytes read once per step by 16-bit GEMMs: every weight but the
    /// embedding table, encoders, buffers and the quantized layers.
    pub dense_weight_bytes: u64,
    /// Bytes read once per step by dequantizing weight-only GEMMs.
    pub quant_weight_bytes: u64,
    /// Bytes read once per step by fp8 / NVFP4 GEMMs.
    pub fp8_weight_bytes: u64,
    /// Layers a step runs through (each pays `layer_us`).
    pub layers: u64,
    /// Dequantizing GEMM kernels per step (each at least `quant_gemm_floor_us`):
    /// two per layer whose projections are quantized (vLLM fuses q/k/v and
    /// gate/up).
    pub quant_gemms: u64,
    /// Those of them in MoE layers' experts: a measured fused-MoE kernel
    /// prices those layers whole, floor included, so they pay no
    /// dequantizing floor of their own there (`Work::weights_s`).
    pub expert_quant_gemms: u64,
    /// FLOPs per decoded token in linear layers (lm_head included).
    pub decode_flops_per_token: f64,
    /// FLOPs per prefilled token: linear layers without lm_head, plus the Mamba scan.
    pub prefill_flops_per_token: f64,
    /// Mamba state bytes read and written per sequence per step.
    pub state_bytes_per_seq: u64,
    /// Gated-delta-net layers among the recurrent ones (their decode runs
    /// the measured GDN kernels where the GPU has them).
    pub gdn_layers: u64,
    /// KV bytes read per token of context in full-attention layers.
    pub kv_bytes_per_token: u64,
    /// KV bytes per token in sliding-window layers, with their windows.
    pub sliding_kv: Vec<(u64, u64)>,
    /// Attention FLOPs per (query, key) pair summed over attention layers.
    pub attn_flops_per_pair: f64,
    /// Query heads summed over attention layers: a prompt token's query
    /// rows in prefill attention.
    pub attn_query_heads: u64,
    /// Layers that end in an all-reduce under tensor parallelism, and the
    /// hidden size reduced (also what a pipeline boundary sends).
    pub allreduce_layers: u64,
    pub hidden_size: u64,
    /// All-reduces a step makes for norms that span every attention head
    /// (MiniMax-M2's q and k), and the fp32 bytes each reduces per token
    /// ([`norm_allreduces`]); made only under tensor parallelism.
    pub norm_allreduces: u64,
    pub norm_allreduce_token_bytes: u64,
    pub moe_layers: Vec<MoeRead>,
    /// The routing of each distinct (experts, top_k) shape among
    /// `moe_layers`, its per-rank terms worked out once.
    #[serde(skip)]
    pub routings: Vec<super::Routing>,
    /// GEMM calls a step makes through the 16-bit and low-precision
    /// kernels (each pays its kernel's floor when the GPU has kernel
    /// figures): two per layer (vLLM fuses q/k/v and gate/up; a mixer's
    /// in and out projections), the lm_head, less the dequantizing ones.
    pub gemms: u64,
    /// Attention layers whose decode attention is one kernel call each.
    pub attention_layers: u64,
    /// The format of the low-precision weights (`fp8_weight_bytes`).
    pub low_precision_format: super::GemmFormat,
    /// The weight-only format the dequantizing GEMMs (`quant_weight_bytes`)
    /// run as, by the checkpoint's bits: None for another width.
    pub quant_format: Option<super::GemmFormat>,
    /// FLOPs per token in routed experts (part of both FLOP counts above;
    /// the fused-MoE kernel's own when the GPU has MoE figures).
    pub expert_flops_per_token: f64,
}

/// What one token costs a model on a GPU: the model's cost, the machine it
/// runs on and the engine's schedule settings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Work {
    #[serde(flatten)]
    pub model: ModelCost,
    #[serde(flatten)]
    pub machine: Machine,
    #[serde(flatten)]
    pub schedule: Schedule,
    /// Speculative decoding's share of a step; None without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<SpecWork>,
    /// The KV cache's blocks a serving run shares out, when the pool is
    /// known ([`Work::of_plan`]): the serving simulation admits a request
    /// while its blocks are free and preempts as running requests grow, as
    /// vLLM's scheduler does. None: no block limit.
    #[serde(skip)]
    pub kv: Option<KvBudget>,
}

/// The KV cache's blocks as the scheduler allocates them: the layout (how
/// many blocks a request of so many tokens holds, every KV group counted)
/// and the blocks there are.
#[derive(Clone, Debug, PartialEq)]
pub struct KvBudget {
    pub layout: KvLayout,
    pub usable_blocks: u64,
}

impl KvBudget {
    /// Blocks one request holds at `tokens` tokens (prompt and output so
    /// far), none shared.
    pub fn request_blocks(&self, tokens: u64) -> u64 {
        self.layout.request_blocks(tokens)
    }
}

/// Speculative decoding in a decode step (`crate::speculative`): the target
/// verifies `k + 1` tokens per running request, the drafter proposes `k`,
/// and each request gains the mean acceptance length of tokens.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpecWork {
    pub num_speculative_tokens: u64,
    /// Drafter passes a step: `k` (one per draft token), one for DFlash
    /// ([`crate::speculative::Speculative::drafter_passes`]).
    pub drafter_passes: u64,
    pub mean_acceptance_length: f64,
    /// The MTP drafter as a model of its own (its decoder layer, `eh_proj`
    /// and the shared `lm_head`), which runs `k` passes a step: the first
    /// over every token the target ran, the others over one token per
    /// request (vLLM 0.32 `vllm/v1/spec_decode/eagle.py`, `propose`). None
    /// for drafters that run on the host (n-gram, suffix).
    pub draft: Option<Box<Work>>,
    /// Fixed time each drafter pass adds beyond its kernels' bytes and
    /// FLOPs (its graph launch, the draft sampling, the next pass's inputs),
    /// and the verify step's rejection sampling: [`super::spec_pass_overhead_s`].
    pub pass_overhead_s: f64,
}

impl Work {
    /// `model` is what one GPU holds (`Plan::per_gpu`).
    pub fn new(
        model: &Model,
        quant: &WeightQuant,
        engine: &EngineArgs,
        gpu: &Gpu,
        layout: &KvLayout,
    ) -> Work {
        let mut machine = Machine::of(gpu, engine);
        // DeepSeek-V4's attention is its own sparse MLA kernel whatever the
        // KV dtype (every fp8 dtype is its fp8_ds_mla layout, `allocator::
        // dsv4`): never the Triton kernel a per-token-head dtype selects.
        if model.has_dsv4_attention() {
            machine.attention_kernel = super::AttnKernel::Flash;
        }
        machine.moe_parallel.sequence_parallel = engine.sequence_parallel_moe(&model.architecture);
        Work {
            model: ModelCost::new(model, quant, engine, layout, NativeLowPrecision::of(gpu)),
            machine,
            schedule: Schedule::of(engine, layout),
            spec: engine.speculative.as_ref().map(|s| SpecWork {
                num_speculative_tokens: s.num_speculative_tokens,
                drafter_passes: s.drafter_passes(),
                mean_acceptance_length: s.mean_acceptance_length(),
                draft: mtp_draft(model, quant, engine, gpu, layout).map(Box::new),
                pass_overhead_s: super::spec_pass_overhead_s(gpu.calibration_class()),
            }),
            kv: None,
        }
    }

    /// The work of a resolved plan: what one GPU holds, in the weight layout
    /// in force, on the plan's KV layout, with its pool's blocks.
    pub fn of_plan(plan: &crate::scenario::Plan, cap: &crate::scenario::Capacity) -> Work {
        let quant = plan.engine.weight_quant(&plan.model.quant);
        Work {
            kv: Some(KvBudget {
                layout: cap.layout.clone(),
                usable_blocks: cap.pool.usable_blocks,
            }),
            ..Work::new(&plan.per_gpu, &quant, &plan.engine, &plan.gpu, &cap.layout)
        }
    }

    /// Bytes a one-token step reads in weights (every kernel family).
    pub fn weight_read_bytes(&self) -> u64 {
        self.model.weight_read_bytes()
    }

    /// KV bytes one sequence at `context_tokens` reads per step.
    pub fn kv_bytes(&self, context_tokens: f64) -> f64 {
        self.model.kv_bytes(context_tokens)
    }
}

/// The drafter's work: a draft model's own (`method: draft_model`), or,
/// when speculative decoding runs the model's MTP block, one module's layers (every module has the same shape; the passes
/// cycle through them), its `eh_proj` (2h -> h, the weights of an ungated
/// h-wide MLP, counted as one) and the target's `lm_head`, at the
/// checkpoint's quantization unless it leaves the MTP modules unquantized.
fn mtp_draft(
    model: &Model,
    quant: &WeightQuant,
    engine: &EngineArgs,
    gpu: &Gpu,
    layout: &KvLayout,
) -> Option<Work> {
    let spec = engine.speculative.as_ref()?;
    let plain = EngineArgs {
        speculative: None,
        ..engine.clone()
    };
    if let Some(drafter) = spec.drafter_per_gpu(engine.tensor_parallel_size, model.dtype) {
        let q = spec.drafter.as_ref()?.quant.clone();
        return Some(Work::new(&drafter.ok()?, &q, &plain, gpu, layout));
    }
    if spec.mtp_modules == 0 {
        return None;
    }
    let block = model.mtp.as_ref()?;
    let mut layers = block.layers.clone();
    layers.push(Layer::Mlp(crate::model::MlpLayer {
        intermediate: model.hidden_size,
        gated: false,
    }));
    let draft = Model {
        layers,
        encoder: Vec::new(),
        mtp: None,
        ..model.clone()
    };
    let q = quant.for_mtp(model.decoder_layers().len() as u64);
    Some(Work::new(&draft, &q, &plain, gpu, layout))
}

/// All-reduces per step for q/k norms over every head, and the bytes each
/// reduces per token: each such layer reduces every token's fp32 sum of
/// squares of q and of k, in one call from
/// [`crate::version::QK_NORM_ONE_ALLREDUCE`] (the two sums together) and in
/// two before (vLLM `MiniMaxText01RMSNormTP`, model_executor/layers/mamba/
/// linear_attn.py; 0.32 moves it to layers/minimax_rms_norm/rms_norm_tp.py,
/// where CUDA builds fuse the reduction with the norm, still one call).
fn norm_allreduces(model: &Model, engine: &EngineArgs) -> (u64, u64) {
    let layers = model
        .layers
        .iter()
        .filter(|l| matches!(l, Layer::Attention(a) if a.qk_norm_across_heads))
        .count() as u64;
    if engine.vllm_version >= crate::version::QK_NORM_ONE_ALLREDUCE {
        (layers, 8)
    } else {
        (2 * layers, 4)
    }
}

/// One [`super::Routing`] per distinct routing shape of `layers`, at
/// [`super::ROUTING_POWER_LAW_ALPHA`].
fn routings_of(layers: &[MoeRead]) -> Vec<super::Routing> {
    let mut out: Vec<super::Routing> = Vec::new();
    for m in layers {
        if !out
            .iter()
            .any(|r| (r.experts, r.top_k) == (m.experts, m.top_k))
        {
            out.push(super::Routing::new(
                m.experts,
                m.top_k,
                super::ROUTING_POWER_LAW_ALPHA,
            ));
        }
    }
    out
}

impl ModelCost {
    /// The cost of `model` (what one GPU holds) in `quant`'s weight layout,
    /// on `layout`, its low-precision GEMMs run as `native` says.
    pub fn new(
        model: &Model,
        quant: &WeightQuant,
        engine: &EngineArgs,
        layout: &KvLayout,
        native: NativeLowPrecision,
    ) -> ModelCost {
        let WeightReads {
            dense: dense_weight_bytes,
            dequantized: quant_weight_bytes,
            low_precision: fp8_weight_bytes,
            linear_params,
            lm_head_params,
        } = weight_reads(model, quant, native);
        let (moe_layers, active_expert_params) = moe_reads(model, quant, native);
        let LayerCosts {
            state_bytes_per_seq,
            scan_flops,
            attn_flops_per_pair,
            attn_query_heads,
        } = layer_costs(model, layout);
        let (kv_bytes_per_token, sliding_kv) = kv_reads(model, engine, layout);
        let (norm_allreduces, norm_allreduce_token_bytes) = norm_allreduces(model, engine);
        let linear = (linear_params as f64 + active_expert_params) * 2.0;
        ModelCost {
            dense_weight_bytes,
            quant_weight_bytes,
            fp8_weight_bytes,
            layers: model.layers.len() as u64,
            quant_gemms: quant_gemm_count(model, quant, false),
            expert_quant_gemms: quant_gemm_count(model, quant, true),
            decode_flops_per_token: linear + 2.0 * lm_head_params as f64,
            prefill_flops_per_token: linear + scan_flops,
            state_bytes_per_seq,
            gdn_layers: model
                .layers
                .iter()
                .filter(|l| matches!(l, Layer::DeltaNet(_)))
                .count() as u64,
            kv_bytes_per_token,
            sliding_kv,
            attn_flops_per_pair,
            attn_query_heads,
            // Each mixer and each feed-forward block ends in a row-parallel
            // projection, reduced across the GPUs.
            allreduce_layers: model.layers.len() as u64,
            hidden_size: model.hidden_size,
            norm_allreduces,
            norm_allreduce_token_bytes,
            routings: routings_of(&moe_layers),
            moe_layers,
            gemms: (GEMMS_PER_LAYER * model.layers.len() as u64 + 1)
                .saturating_sub(quant_gemm_count(model, quant, false)),
            attention_layers: model
                .layers
                .iter()
                .filter(|l| matches!(l, Layer::Attention(_)))
                .count() as u64,
            expert_flops_per_token: 2.0 * active_expert_params,
            low_precision_format: if quant.method == crate::quant::QuantMethod::Nvfp4 {
                super::GemmFormat::Nvfp4
            } else {
                super::GemmFormat::Fp8
            },
            quant_format: super::GemmFormat::weight_only(quant.bits),
        }
    }

    /// Bytes a one-token step reads in weights (every kernel family).
    pub fn weight_read_bytes(&self) -> u64 {
        self.dense_weight_bytes + self.quant_weight_bytes + self.fp8_weight_bytes
    }

    /// KV bytes one sequence at `context_tokens` reads per step.
    pub fn kv_bytes(&self, context_tokens: f64) -> f64 {
        let sliding: f64 = self
            .sliding_kv
            .iter()
            .map(|&(bytes, w)| bytes as f64 * context_tokens.min(w as f64))
            .sum();
        self.kv_bytes_per_token as f64 * context_tokens + sliding
    }

    /// Expert bytes a step over `tokens` tokens reads, (16-bit,
    /// dequantized, fp8 / NVFP4): per MoE layer the expected number of
    /// distinct experts top-k routing touches under skewed routing
    /// ([`super::touched_experts`] at [`super::ROUTING_POWER_LAW_ALPHA`]).
    /// GEMM kernels per step in the MoE layers' experts: two per layer, as
    /// [`quant_gemm_count`] and `gemms` count every layer's (gate/up fused,
    /// then down).
    pub fn expert_gemms(&self) -> u64 {
        GEMMS_PER_LAYER * self.moe_layers.len() as u64
    }

    /// Each MoE layer with the distinct experts `tokens` tokens touch in
    /// it ([`super::touched_experts`] at [`super::ROUTING_POWER_LAW_ALPHA`]),
    /// worked out once per routing shape: layers share theirs, and the sum
    /// over experts is the costliest part of a step's time.
    pub(super) fn moe_touched(&self, tokens: f64) -> Vec<(&MoeRead, f64)> {
        let mut last: Option<((u64, u64), f64)> = None;
        self.moe_layers
            .iter()
            .map(|m| {
                let shape = (m.experts, m.top_k);
                let touched = match last {
                    Some((s, t)) if s == shape => t,
                    _ => {
                        let t = match self.routings.iter().find(|r| (r.experts, r.top_k) == shape) {
                            Some(r) => r.touched(tokens),
                            None => super::touched_experts(
                                m.experts,
                                m.top_k,
                                tokens,
                                super::ROUTING_POWER_LAW_ALPHA,
                            ),
                        };
                        last = Some((shape, t));
                        t
                    }
                };
                // Under expert parallelism the touched experts are spread
                // evenly over the GPUs; this one reads its share.
                let local = m.local_experts.min(m.experts) as f64 / m.experts.max(1) as f64;
                (m, touched * local)
            })
            .collect()
    }

    pub(super) fn moe_read_bytes(&self, tokens: f64) -> (f64, f64, f64) {
        let mut out = (0.0, 0.0, 0.0);
        for (m, touched) in self.moe_touched(tokens) {
            let bytes = touched * m.expert_bytes as f64;
            match m.kernel {
                WeightKernel::Dense => out.0 += bytes,
                WeightKernel::Dequantizing => out.1 += bytes,
                WeightKernel::LowPrecision => out.2 += bytes,
            }
        }
        out
    }
}

/// Per-layer costs other than the linear layers': Mamba states, the scan's
/// FLOPs, attention's FLOPs per (query, key) pair.
struct LayerCosts {
    state_bytes_per_seq: u64,
    scan_flops: f64,
    attn_flops_per_pair: f64,
    attn_query_heads: u64,
}

fn layer_costs(model: &Model, layout: &KvLayout) -> LayerCosts {
    let mut state_bytes_per_seq = 0;
    let mut scan_flops = 0.0;
    let mut attn_flops_per_pair = 0.0;
    let mut attn_query_heads = 0;
    for l in &model.layers {
        if let Some(state) = l.state() {
            state_bytes_per_seq += 2 * layout.mamba_state_bytes_per_layer;
            // Chunked scan: about three multiply-adds per state element per token.
            scan_flops += 6.0 * state.ssm_elems as f64;
        }
        if let Layer::Attention(a) = l {
            attn_flops_per_pair += a.flops_per_pair() as f64;
            attn_query_heads += a.num_heads;
        }
    }
    LayerCosts {
        state_bytes_per_seq,
        scan_flops,
        attn_flops_per_pair,
        attn_query_heads,
    }
}

/// Weights a step streams, by kernel family, and the parameter counts the
/// FLOPs come from.
struct WeightReads {
    dense: u64,
    dequantized: u64,
    low_precision: u64,
    /// Linear parameters without experts.
    linear_params: u64,
    lm_head_params: u64,
}

/// Embeddings are gathered, not streamed; encoders run on images at
/// prefill; buffers are read by position. With tied embeddings there is no
/// `lm_head` tensor, but the logits GEMM streams the embedding table every
/// step all the same (vLLM's `LogitsProcessor` multiplies by the shared
/// weight: `vllm/model_executor/layers/logits_processor.py`), so the table
/// is read as the lm_head.
fn weight_reads(model: &Model, quant: &WeightQuant, native: NativeLowPrecision) -> WeightReads {
    let (mut dense, mut dequant, mut lowp, mut linear, mut lm_head) = (0, 0, 0, 0, 0);
    // A step runs every decoder layer (pipeline stages in turn).
    let modules = quant.modules_of(model, 0);
    let has_lm_head = modules.iter().any(|m| m.kind == ModuleKind::LmHead);
    for m in &modules {
        let tied_head =
            m.kind == ModuleKind::Embedding && model.tie_word_embeddings && !has_lm_head;
        let bytes = quant.module_bytes(m, model.dtype);
        if tied_head {
            lm_head += m.params();
            dense += bytes;
            continue;
        }
        match m.kind {
            ModuleKind::Embedding
            | ModuleKind::Encoder
            | ModuleKind::Buffer
            | ModuleKind::ExpertLinear => continue,
            ModuleKind::LmHead => lm_head += m.params(),
            ModuleKind::AttentionLinear | ModuleKind::MambaLinear | ModuleKind::MlpLinear => {
                linear += m.params()
            }
            ModuleKind::Other => {}
        }
        match WeightKernel::of(quant, m, native) {
            WeightKernel::Dense => dense += bytes,
            WeightKernel::Dequantizing => dequant += bytes,
            WeightKernel::LowPrecision => lowp += bytes,
        }
    }
    WeightReads {
        dense,
        dequantized: dequant,
        low_precision: lowp,
        linear_params: linear,
        lm_head_params: lm_head,
    }
}

/// Dequantizing GEMM kernels a step launches: two per layer whose
/// projections the checkpoint quantizes with a weight-only format.
/// Dequantizing GEMMs per step: two per layer whose projections
/// dequantize (of MoE layers only when `experts_only`).
fn quant_gemm_count(model: &Model, quant: &WeightQuant, experts_only: bool) -> u64 {
    let probe = |name, kind| crate::model::Module {
        name,
        kind,
        in_features: 1,
        out_features: 1,
        count: 1,
        fp8: false,
    };
    model
        .layers
        .iter()
        .filter(|l| !experts_only || matches!(l, Layer::Moe(_)))
        .filter(|l| {
            let m = match l {
                Layer::Attention(_) => probe("o_proj", ModuleKind::AttentionLinear),
                Layer::Mlp(_) => probe("down_proj", ModuleKind::MlpLinear),
                Layer::Moe(_) => probe("expert_down_proj", ModuleKind::ExpertLinear),
                Layer::Mamba2(_) | Layer::Mamba1(_) | Layer::DeltaNet(_) | Layer::ShortConv(_) => {
                    probe("out_proj", ModuleKind::MambaLinear)
                }
            };
            quant.dequantizes(&m)
        })
        .count() as u64
        * GEMMS_PER_LAYER
}

/// GEMM kernels per layer: vLLM fuses q/k/v and gate/up, so each mixer or
/// feed-forward block runs two (its fused input projection and its output
/// projection).
const GEMMS_PER_LAYER: u64 = 2;

/// Experts: all held, top_k of num_experts computed per token; the bytes an
/// expert step reads depend on the batch (`Work::moe_read_bytes`).
fn moe_reads(
    model: &Model,
    quant: &WeightQuant,
    native: NativeLowPrecision,
) -> (Vec<MoeRead>, f64) {
    let mut active_expert_params = 0.0;
    let mut out = Vec::new();
    for l in &model.layers {
        let Layer::Moe(e) = l else { continue };
        // Latent experts work in their latent width.
        let (h, i) = (
            e.latent_dim.unwrap_or(model.hidden_size),
            e.expert_intermediate,
        );
        let linear = |name, in_features, out_features| crate::model::Module {
            name,
            kind: ModuleKind::ExpertLinear,
            in_features,
            out_features,
            count: 1,
            fp8: false,
        };
        let mut expert = vec![
            linear("expert_up_proj", h, i),
            linear("expert_down_proj", i, h),
        ];
        if e.gated {
            expert.push(linear("expert_gate_proj", h, i));
        }
        let params: u64 = expert.iter().map(crate::model::Module::params).sum();
        let kernel = expert
            .first()
            .map_or(WeightKernel::Dense, |m| WeightKernel::of(quant, m, native));
        let format = match (kernel, quant.method) {
            (WeightKernel::Dense, _) => Some(super::MoeFormat::Bf16),
            (WeightKernel::LowPrecision, crate::quant::QuantMethod::Nvfp4) => {
                Some(super::MoeFormat::Nvfp4)
            }
            (WeightKernel::LowPrecision, _) => Some(super::MoeFormat::Fp8),
            (WeightKernel::Dequantizing, crate::quant::QuantMethod::Mxfp4) => {
                Some(super::MoeFormat::Mxfp4)
            }
            // 4-bit integer experts: Marlin's fused MoE (`MoeFormat::Int4`).
            (
                WeightKernel::Dequantizing,
                crate::quant::QuantMethod::Awq
                | crate::quant::QuantMethod::Gptq
                | crate::quant::QuantMethod::CompressedTensors,
            ) if quant.bits == 4 => Some(super::MoeFormat::Int4),
            (WeightKernel::Dequantizing, _) => None,
        };
        let bytes = expert
            .iter()
            .map(|m| quant.module_bytes(m, model.dtype))
            .sum();
        active_expert_params += (e.top_k * params) as f64;
        out.push(MoeRead {
            experts: e.num_experts,
            local_experts: e.local_experts,
            top_k: e.top_k,
            expert_bytes: bytes,
            kernel,
            shape: super::MoeShape {
                hidden: h as f64,
                intermediate: i as f64,
                top_k: e.top_k as f64,
                gated: e.gated,
            },
            format,
        });
    }
    (out, active_expert_params)
}

/// KV bytes per token a step reads: full-attention layers, and sliding-window
/// (and, from 0.14, chunked local) layers with their windows. Before 0.14 a
/// chunked local layer sits in a full-attention group and is read as one,
/// an overestimate of its reads. Under pipeline parallelism `layout` is one
/// stage's; a step reads the KV cache of every stage's layers.
fn kv_reads(model: &Model, engine: &EngineArgs, layout: &KvLayout) -> (u64, Vec<(u64, u64)>) {
    let whole = if engine.pipeline_parallel_size > 1 {
        KvLayout::new(model, engine).ok()
    } else {
        None
    };
    let kv_layout = whole.as_ref().unwrap_or(layout);
    let mut full = 0;
    let mut sliding = Vec::new();
    for g in &kv_layout.groups {
        // Per token over the group's layers: its pages over its block (a
        // packed DeepSeek-V4 group mixes page sizes).
        let bytes = crate::units::div_ceil(g.pages_bytes, g.block_tokens.max(1));
        match (g.kind, g.window_tokens) {
            (GroupKind::FullAttention, _) => full += bytes,
            (GroupKind::SlidingWindow, Some(w)) => sliding.push((bytes, w)),
            // A chunked local layer reads at most its chunk (the tokens
            // since the chunk's start): counted as a window of the chunk.
            (GroupKind::ChunkedLocal, Some(c)) => sliding.push((bytes, c)),
            _ => {}
        }
    }
    (full, sliding)
}

#[cfg(test)]
mod tests {
    use crate::timing::test_support::{fp8_work, reference_work};
    use crate::timing::AttnKernel;
    use approx::assert_relative_eq;

    #[test]
    fn fp8_weights_stream_through_scaled_mm_from_ada_and_marlin_before() {
        // Hopper: CUTLASS scaled_mm reads the fp8 weights as such.
        let h100 = fp8_work("h100-sxm");
        assert!(
            h100.model.fp8_weight_bytes > 6_000_000_000,
            "{}",
            h100.model.fp8_weight_bytes
        );
        assert_eq!(h100.model.quant_weight_bytes, 0);
        // Ampere has no fp8 tensor cores: Marlin's weight-only FP8 kernel
        // dequantizes the same bytes.
        let a100 = fp8_work("a100-80gb");
        assert_eq!(a100.model.fp8_weight_bytes, 0);
        assert_eq!(a100.model.quant_weight_bytes, h100.model.fp8_weight_bytes);
        // The lm_head and the norms stay 16-bit on both.
        assert_eq!(a100.model.dense_weight_bytes, h100.model.dense_weight_bytes);
        assert_eq!(
            h100.model.dense_weight_bytes,
            4096 * 128_256 * 2 + (2 * 32 + 1) * 4096 * 2
        );
    }

    #[test]
    fn work_per_token_of_the_reference_model() {
        let (_, w) = reference_work();
        // Weights 8,944,804,864 B less the 131,072 x 5,120 bf16 embedding table.
        assert_eq!(w.weight_read_bytes(), 8_944_804_864 - 1_342_177_280);
        // Streamed by dense GEMMs: the six attention layers' bf16 projections
        // (6 x 62,914,560 x 2 B), the bf16 lm_head (131,072 x 5,120 x 2 B)
        // and 4,680,704 B of norms, conv1d and SSM parameters; the rest is int4.
        assert_eq!(
            w.model.dense_weight_bytes,
            754_974_720 + 1_342_177_280 + 4_680_704
        );
        assert_eq!(w.model.quant_weight_bytes, 5_500_794_880);
        assert_eq!(w.machine.attention_kernel, AttnKernel::Triton);
        // 28 Mamba and 28 MLP layers quantized, the 6 attention layers not:
        // two dequantizing GEMMs each.
        assert_eq!((w.model.layers, w.model.quant_gemms), (62, 112));
        assert!(w.schedule.async_scheduling);
        // 2 x (6 x 62,914,560 + 28 x 168,427,520 + 28 x 209,715,200 + 671,088,640).
        assert_relative_eq!(w.model.decode_flops_per_token, 23_273_144_320.0);
        // Read and written: 2 x 28 x 5,316,608 B (the real state, not the padded page).
        assert_eq!(w.model.state_bytes_per_seq, 297_730_048);
        // 6 attention layers x 8 heads x (128 + 8) B.
        assert_eq!(w.model.kv_bytes_per_token, 6_528);
        // 4 x 40 heads x 128 x 6 layers.
        assert_relative_eq!(w.model.attn_flops_per_pair, 122_880.0);
        assert_relative_eq!(w.machine.peak_flops, 142e12);
        assert_relative_eq!(w.machine.bandwidth_bytes_s, 936e9);
    }
}
