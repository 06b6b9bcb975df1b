//! The command line as a user sees it: outputs, formats and bad input.

use decodecalc_tests::{json, rejects, run};
use decodecalc_tests::{reference_measured, scratch_file};
use serde_json::Value;

/// `capacity` of a setup vLLM would not start: the breakdown on stdout, the
/// error on stderr, exit 2 (the same code as every other subcommand).
fn json_not_starting(args: &[&str]) -> Value {
    let out = run(args);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("error: vLLM would not start with "),
        "{}",
        out.stderr
    );
    serde_json::from_str(&out.stdout).unwrap()
}

#[test]
fn matrix_json_has_every_cell_with_measured_statuses() {
    let v = json(&["matrix", "--format", "json"]);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 45);
    for row in reference_measured() {
        let cell = cells
            .iter()
            .find(|c| {
                c["phase"] == row.phase.name()
                    && c["context_tokens"] == row.context_tokens
                    && c["concurrency"] == row.concurrency
            })
            .unwrap();
        assert_eq!(cell["status"], row.status.name());
        match row.avg_active_requests {
            Some(a) => assert_eq!(cell["avg_active_requests"].as_f64(), Some(a)),
            None if row.phase.name() == "decode" => assert!(cell["avg_active_requests"].is_null()),
            None => {}
        }
    }
    assert_eq!(v["block_size_tokens"], 4896);
}

#[test]
fn matrix_table_csv_and_markdown_agree() {
    let table = run(&["matrix"]).stdout;
    // The default text fits a 120-column terminal; --wide has every column.
    let widest = widest_table_row;
    assert!(widest(&table) <= 120, "{}", widest(&table));
    assert!(widest(&run(&["matrix", "--wide"]).stdout) > 120);
    assert_eq!(table.matches("queued").count(), 1);
    // Over-capacity cells name the harness's rule and keep the engine's verdict.
    assert_eq!(table.matches("over capacity  ").count(), 12);
    assert!(
        table.contains("harness rule C x (context + max_tokens 8,192) > KV cache 1,263,908 tokens")
    );
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with("16K       128  over capacity"))
        .unwrap();
    assert!(row.ends_with("65 of 128"), "{row}");
    // Thousands separators in the text, plain numbers in CSV.
    assert!(table.contains("1,442.3"));
    let csv = run(&["matrix", "--format", "csv"]).stdout;
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().starts_with(
        "Phase,Context,Requests at once,Status,Engine runs,Total tok/s,±,Per request tok/s,Time between tokens ms,± ,TTFT cold ms,TTFT cached ms,Average active requests"
    ));
    assert_eq!(lines.count(), 45);
    let queued = csv
        .lines()
        .find(|l| l.starts_with("Sustained decode,0,128,queued,"))
        .unwrap();
    assert!(queued.contains(",67.00,"), "{queued}");
    // A decode cell at 16K x 32: the cached TTFT is the harness's, the cold
    // one prefills each 16,616-token prompt whole.
    let cell = csv
        .lines()
        .find(|l| l.starts_with("Sustained decode,16K,32,valid,"))
        .unwrap();
    assert!(cell.contains(",84957,12157,"), "{cell}");
    let md = run(&["matrix", "--format", "markdown"]).stdout;
    assert!(md.starts_with("| Phase | Context |"));
    assert_eq!(md.lines().count(), 47);
}

#[test]
fn capacity_json_has_the_documented_fields() {
    let v = json(&["capacity", "--format", "json"]);
    for key in [
        "total_bytes",
        "requested_bytes",
        "weights_bytes",
        "activation_bytes",
        "cudagraph_bytes",
        "non_torch_bytes",
        "kv_pool_bytes",
        "block_size_tokens",
        "page_bytes",
        "bytes_per_block",
        "num_blocks",
        "kv_groups",
        "kv_cache_tokens",
        "max_concurrency",
        "max_running_requests",
    ] {
        assert!(!v[key].is_null(), "missing {key}");
    }
    assert_eq!(v["total_bytes"], 25_438_126_080u64);
    assert_eq!(v["page_bytes"], 5_326_848);
    assert_eq!(v["kv_groups"][0]["kind"], "full_attention");
    assert_eq!(v["kv_groups"][0]["layers"], 6);
    assert_eq!(v["max_running_requests"][0]["context_tokens"], 0);
    assert_eq!(v["max_running_requests"][0]["max_running_requests"], 67);
    let text = run(&["capacity"]).stdout;
    assert!(text.contains("31,961,088"));
}

#[test]
fn a_users_model_starts_from_vllm_defaults_not_the_reference_run() {
    // bf16 Nemotron-Nano-12B does not fit a 24 GB card: the breakdown says why.
    let v = json_not_starting(&[
        "capacity",
        "--model",
        "nemotron-nano-12b-v2",
        "--gpu",
        "rtx3090",
        "--format",
        "json",
    ]);
    assert_eq!(v["kv_cache_dtype"], "auto");
    assert_eq!(v["gpu_memory_utilization"], 0.92);
    assert_eq!(v["max_num_seqs"], 256);
    assert_eq!(v["non_kv_source"], "estimated");
    // bf16 weights: 12.31 B parameters x 2 B.
    let w = v["weights_bytes"].as_u64().unwrap() as f64;
    assert!((w / 24.62e9 - 1.0).abs() < 0.01, "{w}");
    // bf16 KV (4,096 B/token/layer) and float32 SSM state: block 16 x ceil(5,316,608 / 65,536).
    assert_eq!(v["block_size_tokens"], 1_312);
}

#[test]
fn explicit_flags_override_the_scenario() {
    let base = json(&["capacity", "--format", "json"]);
    let lower = json(&[
        "capacity",
        "--format",
        "json",
        "--gpu-memory-utilization",
        "0.9",
    ]);
    assert_eq!(base["num_blocks"], 405);
    assert_eq!(lower["num_blocks"], 373);
    let fp8 = json(&["capacity", "--format", "json", "--kv-cache-dtype", "fp8"]);
    // fp8: 8 heads x 256 B = 2,048 B/token/layer; block 16 x ceil(5,316,608 / 32,768) = 2,608.
    assert_eq!(fp8["block_size_tokens"], 2_608);
    let m = json(&[
        "matrix",
        "--format",
        "json",
        "--contexts",
        "0,8K",
        "--concurrency",
        "1,3",
        "--max-tokens",
        "100",
    ]);
    // The scenario's five prefill rows stay; the decode grid is 2 x 2.
    assert_eq!(m["cells"].as_array().unwrap().len(), 5 + 4);
}

#[test]
fn unknown_preset_is_rejected_with_the_known_ones() {
    let err = rejects(&["matrix", "--model", "gpt-7"], "gpt-7");
    assert!(err.contains("nemotron-nano-12b-v2-awq4"));
    rejects(&["matrix", "--scenario", "nope"], "nope");
    rejects(
        &["capacity", "--gpu", "rtx9090", "--model", "llama-3.1-8b"],
        "rtx9090",
    );
}

#[test]
fn missing_file_is_named() {
    rejects(
        &["matrix", "--scenario", "/nonexistent/s.toml"],
        "/nonexistent/s.toml",
    );
}

#[test]
fn malformed_toml_names_file_line_and_field() {
    let path = scratch_file(
        "bad-scenario.toml",
        "id = \"x\"\nmodel = \"llama-3.1-8b\"\ngpu = \"rtx3090\"\n\n[engine]\nmax_num_seqs = \"many\"\n",
    );
    let p = path.to_string_lossy().to_string();
    let err = rejects(&["matrix", "--scenario", &p], &format!("{p}:6:"));
    assert!(err.contains("field `engine.max_num_seqs`"), "{err}");
    let path = scratch_file(
        "typo.toml",
        "id = \"x\"\nmodel = \"llama-3.1-8b\"\ngpu = \"rtx3090\"\ngpus = 2\n",
    );
    let p = path.to_string_lossy().to_string();
    rejects(&["matrix", "--scenario", &p], "unknown field `gpus`");
    let path = scratch_file("broken.toml", "id = \"x\nmodel = 1\n");
    let p = path.to_string_lossy().to_string();
    rejects(&["matrix", "--scenario", &p], &format!("{p}:1:"));
    let path = scratch_file(
        "bad-util.toml",
        "id = \"x\"\nmodel = \"llama-3.1-8b\"\ngpu = \"rtx3090\"\n[engine]\ngpu_memory_utilization = 1.2\n",
    );
    let p = path.to_string_lossy().to_string();
    rejects(
        &["matrix", "--scenario", &p],
        "[engine] gpu_memory_utilization",
    );
}

#[test]
fn utilization_outside_zero_one_is_rejected() {
    for bad in ["1.5", "0", "-0.1", "1.0000001"] {
        let err = rejects(
            &["matrix", "--gpu-memory-utilization", bad],
            "--gpu-memory-utilization",
        );
        assert!(err.contains("(0, 1]"), "{err}");
    }
    assert_eq!(run(&["capacity", "--gpu-memory-utilization", "1"]).code, 0);
}

#[test]
fn zero_or_negative_memory_is_rejected() {
    let gpu = |mem: &str| {
        format!(
            "id = \"g\"\nname = \"G\"\nmemory_bytes = {mem}\nbandwidth_gb_s = 900.0\nfp16_tflops = 70.0\ntdp_w = 300.0\narch = \"sm86\"\nsegment = \"geforce\"\nsource = \"test\"\n"
        )
    };
    let p = scratch_file("zero-gpu.toml", &gpu("0"))
        .to_string_lossy()
        .to_string();
    rejects(
        &["capacity", "--model", "llama-3.1-8b", "--gpu", &p],
        "memory_bytes",
    );
    let p = scratch_file("neg-gpu.toml", &gpu("-24000000000"))
        .to_string_lossy()
        .to_string();
    rejects(
        &["capacity", "--model", "llama-3.1-8b", "--gpu", &p],
        &format!("{p}:3:"),
    );
    let p = scratch_file("neg-pin.toml", "id = \"x\"\nmodel = \"llama-3.1-8b\"\ngpu = \"rtx3090\"\n[memory]\nnon_kv_bytes = -5\nderivation = \"t\"\n")
        .to_string_lossy()
        .to_string();
    rejects(&["capacity", "--scenario", &p], "non_kv_bytes");
}

#[test]
fn empty_or_bad_lists_are_rejected() {
    rejects(&["matrix", "--concurrency", ""], "--concurrency");
    rejects(&["matrix", "--concurrency", "1,,2"], "--concurrency");
    rejects(&["matrix", "--concurrency", "0"], "--concurrency");
    rejects(&["matrix", "--contexts", ""], "--contexts");
    rejects(&["matrix", "--contexts", "16q"], "--contexts");
}

#[test]
fn context_above_max_model_len_is_rejected() {
    let err = rejects(
        &["matrix", "--contexts", "128K"],
        "exceeds max_model_len 131072",
    );
    assert!(err.contains("122880"), "{err}");
    rejects(&["matrix", "--max-model-len", "200000"], "--max-model-len");
}

#[test]
fn other_bad_values_are_rejected() {
    rejects(&["matrix", "--kv-cache-dtype", "int2"], "--kv-cache-dtype");
    rejects(&["matrix", "--max-num-seqs", "-4"], "--max-num-seqs");
    rejects(&["matrix", "--block-size", "20"], "--block-size");
    rejects(
        &["matrix", "--mamba-ssm-cache-dtype", "fp4"],
        "--mamba-ssm-cache-dtype",
    );
    rejects(&["matrix", "--quantization", "int3"], "--quantization");
    rejects(&["matrix", "--gpu", "rtx3090"], "--gpu");
    // A usage error from the flag parser also exits 2.
    let out = run(&["matrix", "--max-num-seqs", "lots"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.starts_with("error:"));
}

#[test]
fn a_gpu_too_small_for_the_model_says_vllm_would_not_start() {
    let out = run(&[
        "matrix",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "rtx3090",
        "--gpu-memory-utilization",
        "0.5",
    ]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.starts_with("error: vLLM would not start"),
        "{}",
        out.stderr
    );
}

#[test]
fn presets_lists_every_kind() {
    let v = json(&["presets", "--format", "json"]);
    let kinds: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    for k in ["gpu", "model", "scenario", "measured"] {
        assert!(kinds.contains(&k), "{k}");
    }
}

#[test]
fn compare_json_has_the_documented_shape() {
    let v = json(&["compare", "--format", "json"]);
    assert_eq!(v["summary"]["cells"], 45);
    assert_eq!(v["summary"]["status_agreement"], 45);
    for metric in [
        "total_tok_s",
        "per_request_tok_s",
        "tbt_ms",
        "ttft_ms",
        "prefill_tok_s",
        "avg_active_requests",
    ] {
        for key in ["n", "mape_pct", "max_abs_pct"] {
            assert!(
                v["summary"]["metrics"][metric][key].is_number(),
                "{metric}.{key}"
            );
        }
    }
    assert!(v["cross_validation"].is_null());
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 45);
    let c = cells
        .iter()
        .find(|c| c["phase"] == "decode" && c["context_tokens"] == 16384 && c["concurrency"] == 32)
        .unwrap();
    assert_eq!(c["measured"]["total_tok_s"], 766.0);
    assert!(c["error_pct"]["total_tok_s"].as_f64().unwrap().abs() < 5.0);
    let cv = json(&["compare", "--format", "json", "--cross-validate"]);
    assert_eq!(cv["cross_validation"]["total_tok_s"]["n"], 28);
    // The harness's own JSON gives the same summary.
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/benchmark_results.json"
    );
    let j = json(&["compare", "--format", "json", "--measured", fixture]);
    assert_eq!(j["summary"]["status_agreement"], 45);
    for metric in [
        "total_tok_s",
        "per_request_tok_s",
        "tbt_ms",
        "ttft_ms",
        "prefill_tok_s",
    ] {
        let a = j["summary"]["metrics"][metric]["mape_pct"]
            .as_f64()
            .unwrap();
        let b = v["summary"]["metrics"][metric]["mape_pct"]
            .as_f64()
            .unwrap();
        assert!((a - b).abs() < 1e-9, "{metric}: {a} vs {b}");
    }
}

#[test]
fn compare_gates_on_max_mape() {
    assert_eq!(run(&["compare", "--max-mape", "5"]).code, 0);
    let out = run(&["compare", "--max-mape", "1"]);
    assert_eq!(out.code, 1);
    assert!(!out.stdout.is_empty());
    assert_eq!(
        run(&["compare", "--cross-validate", "--max-mape", "2.5"]).code,
        1
    );
    assert_eq!(
        run(&["compare", "--cross-validate", "--max-mape", "3.5"]).code,
        0
    );
    rejects(&["compare", "--max-mape", "-1"], "--max-mape");
}

#[test]
fn calibrate_on_one_run_writes_a_usable_calibration() {
    let out_path = std::env::temp_dir().join(format!("decodecalc-cal-{}.toml", std::process::id()));
    let out_str = out_path.to_string_lossy().to_string();
    let csv = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/measured/rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32.csv"
    );
    let out = run(&["calibrate", "--measured", csv, "--out", &out_str]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("attn_bw_eff_triton"));
    assert!(out.stdout.contains("no: no measured figure depends on it"));
    let written = std::fs::read_to_string(&out_path).unwrap();
    let file = decodecalc_core::scenario::CalibrationFile::parse(&out_str, &written).unwrap();
    assert_eq!(file.class, "ampere-geforce");
    assert_eq!(file.gpus, ["rtx3090"]);
    // Fitted on that run alone, it predicts it about as the shipped joint
    // fit does, both inside issue 24's 3% in-sample bar.
    let m = json(&["compare", "--format", "json", "--calibration", &out_str]);
    assert_eq!(m["calibration"], out_str.as_str());
    let mape = |v: &serde_json::Value| {
        v["summary"]["metrics"]["total_tok_s"]["mape_pct"]
            .as_f64()
            .unwrap()
    };
    let joint = json(&["compare", "--format", "json"]);
    assert!(
        mape(&m) <= 3.0 && mape(&joint) <= 3.0,
        "{} {}",
        mape(&m),
        mape(&joint)
    );
    assert!(
        (mape(&m) - mape(&joint)).abs() < 0.5,
        "{} {}",
        mape(&m),
        mape(&joint)
    );
}

#[test]
fn bench_serve_predicts_and_compares_with_a_saved_result() {
    let out = json(&[
        "bench-serve",
        "--model",
        "qwen3-8b",
        "--gpu",
        "h100",
        "--random-input-len",
        "233",
        "--random-output-len",
        "221",
        "--num-prompts",
        "100",
        "--max-concurrency",
        "4",
        "--format",
        "json",
    ]);
    // Modelling 0.32 with a class fitted on 0.11 runs only: the label says so.
    assert_eq!(out["calibration"], "hopper (fitted on vLLM 0.8.5, 0.11.0)");
    assert_eq!(out["vllm_version"], "0.32.0");
    assert_eq!(out["predicted"]["completed"], 100);
    assert_eq!(out["predicted"]["total_output_tokens"], 22_100);
    // A new model on a GPU the fit measured: the leave-family-out band.
    assert_eq!(out["tpot_band"]["hold_out"], "leave-family-out");
    assert!(out["tpot_band"]["p90_abs_pct"].as_f64().unwrap() > 0.0);
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/bench-serve/tokenkaki-v0.19.1-a100-qwen3-8b-chat-summary.json"
    );
    let out = run(&[
        "bench-serve",
        "--model",
        "qwen3-8b",
        "--gpu",
        "a100",
        "--result",
        fixture,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for figure in [
        "output_throughput",
        "mean_tpot_ms",
        "median_itl_ms",
        "p99_ttft_ms",
    ] {
        assert!(out.stdout.contains(figure), "{figure}: {}", out.stdout);
    }
    // Bad files each get a named error.
    let harness = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/benchmark_results.json"
    );
    rejects(
        &[
            "bench-serve",
            "--model",
            "qwen3-8b",
            "--gpu",
            "a100",
            "--result",
            harness,
        ],
        "not a `vllm bench serve --save-result` file",
    );
    let truncated = decodecalc_tests::scratch_file(
        "truncated-bench.json",
        "{\"num_prompts\": 100, \"completed\": 100, \"dura",
    );
    bench_rejects(&["--result", &truncated.to_string_lossy()], "truncated");
    let missing = decodecalc_tests::scratch_file(
        "missing-bench.json",
        "{\"num_prompts\": 100, \"completed\": 100, \"duration\": 2.0, \"total_input_tokens\": 1000}",
    );
    bench_rejects(
        &["--result", &missing.to_string_lossy()],
        "missing key `total_output_tokens`",
    );
    bench_rejects(&["--dataset-name", "sharegpt"], "--dataset-name");
    bench_rejects(&["--request-rate", "-3"], "--request-rate");
    bench_rejects(
        &["--request-rate", "5", "--burstiness", "0"],
        "--burstiness",
    );
    bench_rejects(&["--num-prompts", "1000000"], "--num-prompts");
}

/// `bench-serve --model qwen3-8b --gpu a100 ARGS` fails naming `names`.
fn bench_rejects(args: &[&str], names: &str) {
    let mut all = vec!["bench-serve", "--model", "qwen3-8b", "--gpu", "a100"];
    all.extend_from_slice(args);
    rejects(&all, names);
}

#[test]
fn explain_names_the_terms_of_a_cell() {
    let out = run(&["matrix", "--explain", "16K:32"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for needle in [
        "Mamba state read+write",
        "attention KV reads",
        "dominant: attention KV reads",
        "blocks per running request",
    ] {
        assert!(out.stdout.contains(needle), "{needle}: {}", out.stdout);
    }
    let out = run(&["matrix", "--explain", "0:8"]);
    assert!(
        out.stdout.contains("dominant: weight reads"),
        "{}",
        out.stdout
    );
    let out = run(&["matrix", "--explain", "8K"]);
    assert!(out.stdout.contains("prefill tok/s"), "{}", out.stdout);
    rejects(&["matrix", "--explain", "16K:x"], "--explain");
    rejects(&["matrix", "--explain", "130K:1"], "exceeds max_model_len");
}

#[test]
fn bad_measured_files_name_row_and_column() {
    let head = "phase,context_tokens,concurrency,status,total_tok_s,per_request_tok_s,ttft_ms,tbt_ms,avg_active_requests,output_tokens,measured_s\n";
    let p = scratch_file(
        "no-col.csv",
        "phase,context_tokens,concurrency,status\ndecode,0,1,valid\n",
    )
    .to_string_lossy()
    .to_string();
    rejects(
        &["compare", "--measured", &p],
        "missing column `total_tok_s`",
    );
    let p = scratch_file(
        "nan.csv",
        &format!("{head}decode,0,1,valid,94.2,94.3,38,ten,1.00,2824,30.0\n"),
    )
    .to_string_lossy()
    .to_string();
    rejects(
        &["compare", "--measured", &p],
        &format!("{p}:2: column `tbt_ms` has `ten`"),
    );
    let p = scratch_file("other.json", "{\"data\": [1, 2, 3]}")
        .to_string_lossy()
        .to_string();
    rejects(&["compare", "--measured", &p], "missing array `results`");
    let p = scratch_file(
        "bad-cell.json",
        "{\"results\": [{\"concurrency\": 2, \"context_tokens\": 0, \"aggregate_tps\": \"fast\"}]}",
    )
    .to_string_lossy()
    .to_string();
    rejects(&["compare", "--measured", &p], "results[0].aggregate_tps");
    let p = scratch_file("ctx.csv", &format!("{head}decode,0,1,valid,94.2,94.3,38,10.6,1.00,2824,30.0\ndecode,12288,1,valid,90,90,500,11,1.00,2700,30.0\n"))
        .to_string_lossy()
        .to_string();
    let err = rejects(
        &["compare", "--measured", &p],
        &format!("{p}:3: column `context_tokens` has 12288"),
    );
    assert!(err.contains("0, 16K, 32K, 64K, 120K"), "{err}");
    rejects(
        &["compare", "--measured", "/nonexistent/m.csv"],
        "/nonexistent/m.csv",
    );
    rejects(&["calibrate", "--measured", &p], "context_tokens");
}

/// The seed's launch line, as the page prints it (comment lines included).
const SEED_LAUNCH: &str = "# Untuned out-of-the-box baseline. Spec decode: none. KV cache: int4_per_token_head
# 1x RTX 3090 24GB (Zagitta/gpu-unlock), 350 W limit (VBIOS max), PCIe Gen4 x16
vllm serve cyankiwi/NVIDIA-Nemotron-Nano-12B-v2-AWQ-4bit --max-model-len 131072 --gpu-memory-utilization 0.94 --max-num-seqs 128 --enable-prefix-caching --trust-remote-code --kv-cache-dtype int4_per_token_head --attention-backend TRITON_ATTN";

#[test]
fn the_seed_launch_line_predicts_the_reference_run_unchanged() {
    let by_scenario = run(&["matrix", "--format", "json"]);
    let by_command = run(&["matrix", "--format", "json", "--vllm-command", SEED_LAUNCH]);
    assert_eq!(by_command.code, 0, "{}", by_command.stderr);
    assert_eq!(by_command.stdout, by_scenario.stdout);
    assert!(by_command.stderr.starts_with(
        "warning: the launch line is scenario rtx3090-nemotron-nano-12b-v2-awq4-vllm0.32's"
    ));
    let cap_a = run(&["capacity", "--format", "json"]).stdout;
    let cap_b = run(&[
        "capacity",
        "--format",
        "json",
        "--vllm-command",
        SEED_LAUNCH,
    ])
    .stdout;
    assert_eq!(cap_a, cap_b);
}

#[test]
fn a_launch_line_fills_the_flags_and_warns_about_the_rest() {
    let out = run(&[
        "capacity",
        "--format",
        "json",
        "--gpu",
        "rtx3090",
        "--vllm-command",
        "vllm serve meta-llama/Llama-3.1-8B --max-model-len 16k --kv-cache-dtype fp8 --enforce-eager --foo 1 --port 8000",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["kv_cache_dtype"], "fp8");
    // vLLM reads `16k` as 16,000 (lowercase is decimal; `16K` is 16,384).
    assert_eq!(v["max_model_len_tokens"], 16_000);
    assert_eq!(v["gpu_memory_utilization"], 0.92);
    // --enforce-eager is read: no CUDA graphs are captured or held.
    assert_eq!(v["cudagraph_bytes"], 0);
    assert_eq!(out.stderr, "warning: unknown flag --foo 1 ignored\n");
    // Explicit flags win over the launch line's.
    let v = json(&[
        "capacity",
        "--format",
        "json",
        "--vllm-command",
        "vllm serve meta-llama/Llama-3.1-8B --max-model-len 16K",
        "--gpu",
        "rtx3090",
        "--max-model-len",
        "8192",
    ]);
    assert_eq!(v["max_model_len_tokens"], 8_192);
    rejects(
        &["matrix", "--vllm-command", "vllm serve some/unknown-model"],
        "some/unknown-model",
    );
    rejects(
        &[
            "matrix",
            "--vllm-command",
            "vllm serve meta-llama/Llama-3.1-8B --max-num-seqs lots",
            "--gpu",
            "rtx3090",
        ],
        "--max-num-seqs",
    );
}

#[test]
fn a_config_json_or_its_folder_is_a_model() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/configs");
    let file = format!("{dir}/qwen3-30b-a3b.json");
    let v = json(&[
        "capacity", "--format", "json", "--model", &file, "--gpu", "h100-sxm",
    ]);
    assert_eq!(v["attention_bytes_per_token_per_layer"], 2_048);
    let params = v["model_params"].as_f64().unwrap();
    assert!((params / 30.5e9 - 1.0).abs() < 0.01, "{params}");
    // A folder holding a config.json.
    let folder = std::env::temp_dir().join(format!("decodecalc-model-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(&file, folder.join("config.json")).unwrap();
    let w = json(&[
        "capacity",
        "--format",
        "json",
        "--model",
        &folder.to_string_lossy(),
        "--gpu",
        "h100-sxm",
    ]);
    assert_eq!(w["model_params"], v["model_params"]);
    // A preset's Hugging Face repo id also names it.
    let r = json(&[
        "capacity",
        "--format",
        "json",
        "--model",
        "Qwen/Qwen3-30B-A3B",
        "--gpu",
        "h100-sxm",
    ]);
    assert_eq!(r["model_params"], v["model_params"]);
    rejects(
        &["capacity", "--model", "/nonexistent/dir"],
        "/nonexistent/dir/config.json",
    );
}

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
fn svg_pictures_are_written() {
    let dir = std::env::temp_dir().join(format!("decodecalc-svg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let m = dir.join("m.svg").to_string_lossy().to_string();
    let c = dir.join("c.svg").to_string_lossy().to_string();
    assert_eq!(run(&["matrix", "--svg", &m]).code, 0);
    let svg = std::fs::read_to_string(&m).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
    // One rectangle per decode cell plus the background.
    assert_eq!(svg.matches("<rect").count(), 41);
    assert_eq!(
        svg.lines().filter(|l| l.trim() == "over capacity").count(),
        12
    );
    assert_eq!(run(&["compare", "--svg", &c]).code, 0);
    let svg = std::fs::read_to_string(&c).unwrap();
    assert_eq!(svg.matches("<circle").count(), 28);
    let joint = json(&["compare", "--format", "json"]);
    let mape = joint["summary"]["metrics"]["total_tok_s"]["mape_pct"]
        .as_f64()
        .unwrap();
    assert!(svg.contains(&format!("MAPE {mape:.2}%")), "MAPE {mape:.2}%");
    rejects(
        &["matrix", "--svg", "/nonexistent/dir/m.svg"],
        "/nonexistent/dir/m.svg",
    );
}

#[test]
fn flag_parser_errors_end_with_a_hint() {
    let out = run(&["matrix", "--bogus"]);
    assert_eq!(out.code, 2);
    assert!(out
        .stderr
        .starts_with("error: unexpected argument '--bogus' found"));
    assert!(
        out.stderr.ends_with(
            "hint: `decodecalc matrix --help` lists every flag and the values it takes\n"
        ),
        "{}",
        out.stderr
    );
}

/// Clap's refusals are worded from the error's kind and context (the
/// argument, the value, clap's suggestions), not re-parsed from its
/// rendered text (cli/src/lib.rs `clap_error_text`).
#[test]
fn clap_refusals_name_the_argument_and_the_valid_values() {
    let cases: [(&[&str], &str, &str); 4] = [
        (
            &["matrx"],
            "error: unrecognized subcommand 'matrx'",
            "a similar subcommand exists: 'matrix'",
        ),
        (
            &["matrix", "--modl", "x"],
            "error: unexpected argument '--modl' found",
            "a similar argument exists: '--model'",
        ),
        (
            &["matrix", "--format", "xml"],
            "error: invalid value 'xml' for '--format <FORMAT>'",
            "possible values: table, csv, json, markdown",
        ),
        (
            &["capacity", "--gpu", "l4", "--gpu", "h100"],
            "error: the argument '--gpu <VALUE>' cannot be used multiple times",
            "`decodecalc capacity --help`",
        ),
    ];
    for (args, error, hint) in cases {
        let out = run(args);
        assert_eq!(out.code, 2, "{args:?}");
        let (first, second) = out.stderr.split_once('\n').unwrap();
        assert_eq!(first, error, "{args:?}");
        assert!(
            second.starts_with("hint: ") && second.contains(hint),
            "{args:?}: {second}"
        );
    }
}

#[test]
fn control_characters_never_reach_the_terminal_raw() {
    // ESC (a colour sequence) and RLO (right-to-left override) in a flag value.
    let out = run(&["capacity", "--model", "\u{1b}[31mred\u{202e}x"]);
    assert_eq!(out.code, 2);
    assert!(!out.stderr.contains('\u{1b}') && !out.stderr.contains('\u{202e}'));
    assert!(
        out.stderr
            .contains("`\\u{1b}[31mred\\u{202e}x` is no model preset"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_comparison_picture_without_timed_decode_cells_is_an_error_not_a_hang() {
    // Only prefill and over-capacity rows: nothing to put on log axes.
    let csv = "phase,context_tokens,concurrency,status,total_tok_s,per_request_tok_s,ttft_ms,tbt_ms,avg_active_requests,output_tokens,measured_s\n\
prefill,8192,1,valid,3587.0,,2338,,,,\n\
decode,122880,64,over_capacity,,,,,,,\n";
    let measured = scratch_file("no-decode.csv", csv);
    let svg = scratch_file("no-decode.svg", "");
    let out = run(&[
        "compare",
        "--measured",
        measured.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("--svg: the measured run has no timed decode cell to draw"),
        "{}",
        out.stderr
    );
}

/// The first line of stderr of a refused command (exit 2).
fn refusal(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
    assert!(out.stderr.contains("\nhint: "), "{}", out.stderr);
    out.stderr.lines().next().unwrap_or_default().to_string()
}

#[test]
fn setups_vllm_refuses_and_implausible_values_are_refused_by_name() {
    assert_eq!(
        refusal(&["matrix", "--contexts", "0,16K,0"]),
        "error: `--contexts` lists 0 twice"
    );
    let many: Vec<String> = (1..=100).map(|i| (i * 16).to_string()).collect();
    let conc: Vec<String> = (1..=50).map(|i| i.to_string()).collect();
    assert_eq!(
        refusal(&["matrix", "--contexts", &many.join(","), "--concurrency", &conc.join(",")]),
        "error: 100 contexts x 50 concurrencies (+ 100 prefill rows) is 5100 cells, more than the 4096 a matrix may have"
    );
    assert_eq!(
        refusal(&[
            "capacity",
            "--model",
            "llama-3.1-8b",
            "--gpu",
            "h100",
            "--max-num-seqs",
            "512",
            "--max-num-batched-tokens",
            "256"
        ]),
        "error: invalid value `256` for `--max-num-batched-tokens`"
    );
    assert_eq!(
        refusal(&[
            "capacity",
            "--model",
            "llama-3.1-8b",
            "--gpu",
            "h100",
            "--kv-cache-memory-bytes",
            "90000000000"
        ]),
        "error: invalid value `90000000000` for `--kv-cache-memory-bytes`"
    );
    assert_eq!(
        refusal(&[
            "rank",
            "--model",
            "llama-3.1-8b",
            "--context",
            "16K",
            "--concurrency",
            "8",
            "--price",
            "rtx4090=1e308"
        ]),
        "error: invalid value `rtx4090=1e308` for `--price`"
    );
    assert_eq!(
        refusal(&[
            "rank",
            "--model",
            "deepseek-v3",
            "--context",
            "120K",
            "--concurrency",
            "4096"
        ]),
        "error: no configuration of the sweep serves 4096 requests at 122880 tokens"
    );
    // A GPU file whose bandwidth is a typo.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/gpus/rtx3090.toml"
    ))
    .unwrap()
    .replace("bandwidth_gb_s = 936.0", "bandwidth_gb_s = 1e-300");
    assert!(text.contains("1e-300"));
    let gpu = scratch_file("slow.toml", &text);
    let first = refusal(&[
        "matrix",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        gpu.to_str().unwrap(),
    ]);
    assert!(
        first.ends_with("invalid value `1e-300` for `gpu.bandwidth_gb_s`"),
        "{first}"
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

/// Every row of core's engine-flag table is a flag of the CLI (the
/// launch-line reader, the log reader and the scenario overlay are
/// generated from the table; the CLI's clap arguments are checked here).
#[test]
fn every_engine_flag_of_the_table_is_a_cli_flag() {
    use decodecalc_core::flags::{FlagKind, ENGINE_FLAGS};
    let out = run(&["matrix", "--help"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for f in ENGINE_FLAGS {
        assert!(
            out.stdout.contains(&format!("--{} ", f.flag))
                || out.stdout.contains(&format!("--{} <", f.flag))
                || out.stdout.contains(&format!("--{}\n", f.flag)),
            "--{} is in the flag table but not a CLI flag",
            f.flag
        );
        if f.kind == FlagKind::Switch {
            assert!(
                out.stdout.contains(&format!("--no-{}", f.flag)),
                "--no-{}",
                f.flag
            );
        }
    }
}

/// A model without a GPU is refused, asking for one and naming the
/// presets that hold its weights; a setup vLLM would not start names the
/// GPU and model it was tried on and its sizes in GiB (issue 25).
#[test]
fn a_setup_that_would_not_start_names_the_gpu_it_was_tried_on() {
    for args in [
        &["matrix", "--model", "llama-3.1-8b"][..],
        &[
            "solve",
            "--for",
            "max-context",
            "--concurrency",
            "4",
            "--model",
            "llama-3.1-8b",
        ],
        &[
            "matrix",
            "--vllm-command",
            "vllm serve meta-llama/Llama-3.1-8B",
        ],
    ] {
        let out = run(args);
        assert_eq!(out.code, 2, "{args:?}");
        let mut lines = out.stderr.lines();
        assert_eq!(
            lines.next(),
            Some("error: no GPU given for Llama-3.1-8B: which GPU should it run on?")
        );
        // 15.0 GiB of bf16 weights: the 22 GiB L4 is the smallest preset
        // with a fifth to spare; the 16 GiB cards are not offered.
        let hint = lines.next().unwrap();
        assert!(
            hint.starts_with("hint: add --gpu; presets that hold its 15.0 GiB of weights on one GPU: l4 (22 GiB),")
                && !hint.contains("(16 GiB)"),
            "{hint}"
        );
    }
    let out = run(&["matrix", "--model", "llama-3.1-8b", "--gpu", "rtx3090"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let first = out.stderr.lines().next().unwrap();
    assert_eq!(
        first,
        "error: vLLM would not start with Llama-3.1-8B on NVIDIA GeForce RTX 3090 24GB: \
         the KV cache (5.31 GiB) cannot hold one request of max_model_len (16.00 GiB needed)"
    );
    assert!(
        out.stderr.contains("a larger GPU (--gpu)"),
        "{}",
        out.stderr
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

/// Issue 25: a decode cell's TTFT by name. Cold: each of the C prompts
/// prefilled whole, one after another, so the median request waits
/// (C + 1) / 2 cold prefills, each the prefill row's TTFT at that context;
/// cached: only the tail past the scout's cached blocks.
#[test]
fn decode_cells_name_their_cold_and_cached_ttft() {
    let m = json(&["matrix", "--format", "json"]);
    let cells = m["cells"].as_array().unwrap();
    let find = |phase: &str, ctx: u64, c: u64| {
        cells
            .iter()
            .find(|x| x["phase"] == phase && x["context_tokens"] == ctx && x["concurrency"] == c)
            .unwrap()
    };
    let prefill = find("prefill", 16_384, 1)["ttft_cold_ms"].as_f64().unwrap();
    let cell = find("decode", 16_384, 32);
    let cold = cell["ttft_cold_ms"].as_f64().unwrap();
    let cached = cell["ttft_cached_ms"].as_f64().unwrap();
    assert!(
        (cold / (16.5 * prefill) - 1.0).abs() < 1e-9,
        "{cold} {prefill}"
    );
    // The harness measured 12,548 ms median TTFT on this cell (the
    // reference run): the cached figure is the one that compares, within
    // the ±73% TTFT band; the cold one would be 6.8 times it.
    assert!((cached / 12_548.0 - 1.0).abs() < 0.1, "{cached}");
    assert!(cold / 12_548.0 > 6.0, "{cold}");
    assert!(cell.get("ttft_ms").is_none());
    // Prefill rows have no cached TTFT.
    assert!(find("prefill", 16_384, 1)["ttft_cached_ms"].is_null());
}

/// The widest table row of a command's text: rows have columns two spaces
/// apart; the bands' prose lines ("median") are not rows.
fn widest_table_row(text: &str) -> usize {
    text.lines()
        .filter(|l| l.contains("  ") && !l.contains("median"))
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
}

/// Issue 25: the default text of every command's table fits a 120-column
/// terminal (rows of columns two spaces apart; a note column wraps, prose
/// lines above and under a table are not rows); `--wide` has every column.
#[test]
fn every_default_table_fits_120_columns() {
    let widest_row = widest_table_row;
    for args in [
        &["matrix"][..],
        &["compare"],
        &["capacity"],
        &["solve", "--for", "max-context", "--concurrency", "16"],
        &[
            "rank",
            "--model",
            "qwen3-8b",
            "--context",
            "16K",
            "--concurrency",
            "32",
        ],
    ] {
        let out = run(args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        let w = widest_row(&out.stdout);
        assert!(w <= 120, "{args:?}: {w} columns");
    }
    let wide = run(&["compare", "--wide"]).stdout;
    assert!(widest_row(&wide) > 120);
    assert!(
        wide.contains("Status predicted") && !run(&["compare"]).stdout.contains("Status predicted")
    );
}
