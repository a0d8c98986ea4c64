//! What the speculative step learned, kept for the lookup that follows it.
//!
//! For longest-first and two-stage, [`crate::FibReader::prefetch_entries`] scans the buckets of
//! the probe plan from the longest prefix down and stops at the first one holding a fingerprint
//! match. That scan already knows what the lookup's first probes will find: nothing at every
//! deeper planned depth, and, at the depth where it stopped, the first fingerprint match in chain
//! order. A [`Memo`] records it, and the lookup of the same name starts at that depth with that
//! candidate instead of probing the deeper depths again.
//!
//! Exactness: the writer makes the FIB's write generation ([`Shared::gen`]) odd while it changes
//! bucket slots or the published configuration and even again afterwards (a seqlock). A memo is
//! recorded only under an even generation read before the scan, and used only while the
//! generation is still the same, so the table and configuration the lookup would probe are the
//! very ones the scan read: the lookup's answer is the one it would compute without the memo.

use core::cell::Cell;
use core::sync::atomic::{fence, Ordering};

use ndn_packet::PrefixHashes;

use crate::reader::Shared;

/// Where a top-down lookup may start, from a memo (see the module docs).
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

/// A scan result of one name, valid under write generation `gen` only.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Write generation the scan ran under (even); [`EMPTY`] for none.
    gen: u64,
    /// Table hash of the whole name.
    key: u64,
    /// Components of the name.
    n: usize,
    hint: Hint,
}

/// An odd generation: never the one a lookup validates against.
const EMPTY: u64 = u64::MAX;

/// The reader's last two scan results: the engine speculates on packet `i + 1` before it looks
/// up packet `i`, so two are live at once.
#[derive(Debug)]
pub(crate) struct Memo {
    slots: [Cell<Entry>; 2],
    next: Cell<usize>,
}

impl Default for Memo {
    fn default() -> Self {
        let empty = Entry {
            gen: EMPTY,
            key: 0,
            n: 0,
            hint: Hint::NONE,
        };
        Self {
            slots: [Cell::new(empty), Cell::new(empty)],
            next: Cell::new(0),
        }
    }
}

impl Memo {
    /// The write generation to record a scan under, read before the scan; `None` while the
    /// writer is changing the table (such a scan is not recorded).
    #[inline(always)]
    pub fn begin(shared: &Shared) -> Option<u64> {
        let gen = shared.gen.load(Ordering::Acquire);
        (gen & 1 == 0).then_some(gen)
    }

    /// Records the scan of the name of `hashes` made under generation `gen`.
    #[inline(always)]
    pub fn record(&self, gen: u64, hashes: &PrefixHashes, hint: Hint) {
        let n = hashes.components();
        let Some(key) = hashes.get(n) else { return };
        let at = self.next.get() & 1;
        if let Some(slot) = self.slots.get(at) {
            slot.set(Entry { gen, key, n, hint });
        }
        self.next.set(at ^ 1);
    }

    /// The hint recorded for the name of `hashes`, if the FIB has not changed since. The older
    /// slot is tried first: the engine looks packet `i` up after speculating on packet `i + 1`,
    /// so packet `i`'s scan is the older of the two.
    #[inline(always)]
    pub fn hint(&self, shared: &Shared, hashes: &PrefixHashes) -> Hint {
        let n = hashes.components();
        let older = self.next.get() & 1;
        for at in [older, older ^ 1] {
            let Some(slot) = self.slots.get(at) else {
                continue;
            };
            let e = slot.get();
            if e.n == n && e.gen != EMPTY && Some(e.key) == hashes.get(n) {
                // Seqlock validation: the scan's bucket reads come before this load.
                fence(Ordering::Acquire);
                if shared.gen.load(Ordering::Relaxed) == e.gen {
                    return e.hint;
                }
            }
        }
        Hint::NONE
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

    fn hint(r: &FibReader, h: &PrefixHashes) -> (usize, Option<u32>) {
        let hint = r.memo.hint(&r.shared, h);
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
            assert_eq!(hint(&r, &abcd), (usize::MAX, None), "nothing scanned yet");
            r.prefetch_entries(&abcd);
            // Depths 4 and 3 hold no fingerprint match (two-stage with M = 2 starts at 2).
            assert_eq!(hint(&r, &abcd), (2, Some(ab)), "{algorithm:?}");
            let qr = hashes_of(&hasher, "/q/r");
            r.prefetch_entries(&qr);
            assert_eq!(
                hint(&r, &qr),
                (0, None),
                "no prefix of /q/r: straight to the root"
            );
            assert_eq!(hint(&r, &abcd), (2, Some(ab)), "two scans are kept");
            // Another name of the same length is not the one scanned.
            assert_eq!(
                hint(&r, &hashes_of(&hasher, "/a/b/c/e")),
                (usize::MAX, None)
            );
            r.prefetch_entries(&hashes_of(&hasher, "/x"));
            assert_eq!(hint(&r, &qr), (0, None));
            assert_eq!(
                hint(&r, &abcd),
                (usize::MAX, None),
                "the oldest scan is replaced"
            );
            // A write after the scan voids it, even one elsewhere in the FIB.
            r.prefetch_entries(&abcd);
            let name = Name::from_uri("/z").unwrap();
            w.set(name.as_ref(), &[NextHop { face: 2, cost: 0 }], 0)
                .unwrap();
            assert_eq!(hint(&r, &abcd), (usize::MAX, None), "{algorithm:?}");
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
        r.prefetch_entries(&abcd);
        let ab = m.map(|m| m.entry());
        assert_eq!(hint(&r, &abcd), (2, ab), "longest-first's scan");
        assert_eq!(r.lookup(&abcd).map(|m| m.entry()), ab);
    }

    #[test]
    fn binary_search_over_three_levels_records_nothing() {
        let hasher = NameHasher::new([3; 16], SipVariant::Sip13);
        let w = fib(&hasher, LpmAlgorithm::BinarySearch, &["/a", "/a/b/c"]);
        let r = w.handle().reader();
        let abcd = hashes_of(&hasher, "/a/b/c/d");
        r.prefetch_entries(&abcd);
        assert_eq!(hint(&r, &abcd), (usize::MAX, None));
        // The marker at /a/b sends the search to depth 3: two probes.
        let (m, tr) = r.lookup_traced(&abcd);
        assert_eq!((m.map(|m| m.depth()), tr.probes), (Some(3), 2));
    }
}
