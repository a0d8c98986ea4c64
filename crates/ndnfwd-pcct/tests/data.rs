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

mod exact_token {
    //! The exact-token Data settles through `on_data_parsed`'s own path; the same Data without
    //! a token goes through the general match by name. Both must leave the same answer and
    //! the same tables, whatever the pending Interests (both MustBeFresh parts, several
    //! downstreams, the ingress face among them) and the CS state (a small CS, so that most
    //! Data recycle its LRU victim, and the victim is sometimes the Data's own name).

    use super::*;
    use ndnfwd_pcct::{CsPolicy, DataOutcome, DataSink, Downstream, PitToken, RxToken};
    use proptest::prelude::*;

    /// A sink of its own (as the engine's, which sends each downstream at once): one Data's
    /// downstreams, each face kept once.
    #[derive(Default)]
    struct Record(Vec<Downstream>);

    impl DataSink for Record {
        fn offer(&mut self, d: Downstream) {
            if self.0.iter().all(|x| x.face != d.face) {
                self.0.push(d);
            }
        }

        fn held(&self) -> usize {
            self.0.len()
        }
    }

    #[derive(Debug, Clone)]
    enum Step {
        Interest { name: usize, face: u32, mbf: bool },
        Data { name: usize, face: u32 },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0..6usize, 1..5u32, any::<bool>()).prop_map(|(name, face, mbf)| Step::Interest {
                name,
                face,
                mbf
            }),
            (0..6usize, 1..5u32).prop_map(|(name, face)| Step::Data { name, face }),
        ]
    }

    fn run(policy: CsPolicy, steps: &[Step]) {
        let names: Vec<_> = ["/a", "/a/b", "/a/c", "/b/x/y", "/c", "/c/d/e/f"]
            .iter()
            .map(|u| {
                let n = name(u);
                let h = hashes(&n);
                (n, h)
            })
            .collect();
        let cfg = PcctConfig {
            cs_capacity_packets: 3,
            cs_policy: policy,
            ..PcctConfig::default()
        };
        let (mut by_token, mut by_name, mut by_sink) = (pcct(cfg), pcct(cfg), pcct(cfg));
        let mut tokens: Vec<Option<PitToken>> = vec![None; names.len()];
        let (mut d1, mut d2) = (vec![], vec![]);
        for (now, s) in (1u64..).zip(steps) {
            match *s {
                Step::Interest { name, face, mbf } => {
                    let (n, h) = &names[name];
                    let it = InterestInfo {
                        must_be_fresh: mbf,
                        ..interest(n, h, now as u32)
                    };
                    let a = by_token.on_interest(now, &it, face);
                    assert_eq!(a, by_name.on_interest(now, &it, face));
                    assert_eq!(a, by_sink.on_interest(now, &it, face));
                    if let InterestOutcome::NewPit { pit } = a {
                        tokens[name] = Some(pit.token);
                    }
                }
                Step::Data { name, face } => {
                    let (n, h) = &names[name];
                    let wire = data_wire(n, &now.to_be_bytes());
                    let d = data(n, h, &wire, 0);
                    let t = tokens[name].map_or(RxToken::Absent, RxToken::Parsed);
                    let a = by_token.on_data_parsed(now, &d, face, t, false, &mut d1);
                    let b = by_name.on_data_parsed(now, &d, face, RxToken::Absent, false, &mut d2);
                    assert_eq!(d1.get(a.downstreams.clone()), d2.get(b.downstreams.clone()));
                    let mut rec = Record::default();
                    let c = by_sink.on_data_into(now, &d, face, t, false, &mut rec);
                    assert_eq!(d1.get(a.downstreams.clone()), Some(&rec.0[..]));
                    assert_eq!(
                        c,
                        DataOutcome {
                            downstreams: 0..rec.0.len(),
                            ..a.clone()
                        }
                    );
                    assert_eq!(
                        (a.matched, a.cached, a.unsolicited),
                        (b.matched, b.cached, b.unsolicited)
                    );
                }
            }
            let (mut ca, cb) = (*by_token.counters(), *by_name.counters());
            assert_eq!(ca, *by_sink.counters());
            ca.token_miss = 0;
            assert_eq!(ca, cb);
            assert_eq!(by_token.len_pit(), by_name.len_pit());
            assert_eq!(by_token.len_cs(), by_name.len_cs());
            assert_eq!(by_token.len_keys(), by_name.len_keys());
            assert_eq!(by_token.cs_bytes(), by_name.cs_bytes());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn exact_token_path_settles_like_the_name_path_lru(steps in prop::collection::vec(step(), 1..80)) {
            run(CsPolicy::Lru, &steps);
        }

        #[test]
        fn exact_token_path_settles_like_the_name_path_arc(steps in prop::collection::vec(step(), 1..80)) {
            run(CsPolicy::Arc, &steps);
        }
    }
}
