//! Binary search under route churn: a prefix one level deeper than the rest of the FIB,
//! added and removed over and over, grows the search tree once and does not shrink it back
//! on every removal (each height change rebuilds the markers of the whole FIB); the tree
//! shrinks after [`SHRINK_AFTER`] reclaims in a row find it too tall, and lookups are right
//! all along.

mod common;

use common::{hasher, hop, probes, uri, writer};
use ndnfwd_fib::{LpmAlgorithm, SHRINK_AFTER};

#[test]
fn churn_one_level_deeper_grows_the_tree_once() {
    let h = hasher();
    let mut w = writer(LpmAlgorithm::BinarySearch, 4);
    for p in ["/a", "/a/b/c", "/d/e/f"] {
        w.set(uri(p).as_ref(), &hop(1), 0).unwrap();
    }
    let mut r = w.handle().reader();
    // Depth 3: tree over 1..=3, a hit at /d/e/f after the marker at /d/e.
    assert_eq!(probes(&r, &h, uri("/d/e/f/g/h").as_ref()), (Some(3), 2));
    // Grown while filling: height 1 for /a, 2 for the depth-3 prefixes.
    let grown = w.stats().tree_resizes;
    for _ in 0..50 {
        w.set(uri("/a/b/c/d").as_ref(), &hop(2), 0).unwrap();
        assert_eq!(probes(&r, &h, uri("/a/b/c/d/x").as_ref()).0, Some(4));
        r.quiescent();
        w.reclaim();
        assert!(w.remove(uri("/a/b/c/d").as_ref()).unwrap());
        assert_eq!(probes(&r, &h, uri("/a/b/c/d/x").as_ref()).0, Some(3));
        assert_eq!(probes(&r, &h, uri("/a/zz/c/d").as_ref()).0, Some(1));
        r.quiescent();
        w.reclaim();
    }
    assert_eq!(w.stats().tree_resizes, grown + 1, "grew once, never shrank");
    // Still the taller tree (1..=7): one probe more than needed, never a wrong answer.
    assert_eq!(probes(&r, &h, uri("/d/e/f/g/h").as_ref()), (Some(3), 3));
    for _ in 1..SHRINK_AFTER {
        r.quiescent();
        w.reclaim();
    }
    assert_eq!(
        w.stats().tree_resizes,
        grown + 2,
        "shrank once it stayed too tall"
    );
    assert_eq!(probes(&r, &h, uri("/d/e/f/g/h").as_ref()), (Some(3), 2));
    assert_eq!(probes(&r, &h, uri("/a/b/c/d/x").as_ref()).0, Some(3));
    r.offline();
    w.synchronize();
}
