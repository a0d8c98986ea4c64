//! Steady state allocates and frees nothing: a global allocator counting both around the engine
//! benchmark's timed Interest and Data phases (after its warm-up run), for every prefetch mode.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use ndnfwd_fwd::bench::{run, BenchConfig, PrefetchSelect};

struct Counting;

static CALLS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the counter is a side
// effect that touches no allocated memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours, passed through.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours, passed through.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours, passed through.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours, passed through.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations and frees so far.
fn allocator_calls() -> u64 {
    CALLS.load(Ordering::Relaxed)
}

#[test]
fn no_allocation_or_free_per_packet_after_warm_up() {
    for workload in ["so", "yuan7"] {
        let cfg = BenchConfig {
            fib_entries: 20_000,
            pit_capacity: 8192,
            // Smaller than one phase: the Data phase evicts in steady state.
            cs_capacity: 4096,
            names: workload.into(),
            prefetch: PrefetchSelect::All,
            batch: 32,
            workers: vec![1],
            runs: 2,
            alloc_count: Some(allocator_calls),
            ..BenchConfig::default()
        };
        let report = run(&cfg, |_| {}).expect("bench runs");
        assert_eq!(report.rows.len(), 4);
        for row in &report.rows {
            assert_eq!(row.unmatched_outputs, 0, "{workload} {}", row.prefetch);
            assert_eq!(
                row.allocations_per_packet,
                Some(0.0),
                "{workload} {}: allocations or frees in the timed phases",
                row.prefetch
            );
        }
    }
    // The counter itself works (so a zero above means something).
    let before = allocator_calls();
    let v: Vec<u8> = Vec::with_capacity(10);
    let allocated = allocator_calls();
    assert!(allocated > before);
    drop(v);
    assert!(allocator_calls() > allocated);
}
