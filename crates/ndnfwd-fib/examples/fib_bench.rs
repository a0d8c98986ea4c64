//! Runs `ndnfwd_fib::bench::run_fib_bench` and prints one JSON line per configuration, until the
//! `ndnfwd bench fib` CLI wires it in.
//!
//! ```text
//! cargo run --release -p ndnfwd-fib --example fib_bench -- \
//!     --workload so --entries 1000000 --lookups 1000000 --algo all --prefetch both --runs 5
//! ```
//! Options: `--workload so|yuan7|yuan15|real:PATH`, `--entries N`, `--lookups N`,
//! `--algo lf|2s|bs|all`, `--m M` (default: most-likely heuristic), `--prefetch none|all|both`,
//! `--runs N`, `--lf LOAD_FACTOR`, `--seed S`.

use ndnfwd_fib::bench::{run_fib_bench, FibBenchConfig, PrefetchMode};
use ndnfwd_fib::LpmAlgorithm;
use ndnfwd_workload::{Params, WorkloadSpec};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |key: &str| {
        args.iter()
            .position(|a| a == key)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let num = |key: &str, default: u64| get(key).and_then(|v| v.parse().ok()).unwrap_or(default);
    let spec: WorkloadSpec = get("--workload")
        .unwrap_or_else(|| "so".into())
        .parse()
        .unwrap_or_else(|e| panic!("--workload: {e:?}"));
    let entries = num("--entries", 1 << 20);
    let params = Params {
        prefixes: Some(entries),
        seed: num("--seed", 1),
        ..Params::default()
    };
    let workload = spec
        .build(&params)
        .unwrap_or_else(|e| panic!("workload: {e:?}"));
    let algos: Vec<LpmAlgorithm> = match get("--algo").as_deref().unwrap_or("all") {
        "all" => vec![
            LpmAlgorithm::LongestFirst,
            LpmAlgorithm::TwoStage,
            LpmAlgorithm::BinarySearch,
        ],
        a => vec![a.parse().unwrap_or_else(|()| panic!("--algo {a}"))],
    };
    let prefetch = match get("--prefetch").as_deref().unwrap_or("both") {
        "none" => vec![PrefetchMode::None],
        "all" => vec![PrefetchMode::All],
        _ => vec![PrefetchMode::None, PrefetchMode::All],
    };
    for algorithm in algos {
        for &pf in &prefetch {
            let cfg = FibBenchConfig {
                entries,
                lookups: num("--lookups", 1 << 20),
                algorithm,
                m: get("--m").and_then(|v| v.parse().ok()),
                prefetch: pf,
                runs: num("--runs", 5) as u32,
                load_factor: num("--lf", 4) as usize,
                key: *b"ndnfwd-bench-key",
            };
            let report = run_fib_bench(&cfg, &workload, |done, total| {
                eprint!("\rloading {done}/{total}   ");
            })
            .unwrap_or_else(|e| panic!("bench: {e}"));
            eprintln!();
            println!("{}", serde_json::to_string(&report).unwrap_or_default());
        }
    }
}
