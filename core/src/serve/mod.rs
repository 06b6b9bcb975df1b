//! A serving run step by step: requests arrive, vLLM's scheduler batches
//! decodes and chunked prefills into steps, each step takes what
//! [`Work::step`] says, and the figures come out as `vllm bench serve`
//! defines them (docs/reference/vllm-bench-serve.md) or as an offline
//! `LLM.generate` call measures them (output tokens over its wall time).
//!
//! The scheduler is vLLM V1's, reduced to what sets the timing: every step
//! first gives each running request that has its prompt one decode token,
//! then spends what is left of `max_num_batched_tokens` on prompt chunks,
//! running requests first, then waiting ones in arrival order while fewer
//! than the running limit run (`vllm/v1/core/sched/scheduler.py`,
//! `schedule`). The running limit is `max_num_seqs` or what the KV pool
//! holds at the requests' final length, whichever is smaller, so no request
//! is preempted. Prefix caching finds nothing to reuse: the benchmark's
//! random prompts share no blocks.
//!
//! Steps where nothing arrives, nothing finishes and no prompt is pending
//! are identical but for their contexts, which grow by one token a step; a
//! stretch of `k` of them is evaluated once at its middle context, which is
//! exact for every term linear in context (all but sliding windows past
//! their window).

use crate::error::{Error, Result};
use crate::stats::weighted_percentile;
use crate::timing::{Batch, TimingParams, Work};
use serde::Serialize;

/// Requests a run may send (vLLM's bench defaults to 1,000).
pub const MAX_PROMPTS: u64 = 100_000;
/// Output tokens a request may ask for.
pub const MAX_OUTPUT_TOKENS: u64 = 1 << 20;
/// Engine steps the simulation may take before it gives up (about a second
/// of work); [`simulate`] says so rather than run on.
pub const MAX_STEPS: u64 = 4_000_000;

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

#[derive(Clone, Copy, Debug)]
struct Seq {
    /// Its prompt and output lengths.
    input: u64,
    output: u64,
    sent_s: f64,
    /// When the engine sees it (sent plus the server's request overhead).
    ready_s: f64,
    /// Prompt tokens computed so far.
    prefilled: u64,
    /// Output tokens produced so far.
    generated: u64,
    first_token_s: f64,
}

/// Run `w` on `work` with `p`; `max_running` is the engine's running limit
/// (at least 1).
pub fn simulate(
    work: &Work,
    p: &TimingParams,
    w: &Workload,
    max_running: u64,
) -> Result<ServeResult> {
    simulate_lengths(work, p, w, &[], max_running)
}

/// [`simulate`] with each request's own (prompt, output) lengths, in the
/// order they are sent (a `--save-detailed` file's `input_lens` and
/// `output_lens`); empty: every request at `w`'s lengths. Their count
/// replaces `w.num_prompts`.
pub fn simulate_lengths(
    work: &Work,
    p: &TimingParams,
    w: &Workload,
    lengths: &[(u64, u64)],
    max_running: u64,
) -> Result<ServeResult> {
    Sim::new(work, p, w, lengths, max_running)?.run()
}

/// The number of requests a run sends: `lengths`' count, or `w`'s without
/// them; refused when over [`MAX_PROMPTS`] or when a request has no prompt
/// token or an output length out of range.
fn request_count(w: &Workload, lengths: &[(u64, u64)]) -> Result<u64> {
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

/// What the run measures as requests finish: the samples of each figure
/// (value ms, weight) and the counts.
#[derive(Debug, Default)]
struct Tally {
    ttft: Vec<(f64, f64)>,
    tpot: Vec<(f64, f64)>,
    itl: Vec<(f64, f64)>,
    e2el: Vec<(f64, f64)>,
    steps: u64,
    prefill_steps: u64,
    completed: u64,
    last_finish_s: f64,
    total_input_tokens: u64,
    total_output_tokens: u64,
}

/// A serving run in progress: the client's sending, the engine's waiting
/// and running requests, the clock and what has been measured.
struct Sim<'a> {
    work: &'a Work,
    p: &'a TimingParams,
    /// Each request's (prompt, output) lengths; empty: all at `default_lengths`.
    lengths: &'a [(u64, u64)],
    default_lengths: (u64, u64),
    /// Requests to send.
    n: u64,
    /// When each request is due (None: all at once).
    schedule: Option<crate::arrivals::Schedule>,
    /// The client's concurrency limit.
    max_conc: u64,
    /// What the server adds to a request before the engine sees it, s.
    overhead_s: f64,
    /// The engine's running limit.
    max_running: u64,
    /// Tokens a step may compute (`max_num_batched_tokens`).
    budget: u64,
    now: f64,
    /// The next request to send.
    next: u64,
    /// Sent, not finished.
    in_flight: u64,
    waiting: std::collections::VecDeque<Seq>,
    running: Vec<Seq>,
    /// When the client last had a slot freed while it was at its limit.
    slot_freed_s: f64,
    /// When the server is done with the last request sent: it takes
    /// requests one at a time (`TimingParams::serve_request_ms`).
    server_free_s: f64,
    tally: Tally,
}

impl<'a> Sim<'a> {
    fn new(
        work: &'a Work,
        p: &'a TimingParams,
        w: &Workload,
        lengths: &'a [(u64, u64)],
        max_running: u64,
    ) -> Result<Sim<'a>> {
        let n = request_count(w, lengths)?;
        let (schedule, max_conc, overhead_s) = match w.arrival {
            Arrival::Serve {
                request_rate,
                max_concurrency,
                burstiness,
                seed,
                pacing,
            } => (
                request_rate.map(|r| crate::arrivals::schedule(n, r, burstiness, seed, pacing)),
                max_concurrency.unwrap_or(n).max(1),
                p.serve_request_ms / 1e3,
            ),
            Arrival::Offline => (None, n, 0.0),
        };
        Ok(Sim {
            work,
            p,
            lengths,
            default_lengths: (w.input_tokens, w.output_tokens),
            n,
            schedule,
            max_conc,
            overhead_s,
            max_running: max_running.clamp(1, n.max(1)),
            budget: work.schedule.max_num_batched_tokens.max(1),
            now: 0.0,
            next: 0,
            in_flight: 0,
            waiting: std::collections::VecDeque::new(),
            running: Vec::new(),
            slot_freed_s: 0.0,
            server_free_s: 0.0,
            tally: Tally::default(),
        })
    }

    /// Request `i`'s (prompt, output) lengths.
    fn length(&self, i: u64) -> (u64, u64) {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.lengths.get(i))
            .copied()
            .unwrap_or(self.default_lengths)
    }

    /// When request `i` is due.
    fn due(&self, i: u64) -> f64 {
        self.schedule
            .as_ref()
            .and_then(|s| s.due_s.get(usize::try_from(i).ok()?).copied())
            .unwrap_or(0.0)
    }

    /// The time a step of `batch` takes per token of each decoding
    /// sequence: with speculative decoding a step yields the mean
    /// acceptance length of tokens per sequence, simulated as that many
    /// one-token steps (a prompt chunk sharing the step is then credited the
    /// same speed-up: an approximation for mixed steps).
    fn step_s(&self, batch: &Batch) -> f64 {
        self.work.step(self.p, batch).per_token_s().max(1e-9)
    }

    /// Steps at the first one's time, `dt0`, until `t` (at least one).
    fn steps_until(&self, t: f64, dt0: f64) -> u64 {
        crate::units::saturating_u64(((t - self.now).max(0.0) / dt0).ceil()).max(1)
    }

    /// The scheduler's loop: send, admit, run one step (or a stretch of
    /// identical ones), retire, until every request has finished.
    fn run(mut self) -> Result<ServeResult> {
        while self.tally.completed < self.n {
            self.send_due();
            self.admit();
            if self.running.is_empty() {
                if self.wait_idle() {
                    continue;
                }
                break;
            }
            if self.tally.steps >= MAX_STEPS {
                return Err(Error::new(format!(
                    "the run needs more than {MAX_STEPS} engine steps to simulate"
                ))
                .with_hint("use fewer --num-prompts or shorter requests"));
            }
            let next_event = self.next_event();
            let prompt_pending = self.running.iter().any(|s| s.prefilled < s.input);
            let lone_chunks = self.lone_chunks(next_event);
            if lone_chunks > 1 {
                self.lone_prefill_stretch(lone_chunks);
            } else if prompt_pending {
                self.chunked_prefill_step();
            } else {
                self.decode_stretch(next_event);
            }
            self.retire_finished();
        }
        Ok(self.result())
    }

    /// Send what is due while the client's concurrency allows; a request
    /// held back by it is sent when a slot frees.
    fn send_due(&mut self) {
        while self.next < self.n
            && self.in_flight < self.max_conc
            && self.due(self.next) <= self.now
        {
            let sent_s = self.due(self.next).max(self.slot_freed_s);
            let ready_s = sent_s.max(self.server_free_s) + self.overhead_s;
            self.server_free_s = ready_s;
            let (input, output) = self.length(self.next);
            self.waiting.push_back(Seq {
                input,
                output,
                sent_s,
                ready_s,
                prefilled: 0,
                generated: 0,
                first_token_s: 0.0,
            });
            self.next += 1;
            self.in_flight += 1;
        }
    }

    /// Admit the requests the engine has seen into free running slots.
    fn admit(&mut self) {
        while (self.running.len() as u64) < self.max_running
            && self.waiting.front().is_some_and(|s| s.ready_s <= self.now)
        {
            if let Some(s) = self.waiting.pop_front() {
                self.running.push(s);
            }
        }
    }

    /// Nothing runs: idle until the engine sees the next request, or the
    /// next is sent. False when nothing is left to come.
    fn wait_idle(&mut self) -> bool {
        if let Some(s) = self.waiting.front() {
            self.now = self.now.max(s.ready_s);
        } else if self.next < self.n {
            self.now = self.now.max(self.due(self.next));
        } else {
            return false;
        }
        true
    }

    /// The next moment something new can reach the engine.
    fn next_event(&self) -> Option<f64> {
        let send = (self.next < self.n && self.in_flight < self.max_conc)
            .then(|| self.due(self.next).max(self.server_free_s) + self.overhead_s);
        let seen = self.waiting.front().map(|s| s.ready_s);
        match (send, seen) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A lone request's long prompt: its full chunks before the last are
    /// identical steps but for where they start, which the attention pairs
    /// grow with linearly, so a stretch of them is one step at the middle
    /// chunk, times their number (as `Work::prefill` sums them). How many
    /// chunks the stretch takes (until something new can arrive), 0 when
    /// there is no such prompt.
    fn lone_chunks(&self, next_event: Option<f64>) -> u64 {
        let budget = self.budget;
        match self.running.as_slice() {
            [s] if s.input - s.prefilled.min(s.input) > 2 * budget => {
                let full = (s.input - s.prefilled - 1) / budget;
                let dt0 = self.step_s(&chunk_batch(s.prefilled, budget, 0.0));
                match next_event {
                    Some(t) if self.max_running > 1 => full.min(self.steps_until(t, dt0)),
                    _ => full,
                }
            }
            _ => 0,
        }
    }

    /// `chunks` full prompt chunks of the lone running request, as one stretch.
    fn lone_prefill_stretch(&mut self, chunks: u64) {
        let Some(prefilled) = self.running.first().map(|s| s.prefilled) else {
            return;
        };
        let mid = chunk_batch(prefilled, self.budget, (chunks as f64 - 1.0) / 2.0);
        let dt = self.step_s(&mid);
        self.now += chunks as f64 * dt;
        self.tally.steps += chunks;
        self.tally.prefill_steps += chunks;
        if let Some(s) = self.running.first_mut() {
            s.prefilled += chunks * self.budget;
        }
    }

    /// One step: decodes first, then prompt chunks in order, within the
    /// budget.
    fn chunked_prefill_step(&mut self) {
        let mut left = self.budget;
        let mut batch = Batch::default();
        for s in self.running.iter().filter(|s| s.prefilled >= s.input) {
            let ctx = (s.input + s.generated) as f64;
            batch.decode_seqs += 1.0;
            batch.decode_kv_bytes += self.work.kv_bytes(ctx);
            batch.max_context_tokens = batch.max_context_tokens.max(ctx);
            left = left.saturating_sub(1);
        }
        let mut chunks: Vec<(usize, u64)> = Vec::new();
        for (i, s) in self.running.iter().enumerate() {
            if left == 0 {
                break;
            }
            if s.prefilled < s.input {
                let c = (s.input - s.prefilled).min(left);
                left -= c;
                let at = s.prefilled as f64;
                batch.prefill_tokens += c as f64;
                batch.prefill_seqs += 1.0;
                batch.prefill_pairs += c as f64 * (2.0 * at + c as f64 + 1.0) / 2.0;
                chunks.push((i, c));
            }
        }
        let dt = self.step_s(&batch);
        self.now += dt;
        self.tally.steps += 1;
        self.tally.prefill_steps += 1;
        let mut decoded = 0.0;
        for s in self.running.iter_mut().filter(|s| s.prefilled >= s.input) {
            s.generated += 1;
            decoded += 1.0;
        }
        if decoded > 0.0 {
            self.tally.itl.push((dt * 1e3, decoded));
        }
        for (i, c) in chunks {
            if let Some(s) = self.running.get_mut(i) {
                s.prefilled += c;
                if s.prefilled >= s.input {
                    // The last chunk's step samples the first token.
                    s.generated = 1;
                    s.first_token_s = self.now;
                }
            }
        }
    }

    /// A stretch of identical decode steps: until the first request
    /// finishes, or (with a slot free) the next one reaches the engine.
    fn decode_stretch(&mut self, next_event: Option<f64>) {
        let k_finish = self
            .running
            .iter()
            .map(|s| s.output.saturating_sub(s.generated))
            .min()
            .unwrap_or(1)
            .max(1);
        let dt0 = self.step_s(&decode_batch(self.work, &self.running, 0.0));
        let k_arrival = match next_event {
            Some(t) if (self.running.len() as u64) < self.max_running => self.steps_until(t, dt0),
            _ => u64::MAX,
        };
        let k = k_finish.min(k_arrival).min(MAX_STEPS);
        let dt = self.step_s(&decode_batch(
            self.work,
            &self.running,
            (k as f64 - 1.0) / 2.0,
        ));
        self.now += k as f64 * dt;
        self.tally.steps += k;
        for s in self.running.iter_mut() {
            s.generated += k;
        }
        self.tally
            .itl
            .push((dt * 1e3, k as f64 * self.running.len() as f64));
    }

    /// Finished requests leave, their figures recorded; their slots free.
    fn retire_finished(&mut self) {
        let mut i = 0;
        while i < self.running.len() {
            let done = self
                .running
                .get(i)
                .is_some_and(|s| s.prefilled >= s.input && s.generated >= s.output);
            if done {
                let s = self.running.swap_remove(i);
                self.record(&s);
            } else {
                i += 1;
            }
        }
    }

    /// A request that finished now: its TTFT, end-to-end latency and TPOT.
    fn record(&mut self, s: &Seq) {
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
    fn result(mut self) -> ServeResult {
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
            max_running: self.max_running,
            steps: t.steps,
            prefill_steps: t.prefill_steps,
        }
    }
}

/// One prompt chunk of `budget` tokens, `ahead` chunks after the one that
/// starts at `prefilled`.
fn chunk_batch(prefilled: u64, budget: u64, ahead: f64) -> Batch {
    let n = budget as f64;
    let at = prefilled as f64 + ahead * n;
    Batch {
        prefill_tokens: n,
        prefill_seqs: 1.0,
        prefill_pairs: n * (2.0 * at + n + 1.0) / 2.0,
        ..Batch::default()
    }
}

/// The decode batch of `running` (all past their prompts) `ahead` steps on.
fn decode_batch(work: &Work, running: &[Seq], ahead: f64) -> Batch {
    let mut b = Batch::default();
    for s in running {
        let ctx = (s.input + s.generated) as f64 + ahead;
        b.decode_seqs += 1.0;
        b.decode_kv_bytes += work.kv_bytes(ctx);
        b.max_context_tokens = b.max_context_tokens.max(ctx);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::{AttnKernel, Machine, ModelCost, Schedule};

    /// A GPU and model on which every step, prefill or decode, takes 10 ms:
    /// no weights, no KV, 1,000 layers at 10 us.
    fn ten_ms_steps() -> (Work, TimingParams) {
        let work = Work {
            model: ModelCost {
                dense_weight_bytes: 0,
                fp8_weight_bytes: 0,
                quant_weight_bytes: 0,
                layers: 1000,
                quant_gemms: 0,
                expert_quant_gemms: 0,
                decode_flops_per_token: 0.0,
                prefill_flops_per_token: 0.0,
                state_bytes_per_seq: 0,
                kv_bytes_per_token: 0,
                sliding_kv: Vec::new(),
                attn_flops_per_pair: 0.0,
                allreduce_layers: 0,
                hidden_size: 1024,
                moe_layers: Vec::new(),
                gemms: 0,
                attention_layers: 0,
                low_precision_format: crate::timing::GemmFormat::Fp8,
                expert_flops_per_token: 0.0,
            },
            machine: Machine {
                bandwidth_bytes_s: 1e12,
                peak_flops: 1e14,
                attention_kernel: AttnKernel::Flash,
                tensor_parallel_size: 1,
                interconnect_bytes_s: 32e9,
                allreduce_latency_s: 0.0,
                pipeline_parallel_size: 1,
                kernels: None,
                kernels_from: None,
                link: crate::timing::LinkKind::Pcie,
                p2p: true,
                custom_allreduce: crate::timing::LinkKind::Pcie
                    .defaults(crate::timing::AllReduceImpl::Custom),
                nccl_allreduce: crate::timing::LinkKind::Pcie
                    .defaults(crate::timing::AllReduceImpl::Nccl),
            },
            spec: None,
            schedule: Schedule {
                async_scheduling: true,
                cuda_graph_max_context_tokens: None,
                max_num_batched_tokens: 2048,
                max_num_seqs: 256,
                block_size_tokens: 16,
                enable_prefix_caching: true,
            },
        };
        let p = TimingParams {
            layer_us: 10.0,
            host_step_ms: 0.001,
            host_per_seq_us: 0.01,
            serve_request_ms: 1.0,
            ..TimingParams::FIRST_PRINCIPLES
        };
        (work, p)
    }

    #[test]
    fn bench_serve_figures_follow_the_tools_definitions_by_hand() {
        let (work, p) = ten_ms_steps();
        // 4 requests of 100 prompt and 11 output tokens, at most 2 in flight.
        let w = Workload {
            input_tokens: 100,
            output_tokens: 11,
            num_prompts: 4,
            arrival: Arrival::serve(None, Some(2)),
        };
        let r = simulate(&work, &p, &w, 256).unwrap();
        // Requests 0 and 1 are sent at 0. The server takes them one at a
        // time, 1 ms each: the engine sees request 0 at 1 ms and request 1
        // at 2 ms. Request 0 prefills alone in a 10 ms step (first token at
        // 11 ms, TTFT 11); request 1 prefills in the next step beside
        // request 0's decode (first token at 21 ms, TTFT 21). Nine decode
        // steps finish request 0 at 111 ms (E2EL 111, TPOT (111 - 11) / 10
        // = 10 ms). Request 2 is sent then and seen at 112 ms; one decode
        // step finishes request 1 at 121 ms (E2EL 121), when request 3 is
        // sent (seen at 122 ms). Request 2 prefills from 121 to 131 ms (TTFT
        // 20), request 3 beside it from 131 to 141 ms (TTFT 20); nine and
        // one decode steps finish them at 231 and 241 ms (E2EL 120 each).
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        assert_eq!((r.completed, r.steps, r.prefill_steps), (4, 24, 4));
        assert!(close(r.duration_s, 0.241), "{}", r.duration_s);
        assert!(
            close(r.ttft.mean_ms, (11.0 + 21.0 + 20.0 + 20.0) / 4.0) && close(r.ttft.p99_ms, 20.97),
            "{:?}",
            r.ttft
        );
        assert!(
            close(r.e2el.mean_ms, (111.0 + 121.0 + 120.0 + 120.0) / 4.0),
            "{:?}",
            r.e2el
        );
        assert!(close(r.tpot.mean_ms, 10.0) && close(r.tpot.median_ms, 10.0));
        // Every gap between tokens is one 10 ms step.
        assert!(close(r.itl.median_ms, 10.0) && close(r.itl.p99_ms, 10.0));
        // Throughputs over the duration: 4 requests, 44 output and 444 total tokens.
        assert!(close(r.request_throughput, 4.0 / 0.241));
        assert!(close(r.output_throughput, 44.0 / 0.241));
        assert!(close(r.total_token_throughput, 444.0 / 0.241));
    }

    #[test]
    fn a_rate_spaces_arrivals_and_an_offline_call_pays_no_server_cost() {
        let (work, p) = ten_ms_steps();
        // Two requests a second, Poisson: numpy's gaps for seed 0 put them at
        // 0.40, 1.03 and 1.5 s, so each runs alone, 1 prefill + 10 decode steps.
        let w = Workload {
            input_tokens: 100,
            output_tokens: 11,
            num_prompts: 3,
            arrival: Arrival::serve(Some(2.0), None),
        };
        let r = simulate(&work, &p, &w, 256).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        // The last is due at num_prompts / rate = 1.5 s and done 111 ms later.
        assert!(close(r.duration_s, 1.611), "{}", r.duration_s);
        assert!(close(r.ttft.mean_ms, 11.0));
        let offline = Workload {
            arrival: Arrival::Offline,
            ..w
        };
        let r = simulate(&work, &p, &offline, 256).unwrap();
        // All three prefill in one step, then ten decode steps: 110 ms.
        assert!(close(r.duration_s, 0.110), "{}", r.duration_s);
        assert!(close(r.ttft.mean_ms, 10.0));
    }

    #[test]
    fn a_long_lone_prompt_takes_its_chunks_in_one_stretch_exactly() {
        // Prefill time with attention growing along the prompt: the stretch
        // of identical chunks must cost what the chunks one by one cost.
        let (mut work, mut p) = ten_ms_steps();
        work.schedule.max_num_batched_tokens = 512;
        work.model.attn_flops_per_pair = 1e6;
        p.prefill_attn_eff_flash = 0.5;
        let w = Workload {
            input_tokens: 129_024,
            output_tokens: 1,
            num_prompts: 1,
            arrival: Arrival::Offline,
        };
        let r = simulate(&work, &p, &w, 256).unwrap();
        assert_eq!((r.steps, r.prefill_steps), (252, 252));
        // By hand: 252 chunks of 10 ms plus their causal pairs
        // 129,024 x 129,025 / 2 at 1e6 FLOPs each over 5e13 FLOP/s.
        let want = 252.0 * 0.010 + 129_024.0 * 129_025.0 / 2.0 * 1e6 / 5e13;
        assert!(
            (r.duration_s / want - 1.0).abs() < 1e-9,
            "{} vs {want}",
            r.duration_s
        );
    }

    #[test]
    fn chunked_prefill_shares_steps_with_decodes() {
        let (mut work, p) = ten_ms_steps();
        work.schedule.max_num_batched_tokens = 64;
        // A 100-token prompt needs two chunks (64 + 36): TTFT two steps.
        let w = Workload {
            input_tokens: 100,
            output_tokens: 2,
            num_prompts: 1,
            arrival: Arrival::Offline,
        };
        let r = simulate(&work, &p, &w, 256).unwrap();
        assert_eq!((r.steps, r.prefill_steps), (3, 2));
        assert!((r.ttft.mean_ms - 20.0).abs() < 1e-6);
    }

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
