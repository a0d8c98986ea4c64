//! Probe counts: seed 000 Table 2 for two-stage, and the DoS bounds for 200-component names.

mod common;

use common::{hasher, hop, name, probes, uri, writer};
use ndn_packet::Name;
use ndnfwd_fib::{LpmAlgorithm, LpmConfig};

/// Seed 000's worked example: FIB /a, /a/b/d, /a/b/c/d with M = 3 (virtual /a/b/c, MD = 4).
#[test]
fn table2_worked_example() {
    let h = hasher();
    let mut w = writer(LpmAlgorithm::TwoStage, 3);
    for p in ["/a", "/a/b/d", "/a/b/c/d"] {
        w.set(uri(p).as_ref(), &hop(1), 0).unwrap();
    }
    let r = w.handle().reader();
    let mem = w.handle().memory();
    assert_eq!(
        (mem.prefixes, mem.virtuals),
        (3, 1),
        "one virtual entry /a/b/c"
    );
    for (interest, depth, count) in [
        ("/a/b/c/d/e/f", 4, 2),
        ("/a/c/d/e/f/g", 1, 3),
        ("/a/b/d/e/f/g", 3, 1),
        // The (-1) case: longest-first needs 1 lookup, two-stage 2.
        ("/a/b/c/d", 4, 2),
    ] {
        assert_eq!(
            probes(&r, &h, uri(interest).as_ref()),
            (Some(depth), count),
            "{interest}"
        );
    }
    // Longest-first on the same FIB starts at min(n, k = 4): 1 + min(n, k) - m lookups.
    w.set_lpm(LpmConfig {
        algorithm: LpmAlgorithm::LongestFirst,
        m: 3,
    })
    .unwrap();
    for (interest, count) in [
        ("/a/b/c/d/e/f", 1),
        ("/a/c/d/e/f/g", 4),
        ("/a/b/d/e/f/g", 2),
        ("/a/b/c/d", 1),
    ] {
        assert_eq!(
            probes(&r, &h, uri(interest).as_ref()).1,
            count,
            "{interest}"
        );
    }
}

/// Every row of seed 000 Table 2 (n: name length, m: match depth, M = 3).
#[test]
fn table2_rows() {
    let h = hasher();
    let cases: [(&[&str], &str, usize, u32); 6] = [
        // m <= n < M: 1 + n - m
        (&["/a"], "/a/b", 1, 2),
        // m <= M <= n, M = MD: 1 + MD - m (no virtual entry at M: MD = M)
        (&["/a"], "/a/c/d/e/f", 1, 3),
        // m <= M <= n, M <= MD < n: 1 + MD - m
        (&["/a", "/a/b/c/d"], "/a/b/c/x/y/z", 1, 4),
        // m <= M <= n, M < n < MD: 1 + n - m
        (&["/a", "/a/b/c/d/e/f"], "/a/b/c/x", 1, 4),
        // M < m <= n, MD + 1 <= n: 2 + MD - m
        (&["/a/b/c/d"], "/a/b/c/d/e/f", 4, 2),
        // M < m <= n, n < MD + 1: 2 + n - m (the -1 case)
        (&["/a/b/c/d/e"], "/a/b/c/d/e", 5, 2),
    ];
    for (fib, interest, depth, count) in cases {
        let mut w = writer(LpmAlgorithm::TwoStage, 3);
        for p in fib {
            w.set(uri(p).as_ref(), &hop(1), 0).unwrap();
        }
        let r = w.handle().reader();
        assert_eq!(
            probes(&r, &h, uri(interest).as_ref()),
            (Some(depth), count),
            "{fib:?} {interest}"
        );
    }
}

fn random_name(seed: u64, len: usize) -> Name {
    let mut x = seed;
    (0..len).fold(Name::new(), |n, _| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        n.push((x >> 16).to_le_bytes())
    })
}

/// Interests of 200 random components: two-stage spends at most M probes when nothing matches
/// deeper than M, binary search at most ceil(log2(k + 1)) + 1 for FIB depth k; longest-first is
/// bounded by k (never by the name).
#[test]
fn dos_bound_for_long_names() {
    let h = hasher();
    for k in [3usize, 7, 8, 15, 20] {
        let m = 3u8;
        let mut fibs: Vec<_> = [
            LpmAlgorithm::TwoStage,
            LpmAlgorithm::BinarySearch,
            LpmAlgorithm::LongestFirst,
        ]
        .into_iter()
        .map(|a| writer(a, m))
        .collect();
        for w in fibs.iter_mut() {
            w.set(name(&["a"]).as_ref(), &hop(1), 0).unwrap();
            for i in 0..50u64 {
                let depth = 1 + (i as usize * 7) % k;
                w.set(random_name(i, depth).as_ref(), &hop(2), 0).unwrap();
            }
            w.set(random_name(99, k).as_ref(), &hop(2), 0).unwrap();
            assert_eq!(w.depth(), k);
        }
        let bound_bs = (usize::BITS - k.leading_zeros()) + 1;
        for j in 0..40u64 {
            // Half start with the real prefix /a, half match nothing.
            let tail = random_name(1000 + j, 199);
            let interest = if j % 2 == 0 {
                name(&["a"]).append(tail.as_ref())
            } else {
                random_name(2000 + j, 200)
            };
            let want = (j % 2 == 0).then_some(1);
            let (d, p) = probes(&fibs[0].handle().reader(), &h, interest.as_ref());
            assert_eq!(d, want);
            assert!(p <= u32::from(m), "two-stage k={k}: {p} probes");
            let (d, p) = probes(&fibs[1].handle().reader(), &h, interest.as_ref());
            assert_eq!(d, want);
            assert!(p <= bound_bs, "binary search k={k}: {p} > {bound_bs}");
            let (d, p) = probes(&fibs[2].handle().reader(), &h, interest.as_ref());
            assert_eq!(d, want);
            assert!(p as usize <= k, "longest-first k={k}: {p}");
        }
    }
}

/// Binary search needs at most ceil(log2(k + 1)) probes when the answer is a real prefix hit
/// on the search path, e.g. seed 001's yuan7: every prefix 7 deep, markers at 4 and 6.
#[test]
fn binary_search_yuan7_three_probes() {
    let h = hasher();
    let mut w = writer(LpmAlgorithm::BinarySearch, 4);
    for i in 0..200 {
        w.set(random_name(i, 7).as_ref(), &hop(1), 0).unwrap();
    }
    let mem = w.handle().memory();
    assert_eq!((mem.prefixes, mem.markers), (200, 400));
    assert_eq!(
        mem.entries, 200,
        "markers share the prefix's entry (seed 001 Figure 3)"
    );
    let r = w.handle().reader();
    for i in 0..200 {
        let n = random_name(i, 7).append(random_name(7777 + i, 3).as_ref());
        assert_eq!(probes(&r, &h, n.as_ref()), (Some(7), 3));
    }
}

/// FIB expansion and the choice of M from the writer's depth distribution.
#[test]
fn expansion_and_m_choice() {
    let mut w = writer(LpmAlgorithm::TwoStage, 3);
    for p in ["/a", "/a/b/d", "/a/b/c/d", "/x/y/z", "/x/y/w", "/x/y/v/u"] {
        w.set(uri(p).as_ref(), &hop(1), 0).unwrap();
    }
    // Virtual entries at M = 3: /a/b/c and /x/y/v.
    assert_eq!(w.handle().memory().virtuals, 2);
    assert!((w.stats().fib_expansion_pct - 200.0 / 6.0).abs() < 1e-9);
    assert!((w.expansion_for_m(3) - 200.0 / 6.0).abs() < 1e-9);
    assert!(
        (w.expansion_for_m(2) - 100.0 * 2.0 / 6.0).abs() < 1e-9,
        "/a/b and /x/y"
    );
    assert_eq!(w.expansion_for_m(4), 0.0);
    assert_eq!(w.depth_histogram()[..5], [0, 1, 0, 3, 2]);
    assert_eq!(w.choose_m(ndnfwd_fib::MHeuristic::MostLikely), 3);
    assert_eq!(
        w.choose_m(ndnfwd_fib::MHeuristic::CumulativeThreshold(0.9)),
        4
    );
    // Changing M at run time moves the virtual entries.
    w.set_lpm(LpmConfig {
        algorithm: LpmAlgorithm::TwoStage,
        m: 2,
    })
    .unwrap();
    w.synchronize();
    assert_eq!(w.handle().memory().virtuals, 2);
    let r = w.handle().reader();
    assert_eq!(
        probes(&r, &hasher(), uri("/a/b/c/d/e").as_ref()),
        (Some(4), 2)
    );
}
