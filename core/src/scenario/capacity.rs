//! A plan's memory breakdown and allocator figures ([`Capacity`]).

use super::*;

/// MXFP4 MoE weights on the Triton kernels vLLM 0.32 picks for gpt-oss on
/// CUDA pad each GPU's expert intermediate size to a multiple of 64
/// (`vllm/model_executor/layers/fused_moe/oracle/mxfp4.py`,
/// `mxfp4_round_up_hidden_size_and_intermediate_size`): 1,440 per GPU at
/// TP 2 becomes 1,472.
const MXFP4_INTERMEDIATE_ALIGN: u64 = 64;

/// The drafter's weights on one GPU (`model` is the target's per-GPU
/// shard): the MTP block at the checkpoint's quantization unless the
/// checkpoint leaves it unquantized ([`crate::quant::WeightQuant::mtp_quantized`]),
/// sharing the target's embedding and `lm_head`; or a draft model whole, in
/// its own checkpoint's layout.
fn draft_weights_bytes(
    model: &crate::model::Model,
    quant: &crate::quant::WeightQuant,
    engine: &EngineArgs,
) -> Result<u64> {
    let Some(spec) = engine.speculative.as_ref() else {
        return Ok(0);
    };
    if let Some(drafter) = spec.drafter_per_gpu(engine.tensor_parallel_size, model.dtype) {
        let drafter = drafter?;
        let q = spec
            .drafter
            .as_ref()
            .map(|d| d.quant.clone())
            .unwrap_or_else(|| {
                crate::quant::WeightQuant::for_method(crate::quant::QuantMethod::None)
            });
        // A head's embedding, rotary tables and (mostly) lm_head are the
        // target's (`Speculative::shares_with_target`).
        let shared = |k: crate::model::ModuleKind| spec.shares_with_target(k);
        return Ok(drafter
            .modules()
            .iter()
            .filter(|m| !shared(m.kind))
            .map(|m| q.module_bytes(m, drafter.dtype))
            .sum());
    }
    if spec.mtp_modules == 0 {
        return Ok(0);
    }
    let q = quant.for_mtp(model.decoder_layers().len() as u64);
    Ok(model
        .mtp_modules()
        .iter()
        .map(|m| q.module_bytes(m, model.dtype))
        .sum())
}

/// `model` with the drafter's layers after its own when speculative
/// decoding runs a drafter on the GPU: its attention (and state) layers
/// take KV cache in the same pool (vLLM registers them with the target's).
fn with_draft_layers(
    mut model: crate::model::Model,
    engine: &EngineArgs,
) -> Result<crate::model::Model> {
    let Some(spec) = engine.speculative.as_ref() else {
        return Ok(model);
    };
    if let Some(drafter) = spec.drafter_per_gpu(engine.tensor_parallel_size, model.dtype) {
        model.layers.extend(drafter?.layers);
    } else if spec.mtp_modules > 0 {
        if let Some(block) = model.mtp.clone() {
            for _ in 0..block.count {
                model.layers.extend(block.layers.iter().copied());
            }
        }
    }
    Ok(model)
}

/// Running requests the engine admits at one context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RunningAtContext {
    pub context_tokens: u64,
    /// Distinct prompts (no prefix sharing), capped by max_num_seqs.
    pub max_running_requests: u64,
    /// Identical prompts as the harness sends them (full prompt blocks shared
    /// under prefix caching), capped by max_num_seqs.
    pub max_running_identical_prompts: u64,
    pub blocks_per_request: u64,
}

/// The memory breakdown and allocator figures of a plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Capacity {
    pub scenario: String,
    pub vllm_version: String,
    pub total_bytes: u64,
    pub gpu_memory_utilization: f64,
    pub requested_bytes: u64,
    /// The model's parameters (embedding and untied lm_head included).
    pub model_params: u64,
    /// The checkpoint's own byte count, whole model, where known: its
    /// `model.safetensors.index.json` `total_size`, or a preset's
    /// published size (the capacity table shows it beside the weights).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_bytes: Option<u64>,
    /// GPUs each layer is split across; every byte figure here is per GPU.
    pub tensor_parallel_size: u64,
    /// Replicas (`--data-parallel-size`): each has `tensor x pipeline` GPUs
    /// and a KV pool of its own, the figures here (per GPU, per replica).
    pub data_parallel_size: u64,
    /// GPUs a MoE layer's experts are spread over whole (`tp x dp` with
    /// `--enable-expert-parallel`, else 1).
    pub expert_parallel_size: u64,
    /// GPUs the setup takes: `tensor x pipeline x data`.
    pub gpus: u64,
    /// Pipeline stages; the byte figures are those of `kv_stage` (the stage
    /// with the fewest KV blocks, which sets every stage's count).
    pub pipeline_parallel_size: u64,
    pub kv_stage: crate::model::PipelineStage,
    /// The dtype the weights are served in (`--dtype` resolved).
    pub dtype: &'static str,
    pub weights_bytes: u64,
    pub activation_bytes: u64,
    pub cudagraph_bytes: u64,
    pub non_torch_bytes: u64,
    pub non_kv_estimate_bytes: u64,
    pub non_kv_bytes: u64,
    pub non_kv_source: NonKvSource,
    pub kv_pool_bytes: u64,
    pub kv_unallocated_bytes: u64,
    pub kv_cache_dtype: &'static str,
    pub attention_bytes_per_token_per_layer: u64,
    pub mamba_state_bytes_per_layer: u64,
    pub block_size_tokens: u64,
    pub page_bytes: u64,
    pub bytes_per_block: u64,
    pub num_blocks: u64,
    pub usable_blocks: u64,
    pub kv_groups: Vec<KvGroup>,
    pub padding_slots: u64,
    pub kv_cache_tokens: u64,
    pub max_model_len_tokens: u64,
    pub max_concurrency: f64,
    pub max_num_seqs: u64,
    pub max_running_requests: Vec<RunningAtContext>,
    pub startup_failure: Option<String>,
    /// What would let it start, for [`Capacity::startup_error`]'s hint.
    #[serde(skip)]
    pub startup_hint: &'static str,
    /// A start-up log's figures against the prediction (`--vllm-log`).
    pub log_check: Vec<crate::vllm_log::LogFigure>,
    pub layout: KvLayout,
    pub pool: KvPool,
}

impl Capacity {
    /// The error every subcommand reports for a setup vLLM would refuse to
    /// start (no KV memory, a request that does not fit), None otherwise.
    pub fn startup_error(&self) -> Option<Error> {
        self.startup_failure.as_ref().map(|why| {
            Error::new(format!("vLLM would not start {why}"))
                .with_hint(self.startup_hint)
                .of_kind(crate::ErrorKind::WouldNotStart)
        })
    }

    /// Non-KV memory besides weights, activation peak and CUDA graphs: the
    /// non-torch estimate, plus whatever a pinned measured figure adds.
    pub fn other_non_kv_bytes(&self) -> u64 {
        self.non_kv_bytes
            .saturating_sub(self.weights_bytes + self.activation_bytes + self.cudagraph_bytes)
    }

    /// Device memory vLLM does not request (`total - requested`).
    pub fn unrequested_bytes(&self) -> u64 {
        self.total_bytes.saturating_sub(self.requested_bytes)
    }
}

impl Plan {
    /// vLLM's refusal of a hybrid model whose decode sequences outnumber
    /// the pool's blocks (`version::MAMBA_BLOCKS_CHECK`): with full CUDA
    /// graphs (not `--enforce-eager`) each of `max_num_seqs` decode
    /// sequences needs a Mamba state block of its own.
    fn mamba_blocks_failure(&self, layout: &KvLayout, pool: &KvPool) -> Option<String> {
        let e = &self.engine;
        (e.vllm_version >= crate::version::MAMBA_BLOCKS_CHECK
            && layout.mamba_groups() > 0
            && !e.enforce_eager
            && e.max_num_seqs > pool.num_blocks)
            .then(|| {
                format!(
                    "max_num_seqs ({}) exceeds the KV cache's {} blocks, and with CUDA graphs each decode sequence needs a Mamba state block of its own",
                    e.max_num_seqs, pool.num_blocks
                )
            })
    }

    /// What is predicted, for headers and errors: "{model} on {gpu}", with
    /// the GPU count when there are several ("on 2 x NVIDIA H100 ..."), and
    /// with data parallelism the replicas ("on 16 x NVIDIA H100 ... (2
    /// replicas of 8 GPUs; figures per GPU, KV cache per replica)").
    pub fn setup_title(&self) -> String {
        let e = &self.engine;
        let gpus = e.gpus();
        let count = if gpus > 1 {
            format!("{gpus} x ")
        } else {
            String::new()
        };
        let replicas = if e.data_parallel_size > 1 {
            format!(
                " ({} replicas of {} GPUs; figures per GPU, KV cache per replica)",
                e.data_parallel_size,
                e.tensor_parallel_size
                    .saturating_mul(e.pipeline_parallel_size)
            )
        } else {
            String::new()
        };
        format!("{} on {count}{}{replicas}", self.model.name, self.gpu.name)
    }

    /// A plan from parts already loaded and resolved, with the
    /// first-principles non-KV estimate (no scenario, no pin). The ranking
    /// sweep builds hundreds of these without parsing a file.
    pub fn assemble(
        model: LoadedModel,
        gpu: Gpu,
        engine: EngineArgs,
        harness: Harness,
        calibration: Calibration,
    ) -> Result<Plan> {
        let quant = engine.weight_quant(&model.quant);
        // The served dtype replaces the checkpoint's (`--dtype`).
        let dtype = engine.dtype.resolve(
            model.model.dtype,
            &model.model.architecture,
            crate::engine::gpu_supports_bf16(&gpu),
        )?;
        // Fp8Config's activation dtypes are bfloat16 and float16
        // (vllm/model_executor/layers/quantization/fp8.py); vLLM refuses
        // another model dtype for the method.
        if quant.method == crate::quant::QuantMethod::Fp8
            && dtype == crate::dtype::FloatDtype::Float32
        {
            return Err(Error::new(
                "--dtype float32 is not supported with fp8 weights: vLLM's fp8 method runs in bfloat16 or float16",
            )
            .with_hint("use --dtype auto, bfloat16 or float16 with --quantization fp8"));
        }
        let mut per_gpu = model.model.shard_parallel(
            engine.tensor_parallel_size,
            engine.data_parallel_size,
            engine.enable_expert_parallel,
        )?;
        per_gpu.dtype = dtype;
        // The multimodal profile (`crate::multimodal`): with every modality
        // limited to 0 vLLM does not load the vision tower.
        let tower = crate::multimodal::VisionTower::from_config(&model.config, per_gpu.hidden_size);
        if tower
            .as_ref()
            .is_some_and(|t| t.disabled(&engine.mm_limits))
        {
            per_gpu
                .encoder
                .retain(|m| m.kind != crate::model::ModuleKind::Encoder);
        }
        let mm_profile = tower
            .as_ref()
            .and_then(|t| crate::multimodal::profile(t, &engine, dtype.bytes()));
        if quant.method == crate::quant::QuantMethod::Mxfp4 {
            per_gpu.pad_expert_intermediate(MXFP4_INTERMEDIATE_ALIGN);
        }
        let stages = per_gpu.pipeline_stages(engine.pipeline_parallel_size)?;
        // Each stage's estimate and block count; the fewest blocks win.
        let mut best: Option<(
            u64,
            crate::model::PipelineStage,
            crate::model::Model,
            NonKvEstimate,
        )> = None;
        let draft_bytes = draft_weights_bytes(&per_gpu, &quant, &engine)?;
        for stage in &stages {
            let m = per_gpu.stage(stage);
            let mut est = NonKvEstimate::for_stage(&m, stage, &quant, &engine, &gpu);
            if let Some(mm) = &mm_profile {
                est.add_multimodal(mm, crate::memory::cublas_workspace_bytes(&gpu));
            }
            // The drafter lives with the last stage (vLLM refuses pipeline
            // parallelism with speculative decoding anyway): its weights, and
            // its attention layers' KV in the same pool.
            let m = if stage.is_last() {
                est.weights_bytes += draft_bytes;
                est.draft_weights_bytes = draft_bytes;
                with_draft_layers(m, &engine)?
            } else {
                m
            };
            let blocks = KvLayout::new(&m, &engine)
                .map(|l| KvPool::new(&l, &engine, gpu.memory_bytes, est.total_bytes()).num_blocks)
                .unwrap_or(0);
            if best.as_ref().is_none_or(|b| blocks < b.0) {
                best = Some((blocks, *stage, m, est));
            }
        }
        let Some((_, kv_stage, kv_stage_model, estimate)) = best else {
            return Err(Error::new("the model has no layers to place")
                .with_hint("check the model's num_hidden_layers"));
        };
        Ok(Plan {
            scenario_id: format!("{} on {}", model.id, gpu.id),
            measured: None,
            non_kv_bytes: estimate.total_bytes(),
            non_kv_source: NonKvSource::Estimated,
            model,
            per_gpu,
            stages,
            kv_stage,
            kv_stage_model,
            gpu,
            engine,
            harness,
            estimate,
            calibration,
            warnings: Vec::new(),
            log_check: Vec::new(),
        })
    }

    /// The KV layout of the stage that sizes the cache (every stage gets the
    /// same number of blocks).
    pub fn layout(&self) -> Result<KvLayout> {
        KvLayout::new(&self.kv_stage_model, &self.engine)
    }

    pub fn capacity(&self) -> Result<Capacity> {
        let layout = self.layout()?;
        let pool = KvPool::new(
            &layout,
            &self.engine,
            self.gpu.memory_bytes,
            self.non_kv_bytes,
        );
        let failure: Option<(String, &'static str)> = pool
            .startup_failure()
            .map(|why| {
                (
                    why,
                    "lower --max-model-len (or --kv-cache-memory-bytes), raise --gpu-memory-utilization, choose a smaller --kv-cache-dtype or a larger GPU (--gpu)",
                )
            })
            .or_else(|| {
                self.mamba_blocks_failure(&layout, &pool).map(|why| {
                    (
                        why,
                        "set --max-num-seqs to at most the blocks named, raise --gpu-memory-utilization, or run without CUDA graphs (--enforce-eager)",
                    )
                })
            });
        let running = self
            .harness
            .contexts_tokens
            .iter()
            .map(|&ctx| {
                let tokens = ctx + 1;
                let d = admit(&layout, &pool, &self.engine, ctx, tokens, u64::MAX, false);
                let same = admit(&layout, &pool, &self.engine, ctx, tokens, u64::MAX, true);
                RunningAtContext {
                    context_tokens: ctx,
                    max_running_requests: d.running,
                    max_running_identical_prompts: same.running,
                    blocks_per_request: layout.request_blocks(tokens),
                }
            })
            .collect();
        Ok(Capacity {
            scenario: self.scenario_id.clone(),
            vllm_version: self.engine.vllm_version.to_string(),
            total_bytes: self.gpu.memory_bytes,
            gpu_memory_utilization: self.engine.gpu_memory_utilization,
            requested_bytes: pool.requested_bytes,
            model_params: self.model.model.params(),
            checkpoint_bytes: self.model.checkpoint_bytes,
            tensor_parallel_size: self.engine.tensor_parallel_size,
            data_parallel_size: self.engine.data_parallel_size,
            expert_parallel_size: self.engine.expert_parallel_size(),
            gpus: self.engine.gpus(),
            pipeline_parallel_size: self.engine.pipeline_parallel_size,
            kv_stage: self.kv_stage,
            dtype: self.per_gpu.dtype.name(),
            weights_bytes: self.estimate.weights_bytes,
            activation_bytes: self.estimate.activation_bytes,
            cudagraph_bytes: self.estimate.cudagraph_bytes,
            non_torch_bytes: self.estimate.non_torch_bytes,
            non_kv_estimate_bytes: self.estimate.total_bytes(),
            non_kv_bytes: self.non_kv_bytes,
            non_kv_source: self.non_kv_source.clone(),
            kv_pool_bytes: pool.kv_pool_bytes,
            kv_unallocated_bytes: pool.kv_unallocated_bytes,
            kv_cache_dtype: layout.kv_cache_dtype.name(),
            attention_bytes_per_token_per_layer: layout.attention_bytes_per_token_per_layer,
            mamba_state_bytes_per_layer: layout.mamba_state_bytes_per_layer,
            block_size_tokens: layout.block_size_tokens,
            page_bytes: layout.page_bytes,
            bytes_per_block: layout.bytes_per_block,
            num_blocks: pool.num_blocks,
            usable_blocks: pool.usable_blocks,
            kv_groups: layout.groups.clone(),
            padding_slots: layout.padding_slots(),
            kv_cache_tokens: pool.kv_cache_tokens,
            max_model_len_tokens: self.engine.max_model_len_tokens,
            max_concurrency: pool.max_concurrency,
            max_num_seqs: self.engine.max_num_seqs,
            max_running_requests: running,
            // Named with the GPU and model it was tried on: without --gpu
            // that is the reference RTX 3090, which the user may not know.
            startup_hint: failure.as_ref().map_or("", |(_, hint)| hint),
            startup_failure: failure.map(|(why, _)| format!("with {}: {why}", self.setup_title())),
            log_check: self.log_check.clone(),
            layout,
            pool,
        })
    }
}
