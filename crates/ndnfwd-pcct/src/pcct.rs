//! The `Pcct` struct: construction, the key table (PCC entries), tokens, part bookkeeping and
//! read-only accessors. The PIT, Data and CS operations, and the prefetch steps and burst
//! entry points, are `impl Pcct` blocks in `pit.rs`, `data.rs`, `cs.rs` and `prefetch.rs`.

use bytes::Bytes;
use ndn_packet::{FaceId, NackReason, NameHasher, PrefixHashes};
use ndnfwd_table::{AllocError, Arena, BucketTable, Place, SlotRef, TableWriter, ZeroedSlice};

use crate::api::{Counters, DataInfo, InterestInfo, PitHandle};
use crate::config::{CsPolicy, PcctConfig, UpstreamLifetime};
use crate::cs::ArcPending;
use crate::entry::{
    key_hash, CsEntry, Ext, PccEntry, PitEntry, Tail, B1, B2, IN_INLINE, MAX_INDIRECT,
    MAX_IN_RECORDS, MAX_OUT_RECORDS, OUT_INLINE, T1, T2,
};
use crate::list::{Ring, NIL};
use crate::records::{fits_head, Pools, View};
use crate::token::{Issued, PitToken, GENERATION_MASK};
use crate::wheel::Wheel;
use ndn_packet::LpToken;

/// Burst group size of the burst entry points: buckets of group `i + 1` are prefetched while
/// group `i` is processed (see `ndnfwd_table::prefetch_read` for the distance rationale).
pub const BURST_GROUP: usize = 8;

/// How a matched PCC entry relates to a Data name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Relation {
    /// Same name: every in-record is satisfied.
    Exact,
    /// The entry's name is a proper prefix: CanBePrefix in-records are satisfied.
    Prefix,
    /// The entry's name is the Data's full name (implicit digest): all satisfied.
    Digest,
}

/// `Pcct::new` could not reserve the configured tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewError {
    /// The capacities add up to more than `u32` entry indices.
    TooLarge,
    /// Mapping the memory failed.
    Alloc(AllocError),
}

impl From<AllocError> for NewError {
    fn from(e: AllocError) -> Self {
        Self::Alloc(e)
    }
}

impl core::fmt::Display for NewError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::TooLarge => f.write_str("PCCT capacities exceed u32 indices"),
            Self::Alloc(e) => write!(f, "PCCT memory: {e}"),
        }
    }
}

impl std::error::Error for NewError {}

/// A downstream in-record, as [`Pcct::in_records`] shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InRecordInfo {
    /// Downstream face.
    pub face: FaceId,
    /// Last nonce from it.
    pub nonce: u32,
    /// When it expires.
    pub expiry: u64,
    /// Its PIT token.
    pub token: LpToken,
    /// HopLimit it sent.
    pub hop_limit: Option<u8>,
    /// CanBePrefix it sent.
    pub can_be_prefix: bool,
    /// CongestionMark it sent.
    pub congestion_mark: u8,
}

/// An upstream out-record, as [`Pcct::out_records`] shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutRecordInfo {
    /// Upstream face.
    pub face: FaceId,
    /// Nonce last sent to it.
    pub nonce: u32,
    /// When it was last sent.
    pub sent: u64,
    /// Nack received from it, if any.
    pub nacked: Option<NackReason>,
}

/// A received Interest and its ingress face, for [`Pcct::on_interest_burst`].
#[derive(Debug, Clone, Copy)]
pub struct InterestArrival<'a> {
    /// The Interest.
    pub interest: InterestInfo<'a>,
    /// Ingress face.
    pub face: FaceId,
}

/// A received Data with its ingress face and token, for [`Pcct::on_data_burst`].
#[derive(Debug, Clone)]
pub struct DataArrival<'a> {
    /// The Data.
    pub data: DataInfo<'a>,
    /// Ingress face.
    pub face: FaceId,
    /// The PIT token it carried, if any.
    pub token: Option<&'a [u8]>,
    /// Whether the ingress face is local (unsolicited policy).
    pub face_is_local: bool,
}

/// The PIT-CS composite table of one worker. Not `Sync`-shared: one thread owns it.
pub struct Pcct {
    pub(crate) cfg: PcctConfig,
    pub(crate) hasher: NameHasher,
    pub(crate) table: BucketTable,
    pub(crate) writer: TableWriter,
    /// Per home bucket of `table`, the slots (bit `s` for slot `s`) of keys freed without
    /// clearing their table slot ([`Pcct::free_key_inline`]); an insert that finds that
    /// bucket full clears them ([`Pcct::insert_key_inline`]).
    pub(crate) retired: ZeroedSlice<u8>,
    pub(crate) keys: Arena<PccEntry>,
    /// Generation of each key slot, bumped when the slot is freed.
    pub(crate) gens: ZeroedSlice<u32>,
    pub(crate) pits: Arena<PitEntry>,
    /// The PIT entries' records past their own: tail blocks and extension blocks.
    pub(crate) pools: Pools,
    pub(crate) cs: Arena<CsEntry>,
    /// The Data TLV of CS entry `i` at index `i` (`None` for an ARC ghost or a free slot):
    /// apart from the entry so that the entry is `Copy` (see [`CsEntry`]). Reserved for every CS
    /// slot up front and grown only as far as the arena has handed slots out.
    pub(crate) cs_data: Vec<Option<Bytes>>,
    /// Policy lists: LRU and FIFO use `T1` only; ARC uses all four.
    pub(crate) lists: [Ring; 4],
    /// ARC's target size of T1.
    pub(crate) arc_p: u32,
    pub(crate) arc_pending: ArcPending,
    pub(crate) cs_bytes: u64,
    pub(crate) wheel: Wheel,
    /// PIT entries holding at least one CanBePrefix in-record.
    pub(crate) cbp_pending: u32,
    /// PIT entries whose name ends in an implicit digest.
    pub(crate) digest_pending: u32,
    pub(crate) counters: Counters,
    pub(crate) issued: Issued,
    pub(crate) upstream_lifetime: UpstreamLifetime,
    pub(crate) matched: Vec<(u32, Relation)>,
    /// Scratch list of PIT parts: due ones in `expire`, the face's ones in `purge_face`.
    pub(crate) due: Vec<u32>,
    pub(crate) scratch_name: Vec<u8>,
    pub(crate) scratch_hashes: PrefixHashes,
    /// Whether the operations prefetch ahead on their own (the next entry's slots, the LRU
    /// victims): see [`Pcct::set_prefetch`].
    pub(crate) prefetch: bool,
    /// New PIT entries still to come whose slots the last [`Pcct::prefetch_next_entry`] group
    /// fetched (it fetches the next group when this is 0).
    pub(crate) slots_ahead: u32,
}

impl core::fmt::Debug for Pcct {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pcct")
            .field("worker_id", &self.cfg.worker_id)
            .field("pit", &self.len_pit())
            .field("cs", &self.len_cs())
            .field("keys", &self.keys.len())
            .finish_non_exhaustive()
    }
}

impl Pcct {
    /// Reserves every table of `cfg`. `hasher` must carry the key the caller hashes names with
    /// (it is used only to hash Data name + implicit digest when an Interest asks for one).
    ///
    /// Key slots: `pit_capacity + (cs_capacity_packets + 1) * (1 + MAX_INDIRECT)` (+ one ghost
    /// per CS packet for ARC), so a CS insert never fails for want of a key.
    pub fn new(cfg: PcctConfig, hasher: NameHasher) -> Result<Self, NewError> {
        let c = u64::from(cfg.cs_capacity_packets);
        let ghosts = if cfg.cs_policy == CsPolicy::Arc { c } else { 0 };
        let cs_slots = c + ghosts + 1;
        let key_slots = u64::from(cfg.pit_capacity) + (c + 1) * (1 + MAX_INDIRECT as u64) + ghosts;
        let cs_slots = u32::try_from(cs_slots).map_err(|_| NewError::TooLarge)?;
        let key_slots = u32::try_from(key_slots).map_err(|_| NewError::TooLarge)?;
        let table = BucketTable::try_with_capacity(key_slots as usize, 0)?;
        let writer = table.take_writer().ok_or(NewError::TooLarge)?;
        Ok(Self {
            hasher,
            writer,
            retired: ZeroedSlice::new(table.bucket_count())?,
            table,
            keys: Arena::try_with_capacity(key_slots)?,
            gens: ZeroedSlice::new(key_slots as usize)?,
            pits: Arena::try_with_capacity(cfg.pit_capacity)?,
            pools: Pools {
                tails: Arena::try_with_capacity(cfg.pit_capacity)?,
                exts: Arena::try_with_capacity(cfg.record_ext_capacity)?,
            },
            cs: Arena::try_with_capacity(cs_slots)?,
            cs_data: {
                let mut v = Vec::new();
                v.try_reserve_exact(cs_slots as usize)
                    .map_err(|_| NewError::TooLarge)?;
                v
            },
            lists: [Ring::EMPTY; 4],
            arc_p: 0,
            arc_pending: ArcPending::None,
            cs_bytes: 0,
            wheel: Wheel::new(cfg.lifetime_cap_ns, cfg.pit_capacity)?,
            cbp_pending: 0,
            digest_pending: 0,
            prefetch: true,
            slots_ahead: 0,
            counters: Counters::default(),
            issued: Issued::NONE,
            upstream_lifetime: UpstreamLifetime::new(&cfg),
            matched: Vec::with_capacity(16),
            due: Vec::with_capacity(256),
            scratch_name: Vec::new(),
            scratch_hashes: PrefixHashes::default(),
            cfg,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PcctConfig {
        &self.cfg
    }

    /// Event counters.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Live PIT entries.
    pub fn len_pit(&self) -> usize {
        self.pits.len()
    }

    /// Cached Data packets (ARC ghosts and indirect entries not counted).
    pub fn len_cs(&self) -> usize {
        (self.lists[T1].len() + self.lists[T2].len()) as usize
    }

    /// Bytes of cached Data.
    pub fn cs_bytes(&self) -> u64 {
        self.cs_bytes
    }

    /// PCC entries (keys) in the hash table: PIT, CS, indirect and ghost entries.
    pub fn len_keys(&self) -> usize {
        self.keys.len()
    }

    /// ARC ghost entries (names of recently evicted Data), 0 for other policies.
    pub fn len_ghosts(&self) -> usize {
        (self.lists[B1].len() + self.lists[B2].len()) as usize
    }

    /// Address space reserved by all tables and pools (resident memory grows with use).
    pub fn memory_bytes(&self) -> usize {
        self.table.memory_bytes()
            + self.retired.len()
            + self.keys.memory_bytes()
            + self.pits.memory_bytes()
            + self.pools.memory_bytes()
            + self.cs.memory_bytes()
            + self.cs_data.capacity() * core::mem::size_of::<Option<Bytes>>()
            + self.gens.len() * 4
            + self.wheel.memory_bytes()
    }

    // ----- key table -----

    /// The key of (`id`, `fh`) under table hash `hash`. The PCCT holds the table's only writer,
    /// so it looks up as the writer: one walk, no re-validation of a miss.
    pub(crate) fn find_key(&self, hash: u64, id: u128, fh: Option<u64>) -> Option<u32> {
        self.find_key_inline(hash, id, fh)
    }

    /// [`Pcct::find_key`] inlined into its caller, for the one lookup of every Interest (a
    /// call there costs about 20 instructions of prologue, epilogue and argument passing).
    /// A slot may hold a freed key (retired: [`Pcct::free_key_inline`]), whose entry, read
    /// as it was left, never matches. The whole bucket is compared at once
    /// ([`BucketTable::lookup_writer`]): with retired slots, buckets hold several.
    #[inline(always)]
    pub(crate) fn find_key_inline(&self, hash: u64, id: u128, fh: Option<u64>) -> Option<u32> {
        let keys = &self.keys;
        self.table.lookup_writer(&self.writer, hash, |i| {
            keys.get_any(i).is_some_and(|e| e.matches(id, fh))
        })
    }

    /// Finds the key of the `n`-component prefix of a hashed name.
    pub(crate) fn find_prefix(&self, h: &PrefixHashes, n: usize, fh: Option<u64>) -> Option<u32> {
        let id = h.id128(n)?;
        self.find_key(key_hash(id as u64, fh), id, fh)
    }

    /// Adds a key; `None` when the key arena or the bucket table is full. Out of line: inlined,
    /// it makes the Data path's `or_else` around it an outlined call.
    #[inline(never)]
    pub(crate) fn insert_key(&mut self, e: PccEntry) -> Option<u32> {
        let place = self.table.place(e.hash());
        self.insert_key_inline(e, place)
    }

    /// [`Pcct::insert_key`] inlined into its caller, for the new key of an Interest, which
    /// already has the key's table place (`BucketTable::place` of `e.hash()`) from its lookup.
    /// The key's table slot goes into its `at`. If the key's home bucket is full, its retired
    /// slots are cleared first, so that retired slots never lengthen a chain. (Left in place
    /// otherwise: reading `retired` on every insert costs an Interest a random page of its
    /// own; s22-dwalk.)
    #[inline(always)]
    pub(crate) fn insert_key_inline(&mut self, e: PccEntry, place: Place) -> Option<u32> {
        let k = self.keys.alloc(e).ok()?;
        let retired = &mut self.retired;
        let take = || retired.get_mut(place.home()).map_or(0, core::mem::take);
        match self
            .table
            .insert_at_clearing(&mut self.writer, place, k, take)
        {
            Ok(at) => {
                if let Some(key) = self.keys.get_live_mut(k) {
                    key.at = at;
                }
                Some(k)
            }
            Err(_) => {
                self.release_key_slot(k);
                None
            }
        }
    }

    #[inline(always)]
    fn release_key_slot(&mut self, k: u32) {
        if self.keys.free(k).is_none() {
            return;
        }
        if let Some(g) = self.gens.get_mut(k as usize) {
            *g = g.wrapping_add(1) & GENERATION_MASK;
        }
    }

    /// Removes key `k` if it holds no PIT part and no CS part. `k` is an index the PCCT holds
    /// (a PIT entry's or CS entry's key, an indirect entry, a matched key), so it is read
    /// without the occupancy check.
    /// Out of line: inlined, its table removal weighs on `on_data`'s common path, which
    /// settles its one key through `cs_store` and never calls it.
    #[inline(never)]
    pub(crate) fn maybe_free_key(&mut self, k: u32) {
        let Some(e) = self.keys.get_live(k) else {
            return;
        };
        if !e.is_empty() {
            return;
        }
        self.free_key(k, e.hash(), e.at);
    }

    /// Removes empty key `k` (whose hash is `hash` and table slot `at`) from the table and
    /// frees its slot.
    pub(crate) fn free_key(&mut self, k: u32, hash: u64, at: SlotRef) {
        self.free_key_inline(k, hash, at);
    }

    /// [`Pcct::free_key`] inlined into its caller, for the CS recycle, which frees its victim's
    /// key for nearly every Data a full CS takes.
    ///
    /// A key in its home bucket (nearly all: the table is sized for a worst case) is retired
    /// without touching the table: its slot is marked in `retired`, and the next insert into
    /// that bucket clears it. The bucket is a random line of a table far larger than the
    /// caches, usually on a page no TLB entry covers, so reading it costs a Data ~70 cycles
    /// even prefetched (s22-dwalk). Meanwhile the slot still names `k`; lookups that meet it
    /// read `k`'s entry as it was left, and it never matches, because the key's identity is
    /// complemented here ([`PccEntry::retire`]); a later key in slot `k` that is another name
    /// fails the identity test as any other key does, and one of the same name is the same
    /// key, which the lookup may then find through either slot (both name `k`). A
    /// key in an overflow bucket is removed at once ([`BucketTable::remove_at`]), since an
    /// empty overflow bucket must be unlinked.
    #[inline(always)]
    pub(crate) fn free_key_inline(&mut self, k: u32, hash: u64, at: SlotRef) {
        match at.home_slot() {
            Some(s) => {
                if let Some(r) = self.retired.get_mut(self.table.place(hash).home()) {
                    *r |= 1 << s;
                }
                if let Some(e) = self.keys.get_live_mut(k) {
                    e.retire();
                }
            }
            None => {
                self.table.remove_at(&mut self.writer, hash, at, k);
            }
        }
        self.release_key_slot(k);
    }

    pub(crate) fn token_of(&self, k: u32) -> PitToken {
        let generation = self.gens.get(k as usize).copied().unwrap_or(0);
        PitToken::new(self.cfg.worker_id, generation, k)
    }

    /// The live key a token names (right worker, allocated slot, same generation).
    pub(crate) fn token_key(&self, t: PitToken) -> Option<u32> {
        self.token_entry(t).map(|(k, _)| k)
    }

    /// [`Pcct::token_key`] and the key's entry, from one key access.
    pub(crate) fn token_entry(&self, t: PitToken) -> Option<(u32, &PccEntry)> {
        let k = t.index();
        let ours =
            t.worker() == self.cfg.worker_id && self.gens.get(k as usize) == Some(&t.generation());
        Some((k, self.keys.get(k).filter(|_| ours)?))
    }

    pub(crate) fn handle_of(&self, p: u32) -> Option<PitHandle> {
        let e = self.pits.get_live(p)?;
        Some(PitHandle {
            token: self.token_of(e.key),
            must_be_fresh: e.must_be_fresh,
        })
    }

    /// The PIT part a handle names, if still live.
    pub(crate) fn handle_part(&self, h: PitHandle) -> Option<u32> {
        let p = self.token_entry(h.token)?.1.pit[usize::from(h.must_be_fresh)];
        (p != NIL).then_some(p)
    }

    // ----- PIT part bookkeeping -----

    /// Makes room for one more in- (or out-) record of part `p`, attaching a tail block when
    /// the entry's own records are used up and an extension block when the tail's are too.
    /// False when the entry or the extension pool is full.
    pub(crate) fn reserve_record(&mut self, p: u32, out: bool) -> bool {
        let Some(e) = self.pits.get_live_mut(p) else {
            return false;
        };
        let (n, inline, max) = if out {
            (e.n_out, OUT_INLINE, MAX_OUT_RECORDS)
        } else {
            (e.n_in, IN_INLINE, MAX_IN_RECORDS)
        };
        if fits_head(n, out) {
            return true;
        }
        if usize::from(n) >= max {
            return false;
        }
        if e.tail == NIL {
            // One tail per PIT slot is reserved: this fails only if that count is wrong.
            match self.pools.tails.alloc(Tail::EMPTY) {
                Ok(t) => e.tail = t,
                Err(_) => return false,
            }
        }
        if usize::from(n) < inline {
            return true;
        }
        let Some(tail) = self.pools.tails.get_live_mut(e.tail) else {
            return false;
        };
        if tail.ext != NIL {
            return true;
        }
        match self.pools.exts.alloc(Ext::EMPTY) {
            Ok(x) => {
                tail.ext = x;
                true
            }
            Err(_) => false,
        }
    }

    /// After in-records of part `p` changed: recount CanBePrefix records, recompute the expiry
    /// and make sure the wheel will visit it in time. `had_cbp` is whether the part had
    /// CanBePrefix records before.
    pub(crate) fn refresh_part(&mut self, p: u32, had_cbp: bool) {
        let Some(e) = self.pits.get_live(p) else {
            return;
        };
        let v = View::new(e, &self.pools);
        let (n_cbp, expiry) = (v.count_cbp(), v.max_expiry());
        let old_expiry = e.expiry;
        if let Some(e) = self.pits.get_live_mut(p) {
            e.n_cbp = n_cbp as u8;
            e.expiry = expiry;
        }
        match (had_cbp, n_cbp > 0) {
            (false, true) => self.cbp_pending += 1,
            (true, false) => self.cbp_pending -= 1,
            _ => {}
        }
        if expiry != old_expiry {
            self.wheel.schedule(p, expiry);
        }
    }

    /// Frees PIT part `p` (tail and extension block, part slot; the wheel forgets it lazily)
    /// and returns its key, which the caller frees with [`Pcct::maybe_free_key`] once done
    /// with it.
    pub(crate) fn free_part(&mut self, p: u32) -> Option<u32> {
        self.free_part_inline(p)
    }

    /// [`Pcct::free_part`] inlined into its caller, for the Data path, which frees the part of
    /// nearly every Data it satisfies: [`Pcct::release_part`], then the key's part cleared.
    #[inline(always)]
    pub(crate) fn free_part_inline(&mut self, p: u32) -> Option<u32> {
        let (key_index, must_be_fresh) = self.release_part(p)?;
        let key = self.keys.get_live_mut(key_index)?;
        if key.digest() {
            self.digest_pending -= 1;
        }
        key.pit[usize::from(must_be_fresh)] = NIL;
        Some(key_index)
    }

    /// The part's half of [`Pcct::free_part`]: extension block, part slot and counters (the
    /// timer wheel is not told: its sweep finds the slot free or taken by a later entry).
    /// Returns the part's key and MustBeFresh; the key still names the part, and the caller
    /// clears it (and counts `digest_pending` down for a digest key). For the exact-token Data,
    /// which clears its key's parts in the same access that attaches the CS part.
    #[inline(always)]
    pub(crate) fn release_part(&mut self, p: u32) -> Option<(u32, bool)> {
        // Only the bookkeeping fields are needed, not a copy of the whole entry.
        let e = self.pits.get_live(p)?;
        let (tail, n_cbp, key_index, must_be_fresh) = (e.tail, e.n_cbp, e.key, e.must_be_fresh);
        self.pits.free(p);
        if self.issued.part == p {
            self.issued.part = NIL;
        }
        if tail != NIL {
            self.pools.free_tail(tail);
        }
        if n_cbp > 0 {
            self.cbp_pending -= 1;
        }
        Some((key_index, must_be_fresh))
    }

    // ----- read-only views -----

    /// The in-records of a live PIT entry (for strategies and the PIT status dataset).
    pub fn in_records(&self, h: PitHandle) -> impl Iterator<Item = InRecordInfo> + '_ {
        let view = self
            .handle_part(h)
            .and_then(|p| self.pits.get(p))
            .map(|e| View::new(e, &self.pools));
        view.into_iter().flat_map(View::ins).map(|r| InRecordInfo {
            face: r.face,
            nonce: r.nonce,
            expiry: r.expiry,
            token: r.token,
            hop_limit: r.hop_limit(),
            can_be_prefix: r.can_be_prefix(),
            congestion_mark: r.mark,
        })
    }

    /// The out-records of a live PIT entry.
    pub fn out_records(&self, h: PitHandle) -> impl Iterator<Item = OutRecordInfo> + '_ {
        let view = self
            .handle_part(h)
            .and_then(|p| self.pits.get(p))
            .map(|e| View::new(e, &self.pools));
        view.into_iter()
            .flat_map(View::outs)
            .map(|r| OutRecordInfo {
                face: r.face,
                nonce: r.nonce,
                sent: r.sent,
                nacked: r.nack_reason(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::InterestOutcome;
    use ndn_packet::{Name, SipVariant};

    /// The key an Interest finds is among the candidates its speculative prefetch visits, with
    /// and without a forwarding hint.
    #[test]
    fn interest_candidates_include_the_key_found() {
        let hasher = NameHasher::new([5; 16], SipVariant::Sip13);
        let mut pcct = Pcct::new(PcctConfig::default(), hasher.clone()).unwrap();
        let name = Name::from_uri("/x/y").unwrap();
        let mut h = PrefixHashes::default();
        hasher.hash_prefixes(name.as_ref(), &mut h);
        for (nonce, fh) in [(1, None), (2, Some(0x1234_5678_9abc_def0))] {
            let it = InterestInfo {
                name: name.as_ref(),
                hashes: &h,
                can_be_prefix: false,
                must_be_fresh: false,
                forwarding_hint_hash: fh,
                nonce,
                lifetime_ns: None,
                hop_limit: None,
                token: &LpToken::EMPTY,
                congestion_mark: 0,
            };
            let mut seen = Vec::new();
            pcct.for_each_interest_candidate(&it, |k| seen.push(k));
            assert!(seen.is_empty(), "not inserted yet");
            let InterestOutcome::NewPit { pit } = pcct.on_interest(0, &it, 1) else {
                panic!("new entry expected");
            };
            pcct.for_each_interest_candidate(&it, |k| seen.push(k));
            assert_eq!(seen, vec![pit.token.index()], "{fh:?}");
        }
    }

    /// Keys freed through the CS recycle are retired (their table slots left until the next
    /// insert into their bucket): on a table of 8 home buckets, thousands of names come and go
    /// through a 4-packet LRU CS, and every answer is the one a cleared slot would give (an
    /// evicted name misses the CS and takes a new PIT entry; a cached one hits), the retired
    /// slots are exactly the table's surplus over the live keys, and the chains never grow
    /// past what the live keys need (no overflow bucket is ever taken: at most 4 + 1 keys
    /// live at once).
    #[test]
    fn retired_slots_change_no_answer_and_stay_bounded() {
        let hasher = NameHasher::new([9; 16], SipVariant::Sip13);
        let cfg = PcctConfig {
            pit_capacity: 1,
            cs_capacity_packets: 4,
            ..PcctConfig::default()
        };
        let mut pcct = Pcct::new(cfg, hasher.clone()).unwrap();
        assert_eq!(pcct.table.bucket_count(), 8);
        let mut h = PrefixHashes::default();
        let mut down = Vec::new();
        let mut most_retired = 0;
        // Names 0..64 cycle 64 times: each is evicted (4 later names) long before it returns.
        for round in 0..4096u32 {
            let name = Name::from_uri(&format!("/r/{}", round % 64)).unwrap();
            hasher.hash_prefixes(name.as_ref(), &mut h);
            let it = InterestInfo {
                name: name.as_ref(),
                hashes: &h,
                can_be_prefix: false,
                must_be_fresh: false,
                forwarding_hint_hash: None,
                nonce: round,
                lifetime_ns: None,
                hop_limit: None,
                token: &LpToken::EMPTY,
                congestion_mark: 0,
            };
            let InterestOutcome::NewPit { pit } = pcct.on_interest(0, &it, 1) else {
                panic!("round {round}: an evicted name must miss the CS");
            };
            pcct.record_out(0, pit, 2, round).unwrap();
            let mut wire = Vec::new();
            ndn_packet::tlv::write_tlv(&mut wire, 6, &name.to_wire());
            let wire = Bytes::from(wire);
            let d = DataInfo {
                name: name.as_ref(),
                id: hasher.name_id(name.as_ref()),
                freshness_ns: u64::MAX,
                wire: &wire,
                digest: None,
                no_cache: false,
            };
            let token = pit.token.to_bytes();
            down.clear();
            let out = pcct.on_data(0, &d, 2, Some(&token), false, &mut down);
            assert!(
                out.via_token && out.cached && out.matched == 1,
                "round {round}"
            );
            let hit = pcct.on_interest(
                0,
                &InterestInfo {
                    nonce: !round,
                    ..it
                },
                3,
            );
            assert!(
                matches!(hit, InterestOutcome::CsHit { .. }),
                "round {round}"
            );
            let retired: usize = pcct.retired.iter().map(|r| r.count_ones() as usize).sum();
            assert_eq!(pcct.table.len(), pcct.len_keys() + retired, "round {round}");
            most_retired = most_retired.max(retired);
            assert_eq!(pcct.table.overflow_in_use(), 0, "round {round}");
        }
        assert_eq!(pcct.len_keys(), 4);
        assert!(pcct.counters().evictions >= 4092);
        assert!(most_retired > 0, "the recycle retires its victims' slots");
    }
}
