//! The library side of `ndnfwd bench engine`: pre-encoded packets in memory through the real
//! pipelines, outputs counted and discarded (as the seeds' simulators do).
//!
//! Per run and prefetch mode, each worker (its own [`crate::Engine`] and PIT-CS on its own thread, all
//! sharing one bulk-loaded FIB) goes through two timed phases:
//!
//! - **Interest**: distinct names, so every Interest misses the CS, inserts a PIT entry, runs
//!   the LPM and best-route, and leaves with our token (HopLimit 64 is set, so each one is
//!   rewritten into the engine's recycled buffer);
//! - **Data**: one Data per Interest, echoing our token: PIT hit by token, satisfy, CS insert
//!   (evicting once the CS is full).
//!
//! Packets are encoded before each phase, outside the timed window. With several modes (`all`)
//! every run goes through the modes in turn, so the rows come from the same runs. With several
//! LPM algorithms, each in turn gets its own FIB (the previous one is freed first), fresh
//! workers and the whole schedule, so one invocation compares algorithms side by side. With
//! several worker counts, as many workers as the largest count are started and every run also
//! goes through the counts in turn (a slot of `n` workers leaves the others waiting at the
//! barriers), so the worker scaling too comes from the same runs, not from minutes apart on a
//! machine whose speed drifts. Warm-up slots
//! come first (at least three: until the PIT and the CS have been full, phases touch fresh
//! table memory); after the timed runs one more round with stage accounting on gives the
//! per-stage split (fenced cycle reads cost some overlap, so it is kept out of the medians).
//! Allocations are counted by the caller's global allocator through [`BenchConfig::alloc_count`].

pub mod memory;
mod worker;

use std::sync::Barrier;
use std::time::Instant;

use ndn_packet::{FaceId, NameHasher, PrefixHashes, SipVariant};
use ndnfwd_fib::bench::WorkloadRoutes;
use ndnfwd_fib::bulk::{self, BulkConfig};
use ndnfwd_fib::{FibError, FibHandle, LpmAlgorithm, MHeuristic};
use ndnfwd_workload::{NameSource, Params, Workload, WorkloadError, WorkloadSpec};
use serde::Serialize;

use crate::cycles::{lap_overhead, Stage, StageCycles};
use crate::{EngineError, PrefetchMode};
use worker::{interest_name, worker, Ctx, WorkerOut};

/// The consumer face of every worker.
const CONSUMER: FaceId = 1;
/// Upstream faces `2 ..= 1 + UPSTREAMS`; prefix `i` routes to one of them.
const UPSTREAMS: u32 = 8;
/// Content bytes of each Data.
const CONTENT: usize = 100;

/// Reads the number of heap allocations made so far by the whole process (the binary's or the
/// test's counting global allocator).
pub type AllocCount = fn() -> u64;

/// Which prefetch modes to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefetchSelect {
    /// One mode.
    One(PrefetchMode),
    /// All four, one report row each, from the same runs.
    All,
}

impl core::str::FromStr for PrefetchSelect {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        if s == "all" {
            Ok(Self::All)
        } else {
            s.parse().map(Self::One)
        }
    }
}

impl PrefetchSelect {
    fn modes(self) -> Vec<PrefetchMode> {
        match self {
            Self::One(m) => vec![m],
            Self::All => PrefetchMode::ALL.to_vec(),
        }
    }
}

/// Engine benchmark parameters.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// FIB prefixes (from the workload).
    pub fib_entries: u64,
    /// PIT capacity of each worker; also the number of Interests (and Data) per phase.
    pub pit_capacity: u32,
    /// CS capacity of each worker, in packets.
    pub cs_capacity: u32,
    /// Workload spec: `so`, `yuan7`, `yuan15`, `real:<file>`.
    pub names: String,
    /// LPM algorithms, measured one after the other (at least one).
    pub algos: Vec<LpmAlgorithm>,
    /// Two-stage M (`None`: the most-likely heuristic).
    pub m: Option<u8>,
    /// Prefetch mode(s).
    pub prefetch: PrefetchSelect,
    /// Packets per burst.
    pub batch: usize,
    /// Worker counts, measured side by side on each FIB (at least one, each > 0); a worker is a
    /// thread with its own engine, all sharing the FIB.
    pub workers: Vec<usize>,
    /// Timed runs (the median is reported); at least 1.
    pub runs: usize,
    /// Workload seed.
    pub seed: u64,
    /// The process's allocation counter, if the caller installed a counting allocator (read
    /// around each timed phase; a counter that also counts frees makes `allocations_per_packet`
    /// count both).
    pub alloc_count: Option<AllocCount>,
}

impl Default for BenchConfig {
    fn default() -> Self {
        Self {
            fib_entries: 1 << 20,
            pit_capacity: 1 << 20,
            cs_capacity: 1 << 20,
            names: "so".into(),
            algos: vec![LpmAlgorithm::LongestFirst],
            m: None,
            prefetch: PrefetchSelect::All,
            batch: 32,
            workers: vec![1],
            runs: 5,
            seed: 1,
            alloc_count: None,
        }
    }
}

/// Why the benchmark could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BenchError {
    /// Bad workload spec or name file.
    Workload(WorkloadError),
    /// The FIB could not be loaded.
    Fib(FibError),
    /// An engine could not be created.
    Engine(EngineError),
    /// An invalid parameter (zero workers, batch or capacity).
    Config(&'static str),
}

impl core::fmt::Display for BenchError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Workload(e) => write!(f, "workload: {e}"),
            Self::Fib(e) => write!(f, "FIB: {e}"),
            Self::Engine(e) => write!(f, "{e}"),
            Self::Config(s) => write!(f, "invalid configuration: {s}"),
        }
    }
}

impl std::error::Error for BenchError {}

/// Figures of one phase, medians over the timed runs.
#[derive(Debug, Clone, Copy, Serialize, Default)]
pub struct PhaseFigures {
    /// TSC cycles per packet on one worker (mean over workers), wall clock: time the worker
    /// was preempted counts.
    pub cycles_per_packet: f64,
    /// The same in cycles the worker thread actually ran: thread CPU time converted at the TSC
    /// rate measured over the phase (0 where the OS gives no thread CPU time). On a machine
    /// shared with other jobs this is the figure to compare; on an idle one both agree.
    pub cpu_cycles_per_packet: f64,
    /// Million packets per second, all workers together.
    pub mpps: f64,
    /// Packets per worker per run.
    pub packets: u64,
}

/// Cycles per packet of each stage, from the accounting round, the cost of the fenced counter
/// reads subtracted (so the stages add up to about the total of a plain run; the fences still
/// cost some overlap between stages).
#[derive(Debug, Clone, Copy, Serialize, Default)]
pub struct StageFigures {
    /// Decoding.
    pub parse: f64,
    /// Prefix hashing.
    pub hash: f64,
    /// PIT-CS.
    pub pcct: f64,
    /// FIB.
    pub fib: f64,
    /// Strategy.
    pub strategy: f64,
    /// Output packets.
    pub output: f64,
}

impl StageFigures {
    fn from_cycles(c: &StageCycles, packets: u64, overhead: u64) -> Self {
        let per = |s: Stage| c.net(s, overhead) as f64 / packets.max(1) as f64;
        Self {
            parse: per(Stage::Parse),
            hash: per(Stage::Hash),
            pcct: per(Stage::Pcct),
            fib: per(Stage::Fib),
            strategy: per(Stage::Strategy),
            output: per(Stage::Output),
        }
    }
}

/// Stage split of both phases.
#[derive(Debug, Clone, Copy, Serialize, Default)]
pub struct Stages {
    /// Interest phase.
    pub interest: StageFigures,
    /// Data phase.
    pub data: StageFigures,
}

/// One (LPM algorithm, worker count, prefetch mode) triple's results.
#[derive(Debug, Clone, Serialize)]
pub struct ModeRow {
    /// LPM algorithm of this row's FIB.
    pub algo: LpmAlgorithm,
    /// Workers running at once.
    pub workers: usize,
    /// Two-stage M of that FIB.
    pub m: u8,
    /// Seconds to bulk-load that FIB.
    pub fib_load_seconds: f64,
    /// `none`, `bucket`, `prehash` or `speculative`.
    pub prefetch: &'static str,
    /// Interest phase (CS miss, PIT insert, LPM, best-route, output).
    pub interest: PhaseFigures,
    /// Data phase (PIT hit by token, satisfy, CS insert, output).
    pub data: PhaseFigures,
    /// Cycles per packet per stage.
    pub stages: Stages,
    /// Mean FIB hash-table probes per Interest (same names, untimed traced lookups).
    pub fib_probes_per_interest: f64,
    /// Heap allocations per packet in the timed phases (both phases, all timed runs), when an
    /// allocation counter was given.
    pub allocations_per_packet: Option<f64>,
    /// Interests whose burst did not produce exactly one output each (their Data then went
    /// without a token and was matched by name); 0 in a clean run.
    pub unmatched_outputs: u64,
}

/// The benchmark report (printed as JSON by the CLI).
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// Workload spec.
    pub names: String,
    /// FIB prefixes installed.
    pub fib_prefixes: u64,
    /// PIT capacity per worker (= packets per phase per worker).
    pub pit_capacity: u32,
    /// CS capacity per worker.
    pub cs_capacity: u32,
    /// Packets per burst.
    pub batch: usize,
    /// Worker counts, in the order measured.
    pub workers: Vec<usize>,
    /// Timed runs.
    pub runs: usize,
    /// Cycles of one fenced counter read, subtracted once per stage lap.
    pub lap_overhead_cycles: u64,
    /// One row per algorithm, worker count and prefetch mode, in the order given.
    pub rows: Vec<ModeRow>,
}

/// Warm-up slots at least: the first ones touch fresh table memory (page faults) until the PIT
/// and the CS have both been full once.
const WARMUP_MIN: usize = 3;

/// The (run, combination) slots every worker goes through in order, a combination being a
/// worker count and a prefetch mode: warm-up slots (combinations in turn, at least
/// [`WARMUP_MIN`]), `runs` timed rounds of every combination, one accounting round.
#[derive(Debug, Clone, Copy)]
pub(super) struct Schedule {
    warm: usize,
    runs: usize,
    modes: usize,
}

impl Schedule {
    fn new(cfg: &BenchConfig, modes: usize) -> Self {
        Self {
            warm: modes.max(WARMUP_MIN),
            runs: cfg.runs,
            modes: modes.max(1),
        }
    }

    /// Combination `c`: (index of its worker count, index of its prefetch mode) for `modes`
    /// prefetch modes (combinations go mode-fastest).
    pub(super) fn split(c: usize, modes: usize) -> (usize, usize) {
        (c / modes.max(1), c % modes.max(1))
    }

    /// Number of slots.
    pub(super) fn slots(&self) -> usize {
        self.warm + (self.runs + 1) * self.modes
    }

    /// The combination slot `slot` runs.
    pub(super) fn combo_of(&self, slot: usize) -> usize {
        slot.checked_sub(self.warm).unwrap_or(slot) % self.modes
    }

    /// The timed slots of combination `m`.
    fn timed(&self, m: usize) -> impl Iterator<Item = usize> + Clone {
        let (warm, modes) = (self.warm, self.modes);
        (0..self.runs).map(move |r| warm + r * modes + m)
    }

    /// The accounting slot of combination `m`.
    fn accounting(&self, m: usize) -> usize {
        self.warm + self.runs * self.modes + m
    }

    /// True for the accounting round.
    pub(super) fn is_accounting(&self, slot: usize) -> bool {
        slot >= self.warm + self.runs * self.modes
    }
}

/// Runs the benchmark; `progress` receives short status lines.
pub fn run(cfg: &BenchConfig, mut progress: impl FnMut(&str)) -> Result<BenchReport, BenchError> {
    if cfg.workers.is_empty()
        || cfg.workers.contains(&0)
        || cfg.batch == 0
        || cfg.pit_capacity == 0
        || cfg.runs == 0
        || cfg.algos.is_empty()
    {
        return Err(BenchError::Config(
            "workers, batch, pit_capacity, runs and algorithms must be > 0",
        ));
    }
    let spec: WorkloadSpec = cfg.names.parse().map_err(BenchError::Workload)?;
    let params = Params {
        prefixes: Some(cfg.fib_entries),
        seed: cfg.seed,
        ..Params::default()
    };
    let workload = spec.build(&params).map_err(BenchError::Workload)?;
    let hasher = NameHasher::new(*b"ndnfwd-bench-key", SipVariant::Sip13);
    let overhead = lap_overhead();
    let mut rows = Vec::new();
    let mut fib_prefixes = 0;
    for &algo in &cfg.algos {
        let (installed, algo_rows) =
            run_algorithm(cfg, algo, &workload, &hasher, overhead, &mut progress)?;
        fib_prefixes = installed;
        rows.extend(algo_rows);
    }
    Ok(BenchReport {
        names: cfg.names.clone(),
        fib_prefixes,
        pit_capacity: cfg.pit_capacity,
        cs_capacity: cfg.cs_capacity,
        batch: cfg.batch,
        workers: cfg.workers.clone(),
        runs: cfg.runs,
        lap_overhead_cycles: overhead,
        rows,
    })
}

/// Loads the FIB of one algorithm and runs the whole schedule on it with fresh workers; returns
/// the prefixes installed and one row per worker count and prefetch mode.
fn run_algorithm(
    cfg: &BenchConfig,
    algo: LpmAlgorithm,
    workload: &Workload,
    hasher: &NameHasher,
    overhead: u64,
    progress: &mut impl FnMut(&str),
) -> Result<(u64, Vec<ModeRow>), BenchError> {
    progress(&format!("loading FIB ({algo:?})"));
    let t0 = Instant::now();
    let bcfg = BulkConfig {
        algorithm: algo,
        m: cfg.m,
        heuristic: MHeuristic::MostLikely,
        load_factor: 0,
    };
    let entries = cfg.fib_entries.min(workload.prefix_count());
    let (fib, loaded) = bulk::load(
        &bcfg,
        hasher,
        &WorkloadRoutes {
            source: workload,
            count: entries,
            first_face: 2,
            faces: UPSTREAMS,
        },
        &mut |_, _| {},
    )
    .map_err(BenchError::Fib)?;
    let fib = Loaded {
        algo,
        m: loaded.m,
        fib_load_seconds: t0.elapsed().as_secs_f64(),
        probes: fib_probes(workload, &fib, hasher, cfg.pit_capacity),
        fib,
    };
    let rows = run_workers(cfg, &fib, workload, hasher, overhead, progress)?;
    Ok((loaded.installed, rows))
}

/// A loaded FIB and what the rows report about it.
struct Loaded {
    fib: FibHandle,
    algo: LpmAlgorithm,
    m: u8,
    fib_load_seconds: f64,
    probes: f64,
}

/// The whole schedule over `fib` on fresh workers, as many as the largest count, every run going
/// through each (worker count, prefetch mode) combination: one row per combination.
fn run_workers(
    cfg: &BenchConfig,
    fib: &Loaded,
    workload: &Workload,
    hasher: &NameHasher,
    overhead: u64,
    progress: &mut impl FnMut(&str),
) -> Result<Vec<ModeRow>, BenchError> {
    let algo = fib.algo;
    let modes = cfg.prefetch.modes();
    let workers = cfg.workers.iter().copied().max().unwrap_or(1);
    let schedule = Schedule::new(cfg, modes.len() * cfg.workers.len());
    let barrier = Barrier::new(workers + 1);
    let ctx = Ctx {
        cfg,
        workers,
        workload,
        fib: &fib.fib,
        hasher,
        modes: &modes,
        schedule,
        barrier: &barrier,
    };
    let n_slots = schedule.slots();
    // Per slot and phase: wall seconds and allocations (main thread view).
    let mut wall = vec![[0f64; 2]; n_slots];
    let mut allocs = vec![[0u64; 2]; n_slots];
    let results: Vec<Result<WorkerOut, BenchError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let ctx = &ctx;
                s.spawn(move || worker(ctx, w))
            })
            .collect();
        for slot in 0..n_slots {
            for phase in 0..2 {
                barrier.wait(); // encoded
                let a0 = cfg.alloc_count.map_or(0, |f| f());
                let t = Instant::now();
                barrier.wait(); // go
                barrier.wait(); // done
                wall[slot][phase] = t.elapsed().as_secs_f64();
                allocs[slot][phase] = cfg.alloc_count.map_or(0, |f| f()) - a0;
                barrier.wait(); // counters read
            }
            progress(&format!("{algo:?}: slot {} of {n_slots} done", slot + 1));
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or(Err(BenchError::Config("worker panicked")))
            })
            .collect()
    });
    let outs = results.into_iter().collect::<Result<Vec<_>, _>>()?;

    let packets = u64::from(cfg.pit_capacity);
    let rows = (0..modes.len() * cfg.workers.len())
        .map(|combo| {
            let (wi, mi) = Schedule::split(combo, modes.len());
            let n_workers = cfg.workers.get(wi).copied().unwrap_or(1);
            let mode = modes.get(mi).copied().unwrap_or_default();
            // The workers that ran this combination (the others waited at the barriers).
            let active = outs.get(..n_workers).unwrap_or(&outs);
            let timed = schedule.timed(combo);
            let phase = |p: usize| {
                let cycles: Vec<f64> = timed
                    .clone()
                    .map(|slot| {
                        let sum: f64 = active
                            .iter()
                            .map(|o| o.samples[slot][p].cycles as f64)
                            .sum();
                        let n: u64 = active.iter().map(|o| o.samples[slot][p].packets).sum();
                        sum / n.max(1) as f64
                    })
                    .collect();
                let cpu_cycles: Vec<f64> = timed
                    .clone()
                    .map(|slot| {
                        let s = active.iter().map(|o| o.samples[slot][p]);
                        let tsc: f64 = s.clone().map(|x| x.cycles as f64).sum();
                        let cpu: f64 = s.clone().map(|x| x.cpu_ns as f64).sum();
                        let n: u64 = s.map(|x| x.packets).sum();
                        // TSC ticks per wall ns of this phase, times the CPU ns the workers ran.
                        let rate = tsc / (wall[slot][p].max(1e-9) * 1e9 * active.len() as f64);
                        cpu * rate / n.max(1) as f64
                    })
                    .collect();
                let mpps: Vec<f64> = timed
                    .clone()
                    .map(|slot| {
                        let n: u64 = active.iter().map(|o| o.samples[slot][p].packets).sum();
                        n as f64 / wall[slot][p].max(1e-9) / 1e6
                    })
                    .collect();
                PhaseFigures {
                    cycles_per_packet: median(cycles),
                    cpu_cycles_per_packet: median(cpu_cycles),
                    mpps: median(mpps),
                    packets,
                }
            };
            let acct = schedule.accounting(combo);
            let stage = |p: usize| {
                let mut c = StageCycles::default();
                let mut n = 0;
                for o in active {
                    c.add(&o.stages[combo][p]);
                    n += o.samples[acct][p].packets;
                }
                StageFigures::from_cycles(&c, n, overhead)
            };
            let timed_allocs: u64 = timed.clone().map(|s| allocs[s][0] + allocs[s][1]).sum();
            let timed_packets: u64 = timed
                .clone()
                .map(|s| {
                    active
                        .iter()
                        .map(|o| o.samples[s][0].packets + o.samples[s][1].packets)
                        .sum::<u64>()
                })
                .sum();
            ModeRow {
                algo,
                workers: n_workers,
                m: fib.m,
                fib_load_seconds: fib.fib_load_seconds,
                prefetch: mode.key(),
                interest: phase(0),
                data: phase(1),
                stages: Stages {
                    interest: stage(0),
                    data: stage(1),
                },
                fib_probes_per_interest: fib.probes,
                allocations_per_packet: cfg
                    .alloc_count
                    .map(|_| timed_allocs as f64 / timed_packets.max(1) as f64),
                unmatched_outputs: timed
                    .clone()
                    .map(|s| {
                        active
                            .iter()
                            .map(|o| o.samples[s][0].unmatched)
                            .sum::<u64>()
                    })
                    .sum(),
            }
        })
        .collect();
    Ok(rows)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Mean FIB probes over (up to 100k of) the first worker's Interest names.
fn fib_probes(w: &Workload, fib: &FibHandle, hasher: &NameHasher, n: u32) -> f64 {
    let reader = fib.reader();
    let mut h = PrefixHashes::with_capacity(32);
    let mut buf = Vec::new();
    let n = u64::from(n).min(100_000);
    let mut probes = 0u64;
    for i in 0..n {
        if let Some(name) = interest_name(w, i, &mut buf) {
            hasher.hash_prefixes(name.as_ref(), &mut h);
            probes += u64::from(reader.lookup_traced(&h).1.probes);
        }
    }
    probes as f64 / n.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_warms_up_then_times_every_mode_then_accounts() {
        for modes in [1usize, 4] {
            let cfg = BenchConfig {
                runs: 5,
                ..BenchConfig::default()
            };
            let s = Schedule::new(&cfg, modes);
            assert_eq!(s.slots(), modes.max(WARMUP_MIN) + 6 * modes);
            let mut seen = vec![0; s.slots()];
            for m in 0..modes {
                for slot in s.timed(m).chain([s.accounting(m)]) {
                    assert_eq!(s.combo_of(slot), m);
                    assert!(
                        slot >= modes.max(WARMUP_MIN),
                        "no timed slot in the warm-up"
                    );
                    seen[slot] += 1;
                }
                assert!(s.is_accounting(s.accounting(m)));
                assert!(s.timed(m).all(|t| !s.is_accounting(t)));
            }
            assert_eq!(seen.iter().filter(|&&n| n == 1).count(), 6 * modes);
            assert!(seen.iter().all(|&n| n <= 1));
        }
    }

    #[test]
    fn small_run_reports_every_algorithm_and_mode() {
        let algos = vec![
            LpmAlgorithm::LongestFirst,
            LpmAlgorithm::TwoStage,
            LpmAlgorithm::BinarySearch,
        ];
        let cfg = BenchConfig {
            fib_entries: 2000,
            pit_capacity: 512,
            cs_capacity: 256,
            runs: 1,
            workers: vec![1, 2],
            batch: 16,
            algos: algos.clone(),
            ..BenchConfig::default()
        };
        let r = run(&cfg, |_| {}).unwrap();
        assert_eq!(r.rows.len(), 24);
        assert!(r.fib_prefixes > 1000);
        for (i, row) in r.rows.iter().enumerate() {
            assert_eq!(row.algo, algos[i / 8]);
            assert_eq!(row.workers, 1 + i / 4 % 2);
            assert_eq!(row.prefetch, PrefetchMode::ALL[i % 4].key());
        }
        for row in &r.rows {
            assert_eq!(row.unmatched_outputs, 0, "{}", row.prefetch);
            assert!(row.interest.mpps > 0.0 && row.data.mpps > 0.0);
            if cfg!(target_os = "linux") {
                assert!(row.interest.cpu_cycles_per_packet > 0.0);
                assert!(row.data.cpu_cycles_per_packet > 0.0);
            }
            assert!(row.fib_probes_per_interest >= 1.0);
            assert_eq!(row.allocations_per_packet, None);
        }
        assert!(run(
            &BenchConfig {
                workers: vec![1, 0],
                ..cfg.clone()
            },
            |_| {}
        )
        .is_err());
        assert!(run(
            &BenchConfig {
                algos: Vec::new(),
                ..cfg.clone()
            },
            |_| {}
        )
        .is_err());
        assert!(run(
            &BenchConfig {
                names: "nope".into(),
                ..cfg
            },
            |_| {}
        )
        .is_err());
        assert_eq!("all".parse(), Ok(PrefetchSelect::All));
        assert_eq!(
            "bucket".parse(),
            Ok(PrefetchSelect::One(PrefetchMode::Bucket))
        );
    }
}
