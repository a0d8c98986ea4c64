//! `ndnfwd bench ...`: whole-component benchmarks that print a readable summary, or one JSON
//! object with `--json`. The measuring code lives in the library crates; this module only parses
//! options, shows progress and prints.

use std::io::IsTerminal;

use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use ndnfwd_fib::bench::{run_fib_bench, FibBenchConfig, FibBenchReport, PrefetchMode};
use ndnfwd_fib::LpmAlgorithm;
use ndnfwd_workload::{Params, WorkloadSpec};

/// Benchmarks.
#[derive(Subcommand, Debug)]
pub enum Bench {
    /// FIB longest-prefix match: lookups per second, cycles and probes per lookup, bytes per prefix.
    Fib(FibArgs),
}

/// Options of `bench fib`.
#[derive(Args, Debug)]
pub struct FibArgs {
    /// FIB prefixes to load.
    #[arg(long, default_value_t = 1 << 20)]
    entries: u64,
    /// Lookup names per timed run.
    #[arg(long, default_value_t = 1 << 20)]
    names: u64,
    /// Name workload: so, yuan7, yuan15 or real:PATH.
    #[arg(long, default_value = "so")]
    workload: WorkloadSpec,
    /// LPM algorithm; `all` measures the three side by side in one run.
    #[arg(long, value_enum, default_value_t = Algo::All)]
    algo: Algo,
    /// Two-stage depth M (default: the most-likely heuristic over the FIB).
    #[arg(long)]
    m: Option<u8>,
    /// Prefetch mode; `both` measures none and all side by side.
    #[arg(long, value_enum, default_value_t = Prefetch::Both)]
    prefetch: Prefetch,
    /// Timed runs; the median is reported.
    #[arg(long, default_value_t = 5)]
    runs: u32,
    /// Slots per home bucket (table load factor).
    #[arg(long, default_value_t = 4)]
    load_factor: usize,
    /// Workload seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    json: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum Algo {
    LongestFirst,
    TwoStage,
    Binary,
    All,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum Prefetch {
    None,
    All,
    Both,
}

/// Runs one benchmark; errors are printed by the caller.
pub fn run(bench: Bench) -> Result<(), String> {
    match bench {
        Bench::Fib(args) => fib(&args),
    }
}

fn fib(a: &FibArgs) -> Result<(), String> {
    let params = Params {
        prefixes: Some(a.entries),
        seed: a.seed,
        ..Params::default()
    };
    let workload = a
        .workload
        .build(&params)
        .map_err(|e| format!("workload {}: {e:?}", a.workload))?;
    let algos: &[LpmAlgorithm] = match a.algo {
        Algo::LongestFirst => &[LpmAlgorithm::LongestFirst],
        Algo::TwoStage => &[LpmAlgorithm::TwoStage],
        Algo::Binary => &[LpmAlgorithm::BinarySearch],
        Algo::All => &[
            LpmAlgorithm::LongestFirst,
            LpmAlgorithm::TwoStage,
            LpmAlgorithm::BinarySearch,
        ],
    };
    let modes: &[PrefetchMode] = match a.prefetch {
        Prefetch::None => &[PrefetchMode::None],
        Prefetch::All => &[PrefetchMode::All],
        Prefetch::Both => &[PrefetchMode::None, PrefetchMode::All],
    };
    let mut rows: Vec<FibBenchReport> = Vec::new();
    for &algorithm in algos {
        for &prefetch in modes {
            let cfg = FibBenchConfig {
                entries: a.entries,
                lookups: a.names,
                algorithm,
                m: a.m,
                prefetch,
                runs: a.runs,
                load_factor: a.load_factor,
                key: *b"ndnfwd-bench-key",
            };
            let bar = progress(&format!("loading FIB for {algorithm:?}/{prefetch:?}"));
            let report = run_fib_bench(&cfg, &workload, |done, total| {
                bar.set_length(total);
                bar.set_position(done);
            });
            bar.finish_and_clear();
            rows.push(report.map_err(|e| format!("bench fib: {e}"))?);
        }
    }
    if a.json {
        let out = serde_json::json!({
            "bench": "fib",
            "workload": a.workload.to_string(),
            "machine": machine(),
            "rows": rows,
        });
        println!("{out}");
    } else {
        println!(
            "{:<14} {:<8} {:>3} {:>10} {:>9} {:>7} {:>6} {:>9} {:>8} {:>7}",
            "algorithm",
            "prefetch",
            "M",
            "Mlookup/s",
            "cyc/look",
            "probes",
            "max",
            "B/prefix",
            "expand%",
            "load s"
        );
        for r in &rows {
            println!(
                "{:<14} {:<8} {:>3} {:>10.2} {:>9.0} {:>7.2} {:>6} {:>9.1} {:>8.1} {:>7.1}",
                format!("{:?}", r.algorithm),
                format!("{:?}", r.prefetch),
                r.m,
                r.lookups_per_sec / 1e6,
                r.cycles_per_lookup,
                r.probes_mean,
                r.probes_max,
                r.bytes_per_prefix.total_used,
                r.fib_expansion_pct,
                r.load_seconds,
            );
        }
    }
    Ok(())
}

/// A progress bar on stderr when it is a terminal, hidden otherwise (CI logs, pipes).
fn progress(msg: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(msg.to_owned());
    bar
}

/// The machine a figure was measured on, recorded with every JSON result.
pub fn machine() -> serde_json::Value {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split(':').nth(1))
        })
        .map(str::trim)
        .unwrap_or("unknown");
    serde_json::json!({
        "cpu": model,
        "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    })
}
