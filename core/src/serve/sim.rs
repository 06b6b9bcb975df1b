//! A serving run in progress ([`Sim`]): the client sends requests as they
//! fall due and its concurrency allows, the server hands them to the engine
//! one at a time, the engine admits them into free running slots, and the
//! scheduler's loop runs steps until every request has finished.

use super::figures::Tally;
use super::workload::request_count;
use super::{Arrival, ServeResult, Workload, MAX_STEPS};
use crate::error::{Error, Result};
use crate::timing::{TimingParams, Work};

#[derive(Clone, Copy, Debug)]
pub(super) struct Seq {
    /// Its prompt and output lengths.
    pub(super) input: u64,
    pub(super) output: u64,
    pub(super) sent_s: f64,
    /// When the engine sees it (sent plus the server's request overhead).
    pub(super) ready_s: f64,
    /// Tokens to compute before the next token is sampled: the prompt, or
    /// after a preemption the prompt and the output so far (vLLM recomputes
    /// a preempted request's tokens).
    pub(super) target: u64,
    /// Of `target`, computed so far.
    pub(super) prefilled: u64,
    /// Output tokens produced so far.
    pub(super) generated: u64,
    pub(super) first_token_s: f64,
    /// When the engine admitted it, in order: the last admitted is the
    /// first preempted.
    pub(super) order: u64,
}

impl Seq {
    /// Its prompt (or recomputation) is done: it decodes.
    pub(super) fn decoding(&self) -> bool {
        self.prefilled >= self.target
    }

    /// Tokens it holds in the KV cache `ahead` decode steps on.
    fn kv_tokens(&self, ahead: u64) -> u64 {
        self.input + self.generated + if self.decoding() { ahead } else { 0 }
    }

    /// The most tokens it will hold: its prompt and whole output.
    fn final_tokens(&self) -> u64 {
        self.input + self.output
    }
}

/// A serving run in progress: the client's sending, the engine's waiting
/// and running requests, the clock and what has been measured.
pub(super) struct Sim<'a> {
    pub(super) work: &'a Work,
    pub(super) p: &'a TimingParams,
    /// Each request's (prompt, output) lengths; empty: all at `default_lengths`.
    pub(super) lengths: &'a [(u64, u64)],
    pub(super) default_lengths: (u64, u64),
    /// Requests to send.
    pub(super) n: u64,
    /// When each request is due (None: all at once).
    pub(super) schedule: Option<crate::arrivals::Schedule>,
    /// The client's concurrency limit.
    pub(super) max_conc: u64,
    /// What the server adds to a request before the engine sees it, s.
    pub(super) overhead_s: f64,
    /// The engine's running limit.
    pub(super) max_running: u64,
    /// Tokens a step may compute (`max_num_batched_tokens`).
    pub(super) budget: u64,
    pub(super) now: f64,
    /// The next request to send.
    pub(super) next: u64,
    /// Sent, not finished.
    pub(super) in_flight: u64,
    pub(super) waiting: std::collections::VecDeque<Seq>,
    pub(super) running: Vec<Seq>,
    /// When the client last had a slot freed while it was at its limit.
    pub(super) slot_freed_s: f64,
    /// When the server is done with the last request sent: it takes
    /// requests one at a time (`TimingParams::serve_request_ms`).
    pub(super) server_free_s: f64,
    /// Requests admitted so far (each one's `Seq::order`).
    pub(super) admitted: u64,
    /// The most requests running at once.
    pub(super) peak_running: u64,
    pub(super) tally: Tally,
}

impl<'a> Sim<'a> {
    pub(super) fn new(
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
            admitted: 0,
            peak_running: 0,
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

    /// The scheduler's loop: send, admit, run one step (or a stretch of
    /// identical ones), retire, until every request has finished.
    pub(super) fn run(mut self) -> Result<ServeResult> {
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
            self.make_room();
            let next_event = self.next_event();
            let prompt_pending = self.running.iter().any(|s| !s.decoding());
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
                target: input,
                prefilled: 0,
                generated: 0,
                first_token_s: 0.0,
                order: 0,
            });
            self.next += 1;
            self.in_flight += 1;
        }
    }

    /// Admit the requests the engine has seen into free running slots, in
    /// order, while the KV cache has blocks for each one's tokens (vLLM's
    /// scheduler stops at the first it cannot allocate).
    fn admit(&mut self) {
        let mut used = self.used_blocks(0);
        while (self.running.len() as u64) < self.max_running {
            let Some(front) = self.waiting.front() else {
                break;
            };
            if front.ready_s > self.now {
                break;
            }
            if !self.takes(front, used) {
                break;
            }
            used += self.blocks_of(front, 0);
            if let Some(mut s) = self.waiting.pop_front() {
                s.order = self.admitted;
                self.admitted += 1;
                self.running.push(s);
            }
        }
        self.peak_running = self.peak_running.max(self.running.len() as u64);
    }

    /// Whether the KV cache has blocks for `s` beside `used` (a lone
    /// request always fits: the server checked `max_model_len` against
    /// the pool).
    fn takes(&self, s: &Seq, used: u64) -> bool {
        self.work.kv.is_none()
            || self.running.is_empty()
            || used + self.blocks_of(s, 0) <= self.usable_blocks()
    }

    /// The KV blocks there are (no limit without a pool).
    fn usable_blocks(&self) -> u64 {
        self.work
            .kv
            .as_ref()
            .map_or(u64::MAX, |kv| kv.usable_blocks)
    }

    /// Blocks `s` holds with decoding requests `ahead` steps on (0 without
    /// a pool).
    fn blocks_of(&self, s: &Seq, ahead: u64) -> u64 {
        self.work
            .kv
            .as_ref()
            .map_or(0, |kv| kv.request_blocks(s.kv_tokens(ahead)))
    }

    /// Blocks the running requests hold `ahead` decode steps on.
    pub(super) fn used_blocks(&self, ahead: u64) -> u64 {
        self.running.iter().map(|s| self.blocks_of(s, ahead)).sum()
    }

    /// Whether the running requests could all finish without running out
    /// of blocks: then nothing is ever preempted.
    pub(super) fn never_short(&self) -> bool {
        match &self.work.kv {
            None => true,
            Some(kv) => {
                let most: u64 = self
                    .running
                    .iter()
                    .map(|s| kv.request_blocks(s.final_tokens()))
                    .sum();
                most <= kv.usable_blocks
            }
        }
    }

    /// Before a step: while the running requests' next tokens need more
    /// blocks than there are, the last admitted is preempted, its blocks
    /// freed and its tokens to be recomputed when it is admitted again, at
    /// the head of the queue (vLLM V1's `Scheduler.schedule`, recompute
    /// preemption; V0's for single sequences too). A lone request always
    /// fits (the server checked `max_model_len` against the pool).
    fn make_room(&mut self) {
        if self.never_short() {
            return;
        }
        while self.running.len() > 1 && self.used_blocks(1) > self.usable_blocks() {
            let last = self
                .running
                .iter()
                .enumerate()
                .max_by_key(|(_, s)| s.order)
                .map(|(i, _)| i);
            if let Some(i) = last {
                let mut s = self.running.swap_remove(i);
                s.target = s.input + s.generated;
                s.prefilled = 0;
                s.ready_s = self.now;
                self.waiting.push_front(s);
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

    /// The next moment something new can reach the engine. A request at
    /// the head of the queue that the KV cache cannot take waits for a
    /// request to finish, and the ones behind it with it.
    fn next_event(&self) -> Option<f64> {
        if let Some(front) = self.waiting.front() {
            if !self.takes(front, self.used_blocks(0)) {
                return None;
            }
        }
        let send = (self.next < self.n && self.in_flight < self.max_conc)
            .then(|| self.due(self.next).max(self.server_free_s) + self.overhead_s);
        let seen = self.waiting.front().map(|s| s.ready_s);
        match (send, seen) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Finished requests leave, their figures recorded; their slots free.
    fn retire_finished(&mut self) {
        let mut i = 0;
        while i < self.running.len() {
            let done = self
                .running
                .get(i)
                .is_some_and(|s| s.decoding() && s.generated >= s.output);
            if done {
                let s = self.running.swap_remove(i);
                self.record(&s);
            } else {
                i += 1;
            }
        }
    }
}
