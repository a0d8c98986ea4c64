//! NDN packet format v0.3 and NDNLPv2 codec for ndnfwd.
//!
//! Contract: decoding goes through checked constructors that return borrowed views of the input
//! buffer (`new_checked`), which never panic and never allocate on the per-packet path; errors are
//! small `Copy` enums ([`DecodeError`]). Views expose field offsets so the forwarder can rewrite
//! HopLimit, Nonce and InterestLifetime and prepend link headers without re-encoding the name.
//! Owned builders encode. [`NameHasher`] produces keyed SipHash values for every prefix of a
//! name in one pass. The critical-type rules live in [`tlv::is_critical`] and
//! [`tlv::lp_is_ignorable`] and nowhere else.
#![deny(unsafe_code)]
#![deny(clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
#![cfg_attr(
    test,
    allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)
)]

pub mod data;
mod error;
#[cfg(test)]
mod fixtures;
pub mod hash;
pub mod interest;
pub mod link;
pub mod lp;
pub mod name;
pub mod signature;
pub mod tlv;

pub use error::DecodeError;

/// Identifier of a face (an interface of the forwarder). NDNLPv2 and NFD management carry face
/// ids as NonNegativeIntegers; ndnfwd keeps them in 32 bits so table entries stay small, and
/// rejects larger values at the edges.
pub type FaceId = u32;
pub use hash::{NameHasher, NameId, PrefixHashes, SipVariant};
pub use name::{Component, Name, NameRef};

pub use data::{Data, DataBuilder, DataSignature};
pub use interest::{Guiders, Interest, InterestBuilder, InterestSignature};
pub use link::{
    BytePatch, FaceScope, LinkType, LpToken, PacketKind, RxLp, RxPacket, TxLp, TxPacket,
};
pub use lp::{
    decode_link_packet, LinkPacket, LpHeaders, LpPacket, LpPacketBuilder, NackReason, Payload,
};
pub use signature::SignatureInfo;
