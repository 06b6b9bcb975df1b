//! The joint calibration's report and the held-out check.

use super::*;

/// `decodecalc calibrate` over several runs: per GPU class, per GPU and
/// per model family, each figure's first-principles and in-sample errors and
/// its held-out errors (leave-model-family-out, leave-GPU-out,
/// leave-class-out: every refit cold); then time per output token by
/// class and workload regime, the bands predictions carry.
pub fn joint(report: &decodecalc_fit::JointReport, format: Format) -> Result<String, Error> {
    use decodecalc_fit::GroupReport;
    if format == Format::Json {
        return json(report);
    }
    let table = |who: &str, groups: &[&GroupReport]| {
        let mut t = Table::new(&[
            (who, false),
            ("Runs", true),
            ("Figure", false),
            ("n", true),
            ("First principles MAPE %", true),
            ("In-sample MAPE %", true),
            ("Family-out MAPE %", true),
            ("Family-out median %", true),
            ("Family-out p90 %", true),
            ("GPU-out MAPE %", true),
            ("GPU-out median %", true),
            ("GPU-out p90 %", true),
            ("Class-out median %", true),
            ("Class-out p90 %", true),
        ]);
        let pct = |x: f64| format!("{x:.1}");
        for g in groups {
            for f in &g.figures {
                let [fam, gpu, class] = &f.held_out;
                t.push(vec![
                    g.name.clone(),
                    g.runs.to_string(),
                    f.figure.label().to_string(),
                    f.figures.to_string(),
                    pct(f.first_principles_mape_pct),
                    pct(f.in_sample_mape_pct),
                    pct(fam.mape_pct),
                    pct(fam.median_abs_pct),
                    pct(fam.p90_abs_pct),
                    pct(gpu.mape_pct),
                    pct(gpu.median_abs_pct),
                    pct(gpu.p90_abs_pct),
                    pct(class.median_abs_pct),
                    pct(class.p90_abs_pct),
                ]);
            }
        }
        t
    };
    let mut classes: Vec<&GroupReport> = report.classes.iter().collect();
    classes.push(&report.overall);
    let gpus: Vec<&GroupReport> = report.gpus.iter().collect();
    let families: Vec<&GroupReport> = report.families.iter().collect();
    let engines: Vec<&GroupReport> = report.engines.iter().collect();
    let mut out = String::new();
    let sections = [
        ("By GPU class", "GPU class", &classes),
        ("By GPU", "GPU", &gpus),
        ("By model family", "Model family", &families),
        ("By engine generation", "Engine", &engines),
    ];
    for (i, (title, who, groups)) in sections.into_iter().enumerate() {
        if format == Format::Csv && i > 0 {
            break;
        }
        if format != Format::Csv {
            out.push_str(&format!("{}{title}:\n\n", if i > 0 { "\n" } else { "" }));
        }
        out.push_str(&emit(&table(who, groups), format)?);
    }
    if format != Format::Csv {
        out.push_str("\nTime per output token by GPU class and workload regime (the bands predictions carry):\n\n");
        out.push_str(&emit(&regime_table(report), format)?);
    }
    if format == Format::Table {
        out.push_str(&fitted_values(report));
    }
    Ok(out)
}

/// The fit's values as text: the shared ones, each engine generation's host
/// costs and each class's own kernel parameters.
fn fitted_values(report: &decodecalc_fit::JointReport) -> String {
    let mut out = format!(
        "\nJoint fit: {} evaluations, {}; {} runs in {} classes.\n",
        report.fit.evaluations,
        report.fit.termination,
        report.runs.len(),
        report.classes.len()
    );
    {
        use decodecalc_api::timing::{Scope, TimingParams};
        let values = |p: &TimingParams, keep: &dyn Fn(usize, &str) -> bool| {
            TimingParams::NAMES
                .iter()
                .zip(p.to_array())
                .enumerate()
                .filter(|(k, (n, _))| keep(*k, n))
                .map(|(_, (n, v))| format!("  {n:<24} {v:.4}\n"))
                .collect::<String>()
        };
        out.push_str("\n[shared] what a class or engine generation without its own value uses\n");
        out.push_str(&values(&report.fit.shared, &|_, _| true));
        for e in &report.fit.engines {
            out.push_str(&format!(
                "\n[engine {}] {} runs: the host's costs\n",
                e.engine.name(),
                e.runs.len()
            ));
            out.push_str(&values(&e.params, &|k, _| {
                TimingParams::SCOPES.get(k) == Some(&Scope::Engine)
            }));
        }
        for c in &report.fit.classes {
            out.push_str(&format!(
                "\n[{}] fitted on vLLM {}: ",
                c.class,
                c.vllm_versions.join(", ")
            ));
            if c.free.is_empty() {
                out.push_str(
                    "its runs pin no kernel parameter of their own; it uses the shared values\n",
                );
            } else {
                out.push_str("the kernel parameters its runs pin down\n");
                out.push_str(&values(&c.params, &|_, n| c.free.contains(&n)));
            }
        }
    }
    out
}

/// Runs no fit saw, predicted with the joint fit: errors by GPU and by
/// model family.
pub fn held_out(
    name: &str,
    report: &decodecalc_fit::HeldOutReport,
    format: Format,
) -> Result<String, Error> {
    if format == Format::Json {
        return json(report);
    }
    let mut t = Table::new(&[
        ("Held out", false),
        ("Runs", true),
        ("Figure", false),
        ("n", true),
        ("MAPE %", true),
        ("Median abs %", true),
        ("p90 abs %", true),
        ("Mean signed %", true),
    ]);
    let groups = report
        .gpus
        .iter()
        .chain(&report.families)
        .chain(std::iter::once(&report.overall));
    for g in groups {
        for f in &g.figures {
            t.push(vec![
                g.name.clone(),
                g.runs.to_string(),
                f.figure.label().to_string(),
                f.stats.figures.to_string(),
                format!("{:.1}", f.stats.mape_pct),
                format!("{:.1}", f.stats.median_abs_pct),
                format!("{:.1}", f.stats.p90_abs_pct),
                format!("{:+.1}", f.mean_signed_pct),
            ]);
        }
    }
    let mut out =
        format!("\nHeld-out runs of {name} (no fit saw them), predicted with the joint fit:\n\n");
    out.push_str(&emit(&t, format)?);
    Ok(out)
}

/// The joint report's time-per-output-token errors by class and workload
/// regime under leave-family-out and leave-GPU-out: what a prediction's
/// band is taken from.
pub(super) fn regime_table(report: &decodecalc_fit::JointReport) -> Table {
    use decodecalc_api::bands::{Figure, Regime, MIN_REGIME_FIGURES};
    let mut t = Table::new(&[
        ("GPU class", false),
        ("Regime", false),
        ("n", true),
        ("Family-out median %", true),
        ("Family-out p90 %", true),
        ("GPU-out median %", true),
        ("GPU-out p90 %", true),
        ("Band used", false),
    ]);
    for c in &report.classes {
        for regime in Regime::ALL {
            let v = report.regime_errors(&c.name, Figure::Tpot, regime);
            let Some([fam, gpu, _]) = v else { continue };
            t.push(vec![
                c.name.clone(),
                regime.label().to_string(),
                fam.figures.to_string(),
                format!("{:.1}", fam.median_abs_pct),
                format!("{:.1}", fam.p90_abs_pct),
                format!("{:.1}", gpu.median_abs_pct),
                format!("{:.1}", gpu.p90_abs_pct),
                if fam.figures >= MIN_REGIME_FIGURES {
                    "this regime's"
                } else {
                    "the class's"
                }
                .to_string(),
            ]);
        }
    }
    t
}
