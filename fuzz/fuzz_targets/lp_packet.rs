//! NDNLPv2: decode -> build -> decode gives the same headers and fragment, and the link-packet
//! entry point classifies the re-encoding exactly as the original.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndn_packet::{decode_link_packet, LpPacket, LpPacketBuilder};

fuzz_target!(|data: &[u8]| {
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
});
