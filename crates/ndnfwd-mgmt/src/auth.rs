//! Command Interests: recognizing the three forms a control command arrives in, finding its
//! signer and timestamp, verifying HMAC and DigestSha256 signatures, and rejecting replays.
//!
//! Forms (the ControlParameters component always follows the verb):
//!
//! - packet format v0.3 signed Interest: `/<prefix>/<module>/<verb>/<ControlParameters>/
//!   params-sha256=...` with InterestSignatureInfo carrying SignatureTime (and SignatureNonce);
//!   the signed portion is the name without the digest component, then ApplicationParameters
//!   through InterestSignatureInfo;
//! - the older signed command name (what python-ndn's `make_command` sends):
//!   `/<prefix>/<module>/<verb>/<ControlParameters>/<timestamp>/<nonce>/<SignatureInfo>/
//!   <SignatureValue>`; the signed portion is every name component but the last;
//! - unsigned: just the ControlParameters component.
//!
//! The signer is the KeyLocator name, or `/localhost/identity/digest-sha256` for DigestSha256
//! (as in ndn-cxx). Like ndn-cxx's command Interest policy, a signed command's timestamp must lie
//! within the grace period of the current wall-clock time and be greater than the last accepted
//! one of the same signer; records are bounded in number and lifetime. DigestSha256 commands
//! are recorded per requesting face: every app signs with that same "identity", so two apps
//! registering in the same millisecond (python-ndn timestamps are ms) would otherwise see one
//! of them refused as a replay; a digest proves nothing about its sender, so sharing the record
//! across faces would add no protection.
//!
//! Trust: under [`LocalTrust::AcceptAll`] (the default for local faces, as NFD's default
//! `authorize { certfile any }` and `localhost_security { trust-anchor { type any } }`)
//! unsigned commands are accepted and signatures are not verified, but timestamps still are.
//! Under [`LocalTrust::TrustedKeys`], and always under `/localhop/nfd`, a command must be signed
//! with SignatureHmacWithSha256 by one of the configured [`HmacKey`]s. Public-key signature
//! types (ECDSA, RSA, Ed25519) are not verified by ndnfwd and are never trusted.

use std::collections::HashMap;

use hmac::{Hmac, Mac};
use ndn_packet::interest::Interest;
use ndn_packet::name::Component;
use ndn_packet::signature::{sig_type, SignatureInfo};
use ndn_packet::tlv::{self, tt, Reader};
use ndn_packet::{FaceId, Name};
use sha2::Sha256;

use crate::dispatch::Now;

/// The signer name ndn-cxx gives every DigestSha256 signature.
pub const DIGEST_SHA256_IDENTITY: &str = "/localhost/identity/digest-sha256";

/// Who may issue commands from local faces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LocalTrust {
    /// Anyone on the host: unsigned and any-signed commands are accepted (timestamps of signed
    /// ones are still checked).
    #[default]
    AcceptAll,
    /// Only commands signed with a configured [`HmacKey`].
    TrustedKeys,
}

/// A shared secret that may sign commands (SignatureHmacWithSha256), named by the KeyLocator
/// the signer puts in its SignatureInfo.
#[derive(Clone, PartialEq, Eq)]
pub struct HmacKey {
    /// Key name (the KeyLocator Name).
    pub name: Name,
    /// Secret.
    pub secret: Vec<u8>,
}

impl core::fmt::Debug for HmacKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HmacKey")
            .field("name", &self.name.to_string())
            .finish_non_exhaustive()
    }
}

/// Why a command was not authorized (all answered 403).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthError {
    /// A signature is required and there is none.
    Unsigned,
    /// The signature fields cannot be read (bad SignatureInfo, SignatureValue or timestamp).
    MalformedSignature,
    /// The KeyLocator is absent or not a Name.
    BadKeyLocator,
    /// The signer is not trusted.
    UntrustedKey,
    /// The signature value does not verify.
    BadSignature,
    /// A signed command without a timestamp (v0.3 without SignatureTime).
    MissingTimestamp,
    /// The timestamp is outside the grace period.
    StaleTimestamp,
    /// The timestamp is not greater than the signer's last one.
    ReplayedTimestamp,
}

impl AuthError {
    /// Stable name for counters and logs.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Unsigned => "unsigned",
            Self::MalformedSignature => "malformed_signature",
            Self::BadKeyLocator => "bad_key_locator",
            Self::UntrustedKey => "untrusted_key",
            Self::BadSignature => "bad_signature",
            Self::MissingTimestamp => "missing_timestamp",
            Self::StaleTimestamp => "stale_timestamp",
            Self::ReplayedTimestamp => "replayed_timestamp",
        }
    }
}

/// A signature as found in a command Interest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommandSignature<'a> {
    pub(crate) info: SignatureInfo<'a>,
    value: &'a [u8],
    signed_portion: Vec<u8>,
    timestamp: Option<u64>,
}

/// A command Interest taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommandInterest<'a> {
    /// The component after the verb (the ControlParameters TLV), if any.
    pub params: Option<Component<'a>>,
    /// The signature, if the command is signed.
    pub signature: Option<CommandSignature<'a>>,
}

/// Number of name components before the ControlParameters: prefix (2), module, verb.
const PARAMS_INDEX: usize = 4;
/// Components a signed command name adds: timestamp, nonce, SignatureInfo, SignatureValue.
const V02_SUFFIX: usize = 4;

impl<'a> CommandInterest<'a> {
    /// Takes `i` apart; an error means the signature elements are present but unreadable.
    pub(crate) fn parse(i: &Interest<'a>) -> Result<Self, AuthError> {
        let name = i.name();
        let params = name.get(PARAMS_INDEX);
        if let Some(info) = i.signature_info() {
            return Ok(Self {
                params,
                signature: Some(parse_v03(i, info)?),
            });
        }
        let n = name.len();
        if n >= PARAMS_INDEX + 1 + V02_SUFFIX {
            let at = |k: usize| name.get(n - k);
            if let (Some(ts), Some(info), Some(value)) = (at(4), at(2), at(1)) {
                let info = tlv::read_single(info.value()).ok();
                let value = tlv::read_single(value.value()).ok();
                if let (Some(info), Some(value)) = (info, value) {
                    if info.typ == tt::SIGNATURE_INFO && value.typ == tt::SIGNATURE_VALUE {
                        let info = SignatureInfo::new_checked(info.value)
                            .map_err(|_| AuthError::MalformedSignature)?;
                        let timestamp = Some(ts.as_number().ok_or(AuthError::MalformedSignature)?);
                        return Ok(Self {
                            params,
                            signature: Some(CommandSignature {
                                info,
                                value: value.value,
                                signed_portion: name.prefix(n - 1).value().to_vec(),
                                timestamp,
                            }),
                        });
                    }
                }
            }
        }
        Ok(Self {
            params,
            signature: None,
        })
    }
}

fn parse_v03<'a>(i: &Interest<'a>, info: &'a [u8]) -> Result<CommandSignature<'a>, AuthError> {
    let bad = AuthError::MalformedSignature;
    let info = SignatureInfo::new_checked(info).map_err(|_| bad)?;
    let value = i.signature_value().ok_or(bad)?;
    let start = i.params_range().ok_or(bad)?.start;
    // The view guarantees InterestSignatureInfo directly follows ApplicationParameters.
    let mut r = Reader::new(i.wire().get(start..).ok_or(bad)?);
    r.read().map_err(|_| bad)?;
    let end = start + r.read().map_err(|_| bad)?.end();
    let mut signed_portion: Vec<u8> = i
        .name()
        .components()
        .filter(|c| c.typ() != tt::PARAMETERS_SHA256_DIGEST_COMPONENT)
        .flat_map(|c| c.wire().iter().copied())
        .collect();
    signed_portion.extend_from_slice(i.wire().get(start..end).ok_or(bad)?);
    let mut timestamp = None;
    for e in Reader::new(info.value()) {
        let e = e.map_err(|_| bad)?;
        if e.typ == tt::SIGNATURE_TIME && timestamp.is_none() {
            timestamp = Some(e.nni().map_err(|_| bad)?);
        }
    }
    Ok(CommandSignature {
        info,
        value,
        signed_portion,
        timestamp,
    })
}

/// HMAC-SHA256 of the concatenation of `parts`.
pub fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC takes keys of any length; the fallback is never used.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        return [0; 32];
    };
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().into()
}

fn hmac_verify(key: &[u8], data: &[u8], sig: &[u8]) -> bool {
    Hmac::<Sha256>::new_from_slice(key).is_ok_and(|mut mac| {
        mac.update(data);
        mac.verify_slice(sig).is_ok()
    })
}

impl CommandSignature<'_> {
    /// The signer's key name.
    fn signer(&self) -> Result<Name, AuthError> {
        if self.info.sig_type() == sig_type::DIGEST_SHA256 {
            return Name::from_uri(DIGEST_SHA256_IDENTITY).map_err(|_| AuthError::BadKeyLocator);
        }
        let kl = self.info.key_locator().ok_or(AuthError::BadKeyLocator)?;
        let e = tlv::read_single(kl).map_err(|_| AuthError::BadKeyLocator)?;
        if e.typ != tt::NAME {
            return Err(AuthError::BadKeyLocator);
        }
        Name::from_value(e.value.to_vec()).map_err(|_| AuthError::BadKeyLocator)
    }

    /// Whether a DigestSha256 signature matches its signed portion (the dispatcher does not
    /// verify signatures it does not need to trust; tests check the signed portion with it).
    #[cfg(test)]
    pub(crate) fn digest_matches(&self) -> bool {
        self.info.sig_type() == sig_type::DIGEST_SHA256
            && ndn_packet::signature::sha256(&[&self.signed_portion]) == self.value
    }
}

/// Checks signers, signatures and timestamps; remembers the last timestamp of each signer.
#[derive(Debug)]
pub(crate) struct Authenticator {
    keys: Vec<HmacKey>,
    grace_ms: u64,
    max_records: usize,
    record_lifetime_ns: u64,
    /// Signer -> (last accepted timestamp in ms, monotonic time it was accepted).
    records: HashMap<Name, (u64, u64)>,
}

impl Authenticator {
    pub(crate) fn new(
        keys: Vec<HmacKey>,
        grace_ms: u64,
        max_records: usize,
        record_lifetime_ns: u64,
    ) -> Self {
        Self {
            keys,
            grace_ms,
            max_records: max_records.max(1),
            record_lifetime_ns,
            records: HashMap::new(),
        }
    }

    /// Authorizes a command: `require_key` demands a verified HMAC signature by a configured
    /// key; otherwise anything is accepted, but a signed command's timestamp is checked. On
    /// success the signer's timestamp is recorded.
    pub(crate) fn authorize(
        &mut self,
        ci: &CommandInterest<'_>,
        require_key: bool,
        face: FaceId,
        now: Now,
    ) -> Result<(), AuthError> {
        let Some(sig) = &ci.signature else {
            return if require_key {
                Err(AuthError::Unsigned)
            } else {
                Ok(())
            };
        };
        let signer = sig.signer()?;
        if require_key {
            if sig.info.sig_type() != sig_type::HMAC_WITH_SHA256 {
                return Err(AuthError::UntrustedKey);
            }
            let key = self
                .keys
                .iter()
                .find(|k| k.name == signer)
                .ok_or(AuthError::UntrustedKey)?;
            if !hmac_verify(&key.secret, &sig.signed_portion, sig.value) {
                return Err(AuthError::BadSignature);
            }
        }
        let ts = sig.timestamp.ok_or(AuthError::MissingTimestamp)?;
        let record = if sig.info.sig_type() == sig_type::DIGEST_SHA256 {
            signer.push(format!("face={face}"))
        } else {
            signer
        };
        self.check_timestamp(&record, ts, now)?;
        self.record(record, ts, now);
        Ok(())
    }

    fn check_timestamp(&mut self, signer: &Name, ts: u64, now: Now) -> Result<(), AuthError> {
        let lifetime = self.record_lifetime_ns;
        self.records
            .retain(|_, (_, seen)| now.mono_ns.saturating_sub(*seen) <= lifetime);
        if ts.abs_diff(now.unix_ms) > self.grace_ms {
            return Err(AuthError::StaleTimestamp);
        }
        match self.records.get(signer) {
            Some(&(last, _)) if ts <= last => Err(AuthError::ReplayedTimestamp),
            _ => Ok(()),
        }
    }

    fn record(&mut self, signer: Name, ts: u64, now: Now) {
        if !self.records.contains_key(&signer) && self.records.len() >= self.max_records {
            let oldest = self
                .records
                .iter()
                .min_by_key(|(_, (_, seen))| *seen)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                self.records.remove(&k);
            }
        }
        self.records.insert(signer, (ts, now.mono_ns));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    const T0: u64 = 1_700_000_000_000;

    fn now(unix_ms: u64) -> Now {
        Now {
            mono_ns: unix_ms * 1_000_000,
            unix_ms,
        }
    }

    fn auth() -> Authenticator {
        Authenticator::new(Vec::new(), 120_000, 2, 3_600_000_000_000)
    }

    #[test]
    fn python_ndn_v02_command_is_parsed_and_its_digest_verifies() {
        let i = Interest::new_checked(&fixtures::PY_REGISTER_V02).unwrap();
        let ci = CommandInterest::parse(&i).unwrap();
        let p = crate::ControlParameters::new_checked(ci.params.unwrap().value()).unwrap();
        assert_eq!(p.name.unwrap().to_string(), "/app");
        let sig = ci.signature.as_ref().unwrap();
        assert_eq!(sig.timestamp, Some(T0));
        assert_eq!(sig.signer().unwrap().to_string(), DIGEST_SHA256_IDENTITY);
        assert!(sig.digest_matches());
        let mut a = auth();
        assert_eq!(a.authorize(&ci, false, 7, now(T0 + 5)), Ok(()));
        assert_eq!(
            a.authorize(&ci, false, 7, now(T0 + 6)),
            Err(AuthError::ReplayedTimestamp)
        );
        assert_eq!(
            a.authorize(&ci, true, 7, now(T0 + 6)),
            Err(AuthError::UntrustedKey)
        );
        // Another app (face) with the same millisecond is not a replay; the same face again is.
        assert_eq!(a.authorize(&ci, false, 8, now(T0 + 7)), Ok(()));
        assert_eq!(
            a.authorize(&ci, false, 8, now(T0 + 8)),
            Err(AuthError::ReplayedTimestamp)
        );
    }

    #[test]
    fn python_ndn_v03_command_is_parsed_and_its_digest_verifies() {
        let i = Interest::new_checked(&fixtures::PY_REGISTER_V03).unwrap();
        let ci = CommandInterest::parse(&i).unwrap();
        assert_eq!(ci.params.unwrap().typ(), tt::GENERIC_COMPONENT);
        let sig = ci.signature.as_ref().unwrap();
        assert!(sig.digest_matches());
        let ts = sig.timestamp.unwrap();
        let mut a = auth();
        assert_eq!(
            a.authorize(&ci, false, 7, now(ts + 121_000)),
            Err(AuthError::StaleTimestamp)
        );
        assert_eq!(a.authorize(&ci, false, 7, now(ts - 1000)), Ok(()));
    }

    #[test]
    fn unsigned_commands_and_record_bounds() {
        let i = ndn_packet::InterestBuilder::new(
            Name::from_uri("/localhost/nfd/rib/register")
                .unwrap()
                .push([104, 0]),
        )
        .encode()
        .unwrap();
        let i = Interest::new_checked(&i).unwrap();
        let ci = CommandInterest::parse(&i).unwrap();
        assert!(ci.signature.is_none() && ci.params.is_some());
        let mut a = auth();
        assert_eq!(a.authorize(&ci, false, 7, now(T0)), Ok(()));
        assert_eq!(a.authorize(&ci, true, 7, now(T0)), Err(AuthError::Unsigned));
        // At most two signer records: the oldest goes.
        for (k, t) in ["/k1", "/k2", "/k3"].iter().zip(1..) {
            a.record(Name::from_uri(k).unwrap(), T0, now(T0 + t));
        }
        assert_eq!(a.records.len(), 2);
        assert!(!a.records.contains_key(&Name::from_uri("/k1").unwrap()));
    }

    #[test]
    fn hmac_matches_rfc4231_case_2() {
        let mac = hmac_sha256(b"Jefe", &[b"what do ya want ", b"for nothing?"]);
        assert_eq!(mac[..8], [0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e]);
        assert!(hmac_verify(b"Jefe", b"what do ya want for nothing?", &mac));
        assert!(!hmac_verify(b"Jeff", b"what do ya want for nothing?", &mac));
    }
}
