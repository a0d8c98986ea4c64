//! Data: decode -> build -> decode gives the same fields, the re-encoding is never longer
//! (only unrecognized elements are dropped), and a Data satisfies an Interest for its own name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndn_packet::{Data, DataBuilder, Interest, InterestBuilder};

fuzz_target!(|data: &[u8]| {
    let Ok(d) = Data::new_checked(data) else {
        return;
    };
    let wire = DataBuilder::from_view(&d)
        .encode()
        .expect("a decoded Data re-encodes");
    assert!(wire.len() <= data.len());
    let e = Data::new_checked(&wire).expect("builder output decodes");
    assert_eq!(DataBuilder::from_view(&d), DataBuilder::from_view(&e));
    if !d.name().is_empty() {
        let name = d.name().to_name();
        let interest = InterestBuilder::new(name).encode();
        // Names holding a ParametersSha256DigestComponent cannot be sent without parameters.
        if let Ok(interest) = interest {
            assert!(d.satisfies(&Interest::new_checked(&interest).expect("valid Interest")));
        }
    }
});
