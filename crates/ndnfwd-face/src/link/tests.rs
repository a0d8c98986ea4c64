use bytes::Bytes;
use ndn_packet::lp::{LpPacketBuilder, NackReason};
use ndn_packet::{DataBuilder, InterestBuilder, Name};

use super::*;
use crate::counters::CounterSnapshot;

const FACE: FaceId = 300;

fn interest() -> Bytes {
    let name = Name::from_uri("/a/b").unwrap();
    InterestBuilder::new(name)
        .nonce([1, 2, 3, 4])
        .encode()
        .unwrap()
        .into()
}

fn data(content: usize) -> Bytes {
    let name = Name::from_uri("/a/b").unwrap();
    let content = (0..content).map(|i| i as u8).collect();
    DataBuilder::new(name)
        .content(content)
        .encode()
        .unwrap()
        .into()
}

fn service(mtu: Option<usize>, local_fields: bool) -> LinkService {
    let cfg = LinkConfig {
        mtu,
        local_fields,
        reassembly: ReassemblyLimits::default(),
    };
    LinkService::new(cfg, 1000)
}

fn lp(f: impl FnOnce(&mut LpHeaders<'static>), payload: &[u8]) -> Bytes {
    let mut b = LpPacketBuilder::new();
    f(b.headers_mut());
    b.encode(Some(payload)).unwrap().into()
}

fn rx(ls: &mut LinkService, c: &FaceCounters, frame: Bytes) -> Option<RxPacket> {
    ls.decode(0, FACE, 0, frame, c)
}

fn tx(kind: PacketKind, wire: Bytes) -> TxPacket {
    TxPacket {
        face: FACE,
        kind,
        lp: Default::default(),
        wire,
        patch: None,
    }
}

/// Encodes `p` and returns each frame as wire bytes.
fn encode(ls: &mut LinkService, c: &FaceCounters, p: &TxPacket) -> Option<Vec<Bytes>> {
    let (mut heads, mut frames) = (Vec::new(), Vec::new());
    if !ls.encode(&mut p.clone(), &mut heads, &mut frames, c) {
        return None;
    }
    let wires = frames.iter().map(|f| {
        let mut w = heads[f.head.clone()].to_vec();
        f.body_parts().iter().for_each(|p| w.extend_from_slice(p));
        Bytes::from(w)
    });
    Some(wires.collect())
}

fn snap(c: &FaceCounters) -> CounterSnapshot {
    c.snapshot()
}

#[test]
fn bare_packets_pass_zero_copy() {
    let (mut ls, c) = (service(None, false), FaceCounters::default());
    let w = interest();
    let p = rx(&mut ls, &c, w.clone()).unwrap();
    assert_eq!((p.face, p.kind), (FACE, PacketKind::Interest));
    assert_eq!(p.wire.as_ptr(), w.as_ptr());
    assert_eq!(p.lp, RxLp::default());
    let p = rx(&mut ls, &c, data(10)).unwrap();
    assert_eq!(p.kind, PacketKind::Data);
    // Not a network packet, and trailing bytes after one.
    assert!(rx(&mut ls, &c, Bytes::from_static(&[7, 0])).is_none());
    let mut trailing = interest().to_vec();
    trailing.push(0);
    assert!(rx(&mut ls, &c, trailing.into()).is_none());
    let s = snap(&c);
    assert_eq!(
        (s.in_interests, s.in_data, s.drops(DropReason::BadPacket)),
        (1, 1, 2)
    );
}

#[test]
fn lp_fields_are_decoded_and_checked_against_the_type() {
    let (mut ls, c) = (service(None, false), FaceCounters::default());
    let i = interest();
    let frame = lp(
        |h| {
            h.pit_token = Some(&[0xaa, 0xbb]);
            h.congestion_mark = Some(1);
            h.incoming_face_id = Some(9);
        },
        &i,
    );
    let p = rx(&mut ls, &c, frame.clone()).unwrap();
    assert_eq!(p.lp.pit_token.as_bytes(), &[0xaa, 0xbb]);
    assert_eq!(p.lp.congestion_mark, 1);
    assert_eq!(&p.wire[..], &i[..]);
    // Zero copy: the packet is a slice of the frame.
    assert!(frame.as_ptr_range().contains(&p.wire.as_ptr()));

    let nack = lp(|h| h.nack = Some(Some(NackReason::NoRoute)), &i);
    let p = rx(&mut ls, &c, nack).unwrap();
    assert_eq!(
        (p.kind, p.lp.nack),
        (PacketKind::Nack, Some(Some(NackReason::NoRoute)))
    );

    // Nack on Data, NextHopFaceId on Data, CachePolicy on Interest: bad_lp.
    let d = data(4);
    let bad = [
        lp(|h| h.next_hop_face_id = Some(5), &d),
        lp(|h| h.cache_policy = Some(1), &i),
        lp(|h| h.cache_policy = Some(1), &d).slice(..), // fine: ignored without local fields
    ];
    assert!(rx(&mut ls, &c, bad[0].clone()).is_none());
    assert!(rx(&mut ls, &c, bad[1].clone()).is_none());
    let p = rx(&mut ls, &c, bad[2].clone()).unwrap();
    assert!(!p.lp.no_cache);
    // NextHopFaceId without local fields is dropped, as NFD does.
    assert!(rx(&mut ls, &c, lp(|h| h.next_hop_face_id = Some(5), &i)).is_none());
    // An LpPacket that does not decode.
    assert!(rx(&mut ls, &c, Bytes::from_static(&[100, 3, 81, 1, 0])).is_none());
    let s = snap(&c);
    assert_eq!(s.drops(DropReason::BadLp), 3);
    assert_eq!(s.drops(DropReason::LocalFieldsDisabled), 1);
    assert_eq!((s.in_interests, s.in_nacks, s.in_data), (1, 1, 1));
}

#[test]
fn local_fields_enable_next_hop_and_no_cache() {
    let (mut ls, c) = (service(None, true), FaceCounters::default());
    let p = rx(
        &mut ls,
        &c,
        lp(|h| h.next_hop_face_id = Some(77), &interest()),
    )
    .unwrap();
    assert_eq!(p.lp.next_hop_face_id, Some(77));
    let p = rx(&mut ls, &c, lp(|h| h.cache_policy = Some(1), &data(3))).unwrap();
    assert!(p.lp.no_cache);
    let p = rx(&mut ls, &c, lp(|h| h.cache_policy = Some(2), &data(3))).unwrap();
    assert!(!p.lp.no_cache);
}

#[test]
fn encode_bare_or_with_fields() {
    let c = FaceCounters::default();
    let mut ls = service(Some(1500), false);
    let i = interest();
    let frames = encode(&mut ls, &c, &tx(PacketKind::Interest, i.clone())).unwrap();
    assert_eq!(frames, vec![i.clone()]);

    let mut p = tx(PacketKind::Nack, i.clone());
    p.lp.nack = Some(NackReason::Congestion);
    p.lp.pit_token = LpToken::new(&[1; 8]).unwrap();
    p.lp.incoming_face_id = Some(4);
    p.lp.congestion_mark = 2;
    let frames = encode(&mut ls, &c, &p).unwrap();
    assert_eq!(frames.len(), 1);
    let mut peer = service(None, false);
    let got = rx(&mut peer, &c, frames[0].clone()).unwrap();
    assert_eq!(got.kind, PacketKind::Nack);
    assert_eq!(got.lp.nack, Some(Some(NackReason::Congestion)));
    assert_eq!(got.lp.pit_token.as_bytes(), &[1; 8]);
    assert_eq!(got.lp.congestion_mark, 2);
    // IncomingFaceId only leaves a face with local fields enabled.
    let lpk = ndn_packet::LpPacket::new_checked(&frames[0]).unwrap();
    assert_eq!(lpk.headers().incoming_face_id, None);
    ls.set_local_fields(true);
    let frames = encode(&mut ls, &c, &p).unwrap();
    let lpk = ndn_packet::LpPacket::new_checked(&frames[0]).unwrap();
    assert_eq!(lpk.headers().incoming_face_id, Some(4));

    // Kind and wire must agree.
    assert!(encode(&mut ls, &c, &tx(PacketKind::Data, i.clone())).is_none());
    assert!(encode(&mut ls, &c, &tx(PacketKind::Nack, data(1))).is_none());
    let s = snap(&c);
    assert_eq!(s.drops(DropReason::TxBadPacket), 2);
    assert_eq!((s.out_interests, s.out_nacks), (1, 2));
}

/// A patch must replace a byte of the TLV value: one on the outer type or length (which
/// `encode` checked) or past the end makes the packet invalid, and nothing is sent.
#[test]
fn patch_outside_the_value_is_refused() {
    let c = FaceCounters::default();
    let mut ls = service(Some(1400), false);
    let wire = interest();
    let (_, _, hdr) = tlv::header(&wire).unwrap();
    for (at, ok) in [
        (0, false),
        (hdr - 1, false),
        (hdr, true),
        (wire.len() - 1, true),
    ]
    .into_iter()
    .chain([(wire.len(), false), (usize::from(u16::MAX), false)])
    {
        let mut p = tx(PacketKind::Interest, wire.clone());
        p.patch = Some(BytePatch {
            at: at as u16,
            byte: 0xee,
        });
        let got = encode(&mut ls, &c, &p);
        assert_eq!(got.is_some(), ok, "patch at {at}");
        if let Some(frames) = got {
            assert_eq!(frames, vec![p.sent_wire()], "patch at {at}");
        }
    }
    let s = snap(&c);
    assert_eq!((s.drops(DropReason::TxBadPacket), s.out_interests), (4, 2));
}

/// The common-frame shortcut reads the same fields as the general conversion.
#[test]
fn common_fields_equal_general_fields() {
    let i = interest();
    let frames = [
        i.clone(),
        lp(|h| h.pit_token = Some(&[5; 32]), &i),
        lp(|h| h.nack = Some(Some(NackReason::NoRoute)), &i),
        lp(
            |h| {
                h.pit_token = Some(&[1]);
                h.nack = Some(None);
                h.congestion_mark = Some(7);
            },
            &i,
        ),
    ];
    for f in &frames {
        let c = lp::decode_common(f).unwrap();
        assert_eq!(
            common_fields(&c.fields),
            rx_fields(&LpHeaders::from(c.fields))
        );
    }
}

/// The common frame (only a PitToken) is what the general builder writes, decodes back, and
/// is counted; with incoming_face_id set but local fields off it is still the common frame.
#[test]
fn token_only_frame_matches_builder_and_counts() {
    let c = FaceCounters::default();
    let mut ls = service(None, false);
    let d = data(100);
    let mut p = tx(PacketKind::Data, d.clone());
    p.lp.pit_token = LpToken::new(&[3; 12]).unwrap();
    p.lp.incoming_face_id = Some(9);
    let frames = encode(&mut ls, &c, &p).unwrap();
    assert_eq!(frames, vec![lp(|h| h.pit_token = Some(&[3; 12]), &d)]);
    let got = rx(&mut service(None, false), &c, frames[0].clone()).unwrap();
    assert_eq!((got.kind, got.wire), (PacketKind::Data, d));
    assert_eq!(got.lp.pit_token.as_bytes(), &[3; 12]);
    let s = snap(&c);
    assert_eq!((s.out_data, s.out_bytes), (1, frames[0].len() as u64));
}

#[test]
fn streams_never_fragment() {
    let c = FaceCounters::default();
    let mut ls = service(None, false);
    let big = data(8000);
    let frames = encode(&mut ls, &c, &tx(PacketKind::Data, big.clone())).unwrap();
    assert_eq!(frames, vec![big]);
    let huge = data(crate::MAX_FRAME_LEN);
    assert!(encode(&mut ls, &c, &tx(PacketKind::Data, huge)).is_none());
    assert_eq!(snap(&c).drops(DropReason::TxOverMtu), 1);
}

#[test]
fn packets_over_the_ndn_maximum_are_dropped() {
    let c = FaceCounters::default();
    let mut ls = service(None, false);
    let at_max = data(crate::MAX_PACKET_LEN - 64);
    assert!(at_max.len() <= crate::MAX_PACKET_LEN);
    assert!(rx(&mut ls, &c, at_max).is_some());
    let over = data(crate::MAX_PACKET_LEN);
    assert!(over.len() > crate::MAX_PACKET_LEN && over.len() <= crate::MAX_FRAME_LEN);
    assert!(rx(&mut ls, &c, over).is_none());
    assert_eq!(snap(&c).drops(DropReason::PacketTooLarge), 1);
}

/// Sends `wire` with a PIT token through an MTU and returns the frames.
fn fragments(mtu: usize, wire: &Bytes) -> Vec<Bytes> {
    let c = FaceCounters::default();
    let mut ls = service(Some(mtu), false);
    let mut p = tx(PacketKind::Data, wire.clone());
    p.lp.pit_token = LpToken::new(&[7; 32]).unwrap();
    encode(&mut ls, &c, &p).unwrap()
}

#[test]
fn fragments_fit_the_mtu_and_reassemble_in_any_order() {
    let d = data(8000);
    let frames = fragments(1500, &d);
    assert_eq!(frames.len(), 6);
    assert!(frames.iter().all(|f| f.len() <= 1500));
    for order in [
        vec![0, 1, 2, 3, 4, 5],
        vec![5, 4, 3, 2, 1, 0],
        vec![2, 0, 5, 1, 4, 3],
    ] {
        let (mut ls, c) = (service(None, false), FaceCounters::default());
        let mut got = Vec::new();
        for k in order {
            got.extend(rx(&mut ls, &c, frames[k].clone()));
        }
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].wire, d);
        assert_eq!(got[0].lp.pit_token.as_bytes(), &[7; 32]);
        assert_eq!(ls.reassembly_usage(), (0, 0));
    }
    // An MTU too small for the first fragment's fields.
    let c = FaceCounters::default();
    let mut ls = service(Some(60), false);
    let mut p = tx(PacketKind::Data, d);
    p.lp.pit_token = LpToken::new(&[7; 32]).unwrap();
    assert!(encode(&mut ls, &c, &p).is_none());
    assert_eq!(snap(&c).drops(DropReason::TxOverMtu), 1);
}

#[test]
fn missing_fragment_times_out_and_frees_the_buffer() {
    let d = data(5000);
    let frames = fragments(1200, &d);
    let (mut ls, c) = (service(None, false), FaceCounters::default());
    for f in frames.iter().skip(1) {
        assert!(ls.decode(10, FACE, 0, f.clone(), &c).is_none());
    }
    assert_eq!(ls.reassembly_usage().0, 1);
    assert!(ls.reassembly_usage().1 > 3000);
    let timeout = ReassemblyLimits::default().timeout;
    ls.expire(10 + timeout - 1, &c);
    assert_eq!(ls.reassembly_usage().0, 1);
    ls.expire(10 + timeout, &c);
    assert_eq!(ls.reassembly_usage(), (0, 0));
    assert_eq!(snap(&c).drops(DropReason::ReassemblyTimeout), 1);
    // The late first fragment now starts a new partial packet instead of completing.
    assert!(ls
        .decode(10 + timeout, FACE, 0, frames[0].clone(), &c)
        .is_none());
}

#[test]
fn bad_fragments_are_counted() {
    let d = data(3000);
    let frames = fragments(1200, &d);
    let (mut ls, c) = (service(None, false), FaceCounters::default());
    // Duplicate.
    assert!(rx(&mut ls, &c, frames[1].clone()).is_none());
    assert!(rx(&mut ls, &c, frames[1].clone()).is_none());
    // No Sequence.
    let no_seq = lp(
        |h| {
            h.frag_index = Some(0);
            h.frag_count = Some(2);
        },
        &[1, 2, 3],
    );
    assert!(rx(&mut ls, &c, no_seq).is_none());
    // FragCount over the limit.
    let many = lp(
        |h| {
            h.sequence = Some(1);
            h.frag_index = Some(0);
            h.frag_count = Some(401);
        },
        &[1, 2, 3],
    );
    assert!(rx(&mut ls, &c, many).is_none());
    // FragCount changing within one message.
    let changed = lp(
        |h| {
            h.sequence = Some(1000 + 2);
            h.frag_index = Some(2);
            h.frag_count = Some(9);
        },
        &[1],
    );
    assert!(rx(&mut ls, &c, changed).is_none());
    assert_eq!(snap(&c).drops(DropReason::BadFragment), 4);
    // The genuine packet still completes.
    let mut got = Vec::new();
    for f in [&frames[0], &frames[2]] {
        got.extend(rx(&mut ls, &c, f.clone()));
    }
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].wire, d);
}

#[test]
fn flood_of_incomplete_fragments_stays_bounded() {
    let limits = ReassemblyLimits::default();
    let (mut ls, c) = (service(None, false), FaceCounters::default());
    // 10 000 first fragments of 3-fragment messages that never complete, 1000 bytes each.
    for k in 0..10_000u64 {
        let f = lp(
            |h| {
                h.sequence = Some(k * 3);
                h.frag_index = Some(0);
                h.frag_count = Some(3);
            },
            &[0xee; 1000],
        );
        assert!(ls.decode(k, FACE, 0, f, &c).is_none());
        let (n, bytes) = ls.reassembly_usage();
        assert!(n <= limits.max_partials && bytes <= limits.max_bytes);
    }
    let s = snap(&c);
    assert_eq!(
        s.drops(DropReason::ReassemblyFull),
        10_000 - limits.max_partials as u64
    );
    // A genuine packet arriving back to back still gets through.
    let d = data(4000);
    let mut got = Vec::new();
    for f in fragments(1500, &d) {
        got.extend(ls.decode(20_000, FACE, 1, f, &c));
    }
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].wire, d);
}

#[test]
fn byte_budget_evicts_oldest() {
    let limits = ReassemblyLimits {
        max_bytes: 2500,
        ..ReassemblyLimits::default()
    };
    let cfg = LinkConfig {
        mtu: None,
        local_fields: false,
        reassembly: limits,
    };
    let (mut ls, c) = (LinkService::new(cfg, 0), FaceCounters::default());
    for k in 0..3u64 {
        let f = lp(
            |h| {
                h.sequence = Some(k * 10);
                h.frag_index = Some(0);
                h.frag_count = Some(2);
            },
            &[1; 1000],
        );
        assert!(ls.decode(k, FACE, 0, f, &c).is_none());
    }
    assert_eq!(ls.reassembly_usage(), (2, 2000));
    assert_eq!(snap(&c).drops(DropReason::ReassemblyFull), 1);
    // The oldest (sequence 0) is gone: its second fragment starts a fresh partial packet.
    let f = lp(
        |h| {
            h.sequence = Some(1);
            h.frag_index = Some(1);
            h.frag_count = Some(2);
        },
        &[1; 10],
    );
    assert!(ls.decode(5, FACE, 0, f, &c).is_none());
    assert_eq!(ls.reassembly_usage(), (3, 2010));
}

/// Frames the fast path takes (`lp::decode_common`) decode exactly as through the general
/// decoder: the same frame with an ignorable field 956, which only the general decoder reads,
/// gives the same packet and the same counters.
#[test]
fn fast_path_matches_the_general_decoder() {
    let (i, d) = (interest(), data(100));
    let nack_no_route: &[u8] = &[0xfd, 3, 0x20, 5, 0xfd, 3, 0x21, 1, 150];
    let cases: [(&[u8], &Bytes); 7] = [
        (&[], &i),
        (&[98, 2, 0xaa, 0xbb], &i),
        (&[98, 2, 0xaa, 0xbb], &d),
        (nack_no_route, &i),
        (&[0xfd, 3, 0x20, 0], &d), // a Nack around Data: bad_lp either way
        (&[98, 1, 7, 0xfd, 3, 0x40, 1, 1], &i),
        (&[98, 1, 7, 0xfd, 3, 0x20, 0, 0xfd, 3, 0x40, 1, 1], &i),
    ];
    for (fields, pkt) in cases {
        let frame = |extra: &[u8]| {
            let mut v = [fields, extra].concat();
            tlv::write_tlv(&mut v, tt::FRAGMENT, pkt);
            let mut out = Vec::new();
            tlv::write_tlv(&mut out, tt::LP_PACKET, &v);
            Bytes::from(out)
        };
        let (fast, general) = (frame(&[]), frame(&[0xfd, 3, 0xbc, 0]));
        assert!(lp::decode_common(&fast).is_some(), "{fields:02x?}");
        assert!(lp::decode_common(&general).is_none());
        let (mut a, ca) = (service(None, false), FaceCounters::default());
        let (mut b, cb) = (service(None, false), FaceCounters::default());
        let pa = rx(&mut a, &ca, fast).map(|p| (p.kind, p.wire, p.lp));
        let pb = rx(&mut b, &cb, general).map(|p| (p.kind, p.wire, p.lp));
        assert_eq!(pa, pb, "{fields:02x?}");
        let count = |s: CounterSnapshot| {
            let d = s.drops(DropReason::BadLp);
            (s.in_interests, s.in_data, s.in_nacks, d)
        };
        assert_eq!(count(snap(&ca)), count(snap(&cb)));
    }
}
