//! Fixtures shared by the integration tests: names, hashes, Data wire, Interest/Data infos.
#![allow(dead_code)]

use bytes::Bytes;
use ndn_packet::tlv::{self, tt};
use ndn_packet::{LpToken, Name, NameHasher, PrefixHashes, SipVariant};
use ndnfwd_pcct::{DataInfo, InterestInfo, Pcct, PcctConfig};

pub const KEY: [u8; 16] = [3; 16];
pub use ndnfwd_pcct::MS;

pub fn hasher() -> NameHasher {
    NameHasher::new(KEY, SipVariant::Sip13)
}

pub fn pcct(cfg: PcctConfig) -> Pcct {
    Pcct::new(cfg, hasher()).unwrap()
}

pub fn name(uri: &str) -> Name {
    Name::from_uri(uri).unwrap()
}

pub fn hashes(n: &Name) -> PrefixHashes {
    let mut h = PrefixHashes::default();
    hasher().hash_prefixes(n.as_ref(), &mut h);
    h
}

/// A Data TLV: Name, then Content.
pub fn data_wire(n: &Name, content: &[u8]) -> Bytes {
    let mut v = n.to_wire();
    tlv::write_tlv(&mut v, tt::CONTENT, content);
    let mut out = Vec::new();
    tlv::write_tlv(&mut out, tt::DATA, &v);
    Bytes::from(out)
}

pub fn digest(wire: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(wire).into()
}

/// `n` + ImplicitSha256DigestComponent of `wire`.
pub fn full_name(n: &Name, wire: &[u8]) -> Name {
    n.clone()
        .push_typed(tt::IMPLICIT_SHA256_DIGEST_COMPONENT, &digest(wire))
        .unwrap()
}

pub fn interest<'a>(n: &'a Name, h: &'a PrefixHashes, nonce: u32) -> InterestInfo<'a> {
    InterestInfo {
        name: n.as_ref(),
        hashes: h,
        can_be_prefix: false,
        must_be_fresh: false,
        forwarding_hint_hash: None,
        nonce,
        lifetime_ns: None,
        hop_limit: None,
        token: &LpToken::EMPTY,
        congestion_mark: 0,
    }
}

pub fn data<'a>(
    n: &'a Name,
    h: &'a PrefixHashes,
    wire: &'a Bytes,
    freshness_ns: u64,
) -> DataInfo<'a> {
    DataInfo {
        name: n.as_ref(),
        id: h.name_id(),
        freshness_ns,
        wire,
        digest: None,
        no_cache: false,
    }
}
