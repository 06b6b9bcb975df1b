//! The GPU catalog and how presets are named: every GPU file loads, ids and
//! aliases match in any case, Hugging Face repo ids name model presets, and an
//! explicit --model beats a pasted launch line's.

use decodecalc_core::gpu::class_distance;
use decodecalc_core::presets::{self, Kind};
use decodecalc_core::scenario::{model_for_repo, NoFiles, Request};
use decodecalc_tests::{json, run};
use std::collections::BTreeMap;

const NEW_CARDS: [&str; 22] = [
    "rtx-pro-6000",
    "rtx-pro-6000-server",
    "rtx-pro-6000-maxq",
    "dgx-spark",
    "h20",
    "l20",
    "rtx5080",
    "rtx5070-ti",
    "rtx4080",
    "rtx4080-super",
    "rtx3080",
    "rtx3080-12gb",
    "v100-16gb",
    "v100-32gb",
    "v100-pcie-16gb",
    "v100-pcie-32gb",
    "t4",
    "mi325x",
    "mi355x",
    "b300",
    "h100-sxm",
    "rtx3090",
];

#[test]
fn every_gpu_file_loads_with_a_cited_source_and_a_known_class() {
    let ids: Vec<&str> = presets::ids(Kind::Gpu).collect();
    for id in NEW_CARDS {
        assert!(ids.contains(&id), "{id} is not in the catalog");
    }
    for id in &ids {
        let gpu = presets::gpu(id).unwrap();
        assert_eq!(gpu.id, *id);
        assert_eq!(*id, id.to_ascii_lowercase(), "ids are lowercase");
        assert!(!id.contains(['_', ' ']), "{id}: ids use dashes");
        let class = gpu.calibration_class();
        assert_eq!(class_distance(class, class), Some(0), "{id}: {class}");
        assert!(gpu.interconnect.is_some() && gpu.interconnect_gb_s.is_some());
        assert!(
            gpu.source.contains("memory"),
            "{id}: source names the memory figure's origin"
        );
        // Runtime totals sit below the marketed size, never above it by much.
        assert!(
            gpu.memory_bytes > 9 << 30 && gpu.memory_bytes < 300 << 30,
            "{id}"
        );
    }
    // Figures read from logs, to the byte or the MiB.
    let mem = |id: &str| presets::gpu(id).unwrap().memory_bytes;
    assert_eq!(mem("rtx-pro-6000-server"), 101_973_950_464); // cudaMemGetInfo total
    assert_eq!(mem("rtx-pro-6000"), 97_247 << 20); // llama.cpp VRAM: 97247 MiB
    assert_eq!(mem("h20"), 97_285 << 20); // torch total_memory=97285MB
    assert_eq!(mem("t4"), 15_843_721_216); // deviceQuery
    assert_eq!(mem("v100-16gb"), 16_945_512_448); // deviceQuery
    assert_eq!(mem("v100-32gb"), 34_089_730_048); // deviceQuery
    assert_eq!(mem("rtx3080"), 10_472_390_656); // deviceQuery, Linux
    assert_eq!(mem("rtx4080-super"), 16_852_844_544); // deviceQuery
    assert_eq!(mem("b300"), 287_428_771_840); // torch device total
    assert_eq!(mem("dgx-spark"), 122_570 << 20); // deviceQuery MBytes
                                                 // Estimated: the 10 GB card's runtime fraction of 12 GiB, rounded to the MiB.
    assert_eq!(mem("rtx3080-12gb"), (12_288u64 * 9_987 / 10_240) << 20);
    let spark = presets::find(Kind::Gpu, "dgx-spark").unwrap().text;
    assert!(spark.contains("Estimated") && spark.contains("unified"));
}

#[test]
fn new_classes_keep_the_old_distances() {
    // The distances the shipped calibration's transfers rest on are unchanged.
    for (a, b, d) in [
        ("ampere-geforce", "ada-geforce", 1),
        ("ampere-geforce", "blackwell-geforce", 3),
        ("ampere-geforce", "ampere-datacenter", 10),
        ("ampere-geforce", "hopper", 12),
        ("ampere-geforce", "cdna3", 12),
        ("hopper", "cdna3", 10),
        ("ampere-datacenter", "blackwell-datacenter", 3),
        ("volta-datacenter", "ampere-datacenter", 2),
        ("turing-datacenter", "ampere-datacenter", 1),
        ("ampere-geforce", "volta-datacenter", 12),
        ("cdna4", "cdna3", 1),
        ("cdna4", "blackwell-datacenter", 10),
    ] {
        assert_eq!(class_distance(a, b), Some(d), "{a} - {b}");
    }
}

#[test]
fn ids_and_aliases_resolve_in_any_case_and_no_alias_is_claimed_twice() {
    for name in ["h100", "H100", "H100-SXM", "h100-sxm5", " h100-80gb "] {
        assert_eq!(presets::gpu(name).unwrap().id, "h100-sxm", "{name}");
    }
    for (name, id) in [
        ("A100", "a100-80gb"),
        ("3090", "rtx3090"),
        ("RTX-3090", "rtx3090"),
        ("rtx-pro-6000-blackwell", "rtx-pro-6000"),
        ("RTX6000-PRO", "rtx-pro-6000"),
        ("GB10", "dgx-spark"),
        ("V100", "v100-16gb"),
        ("MI355X", "mi355x"),
    ] {
        assert_eq!(presets::gpu(name).unwrap().id, id, "{name}");
    }
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    for id in presets::ids(Kind::Gpu) {
        assert!(owner.insert(id.to_string(), id.to_string()).is_none());
    }
    for id in presets::ids(Kind::Gpu) {
        for alias in presets::gpu(id).unwrap().aliases {
            let key = alias.to_ascii_lowercase();
            assert_eq!(alias, key, "{id}: aliases are lowercase");
            if let Some(other) = owner.insert(key, id.to_string()) {
                panic!("alias `{alias}` of {id} is also {other}'s");
            }
        }
    }
    // Through the CLI, as a user types it.
    let v = json(&[
        "capacity",
        "--format",
        "json",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "H100",
    ]);
    assert_eq!(v["total_bytes"], 85_017_755_648u64);
}

#[test]
fn model_presets_answer_to_their_repo_in_any_case_with_or_without_instruct() {
    for (name, id) in [
        ("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"),
        ("meta-llama/llama-3.1-8b", "llama-3.1-8b"),
        ("META-LLAMA/LLAMA-3.1-8B-INSTRUCT", "llama-3.1-8b"),
        ("Llama-3.1-8B", "llama-3.1-8b"),
        ("qwen/qwen3-8b", "qwen3-8b"),
        ("Qwen/Qwen2.5-7B", "qwen2.5-7b"),
        ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"),
        ("google/gemma-3-12b-it", "gemma-3-12b"),
    ] {
        assert_eq!(presets::find(Kind::Model, name).unwrap().id, id, "{name}");
        assert_eq!(model_for_repo(name).unwrap(), id, "{name}");
        assert_eq!(presets::model(name).unwrap().id, id, "{name}");
    }
    // No two model presets share a repo once the suffix is dropped.
    let mut seen = BTreeMap::new();
    for f in presets::FILES.iter().filter(|f| f.kind == Kind::Model) {
        for n in presets::other_names(f) {
            let k = n.to_ascii_lowercase();
            let k = k.strip_suffix("-instruct").unwrap_or(&k).to_string();
            if let Some(other) = seen.insert(k.clone(), f.id) {
                assert_eq!(other, f.id, "`{k}` names both {other} and {}", f.id);
            }
        }
    }
    // Through the CLI: a repo id that is no folder is the preset.
    let a = json(&[
        "capacity",
        "--format",
        "json",
        "--max-model-len",
        "8192",
        "--model",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--gpu",
        "rtx3090",
    ]);
    let b = json(&[
        "capacity",
        "--format",
        "json",
        "--max-model-len",
        "8192",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "rtx3090",
    ]);
    assert_eq!(a["model_params"], b["model_params"]);
    assert_eq!(a["num_blocks"], b["num_blocks"]);
}

#[test]
fn a_name_that_is_neither_a_path_nor_a_preset_is_refused_naming_both() {
    let out = run(&["capacity", "--model", "no-such-dir/no-such/model"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", out.stderr);
    assert!(lines[0].starts_with("error: cannot read `no-such-dir/no-such/model/config.json`"));
    assert!(lines[0].contains("no model preset"), "{}", lines[0]);
    assert!(lines[1].starts_with("hint: ") && lines[1].contains("llama-3.1-8b"));
    // A Hub repo id that is neither: the error says where it looked.
    let out = run(&["capacity", "--model", "no-such-org/no-such-model"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("error: `no-such-org/no-such-model` is no model preset, no file here, and not in the local Hugging Face cache"),
        "{}",
        out.stderr
    );
    // Without file access (the web page) the same, through core.
    let err = Request {
        model: Some("no-such-model".into()),
        gpu: Some("rtx3090".into()),
        ..Request::default()
    }
    .resolve(&NoFiles)
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("no-such-model/config.json") && err.contains("no model preset"),
        "{err}"
    );
}

#[test]
fn an_explicit_model_beats_the_launch_lines() {
    let line = "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192";
    let v = json(&[
        "capacity",
        "--format",
        "json",
        "--vllm-command",
        line,
        "--model",
        "qwen3-8b",
        "--gpu",
        "rtx3090",
    ]);
    let qwen = json(&[
        "capacity",
        "--format",
        "json",
        "--model",
        "Qwen/Qwen3-8B",
        "--gpu",
        "rtx3090",
        "--max-model-len",
        "8192",
    ]);
    assert_eq!(v["model_params"], qwen["model_params"]);
    assert_eq!(v["max_model_len_tokens"], 8_192);
    // The launch line's model need not be known when --model is given.
    let out = run(&[
        "capacity",
        "--vllm-command",
        "vllm serve some-org/private-model --max-model-len 4096",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "rtx3090",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out
        .stderr
        .contains("--model llama-3.1-8b overrides the launch line's model some-org/private-model"));
    // Through core's Request as well.
    let plan = Request {
        model: Some("qwen3-8b".into()),
        gpu: Some("rtx3090".into()),
        vllm_command: Some(line.into()),
        ..Request::default()
    }
    .resolve(&NoFiles)
    .unwrap();
    assert_eq!(plan.model.id, "qwen3-8b");
    assert_eq!(plan.engine.max_model_len_tokens, 8_192);
}

/// Every GPU preset's kernel figures resolve: its own, or (`kernels_from`)
/// a preset of the same calibration class that has its own. The GPUs with
/// their own are the seven aiconfigurator measured.
#[test]
fn kernel_figures_are_measured_or_borrowed_within_the_architecture() {
    let mut own = Vec::new();
    for f in decodecalc_core::presets::FILES
        .iter()
        .filter(|f| f.kind == decodecalc_core::presets::Kind::Gpu)
    {
        let gpu = decodecalc_core::presets::parse_gpu(f.path, f.text).unwrap();
        if gpu.kernels.is_some() {
            own.push(gpu.id.clone());
            assert!(gpu.kernels_from.is_none(), "{}", gpu.id);
        }
        if let Some(from) = &gpu.kernels_from {
            let source = decodecalc_core::presets::gpu(from).unwrap();
            assert!(
                source.kernels.is_some(),
                "{}: {from} has no kernels",
                gpu.id
            );
            let (a, b) = (gpu.arch.info(), source.arch.info());
            assert_eq!(
                a.generation, b.generation,
                "{}: {} borrows {from}'s {}",
                gpu.id, a.name, b.name
            );
            assert!(gpu.kernel_figures().unwrap().1.as_deref() == Some(from.as_str()));
        }
    }
    own.sort();
    assert_eq!(
        own,
        [
            "a100-80gb",
            "b200",
            "b300",
            "gb200",
            "gb300",
            "h100-sxm",
            "h200",
            "l40s",
            "rtx-pro-6000-server"
        ]
    );
}

/// Every GPU preset names its DRAM technology, and a GPU without kernel
/// tables borrows them (`kernels_from`) from a measured GPU of its own
/// architecture generation and memory kind (HBM, GDDR, LPDDR) wherever one
/// was measured: a GDDR card's bandwidth efficiencies taken from an HBM
/// GPU are a transfer across memory technologies. Where none of its kind
/// was measured the borrowing is listed here, with why.
#[test]
fn every_kernel_lender_shares_the_architecture_and_memory_kind() {
    use decodecalc_core::gpu::{Gpu, MemoryKind};
    // (borrower, lender): no GPU of the borrower's generation and memory
    // kind has aiconfigurator kernel tables.
    const ACROSS_KINDS: [(&str, &str); 8] = [
        // Ampere on GDDR6 / GDDR6X: only the A100 (HBM2e) was measured.
        ("a10", "a100-80gb"),
        ("a40", "a100-80gb"),
        ("rtx-a6000", "a100-80gb"),
        ("rtx3080", "a100-80gb"),
        ("rtx3080-12gb", "a100-80gb"),
        ("rtx3090", "a100-80gb"),
        ("rtx3090-ti", "a100-80gb"),
        // GB10's LPDDR5X: no LPDDR GPU measured; the RTX PRO 6000 (GDDR7)
        // is its architecture's.
        ("dgx-spark", "rtx-pro-6000-server"),
    ];
    let gpus: Vec<Gpu> = presets::ids(Kind::Gpu)
        .map(|id| presets::gpu(id).unwrap())
        .collect();
    let kind = |g: &Gpu| -> MemoryKind {
        g.memory_type
            .unwrap_or_else(|| panic!("{} names no memory_type", g.id))
            .kind()
    };
    let mut across = Vec::new();
    for g in &gpus {
        let k = kind(g);
        let Some(from) = &g.kernels_from else {
            continue;
        };
        let lender = presets::gpu(from).unwrap();
        if kind(&lender) == k {
            continue;
        }
        across.push((g.id.as_str(), from.as_str()));
        // Only where no measured GPU of the same generation and kind exists.
        let generation = g.arch.info().generation;
        let same_kind: Vec<&str> = gpus
            .iter()
            .filter(|m| m.kernels.is_some())
            .filter(|m| m.arch.info().generation == generation && kind(m) == k)
            .map(|m| m.id.as_str())
            .collect();
        assert!(
            same_kind.is_empty(),
            "{} ({k:?}) borrows {from} ({:?}) though {same_kind:?} were measured",
            g.id,
            kind(&lender)
        );
    }
    across.sort_unstable();
    let mut listed = ACROSS_KINDS.to_vec();
    listed.sort_unstable();
    assert_eq!(across, listed);
    // The families: the A100 is HBM, the RTX 3090 GDDR, the GB10 LPDDR.
    assert_eq!(kind(&presets::gpu("a100-80gb").unwrap()), MemoryKind::Hbm);
    assert_eq!(kind(&presets::gpu("rtx3090").unwrap()), MemoryKind::Gddr);
    assert_eq!(kind(&presets::gpu("dgx-spark").unwrap()), MemoryKind::Lpddr);
}
