//! Runs the engine benchmark and prints its JSON report, until `ndnfwd bench engine` exists:
//!
//! ```text
//! cargo run --release -p ndnfwd-fwd --example bench_engine -- \
//!     fib_entries=1000000 pit_capacity=1000000 cs_capacity=1000000 names=so algo=lf \
//!     prefetch=all batch=32 workers=1 runs=5
//! ```
//!
//! Every parameter is `key=value` and optional (defaults: `BenchConfig::default()`). A counting
//! global allocator feeds `allocations_per_packet`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use ndnfwd_fwd::bench::{run, BenchConfig};

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call unchanged to the system allocator and only bumps a counter.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours, passed through.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours, passed through.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours, passed through.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours, passed through.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn parse(cfg: &mut BenchConfig, key: &str, v: &str) -> Result<(), String> {
    let bad = || format!("bad value for {key}: {v}");
    match key {
        "fib_entries" => cfg.fib_entries = v.parse().map_err(|_| bad())?,
        "pit_capacity" => cfg.pit_capacity = v.parse().map_err(|_| bad())?,
        "cs_capacity" => cfg.cs_capacity = v.parse().map_err(|_| bad())?,
        "names" => cfg.names = v.to_string(),
        "algo" => cfg.algo = v.parse().map_err(|_| bad())?,
        "m" => cfg.m = Some(v.parse().map_err(|_| bad())?),
        "prefetch" => cfg.prefetch = v.parse().map_err(|_| bad())?,
        "batch" => cfg.batch = v.parse().map_err(|_| bad())?,
        "workers" => cfg.workers = v.parse().map_err(|_| bad())?,
        "runs" => cfg.runs = v.parse().map_err(|_| bad())?,
        "seed" => cfg.seed = v.parse().map_err(|_| bad())?,
        _ => return Err(format!("unknown parameter {key}")),
    }
    Ok(())
}

fn main() {
    let mut cfg = BenchConfig {
        alloc_count: Some(|| ALLOCS.load(Ordering::Relaxed)),
        ..BenchConfig::default()
    };
    for arg in std::env::args().skip(1) {
        let parsed = arg
            .split_once('=')
            .ok_or_else(|| format!("expected key=value, got {arg}"))
            .and_then(|(k, v)| parse(&mut cfg, k, v));
        if let Err(e) = parsed {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
    match run(&cfg, |s| eprintln!("{s}")) {
        Ok(report) => match serde_json::to_string_pretty(&report) {
            Ok(json) => println!("{json}"),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        },
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
