//! Bad input through the binary: every refusal names the file, line, field
//! or flag and ends with a hint; setups vLLM would refuse are refused by
//! name (the binary's outputs are `cli.rs`'s).

use decodecalc_tests::scratch_file;
use decodecalc_tests::{rejects, run};

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
