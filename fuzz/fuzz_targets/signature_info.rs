//! SignatureInfo views: a checked view keeps its input byte for byte, and its KeyLocator, when
//! present, lies inside that input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndn_packet::signature::SignatureInfo;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = SignatureInfo::new_checked(data) {
        assert_eq!(s.value(), data);
        if let Some(k) = s.key_locator() {
            let (start, end) = (data.as_ptr() as usize, data.as_ptr() as usize + data.len());
            let p = k.as_ptr() as usize;
            assert!(p >= start && p + k.len() <= end);
        }
        let _ = s.sig_type();
    }
});
