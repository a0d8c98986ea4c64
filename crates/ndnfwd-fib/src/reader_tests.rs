//! Tests of the FIB reader (a separate file to keep `reader.rs` readable).

use super::*;
use crate::store::PAGE_SLOT_BITS;
use crate::{FibConfig, FibWriter, LpmConfig};
use ndn_packet::{Name, NameHasher, SipVariant};

/// A FIB of `uris` (face 1, 2... in order) for tests.
pub(crate) fn small_fib(
    h: &NameHasher,
    algorithm: LpmAlgorithm,
    m: u8,
    uris: &[&str],
) -> FibWriter {
    let cfg = FibConfig {
        capacity: 256,
        load_factor: 4,
        max_entries: 1 << 12,
        max_nexthop_sets: 1 << 8,
        lpm: LpmConfig { algorithm, m },
    };
    let mut w = FibWriter::new(cfg, h.clone()).unwrap();
    for (face, uri) in (1..).zip(uris) {
        let name = Name::from_uri(uri).unwrap();
        w.set(name.as_ref(), &[NextHop { face, cost: 0 }], 0)
            .unwrap();
    }
    w
}

/// Every prefix hash of the name `uri`.
pub(crate) fn hashes_of(h: &NameHasher, uri: &str) -> PrefixHashes {
    let mut out = PrefixHashes::default();
    h.hash_prefixes(Name::from_uri(uri).unwrap().as_ref(), &mut out);
    out
}

/// A lookup after the speculative scan starts from the scan's first candidate
/// (`scanned_match`): a real prefix at the scanned depth, and two-stage's restarts at M from
/// a real entry (MD deeper) or a virtual one, give the walk's answer (`lookup_traced` takes
/// no hint). The scanned depths are pinned, so each case is known to take the shortcut.
#[test]
fn lookup_from_the_scanned_candidate_matches_the_walk() {
    let hasher = NameHasher::new([5; 16], SipVariant::Sip13);
    let prefixes = ["/a/b", "/a/b/c/d", "/x", "/x/y/z", "/p/q"];
    // (name, depth the scan stops at under longest-first / two-stage with M = 2, answer)
    let cases = [
        ("/a/b/c/d/e", 4, 2, Some(4)),
        ("/a/b/c", 2, 2, Some(2)),
        ("/x/y/z/w", 3, 2, Some(3)),
        ("/x/y/q", 1, 2, Some(1)),
        ("/p/q/r", 2, 2, Some(2)),
        ("/q/r", 0, 0, None),
    ];
    for algorithm in [LpmAlgorithm::LongestFirst, LpmAlgorithm::TwoStage] {
        let w = small_fib(&hasher, algorithm, 2, &prefixes);
        let r = w.handle().reader();
        for (uri, lf_depth, ts_depth, want) in cases {
            let h = hashes_of(&hasher, uri);
            let walk = r.lookup_traced(&h).0.map(|m| (m.depth(), m.entry()));
            assert_eq!(walk.map(|(d, _)| d), want, "{uri} {algorithm:?}");
            let fh = r.prefetch_entries(&h);
            let hint = fh.check(&r.shared, &h);
            let scanned = match algorithm {
                LpmAlgorithm::LongestFirst => lf_depth,
                _ => ts_depth,
            };
            assert_eq!(hint.depth, scanned, "{uri} {algorithm:?}");
            assert_eq!(hint.first.is_some(), scanned > 0, "{uri} {algorithm:?}");
            let got = r.lookup_with(&h, fh).map(|m| (m.depth(), m.entry()));
            assert_eq!(got, walk, "{uri} {algorithm:?}");
        }
    }
}

/// Every prefix of this FIB lies within each algorithm's probe plan, so the entry a lookup
/// answers with must be among the speculatively prefetched candidates.
#[test]
fn candidates_include_the_entry_the_lookup_uses() {
    let hasher = NameHasher::new([9; 16], SipVariant::Sip13);
    for algorithm in [
        LpmAlgorithm::LongestFirst,
        LpmAlgorithm::TwoStage,
        LpmAlgorithm::BinarySearch,
    ] {
        let w = small_fib(&hasher, algorithm, 3, &["/a", "/a/b", "/a/b/c", "/x/y"]);
        let r = w.handle().reader();
        for (uri, depth) in [("/a/b/c", 3), ("/a/b/q", 2), ("/x/y/z", 2), ("/a", 1)] {
            let h = hashes_of(&hasher, uri);
            let m = r.lookup(&h).unwrap();
            assert_eq!(m.depth(), depth, "{uri} {algorithm:?}");
            let mut seen = Vec::new();
            r.shared
                .for_each_candidate(r.shared.published(), &h, |_, i| seen.push(i));
            assert!(seen.contains(&m.entry()), "{uri} {algorithm:?}: {seen:?}");
        }
        let mut seen = Vec::new();
        let qrs = hashes_of(&hasher, "/q/r/s");
        r.shared
            .for_each_candidate(r.shared.published(), &qrs, |_, i| seen.push(i));
        assert!(seen.is_empty(), "no prefix of /q/r/s is in the FIB");
        // Top-down algorithms stop at the first bucket with a candidate: /a/b/c's entry is
        // found at depth 3, so /a/b's and /a's buckets are not scanned.
        let h = hashes_of(&hasher, "/a/b/c/d");
        let hit = r.lookup(&h).unwrap().entry();
        let mut seen = Vec::new();
        r.shared
            .for_each_candidate(r.shared.published(), &h, |_, i| seen.push(i));
        if algorithm == LpmAlgorithm::BinarySearch {
            assert!(seen.contains(&hit), "{algorithm:?}: {seen:?}");
        } else {
            assert_eq!(seen, vec![hit], "{algorithm:?}");
        }
        // The bucket prefetch plan is not cut: depths 3, 2, 1 (binary search: 2, then 1
        // and 3).
        let mut plan = Vec::new();
        r.probe_plan(&h, &mut plan);
        assert_eq!(plan.len(), 3, "{algorithm:?}");
    }
}

/// A longest-first plan deeper than its head: when the head's buckets hold no candidate, the
/// scan records the depth below the head (no candidate to confirm) and the lookup walks on from
/// there to the same answer; when the head holds the match, the scan stops at it.
#[test]
fn scan_of_the_head_only_hands_the_rest_to_the_lookup() {
    let hasher = NameHasher::new([7; 16], SipVariant::Sip13);
    let prefixes = ["/a", "/a/b/c/d/e/f/g"];
    // (name, depth the scan stops at, answer): the plan's top is min(n, k = 7).
    let cases = [
        ("/a/b/c/d/e/f/g/h", 7, Some(7)),
        ("/a/b/c/d/e/f/x", 3, Some(1)),
        ("/a/b/c/d/x", 1, Some(1)),
        ("/q/r/s/t/u/v", 2, None),
    ];
    let w = small_fib(&hasher, LpmAlgorithm::LongestFirst, 2, &prefixes);
    let r = w.handle().reader();
    for (uri, scanned, want) in cases {
        let h = hashes_of(&hasher, uri);
        let walk = r.lookup_traced(&h).0.map(|m| (m.depth(), m.entry()));
        assert_eq!(walk.map(|(d, _)| d), want, "{uri}");
        r.prefetch_head(&h);
        let fh = r.prefetch_entries(&h);
        let hint = fh.check(&r.shared, &h);
        assert_eq!(hint.depth, scanned, "{uri}");
        assert_eq!(hint.first.is_some(), scanned == 7, "{uri}");
        let got = r.lookup_with(&h, fh).map(|m| (m.depth(), m.entry()));
        assert_eq!(got, walk, "{uri}");
    }
}

/// Every real prefix's entry sits in the page of its home bucket unless that page's entry
/// slots were all taken when it was added (then it spills); removed prefixes give their slots
/// back to their pages after the grace period, where prefixes homed there later find them.
#[test]
fn entries_sit_in_their_home_bucket_page() {
    let hasher = NameHasher::new([9; 16], SipVariant::Sip13);
    let cfg = FibConfig {
        capacity: 1024,
        load_factor: 4,
        max_entries: 1 << 12,
        max_nexthop_sets: 1 << 8,
        lpm: LpmConfig {
            algorithm: LpmAlgorithm::LongestFirst,
            m: 2,
        },
    };
    let mut w = FibWriter::new(cfg, hasher.clone()).unwrap();
    let hop = [NextHop { face: 1, cost: 0 }];
    // Checks the entries of `live`, of which those from `fresh` on were added since the last
    // removal (a page they spilled from is still full); returns how many of those spilled.
    let check = |w: &FibWriter, live: &[String], fresh: usize| {
        let handle = w.handle();
        let s = &handle.shared;
        let r = handle.reader();
        let slots = s.table.page_payload::<Entry>(0).len();
        assert_eq!(
            s.table.pages(),
            256usize.div_ceil(24),
            "24 home buckets a page"
        );
        assert_eq!(slots, 106);
        let mut in_page = vec![0; s.table.pages()];
        let mut spilled = Vec::new();
        for (n, uri) in live.iter().enumerate() {
            let h = hashes_of(&hasher, uri);
            let e = r.lookup_traced(&h).0.map(|m| (m.entry(), m.depth()));
            let (e, depth) = e.unwrap();
            assert_eq!(depth, 2, "{uri}");
            let page = s.table.home_page(h.get(2).unwrap());
            if e < s.entries.paged {
                assert_eq!((e >> PAGE_SLOT_BITS) as usize, page, "{uri}");
                in_page[page] += 1;
            } else if n >= fresh {
                spilled.push(page);
            }
        }
        for &page in &spilled {
            assert_eq!(in_page[page], slots, "a prefix spilled from page {page}");
        }
        spilled.len()
    };
    let uris: Vec<String> = (0..1100).map(|i| format!("/n{}/c{i}", i % 37)).collect();
    for uri in &uris {
        w.set(Name::from_uri(uri).unwrap().as_ref(), &hop, 0)
            .unwrap();
    }
    assert!(
        check(&w, &uris, 0) > 0,
        "1,100 entries in 1,166 slots: some page is full"
    );
    let (gone, kept): (Vec<_>, Vec<_>) = uris
        .iter()
        .cloned()
        .enumerate()
        .partition(|(i, _)| i % 2 == 0);
    for (_, uri) in &gone {
        assert!(w.remove(Name::from_uri(uri).unwrap().as_ref()).unwrap());
    }
    w.synchronize();
    let mut live: Vec<String> = kept.into_iter().map(|(_, u)| u).collect();
    let fresh = live.len();
    for i in 0..500 {
        let uri = format!("/m{}/d{i}", i % 41);
        w.set(Name::from_uri(&uri).unwrap().as_ref(), &hop, 0)
            .unwrap();
        live.push(uri);
    }
    assert!(check(&w, &live, fresh) < 20, "the freed slots are found");
}
