//! Calibration files (`data/calibrations/*.toml`) and the error bands they carry.

use super::*;
use crate::bands::{Figure, HoldOut, Regime};

/// The id and class of the shared-values calibration: what a GPU class
/// without runs of its own uses.
pub const SHARED: &str = "shared";

/// A calibration file (`data/calibrations/*.toml`), as `decodecalc calibrate` writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::scenario))]
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
    /// How many of those runs served a mixture-of-experts model. With none,
    /// its timing is dense models' ([`crate::Warning::MoeFittedOnDenseRuns`]
    /// says so beside a MoE model's prediction); a file without the field
    /// counts as none.
    #[serde(default)]
    pub moe_runs: u32,
    /// The command that produced it.
    pub command: String,
    /// The parameters a release of the V1 engine (0.8.0 on) uses: the
    /// class's GPU-scope values with V1's engine-scope ones.
    pub params: TimingParams,
    /// What the fit found for a release of the V0 engine (before 0.8.0):
    /// the same GPU-scope values with V0's engine-scope ones
    /// (`timing::EngineGeneration`). No release a prediction takes is V0
    /// (`--vllm-version` starts at 0.10.0); it records what the corpus's V0
    /// runs were fitted with. Absent where the fit had no V0 run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v0_params: Option<TimingParams>,
    /// What the fit measured of itself: in-sample errors, and the error
    /// bands of predictions that held out a model family, a GPU or a class
    /// (`bands::FitSummary`).
    #[serde(default)]
    pub fit: crate::bands::FitSummary,
}

impl CalibrationFile {
    pub fn parse(origin: &str, text: &str) -> Result<CalibrationFile> {
        let file: CalibrationFile = parse::toml(origin, text)?;
        file.params.validate(origin)?;
        if let Some(p) = &file.v0_params {
            p.validate(&format!("{origin}: [v0_params]"))?;
        }
        if file.class != SHARED && crate::gpu::class_distance(&file.class, &file.class).is_none() {
            let names: Vec<&str> = crate::gpu::CALIBRATION_CLASSES
                .iter()
                .map(|x| x.0)
                .collect();
            return Err(Error::field(
                crate::Subject::in_file(origin, "class"),
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
    /// Whether the file's runs include the GPU predicted (set where the
    /// calibration is chosen for a GPU): a prediction there is a new model
    /// on a measured GPU, elsewhere a GPU the fit never saw.
    pub measured_gpu: bool,
    /// For a mixture-of-experts model timed with a file fitted on no MoE
    /// run (set where the plan is resolved): the bands of the MoE serving
    /// runs no fit saw ([`HoldOut::UnfittedMoeRuns`]), which the joint
    /// fit's shared file holds for every class. Empty otherwise.
    #[serde(skip)]
    pub moe_bands: Vec<crate::bands::BandRecord>,
    /// For a prediction with speculative decoding (set where the plan is
    /// resolved): which of [`crate::bands::SPECULATIVE_BANDS`] band its
    /// decode figures ([`Calibration::band_speculative`]).
    #[serde(skip)]
    pub spec_hold_out: Option<HoldOut>,
}

impl Calibration {
    pub fn none() -> Calibration {
        Calibration {
            id: "none".to_string(),
            params: TimingParams::FIRST_PRINCIPLES,
            transferred: None,
            file: None,
            fitted_on_releases: None,
            measured_gpu: false,
            moe_bands: Vec::new(),
            spec_hold_out: None,
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
}

/// One figure's held-out error band for a prediction: absolute errors, %,
/// what the predictions it was measured on held out, and the workload
/// regime (None: over every regime, because the prediction's regime had
/// fewer than [`crate::bands::MIN_REGIME_FIGURES`] figures).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Band {
    pub median_abs_pct: f64,
    pub p90_abs_pct: f64,
    pub figures: u32,
    pub hold_out: HoldOut,
    pub regime: Option<Regime>,
    /// The figure whose errors these are: the one asked for, but for
    /// throughput under [`HoldOut::UnfittedMoeRuns`], whose runs publish
    /// none, time per output token's (a cell's throughput is its running
    /// requests over its time between tokens, so it is off by as much).
    pub measured_as: Figure,
}

/// The bands of one cell's figures, from its regime.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CellBands {
    pub regime: Regime,
    pub tpot: Option<Band>,
    pub throughput: Option<Band>,
    pub ttft: Option<Band>,
}

/// The error bands a prediction's figures carry, over every regime, and
/// time per output token by regime; the calibration they come from. Empty
/// for `--calibration none` or a file fitted without cross-validation.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ErrorBands {
    /// The calibration's class, and its runs.
    pub class: Option<String>,
    /// What every band here held out ([`Calibration::hold_out`]).
    pub hold_out: Option<HoldOut>,
    pub runs: u32,
    pub tpot: Option<Band>,
    pub throughput: Option<Band>,
    pub ttft: Option<Band>,
    pub prefill: Option<Band>,
    pub tpot_by_regime: Vec<Band>,
}

impl Calibration {
    /// What the bands of a prediction with this calibration held out: for
    /// a mixture-of-experts model and a file fitted on no MoE run, the MoE
    /// serving runs no fit saw (the file's cross-validations held out dense
    /// models only); else the class for borrowed shared values, a model
    /// family on a GPU the fit measured, the GPU on another GPU of its
    /// class; a file without that hold-out gives the first it has (a
    /// one-run fit's leave-cell-out).
    pub fn hold_out(&self) -> Option<HoldOut> {
        let f = self.file.as_ref()?;
        if self.moe_bands_stand_in() {
            return Some(HoldOut::UnfittedMoeRuns);
        }
        let have = f.fit.hold_outs();
        let want = if self.transferred.is_some() {
            HoldOut::LeaveClassOut
        } else if self.measured_gpu {
            HoldOut::LeaveFamilyOut
        } else {
            HoldOut::LeaveGpuOut
        };
        if have.contains(&want) {
            Some(want)
        } else {
            have.first().copied()
        }
    }

    /// For a mixture-of-experts model named `model`: with a file fitted on
    /// no MoE run, take the bands of the MoE serving runs no fit saw, which
    /// band every class from the shared file
    /// (`decodecalc_fit::calibration_files`), and say so.
    pub fn band_a_moe_model(&mut self, world: &dyn World, model: &str) -> Option<crate::Warning> {
        if self.file.as_ref().is_none_or(|f| f.moe_runs != 0) {
            return None;
        }
        self.moe_bands = load_calibration(world, SHARED)
            .ok()
            .and_then(|c| c.file)
            .map(|f| f.fit.bands)
            .unwrap_or_default()
            .into_iter()
            .filter(|b| b.hold_out == HoldOut::UnfittedMoeRuns)
            .collect();
        Some(crate::Warning::MoeFittedOnDenseRuns {
            model: model.to_string(),
            calibration: self.id.clone(),
            moe_bands: self.moe_bands_stand_in(),
        })
    }

    /// For a prediction with speculative decoding on a GPU of calibration
    /// class `class`: its decode figures take the published speculative
    /// runs' bands, leave one run out where the class has runs of its own
    /// (`timing::class_pass_overhead`), else with the pass overhead from
    /// other classes.
    pub fn band_speculative(&mut self, class: &str) {
        self.spec_hold_out = Some(if crate::timing::class_pass_overhead(class).is_some() {
            HoldOut::SpeculativeRuns
        } else {
            HoldOut::SpeculativeClassOut
        });
    }

    /// The speculative runs' band of `figure`, when the prediction
    /// speculates and the runs measured that figure.
    fn speculative_band(&self, figure: Figure) -> Option<Band> {
        let hold_out = self.spec_hold_out?;
        let b = crate::bands::find(&crate::bands::SPECULATIVE_BANDS, figure, hold_out, None)?;
        Some(band_of(b, hold_out, figure))
    }

    /// Whether this prediction's bands are the MoE serving runs no fit saw
    /// ([`Calibration::moe_bands`] set, beside a file of its own).
    pub fn moe_bands_stand_in(&self) -> bool {
        self.file.is_some() && !self.moe_bands.is_empty()
    }

    /// The record of `figure` under `hold_out` in `regime`: the MoE bands'
    /// for [`HoldOut::UnfittedMoeRuns`], else the file's.
    fn record(
        &self,
        figure: Figure,
        hold_out: HoldOut,
        regime: Option<Regime>,
    ) -> Option<&crate::bands::BandRecord> {
        let records = if hold_out == HoldOut::UnfittedMoeRuns {
            &self.moe_bands
        } else {
            &self.file.as_ref()?.fit.bands
        };
        crate::bands::find(records, figure, hold_out, regime)
    }

    /// The band of `figure` for a prediction in `regime` (None: over every
    /// regime): the regime's own where it has enough figures, else the
    /// figure's over every regime.
    pub fn band_in(&self, figure: Figure, regime: Option<Regime>) -> Option<Band> {
        if let Some(b) = self.speculative_band(figure) {
            return Some(b);
        }
        let hold_out = self.hold_out()?;
        let figure = match figure {
            Figure::Throughput
                if hold_out == HoldOut::UnfittedMoeRuns
                    && self.record(figure, hold_out, None).is_none() =>
            {
                Figure::Tpot
            }
            _ => figure,
        };
        let own = regime
            .and_then(|r| self.record(figure, hold_out, Some(r)))
            .filter(|b| b.stats.figures >= crate::bands::MIN_REGIME_FIGURES);
        let b = match own {
            Some(b) => b,
            None => self.record(figure, hold_out, None)?,
        };
        Some(band_of(b, hold_out, figure))
    }

    /// The bands of a cell with `concurrency` requests over `context_tokens`.
    pub fn cell_bands(&self, concurrency: u64, context_tokens: u64) -> Option<CellBands> {
        let regime = Regime::of(concurrency, context_tokens);
        let tpot = self.band_in(Figure::Tpot, Some(regime));
        let throughput = self.band_in(Figure::Throughput, Some(regime));
        let ttft = self.band_in(Figure::Ttft, Some(regime));
        (tpot.is_some() || throughput.is_some() || ttft.is_some()).then_some(CellBands {
            regime,
            tpot,
            throughput,
            ttft,
        })
    }

    pub fn bands(&self) -> ErrorBands {
        let Some(f) = &self.file else {
            return ErrorBands::default();
        };
        let tpot_by_regime = match self.hold_out().filter(|_| self.spec_hold_out.is_none()) {
            Some(h) => Regime::ALL
                .iter()
                .filter(|r| {
                    self.record(Figure::Tpot, h, Some(**r))
                        .is_some_and(|b| b.stats.figures >= crate::bands::MIN_REGIME_FIGURES)
                })
                .filter_map(|r| self.band_in(Figure::Tpot, Some(*r)))
                .collect(),
            None => Vec::new(),
        };
        ErrorBands {
            class: Some(f.class.clone()),
            hold_out: self.hold_out(),
            runs: f.fit.runs,
            tpot: self.band_in(Figure::Tpot, None),
            throughput: self.band_in(Figure::Throughput, None),
            ttft: self.band_in(Figure::Ttft, None),
            prefill: self.band_in(Figure::Prefill, None),
            tpot_by_regime,
        }
    }
}

/// The band a prediction shows from record `b`, measured under `hold_out`
/// as `measured_as`.
fn band_of(b: &crate::bands::BandRecord, hold_out: HoldOut, measured_as: Figure) -> Band {
    Band {
        median_abs_pct: b.stats.median_abs_pct,
        p90_abs_pct: b.stats.p90_abs_pct,
        figures: b.stats.figures,
        hold_out,
        regime: b.regime,
        measured_as,
    }
}

/// The embedded calibration for `gpu`: fitted on it or on its class, else
/// the joint fit's shared values ([`SHARED`]). Returns the
/// id and, when it was fitted for another class, a note saying which class's
/// parameters are borrowed.
pub fn nearest_calibration(gpu: &Gpu) -> Option<(String, Option<String>)> {
    let mut best: Option<(u32, String, Option<String>)> = None;
    for f in presets::FILES
        .iter()
        .filter(|f| f.kind == Kind::Calibration)
    {
        let Ok(c) = presets::read::<CalibrationFile>(f) else {
            continue;
        };
        let (distance, note) = if c.gpus.contains(&gpu.id) {
            (0, None)
        } else if gpu.calibration_class() == c.class {
            (1, None)
        } else if c.class == SHARED {
            (
                2,
                Some(format!(
                    "no calibration fitted for {}'s class ({}): the joint fit's shared values are borrowed",
                    gpu.id,
                    gpu.calibration_class()
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
    let (_, file) = load::<CalibrationFile>(world, name)?;
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
        measured_gpu: false,
        moe_bands: Vec::new(),
        spec_hold_out: None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// A calibration whose file records a leave-GPU-out TPOT band of 10 /
    /// 20 % over every regime and, in the batched long-context regime,
    /// `figures` figures at 4 / 8 %, and a leave-class-out one of 30 / 40 %.
    fn calibration(figures: u32, transferred: bool) -> Calibration {
        use crate::bands::{BandRecord, ErrorStats, FitSummary};
        let band = |hold_out, regime, figures, m, p| BandRecord {
            figure: Figure::Tpot,
            hold_out,
            regime,
            stats: ErrorStats {
                figures,
                mape_pct: m,
                median_abs_pct: m,
                p90_abs_pct: p,
            },
        };
        let fit = FitSummary {
            runs: 3,
            figures: 12,
            in_sample: Vec::new(),
            bands: vec![
                band(HoldOut::LeaveGpuOut, None, 12, 10.0, 20.0),
                band(
                    HoldOut::LeaveGpuOut,
                    Some(Regime::BatchedLong),
                    figures,
                    4.0,
                    8.0,
                ),
                band(HoldOut::LeaveClassOut, None, 12, 30.0, 40.0),
            ],
        };
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
                moe_runs: 0,
                command: String::new(),
                params: TimingParams::FIRST_PRINCIPLES,
                v0_params: None,
                fit,
            }),
            fitted_on_releases: None,
            measured_gpu: false,
            moe_bands: Vec::new(),
            spec_hold_out: None,
        }
    }

    #[test]
    fn a_cell_takes_its_regimes_band_only_when_the_regime_has_enough_figures() {
        let c = calibration(5, false);
        let b = c.cell_bands(8, 65_536).unwrap();
        assert_eq!(b.regime, Regime::BatchedLong);
        let t = b.tpot.unwrap();
        assert_eq!((t.median_abs_pct, t.p90_abs_pct), (4.0, 8.0));
        assert_eq!(
            (t.regime, t.hold_out),
            (Some(Regime::BatchedLong), HoldOut::LeaveGpuOut)
        );
        // Another regime, and the same one with too few figures: every regime's.
        let t = c.cell_bands(1, 65_536).unwrap().tpot.unwrap();
        assert_eq!((t.median_abs_pct, t.regime), (10.0, None));
        let t = calibration(4, false)
            .cell_bands(8, 65_536)
            .unwrap()
            .tpot
            .unwrap();
        assert_eq!((t.median_abs_pct, t.regime), (10.0, None));
        // Borrowed: the leave-class-out figures.
        let t = calibration(5, true)
            .cell_bands(8, 65_536)
            .unwrap()
            .tpot
            .unwrap();
        assert_eq!(
            (t.median_abs_pct, t.p90_abs_pct, t.hold_out),
            (30.0, 40.0, HoldOut::LeaveClassOut)
        );
        // A measured GPU asks for leave-family-out, which this file lacks:
        // the first hold-out it has stands in.
        let mut m = calibration(5, false);
        m.measured_gpu = true;
        assert_eq!(m.hold_out(), Some(HoldOut::LeaveGpuOut));
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
