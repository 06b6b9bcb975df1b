//! The corpus of real config.json files (`data/hub/`,
//! copied verbatim from public sources; provenance in SOURCES.md there):
//! every file loads or is refused with a specific reason, every supported
//! architecture is covered, and parameter counts match the published totals.

use decodecalc_core::config::ARCHITECTURES;
use decodecalc_core::scenario::loaded_from_config_json;
use decodecalc_tests::Fs;
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/hub")
}

/// Every config.json of the corpus (not the ModelOpt `hf_quant_config.json`s).
fn corpus() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            name.ends_with(".json") && !name.ends_with(".hf_quant_config.json")
        })
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Reasons a real file may be refused for: a model kind decodecalc does not
/// size (named in the message). No file of the corpus is an unknown
/// architecture any more (DeepSeek-V4 was the last, issue 26).
const REFUSALS: [&str; 2] = ["is an encoder-only model", "is an encoder-decoder"];

#[test]
fn every_real_config_loads_or_is_refused_for_a_named_reason() {
    let files = corpus();
    assert!(files.len() >= 100, "corpus has {} files", files.len());
    let mut loaded = 0;
    let mut refused = Vec::new();
    let mut failures = Vec::new();
    for (name, text) in &files {
        match loaded_from_config_json(name, text) {
            Ok(m) => {
                loaded += 1;
                assert!(m.model.params() > 0, "{name}");
            }
            Err(e) if REFUSALS.iter().any(|r| e.message.contains(r)) => {
                refused.push(format!("{name}: {}", e.message));
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("refused:\n{}", refused.join("\n"));
    assert!(loaded >= 123, "{loaded} of {} files load", files.len());
}

/// Supported architectures of which no verbatim public copy was found yet;
/// their fixtures in `tests/fixtures/configs/` are reconstructed (SOURCES.md
/// there). The test fails when one gains a real file, so the list shrinks.
/// The EAGLE-3 head names are read as `--speculative-config` drafters
/// (`tests/tests/suite/speculative.rs` writes one from a published config);
/// so are the DFlash heads (`tests/fixtures/configs/qwen3.6-27b-dflash.json`,
/// transcribed from the published file's keys; no whole copy found).
/// Qwen3-VL-MoE's only copy found is aiconfigurator's trimmed one (no
/// `transformers_version`), kept as a fixture for the public start-up log
/// it runs (`data/startup-logs/other-public-logs.csv`).
const NO_REAL_FILE_YET: &[&str] = &[
    "LlamaForCausalLMEagle3",
    "Eagle3LlamaForCausalLM",
    "DFlashDraftModel",
    "MuseGlimmerAssistantModel",
    "Gemma3ForCausalLM",
    "Qwen3VLMoeForConditionalGeneration",
    "FalconH1ForCausalLM",
];

/// Architectures with a real file but no published parameter count to
/// hold the reader to: Laguna-XS.2 (poolside) publishes none; its reader is
/// held to the total computed by hand in
/// `docs/reference/pending-architectures.md` instead
/// (`configs::laguna_has_per_layer_heads_gates_windows_and_fp8_blocks`).
const NO_PUBLISHED_COUNT: &[&str] = &["LagunaForCausalLM"];

#[test]
fn every_supported_architecture_has_real_files() {
    let files = corpus();
    let missing: Vec<&str> = ARCHITECTURES
        .iter()
        .map(|a| a.name)
        .filter(|name| {
            let quoted = format!("\"{name}\"");
            !files.iter().any(|(_, t)| t.contains(&quoted))
        })
        .collect();
    assert_eq!(missing, NO_REAL_FILE_YET);
}

/// Checkpoints that store `lm_head.weight` beside the embedding it is tied
/// to (the Hugging Face total counts both; vLLM loads one).
/// For gemma-4-26B-A4B the published total exceeds the model by exactly one
/// vocab x hidden table (738,197,504) too.
const STORES_TIED_LM_HEAD: [&str; 3] = [
    "Qwen--Qwen3-0.6B.json",
    "Qwen--Qwen3-1.7B.json",
    "google--gemma-4-26B-A4B.json",
];

/// Published totals the model does not meet, each with its signed error
/// (percent) and what is known of it.
const KNOWN_MISSES: [(&str, f64, &str); 1] = [(
    "moonshotai--Kimi-K2.5.json",
    3.09,
    "1,058.6 B published against 1,026.9 B computed: the published total \
     also counts the int4 experts' group scales, one bf16 value per 32 of \
     their 1,014.7 B weights (31.7 B), which are no parameters",
)];

#[test]
fn parameter_counts_match_the_published_totals_within_one_percent() {
    let text = std::fs::read_to_string(corpus_dir().join("published.csv")).unwrap();
    let mut checked = 0;
    let mut families = std::collections::BTreeSet::new();
    // Per family: the signed errors of its files (published / computed - 1).
    let mut by_family: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    let mut off = Vec::new();
    for row in csv::Reader::from_reader(text.as_bytes()).records() {
        let row = row.unwrap();
        let (file, published) = (&row[0], &row[2]);
        let Ok(published) = published.parse::<f64>() else {
            continue;
        };
        // Counts of architectures decodecalc refuses (named in the first test) are not checked.
        let text = std::fs::read_to_string(corpus_dir().join(file)).unwrap();
        let m = match loaded_from_config_json(file, &text) {
            Ok(m) => m.model,
            Err(e) if REFUSALS.iter().any(|r| e.message.contains(r)) => continue,
            Err(e) => panic!("{e}"),
        };
        let embedding = (m.vocab_size * m.hidden_size) as f64;
        // Most counts are the Hugging Face API's tensor total of the
        // checkpoint: some store a tied lm_head again, an embedding checkpoint has no
        // lm_head, and multi-token-prediction layers (which vLLM loads only
        // for speculative decoding) are in the checkpoint but not the model.
        let mut expected = m.params() as f64;
        if STORES_TIED_LM_HEAD.contains(&file) {
            expected += embedding;
        }
        if file.contains("Embedding") && !m.tie_word_embeddings {
            expected -= embedding;
        }
        let mtp = ["mtp_num_hidden_layers", "num_nextn_predict_layers"]
            .iter()
            .any(|k| text.contains(&format!("\"{k}\": 1")));
        checked += 1;
        families.insert(m.architecture.clone());
        let err = published / expected - 1.0;
        by_family
            .entry(m.architecture.clone())
            .or_default()
            .push(100.0 * err);
        let known = KNOWN_MISSES.iter().find(|(f, _, _)| *f == file);
        let ok = match known {
            // A recorded miss stays as recorded: the list shrinks when one
            // is explained, and a change to the count is noticed.
            Some((_, pct, _)) => (100.0 * err - pct).abs() < 0.05,
            None if mtp => (-0.01..0.03).contains(&err),
            None => err.abs() <= 0.01,
        };
        if !ok {
            off.push(format!(
                "{file}: {expected:.4e} vs published {published:.4e} (mtp {mtp})"
            ));
        }
    }
    assert!(off.is_empty(), "{}", off.join("\n"));
    assert!(checked >= 50, "only {checked} published counts");
    // The README's table is this one (`cargo test -p decodecalc-tests --test
    // suite corpus:: -- --nocapture` prints it).
    let mut table = String::from(
        "| architecture | files with a published count | largest error % | median error % |\n|---|---|---|---|\n",
    );
    for (family, errs) in &by_family {
        let mut abs: Vec<f64> = errs.iter().map(|e| e.abs()).collect();
        abs.sort_by(f64::total_cmp);
        let mid = abs.len() / 2;
        let median = match (
            abs.len() % 2,
            abs.get(mid),
            mid.checked_sub(1).and_then(|i| abs.get(i)),
        ) {
            (1, Some(m), _) => *m,
            (_, Some(hi), Some(lo)) => (hi + lo) / 2.0,
            _ => 0.0,
        };
        let largest = errs
            .iter()
            .copied()
            .max_by(|a, b| a.abs().total_cmp(&b.abs()))
            .unwrap_or(0.0);
        table.push_str(&format!(
            "| {family} | {} | {largest:+.2} | {median:.2} |\n",
            errs.len()
        ));
    }
    eprintln!("{table}");
    let readme = std::fs::read_to_string(corpus_dir().join("../../README.md")).unwrap();
    assert!(
        readme.contains(&table),
        "README.md's parameter-count table differs from this test's:\n{table}"
    );
    // Every family is checked against a published count, but those with no
    // real file yet and those with no published count (the lists above).
    let unchecked: Vec<&str> = ARCHITECTURES
        .iter()
        .map(|a| a.name)
        .filter(|n| !families.contains(*n) && !NO_PUBLISHED_COUNT.contains(n))
        .collect();
    assert_eq!(unchecked, NO_REAL_FILE_YET);
}

#[test]
fn a_modelopt_hf_quant_config_beside_the_config_decides_the_weights() {
    use decodecalc_core::quant::QuantMethod;
    let path = corpus_dir().join("nvidia--Qwen3-32B-NVFP4.json");
    let m = decodecalc_core::scenario::load_model(&Fs, &path.display().to_string()).unwrap();
    // hf_quant_config.json: quant_algo NVFP4, group 16, lm_head excluded.
    assert_eq!(m.quant.method, QuantMethod::Nvfp4);
    assert!(!m.quant.lm_head_quantized);
    let nvfp4 = decodecalc_core::memory::weights_bytes(&m.model, &m.quant) as f64;
    let bf16 = decodecalc_core::memory::weights_bytes(
        &m.model,
        &decodecalc_core::quant::WeightQuant::none(),
    ) as f64;
    // 4 bits + an fp8 scale per 16 weights = 4.5 bits for the linear layers;
    // embedding and lm_head (2 x 151,936 x 5,120 x 2 B) stay 16-bit.
    let embeddings = 2.0 * 151_936.0 * 5120.0 * 2.0;
    let ratio = (nvfp4 - embeddings) / (bf16 - embeddings);
    assert!((ratio - 4.5 / 16.0).abs() < 0.003, "{ratio}");
    // Without the file beside it, the same config.json is bf16.
    let alone =
        loaded_from_config_json("c.json", &std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(alone.quant.method, QuantMethod::None);
}

/// The unquantized-module lists of real checkpoints all name module kinds or
/// modules decodecalc models, so the "names no module" warning
/// (`WeightQuant::unmatched_unquantized`) fires only on a list that really
/// matches nothing, such as a mistyped one.
#[test]
fn real_unquantized_module_lists_name_modelled_modules() {
    let mut unmatched = Vec::new();
    let mut lists = 0;
    for (name, text) in &corpus() {
        let Ok(m) = loaded_from_config_json(name, text) else {
            continue;
        };
        if !m.quant.unquantized.is_empty() {
            lists += 1;
        }
        for u in m.quant.unmatched_unquantized(&m.model) {
            unmatched.push(format!("{name}: {u}"));
        }
    }
    assert!(unmatched.is_empty(), "{}", unmatched.join("\n"));
    assert!(
        lists >= 6,
        "only {lists} real files list unquantized modules"
    );
}

/// The layers vLLM builds for the families added from vLLM's model code
/// (each reader cites its file): attention layers, KV heads, windows.
#[test]
fn the_added_families_have_the_layers_vllm_builds() {
    let load = |file: &str| {
        let text = std::fs::read_to_string(corpus_dir().join(file)).unwrap();
        loaded_from_config_json(file, &text).unwrap().model
    };
    // (file, attention layers, KV heads, sliding layers, window)
    let cases = [
        // minimax_m2.py: 62 full-attention layers, 8 KV heads of 128.
        ("MiniMaxAI--MiniMax-M2.5.json", 62, 8, 0, None),
        // phimoe.py: no per-layer window, so the config's 2047 on all 32.
        (
            "microsoft--Phi-mini-MoE-instruct.json",
            32,
            8,
            32,
            Some(2047),
        ),
        // olmo3.py and exaone4.py: layer_types, three sliding to one full.
        ("allenai--Olmo-3.1-32B-Instruct.json", 64, 8, 48, Some(4096)),
        ("LGAI-EXAONE--EXAONE-4.0-32B.json", 64, 8, 48, Some(4096)),
        // nemotron_nas.py: 31 of 80 blocks have no attention.
        (
            "nvidia--Llama-3_3-Nemotron-Super-49B-v1.json",
            49,
            8,
            0,
            None,
        ),
    ];
    for (file, n, kv, sliding, window) in cases {
        let m = load(file);
        let attn: Vec<_> = m.attention_layers().collect();
        assert_eq!(attn.len(), n, "{file}");
        assert!(attn.iter().all(|a| a.num_kv_heads == kv), "{file}");
        let windows: Vec<_> = attn
            .iter()
            .filter_map(|a| a.sliding_window_tokens)
            .collect();
        assert_eq!(windows.len(), sliding, "{file}");
        assert!(windows.iter().all(|w| Some(*w) == window), "{file}");
    }
    // Olmo 3's full layers are each fourth (indices 3, 7, ..., 63).
    let olmo = load("allenai--Olmo-3.1-32B-Instruct.json");
    let full: Vec<usize> = olmo
        .attention_layers()
        .enumerate()
        .filter(|(_, a)| a.sliding_window_tokens.is_none())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(full, (3..64).step_by(4).collect::<Vec<_>>());
    // lfm2.py: 6 attention layers of 8 KV heads (head_dim 2048 / 32 = 64)
    // and 10 short convolutions, each keeping (L_cache - 1) x conv_dim
    // inputs (short_conv_state_shape): 2 x 2048 elements.
    let lfm2 = load("LiquidAI--LFM2.5-VL-1.6B.json");
    let attn: Vec<_> = lfm2.attention_layers().collect();
    assert_eq!(attn.len(), 6);
    assert!(attn.iter().all(|a| a.num_kv_heads == 8 && a.head_dim == 64));
    let states: Vec<_> = lfm2.layers.iter().filter_map(|l| l.state()).collect();
    assert_eq!(states.len(), 10);
    assert!(states
        .iter()
        .all(|s| (s.conv_elems, s.ssm_elems) == (4096, 0)));
    assert!(lfm2.tie_word_embeddings);
    // DeepSeek sparse attention (deepseek_v2.py): the MLA latent (512 + 64
    // elements, bf16 under `auto`) and the indexer's fp8 key with its scale
    // (128 + 4 B) share each layer's page: 1,284 B a token and layer.
    for file in ["deepseek-ai--DeepSeek-V3.2.json", "zai-org--GLM-5.json"] {
        let m = load(file);
        let a = m.attention_layers().next().unwrap();
        let bytes = a.kv_bytes_per_token(
            decodecalc_core::dtype::KvCacheDtype::Auto,
            decodecalc_core::dtype::FloatDtype::Bfloat16,
        );
        assert_eq!(bytes, 1152 + 132, "{file}");
    }
    // Kimi-K2.5 keeps its int4 scheme under text_config, where vLLM finds it.
    let kimi = std::fs::read_to_string(corpus_dir().join("moonshotai--Kimi-K2.5.json")).unwrap();
    let kimi = loaded_from_config_json("kimi.json", &kimi).unwrap();
    assert_eq!(kimi.quant.bits, 4);
    // Nemotron-Super's 80 blocks stay 80 decoder layers for pipeline stages.
    assert_eq!(
        load("nvidia--Llama-3_3-Nemotron-Super-49B-v1.json")
            .decoder_layers()
            .len(),
        80
    );
}

/// A config.json with `sliding_window` and no `layer_types` slides on every
/// layer in vLLM: the layer passes no window, `Attention` falls back to the
/// model-wide one (vllm/attention/layer.py), set from the config when
/// `layer_types` does not interleave kinds (`EngineArgs.create_engine_config`).
/// Phi-3-mini-4k's 2047 covers all 32 layers.
#[test]
fn a_model_wide_window_slides_every_layer() {
    let text = std::fs::read_to_string(corpus_dir().join("microsoft--Phi-3-mini-4k-instruct.json"))
        .unwrap();
    let m = loaded_from_config_json("phi3.json", &text).unwrap().model;
    let windows: Vec<_> = m
        .attention_layers()
        .map(|a| a.sliding_window_tokens)
        .collect();
    assert_eq!(windows, vec![Some(2047); 32]);
}
