//! When `vllm bench serve` sends each request at a finite `--request-rate`,
//! reproduced draw for draw.
//!
//! The tool seeds numpy's legacy global generator with `--seed` (default 0)
//! and, for each request in order, draws its gap from
//! `np.random.gamma(shape=burstiness, scale=1 / (rate * burstiness))`
//! (`get_request` in vllm/benchmarks/serve.py; `--burstiness` 1 gives
//! exponential gaps, a Poisson process). From vLLM 0.10.0 the gaps are
//! drawn up front, summed (the first request's included) and rescaled so
//! the last request is due at exactly `num_prompts / rate`, and requests are
//! sent on that absolute schedule ([`Pacing::Rescaled`]). Through 0.9.2 the
//! first request went at once and each later one a fresh gap after the one
//! before, with one more gap slept after the last before the run could end
//! ([`Pacing::Sequential`]; `get_request` in vllm/benchmarks/serve.py of the
//! 0.9.2 and 0.10.0 wheels; docs/reference/vllm-bench-serve.md).
//!
//! numpy's legacy `RandomState` is frozen (NEP 19), so the stream is a
//! specification: MT19937 seeded by `init_genrand` (`_legacy_seeding` in
//! numpy/random/_mt19937.pyx), doubles from 53 bits of two draws, and
//! `legacy_gamma` / `legacy_standard_exponential` / `legacy_gauss` of
//! numpy/random/src/legacy/legacy-distributions.c. The generator itself is
//! the `rand_mt` crate's.

use rand_mt::Mt;

/// numpy's legacy global generator (the part `np.random.gamma` uses).
#[derive(Debug)]
struct LegacyRandom {
    mt: Mt,
    /// Box-Muller's second value, kept for the next normal draw.
    gauss: Option<f64>,
}

impl LegacyRandom {
    /// `np.random.seed(seed)` for a seed below 2^32.
    fn new(seed: u32) -> LegacyRandom {
        LegacyRandom {
            mt: Mt::new(seed),
            gauss: None,
        }
    }

    /// A double in [0, 1) from 53 random bits (27 of one draw, 26 of the next).
    fn double(&mut self) -> f64 {
        let a = f64::from(self.mt.next_u32() >> 5);
        let b = f64::from(self.mt.next_u32() >> 6);
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }

    fn standard_exponential(&mut self) -> f64 {
        -(1.0 - self.double()).ln()
    }

    /// Polar Box-Muller, returning the second of each pair first.
    fn gauss(&mut self) -> f64 {
        if let Some(g) = self.gauss.take() {
            return g;
        }
        loop {
            let x1 = 2.0 * self.double() - 1.0;
            let x2 = 2.0 * self.double() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                let f = (-2.0 * r2.ln() / r2).sqrt();
                self.gauss = Some(f * x1);
                return f * x2;
            }
        }
    }

    /// `standard_gamma(shape)`: exponential at shape 1, Johnk-style
    /// rejection below 1, Marsaglia-Tsang above.
    fn standard_gamma(&mut self, shape: f64) -> f64 {
        if shape == 1.0 {
            return self.standard_exponential();
        }
        if shape <= 0.0 {
            return 0.0;
        }
        if shape < 1.0 {
            loop {
                let u = self.double();
                let v = self.standard_exponential();
                if u <= 1.0 - shape {
                    let x = u.powf(1.0 / shape);
                    if x <= v {
                        return x;
                    }
                } else {
                    let y = -((1.0 - u) / shape).ln();
                    let x = (1.0 - shape + shape * y).powf(1.0 / shape);
                    if x <= v + y {
                        return x;
                    }
                }
            }
        }
        let b = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * b).sqrt();
        loop {
            let (x, v) = loop {
                let x = self.gauss();
                let v = 1.0 + c * x;
                if v > 0.0 {
                    break (x, v * v * v);
                }
            };
            let u = self.double();
            if u < 1.0 - 0.0331 * (x * x) * (x * x) {
                return b * v;
            }
            if u.ln() < 0.5 * x * x + b * (1.0 - v + v.ln()) {
                return b * v;
            }
        }
    }

    fn gamma(&mut self, shape: f64, scale: f64) -> f64 {
        scale * self.standard_gamma(shape)
    }
}

/// How the tool turns its gaps into send times (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pacing {
    /// From 0.10.0: cumulative gaps rescaled to end at `n / rate`.
    Rescaled,
    /// Through 0.9.2: the first at 0, then a gap after each send.
    Sequential,
}

impl Pacing {
    /// The pacing of the benchmark client of `release`.
    pub fn of(release: crate::version::VllmVersion) -> Pacing {
        if release >= crate::version::BENCH_ARRIVALS_RESCALED {
            Pacing::Rescaled
        } else {
            Pacing::Sequential
        }
    }
}

/// When each request is due and when the client may finish (s after the
/// benchmark starts): the last due time, or for [`Pacing::Sequential`] the
/// end of the gap slept after the last request.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    pub due_s: Vec<f64>,
    pub end_s: f64,
}

/// The largest `--burstiness` taken (the tool asks only for a positive one;
/// past this the gaps are all but equal).
pub const MAX_BURSTINESS: f64 = 1e6;

/// The send schedule of `n` requests at `rate` requests per second with
/// `burstiness`, as the tool draws them with `seed` (its `--seed`, taken
/// modulo 2^32 as numpy would refuse larger ones), under `pacing`.
pub fn schedule(n: u64, rate: f64, burstiness: f64, seed: u64, pacing: Pacing) -> Schedule {
    let mut rng = LegacyRandom::new(u32::try_from(seed & 0xffff_ffff).unwrap_or(0));
    let theta = 1.0 / (rate * burstiness);
    let mut due = Vec::new();
    let mut sum = 0.0;
    for _ in 0..n {
        let gap = rng.gamma(burstiness, theta);
        match pacing {
            Pacing::Rescaled => {
                sum += gap;
                due.push(sum);
            }
            Pacing::Sequential => {
                due.push(sum);
                sum += gap;
            }
        }
    }
    if pacing == Pacing::Sequential {
        return Schedule {
            due_s: due,
            end_s: sum,
        };
    }
    if sum > 0.0 && sum.is_finite() {
        let factor = n as f64 / rate / sum;
        for d in &mut due {
            *d *= factor;
        }
    }
    let end_s = due.last().copied().unwrap_or(0.0);
    Schedule { due_s: due, end_s }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    // Expected values printed by numpy 2 (`python3 -c "import numpy as np;
    // np.random.seed(0); print([np.random.gamma(1.0, 0.2) for _ in range(3)])"`,
    // and likewise for the other lines).

    #[test]
    fn doubles_match_numpys_legacy_stream() {
        let mut r = LegacyRandom::new(0);
        let got: Vec<f64> = (0..3).map(|_| r.double()).collect();
        assert_eq!(
            got,
            [0.5488135039273248, 0.7151893663724195, 0.6027633760716439]
        );
    }

    #[test]
    fn gamma_draws_match_numpys_legacy_gamma_at_every_branch() {
        for (seed, shape, scale, expected) in [
            (
                0,
                1.0,
                0.2,
                [
                    0.15917490163262202,
                    0.25118615259316757,
                    0.18464462916081378,
                ],
            ),
            (
                0,
                2.0,
                0.1,
                [0.5138829576340245, 0.22384809117925344, 0.5427132274398746],
            ),
            (
                0,
                0.5,
                0.4,
                [
                    0.12160075590428177,
                    0.15130868802712624,
                    0.07179335560115505,
                ],
            ),
        ] {
            let mut r = LegacyRandom::new(seed);
            let got: Vec<f64> = (0..3).map(|_| r.gamma(shape, scale)).collect();
            assert_eq!(got, expected, "shape {shape}");
        }
    }

    #[test]
    fn due_times_end_at_num_prompts_over_rate() {
        // numpy: the gaps drawn as get_request draws them, summed and
        // rescaled: 0.17327075228623215, 0.4467008796322798, ...,
        // 11.533313023189335 (request 50), 19.999999999999996.
        let due = schedule(100, 5.0, 1.0, 0, Pacing::Rescaled).due_s;
        assert_eq!(due.len(), 100);
        // The first request waits its own gap (numpy's first exponential
        // draw, rescaled): request 0 below.
        for (i, x) in [
            (0, 0.17327075228623215),
            (1, 0.4467008796322798),
            (50, 11.533313023189335),
        ] {
            assert!((due[i] - x).abs() < 1e-12, "request {i}: {} vs {x}", due[i]);
        }
        assert!((due[99] - 20.0).abs() < 1e-12);
        // Through 0.9.2: the same draws, the first request at once, and a
        // last gap before the client ends: numpy's first gap 0.15917..., and
        // the hundred gaps' sum 18.37296826295015 (the run can end no sooner).
        let s = schedule(100, 5.0, 1.0, 0, Pacing::Sequential);
        assert_eq!(s.due_s[0], 0.0);
        assert!((s.due_s[1] - 0.15917490163262202).abs() < 1e-12);
        assert!((s.end_s - 18.37296826295015).abs() < 1e-9, "{}", s.end_s);
        assert!(due.windows(2).all(|w| w[0] <= w[1]));
    }
}
