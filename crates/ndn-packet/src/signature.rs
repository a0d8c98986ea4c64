//! SignatureInfo (Data) and InterestSignatureInfo: a checked view of the two fields a forwarder
//! ever looks at (SignatureType and KeyLocator), and the DigestSha256 primitive the builders use.
//!
//! A forwarder does not verify signatures, so the view is deliberately lenient: it requires a
//! leading SignatureType and keeps every other element (KeyLocator, ValidityPeriod,
//! SignatureNonce, SignatureTime, SignatureSeqNum, and elements of packet format v0.2) as bytes.

use sha2::{Digest, Sha256};

use crate::tlv::{self, tt, Reader};
use crate::DecodeError;

/// SignatureType values of packet format v0.3.
pub mod sig_type {
    /// DigestSha256: integrity only; the value is the SHA-256 of the signed portion.
    pub const DIGEST_SHA256: u64 = 0;
    /// SignatureSha256WithRsa.
    pub const SHA256_WITH_RSA: u64 = 1;
    /// SignatureSha256WithEcdsa.
    pub const SHA256_WITH_ECDSA: u64 = 3;
    /// SignatureHmacWithSha256.
    pub const HMAC_WITH_SHA256: u64 = 4;
    /// SignatureEd25519.
    pub const ED25519: u64 = 5;
    /// An empty signature for testing (python-ndn's `NullSigner`).
    pub const NULL: u64 = 200;
}

/// A checked view over the TLV-VALUE of a SignatureInfo or InterestSignatureInfo element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignatureInfo<'a> {
    value: &'a [u8],
    sig_type: u64,
    key_locator: Option<&'a [u8]>,
}

impl<'a> SignatureInfo<'a> {
    /// Checks `value`: the first element must be a SignatureType NonNegativeInteger and every
    /// element must be well-formed TLV.
    ///
    /// A SignatureType of one byte and nothing else (DigestSha256, the usual signature of
    /// forwarded test and local traffic) is taken without the element walk; it is what the
    /// walk would find. That check is inlined into the caller (the Data decoder), the walk is
    /// not.
    #[inline(always)]
    pub fn new_checked(value: &'a [u8]) -> Result<Self, DecodeError> {
        if let &[t, 1, sig_type] = value {
            if u32::from(t) == tt::SIGNATURE_TYPE {
                return Ok(Self {
                    value,
                    sig_type: u64::from(sig_type),
                    key_locator: None,
                });
            }
        }
        Self::walk(value)
    }

    /// [`Self::new_checked`] for any SignatureInfo: every element is read.
    #[inline(never)]
    fn walk(value: &'a [u8]) -> Result<Self, DecodeError> {
        if value.first() != Some(&(tt::SIGNATURE_TYPE as u8)) {
            // Report a malformed first TLV-TYPE as such, a well-formed other one as missing.
            Reader::new(value).peek_type()?;
            return Err(DecodeError::Missing(tt::SIGNATURE_TYPE));
        }
        let (_, st, mut pos) = tlv::element_at(value, 0)?;
        let sig_type = tlv::read_nni(st)?;
        let mut key_locator = None;
        while pos < value.len() {
            let (typ, v, end) = tlv::element_at(value, pos)?;
            pos = end;
            if typ == tt::KEY_LOCATOR && key_locator.is_none() {
                key_locator = Some(v);
            }
        }
        Ok(Self {
            value,
            sig_type,
            key_locator,
        })
    }

    /// The view of fields a checked view had (a Data view keeps them as offsets).
    pub(crate) fn from_parts(
        value: &'a [u8],
        sig_type: u64,
        key_locator: Option<&'a [u8]>,
    ) -> Self {
        Self {
            value,
            sig_type,
            key_locator,
        }
    }

    /// The whole TLV-VALUE, byte for byte.
    pub fn value(&self) -> &'a [u8] {
        self.value
    }

    /// SignatureType (see [`sig_type`]).
    pub fn sig_type(&self) -> u64 {
        self.sig_type
    }

    /// TLV-VALUE of the KeyLocator (a Name or a KeyDigest element), if present.
    pub fn key_locator(&self) -> Option<&'a [u8]> {
        self.key_locator
    }
}

/// The SignatureInfo value of a DigestSha256 signature: `SignatureType = 0`.
pub fn digest_sha256_info() -> Vec<u8> {
    let mut out = Vec::with_capacity(3);
    tlv::write_nni_tlv(&mut out, tt::SIGNATURE_TYPE, sig_type::DIGEST_SHA256);
    out
}

/// SHA-256 over the concatenation of `parts`.
pub fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requires_leading_signature_type() {
        // SignatureType=3, KeyLocator{Name /k}
        let v = [27, 1, 3, 28, 5, 7, 3, 8, 1, b'k'];
        let si = SignatureInfo::new_checked(&v).unwrap();
        assert_eq!(si.sig_type(), 3);
        assert_eq!(si.key_locator(), Some(&[7, 3, 8, 1, b'k'][..]));
        assert_eq!(si.value(), &v);
        assert_eq!(
            SignatureInfo::new_checked(&[28, 0]),
            Err(DecodeError::Missing(tt::SIGNATURE_TYPE))
        );
        assert_eq!(
            SignatureInfo::new_checked(&[27, 3, 0, 0, 0]),
            Err(DecodeError::BadNonNegativeInteger)
        );
        assert_eq!(
            SignatureInfo::new_checked(&[27, 1, 0, 28, 9]),
            Err(DecodeError::Truncated)
        );
        assert_eq!(digest_sha256_info(), [27, 1, 0]);
    }

    #[test]
    fn lone_one_byte_signature_type_fast_path_equals_the_walk() {
        // Every 3-byte value: the fast path takes `[27, 1, x]`, the walk the rest; both must
        // agree with the walk everywhere (a broken fast path shows on its own inputs).
        for t in 0..=255u8 {
            for l in 0..=255u8 {
                for x in [0u8, 1, 3, 27, 200, 255] {
                    let v = [t, l, x];
                    assert_eq!(SignatureInfo::new_checked(&v), SignatureInfo::walk(&v));
                }
            }
        }
        let si = SignatureInfo::new_checked(&[27, 1, 200]).unwrap();
        assert_eq!((si.sig_type(), si.key_locator()), (200, None));
    }

    #[test]
    fn sha256_of_parts_is_sha256_of_concatenation() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        let abc = [
            0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae,
            0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61,
            0xf2, 0x00, 0x15, 0xad,
        ];
        assert_eq!(sha256(&[b"a", b"", b"bc"]), abc);
    }
}
