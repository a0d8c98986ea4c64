//! A Data carries only its whole name's identity ([`ndn_packet::NameId`]); the PIT-CS hashes
//! the prefixes of its name on demand. These tests drive every match that needs them
//! (CanBePrefix entries with and without a token, a token naming a prefix entry, digest
//! Interests) and check the identity equals the Interest side's hashes.

mod common;

use common::*;
use ndn_packet::{Name, PrefixHashes};
use ndnfwd_pcct::{InterestInfo, InterestOutcome, Pcct, PcctConfig, PitHandle};

fn new_pit(o: InterestOutcome) -> PitHandle {
    match o {
        InterestOutcome::NewPit { pit } => pit,
        other => panic!("expected NewPit, got {other:?}"),
    }
}

/// Pending: `/a/b` with CanBePrefix from face 1, `/a/b/c` exact from face 2, `/a` exact (no
/// CanBePrefix) from face 4. Returns the PCCT and the three handles.
fn three_pending(names: &[(Name, PrefixHashes)]) -> (Pcct, [PitHandle; 3]) {
    let mut p = pcct(PcctConfig::default());
    let info = |i: usize, cbp: bool| InterestInfo {
        can_be_prefix: cbp,
        ..interest(&names[i].0, &names[i].1, i as u32 + 1)
    };
    let ab = new_pit(p.on_interest(0, &info(0, true), 1));
    let abc = new_pit(p.on_interest(0, &info(1, false), 2));
    let a = new_pit(p.on_interest(0, &info(2, false), 4));
    (p, [ab, abc, a])
}

fn faces(down: &[ndnfwd_pcct::Downstream]) -> Vec<u32> {
    let mut f: Vec<_> = down.iter().map(|d| d.face).collect();
    f.sort_unstable();
    f
}

#[test]
fn data_identity_equals_the_interest_hashes_of_its_name() {
    let h = hasher();
    for uri in [
        "/",
        "/a",
        "/a/b/c",
        "/long/component/names/that/cross/words/0123456789",
    ] {
        let n = name(uri);
        let id = h.name_id(n.as_ref());
        let hs = hashes(&n);
        assert_eq!(id, hs.name_id());
        assert_eq!(Some(id.id128()), hs.id128(hs.components()));
        assert_eq!(id.hash(), hs.full());
        assert_eq!(id.components(), n.len());
    }
}

#[test]
fn canbeprefix_entries_match_a_data_without_token() {
    let names: Vec<_> = ["/a/b", "/a/b/c", "/a"]
        .iter()
        .map(|u| (name(u), hashes(&name(u))))
        .collect();
    let (mut p, _) = three_pending(&names);
    let (n, h) = &names[1];
    let wire = data_wire(n, b"x");
    let mut down = vec![];
    let o = p.on_data(1, &data(n, h, &wire, 0), 9, None, false, &mut down);
    // The exact entry and the CanBePrefix prefix; `/a` has no CanBePrefix in-record.
    assert_eq!((o.matched, o.via_token, o.cached), (2, false, true));
    assert_eq!(faces(&down[o.downstreams]), vec![1, 2]);
    assert_eq!(p.len_pit(), 1);
    // The prefix entry now points at the cached Data: a CanBePrefix Interest for it hits.
    let (ab, hab) = &names[0];
    let again = InterestInfo {
        can_be_prefix: true,
        ..interest(ab, hab, 77)
    };
    assert!(matches!(
        p.on_interest(2, &again, 5),
        InterestOutcome::CsHit { .. }
    ));
}

#[test]
fn a_token_naming_a_canbeprefix_entry_matches_by_prefix() {
    let names: Vec<_> = ["/a/b", "/a/b/c", "/a"]
        .iter()
        .map(|u| (name(u), hashes(&name(u))))
        .collect();
    let (mut p, [ab, _, a]) = three_pending(&names);
    let (n, h) = &names[1];
    let wire = data_wire(n, b"x");
    let mut down = vec![];
    let o = p.on_data(
        1,
        &data(n, h, &wire, 0),
        9,
        Some(&ab.token.to_bytes()),
        false,
        &mut down,
    );
    // The token's prefix entry and the exact entry of the Data name.
    assert_eq!((o.matched, o.via_token), (2, true));
    assert_eq!(faces(&down[o.downstreams]), vec![1, 2]);
    assert_eq!(p.counters().token_miss, 0);
    // A token naming a prefix entry without CanBePrefix fails its name check: the Data
    // matches by name instead (nothing left but `/a`, which it must not satisfy).
    let mut down = vec![];
    let o = p.on_data(
        2,
        &data(n, h, &wire, 0),
        9,
        Some(&a.token.to_bytes()),
        false,
        &mut down,
    );
    assert_eq!((o.matched, o.via_token, o.unsolicited), (0, false, true));
    assert_eq!(p.counters().token_miss, 1);
    assert_eq!(p.len_pit(), 1);
}

#[test]
fn digest_interests_match_with_and_without_token() {
    let n = name("/d/e");
    let wire = data_wire(&n, b"payload");
    let full = full_name(&n, &wire);
    let hfull = hashes(&full);
    let h = hashes(&n);
    for with_token in [false, true] {
        let mut p = pcct(PcctConfig::default());
        let pit = new_pit(p.on_interest(0, &interest(&full, &hfull, 1), 3));
        // A CanBePrefix entry on the root is pending too, so the by-name path walks every
        // prefix of the Data name as well.
        let root = name("/");
        let hroot = hashes(&root);
        let cbp = InterestInfo {
            can_be_prefix: true,
            ..interest(&root, &hroot, 2)
        };
        new_pit(p.on_interest(0, &cbp, 6));
        let tok = pit.token.to_bytes();
        let mut down = vec![];
        let o = p.on_data(
            1,
            &data(&n, &h, &wire, 10 * MS),
            9,
            with_token.then_some(&tok[..]),
            false,
            &mut down,
        );
        assert_eq!(o.via_token, with_token);
        // Without a token both the digest entry and the root's CanBePrefix entry match; a
        // digest token matches its own entry plus the (absent) exact one only.
        let want: Vec<u32> = if with_token { vec![3] } else { vec![3, 6] };
        assert_eq!(faces(&down[o.downstreams]), want);
        assert_eq!(o.matched as usize, want.len());
        assert_eq!(p.counters().token_miss, 0);
    }
}
