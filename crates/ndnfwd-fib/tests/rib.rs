//! RIB semantics (NFD): child-inherit, capture, lowest cost per face, expiry, face removal,
//! strategy inheritance, all observed through a FIB reader.

mod common;

use common::{hasher, uri, writer};
use ndn_packet::{NameHasher, PrefixHashes};
use ndnfwd_fib::{FibReader, LpmAlgorithm, NextHop, Rib, Route, RouteFlags};

fn route(face: u32, cost: u32, flags: RouteFlags) -> Route {
    Route {
        face,
        origin: 0,
        cost,
        flags,
        expires: None,
    }
}

/// (matched depth, (face, cost) list, strategy).
type Answer = (usize, Vec<(u32, u32)>, u8);

fn hops(r: &FibReader, h: &NameHasher, name: &str) -> Option<Answer> {
    let mut hs = PrefixHashes::default();
    h.hash_prefixes(uri(name).as_ref(), &mut hs);
    r.lookup(&hs).map(|m| {
        let v = m
            .nexthops()
            .map(|NextHop { face, cost }| (face, cost))
            .collect();
        (m.depth(), v, m.strategy())
    })
}

#[test]
fn inheritance_capture_and_costs() {
    let h = hasher();
    for a in [
        LpmAlgorithm::LongestFirst,
        LpmAlgorithm::TwoStage,
        LpmAlgorithm::BinarySearch,
    ] {
        let mut rib = Rib::new(writer(a, 2));
        let r = rib.fib().handle().reader();
        rib.register(uri("/a").as_ref(), route(1, 10, RouteFlags::CHILD_INHERIT))
            .unwrap();
        rib.register(uri("/a/b").as_ref(), route(2, 5, RouteFlags::NONE))
            .unwrap();
        assert_eq!(hops(&r, &h, "/a/b/x"), Some((2, vec![(2, 5), (1, 10)], 0)));
        // Lowest cost per face: an inherited cheaper route to face 2 wins.
        rib.register(uri("/a").as_ref(), route(2, 1, RouteFlags::CHILD_INHERIT))
            .unwrap();
        assert_eq!(hops(&r, &h, "/a/b"), Some((2, vec![(2, 1), (1, 10)], 0)));
        // CAPTURE on /a/b/c blocks what /a passes down, for it and below.
        rib.register(uri("/a/b/c").as_ref(), route(3, 7, RouteFlags::CAPTURE))
            .unwrap();
        assert_eq!(hops(&r, &h, "/a/b/c/d"), Some((3, vec![(3, 7)], 0)));
        rib.register(uri("/a/b/c/d").as_ref(), route(4, 1, RouteFlags::NONE))
            .unwrap();
        assert_eq!(hops(&r, &h, "/a/b/c/d"), Some((4, vec![(4, 1)], 0)));
        // A CHILD_INHERIT route below the capture is inherited again.
        rib.register(
            uri("/a/b/c").as_ref(),
            route(5, 2, RouteFlags::CHILD_INHERIT),
        )
        .unwrap();
        assert_eq!(hops(&r, &h, "/a/b/c/d"), Some((4, vec![(4, 1), (5, 2)], 0)));
        // Same (face, origin) replaces; other origin adds.
        rib.register(uri("/a/b").as_ref(), route(2, 50, RouteFlags::NONE))
            .unwrap();
        assert_eq!(rib.routes(uri("/a/b").as_ref()).len(), 1);
        // Unregister /a's face-2 route: /a/b now uses its own face-2 cost.
        assert!(rib.unregister(uri("/a").as_ref(), 2, 0).unwrap());
        assert_eq!(hops(&r, &h, "/a/b"), Some((2, vec![(1, 10), (2, 50)], 0)));
        assert!(!rib.unregister(uri("/a").as_ref(), 2, 0).unwrap());
        // Strategy choice is inherited by longer FIB prefixes.
        rib.set_strategy(uri("/a/b").as_ref(), 3).unwrap();
        assert_eq!(hops(&r, &h, "/a/b/c/d").map(|x| x.2), Some(3));
        assert_eq!(hops(&r, &h, "/a/z").map(|x| x.2), Some(0));
        assert_eq!(rib.len(), 4);
        assert!(rib.memory_bytes() > 0);
    }
}

#[test]
fn expiry_and_face_removal() {
    let h = hasher();
    let mut rib = Rib::new(writer(LpmAlgorithm::BinarySearch, 3));
    let r = rib.fib().handle().reader();
    rib.register(uri("/a").as_ref(), route(1, 10, RouteFlags::CHILD_INHERIT))
        .unwrap();
    let mut timed = route(2, 1, RouteFlags::NONE);
    timed.expires = Some(1_000);
    rib.register(uri("/a/b/c/d/e").as_ref(), timed).unwrap();
    rib.register(uri("/q").as_ref(), route(2, 1, RouteFlags::NONE))
        .unwrap();
    assert_eq!(hops(&r, &h, "/a/b/c/d/e/f").map(|x| x.0), Some(5));
    assert_eq!(rib.expire(999).unwrap(), 0);
    assert_eq!(rib.expire(1_000).unwrap(), 1);
    assert_eq!(hops(&r, &h, "/a/b/c/d/e/f"), Some((1, vec![(1, 10)], 0)));
    assert_eq!(rib.remove_face(2).unwrap(), 1);
    assert_eq!(hops(&r, &h, "/q/x"), None);
    assert_eq!(rib.remove_face(1).unwrap(), 1);
    assert!(rib.is_empty());
    assert_eq!(hops(&r, &h, "/a/b"), None);
    assert_eq!(rib.fib().stats().prefixes, 0);
}
