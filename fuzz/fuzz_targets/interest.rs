//! Interest: decode -> build -> decode gives the same fields; re-emitting with no new guider is
//! the identity, and re-emitting with new guiders changes exactly those.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndn_packet::{Guiders, Interest, InterestBuilder};
use ndnfwd_fuzz::InterestFields;

fuzz_target!(|data: &[u8]| {
    let Ok(i) = Interest::new_checked(data) else {
        return;
    };
    let wire = InterestBuilder::from_view(&i)
        .encode()
        .expect("a decoded Interest re-encodes");
    let j = Interest::new_checked(&wire).expect("builder output decodes");
    assert_eq!(InterestFields::of(&i), InterestFields::of(&j));

    let mut out = Vec::new();
    i.write_with_guiders(&Guiders::default(), &mut out);
    assert_eq!(out, data);

    let g = Guiders {
        nonce: Some([0xa5; 4]),
        lifetime_ms: Some(i.lifetime_ms().wrapping_mul(3)),
        hop_limit: Some(i.hop_limit().unwrap_or(64).saturating_sub(1)),
    };
    out.clear();
    i.write_with_guiders(&g, &mut out);
    let k = Interest::new_checked(&out).expect("rewritten Interest decodes");
    assert_eq!(
        (k.nonce(), k.lifetime(), k.hop_limit()),
        (g.nonce, g.lifetime_ms, g.hop_limit)
    );
    assert_eq!(k.name_wire(), i.name_wire());
    assert_eq!(k.app_params(), i.app_params());
    assert_eq!(
        k.params_range().map(|r| r.len()),
        i.params_range().map(|r| r.len())
    );
});
