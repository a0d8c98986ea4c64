//! Shared checks for the fuzz targets: what "the same fields" means for each packet type.

use ndn_packet::tlv::tt;
use ndn_packet::{Interest, Name};

/// Every field of a decoded Interest, with the ParametersSha256DigestComponent zeroed: the
/// digest is recomputed on re-encoding over parameters that no longer hold unrecognized
/// elements, so only its position must survive a round trip.
#[derive(Debug, PartialEq, Eq)]
pub struct InterestFields {
    name: Name,
    flags: (bool, bool),
    hint: Option<Vec<Name>>,
    guiders: (Option<[u8; 4]>, Option<u64>, Option<u8>),
    params: Option<Vec<u8>>,
    signature: (Option<Vec<u8>>, Option<Vec<u8>>),
}

impl InterestFields {
    /// The fields of `i`.
    pub fn of(i: &Interest<'_>) -> Self {
        let zero = [0u8; 32];
        let name = i.name().components().fold(Name::new(), |n, c| {
            let digest = c.typ() == tt::PARAMETERS_SHA256_DIGEST_COMPONENT;
            let value = if digest { &zero[..] } else { c.value() };
            n.push_typed(c.typ(), value)
                .expect("component of a checked name")
        });
        Self {
            name,
            flags: (i.can_be_prefix(), i.must_be_fresh()),
            hint: i
                .has_forwarding_hint()
                .then(|| i.forwarding_hint().map(|n| n.to_name()).collect()),
            guiders: (i.nonce(), i.lifetime(), i.hop_limit()),
            params: i.app_params().map(<[u8]>::to_vec),
            signature: (
                i.signature_info().map(<[u8]>::to_vec),
                i.signature_value().map(<[u8]>::to_vec),
            ),
        }
    }
}
