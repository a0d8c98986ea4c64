//! Names: a checked name prints as a URI that parses back to the same bytes, and any URI that
//! parses prints as one that parses to the same name again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndn_packet::{Name, NameRef};

fuzz_target!(|data: &[u8]| {
    if let Ok(name) = NameRef::new_checked(data) {
        let uri = name.to_string();
        let back = Name::from_uri(&uri).expect("printed URI parses");
        assert_eq!(back.value(), data, "{uri}");
        assert_eq!(back.len(), name.len());
    }
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(name) = Name::from_uri(s) {
            let uri = name.to_string();
            assert_eq!(Name::from_uri(&uri).as_ref(), Ok(&name), "{s} -> {uri}");
        }
    }
});
