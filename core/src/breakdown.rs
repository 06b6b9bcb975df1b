//! A [`Capacity`]'s memory breakdown as rows: each figure with its amount, a
//! one-line explanation, whether it comes from decodecalc's non-KV estimate,
//! and which part of the GPU's memory it is. The CLI's `capacity` table and
//! the web page's memory bar both render these rows; no figure here is
//! computed anew (every amount is one `Capacity` or `Plan` holds, or one of
//! `Capacity`'s own differences).

use crate::allocator::GroupKind;
use crate::quant::QuantMethod;
use crate::scenario::{Capacity, NonKvSource, Plan};
use crate::units::format_tokens;

/// A row's amount, in its unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    /// Bytes of GPU memory (a face shows their GiB beside them from 1 MiB up).
    Bytes(u64),
    /// The bytes of one KV block (a face shows them in MiB).
    BlockBytes(u64),
    Tokens(u64),
    Blocks(u64),
    Groups(u64),
    Requests(u64),
    /// A ratio ("x").
    Times(f64),
}

impl Amount {
    /// The unit's name as the capacity table prints it.
    pub fn unit(self) -> &'static str {
        match self {
            Amount::Bytes(_) | Amount::BlockBytes(_) => "bytes",
            Amount::Tokens(_) => "tokens",
            Amount::Blocks(_) => "blocks",
            Amount::Groups(_) => "groups",
            Amount::Requests(_) => "requests",
            Amount::Times(_) => "x",
        }
    }
}

/// The parts GPU memory is divided into, in the memory bar's order. Their
/// rows' bytes add up to the GPU's total memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Segment {
    Weights,
    Activation,
    CudaGraphs,
    OtherNonKv,
    KvPool,
    NotRequested,
}

impl Segment {
    /// A short identifier (the web page's CSS class).
    pub fn id(self) -> &'static str {
        match self {
            Segment::Weights => "weights",
            Segment::Activation => "activation",
            Segment::CudaGraphs => "cudagraphs",
            Segment::OtherNonKv => "other",
            Segment::KvPool => "kv",
            Segment::NotRequested => "free",
        }
    }

    /// Its name for a reader.
    pub fn label(self) -> &'static str {
        match self {
            Segment::Weights => "Weights",
            Segment::Activation => "Activation peak",
            Segment::CudaGraphs => "CUDA graphs",
            Segment::OtherNonKv => "Other non-KV",
            Segment::KvPool => "KV pool",
            Segment::NotRequested => "Not given to vLLM",
        }
    }
}

/// One figure of the breakdown.
#[derive(Clone, Debug, PartialEq)]
pub struct BreakdownRow {
    /// The figure's name (the capacity JSON's field where it has one).
    pub name: String,
    pub amount: Amount,
    /// One line: what the figure is or how it follows from the others.
    pub note: String,
    /// Part of decodecalc's first-principles non-KV estimate (vLLM measures
    /// these on the GPU) rather than of vLLM's exact arithmetic.
    pub estimate: bool,
    /// The part of the GPU's memory this row is, if it is one.
    pub segment: Option<Segment>,
    /// Whether the capacity table lists it; the memory bar's "other non-KV"
    /// and "not given to vLLM" are differences of rows the table lists.
    pub in_table: bool,
}

impl BreakdownRow {
    fn new(name: impl Into<String>, amount: Amount, note: impl Into<String>) -> Self {
        BreakdownRow {
            name: name.into(),
            amount,
            note: note.into(),
            estimate: false,
            segment: None,
            in_table: true,
        }
    }

    fn estimate(mut self, estimate: bool) -> Self {
        self.estimate = estimate;
        self
    }

    fn segment(mut self, segment: Segment) -> Self {
        self.segment = Some(segment);
        self
    }

    fn bar_only(mut self) -> Self {
        self.in_table = false;
        self
    }
}

/// Thousands separators for byte and token counts (`1,263,908`).
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A number with `digits` decimals and thousands separators ("1,443.6").
pub fn grouped_f(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let text = format!("{:.digits$}", x.abs());
    let (int, frac) = text
        .split_once('.')
        .map_or((text.as_str(), ""), |(a, b)| (a, b));
    let int: u64 = int.parse().unwrap_or(0);
    let sign = if x < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') {
        "-"
    } else {
        ""
    };
    if frac.is_empty() {
        format!("{sign}{}", grouped(int))
    } else {
        format!("{sign}{}.{frac}", grouped(int))
    }
}

/// The checkpoint's own byte count (its `model.safetensors.index.json`
/// total, or a preset's published size) beside the weights computed for the
/// whole model, when the model has one: the check a user can read off.
fn checkpoint_row(plan: &Plan) -> Option<BreakdownRow> {
    let published = plan.model.checkpoint_bytes?;
    let computed = crate::memory::weights_bytes(&plan.model.model, &plan.model.quant);
    let diff_pct = if published > 0 {
        (computed as f64 / published as f64 - 1.0) * 100.0
    } else {
        0.0
    };
    Some(BreakdownRow::new(
        "checkpoint_bytes",
        Amount::Bytes(published),
        format!(
            "the checkpoint's files, whole model (safetensors index total_size or published size); computed weights for the whole model {} B ({diff_pct:+.1}%)",
            grouped(computed)
        ),
    ))
}

impl Capacity {
    /// The memory breakdown, in the capacity table's order; the rows with a
    /// segment, in this order, are the memory bar's.
    pub fn breakdown(&self, plan: &Plan) -> Vec<BreakdownRow> {
        let mut rows = self.memory_rows(plan);
        rows.extend(self.layout_rows(plan));
        rows
    }

    /// GPU memory, from the total down to the KV pool.
    fn memory_rows(&self, plan: &Plan) -> Vec<BreakdownRow> {
        let estimated = matches!(self.non_kv_source, NonKvSource::Estimated);
        let mut rows = self.pool_rows(plan, estimated);
        if let Some(row) = checkpoint_row(plan) {
            // Beside the computed weights.
            rows.insert(3, row);
        }
        rows
    }

    /// GPU memory rows, from the total down to the KV pool.
    fn pool_rows(&self, plan: &Plan, estimated: bool) -> Vec<BreakdownRow> {
        vec![
            BreakdownRow::new(
                "total_bytes",
                Amount::Bytes(self.total_bytes),
                format!("{} as the CUDA runtime reports it", plan.gpu.id),
            ),
            BreakdownRow::new(
                "requested_bytes",
                Amount::Bytes(self.requested_bytes),
                format!("ceil(total x {})", self.gpu_memory_utilization),
            ),
            BreakdownRow::new(
                "weights_bytes",
                Amount::Bytes(self.weights_bytes),
                self.weights_note(plan),
            )
            .segment(Segment::Weights),
            BreakdownRow::new(
                "activation_bytes",
                Amount::Bytes(self.activation_bytes),
                format!(
                    "profile run of {} tokens",
                    plan.engine.max_num_batched_tokens
                ),
            )
            .estimate(true)
            .segment(Segment::Activation),
            BreakdownRow::new(
                "cudagraph_bytes",
                Amount::Bytes(self.cudagraph_bytes),
                format!(
                    "{} piecewise + {} full graphs (estimate)",
                    plan.estimate.cudagraphs.piecewise_graphs,
                    plan.estimate.cudagraphs.full_graphs
                ),
            )
            .estimate(true)
            .segment(Segment::CudaGraphs),
            BreakdownRow::new(
                "non_torch_bytes",
                Amount::Bytes(self.non_torch_bytes),
                if plan.estimate.tp_comm_bytes > 0 {
                    format!(
                        "estimate, {} B of it NCCL and FlashInfer all-reduce buffers",
                        grouped(plan.estimate.tp_comm_bytes)
                    )
                } else {
                    "estimate".into()
                },
            )
            .estimate(true),
            BreakdownRow::new(
                "non_kv_estimate_bytes",
                Amount::Bytes(self.non_kv_estimate_bytes),
                "sum of the four above",
            )
            .estimate(true),
            BreakdownRow::new(
                "non_kv_bytes",
                Amount::Bytes(self.non_kv_bytes),
                match &self.non_kv_source {
                    NonKvSource::Estimated => "first-principles estimate".to_string(),
                    NonKvSource::Pinned { derivation } => {
                        format!("pinned by the scenario: {derivation}")
                    }
                },
            )
            .estimate(estimated),
            BreakdownRow::new(
                "other_non_kv_bytes",
                Amount::Bytes(self.other_non_kv_bytes()),
                "non-KV - weights - activation peak - CUDA graphs: the non-torch memory, and what a pinned figure adds",
            )
            .estimate(estimated)
            .segment(Segment::OtherNonKv)
            .bar_only(),
            BreakdownRow::new(
                "kv_pool_bytes",
                Amount::Bytes(self.kv_pool_bytes),
                "requested - non-KV",
            )
            .estimate(estimated)
            .segment(Segment::KvPool),
            BreakdownRow::new(
                "unrequested_bytes",
                Amount::Bytes(self.unrequested_bytes()),
                "total - requested: the memory vLLM does not request",
            )
            .segment(Segment::NotRequested)
            .bar_only(),
        ]
    }

    /// What the weights are: the model, its quantization and served dtype,
    /// and the pipeline stage the figures are of.
    fn weights_note(&self, plan: &Plan) -> String {
        let q = plan.engine.weight_quant(&plan.model.quant);
        // The served dtype, and the checkpoint's when --dtype changed it.
        let dtype = if plan.per_gpu.dtype == plan.model.model.dtype {
            self.dtype.to_string()
        } else {
            format!(
                "{} (checkpoint {})",
                self.dtype,
                plan.model.model.dtype.name()
            )
        };
        let what = match (q.method, q.group_size) {
            (QuantMethod::None, _) => format!("{}, {dtype}", plan.model.name),
            (QuantMethod::Fp8, None) if q.per_tensor => {
                format!(
                    "{}, fp8 online (per-tensor scales), rest {dtype}",
                    plan.model.name
                )
            }
            (m, Some(g)) => format!("{}, {} int{} group {g}", plan.model.name, m.name(), q.bits),
            (m, None) => format!("{}, {} {}-bit", plan.model.name, m.name(), q.bits),
        };
        let what = match plan.per_gpu.layers.iter().find_map(|l| match l {
            crate::model::Layer::Moe(e) if self.expert_parallel_size > 1 => Some(e),
            _ => None,
        }) {
            Some(e) => format!(
                "{what}; expert parallel over {} GPUs: {} of {} experts whole on this GPU",
                self.expert_parallel_size, e.local_experts, e.num_experts
            ),
            None => what,
        };
        if self.pipeline_parallel_size > 1 {
            format!(
                "{what}; pipeline stage {} of {} (layers {}-{})",
                self.kv_stage.rank.saturating_add(1),
                self.pipeline_parallel_size,
                self.kv_stage.start_layer,
                self.kv_stage.end_layer.saturating_sub(1)
            )
        } else {
            what
        }
    }

    /// The KV cache's layout: sizes per token and block, blocks, tokens and
    /// the requests they hold.
    fn layout_rows(&self, plan: &Plan) -> Vec<BreakdownRow> {
        let heads_line = if self.layout.packed {
            // DeepSeek-V4: one latent per (compressed) token, every GPU whole.
            "one latent per state in fp8_ds_mla: 448 fp8 + 64 bf16 values + 8 scale bytes"
                .to_string()
        } else {
            format!(
                "{} KV heads per GPU at {}",
                // The per-GPU shard: KV heads split under tensor parallelism.
                plan.per_gpu
                    .attention_layers()
                    .next()
                    .map_or(0, |a| a.num_kv_heads),
                self.kv_cache_dtype
            )
        };
        let mut rows = vec![BreakdownRow::new(
            "attention_bytes_per_token_per_layer",
            Amount::Bytes(self.attention_bytes_per_token_per_layer),
            heads_line,
        )];
        if self.mamba_state_bytes_per_layer > 0 {
            rows.push(BreakdownRow::new(
                "mamba_state_bytes_per_layer",
                Amount::Bytes(self.mamba_state_bytes_per_layer),
                format!(
                    "conv {} B + SSM {} B",
                    grouped(self.layout.mamba_conv_state_bytes_per_layer),
                    grouped(self.layout.mamba_ssm_state_bytes_per_layer)
                ),
            ));
        }
        rows.push(BreakdownRow::new(
            "block_size_tokens",
            Amount::Tokens(self.block_size_tokens),
            if plan.model.model.is_hybrid() {
                "raised so one attention page holds one Mamba state"
            } else {
                ""
            },
        ));
        rows.push(BreakdownRow::new(
            "page_bytes",
            Amount::Bytes(self.page_bytes),
            "",
        ));
        rows.extend(self.block_rows());
        rows
    }

    /// KV groups, blocks, the tokens they hold and the requests that run.
    fn block_rows(&self) -> Vec<BreakdownRow> {
        let groups: Vec<String> = self
            .kv_groups
            .iter()
            .map(|g| {
                let kind = match (g.kind, g.window_tokens) {
                    (GroupKind::FullAttention, _) if self.layout.packed => "compressed".to_string(),
                    (GroupKind::FullAttention, _) => "attention".to_string(),
                    (GroupKind::SlidingWindow, w) => format!("window {}", w.unwrap_or(0)),
                    (GroupKind::ChunkedLocal, c) => format!("chunk {}", c.unwrap_or(0)),
                    (GroupKind::Mamba, _) => "mamba".to_string(),
                };
                format!("{kind} {}/{}", g.layers, g.slots)
            })
            .collect();
        let mut rows = vec![
            BreakdownRow::new(
                "kv_groups",
                Amount::Groups(self.kv_groups.len() as u64),
                format!(
                    "layers/slots: {}; {} padding slots",
                    groups.join(", "),
                    self.padding_slots
                ),
            ),
            BreakdownRow::new(
                "bytes_per_block",
                Amount::BlockBytes(self.bytes_per_block),
                if self.layout.packed {
                    format!(
                        "the widest group's pages packed side by side ({} caches)",
                        self.layout.group_size_layers
                    )
                } else {
                    format!("group size {} x page", self.layout.group_size_layers)
                },
            ),
            BreakdownRow::new(
                "num_blocks",
                Amount::Blocks(self.num_blocks),
                format!(
                    "floor(KV pool / bytes per block); {} usable besides the null block",
                    self.usable_blocks
                ),
            ),
            BreakdownRow::new(
                "kv_cache_tokens",
                Amount::Tokens(self.kv_cache_tokens),
                "the log's \"GPU KV cache size\"",
            ),
            BreakdownRow::new(
                "max_concurrency",
                Amount::Times(self.max_concurrency),
                format!(
                    "the log's \"Maximum concurrency for {} tokens per request\"",
                    grouped(self.max_model_len_tokens)
                ),
            ),
        ];
        rows.extend(self.max_running_requests.iter().map(|r| {
            BreakdownRow::new(
                format!("max_running_requests @ {}", format_tokens(r.context_tokens)),
                Amount::Requests(r.max_running_requests),
                format!(
                    "{} blocks each; {} with one shared prompt (prefix caching); max_num_seqs {}",
                    r.blocks_per_request, r.max_running_identical_prompts, self.max_num_seqs
                ),
            )
        }));
        rows
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::scenario::{NoFiles, Request};

    #[test]
    fn numbers_get_thousands_separators() {
        assert_eq!(grouped(1_263_908), "1,263,908");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped_f(1443.64, 1), "1,443.6");
        assert_eq!(grouped_f(999.96, 1), "1,000.0");
        assert_eq!(grouped_f(85_191.2, 0), "85,191");
        assert_eq!(grouped_f(-1234.5, 1), "-1,234.5");
        assert_eq!(grouped_f(-0.01, 1), "0.0");
        assert_eq!(grouped_f(f64::NAN, 1), "NaN");
    }

    /// The memory bar's segments partition the GPU's memory, in the bar's
    /// order, and the table's rows are each figure once.
    #[test]
    fn the_segments_add_up_to_the_gpus_memory() {
        for model in [None, Some("llama-3.1-8b")] {
            let request = Request {
                model: model.map(str::to_string),
                gpu: model.map(|_| "h100".to_string()),
                ..Request::default()
            };
            let plan = request.resolve(&NoFiles).unwrap();
            let cap = plan.capacity().unwrap();
            let rows = cap.breakdown(&plan);
            let segments: Vec<(Segment, u64)> = rows
                .iter()
                .filter_map(|r| match (r.segment, r.amount) {
                    (Some(s), Amount::Bytes(b)) => Some((s, b)),
                    _ => None,
                })
                .collect();
            let order: Vec<Segment> = segments.iter().map(|s| s.0).collect();
            assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
            assert_eq!(order.len(), 6);
            let sum: u64 = segments.iter().map(|s| s.1).sum();
            assert_eq!(sum, cap.total_bytes, "{model:?}");
            let mut names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
            let all = names.len();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), all);
        }
    }
}
