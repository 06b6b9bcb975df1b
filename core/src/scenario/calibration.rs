//! Calibration files (`data/calibrations/*.toml`) and the error bands they carry.

use super::*;

/// A calibration file (`data/calibrations/*.toml`), as `decodecalc calibrate` writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrationFile {
    pub id: String,
    /// The GPU calibration class it was fitted for (`gpu::CALIBRATION_CLASSES`).
    pub class: String,
    /// The GPU presets of the runs it was fitted on.
    pub gpus: Vec<String>,
    /// The vLLM releases of those runs.
    pub vllm_versions: Vec<String>,
    pub description: String,
    /// The measured files or presets it was fitted on.
    pub fitted_on: Vec<String>,
    /// The runs of its class among them.
    pub runs: Vec<String>,
    /// The command that produced it.
    pub command: String,
    pub params: TimingParams,
    /// Figures of the fit, for the reader and the error bands (errors in
    /// percent, counts): `loo_<family>_median_abs_pct` and `_p90_abs_pct`
    /// per family (`calibrate::FAMILIES`), `runs`, `figures`. The web page's
    /// embedded copy has no `in_sample_*`, `*_mape_pct` or `figures` (no
    /// code reads them; core/build.rs), nor `description`, `command` or
    /// `fitted_on` above.
    #[serde(default)]
    pub fit: std::collections::BTreeMap<String, f64>,
}

impl CalibrationFile {
    pub fn parse(origin: &str, text: &str) -> Result<CalibrationFile> {
        let file: CalibrationFile = parse::toml(origin, text)?;
        file.params.validate(origin)?;
        if file.class != crate::calibrate::SHARED
            && crate::gpu::class_distance(&file.class, &file.class).is_none()
        {
            let names: Vec<&str> = crate::gpu::CALIBRATION_CLASSES
                .iter()
                .map(|x| x.0)
                .collect();
            return Err(Error::field(
                &format!("{origin}: class"),
                &file.class,
                format!("one of {}, or shared", names.join(", ")),
            ));
        }
        Ok(file)
    }

    #[cfg(feature = "toml")]
    pub fn to_toml(&self) -> Result<String> {
        toml::to_string(self).map_err(|e| Error::new(format!("cannot write the calibration: {e}")))
    }

    /// The cross-validated error band of a family, if the fit recorded one:
    /// (median, 90th percentile) of absolute leave-one-run-out errors, %.
    pub fn band(&self, family: &str) -> Option<(f64, f64)> {
        Some((
            *self.fit.get(&format!("loo_{family}_median_abs_pct"))?,
            *self.fit.get(&format!("loo_{family}_p90_abs_pct"))?,
        ))
    }

    /// A family's band in one workload regime, if the fit recorded it:
    /// (figures, median, 90th percentile) of absolute leave-one-run-out
    /// errors, % (keys named by `calibrate::regime_key`).
    pub fn regime_band(
        &self,
        family: &str,
        regime: crate::calibrate::Regime,
    ) -> Option<(f64, f64, f64)> {
        let get = |what| {
            self.fit
                .get(&crate::calibrate::regime_key(family, regime, what))
                .copied()
        };
        Some((get("figures")?, get("median_abs_pct")?, get("p90_abs_pct")?))
    }
}

/// The timing parameters in use and where they came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calibration {
    /// A calibration id, a path, or `none`.
    pub id: String,
    pub params: TimingParams,
    /// Set when the calibration was fitted on another GPU: which, and why it was chosen.
    pub transferred: Option<String>,
    /// The file's fit figures (empty for `none`).
    #[serde(skip)]
    pub file: Option<CalibrationFile>,
    /// Set when none of the fit's runs used the modelled release: which
    /// releases they used. The timing model is the same for every release;
    /// the runs it was fitted on are not.
    pub fitted_on_releases: Option<String>,
}

impl Calibration {
    pub fn none() -> Calibration {
        Calibration {
            id: "none".to_string(),
            params: TimingParams::FIRST_PRINCIPLES,
            transferred: None,
            file: None,
            fitted_on_releases: None,
        }
    }

    /// The id, with where it came from when it was transferred and the
    /// releases it was fitted on when they are not the modelled one.
    pub fn label(&self) -> String {
        let mut notes = Vec::new();
        if let Some(t) = &self.transferred {
            notes.push(t.clone());
        }
        if let Some(r) = &self.fitted_on_releases {
            notes.push(format!("fitted on vLLM {r}"));
        }
        if notes.is_empty() {
            self.id.clone()
        } else {
            format!("{} ({})", self.id, notes.join("; "))
        }
    }

    /// The error band of a family as a sentence fragment: "+-9% median,
    /// +-21% p90 (leave-one-run-out, 27 runs, ampere-datacenter)"; for a
    /// borrowed calibration the leave-class-out figures. None without a
    /// cross-validated fit.
    pub fn band(&self, family: &str) -> Option<String> {
        let f = self.file.as_ref()?;
        let runs = f.fit.get("runs").copied().unwrap_or(0.0);
        if self.transferred.is_some() {
            let m = f.fit.get(&format!("transfer_{family}_median_abs_pct"))?;
            let p = f.fit.get(&format!("transfer_{family}_p90_abs_pct"))?;
            let classes = f.fit.get("transfer_classes").copied().unwrap_or(0.0);
            return Some(format!(
                "+-{m:.0}% median, +-{p:.0}% p90 (borrowed; leave-class-out over {classes:.0} classes)"
            ));
        }
        let (m, p) = f.band(family)?;
        if f.fit.get("loo_from_other_class").copied() == Some(1.0) {
            return Some(format!(
                "+-{m:.0}% median, +-{p:.0}% p90 (its class's only run, {runs:.0}, predicted from another class's parameters: a new model on {} is not yet checked)",
                f.class
            ));
        }
        Some(format!(
            "+-{m:.0}% median, +-{p:.0}% p90 (leave-one-run-out, {runs:.0} runs on {})",
            f.class
        ))
    }
}

/// One figure's cross-validated error band for one prediction: absolute
/// errors, %, and the workload regime they were measured in (None: the
/// class-wide figures, because the regime had fewer than
/// [`crate::calibrate::MIN_REGIME_FIGURES`] or the calibration is borrowed).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Band {
    pub median_abs_pct: f64,
    pub p90_abs_pct: f64,
    pub regime: Option<crate::calibrate::Regime>,
    /// Leave-class-out figures (the calibration is borrowed).
    pub borrowed: bool,
}

/// The bands of one cell's figures, from its regime.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CellBands {
    pub regime: crate::calibrate::Regime,
    pub tpot: Option<Band>,
    pub throughput: Option<Band>,
    pub ttft: Option<Band>,
}

impl Calibration {
    /// The band of `family` for a prediction in `regime`: the regime's own
    /// leave-one-run-out figures where it has enough, else the class-wide
    /// ones; for a borrowed calibration the leave-class-out figures.
    pub fn band_in(&self, family: &str, regime: crate::calibrate::Regime) -> Option<Band> {
        let f = self.file.as_ref()?;
        if self.transferred.is_some() {
            return Some(Band {
                median_abs_pct: *f.fit.get(&format!("transfer_{family}_median_abs_pct"))?,
                p90_abs_pct: *f.fit.get(&format!("transfer_{family}_p90_abs_pct"))?,
                regime: None,
                borrowed: true,
            });
        }
        if let Some((n, m, p)) = f.regime_band(family, regime) {
            if n >= crate::calibrate::MIN_REGIME_FIGURES as f64 {
                return Some(Band {
                    median_abs_pct: m,
                    p90_abs_pct: p,
                    regime: Some(regime),
                    borrowed: false,
                });
            }
        }
        let (m, p) = f.band(family)?;
        Some(Band {
            median_abs_pct: m,
            p90_abs_pct: p,
            regime: None,
            borrowed: false,
        })
    }

    /// The bands of a cell with `concurrency` requests over `context_tokens`.
    pub fn cell_bands(&self, concurrency: u64, context_tokens: u64) -> Option<CellBands> {
        let regime = crate::calibrate::Regime::of(concurrency, context_tokens);
        let tpot = self.band_in("tpot", regime);
        let throughput = self.band_in("throughput", regime);
        let ttft = self.band_in("ttft", regime);
        (tpot.is_some() || throughput.is_some() || ttft.is_some()).then_some(CellBands {
            regime,
            tpot,
            throughput,
            ttft,
        })
    }

    /// The regime bands the file records for `family`, as table lines:
    /// "2+ requests, context < 8K: +-6% median, +-14% p90 (31 figures)".
    pub fn regime_bands(&self, family: &str) -> Vec<String> {
        let Some(f) = self.file.as_ref().filter(|_| self.transferred.is_none()) else {
            return Vec::new();
        };
        crate::calibrate::Regime::ALL
            .iter()
            .filter_map(|r| {
                let (n, m, p) = f.regime_band(family, *r)?;
                let own = n >= crate::calibrate::MIN_REGIME_FIGURES as f64;
                Some(format!(
                    "{}: +-{m:.0}% median, +-{p:.0}% p90 ({n:.0} figures{})",
                    r.label(),
                    if own {
                        ""
                    } else {
                        "; too few, the class-wide band is used"
                    }
                ))
            })
            .collect()
    }
}

/// The cross-validated error band of each timing figure a prediction uses,
/// as [`Calibration::band`] words it; None where the calibration has none
/// (`--calibration none`, or a file fitted without cross-validation).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ErrorBands {
    /// Time per output token: TPOT, ITL, time between tokens.
    pub tpot: Option<String>,
    /// Output and total throughput.
    pub throughput: Option<String>,
    pub ttft: Option<String>,
    pub prefill: Option<String>,
    /// Time per output token by workload regime, one line each (empty when
    /// the file records none or the calibration is borrowed).
    pub tpot_by_regime: Vec<String>,
}

impl Calibration {
    pub fn bands(&self) -> ErrorBands {
        ErrorBands {
            tpot: self.band("tpot"),
            throughput: self.band("throughput"),
            ttft: self.band("ttft"),
            prefill: self.band("prefill"),
            tpot_by_regime: self.regime_bands("tpot"),
        }
    }
}

/// The embedded calibration for `gpu`: fitted on it or on its class, else
/// the joint fit's shared values (`calibrate::SHARED`). Returns the
/// id and, when it was fitted for another class, a note saying which class's
/// parameters are borrowed.
pub fn nearest_calibration(gpu: &Gpu) -> Option<(String, Option<String>)> {
    let mut best: Option<(u32, String, Option<String>)> = None;
    for f in presets::FILES
        .iter()
        .filter(|f| f.kind == Kind::Calibration)
    {
        let Ok(c) = CalibrationFile::parse(f.path, f.text) else {
            continue;
        };
        let (distance, note) = if c.gpus.contains(&gpu.id) {
            (0, None)
        } else if gpu.calibration_class.as_deref() == Some(c.class.as_str()) {
            (1, None)
        } else if c.class == crate::calibrate::SHARED {
            (
                2,
                Some(format!(
                    "no calibration fitted for {}'s class ({}): the joint fit's shared values are borrowed",
                    gpu.id,
                    gpu.calibration_class.as_deref().unwrap_or("none")
                )),
            )
        } else {
            continue;
        };
        if best.as_ref().is_none_or(|b| distance < b.0) {
            best = Some((distance, c.id, note));
        }
    }
    best.map(|(_, id, note)| (id, note))
}

pub fn load_calibration(world: &dyn World, name: &str) -> Result<Calibration> {
    if name == "none" {
        return Ok(Calibration::none());
    }
    let (origin, text) = load_text(world, Kind::Calibration, name)?;
    let file = CalibrationFile::parse(&origin, &text)?;
    Ok(Calibration {
        id: if is_path(name) {
            name.to_string()
        } else {
            file.id.clone()
        },
        params: file.params,
        transferred: None,
        file: Some(file),
        fitted_on_releases: None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::calibrate::Regime;

    /// A calibration whose file records a class-wide TPOT band of 10 / 20 %
    /// and, in the batched long-context regime, `figures` figures at 4 / 8 %.
    fn calibration(figures: f64, transferred: bool) -> Calibration {
        let mut fit = std::collections::BTreeMap::new();
        for (k, v) in [
            ("runs", 3.0),
            ("loo_tpot_median_abs_pct", 10.0),
            ("loo_tpot_p90_abs_pct", 20.0),
            ("loo_tpot_batched-long_figures", figures),
            ("loo_tpot_batched-long_median_abs_pct", 4.0),
            ("loo_tpot_batched-long_p90_abs_pct", 8.0),
            ("transfer_tpot_median_abs_pct", 30.0),
            ("transfer_tpot_p90_abs_pct", 40.0),
        ] {
            fit.insert(k.to_string(), v);
        }
        Calibration {
            id: "x".into(),
            params: TimingParams::FIRST_PRINCIPLES,
            transferred: transferred.then(|| "borrowed".to_string()),
            file: Some(CalibrationFile {
                id: "x".into(),
                class: "x".into(),
                gpus: Vec::new(),
                vllm_versions: Vec::new(),
                description: String::new(),
                fitted_on: Vec::new(),
                runs: Vec::new(),
                command: String::new(),
                params: TimingParams::FIRST_PRINCIPLES,
                fit,
            }),
            fitted_on_releases: None,
        }
    }

    #[test]
    fn a_cell_takes_its_regimes_band_only_when_the_regime_has_enough_figures() {
        let c = calibration(5.0, false);
        let b = c.cell_bands(8, 65_536).unwrap();
        assert_eq!(b.regime, Regime::BatchedLong);
        let t = b.tpot.unwrap();
        assert_eq!((t.median_abs_pct, t.p90_abs_pct), (4.0, 8.0));
        assert_eq!(t.regime, Some(Regime::BatchedLong));
        // Another regime, and the same one with too few figures: class-wide.
        let t = c.cell_bands(1, 65_536).unwrap().tpot.unwrap();
        assert_eq!((t.median_abs_pct, t.regime), (10.0, None));
        let t = calibration(4.0, false)
            .cell_bands(8, 65_536)
            .unwrap()
            .tpot
            .unwrap();
        assert_eq!((t.median_abs_pct, t.regime), (10.0, None));
        // Borrowed: the leave-class-out figures.
        let t = calibration(5.0, true)
            .cell_bands(8, 65_536)
            .unwrap()
            .tpot
            .unwrap();
        assert_eq!(
            (t.median_abs_pct, t.p90_abs_pct, t.borrowed),
            (30.0, 40.0, true)
        );
        // No cross-validated file: no band.
        assert_eq!(Calibration::none().cell_bands(8, 65_536), None);
    }

    #[test]
    fn regimes_split_at_one_request_and_eight_thousand_tokens() {
        assert_eq!(Regime::of(1, 8191), Regime::Batch1Short);
        assert_eq!(Regime::of(1, 8192), Regime::Batch1Long);
        assert_eq!(Regime::of(2, 0), Regime::BatchedShort);
        assert_eq!(Regime::of(64, 131_072), Regime::BatchedLong);
    }
}
