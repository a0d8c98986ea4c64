//! Plain parameter and result types of the PCCT API: the forwarding core maps its packet views
//! onto the `*Info` structs, and acts on the outcomes. Nothing here allocates.

use core::ops::Range;

use bytes::Bytes;
use ndn_packet::{FaceId, NackReason, NameId, NameRef, PrefixHashes};

use crate::token::PitToken;
use ndn_packet::LpToken;

/// What the PCCT needs from a received Interest.
#[derive(Clone, Copy)]
pub struct InterestInfo<'a> {
    /// The Interest name.
    pub name: NameRef<'a>,
    /// `NameHasher::hash_prefixes` of `name`, with the same key as the PCCT's hasher.
    pub hashes: &'a PrefixHashes,
    /// CanBePrefix.
    pub can_be_prefix: bool,
    /// MustBeFresh.
    pub must_be_fresh: bool,
    /// Table hash of the forwarding-hint delegation in use, if any (part of the PCC key).
    pub forwarding_hint_hash: Option<u64>,
    /// Nonce.
    pub nonce: u32,
    /// InterestLifetime; `None` means the default (4 s). Capped by the configuration.
    pub lifetime_ns: Option<u64>,
    /// HopLimit, if present.
    pub hop_limit: Option<u8>,
    /// The downstream's PIT token (empty if none), echoed on the Data or Nack we return. A
    /// reference: the PCCT copies it once, into the in-record.
    pub token: &'a LpToken,
    /// NDNLPv2 CongestionMark of the packet (saturated to 255).
    pub congestion_mark: u8,
}

/// What the PCCT needs from a received Data.
#[derive(Clone)]
pub struct DataInfo<'a> {
    /// The Data name.
    pub name: NameRef<'a>,
    /// `NameHasher::name_id` of `name` (or `Data::new_checked_id`'s), with the same key as the
    /// PCCT's hasher. Only the whole name is hashed: the rare matches that need its prefixes'
    /// hashes (CanBePrefix entries, a token naming a prefix) hash them from `name`.
    pub id: NameId,
    /// FreshnessPeriod in ns; 0 (also when absent) means never fresh.
    pub freshness_ns: u64,
    /// The whole Data TLV, a zero-copy slice of the received buffer. It is what the CS keeps
    /// and returns (one reference-count increment when cached, none otherwise), and its
    /// SHA-256 is the implicit digest.
    pub wire: &'a Bytes,
    /// The implicit digest if the caller already has it; computed from `wire` on demand.
    pub digest: Option<[u8; 32]>,
    /// NDNLPv2 CachePolicy NoCache: satisfy, but do not cache.
    pub no_cache: bool,
}

/// NFD's severity rank of a Nack reason (ndn-cxx `isLessSevere`): Congestion < Duplicate <
/// NoRoute < anything else (an unknown code counts as "none", the most severe).
pub fn nack_severity(r: NackReason) -> u8 {
    match r {
        NackReason::Congestion => 0,
        NackReason::Duplicate => 1,
        NackReason::NoRoute => 2,
        NackReason::Other(_) => 3,
    }
}

/// What the PCCT needs from a received Nack (the Interest it carries, and the reason).
#[derive(Clone, Copy)]
pub struct NackInfo<'a> {
    /// Name of the nacked Interest.
    pub name: NameRef<'a>,
    /// Its prefix hashes (same key as the PCCT's hasher).
    pub hashes: &'a PrefixHashes,
    /// MustBeFresh of the nacked Interest: selects the PIT entry.
    pub must_be_fresh: bool,
    /// Forwarding-hint hash of the nacked Interest (used when there is no valid token).
    pub forwarding_hint_hash: Option<u64>,
    /// Nonce of the nacked Interest; must equal the out-record's last nonce.
    pub nonce: u32,
    /// The Nack reason.
    pub reason: NackReason,
}

// `PrefixHashes` has no `Debug`; the name stands for it.
impl core::fmt::Debug for InterestInfo<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("InterestInfo")
            .field("name", &format_args!("{}", self.name))
            .field("can_be_prefix", &self.can_be_prefix)
            .field("must_be_fresh", &self.must_be_fresh)
            .field("forwarding_hint_hash", &self.forwarding_hint_hash)
            .field("nonce", &self.nonce)
            .field("lifetime_ns", &self.lifetime_ns)
            .field("hop_limit", &self.hop_limit)
            .field("token", &self.token)
            .field("congestion_mark", &self.congestion_mark)
            .finish_non_exhaustive()
    }
}

impl core::fmt::Debug for DataInfo<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DataInfo")
            .field("name", &format_args!("{}", self.name))
            .field("freshness_ns", &self.freshness_ns)
            .field("wire_len", &self.wire.len())
            .field("no_cache", &self.no_cache)
            .finish_non_exhaustive()
    }
}

impl core::fmt::Debug for NackInfo<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NackInfo")
            .field("name", &format_args!("{}", self.name))
            .field("must_be_fresh", &self.must_be_fresh)
            .field("forwarding_hint_hash", &self.forwarding_hint_hash)
            .field("nonce", &self.nonce)
            .field("reason", &self.reason)
            .finish_non_exhaustive()
    }
}

/// Names one PIT entry: the token of its PCC entry (sent upstream) and which of the two PIT
/// entries (MustBeFresh or not) of that name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PitHandle {
    /// Our PIT token; put it on every Interest forwarded for this entry.
    pub token: PitToken,
    /// Which PIT entry of the PCC entry.
    pub must_be_fresh: bool,
}

/// Result of [`crate::Pcct::on_interest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InterestOutcome {
    /// The CS answers: send this Data (a handle to the cached buffer) back to the downstream.
    CsHit {
        /// The cached Data TLV.
        data: Bytes,
    },
    /// A new PIT entry: look up the FIB, forward, then [`crate::Pcct::record_out`].
    NewPit {
        /// The new entry.
        pit: PitHandle,
    },
    /// A new downstream joined a pending entry. `forward` is true when the retransmission
    /// suppression interval has passed and the Interest should be forwarded again.
    Aggregated {
        /// The entry.
        pit: PitHandle,
        /// Forward again (suppression interval elapsed, or nothing was forwarded yet).
        forward: bool,
    },
    /// The same downstream sent the Interest again (its in-record was refreshed).
    Retransmission {
        /// The entry.
        pit: PitHandle,
        /// Forward again, or suppress (within the suppression interval).
        forward: bool,
    },
    /// The nonce was seen from another downstream or sent upstream: a loop. Answer Nack Duplicate.
    DuplicateNonce,
    /// No PIT entry, record or table slot is free: answer Nack Congestion.
    PitFull,
}

/// One downstream to send a Data or Nack to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Downstream {
    /// The downstream face.
    pub face: FaceId,
    /// Its PIT token, to echo.
    pub token: LpToken,
    /// The Nonce of its Interest (its in-record's last nonce): a Nack to this downstream
    /// carries the Interest with this nonce, since aggregated downstreams sent different ones.
    pub nonce: u32,
    /// The CongestionMark its Interest carried.
    pub congestion_mark: u8,
}

/// Where [`crate::Pcct::on_data_into`] puts a Data's downstreams, one at a time as it finds
/// them (unexpired satisfied in-records, ingress face excluded).
pub trait DataSink {
    /// Takes downstream `d`, unless a downstream of the same face was offered before for this
    /// Data: the in-records of both PIT parts of a key, or of several matched keys, may name
    /// the same face, and a Data goes at most once per face. The sink keeps every face it was
    /// offered, the ones it refused included.
    fn offer(&mut self, d: Downstream);

    /// How many downstreams the sink holds (for a vector, its length):
    /// [`DataOutcome::downstreams`] is this before and after the Data.
    fn held(&self) -> usize;
}

/// Result of [`crate::Pcct::on_data`]; the downstreams were appended to the caller's vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataOutcome {
    /// Where the downstreams (unexpired in-records, ingress face excluded, one per face) are
    /// in the caller's vector.
    pub downstreams: Range<usize>,
    /// PIT entries (MustBeFresh parts counted separately) that were matched.
    pub matched: u32,
    /// The Data is now in the CS.
    pub cached: bool,
    /// No PIT entry matched.
    pub unsolicited: bool,
    /// The entry was found through our PIT token (else by name).
    pub via_token: bool,
}

/// Result of [`crate::Pcct::on_nack`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NackOutcome {
    /// No PIT entry for the nacked Interest.
    NoEntry,
    /// No out-record toward the Nack's face with the Nack's nonce (already nacked, or stale).
    Stale,
    /// Recorded; other upstreams are still pending.
    Pending,
    /// Every upstream nacked: the entry is gone; send a Nack with `reason` (the least severe
    /// received) to the downstreams at that range of the caller's vector.
    Nacked {
        /// The least severe reason among the out-records ([`nack_severity`]).
        reason: NackReason,
        /// Where the downstreams are in the caller's vector.
        downstreams: Range<usize>,
    },
}

/// A PIT entry that expired unsatisfied, for the Interest-finalize pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expired {
    /// The (now invalid) handle of the entry.
    pub pit: PitHandle,
    /// Keyed 128-bit identity of the Interest name (e.g. to key a dead-nonce list).
    pub name_id: u128,
    /// Whether the entry was ever forwarded (had out-records).
    pub forwarded: bool,
    /// Nonce of the most recent out-record, if any.
    pub last_out_nonce: Option<u32>,
}

/// What [`crate::Pcct::purge_face`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FacePurge {
    /// In-records of the face removed.
    pub in_records: u32,
    /// Out-records toward the face removed (from entries that stay).
    pub out_records: u32,
    /// PIT entries erased because the face held their last in-record.
    pub erased: u32,
}

/// `record_out` could not record the out-record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordError {
    /// The handle names no live PIT entry (satisfied, expired, or stale).
    NoEntry,
    /// The entry's out-records and the extension pool are full.
    RecordsFull,
}

impl core::fmt::Display for RecordError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::NoEntry => "no such PIT entry",
            Self::RecordsFull => "out-records full",
        })
    }
}

impl std::error::Error for RecordError {}

/// Event counters of one PCCT; every dropped or refused packet lands in exactly one of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Interests answered from the CS.
    pub hits: u64,
    /// Interests that looked in the CS and found nothing usable.
    pub misses: u64,
    /// New PIT entries.
    pub inserts: u64,
    /// Interests from a new downstream joined to a pending entry.
    pub aggregated: u64,
    /// Interests from a downstream already recorded in the entry.
    pub retransmissions: u64,
    /// Aggregated or retransmitted Interests not forwarded (suppression interval).
    pub suppressed: u64,
    /// Interests dropped as loops (duplicate nonce).
    pub dup_nonce: u64,
    /// Interests refused because the PIT or the key table was full.
    pub pit_full: u64,
    /// Interests refused because the entry's in-records and the extension pool were full.
    pub records_full: u64,
    /// PIT entries that expired unsatisfied.
    pub expired: u64,
    /// PIT entries satisfied (fully) by Data.
    pub satisfied: u64,
    /// Data that matched no PIT entry.
    pub unsolicited: u64,
    /// Unsolicited Data cached by the unsolicited policy.
    pub unsolicited_cached: u64,
    /// Data or Nack carrying a token that did not lead to a matching entry (stale, forged,
    /// wrong length, another worker's): matched by name instead.
    pub token_miss: u64,
    /// Data packets put in the CS (new entries and refreshes).
    pub cs_inserts: u64,
    /// Cached Data evicted by the replacement policy (or the byte limit).
    pub evictions: u64,
    /// Cached Data erased by `cs_erase`.
    pub cs_erased: u64,
    /// Data that could not be cached because the key table was full.
    pub cs_table_full: u64,
    /// Nacks for which no PIT entry exists.
    pub nack_no_entry: u64,
    /// Nacks with no matching un-nacked out-record.
    pub nack_stale: u64,
    /// PIT entries ended by Nacks from every upstream.
    pub nacked: u64,
    /// PIT entries erased by [`crate::Pcct::purge_face`] because their last downstream's face
    /// was removed.
    pub face_purged: u64,
}
