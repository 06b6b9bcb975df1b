//! The context x concurrency matrix as the harness runs it
//! (../shared/reference/harness.md): per cell, how many requests the engine
//! runs at once and the status the harness reports.

use crate::allocator::{admit, RunningLimit};
use crate::error::{Error, Result};
use crate::scenario::{Capacity, Plan};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Prefill,
    Decode,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Prefill => "prefill",
            Phase::Decode => "decode",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// All requests ran at once.
    Valid,
    /// Run, but the engine could not run all of them at once.
    Queued,
    /// Not run: the harness judged it beyond the server's KV cache.
    OverCapacity,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Valid => "valid",
            Status::Queued => "queued",
            Status::OverCapacity => "over_capacity",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        match text {
            "valid" => Some(Status::Valid),
            "queued" => Some(Status::Queued),
            "over_capacity" => Some(Status::OverCapacity),
            _ => None,
        }
    }
}

/// One cell of the matrix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub phase: Phase,
    pub context_tokens: u64,
    pub concurrency: u64,
    pub status: Status,
    /// Requests running at once, averaged over the window (absent when not run).
    pub avg_active_requests: Option<f64>,
    /// Requests the engine runs at once.
    pub running_requests: u64,
    pub limit: RunningLimit,
    /// The harness's test: `concurrency * (context + max_tokens)` tokens...
    pub harness_tokens_needed: u64,
    /// ...against the server's logged KV cache size in tokens.
    pub harness_budget_tokens: u64,
    pub blocks_per_request: u64,
    pub shared_blocks: u64,
    /// Blocks all `concurrency` requests would hold at once.
    pub blocks_needed: u64,
    pub usable_blocks: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Matrix {
    pub scenario: String,
    pub cells: Vec<Cell>,
}

/// Compute every cell: the prefill rows, then the decode grid row by row.
pub fn matrix(plan: &Plan, capacity: &Capacity) -> Result<Matrix> {
    if let Some(why) = &capacity.startup_failure {
        return Err(Error::new(format!("vLLM would not start: {why}")).with_hint(
            "lower --max-model-len, raise --gpu-memory-utilization, choose a smaller --kv-cache-dtype or a larger GPU",
        ));
    }
    let layout = &capacity.layout;
    let pool = &capacity.pool;
    let h = &plan.harness;
    let mut cells = Vec::new();
    let mut cell = |phase: Phase, ctx: u64, c: u64| {
        // Steady state right after admission: the prompt plus the first token.
        // Decode cells' prompts were cached by the scout; the scout's own cold
        // prefill (the prefill rows) finds nothing cached.
        let cached = phase == Phase::Decode;
        let a = admit(layout, pool, &plan.engine, ctx, ctx + 1, c, cached);
        // The prefill scout asks for one output token; decode cells for max_tokens.
        let out_tokens = match phase {
            Phase::Prefill => 1,
            Phase::Decode => h.max_tokens,
        };
        let needed = c.saturating_mul(ctx + out_tokens);
        let budget = pool.kv_cache_tokens;
        // Harness rule: skip when C * (context + max_tokens) exceeds the
        // server's KV cache tokens, except context 0 with C <= max running requests.
        let exempt = ctx == 0 && c <= plan.engine.max_num_seqs;
        let status = if phase == Phase::Decode && needed > budget && !exempt {
            Status::OverCapacity
        } else if a.running < c {
            Status::Queued
        } else {
            Status::Valid
        };
        let run = status != Status::OverCapacity;
        cells.push(Cell {
            phase,
            context_tokens: ctx,
            concurrency: c,
            status,
            avg_active_requests: (run && phase == Phase::Decode).then_some(a.running as f64),
            running_requests: if run { a.running } else { 0 },
            limit: a.limit,
            harness_tokens_needed: needed,
            harness_budget_tokens: budget,
            blocks_per_request: a.blocks_per_request,
            shared_blocks: a.shared_blocks,
            blocks_needed: a
                .shared_blocks
                .saturating_add(c.saturating_mul(a.blocks_per_request)),
            usable_blocks: pool.usable_blocks,
        });
    };
    for &ctx in &h.prefill_contexts_tokens {
        cell(Phase::Prefill, ctx, 1);
    }
    for &ctx in &h.contexts_tokens {
        for &c in &h.concurrency {
            cell(Phase::Decode, ctx, c);
        }
    }
    Ok(Matrix {
        scenario: plan.scenario_id.clone(),
        cells,
    })
}
