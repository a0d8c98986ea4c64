//! Table entries and their sizes. Three fixed arenas, linked by `u32` indices:
//!
//! ```text
//! BucketTable --index--> PccEntry (48 B): key (name id, forwarding hint), which parts it holds
//!                           |-- pit[0] (MustBeFresh=0) --> PitEntry (128 B): 1 in- + 1 out-record
//!                           |-- pit[1] (MustBeFresh=1) --> PitEntry  `-- tail --> Tail (248 B):
//!                           |                                 3 + 3 more `-- ext --> Ext (pool)
//!                           `-- cs (direct, indirect or ARC ghost) --> CsEntry (80 B), Bytes
//! ```
//!
//! A PIT entry is two cache lines, aligned: its first in-record, first out-record and every
//! bookkeeping field. That is all a new Interest forwarded to one upstream writes, and all the
//! Data that satisfies it reads. An entry with a second downstream or upstream takes a tail
//! block (records 2 to 4; one per entry at most, so that pool is sized to the PIT and never
//! runs out), and past four, an extension block from the bounded pool, as before.
//!
//! The `PccEntry` is what one hash lookup returns; its `pit` and `cs` fields are the flag of
//! seed 000 §2.4 that tells PIT from CS without a second lookup. When Data satisfies a PIT entry
//! of the same name, the PIT part is released and a CS part attached to the same `PccEntry`: the
//! table sees no delete and no insert. An *indirect* CS part (flag [`FLAG_INDIRECT`]) points to
//! the CS entry of a longer Data name, so a CanBePrefix Interest for that prefix finds the Data
//! with one lookup (NDN-DPDK). The compile-time asserts below pin the documented sizes.

use core::mem::size_of;

use crate::list::{Link, Linked, NIL};
use ndn_packet::LpToken;
use ndn_packet::NackReason;
use ndnfwd_table::{Arena, SlotRef};

/// In-records stored in a PIT entry itself.
pub const IN_HEAD: usize = 1;
/// Out-records stored in a PIT entry itself.
pub const OUT_HEAD: usize = 1;
/// In-records in a PIT entry's tail block.
pub const IN_TAIL: usize = 3;
/// Out-records in a PIT entry's tail block.
pub const OUT_TAIL: usize = 3;
/// In-records a PIT entry holds without an extension block (its own and its tail's).
pub const IN_INLINE: usize = IN_HEAD + IN_TAIL;
/// Out-records a PIT entry holds without an extension block (its own and its tail's).
pub const OUT_INLINE: usize = OUT_HEAD + OUT_TAIL;
/// In-records in one extension block.
pub const IN_EXT: usize = 12;
/// Out-records in one extension block.
pub const OUT_EXT: usize = 12;
/// Most in-records (downstream faces) one PIT entry can hold.
pub const MAX_IN_RECORDS: usize = IN_INLINE + IN_EXT;
/// Most out-records (upstream faces) one PIT entry can hold.
pub const MAX_OUT_RECORDS: usize = OUT_INLINE + OUT_EXT;
/// Most indirect entries (CanBePrefix names) that point to one cached Data.
pub const MAX_INDIRECT: usize = 4;

/// Upper bound of `size_of::<PccEntry>()` (48 bytes on 64-bit targets).
pub const PCC_ENTRY_BYTES: usize = 48;
/// Upper bound of `size_of::<PitEntry>()` (128 bytes on 64-bit targets: two cache lines; a
/// tail block of 248 bytes is reserved beside each).
pub const PIT_ENTRY_BYTES: usize = 128;
/// Upper bound of `size_of::<CsEntry>()`, payload excluded (80 bytes on 64-bit targets).
pub const CS_ENTRY_BYTES: usize = 128;

/// The key carries a forwarding-hint hash.
pub(crate) const FLAG_FH: u8 = 1;
/// The name's last component is an ImplicitSha256DigestComponent.
pub(crate) const FLAG_DIGEST: u8 = 2;
/// `cs` is an indirect part: it points to another key's CS entry.
pub(crate) const FLAG_INDIRECT: u8 = 4;

/// Table hash of a PCC key: the name's table hash, mixed with the delegation's when a
/// forwarding hint is in use (rotated so that (A, B) and (B, A) land apart).
pub(crate) fn key_hash(name_hash: u64, fh: Option<u64>) -> u64 {
    match fh {
        None => name_hash,
        Some(f) => name_hash ^ f.rotate_left(29),
    }
}

/// One key of the composite table: name (+ delegation) and the parts stored under it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PccEntry {
    /// Keyed 128-bit identity of the name (`PrefixHashes::id128`); the low 64 bits are its
    /// table hash. Names are compared through it, never stored.
    pub(crate) id: u128,
    /// Forwarding-hint hash, valid with [`FLAG_FH`].
    pub(crate) fh: u64,
    /// PIT parts for MustBeFresh = 0 and 1 ([`NIL`] when absent).
    pub(crate) pit: [u32; 2],
    /// CS part ([`NIL`] when absent): direct, ghost, or indirect with [`FLAG_INDIRECT`].
    pub(crate) cs: u32,
    /// Number of name components.
    pub(crate) ncomps: u16,
    /// `FLAG_*` bits.
    pub(crate) flags: u8,
    /// Where the key's table slot is (set when the key is inserted), so that freeing the key
    /// clears that slot without scanning its bucket ([`BucketTable::remove_at`]).
    ///
    /// [`BucketTable::remove_at`]: ndnfwd_table::BucketTable::remove_at
    pub(crate) at: SlotRef,
}

impl PccEntry {
    pub(crate) fn new(id: u128, fh: Option<u64>, ncomps: u16, digest: bool) -> Self {
        let mut flags = if digest { FLAG_DIGEST } else { 0 };
        if fh.is_some() {
            flags |= FLAG_FH;
        }
        Self {
            id,
            fh: fh.unwrap_or(0),
            pit: [NIL; 2],
            cs: NIL,
            ncomps,
            flags,
            at: SlotRef::default(),
        }
    }

    pub(crate) fn fh(&self) -> Option<u64> {
        (self.flags & FLAG_FH != 0).then_some(self.fh)
    }

    pub(crate) fn matches(&self, id: u128, fh: Option<u64>) -> bool {
        self.id == id && self.fh() == fh
    }

    /// Makes a key being freed match no lookup that can reach its table slot, which stays
    /// until the next insert into its bucket ([`Pcct::free_key_inline`]): its identity is
    /// complemented. A lookup reaching the slot has the slot's fingerprint, the top 31 bits of
    /// the key's table hash `key_hash(id, fh)`; matching the complemented key would need a
    /// hash of `key_hash(!id, fh) = !key_hash(id, fh)`, whose top 31 bits all differ.
    ///
    /// [`Pcct::free_key_inline`]: crate::pcct::Pcct::free_key_inline
    pub(crate) fn retire(&mut self) {
        self.id = !self.id;
    }

    pub(crate) fn hash(&self) -> u64 {
        key_hash(self.id as u64, self.fh())
    }

    pub(crate) fn has_pit(&self) -> bool {
        self.pit != [NIL; 2]
    }

    pub(crate) fn is_empty(&self) -> bool {
        !self.has_pit() && self.cs == NIL
    }

    pub(crate) fn indirect(&self) -> bool {
        self.flags & FLAG_INDIRECT != 0
    }

    pub(crate) fn digest(&self) -> bool {
        self.flags & FLAG_DIGEST != 0
    }
}

/// In-record flag: the Interest had CanBePrefix.
pub(crate) const IN_CBP: u8 = 1;
/// In-record flag: `hop_limit` is present.
pub(crate) const IN_HOP: u8 = 2;

/// One downstream of a PIT entry (56 bytes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct InRecord {
    pub(crate) expiry: u64,
    pub(crate) face: u32,
    pub(crate) nonce: u32,
    pub(crate) token: LpToken,
    pub(crate) hop_limit: u8,
    pub(crate) flags: u8,
    pub(crate) mark: u8,
}

impl InRecord {
    pub(crate) const EMPTY: Self = Self {
        expiry: 0,
        face: 0,
        nonce: 0,
        token: LpToken::EMPTY,
        hop_limit: 0,
        flags: 0,
        mark: 0,
    };

    pub(crate) fn can_be_prefix(&self) -> bool {
        self.flags & IN_CBP != 0
    }

    /// HopLimit the downstream sent, if any.
    pub(crate) fn hop_limit(&self) -> Option<u8> {
        (self.flags & IN_HOP != 0).then_some(self.hop_limit)
    }
}

/// One upstream of a PIT entry (24 bytes). `nack` is the received Nack's reason code
/// (saturated to `u32`), valid when `nacked`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OutRecord {
    pub(crate) sent: u64,
    pub(crate) face: u32,
    pub(crate) nonce: u32,
    pub(crate) nack: u32,
    pub(crate) nacked: bool,
}

impl OutRecord {
    pub(crate) const EMPTY: Self = Self {
        sent: 0,
        face: 0,
        nonce: 0,
        nack: 0,
        nacked: false,
    };

    /// The Nack received from this upstream, if any.
    pub(crate) fn nack_reason(&self) -> Option<NackReason> {
        self.nacked
            .then(|| NackReason::from_code(u64::from(self.nack)))
    }
}

/// A PIT entry: its first records and all its bookkeeping in two aligned cache lines (the
/// fields add up to 116 bytes; the timer wheel's links live in the wheel, one 16-byte node per
/// PIT slot). Records past the first live in the tail block.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub(crate) struct PitEntry {
    pub(crate) ins: [InRecord; IN_HEAD],
    pub(crate) outs: [OutRecord; OUT_HEAD],
    /// When the last in-record expires (max over in-records).
    pub(crate) expiry: u64,
    /// Last time an out-record was written.
    pub(crate) last_tx: u64,
    /// Current retransmission-suppression interval.
    pub(crate) suppress: u64,
    /// Owning PCC entry.
    pub(crate) key: u32,
    /// Tail block (records 2 to 4), [`NIL`] when none.
    pub(crate) tail: u32,
    pub(crate) n_in: u8,
    pub(crate) n_out: u8,
    /// In-records with CanBePrefix.
    pub(crate) n_cbp: u8,
    pub(crate) must_be_fresh: bool,
}

impl PitEntry {
    pub(crate) fn new(key: u32, must_be_fresh: bool, suppress: u64) -> Self {
        Self {
            ins: [InRecord::EMPTY; IN_HEAD],
            outs: [OutRecord::EMPTY; OUT_HEAD],
            expiry: 0,
            last_tx: 0,
            suppress,
            key,
            tail: NIL,
            n_in: 0,
            n_out: 0,
            n_cbp: 0,
            must_be_fresh,
        }
    }
}

impl PitEntry {
    /// Turns a recycled slot (see `Arena::alloc_reuse`) into a new entry with one in-record
    /// `first`: every field is written except the records past `n_in` / `n_out`, which nothing
    /// reads before it writes them (all record access is bounded by the counts). That is 19
    /// stores instead of building 128 bytes and copying them in. The timer wheel keeps its
    /// links outside the entry (see `wheel.rs`), so a recycled slot has none to reset.
    pub(crate) fn restart(
        &mut self,
        key: u32,
        must_be_fresh: bool,
        suppress: u64,
        first: InRecord,
    ) {
        if let Some(r) = self.ins.first_mut() {
            *r = first;
        }
        self.expiry = first.expiry;
        self.last_tx = 0;
        self.suppress = suppress;
        self.key = key;
        self.tail = NIL;
        self.n_in = 1;
        self.n_out = 0;
        self.n_cbp = u8::from(first.can_be_prefix());
        self.must_be_fresh = must_be_fresh;
    }
}

/// Records 2 to 4 of a PIT entry with more than one downstream or upstream (248 B; one per
/// PIT slot is reserved, so attaching one never fails).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tail {
    pub(crate) ins: [InRecord; IN_TAIL],
    pub(crate) outs: [OutRecord; OUT_TAIL],
    /// Extension block in the shared pool, [`NIL`] when none.
    pub(crate) ext: u32,
}

impl Tail {
    pub(crate) const EMPTY: Self = Self {
        ins: [InRecord::EMPTY; IN_TAIL],
        outs: [OutRecord::EMPTY; OUT_TAIL],
        ext: NIL,
    };
}

/// Extra records for a PIT entry with many downstreams or upstreams (bounded pool, 960 B).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ext {
    pub(crate) ins: [InRecord; IN_EXT],
    pub(crate) outs: [OutRecord; OUT_EXT],
}

impl Ext {
    pub(crate) const EMPTY: Self = Self {
        ins: [InRecord::EMPTY; IN_EXT],
        outs: [OutRecord::EMPTY; OUT_EXT],
    };
}

/// Which policy list a CS entry is on.
pub(crate) const T1: usize = 0;
pub(crate) const T2: usize = 1;
pub(crate) const B1: usize = 2;
pub(crate) const B2: usize = 3;

/// A CS entry: a cached Data (or, for ARC, the ghost of an evicted one). Its Data TLV is not
/// here but at the same index of `Pcct::cs_data` (`None` for an ARC ghost): without it the
/// entry is `Copy`, so the policy lists reach their entries without the arena's occupancy check
/// ([`Linked::entry_mut`] below, [`Arena::get_live`]).
///
/// [`Arena::get_live`]: ndnfwd_table::Arena::get_live
#[derive(Debug, Clone, Copy)]
pub(crate) struct CsEntry {
    /// Implicit digest, filled on first use.
    pub(crate) digest: Option<[u8; 32]>,
    /// Fresh while `now < fresh_until`.
    pub(crate) fresh_until: u64,
    pub(crate) link: Link,
    /// Owning PCC entry (the Data name's key).
    pub(crate) key: u32,
    /// Bytes of the Data.
    pub(crate) size: u32,
    /// PCC entries whose indirect part points here ([`NIL`] = free slot).
    pub(crate) indirect: [u32; MAX_INDIRECT],
    /// Policy list ([`T1`], [`T2`], [`B1`], [`B2`]).
    pub(crate) list: u8,
}

impl Linked for CsEntry {
    fn link(&self) -> Link {
        self.link
    }
    fn link_mut(&mut self) -> &mut Link {
        &mut self.link
    }
    /// Every index on a policy list is an allocated CS entry (entries leave their list before
    /// they are freed), and so is the entry a list operation is handed.
    fn entry_mut(arena: &mut Arena<Self>, i: u32) -> Option<&mut Self> {
        arena.get_live_mut(i)
    }
}

const _: () = assert!(size_of::<PccEntry>() <= PCC_ENTRY_BYTES);
const _: () = assert!(size_of::<InRecord>() == 56);
const _: () = assert!(size_of::<OutRecord>() == 24);
const _: () = assert!(size_of::<PitEntry>() <= PIT_ENTRY_BYTES);
const _: () = assert!(core::mem::align_of::<PitEntry>() == 64);
const _: () = assert!(size_of::<CsEntry>() <= CS_ENTRY_BYTES);
const _: () = assert!(MAX_IN_RECORDS <= u8::MAX as usize && MAX_OUT_RECORDS <= u8::MAX as usize);

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact sizes the docs quote (64-bit targets); the compile-time asserts above are
    /// the bounds that must hold everywhere.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn documented_sizes() {
        assert_eq!(size_of::<PccEntry>(), 48);
        assert_eq!(size_of::<PitEntry>(), 128);
        assert_eq!(size_of::<Tail>(), 248);
        assert_eq!(size_of::<CsEntry>(), 80);
        assert_eq!(size_of::<Ext>(), 960);
    }
}
