//! Property tests of the Interest, Data and NDNLPv2 codecs: generated packets decode to the
//! fields they were built from (the reference model is the generator's own field list), re-encode
//! to the same fields, and no byte string (random, or a mutated valid packet) makes a decoder
//! panic.

use ndn_packet::tlv::tt;
use ndn_packet::{
    decode_link_packet, Data, DataBuilder, DataSignature, Guiders, Interest, InterestBuilder,
    InterestSignature, LpPacket, LpPacketBuilder, NackReason, Name, NameHasher, NameRef, Payload,
    PrefixHashes, SipVariant,
};
use proptest::prelude::*;

fn arb_name(min: usize) -> impl Strategy<Value = Name> {
    let comp = (
        prop::sample::select(vec![8u32, 8, 8, 32, 50, 54, 1000, 65535]),
        prop::collection::vec(any::<u8>(), 0..10),
    );
    prop::collection::vec(comp, min..6).prop_map(|comps| {
        comps
            .into_iter()
            .fold(Name::new(), |n, (t, v)| n.push_typed(t, &v).unwrap())
    })
}

fn arb_signature() -> impl Strategy<Value = Option<InterestSignature>> {
    prop_oneof![
        Just(None),
        Just(Some(InterestSignature::DigestSha256)),
        (
            prop::collection::vec(any::<u8>(), 0..8),
            prop::option::of(prop::collection::vec(any::<u8>(), 0..40))
        )
            .prop_map(|(info, value)| Some(InterestSignature::Raw { info, value })),
    ]
}

prop_compose! {
    fn arb_interest()(
        name in arb_name(1),
        cbp in any::<bool>(),
        mbf in any::<bool>(),
        hint in prop::option::of(prop::collection::vec(arb_name(0), 0..3)),
        nonce in prop::option::of(any::<[u8; 4]>()),
        lifetime in prop::option::of(any::<u64>()),
        hop in prop::option::of(any::<u8>()),
        params in prop::option::of(prop::collection::vec(any::<u8>(), 0..64)),
        sig in arb_signature(),
    ) -> (Name, InterestBuilder, Option<Vec<u8>>, bool) {
        let mut b = InterestBuilder::new(name.clone()).can_be_prefix(cbp).must_be_fresh(mbf);
        if let Some(h) = hint { b = b.forwarding_hint(h); }
        if let Some(n) = nonce { b = b.nonce(n); }
        if let Some(l) = lifetime { b = b.lifetime_ms(l); }
        if let Some(h) = hop { b = b.hop_limit(h); }
        if let Some(p) = params.clone() { b = b.app_params(p); }
        let signed = sig.is_some();
        if let Some(s) = sig { b = b.signature(s); }
        (name, b, params, signed)
    }
}

prop_compose! {
    fn arb_data()(
        name in arb_name(0),
        ct in prop::option::of(any::<u64>()),
        fresh in prop::option::of(any::<u64>()),
        fbi in prop::option::of(arb_name(1)),
        content in prop::option::of(prop::collection::vec(any::<u8>(), 0..300)),
        raw in prop::option::of((any::<u8>(), prop::collection::vec(any::<u8>(), 0..64))),
    ) -> (DataBuilder, DataModel) {
        let model = DataModel {
            name: name.clone(),
            meta: (ct, fresh, fbi.as_ref().map(|f| f.as_ref().get(0).unwrap().wire().to_vec())),
            content: content.clone(),
            sig_type: raw.as_ref().map_or(0, |(t, _)| u64::from(*t)),
        };
        let mut b = DataBuilder::new(name);
        if let Some(t) = ct { b = b.content_type(t); }
        if let Some(f) = fresh { b = b.freshness_period(f); }
        if let Some(f) = fbi { b = b.final_block_id(f.as_ref().get(0).unwrap()); }
        if let Some(c) = content { b = b.content(c); }
        if let Some((t, value)) = raw {
            b = b.signature(DataSignature::Raw { info: vec![27, 1, t], value });
        }
        (b, model)
    }
}

/// The reference model of a generated Data packet.
#[derive(Debug, PartialEq)]
struct DataModel {
    name: Name,
    /// ContentType, FreshnessPeriod, FinalBlockId component TLV.
    meta: (Option<u64>, Option<u64>, Option<Vec<u8>>),
    content: Option<Vec<u8>>,
    sig_type: u64,
}

/// Every field of a decoded Interest, with the ParametersSha256DigestComponent zeroed: what
/// must survive a decode -> encode -> decode round trip (the digest is recomputed over the
/// re-encoded parameters, which drop unrecognized elements).
#[derive(Debug, PartialEq)]
struct InterestFields {
    name: Name,
    flags: (bool, bool),
    hint: Option<Vec<Name>>,
    guiders: (Option<[u8; 4]>, Option<u64>, Option<u8>),
    params: Option<Vec<u8>>,
    signature: (Option<Vec<u8>>, Option<Vec<u8>>),
}

fn interest_fields(i: &Interest<'_>) -> InterestFields {
    let zero = [0u8; 32];
    let name = i.name().components().fold(Name::new(), |n, c| {
        let digest = c.typ() == tt::PARAMETERS_SHA256_DIGEST_COMPONENT;
        n.push_typed(c.typ(), if digest { &zero[..] } else { c.value() })
            .unwrap()
    });
    InterestFields {
        name,
        flags: (i.can_be_prefix(), i.must_be_fresh()),
        hint: i
            .has_forwarding_hint()
            .then(|| i.forwarding_hint().map(|n| n.to_name()).collect()),
        guiders: (i.nonce(), i.lifetime(), i.hop_limit()),
        params: i.app_params().map(<[u8]>::to_vec),
        signature: (
            i.signature_info().map(<[u8]>::to_vec),
            i.signature_value().map(<[u8]>::to_vec),
        ),
    }
}

/// SipHash-128 of `bytes` under the key `[7; 16]`, from the `siphasher` crate.
fn reference(variant: SipVariant, bytes: &[u8]) -> u128 {
    use core::hash::Hasher;
    use siphasher::sip128::{Hasher128, SipHasher13, SipHasher24};
    let k = u64::from_le_bytes([7; 8]);
    let h = match variant {
        SipVariant::Sip13 => {
            let mut h = SipHasher13::new_with_keys(k, k);
            h.write(bytes);
            h.finish128()
        }
        SipVariant::Sip24 => {
            let mut h = SipHasher24::new_with_keys(k, k);
            h.write(bytes);
            h.finish128()
        }
    };
    u128::from(h.h2) << 64 | u128::from(h.h1)
}

/// The decoders that hash the name in their own walk (`new_checked_hashed`, `new_checked_id`)
/// accept exactly what `new_checked` accepts, give the same view, and leave every prefix's
/// hashes (the Data's: its whole name's identity) equal to the reference SipHash-128 of the
/// prefix's TLV-VALUE. `out` starts with another name's hashes,
/// partly read, so a stale prefix or cache cell would show.
fn check_hashed_decoders(bytes: &[u8]) {
    for variant in [SipVariant::Sip13, SipVariant::Sip24] {
        let h = NameHasher::new([7; 16], variant);
        let stale = Name::from_uri("/stale/name/with/four").unwrap();
        let mut out = PrefixHashes::default();
        let check = |out: &PrefixHashes, name: Option<NameRef<'_>>| {
            let Some(name) = name else { return };
            assert_eq!(out.len(), name.len() + 1);
            for i in 0..out.len() {
                let want = reference(variant, name.prefix(i).value());
                // Table hash first on odd prefixes, identity first on even ones.
                if i % 2 == 1 {
                    assert_eq!(out.get(i), Some(want as u64));
                }
                assert_eq!(out.id128(i), Some(want));
                assert_eq!(out.get(i), Some(want as u64));
            }
        };
        h.hash_prefixes(stale.as_ref(), &mut out);
        (0..out.len()).step_by(2).for_each(|i| {
            out.get(i);
        });
        let i = Interest::new_checked_hashed(bytes, &h, &mut out);
        assert_eq!(i, Interest::new_checked(bytes));
        check(&out, i.ok().map(|i| i.name()));
        // The Data decoder hashes the whole name only: its identity is the last prefix's.
        let d = Data::new_checked_id(bytes, &h);
        assert_eq!(d.map(|(d, _)| d), Data::new_checked(bytes));
        if let Ok((d, id)) = d {
            let name = d.name();
            assert_eq!(id.components(), name.len());
            assert_eq!(id.id128(), reference(variant, name.value()));
            assert_eq!(id.hash(), reference(variant, name.value()) as u64);
            assert_eq!(id, h.name_id(name));
        }
    }
}

/// Every decoder on `bytes`; whenever one succeeds, re-encoding gives the same fields.
fn check_any_bytes(bytes: &[u8]) {
    check_hashed_decoders(bytes);
    if let Ok(i) = Interest::new_checked(bytes) {
        let again = InterestBuilder::from_view(&i).encode().unwrap();
        let j = Interest::new_checked(&again).unwrap();
        assert_eq!(interest_fields(&i), interest_fields(&j));
    }
    if let Ok(d) = Data::new_checked(bytes) {
        let again = DataBuilder::from_view(&d).encode().unwrap();
        let e = Data::new_checked(&again).unwrap();
        assert_eq!(DataBuilder::from_view(&d), DataBuilder::from_view(&e));
    }
    if let Ok(p) = LpPacket::new_checked(bytes) {
        let again = LpPacketBuilder::from_headers(p.headers())
            .encode(p.fragment())
            .unwrap();
        let q = LpPacket::new_checked(&again).unwrap();
        assert_eq!(p.headers(), q.headers());
        assert_eq!(p.fragment(), q.fragment());
    }
    let _ = decode_link_packet(bytes);
}

proptest! {
    #[test]
    fn interests_decode_to_their_fields((name, b, params, signed) in arb_interest()) {
        let wire = b.encode().unwrap();
        let i = Interest::new_checked(&wire).unwrap();
        prop_assert_eq!(i.name().prefix(name.len()), name.as_ref());
        let with_params = params.is_some() || signed;
        prop_assert_eq!(i.name().len(), name.len() + usize::from(with_params));
        prop_assert_eq!(i.app_params().is_some(), with_params);
        if let Some(p) = &params {
            prop_assert_eq!(i.app_params(), Some(p.as_slice()));
        }
        prop_assert_eq!(i.signature_info().is_some(), signed);
        // Rebuilding from the view gives the same bytes.
        let again = InterestBuilder::from_view(&i).encode().unwrap();
        prop_assert_eq!(&again, &wire);
        check_any_bytes(&wire);
    }

    #[test]
    fn guider_rewrite_equals_building_with_new_guiders(
        (_, b, _, _) in arb_interest(),
        nonce in prop::option::of(any::<[u8; 4]>()),
        lifetime in prop::option::of(any::<u64>()),
        hop in prop::option::of(any::<u8>()),
    ) {
        let wire = b.encode().unwrap();
        let i = Interest::new_checked(&wire).unwrap();
        let mut out = Vec::new();
        i.write_with_guiders(&Guiders { nonce, lifetime_ms: lifetime, hop_limit: hop }, &mut out);
        let mut expect = b.clone();
        if let Some(n) = nonce { expect = expect.nonce(n); }
        if let Some(l) = lifetime { expect = expect.lifetime_ms(l); }
        if let Some(h) = hop { expect = expect.hop_limit(h); }
        prop_assert_eq!(out, expect.encode().unwrap());
    }

    #[test]
    fn data_decode_to_their_fields((b, model) in arb_data()) {
        let wire = b.encode().unwrap();
        let d = Data::new_checked(&wire).unwrap();
        let decoded = DataModel {
            name: d.name().to_name(),
            meta: (
                d.content_type(),
                d.freshness_period(),
                d.final_block_id().map(|c| c.wire().to_vec()),
            ),
            content: d.content().map(<[u8]>::to_vec),
            sig_type: d.signature_info().sig_type(),
        };
        prop_assert_eq!(decoded, model);
        prop_assert_eq!(DataBuilder::from_view(&d).encode().unwrap(), wire.clone());
        check_any_bytes(&wire);
    }

    #[test]
    fn lp_packets_decode_to_their_fields(
        seq in prop::option::of(any::<u64>()),
        token in prop::option::of(prop::collection::vec(any::<u8>(), 1..=32)),
        nack in prop::option::of(prop::option::of(any::<u64>())),
        faces in (prop::option::of(any::<u32>()), prop::option::of(any::<u32>())),
        marks in (prop::option::of(any::<u64>()), prop::option::of(any::<u64>())),
        acks in prop::collection::vec(any::<u64>(), 0..4),
        tx in prop::option::of(any::<u64>()),
        non_discovery in any::<bool>(),
        (_, ib, _, _) in arb_interest(),
    ) {
        let interest = ib.encode().unwrap();
        let mut b = LpPacketBuilder::new();
        if let Some(t) = &token { b = b.pit_token(t); }
        if let Some(r) = nack { b = b.nack(r.map(NackReason::from_code)); }
        for a in &acks { b = b.ack(*a); }
        let h = b.headers_mut();
        h.sequence = seq;
        (h.incoming_face_id, h.next_hop_face_id) = faces;
        (h.cache_policy, h.congestion_mark) = marks;
        h.tx_sequence = tx;
        h.non_discovery = non_discovery;
        let wire = b.encode(Some(&interest)).unwrap();
        let p = decode_link_packet(&wire).unwrap();
        prop_assert_eq!(p.headers.sequence, seq);
        prop_assert_eq!(p.headers.pit_token, token.as_deref());
        prop_assert_eq!(p.headers.nack, nack.map(|r| r.map(NackReason::from_code)));
        prop_assert_eq!((p.headers.incoming_face_id, p.headers.next_hop_face_id), faces);
        prop_assert_eq!((p.headers.cache_policy, p.headers.congestion_mark), marks);
        prop_assert_eq!(p.headers.acks.iter().collect::<Vec<_>>(), acks);
        prop_assert_eq!((p.headers.tx_sequence, p.headers.non_discovery), (tx, non_discovery));
        prop_assert!(matches!(p.payload, Payload::Interest(i) if i.wire() == interest));
        prop_assert_eq!(&wire[p.payload_range.clone()], &interest[..]);
        check_any_bytes(&wire);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check_any_bytes(&bytes);
        // The same bytes behind each outer type, so the inner parsers see them too.
        for t in [5u8, 6, 100] {
            let mut framed = vec![t];
            ndn_packet::tlv::write_var_number(&mut framed, bytes.len() as u64);
            framed.extend_from_slice(&bytes);
            check_any_bytes(&framed);
        }
    }

    #[test]
    fn mutated_packets_never_panic(
        (_, ib, _, _) in arb_interest(),
        (db, _) in arb_data(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let interest = ib.encode().unwrap();
        let data = db.encode().unwrap();
        let token = [1u8, 2];
        let lp = LpPacketBuilder::new().pit_token(&token).encode(Some(&data)).unwrap();
        for mut wire in [interest, data, lp] {
            for (at, v) in &edits {
                let i = at.index(wire.len());
                wire[i] = *v;
            }
            check_any_bytes(&wire);
            check_any_bytes(&wire[..cut.index(wire.len())]);
        }
    }
}
