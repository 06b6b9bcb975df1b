//! Rendering core's results. No arithmetic beyond unit conversion for display.

use crate::table::Table;
use crate::{Format, FormatArgs};
use decodecalc_core::allocator::GroupKind;
use decodecalc_core::matrix::{Matrix, Phase};
use decodecalc_core::presets::{self, Kind};
use decodecalc_core::quant::QuantMethod;
use decodecalc_core::scenario::{Capacity, NonKvSource, Plan};
use decodecalc_core::units::{format_tokens, gib, mib, MIB};
use decodecalc_core::Error;
use serde::Serialize;

fn json<T: Serialize>(value: &T) -> Result<String, Error> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| Error::new(format!("cannot write JSON: {e}")))
}

fn emit(table: &Table, format: Format) -> Result<String, Error> {
    match format {
        Format::Table => Ok(table.text()),
        Format::Markdown => Ok(table.markdown()),
        Format::Csv => table
            .csv()
            .map_err(|e| Error::new(format!("cannot write CSV: {e}"))),
        Format::Json => Err(Error::new("internal: JSON is rendered from core's values")),
    }
}

/// Thousands separators for byte and token counts.
fn grouped(n: u64) -> String {
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

#[derive(Serialize)]
struct MatrixJson<'a> {
    scenario: &'a str,
    vllm_version: &'static str,
    model: &'a str,
    gpu: &'a str,
    block_size_tokens: u64,
    num_blocks: u64,
    kv_cache_tokens: u64,
    calibration: &'a str,
    cells: &'a [decodecalc_core::matrix::Cell],
}

pub fn matrix(plan: &Plan, cap: &Capacity, m: &Matrix, format: Format) -> Result<String, Error> {
    if format == Format::Json {
        return json(&MatrixJson {
            scenario: &m.scenario,
            vllm_version: decodecalc_core::VLLM_VERSION,
            model: &plan.model.id,
            gpu: &plan.gpu.id,
            block_size_tokens: cap.block_size_tokens,
            num_blocks: cap.num_blocks,
            kv_cache_tokens: cap.kv_cache_tokens,
            calibration: &m.calibration,
            cells: &m.cells,
        });
    }
    let mut t = Table::new(&[
        ("Phase", false),
        ("Context", true),
        ("Requests at once", true),
        ("Status", false),
        ("Total tok/s", true),
        ("Per request tok/s", true),
        ("TTFT ms", true),
        ("Time between tokens ms", true),
        ("Average active requests", true),
        ("Output tokens", true),
        ("Measured for s", true),
        ("KV blocks needed", true),
        ("KV blocks usable", true),
    ]);
    let num = |v: Option<f64>, digits: usize| v.map_or(String::new(), |x| format!("{x:.digits$}"));
    for c in &m.cells {
        t.push(vec![
            match c.phase {
                Phase::Prefill => "Prefill".into(),
                Phase::Decode => "Sustained decode".into(),
            },
            format_tokens(c.context_tokens),
            c.concurrency.to_string(),
            c.status.name().into(),
            num(c.total_tok_s, 1),
            num(c.per_request_tok_s, 1),
            num(c.ttft_ms, 0),
            num(c.tbt_ms, 1),
            num(c.avg_active_requests, 2),
            num(c.output_tokens, 0),
            num(c.measured_s, 1),
            grouped(c.blocks_needed),
            grouped(c.usable_blocks),
        ]);
    }
    let mut out = String::new();
    if format == Format::Table {
        out.push_str(&format!(
            "{} | {} on {} | vLLM {} | calibration {} | block {} tokens, {} blocks, KV cache {} tokens\n\n",
            m.scenario,
            plan.model.name,
            plan.gpu.name,
            decodecalc_core::VLLM_VERSION,
            m.calibration,
            grouped(cap.block_size_tokens),
            cap.num_blocks,
            grouped(cap.kv_cache_tokens)
        ));
    }
    out.push_str(&emit(&t, format)?);
    Ok(out)
}

pub fn capacity(plan: &Plan, cap: &Capacity, format: Format) -> Result<String, Error> {
    if format == Format::Json {
        return json(cap);
    }
    let mut t = Table::new(&[
        ("Quantity", false),
        ("Value", true),
        ("Unit", false),
        ("Note", false),
    ]);
    fn bytes(t: &mut Table, name: &str, v: u64, note: String) {
        t.push(vec![
            name.into(),
            grouped(v),
            "bytes".into(),
            match (v >= MIB, note.is_empty()) {
                (true, true) => format!("{:.3} GiB", gib(v)),
                (true, false) => format!("{:.3} GiB; {note}", gib(v)),
                (false, _) => note,
            },
        ]);
    }
    bytes(
        &mut t,
        "total_bytes",
        cap.total_bytes,
        format!("{} as the CUDA runtime reports it", plan.gpu.id),
    );
    bytes(
        &mut t,
        "requested_bytes",
        cap.requested_bytes,
        format!("ceil(total x {})", cap.gpu_memory_utilization),
    );
    bytes(&mut t, "weights_bytes", cap.weights_bytes, {
        let q = plan.engine.weight_quant(&plan.model.quant);
        match (q.method, q.group_size) {
            (QuantMethod::None, _) => {
                format!("{}, {}", plan.model.name, plan.model.model.dtype.name())
            }
            (m, Some(g)) => format!("{}, {} int{} group {g}", plan.model.name, m.name(), q.bits),
            (m, None) => format!("{}, {} {}-bit", plan.model.name, m.name(), q.bits),
        }
    });
    bytes(
        &mut t,
        "activation_bytes",
        cap.activation_bytes,
        format!(
            "profile run of {} tokens",
            plan.engine.max_num_batched_tokens
        ),
    );
    bytes(
        &mut t,
        "cudagraph_bytes",
        cap.cudagraph_bytes,
        format!(
            "{} piecewise + {} full graphs (estimate)",
            plan.estimate.cudagraphs.piecewise_graphs, plan.estimate.cudagraphs.full_graphs
        ),
    );
    bytes(
        &mut t,
        "non_torch_bytes",
        cap.non_torch_bytes,
        "estimate".into(),
    );
    bytes(
        &mut t,
        "non_kv_estimate_bytes",
        cap.non_kv_estimate_bytes,
        "sum of the four above".into(),
    );
    let source = match &cap.non_kv_source {
        NonKvSource::Estimated => "first-principles estimate".to_string(),
        NonKvSource::Pinned { derivation } => format!("pinned by the scenario: {derivation}"),
    };
    bytes(&mut t, "non_kv_bytes", cap.non_kv_bytes, source);
    bytes(
        &mut t,
        "kv_pool_bytes",
        cap.kv_pool_bytes,
        "requested - non-KV".into(),
    );
    bytes(
        &mut t,
        "attention_bytes_per_token_per_layer",
        cap.attention_bytes_per_token_per_layer,
        format!(
            "{} KV heads at {}",
            plan.model
                .model
                .attention_layers()
                .next()
                .map_or(0, |a| a.num_kv_heads),
            cap.kv_cache_dtype
        ),
    );
    if cap.mamba_state_bytes_per_layer > 0 {
        bytes(
            &mut t,
            "mamba_state_bytes_per_layer",
            cap.mamba_state_bytes_per_layer,
            format!(
                "conv {} B + SSM {} B",
                grouped(cap.layout.mamba_conv_state_bytes_per_layer),
                grouped(cap.layout.mamba_ssm_state_bytes_per_layer)
            ),
        );
    }
    t.push(vec![
        "block_size_tokens".into(),
        grouped(cap.block_size_tokens),
        "tokens".into(),
        if plan.model.model.is_hybrid() {
            "raised so one attention page holds one Mamba state".into()
        } else {
            String::new()
        },
    ]);
    bytes(&mut t, "page_bytes", cap.page_bytes, String::new());
    let groups: Vec<String> = cap
        .kv_groups
        .iter()
        .map(|g| {
            let kind = match (g.kind, g.window_tokens) {
                (GroupKind::FullAttention, _) => "attention".to_string(),
                (GroupKind::SlidingWindow, w) => format!("window {}", w.unwrap_or(0)),
                (GroupKind::Mamba, _) => "mamba".to_string(),
            };
            format!("{kind} {}/{}", g.layers, g.slots)
        })
        .collect();
    t.push(vec![
        "kv_groups".into(),
        cap.kv_groups.len().to_string(),
        "groups".into(),
        format!(
            "layers/slots: {}; {} padding slots",
            groups.join(", "),
            cap.padding_slots
        ),
    ]);
    t.push(vec![
        "bytes_per_block".into(),
        grouped(cap.bytes_per_block),
        "bytes".into(),
        format!(
            "{:.2} MiB = group size {} x page",
            mib(cap.bytes_per_block),
            cap.layout.group_size_layers
        ),
    ]);
    t.push(vec![
        "num_blocks".into(),
        grouped(cap.num_blocks),
        "blocks".into(),
        format!(
            "floor(KV pool / bytes per block); {} usable besides the null block",
            cap.usable_blocks
        ),
    ]);
    t.push(vec![
        "kv_cache_tokens".into(),
        grouped(cap.kv_cache_tokens),
        "tokens".into(),
        "the log's \"GPU KV cache size\"".into(),
    ]);
    t.push(vec![
        "max_concurrency".into(),
        format!("{:.2}", cap.max_concurrency),
        "x".into(),
        format!(
            "the log's \"Maximum concurrency for {} tokens per request\"",
            grouped(cap.max_model_len_tokens)
        ),
    ]);
    for r in &cap.max_running_requests {
        t.push(vec![
            format!("max_running_requests @ {}", format_tokens(r.context_tokens)),
            r.max_running_requests.to_string(),
            "requests".into(),
            format!(
                "{} blocks each; {} with one shared prompt (prefix caching); max_num_seqs {}",
                r.blocks_per_request, r.max_running_identical_prompts, cap.max_num_seqs
            ),
        ]);
    }
    let mut out = String::new();
    if format == Format::Table {
        out.push_str(&format!(
            "{} | {} on {} | vLLM {}\n\n",
            cap.scenario, plan.model.name, plan.gpu.name, cap.vllm_version
        ));
    }
    out.push_str(&emit(&t, format)?);
    if let Some(why) = &cap.startup_failure {
        if format == Format::Table {
            out.push_str(&format!("\nvLLM would not start: {why}\n"));
        }
    }
    Ok(out)
}

#[derive(Serialize)]
struct PresetJson {
    kind: Kind,
    id: &'static str,
    path: &'static str,
}

pub fn presets(args: &FormatArgs) -> Result<String, Error> {
    let list: Vec<PresetJson> = presets::FILES
        .iter()
        .map(|f| PresetJson {
            kind: f.kind,
            id: f.id,
            path: f.path,
        })
        .collect();
    if args.format == Format::Json {
        return json(&list);
    }
    let mut t = Table::new(&[("Kind", false), ("Id", false), ("File", false)]);
    for p in &list {
        t.push(vec![p.kind.name().into(), p.id.into(), p.path.into()]);
    }
    emit(&t, args.format)
}
