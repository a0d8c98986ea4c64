//! NDNLPv2: decode -> build -> decode gives the same headers and fragment, the link-packet
//! entry point classifies the re-encoding exactly as the original, and whenever the fast path
//! (`decode_common`) takes a frame, the general decoder accepts it with the same fields, no
//! other field, and the same payload.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndn_packet::lp::{decode_common, CommonFields, CommonFrame};
use ndn_packet::tlv::{self, tt};
use ndn_packet::{decode_link_packet, LpHeaders, LpPacket, LpPacketBuilder};

fn check_common(data: &[u8], c: &CommonFrame<'_>) {
    let payload = data.get(c.payload.clone()).expect("payload in the frame");
    let single = tlv::read_single(payload).expect("payload is one TLV");
    assert_eq!(single.typ, c.net_type);
    assert!(c.net_type == tt::INTEREST || c.net_type == tt::DATA);
    if c.payload == (0..data.len()) {
        assert_eq!(c.fields, CommonFields::default());
        return;
    }
    let lp = LpPacket::new_checked(data).expect("general decoder accepts a common frame");
    assert_eq!(lp.headers(), &LpHeaders::from(c.fields));
    assert_eq!(lp.fragment_range(), Some(c.payload.clone()));
}

fuzz_target!(|data: &[u8]| {
    if let Some(c) = decode_common(data) {
        check_common(data, &c);
    }
    let link = decode_link_packet(data);
    if let Ok(l) = &link {
        assert!(l.payload_range.end <= data.len());
    }
    let Ok(p) = LpPacket::new_checked(data) else {
        return;
    };
    let wire = LpPacketBuilder::from_headers(p.headers())
        .encode(p.fragment())
        .expect("a decoded LpPacket re-encodes");
    let q = LpPacket::new_checked(&wire).expect("builder output decodes");
    assert_eq!(p.headers(), q.headers());
    assert_eq!(p.fragment(), q.fragment());
    let again = decode_link_packet(&wire);
    assert_eq!(link.map(|l| l.payload), again.map(|l| l.payload));
    // The re-encoding of a common frame is a common frame with the same fields.
    if let Some(c) = decode_common(data) {
        let r = decode_common(&wire).expect("re-encoded common frame takes the fast path");
        assert_eq!(c.fields, r.fields);
    }
});
