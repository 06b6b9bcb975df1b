//! `vllm bench serve`: its `--save-result` JSON as a measured run, and the
//! figures it prints as decodecalc predicts them
//! (docs/reference/vllm-bench-serve.md says what each figure means in vLLM
//! 0.32, `vllm/benchmarks/serve.py`).

use crate::error::{Error, JsonFormat, Result};
use decodecalc_core::scenario::{Capacity, Plan};
use decodecalc_core::serve::{Arrival, ServeResult, Workload};
use decodecalc_core::timing::{TimingParams, Work};
use serde::Serialize;
use serde_json::{Map, Value};

/// The keys every `--save-result` file has, from the oldest
/// `benchmark_serving.py` to 0.32.
pub const REQUIRED_KEYS: [&str; 5] = [
    "num_prompts",
    "completed",
    "duration",
    "total_input_tokens",
    "total_output_tokens",
];

/// A statistic as the file has it (ms), where it has it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct FileStats {
    pub mean_ms: Option<f64>,
    pub median_ms: Option<f64>,
    pub p99_ms: Option<f64>,
}

/// The longest `model_id` read from a result file (a repo id is at most
/// 96 characters on the Hub); a longer one is not a model id.
pub const MAX_MODEL_ID_CHARS: usize = 256;

/// What a `vllm bench serve --save-result` file says.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchResult {
    pub origin: String,
    /// The model the run served, as the file names it (`model_id`: a
    /// Hugging Face repo id), where it does and in at most
    /// [`MAX_MODEL_ID_CHARS`] characters.
    pub model_id: Option<String>,
    pub num_prompts: u64,
    pub completed: u64,
    pub max_concurrency: Option<u64>,
    /// Requests per second; None = inf (all at once).
    pub request_rate: Option<f64>,
    /// `burstiness`, where the file records it (from vLLM 0.7), else 1. The
    /// file does not record `--seed`; the tool's default, 0, is assumed.
    pub burstiness: f64,
    /// Mean prompt and output tokens per completed request.
    pub mean_input_tokens: f64,
    pub mean_output_tokens: f64,
    /// Whether the per-request lengths vary.
    pub lengths_vary: bool,
    /// Each successful request's (prompt, output) tokens, where the file has
    /// `input_lens` and `output_lens` (`--save-detailed`); then the run is
    /// replayed with them, else at the mean lengths.
    pub lengths: Vec<(u64, u64)>,
    pub duration_s: f64,
    pub request_throughput: Option<f64>,
    pub output_throughput: Option<f64>,
    pub ttft: FileStats,
    pub tpot: FileStats,
    pub itl: FileStats,
    pub e2el: FileStats,
}

impl BenchResult {
    /// The workload to replay: the file's request count, concurrency and
    /// rate, each request at the mean lengths.
    pub fn workload(&self) -> Workload {
        Workload {
            input_tokens: decodecalc_core::units::saturating_u64(self.mean_input_tokens.round())
                .max(1),
            output_tokens: decodecalc_core::units::saturating_u64(self.mean_output_tokens.round())
                .max(1),
            num_prompts: if self.lengths.is_empty() {
                self.completed.max(1)
            } else {
                self.lengths.len() as u64
            },
            arrival: Arrival::Serve {
                request_rate: self.request_rate,
                max_concurrency: self.max_concurrency,
                burstiness: self.burstiness,
                seed: decodecalc_core::serve::DEFAULT_SEED,
                pacing: decodecalc_core::arrivals::Pacing::Rescaled,
            },
        }
    }
}

fn not_ours(origin: &str, why: &str) -> Error {
    Error::Shape {
        origin: origin.to_string(),
        what: why.to_string(),
        format: JsonFormat::SaveResult,
    }
}

/// Parse a `--save-result` file. A truncated file, another tool's JSON or a
/// missing key each get an error naming the file and what is wrong.
pub fn parse(origin: &str, text: &str) -> Result<BenchResult> {
    let v = read_json(origin, text)?;
    let file = SaveResult {
        origin,
        obj: save_result_object(origin, &v)?,
    };
    let max_prompts = decodecalc_core::serve::MAX_PROMPTS;
    let num_prompts = file.need("num_prompts", max_prompts)?;
    let completed = file.need("completed", max_prompts)?;
    if completed == 0 {
        return Err(Error::NothingCompleted {
            origin: origin.to_string(),
        });
    }
    let total_in = file.need("total_input_tokens", 1 << 40)?;
    let total_out = file.need("total_output_tokens", 1 << 40)?;
    let lengths = file.lengths(max_prompts);
    let rate = match file.num("request_rate")? {
        None => None,
        Some(r) if r.is_infinite() => None,
        Some(r) if r > 0.0 => Some(r),
        Some(_) => None,
    };
    let mut e2el = file.stats("e2el")?;
    if e2el.mean_ms.is_none() {
        // benchmark_serving.py before 0.7 called it `latency`.
        e2el = file.stats("latency")?;
    }
    let model_id = file
        .obj
        .get("model_id")
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty() && m.chars().count() <= MAX_MODEL_ID_CHARS)
        .map(str::to_string);
    Ok(BenchResult {
        origin: origin.to_string(),
        model_id,
        num_prompts,
        completed,
        max_concurrency: file.count("max_concurrency", decodecalc_core::engine::MAX_CONCURRENCY)?,
        request_rate: rate,
        burstiness: file.burstiness()?,
        mean_input_tokens: total_in as f64 / completed as f64,
        mean_output_tokens: total_out as f64 / completed as f64,
        lengths_vary: file.lens_vary("input_lens") || file.lens_vary("output_lens"),
        lengths,
        duration_s: file.num("duration")?.unwrap_or(0.0),
        request_throughput: file.num("request_throughput")?,
        output_throughput: file.num("output_throughput")?,
        ttft: file.stats("ttft")?,
        tpot: file.stats("tpot")?,
        itl: file.stats("itl")?,
        e2el,
    })
}

/// The file as JSON; a truncated file says so.
fn read_json(origin: &str, text: &str) -> Result<Value> {
    decodecalc_core::parse::check_size(origin, text)?;
    serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|e| Error::Json {
        origin: origin.to_string(),
        line: e.line(),
        column: e.column(),
        reason: e.to_string(),
        truncated: e.is_eof(),
        format: JsonFormat::SaveResult,
    })
}

/// The top-level object, if it has every one of [`REQUIRED_KEYS`] and is
/// not a harness result.
fn save_result_object<'v>(origin: &str, v: &'v Value) -> Result<&'v Map<String, Value>> {
    let Some(obj) = v.as_object() else {
        return Err(not_ours(origin, "the top level is not an object"));
    };
    if obj.contains_key("results") || obj.contains_key("cells") {
        return Err(not_ours(
            origin,
            "it looks like a harness result (it has `results`)",
        ));
    }
    if let Some(k) = REQUIRED_KEYS.iter().find(|k| !obj.contains_key(**k)) {
        return Err(not_ours(origin, &format!("missing key `{k}`")));
    }
    Ok(obj)
}

/// The keys of a `--save-result` file named `origin`.
struct SaveResult<'a> {
    origin: &'a str,
    obj: &'a Map<String, Value>,
}

impl SaveResult<'_> {
    /// A non-negative number (`"inf"` is infinity), None where absent or null.
    fn num(&self, k: &str) -> Result<Option<f64>> {
        let origin = self.origin;
        match self.obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(x) if (0.0..1e15).contains(&x) => Ok(Some(x)),
                _ => Err(Error::field(
                    decodecalc_core::Subject::in_file(origin, k.to_string()),
                    n,
                    "a non-negative number",
                )),
            },
            Some(Value::String(s)) if s == "inf" => Ok(Some(f64::INFINITY)),
            Some(other) => Err(Error::field(
                decodecalc_core::Subject::in_file(origin, k.to_string()),
                other,
                "a number",
            )),
        }
    }

    /// A whole number up to `max`, None where absent or null.
    fn count(&self, k: &str, max: u64) -> Result<Option<u64>> {
        match self.num(k)? {
            None => Ok(None),
            Some(x) if x.fract() == 0.0 && x <= max as f64 => {
                Ok(Some(decodecalc_core::units::saturating_u64(x)))
            }
            Some(x) => Err(Error::field(
                decodecalc_core::Subject::in_file(self.origin, k.to_string()),
                x,
                format!("a whole number up to {max}"),
            )),
        }
    }

    /// A whole number up to `max` that the file must have.
    fn need(&self, k: &str, max: u64) -> Result<u64> {
        self.count(k, max)?
            .ok_or_else(|| not_ours(self.origin, &format!("`{k}` is null")))
    }

    /// An array of token counts, None unless every entry is one.
    fn array(&self, k: &str) -> Option<Vec<u64>> {
        self.obj
            .get(k)?
            .as_array()?
            .iter()
            .map(|x| x.as_u64().filter(|v| *v < 1 << 26))
            .collect()
    }

    /// Each successful request's (prompt, output) tokens, where the file
    /// has `input_lens` and `output_lens` of the same length (at most
    /// `max_prompts`); else none.
    fn lengths(&self, max_prompts: u64) -> Vec<(u64, u64)> {
        let errors: Option<Vec<bool>> = self.obj.get("errors").and_then(Value::as_array).map(|a| {
            a.iter()
                .map(|e| e.as_str().is_some_and(str::is_empty))
                .collect()
        });
        match (self.array("input_lens"), self.array("output_lens")) {
            (Some(i), Some(o)) if i.len() == o.len() && i.len() as u64 <= max_prompts => i
                .into_iter()
                .zip(o)
                .enumerate()
                .filter(|(k, (_, out))| {
                    *out > 0
                        && errors
                            .as_ref()
                            .is_none_or(|e| e.get(*k).copied().unwrap_or(true))
                })
                .map(|(_, l)| l)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether the array `k` has two different numbers.
    fn lens_vary(&self, k: &str) -> bool {
        self.obj
            .get(k)
            .and_then(Value::as_array)
            .map(|a| {
                let v: Vec<f64> = a.iter().filter_map(Value::as_f64).collect();
                v.iter().any(|x| v.first().is_some_and(|f| f != x))
            })
            .unwrap_or(false)
    }

    /// `mean_{m}_ms`, `median_{m}_ms` and `p99_{m}_ms`.
    fn stats(&self, m: &str) -> Result<FileStats> {
        Ok(FileStats {
            mean_ms: self.num(&format!("mean_{m}_ms"))?,
            median_ms: self.num(&format!("median_{m}_ms"))?,
            p99_ms: self.num(&format!("p99_{m}_ms"))?,
        })
    }

    /// `burstiness`, 1 where the file has none.
    fn burstiness(&self) -> Result<f64> {
        match self.num("burstiness")? {
            Some(b) if b > 0.0 && b <= decodecalc_core::arrivals::MAX_BURSTINESS => Ok(b),
            Some(b) => Err(Error::field(
                decodecalc_core::Subject::in_file(self.origin, "burstiness"),
                b,
                "a positive number (1 = Poisson arrivals)",
            )),
            None => Ok(decodecalc_core::serve::DEFAULT_BURSTINESS),
        }
    }
}

/// The engine's running limit for a workload: `max_num_seqs`, and the
/// client's concurrency. The KV cache's limit is the simulation's, step by
/// step (`Work::kv`): vLLM admits a request while its tokens have blocks
/// and preempts the last admitted when the running ones grow past the pool,
/// rather than holding each request's final length from the start.
pub fn max_running(plan: &Plan, w: &Workload) -> u64 {
    let concurrency = match w.arrival {
        Arrival::Serve {
            max_concurrency: Some(c),
            ..
        } => c,
        _ => w.num_prompts,
    };
    concurrency
        .min(decodecalc_core::engine::MAX_CONCURRENCY)
        .min(plan.engine.max_num_seqs)
        .max(1)
}

/// Whether a text is a `vllm bench serve --save-result` JSON rather than
/// the harness's `benchmark_results.json` (which has `results`).
pub fn is_save_result(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    t.starts_with('{') && t.contains("\"completed\"") && !t.contains("\"results\"")
}

/// A benchmark on `plan` as both faces ask for it: `w` paced as the
/// plan's release's client paces arrivals, with a `--save-result` file's
/// request lengths where one is given, and each figure the file has beside
/// its prediction. Returns the workload as run, the prediction and the
/// comparison (empty without a file).
pub fn predict_run(
    plan: &Plan,
    cap: &Capacity,
    w: &Workload,
    measured: Option<&BenchResult>,
) -> Result<(Workload, ServeResult, Vec<FigureComparison>)> {
    let w = Workload {
        arrival: w.arrival.for_release(plan.engine.vllm_version),
        ..*w
    };
    let lengths = measured.map_or(&[][..], |m| m.lengths.as_slice());
    let predicted = predict_lengths(plan, cap, &plan.calibration.params, &w, lengths)?;
    let comparison = measured.map_or_else(Vec::new, |m| compare(m, &predicted));
    Ok((w, predicted, comparison))
}

/// What `vllm bench serve` would print for `w` on `plan`.
pub fn predict(
    plan: &Plan,
    cap: &Capacity,
    params: &TimingParams,
    w: &Workload,
) -> Result<ServeResult> {
    predict_lengths(plan, cap, params, w, &[])
}

/// [`predict`] with each request's own lengths (`serve::simulate_lengths`).
pub fn predict_lengths(
    plan: &Plan,
    cap: &Capacity,
    params: &TimingParams,
    w: &Workload,
    lengths: &[(u64, u64)],
) -> Result<ServeResult> {
    if let Some(e) = cap.startup_error() {
        return Err(e.into());
    }
    // Every request's prompt and output within max_model_len, as the server
    // requires of each.
    for &(input, output) in lengths
        .iter()
        .chain(std::iter::once(&(w.input_tokens, w.output_tokens)))
    {
        decodecalc_core::harness::check_model_len(
            "--random-input-len",
            input,
            output,
            plan.engine.max_model_len_tokens,
        )?;
    }
    let work = Work::of_plan(plan, cap);
    Ok(decodecalc_core::serve::simulate_lengths(
        &work,
        params,
        w,
        lengths,
        max_running(plan, w),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_foreign_and_incomplete_files_are_named() {
        let e = parse("r.json", "{\"num_prompts\": 10, \"compl").unwrap_err();
        assert!(
            matches!(&e, Error::Json { origin, line: 1, truncated: true, format: JsonFormat::SaveResult, .. } if origin == "r.json"),
            "{e:?}"
        );
        assert!(e.to_string().contains("truncated"), "{e}");
        let shape = |origin: &str, text: &str| match parse(origin, text).unwrap_err() {
            Error::Shape {
                what,
                format: JsonFormat::SaveResult,
                ..
            } => what,
            e => panic!("{e:?}"),
        };
        assert!(shape("h.json", "{\"results\": []}").contains("harness"));
        assert_eq!(
            shape("m.json", "{\"num_prompts\": 10, \"completed\": 10, \"duration\": 1.0, \"total_input_tokens\": 100}"),
            "missing key `total_output_tokens`"
        );
        assert_eq!(shape("a.json", "[1, 2]"), "the top level is not an object");
    }

    #[test]
    fn a_summary_file_gives_its_workload() {
        let text = r#"{"num_prompts": 500, "completed": 500, "duration": 11.06,
            "request_rate": "inf", "max_concurrency": 32,
            "total_input_tokens": 1023101, "total_output_tokens": 31091,
            "output_throughput": 2810.07, "mean_tpot_ms": 7.87, "median_itl_ms": 7.31}"#;
        let r = parse("d.json", text).unwrap();
        let w = r.workload();
        // 1,023,101 / 500 = 2,046.2 -> 2,046; 31,091 / 500 = 62.2 -> 62.
        assert_eq!(
            (w.input_tokens, w.output_tokens, w.num_prompts),
            (2046, 62, 500)
        );
        assert_eq!(w.arrival, Arrival::serve(None, Some(32)));
        assert_eq!(r.tpot.mean_ms, Some(7.87));
        assert_eq!(r.itl.median_ms, Some(7.31));
    }
}

/// One figure of a `--save-result` file beside its prediction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FigureComparison {
    pub figure: &'static str,
    pub measured: f64,
    pub predicted: f64,
    pub error_pct: f64,
}

/// Every figure the file has that decodecalc predicts, measured vs predicted.
pub fn compare(measured: &BenchResult, predicted: &ServeResult) -> Vec<FigureComparison> {
    let p = predicted;
    let pairs: [(&'static str, Option<f64>, f64); 14] = [
        (
            "request_throughput",
            measured.request_throughput,
            p.request_throughput,
        ),
        (
            "output_throughput",
            measured.output_throughput,
            p.output_throughput,
        ),
        ("mean_ttft_ms", measured.ttft.mean_ms, p.ttft.mean_ms),
        ("median_ttft_ms", measured.ttft.median_ms, p.ttft.median_ms),
        ("p99_ttft_ms", measured.ttft.p99_ms, p.ttft.p99_ms),
        ("mean_tpot_ms", measured.tpot.mean_ms, p.tpot.mean_ms),
        ("median_tpot_ms", measured.tpot.median_ms, p.tpot.median_ms),
        ("p99_tpot_ms", measured.tpot.p99_ms, p.tpot.p99_ms),
        ("mean_itl_ms", measured.itl.mean_ms, p.itl.mean_ms),
        ("median_itl_ms", measured.itl.median_ms, p.itl.median_ms),
        ("p99_itl_ms", measured.itl.p99_ms, p.itl.p99_ms),
        ("mean_e2el_ms", measured.e2el.mean_ms, p.e2el.mean_ms),
        ("median_e2el_ms", measured.e2el.median_ms, p.e2el.median_ms),
        ("p99_e2el_ms", measured.e2el.p99_ms, p.e2el.p99_ms),
    ];
    pairs
        .into_iter()
        .filter_map(|(figure, m, predicted)| {
            let measured = m.filter(|m| *m > 0.0 && m.is_finite())?;
            Some(FigureComparison {
                figure,
                measured,
                predicted,
                error_pct: (predicted / measured - 1.0) * 100.0,
            })
        })
        .collect()
}
