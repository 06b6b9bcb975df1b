//! Issue 27's accuracy bar: every published run with speculative decoding
//! (`data/runs/speculative-decoding.csv`, `speculative-sweeps.csv`,
//! `speculative-dflash.csv`) predicted with the shipped defaults computed
//! without it, leave one run
//! out: the acceptance from `data/speculative/acceptance_published.csv`
//! without the rows that run logged (other runs of the same checkpoint
//! stay), and the drafter's pass overhead refit without it where the
//! shipped one was fitted on it. Beside each, the same run at the
//! acceptance it logged (what the timing alone gets wrong) and the same
//! setup without speculation where the source published it.

use super::speculative::{fit_overhead, pct, Runs};
use decodecalc_core::presets::{self, Kind};
use decodecalc_core::speculative::{Speculative, SpeculativeConfig, PUBLISHED_ACCEPTANCE};
use decodecalc_core::timing::{NCCL_HOST_STEP_US, SPEC_PASS_OVERHEAD_S};

/// The runs files with speculative runs, read through the CLI's world.
const FILES: [&str; 2] = ["speculative-decoding", "speculative-sweeps"];

/// The runs file of DFlash's runs, whose drafter the test world answers from
/// its fixture (`speculative_methods::WithDrafter`).
const DFLASH_FILE: &str = "speculative-dflash";

/// One speculative run's row of the README's table.
struct Scored {
    id: String,
    points: usize,
    loo_errors: Vec<f64>,
    logged_mape: Option<f64>,
    twin: Option<(String, f64)>,
    al_loo: f64,
    al_logged: Option<f64>,
    scope: &'static str,
}

fn mape(errors: &[f64]) -> f64 {
    errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len() as f64
}

/// The measured rows of runs file `file`, as the fit reads them.
fn rows(file: &str) -> Vec<decodecalc_fit::runs::RunRow> {
    let f = presets::find(Kind::Runs, file).unwrap();
    decodecalc_fit::runs::parse_csv(f.path, f.text).unwrap()
}

/// Run `id`'s acceptance as a prediction without it takes it: the
/// published rows of its checkpoint (else its family) but its own, as the
/// CLI resolves them; the mean acceptance length and whose rows they were.
fn acceptance_without(row: &decodecalc_fit::runs::RunRow, family: &str) -> (f64, &'static str) {
    let model = decodecalc_core::scenario::load_model(&decodecalc::CliWorld, &row.model).unwrap();
    let text = row.speculative_config.as_deref().unwrap();
    let config = SpeculativeConfig::parse("speculative_config", text).unwrap();
    let mut spec = Speculative::resolve("speculative_config", &config, &model.model, 1).unwrap();
    spec.use_published_acceptance(&[&row.model, &model.id, &model.name], family, &row.run);
    let scope = if spec.acceptance_source.starts_with("the checkpoint") {
        "checkpoint (other runs)"
    } else if spec.acceptance_source.contains("family") {
        "family"
    } else {
        "method default"
    };
    (spec.mean_acceptance_length(), scope)
}

/// Every file's runs, each speculative one at the acceptance it logged
/// where it logged one (else the shipped one), and their measured rows.
fn load() -> (Runs, Vec<decodecalc_fit::runs::RunRow>) {
    let mut runs = Runs { runs: Vec::new() };
    let mut all_rows = Vec::new();
    for file in FILES {
        runs.runs.extend(Runs::load_file(file).runs);
        all_rows.extend(rows(file));
    }
    let dflash = rows(DFLASH_FILE);
    runs.runs.extend(
        decodecalc_fit::runs::build(&super::speculative_methods::WithDrafter, &dflash).unwrap(),
    );
    all_rows.extend(dflash);
    for r in &mut runs.runs {
        if let (Some(al), Some(s)) = (logged_acceptance(&all_rows, &r.id), r.work.spec.as_mut()) {
            s.mean_acceptance_length = al;
        }
    }
    (runs, all_rows)
}

/// The acceptance run `id` logged (of any of its points: a DFlash run
/// logged it for its code prompts only).
fn logged_acceptance(rows: &[decodecalc_fit::runs::RunRow], id: &str) -> Option<f64> {
    rows.iter()
        .filter(|row| row.run == id)
        .find_map(|row| row.mean_acceptance_length)
}

/// Whether run `id` drafts with DFlash.
fn is_dflash(rows: &[decodecalc_fit::runs::RunRow], id: &str) -> bool {
    rows.iter().any(|row| {
        row.run == id
            && row
                .speculative_config
                .as_deref()
                .is_some_and(|c| c.contains("dflash"))
    })
}

/// The speculative runs the drafter's pass overhead is fitted on: the MTP
/// runs. DFlash's are predicted with it, not fitted: two of their four
/// points logged no acceptance, at which the fit would price the narrative
/// prompts' lower acceptance as drafter time.
fn overhead_runs(runs: &Runs, rows: &[decodecalc_fit::runs::RunRow]) -> Vec<usize> {
    runs.spec_runs()
        .into_iter()
        .filter(|&i| !is_dflash(rows, &runs.runs[i].id))
        .collect()
}

/// The drafter's pass overhead the shipped timing uses is the fit over
/// every MTP run at its logged acceptance (the shipped one where it logged
/// none): the least mean absolute log error on a 0.25 ms grid,
/// `speculative::fit_overhead`. Left out one at a time, the fit moves by at
/// most 0.5 ms.
#[test]
fn the_shipped_pass_overhead_is_the_fit_over_every_mtp_run() {
    let (mut runs, rows) = load();
    let spec = overhead_runs(&runs, &rows);
    assert_eq!((runs.spec_runs().len(), spec.len()), (11, 9));
    let all = fit_overhead(&mut runs, &spec);
    assert!((all - SPEC_PASS_OVERHEAD_S).abs() < 1e-9, "{all}");
    for &i in &spec {
        let others: Vec<usize> = spec.iter().copied().filter(|&j| j != i).collect();
        let c = fit_overhead(&mut runs, &others);
        eprintln!("without {}: {:.2} ms", runs.runs[i].id, c * 1e3);
        assert!((c - all).abs() <= 0.5e-3 + 1e-9, "{}: {c}", runs.runs[i].id);
    }
}

/// Every speculative run, scored leave one run out: the pass overhead
/// refit on the others, the acceptance from the published rows but its own.
fn score_all() -> Vec<Scored> {
    let (mut runs, rows) = load();
    let fitted = overhead_runs(&runs, &rows);
    let mut out = Vec::new();
    for i in runs.spec_runs() {
        let id = runs.runs[i].id.clone();
        let row = rows.iter().find(|r| r.run == id).unwrap();
        let others: Vec<usize> = fitted.iter().copied().filter(|&j| j != i).collect();
        let overhead = fit_overhead(&mut runs, &others);
        let errors =
            |pts: Vec<(f64, f64)>| -> Vec<f64> { pts.iter().map(|(m, p)| pct(*p, *m)).collect() };
        // At the acceptance it logged: the points that logged one.
        let al_logged = logged_acceptance(&rows, &id);
        let logged_mape = al_logged.map(|_| {
            let logged: Vec<bool> = runs.runs[i]
                .points
                .iter()
                .map(|p| {
                    rows.iter()
                        .find(|r| r.run == id && r.point == p.label())
                        .is_none_or(|r| r.mean_acceptance_length.is_some())
                })
                .collect();
            let e = errors(runs.points(i, overhead));
            let kept: Vec<f64> = e
                .iter()
                .zip(&logged)
                .filter(|x| *x.1)
                .map(|x| *x.0)
                .collect();
            mape(&kept)
        });
        let (al_loo, scope) = acceptance_without(row, &runs.runs[i].family);
        let held = runs.runs[i]
            .work
            .spec
            .as_ref()
            .unwrap()
            .mean_acceptance_length;
        runs.runs[i]
            .work
            .spec
            .as_mut()
            .unwrap()
            .mean_acceptance_length = al_loo;
        let loo_errors = errors(runs.points(i, overhead));
        runs.runs[i]
            .work
            .spec
            .as_mut()
            .unwrap()
            .mean_acceptance_length = held;
        let twin_id = format!("{}-nospec", id.split("-mtp").next().unwrap());
        let twin = runs.runs.iter().position(|r| r.id == twin_id).map(|t| {
            let e = errors(runs.points(t, 0.0));
            (twin_id.clone(), mape(&e))
        });
        out.push(Scored {
            id,
            points: loo_errors.len(),
            loo_errors,
            logged_mape,
            twin,
            al_loo,
            al_logged,
            scope,
        });
    }
    out
}

/// The README's table: per speculative run, its points, its output tok/s
/// MAPE at the shipped defaults without it, at the acceptance it logged,
/// and its twin's without speculation.
#[test]
fn speculative_runs_leave_one_run_out() {
    let scored = score_all();
    let mut table = String::from(
        "| Run | Points | MAPE, shipped defaults without the run | Acceptance length used / logged (whose) | MAPE at its logged acceptance | Same setup without speculation: MAPE |\n|---|---|---|---|---|---|\n",
    );
    for s in &scored {
        table.push_str(&format!(
            "| {} | {} | {:.0}% | {:.2} / {} ({}) | {} | {} |\n",
            s.id,
            s.points,
            mape(&s.loo_errors),
            s.al_loo,
            s.al_logged.map_or("none".into(), |a| format!("{a:.2}")),
            s.scope,
            s.logged_mape
                .map_or("no figure".into(), |m| format!("{m:.0}%")),
            s.twin
                .as_ref()
                .map_or("not published".into(), |(t, m)| format!("{m:.0}% ({t})")),
        ));
    }
    let all: Vec<f64> = scored.iter().flat_map(|s| s.loo_errors.clone()).collect();
    let on_3090 = |s: &Scored| s.id.contains("rtx3090");
    let dflash = |s: &Scored| s.id.contains("dflash");
    let points = |keep: &dyn Fn(&Scored) -> bool| -> Vec<f64> {
        scored
            .iter()
            .filter(|s| keep(s))
            .flat_map(|s| s.loo_errors.clone())
            .collect()
    };
    let mtp = points(&|s| !dflash(s));
    let rest = points(&|s| !dflash(s) && !on_3090(s));
    table.push_str(&format!(
        "\nOutput tok/s, all {} points of the {} runs: MAPE {:.1}% leave one run out; the {} points of the MTP runs, {:.1}%; of those without the RTX 3090 pairs, {} points, {:.1}%.\n",
        all.len(),
        scored.len(),
        mape(&all),
        mtp.len(),
        mape(&mtp),
        rest.len(),
        mape(&rest)
    ));
    eprintln!("{table}");
    assert_eq!((scored.len(), all.len()), (11, 41));
    // Seven runs of eleven are within 15%. The two MTP runs on RTX 3090
    // pairs are off at the acceptance they logged too (the timing's error,
    // not the acceptance's): NCCL through host memory
    // (`NCCL_HOST_STEP_US`) brings the MoE run's twin without speculation
    // to within 5%, so what remains is the speculative step at TP 2 on these
    // rigs, which no term prices. DFlash's two runs miss on their narrative
    // prompts, whose acceptance no log gives (the default, 4.40 tokens a
    // step, is near the 4.28 the code prompts logged), and on the RTX 3090
    // pair by that pair's unpriced step.
    for s in &scored {
        let m = mape(&s.loo_errors);
        if dflash(s) {
            assert!(m > 40.0, "{}: {m}", s.id);
        } else if on_3090(s) {
            assert!(m > 60.0 && s.logged_mape.unwrap() > 80.0, "{}: {m}", s.id);
            if let Some((t, twin)) = &s.twin {
                assert!(*twin < 5.0, "{t}: {twin}");
            }
        } else {
            assert!(m < 15.0, "{}: {m}", s.id);
        }
    }
    // The bar, 20%, is not met over all 41 points (25%); over the 37 MTP
    // points it is (19.3%), and without the RTX 3090 pairs by more than
    // half (8.5%).
    assert!(mape(&all) > 20.0 && mape(&all) < 30.0, "{}", mape(&all));
    assert!(mape(&mtp) < 20.0, "{}", mape(&mtp));
    assert!(mape(&rest) < 10.0, "{}", mape(&rest));
    let readme =
        std::fs::read_to_string(decodecalc_tests::data_dir().join("../README.md")).unwrap();
    assert!(
        readme.contains(&table),
        "README.md's leave-one-run-out table differs from this test's:\n{table}"
    );
}

/// The runs at TP 2 without speculation on GeForce pairs, which have no
/// GPU peer-to-peer access: NCCL moves each ring step through host memory
/// (`timing::NCCL_HOST_STEP_US`, derived from an A/B on another rig, not
/// from these runs), 80 all-reduces a token for Qwen3.6-35B-A3B. With the
/// PCIe NCCL constants of a P2P-capable server the 2 x RTX 3090 run was
/// predicted 26% and 30% too fast and the 2 x RTX 5090 run 14% and 15%;
/// through host memory they are within 5% and 13%.
#[test]
fn nccl_without_peer_access_prices_the_geforce_pairs() {
    let (mut runs, _) = load();
    let pairs = [
        ("q36-35b-a3b-int4-rtx3090x2-nospec", 5.0),
        ("q36-35b-a3b-int4-rtx5090x2-nospec", 13.0),
    ];
    let mut errors = Vec::new();
    for (id, bound) in pairs {
        let i = runs.runs.iter().position(|r| r.id == id).unwrap();
        let m = &runs.runs[i].work.machine;
        assert!(!m.p2p && m.tensor_parallel_size == 2, "{id}");
        assert_eq!(m.nccl_allreduce.per_step_us, NCCL_HOST_STEP_US, "{id}");
        for (meas, pred) in runs.points(i, 0.0) {
            let e = pct(pred, meas);
            eprintln!("{id}: measured {meas:.1} tok/s, predicted {pred:.1} ({e:+.1}%)");
            assert!(e.abs() < bound, "{id}: {e}");
            errors.push(e);
        }
    }
    assert!(mape(&errors) < 10.0, "{}", mape(&errors));
}

/// Each row of `data/speculative/acceptance_published.csv` restates its
/// published figure: 1 plus its per-position rates is the mean acceptance
/// length its source gives (within 0.01), over as many positions as the
/// source's `num_speculative_tokens`.
#[test]
fn every_published_row_restates_its_figure() {
    let text = std::fs::read_to_string(
        decodecalc_tests::data_dir().join("speculative/acceptance_published.csv"),
    )
    .unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (k_col, al_col) = (col("num_speculative_tokens"), col("mean_acceptance_length"));
    let mut n = 0;
    for (line, table) in lines.zip(PUBLISHED_ACCEPTANCE) {
        let f: Vec<&str> = line.split(',').collect();
        let k: usize = f[k_col].parse().unwrap();
        let al: f64 = f[al_col].parse().unwrap();
        assert_eq!(table.rates_milli.len(), k, "{line}");
        let sum: f64 = 1.0
            + table
                .rates_milli
                .iter()
                .map(|&r| f64::from(r) / 1e3)
                .sum::<f64>();
        assert!(
            (sum - al).abs() <= 0.01,
            "{}: {sum} against {al}",
            table.label
        );
        n += 1;
    }
    assert_eq!(n, PUBLISHED_ACCEPTANCE.len());
}

/// The acceptance a prediction takes, in the order a user expects: the
/// exact checkpoint's published rows, else its family's, else the method's
/// default; `--spec-acceptance` (or a log's SpecDecoding metrics) before all
/// of them; and the source named.
#[test]
fn the_checkpoint_s_acceptance_comes_before_its_family_s_and_the_method_s() {
    let spec = |model: &str, acceptance: Option<&str>| {
        let mut r = decodecalc_core::scenario::Request {
            model: Some(model.into()),
            gpu: Some("rtx5090".into()),
            ..Default::default()
        };
        r.engine.max_model_len = Some(65_536);
        r.engine.speculative_config =
            Some(r#"{"method": "mtp", "num_speculative_tokens": 3}"#.into());
        r.engine.spec_acceptance = acceptance.map(str::to_string);
        r.resolve(&decodecalc::CliWorld)
            .unwrap()
            .engine
            .speculative
            .unwrap()
    };
    // The abliterated Qwen3.8-27B build: its two runs' logged 34.1% of
    // drafts (tsarihan bench-5090-v3.log), 1 + 3 x 0.341 tokens a step,
    // far below its family's 3.2 to 4.0, though its MTP head is the base's.
    let s = spec("qwen3.8-27b-uncensored-nvfp4-v3", None);
    assert!(
        (s.mean_acceptance_length() - 2.023).abs() < 0.005,
        "{}",
        s.mean_acceptance_length()
    );
    assert!(s
        .acceptance_source
        .starts_with("the checkpoint's published acceptance"));
    assert!(s.acceptance_source.contains("tsarihan"));
    // Qwen3.6-27B's config read from a file of another name: its family
    // (Qwen3_5...), the mean of the nine published Qwen3.5/3.6 rows:
    // position 1 is club-3090's 0.87, 1, 0.99, 0.927, 0.918, 0.94, 0.917
    // and InferenceX's 0.93, 0.92, so 8.412 / 9; positions 2 and 3 sum to
    // 7.559 and 6.522.
    let path = format!(
        "{}/../data/hub/nvidia--Qwen3.6-27B-NVFP4.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let s = spec(&path, None);
    let expect = [8.412 / 9.0, 7.559 / 9.0, 6.522 / 9.0];
    for (got, want) in s.acceptance.iter().zip(expect) {
        assert!((got - want).abs() < 1e-9, "{:?}", s.acceptance);
    }
    assert!(s
        .acceptance_source
        .starts_with("its family's published acceptance"));
    // Given rates win.
    let s = spec("qwen3.8-27b-uncensored-nvfp4-v3", Some("0.7,0.5,0.3"));
    assert_eq!(s.acceptance_source, "--spec-acceptance");
    assert!((s.mean_acceptance_length() - 2.5).abs() < 1e-9);
    // MiniMax-M2.5 ships an MTP block and no published acceptance: the
    // method's default (3.02 tokens a step at k = 3).
    let model =
        decodecalc_core::scenario::load_model(&decodecalc::CliWorld, "MiniMaxAI/MiniMax-M2.5")
            .unwrap();
    let config =
        SpeculativeConfig::parse("c", r#"{"method": "mtp", "num_speculative_tokens": 3}"#).unwrap();
    let mut s = Speculative::resolve("c", &config, &model.model, 1).unwrap();
    s.use_published_acceptance(&["MiniMaxAI/MiniMax-M2.5"], &model.model.architecture, "");
    assert!(
        s.acceptance_source.starts_with("MTP default"),
        "{}",
        s.acceptance_source
    );
    assert!((s.mean_acceptance_length() - 3.02).abs() < 0.01);
}
