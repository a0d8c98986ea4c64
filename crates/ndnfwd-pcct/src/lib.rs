//! PIT-CS composite table (PCCT): the Pending Interest Table and the Content Store of one
//! forwarding worker in one hash table (seed 000 §2.4, NDN-DPDK's PCCT).
//!
//! Contract: one [`Pcct`] per worker, owned by that worker's thread; no locks, no clock reads
//! (`now` is a `u64` of nanoseconds passed in) and no allocation per packet in steady state.
//! Entries are keyed by the keyed hash of the full name plus the forwarding-hint delegation in
//! use; one lookup returns an entry whose flags say which parts it holds (PIT for MustBeFresh 0,
//! PIT for MustBeFresh 1, CS), and a satisfied PIT entry turns into the CS entry in place.
//! PIT semantics are NFD's (aggregation, per-face in-records, out-records, loop detection by
//! nonce, exponential retransmission suppression, expiry through a timer wheel reported by
//! [`Pcct::expire`], face removal by [`Pcct::purge_face`]). Every Interest we forward carries our [`PitToken`] (worker, generation,
//! index): Data and Nack find their entry in O(1) and a name check follows, so stale, forged or
//! wrong-length tokens never satisfy another entry; Data and Nack without a usable token are
//! matched by name. The CS keeps the received [`bytes::Bytes`] without copying, under a packet
//! and a byte limit with LRU, ARC or FIFO replacement, MustBeFresh against FreshnessPeriod, an
//! unsolicited-Data policy, CanBePrefix matches through indirect entries, implicit-digest
//! matches, and erase by prefix. Every pool is fixed at construction: a full PIT answers
//! [`InterestOutcome::PitFull`] (the caller sends Nack Congestion), a full CS evicts, and every
//! refused packet is counted in [`Counters`].
//!
//! ```
//! use bytes::Bytes;
//! use ndn_packet::{LpToken, Name, NameHasher, PrefixHashes, SipVariant};
//! use ndnfwd_pcct::*;
//!
//! let hasher = NameHasher::new([7; 16], SipVariant::Sip13);
//! let mut pcct = Pcct::new(PcctConfig::default(), hasher.clone()).unwrap();
//! let name = Name::from_uri("/ndn/video/seg=1").unwrap();
//! let mut h = PrefixHashes::default();
//! hasher.hash_prefixes(name.as_ref(), &mut h);
//!
//! let interest = InterestInfo {
//!     name: name.as_ref(), hashes: &h, can_be_prefix: false, must_be_fresh: false,
//!     forwarding_hint_hash: None, nonce: 1, lifetime_ns: None, hop_limit: None,
//!     token: &LpToken::EMPTY, congestion_mark: 0,
//! };
//! let InterestOutcome::NewPit { pit } = pcct.on_interest(0, &interest, 10) else { panic!() };
//! pcct.record_out(0, pit, 20, 1).unwrap(); // forwarded to face 20 with our token
//!
//! let mut wire = Vec::new(); // a real Data TLV in practice
//! ndn_packet::tlv::write_tlv(&mut wire, 6, &name.to_wire());
//! let wire = Bytes::from(wire);
//! let data = DataInfo {
//!     name: name.as_ref(), id: hasher.name_id(name.as_ref()), freshness_ns: 0, wire: &wire,
//!     digest: None, no_cache: false,
//! };
//! let mut down = Vec::new();
//! let out = pcct.on_data(1, &data, 20, Some(&pit.token.to_bytes()), false, &mut down);
//! assert!(out.via_token && out.cached);
//! assert_eq!(down[out.downstreams][0].face, 10);
//! assert!(matches!(pcct.on_interest(2, &interest, 11), InterestOutcome::CsHit { .. }));
//! ```
#![deny(unsafe_code)]

mod api;
mod config;
mod cs;
mod data;
mod entry;
mod list;
mod pcct;
mod pit;
mod prefetch;
mod records;
mod token;
mod wheel;

pub use api::{
    nack_severity, Counters, DataInfo, DataOutcome, DataSink, Downstream, Expired, FacePurge,
    InterestInfo, InterestOutcome, NackInfo, NackOutcome, PitHandle, RecordError,
};
pub use config::{CsPolicy, PcctConfig, UnsolicitedPolicy, MS};
pub use entry::{
    CS_ENTRY_BYTES, MAX_INDIRECT, MAX_IN_RECORDS, MAX_OUT_RECORDS, PCC_ENTRY_BYTES, PIT_ENTRY_BYTES,
};
/// The Nack reason type of `ndn-packet`, re-exported for callers of [`Pcct::on_nack`].
pub use ndn_packet::NackReason;
pub use pcct::{
    DataArrival, InRecordInfo, InterestArrival, NewError, OutRecordInfo, Pcct, BURST_GROUP,
};
pub use token::{worker_of, PitToken, RxToken, TokenError, GENERATION_MASK, PIT_TOKEN_LEN};
pub use wheel::TICK_NS;
