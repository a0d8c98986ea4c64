use super::common::{token_frame, token_frame_long, walk_common};
use super::*;
use crate::fixtures::{DATA_FULL, INTEREST_FULL, INTEREST_PARAMS, LP_DATA, NACK_NO_ROUTE};

fn lp(value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    tlv::write_tlv(&mut out, tt::LP_PACKET, value);
    out
}

/// The Fragment element around `pkt`.
fn frag(pkt: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    tlv::write_tlv(&mut out, tt::FRAGMENT, pkt);
    out
}

#[test]
fn decodes_python_ndn_nack_and_lp_packet() {
    let nack = decode_link_packet(&NACK_NO_ROUTE).unwrap();
    assert_eq!(nack.nack(), Some(Some(NackReason::NoRoute)));
    assert_eq!(nack.payload_range, 13..NACK_NO_ROUTE.len());
    match nack.payload {
        Payload::Interest(i) => assert_eq!(i.wire(), INTEREST_PARAMS),
        other => panic!("{other:?}"),
    }
    let l = decode_link_packet(&LP_DATA).unwrap();
    assert_eq!(l.headers.pit_token, Some(&[0xaa, 0xbb, 0xcc, 0xdd][..]));
    assert_eq!(l.headers.incoming_face_id, Some(300));
    assert_eq!(l.headers.congestion_mark, Some(1));
    assert_eq!(l.nack(), None);
    assert!(matches!(l.payload, Payload::Data(d) if d.wire() == DATA_FULL));
    assert_eq!(&LP_DATA[l.payload_range], DATA_FULL);
}

#[test]
fn builder_reproduces_python_ndn_bytes() {
    let nack = LpPacketBuilder::new().nack(Some(NackReason::NoRoute));
    assert_eq!(nack.encode(Some(&INTEREST_PARAMS)).unwrap(), NACK_NO_ROUTE);
    let token = [0xaa, 0xbb, 0xcc, 0xdd];
    let mut b = LpPacketBuilder::new().pit_token(&token);
    b.headers_mut().incoming_face_id = Some(300);
    b.headers_mut().congestion_mark = Some(1);
    assert_eq!(b.encode(Some(&DATA_FULL)).unwrap(), LP_DATA);
    let view = LpPacket::new_checked(&LP_DATA).unwrap();
    let again = LpPacketBuilder::from_headers(view.headers());
    assert_eq!(again.encode(view.fragment()).unwrap(), LP_DATA);
}

#[test]
fn every_header_field_round_trips() {
    let token = [7u8; 32];
    let pa = [6u8, 0];
    let mut b = LpPacketBuilder::new()
        .pit_token(&token)
        .nack(Some(NackReason::Other(7)))
        .ack(1)
        .ack(u64::MAX);
    *b.headers_mut() = LpHeaders {
        sequence: Some(0x0102_0304_0506_0708),
        frag_index: Some(0),
        frag_count: Some(1),
        incoming_face_id: Some(u32::MAX),
        next_hop_face_id: Some(0),
        cache_policy: Some(1),
        congestion_mark: Some(2),
        tx_sequence: Some(9),
        non_discovery: true,
        prefix_announcement: Some(&pa),
        ..*b.headers_mut()
    };
    let wire = b.encode(Some(&INTEREST_FULL)).unwrap();
    let p = decode_link_packet(&wire).unwrap();
    let h = p.headers;
    assert_eq!(h.sequence, Some(0x0102_0304_0506_0708));
    assert_eq!((h.frag_index, h.frag_count), (Some(0), Some(1)));
    assert_eq!(h.pit_token, Some(&token[..]));
    assert_eq!(h.nack, Some(Some(NackReason::Other(7))));
    assert_eq!(
        (h.incoming_face_id, h.next_hop_face_id),
        (Some(u32::MAX), Some(0))
    );
    assert_eq!(
        (h.cache_policy, h.congestion_mark, h.tx_sequence),
        (Some(1), Some(2), Some(9))
    );
    assert_eq!(h.acks.iter().collect::<Vec<_>>(), [1, u64::MAX]);
    assert!(h.non_discovery);
    assert_eq!(h.prefix_announcement, Some(&pa[..]));
    assert!(matches!(p.payload, Payload::Interest(i) if i.wire() == INTEREST_FULL));
    // A Nack without a reason.
    let wire = LpPacketBuilder::new()
        .nack(None)
        .encode(Some(&INTEREST_FULL))
        .unwrap();
    assert_eq!(&wire[2..6], [0xfd, 0x03, 0x20, 0x00]);
    assert_eq!(decode_link_packet(&wire).unwrap().nack(), Some(None));
}

#[test]
fn bare_idle_and_fragmented_packets() {
    let bare = decode_link_packet(&INTEREST_FULL).unwrap();
    assert_eq!(bare.headers, LpHeaders::default());
    assert_eq!(bare.payload_range, 0..INTEREST_FULL.len());
    assert!(matches!(
        decode_link_packet(&DATA_FULL).unwrap().payload,
        Payload::Data(_)
    ));
    let idle = LpPacketBuilder::new().ack(5).encode(None).unwrap();
    let p = decode_link_packet(&idle).unwrap();
    assert_eq!((p.payload, p.payload_range), (Payload::Idle, 0..0));
    assert_eq!(decode_link_packet(&lp(&[])).unwrap().payload, Payload::Idle);
    // FragCount > 1: the fragment is handed back undecoded.
    let mut b = LpPacketBuilder::new();
    b.headers_mut().sequence = Some(1);
    b.headers_mut().frag_index = Some(1);
    b.headers_mut().frag_count = Some(2);
    let wire = b.encode(Some(&INTEREST_FULL[10..])).unwrap();
    let p = decode_link_packet(&wire).unwrap();
    assert!(p.headers.is_fragmented());
    assert_eq!(p.payload, Payload::Fragment(&INTEREST_FULL[10..]));
    assert_eq!(&wire[p.payload_range], &INTEREST_FULL[10..]);
}

#[test]
fn header_order_and_ignorable_fields() {
    let f = frag(&INTEREST_FULL);
    let with = |headers: &[u8]| lp(&[headers, &f].concat());
    let seq = [81u8, 8, 0, 0, 0, 0, 0, 0, 0, 1];
    let token = [98u8, 1, 0xaa];
    // Ignorable unknown field (852) is skipped; a non-ignorable one (801, 84) is an error.
    let ok = with(&[&token[..], &[0xfd, 0x03, 0x54, 0]].concat());
    assert!(decode_link_packet(&ok).is_ok());
    let e = with(&[0xfd, 0x03, 0x21, 0]);
    assert_eq!(
        decode_link_packet(&e),
        Err(DecodeError::UnknownCritical(801))
    );
    assert_eq!(
        decode_link_packet(&with(&[84, 0])),
        Err(DecodeError::UnknownCritical(84))
    );
    // Decreasing types, a repeated non-Ack field, a field after the Fragment.
    let e = with(&[&token[..], &seq].concat());
    assert_eq!(decode_link_packet(&e), Err(DecodeError::OutOfOrder(81)));
    let e = with(&[&token[..], &token].concat());
    assert_eq!(decode_link_packet(&e), Err(DecodeError::OutOfOrder(98)));
    let e = lp(&[&f[..], &token].concat());
    assert_eq!(decode_link_packet(&e), Err(DecodeError::OutOfOrder(98)));
    let e = lp(&[&f[..], &f].concat());
    assert_eq!(decode_link_packet(&e), Err(DecodeError::OutOfOrder(80)));
    // Acks repeat only back to back.
    let ack = [0xfd, 0x03, 0x44, 8, 0, 0, 0, 0, 0, 0, 0, 3];
    let tx = [0xfd, 0x03, 0x48, 8, 0, 0, 0, 0, 0, 0, 0, 4];
    let ok = with(&[&ack[..], &ack].concat());
    let acks: Vec<u64> = decode_link_packet(&ok)
        .unwrap()
        .headers
        .acks
        .iter()
        .collect();
    assert_eq!(acks, [3, 3]);
    let e = with(&[&ack[..], &tx, &ack].concat());
    assert_eq!(decode_link_packet(&e), Err(DecodeError::OutOfOrder(836)));
}

#[test]
fn malformed_fields() {
    let f = frag(&INTEREST_FULL);
    let with = |headers: &[u8]| lp(&[headers, &f].concat());
    let cases: [(&[u8], DecodeError); 10] = [
        (&[81, 4, 0, 0, 0, 1], DecodeError::Invalid(81)),
        (&[98, 0], DecodeError::Invalid(98)),
        (&[82, 1, 1], DecodeError::Invalid(82)),
        (&[82, 1, 2, 83, 1, 2], DecodeError::Invalid(82)),
        (&[83, 1, 0], DecodeError::Invalid(83)),
        (
            &[0xfd, 3, 0x2c, 8, 0, 0, 0, 1, 0, 0, 0, 0],
            DecodeError::Invalid(812),
        ),
        (&[0xfd, 3, 0x20, 2, 24, 0], DecodeError::Invalid(800)),
        (&[0xfd, 3, 0x34, 0], DecodeError::Missing(821)),
        (&[0xfd, 3, 0x4c, 1, 0], DecodeError::Invalid(844)),
        (
            &[0xfd, 3, 0x40, 3, 0, 0, 1],
            DecodeError::BadNonNegativeInteger,
        ),
    ];
    for (headers, err) in cases {
        assert_eq!(decode_link_packet(&with(headers)), Err(err), "{headers:?}");
    }
    let mut long = vec![98u8, 33];
    long.extend_from_slice(&[1; 33]);
    assert_eq!(
        decode_link_packet(&with(&long)),
        Err(DecodeError::Invalid(98))
    );
    // Payload rules: a Nack needs an Interest; a fragment must be a network packet.
    let nack = [0xfd, 3, 0x20, 0];
    let e = lp(&[&nack[..], &frag(&DATA_FULL)].concat());
    assert_eq!(decode_link_packet(&e), Err(DecodeError::Invalid(800)));
    assert_eq!(
        decode_link_packet(&lp(&nack)),
        Err(DecodeError::Invalid(800))
    );
    let e = lp(&frag(&[100, 0]));
    assert_eq!(
        decode_link_packet(&e),
        Err(DecodeError::UnexpectedType(100))
    );
    assert_eq!(
        decode_link_packet(&lp(&[80, 0])),
        Err(DecodeError::Invalid(80))
    );
    assert_eq!(
        decode_link_packet(&[7, 0]),
        Err(DecodeError::UnexpectedType(7))
    );
    assert_eq!(decode_link_packet(&[]), Err(DecodeError::Truncated));
    // The builder refuses what the decoder would refuse.
    let long_token = [0u8; 33];
    let b = LpPacketBuilder::new().pit_token(&long_token);
    assert_eq!(b.encode(None), Err(DecodeError::Invalid(98)));
    assert_eq!(
        LpPacketBuilder::new().encode(Some(&[])),
        Err(DecodeError::Invalid(80))
    );
    let mut b = LpPacketBuilder::new();
    b.headers_mut().frag_index = Some(3);
    assert_eq!(b.encode(None), Err(DecodeError::Invalid(82)));
}

#[test]
fn nack_reason_codes() {
    for (code, r) in [
        (50, NackReason::Congestion),
        (100, NackReason::Duplicate),
        (150, NackReason::NoRoute),
        (0, NackReason::Other(0)),
        (151, NackReason::Other(151)),
    ] {
        assert_eq!(NackReason::from_code(code), r);
        assert_eq!(r.code(), code);
    }
}

/// What the general decoder says about a frame `decode_common` accepted: the same fields, no
/// other, unfragmented, and the same payload (a single Interest or Data TLV).
fn assert_general_agrees(wire: &[u8], c: &CommonFrame<'_>) {
    let payload = wire.get(c.payload.clone()).unwrap();
    assert_eq!(tlv::read_single(payload).unwrap().typ, c.net_type);
    if c.payload == (0..wire.len()) {
        assert_eq!(c.fields, CommonFields::default());
        assert_ne!(tlv::read_single(wire).unwrap().typ, tt::LP_PACKET);
        return;
    }
    let lp = LpPacket::new_checked(wire).unwrap();
    assert_eq!(lp.headers(), &LpHeaders::from(c.fields));
    assert_eq!(lp.fragment_range(), Some(c.payload.clone()));
}

#[test]
fn common_frames_take_the_fast_path_and_agree_with_the_general_decoder() {
    let token = [0xaa, 0xbb, 0xcc, 0xdd];
    let long_token = [7u8; MAX_PIT_TOKEN_LEN];
    let big = crate::DataBuilder::new("/big".parse().unwrap())
        .content(vec![0x5a; 8000])
        .encode()
        .unwrap();
    let frames = [
        (INTEREST_FULL.to_vec(), CommonFields::default()),
        (DATA_FULL.to_vec(), CommonFields::default()),
        (
            NACK_NO_ROUTE.to_vec(),
            CommonFields {
                nack: Some(Some(NackReason::NoRoute)),
                ..CommonFields::default()
            },
        ),
        (
            LpPacketBuilder::new()
                .pit_token(&token)
                .encode(Some(&DATA_FULL))
                .unwrap(),
            CommonFields {
                pit_token: Some(&token[..]),
                ..CommonFields::default()
            },
        ),
        (
            LpPacketBuilder::new()
                .pit_token(&long_token)
                .encode(Some(&big))
                .unwrap(),
            CommonFields {
                pit_token: Some(&long_token[..]),
                ..CommonFields::default()
            },
        ),
        (
            {
                let mut b = LpPacketBuilder::new().pit_token(&token).nack(None);
                b.headers_mut().congestion_mark = Some(0x1234);
                b.encode(Some(&INTEREST_FULL)).unwrap()
            },
            CommonFields {
                pit_token: Some(&token[..]),
                nack: Some(None),
                congestion_mark: Some(0x1234),
            },
        ),
    ];
    for (wire, fields) in &frames {
        let c = decode_common(wire).unwrap_or_else(|| panic!("fast path refused {wire:02x?}"));
        assert_eq!(&c.fields, fields);
        assert_general_agrees(wire, &c);
    }
}

#[test]
fn other_shapes_and_malformed_frames_are_left_to_the_general_decoder() {
    let token = [1u8, 2];
    let with = |headers: &[u8]| lp(&[headers, &frag(&INTEREST_FULL)].concat());
    let cases: Vec<Vec<u8>> = vec![
        LP_DATA.to_vec(),          // IncomingFaceId: a field outside the common set
        lp(&[]),                   // idle
        lp(&[98, 2, 1, 2]),        // idle with a token
        with(&[0xfd, 3, 0x24, 0]), // ignorable unknown field 804
        with(&[0xfd, 3, 0x20, 4, 0xfd, 3, 0x21, 1, 150, 0]), // Nack with a trailing child
        with(&[98, 0]),            // empty token
        with(&[0xfd, 3, 0x40, 0]), // CongestionMark without a value
        with(&[0xfd, 3, 0x20, 0, 98, 2, 1, 2]), // out of order
        with(&[98, 2, 1, 2, 98, 2, 1, 2]), // repeated token
        lp(&[&frag(&INTEREST_FULL)[..], &[98, 2, 1, 2]].concat()), // field after the Fragment
        lp(&frag(&[&INTEREST_FULL[..], &[0]].concat())), // trailing byte in the Fragment
        lp(&frag(&[7, 0])),        // Fragment that is no network packet
        lp(&[80, 0]),              // empty Fragment
        [&INTEREST_FULL[..], &[0]].concat(), // trailing byte after a bare packet
        vec![7, 0],                // bare packet of another type
        LpPacketBuilder::new()
            .pit_token(&token)
            .encode(Some(&INTEREST_FULL))
            .unwrap()[..INTEREST_FULL.len()]
            .to_vec(), // truncated
        vec![],
    ];
    let mut b = LpPacketBuilder::new().pit_token(&token);
    let h = b.headers_mut();
    h.frag_index = Some(0);
    h.frag_count = Some(2);
    h.sequence = Some(9);
    let fragmented = b.encode(Some(&INTEREST_FULL)).unwrap();
    for wire in cases.iter().chain([&fragmented]) {
        assert_eq!(decode_common(wire), None, "{wire:02x?}");
    }
}

/// True when the general decoder reads `wire` as the common token frame: only a PitToken,
/// unfragmented, around one Interest or Data TLV.
fn general_token_frame(wire: &[u8]) -> bool {
    let Ok(lp) = LpPacket::new_checked(wire) else {
        return false;
    };
    let only_token = LpHeaders {
        pit_token: lp.headers().pit_token,
        ..LpHeaders::default()
    };
    lp.headers().pit_token.is_some()
        && lp.headers() == &only_token
        && lp.fragment().is_some_and(|f| {
            tlv::read_single(f).is_ok_and(|e| e.typ == tt::INTEREST || e.typ == tt::DATA)
        })
}

#[test]
fn token_frames_across_the_one_byte_length_limits_and_every_byte_changed() {
    for t in [1, 8, MAX_PIT_TOKEN_LEN] {
        let token = vec![0x5c; t];
        for n in 150..=260 {
            let data = crate::DataBuilder::new("/t".parse().unwrap())
                .content(vec![1; n])
                .encode()
                .unwrap();
            let wire = LpPacketBuilder::new()
                .pit_token(&token)
                .encode(Some(&data))
                .unwrap();
            let c = decode_common(&wire).unwrap_or_else(|| panic!("refused t={t} n={n}"));
            assert_eq!(c.fields.pit_token, Some(&token[..]));
            assert_general_agrees(&wire, &c);
        }
    }
    // Every byte of a small token frame replaced by values that matter to the fixed-offset
    // reader: whatever the fast path answers, the general decoder agrees, and a frame the
    // general decoder reads as a token frame is never refused.
    let wire = LpPacketBuilder::new()
        .pit_token(&[9, 8, 7])
        .encode(Some(&INTEREST_FULL))
        .unwrap();
    for i in 0..wire.len() {
        for v in [0u8, 1, 2, 5, 6, 32, 33, 80, 98, 100, 252, 253, 255] {
            let mut w = wire.clone();
            w[i] = v;
            for w in [&w[..], &w[..w.len() - 1]] {
                match decode_common(w) {
                    Some(c) => assert_general_agrees(w, &c),
                    None => assert!(!general_token_frame(w), "refused {w:02x?}"),
                }
            }
        }
    }
}

/// The three-byte-length token frame: every size across the one/three-byte boundaries of the
/// LpPacket, Fragment and network lengths (and an 8 KB Data) is read, with the general walk's
/// answer; with header bytes changed or the frame cut short it answers only where the walk
/// gives the same answer; and a non-minimal length (which the walk refuses) is refused.
#[test]
fn long_token_frames_agree_with_the_general_walk() {
    let data = |n: usize| {
        crate::DataBuilder::new("/t".parse().unwrap())
            .content(vec![1; n])
            .encode()
            .unwrap()
    };
    for t in [1, 8, MAX_PIT_TOKEN_LEN] {
        let token = vec![0x5c; t];
        for n in (150..=300).chain([1000, 8000]) {
            let wire = LpPacketBuilder::new()
                .pit_token(&token)
                .encode(Some(&data(n)))
                .unwrap();
            let c = token_frame_long(&wire).unwrap_or_else(|| panic!("refused t={t} n={n}"));
            assert_eq!(Some(&c), walk_common(&wire).as_ref(), "t={t} n={n}");
            assert_general_agrees(&wire, &c);
        }
    }
    let wire = LpPacketBuilder::new()
        .pit_token(&[9; 8])
        .encode(Some(&data(300)))
        .unwrap();
    assert!(token_frame(&wire).is_none() && token_frame_long(&wire).is_some());
    for i in 0..24 {
        for v in [
            0u8, 1, 2, 5, 6, 7, 8, 32, 33, 80, 98, 100, 252, 253, 254, 255,
        ] {
            let mut w = wire.clone();
            w[i] = v;
            for w in [&w[..], &w[..w.len() - 1]] {
                if let Some(c) = token_frame_long(w) {
                    assert_eq!(Some(&c), walk_common(w).as_ref(), "{:02x?}", &w[..24]);
                    assert_general_agrees(w, &c);
                }
            }
        }
    }
    // A one-byte outer length rewritten as 253 and two bytes: not minimal, so not read.
    let small = LpPacketBuilder::new()
        .pit_token(&[9, 8, 7])
        .encode(Some(&INTEREST_FULL))
        .unwrap();
    assert!(small[1] < 253);
    let mut long = vec![small[0], 253, 0, small[1]];
    long.extend_from_slice(&small[2..]);
    assert_eq!(token_frame_long(&small), token_frame(&small));
    assert_eq!(token_frame_long(&long), None);
    assert_eq!(walk_common(&long), None);
}
