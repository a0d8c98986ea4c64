//! The owned Interest encoder ([`InterestBuilder`]), with its parameters digest and signing.

use super::{Guider, Interest};
use crate::name::Name;
use crate::signature::{digest_sha256_info, sha256};
use crate::tlv::{self, tt};
use crate::DecodeError;

/// How an [`InterestBuilder`] signs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InterestSignature {
    /// DigestSha256: InterestSignatureInfo `SignatureType=0`, value the SHA-256 of the name
    /// components (without the ParametersSha256DigestComponent) and of the elements from
    /// ApplicationParameters through InterestSignatureInfo.
    DigestSha256,
    /// Given InterestSignatureInfo and (optionally) InterestSignatureValue TLV-VALUEs.
    Raw {
        /// TLV-VALUE of InterestSignatureInfo.
        info: Vec<u8>,
        /// TLV-VALUE of InterestSignatureValue.
        value: Option<Vec<u8>>,
    },
}

/// Owned Interest encoder. With parameters or a signature, the ParametersSha256DigestComponent
/// is computed: it replaces the one already in the name, or is appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterestBuilder {
    name: Name,
    can_be_prefix: bool,
    must_be_fresh: bool,
    forwarding_hint: Option<Vec<Name>>,
    nonce: Option<[u8; 4]>,
    lifetime_ms: Option<u64>,
    hop_limit: Option<u8>,
    app_params: Option<Vec<u8>>,
    signature: Option<InterestSignature>,
}

impl InterestBuilder {
    /// An Interest for `name` with no optional element.
    pub fn new(name: Name) -> Self {
        Self {
            name,
            can_be_prefix: false,
            must_be_fresh: false,
            forwarding_hint: None,
            nonce: None,
            lifetime_ms: None,
            hop_limit: None,
            app_params: None,
            signature: None,
        }
    }

    /// A builder holding every field of `i` (unrecognized elements are not kept).
    pub fn from_view(i: &Interest<'_>) -> Self {
        let signature = i.signature_info().map(|info| InterestSignature::Raw {
            info: info.to_vec(),
            value: i.signature_value().map(<[u8]>::to_vec),
        });
        Self {
            name: i.name().to_name(),
            can_be_prefix: i.can_be_prefix(),
            must_be_fresh: i.must_be_fresh(),
            forwarding_hint: i
                .has_forwarding_hint()
                .then(|| i.forwarding_hint().map(|n| n.to_name()).collect()),
            nonce: i.nonce(),
            lifetime_ms: i.lifetime(),
            hop_limit: i.hop_limit(),
            app_params: i.app_params().map(<[u8]>::to_vec),
            signature,
        }
    }

    /// Sets CanBePrefix.
    pub fn can_be_prefix(mut self, v: bool) -> Self {
        self.can_be_prefix = v;
        self
    }

    /// Sets MustBeFresh.
    pub fn must_be_fresh(mut self, v: bool) -> Self {
        self.must_be_fresh = v;
        self
    }

    /// Sets the ForwardingHint names (v0.3 form).
    pub fn forwarding_hint(mut self, names: Vec<Name>) -> Self {
        self.forwarding_hint = Some(names);
        self
    }

    /// Sets the Nonce.
    pub fn nonce(mut self, n: [u8; 4]) -> Self {
        self.nonce = Some(n);
        self
    }

    /// Sets InterestLifetime (written even when it equals the default).
    pub fn lifetime_ms(mut self, ms: u64) -> Self {
        self.lifetime_ms = Some(ms);
        self
    }

    /// Sets HopLimit.
    pub fn hop_limit(mut self, h: u8) -> Self {
        self.hop_limit = Some(h);
        self
    }

    /// Sets ApplicationParameters.
    pub fn app_params(mut self, v: Vec<u8>) -> Self {
        self.app_params = Some(v);
        self
    }

    /// Signs; without parameters an empty ApplicationParameters is added, as the spec requires.
    pub fn signature(mut self, s: InterestSignature) -> Self {
        self.signature = Some(s);
        self
    }

    /// Encodes the Interest. The result always passes [`Interest::new_checked`]; the error is the
    /// one the decoder would report (for example an empty name, or a name that carries a
    /// ParametersSha256DigestComponent while there are no parameters).
    pub fn encode(&self) -> Result<Vec<u8>, DecodeError> {
        let bad_digest = DecodeError::Invalid(tt::PARAMETERS_SHA256_DIGEST_COMPONENT);
        let params = match (&self.app_params, &self.signature) {
            (Some(p), _) => Some(p.as_slice()),
            (None, Some(_)) => Some(&[][..]),
            (None, None) => None,
        };
        // Name value, with room for the digest; `digest_at` is its value offset in the name.
        let mut name = self.name.value().to_vec();
        let mut digest_at = None;
        for c in self.name.as_ref().components() {
            if c.typ() == tt::PARAMETERS_SHA256_DIGEST_COMPONENT {
                if digest_at.is_some() || params.is_none() {
                    return Err(bad_digest);
                }
                let offset = c.value().as_ptr() as usize - self.name.value().as_ptr() as usize;
                digest_at = Some(offset);
            }
        }
        if params.is_some() && digest_at.is_none() {
            tlv::write_tlv(&mut name, tt::PARAMETERS_SHA256_DIGEST_COMPONENT, &[0; 32]);
            digest_at = Some(name.len() - 32);
        }

        let mut v = Vec::with_capacity(name.len() + 64 + params.map_or(0, |p| p.len() + 80));
        tlv::write_tlv(&mut v, tt::NAME, &name);
        let name_value_start = v.len() - name.len();
        if self.can_be_prefix {
            tlv::write_tlv(&mut v, tt::CAN_BE_PREFIX, &[]);
        }
        if self.must_be_fresh {
            tlv::write_tlv(&mut v, tt::MUST_BE_FRESH, &[]);
        }
        if let Some(hint) = &self.forwarding_hint {
            let len = hint.iter().map(|n| n.as_ref().encoded_len()).sum();
            tlv::write_header(&mut v, tt::FORWARDING_HINT, len);
            hint.iter().for_each(|n| n.as_ref().encode_to(&mut v));
        }
        if let Some(n) = self.nonce {
            Guider::Nonce(n).write(&mut v);
        }
        if let Some(ms) = self.lifetime_ms {
            Guider::Lifetime(ms).write(&mut v);
        }
        if let Some(h) = self.hop_limit {
            Guider::HopLimit(h).write(&mut v);
        }
        if let (Some(p), Some(digest_at)) = (params, digest_at) {
            let params_start = v.len();
            tlv::write_tlv(&mut v, tt::APPLICATION_PARAMETERS, p);
            match &self.signature {
                Some(InterestSignature::DigestSha256) => {
                    tlv::write_tlv(&mut v, tt::INTEREST_SIGNATURE_INFO, &digest_sha256_info());
                    let digest_comp = name_value_start + digest_at - 2;
                    let parts = [
                        v.get(name_value_start..digest_comp).unwrap_or_default(),
                        v.get(digest_comp + 34..name_value_start + name.len())
                            .unwrap_or_default(),
                        v.get(params_start..).unwrap_or_default(),
                    ];
                    let sig = sha256(&parts);
                    tlv::write_tlv(&mut v, tt::INTEREST_SIGNATURE_VALUE, &sig);
                }
                Some(InterestSignature::Raw { info, value }) => {
                    tlv::write_tlv(&mut v, tt::INTEREST_SIGNATURE_INFO, info);
                    if let Some(value) = value {
                        tlv::write_tlv(&mut v, tt::INTEREST_SIGNATURE_VALUE, value);
                    }
                }
                None => {}
            }
            let digest = sha256(&[v.get(params_start..).unwrap_or_default()]);
            let at = name_value_start + digest_at;
            v.get_mut(at..at + 32)
                .ok_or(bad_digest)?
                .copy_from_slice(&digest);
        }
        let mut out = Vec::with_capacity(tlv::tlv_len(tt::INTEREST, v.len()));
        tlv::write_tlv(&mut out, tt::INTEREST, &v);
        Interest::new_checked(&out)?;
        Ok(out)
    }
}
