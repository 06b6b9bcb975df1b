//! A serving run's requests: how they reach the engine ([`Arrival`]: a
//! `vllm bench serve` client or one offline call), their lengths and count
//! ([`Workload`]), and the bounds they are checked against.

use super::{MAX_OUTPUT_TOKENS, MAX_PROMPTS};
use crate::error::{Error, Result};
use serde::Serialize;

/// How requests reach the engine.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrival {
    /// `vllm bench serve`: at a finite rate request `i` is due when the
    /// tool's gamma-distributed gaps say (`crate::arrivals`, with its
    /// `--burstiness` and `--seed`); all at once when the rate is infinite.
    /// A due request is sent when fewer than `max_concurrency` are in flight.
    Serve {
        request_rate: Option<f64>,
        max_concurrency: Option<u64>,
        /// `--burstiness` (1: Poisson arrivals).
        burstiness: f64,
        /// `--seed` (the tool's default is 0).
        seed: u64,
        /// How the client release turns gaps into send times.
        pacing: crate::arrivals::Pacing,
    },
    /// One offline `LLM.generate` call: every prompt queued at once.
    Offline,
}

/// `vllm bench serve`'s `--burstiness` default: exponential gaps.
pub const DEFAULT_BURSTINESS: f64 = 1.0;
/// `vllm bench serve`'s `--seed` default.
pub const DEFAULT_SEED: u64 = 0;

impl Arrival {
    /// A `vllm bench serve` run at the tool's default burstiness and seed.
    pub fn serve(request_rate: Option<f64>, max_concurrency: Option<u64>) -> Arrival {
        Arrival::Serve {
            request_rate,
            max_concurrency,
            burstiness: DEFAULT_BURSTINESS,
            seed: DEFAULT_SEED,
            pacing: crate::arrivals::Pacing::Rescaled,
        }
    }

    /// The same arrivals as the benchmark client of `release` paces them.
    pub fn for_release(self, release: crate::version::VllmVersion) -> Arrival {
        match self {
            Arrival::Serve {
                request_rate,
                max_concurrency,
                burstiness,
                seed,
                ..
            } => Arrival::Serve {
                request_rate,
                max_concurrency,
                burstiness,
                seed,
                pacing: crate::arrivals::Pacing::of(release),
            },
            Arrival::Offline => Arrival::Offline,
        }
    }
}

/// A workload of identical requests.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Workload {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub num_prompts: u64,
    pub arrival: Arrival,
}

impl Workload {
    pub fn validate(&self) -> Result<()> {
        if self.num_prompts == 0 || self.num_prompts > MAX_PROMPTS {
            return Err(Error::field(
                "--num-prompts",
                self.num_prompts,
                format!("between 1 and {MAX_PROMPTS}"),
            ));
        }
        if self.output_tokens == 0 || self.output_tokens > MAX_OUTPUT_TOKENS {
            return Err(Error::field(
                "--random-output-len",
                self.output_tokens,
                format!("between 1 and {MAX_OUTPUT_TOKENS} tokens"),
            ));
        }
        if self.input_tokens == 0 {
            return Err(Error::field(
                "--random-input-len",
                0,
                "at least 1 token: vLLM refuses an empty prompt",
            ));
        }
        if let Arrival::Serve {
            request_rate,
            max_concurrency,
            burstiness,
            ..
        } = self.arrival
        {
            if !(burstiness.is_finite()
                && burstiness > 0.0
                && burstiness <= crate::arrivals::MAX_BURSTINESS)
            {
                return Err(Error::field(
                    "--burstiness",
                    burstiness,
                    format!(
                        "a positive number up to {} (1 = Poisson arrivals)",
                        crate::arrivals::MAX_BURSTINESS
                    ),
                ));
            }
            if let Some(r) = request_rate {
                if !(r.is_finite() && r > 0.0 && r <= 1e6) {
                    return Err(Error::field(
                        "--request-rate",
                        r,
                        "requests per second in (0, 1000000], or inf (all at once)",
                    ));
                }
            }
            if max_concurrency == Some(0) {
                return Err(Error::field(
                    "--max-concurrency",
                    0,
                    "at least 1, or leave it out for no limit",
                ));
            }
        }
        Ok(())
    }
}

/// The number of requests a run sends: `lengths`' count, or `w`'s without
/// them; refused when over [`MAX_PROMPTS`] or when a request has no prompt
/// token or an output length out of range.
pub(super) fn request_count(w: &Workload, lengths: &[(u64, u64)]) -> Result<u64> {
    w.validate()?;
    let n = if lengths.is_empty() {
        w.num_prompts
    } else {
        lengths.len() as u64
    };
    if n > MAX_PROMPTS {
        return Err(Error::field(
            "--num-prompts",
            n,
            format!("between 1 and {MAX_PROMPTS}"),
        ));
    }
    if let Some(bad) = lengths
        .iter()
        .find(|l| l.0 == 0 || l.1 == 0 || l.1 > MAX_OUTPUT_TOKENS)
    {
        return Err(Error::new(format!(
            "a request of {} prompt and {} output tokens",
            bad.0, bad.1
        ))
        .with_hint(format!(
            "every request has at least 1 prompt token and 1 to {MAX_OUTPUT_TOKENS} output tokens"
        )));
    }
    Ok(n)
}
