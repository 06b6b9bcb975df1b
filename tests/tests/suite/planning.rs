//! What would make a setup fit or fast, through the binary: `solve`'s
//! answers, `rank`'s table, tensor parallelism and distinct prompts.

use crate::cli::json_not_starting;
use decodecalc_tests::{json, rejects, run};

#[test]
fn tensor_parallelism_splits_the_model_and_adds_all_reduces() {
    let one = json_not_starting(&[
        "capacity",
        "--format",
        "json",
        "--model",
        "llama-3.1-70b",
        "--gpu",
        "h100-sxm",
        "--max-model-len",
        "16384",
    ]);
    let four = json(&[
        "capacity",
        "--format",
        "json",
        "--model",
        "llama-3.1-70b",
        "--gpu",
        "h100-sxm",
        "--max-model-len",
        "16384",
        "--tensor-parallel-size",
        "4",
    ]);
    assert_eq!(four["tensor_parallel_size"], 4);
    // Weights per GPU: a quarter, but for the replicated norms.
    let ratio = four["weights_bytes"].as_f64().unwrap() / one["weights_bytes"].as_f64().unwrap();
    assert!((ratio - 0.25).abs() < 0.001, "{ratio}");
    // 8 KV heads over 4 GPUs: 2 x 128 x 2 x 2 B per token per layer on each.
    assert_eq!(four["attention_bytes_per_token_per_layer"], 1_024);
    // 70 B in bf16 does not fit one 80 GB GPU; on four it does.
    assert!(one["startup_failure"].is_string());
    assert!(four["startup_failure"].is_null());
    let out = run(&[
        "matrix",
        "--model",
        "llama-3.1-70b",
        "--gpu",
        "h100-sxm",
        "--max-model-len",
        "16384",
        "-t",
        "4",
        "--explain",
        "0:32",
    ]);
    assert!(
        out.stdout.contains("all-reduce over 4 GPUs"),
        "{}",
        out.stdout
    );
    // The same through a launch line's short form.
    let v = json(&[
        "capacity",
        "--format",
        "json",
        "--vllm-command",
        "vllm serve meta-llama/Llama-3.1-70B -tp 4 --max-model-len 16384",
        "--gpu",
        "h100-sxm",
    ]);
    assert_eq!(v["weights_bytes"], four["weights_bytes"]);
    rejects(
        &[
            "capacity",
            "--model",
            "llama-3.1-70b",
            "--gpu",
            "h100-sxm",
            "-t",
            "3",
        ],
        "--tensor-parallel-size",
    );
}

#[test]
fn solve_answers_and_explains_what_it_would_take() {
    let v = json(&[
        "solve",
        "--for",
        "max-concurrency",
        "--context",
        "32K",
        "--format",
        "json",
    ]);
    assert_eq!(v["harness_max_concurrency"], 30);
    let v = json(&[
        "solve",
        "--for",
        "max-context",
        "--concurrency",
        "16",
        "--format",
        "json",
    ]);
    assert_eq!(v["valid_max_context_tokens"], 70_802);
    let utilization = |workload: &[&str]| {
        let mut args = vec![
            "solve",
            "--for",
            "gpu-memory-utilization",
            "--context",
            "32K",
            "--concurrency",
            "32",
            "--format",
            "json",
        ];
        args.extend(workload);
        json(&args)["value"].as_f64().unwrap()
    };
    let u = utilization(&[]);
    // 32 distinct prompts of 32K, each with 8,192 output tokens: the card
    // almost whole; the harness's one shared prompt needs less.
    assert!(u > 0.998 && u < 0.999, "{u}");
    let u = utilization(&["--workload", "harness"]);
    assert!(u > 0.94 && u < 0.97, "{u}");
    // 8 B in bf16 cannot hold 8 x (16K + 8K) tokens on a 24 GB card at any setting.
    let v = json(&[
        "solve",
        "--for",
        "max-model-len",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "rtx3090",
        "--context",
        "16K",
        "--concurrency",
        "8",
        "--format",
        "json",
    ]);
    assert!(v["value"].is_null());
    let s: Vec<String> = v["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    assert!(
        s.iter().any(|x| x.starts_with("a GPU with at least")),
        "{s:?}"
    );
    assert!(
        s.iter().any(|x| x == "or --tensor-parallel-size 2"),
        "{s:?}"
    );
    rejects(
        &["solve", "--for", "max-context"],
        "--concurrency is required",
    );
    rejects(
        &["solve", "--for", "max-concurrency"],
        "--context is required",
    );
    rejects(
        &["solve", "--for", "max-concurrency", "--context", "130K"],
        "exceeds max_model_len",
    );
    rejects(
        &[
            "solve",
            "--for",
            "max-concurrency",
            "--context",
            "8K",
            "--min-per-request-tok-s",
            "-1",
        ],
        "--min-per-request-tok-s",
    );
}

#[test]
fn rank_sorts_configurations_by_cost_and_takes_price_overrides() {
    let v = json(&[
        "rank",
        "--model",
        "qwen3-30b-a3b",
        "--context",
        "16K",
        "--concurrency",
        "32",
        "--top",
        "10000",
        "--format",
        "json",
    ]);
    let rows = v["configurations"].as_array().unwrap();
    assert!(rows.len() > 20, "{}", rows.len());
    let costs: Vec<f64> = rows
        .iter()
        .filter_map(|r| r["usd_per_million_output_tokens"].as_f64())
        .collect();
    assert!(costs.len() > 20 && costs.len() < rows.len());
    assert!(costs.windows(2).all(|w| w[0] <= w[1]));
    // Cost per million tokens = USD/h / (tok/s x 3600) x 1e6.
    let r = &rows[0];
    let want =
        r["usd_per_hour"].as_f64().unwrap() / (r["total_tok_s"].as_f64().unwrap() * 3600.0) * 1e6;
    assert!((r["usd_per_million_output_tokens"].as_f64().unwrap() / want - 1.0).abs() < 1e-12);
    assert_eq!(v["prices_date"], "2026-11");
    // A speed target removes the slow ones; a price override reorders.
    let fast = json(&[
        "rank",
        "--model",
        "qwen3-30b-a3b",
        "--context",
        "16K",
        "--concurrency",
        "32",
        "--min-per-request-tok-s",
        "40",
        "--top",
        "10000",
        "--format",
        "json",
    ]);
    let fast_rows = fast["configurations"].as_array().unwrap();
    assert!(fast_rows.len() < rows.len());
    assert!(fast_rows
        .iter()
        .all(|r| r["per_request_tok_s"].as_f64().unwrap() >= 40.0));
    let cheap = json(&[
        "rank",
        "--model",
        "qwen3-30b-a3b",
        "--context",
        "16K",
        "--concurrency",
        "32",
        "--gpus",
        "h100-sxm,rtx4090",
        "--price",
        "h100-sxm=0.01",
        "--format",
        "json",
    ]);
    assert_eq!(cheap["configurations"][0]["gpu"], "h100-sxm");
    rejects(
        &[
            "rank",
            "--model",
            "qwen3-30b-a3b",
            "--context",
            "16K",
            "--concurrency",
            "32",
            "--price",
            "h100-sxm",
        ],
        "--price",
    );
    rejects(
        &[
            "rank",
            "--model",
            "qwen3-30b-a3b",
            "--context",
            "16K",
            "--concurrency",
            "32",
            "--gpus",
            "tpu-v9",
        ],
        "tpu-v9",
    );
    rejects(
        &["rank", "--context", "16K", "--concurrency", "32"],
        "rank needs --model",
    );
}

#[test]
fn tensor_parallelism_drops_the_reference_pin_and_shows_per_gpu_kv_heads() {
    let out = run(&["capacity", "--tensor-parallel-size", "2"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The reference scenario's pinned non-KV figure belongs to TP 1.
    assert!(
        out.stdout.contains("first-principles estimate"),
        "{}",
        out.stdout
    );
    // Nemotron-Nano-12B-v2's 8 KV heads, 4 on each of two GPUs: 4 x 136 B
    // at int4_per_token_head (per head 64 B of K codes + 64 B of V codes +
    // two fp32 scales).
    assert!(
        out.stdout
            .contains("544  bytes     4 KV heads per GPU at int4_per_token_head"),
        "{}",
        out.stdout
    );
}

/// `rank` names the GPUs it leaves out for want of a price instead of
/// dropping them in silence, and `--top` prints the first few (issue 25).
#[test]
fn rank_names_unpriced_gpus_and_takes_top() {
    let with = |extra: &[&'static str]| {
        let mut v = vec!["rank", "--model", "qwen3-8b", "--context", "16K"];
        v.extend_from_slice(&["--concurrency", "32"]);
        v.extend_from_slice(extra);
        v
    };
    // GPUs without a price are ranked by tok/s per GPU after the priced
    // ones, their price empty; a GPU of the catalog is never dropped.
    let v = json(&with(&["--gpus", "rtx-pro-6000,b300", "--format", "json"]));
    let rows = v["configurations"].as_array().unwrap();
    assert_eq!(rows.len(), 10, "the default --top");
    assert!(rows.iter().all(|r| r["usd_per_hour"].is_null()));
    let per_gpu: Vec<f64> = rows
        .iter()
        .map(|r| r["tok_s_per_gpu"].as_f64().unwrap())
        .collect();
    assert!(per_gpu.windows(2).all(|w| w[0] >= w[1]), "{per_gpu:?}");
    assert_eq!(v["prompts"], "distinct");
    let v = json(&with(&[
        "--gpus",
        "h100,rtx-pro-6000",
        "--top",
        "40",
        "--format",
        "json",
    ]));
    let rows = v["configurations"].as_array().unwrap();
    let serving = usize::try_from(v["serving"].as_u64().unwrap()).unwrap();
    assert_eq!(rows.len(), serving.min(40));
    // Priced (the H100) first, then the unpriced RTX PRO 6000.
    let first_unpriced = rows
        .iter()
        .position(|r| r["usd_per_hour"].is_null())
        .unwrap();
    assert!(rows[..first_unpriced]
        .iter()
        .all(|r| r["gpu"] == "h100-sxm"));
    assert!(rows[first_unpriced..]
        .iter()
        .all(|r| r["gpu"] == "rtx-pro-6000"));
    assert_eq!(v["unpriced_gpus"], serde_json::json!(["rtx-pro-6000"]));
    assert!(v["considered"].as_u64().unwrap() >= serving as u64);
    let v = json(&with(&["--gpus", "h100", "--top", "2", "--format", "json"]));
    assert_eq!(v["configurations"].as_array().unwrap().len(), 2);
    assert!(v["serving"].as_u64().unwrap() > 2, "{v}");
    rejects(&with(&["--top", "0"]), "--top");
}

/// Issue 25: the same question for one shared prompt and for distinct ones.
/// Llama-3.1-8B on an L40S holds 12,415 usable blocks of 16 tokens
/// (`capacity`). Sixteen distinct prompts of context c are c + 160 tokens
/// each plus 8,192 output tokens: ceil((c + 8,352) / 16) blocks apiece, so
/// c = 4,048 takes 16 x 775 = 12,400 blocks and c = 4,049 takes 16 x 776 =
/// 12,416, one too many. One shared, cached prompt lets the engine run all
/// 16 at any context it accepts.
#[test]
fn distinct_prompts_hold_their_own_blocks() {
    let base = [
        "solve",
        "--for",
        "max-context",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "l40s",
        "--concurrency",
        "16",
        "--format",
        "json",
    ];
    let v = json(&base);
    assert_eq!(v["distinct_max_context_tokens"], 4_048);
    assert_eq!(v["engine_max_context_tokens"], 122_880);
    assert_eq!(v["max_tokens"], 8_192);
    // The matrix on the distinct workload: 4,048 runs all 16, 4,049 queues one.
    let distinct = |grid: &[&str]| {
        let mut args = vec![
            "matrix",
            "--model",
            "llama-3.1-8b",
            "--gpu",
            "l40s",
            "--workload",
            "distinct",
        ];
        args.extend(grid);
        args.iter().map(|a| a.to_string()).collect::<Vec<String>>()
    };
    let args = distinct(&[
        "--contexts",
        "4048,4049",
        "--concurrency",
        "16",
        "--format",
        "json",
    ]);
    let m = json(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(m["workload"], "distinct");
    let decode: Vec<&serde_json::Value> = m["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["phase"] == "decode")
        .collect();
    assert_eq!(decode[0]["status"], "valid");
    assert_eq!(decode[0]["blocks_per_request"], 775);
    assert_eq!(decode[1]["status"], "queued");
    assert_eq!(decode[1]["engine_running_requests"], 15);
    // Every header names the workload.
    let args = distinct(&["--contexts", "0", "--concurrency", "1"]);
    let text = run(&args.iter().map(String::as_str).collect::<Vec<_>>()).stdout;
    assert!(text.contains("workload distinct: every request sends its own prompt"));
    assert!(run(&["matrix"])
        .stdout
        .contains("workload harness: all requests send one identical prompt"));
    // `vllm bench serve --dataset-name random` sends distinct prompts: its
    // prediction says so under the setup.
    let bench = run(&[
        "bench-serve",
        "--model",
        "qwen3-8b",
        "--gpu",
        "h100",
        "--random-input-len",
        "1024",
        "--random-output-len",
        "128",
        "--num-prompts",
        "16",
    ])
    .stdout;
    let mut lines = bench.lines();
    assert!(lines.next().unwrap().starts_with("Qwen3-8B on NVIDIA H100"));
    assert!(lines
        .next()
        .unwrap()
        .starts_with("workload distinct: every request sends its own prompt"));
}

/// DeepSeek-V4's KV-dtype refusal is engine resolution's
/// (`EngineArgs::for_model`, `allocator::check_dsv4_kv_dtype`): `rank`,
/// which sweeps KV dtypes, never builds the int8 and int4 per-token-head
/// setups vLLM 0.32 refuses, while a capacity error that every
/// configuration shares (V4 at a release whose layout is not modelled) is
/// reported, exit 2, instead of ranking nothing.
#[test]
fn rank_skips_the_kv_dtypes_deepseek_v4_refuses_and_reports_capacity_errors() {
    let args = [
        "rank",
        "--model",
        "deepseek-ai/DeepSeek-V4-Flash",
        "--gpus",
        "h200",
        "--context",
        "8K",
        "--concurrency",
        "4",
    ];
    let ranked = decodecalc_tests::json(&[&args[..], &["--format", "json"]].concat());
    let configs = ranked["configurations"].as_array().unwrap();
    let dtypes: std::collections::BTreeSet<&str> = configs
        .iter()
        .map(|c| c["kv_cache_dtype"].as_str().unwrap())
        .collect();
    assert_eq!(
        dtypes.into_iter().collect::<Vec<_>>(),
        ["auto", "fp8", "fp8_per_token_head"]
    );
    // TP 2, 4 and 8 (one H200 cannot hold the weights) x the three.
    assert_eq!(ranked["considered"], 9, "{ranked}");
    assert_eq!(configs.len(), 9);
    // The refusal itself, for one setup, names the flag.
    let e = decodecalc_tests::rejects(
        &[
            "capacity",
            "--model",
            "deepseek-ai/DeepSeek-V4-Flash",
            "--gpu",
            "h200",
            "--tensor-parallel-size",
            "8",
            "--kv-cache-dtype",
            "int8_per_token_head",
        ],
        "--kv-cache-dtype",
    );
    assert!(e.contains("fp8_ds_mla"), "{e}");
    decodecalc_tests::rejects(
        &[&args[..], &["--vllm-version", "0.31.0"]].concat(),
        "modelled from vLLM 0.32.0 only",
    );
}
