//! TLV reader: element offsets are consistent, and re-encoding an element (type, value) gives
//! back its exact bytes (VAR-NUMBERs are read in shortest form only).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndn_packet::tlv::{self, Reader};

fuzz_target!(|data: &[u8]| {
    let mut end = 0;
    for e in Reader::new(data) {
        let Ok(e) = e else { break };
        assert_eq!(e.start, end);
        assert_eq!(e.wire, &data[e.start..e.end()]);
        assert_eq!(e.value, &data[e.value_start..e.end()]);
        let mut again = Vec::new();
        tlv::write_tlv(&mut again, e.typ, e.value);
        assert_eq!(again, e.wire);
        assert_eq!(tlv::tlv_len(e.typ, e.value.len()), e.wire.len());
        if let Ok(n) = e.nni() {
            let mut out = Vec::new();
            tlv::write_nni(&mut out, n);
            assert_eq!(tlv::read_nni(&out), Ok(n));
            assert!(out.len() <= e.value.len());
        }
        end = e.end();
    }
    if let Ok((v, len)) = tlv::read_var_number(data) {
        let mut out = Vec::new();
        tlv::write_var_number(&mut out, v);
        assert_eq!(out, &data[..len]);
    }
});
