use super::*;
use crate::fixtures::DATA_FULL;
use crate::interest::InterestBuilder;
use crate::signature::sig_type;
use crate::tlv::is_critical;
use crate::tlv::Reader;

fn n(uri: &str) -> Name {
    Name::from_uri(uri).unwrap()
}

fn data(value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    tlv::write_tlv(&mut out, tt::DATA, value);
    out
}

/// Name /a, then `middle`, then SignatureInfo { SignatureType 0 } and an empty SignatureValue.
fn data_with(middle: &[u8]) -> Vec<u8> {
    data(&[&[7, 3, 8, 1, b'a'][..], middle, &[22, 3, 27, 1, 0, 23, 0]].concat())
}

#[test]
fn decodes_python_ndn_data() {
    let d = Data::new_checked(&DATA_FULL).unwrap();
    assert_eq!(d.name().to_string(), "/a/b");
    assert_eq!(d.content_type(), Some(content_type::BLOB));
    assert_eq!(d.freshness_period(), Some(1000));
    assert_eq!(d.final_block_id().unwrap().to_string(), "seg=3");
    assert_eq!(d.content(), Some(&b"hello"[..]));
    assert_eq!(d.signature_info().sig_type(), sig_type::DIGEST_SHA256);
    assert_eq!(d.signature_info().key_locator(), None);
    // DigestSha256 covers Name through SignatureInfo.
    let signed_end = DATA_FULL.len() - 34;
    assert_eq!(d.signature_value(), sha256(&[&DATA_FULL[2..signed_end]]));
    assert_eq!(d.implicit_digest(), sha256(&[&DATA_FULL]));
}

#[test]
fn builder_reproduces_python_ndn_bytes() {
    let seg3 = n("/seg=3");
    let wire = DataBuilder::new(n("/a/b"))
        .content_type(content_type::BLOB)
        .freshness_period(1000)
        .final_block_id(seg3.as_ref().get(0).unwrap())
        .content(b"hello".to_vec())
        .encode()
        .unwrap();
    assert_eq!(wire, DATA_FULL);
    let d = Data::new_checked(&DATA_FULL).unwrap();
    assert_eq!(DataBuilder::from_view(&d).encode().unwrap(), DATA_FULL);
    // Minimal Data: no MetaInfo, no Content; a raw signature with a KeyLocator.
    let raw = DataSignature::Raw {
        info: vec![27, 1, 3, 28, 3, 29, 1, 0xee],
        value: vec![1, 2, 3],
    };
    let wire = DataBuilder::new(Name::new())
        .signature(raw)
        .encode()
        .unwrap();
    assert_eq!(
        wire,
        [6, 17, 7, 0, 22, 8, 27, 1, 3, 28, 3, 29, 1, 0xee, 23, 3, 1, 2, 3]
    );
    let d = Data::new_checked(&wire).unwrap();
    assert!(d.name().is_empty() && d.content().is_none() && d.content_type().is_none());
    assert_eq!(d.signature_info().key_locator(), Some(&[29u8, 1, 0xee][..]));
    let bad = DataSignature::Raw {
        info: vec![28, 0],
        value: vec![],
    };
    let e = DataBuilder::new(n("/x")).signature(bad).encode();
    assert_eq!(e, Err(DecodeError::Missing(tt::SIGNATURE_TYPE)));
}

#[test]
fn element_order_and_criticality() {
    let ok = data_with(&[20, 0, 200, 0, 21, 1, b'c']);
    assert_eq!(Data::new_checked(&ok).unwrap().content(), Some(&b"c"[..]));
    let cases: [(&[u8], DecodeError); 6] = [
        (&[21, 0, 20, 0], DecodeError::OutOfOrder(20)),
        (&[21, 0, 21, 0], DecodeError::OutOfOrder(21)),
        (&[7, 0], DecodeError::OutOfOrder(7)),
        (&[19, 0], DecodeError::UnknownCritical(19)),
        (&[20, 2, 9, 0], DecodeError::UnknownCritical(9)),
        (&[20, 6, 25, 1, 1, 24, 1, 0], DecodeError::OutOfOrder(24)),
    ];
    for (middle, err) in cases {
        assert_eq!(
            Data::new_checked(&data_with(middle)),
            Err(err),
            "{middle:?}"
        );
    }
    // MetaInfo skips non-critical elements; FinalBlockId holds exactly one component.
    let d = data_with(&[20, 7, 24, 1, 2, 40, 0, 26, 0]);
    assert_eq!(Data::new_checked(&d), Err(DecodeError::Truncated));
    let d = data_with(&[20, 9, 24, 1, 2, 40, 0, 26, 2, 8, 0]);
    let d = Data::new_checked(&d).unwrap();
    assert_eq!(d.content_type(), Some(content_type::KEY));
    assert_eq!(d.final_block_id().unwrap().wire(), [8, 0]);
    let two = data_with(&[20, 6, 26, 4, 8, 0, 8, 0]);
    assert_eq!(Data::new_checked(&two), Err(DecodeError::TrailingBytes));
}

#[test]
fn signature_is_required() {
    let no_value = data(&[7, 3, 8, 1, b'a', 22, 3, 27, 1, 0]);
    assert_eq!(Data::new_checked(&no_value), Err(DecodeError::Missing(23)));
    let no_info = data(&[7, 3, 8, 1, b'a', 23, 0]);
    assert_eq!(Data::new_checked(&no_info), Err(DecodeError::Missing(22)));
    let no_name = data(&[22, 3, 27, 1, 0, 23, 0]);
    assert_eq!(Data::new_checked(&no_name), Err(DecodeError::Missing(7)));
    assert_eq!(
        Data::new_checked(&[5, 0]),
        Err(DecodeError::UnexpectedType(5))
    );
}

#[test]
fn satisfies_interests_by_name_prefix_and_implicit_digest() {
    let d = Data::new_checked(&DATA_FULL).unwrap();
    let check = |name: Name, cbp: bool| {
        let wire = InterestBuilder::new(name)
            .can_be_prefix(cbp)
            .encode()
            .unwrap();
        d.satisfies(&Interest::new_checked(&wire).unwrap())
    };
    assert!(check(n("/a/b"), false));
    assert!(check(n("/a/b"), true));
    assert!(check(n("/a"), true));
    assert!(!check(n("/a"), false));
    assert!(!check(n("/a/b/c"), true));
    assert!(!check(n("/a/c"), true));
    let full = n("/a/b").push_typed(1, &d.implicit_digest()).unwrap();
    assert!(check(full.clone(), false));
    assert!(check(full, true));
    let mut wrong = d.implicit_digest();
    wrong[0] ^= 1;
    assert!(!check(n("/a/b").push_typed(1, &wrong).unwrap(), false));
    // A digest that is not the last-but-one position does not count as a full name.
    let other = n("/a").push_typed(1, &d.implicit_digest()).unwrap();
    assert!(!check(other, true));
}

/// The decoder before the one-walk rewrite, kept as the reference model: a general walk that
/// looks each type up in an order list and visits it through a closure, MetaInfo walked after.
fn reference_decode(wire: &[u8]) -> Result<Data<'_>, DecodeError> {
    fn walk<'a>(
        r: Reader<'a>,
        order: &[u32],
        seen: usize,
        mut visit: impl FnMut(tlv::Element<'a>) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        let mut last = seen;
        for e in r {
            let e = e?;
            let critical = is_critical(e.typ);
            match order.iter().position(|&t| t == e.typ) {
                Some(i) if i >= last => {
                    last = i + 1;
                    visit(e)?;
                }
                Some(_) if critical => return Err(DecodeError::OutOfOrder(e.typ)),
                None if critical => return Err(DecodeError::UnknownCritical(e.typ)),
                _ => {}
            }
        }
        Ok(())
    }
    let outer = tlv::read_single(wire)?;
    if outer.typ != tt::DATA {
        return Err(DecodeError::UnexpectedType(outer.typ));
    }
    let mut r = Reader::new(outer.value);
    let name_el = r.read_if(tt::NAME)?.ok_or(DecodeError::Missing(tt::NAME))?;
    let name = NameRef::new_checked(name_el.value)?;
    let (mut meta, mut content, mut sig_info, mut sig_value) = (None, None, None, None);
    let order = [7, 20, 21, 22, 23];
    walk(r, &order, 1, |e| {
        match e.typ {
            20 => meta = Some(e.value),
            21 => content = Some(e.value),
            22 => sig_info = Some(SignatureInfo::new_checked(e.value)?),
            _ => sig_value = Some(e.value),
        }
        Ok(())
    })?;
    let (mut content_type, mut freshness_period, mut final_block_id) = (None, None, None);
    if let Some(meta) = meta {
        walk(Reader::new(meta), &[24, 25, 26], 0, |e| {
            match e.typ {
                24 => content_type = Some(e.nni()?),
                25 => freshness_period = Some(e.nni()?),
                _ => final_block_id = Some(Component::from_element(&tlv::read_single(e.value)?)?),
            }
            Ok(())
        })?;
    }
    let signature_info = sig_info.ok_or(DecodeError::Missing(22))?;
    let signature_value = sig_value.ok_or(DecodeError::Missing(23))?;
    if u32::try_from(wire.len()).is_err() {
        return Err(DecodeError::Invalid(tt::DATA));
    }
    Ok(Data {
        wire,
        name,
        content_type: content_type.unwrap_or(0),
        freshness_period: freshness_period.unwrap_or(0),
        sig_type: signature_info.sig_type(),
        final_block_id: opt_span_in(wire, final_block_id.map(|c: Component<'_>| c.wire())),
        content: opt_span_in(wire, content),
        signature_info: span_in(wire, signature_info.value()),
        key_locator: opt_span_in(wire, signature_info.key_locator()),
        signature_value: span_in(wire, signature_value),
        has_content_type: content_type.is_some(),
        has_freshness_period: freshness_period.is_some(),
    })
}

#[test]
fn meta_info_edges() {
    // Unknown critical element inside MetaInfo, after a recognized one.
    let d = data_with(&[20, 5, 25, 1, 1, 31, 0]);
    assert_eq!(Data::new_checked(&d), Err(DecodeError::UnknownCritical(31)));
    // A repeated FreshnessPeriod is out of order; repeated non-critical elements are skipped.
    let d = data_with(&[20, 6, 25, 1, 1, 25, 1, 2]);
    assert_eq!(Data::new_checked(&d), Err(DecodeError::OutOfOrder(25)));
    let d = data_with(&[20, 7, 25, 1, 9, 200, 0, 200, 0]);
    assert_eq!(Data::new_checked(&d).unwrap().freshness_period(), Some(9));
    // A bad NonNegativeInteger and a digest FinalBlockId of the wrong size.
    let d = data_with(&[20, 5, 24, 3, 0, 0, 1]);
    assert_eq!(
        Data::new_checked(&d),
        Err(DecodeError::BadNonNegativeInteger)
    );
    let d = data_with(&[20, 5, 26, 3, 1, 1, 0]);
    assert_eq!(Data::new_checked(&d), Err(DecodeError::Invalid(1)));
    // An error at the top level after MetaInfo is reported before MetaInfo's own error.
    let d = data_with(&[20, 2, 31, 0, 19, 0]);
    assert_eq!(Data::new_checked(&d), Err(DecodeError::UnknownCritical(19)));
}

#[test]
fn top_level_edges() {
    // SignatureValue before SignatureInfo: SignatureInfo is then out of order.
    let d = data(&[7, 3, 8, 1, b'a', 23, 0, 22, 3, 27, 1, 0]);
    assert_eq!(Data::new_checked(&d), Err(DecodeError::OutOfOrder(22)));
    // Elements after SignatureValue: a non-critical one is skipped, a critical one is not.
    let mut v = data_with(&[]);
    v.extend_from_slice(&[200, 1, 0]);
    v[1] += 3;
    assert!(Data::new_checked(&v).is_ok());
    let mut v = data_with(&[]);
    v.extend_from_slice(&[21, 0]);
    v[1] += 2;
    assert_eq!(Data::new_checked(&v), Err(DecodeError::OutOfOrder(21)));
    // A non-critical element before the Name: the Name must come first.
    let d = data(&[200, 0, 7, 3, 8, 1, b'a', 22, 3, 27, 1, 0, 23, 0]);
    assert_eq!(Data::new_checked(&d), Err(DecodeError::Missing(7)));
    // A bad component in the name and a truncated element.
    let d = data(&[7, 2, 1, 0, 22, 3, 27, 1, 0, 23, 0]);
    assert_eq!(Data::new_checked(&d), Err(DecodeError::Invalid(1)));
    assert_eq!(
        Data::new_checked(&data(&[7, 3, 8, 1, b'a', 22, 9])),
        Err(DecodeError::Truncated)
    );
    assert_eq!(Data::new_checked(&data(&[])), Err(DecodeError::Missing(7)));
    // A malformed first TLV-TYPE is reported as such, not as a missing Name.
    assert_eq!(
        Data::new_checked(&data(&[253, 0, 5, 0])),
        Err(DecodeError::BadVarNumber)
    );
    assert_eq!(
        Data::new_checked(&data(&[253, 1])),
        Err(DecodeError::Truncated)
    );
    assert_eq!(
        SignatureInfo::new_checked(&[253, 0, 5, 0]),
        Err(DecodeError::BadVarNumber)
    );
}

/// One top-level or MetaInfo element for the differential property: recognized, unknown
/// critical or non-critical types, with values that are valid or not.
fn arb_element() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let typ = prop::sample::select(vec![7u8, 20, 21, 22, 23, 24, 25, 26, 19, 31, 200, 201]);
    let value = prop_oneof![
        Just(vec![]),
        Just(vec![27, 1, 0]),
        Just(vec![8, 1, b'x']),
        Just(vec![1]),
        Just(vec![0, 0, 0, 1]),
        Just(vec![24, 1, 0, 25, 1, 5]),
        Just(vec![25, 1, 5, 24, 1, 0]),
        Just(vec![26, 2, 8, 0]),
        Just(vec![26, 3, 1, 1, 0]),
        prop::collection::vec(any::<u8>(), 0..6),
    ];
    (typ, value).prop_map(|(t, v)| [&[t, v.len() as u8][..], &v].concat())
}

proptest::proptest! {
    #[test]
    fn one_walk_decoder_equals_reference(
        elements in proptest::collection::vec(arb_element(), 0..7),
        named in proptest::bool::ANY,
        cut in 0usize..4,
    ) {
        let mut value = if named { vec![7, 3, 8, 1, b'n'] } else { vec![] };
        elements.iter().for_each(|e| value.extend_from_slice(e));
        let wire = data(&value);
        proptest::prop_assert_eq!(Data::new_checked(&wire), reference_decode(&wire));
        // Cut short with the outer length kept (truncated inside), and relabeled to the cut.
        let truncated = &wire[..wire.len() - cut.min(value.len())];
        proptest::prop_assert_eq!(Data::new_checked(truncated), reference_decode(truncated));
        let relabeled = data(&value[..value.len() - cut.min(value.len())]);
        proptest::prop_assert_eq!(Data::new_checked(&relabeled), reference_decode(&relabeled));
    }
}

/// [`Data::usual`] against the general decoder on one buffer: where the straight-line path
/// takes a Data, the general decoder gives the same view and component count, and
/// `new_checked` always answers what the general decoder does. True if the path took it.
fn usual_agrees(wire: &[u8]) -> bool {
    let mut count = Count(0);
    let general = Data::general(wire, &mut count);
    assert_eq!(Data::new_checked(wire), general, "{wire:?}");
    match Data::usual(wire) {
        Some((d, n)) => {
            assert_eq!(Ok(d), general, "{wire:?}");
            assert_eq!(n, count.0, "{wire:?}");
            true
        }
        None => false,
    }
}

#[test]
fn usual_layout_path_equals_the_general_decoder() {
    // Built Data of the usual shapes (one- and three-byte lengths, MetaInfo fields and Content
    // present or not, a lone SignatureType or one with a KeyLocator), then each byte of each
    // set to values that change types, lengths and length forms, then each cut short.
    let long = "x".repeat(260);
    let mut fixtures = Vec::new();
    for name in [n("/"), n("/a/b/c"), n(&format!("/e/{long}"))] {
        for content in [None, Some(0), Some(100), Some(300)] {
            for (ct, fp) in [
                (None, None),
                (Some(0), None),
                (None, Some(10_000)),
                (Some(3), Some(1)),
            ] {
                for keyed in [false, true] {
                    fixtures.push(built(name.clone(), ct, fp, false, content, keyed));
                }
            }
        }
    }
    let (mut taken, mut mutants_taken) = (0, 0);
    for f in &fixtures {
        taken += usize::from(usual_agrees(f));
        for i in 0..f.len() {
            for x in [
                0, 1, 2, 8, 20, 21, 22, 23, 24, 25, 26, 27, 200, 252, 253, 254, 255,
            ] {
                let mut m = f.clone();
                m[i] = x;
                mutants_taken += usize::from(usual_agrees(&m));
            }
            usual_agrees(&f[..i]);
        }
    }
    // Every fixture takes the path, and so do many mutants (other values, other lengths that
    // still parse), so both outcomes are compared.
    assert_eq!(taken, fixtures.len());
    assert!(mutants_taken > fixtures.len(), "{mutants_taken}");
    // Shapes the path leaves to the general decoder: FinalBlockId, a non-critical MetaInfo
    // element (both accepted), ContentType after FreshnessPeriod, a three-byte length below
    // 253 (both errors).
    for middle in [
        &[20, 3, 26, 1, 8][..],
        &[20, 6, 25, 1, 1, 200, 1, 0],
        &[20, 6, 25, 1, 1, 24, 1, 0],
        &[21, 253, 0, 2, 1, 2],
    ] {
        let d = data_with(middle);
        assert!(!usual_agrees(&d), "{d:?}");
    }
}

#[test]
fn generic_name_scan_accepts_what_the_scan_accepts() {
    // Every name value of up to 5 bytes over an alphabet of types, lengths and other bytes:
    // where the generic-only scan answers, the general scan accepts the same name with the
    // same component count; it answers for the all-generic names (and only for them).
    let alphabet = [0u8, 1, 2, 8, 32, 252, 253];
    let mut bufs = vec![Vec::new()];
    for len in 1..=5 {
        let longer: Vec<Vec<u8>> = bufs
            .iter()
            .filter(|b| b.len() == len - 1)
            .flat_map(|b| alphabet.iter().map(move |&x| [b.as_slice(), &[x]].concat()))
            .collect();
        bufs.extend(longer);
    }
    let mut answered = 0;
    for v in &bufs {
        let mut count = Count(0);
        let general = NameRef::scan(v, &mut count).map(|(n, _)| n);
        // The byte after the value is any byte: it is never taken into the name.
        let padded = [v.as_slice(), &[8]].concat();
        assert_eq!(NameRef::scan_generic(v, 0, v.len()), None, "{v:?}");
        if let Some((name, n)) = NameRef::scan_generic(&padded, 0, v.len()) {
            assert_eq!(Ok(name), general, "{v:?}");
            assert_eq!(n, count.0, "{v:?}");
            answered += 1;
        } else if general.is_ok() {
            // Left to the general scan: some component is not a one-byte-length generic one.
            assert!(name_has_other_component(v), "{v:?}");
        }
    }
    assert!(answered > 10, "{answered}");
}

/// Whether a valid name value holds a component other than a GenericNameComponent with a
/// one-byte length.
fn name_has_other_component(v: &[u8]) -> bool {
    let mut pos = 0;
    while let Some(&[t, l]) = v.get(pos..pos + 2) {
        if t != 8 || l > 252 {
            return true;
        }
        pos += 2 + usize::from(l);
    }
    false
}

/// A Data the builder makes from random fields: names of generic and other components (long
/// ones too), any MetaInfo fields, Content of any length, DigestSha256 or a keyed signature.
fn arb_built_data() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let component = prop_oneof![
        4 => "[a-z]{1,12}",
        1 => Just("x".repeat(300)),
        1 => (0u64..1000).prop_map(|s| format!("seg={s}")),
    ];
    let nni = prop_oneof![
        Just(0u64),
        Just(255),
        Just(256),
        Just(70_000),
        Just(u64::MAX)
    ];
    (
        proptest::collection::vec(component, 0..9),
        proptest::option::of(nni.clone()),
        proptest::option::of(nni),
        proptest::bool::ANY,
        proptest::option::of(0usize..300),
        proptest::bool::ANY,
    )
        .prop_map(|(comps, ct, fp, fbi, content, keyed)| {
            built(
                n(&format!("/{}", comps.join("/"))),
                ct,
                fp,
                fbi,
                content,
                keyed,
            )
        })
}

/// The builder's Data of `name` with the given MetaInfo fields (a FinalBlockId `seg=3` with
/// `fbi`), Content of `content` bytes, and DigestSha256 or (`keyed`) a signature with a
/// KeyLocator.
fn built(
    name: Name,
    ct: Option<u64>,
    fp: Option<u64>,
    fbi: bool,
    content: Option<usize>,
    keyed: bool,
) -> Vec<u8> {
    let mut b = DataBuilder::new(name);
    if let Some(ct) = ct {
        b = b.content_type(ct);
    }
    if let Some(fp) = fp {
        b = b.freshness_period(fp);
    }
    if fbi {
        b = b.final_block_id(n("/seg=3").as_ref().get(0).unwrap());
    }
    if let Some(len) = content {
        b = b.content(vec![0x5a; len]);
    }
    if keyed {
        b = b.signature(DataSignature::Raw {
            info: vec![27, 1, 3, 28, 5, 7, 3, 8, 1, b'k'],
            value: vec![1; 64],
        });
    }
    b.encode().unwrap()
}

proptest::proptest! {
    #[test]
    fn usual_path_equals_the_general_decoder_on_random_data(
        wire in arb_built_data(),
        edits in proptest::collection::vec((proptest::num::usize::ANY, proptest::num::u8::ANY), 0..3),
        cut in 0usize..3,
    ) {
        // The built Data (valid), then with up to two bytes set anywhere (types, lengths,
        // values, length forms corrupted), then cut short: the straight-line path, where it
        // takes the buffer, gives the general decoder's view and count, and `new_checked`
        // always answers what the general decoder does (errors included).
        usual_agrees(&wire);
        let mut m = wire.clone();
        for (at, x) in edits {
            let at = at % m.len();
            m[at] = x;
        }
        usual_agrees(&m);
        usual_agrees(&m[..m.len() - cut.min(m.len())]);
    }
}

/// A Data of the shape the straight line matches as words: a name of generic components,
/// a MetaInfo holding FreshnessPeriod alone (1, 2, 4 or 8 bytes), Content of any length
/// (one- and three-byte lengths for the Data too), DigestSha256.
fn arb_word_shaped_data() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    (
        proptest::collection::vec("[a-z]{0,20}", 0..9),
        prop_oneof![Just(0u64), Just(10_000), Just(70_000), Just(u64::MAX)],
        proptest::option::of(0usize..300),
    )
        .prop_map(|(comps, fp, content)| {
            built(
                n(&format!("/{}", comps.join("/"))),
                None,
                Some(fp),
                false,
                content,
                false,
            )
        })
}

proptest::proptest! {
    #[test]
    fn word_matches_equal_the_general_decoder(
        wire in arb_word_shaped_data(),
        edits in proptest::collection::vec((0usize..3, 0usize..12, proptest::num::u8::ANY), 1..3),
        cut in 0usize..3,
    ) {
        // Edits aimed at the bytes read as words: the Data's and Name's headers, the
        // MetaInfo's headers and value, the SignatureInfo and SignatureValue headers.
        let d = Data::new_checked(&wire).unwrap();
        let name = d.name().value();
        let name_end = name.as_ptr() as usize - wire.as_ptr() as usize + name.len();
        let anchors = [0, name_end, wire.len() - 40];
        assert!(usual_agrees(&wire));
        let mut m = wire.clone();
        for (a, at, x) in edits {
            let at = (anchors[a] + at) % m.len();
            m[at] = x;
        }
        usual_agrees(&m);
        usual_agrees(&m[..m.len() - cut.min(m.len())]);
    }
}

#[test]
fn generic_name_scan_rejects_a_long_component_read_as_short() {
    // A GenericNameComponent of 256 bytes (three-byte length) whose value, read from where a
    // one-byte length of 253 would put the next header, holds a usual component ending the
    // name: the walk's steps land on the end, and only the length check after it (bit 16 of
    // the flags) leaves the name to the general scan, which counts one component.
    let mut v = vec![8, 253, 1, 0];
    v.extend(std::iter::repeat_n(b'x', 251));
    v.extend([8, 3, b'a', b'b', b'c']);
    assert_eq!(v.len(), 4 + 256);
    let padded = [v.as_slice(), &[8]].concat();
    assert_eq!(NameRef::scan_generic(&padded, 0, v.len()), None);
    let mut count = Count(0);
    assert!(NameRef::scan(&v, &mut count).is_ok());
    assert_eq!(count.0, 1);
    // In a whole Data the straight line takes it through the general scan: one component, as
    // the general decoder counts (checked by `usual_agrees`).
    let name = Name::from_value(v).unwrap();
    let wire = built(name, None, Some(10_000), false, Some(100), false);
    assert!(usual_agrees(&wire));
}
