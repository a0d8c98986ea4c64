//! `ndnfwd bench ...`: whole-component benchmarks that print a readable summary, or one JSON
//! object with `--json`. The measuring code lives in the library crates; this module only parses
//! options, shows progress and prints.

mod e2e;
mod offload;

use std::io::IsTerminal;

use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use ndnfwd_fib::bench::{run_fib_bench, FibBenchConfig, FibBenchReport, PrefetchMode};
use ndnfwd_fib::LpmAlgorithm;
use ndnfwd_fwd::bench::memory::{self, MemoryConfig};
use ndnfwd_fwd::bench::{BenchConfig as EngineConfig, PrefetchSelect as EnginePrefetch};
use ndnfwd_workload::{Params, WorkloadSpec};

/// Benchmarks.
#[derive(Subcommand, Debug)]
pub enum Bench {
    /// FIB longest-prefix match: lookups per second, cycles and probes per lookup, bytes per prefix.
    Fib(FibArgs),
    /// The forwarding engine on pre-encoded packets: an Interest phase (CS miss, PIT insert, LPM)
    /// then a Data phase (PIT hit, CS insert), cycles per packet and per stage.
    Engine(EngineArgs),
    /// Seed 003's switch-offloaded Data path: hashed-PIT share, estimator, XDP on veth (root).
    Offload(offload::OffloadArgs),
    /// What the machine's memory gives 1 and N threads (dependent DRAM loads, 1 and several
    /// chains per thread): the ceiling under `bench engine --workers N`.
    Memory(MemoryArgs),
    /// End to end: `gen` consumer -> forwarder under test -> `gen` producer over Unix, UDP and
    /// (as root) Ethernet across veth; exchanges/s and RTT p50/p99, plus the generator self-test.
    E2e(e2e::E2eArgs),
}

/// Options of `bench engine`.
#[derive(Args, Debug)]
pub struct EngineArgs {
    /// FIB prefixes.
    #[arg(long, default_value_t = 1 << 20)]
    fib_entries: u64,
    /// PIT capacity of each worker; also the Interests (and Data) per phase.
    #[arg(long, default_value_t = 1 << 20)]
    pit_capacity: u32,
    /// CS capacity of each worker, in packets.
    #[arg(long, default_value_t = 1 << 20)]
    cs_capacity: u32,
    /// Name workload: so, yuan7, yuan15 or real:PATH.
    #[arg(long, default_value = "so")]
    names: String,
    /// LPM algorithm; `all` measures the three one after the other in one run.
    #[arg(long, value_enum, default_value_t = Algo::LongestFirst)]
    algo: Algo,
    /// Two-stage depth M (default: the most-likely heuristic).
    #[arg(long)]
    m: Option<u8>,
    /// Prefetch mode: none, bucket, prehash, speculative, or all (one row per mode, same run).
    #[arg(long, default_value = "all", value_parser = parse_prefetch)]
    prefetch: EnginePrefetch,
    /// Packets per burst.
    #[arg(long, default_value_t = 32)]
    batch: usize,
    /// Worker threads, each with its own engine and PCCT, sharing the FIB; several counts
    /// (`1,2`) are measured one after the other on the same FIB, side by side.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    workers: Vec<usize>,
    /// Timed runs; the median is reported.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Workload seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    json: bool,
}

fn parse_prefetch(s: &str) -> Result<EnginePrefetch, String> {
    s.parse().map_err(|()| {
        format!("unknown prefetch mode {s}: none, bucket, prehash, speculative or all")
    })
}

/// Options of `bench memory`.
#[derive(Args, Debug)]
pub struct MemoryArgs {
    /// Array per thread, in MiB (several times the last-level cache; at most 16384).
    #[arg(long, default_value_t = 256)]
    mib: usize,
    /// Dependent loads per thread and row.
    #[arg(long, default_value_t = 1 << 24)]
    loads: u64,
    /// Threads of the many-thread rows (default: the CPUs).
    #[arg(long)]
    threads: Option<usize>,
    /// Independent chains per thread to measure (1 = latency), comma-separated, each 1 to 16.
    #[arg(long, value_delimiter = ',', default_value = "1,8")]
    chains: Vec<usize>,
    /// Translation sweep: line counts chased packed and one per 4 KiB page (the TLB's reach
    /// and the cost of a page walk), comma-separated, each 1 to 4194304; `0` skips it.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1024,4096,8192,32768,262144"
    )]
    pages: Vec<usize>,
    /// Shuffle seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    json: bool,
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

impl Algo {
    fn list(self) -> &'static [LpmAlgorithm] {
        match self {
            Self::LongestFirst => &[LpmAlgorithm::LongestFirst],
            Self::TwoStage => &[LpmAlgorithm::TwoStage],
            Self::Binary => &[LpmAlgorithm::BinarySearch],
            Self::All => &[
                LpmAlgorithm::LongestFirst,
                LpmAlgorithm::TwoStage,
                LpmAlgorithm::BinarySearch,
            ],
        }
    }
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
        Bench::Engine(args) => engine(&args),
        Bench::Offload(args) => offload::run(&args),
        Bench::Memory(args) => memory(&args),
        Bench::E2e(args) => e2e::run(&args),
    }
}

fn engine(a: &EngineArgs) -> Result<(), String> {
    crate::alloc::start_counting();
    let cfg = EngineConfig {
        fib_entries: a.fib_entries,
        pit_capacity: a.pit_capacity,
        cs_capacity: a.cs_capacity,
        names: a.names.clone(),
        algos: a.algo.list().to_vec(),
        m: a.m,
        prefetch: a.prefetch,
        batch: a.batch,
        workers: a.workers.clone(),
        runs: a.runs,
        seed: a.seed,
        alloc_count: Some(crate::alloc::allocations),
    };
    let bar = progress("engine");
    let report = ndnfwd_fwd::bench::run(&cfg, |stage| bar.set_message(stage.to_owned()))
        .map_err(|e| format!("bench engine: {e}"))?;
    bar.finish_and_clear();
    if a.json {
        return print_json("engine", &report);
    }
    println!(
        "{} FIB prefixes, batch {}, PIT {} / CS {} per worker",
        report.fib_prefixes, report.batch, report.pit_capacity, report.cs_capacity
    );
    println!(
        "{:<16} {:>7} {:<12} {:>10} {:>9} {:>10} {:>9} {:>9} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "algorithm",
        "workers",
        "prefetch",
        "I cyc/pkt",
        "I Mpps",
        "D cyc/pkt",
        "D Mpps",
        "probes/I",
        "parse",
        "hash",
        "pcct",
        "fib",
        "alloc/p"
    );
    for r in &report.rows {
        let s = &r.stages.interest;
        println!(
            "{:<16} {:>7} {:<12} {:>10.0} {:>9.2} {:>10.0} {:>9.2} {:>9.2} {:>7.0} {:>7.0} {:>7.0} {:>7.0} {:>7}",
            format!("{:?} M={}", r.algo, r.m),
            r.workers,
            r.prefetch,
            r.interest.cycles_per_packet,
            r.interest.mpps,
            r.data.cycles_per_packet,
            r.data.mpps,
            r.fib_probes_per_interest,
            s.parse,
            s.hash,
            s.pcct,
            s.fib,
            r.allocations_per_packet
                .map_or_else(|| "-".to_owned(), |v| format!("{v:.3}")),
        );
    }
    Ok(())
}

fn memory(a: &MemoryArgs) -> Result<(), String> {
    let cfg = MemoryConfig {
        mib_per_thread: a.mib,
        loads_per_thread: a.loads,
        threads: a
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from)),
        chains: a.chains.clone(),
        pages: a.pages.iter().copied().filter(|&n| n > 0).collect(),
        seed: a.seed,
    };
    let bar = progress("memory");
    bar.set_message("shuffling and chasing");
    let report = memory::run(&cfg).map_err(|e| format!("bench memory: {e}"))?;
    bar.finish_and_clear();
    if a.json {
        return print_json("memory", &report);
    }
    println!(
        "{} MiB per thread, {} dependent loads per thread and row",
        report.mib_per_thread, report.loads_per_thread
    );
    println!(
        "{:>7} {:>8} {:>12} {:>14}",
        "chains", "threads", "ns/load", "Mloads/s"
    );
    for r in &report.rows {
        println!(
            "{:>7} {:>8} {:>12.1} {:>14.1}",
            r.chains,
            r.threads,
            r.ns_per_load,
            r.loads_per_s / 1e6
        );
    }
    for s in &report.scaling {
        println!(
            "{} chain(s): {} threads move {:.2}x the loads of one",
            s.chains, s.threads, s.ratio
        );
    }
    if !report.pages.is_empty() {
        println!("one thread, one chain: lines packed, and one per 4 KiB page");
        println!(
            "{:>9} {:>10} {:>10} {:>14}",
            "lines", "packed ns", "spread ns", "translation ns"
        );
        for p in &report.pages {
            println!(
                "{:>9} {:>10.1} {:>10.1} {:>14.1}",
                p.lines, p.packed_ns, p.spread_ns, p.translation_ns
            );
        }
    }
    Ok(())
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
    let algos = a.algo.list();
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

/// Prints `report` as one JSON object, with the benchmark's name and the machine added.
fn print_json(bench: &str, report: &impl serde::Serialize) -> Result<(), String> {
    let mut out = serde_json::to_value(report).map_err(|e| e.to_string())?;
    if let Some(obj) = out.as_object_mut() {
        obj.insert("bench".into(), bench.into());
        obj.insert("machine".into(), machine());
    }
    println!("{out}");
    Ok(())
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
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let ram_kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    serde_json::json!({
        "cpu": model,
        "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "ram_gib": (ram_kib as f64 / (1u64 << 20) as f64 * 10.0).round() / 10.0,
        "kernel": kernel.trim(),
    })
}
