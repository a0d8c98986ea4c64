//! Property tests of the link service against a trivial model: whatever the packet size, MTU,
//! fragment order and loss, a packet comes out exactly once, unchanged, with its LP fields,
//! if and only if every fragment arrived; otherwise the timeout frees every buffered byte. A
//! packet with a byte patch encodes to exactly the frames of its patched copy.

use bytes::Bytes;
use ndn_packet::link::{BytePatch, LpToken, PacketKind, TxLp, TxPacket};
use ndn_packet::lp::NackReason;
use ndn_packet::{DataBuilder, FaceId, InterestBuilder, Name};
use ndnfwd_face::{DropReason, FaceCounters, LinkConfig, LinkService, ReassemblyLimits};
use proptest::prelude::*;

const FACE: FaceId = 1000;

fn packet(kind: PacketKind, size: usize) -> Bytes {
    let name = Name::from_uri("/prop").unwrap();
    match kind {
        PacketKind::Data => DataBuilder::new(name).content(vec![0xd7; size]).encode(),
        _ => InterestBuilder::new(name)
            .nonce([1; 4])
            .app_params(vec![0x17; size])
            .encode(),
    }
    .unwrap()
    .into()
}

fn encode(mtu: usize, p: &TxPacket) -> Vec<Bytes> {
    encode_on(Some(mtu), p)
}

/// Encodes `p` on a fresh link service with `mtu` (`None`: a stream face); every frame as
/// sent, its body's patch applied.
fn encode_on(mtu: Option<usize>, p: &TxPacket) -> Vec<Bytes> {
    let cfg = LinkConfig {
        mtu,
        local_fields: true,
        ..LinkConfig::default()
    };
    let mut ls = LinkService::new(cfg, u64::MAX - 3); // sequence numbers wrap around
    let (mut heads, mut frames) = (Vec::new(), Vec::new());
    assert!(ls.encode(
        &mut p.clone(),
        &mut heads,
        &mut frames,
        &FaceCounters::default()
    ));
    frames
        .iter()
        .map(|f| {
            assert!(
                f.len() <= mtu.unwrap_or(usize::MAX),
                "frame {} over MTU {mtu:?}",
                f.len()
            );
            let mut w = heads[f.head.clone()].to_vec();
            f.body_parts().iter().for_each(|p| w.extend_from_slice(p));
            Bytes::from(w)
        })
        .collect()
}

fn kind_strategy() -> impl Strategy<Value = PacketKind> {
    prop_oneof![
        Just(PacketKind::Interest),
        Just(PacketKind::Data),
        Just(PacketKind::Nack)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn round_trip_any_order_and_loss(
        size in 1usize..8700,
        mtu in 120usize..9200,
        kind in kind_strategy(),
        token in proptest::collection::vec(any::<u8>(), 0..=32),
        order_seed in any::<u64>(),
        lose in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let wire = packet(kind, size);
        let lp = TxLp {
            pit_token: LpToken::new(&token).unwrap(),
            nack: (kind == PacketKind::Nack).then_some(NackReason::Duplicate),
            congestion_mark: 0,
            incoming_face_id: None,
        };
        let p = TxPacket { face: FACE, kind, lp, wire: wire.clone(), patch: None };
        let mut frames = encode(mtu, &p);
        let n = frames.len();
        // A deterministic shuffle from the seed.
        let mut s = order_seed;
        for i in (1..n).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            frames.swap(i, (s >> 33) as usize % (i + 1));
        }
        let lost = lose.filter(|_| n > 1).map(|ix| ix.index(n));
        let c = FaceCounters::default();
        let mut rx = LinkService::new(LinkConfig::default(), 0);
        let mut got = Vec::new();
        for (i, f) in frames.into_iter().enumerate() {
            if Some(i) != lost {
                got.extend(rx.decode(5, FACE, 0, f, &c));
            }
        }
        if lost.is_some() {
            prop_assert!(got.is_empty());
            prop_assert_eq!(rx.reassembly_usage().0, 1);
            rx.expire(5 + ReassemblyLimits::default().timeout, &c);
            prop_assert_eq!(rx.reassembly_usage(), (0, 0));
            prop_assert_eq!(c.snapshot().drops(DropReason::ReassemblyTimeout), 1);
        } else {
            prop_assert_eq!(got.len(), 1);
            let g = &got[0];
            prop_assert_eq!(&g.wire, &wire);
            prop_assert_eq!(g.kind, kind);
            prop_assert_eq!(g.lp.pit_token, lp.pit_token);
            prop_assert_eq!(g.lp.nack, lp.nack.map(Some));
            prop_assert_eq!(rx.reassembly_usage(), (0, 0));
        }
        prop_assert!(c.snapshot().drop_counts().all(|(name, k)| k == 0 || name == "reassembly_timeout"));
    }

    /// A patched packet's frames are byte for byte those of its patched copy: bare, with
    /// LP fields, whole or fragmented at any MTU (the patched byte in any fragment, at either
    /// end of one), on a datagram or a stream face.
    #[test]
    fn patch_encodes_as_the_patched_copy(
        size in 0usize..4000,
        mtu in proptest::option::of(120usize..1600),
        kind in kind_strategy(),
        token in proptest::collection::vec(any::<u8>(), 0..=32),
        congestion_mark in prop_oneof![Just(0u64), any::<u64>()],
        incoming in proptest::option::of(any::<u32>()),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let wire = packet(kind, size);
        let (_, _, hdr) = ndn_packet::tlv::header(&wire).unwrap();
        let at = hdr + at.index(wire.len() - hdr);
        let lp = TxLp {
            pit_token: LpToken::new(&token).unwrap(),
            nack: (kind == PacketKind::Nack).then_some(NackReason::Duplicate),
            congestion_mark,
            incoming_face_id: incoming,
        };
        let p = TxPacket {
            face: FACE,
            kind,
            lp,
            wire: wire.clone(),
            patch: Some(BytePatch { at: at as u16, byte }),
        };
        let mut copy = wire.to_vec();
        copy[at] = byte;
        let plain = TxPacket { wire: Bytes::from(copy), patch: None, ..p.clone() };
        prop_assert_eq!(&p.sent_wire(), &plain.wire);
        prop_assert_eq!(encode_on(mtu, &p), encode_on(mtu, &plain));
    }

    /// Interleaved fragments of several packets from several senders on one multi-access
    /// face all come out whole.
    #[test]
    fn interleaved_senders(sizes in proptest::collection::vec(2000usize..8000, 1..6), seed in any::<u64>()) {
        let mut all = Vec::new();
        for (peer, &size) in sizes.iter().enumerate() {
            let wire = packet(PacketKind::Data, size);
            let p = TxPacket { face: FACE, kind: PacketKind::Data, lp: TxLp::default(), wire: wire.clone(), patch: None };
            // Every sender starts at the same sequence number: only the peer key tells them apart.
            all.extend(encode(1400, &p).into_iter().map(|f| (peer as u64, f)));
        }
        let mut s = seed;
        for i in (1..all.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            all.swap(i, (s >> 33) as usize % (i + 1));
        }
        let c = FaceCounters::default();
        let mut rx = LinkService::new(LinkConfig::default(), 0);
        let mut got: Vec<_> = all.into_iter().filter_map(|(peer, f)| rx.decode(0, FACE, peer, f, &c)).map(|p| p.wire.len()).collect();
        got.sort_unstable();
        let mut want: Vec<_> = sizes.iter().map(|&s| packet(PacketKind::Data, s).len()).collect();
        want.sort_unstable();
        prop_assert_eq!(got, want);
    }
}
