//! [`FibWriter`]: the FIB's single writer, working on full names (control plane).
//!
//! It keeps a shadow map of every name that has a data-plane presence (a real prefix, a marker
//! or a virtual record) with the reference counts that say which auxiliary records the active
//! LPM configuration needs, and drives the data plane through `Core` in an order that keeps every
//! concurrent lookup correct for either the state before or the state after each step:
//!
//! - insert: auxiliary records first, then the real slot, then retire records the real prefix
//!   now replaces, then raise the best-matching-prefix depth of markers below it;
//! - remove: records it was standing in for first, then the real slot, then lower the BMP of
//!   markers below it;
//! - configuration change (algorithm, M, or binary-search tree height when the FIB depth crosses
//!   a power of two): add every record the new configuration needs, publish it, and retire the
//!   old configuration's records through QSBR (removed only after every reader has passed a
//!   quiescent point, and only if still unneeded then).
//!
//! A tree-height change touches every prefix, so it must not follow the churn of single routes.
//! The tree grows as soon as a deeper prefix arrives (it could not be found otherwise) but
//! shrinks only once it has been taller than the FIB depth needs at [`SHRINK_AFTER`] reclaims in
//! a row (the daemon reclaims every 100 ms). Until then lookups may take one probe more than
//! `ceil(log2(k + 1))`; they stay bounded by the FIB, never by the name. Without this, a route
//! one level deeper than the rest of the FIB, registered and unregistered over and over, rebuilt
//! the markers of the whole FIB twice per pair (`rib_churn` example: 10 000 prefixes).

use std::collections::BTreeMap;
use std::ops::Bound;

use ndn_packet::{NameHasher, NameRef, PrefixHashes};

use crate::entry::{h2_of, RecKind};
use crate::lpm::{
    choose_m, marker_levels, tree_height, LpmAlgorithm, LpmConfig, MHeuristic, Published, MAX_DEPTH,
};
use crate::nexthop::{NextHop, StrategyId};
use crate::ops::{Core, Host, Sizing};
use crate::reader::FibHandle;
use crate::FibError;

#[path = "writer_config.rs"]
mod config;

/// Consecutive [`FibWriter::reclaim`] calls at which the binary-search tree must have been
/// taller than the FIB depth needs before it shrinks.
pub const SHRINK_AFTER: u32 = 10;

/// Slots a single insert may need at most (real + one marker per tree level + a virtual).
const SLOTS_PER_INSERT: usize = 2 + MAX_DEPTH.ilog2() as usize + 1;

/// How to build a FIB.
#[derive(Debug, Clone, Copy)]
pub struct FibConfig {
    /// Table slots to plan for: prefixes plus their markers or virtual entries.
    pub capacity: usize,
    /// Slots per home bucket (0: the table's default).
    pub load_factor: usize,
    /// Largest number of 24-byte entries (address space only until used).
    pub max_entries: u64,
    /// Largest number of distinct nexthop sets.
    pub max_nexthop_sets: u64,
    /// LPM algorithm and M.
    pub lpm: LpmConfig,
}

impl Default for FibConfig {
    fn default() -> Self {
        Self {
            capacity: 1 << 16,
            load_factor: 0,
            max_entries: 1 << 28,
            max_nexthop_sets: 1 << 20,
            lpm: LpmConfig::default(),
        }
    }
}

#[derive(Debug, Default)]
struct Node {
    depth: u8,
    real: Option<u32>,
    marker_refs: u32,
    marker: Option<Host>,
    virt_refs: u32,
    virt: Option<Host>,
    /// Two-stage MD: deepest real prefix at or below this name (kept for depth-M names).
    md: u8,
}

impl Node {
    fn is_unused(&self) -> bool {
        self.real.is_none()
            && self.marker_refs == 0
            && self.virt_refs == 0
            && self.marker.is_none()
            && self.virt.is_none()
    }
}

/// Writer-side statistics.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct WriterStats {
    /// Real prefixes.
    pub prefixes: u64,
    /// Marker records.
    pub markers: u64,
    /// Virtual records.
    pub virtuals: u64,
    /// Virtual entries per real prefix, percent (seed 000's FIB expansion).
    pub fib_expansion_pct: f64,
    /// Objects waiting for a grace period.
    pub pending_reclaim: usize,
    /// Names in the writer's shadow map.
    pub shadow_names: usize,
    /// Approximate bytes of the shadow map (control plane).
    pub shadow_bytes: usize,
    /// Binary-search tree height changes (each rebuilds the markers of the whole FIB).
    pub tree_resizes: u64,
}

/// The single writer of a FIB (not `Clone`). Create with [`FibWriter::new`], hand
/// [`FibWriter::handle`] to the workers.
pub struct FibWriter {
    core: Core,
    hasher: NameHasher,
    nodes: BTreeMap<Vec<u8>, Node>,
    lpm: LpmConfig,
    hist: [u64; MAX_DEPTH + 1],
    /// The deepest non-empty depth of `hist`, kept rather than searched for on every update.
    k: usize,
    hashes: PrefixHashes,
    shadow_key_bytes: usize,
    /// Reclaims in a row at which the binary-search tree was taller than needed.
    too_tall: u32,
    tree_resizes: u64,
}

impl core::fmt::Debug for FibWriter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FibWriter")
            .field("lpm", &self.lpm)
            .field("names", &self.nodes.len())
            .finish_non_exhaustive()
    }
}

fn prefix_bytes(name: &[u8], depth: usize) -> &[u8] {
    NameRef::new_checked(name)
        .map(|n| n.prefix(depth).value())
        .unwrap_or_default()
}

fn h1_of(hashes: &PrefixHashes, level: usize) -> u64 {
    hashes.get(level).unwrap_or(0)
}

impl FibWriter {
    /// An empty FIB. `hasher` must be the one whose [`PrefixHashes`] readers pass in.
    pub fn new(cfg: FibConfig, hasher: NameHasher) -> Result<Self, FibError> {
        check_m(cfg.lpm.m)?;
        let size = Sizing {
            slots: cfg.capacity,
            exact: false,
            load_factor: cfg.load_factor,
            max_entries: cfg.max_entries,
            max_sets: cfg.max_nexthop_sets,
            colocated: cfg.capacity as u64,
        };
        Ok(Self {
            core: Core::new(size, cfg.lpm, 0)?,
            hasher,
            nodes: BTreeMap::new(),
            lpm: cfg.lpm,
            hist: [0; MAX_DEPTH + 1],
            k: 0,
            hashes: PrefixHashes::with_capacity(16),
            shadow_key_bytes: 0,
            too_tall: 0,
            tree_resizes: 0,
        })
    }

    /// A handle for registering readers and reading memory figures.
    pub fn handle(&self) -> FibHandle {
        FibHandle {
            shared: self.core.shared.clone(),
        }
    }

    /// The active LPM configuration.
    pub fn lpm(&self) -> LpmConfig {
        self.lpm
    }

    /// Number of real prefixes per depth (index 0 = root).
    pub fn depth_histogram(&self) -> &[u64] {
        &self.hist
    }

    /// FIB depth: the deepest real prefix (0 when empty).
    pub fn depth(&self) -> usize {
        self.k
    }

    /// M chosen from the current prefix-depth distribution.
    pub fn choose_m(&self, heuristic: MHeuristic) -> u8 {
        choose_m(&self.hist, heuristic)
    }

    /// FIB expansion (virtual entries per real prefix, percent) two-stage would have with `m`.
    pub fn expansion_for_m(&self, m: u8) -> f64 {
        let m = usize::from(m);
        let mut virt = std::collections::BTreeSet::new();
        for (k, n) in &self.nodes {
            if n.real.is_some() && usize::from(n.depth) > m {
                let x = prefix_bytes(k, m);
                if self.nodes.get(x).is_none_or(|nx| nx.real.is_none()) {
                    virt.insert(x);
                }
            }
        }
        let reals: u64 = self.hist.iter().sum();
        100.0 * virt.len() as f64 / reals.max(1) as f64
    }

    /// Statistics of the writer and its shadow map.
    pub fn stats(&self) -> WriterStats {
        let m = self.handle().memory();
        WriterStats {
            prefixes: m.prefixes,
            markers: m.markers,
            virtuals: m.virtuals,
            fib_expansion_pct: 100.0 * m.virtuals as f64 / m.prefixes.max(1) as f64,
            pending_reclaim: self.core.pending(),
            shadow_names: self.nodes.len(),
            shadow_bytes: self.shadow_key_bytes
                + self.nodes.len() * (core::mem::size_of::<(Vec<u8>, Node)>() + 16),
            tree_resizes: self.tree_resizes,
        }
    }

    /// True when `name` is a real prefix.
    pub fn contains(&self, name: NameRef<'_>) -> bool {
        self.nodes
            .get(name.value())
            .is_some_and(|n| n.real.is_some())
    }

    /// Real prefixes, in canonical name order.
    pub fn prefixes(&self) -> impl Iterator<Item = NameRef<'_>> + '_ {
        self.nodes
            .iter()
            .filter(|(_, n)| n.real.is_some())
            .filter_map(|(k, _)| NameRef::new_checked(k).ok())
    }

    fn published(&self) -> Published {
        self.core.published()
    }

    fn hash(&mut self, name: &[u8]) {
        if let Ok(n) = NameRef::new_checked(name) {
            self.hasher.hash_prefixes(n, &mut self.hashes);
        }
    }

    fn node_mut(&mut self, key: &[u8], depth: usize) -> &mut Node {
        if !self.nodes.contains_key(key) {
            self.shadow_key_bytes += key.len();
            self.nodes.insert(
                key.to_vec(),
                Node {
                    depth: depth as u8,
                    ..Node::default()
                },
            );
        }
        // Looked up rather than `entry(key.to_vec())`, which allocated a key on every call.
        #[allow(clippy::expect_used)]
        self.nodes
            .get_mut(key)
            .expect("inserted above when missing")
    }

    fn cleanup(&mut self, key: &[u8]) {
        if self.nodes.get(key).is_some_and(Node::is_unused) {
            self.nodes.remove(key);
            self.shadow_key_bytes -= key.len();
        }
    }

    /// Depth of the deepest real proper prefix of `key` shorter than `depth` (0: none).
    fn bmp_of(&self, key: &[u8], depth: usize) -> usize {
        (1..depth)
            .rev()
            .find(|&j| {
                self.nodes
                    .get(prefix_bytes(key, j))
                    .is_some_and(|n| n.real.is_some())
            })
            .unwrap_or(0)
    }

    /// Sets (adds or replaces) the nexthops and strategy of prefix `name`.
    pub fn set(
        &mut self,
        name: NameRef<'_>,
        nexthops: &[NextHop],
        strategy: StrategyId,
    ) -> Result<(), FibError> {
        let p = name.len();
        if p > MAX_DEPTH {
            return Err(FibError::TooDeep);
        }
        if let Some(entry) = self.nodes.get(name.value()).and_then(|n| n.real) {
            let fwd = self.core.acquire_fwd(strategy, nexthops)?;
            let old = self.core.entry(entry).map(|e| {
                let old = e.fwd();
                e.set_fwd(fwd);
                old
            });
            if let Some(old) = old {
                self.core.release_fwd(old);
            }
            return Ok(());
        }
        if self.core.overflow_room() < SLOTS_PER_INSERT {
            return Err(FibError::TableFull);
        }
        if self.lpm.algorithm == LpmAlgorithm::BinarySearch {
            // Grow only; shrinking waits for reclaim (module docs).
            let d = tree_height(self.depth().max(p));
            if d > self.published().d {
                self.transition(self.lpm, d)?;
                self.tree_resizes += 1;
            }
        }
        let fwd = self.core.acquire_fwd(strategy, nexthops)?;
        let r = self.insert_real(name.value(), p, fwd);
        if r.is_err() {
            self.core.release_fwd(fwd);
        }
        r
    }

    fn insert_real(&mut self, key: &[u8], p: usize, fwd: u32) -> Result<(), FibError> {
        self.hash(key);
        if p == 0 {
            let entry = self
                .core
                .alloc_entry(Some((h2_of(&self.hashes, 0), fwd, 0)))?;
            self.core.set_root(Some(entry));
            self.node_mut(key, 0).real = Some(entry);
            self.hist[0] += 1;
            return Ok(());
        }
        let cfg = self.published();
        let m = usize::from(self.lpm.m);
        // Records this prefix needs that do not exist yet: (depth, kind, value).
        let mut new_recs: Vec<(usize, RecKind, u8)> = Vec::new();
        match self.lpm.algorithm {
            LpmAlgorithm::LongestFirst => {}
            LpmAlgorithm::BinarySearch => {
                let mut levels = Vec::new();
                marker_levels(p, cfg.d, |l| levels.push(l));
                for l in levels {
                    let x = prefix_bytes(key, l);
                    let bmp = self.bmp_of(key, l) as u8;
                    let nx = self.node_mut(x, l);
                    nx.marker_refs += 1;
                    if nx.real.is_none() && nx.marker.is_none() {
                        new_recs.push((l, RecKind::Marker, bmp));
                    }
                }
            }
            LpmAlgorithm::TwoStage if p > m => {
                let x = prefix_bytes(key, m);
                let nx = self.node_mut(x, m);
                nx.virt_refs += 1;
                nx.md = nx.md.max(p as u8);
                let (md, real, virt) = (nx.md, nx.real, nx.virt);
                if let Some(e) = real.and_then(|e| self.core.entry(e)) {
                    e.set_real_md(md);
                } else if let Some(h) = virt {
                    if let Some(e) = self.core.entry(h.entry) {
                        e.set_record_value(h.pos, md);
                    }
                } else {
                    new_recs.push((m, RecKind::Virtual, md));
                }
            }
            LpmAlgorithm::TwoStage => {}
        }
        let real_md = self.nodes.get(key).map_or(p as u8, |n| n.md.max(p as u8));
        // In the page of the first record it hosts, if any (as in the bulk load).
        let near = new_recs.first().map_or(p, |&(l, _, _)| l);
        let entry = self.core.alloc_entry_near(
            h1_of(&self.hashes, near),
            Some((h2_of(&self.hashes, p), fwd, real_md)),
        )?;
        let mut hosts = Vec::with_capacity(new_recs.len());
        for (i, &(l, kind, value)) in new_recs.iter().take(2).enumerate() {
            let host = Host {
                entry,
                pos: i as u8,
            };
            self.core
                .fill_record(host, kind, h2_of(&self.hashes, l), value);
            self.core.publish(h1_of(&self.hashes, l), entry)?;
            hosts.push((l, kind, host));
        }
        self.core.publish(h1_of(&self.hashes, p), entry)?;
        for &(l, kind, value) in new_recs.iter().skip(2) {
            let host = self.core.add_record(
                h1_of(&self.hashes, l),
                h2_of(&self.hashes, l),
                kind,
                value,
            )?;
            hosts.push((l, kind, host));
        }
        for (l, kind, host) in hosts {
            let nx = self.node_mut(prefix_bytes(key, l), l);
            match kind {
                RecKind::Marker => nx.marker = Some(host),
                RecKind::Virtual => nx.virt = Some(host),
            }
        }
        let np = self.node_mut(key, p);
        np.real = Some(entry);
        let (old_marker, old_virt) = (np.marker.take(), np.virt.take());
        let h1 = h1_of(&self.hashes, p);
        if let Some(h) = old_marker {
            self.core.remove_record(h, h1, RecKind::Marker);
        }
        if let Some(h) = old_virt {
            self.core.remove_record(h, h1, RecKind::Virtual);
        }
        self.retarget_bmps(key, |b| (b < p).then_some(p as u8));
        self.hist[p] += 1;
        self.k = self.k.max(p);
        self.publish_depth();
        Ok(())
    }

    /// Rewrites the BMP value of every marker record strictly below `key` for which `f` says so.
    fn retarget_bmps(&self, key: &[u8], f: impl Fn(usize) -> Option<u8>) {
        let below = self
            .nodes
            .range::<[u8], _>((Bound::Excluded(key), Bound::Unbounded))
            .take_while(|(k, _)| k.starts_with(key));
        for (_, n) in below {
            if let Some(h) = n.marker {
                if let Some(e) = self.core.entry(h.entry) {
                    if let Some(v) = f(usize::from(e.record_value(h.pos))) {
                        e.set_record_value(h.pos, v);
                    }
                }
            }
        }
    }

    fn publish_depth(&self) {
        let mut p = self.published();
        p.k = self.depth() as u8;
        self.core.publish_config(p);
    }

    /// Removes prefix `name`; false if it was not a real prefix.
    pub fn remove(&mut self, name: NameRef<'_>) -> Result<bool, FibError> {
        let key = name.value();
        let Some(entry) = self.nodes.get(key).and_then(|n| n.real) else {
            return Ok(false);
        };
        let p = name.len();
        self.hash(key);
        if p == 0 {
            self.core.set_root(None);
            self.core.remove_real(entry, None);
            self.node_mut(key, 0).real = None;
            self.hist[0] -= 1;
            self.cleanup(key);
            return Ok(true);
        }
        let cfg = self.published();
        let m = usize::from(self.lpm.m);
        match self.lpm.algorithm {
            LpmAlgorithm::LongestFirst => {}
            LpmAlgorithm::BinarySearch => {
                let mut levels = Vec::new();
                marker_levels(p, cfg.d, |l| levels.push(l));
                for l in levels {
                    let x = prefix_bytes(key, l);
                    let nx = self.node_mut(x, l);
                    nx.marker_refs = nx.marker_refs.saturating_sub(1);
                    if nx.marker_refs == 0 {
                        if let Some(h) = nx.marker.take() {
                            self.core
                                .remove_record(h, h1_of(&self.hashes, l), RecKind::Marker);
                        }
                    }
                    self.cleanup(x);
                }
            }
            LpmAlgorithm::TwoStage if p > m => {
                let x = prefix_bytes(key, m).to_vec();
                let deepest = self.deepest_below(&x, Some(key));
                let nx = self.node_mut(&x, m);
                nx.virt_refs = nx.virt_refs.saturating_sub(1);
                nx.md = deepest.max(m) as u8;
                let (refs, md, real, virt) = (nx.virt_refs, nx.md, nx.real, nx.virt);
                if let Some(e) = real.and_then(|e| self.core.entry(e)) {
                    e.set_real_md(md);
                } else if let Some(h) = virt {
                    if refs == 0 {
                        self.node_mut(&x, m).virt = None;
                        self.core
                            .remove_record(h, h1_of(&self.hashes, m), RecKind::Virtual);
                    } else if let Some(e) = self.core.entry(h.entry) {
                        e.set_record_value(h.pos, md);
                    }
                }
                self.cleanup(&x);
            }
            LpmAlgorithm::TwoStage => {}
        }
        // The prefix may still be needed as a marker or virtual entry by deeper prefixes.
        let bmp = self.bmp_of(key, p);
        let (h1, h2) = (h1_of(&self.hashes, p), h2_of(&self.hashes, p));
        let algorithm = self.lpm.algorithm;
        let np = self.node_mut(key, p);
        let need_marker = algorithm == LpmAlgorithm::BinarySearch && np.marker_refs > 0;
        let need_virt = algorithm == LpmAlgorithm::TwoStage && p == m && np.virt_refs > 0;
        let md = np.md;
        if need_marker {
            let h = self.core.add_record(h1, h2, RecKind::Marker, bmp as u8)?;
            self.node_mut(key, p).marker = Some(h);
        }
        if need_virt {
            let h = self.core.add_record(h1, h2, RecKind::Virtual, md)?;
            self.node_mut(key, p).virt = Some(h);
        }
        self.core.remove_real(entry, Some(h1));
        self.node_mut(key, p).real = None;
        self.retarget_bmps(key, |b| (b == p).then_some(bmp as u8));
        self.hist[p] -= 1;
        if p == self.k {
            self.k = self.hist.iter().rposition(|&n| n > 0).unwrap_or(0);
        }
        self.cleanup(key);
        self.publish_depth();
        Ok(true)
    }

    /// Depth of the deepest real prefix strictly below `key`, ignoring `except` (0: none).
    fn deepest_below(&self, key: &[u8], except: Option<&[u8]>) -> usize {
        self.nodes
            .range::<[u8], _>((Bound::Excluded(key), Bound::Unbounded))
            .take_while(|(k, _)| k.starts_with(key))
            .filter(|(k, n)| n.real.is_some() && Some(k.as_slice()) != except)
            .map(|(_, n)| usize::from(n.depth))
            .max()
            .unwrap_or(0)
    }
}

fn check_m(m: u8) -> Result<(), FibError> {
    if m == 0 || usize::from(m) > MAX_DEPTH {
        return Err(FibError::InvalidM);
    }
    Ok(())
}
