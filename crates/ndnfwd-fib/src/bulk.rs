//! Bulk loading of a static data-plane FIB straight from a stream of prefixes, without a RIB
//! or the writer's shadow map (a name tree of hundreds of millions of names would not fit).
//!
//! Pass 0 reads every name once without hashing to get its depth (one byte per prefix kept),
//! the depth histogram, the FIB depth `k`, M (given or chosen by a heuristic) and an upper bound
//! on table slots for sizing. Pass 1 visits prefixes in ascending depth and hashes each name
//! once: when a prefix is inserted, every shorter real prefix is already in place with its own
//! markers, so the best matching prefix of a new marker is an ordinary binary-search lookup over
//! the shorter depths, and two-stage MD only ever grows. Duplicates keep the nexthops of their
//! highest index. The result is read-only: there is no writer afterwards.

use ndn_packet::{NameHasher, NameRef, PrefixHashes};
use serde::Serialize;

use crate::entry::{h2_of, Found, RecKind};
use crate::lpm::{
    choose_m, marker_levels, tree_height, LpmAlgorithm, LpmConfig, MHeuristic, MAX_DEPTH,
};
use crate::nexthop::{NextHop, StrategyId};
use crate::ops::{Core, Host, Sizing};
use crate::reader::{FibHandle, LookupTrace};
use crate::FibError;

/// A stream of prefixes addressable by index.
pub trait PrefixSource {
    /// Number of prefixes.
    fn count(&self) -> u64;
    /// Appends the TLV-VALUE of prefix `i` to `out` (which the caller cleared).
    fn prefix(&self, i: u64, out: &mut Vec<u8>);
    /// Writes the nexthops of prefix `i` into `out` (cleared by the caller), returns its strategy.
    fn route(&self, i: u64, out: &mut Vec<NextHop>) -> StrategyId;
}

/// Bulk load parameters.
#[derive(Debug, Clone, Copy)]
pub struct BulkConfig {
    /// LPM algorithm of the loaded FIB.
    pub algorithm: LpmAlgorithm,
    /// Two-stage M; `None` chooses it with `heuristic`.
    pub m: Option<u8>,
    /// Heuristic for M when `m` is `None`.
    pub heuristic: MHeuristic,
    /// Slots per home bucket (0: the table's default).
    pub load_factor: usize,
}

/// What a bulk load did.
#[derive(Debug, Clone, Serialize)]
pub struct BulkReport {
    /// Prefixes read.
    pub read: u64,
    /// Prefixes installed.
    pub installed: u64,
    /// Names read more than once (the highest index is kept).
    pub duplicates: u64,
    /// Names that did not parse or were deeper than [`MAX_DEPTH`].
    pub rejected: u64,
    /// FIB depth.
    pub depth: usize,
    /// M used (two-stage) or that the heuristic picks (others).
    pub m: u8,
    /// Binary-search tree height.
    pub tree_height: u8,
    /// Prefix count per depth.
    pub depth_histogram: Vec<u64>,
    /// Table slots planned for.
    pub planned_slots: u64,
}

const REJECTED: u8 = u8::MAX;

/// Loads `src` into a new FIB keyed with `hasher`; `progress(done, total)` is called now and
/// then (total = twice the prefix count: one read pass and one insert pass).
pub fn load(
    cfg: &BulkConfig,
    hasher: &NameHasher,
    src: &dyn PrefixSource,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(FibHandle, BulkReport), FibError> {
    let total = src.count();
    let mut buf = Vec::with_capacity(256);
    // Pass 0: depths.
    let mut depths = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    let mut hist = vec![0u64; MAX_DEPTH + 1];
    let mut rejected = 0;
    for i in 0..total {
        buf.clear();
        src.prefix(i, &mut buf);
        let d = NameRef::new_checked(&buf).map_or(usize::MAX, |n| n.len());
        match hist.get_mut(d) {
            Some(h) => {
                *h += 1;
                depths.push(d as u8);
            }
            None => {
                rejected += 1;
                depths.push(REJECTED);
            }
        }
        if i % (1 << 20) == 0 {
            progress(i, 2 * total);
        }
    }
    let k = hist.iter().rposition(|&n| n > 0).unwrap_or(0);
    let m = cfg
        .m
        .unwrap_or_else(|| choose_m(&hist, cfg.heuristic))
        .max(1);
    let d = tree_height(k);
    let mu = usize::from(m);
    // Upper bounds: every record needed is assumed new (exact when no two prefixes share one).
    let (mut slots, mut extra_records) = (0u64, 0u64);
    for (p, &n) in hist.iter().enumerate() {
        let aux = match cfg.algorithm {
            LpmAlgorithm::LongestFirst => 0,
            LpmAlgorithm::TwoStage => u64::from(p > mu),
            LpmAlgorithm::BinarySearch => {
                let mut c = 0;
                marker_levels(p, d, |_| c += 1);
                c
            }
        };
        slots += n * (1 + aux);
        extra_records += n * aux.saturating_sub(2);
    }
    let reals: u64 = hist.iter().sum();
    let size = Sizing {
        slots: usize::try_from(slots).unwrap_or(usize::MAX),
        exact: true,
        load_factor: cfg.load_factor,
        // Each real prefix has an entry; records beyond two per prefix share aux entries.
        max_entries: reals + extra_records.div_ceil(2) + (1 << 16),
        max_sets: 1 << 24,
        colocated: reals,
    };
    let lpm = LpmConfig {
        algorithm: cfg.algorithm,
        m,
    };
    let core = Core::new(size, lpm, d)?;
    let mut p = core.published();
    p.k = k as u8;
    core.publish_config(p);

    // Pass 1: ascending depth, one hash per name, in prefetched batches. Within a depth,
    // indices go in descending order so that yuan's phase-two names (the first n / log k
    // indices, the ones looked up) are inserted last, as in seed 001 §3.3.1.
    let mut loader = Loader {
        core,
        hashes: PrefixHashes::with_capacity(16),
        hops: Vec::new(),
        d,
        m: mu,
        algorithm: cfg.algorithm,
        shallowest: hist
            .iter()
            .skip(1)
            .position(|&n| n > 0)
            .map_or(usize::MAX, |p| p + 1),
        duplicates: 0,
        installed: 0,
    };
    let mut batch: Vec<Pending> = (0..BATCH).map(|_| Pending::default()).collect();
    let mut done = total;
    for depth in (0..=k).filter(|&p| hist.get(p).is_some_and(|&n| n > 0)) {
        let mut filled = 0;
        let mut indices = depths
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, &x)| usize::from(x) == depth)
            .map(|(i, _)| i as u64)
            .peekable();
        while indices.peek().is_some() || filled > 0 {
            if let Some(i) = indices.next() {
                let Some(slot) = batch.get_mut(filled) else {
                    break;
                };
                slot.name.clear();
                src.prefix(i, &mut slot.name);
                let Ok(name) = NameRef::new_checked(&slot.name) else {
                    continue;
                };
                hasher.hash_prefixes(name, &mut slot.hashes);
                slot.hops.clear();
                slot.strategy = src.route(i, &mut slot.hops);
                loader.prefetch(&slot.hashes, depth);
                filled += 1;
                if filled < BATCH && indices.peek().is_some() {
                    continue;
                }
            }
            for slot in batch.iter_mut().take(filled) {
                core::mem::swap(&mut loader.hashes, &mut slot.hashes);
                core::mem::swap(&mut loader.hops, &mut slot.hops);
                loader.insert(depth, slot.strategy)?;
                core::mem::swap(&mut loader.hashes, &mut slot.hashes);
                core::mem::swap(&mut loader.hops, &mut slot.hops);
                done += 1;
                if done % (1 << 20) == 0 {
                    progress(done, 2 * total);
                }
            }
            filled = 0;
        }
    }
    progress(2 * total, 2 * total);
    let report = BulkReport {
        read: total,
        installed: loader.installed,
        duplicates: loader.duplicates,
        rejected,
        depth: k,
        m,
        tree_height: d,
        depth_histogram: hist.iter().take(k + 1).copied().collect(),
        planned_slots: slots,
    };
    let handle = FibHandle {
        shared: loader.core.shared.clone(),
    };
    Ok((handle, report))
}

/// Names per prefetch batch while loading.
const BATCH: usize = 16;

/// One name of a batch: hashed and prefetched, waiting to be inserted.
#[derive(Default)]
struct Pending {
    name: Vec<u8>,
    hashes: PrefixHashes,
    hops: Vec<NextHop>,
    strategy: StrategyId,
}

struct Loader {
    core: Core,
    hashes: PrefixHashes,
    hops: Vec<NextHop>,
    d: u8,
    m: usize,
    algorithm: LpmAlgorithm,
    /// Smallest depth >= 1 holding a prefix: markers above it have no BMP to look up.
    shallowest: usize,
    duplicates: u64,
    installed: u64,
}

impl Loader {
    fn h1(&self, l: usize) -> u64 {
        self.hashes.get(l).unwrap_or(0)
    }

    fn h2(&self, l: usize) -> u64 {
        h2_of(&self.hashes, l)
    }

    /// Prefetches the buckets `insert` will probe first for a name of depth `p`.
    fn prefetch(&self, hashes: &PrefixHashes, p: usize) {
        let table = &self.core.shared.table;
        let fetch = |l: usize| {
            if let Some(h) = hashes.get(l) {
                table.prefetch(h);
            }
        };
        fetch(p);
        match self.algorithm {
            LpmAlgorithm::LongestFirst => {}
            LpmAlgorithm::TwoStage => fetch(self.m),
            LpmAlgorithm::BinarySearch => marker_levels(p, self.d, fetch),
        }
    }

    fn probe(&self, l: usize, want_rec: Option<RecKind>) -> Option<(u32, Found)> {
        let mut tr = LookupTrace::default();
        self.core
            .shared
            .probe::<false>(&self.hashes, l, true, want_rec, None, &mut tr)
    }

    fn insert(&mut self, p: usize, strategy: StrategyId) -> Result<(), FibError> {
        if p == 0 {
            if self
                .core
                .shared
                .root
                .load(std::sync::atomic::Ordering::Relaxed)
                != 0
            {
                self.duplicates += 1;
                return Ok(());
            }
            let fwd = self.core.acquire_fwd(strategy, &self.hops)?;
            let e = self.core.alloc_entry(Some((self.h2(0), fwd, 0)))?;
            self.core.set_root(Some(e));
            self.installed += 1;
            return Ok(());
        }
        if self.probe(p, None).is_some() {
            self.duplicates += 1;
            return Ok(());
        }
        let mut recs: Vec<(usize, RecKind, u8)> = Vec::new();
        match self.algorithm {
            LpmAlgorithm::LongestFirst => {}
            LpmAlgorithm::BinarySearch => {
                let mut levels = [0usize; 8];
                let mut n = 0;
                marker_levels(p, self.d, |l| {
                    if let Some(s) = levels.get_mut(n) {
                        *s = l;
                        n += 1;
                    }
                });
                for &l in levels.iter().take(n) {
                    if self.probe(l, Some(RecKind::Marker)).is_none() {
                        let mut tr = LookupTrace::default();
                        let bmp = if l > self.shallowest {
                            self.core
                                .shared
                                .lookup_impl::<false>(&self.hashes, l - 1, &mut tr)
                                .map_or(0, |(_, depth)| depth)
                        } else {
                            0
                        };
                        recs.push((l, RecKind::Marker, bmp as u8));
                    }
                }
            }
            LpmAlgorithm::TwoStage if p > self.m => {
                let m = self.m;
                match self.probe(m, Some(RecKind::Virtual)) {
                    Some((e, Found::Real(md))) => {
                        if let Some(e) = self.core.entry(e) {
                            e.set_real_md(md.max(p as u8));
                        }
                    }
                    Some((e, Found::Record { value, pos })) => {
                        if let Some(e) = self.core.entry(e) {
                            e.set_record_value(pos, value.max(p as u8));
                        }
                    }
                    None => recs.push((m, RecKind::Virtual, p as u8)),
                }
            }
            LpmAlgorithm::TwoStage => {}
        }
        let fwd = self.core.acquire_fwd(strategy, &self.hops)?;
        // In the page of the first record it hosts when it hosts one: a lookup reads that
        // record right after its bucket (two-stage's virtual at M), and reaches the prefix's
        // own part, when it does, through the record, whose read has just fetched the entry.
        let near = recs.first().map_or(p, |&(l, _, _)| l);
        let entry = self
            .core
            .alloc_entry_near(self.h1(near), Some((self.h2(p), fwd, p as u8)))?;
        for (i, &(l, kind, value)) in recs.iter().take(2).enumerate() {
            let host = Host {
                entry,
                pos: i as u8,
            };
            self.core.fill_record(host, kind, self.h2(l), value);
            self.core.publish(self.h1(l), entry)?;
        }
        self.core.publish(self.h1(p), entry)?;
        for &(l, kind, value) in recs.iter().skip(2) {
            self.core.add_record(self.h1(l), self.h2(l), kind, value)?;
        }
        self.installed += 1;
        Ok(())
    }
}
