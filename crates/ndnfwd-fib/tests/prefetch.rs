//! Speculative entry prefetch (`FibReader::prefetch_entries`, after `prefetch` or
//! `prefetch_head`): calling it, for any hashes, never changes what a lookup answers, on empty
//! and random FIBs, for every algorithm; and a lookup given any hint it returned (for the same
//! name, another name, before a FIB change) answers as the lookup without one.

mod common;

use common::{hasher, hop, writer, Model};
use ndn_packet::{Name, NameHasher, PrefixHashes, SipVariant};
use ndnfwd_fib::{FibHint, FibReader, FibWriter, LpmAlgorithm};
use proptest::prelude::*;

const ALGORITHMS: [LpmAlgorithm; 3] = [
    LpmAlgorithm::LongestFirst,
    LpmAlgorithm::TwoStage,
    LpmAlgorithm::BinarySearch,
];

fn to_name(comps: &[u8]) -> Name {
    comps.iter().fold(Name::new(), |n, c| n.push([b'a' + c]))
}

/// (depth, first nexthop face) after the prefetch steps, checked equal to the plain lookup.
fn prefetched_answer(r: &FibReader, hs: &PrefixHashes) -> Option<(usize, u32)> {
    let summary = |r: &FibReader| {
        r.lookup(hs)
            .map(|m| (m.depth(), m.nexthops().next().map_or(0, |x| x.face)))
    };
    let hinted = |r: &FibReader, hint: FibHint| {
        r.lookup_with(hs, hint)
            .map(|m| (m.depth(), m.nexthops().next().map_or(0, |x| x.face)))
    };
    let before = summary(r);
    r.prefetch(hs);
    let hint = r.prefetch_entries(hs);
    let after = hinted(r, hint);
    assert_eq!(before, after, "prefetch changed the answer");
    // The speculative mode's order: the plan's head, then the entries (and the rest of the
    // plan when the head holds no candidate), then the further steps (the rest of the plan's
    // entries, two-stage's stage 2).
    r.prefetch_head(hs);
    let mut hint = r.prefetch_entries(hs);
    assert_eq!(hinted(r, hint), before, "prefetch_head changed the answer");
    for step in 1..=2 {
        r.prefetch_steps(hs, &mut hint);
        assert_eq!(hinted(r, hint), before, "step {step} changed the answer");
    }
    after
}

/// Names to look up: each prefix, each prefix extended, random names, and 200-component names.
fn names(model: &Model, extra: &[Vec<u8>]) -> Vec<Name> {
    let mut v: Vec<Name> = model.prefixes.keys().cloned().collect();
    v.extend(
        model
            .prefixes
            .keys()
            .map(|p| p.clone().append(to_name(&[1, 0]).as_ref())),
    );
    for e in extra {
        v.push(to_name(e));
        let mut long = e.clone();
        long.resize(200, 2);
        v.push(to_name(&long));
    }
    v
}

/// The reference model and one FIB per algorithm, all holding `prefixes` (components, face).
fn loaded(prefixes: &[(Vec<u8>, u32)], m: u8) -> (Model, Vec<FibWriter>) {
    let mut model = Model::default();
    let mut fibs: Vec<_> = ALGORITHMS.iter().map(|&a| writer(a, m)).collect();
    for (c, face) in prefixes {
        let n = to_name(c);
        for w in fibs.iter_mut() {
            w.set(n.as_ref(), &hop(*face), 0).unwrap();
        }
        model.prefixes.insert(n, *face);
    }
    (model, fibs)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn prefetch_entries_never_changes_lookups(
        prefixes in proptest::collection::vec((proptest::collection::vec(0u8..3, 0..8), 1u32..6), 0..30),
        extra in proptest::collection::vec(proptest::collection::vec(0u8..3, 0..10), 1..5),
        m in 1u8..6,
    ) {
        let h = hasher();
        let other = NameHasher::new([0x55; 16], SipVariant::Sip24);
        let (model, fibs) = loaded(&prefixes, m);
        let mut hs = PrefixHashes::default();
        for w in &fibs {
            let r = w.handle().reader();
            // Never hashed: no components at all.
            prop_assert_eq!(prefetched_answer(&r, &PrefixHashes::default()), model.lpm(Name::new().as_ref()));
            for n in names(&model, &extra) {
                h.hash_prefixes(n.as_ref(), &mut hs);
                prop_assert_eq!(prefetched_answer(&r, &hs), model.lpm(n.as_ref()), "{} {:?}", n, w.lpm());
                // Hashes under another key name nothing but the root.
                other.hash_prefixes(n.as_ref(), &mut hs);
                prop_assert_eq!(prefetched_answer(&r, &hs), model.lpm(Name::new().as_ref()));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A lookup given any hint answers as the lookup without one: the hints of every name
    /// (scanned after the head prefetch or the whole plan's, before and after the further
    /// steps), each tried on every name, before and after a FIB change, and no hint.
    #[test]
    fn a_lookup_with_any_hint_answers_as_without(
        prefixes in proptest::collection::vec((proptest::collection::vec(0u8..3, 0..8), 1u32..6), 0..20),
        change in (proptest::collection::vec(0u8..3, 0..8), 1u32..6),
        extra in proptest::collection::vec(proptest::collection::vec(0u8..3, 0..10), 1..4),
        m in 1u8..6,
    ) {
        let h = hasher();
        let (model, mut fibs) = loaded(&prefixes, m);
        let names = names(&model, &extra);
        let all: Vec<PrefixHashes> = names.iter().map(|n| {
            let mut hs = PrefixHashes::default();
            h.hash_prefixes(n.as_ref(), &mut hs);
            hs
        }).collect();
        for w in fibs.iter_mut() {
            let r = w.handle().reader();
            let mut hints = vec![FibHint::NONE];
            for (i, hs) in all.iter().enumerate() {
                if i % 2 == 0 { r.prefetch_head(hs) } else { r.prefetch(hs) }
                let mut hint = r.prefetch_entries(hs);
                hints.push(hint);
                // The same hint after the further steps.
                r.prefetch_steps(hs, &mut hint);
                r.prefetch_steps(hs, &mut hint);
                hints.push(hint);
            }
            let check = |r: &FibReader, hints: &[FibHint]| -> Result<(), TestCaseError> {
                for (n, hs) in names.iter().zip(&all) {
                    let want = r.lookup(hs).map(|m| (m.depth(), m.entry()));
                    for hint in hints {
                        let got = r.lookup_with(hs, *hint).map(|m| (m.depth(), m.entry()));
                        prop_assert_eq!(got, want, "{} {:?}", n, hint);
                    }
                }
                Ok(())
            };
            check(&r, &hints)?;
            // The same hints after a write: each is void now.
            let (c, face) = &change;
            w.set(to_name(c).as_ref(), &hop(*face), 0).unwrap();
            check(&r, &hints)?;
        }
    }

    /// `prefetch_entries` returns what it saw for the lookup that follows; a FIB
    /// change in between (a set or a removal, anywhere) must void it, whatever the further
    /// steps found before and after it. Each name is scanned and stepped once, then a prefix
    /// is toggled (added if absent, removed if present), then the name stepped once more and
    /// looked up.
    #[test]
    fn a_change_after_prefetch_entries_is_seen_by_the_lookup(
        prefixes in proptest::collection::vec((proptest::collection::vec(0u8..3, 0..8), 1u32..6), 0..20),
        changes in proptest::collection::vec((proptest::collection::vec(0u8..3, 0..8), 1u32..6), 1..4),
        extra in proptest::collection::vec(proptest::collection::vec(0u8..3, 0..10), 1..4),
        m in 1u8..6,
    ) {
        let h = hasher();
        let (mut model, mut fibs) = loaded(&prefixes, m);
        let readers: Vec<_> = fibs.iter().map(|w| w.handle().reader()).collect();
        let mut hs = PrefixHashes::default();
        for (c, face) in &changes {
            let changed = to_name(c);
            for n in names(&model, &extra) {
                h.hash_prefixes(n.as_ref(), &mut hs);
                let mut hints: Vec<_> = readers.iter().map(|r| {
                    r.prefetch_head(&hs);
                    let mut hint = r.prefetch_entries(&hs);
                    r.prefetch_steps(&hs, &mut hint);
                    hint
                }).collect();
                let present = model.prefixes.remove(&changed).is_some();
                if !present {
                    model.prefixes.insert(changed.clone(), *face);
                }
                for w in fibs.iter_mut() {
                    if present {
                        prop_assert!(w.remove(changed.as_ref()).unwrap());
                    } else {
                        w.set(changed.as_ref(), &hop(*face), 0).unwrap();
                    }
                }
                // One more step after the change (two-stage's second; the others' one step ran
                // before it).
                for (r, hint) in readers.iter().zip(hints.iter_mut()) {
                    r.prefetch_steps(&hs, hint);
                }
                for ((w, r), hint) in fibs.iter().zip(&readers).zip(&hints) {
                    let got = r.lookup_with(&hs, *hint)
                        .map(|m| (m.depth(), m.nexthops().next().map_or(0, |x| x.face)));
                    prop_assert_eq!(got, model.lpm(n.as_ref()), "{} after toggling {} {:?}", n, changed, w.lpm());
                }
            }
        }
    }
}

#[test]
fn prefetch_entries_on_empty_fib_and_long_names() {
    let h = hasher();
    let long = to_name(&[1; 200]);
    let mut hs = PrefixHashes::default();
    h.hash_prefixes(long.as_ref(), &mut hs);
    for a in ALGORITHMS {
        let mut w = writer(a, 3);
        let r = w.handle().reader();
        assert_eq!(prefetched_answer(&r, &hs), None);
        w.set(to_name(&[1; 100]).as_ref(), &hop(7), 0).unwrap();
        assert_eq!(prefetched_answer(&r, &hs), Some((100, 7)), "{a:?}");
    }
}
