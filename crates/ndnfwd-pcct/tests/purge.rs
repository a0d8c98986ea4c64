//! Face removal (`Pcct::purge_face`, NFD `cleanupOnFaceRemoval`): records of the face vanish,
//! entries left without downstreams are erased, entries left without a pending upstream are
//! reported.

mod common;

use common::*;
use ndn_packet::Name;
use ndnfwd_pcct::*;

const GONE: u32 = 1;

fn new_pit(o: InterestOutcome) -> PitHandle {
    match o {
        InterestOutcome::NewPit { pit } => pit,
        other => panic!("expected NewPit, got {other:?}"),
    }
}

/// An Interest for `uri` from `faces` (nonce = 100 * face), forwarded to `ups`; returns the
/// entry, its name and hashes.
fn entry(
    p: &mut Pcct,
    uri: &str,
    faces: &[(u32, u64)],
    ups: &[u32],
) -> (PitHandle, Name, ndn_packet::PrefixHashes) {
    let n = name(uri);
    let h = hashes(&n);
    let mut pit = None;
    for &(face, lifetime_ms) in faces {
        let mut it = interest(&n, &h, 100 * face);
        it.lifetime_ns = Some(lifetime_ms * MS);
        it.can_be_prefix = uri.starts_with("/cbp") && face == GONE;
        match p.on_interest(0, &it, face) {
            InterestOutcome::NewPit { pit: x } | InterestOutcome::Aggregated { pit: x, .. } => {
                pit = Some(x)
            }
            other => panic!("{other:?}"),
        }
    }
    let pit = pit.unwrap();
    for &up in ups {
        p.record_out(0, pit, up, 7).unwrap();
    }
    (pit, n, h)
}

fn nack(p: &mut Pcct, pit: PitHandle, n: &Name, h: &ndn_packet::PrefixHashes, face: u32) {
    let info = NackInfo {
        name: n.as_ref(),
        hashes: h,
        must_be_fresh: false,
        forwarding_hint_hash: None,
        nonce: 7,
        reason: NackReason::Congestion,
    };
    let tok = pit.token.to_bytes();
    assert_eq!(
        p.on_nack(0, &info, face, Some(&tok), &mut vec![]),
        NackOutcome::Pending
    );
}

#[test]
fn purge_face_follows_nfd_cleanup() {
    let mut p = pcct(PcctConfig::default());
    let s = 4_000;
    // Stays: another downstream, upstream elsewhere.
    let (a, ..) = entry(&mut p, "/a", &[(GONE, s), (2, s)], &[9]);
    // Erased: its only downstream is the removed face.
    let (b, bn, bh) = entry(&mut p, "/b", &[(GONE, s)], &[9]);
    // Orphan: the removed face was its only pending upstream (the other one nacked).
    let (c, cn, ch) = entry(&mut p, "/c", &[(2, s)], &[GONE, 9]);
    nack(&mut p, c, &cn, &ch, 9);
    // Another upstream still pending: not an orphan.
    let (d, ..) = entry(&mut p, "/d", &[(2, s)], &[GONE, 8]);
    // Its only downstream expired (100 ms < now): not reported, `expire` will end it.
    let (e, ..) = entry(&mut p, "/e", &[(2, 100)], &[GONE]);
    // The out-record toward the face was nacked already; another upstream is pending.
    let (f, fn_, fh) = entry(&mut p, "/f", &[(2, s)], &[GONE, 9]);
    nack(&mut p, f, &fn_, &fh, GONE);
    // CanBePrefix only on the removed face's in-record; a short-lived other downstream.
    let (g, ..) = entry(&mut p, "/cbp", &[(GONE, s), (3, 300)], &[]);
    assert_eq!(p.len_pit(), 7);
    let keys = p.len_keys();

    let mut orphans = vec![];
    let done = p.purge_face(200 * MS, GONE, &mut orphans);
    assert_eq!(
        done,
        FacePurge {
            in_records: 3,
            out_records: 4,
            erased: 1
        }
    );
    assert_eq!(orphans, vec![c]);
    assert_eq!((p.len_pit(), p.len_keys()), (6, keys - 1));
    assert_eq!(p.counters().face_purged, 1);
    for h in [a, c, d, e, f, g] {
        assert!(p.in_records(h).count() > 0, "{h:?} stays");
        assert!(p.in_records(h).all(|r| r.face != GONE), "{h:?}");
        assert!(p.out_records(h).all(|r| r.face != GONE), "{h:?}");
    }
    assert_eq!(
        p.out_records(d).map(|r| r.face).collect::<Vec<_>>(),
        vec![8]
    );

    // The erased entry: handle dead, token no longer names it.
    assert_eq!(p.in_records(b).count(), 0);
    assert_eq!(p.record_out(0, b, 9, 7), Err(RecordError::NoEntry));
    let wire = data_wire(&bn, b"x");
    let o = p.on_data(
        300 * MS,
        &data(&bn, &bh, &wire, 0),
        9,
        Some(&b.token.to_bytes()),
        false,
        &mut vec![],
    );
    assert!(o.unsolicited && !o.via_token && !o.cached);

    // No CanBePrefix in-record is left on /cbp: a longer Data no longer satisfies it.
    let long = name("/cbp/x");
    let lh = hashes(&long);
    let wire = data_wire(&long, b"y");
    let o = p.on_data(
        300 * MS,
        &data(&long, &lh, &wire, 0),
        9,
        None,
        false,
        &mut vec![],
    );
    assert!(o.unsolicited, "{o:?}");

    // Expiry follows the remaining in-records: /cbp (300 ms) and /e (100 ms) go first.
    let mut expired = vec![];
    p.expire(400 * MS, &mut expired);
    let mut gone: Vec<_> = expired.iter().map(|x| x.pit).collect();
    gone.sort_by_key(|h| h.token);
    let mut want = vec![e, g];
    want.sort_by_key(|h| h.token);
    assert_eq!(gone, want);
    // A purge of an unknown face changes nothing.
    assert_eq!(p.purge_face(0, 77, &mut orphans), FacePurge::default());
    assert_eq!(p.len_pit(), 4);
}

#[test]
fn purge_erases_the_key_only_when_nothing_else_holds_it() {
    let mut p = pcct(PcctConfig::default());
    let n = name("/two/parts");
    let h = hashes(&n);
    let plain = new_pit(p.on_interest(0, &interest(&n, &h, 1), GONE));
    let mut fresh = interest(&n, &h, 2);
    fresh.must_be_fresh = true;
    let fresh = new_pit(p.on_interest(0, &fresh, 2));
    assert_eq!(plain.token, fresh.token, "one key, one token");
    let done = p.purge_face(1, GONE, &mut vec![]);
    assert_eq!((done.erased, p.len_pit(), p.len_keys()), (1, 1, 1));
    // The MustBeFresh part keeps the key and its token.
    let wire = data_wire(&n, b"z");
    let mut down = vec![];
    let o = p.on_data(
        2,
        &data(&n, &h, &wire, 0),
        9,
        Some(&fresh.token.to_bytes()),
        false,
        &mut down,
    );
    assert!(o.via_token && o.matched == 1);
    assert_eq!(
        down[o.downstreams]
            .iter()
            .map(|d| d.face)
            .collect::<Vec<_>>(),
        vec![2]
    );
}
