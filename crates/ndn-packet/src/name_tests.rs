use super::*;

fn n(s: &str) -> Name {
    Name::from_uri(s).unwrap()
}

#[test]
fn uri_round_trip_and_wire() {
    let name = n("/ndn/edu/v=3/seg=0");
    assert_eq!(
        name.value(),
        &[8, 3, b'n', b'd', b'n', 8, 3, b'e', b'd', b'u', 54, 1, 3, 50, 1, 0]
    );
    assert_eq!(name.to_string(), "/ndn/edu/v=3/seg=0");
    for uri in [
        "/",
        "/a%20b/%00%FF",
        "/.../..../a.b",
        "/32=kw/100=x/t=1700000000000/seq=5/off=9",
        "/sha256digest=0000000000000000000000000000000000000000000000000000000000000001",
        "/params-sha256=ff00000000000000000000000000000000000000000000000000000000000000",
        "/50=%01%02%03",
    ] {
        assert_eq!(n(uri).to_string(), uri, "{uri}");
    }
    assert_eq!(n("ndn:/a//b/").to_string(), "/a/b");
    assert_eq!(n("/8=x/%41").to_string(), "/x/A");
    // A padded NonNegativeInteger keeps its bytes through print and parse.
    let padded = Name::new()
        .push_typed(tt::SEGMENT_COMPONENT, &[0, 50])
        .unwrap();
    assert_eq!(padded.to_string(), "/50=%002");
    assert_eq!(n(&padded.to_string()), padded);
}

#[test]
fn uri_rejects_bad_input() {
    for uri in [
        "a/b",
        "/%zz",
        "/%4",
        "/..",
        "/0=x",
        "/65536=x",
        "/foo=bar",
        "/seg=x",
        "/sha256digest=00",
    ] {
        assert!(Name::from_uri(uri).is_err(), "{uri}");
    }
}

#[test]
fn canonical_order() {
    let mut v = [
        n("/b"),
        n("/a/b"),
        n("/aa"),
        n("/a"),
        n("/"),
        n("/seg=1"),
        n("/1=%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00"),
    ];
    v.sort();
    let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    assert_eq!(s[0], "/");
    assert!(s[1].starts_with("/sha256digest="));
    assert_eq!(&s[2..], ["/a", "/a/b", "/b", "/aa", "/seg=1"]);
}

#[test]
fn prefixes() {
    let name = n("/a/b/c");
    let r = name.as_ref();
    assert_eq!(r.len(), 3);
    assert_eq!(r.prefix(2).to_string(), "/a/b");
    assert_eq!(r.prefix(0).to_string(), "/");
    assert_eq!(r.prefix(9), r);
    assert!(n("/a/b").as_ref().is_prefix_of(r));
    assert!(NameRef::root().is_prefix_of(r));
    assert!(!n("/a/bc").as_ref().is_prefix_of(r));
    assert!(!n("/a/b/c/d").as_ref().is_prefix_of(r));
    assert_eq!(r.get(1).map(|c| c.value()), Some(&b"b"[..]));
}

#[test]
fn checked_view_rejects_bad_components() {
    assert!(NameRef::new_checked(&[1, 2, 0, 0]).is_err()); // digest of 2 bytes
    assert!(NameRef::new_checked(&[254, 0, 1, 0, 0, 0]).is_err()); // type > 65535
    assert!(NameRef::new_checked(&[8, 5, 0]).is_err()); // truncated
    assert!(NameRef::new_checked(&[8, 0, 8, 1, 0]).is_ok());
    assert!(Name::new().push_typed(1, &[0; 31]).is_err());
}

/// Records each component end the walk reports.
struct Ends(Vec<usize>);

impl NameVisitor for Ends {
    fn component(&mut self, _: &[u8], end: usize) {
        self.0.push(end);
    }
}

proptest::proptest! {
    /// The walk's fast paths (type 8, other one-byte headers) accept, reject and split
    /// exactly as the general element reader with the component rules does.
    #[test]
    fn walk_agrees_with_element_reader(value in proptest::collection::vec(
        proptest::prop_oneof![
            proptest::sample::select(vec![0u8, 1, 2, 8, 8, 8, 32, 252, 253, 254, 255]),
            proptest::arbitrary::any::<u8>(),
        ], 0..48)) {
        let want: Result<Vec<usize>, DecodeError> = Reader::new(&value)
            .map(|e| e.and_then(|e| Component::from_element(&e).map(|_| e.start + e.wire.len())))
            .collect();
        let mut ends = Ends(Vec::new());
        let got = NameRef::scan(&value, &mut ends).map(|_| ends.0);
        proptest::prop_assert_eq!(got, want);
    }
}

#[test]
fn generic_component_length_boundaries() {
    let long = |len: usize| [&[8, 252][..], &vec![7; len]].concat();
    assert!(NameRef::new_checked(&long(252)).is_ok());
    assert_eq!(
        NameRef::new_checked(&long(251)),
        Err(DecodeError::Truncated)
    );
    assert_eq!(NameRef::new_checked(&[8]), Err(DecodeError::Truncated));
    // Length 253 takes the three-byte form.
    let three = [&[8, 253, 0, 253][..], &[1; 253]].concat();
    assert_eq!(NameRef::new_checked(&three).map(|n| n.len()), Ok(1));
}
