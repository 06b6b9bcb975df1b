//! The reference run (docs/reference/): the capacity model must reproduce
//! every measured status and the allocator figures the measurement implies.

// Tests assert by panicking; the workspace's no-panic lints are for the product.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use decodecalc_core::allocator::GroupKind;
use decodecalc_core::matrix::{matrix, Phase, Status};
use decodecalc_core::scenario::{NoFiles, NonKvSource, Request};
use decodecalc_tests::{reference, reference_measured};

#[test]
fn allocator_figures_match_the_worked_example_and_the_measurement() {
    let (_, cap) = reference();
    assert_eq!(cap.block_size_tokens, 4_896);
    assert_eq!(cap.bytes_per_block, 31_961_088);
    assert_eq!(cap.kv_groups.len(), 6);
    let attention: Vec<_> = cap
        .kv_groups
        .iter()
        .filter(|g| g.kind == GroupKind::FullAttention)
        .collect();
    assert_eq!(attention.len(), 1);
    assert_eq!(attention[0].layers, 6);
    assert_eq!(
        cap.kv_groups
            .iter()
            .filter(|g| g.kind == GroupKind::Mamba)
            .map(|g| g.layers)
            .sum::<u64>(),
        28
    );
    assert!((403..=408).contains(&cap.num_blocks), "{}", cap.num_blocks);
    assert!(
        (1_179_648..1_310_720).contains(&cap.kv_cache_tokens),
        "{}",
        cap.kv_cache_tokens
    );
    assert_eq!(cap.requested_bytes, 23_911_838_516);
    // Memory adds up: requested = non-KV + KV pool; pool = blocks + leftover.
    assert_eq!(cap.non_kv_bytes + cap.kv_pool_bytes, cap.requested_bytes);
    assert_eq!(
        cap.num_blocks * cap.bytes_per_block + cap.kv_unallocated_bytes,
        cap.kv_pool_bytes
    );
    assert!(matches!(cap.non_kv_source, NonKvSource::Pinned { .. }));
}

#[test]
fn first_principles_non_kv_is_within_10_percent_of_the_pinned_figure() {
    let (_, cap) = reference();
    let err = cap.non_kv_estimate_bytes as f64 / cap.non_kv_bytes as f64 - 1.0;
    assert!(err.abs() < 0.10, "estimate off by {:.1}%", err * 100.0);
    // Recorded in the README: the estimate is 7.1% below the pin.
    assert!((-0.075..-0.065).contains(&err), "{:.2}%", err * 100.0);
}

#[test]
fn every_measured_status_is_predicted() {
    let (plan, cap) = reference();
    let m = matrix(&plan, &cap).unwrap();
    let measured = reference_measured();
    assert_eq!(measured.len(), 45);
    let mut decode = 0;
    for row in &measured {
        let cell = m
            .cells
            .iter()
            .find(|c| {
                c.phase == row.phase
                    && c.context_tokens == row.context_tokens
                    && c.concurrency == row.concurrency
            })
            .unwrap_or_else(|| panic!("no predicted cell for {row:?}"));
        assert_eq!(cell.status, row.status, "{row:?}");
        if row.phase == Phase::Decode {
            decode += 1;
            // Measured average active requests: C where valid, 67.00 where queued.
            assert_eq!(cell.avg_active_requests, row.avg_active_requests, "{row:?}");
        }
    }
    assert_eq!(decode, 40);
    let queued: Vec<_> = m
        .cells
        .iter()
        .filter(|c| c.status == Status::Queued)
        .collect();
    assert_eq!(queued.len(), 1);
    assert_eq!((queued[0].context_tokens, queued[0].concurrency), (0, 128));
    assert_eq!(queued[0].running_requests, 67);
}

#[test]
fn lower_utilization_moves_the_boundary_as_the_harness_rule_says() {
    // At 0.90 the pool shrinks by ~0.95 GiB: 31 fewer blocks, so 62 requests
    // run at 0 x 128 and 64K x 16 needs 1,179,648 tokens > the logged size.
    let req = Request {
        engine: decodecalc_core::engine::EngineSettings {
            gpu_memory_utilization: Some(0.90),
            ..Default::default()
        },
        ..Request::default()
    };
    let plan = req.resolve(&NoFiles).unwrap();
    let cap = plan.capacity().unwrap();
    assert_eq!(cap.num_blocks, 373);
    let m = matrix(&plan, &cap).unwrap();
    let cell = |ctx: u64, c: u64| {
        m.cells
            .iter()
            .find(|x| x.phase == Phase::Decode && x.context_tokens == ctx && x.concurrency == c)
            .unwrap()
            .clone()
    };
    assert_eq!(cell(0, 128).running_requests, 62);
    assert_eq!(cell(65_536, 16).status, Status::OverCapacity);
    assert_eq!(cell(32_768, 16).status, Status::Valid);
}

#[test]
fn with_the_estimate_instead_of_the_pin_one_status_moves() {
    // The first-principles non-KV estimate (7.1% low) gives 429 blocks instead
    // of 405: the logged size rises past 1,310,720 tokens, so the harness would
    // have run 32K x 32, and 71 rather than 67 requests run at 0 x 128.
    let plan = Request {
        estimate_non_kv: true,
        ..Request::default()
    }
    .resolve(&NoFiles)
    .unwrap();
    assert_eq!(plan.non_kv_source, NonKvSource::Estimated);
    let cap = plan.capacity().unwrap();
    assert_eq!(cap.num_blocks, 429);
    assert_eq!(cap.kv_cache_tokens, 1_338_806);
    let m = matrix(&plan, &cap).unwrap();
    let measured = reference_measured();
    let mismatched: Vec<(u64, u64)> = measured
        .iter()
        .filter(|r| r.phase == Phase::Decode)
        .filter(|r| {
            let c = m
                .cells
                .iter()
                .find(|c| {
                    c.phase == Phase::Decode
                        && c.context_tokens == r.context_tokens
                        && c.concurrency == r.concurrency
                })
                .unwrap();
            c.status != r.status
        })
        .map(|r| (r.context_tokens, r.concurrency))
        .collect();
    assert_eq!(mismatched, vec![(32_768, 32)]);
    let q = m
        .cells
        .iter()
        .find(|c| c.phase == Phase::Decode && c.context_tokens == 0 && c.concurrency == 128)
        .unwrap();
    assert_eq!(q.running_requests, 71);
}

#[test]
fn kv_cache_memory_bytes_sets_the_pool_directly() {
    let plan = Request {
        engine: decodecalc_core::engine::EngineSettings {
            kv_cache_memory_bytes: Some(100 * 31_961_088),
            ..Default::default()
        },
        ..Request::default()
    }
    .resolve(&NoFiles)
    .unwrap();
    let cap = plan.capacity().unwrap();
    assert_eq!(cap.num_blocks, 100);
    assert_eq!(cap.max_running_requests[0].max_running_requests, 99 / 6);
}
