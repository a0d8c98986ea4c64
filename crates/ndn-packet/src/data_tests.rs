use super::*;
use crate::fixtures::DATA_FULL;
use crate::interest::InterestBuilder;
use crate::signature::sig_type;

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
