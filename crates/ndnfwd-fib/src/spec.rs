//! What the speculative step learned, handed to the lookup that follows it.
//!
//! For longest-first and two-stage, [`crate::FibReader::prefetch_entries`] scans the buckets of
//! the probe plan from the longest prefix down and stops at the first one holding a fingerprint
//! match. That scan already knows what the lookup's first probes will find: nothing at every
//! deeper planned depth, and, at the depth where it stopped, the first fingerprint match in chain
//! order. It returns that as a [`FibHint`], which the caller keeps with the packet and passes to
//! [`crate::FibReader::lookup_with`]: the lookup of the same name starts at that depth with that
//! candidate instead of probing the deeper depths again.
//!
//! Exactness: the writer makes the FIB's write generation ([`Shared::gen`]) odd while it changes
//! bucket slots or the published configuration and even again afterwards (a seqlock). A hint is
//! made only under an even generation read before the scan, and it is tagged with that
//! generation XOR the table hash of the scanned name. The lookup uses it only when the tag
//! equals the generation it reads now XOR its own name's table hash: for the same name that is
//! exactly "the generation has not changed", so the table and configuration the lookup would
//! probe are the very ones the scan read and the answer is the one it computes without a hint.
//! A hint of another name passes only if the two names' keyed 64-bit table hashes differ by
//! exactly the XOR of the two generations: as unlikely as two names sharing a table hash.

use core::sync::atomic::{fence, Ordering};

use ndn_packet::PrefixHashes;

use crate::reader::Shared;

/// Where a top-down lookup may start (see the module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hint {
    /// Deepest depth worth probing: no deeper planned depth has a fingerprint match. 0: none
    /// has one.
    pub depth: usize,
    /// The first fingerprint match in the chain of `depth`, to confirm without a bucket scan.
    pub first: Option<u32>,
}

impl Hint {
    /// No knowledge: probe the whole plan.
    pub const NONE: Self = Self {
        depth: usize::MAX,
        first: None,
    };

    /// The candidate to confirm first at depth `l`, if any.
    #[inline(always)]
    pub fn first_at(self, l: usize) -> Option<u32> {
        self.first.filter(|_| l == self.depth)
    }
}

/// What [`crate::FibReader::prefetch_entries`] found for one name, for
/// [`crate::FibReader::lookup_with`] of that name (two words, kept by the caller with the
/// packet). Any hint is safe to pass: one that does not fit the name or the FIB as it is now is
/// ignored, and the lookup's answer never depends on it.
#[derive(Debug, Clone, Copy)]
pub struct FibHint {
    /// The scan's write generation XOR the table hash of the scanned name.
    tag: u64,
    /// Bits 0..8: the deepest depth worth probing ([`Hint::depth`]), `u8::MAX` for no
    /// knowledge (every plan's top is at most 255, so even a tag that passed by chance would
    /// probe the whole plan); bit [`HAS_FIRST`]: bits 32..64 hold the first fingerprint match
    /// at that depth.
    at: u64,
}

/// Bit of [`FibHint::at`] saying it holds a first candidate.
const HAS_FIRST: u64 = 1 << 8;

impl FibHint {
    /// No knowledge: the lookup probes its whole plan.
    pub const NONE: Self = Self {
        tag: 0,
        at: u8::MAX as u64,
    };

    /// The hint of a scan of the name of `hashes` that found `hint`, under generation `gen`
    /// (read by [`FibHint::begin`]); `NONE` for a scan under no generation.
    #[inline(always)]
    pub(crate) fn made(gen: Option<u64>, hashes: &PrefixHashes, hint: Hint) -> Self {
        let Some(gen) = gen else { return Self::NONE };
        // A scanned depth is at most a plan's top, itself at most `u8::MAX`.
        let depth = hint.depth.min(usize::from(u8::MAX)) as u64;
        let first = hint.first.map_or(0, |i| u64::from(i) << 32 | HAS_FIRST);
        Self {
            tag: hashes.full() ^ gen,
            at: first | depth,
        }
    }

    /// The write generation to tag a scan with, read before the scan; `None` while the
    /// writer is changing the table (such a scan gives no hint).
    #[inline(always)]
    pub(crate) fn begin(shared: &Shared) -> Option<u64> {
        let gen = shared.gen.load(Ordering::Acquire);
        (gen & 1 == 0).then_some(gen)
    }

    /// The hint for a lookup of the name of `hashes` if it was made for that name and the FIB
    /// has not changed since, else [`Hint::NONE`].
    #[inline(always)]
    pub(crate) fn check(self, shared: &Shared, hashes: &PrefixHashes) -> Hint {
        let depth = (self.at & 0xff) as usize;
        if depth == usize::from(u8::MAX) {
            return Hint::NONE;
        }
        // Seqlock validation: the scan's bucket reads come before this load.
        fence(Ordering::Acquire);
        if self.tag != hashes.full() ^ shared.gen.load(Ordering::Relaxed) {
            return Hint::NONE;
        }
        Hint {
            depth,
            first: (self.at & HAS_FIRST != 0).then_some((self.at >> 32) as u32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::tests::{hashes_of, small_fib};
    use crate::{FibReader, FibWriter, LpmAlgorithm, NextHop};
    use ndn_packet::{Name, NameHasher, SipVariant};

    fn fib(h: &NameHasher, algorithm: LpmAlgorithm, uris: &[&str]) -> FibWriter {
        small_fib(h, algorithm, 2, uris)
    }

    fn hint(r: &FibReader, fh: FibHint, h: &PrefixHashes) -> (usize, Option<u32>) {
        let hint = fh.check(&r.shared, h);
        (hint.depth, hint.first)
    }

    #[test]
    fn scan_result_is_kept_until_the_fib_changes() {
        let hasher = NameHasher::new([3; 16], SipVariant::Sip13);
        for algorithm in [LpmAlgorithm::LongestFirst, LpmAlgorithm::TwoStage] {
            let mut w = fib(&hasher, algorithm, &["/a", "/a/b"]);
            let r = w.handle().reader();
            let abcd = hashes_of(&hasher, "/a/b/c/d");
            let ab = r.lookup(&abcd).unwrap().entry();
            assert_eq!(hint(&r, FibHint::NONE, &abcd), (usize::MAX, None));
            let fh = r.prefetch_entries(&abcd);
            // Depths 4 and 3 hold no fingerprint match (two-stage with M = 2 starts at 2).
            assert_eq!(hint(&r, fh, &abcd), (2, Some(ab)), "{algorithm:?}");
            let qr = hashes_of(&hasher, "/q/r");
            let fq = r.prefetch_entries(&qr);
            assert_eq!(
                hint(&r, fq, &qr),
                (0, None),
                "no prefix of /q/r: straight to the root"
            );
            assert_eq!(
                hint(&r, fh, &abcd),
                (2, Some(ab)),
                "a later scan voids nothing"
            );
            // Another name's hint is not taken.
            assert_eq!(
                hint(&r, fh, &hashes_of(&hasher, "/a/b/c/e")),
                (usize::MAX, None)
            );
            assert_eq!(hint(&r, fq, &abcd), (usize::MAX, None));
            // A write after the scan voids it, even one elsewhere in the FIB.
            let name = Name::from_uri("/z").unwrap();
            w.set(name.as_ref(), &[NextHop { face: 2, cost: 0 }], 0)
                .unwrap();
            assert_eq!(hint(&r, fh, &abcd), (usize::MAX, None), "{algorithm:?}");
            assert_eq!(r.lookup_with(&abcd, fh).map(|m| m.entry()), Some(ab));
        }
    }

    #[test]
    fn binary_search_over_two_levels_runs_top_down() {
        let hasher = NameHasher::new([3; 16], SipVariant::Sip13);
        let w = fib(&hasher, LpmAlgorithm::BinarySearch, &["/a", "/a/b"]);
        let r = w.handle().reader();
        let abcd = hashes_of(&hasher, "/a/b/c/d");
        let (m, tr) = r.lookup_traced(&abcd);
        // k = 2, tree of height 2: binary search's first probe is depth 2, as longest-first's.
        assert_eq!((m.map(|m| m.depth()), tr.probes), (Some(2), 1));
        let (a, tr) = r.lookup_traced(&hashes_of(&hasher, "/a/x/c"));
        assert_eq!((a.map(|m| m.depth()), tr.probes), (Some(1), 2));
        let fh = r.prefetch_entries(&abcd);
        let ab = m.map(|m| m.entry());
        assert_eq!(hint(&r, fh, &abcd), (2, ab), "longest-first's scan");
        assert_eq!(r.lookup_with(&abcd, fh).map(|m| m.entry()), ab);
    }

    #[test]
    fn binary_search_over_three_levels_gives_no_hint() {
        let hasher = NameHasher::new([3; 16], SipVariant::Sip13);
        let w = fib(&hasher, LpmAlgorithm::BinarySearch, &["/a", "/a/b/c"]);
        let r = w.handle().reader();
        let abcd = hashes_of(&hasher, "/a/b/c/d");
        let fh = r.prefetch_entries(&abcd);
        assert_eq!(hint(&r, fh, &abcd), (usize::MAX, None));
        // The marker at /a/b sends the search to depth 3: two probes.
        let (m, tr) = r.lookup_traced(&abcd);
        assert_eq!((m.map(|m| m.depth()), tr.probes), (Some(3), 2));
    }
}
