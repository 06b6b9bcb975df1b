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
use decodecalc_core::timing::{
    spec_pass_overhead_s, NCCL_HOST_STEP_US, SPEC_PASS_OVERHEAD_BY_CLASS, SPEC_PASS_OVERHEAD_S,
};

/// The runs files with speculative runs, read through the CLI's world.
const FILES: [&str; 3] = [
    "speculative-decoding",
    "speculative-sweeps",
    "speculative-cross-rig",
];

/// The runs file of DFlash's runs, whose drafter the test world answers from
/// its fixture (`speculative_methods::WithDrafter`).
const DFLASH_FILE: &str = "speculative-dflash";

/// One speculative run's row of the README's table.
struct Scored {
    id: String,
    points: usize,
    loo_errors: Vec<f64>,
    /// The same with the pass overhead fitted on other classes' runs only.
    class_out_errors: Vec<f64>,
    class: String,
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

/// The runs file of one compose's runs on other rigs (other hosts, vLLM
/// builds and a checkpoint of another quantization), held out: no fit reads
/// them, so they show how a class's pass overhead carries to other hosts.
const CROSS_RIG_FILE: &str = "speculative-cross-rig";

/// Whether run `id` is one of [`CROSS_RIG_FILE`]'s.
fn is_cross_rig(id: &str) -> bool {
    rows(CROSS_RIG_FILE).iter().any(|row| row.run == id)
}

/// The speculative runs the drafter's pass overhead is fitted on: the MTP
/// runs but the other rigs' ([`CROSS_RIG_FILE`]). DFlash's are predicted
/// with it, not fitted: two of their four points logged no acceptance, at
/// which the fit would price the narrative prompts' lower acceptance as
/// drafter time.
fn overhead_runs(runs: &Runs, all_rows: &[decodecalc_fit::runs::RunRow]) -> Vec<usize> {
    runs.spec_runs()
        .into_iter()
        .filter(|&i| !is_dflash(all_rows, &runs.runs[i].id) && !is_cross_rig(&runs.runs[i].id))
        .collect()
}

/// The pass overhead run `i` is predicted with, leave one run out: fitted
/// on the other MTP runs of its GPU class where there are any, else on
/// every other MTP run (the shipped rule, `timing::spec_pass_overhead_s`,
/// without the run).
fn overhead_without(runs: &mut Runs, fitted: &[usize], i: usize) -> f64 {
    let class = runs.runs[i].class.clone();
    let others: Vec<usize> = fitted.iter().copied().filter(|&j| j != i).collect();
    let same: Vec<usize> = others
        .iter()
        .copied()
        .filter(|&j| runs.runs[j].class == class)
        .collect();
    fit_overhead(runs, if same.is_empty() { &others } else { &same })
}

/// The drafter's pass overheads the shipped timing uses are the fits:
/// over every MTP run at its logged acceptance (the shipped one where it
/// logged none) for a class without runs, and over a class's own MTP runs
/// for each class that has some; the least mean absolute log error on a
/// 0.25 ms grid, `speculative::fit_overhead`. Left out one at a time, the
/// fit over every run moves by at most 0.5 ms.
#[test]
fn the_shipped_pass_overheads_are_the_fits() {
    let (mut runs, rows) = load();
    let spec = overhead_runs(&runs, &rows);
    assert_eq!((runs.spec_runs().len(), spec.len()), (19, 9));
    let all = fit_overhead(&mut runs, &spec);
    assert!((all - SPEC_PASS_OVERHEAD_S).abs() < 1e-9, "{all}");
    for &i in &spec {
        let others: Vec<usize> = spec.iter().copied().filter(|&j| j != i).collect();
        let c = fit_overhead(&mut runs, &others);
        eprintln!("without {}: {:.2} ms", runs.runs[i].id, c * 1e3);
        assert!((c - all).abs() <= 0.5e-3 + 1e-9, "{}: {c}", runs.runs[i].id);
    }
    let mut classes: Vec<String> = spec.iter().map(|&i| runs.runs[i].class.clone()).collect();
    classes.sort();
    classes.dedup();
    assert_eq!(classes.len(), SPEC_PASS_OVERHEAD_BY_CLASS.len());
    for class in classes {
        let on: Vec<usize> = spec
            .iter()
            .copied()
            .filter(|&i| runs.runs[i].class == class)
            .collect();
        let c = fit_overhead(&mut runs, &on);
        eprintln!("{class}: {} runs, {:.2} ms", on.len(), c * 1e3);
        assert!(
            (c - spec_pass_overhead_s(&class)).abs() < 1e-9,
            "{class}: {c}"
        );
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
        let overhead = overhead_without(&mut runs, &fitted, i);
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
        let class = runs.runs[i].class.clone();
        let other_classes: Vec<usize> = fitted
            .iter()
            .copied()
            .filter(|&j| runs.runs[j].class != class)
            .collect();
        let class_out = fit_overhead(&mut runs, &other_classes);
        let class_out_errors = errors(runs.points(i, class_out));
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
            class_out_errors,
            class,
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
        "| Run | Class | Points | MAPE, shipped defaults without the run | MAPE, pass overhead from other classes' runs | Acceptance length used / logged (whose) | MAPE at its logged acceptance | Same setup without speculation: MAPE |\n|---|---|---|---|---|---|---|---|\n",
    );
    for s in &scored {
        table.push_str(&format!(
            "| {} | {} | {} | {:.0}% | {:.0}% | {:.2} / {} ({}) | {} | {} |\n",
            s.id,
            s.class,
            s.points,
            mape(&s.loo_errors),
            mape(&s.class_out_errors),
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
    let cross = |s: &Scored| is_cross_rig(&s.id);
    let fitted_mtp = points(&|s| !dflash(s) && !cross(s));
    let other_rigs = points(&|s| cross(s) && s.id.contains("rtx3090"));
    let class_out: Vec<f64> = scored
        .iter()
        .flat_map(|s| s.class_out_errors.clone())
        .collect();
    table.push_str(&format!(
        "\nOutput tok/s, all {} points of the {} runs: MAPE {:.1}% leave one run out; the {} points of the MTP runs the pass overheads are fitted on, {:.1}%; the {} points of the other rigs' RTX 3090 pairs (no fit reads them), {:.1}%. With each run's pass overhead fitted on other GPU classes' runs only, all {} points: {:.1}%.\n",
        all.len(),
        scored.len(),
        mape(&all),
        fitted_mtp.len(),
        mape(&fitted_mtp),
        other_rigs.len(),
        mape(&other_rigs),
        class_out.len(),
        mape(&class_out)
    ));
    eprintln!("{table}");
    assert_eq!((scored.len(), all.len()), (19, 57));
    // Every MTP run is within 25% leave one run out, and within 40% the
    // other rigs' RTX 3090 pairs, which no fit reads: an overhead fitted on
    // one rig's two runs carries to six hosts from a 2012 i7-3770K to a
    // Ryzen 7 5800X, whose own spread (54 to 96 tok/s on the narrative
    // prompts) is the host's. DFlash's two runs miss on their narrative
    // prompts, whose acceptance no log gives (the default, 4.40 tokens a
    // step, is near the 4.28 the code prompts logged); at the acceptance
    // the RTX 3090 pair's code prompts logged, it is within 15%.
    for s in &scored {
        let m = mape(&s.loo_errors);
        if dflash(s) {
            assert!(m > 40.0, "{}: {m}", s.id);
        } else if cross(s) {
            assert!(m < 40.0, "{}: {m}", s.id);
        } else {
            assert!(m < 25.0, "{}: {m}", s.id);
        }
        if let Some((t, twin)) = s.twin.as_ref().filter(|_| on_3090(s)) {
            assert!(*twin < 5.0, "{t}: {twin}");
        }
        if dflash(s) && on_3090(s) {
            assert!(s.logged_mape.unwrap() < 15.0, "{}", s.id);
        }
    }
    // The bar, 20%, is met over all 57 points, and by the other rigs'
    // points alone. The pass overhead is a class's: fitted on the other
    // classes' runs only, every run is predicted 46% off on average (the
    // RTX 3090 pairs too fast by 19% to 136% a run, the Blackwell MTP runs
    // too slow).
    assert!(mape(&all) < 20.0, "{}", mape(&all));
    assert!(mape(&fitted_mtp) < 10.0, "{}", mape(&fitted_mtp));
    assert!(mape(&other_rigs) < 20.0, "{}", mape(&other_rigs));
    assert!(mape(&class_out) > 40.0, "{}", mape(&class_out));
    assert_the_shipped_bands_are(&all, &class_out);
    let readme =
        std::fs::read_to_string(decodecalc_tests::data_dir().join("../README.md")).unwrap();
    assert!(
        readme.contains(&table),
        "README.md's leave-one-run-out table differs from this test's:\n{table}"
    );
}

/// The bands a speculative prediction carries (`bands::SPECULATIVE_BANDS`)
/// are the errors of every run leave one run out (`all`) and with the pass
/// overhead from other classes (`class_out`): output tok/s and, from the
/// same points, time per output token.
fn assert_the_shipped_bands_are(all: &[f64], class_out: &[f64]) {
    let tpot = |e: &[f64]| -> Vec<f64> {
        e.iter()
            .map(|x| 100.0 / (1.0 + x / 100.0) - 100.0)
            .collect()
    };
    use decodecalc_core::bands::{ErrorStats, Figure, HoldOut, SPECULATIVE_BANDS};
    let mut stale = Vec::new();
    for (figure, hold_out, errors) in [
        (Figure::Throughput, HoldOut::SpeculativeRuns, all.to_vec()),
        (Figure::Tpot, HoldOut::SpeculativeRuns, tpot(all)),
        (
            Figure::Throughput,
            HoldOut::SpeculativeClassOut,
            class_out.to_vec(),
        ),
        (Figure::Tpot, HoldOut::SpeculativeClassOut, tpot(class_out)),
    ] {
        let got = ErrorStats::of(&errors).unwrap();
        eprintln!(
            "{figure:?} {hold_out:?}: [{:.1}, {:.1}, {:.1}] over {}",
            got.mape_pct, got.median_abs_pct, got.p90_abs_pct, got.figures
        );
        let shipped = SPECULATIVE_BANDS
            .iter()
            .find(|b| b.figure == figure && b.hold_out == hold_out)
            .unwrap()
            .stats;
        let close = shipped.figures == got.figures
            && [
                (shipped.mape_pct, got.mape_pct),
                (shipped.median_abs_pct, got.median_abs_pct),
                (shipped.p90_abs_pct, got.p90_abs_pct),
            ]
            .iter()
            .all(|(a, b)| (a - b).abs() <= 0.05 + 1e-9);
        if !close {
            stale.push(format!(
                "{figure:?} {hold_out:?}: {shipped:?} against {got:?}"
            ));
        }
    }
    assert!(stale.is_empty(), "bands::SPECULATIVE_BANDS: {stale:#?}");
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

/// A speculative plan names the pass overhead it is timed with: on an RTX
/// 3090 its class's own fit (9.75 ms, two RTX 3090 pairs' runs), on an
/// H100, whose class has no published speculative run, the fit over every
/// MTP run (2.00 ms) beside the range of the classes' own fits; the
/// drafter's term is that many ms a pass more than its kernels; and the
/// decode figures' error bands are the speculative runs'.
#[test]
fn a_plan_names_the_pass_overhead_of_its_gpu_class() {
    let note = |gpu: &str| {
        let mut r = decodecalc_core::scenario::Request {
            model: Some("nvidia/Qwen3.6-27B-NVFP4".into()),
            gpu: Some(gpu.into()),
            ..Default::default()
        };
        r.engine.max_model_len = Some(65_536);
        r.engine.speculative_config =
            Some(r#"{"method": "mtp", "num_speculative_tokens": 3}"#.into());
        let plan = r.resolve(&decodecalc::CliWorld).unwrap();
        let texts: Vec<String> = plan.warnings.iter().map(|w| w.to_string()).collect();
        let found = texts
            .iter()
            .find(|t| t.contains("each drafter pass costs"))
            .cloned();
        (plan, found.unwrap_or_default())
    };
    let (plan, on_3090) = note("rtx3090");
    assert!(
        on_3090.contains("9.75 ms")
            && on_3090
                .contains("(ampere-geforce: two RTX 3090 pairs' runs, both Qwen3.5/3.6 hybrids)"),
        "{on_3090}"
    );
    let (h100, on_h100) = note("h100");
    assert!(
        on_h100.contains("2.00 ms") && on_h100.contains("from 1.50 to 9.75 ms"),
        "{on_h100}"
    );
    // Its decode figures carry the speculative runs' bands (the class's
    // own leave one run out, or the class-out ones where it has none);
    // TTFT keeps the calibration's.
    use decodecalc_core::bands::{Figure, HoldOut};
    let band = |p: &decodecalc_core::scenario::Plan, f| p.calibration.band_in(f, None).unwrap();
    assert_eq!(band(&plan, Figure::Tpot).hold_out, HoldOut::SpeculativeRuns);
    assert_eq!(band(&plan, Figure::Throughput).p90_abs_pct, 28.7);
    assert_eq!(
        band(&h100, Figure::Tpot).hold_out,
        HoldOut::SpeculativeClassOut
    );
    assert_eq!(band(&h100, Figure::Throughput).median_abs_pct, 40.7);
    assert!(!matches!(
        band(&plan, Figure::Ttft).hold_out,
        HoldOut::SpeculativeRuns | HoldOut::SpeculativeClassOut
    ));
    // The drafter's time at 9.75 ms a pass less the same at none is the
    // three passes' 29.25 ms.
    let cap = plan.capacity().unwrap();
    let mut work = decodecalc_core::timing::Work::of_plan(&plan, &cap);
    let p = plan.calibration.params;
    let with = work.decode_step(&p, 1.0, 1024.0).draft_s;
    work.spec.as_mut().unwrap().pass_overhead_s = 0.0;
    let without = work.decode_step(&p, 1.0, 1024.0).draft_s;
    assert!(
        ((with - without) * 1e3 - 29.25).abs() < 1e-9,
        "{with} {without}"
    );
}
