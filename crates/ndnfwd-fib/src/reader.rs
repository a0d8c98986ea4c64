//! The data-plane side: shared FIB state, reader handles and the three LPM algorithms.
//!
//! All prefixes of every depth share one [`BucketTable`]; a slot maps a prefix's table hash to
//! the entry that answers for it (its real entry, or the entry hosting its marker or virtual
//! record). A probe at depth `l` looks up `PrefixHashes::get(l)` and confirms a fingerprint match
//! with the keyed 128-bit identity (`id128(l)`, finished lazily, only on a fingerprint match).

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ndn_packet::PrefixHashes;
use ndnfwd_table::{BucketTable, Paged};
use serde::Serialize;

use crate::entry::{h2_of, Entry, Found, RecKind};
use crate::lpm::{LpmAlgorithm, Published};
use crate::nexthop::{FwdSet, NextHop, StrategyId};
use crate::qsbr::{Qsbr, QsbrReader};
use crate::spec::{FibHint, Hint, Step};
use crate::store::{Entries, Segmented};

mod walk;

/// Fewest depths [`FibReader::prefetch`] finalizes in one batch. The AVX2 batch runs four
/// lanes whatever it is given: for two depths it costs more than the two scalar finalizations
/// `PrefixHashes::get` does on first read (186 against about 2 x 79 instructions under
/// callgrind), from three on it costs less.
const BATCH_MIN_DEPTHS: usize = 3;

/// Depths of a top-down plan that [`FibReader::prefetch_head`] finalizes and prefetches: one
/// AVX2 batch. A longest-first lookup ends at the longest matching prefix, usually within a few
/// components of the name's end (an Interest names a FIB prefix plus a few components of its
/// own), so the depths below are rarely read; their finalizations and buckets are left to
/// [`FibReader::prefetch_entries`], which pays them only when the head holds no candidate.
const PLAN_HEAD: usize = 4;

/// A top-down plan's head for `hashes` under `cfg`: its top (the plan's first depth) and its
/// floor (the top less [`PLAN_HEAD`], or 0; the head is the depths above it).
#[inline(always)]
fn plan_head(cfg: Published, hashes: &PrefixHashes) -> (usize, usize) {
    let top = cfg.top_down_depth().min(hashes.components());
    (top, top.saturating_sub(PLAN_HEAD))
}

/// Bit of [`Shared::root`] saying the root prefix `/` has a real entry.
pub(crate) const ROOT_VALID: u64 = 1 << 32;

/// Writer-maintained counters readable by anyone (single writer: load + store).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub reals: AtomicU64,
    pub markers: AtomicU64,
    pub virtuals: AtomicU64,
    pub entries: AtomicU64,
    pub sets: AtomicU64,
    pub reclaimed_entries: AtomicU64,
    pub nexthops_dropped: AtomicU64,
}

/// Adds `delta` to a single-writer counter.
pub(crate) fn bump(c: &AtomicU64, delta: i64) {
    c.store(
        c.load(Ordering::Relaxed).wrapping_add_signed(delta),
        Ordering::Relaxed,
    );
}

/// State shared by the writer and every reader.
#[derive(Debug)]
pub(crate) struct Shared {
    pub table: BucketTable<Paged>,
    pub entries: Entries,
    pub sets: Segmented<FwdSet>,
    /// [`Published`] configuration word.
    pub config: AtomicU64,
    /// `ROOT_VALID | entry index` of the root prefix, or 0.
    pub root: AtomicU64,
    /// Write generation: odd while the writer changes bucket slots or `config` (see `spec.rs`).
    pub gen: AtomicU64,
    pub qsbr: Qsbr,
    pub counters: Counters,
}

/// Memory and population of a FIB, data plane only (the RIB is reported separately).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FibMemory {
    /// Real prefixes (with nexthops).
    pub prefixes: u64,
    /// Binary-search marker records.
    pub markers: u64,
    /// Two-stage virtual records.
    pub virtuals: u64,
    /// Live 24-byte entries (real prefixes and record hosts).
    pub entries: u64,
    /// Distinct (strategy, nexthops) sets.
    pub nexthop_sets: u64,
    /// Occupied table slots.
    pub slots: u64,
    /// Bytes of buckets mapped: home buckets plus the whole overflow pool.
    pub bucket_bytes_mapped: u64,
    /// Bytes of buckets in use: home buckets plus linked overflow buckets.
    pub bucket_bytes_used: u64,
    /// Bytes of entry storage: the entry slots of the table's pages plus the spill segments
    /// allocated.
    pub entry_bytes_allocated: u64,
    /// Bytes of live entries.
    pub entry_bytes_used: u64,
    /// Bytes of nexthop-set segments allocated.
    pub nexthop_set_bytes: u64,
}

impl FibMemory {
    /// Data-plane bytes per real prefix: buckets in use + live entries + nexthop sets in use.
    pub fn bytes_per_prefix_used(&self) -> f64 {
        let used = self.bucket_bytes_used + self.entry_bytes_used + self.nexthop_sets * 72;
        used as f64 / self.prefixes.max(1) as f64
    }

    /// Data-plane bytes per real prefix counting everything allocated or mapped.
    pub fn bytes_per_prefix_mapped(&self) -> f64 {
        let all = self.bucket_bytes_mapped + self.entry_bytes_allocated + self.nexthop_set_bytes;
        all as f64 / self.prefixes.max(1) as f64
    }
}

/// A cloneable, thread-safe handle to a FIB: registers readers and reports memory.
#[derive(Debug, Clone)]
pub struct FibHandle {
    pub(crate) shared: Arc<Shared>,
}

impl FibHandle {
    /// A new reader for one worker thread, online from now on.
    pub fn reader(&self) -> FibReader {
        FibReader {
            shared: self.shared.clone(),
            qsbr: self.shared.qsbr.register(),
            _not_sync: PhantomData,
        }
    }

    /// Current memory and population figures.
    pub fn memory(&self) -> FibMemory {
        let s = &self.shared;
        let c = &s.counters;
        let t = &s.table;
        let ld = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let line = ndnfwd_table::BUCKET_BYTES as u64;
        FibMemory {
            prefixes: ld(&c.reals),
            markers: ld(&c.markers),
            virtuals: ld(&c.virtuals),
            entries: ld(&c.entries),
            nexthop_sets: ld(&c.sets),
            slots: t.len() as u64,
            bucket_bytes_mapped: t.memory_bytes() as u64,
            bucket_bytes_used: (t.bucket_count() + t.overflow_in_use()) as u64 * line,
            entry_bytes_allocated: (s.entries.spill.memory_bytes() + t.payload_bytes()) as u64,
            entry_bytes_used: ld(&c.entries) * core::mem::size_of::<Entry>() as u64,
            nexthop_set_bytes: s.sets.memory_bytes() as u64,
        }
    }

    /// Entries reclaimed after a grace period since the FIB was created.
    pub fn reclaimed_entries(&self) -> u64 {
        self.shared
            .counters
            .reclaimed_entries
            .load(Ordering::Relaxed)
    }

    /// Nexthops dropped because a set exceeded [`crate::MAX_NEXTHOPS`].
    pub fn nexthops_dropped(&self) -> u64 {
        self.shared
            .counters
            .nexthops_dropped
            .load(Ordering::Relaxed)
    }

    /// The configured algorithm (binary search over a FIB at most two components deep is run as
    /// longest-first, the same probes: see the crate README).
    pub fn algorithm(&self) -> LpmAlgorithm {
        Published::unpack(self.shared.config.load(Ordering::Acquire)).algorithm
    }
}

/// Probes and bucket cache lines spent by one lookup.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LookupTrace {
    /// Hash-table lookups (the seeds' "FIB lookups").
    pub probes: u32,
    /// Buckets (cache lines) visited, overflow chains included.
    pub lines: u32,
}

/// The longest matching real prefix of a lookup. Borrows the reader: valid until its next
/// [`FibReader::quiescent`].
#[derive(Debug, Clone, Copy)]
pub struct FibMatch<'r> {
    entry: u32,
    depth: u8,
    set: &'r FwdSet,
}

impl<'r> FibMatch<'r> {
    /// Index of the matched entry (stable while the prefix stays; key for per-worker state).
    pub fn entry(&self) -> u32 {
        self.entry
    }

    /// Number of components of the matched prefix (0 for the root `/`).
    pub fn depth(&self) -> usize {
        usize::from(self.depth)
    }

    /// The prefix's strategy id.
    pub fn strategy(&self) -> StrategyId {
        self.set.strategy()
    }

    /// The prefix's nexthops, lowest cost first.
    pub fn nexthops(&self) -> impl Iterator<Item = NextHop> + 'r {
        self.set.nexthops()
    }
}

/// A worker's read handle. `Send`, not `Sync`: one per thread. Lookups never block or write
/// shared memory; call [`FibReader::quiescent`] between bursts (it ends the validity of every
/// [`FibMatch`] obtained so far) and [`FibReader::offline`] when idle.
#[derive(Debug)]
pub struct FibReader {
    pub(crate) shared: Arc<Shared>,
    qsbr: QsbrReader,
    _not_sync: PhantomData<Cell<()>>,
}

enum Best {
    None,
    Real(u32, usize),
    Bmp(usize),
}

impl FibReader {
    /// Announces a quiescent point: no match obtained before is used after this call.
    #[inline]
    pub fn quiescent(&mut self) {
        self.qsbr.quiescent();
    }

    /// Stops holding back reclamation while idle.
    pub fn offline(&mut self) {
        self.qsbr.offline();
    }

    /// Resumes after [`FibReader::offline`].
    pub fn online(&mut self) {
        self.qsbr.online();
    }

    /// Longest prefix match of the name whose prefix hashes are `hashes`. Always inlined: the
    /// Interest pipeline calls it once per Interest.
    #[inline(always)]
    pub fn lookup(&self, hashes: &PrefixHashes) -> Option<FibMatch<'_>> {
        self.lookup_from(hashes, self.shared.published(), Hint::NONE)
    }

    /// [`FibReader::lookup`] given what [`FibReader::prefetch_entries`] of the same name found:
    /// while the FIB is unchanged since, a longest-first or two-stage lookup starts where that
    /// scan found the first fingerprint match (same answer, fewer probes). Any `hint` gives the
    /// answer of `lookup`; one made for another name or before a FIB change is ignored.
    #[inline(always)]
    pub fn lookup_with(&self, hashes: &PrefixHashes, hint: FibHint) -> Option<FibMatch<'_>> {
        // A hint passes only under the generation of its scan, hence that scan's (top-down)
        // configuration: binary search never sees one.
        let s = &*self.shared;
        let cfg = s.published();
        self.lookup_from(hashes, cfg, hint.check(s, hashes))
    }

    /// The lookup under `cfg` from a checked hint.
    #[inline(always)]
    fn lookup_from(
        &self,
        hashes: &PrefixHashes,
        cfg: Published,
        hint: Hint,
    ) -> Option<FibMatch<'_>> {
        let s = &*self.shared;
        let n = hashes.components();
        if let Some(m) = self.scanned_match(cfg, hashes, n, hint) {
            return m;
        }
        let mut tr = LookupTrace::default();
        let hit = s.lookup_hinted::<false>(cfg, hashes, n, hint, &mut tr);
        hit.and_then(|(e, d)| self.make_match(e, d))
    }

    /// The lookup's answer when the scan's first candidate answers for its depth: the
    /// algorithm's walk would confirm that very candidate first and end there, or, for a
    /// two-stage hit at M (real or virtual) whose MD goes deeper, go on with stage 2 from it.
    /// The entry the candidate names is fetched once for both the confirmation and the nexthop
    /// set. `None` when this shortcut does not apply (no candidate, a fingerprint false
    /// positive, a virtual record that does not restart); the full lookup then runs with the
    /// same hint.
    #[inline(always)]
    fn scanned_match(
        &self,
        cfg: Published,
        hashes: &PrefixHashes,
        n: usize,
        hint: Hint,
    ) -> Option<Option<FibMatch<'_>>> {
        let s = &*self.shared;
        let entry = hint.first?;
        let depth = hint.depth;
        let m = usize::from(cfg.m);
        // `top`: the walk's first probe, which the hint's depth must not exceed. `restart`: an MD
        // above it sends two-stage to stage 2 (a hit at M for a name longer than M).
        let (top, restart) = match cfg.algorithm {
            LpmAlgorithm::LongestFirst => (n.min(usize::from(cfg.k)), usize::MAX),
            LpmAlgorithm::TwoStage => (n.min(m), if depth == m && n > m { m } else { usize::MAX }),
            LpmAlgorithm::BinarySearch => return None,
        };
        if depth > top {
            return None;
        }
        let e = s.entry(entry)?;
        let h2 = h2_of(hashes, depth);
        if restart == usize::MAX {
            // The walk ends at a real hit; a record here is a miss it goes on below from,
            // which the full lookup does.
            let fwd = e.real_fwd(h2)?;
            return Some(s.sets.get(fwd).map(|set| FibMatch {
                entry,
                depth: depth as u8,
                set,
            }));
        }
        let hit = match e.probe(h2, true, Some(RecKind::Virtual))? {
            Found::Real(md) if usize::from(md) > restart => {
                s.stage2_from(hashes, n.min(usize::from(md)), m, Some(entry))
            }
            Found::Real(_) => {
                return Some(s.sets.get(e.fwd()).map(|set| FibMatch {
                    entry,
                    depth: depth as u8,
                    set,
                }))
            }
            Found::Record { value: md, .. } if usize::from(md) > restart => {
                s.stage2_from(hashes, n.min(usize::from(md)), m, None)
            }
            Found::Record { .. } => return None,
        };
        Some(hit.and_then(|(e, d)| self.make_match(e, d)))
    }

    /// [`FibReader::lookup`] that also counts probes and cache lines. It probes the whole
    /// plan (no hint), so the counts are the algorithm's own.
    pub fn lookup_traced(&self, hashes: &PrefixHashes) -> (Option<FibMatch<'_>>, LookupTrace) {
        let mut tr = LookupTrace::default();
        let hit = self
            .shared
            .lookup_impl::<true>(hashes, hashes.components(), &mut tr);
        (hit.and_then(|(e, d)| self.make_match(e, d)), tr)
    }

    /// Prefetches the buckets the current algorithm will probe first (see
    /// [`FibReader::probe_plan`]). A top-down plan reads the hash of every depth from its top
    /// down, so those are finalized together first ([`PrefixHashes::finalize`]) when there
    /// are at least three of them (`BATCH_MIN_DEPTHS`).
    #[inline(always)]
    pub fn prefetch(&self, hashes: &PrefixHashes) {
        let s = &*self.shared;
        let cfg = s.published();
        // A top-down plan reads every depth from its top down: finalize them together.
        // Binary search's plan is a few scattered depths, finalized one by one on first read.
        let top = cfg.top_down_depth();
        let top = top.min(hashes.components());
        if top >= BATCH_MIN_DEPTHS {
            hashes.finalize(1..=top);
        }
        s.for_each_planned(cfg, hashes, |_, h| {
            s.table.prefetch(h);
            false
        });
    }

    /// [`FibReader::prefetch`] of the plan's head only, for a caller that runs
    /// [`FibReader::prefetch_entries`] one step later (the speculative mode): a top-down plan's
    /// first `PLAN_HEAD` depths (finalized in one batch) and their buckets; binary search's
    /// whole plan, as `prefetch` does. `prefetch_entries` then prefetches the rest of a
    /// top-down plan when the head's buckets hold no candidate.
    #[inline(always)]
    pub fn prefetch_head(&self, hashes: &PrefixHashes) {
        let s = &*self.shared;
        let cfg = s.published();
        if cfg.algorithm == LpmAlgorithm::BinarySearch {
            s.for_each_planned(cfg, hashes, |_, h| {
                s.table.prefetch(h);
                false
            });
            return;
        }
        let (top, floor) = plan_head(cfg, hashes);
        s.prefetch_depths(hashes, floor, top);
    }

    /// Speculative entry prefetch (seed 002's Speculative HT Lookup): prefetches the entry
    /// behind every fingerprint match in the buckets of the probe plan, stopping, for
    /// longest-first and two-stage, after the first bucket (longest prefix first) holding one:
    /// those lookups end at their first hit, so shorter prefixes' buckets are only read after a
    /// fingerprint false positive. For those two it scans the plan's first `PLAN_HEAD` depths
    /// only (the buckets [`FibReader::prefetch_head`] fetched); when none of them holds a
    /// candidate it finalizes the rest of the plan and prefetches those buckets, for the
    /// lookup or a [`FibReader::prefetch_steps`] step one step later, without reading them.
    /// It reads no overflow bucket it has not fetched: a head depth whose home bucket holds no
    /// candidate but whose chain goes on (longest-first; two-stage below its top) stops the
    /// scan there with that overflow bucket prefetched, and the step or the lookup reads the
    /// chain. Call it one step after [`FibReader::prefetch`] or [`FibReader::prefetch_head`]
    /// with the same hashes, once those buckets are in cache; it reads only the buckets and never
    /// changes a lookup's result, and any hashes (empty, other keys, any length) are fine. For
    /// the top-down algorithms it returns where the scan stopped, for
    /// [`FibReader::lookup_with`] of the same name to skip the probes it knows miss (valid
    /// only while the FIB is unchanged); [`FibHint::NONE`] for binary search. Nexthop sets are
    /// not prefetched: their index lives in the entry being fetched.
    #[inline(always)]
    pub fn prefetch_entries(&self, hashes: &PrefixHashes) -> FibHint {
        let s = &*self.shared;
        let gen = FibHint::begin(s);
        let cfg = s.published();
        if cfg.algorithm == LpmAlgorithm::BinarySearch {
            s.for_each_candidate(cfg, hashes, |_, i| s.prefetch_entry(i));
            return FibHint::NONE;
        }
        let (top, floor) = plan_head(cfg, hashes);
        // Two-stage reads its top's chain whole: a candidate at M starts the stage-2 steps.
        let full = if cfg.algorithm == LpmAlgorithm::TwoStage {
            top
        } else {
            0
        };
        let hint = s.scan_down(hashes, top, floor, full);
        if hint.first.is_none() && floor > 0 {
            s.prefetch_depths(hashes, 0, floor);
        }
        // A two-stage candidate at M for a name longer than M: its MD may go on to stage 2.
        let n = hashes.components();
        let stage2 = cfg.algorithm == LpmAlgorithm::TwoStage && hint.depth == top && n > top;
        FibHint::made(gen, hashes, hint, stage2)
    }

    /// The speculative steps after [`FibReader::prefetch_entries`] of a top-down lookup whose
    /// scan left memory the lookup would miss on: called once a step,
    /// [`FibReader::speculative_steps`] steps in a row, with the hint of the same name (then,
    /// as it is, for [`FibReader::lookup_with`]). Each call updates `hint` in place.
    ///
    /// - No candidate in the plan's head (longest-first, or two-stage with M above
    ///   `PLAN_HEAD`), or the head's scan stopped on an overflow bucket: one step scans the
    ///   rest of the plan's buckets, prefetched by `prefetch_entries`, from the top down to the
    ///   first one holding a fingerprint match (the chain the head stopped on whole, its
    ///   overflow bucket prefetched with it), prefetches the entries behind its matches and
    ///   moves the hint there (or to depth 0 when none has one), so that the lookup starts at
    ///   that candidate, its entry in cache, as after a candidate in the head. A further home
    ///   bucket with no match whose chain goes on ends the step there as in the head (its
    ///   overflow bucket prefetched for the lookup, which probes that depth first).
    /// - Two-stage's hit at M (real or virtual) whose MD is deeper than M: the first step reads
    ///   the depth-M entry `prefetch_entries` prefetched and, when its MD sends the lookup to
    ///   stage 2, prefetches the bucket of stage 2's first probe (depth `min(n, MD)`); the
    ///   second scans that bucket and prefetches the entries behind its fingerprint matches.
    ///   Stage 2 then usually ends at that first probe with its bucket and entry in cache,
    ///   instead of two dependent misses.
    ///
    /// Any other hint (binary search, a candidate in the head not at M, both steps done) comes
    /// back as it is after one test. Like `prefetch_entries`, this only reads the table and
    /// entries: any hashes and any hint are fine, and the lookup's answer never depends on
    /// these steps (a FIB change since the scan voids the hint, whatever the steps found). A
    /// caller may skip these steps while [`FibReader::speculative_steps`] is 0.
    #[inline(always)]
    pub fn prefetch_steps(&self, hashes: &PrefixHashes, hint: &mut FibHint) {
        if hint.step_pending() {
            *hint = self.step(hashes, *hint);
        }
    }

    /// How many [`FibReader::prefetch_steps`] the published configuration's
    /// [`FibReader::prefetch_entries`] hints may want in a row: two under two-stage, one under
    /// longest-first whose plan goes below its head, else none (a caller reads it once per
    /// burst; a change of configuration since only leaves some steps undone or done for
    /// nothing).
    #[inline]
    pub fn speculative_steps(&self) -> usize {
        let cfg = self.shared.published();
        match cfg.algorithm {
            LpmAlgorithm::TwoStage => 2,
            LpmAlgorithm::LongestFirst => usize::from(cfg.top_down_depth() > PLAN_HEAD),
            LpmAlgorithm::BinarySearch => 0,
        }
    }

    /// One step of [`FibReader::prefetch_steps`] for a hint with one pending. Out of line:
    /// only the Interests the scan of the head left with a miss to hide come here, and the
    /// test before it stays small in the burst loop.
    #[inline(never)]
    fn step(&self, hashes: &PrefixHashes, hint: FibHint) -> FibHint {
        let s = &*self.shared;
        match hint.step() {
            Step::Done => hint,
            Step::Below { floor } => {
                // A scan stopped in the head on an overflow bucket prefetched it: that chain
                // is read whole now. The head's floor's overflow is only prefetched (the
                // lookup reads it).
                let full = if floor > plan_head(s.published(), hashes).1 {
                    floor
                } else {
                    0
                };
                hint.below_found(s.scan_down(hashes, floor, 0, full))
            }
            Step::Entry { m, entry } => {
                let start = s.entry(entry).and_then(|e| {
                    let md = match e.probe(h2_of(hashes, m), true, Some(RecKind::Virtual))? {
                        Found::Real(md) | Found::Record { value: md, .. } => usize::from(md),
                    };
                    let start = hashes.components().min(md);
                    (start > m).then_some(start)
                });
                let start = start.and_then(|d| hashes.get(d).map(|h| (d, h)));
                if let Some((_, h)) = start {
                    s.table.prefetch(h);
                }
                hint.stage2_next(start.map(|(d, _)| d))
            }
            Step::Bucket { depth } => {
                if let Some(h) = hashes.get(depth) {
                    s.table.candidates(h, |i| s.prefetch_entry(i));
                }
                hint.stage2_next(None)
            }
        }
    }

    /// Table hashes the current algorithm probes first, all at once: every candidate depth for
    /// longest-first (`min(n, k) ..= 1`) and two-stage stage 1 (`min(n, M) ..= 1`); for binary
    /// search the first probe of the search path and both possible second probes.
    pub fn probe_plan(&self, hashes: &PrefixHashes, out: &mut impl Extend<u64>) {
        let s = &*self.shared;
        s.for_each_planned(s.published(), hashes, |_, h| {
            out.extend(core::iter::once(h));
            false
        });
    }

    fn make_match(&self, entry: u32, depth: usize) -> Option<FibMatch<'_>> {
        let e = self.shared.entry(entry)?;
        let set = self.shared.sets.get(e.fwd())?;
        Some(FibMatch {
            entry,
            depth: depth as u8,
            set,
        })
    }
}

#[cfg(test)]
#[path = "reader_tests.rs"]
pub(crate) mod tests;
