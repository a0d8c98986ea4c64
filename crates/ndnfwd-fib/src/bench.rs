//! `run_fib_bench`: bulk-load a FIB from a name source and time lookups (for `ndnfwd bench fib`).
//!
//! The timed loop does per name what a worker does: check the name (`NameRef::new_checked`),
//! hash all prefixes in one pass, and run the LPM. With [`PrefetchMode::All`] names go in groups
//! of [`GROUP`]: the next group is checked, hashed and its candidate buckets prefetched
//! ([`FibReader::prefetch`]) before the current group is looked up, so the prefetches of group
//! `i + 1` are in flight while group `i` works (seed 000 all-at-once, seed 002 pre-hash). Cycles
//! come from the TSC on x86_64 (nanoseconds elsewhere); the median of the runs is reported.
//! Probe counts come from a separate untimed traced pass over the same names.

use std::time::Instant;

use ndn_packet::{FaceId, NameHasher, NameRef, PrefixHashes, SipVariant};
use ndnfwd_workload::NameSource;
use serde::Serialize;

use crate::bulk::{self, BulkConfig, PrefixSource};
use crate::lpm::{LpmAlgorithm, MHeuristic};
use crate::nexthop::{NextHop, StrategyId};
use crate::reader::FibReader;
use crate::FibError;

/// Names per prefetch group.
pub const GROUP: usize = 16;

/// Bucket prefetching in the timed loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PrefetchMode {
    /// No prefetch.
    None,
    /// Groups of [`GROUP`]: hash and prefetch group `i + 1`, then look up group `i`.
    All,
}

/// Benchmark parameters.
#[derive(Debug, Clone, Copy)]
pub struct FibBenchConfig {
    /// Prefixes to load (at most the source's count).
    pub entries: u64,
    /// Lookup names per run (Interests `0..lookups` of the source).
    pub lookups: u64,
    /// LPM algorithm.
    pub algorithm: LpmAlgorithm,
    /// Two-stage M; `None`: most-likely heuristic.
    pub m: Option<u8>,
    /// Prefetch mode.
    pub prefetch: PrefetchMode,
    /// Timed runs (the median is reported).
    pub runs: u32,
    /// Slots per home bucket (0: table default).
    pub load_factor: usize,
    /// SipHash key (fixed for reproducible runs).
    pub key: [u8; 16],
}

/// Bytes per real prefix, by part.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct BytesPerPrefix {
    /// Buckets in use + live entries + nexthop sets in use.
    pub total_used: f64,
    /// Everything mapped or allocated (whole overflow pool, whole entry segments).
    pub total_mapped: f64,
    /// Home buckets + linked overflow buckets.
    pub buckets_used: f64,
    /// Home buckets + the whole overflow pool.
    pub buckets_mapped: f64,
    /// Live 24-byte entries.
    pub entries: f64,
    /// Nexthop sets.
    pub nexthop_sets: f64,
}

/// Benchmark result (printed as JSON by the CLI).
#[derive(Debug, Clone, Serialize)]
pub struct FibBenchReport {
    /// Algorithm.
    pub algorithm: LpmAlgorithm,
    /// Prefetch mode.
    pub prefetch: PrefetchMode,
    /// Two-stage M (the heuristic's pick for the other algorithms).
    pub m: u8,
    /// FIB depth k.
    pub depth: usize,
    /// Binary-search tree height.
    pub tree_height: u8,
    /// Real prefixes installed.
    pub prefixes: u64,
    /// Duplicates skipped while loading.
    pub duplicates: u64,
    /// Lookups per run.
    pub lookups: u64,
    /// Runs.
    pub runs: u32,
    /// Median lookups per second (check + hash + LPM).
    pub lookups_per_sec: f64,
    /// Median cycles per lookup (check + hash + LPM).
    pub cycles_per_lookup: f64,
    /// Median cycles per name of check + hash alone.
    pub hash_cycles_per_name: f64,
    /// "tsc" or "ns" (cycles are nanoseconds without a TSC).
    pub cycle_unit: &'static str,
    /// Mean hash-table probes per lookup.
    pub probes_mean: f64,
    /// Largest probe count seen.
    pub probes_max: u32,
    /// Mean bucket cache lines per lookup.
    pub lines_mean: f64,
    /// Lookups that found a prefix.
    pub match_rate: f64,
    /// Bytes per prefix.
    pub bytes_per_prefix: BytesPerPrefix,
    /// Virtual entries per real prefix, percent.
    pub fib_expansion_pct: f64,
    /// Marker records per real prefix.
    pub markers_per_prefix: f64,
    /// Seconds to bulk-load the FIB.
    pub load_seconds: f64,
}

/// A workload's prefixes as FIB routes for benchmarks: the first `count` prefixes of `source`,
/// prefix `i` routed to face `first_face + i % faces` at cost 10 with the default strategy.
pub struct WorkloadRoutes<'a> {
    /// Where the prefixes come from.
    pub source: &'a dyn NameSource,
    /// How many prefixes to load.
    pub count: u64,
    /// The first nexthop face.
    pub first_face: FaceId,
    /// How many faces the prefixes are spread over (at least 1).
    pub faces: u32,
}

impl PrefixSource for WorkloadRoutes<'_> {
    fn count(&self) -> u64 {
        self.count
    }

    fn prefix(&self, i: u64, out: &mut Vec<u8>) {
        self.source.prefix_into(i, out);
    }

    fn route(&self, i: u64, out: &mut Vec<NextHop>) -> StrategyId {
        let spread = (i % u64::from(self.faces.max(1))) as u32;
        out.push(NextHop {
            face: self.first_face + spread,
            cost: 10,
        });
        0
    }
}

#[allow(unsafe_code)]
mod tsc {
    /// Time-stamp counter, or `None` where there is none.
    #[inline(always)]
    pub fn read() -> Option<u64> {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: RDTSC reads a counter; it has no memory effects and is available on every
            // x86_64 CPU.
            Some(unsafe { core::arch::x86_64::_rdtsc() })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            None
        }
    }
}

/// Lookup names stored back to back.
struct Names {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Names {
    fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }
}

/// Loads the FIB and runs the benchmark; `progress(done, total)` reports loading.
pub fn run_fib_bench(
    cfg: &FibBenchConfig,
    source: &dyn NameSource,
    mut progress: impl FnMut(u64, u64),
) -> Result<FibBenchReport, FibError> {
    let hasher = NameHasher::new(cfg.key, SipVariant::Sip13);
    let entries = cfg.entries.min(source.prefix_count());
    let bcfg = BulkConfig {
        algorithm: cfg.algorithm,
        m: cfg.m,
        heuristic: MHeuristic::MostLikely,
        load_factor: cfg.load_factor,
    };
    let t0 = Instant::now();
    let (fib, loaded) = bulk::load(
        &bcfg,
        &hasher,
        &WorkloadRoutes {
            source,
            count: entries,
            first_face: 1,
            faces: 8,
        },
        &mut progress,
    )?;
    let load_seconds = t0.elapsed().as_secs_f64();

    let mut names = Names {
        bytes: Vec::new(),
        ends: Vec::new(),
    };
    let mut buf = Vec::new();
    for j in 0..cfg.lookups.max(GROUP as u64) {
        source.interest_into(j, &mut buf);
        if NameRef::new_checked(&buf).is_ok() {
            names.bytes.extend_from_slice(&buf);
            names.ends.push(names.bytes.len());
        }
    }
    let reader = fib.reader();

    // Untimed traced pass: probes and lines.
    let (mut probes, mut lines, mut max, mut hits) = (0u64, 0u64, 0u32, 0u64);
    let mut h = PrefixHashes::with_capacity(16);
    for i in 0..names.ends.len() {
        if let Ok(n) = NameRef::new_checked(names.get(i)) {
            hasher.hash_prefixes(n, &mut h);
            let (m, tr) = reader.lookup_traced(&h);
            hits += u64::from(m.is_some());
            probes += u64::from(tr.probes);
            lines += u64::from(tr.lines);
            max = max.max(tr.probes);
        }
    }
    let count = names.ends.len() as f64;

    let mut per_lookup = Vec::new();
    let mut per_hash = Vec::new();
    let mut rates = Vec::new();
    let mut unit = "tsc";
    for _ in 0..cfg.runs.max(1) {
        let (c, ns) = timed(|| hash_only(&hasher, &names));
        per_hash.push(c.unwrap_or(ns) as f64 / count);
        let (c, ns) = timed(|| match cfg.prefetch {
            PrefetchMode::None => run_plain(&hasher, &reader, &names),
            PrefetchMode::All => run_grouped(&hasher, &reader, &names),
        });
        if c.is_none() {
            unit = "ns";
        }
        per_lookup.push(c.unwrap_or(ns) as f64 / count);
        rates.push(count * 1e9 / ns.max(1) as f64);
    }
    let mem = fib.memory();
    let pp = |b: u64| b as f64 / mem.prefixes.max(1) as f64;
    let set_used = mem.nexthop_sets * 72;
    Ok(FibBenchReport {
        algorithm: cfg.algorithm,
        prefetch: cfg.prefetch,
        m: loaded.m,
        depth: loaded.depth,
        tree_height: loaded.tree_height,
        prefixes: mem.prefixes,
        duplicates: loaded.duplicates,
        lookups: names.ends.len() as u64,
        runs: cfg.runs.max(1),
        lookups_per_sec: median(&mut rates),
        cycles_per_lookup: median(&mut per_lookup),
        hash_cycles_per_name: median(&mut per_hash),
        cycle_unit: unit,
        probes_mean: probes as f64 / count,
        probes_max: max,
        lines_mean: lines as f64 / count,
        match_rate: hits as f64 / count,
        bytes_per_prefix: BytesPerPrefix {
            total_used: mem.bytes_per_prefix_used(),
            total_mapped: mem.bytes_per_prefix_mapped(),
            buckets_used: pp(mem.bucket_bytes_used),
            buckets_mapped: pp(mem.bucket_bytes_mapped),
            entries: pp(mem.entry_bytes_used),
            nexthop_sets: pp(set_used),
        },
        fib_expansion_pct: 100.0 * mem.virtuals as f64 / mem.prefixes.max(1) as f64,
        markers_per_prefix: mem.markers as f64 / mem.prefixes.max(1) as f64,
        load_seconds,
    })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Runs `f`, returning (TSC cycles if available, nanoseconds).
fn timed(f: impl FnOnce() -> u64) -> (Option<u64>, u64) {
    let c0 = tsc::read();
    let t0 = Instant::now();
    let sink = f();
    let ns = t0.elapsed().as_nanos() as u64;
    let c = tsc::read().zip(c0).map(|(b, a)| b.wrapping_sub(a));
    std::hint::black_box(sink);
    (c, ns)
}

fn hash_only(hasher: &NameHasher, names: &Names) -> u64 {
    let mut h = PrefixHashes::with_capacity(16);
    let mut sink = 0u64;
    for i in 0..names.ends.len() {
        if let Ok(n) = NameRef::new_checked(names.get(i)) {
            hasher.hash_prefixes(n, &mut h);
            sink ^= h.full();
        }
    }
    sink
}

fn run_plain(hasher: &NameHasher, reader: &FibReader, names: &Names) -> u64 {
    let mut h = PrefixHashes::with_capacity(16);
    let mut sink = 0u64;
    for i in 0..names.ends.len() {
        if let Ok(n) = NameRef::new_checked(names.get(i)) {
            hasher.hash_prefixes(n, &mut h);
            sink = sink.wrapping_add(reader.lookup(&h).map_or(0, |m| u64::from(m.entry())));
        }
    }
    sink
}

fn run_grouped(hasher: &NameHasher, reader: &FibReader, names: &Names) -> u64 {
    let mut cur: Vec<PrefixHashes> = (0..GROUP)
        .map(|_| PrefixHashes::with_capacity(16))
        .collect();
    let mut next = cur.clone();
    let total = names.ends.len();
    let groups = total.div_ceil(GROUP);
    let stage = |g: usize, hs: &mut [PrefixHashes]| -> usize {
        let start = g * GROUP;
        let end = (start + GROUP).min(total);
        for (i, h) in (start..end).zip(hs.iter_mut()) {
            if let Ok(n) = NameRef::new_checked(names.get(i)) {
                hasher.hash_prefixes(n, h);
                reader.prefetch(h);
            }
        }
        end - start
    };
    let mut sink = 0u64;
    let mut len = stage(0, &mut cur);
    for g in 0..groups {
        let next_len = if g + 1 < groups {
            stage(g + 1, &mut next)
        } else {
            0
        };
        for h in cur.iter().take(len) {
            sink = sink.wrapping_add(reader.lookup(h).map_or(0, |m| u64::from(m.entry())));
        }
        core::mem::swap(&mut cur, &mut next);
        len = next_len;
    }
    sink
}
