//! Generation throughput of one workload through the no-allocation `_into` API, as JSON.
//!
//! `cargo run --release -p ndnfwd-workload --example rate -- SPEC [NAMES] [SEED]`
//! (for example `so 100000000`). Prints the name shapes from `describe` and the rates of
//! prefix and Interest generation, single-threaded. Rates are per second of this thread's CPU
//! time (`/proc/thread-self/schedstat`, Linux) because shared machines make wall time noisy;
//! wall-clock seconds are printed alongside.

use std::hint::black_box;
use std::time::Instant;

use ndnfwd_workload::{NameSource, Params, WorkloadSpec};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let spec: WorkloadSpec = args.next().unwrap_or_else(|| "so".into()).parse()?;
    let names: u64 = args.next().map_or(Ok(10_000_000), |s| s.parse())?;
    let seed: u64 = args.next().map_or(Ok(1), |s| s.parse())?;
    let workload = spec.build(&Params {
        prefixes: Some(names),
        seed,
        ..Params::default()
    })?;
    let stats = workload.describe(100_000);

    let mut buf = Vec::with_capacity(4096);
    let mut bytes = 0u64;
    let (prefix_cpu, prefix_wall) = timed(|| {
        for i in 0..names {
            workload.prefix_into(i, &mut buf);
            bytes += black_box(&buf).len() as u64;
        }
    })?;
    let (interest_cpu, interest_wall) = timed(|| {
        for i in 0..names {
            workload.interest_into(i, &mut buf);
            bytes += black_box(&buf).len() as u64;
        }
    })?;

    let out = serde_json::json!({
        "workload": spec.to_string(),
        "names": names,
        "seed": seed,
        "stats": stats,
        "load_report": workload.load_report(),
        "prefix_cpu_secs": prefix_cpu,
        "prefix_wall_secs": prefix_wall,
        "prefixes_per_cpu_sec": names as f64 / prefix_cpu,
        "prefix_cpu_ns_each": prefix_cpu * 1e9 / names as f64,
        "interest_cpu_secs": interest_cpu,
        "interest_wall_secs": interest_wall,
        "interests_per_cpu_sec": names as f64 / interest_cpu,
        "interest_cpu_ns_each": interest_cpu * 1e9 / names as f64,
        "bytes_generated": bytes,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

/// Runs `f`, returning (thread CPU seconds, wall seconds).
fn timed(f: impl FnOnce()) -> std::io::Result<(f64, f64)> {
    let (cpu, wall) = (thread_cpu_ns()?, Instant::now());
    f();
    Ok((
        (thread_cpu_ns()? - cpu) as f64 / 1e9,
        wall.elapsed().as_secs_f64(),
    ))
}

/// Nanoseconds this thread has run on a CPU: the first field of its schedstat.
fn thread_cpu_ns() -> std::io::Result<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat")?;
    stat.split_whitespace()
        .next()
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| std::io::Error::other("unexpected schedstat format"))
}
