//! The engine's steps in a serving run: one step's time, a lone prompt's
//! identical chunks as one stretch, a chunked-prefill step beside the
//! decodes, and a stretch of identical decode steps evaluated once at its
//! middle context.

use super::sim::{Seq, Sim};
use super::MAX_STEPS;
use crate::timing::{Batch, Work};

impl Sim<'_> {
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

    /// A lone request's long prompt: its full chunks before the last are
    /// identical steps but for where they start, which the attention pairs
    /// grow with linearly, so a stretch of them is one step at the middle
    /// chunk, times their number (as `Work::prefill` sums them). How many
    /// chunks the stretch takes (until something new can arrive), 0 when
    /// there is no such prompt.
    pub(super) fn lone_chunks(&self, next_event: Option<f64>) -> u64 {
        let budget = self.budget;
        match self.running.as_slice() {
            [s] if s.target - s.prefilled.min(s.target) > 2 * budget => {
                let full = (s.target - s.prefilled - 1) / budget;
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
    pub(super) fn lone_prefill_stretch(&mut self, chunks: u64) {
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
    pub(super) fn chunked_prefill_step(&mut self) {
        let mut left = self.budget;
        let mut batch = Batch::default();
        for s in self.running.iter().filter(|s| s.decoding()) {
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
            if !s.decoding() {
                let c = (s.target - s.prefilled).min(left);
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
        for s in self.running.iter_mut().filter(|s| s.decoding()) {
            s.generated += 1;
            decoded += 1.0;
        }
        if decoded > 0.0 {
            self.tally.itl.push((dt * 1e3, decoded));
        }
        for (i, c) in chunks {
            if let Some(s) = self.running.get_mut(i) {
                s.prefilled += c;
                if s.decoding() {
                    // The last chunk's step samples the next token: the
                    // first, unless the request was preempted after it.
                    if s.generated == 0 {
                        s.first_token_s = self.now;
                    }
                    s.generated += 1;
                }
            }
        }
    }

    /// A stretch of identical decode steps: until the first request
    /// finishes, or (with a slot free) the next one reaches the engine.
    pub(super) fn decode_stretch(&mut self, next_event: Option<f64>) {
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
        let k = k_finish
            .min(k_arrival)
            .min(self.steps_with_blocks(k_finish))
            .min(MAX_STEPS);
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
}

impl Sim<'_> {
    /// Decode steps (1 to `most`) the KV cache has blocks for, every
    /// running request growing a token a step; `most` when it never runs
    /// short. At least 1: `make_room` freed the next step's blocks.
    fn steps_with_blocks(&self, most: u64) -> u64 {
        if self.never_short() {
            return most;
        }
        let usable = self
            .work
            .kv
            .as_ref()
            .map_or(u64::MAX, |kv| kv.usable_blocks);
        // The blocks held grow with the steps: the last k that fits.
        let (mut lo, mut hi) = (1, most.max(1));
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.used_blocks(mid) <= usable {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
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
