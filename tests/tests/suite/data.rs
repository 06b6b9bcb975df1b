//! `data/` and the embedded presets agree, and every file parses.

use decodecalc_core::presets::{self, Kind, ModelFile};
use decodecalc_core::scenario::{NoFiles, Request};
use decodecalc_tests::data_dir;

#[test]
fn every_data_file_is_embedded_verbatim() {
    let mut on_disk = Vec::new();
    for dir in [
        "gpus",
        "models",
        "scenarios",
        "measured",
        "calibrations",
        "prices",
        "startup-logs",
        "runs",
        "kernels",
    ] {
        for entry in std::fs::read_dir(data_dir().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            // data/kernels/README.md describes the tables; it is not one.
            if dir == "kernels" && path.extension().is_none_or(|e| e != "csv") {
                continue;
            }
            let rel = format!("data/{dir}/{}", path.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&path).unwrap();
            let embedded = presets::FILES
                .iter()
                .find(|f| f.path == rel)
                .unwrap_or_else(|| panic!("{rel} is not in presets::FILES"));
            assert_eq!(embedded.text, text, "{rel} differs from its embedded copy");
            on_disk.push(rel);
        }
    }
    assert_eq!(on_disk.len(), presets::FILES.len());
}

#[test]
fn every_preset_parses_and_every_scenario_resolves() {
    for id in presets::ids(Kind::Model) {
        let m = presets::model(id).unwrap();
        if let Some(published) = m.published_params {
            let params = m.model.params() as f64;
            assert!(
                (params / published - 1.0).abs() < 0.01,
                "{id}: {params} vs {published}"
            );
        }
    }
    for id in presets::ids(Kind::Gpu) {
        presets::gpu(id).unwrap();
    }
    for id in presets::ids(Kind::Scenario) {
        let plan = Request {
            scenario: Some(id.to_string()),
            ..Request::default()
        }
        .resolve(&NoFiles)
        .unwrap();
        let cap = plan.capacity().unwrap();
        assert!(cap.startup_failure.is_none(), "{id}");
    }
}

#[test]
fn checkpoint_sizes_are_reproduced_within_one_percent() {
    // The 8-bit sibling's published size pins the recipe the 4-bit checkpoint shares.
    let mut checked = 0;
    for id in presets::ids(Kind::Model) {
        let f = presets::find(Kind::Model, id).unwrap();
        let file = ModelFile::parse(f.path, f.text).unwrap();
        let Some(published) = file.checkpoint_bytes else {
            continue;
        };
        let m = presets::model(id).unwrap();
        let bytes = decodecalc_core::memory::weights_bytes(&m.model, &m.quant) as f64;
        let err = bytes / published as f64 - 1.0;
        assert!(
            err.abs() < 0.01,
            "{id}: {bytes} vs {published} ({:.2}%)",
            err * 100.0
        );
        checked += 1;
    }
    assert!(checked >= 1);
}

#[test]
fn the_gpu_catalog_has_the_common_cards_and_each_borrows_a_calibration() {
    let ids: Vec<&str> = presets::ids(Kind::Gpu).collect();
    assert!(ids.len() >= 15, "{ids:?}");
    for id in [
        "rtx3090",
        "rtx4090",
        "rtx5090",
        "rtx-a6000",
        "l40s",
        "a100-80gb",
        "h100-sxm",
        "h100-pcie",
        "h200",
        "b200",
        "mi300x",
    ] {
        assert!(ids.contains(&id), "{id}");
    }
    for id in ids {
        let gpu = presets::gpu(id).unwrap();
        // The catalog reaches down to 10 GB cards (RTX 3080, T4, V100 16GB).
        assert!(gpu.memory_bytes > 8 << 30, "{id}");
        assert!(
            gpu.interconnect.is_some() && gpu.interconnect_gb_s.is_some(),
            "{id}"
        );
        let plan = Request {
            model: Some("llama-3.1-8b".into()),
            gpu: Some(id.into()),
            ..Request::default()
        }
        .resolve(&NoFiles)
        .unwrap();
        // Every output names the calibration: its class's where one was
        // fitted, else the shared values, saying they are borrowed.
        let label = plan.calibration.label();
        let class = gpu.calibration_class();
        if [
            "ampere-geforce",
            "ampere-datacenter",
            "hopper",
            "ada-datacenter",
            "ada-geforce",
        ]
        .contains(&class)
        {
            // Its own class (with the releases it was fitted on when they
            // are not the modelled 0.32).
            assert!(
                label == class || label.starts_with(&format!("{class} (fitted on vLLM ")),
                "{id}: {label}"
            );
        } else {
            assert!(
                label.starts_with(&format!(
                    "shared (no calibration fitted for {id}'s class ({class})"
                )),
                "{id}: {label}"
            );
        }
    }
}

/// `core/src/presets/baked.rs`, the presets the web page takes as values
/// (it builds without the `toml` feature), is what `presets::baked_source`
/// writes of data/ now: a preset changed without baking fails here. With
/// `UPDATE_BAKED=1` the test rewrites the file instead.
#[test]
fn baked_presets_are_written_from_the_data_files() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let source = presets::baked_source().unwrap();
    let root = data_dir().parent().unwrap().to_path_buf();
    let mut rustfmt = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("rustfmt (rustup component add rustfmt)");
    rustfmt
        .stdin
        .take()
        .unwrap()
        .write_all(source.as_bytes())
        .unwrap();
    let out = rustfmt.wait_with_output().unwrap();
    assert!(out.status.success(), "rustfmt failed on the baked source");
    let baked = String::from_utf8(out.stdout).unwrap();
    let path = root.join("core/src/presets/baked.rs");
    if std::env::var_os("UPDATE_BAKED").is_some() {
        std::fs::write(&path, &baked).unwrap();
    }
    let shipped = std::fs::read_to_string(&path).unwrap();
    assert!(
        shipped == baked,
        "core/src/presets/baked.rs is not what data/ bakes to; rewrite it: \
         UPDATE_BAKED=1 cargo test -p decodecalc-tests --test suite data::baked"
    );
}

/// Each baked preset (what the page reads) equals its file as the CLI
/// reads it, but for the prose the page leaves out: a GPU's memory, a
/// calibration's parameters and bands, a model's config to the last bit.
#[test]
fn baked_presets_are_the_values_the_cli_reads() {
    use decodecalc_core::gpu::Gpu;
    use decodecalc_core::presets::{page_value, PresetFile, WithoutProse};
    use decodecalc_core::rank::Prices;
    use decodecalc_core::scenario::{CalibrationFile, ScenarioFile};
    fn check<T: WithoutProse + PartialEq + std::fmt::Debug>() -> usize {
        let files: Vec<_> = presets::FILES
            .iter()
            .filter(|f| f.kind == T::KIND)
            .collect();
        for f in &files {
            let read: T = page_value(f).unwrap();
            assert_eq!(T::baked(f.id).as_ref(), Some(&read), "{}", f.path);
        }
        files.len()
    }
    let counts = [
        check::<Gpu>(),
        check::<ModelFile>(),
        check::<ScenarioFile>(),
        check::<CalibrationFile>(),
        check::<Prices>(),
    ];
    assert!(counts.iter().all(|&n| n > 0), "{counts:?}");
    assert_eq!(Gpu::baked("no-such-gpu"), None);
}
