//! The three LPM walks over the shared table (longest-first, two-stage with virtual entries,
//! binary search over prefix lengths with markers), the probe-plan walks of the prefetch steps,
//! and the probe that confirms a fingerprint match by the prefix's 128-bit identity.

use super::*;

impl Shared {
    /// The configuration a lookup runs ([`Published::walk`] of the published one).
    #[inline(always)]
    pub(super) fn published(&self) -> Published {
        Published::unpack_walk(self.config.load(Ordering::Acquire))
    }

    /// Calls `f` with each depth of `cfg`'s probe plan and its table hash. For longest-first
    /// and two-stage (whose plan is a top-down run of probes ending at the first hit) the plan
    /// stops when `f` returns true, "this depth would likely hit"; binary search ignores it
    /// (any of its planned probes may follow a hit). Inlined into its callers (the prefetch
    /// steps of every Interest), which saves a call and the closure's indirection.
    #[inline(always)]
    pub(super) fn for_each_planned(
        &self,
        cfg: Published,
        hashes: &PrefixHashes,
        mut f: impl FnMut(usize, u64) -> bool,
    ) {
        let n = hashes.components();
        let mut depth = |l: usize| hashes.get(l).is_some_and(|h| f(l, h));
        let top = cfg.top_down_depth();
        match cfg.algorithm {
            LpmAlgorithm::LongestFirst | LpmAlgorithm::TwoStage => {
                // A plain loop: an iterator's `any` leaves its closure out of line.
                let mut l = n.min(top);
                while l > 0 && !depth(l) {
                    l -= 1;
                }
            }
            LpmAlgorithm::BinarySearch => {
                let (lo, mut hi) = (1usize, (1usize << cfg.d) - 1);
                while lo <= hi {
                    let mid = (lo + hi) / 2;
                    if mid > n {
                        hi = mid - 1;
                        continue;
                    }
                    depth(mid);
                    let left = (lo + mid - 1) / 2;
                    let right = (mid + 1 + hi) / 2;
                    if mid > lo {
                        depth(left);
                    }
                    if mid < hi && right <= n {
                        depth(right);
                    }
                    break;
                }
            }
        }
    }

    /// Prefetches the buckets of depths `top` down to `floor + 1` (those past the name are
    /// skipped), their hashes finalized in one batch first when there are at least
    /// [`super::BATCH_MIN_DEPTHS`] of them.
    #[inline(always)]
    pub(super) fn prefetch_depths(&self, hashes: &PrefixHashes, floor: usize, top: usize) {
        if top - floor >= super::BATCH_MIN_DEPTHS {
            hashes.finalize(floor + 1..=top);
        }
        // Finalized (or read before): one test of the cache bits for the whole run.
        if let Some(hs) = hashes.cached_rev(floor + 1..=top) {
            hs.for_each(|h| self.table.prefetch(h));
            return;
        }
        let mut l = top;
        while l > floor {
            if let Some(h) = hashes.get(l) {
                self.table.prefetch(h);
            }
            l -= 1;
        }
    }

    /// The speculative scan of a top-down plan's buckets at depths `top` down to `floor + 1`
    /// (in cache by now): prefetches the entries behind the fingerprint matches of the first
    /// bucket holding one and returns its depth and first match, or `floor` and none. Only the
    /// chain of depth `full` (0: none) is read whole, its overflow buckets wanted now or in
    /// cache; at any other depth the home bucket is scanned alone
    /// ([`BucketTable::home_candidates`]), and one with no match whose chain goes on stops
    /// the scan there with its first overflow bucket prefetched: the depth and no match are
    /// returned, and whoever reads that chain next (a further step or the lookup, which probes
    /// the hint's depth in full) finds the rest in cache instead of stalling on it here.
    #[inline(always)]
    pub(super) fn scan_down(
        &self,
        hashes: &PrefixHashes,
        top: usize,
        floor: usize,
        full: usize,
    ) -> Hint {
        let mut hint = Hint {
            depth: floor,
            first: None,
        };
        // A plain loop, as in `for_each_planned`.
        let mut l = top;
        while l > floor {
            if let Some(h) = hashes.get(l) {
                let found = |i| {
                    self.prefetch_entry(i);
                    if hint.first.is_none() {
                        hint = Hint {
                            depth: l,
                            first: Some(i),
                        };
                    }
                };
                if l == full {
                    self.table.candidates(h, found);
                } else if self.table.home_candidates(h, found) && hint.first.is_none() {
                    return Hint {
                        depth: l,
                        first: None,
                    };
                }
                if hint.first.is_some() {
                    break;
                }
            }
            l -= 1;
        }
        hint
    }

    /// Depths and entry indices of the fingerprint matches in the buckets of the probe plan, in
    /// plan and chain order, up to the first bucket holding one for the top-down algorithms (a
    /// hint: may include other prefixes' entries and, after a fingerprint false positive or
    /// under concurrent writes, miss some). Inlined into the speculative step, as
    /// [`Shared::for_each_planned`].
    #[inline(always)]
    pub(super) fn for_each_candidate(
        &self,
        cfg: Published,
        hashes: &PrefixHashes,
        mut f: impl FnMut(usize, u32),
    ) {
        self.for_each_planned(cfg, hashes, |l, h| {
            let mut any = false;
            self.table.candidates(h, |i| {
                any = true;
                f(l, i);
            });
            any
        });
    }

    #[inline(always)]
    pub(crate) fn lookup_impl<const T: bool>(
        &self,
        hashes: &PrefixHashes,
        n: usize,
        tr: &mut LookupTrace,
    ) -> Option<(u32, usize)> {
        self.lookup_hinted::<T>(self.published(), hashes, n, Hint::NONE, tr)
    }

    /// The longest matching real prefix (entry, depth) under `cfg`, the top-down algorithms
    /// starting from `hint` (binary search ignores it), the root prefix when nothing deeper
    /// matches.
    #[inline(always)]
    pub(super) fn lookup_hinted<const T: bool>(
        &self,
        cfg: Published,
        hashes: &PrefixHashes,
        n: usize,
        hint: Hint,
        tr: &mut LookupTrace,
    ) -> Option<(u32, usize)> {
        let hit = match cfg.algorithm {
            LpmAlgorithm::LongestFirst => {
                self.longest_first::<T>(hashes, n.min(usize::from(cfg.k)), hint, tr)
            }
            LpmAlgorithm::TwoStage => self.two_stage::<T>(hashes, n, usize::from(cfg.m), hint, tr),
            LpmAlgorithm::BinarySearch => self.binary::<T>(hashes, n, cfg.d, tr),
        };
        hit.or_else(|| self.root_hit())
    }

    /// The root prefix `/` as a match (entry, depth 0), if it has a real entry.
    #[inline(always)]
    pub(super) fn root_hit(&self) -> Option<(u32, usize)> {
        let r = self.root.load(Ordering::Acquire);
        (r & ROOT_VALID != 0).then_some((r as u32, 0))
    }

    /// Two-stage's stage 2 as the untraced lookup runs it, ending at the root like the walk.
    pub(super) fn stage2_from(
        &self,
        hashes: &PrefixHashes,
        start: usize,
        m: usize,
        at_m: Option<u32>,
    ) -> Option<(u32, usize)> {
        let mut tr = LookupTrace::default();
        self.stage2::<false>(hashes, start, m, at_m, &mut tr)
            .or_else(|| self.root_hit())
    }

    /// One probe at depth `level`: the entry answering for that prefix in a wanted role.
    /// `first`, the first fingerprint match of the level's chain as a scan of the unchanged
    /// table found it, is confirmed before (instead of) the bucket walk that would reach it first.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn probe<const T: bool>(
        &self,
        hashes: &PrefixHashes,
        level: usize,
        want_real: bool,
        want_rec: Option<RecKind>,
        first: Option<u32>,
        tr: &mut LookupTrace,
    ) -> Option<(u32, Found)> {
        let h1 = hashes.get(level)?;
        let mut h2 = None;
        if let Some(i) = first {
            if let Some(f) = self.confirm(hashes, level, i, &mut h2, want_real, want_rec) {
                return Some((i, f));
            }
        }
        let mut found = None;
        let eq = |idx: u32| {
            found = self.confirm(hashes, level, idx, &mut h2, want_real, want_rec);
            found.is_some()
        };
        let idx = if T {
            let (idx, lines) = self.table.lookup_probes(h1, eq);
            tr.probes += 1;
            tr.lines += lines;
            idx
        } else {
            self.table.lookup(h1, eq)
        };
        Some((idx?, found?))
    }

    /// What entry `idx` holds for the prefix at `level` in a wanted role; `h2` caches the
    /// prefix's identity word across the candidates of one probe.
    #[inline(always)]
    pub(super) fn confirm(
        &self,
        hashes: &PrefixHashes,
        level: usize,
        idx: u32,
        h2: &mut Option<u64>,
        want_real: bool,
        want_rec: Option<RecKind>,
    ) -> Option<Found> {
        let e = self.entry(idx)?;
        let h2 = *h2.get_or_insert_with(|| h2_of(hashes, level));
        e.probe(h2, want_real, want_rec)
    }

    pub(super) fn longest_first<const T: bool>(
        &self,
        hashes: &PrefixHashes,
        top: usize,
        hint: Hint,
        tr: &mut LookupTrace,
    ) -> Option<(u32, usize)> {
        // A plain loop: the probe is inlined here, not behind a `find_map` closure call.
        let mut l = top.min(hint.depth);
        while l > 0 {
            if let Some((e, _)) = self.probe::<T>(hashes, l, true, None, hint.first_at(l), tr) {
                return Some((e, l));
            }
            l -= 1;
        }
        None
    }

    /// Seed 000 Algorithm 1.
    pub(super) fn two_stage<const T: bool>(
        &self,
        hashes: &PrefixHashes,
        n: usize,
        m: usize,
        hint: Hint,
        tr: &mut LookupTrace,
    ) -> Option<(u32, usize)> {
        for l in (1..=n.min(m).min(hint.depth)).rev() {
            let want_rec = (l == m).then_some(RecKind::Virtual);
            match self.probe::<T>(hashes, l, true, want_rec, hint.first_at(l), tr) {
                None => {}
                Some((e, Found::Real(md))) => {
                    let md = usize::from(md);
                    if l == m && md > m && n > m {
                        return self.stage2::<T>(hashes, n.min(md), m, Some(e), tr);
                    }
                    return Some((e, l));
                }
                Some((_, Found::Record { value: md, .. })) => {
                    let md = usize::from(md);
                    if md > m && n > m {
                        return self.stage2::<T>(hashes, n.min(md), m, None, tr);
                    }
                }
            }
        }
        None
    }

    pub(super) fn stage2<const T: bool>(
        &self,
        hashes: &PrefixHashes,
        start: usize,
        m: usize,
        at_m: Option<u32>,
        tr: &mut LookupTrace,
    ) -> Option<(u32, usize)> {
        for l in (1..=start).rev() {
            if l == m {
                if let Some(e) = at_m {
                    return Some((e, m));
                }
                continue;
            }
            if let Some((e, _)) = self.probe::<T>(hashes, l, true, None, None, tr) {
                return Some((e, l));
            }
        }
        None
    }

    /// Seed 001 §3.1 without backtracking: markers carry their best matching real depth; a
    /// marker answer costs one more probe to fetch that real entry.
    pub(super) fn binary<const T: bool>(
        &self,
        hashes: &PrefixHashes,
        n: usize,
        d: u8,
        tr: &mut LookupTrace,
    ) -> Option<(u32, usize)> {
        let (mut lo, mut hi) = (1usize, (1usize << d) - 1);
        let mut best = Best::None;
        while lo <= hi {
            let mid = (lo + hi) / 2;
            if mid > n {
                hi = mid - 1;
                continue;
            }
            match self.probe::<T>(hashes, mid, true, Some(RecKind::Marker), None, tr) {
                Some((e, Found::Real(_))) => {
                    best = Best::Real(e, mid);
                    lo = mid + 1;
                }
                Some((_, Found::Record { value: b, .. })) => {
                    best = Best::Bmp(usize::from(b));
                    lo = mid + 1;
                }
                None => hi = mid - 1,
            }
        }
        match best {
            Best::Real(e, l) => Some((e, l)),
            Best::None | Best::Bmp(0) => None,
            Best::Bmp(b) => self
                .probe::<T>(hashes, b, true, None, None, tr)
                .map(|(e, _)| (e, b))
                // Only while the writer is removing that real prefix: finish longest-first.
                .or_else(|| self.longest_first::<T>(hashes, b - 1, Hint::NONE, tr)),
        }
    }
}
