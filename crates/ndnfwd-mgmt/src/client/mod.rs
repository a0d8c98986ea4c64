//! The client side of NFD management, for `ndnfwd ctl`: command Interests (unsigned, python-ndn's
//! DigestSha256 signed name, or packet format v0.3 signed with DigestSha256 or an HMAC key),
//! ControlResponse parsing, dataset fetching by segments, and typed operations.
//!
//! Transport-agnostic: every exchange goes through a caller-provided function that sends one
//! Interest (whole TLV) and returns the Data (whole TLV) that answered it, so the CLI can plug in
//! a Unix-socket face, a TCP face, or an in-process manager in tests.

mod render;

pub use render::{
    channels_table, cs_text, faces_table, fib_table, response_text, routes_table, status_text,
    strategies_table, to_json,
};

use std::time::{SystemTime, UNIX_EPOCH};

use ndn_packet::data::{content_type, Data};
use ndn_packet::interest::{InterestBuilder, InterestSignature};
use ndn_packet::signature::{digest_sha256_info, sha256, sig_type};
use ndn_packet::tlv::{self, tt};
use ndn_packet::{DecodeError, FaceId, Name};

use crate::auth::{hmac_sha256, HmacKey};
use crate::params::ControlParameters;
use crate::records::{
    cs_flags, decode_records, route_flags, ChannelStatus, CsInfo, FacePersistency, FaceQueryFilter,
    FaceStatus, FibEntry, GeneralStatus, Record, RibEntry, StrategyChoice,
};
use crate::response::ControlResponse;

/// InterestLifetime of client Interests, in milliseconds.
pub const LIFETIME_MS: u64 = 4000;
/// Most segments [`fetch_dataset`] fetches before giving up.
pub const MAX_SEGMENTS: u64 = 65536;

/// Why an exchange produced no Data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExchangeError {
    /// No answer within the Interest lifetime.
    Timeout,
    /// The forwarder answered with a Nack.
    Nack,
    /// The transport failed.
    Io(std::io::ErrorKind),
}

/// Why a client operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientError {
    /// The exchange failed.
    Exchange(ExchangeError),
    /// A Data, ControlResponse or record did not decode.
    Decode(DecodeError),
    /// The dataset request was rejected with this status code.
    Rejected(u32),
    /// A Data did not carry the name asked for.
    UnexpectedName,
    /// The dataset has more than [`MAX_SEGMENTS`] segments or no FinalBlockId.
    BadSegmentation,
}

impl From<DecodeError> for ClientError {
    fn from(e: DecodeError) -> Self {
        Self::Decode(e)
    }
}

impl From<ExchangeError> for ClientError {
    fn from(e: ExchangeError) -> Self {
        Self::Exchange(e)
    }
}

impl core::fmt::Display for ClientError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Exchange(ExchangeError::Timeout) => f.write_str("request timed out"),
            Self::Exchange(ExchangeError::Nack) => f.write_str("request was Nacked"),
            Self::Exchange(ExchangeError::Io(k)) => write!(f, "transport error: {k}"),
            Self::Decode(e) => write!(f, "malformed answer: {e}"),
            Self::Rejected(code) => write!(f, "request rejected with status {code}"),
            Self::UnexpectedName => f.write_str("answer has an unexpected name"),
            Self::BadSegmentation => f.write_str("dataset segmentation is broken"),
        }
    }
}

impl std::error::Error for ClientError {}

/// The function that carries one Interest to the forwarder and returns the answering Data.
pub type Exchange<'a> = dyn FnMut(&[u8]) -> Result<Vec<u8>, ExchangeError> + 'a;

/// How commands are signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signing {
    /// No signature: accepted by ndnfwd from local faces, not by NFD.
    Unsigned,
    /// python-ndn's `make_command` form: timestamp, nonce, SignatureInfo and a DigestSha256
    /// SignatureValue as the last four name components. Accepted by a default local NFD.
    DigestCommandName,
    /// Packet format v0.3 signed Interest with DigestSha256.
    Digest,
    /// Packet format v0.3 signed Interest with SignatureHmacWithSha256.
    Hmac(HmacKey),
}

fn random<const N: usize>(fallback: u64) -> [u8; N] {
    let mut b = [0u8; N];
    if getrandom::getrandom(&mut b).is_err() {
        // Nonces only need to differ between requests; the timestamp does that.
        for (d, s) in b.iter_mut().zip(fallback.to_be_bytes().iter().cycle()) {
            *d = *s;
        }
    }
    b
}

/// Builds command Interests with strictly increasing timestamps.
#[derive(Debug, Clone)]
pub struct CommandSigner {
    signing: Signing,
    last_ts: u64,
}

impl CommandSigner {
    /// A signer using `signing`.
    pub fn new(signing: Signing) -> Self {
        Self {
            signing,
            last_ts: 0,
        }
    }

    /// The command Interest `<prefix>/<module>/<verb>/<params>` at Unix time `now_ms`.
    pub fn command_interest(
        &mut self,
        prefix: &Name,
        module: &str,
        verb: &str,
        params: &ControlParameters,
        now_ms: u64,
    ) -> Result<Vec<u8>, DecodeError> {
        let ts = now_ms.max(self.last_ts.saturating_add(1));
        self.last_ts = ts;
        let name = prefix.clone().push(module).push(verb).push(params.encode());
        let base = |name: Name| {
            InterestBuilder::new(name)
                .nonce(random(ts))
                .lifetime_ms(LIFETIME_MS)
        };
        match &self.signing {
            Signing::Unsigned => base(name).encode(),
            Signing::DigestCommandName => {
                let mut info = Vec::new();
                tlv::write_tlv(&mut info, tt::SIGNATURE_INFO, &digest_sha256_info());
                let name = name
                    .push_number(tt::GENERIC_COMPONENT, ts)
                    .push(random::<8>(ts))
                    .push(info);
                let mut value = Vec::with_capacity(34);
                tlv::write_tlv(&mut value, tt::SIGNATURE_VALUE, &sha256(&[name.value()]));
                base(name.push(value)).encode()
            }
            Signing::Digest | Signing::Hmac(_) => {
                let mut info = Vec::with_capacity(64);
                let key = match &self.signing {
                    Signing::Hmac(k) => Some(k),
                    _ => None,
                };
                let st = key.map_or(sig_type::DIGEST_SHA256, |_| sig_type::HMAC_WITH_SHA256);
                tlv::write_nni_tlv(&mut info, tt::SIGNATURE_TYPE, st);
                if let Some(k) = key {
                    let kn = k.name.as_ref();
                    tlv::write_header(&mut info, tt::KEY_LOCATOR, kn.encoded_len());
                    kn.encode_to(&mut info);
                }
                tlv::write_tlv(&mut info, tt::SIGNATURE_NONCE, &random::<8>(ts));
                tlv::write_nni_tlv(&mut info, tt::SIGNATURE_TIME, ts);
                // Signed portion: name components (no digest yet), empty ApplicationParameters,
                // InterestSignatureInfo.
                let mut tail = Vec::with_capacity(info.len() + 8);
                tlv::write_tlv(&mut tail, tt::APPLICATION_PARAMETERS, &[]);
                tlv::write_tlv(&mut tail, tt::INTEREST_SIGNATURE_INFO, &info);
                let parts = [name.value(), tail.as_slice()];
                let value = match key {
                    Some(k) => hmac_sha256(&k.secret, &parts),
                    None => sha256(&parts),
                };
                base(name)
                    .app_params(Vec::new())
                    .signature(InterestSignature::Raw {
                        info,
                        value: Some(value.to_vec()),
                    })
                    .encode()
            }
        }
    }
}

/// Decodes the ControlResponse carried by a command's answer.
pub fn parse_command_response(data: &[u8]) -> Result<ControlResponse, ClientError> {
    let d = Data::new_checked(data)?;
    Ok(ControlResponse::new_checked(
        d.content().unwrap_or_default(),
    )?)
}

/// Fetches the dataset `prefix` (all segments of one version) and returns its content.
pub fn fetch_dataset(exchange: &mut Exchange<'_>, prefix: &Name) -> Result<Vec<u8>, ClientError> {
    let nonce_seed = u64::try_from(prefix.value().len()).unwrap_or_default();
    let first = InterestBuilder::new(prefix.clone())
        .can_be_prefix(true)
        .must_be_fresh(true)
        .nonce(random(nonce_seed))
        .lifetime_ms(LIFETIME_MS)
        .encode()?;
    let wire = exchange(&first)?;
    let d = Data::new_checked(&wire)?;
    if d.content_type() == Some(content_type::NACK) {
        let r = ControlResponse::new_checked(d.content().unwrap_or_default())?;
        return Err(ClientError::Rejected(r.code));
    }
    let n = prefix.len();
    let name = d.name();
    let (Some(v), Some(s)) = (name.get(n), name.get(n + 1)) else {
        return Err(ClientError::UnexpectedName);
    };
    if !prefix.as_ref().is_prefix_of(name)
        || name.len() != n + 2
        || v.typ() != tt::VERSION_COMPONENT
        || s.typ() != tt::SEGMENT_COMPONENT
    {
        return Err(ClientError::UnexpectedName);
    }
    let versioned = name.prefix(n + 1).to_name();
    let mut content = Vec::new();
    let mut seg = 0u64;
    let mut current = (s.as_number() == Some(0)).then_some(wire);
    loop {
        let wire = match current.take() {
            Some(w) => w,
            None => {
                let want = versioned.clone().push_number(tt::SEGMENT_COMPONENT, seg);
                let i = InterestBuilder::new(want.clone())
                    .nonce(random(seg))
                    .lifetime_ms(LIFETIME_MS)
                    .encode()?;
                let w = exchange(&i)?;
                if Data::new_checked(&w)?.name() != want.as_ref() {
                    return Err(ClientError::UnexpectedName);
                }
                w
            }
        };
        let d = Data::new_checked(&wire)?;
        content.extend_from_slice(d.content().unwrap_or_default());
        let last = d
            .final_block_id()
            .filter(|c| c.typ() == tt::SEGMENT_COMPONENT)
            .and_then(|c| c.as_number());
        if last == Some(seg) {
            return Ok(content);
        }
        seg += 1;
        if seg >= MAX_SEGMENTS || last.is_some_and(|l| l < seg) {
            return Err(ClientError::BadSegmentation);
        }
    }
}

/// Typed management operations over an exchange function `X`.
pub struct Client<X> {
    exchange: X,
    signer: CommandSigner,
    prefix: Name,
}

impl<X> core::fmt::Debug for Client<X> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Client")
            .field("signer", &self.signer)
            .field("prefix", &self.prefix.to_string())
            .finish_non_exhaustive()
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl<X: FnMut(&[u8]) -> Result<Vec<u8>, ExchangeError>> Client<X> {
    /// A client for `/localhost/nfd` signing with `signing`.
    pub fn new(exchange: X, signing: Signing) -> Self {
        Self {
            exchange,
            signer: CommandSigner::new(signing),
            prefix: Name::new().push("localhost").push("nfd"),
        }
    }

    /// Sends a command and returns the ControlResponse, whatever its status code.
    pub fn command(
        &mut self,
        module: &str,
        verb: &str,
        params: &ControlParameters,
    ) -> Result<ControlResponse, ClientError> {
        let i = self
            .signer
            .command_interest(&self.prefix, module, verb, params, now_ms())?;
        let d = (self.exchange)(&i)?;
        parse_command_response(&d)
    }

    fn dataset(&mut self, module: &str, verb: &str) -> Result<Vec<u8>, ClientError> {
        let prefix = self.prefix.clone().push(module).push(verb);
        fetch_dataset(&mut self.exchange, &prefix)
    }

    fn records<T: Record>(&mut self, module: &str, verb: &str) -> Result<Vec<T>, ClientError> {
        Ok(decode_records(&self.dataset(module, verb)?)?)
    }

    /// `status/general`.
    pub fn status(&mut self) -> Result<GeneralStatus, ClientError> {
        Ok(GeneralStatus::decode_content(
            &self.dataset("status", "general")?,
        )?)
    }

    /// `faces/list`.
    pub fn faces(&mut self) -> Result<Vec<FaceStatus>, ClientError> {
        self.records("faces", "list")
    }

    /// `faces/query` with `filter`.
    pub fn face_query(&mut self, filter: &FaceQueryFilter) -> Result<Vec<FaceStatus>, ClientError> {
        let mut f = Vec::new();
        filter.encode_to(&mut f);
        let prefix = self.prefix.clone().push("faces").push("query").push(f);
        Ok(decode_records(&fetch_dataset(
            &mut self.exchange,
            &prefix,
        )?)?)
    }

    /// `faces/channels`.
    pub fn channels(&mut self) -> Result<Vec<ChannelStatus>, ClientError> {
        self.records("faces", "channels")
    }

    /// `fib/list`.
    pub fn fib(&mut self) -> Result<Vec<FibEntry>, ClientError> {
        self.records("fib", "list")
    }

    /// `rib/list`.
    pub fn routes(&mut self) -> Result<Vec<RibEntry>, ClientError> {
        self.records("rib", "list")
    }

    /// `strategy-choice/list`.
    pub fn strategies(&mut self) -> Result<Vec<StrategyChoice>, ClientError> {
        self.records("strategy-choice", "list")
    }

    /// `cs/info`.
    pub fn cs_info(&mut self) -> Result<CsInfo, ClientError> {
        self.records("cs", "info")?
            .into_iter()
            .next()
            .ok_or(ClientError::Decode(DecodeError::Missing(
                crate::tt::CS_INFO,
            )))
    }

    /// `faces/create`.
    pub fn face_create(
        &mut self,
        uri: &str,
        persistency: Option<FacePersistency>,
    ) -> Result<ControlResponse, ClientError> {
        let p = ControlParameters {
            uri: Some(uri.into()),
            face_persistency: persistency,
            ..Default::default()
        };
        self.command("faces", "create", &p)
    }

    /// `faces/destroy`.
    pub fn face_destroy(&mut self, face: FaceId) -> Result<ControlResponse, ClientError> {
        let p = ControlParameters {
            face_id: Some(face.into()),
            ..Default::default()
        };
        self.command("faces", "destroy", &p)
    }

    /// `rib/register` of (`face`, `origin`) with `cost`, child-inherit, expiring after
    /// `expires_ms` when given.
    pub fn route_add(
        &mut self,
        prefix: &Name,
        face: FaceId,
        origin: u64,
        cost: u64,
        expires_ms: Option<u64>,
    ) -> Result<ControlResponse, ClientError> {
        let p = ControlParameters {
            name: Some(prefix.clone()),
            face_id: Some(face.into()),
            origin: Some(origin),
            cost: Some(cost),
            flags: Some(route_flags::CHILD_INHERIT),
            expiration_period: expires_ms,
            ..Default::default()
        };
        self.command("rib", "register", &p)
    }

    /// `rib/unregister` of (`face`, `origin`).
    pub fn route_remove(
        &mut self,
        prefix: &Name,
        face: FaceId,
        origin: u64,
    ) -> Result<ControlResponse, ClientError> {
        let p = ControlParameters {
            name: Some(prefix.clone()),
            face_id: Some(face.into()),
            origin: Some(origin),
            ..Default::default()
        };
        self.command("rib", "unregister", &p)
    }

    /// `strategy-choice/set`.
    pub fn strategy_set(
        &mut self,
        prefix: &Name,
        strategy: &Name,
    ) -> Result<ControlResponse, ClientError> {
        let p = ControlParameters {
            name: Some(prefix.clone()),
            strategy: Some(strategy.clone()),
            ..Default::default()
        };
        self.command("strategy-choice", "set", &p)
    }

    /// `strategy-choice/unset`.
    pub fn strategy_unset(&mut self, prefix: &Name) -> Result<ControlResponse, ClientError> {
        let p = ControlParameters {
            name: Some(prefix.clone()),
            ..Default::default()
        };
        self.command("strategy-choice", "unset", &p)
    }

    /// `cs/config`: capacity and the admit/serve switches (absent: unchanged).
    pub fn cs_config(
        &mut self,
        capacity: Option<u64>,
        admit: Option<bool>,
        serve: Option<bool>,
    ) -> Result<ControlResponse, ClientError> {
        let (mut flags, mut mask) = (0u64, 0u64);
        for (bit, v) in [
            (cs_flags::ENABLE_ADMIT, admit),
            (cs_flags::ENABLE_SERVE, serve),
        ] {
            if let Some(v) = v {
                mask |= 1 << bit;
                flags |= u64::from(v) << bit;
            }
        }
        let p = ControlParameters {
            capacity,
            flags: (mask != 0).then_some(flags),
            mask: (mask != 0).then_some(mask),
            ..Default::default()
        };
        self.command("cs", "config", &p)
    }

    /// `cs/erase` of at most `count` entries under `prefix`.
    pub fn cs_erase(
        &mut self,
        prefix: &Name,
        count: Option<u64>,
    ) -> Result<ControlResponse, ClientError> {
        let p = ControlParameters {
            name: Some(prefix.clone()),
            count,
            ..Default::default()
        };
        self.command("cs", "erase", &p)
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
