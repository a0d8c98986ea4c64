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
    /// at that depth. Bits [`STAGE2_ENTRY`], [`STAGE2_BUCKET`] (with bits 16..24) and
    /// [`BELOW_HEAD`] are the state of the speculative steps after the scan
    /// ([`crate::FibReader::prefetch_steps`]); the lookup does not read them.
    at: u64,
}

/// Bit of [`FibHint::at`] saying it holds a first candidate.
const HAS_FIRST: u64 = 1 << 8;

/// Bit of [`FibHint::at`] saying the first candidate is two-stage's at depth M of a name longer
/// than M, whose MD may send the lookup to stage 2: the next stage-2 step reads its entry.
const STAGE2_ENTRY: u64 = 1 << 9;

/// Bit of [`FibHint::at`] saying the bucket of stage 2's first probe, at the depth in bits
/// 16..24, was prefetched: the next stage-2 step scans it.
const STAGE2_BUCKET: u64 = 1 << 10;

/// Bit of [`FibHint::at`] saying the scan found no candidate in the plan's head above the
/// hint's depth (the head's floor, or a head depth whose chain goes on past a home bucket
/// with no match) and prefetched the buckets of the hint's depth down to 1 (that depth's
/// overflow bucket too when it stopped on one): the next step scans them.
const BELOW_HEAD: u64 = 1 << 11;

/// Every pending-step bit of [`FibHint::at`].
const STEPS: u64 = STAGE2_ENTRY | STAGE2_BUCKET | BELOW_HEAD;

/// What the next speculative step of a hint does (see [`crate::FibReader::prefetch_steps`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Nothing: no step pending, or every step done.
    Done,
    /// Two-stage: read the depth-M entry (the hint's first candidate) at depth M (the hint's
    /// depth).
    Entry { m: usize, entry: u32 },
    /// Two-stage: scan the bucket of the depth where stage 2 starts.
    Bucket { depth: usize },
    /// Scan the buckets from `floor` (the hint's depth: the head's floor, or the head depth
    /// whose scan stopped on an overflow bucket) down, to the first one holding a candidate.
    Below { floor: usize },
}

impl FibHint {
    /// No knowledge: the lookup probes its whole plan.
    pub const NONE: Self = Self {
        tag: 0,
        at: u8::MAX as u64,
    };

    /// The hint of a scan of the name of `hashes` that found `hint`, under generation `gen`
    /// (read by [`FibHint::begin`]); `NONE` for a scan under no generation.
    /// With `stage2`, a first candidate is two-stage's at depth M of a name longer than M
    /// (the stage-2 steps start from it). A hint with no candidate above a depth greater than 0
    /// is a scan of the plan's head that found none (the caller has prefetched the buckets
    /// below it) or stopped at that depth on an overflow bucket it prefetched: its step scans
    /// from that depth down ([`Step::Below`]).
    #[inline(always)]
    pub(crate) fn made(gen: Option<u64>, hashes: &PrefixHashes, hint: Hint, stage2: bool) -> Self {
        let Some(gen) = gen else { return Self::NONE };
        let flags = if stage2 {
            HAS_FIRST | STAGE2_ENTRY
        } else {
            HAS_FIRST
        };
        Self {
            tag: hashes.full() ^ gen,
            at: Self::found(hint, flags, BELOW_HEAD),
        }
    }

    /// The `at` word of `hint` (its depth, at most a plan's top, itself at most `u8::MAX`):
    /// with `flags` when it has a first candidate, with `below` when it has none above a
    /// depth greater than 0.
    #[inline(always)]
    fn found(hint: Hint, flags: u64, below: u64) -> u64 {
        let depth = hint.depth.min(usize::from(u8::MAX)) as u64;
        match hint.first {
            Some(i) => u64::from(i) << 32 | flags | depth,
            None if depth > 0 => below | depth,
            None => 0,
        }
    }

    /// Whether a speculative step is pending ([`FibHint::step`] is not `Done`).
    #[inline(always)]
    pub(crate) fn step_pending(self) -> bool {
        self.at & STEPS != 0
    }

    /// The next speculative step of this hint.
    #[inline(always)]
    pub(crate) fn step(self) -> Step {
        let at = self.at;
        if !self.step_pending() {
            Step::Done
        } else if at & STAGE2_ENTRY != 0 {
            Step::Entry {
                m: (at & 0xff) as usize,
                entry: (at >> 32) as u32,
            }
        } else if at & STAGE2_BUCKET != 0 {
            Step::Bucket {
                depth: (at >> 16 & 0xff) as usize,
            }
        } else {
            Step::Below {
                floor: (at & 0xff) as usize,
            }
        }
    }

    /// This hint after its [`Step::Below`] scan found `hint` (the first candidate below the
    /// head and its depth, or depth 0 and none): the lookup starts there, no step left.
    #[inline(always)]
    pub(crate) fn below_found(self, hint: Hint) -> Self {
        Self {
            at: Self::found(hint, HAS_FIRST, 0),
            ..self
        }
    }

    /// This hint after its stage-2 entry step found that stage 2 starts at `depth` (at most a
    /// name's length, itself below 256 where the hint has a first candidate at M) and
    /// prefetched that bucket, or, with `None`, that there is nothing more to prefetch.
    #[inline(always)]
    pub(crate) fn stage2_next(self, depth: Option<usize>) -> Self {
        let at = self.at & !(STEPS | 0xff << 16);
        let at = match depth {
            Some(d) => at | STAGE2_BUCKET | ((d & 0xff) as u64) << 16,
            None => at,
        };
        Self { at, ..self }
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

    /// The two-stage steps after the scan (`prefetch_steps`): which hints have them, the
    /// depth stage 2 starts at (`min(n, MD)`, MD beyond the name included), and the lookup
    /// with the stepped hint answering as the walk does, with the FIB changed between the
    /// scan, the steps and the lookup too.
    #[test]
    fn stage2_steps_follow_the_restart_at_m() {
        let hasher = NameHasher::new([3; 16], SipVariant::Sip13);
        let prefixes = ["/a/b", "/a/b/c/d", "/x/y/z", "/p/q"];
        // (name, stage 2's first probe after the entry step: None for no stage 2)
        let cases = [
            ("/a/b/c/d/e", Some(4)),
            ("/a/b/c", Some(3)),
            ("/x/y/z/w", Some(3)),
            ("/x/y/q", Some(3)),
            ("/p/q/r", None),
        ];
        let steps = |r: &FibReader, h: &PrefixHashes| {
            let mut fh = r.prefetch_entries(h);
            let first = fh.step();
            r.prefetch_steps(h, &mut fh);
            let second = fh.step();
            r.prefetch_steps(h, &mut fh);
            assert_eq!(fh.step(), Step::Done);
            (first, second, fh)
        };
        let walk =
            |r: &FibReader, h: &PrefixHashes| r.lookup_traced(h).0.map(|m| (m.depth(), m.entry()));
        let with = |r: &FibReader, h: &PrefixHashes, fh| {
            r.lookup_with(h, fh).map(|m| (m.depth(), m.entry()))
        };
        let mut w = fib(&hasher, LpmAlgorithm::TwoStage, &prefixes);
        let r = w.handle().reader();
        assert_eq!(r.speculative_steps(), 2);
        for (uri, start) in cases {
            let h = hashes_of(&hasher, uri);
            let (first, second, fh) = steps(&r, &h);
            assert!(
                matches!(first, Step::Entry { m: 2, .. }),
                "{uri}: {first:?}"
            );
            let want = start.map_or(Step::Done, |depth| Step::Bucket { depth });
            assert_eq!(second, want, "{uri}");
            assert_eq!(with(&r, &h, fh), walk(&r, &h), "{uri}");
        }
        // No step: a name no longer than M, one shorter, one with no candidate at M.
        for uri in ["/a/b", "/a", "/q/r/s"] {
            let h = hashes_of(&hasher, uri);
            assert_eq!(steps(&r, &h).0, Step::Done, "{uri}");
        }
        // The FIB changes after the entry step (a longer prefix under /a/b) and after the scan
        // (the real prefix stage 2 starts at goes): the stepped hints are ignored.
        let abcde = hashes_of(&hasher, "/a/b/c/d/e");
        let mut fh = r.prefetch_entries(&abcde);
        r.prefetch_steps(&abcde, &mut fh);
        w.set(
            Name::from_uri("/a/b/c/d/e").unwrap().as_ref(),
            &[NextHop { face: 9, cost: 0 }],
            0,
        )
        .unwrap();
        r.prefetch_steps(&abcde, &mut fh);
        assert_eq!(with(&r, &abcde, fh).map(|(d, _)| d), Some(5));
        let xyzw = hashes_of(&hasher, "/x/y/z/w");
        let mut fh = r.prefetch_entries(&xyzw);
        w.remove(Name::from_uri("/x/y/z").unwrap().as_ref())
            .unwrap();
        r.prefetch_steps(&xyzw, &mut fh);
        r.prefetch_steps(&xyzw, &mut fh);
        assert_eq!(with(&r, &xyzw, fh), None);
        assert_eq!(walk(&r, &xyzw), None);
        // Longest-first's hints never have a stage-2 step, nor, with a plan no deeper than its
        // head (k = 4), one below the head.
        let w = fib(&hasher, LpmAlgorithm::LongestFirst, &prefixes);
        let r = w.handle().reader();
        assert_eq!(r.speculative_steps(), 0);
        for (uri, _) in cases {
            assert_eq!(steps(&r, &hashes_of(&hasher, uri)).0, Step::Done, "{uri}");
        }
    }

    /// The step below the plan's head (`prefetch_steps` after a scan of the head that found no
    /// candidate): the depth and candidate it hands the lookup (a candidate just below the
    /// head, one only at depth 1, none at all), no step for a candidate in the head or a name
    /// no longer than the head, and the lookup with the stepped hint answering as the walk,
    /// with the FIB changed between the scan and the step and between the step and the
    /// lookup, and with the candidate replaced by another prefix's entry (as a fingerprint
    /// false positive would leave it).
    #[test]
    fn the_step_below_the_head_hands_the_lookup_its_first_candidate() {
        let hasher = NameHasher::new([3; 16], SipVariant::Sip13);
        // k = 7: the head of a seven-component name is depths 7 to 4, the rest 3 to 1.
        let prefixes = ["/a", "/a/b", "/a/b/c/d/e/f/g", "/x"];
        let mut w = fib(&hasher, LpmAlgorithm::LongestFirst, &prefixes);
        let r = w.handle().reader();
        assert_eq!(r.speculative_steps(), 1);
        let entry = |r: &FibReader, uri| r.lookup(&hashes_of(&hasher, uri)).map(|m| m.entry());
        let (a, ab, x) = (entry(&r, "/a"), entry(&r, "/a/b"), entry(&r, "/x"));
        let walk =
            |r: &FibReader, h: &PrefixHashes| r.lookup_traced(h).0.map(|m| (m.depth(), m.entry()));
        let with = |r: &FibReader, h: &PrefixHashes, fh| {
            r.lookup_with(h, fh).map(|m| (m.depth(), m.entry()))
        };
        // (name, the head's floor, the step's depth and candidate)
        let cases = [
            ("/a/b/c/q/r/s/t", 3, (2, ab)),
            ("/a/q/r/s/t/u/v/w", 3, (1, a)),
            ("/a/q/r/s/t", 1, (1, a)),
            ("/q/r/s/t/u/v/w", 3, (0, None)),
        ];
        for (uri, floor, found) in cases {
            let h = hashes_of(&hasher, uri);
            let mut fh = r.prefetch_entries(&h);
            assert_eq!(fh.step(), Step::Below { floor }, "{uri}");
            assert_eq!(hint(&r, fh, &h), (floor, None), "{uri}: an unstepped hint");
            r.prefetch_steps(&h, &mut fh);
            assert_eq!(fh.step(), Step::Done, "{uri}");
            assert_eq!(hint(&r, fh, &h), found, "{uri}");
            assert_eq!(with(&r, &h, fh), walk(&r, &h), "{uri}");
            let before = fh;
            r.prefetch_steps(&h, &mut fh);
            assert_eq!(
                (fh.tag, fh.at),
                (before.tag, before.at),
                "{uri}: one step only"
            );
        }
        // No step: a candidate in the head, names no longer than the head.
        for uri in ["/a/b/c/d/e/f/g/h", "/a/b/c", "/q/r/s/t", "/q"] {
            let h = hashes_of(&hasher, uri);
            assert_eq!(r.prefetch_entries(&h).step(), Step::Done, "{uri}");
        }
        // A fingerprint false positive: the step's candidate is another prefix's entry, at the
        // depth of a real prefix or above it. The lookup confirms it, finds it wrong and walks
        // on from that depth.
        let abcq = hashes_of(&hasher, "/a/b/c/q/r/s/t");
        let mut fh = r.prefetch_entries(&abcq);
        r.prefetch_steps(&abcq, &mut fh);
        for depth in [2, 3] {
            let wrong = fh.below_found(Hint { depth, first: x });
            assert_eq!(hint(&r, wrong, &abcq), (depth, x));
            assert_eq!(with(&r, &abcq, wrong), walk(&r, &abcq), "at {depth}");
        }
        // The FIB changes between the scan and the step (a prefix at the floor appears), and
        // between the step and the lookup (the prefix the step found goes).
        let mut fh = r.prefetch_entries(&abcq);
        w.set(
            Name::from_uri("/a/b/c").unwrap().as_ref(),
            &[NextHop { face: 9, cost: 0 }],
            0,
        )
        .unwrap();
        r.prefetch_steps(&abcq, &mut fh);
        assert_eq!(with(&r, &abcq, fh).map(|(d, _)| d), Some(3));
        assert_eq!(with(&r, &abcq, fh), walk(&r, &abcq));
        let aqrs = hashes_of(&hasher, "/a/q/r/s/t/u/v/w");
        let mut fh = r.prefetch_entries(&aqrs);
        r.prefetch_steps(&aqrs, &mut fh);
        assert_eq!(hint(&r, fh, &aqrs), (1, a));
        w.remove(Name::from_uri("/a").unwrap().as_ref()).unwrap();
        assert_eq!(hint(&r, fh, &aqrs), (usize::MAX, None));
        assert_eq!(with(&r, &aqrs, fh), None);
        assert_eq!(walk(&r, &aqrs), None);
    }

    /// A head depth whose only candidate sits in an overflow bucket: the prefix `/a/b/c` is
    /// added after seven depth-1 prefixes that fill its home bucket. The scan of the head stops
    /// at that depth without reading the overflow bucket (no candidate, a step pending), the
    /// step reads the chain whole and hands the lookup the candidate; where the depth is the
    /// head's floor (a name longer than the head) the step stops on it in turn and the lookup
    /// probes it. Two-stage reads its top's chain whole (a candidate at M). Every lookup, with
    /// the hint unstepped or stepped, answers as the walk.
    #[test]
    fn a_candidate_only_in_an_overflow_bucket_is_read_one_step_later() {
        let hasher = NameHasher::new([3; 16], SipVariant::Sip13);
        let abc = hashes_of(&hasher, "/a/b/c").get(3).unwrap();
        for (algorithm, m, deep) in [
            (LpmAlgorithm::LongestFirst, 2, "/k/k/k/k/k/k/k"),
            (LpmAlgorithm::TwoStage, 4, "/k"),
            (LpmAlgorithm::TwoStage, 3, "/k"),
        ] {
            let mut w = small_fib(&hasher, algorithm, m, &[deep]);
            let r = w.handle().reader();
            let mask = r.shared.table.bucket_count() as u64 - 1;
            let fillers = (0..)
                .map(|i| format!("/f{i}"))
                .filter(|uri| hashes_of(&hasher, uri).get(1).unwrap() & mask == abc & mask)
                .take(7);
            for uri in fillers.chain(["/a/b/c".to_string()]) {
                let name = Name::from_uri(&uri).unwrap();
                w.set(name.as_ref(), &[NextHop { face: 1, cost: 0 }], 0)
                    .unwrap();
            }
            let p = r.lookup(&hashes_of(&hasher, "/a/b/c")).unwrap().entry();
            let mut home = vec![];
            let more = r.shared.table.home_candidates(abc, |i| home.push(i));
            assert_eq!((home, more), (vec![], true), "{algorithm:?}: the set-up");
            let walk = |h: &PrefixHashes| r.lookup_traced(h).0.map(|m| (m.depth(), m.entry()));
            let with = |h: &PrefixHashes, fh| r.lookup_with(h, fh).map(|m| (m.depth(), m.entry()));
            // (name, the scan's hint (depth, candidate) and step, the hint after one step)
            type At = (usize, Option<u32>);
            let cases: &[(&str, At, Step, At)] = match (algorithm, m) {
                (LpmAlgorithm::LongestFirst, _) => &[
                    // The head (depths 4 to 1) stops at 3; the step reads its chain.
                    (
                        "/a/b/c/d",
                        (3, None),
                        Step::Below { floor: 3 },
                        (3, Some(p)),
                    ),
                    ("/a/b/c", (3, None), Step::Below { floor: 3 }, (3, Some(p))),
                    // The head (7 to 4) holds none; the step stops at its floor, 3.
                    (
                        "/a/b/c/d/e/f/g",
                        (3, None),
                        Step::Below { floor: 3 },
                        (3, None),
                    ),
                ],
                // M = 4: depth 3 is below two-stage's top, as longest-first's.
                (_, 4) => &[
                    (
                        "/a/b/c/d/e",
                        (3, None),
                        Step::Below { floor: 3 },
                        (3, Some(p)),
                    ),
                    ("/a/b/c", (3, Some(p)), Step::Done, (3, Some(p))),
                ],
                // M = 3: the top's chain is read whole, the stage-2 steps follow.
                _ => &[
                    (
                        "/a/b/c/d",
                        (3, Some(p)),
                        Step::Entry { m: 3, entry: p },
                        (3, Some(p)),
                    ),
                    ("/a/b/c", (3, Some(p)), Step::Done, (3, Some(p))),
                ],
            };
            for &(uri, scanned, step, stepped) in cases {
                let h = hashes_of(&hasher, uri);
                let mut fh = r.prefetch_entries(&h);
                let at = format!("{algorithm:?} M={m} {uri}");
                assert_eq!((hint(&r, fh, &h), fh.step()), (scanned, step), "{at}");
                assert_eq!(with(&h, fh), walk(&h), "{at}: unstepped");
                r.prefetch_steps(&h, &mut fh);
                assert_eq!(hint(&r, fh, &h), stepped, "{at}");
                assert_eq!(with(&h, fh), walk(&h), "{at}: stepped");
                assert_eq!(walk(&h), Some((3, p)), "{at}");
            }
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
