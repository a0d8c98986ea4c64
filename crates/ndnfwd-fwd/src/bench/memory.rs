//! The library side of `ndnfwd bench memory`: what the machine's memory gives one thread and
//! several, as the ceiling under `bench engine`'s worker scaling.
//!
//! Each thread chases pointers through its own array, far larger than the last-level cache,
//! laid out as one random cycle (Sattolo's shuffle) on huge pages like the FIB's segments, so
//! every load is a DRAM miss. With one chain per thread a load waits for the one before it
//! (latency); with several independent chains interleaved, a thread keeps that many misses in
//! flight (memory-level parallelism), which is what the engine's prefetching does. The same
//! chases run on 1 thread and then on `threads` threads at once (started together at a
//! barrier); `scaling` is the aggregate loads per second of the many against the one. When N
//! threads with parallel misses get only x times one thread's loads, N engine workers whose
//! packets are bound by DRAM misses cannot scale past about x either.
//!
//! Huge pages in the guest do not guarantee huge TLB entries: under a hypervisor that backs the
//! guest with 4 KiB pages, a TLB entry covers 4 KiB whatever the guest maps, and a random load
//! beyond the TLB's reach pays a nested page walk (which, in the engine, prefetching the line
//! early did not hide). The translation sweep ([`MemoryConfig::pages`]) measures
//! that apart from the caches: for each count `n`, one thread chases `n` cache lines in one
//! random cycle twice, packed (consecutive lines) and spread (one line per 4 KiB page, on huge
//! pages, the line's place in its page varied so that both touch the same cache sets evenly).
//! Both touch the same lines' worth of cache, so `spread - packed` is what translating `n`
//! distinct 4 KiB pages adds to a load: about nothing while `n` pages fit the TLB, a page walk
//! beyond.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Instant;

use ndnfwd_table::{AllocError, ZeroedSlice};
use serde::Serialize;

/// Largest array per thread, in MiB: every slot must be reachable by a `u32` index.
const MAX_MIB: usize = 16 << 10;

/// Most independent chains per thread.
pub const MAX_CHAINS: usize = 16;

/// Most lines of a translation-sweep row: a spread row maps one 4 KiB page per line, and every
/// word must be reachable by a `u32` index (16 GiB).
pub const MAX_PAGES: usize = 1 << 22;

/// `u32` words in a cache line and in a 4 KiB page.
const LINE_WORDS: usize = 64 / core::mem::size_of::<u32>();
const PAGE_WORDS: usize = 4096 / core::mem::size_of::<u32>();

/// What to measure.
#[derive(Debug, Clone)]
pub struct MemoryConfig {
    /// Array size per thread, in MiB (at least 1; at most 16 GiB, what `u32` indices reach).
    pub mib_per_thread: usize,
    /// Dependent loads per thread and row, spread over its chains.
    pub loads_per_thread: u64,
    /// The many-thread rows' thread count (at least 2 to be of use).
    pub threads: usize,
    /// Chain counts to measure, each 1 to [`MAX_CHAINS`].
    pub chains: Vec<usize>,
    /// Line counts of the translation sweep (one row each, 1 to [`MAX_PAGES`]; empty: none).
    pub pages: Vec<usize>,
    /// Shuffle seed.
    pub seed: u64,
}

/// One measurement: `threads` threads, each with `chains` chains.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryRow {
    /// Independent chains per thread.
    pub chains: usize,
    /// Threads chasing at once.
    pub threads: usize,
    /// Mean wall time per load and chain, per thread (its latency with one chain).
    pub ns_per_load: f64,
    /// Loads per second over all threads.
    pub loads_per_s: f64,
}

/// Many threads against one, at one chain count.
#[derive(Debug, Clone, Serialize)]
pub struct Scaling {
    /// Independent chains per thread.
    pub chains: usize,
    /// Threads of the many-thread row.
    pub threads: usize,
    /// Its aggregate loads per second over the one-thread row's.
    pub ratio: f64,
}

/// One row of the translation sweep: one thread, one chain, `lines` lines in one random cycle.
#[derive(Debug, Clone, Serialize)]
pub struct PagesRow {
    /// Lines chased, and the distinct 4 KiB pages of the spread chase.
    pub lines: usize,
    /// Latency of a load when the lines are consecutive (`lines / 64` pages).
    pub packed_ns: f64,
    /// Latency of a load when every line has a 4 KiB page of its own.
    pub spread_ns: f64,
    /// `spread_ns - packed_ns`: what translating `lines` distinct pages adds to a load.
    pub translation_ns: f64,
}

/// The result, as printed.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryReport {
    /// Array size per thread, in MiB.
    pub mib_per_thread: usize,
    /// Dependent loads per thread and row.
    pub loads_per_thread: u64,
    /// One row per chain count and thread count (1, then `threads`).
    pub rows: Vec<MemoryRow>,
    /// Per chain count, the many-thread row against the one-thread row.
    pub scaling: Vec<Scaling>,
    /// The translation sweep, one row per line count.
    pub pages: Vec<PagesRow>,
}

/// Runs every row; fails only when an array cannot be mapped.
pub fn run(cfg: &MemoryConfig) -> Result<MemoryReport, AllocError> {
    let chains: Vec<usize> = cfg.chains.iter().map(|&c| c.clamp(1, MAX_CHAINS)).collect();
    let mib = cfg.mib_per_thread.clamp(1, MAX_MIB);
    let len = (mib << 20) / core::mem::size_of::<u32>();
    let mut rows = Vec::new();
    for threads in [1, cfg.threads.max(2)] {
        let per_thread = run_threads(cfg, len, threads, &chains)?;
        for (i, &c) in chains.iter().enumerate() {
            let secs: Vec<f64> = per_thread.iter().map(|t| t[i]).collect();
            let loads = cfg.loads_per_thread.max(1) as f64;
            rows.push(MemoryRow {
                chains: c,
                threads,
                ns_per_load: secs.iter().sum::<f64>() / threads as f64 / loads * c as f64 * 1e9,
                loads_per_s: secs.iter().map(|s| loads / s).sum(),
            });
        }
    }
    let scaling = chains
        .iter()
        .filter_map(|&c| {
            let of = |one: bool| {
                rows.iter()
                    .find(|r| r.chains == c && (r.threads == 1) == one)
            };
            let (one, many) = (of(true)?, of(false)?);
            Some(Scaling {
                chains: c,
                threads: many.threads,
                ratio: many.loads_per_s / one.loads_per_s,
            })
        })
        .collect();
    let pages = cfg
        .pages
        .iter()
        .map(|&n| pages_row(n.clamp(1, MAX_PAGES), cfg.loads_per_thread.max(1), cfg.seed))
        .collect::<Result<_, _>>()?;
    Ok(MemoryReport {
        mib_per_thread: mib,
        loads_per_thread: cfg.loads_per_thread,
        rows,
        scaling,
        pages,
    })
}

/// One translation-sweep row: `lines` lines packed, then spread one per 4 KiB page.
fn pages_row(lines: usize, loads: u64, seed: u64) -> Result<PagesRow, AllocError> {
    let order = cycle(lines, seed)?;
    let latency = |stride: usize| -> Result<f64, AllocError> {
        let a = laid_out(&order, stride)?;
        let t0 = Instant::now();
        let mut p = 0u32;
        for _ in 0..loads {
            p = a.get(p as usize).copied().unwrap_or(0);
        }
        std::hint::black_box(p);
        Ok(t0.elapsed().as_secs_f64() / loads as f64 * 1e9)
    };
    let packed_ns = latency(LINE_WORDS)?;
    let spread_ns = latency(PAGE_WORDS)?;
    Ok(PagesRow {
        lines,
        packed_ns,
        spread_ns,
        translation_ns: spread_ns - packed_ns,
    })
}

/// The random cycle `order` laid out one line every `stride` words ([`LINE_WORDS`]: packed,
/// [`PAGE_WORDS`]: one line per 4 KiB page): line `k`'s first word holds the word index of line
/// `order[k]`, so a chase from word 0 visits every line once. A spread line sits at an offset
/// in its page that cycles through the page's 64 lines, so both layouts spread over the cache
/// sets.
fn laid_out(order: &[u32], stride: usize) -> Result<ZeroedSlice<u32>, AllocError> {
    let at = |k: usize| k * stride + (k % (stride / LINE_WORDS)) * LINE_WORDS;
    let mut a = ZeroedSlice::<u32>::new(order.len() * stride)?;
    for (k, &next) in order.iter().enumerate() {
        if let Some(w) = a.get_mut(at(k)) {
            *w = at(next as usize) as u32;
        }
    }
    Ok(a)
}

/// `threads` threads, each building its array then timing every chain count between barriers;
/// seconds per thread and chain count.
fn run_threads(
    cfg: &MemoryConfig,
    len: usize,
    threads: usize,
    chains: &[usize],
) -> Result<Vec<Vec<f64>>, AllocError> {
    let barrier = Arc::new(Barrier::new(threads));
    let failed = Arc::new(AtomicBool::new(false));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (barrier, failed) = (Arc::clone(&barrier), Arc::clone(&failed));
            let chains = chains.to_vec();
            let (loads, seed) = (cfg.loads_per_thread.max(1), cfg.seed ^ (t as u64 + 1));
            std::thread::spawn(move || -> Result<Vec<f64>, AllocError> {
                let ring = cycle(len, seed);
                failed.fetch_or(ring.is_err(), Ordering::Relaxed);
                // Every thread maps and shuffles first, so no one times while another shuffles;
                // if any mapping failed, every thread leaves here together.
                barrier.wait();
                let ring = ring?;
                if failed.load(Ordering::Relaxed) {
                    return Err(AllocError { bytes: len * 4 });
                }
                Ok(chains
                    .iter()
                    .map(|&c| {
                        barrier.wait();
                        let t0 = Instant::now();
                        std::hint::black_box(chase(&ring, c, loads / c as u64));
                        let s = t0.elapsed().as_secs_f64();
                        barrier.wait();
                        s
                    })
                    .collect())
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
        .collect()
}

/// `len` indices forming a single random cycle (Sattolo's algorithm), so a chase from any start
/// visits every slot before it repeats.
fn cycle(len: usize, seed: u64) -> Result<ZeroedSlice<u32>, AllocError> {
    let mut a = ZeroedSlice::<u32>::new(len)?;
    for (i, v) in a.iter_mut().enumerate() {
        *v = i as u32;
    }
    let mut x = seed | 1;
    for i in (1..len).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        a.swap(i, (x % i as u64) as usize);
    }
    Ok(a)
}

/// `steps` dependent loads on each of `chains` chains, interleaved; returns their ends.
fn chase(ring: &[u32], chains: usize, steps: u64) -> [u32; MAX_CHAINS] {
    let mut at = [0u32; MAX_CHAINS];
    let stride = (ring.len() / chains).max(1);
    for (k, p) in at.iter_mut().enumerate().take(chains) {
        *p = (k * stride) as u32;
    }
    for _ in 0..steps {
        for p in at.iter_mut().take(chains) {
            *p = ring.get(*p as usize).copied().unwrap_or(0);
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shuffle_is_one_cycle_through_every_slot() {
        let ring = cycle(1000, 7).expect("map");
        let (mut p, mut seen) = (0usize, vec![false; 1000]);
        for _ in 0..1000 {
            assert!(!seen[p], "slot {p} visited twice before the cycle closed");
            seen[p] = true;
            p = ring[p] as usize;
        }
        assert_eq!(p, 0);
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn both_layouts_chase_every_line_once_in_its_own_line_or_page() {
        let order = cycle(200, 5).expect("map");
        for (stride, unit) in [(LINE_WORDS, LINE_WORDS), (PAGE_WORDS, PAGE_WORDS)] {
            let a = laid_out(&order, stride).expect("map");
            let (mut p, mut units) = (0usize, std::collections::HashSet::new());
            for step in 0..200 {
                assert!(
                    units.insert(p / unit),
                    "stride {stride}: unit of {p} seen twice"
                );
                assert_eq!(p % LINE_WORDS, 0, "stride {stride}: a line's first word");
                p = a[p] as usize;
                assert!(p != 0 || step == 199, "stride {stride}: cycle closed early");
            }
            assert_eq!(p, 0, "stride {stride}: back at the start after every line");
        }
    }

    #[test]
    fn a_small_run_reports_every_row_and_ratio() {
        let r = run(&MemoryConfig {
            mib_per_thread: 1,
            loads_per_thread: 10_000,
            threads: 2,
            chains: vec![1, 4],
            pages: vec![16, 64],
            seed: 3,
        })
        .expect("run");
        assert_eq!(r.rows.len(), 4);
        assert_eq!(r.scaling.len(), 2);
        assert_eq!(
            r.pages.iter().map(|p| p.lines).collect::<Vec<_>>(),
            [16, 64]
        );
        assert!(r
            .pages
            .iter()
            .all(|p| p.packed_ns > 0.0 && p.spread_ns > 0.0));
        assert!(r
            .rows
            .iter()
            .all(|x| x.loads_per_s > 0.0 && x.ns_per_load > 0.0));
        assert!(r.scaling.iter().all(|s| s.ratio > 0.0 && s.threads == 2));
    }
}
