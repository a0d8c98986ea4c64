//! Management: ControlParameters and ControlResponse decode -> encode -> decode to an equal
//! value, and a re-encoding is stable (encoding the second decode gives the same bytes).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndnfwd_mgmt::{ControlParameters, ControlResponse};

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = ControlParameters::new_checked(data) {
        let wire = p.encode();
        let q = ControlParameters::new_checked(&wire).expect("encoded parameters decode");
        assert_eq!(p, q);
        assert_eq!(q.encode(), wire);
    }
    if let Ok(r) = ControlResponse::new_checked(data) {
        let wire = r.encode();
        let s = ControlResponse::new_checked(&wire).expect("encoded response decodes");
        assert_eq!(r, s);
        assert_eq!(s.encode(), wire);
    }
});
