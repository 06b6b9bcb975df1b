//! What a serving run measures, as `vllm bench serve` defines it: the
//! samples taken as requests finish ([`Tally`]), their statistics
//! ([`Stats`]: mean, median, standard deviation, p99) and the run's figures
//! ([`ServeResult`]).

use super::sim::{Seq, Sim};
use crate::stats::weighted_percentile;
use serde::Serialize;

/// Mean, median, standard deviation and 99th percentile of a figure over
/// requests (or over inter-token gaps), ms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub mean_ms: f64,
    pub median_ms: f64,
    pub std_ms: f64,
    pub p99_ms: f64,
}

impl Stats {
    /// Over weighted values (value ms, how many times it occurs), with
    /// percentiles interpolated linearly between order statistics, as numpy's
    /// default `percentile` does.
    pub fn of(values: &mut Vec<(f64, f64)>) -> Stats {
        values.retain(|v| v.1 > 0.0 && v.0.is_finite());
        let n: f64 = values.iter().map(|v| v.1).sum();
        if n <= 0.0 {
            return Stats::default();
        }
        crate::stats::sort_by_value(values);
        let mean = values.iter().map(|v| v.0 * v.1).sum::<f64>() / n;
        let var = values
            .iter()
            .map(|v| v.1 * (v.0 - mean).powi(2))
            .sum::<f64>()
            / n;
        Stats {
            mean_ms: mean,
            median_ms: weighted_percentile(values, n, 50.0),
            std_ms: var.sqrt(),
            p99_ms: weighted_percentile(values, n, 99.0),
        }
    }
}

/// What the run measures, as `vllm bench serve` prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServeResult {
    pub completed: u64,
    /// From the first request sent to the last response finished, s.
    pub duration_s: f64,
    pub total_input_tokens: u64,
    pub total_output_tokens: u64,
    pub request_throughput: f64,
    pub output_throughput: f64,
    pub total_token_throughput: f64,
    pub ttft: Stats,
    /// Per request: (end-to-end latency - TTFT) / (output tokens - 1).
    pub tpot: Stats,
    /// Every gap between consecutive tokens of every request, pooled.
    pub itl: Stats,
    pub e2el: Stats,
    /// Requests the engine ran at once at most (the running limit).
    pub max_running: u64,
    /// Engine steps taken, and how many of them carried prompt chunks.
    pub steps: u64,
    pub prefill_steps: u64,
}

/// What the run measures as requests finish: the samples of each figure
/// (value ms, weight) and the counts.
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub(super) ttft: Vec<(f64, f64)>,
    pub(super) tpot: Vec<(f64, f64)>,
    pub(super) itl: Vec<(f64, f64)>,
    pub(super) e2el: Vec<(f64, f64)>,
    pub(super) steps: u64,
    pub(super) prefill_steps: u64,
    pub(super) completed: u64,
    pub(super) last_finish_s: f64,
    pub(super) total_input_tokens: u64,
    pub(super) total_output_tokens: u64,
}

impl Sim<'_> {
    /// A request that finished now: its TTFT, end-to-end latency and TPOT.
    pub(super) fn record(&mut self, s: &Seq) {
        let now = self.now;
        let t = &mut self.tally;
        let t_first = s.first_token_s - s.sent_s;
        let t_all = now - s.sent_s;
        t.ttft.push((t_first * 1e3, 1.0));
        t.e2el.push((t_all * 1e3, 1.0));
        if s.output > 1 {
            t.tpot
                .push(((t_all - t_first) / (s.output - 1) as f64 * 1e3, 1.0));
        }
        t.total_input_tokens += s.input;
        t.total_output_tokens += s.output;
        t.completed += 1;
        if self.in_flight >= self.max_conc {
            self.slot_freed_s = now;
        }
        self.in_flight = self.in_flight.saturating_sub(1);
        t.last_finish_s = now;
    }

    /// The figures as `vllm bench serve` prints them.
    pub(super) fn result(mut self) -> ServeResult {
        // The client ends no sooner than its schedule (a last gap through 0.9.2).
        let client_end_s = self.schedule.as_ref().map_or(0.0, |s| s.end_s);
        let t = &mut self.tally;
        let duration_s = t.last_finish_s.max(client_end_s).max(1e-12);
        ServeResult {
            completed: t.completed,
            duration_s,
            total_input_tokens: t.total_input_tokens,
            total_output_tokens: t.total_output_tokens,
            request_throughput: t.completed as f64 / duration_s,
            output_throughput: t.total_output_tokens as f64 / duration_s,
            total_token_throughput: (t.total_input_tokens + t.total_output_tokens) as f64
                / duration_s,
            ttft: Stats::of(&mut t.ttft),
            tpot: Stats::of(&mut t.tpot),
            itl: Stats::of(&mut t.itl),
            e2el: Stats::of(&mut t.e2el),
            // With a pool, the most that ran at once; else the limit.
            max_running: match self.work.kv {
                Some(_) => self.peak_running,
                None => self.max_running,
            },
            steps: t.steps,
            prefill_steps: t.prefill_steps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_like_numpy() {
        // numpy.percentile([1, 2, 3, 4], 50) = 2.5; 99 -> 3.97.
        let mut v = vec![(4.0, 1.0), (1.0, 1.0), (3.0, 1.0), (2.0, 1.0)];
        let s = Stats::of(&mut v);
        assert_eq!(s.median_ms, 2.5);
        assert!((s.p99_ms - 3.97).abs() < 1e-12);
        assert_eq!(s.mean_ms, 2.5);
        // Population standard deviation (numpy's default ddof = 0): sqrt(1.25).
        assert!((s.std_ms - 1.25_f64.sqrt()).abs() < 1e-12);
        // Weights count as repeated values: [1, 1, 1, 5] -> median 1, mean 2.
        let mut w = vec![(1.0, 3.0), (5.0, 1.0)];
        let s = Stats::of(&mut w);
        assert_eq!(s.median_ms, 1.0);
        assert_eq!(s.mean_ms, 2.0);
    }
}
