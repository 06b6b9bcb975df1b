//! Ranking configurations for a workload: every GPU x tensor-parallel size x
//! KV dtype that serves it (all requests run, the harness would run the cell,
//! the speed target is met), sorted by cost per million output tokens.

use crate::dtype::KvCacheDtype;
use crate::engine::{EngineSettings, HarnessSettings, TokenCount};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::matrix::{Phase, Predictor};
use crate::parse;
use crate::presets::{self, Kind, LoadedModel};
use crate::scenario::{
    load_calibration, load_gpu, nearest_calibration, Calibration, NoFiles, Plan, World,
};
use serde::{Deserialize, Serialize};

/// A price list (`data/prices/*.toml`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::rank))]
#[serde(deny_unknown_fields)]
pub struct Prices {
    pub source: String,
    pub date: String,
    pub usd_per_hour: GpuPrices,
}

/// USD per GPU-hour by GPU preset id, in the file's order: a table of a few
/// dozen rows looked up by id. A list of pairs rather than a map type of
/// its own, so the page links no second B-tree beside serde_json's.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "bake", derive(decodecalc_bake::Bake), bake(path = crate::rank))]
pub struct GpuPrices(pub(crate) Vec<(String, f64)>);

impl GpuPrices {
    pub fn get(&self, gpu: &str) -> Option<&f64> {
        self.0.iter().find(|(g, _)| g == gpu).map(|(_, usd)| usd)
    }

    pub fn contains_key(&self, gpu: &str) -> bool {
        self.get(gpu).is_some()
    }

    /// Set `gpu`'s price, replacing the one it had.
    pub fn insert(&mut self, gpu: String, usd: f64) {
        match self.0.iter_mut().find(|(g, _)| *g == gpu) {
            Some((_, old)) => *old = usd,
            None => self.0.push((gpu, usd)),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &f64)> {
        self.0.iter().map(|(g, usd)| (g, usd))
    }
}

impl<'de> Deserialize<'de> for GpuPrices {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Table;
        impl<'de> serde::de::Visitor<'de> for Table {
            type Value = GpuPrices;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table of GPU = USD per hour")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut rows: A,
            ) -> std::result::Result<GpuPrices, A::Error> {
                let mut prices = GpuPrices::default();
                while let Some((gpu, usd)) = rows.next_entry::<String, f64>()? {
                    prices.insert(gpu, usd);
                }
                Ok(prices)
            }
        }
        d.deserialize_map(Table)
    }
}

impl Serialize for GpuPrices {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

/// What a GPU-hour may cost: above zero and at most 1,000 USD (every cloud
/// list price is far inside; a typo such as 1e308 is not).
const PRICE_RANGE: &str =
    "a price in USD per GPU-hour above 0 and at most 1000, such as rtx4090=0.40";

fn plausible_price(v: f64) -> bool {
    v.is_finite() && v > 0.0 && v <= 1000.0
}

impl Prices {
    pub fn parse(origin: &str, text: &str) -> Result<Prices> {
        let p: Prices = parse::toml(origin, text)?;
        for (gpu, v) in p.usd_per_hour.iter() {
            if !plausible_price(*v) {
                return Err(Error::field(
                    crate::Subject::in_file(origin, format!("usd_per_hour.{gpu}")),
                    v,
                    PRICE_RANGE,
                ));
            }
        }
        Ok(p)
    }

    /// The embedded price list.
    pub fn embedded() -> Result<Prices> {
        presets::read(presets::find(Kind::Prices, "on-demand")?)
    }

    /// Apply `GPU=USD_PER_HOUR` overrides.
    pub fn with_overrides(mut self, overrides: &[String]) -> Result<Prices> {
        for o in overrides {
            let (gpu, usd) = o.split_once('=').ok_or_else(|| {
                Error::field("--price", o, "GPU=USD_PER_HOUR, such as rtx4090=0.40")
            })?;
            let usd = crate::units::parse_f64(usd)
                .filter(|v: &f64| plausible_price(*v))
                .ok_or_else(|| Error::field("--price", o, PRICE_RANGE))?;
            presets::find(Kind::Gpu, gpu.trim())?;
            self.usd_per_hour.insert(gpu.trim().to_string(), usd);
        }
        Ok(self)
    }
}

/// What the configurations must serve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Workload {
    pub context_tokens: u64,
    pub concurrency: u64,
    pub min_per_request_tok_s: Option<f64>,
}

/// One configuration that serves the workload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ranked {
    /// The vLLM release modelled.
    pub vllm_version: String,
    pub gpu: String,
    pub tensor_parallel_size: u64,
    pub kv_cache_dtype: &'static str,
    pub total_tok_s: f64,
    pub per_request_tok_s: f64,
    pub tok_s_per_watt: f64,
    /// Total tok/s over the GPUs it takes: what ranks the configurations
    /// without a price.
    pub tok_s_per_gpu: f64,
    /// For all the GPUs of the configuration; None when the price list has
    /// no price for the GPU (`--price GPU=USD_PER_HOUR` gives one).
    pub usd_per_hour: Option<f64>,
    pub usd_per_million_output_tokens: Option<f64>,
    pub calibration: String,
}

/// The KV dtypes a ranking tries: each distinct storage layout once.
pub const RANKED_KV_DTYPES: [KvCacheDtype; 5] = [
    KvCacheDtype::Auto,
    KvCacheDtype::Fp8,
    KvCacheDtype::Fp8PerTokenHead,
    KvCacheDtype::Int8PerTokenHead,
    KvCacheDtype::Int4PerTokenHead,
];

/// The configurations a ranking or a sweep visits.
#[derive(Clone, Copy, Debug)]
pub struct Sweep<'a> {
    pub model: &'a LoadedModel,
    pub gpus: &'a [Gpu],
    pub tps: &'a [u64],
    pub dtypes: &'a [KvCacheDtype],
    /// Any other engine flags.
    pub engine: &'a EngineSettings,
    pub harness: &'a HarnessSettings,
    /// The draft model of `--speculative-config` (`method: draft_model`),
    /// loaded once for the sweep.
    pub drafter: Option<&'a LoadedModel>,
}

impl Sweep<'_> {
    /// Every plan of the sweep that vLLM would start, with its GPU's price
    /// per hour (None when the price list lacks the GPU).
    pub fn plans(
        &self,
        prices: Option<&Prices>,
        need_tokens: Option<u64>,
    ) -> Result<Vec<(Plan, Option<f64>)>> {
        let mut out = Vec::new();
        for gpu in self.gpus {
            // A GPU vLLM cannot run the model's attention on is no candidate.
            if crate::allocator::check_dsv4_gpu(&self.model.model, gpu).is_err() {
                continue;
            }
            let price = prices.and_then(|p| p.usd_per_hour.get(&gpu.id).copied());
            let calibration = match nearest_calibration(gpu) {
                Some((name, transferred)) => {
                    let mut c = load_calibration(&NoFiles, &name)?;
                    c.transferred = transferred;
                    c.measured_gpu = c.file.as_ref().is_some_and(|f| f.gpus.contains(&gpu.id));
                    c
                }
                None => Calibration::none(),
            };
            for &tp in self.tps {
                for &dtype in self.dtypes {
                    let mut settings = self.engine.clone();
                    settings.kv_cache_dtype = Some(dtype.name().to_string());
                    settings.tensor_parallel_size = Some(i64::try_from(tp).unwrap_or(i64::MAX));
                    if let (None, Some(need)) = (settings.max_model_len, need_tokens) {
                        settings.max_model_len = Some(i64::try_from(need).unwrap_or(i64::MAX));
                    }
                    let Ok(args) = settings
                        .resolve_for(self.model.model.max_position_embeddings, gpu)
                        .and_then(|a| {
                            a.for_model(&settings, &self.model.model, &crate::engine::plain)
                        })
                        .and_then(|mut a| {
                            if let (Some(sp), Some(d)) = (a.speculative.as_mut(), self.drafter) {
                                sp.attach_drafter(
                                    "--speculative-config",
                                    &self.model.model,
                                    |_| Ok(d.clone()),
                                )?;
                            }
                            Ok(a)
                        })
                    else {
                        continue;
                    };
                    let Ok(h) = self.harness.resolve(&args) else {
                        continue;
                    };
                    if let Ok(plan) = Plan::assemble(
                        self.model.clone(),
                        gpu.clone(),
                        args,
                        h,
                        calibration.clone(),
                    ) {
                        out.push((plan, price));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The tensor-parallel sizes a ranking tries unless told otherwise.
pub const RANKED_TP_SIZES: [u64; 4] = [1, 2, 4, 8];

/// A ranking as a face asks for it: the sweep is built here from the
/// request's parts, so the CLI and the web page sweep alike.
#[derive(Clone, Copy, Debug)]
pub struct Question<'a> {
    pub model: &'a LoadedModel,
    /// GPU presets or files to consider; None: the whole catalog.
    pub gpus: Option<&'a [String]>,
    /// Tensor-parallel sizes to consider ([`RANKED_TP_SIZES`] by default).
    pub tps: &'a [u64],
    /// The engine flags: a `--kv-cache-dtype` among them is the only KV
    /// dtype tried (else every one of [`RANKED_KV_DTYPES`]), a
    /// `--tensor-parallel-size` is replaced by `tps`, the rest apply as given.
    pub engine: &'a EngineSettings,
    pub harness: &'a HarnessSettings,
    pub workload: Workload,
    /// `GPU=USD_PER_HOUR` overrides of the embedded price list.
    pub price_overrides: &'a [String],
}

/// A ranking's answer and the price list it used.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    pub prices: Prices,
    /// The priced configurations cheapest first, then the unpriced ones
    /// fastest per GPU first.
    pub ranked: Vec<Ranked>,
    /// GPUs of the sweep the price list has no price for: ranked after the
    /// priced ones, by tok/s per GPU (`--price GPU=USD_PER_HOUR` prices them).
    pub unpriced: Vec<String>,
    /// How the requests' prompts relate: distinct unless `--workload` says.
    pub prompts: crate::harness::Workload,
    /// Output tokens each request holds.
    pub max_tokens: u64,
    /// Configurations of the sweep vLLM would start: those not in `ranked`
    /// do not serve the workload (not every request runs at once, or too
    /// slowly for the speed target).
    pub considered: usize,
}

/// The GPUs of `gpus` without a price in `prices`.
fn unpriced(gpus: &[Gpu], prices: &Prices) -> Vec<String> {
    gpus.iter()
        .filter(|g| !prices.usd_per_hour.contains_key(&g.id))
        .map(|g| g.id.clone())
        .collect()
}

impl Question<'_> {
    /// Build the GPU x TP x KV dtype sweep (GPU files read through `world`)
    /// and rank it.
    pub fn answer(&self, world: &dyn World) -> Result<Ranking> {
        let gpus: Vec<Gpu> = match self.gpus {
            Some(list) => list
                .iter()
                .map(|g| load_gpu(world, g.trim()))
                .collect::<Result<_>>()?,
            None => presets::ids(Kind::Gpu)
                .map(presets::gpu)
                .collect::<Result<_>>()?,
        };
        let dtypes: Vec<KvCacheDtype> = match &self.engine.kv_cache_dtype {
            Some(d) => vec![KvCacheDtype::parse("--kv-cache-dtype", d)?],
            None => RANKED_KV_DTYPES.to_vec(),
        };
        let prices = Prices::embedded()?.with_overrides(self.price_overrides)?;
        let mut engine = self.engine.clone();
        engine.kv_cache_dtype = None;
        engine.tensor_parallel_size = None;
        // The draft model, once (`method: draft_model`).
        let drafter = match &engine.speculative_config {
            Some(text) => {
                let config =
                    crate::speculative::SpeculativeConfig::parse("--speculative-config", text)?;
                match (config.method, &config.model) {
                    (Some(crate::speculative::Method::DraftModel), Some(name)) => Some(
                        crate::scenario::load_model(world, name)
                            .map_err(|e| e.within("--speculative-config"))?,
                    ),
                    _ => None,
                }
            }
            None => None,
        };
        let sweep = Sweep {
            model: self.model,
            gpus: &gpus,
            tps: self.tps,
            dtypes: &dtypes,
            engine: &engine,
            harness: self.harness,
            drafter: drafter.as_ref(),
        };
        let (ranked, considered) = rank(&sweep, self.workload, &prices)?;
        Ok(Ranking {
            considered,
            unpriced: unpriced(&gpus, &prices),
            prices,
            ranked,
            prompts: rank_prompts(self.harness),
            max_tokens: self
                .harness
                .max_tokens
                .and_then(|t| u64::try_from(t).ok())
                .unwrap_or(crate::engine::harness_defaults::MAX_TOKENS),
        })
    }
}

/// The prompts a ranking assumes: distinct ones (every request its own, as
/// a service sees them) unless the harness settings name the workload.
pub fn rank_prompts(harness: &HarnessSettings) -> crate::harness::Workload {
    harness
        .workload
        .unwrap_or(crate::harness::Workload::Distinct)
}

/// Every configuration of the sweep that serves `workload`: the priced ones
/// cheapest per output token first (then fastest), then those whose GPU
/// has no price, fastest per GPU first. Without a max_model_len among the
/// engine flags, the workload's own need (context + max_tokens) is used.
/// Also returns how many configurations vLLM would start.
pub fn rank(sweep: &Sweep, workload: Workload, prices: &Prices) -> Result<(Vec<Ranked>, usize)> {
    let harness = HarnessSettings {
        contexts: Some(vec![TokenCount::Number(
            i64::try_from(workload.context_tokens).unwrap_or(i64::MAX),
        )]),
        concurrency: Some(vec![i64::try_from(workload.concurrency).unwrap_or(i64::MAX)]),
        prefill_contexts: Some(Vec::new()),
        workload: Some(rank_prompts(sweep.harness)),
        ..sweep.harness.clone()
    };
    let max_tokens = harness
        .max_tokens
        .and_then(|t| u64::try_from(t).ok())
        .unwrap_or(crate::engine::harness_defaults::MAX_TOKENS);
    let sweep = Sweep {
        harness: &harness,
        ..*sweep
    };
    let mut out: Vec<Ranked> = Vec::new();
    let mut considered = 0;
    for (plan, price) in sweep.plans(Some(prices), Some(workload.context_tokens + max_tokens))? {
        if let Some(r) = evaluate(&plan, workload, price, &mut considered)? {
            out.push(r);
        }
    }
    // Priced before unpriced; priced by cost, then speed; unpriced by
    // speed per GPU. A stable sort keeps the sweep's order on ties.
    out.sort_by(|a, b| {
        match (
            a.usd_per_million_output_tokens,
            b.usd_per_million_output_tokens,
        ) {
            (Some(x), Some(y)) => x
                .total_cmp(&y)
                .then(b.total_tok_s.total_cmp(&a.total_tok_s)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => b.tok_s_per_gpu.total_cmp(&a.tok_s_per_gpu),
        }
    });
    if out.is_empty() {
        return Err(Error::new(format!(
            "no configuration of the sweep serves {} requests at {} tokens",
            workload.concurrency, workload.context_tokens
        ))
        .with_hint(
            "lower the context or the concurrency, or allow more tensor parallelism (--tp 1,2,4,8)",
        ));
    }
    Ok((out, considered))
}

/// One configuration, if it serves the workload; `started` counts those
/// vLLM would start.
fn evaluate(
    plan: &Plan,
    w: Workload,
    usd_per_gpu_hour: Option<f64>,
    started: &mut usize,
) -> Result<Option<Ranked>> {
    // A setup vLLM refuses (DeepSeek-V4 with an int8 or int4 KV dtype,
    // say) never got here: engine resolution refused it (`Sweep::plans`).
    // A capacity error is the user's setting, which every configuration
    // shares: it is reported, not skipped.
    let cap = plan.capacity()?;
    if cap.startup_failure.is_some() {
        return Ok(None);
    }
    *started += 1;
    let p = Predictor::new(plan, &cap, plan.calibration.params)?;
    if !p
        .verdict(Phase::Decode, w.context_tokens, w.concurrency)
        .all_run(w.concurrency)
    {
        return Ok(None);
    }
    let t = p.decode_timing(w.context_tokens, w.concurrency, w.concurrency);
    if w.min_per_request_tok_s
        .is_some_and(|min| t.per_request_tok_s < min)
    {
        return Ok(None);
    }
    let tp = plan.engine.tensor_parallel_size as f64;
    let usd_per_hour = usd_per_gpu_hour.map(|usd| usd * tp);
    Ok(Some(Ranked {
        vllm_version: plan.engine.vllm_version.to_string(),
        gpu: plan.gpu.id.clone(),
        tensor_parallel_size: plan.engine.tensor_parallel_size,
        kv_cache_dtype: plan.engine.kv_cache_dtype.name(),
        total_tok_s: t.total_tok_s,
        per_request_tok_s: t.per_request_tok_s,
        tok_s_per_watt: t.total_tok_s / (plan.gpu.tdp_w * tp),
        tok_s_per_gpu: t.total_tok_s / tp,
        usd_per_hour,
        usd_per_million_output_tokens: usd_per_hour.map(|usd| usd / (t.total_tok_s * 3600.0) * 1e6),
        calibration: plan.calibration.label(),
    }))
}
