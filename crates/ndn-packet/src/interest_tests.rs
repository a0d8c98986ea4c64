use super::*;
use crate::fixtures::{INTEREST_FULL, INTEREST_PARAMS, INTEREST_SIGNED};
use crate::signature::{sig_type, SignatureInfo};
use crate::Name;

fn n(uri: &str) -> Name {
    Name::from_uri(uri).unwrap()
}

/// Wraps `value` in an Interest TLV.
fn interest(value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    tlv::write_tlv(&mut out, tt::INTEREST, value);
    out
}

/// The signed portion of a signed Interest, recomputed from the view (the test's reference).
fn signed_portion_digest(i: &Interest<'_>) -> [u8; 32] {
    let comps: Vec<u8> = i
        .name()
        .components()
        .filter(|c| c.typ() != tt::PARAMETERS_SHA256_DIGEST_COMPONENT)
        .flat_map(|c| c.wire().to_vec())
        .collect();
    let start = i.params_range().unwrap().start;
    let info = i.signature_info().unwrap();
    let end = info.as_ptr() as usize - i.wire().as_ptr() as usize + info.len();
    sha256(&[&comps, &i.wire()[start..end]])
}

#[test]
fn decodes_python_ndn_interest_with_every_guider() {
    let i = Interest::new_checked(&INTEREST_FULL).unwrap();
    assert_eq!(i.name().to_string(), "/a/b");
    assert_eq!(i.name_wire(), &INTEREST_FULL[2..10]);
    assert!(i.can_be_prefix() && i.must_be_fresh());
    let hint: Vec<String> = i.forwarding_hint().map(|h| h.to_string()).collect();
    assert_eq!(hint, ["/hint"]);
    assert_eq!(i.nonce(), Some([1, 2, 3, 4]));
    assert_eq!(
        &INTEREST_FULL[i.nonce_offset().unwrap()..][..4],
        &[1, 2, 3, 4]
    );
    assert_eq!((i.lifetime(), i.lifetime_ms()), (Some(8000), 8000));
    assert_eq!(
        &INTEREST_FULL[i.lifetime_range().unwrap()],
        &[0x0c, 0x02, 0x1f, 0x40]
    );
    assert_eq!(i.hop_limit(), Some(32));
    assert_eq!(i.hop_limit_offset(), Some(INTEREST_FULL.len() - 1));
    assert_eq!((i.app_params(), i.signature_info()), (None, None));
}

#[test]
fn builder_reproduces_python_ndn_bytes() {
    let full = InterestBuilder::new(n("/a/b"))
        .can_be_prefix(true)
        .must_be_fresh(true)
        .forwarding_hint(vec![n("/hint")])
        .nonce([1, 2, 3, 4])
        .lifetime_ms(8000)
        .hop_limit(32)
        .encode()
        .unwrap();
    assert_eq!(full, INTEREST_FULL);
    let params = InterestBuilder::new(n("/a"))
        .nonce([0xa0, 0xb0, 0xc0, 0xd0])
        .app_params(vec![1, 2])
        .encode()
        .unwrap();
    assert_eq!(params, INTEREST_PARAMS);
    // A signed Interest rebuilt from its view keeps the signature bytes and the digest.
    let signed = Interest::new_checked(&INTEREST_SIGNED).unwrap();
    assert_eq!(
        InterestBuilder::from_view(&signed).encode().unwrap(),
        INTEREST_SIGNED
    );
}

#[test]
fn parameters_digest_is_checked() {
    let i = Interest::new_checked(&INTEREST_PARAMS).unwrap();
    assert_eq!(i.app_params(), Some(&[1u8, 2][..]));
    assert_eq!(i.params_range(), Some(47..51));
    assert_eq!(i.lifetime_ms(), DEFAULT_LIFETIME_MS);
    let bad = DecodeError::Invalid(tt::PARAMETERS_SHA256_DIGEST_COMPONENT);
    // One flipped parameter byte, then one flipped digest byte.
    let mut wire = INTEREST_PARAMS;
    wire[50] ^= 1;
    assert_eq!(Interest::new_checked(&wire), Err(bad));
    let mut wire = INTEREST_PARAMS;
    wire[20] ^= 1;
    assert_eq!(Interest::new_checked(&wire), Err(bad));
    // A digest component without parameters, and two digest components.
    let no_params = interest(&INTEREST_PARAMS[2..47]);
    assert_eq!(Interest::new_checked(&no_params), Err(bad));
    let digest = n("/a").push_typed(2, &[0; 32]).unwrap();
    let two = digest.clone().push_typed(2, &[0; 32]).unwrap();
    assert_eq!(
        InterestBuilder::new(two).app_params(vec![]).encode(),
        Err(bad)
    );
    assert_eq!(InterestBuilder::new(digest.clone()).encode(), Err(bad));
    // A digest component already in the name (not last) is filled in place.
    let mid = digest.push("z");
    let wire = InterestBuilder::new(mid)
        .app_params(vec![9])
        .encode()
        .unwrap();
    let i = Interest::new_checked(&wire).unwrap();
    assert_eq!(i.name().len(), 3);
    assert_eq!(i.name().get(2).unwrap().value(), b"z");
}

#[test]
fn signed_interests() {
    let i = Interest::new_checked(&INTEREST_SIGNED).unwrap();
    let info = SignatureInfo::new_checked(i.signature_info().unwrap()).unwrap();
    assert_eq!(info.sig_type(), sig_type::DIGEST_SHA256);
    assert_eq!(i.signature_value().unwrap(), signed_portion_digest(&i));
    // Our DigestSha256 signer, with and without explicit parameters.
    for params in [None, Some(vec![7, 7])] {
        let mut b = InterestBuilder::new(n("/sign/me")).nonce([9; 4]);
        if let Some(p) = params.clone() {
            b = b.app_params(p);
        }
        let wire = b
            .signature(InterestSignature::DigestSha256)
            .encode()
            .unwrap();
        let i = Interest::new_checked(&wire).unwrap();
        assert_eq!(i.app_params(), Some(params.as_deref().unwrap_or_default()));
        assert_eq!(i.signature_info(), Some(&[27u8, 1, 0][..]));
        assert_eq!(i.signature_value().unwrap(), signed_portion_digest(&i));
    }
}

#[test]
fn element_order_and_criticality() {
    let name = [7u8, 3, 8, 1, b'x'];
    let with = |rest: &[u8]| interest(&[&name[..], rest].concat());
    // Unknown non-critical elements are skipped anywhere; critical ones are errors.
    let ok = with(&[200, 1, 0, 10, 4, 1, 2, 3, 4, 202, 0]);
    assert_eq!(
        Interest::new_checked(&ok).unwrap().nonce(),
        Some([1, 2, 3, 4])
    );
    assert_eq!(
        Interest::new_checked(&with(&[13, 0])),
        Err(DecodeError::UnknownCritical(13))
    );
    assert_eq!(
        Interest::new_checked(&with(&[201, 0])),
        Err(DecodeError::UnknownCritical(201))
    );
    // Recognized critical element out of order or repeated.
    let e = with(&[10, 4, 1, 2, 3, 4, 18, 0]);
    assert_eq!(Interest::new_checked(&e), Err(DecodeError::OutOfOrder(18)));
    let e = with(&[33, 0, 33, 0]);
    assert_eq!(Interest::new_checked(&e), Err(DecodeError::OutOfOrder(33)));
    assert_eq!(
        Interest::new_checked(&with(&[7, 0])),
        Err(DecodeError::OutOfOrder(7))
    );
    // Non-critical HopLimit out of order is ignored: the first one counts.
    let i = with(&[34, 1, 5, 34, 1, 6]);
    assert_eq!(Interest::new_checked(&i).unwrap().hop_limit(), Some(5));
    // Signature elements without ApplicationParameters are ignored.
    let i = with(&[44, 3, 27, 1, 0]);
    assert_eq!(Interest::new_checked(&i).unwrap().signature_info(), None);
}

#[test]
fn malformed_fields() {
    let name = [7u8, 3, 8, 1, b'x'];
    let with = |rest: &[u8]| interest(&[&name[..], rest].concat());
    let cases: [(&[u8], DecodeError); 7] = [
        (&[33, 1, 0], DecodeError::Invalid(33)),
        (&[18, 1, 0], DecodeError::Invalid(18)),
        (&[10, 3, 1, 2, 3], DecodeError::Invalid(10)),
        (&[12, 3, 0, 0, 1], DecodeError::BadNonNegativeInteger),
        (&[34, 2, 0, 1], DecodeError::Invalid(34)),
        (&[30, 2, 13, 0], DecodeError::UnknownCritical(13)),
        (&[30, 3, 7, 2, 8, 5], DecodeError::Truncated),
    ];
    for (rest, err) in cases {
        assert_eq!(Interest::new_checked(&with(rest)), Err(err), "{rest:?}");
    }
    assert_eq!(
        Interest::new_checked(&interest(&[7, 0])),
        Err(DecodeError::Invalid(7))
    );
    assert_eq!(
        Interest::new_checked(&interest(&[10, 0])),
        Err(DecodeError::Missing(7))
    );
    assert_eq!(
        Interest::new_checked(&interest(&[253, 0, 5, 0])),
        Err(DecodeError::BadVarNumber)
    );
    assert_eq!(
        Interest::new_checked(&[6, 0]),
        Err(DecodeError::UnexpectedType(6))
    );
    assert_eq!(
        Interest::new_checked(&[&INTEREST_FULL[..], &[0]].concat()),
        Err(DecodeError::TrailingBytes)
    );
    assert_eq!(
        Interest::new_checked(&INTEREST_FULL[..36]),
        Err(DecodeError::Truncated)
    );
    assert_eq!(
        InterestBuilder::new(Name::new()).encode(),
        Err(DecodeError::Invalid(7))
    );
}

#[test]
fn forwarding_hint_accepts_delegations() {
    // ForwardingHint { Delegation { Preference 1, Name /d }, Name /e, 200 (skipped) }
    let fh = [
        30, 17, 31, 8, 30, 1, 1, 7, 3, 8, 1, b'd', 7, 3, 8, 1, b'e', 200, 0,
    ];
    let mut value = vec![7, 3, 8, 1, b'x'];
    value.extend_from_slice(&fh);
    let wire = interest(&value);
    let i = Interest::new_checked(&wire).unwrap();
    let hint: Vec<String> = i.forwarding_hint().map(|h| h.to_string()).collect();
    assert_eq!(hint, ["/d", "/e"]);
    // A Delegation without a Name is invalid.
    let wire = interest(&[7, 3, 8, 1, b'x', 30, 5, 31, 3, 30, 1, 1]);
    assert_eq!(Interest::new_checked(&wire), Err(DecodeError::Missing(7)));
}

#[test]
fn guiders_rewrite_without_touching_the_rest() {
    let i = Interest::new_checked(&INTEREST_FULL).unwrap();
    let mut out = Vec::new();
    i.write_with_guiders(&Guiders::default(), &mut out);
    assert_eq!(out, INTEREST_FULL);

    let g = Guiders {
        nonce: Some([9, 9, 9, 9]),
        lifetime_ms: Some(100),
        hop_limit: Some(31),
    };
    out.clear();
    i.write_with_guiders(&g, &mut out);
    let j = Interest::new_checked(&out).unwrap();
    assert_eq!(j.nonce(), Some([9; 4]));
    assert_eq!((j.lifetime(), j.hop_limit()), (Some(100), Some(31)));
    assert_eq!(j.name_wire(), i.name_wire());
    assert!(j.can_be_prefix() && j.must_be_fresh() && j.has_forwarding_hint());
    assert_eq!(out.len(), INTEREST_FULL.len() - 1); // the lifetime NNI shrank by one byte

    // Inserting every guider into an Interest with parameters keeps the digest valid.
    let p = Interest::new_checked(&INTEREST_PARAMS).unwrap();
    out.clear();
    p.write_with_guiders(&g, &mut out);
    let q = Interest::new_checked(&out).unwrap();
    assert_eq!(
        (q.nonce(), q.lifetime(), q.hop_limit()),
        (Some([9; 4]), Some(100), Some(31))
    );
    assert_eq!(q.app_params(), p.app_params());
    let expect = InterestBuilder::new(p.name().to_name())
        .nonce([9; 4])
        .lifetime_ms(100)
        .hop_limit(31)
        .app_params(vec![1, 2])
        .encode()
        .unwrap();
    assert_eq!(out, expect);
}

/// What a decoded Interest tells through its accessors: the differential property compares
/// these, so it pins the public offsets and values, not the view's internal layout.
#[derive(Debug, Default, PartialEq, Eq)]
struct Fields<'a> {
    name_wire: &'a [u8],
    can_be_prefix: bool,
    must_be_fresh: bool,
    forwarding_hint: Option<Vec<NameRef<'a>>>,
    nonce: Option<([u8; 4], usize)>,
    lifetime: Option<(u64, core::ops::Range<usize>)>,
    hop_limit: Option<(u8, usize)>,
    params: Option<(&'a [u8], core::ops::Range<usize>)>,
    signature_info: Option<&'a [u8]>,
    signature_value: Option<&'a [u8]>,
}

fn fields<'a>(i: &Interest<'a>) -> Fields<'a> {
    Fields {
        name_wire: i.name_wire(),
        can_be_prefix: i.can_be_prefix(),
        must_be_fresh: i.must_be_fresh(),
        forwarding_hint: i
            .has_forwarding_hint()
            .then(|| i.forwarding_hint().collect()),
        nonce: i.nonce().zip(i.nonce_offset()),
        lifetime: i.lifetime().zip(i.lifetime_range()),
        hop_limit: i.hop_limit().zip(i.hop_limit_offset()),
        params: i.app_params().zip(i.params_range()),
        signature_info: i.signature_info(),
        signature_value: i.signature_value(),
    }
}

/// The element loop before the straight-line fast path, kept as the reference model: a general
/// walk over `Reader` elements that looks each type up in the spec's order list, recording
/// each field from the element's own offsets.
fn reference_decode(wire: &[u8]) -> Result<Fields<'_>, DecodeError> {
    const ORDER: [u32; 10] = [7, 33, 18, 30, 10, 12, 34, 36, 44, 46];
    let outer = tlv::read_single(wire)?;
    if outer.typ != tt::INTEREST {
        return Err(DecodeError::UnexpectedType(outer.typ));
    }
    let base = outer.value_start;
    let mut r = Reader::new(outer.value);
    let name_el = r.read_if(tt::NAME)?.ok_or(DecodeError::Missing(tt::NAME))?;
    let (name, scan) = NameRef::scan(name_el.value, &mut ())?;
    if name.is_empty() {
        return Err(DecodeError::Invalid(tt::NAME));
    }
    let mut it = Fields {
        name_wire: name_el.wire,
        ..Fields::default()
    };
    let mut last = 0;
    for e in r {
        let e = e?;
        let (start, end) = (base + e.start, base + e.end());
        let Some(at) = ORDER.iter().position(|&t| t == e.typ) else {
            if is_critical(e.typ) {
                return Err(DecodeError::UnknownCritical(e.typ));
            }
            continue;
        };
        if at <= last || (at >= 8 && last != at - 1) {
            if is_critical(e.typ) {
                return Err(DecodeError::OutOfOrder(e.typ));
            }
            continue;
        }
        last = at;
        let bad = DecodeError::Invalid(e.typ);
        match (e.typ, e.value.len()) {
            (33 | 18, 1..) | (10, 0..=3 | 5..) | (34, 0 | 2..) => return Err(bad),
            (33, _) => it.can_be_prefix = true,
            (18, _) => it.must_be_fresh = true,
            (30, _) => {
                check_forwarding_hint(e.value)?;
                let names = ForwardingHint {
                    reader: Reader::new(e.value),
                };
                it.forwarding_hint = Some(names.collect());
            }
            (10, _) => it.nonce = Some((e.value.try_into().map_err(|_| bad)?, end - 4)),
            (12, _) => it.lifetime = Some((e.nni()?, start..end)),
            (34, _) => it.hop_limit = e.value.first().map(|&h| (h, end - 1)),
            (36, _) => it.params = Some((e.value, start..wire.len())),
            (44, _) => it.signature_info = Some(e.value),
            _ => it.signature_value = Some(e.value),
        }
    }
    let params = it.params.as_ref().map(|(_, r)| r.start);
    check_parameters_digest(wire, name, params, scan)?;
    Ok(it)
}

/// One element after the name for the differential property: recognized types (each with
/// valid and invalid values), unknown critical and non-critical types, a two-byte type.
fn arb_element() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let typ = prop::sample::select(vec![33u8, 18, 30, 10, 12, 34, 36, 44, 46, 7, 19, 31, 200]);
    let value = prop_oneof![
        Just(vec![]),
        Just(vec![1]),
        Just(vec![0, 0, 0, 1]),
        Just(vec![7, 3, 8, 1, b'h']),
        Just(vec![27, 1, 0]),
        prop::collection::vec(any::<u8>(), 0..6),
    ];
    let element = (typ, value).prop_map(|(t, v)| [&[t, v.len() as u8][..], &v].concat());
    prop_oneof![8 => element, 1 => Just(vec![253, 0, 253, 0])]
}

/// The decoder under test, seen through its accessors.
fn decode(wire: &[u8]) -> Result<Fields<'_>, DecodeError> {
    Interest::new_checked(wire).map(|i| fields(&i))
}

proptest::proptest! {
    #[test]
    fn straight_line_decoder_equals_reference(
        elements in proptest::collection::vec(arb_element(), 0..7),
        named in proptest::bool::ANY,
        cut in 0usize..4,
    ) {
        let mut value = if named { vec![7, 3, 8, 1, b'n'] } else { vec![] };
        elements.iter().for_each(|e| value.extend_from_slice(e));
        let wire = interest(&value);
        proptest::prop_assert_eq!(decode(&wire), reference_decode(&wire));
        // Cut short with the outer length kept (truncated inside), and relabeled to the cut.
        let truncated = &wire[..wire.len() - cut.min(value.len())];
        proptest::prop_assert_eq!(decode(truncated), reference_decode(truncated));
        let relabeled = interest(&value[..value.len() - cut.min(value.len())]);
        proptest::prop_assert_eq!(decode(&relabeled), reference_decode(&relabeled));
    }
}

/// A usual-looking Interest value for the straight line's property: a name of random
/// components (mostly generic, some digest or other types, some of odd lengths), then the
/// guiders each maybe present, maybe of a wrong size, maybe with another element among them.
fn arb_usual_value() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let component = (
        prop::sample::select(vec![8u8, 8, 8, 8, 1, 2, 3, 32, 0]),
        prop_oneof![
            4 => prop::collection::vec(any::<u8>(), 0..12),
            1 => prop::collection::vec(any::<u8>(), 32..=32),
        ],
    )
        .prop_map(|(t, v)| [&[t, v.len() as u8][..], &v].concat());
    let name = prop::collection::vec(component, 0..8).prop_map(|c| {
        let value = c.concat();
        [&[7, value.len() as u8][..], &value].concat()
    });
    let guider = |t: u8, sizes: Vec<usize>| {
        (
            prop::sample::select(sizes),
            prop::collection::vec(any::<u8>(), 8),
        )
            .prop_map(move |(n, v)| [&[t, n as u8][..], &v[..n]].concat())
    };
    let maybe = |g: BoxedStrategy<Vec<u8>>| prop_oneof![1 => Just(vec![]), 2 => g];
    (
        name,
        maybe(guider(33, vec![0, 0, 0, 1]).boxed()),
        maybe(guider(18, vec![0, 0, 0, 1]).boxed()),
        maybe(guider(10, vec![4, 4, 4, 3, 5]).boxed()),
        maybe(guider(12, vec![1, 2, 4, 8, 0, 3]).boxed()),
        maybe(guider(34, vec![1, 1, 1, 0, 2]).boxed()),
        prop_oneof![3 => Just(None), 1 => (arb_element(), 0usize..6).prop_map(Some)],
    )
        .prop_map(|(name, cbp, mbf, nonce, life, hop, other)| {
            let mut parts = vec![name, cbp, mbf, nonce, life, hop];
            if let Some((e, at)) = other {
                parts.insert(1 + at.min(5), e);
            }
            parts.concat()
        })
}

proptest::proptest! {
    #[test]
    fn usual_straight_line_equals_the_general_decoder(
        value in arb_usual_value(),
        edits in proptest::collection::vec((0usize..64, proptest::num::u8::ANY), 0..3),
        cut in 0usize..3,
    ) {
        let hasher = NameHasher::new([7; 16], crate::hash::SipVariant::Sip13);
        let (mut got, mut want) = (PrefixHashes::default(), PrefixHashes::default());
        let mut wire = interest(&value);
        let before = InterestBuilder::new(n("/p/q")).nonce([9, 9, 9, 9]).encode().unwrap();
        let prior = Interest::new_checked(&before).unwrap();
        let mut check = |wire: &[u8]| -> Result<(), proptest::test_runner::TestCaseError> {
            let a = Interest::new_checked_hashed(wire, &hasher, &mut got);
            let b = Interest::decode_hashed(wire, &hasher, &mut want);
            proptest::prop_assert_eq!(&a, &b);
            // In place: the same view on success, the prior one kept on error.
            let mut into = prior;
            let r = into.check_hashed_into(wire, &hasher, &mut PrefixHashes::default());
            proptest::prop_assert_eq!(r, a.map(|_| ()));
            proptest::prop_assert_eq!(into, a.unwrap_or(prior));
            if a.is_ok() {
                proptest::prop_assert_eq!(got.len(), want.len());
                for i in 0..got.len() {
                    proptest::prop_assert_eq!(got.id128(i), want.id128(i));
                }
            }
            Ok(())
        };
        check(&wire)?;
        // Mutated anywhere (the headers too), and cut short with the outer length kept.
        for (at, b) in edits {
            let n = wire.len();
            wire[at % n] = b;
        }
        check(&wire)?;
        check(&wire[..wire.len() - cut.min(wire.len())])?;
    }
}

#[test]
fn usual_interests_take_the_straight_line() {
    let every = InterestBuilder::new(n("/a/b/c"))
        .can_be_prefix(true)
        .must_be_fresh(true)
        .nonce([1, 2, 3, 4])
        .lifetime_ms(8000)
        .hop_limit(32)
        .encode()
        .unwrap();
    let bench = InterestBuilder::new(n("/x/y"))
        .nonce([5, 6, 7, 8])
        .hop_limit(64)
        .encode()
        .unwrap();
    for wire in [&every, &bench] {
        let len = usual::header(wire).unwrap();
        let name = NameRef::new_checked(&wire[4..4 + len]).unwrap();
        let it = Interest::usual_guiders(wire, name, 4 + len).unwrap();
        assert_eq!(Ok(it), Interest::new_checked(wire));
    }
    // A ForwardingHint leaves the straight line (the general decoder reads it).
    assert!(usual::header(&INTEREST_FULL).is_some());
    let len = usual::header(&INTEREST_FULL).unwrap();
    let name = NameRef::new_checked(&INTEREST_FULL[4..4 + len]).unwrap();
    assert_eq!(Interest::usual_guiders(&INTEREST_FULL, name, 4 + len), None);
}
