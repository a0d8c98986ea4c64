//! Content Store part of the PCCT: lookup for Interests, store on Data, indirect entries for
//! CanBePrefix, replacement (LRU, ARC, FIFO) under a packet and a byte limit, and erase by
//! prefix.
//!
//! Eviction runs once at the end of each `on_data` ([`Pcct::cs_evict`]), after every key the
//! Data touched has been settled, so an eviction never pulls a key out from under the Data path.
//! ARC follows Megiddo and Modha's algorithm with the admission step split in two: `cs_store`
//! adapts `p` and files the new entry, recording what REPLACE and ghost trimming must do
//! ([`ArcPending`]); `cs_evict` does it, never choosing the entry just admitted. REPLACE only
//! runs when the resident lists are over capacity (after `cs_erase` holes, ARC would evict early).

use bytes::Bytes;
use ndn_packet::tlv::{self, tt};
use ndn_packet::NameRef;
use ndnfwd_table::prefetch_read;

use crate::api::DataInfo;
use crate::config::CsPolicy;
use crate::data::sha256;
use crate::entry::{CsEntry, PccEntry, B1, B2, FLAG_INDIRECT, MAX_INDIRECT, T1, T2};
use crate::list::{Link, NIL};
use crate::pcct::Pcct;

/// ARC work left by the admission of entry `x`, done by `cs_evict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArcPending {
    None,
    Admit {
        x: u32,
        /// `x` was a ghost in B2 (REPLACE's tie rule).
        from_b2: bool,
        /// Drop the LRU of this list first (T1: evict without ghost; B1/B2: forget a ghost).
        delete: Option<usize>,
        /// Then run REPLACE.
        replace: bool,
    },
}

/// The Name of a Data TLV.
fn data_name(wire: &[u8]) -> Option<NameRef<'_>> {
    let data = tlv::Reader::new(wire).read().ok()?;
    if data.typ != tt::DATA {
        return None;
    }
    let name = data.children().read().ok()?;
    if name.typ != tt::NAME {
        return None;
    }
    NameRef::new_checked(name.value).ok()
}

impl Pcct {
    /// The Data an Interest can take from the CS (see `on_interest` for the rules).
    pub(crate) fn cs_lookup(
        &mut self,
        now: u64,
        k: Option<u32>,
        it: &crate::api::InterestInfo<'_>,
        n: usize,
        digest: Option<[u8; 32]>,
    ) -> Option<Bytes> {
        if let Some(e) = k.and_then(|k| self.keys.get_live(k)) {
            if e.cs != NIL && (!e.indirect() || it.can_be_prefix) {
                if let Some(b) = self.cs_use(now, e.cs, it.must_be_fresh) {
                    return Some(b);
                }
            }
        }
        let want = digest?;
        let pk = self.find_prefix(it.hashes, n.checked_sub(1)?, it.forwarding_hint_hash)?;
        let pe = self.keys.get_live(pk)?;
        if pe.cs == NIL || pe.indirect() {
            return None;
        }
        let c = pe.cs;
        if self.cs_digest(c)? != want {
            return None;
        }
        self.cs_use(now, c, it.must_be_fresh)
    }

    /// Returns the Data of CS entry `c` if it is resident (and fresh when required); counts
    /// as a policy hit.
    fn cs_use(&mut self, now: u64, c: u32, must_be_fresh: bool) -> Option<Bytes> {
        let e = self.cs.get(c)?;
        let data = self.cs_data.get(c as usize)?.as_ref()?;
        if must_be_fresh && now >= e.fresh_until {
            return None;
        }
        let data = data.clone();
        let list = usize::from(e.list);
        match self.cfg.cs_policy {
            CsPolicy::Lru => self.lists[T1].move_to_back(&mut self.cs, c),
            CsPolicy::Fifo => {}
            CsPolicy::Arc => self.move_to(c, list, T2),
        }
        Some(data)
    }

    /// The implicit digest of resident CS entry `c`, computed once.
    fn cs_digest(&mut self, c: u32) -> Option<[u8; 32]> {
        let e = self.cs.get_mut(c)?;
        if e.digest.is_none() {
            e.digest = Some(sha256(self.cs_data.get(c as usize)?.as_ref()?));
        }
        e.digest
    }

    fn move_to(&mut self, c: u32, from: usize, to: usize) {
        let Some(e) = self.cs.get_mut(c) else { return };
        e.list = to as u8;
        if let Some(l) = self.lists.get_mut(from) {
            l.remove(&mut self.cs, c);
        }
        if let Some(l) = self.lists.get_mut(to) {
            l.push_back(&mut self.cs, c);
        }
    }

    /// Puts `d` in the CS under key `k` (the Data name's key), replacing an indirect part and
    /// refreshing an existing entry or ghost, and attaches the CS entry to `k`. Returns the CS
    /// entry. No eviction happens here, except that with `recycle` a full LRU/FIFO CS hands the
    /// slot of the entry the end-of-Data eviction would remove to the new Data
    /// ([`Pcct::cs_recycle`]).
    pub(crate) fn cs_store(
        &mut self,
        now: u64,
        k: u32,
        d: &DataInfo<'_>,
        digest: Option<&[u8; 32]>,
        recycle: bool,
    ) -> Option<u32> {
        let e = *self.keys.get_live(k)?;
        let c = self.cs_store_as(now, k, &e, d, digest, recycle)?;
        if let Some(e) = self.keys.get_live_mut(k) {
            e.cs = c;
        }
        Some(c)
    }

    /// [`Pcct::cs_store`] for a caller holding a copy of key `k`'s entry whose CS part and
    /// flags are current (the exact-token Data path read it for the token check), without the
    /// attach: the caller sets `k`'s CS part to the entry returned (a direct part: the flags
    /// carry no [`FLAG_INDIRECT`] any more), in the same access as its other writes to `k`.
    #[inline(always)]
    pub(crate) fn cs_store_as(
        &mut self,
        now: u64,
        k: u32,
        e: &PccEntry,
        d: &DataInfo<'_>,
        digest: Option<&[u8; 32]>,
        recycle: bool,
    ) -> Option<u32> {
        let c = if e.indirect() {
            self.detach_indirect(k);
            NIL
        } else {
            e.cs
        };
        let size = u32::try_from(d.wire.len()).unwrap_or(u32::MAX);
        let fresh_until = now.saturating_add(d.freshness_ns);
        if c != NIL {
            let entry = self.cs.get_mut(c)?;
            let old = self
                .cs_data
                .get_mut(c as usize)?
                .replace(Bytes::clone(d.wire));
            let was_ghost = old.is_none();
            self.cs_bytes -= u64::from(if was_ghost { 0 } else { entry.size });
            self.cs_bytes += u64::from(size);
            entry.size = size;
            entry.digest = digest.copied();
            entry.fresh_until = fresh_until;
            let list = usize::from(entry.list);
            match self.cfg.cs_policy {
                CsPolicy::Lru | CsPolicy::Fifo => self.lists[T1].move_to_back(&mut self.cs, c),
                CsPolicy::Arc if was_ghost => self.arc_ghost_hit(c, list),
                CsPolicy::Arc => self.move_to(c, list, T2),
            }
            self.counters.cs_inserts += 1;
            return Some(c);
        }
        if recycle {
            if let Some(c) = self.cs_recycle(k, d.wire, size, digest, fresh_until) {
                return Some(c);
            }
        }
        self.cs_insert_new(k, d.wire, size, digest, fresh_until)
    }

    /// [`Pcct::cs_store_as`] into a new CS slot (a CS with room, ARC, or a victim the recycle
    /// cannot take). Out of line: a full LRU/FIFO CS recycles instead.
    #[inline(never)]
    fn cs_insert_new(
        &mut self,
        k: u32,
        wire: &Bytes,
        size: u32,
        digest: Option<&[u8; 32]>,
        fresh_until: u64,
    ) -> Option<u32> {
        // Built in the slot: a CS entry is 80 bytes.
        let c = self.cs.alloc_with(|| CsEntry {
            digest: digest.copied(),
            fresh_until,
            link: Link::UNLINKED,
            key: k,
            size,
            indirect: [NIL; MAX_INDIRECT],
            list: T1 as u8,
        })?;
        let data = Some(Bytes::clone(wire));
        let n = self.cs_data.len();
        match self.cs_data.get_mut(c as usize) {
            Some(s) => *s = data,
            // A slot the arena hands out for the first time is the vector's next one: it holds
            // one for every index below the arena's bump (reserved: no reallocation).
            None if n == c as usize => self.cs_data.push(data),
            None => {
                self.cs_data.resize(c as usize, None);
                self.cs_data.push(data);
            }
        }
        self.cs_bytes += u64::from(size);
        if self.cfg.cs_policy == CsPolicy::Arc {
            self.arc_admit_new(c);
        } else {
            self.lists[T1].push_back(&mut self.cs, c);
        }
        self.counters.cs_inserts += 1;
        Some(c)
    }

    /// CS insert and eviction in one step, for LRU and FIFO when the CS is full in packets:
    /// the front of T1 (the entry the eviction at the end of `on_data` would remove) takes the
    /// Data of key `k` in place and moves to the back. That is the same end state as a new
    /// entry at the back and then `cs_remove` of the front (same victim, same counters, the
    /// victim's key freed if left empty, the byte limit still enforced by `cs_evict`), without
    /// freeing and allocating a CS slot or unlinking a node only to link another. `None` (the
    /// caller inserts normally) for ARC, a CS with room, or a victim with indirect entries.
    /// Inlined into the store: a full CS recycles on every Data, and the call's argument
    /// shuffling and register saves cost more than its body's own bookkeeping.
    #[inline(always)]
    fn cs_recycle(
        &mut self,
        k: u32,
        wire: &Bytes,
        size: u32,
        digest: Option<&[u8; 32]>,
        fresh_until: u64,
    ) -> Option<u32> {
        let cap = self.cfg.cs_capacity_packets as usize;
        if self.cfg.cs_policy == CsPolicy::Arc || self.len_cs() < cap {
            return None;
        }
        let list = &mut self.lists[T1];
        let v = list.front()?;
        // The front of T1 is a CS entry: no occupancy check (`CsEntry` is `Copy`).
        let e = self.cs.get_live_mut(v)?;
        let victim_key = e.key;
        if e.indirect != [NIL; MAX_INDIRECT] || victim_key == k {
            return None;
        }
        let slot = self.cs_data.get_mut(v as usize)?;
        let resident = e.size;
        e.size = size;
        // Usually `None`: a store of the tag alone. Written as two stores, since
        // `digest.copied()` copies the 32 bytes behind the tag whichever it is.
        match digest {
            Some(x) => e.digest = Some(*x),
            None => e.digest = None,
        }
        e.fresh_until = fresh_until;
        e.key = k;
        // The victim is the front, and T1 is a ring: moving it to the back is a rotation, no
        // link written. The new front `v1` is the next victim (for the prefetch).
        let v1 = e.link.next;
        list.rotate(v1);
        self.counters.cs_inserts += 1;
        if slot.replace(Bytes::clone(wire)).is_some() {
            self.cs_bytes -= u64::from(resident);
        }
        self.cs_bytes += u64::from(size);
        // The victim's key loses its CS part, and is freed if that leaves it empty: one access.
        if let Some(e) = self.keys.get_live_mut(victim_key) {
            e.cs = NIL;
            if e.is_empty() {
                let (hash, at) = (e.hash(), e.at);
                self.free_key_inline(victim_key, hash, at);
            }
        }
        self.counters.evictions += 1;
        if self.prefetch {
            if let Some(e1) = self.cs.get_live(v1) {
                self.prefetch_victims(e1.link.next);
            }
        }
        Some(v)
    }

    /// Starts fetching what the next recycles will touch, a pipeline along the front of T1
    /// (`v1` to `v4`): each step reads only lines a step before fetched. The next recycle
    /// takes `v1`; the one after it `v2`, whose key `k2` (fetched one recycle ago) is freed
    /// and its table slot retired (`Pcct::free_key_inline`): the byte of `retired` that marks
    /// it is fetched here, two recycles ahead, since it is a random line of an array larger
    /// than the L2 and one Data's work is about one DRAM latency. Here
    /// also `v3`'s entry (fetched one ago) is read, its key, generation and Data handle start,
    /// and `v4`'s entry. On a CS far larger than the caches each of those is otherwise a miss
    /// in a chain of dependent misses per Data. `v2` is the link after `v1`, the front of T1
    /// (the recycle just rotated the old front behind it). A CS entry's key is live and T1's
    /// entries are CS entries, so neither is read with the occupancy check.
    /// Inlined into the recycle, which runs it for every Data a full CS takes.
    #[inline(always)]
    fn prefetch_victims(&self, v2: u32) {
        let Some(e2) = self.cs.get_live(v2) else {
            return;
        };
        if let Some(k2) = self.keys.get_live(e2.key) {
            let home = self.table.place(k2.hash()).home();
            prefetch_read(self.retired.as_ptr().wrapping_add(home));
        }
        let v3 = e2.link.next;
        let Some(e3) = self.cs.get_live(v3) else {
            return;
        };
        self.keys.prefetch_value(e3.key);
        prefetch_read(self.gens.as_ptr().wrapping_add(e3.key as usize));
        // `v3`'s Data handle, which its recycle replaces (it lives beside the entry).
        prefetch_read(self.cs_data.as_ptr().wrapping_add(v3 as usize));
        self.cs.prefetch_value(e3.link.next);
    }

    /// ARC case IV: `x` is new. Decide the trimming as if before insertion, then file in T1.
    fn arc_admit_new(&mut self, x: u32) {
        let c = self.cfg.cs_capacity_packets;
        let [t1, t2, b1, b2] = self.lists.map(|l| l.len());
        let (delete, replace) = if t1 + b1 >= c {
            if t1 < c {
                (Some(B1), true)
            } else {
                (Some(T1), false)
            }
        } else if t1 + t2 + b1 + b2 >= c {
            ((t1 + t2 + b1 + b2 >= 2 * c).then_some(B2), true)
        } else {
            (None, false)
        };
        self.lists[T1].push_back(&mut self.cs, x);
        self.arc_pending = ArcPending::Admit {
            x,
            from_b2: false,
            delete,
            replace,
        };
    }

    /// ARC cases II and III: ghost `x` on list `from` (B1 or B2) gets its Data back.
    fn arc_ghost_hit(&mut self, x: u32, from: usize) {
        let c = self.cfg.cs_capacity_packets;
        let (b1, b2) = (self.lists[B1].len().max(1), self.lists[B2].len().max(1));
        self.arc_p = if from == B1 {
            (self.arc_p + (b2 / b1).max(1)).min(c)
        } else {
            self.arc_p.saturating_sub((b1 / b2).max(1))
        };
        self.move_to(x, from, T2);
        self.arc_pending = ArcPending::Admit {
            x,
            from_b2: from == B2,
            delete: None,
            replace: true,
        };
    }

    /// ARC's REPLACE, ignoring `x` (the entry being admitted): demote the LRU of T1 or T2 to
    /// its ghost list.
    fn arc_replace(&mut self, x: Option<u32>, from_b2: bool) {
        let on = |l: usize, s: &Self| {
            x.and_then(|x| s.cs.get(x))
                .is_some_and(|e| usize::from(e.list) == l)
        };
        let t1 = self.lists[T1].len() - u32::from(on(T1, self));
        let t2_other = self.lists[T2].len() > u32::from(on(T2, self));
        let p = self.arc_p;
        let from_t1 = (t1 >= 1 && (t1 > p || (from_b2 && t1 == p))) || !t2_other;
        let (from, to) = if from_t1 { (T1, B1) } else { (T2, B2) };
        if let Some(v) = self.lists[from].front() {
            self.demote(v, from, to);
        }
    }

    /// Evicts resident entry `c` to ghost list `to`: the Data and its indirect entries go, the
    /// name stays.
    fn demote(&mut self, c: u32, from: usize, to: usize) {
        self.detach_all_indirect(c);
        let Some(e) = self.cs.get_mut(c) else { return };
        if let Some(d) = self.cs_data.get_mut(c as usize) {
            *d = None;
        }
        e.digest = None;
        self.cs_bytes -= u64::from(core::mem::take(&mut e.size));
        self.move_to(c, from, to);
        self.counters.evictions += 1;
    }

    /// Brings the CS back within its limits (see the module docs). The usual LRU/FIFO case,
    /// nothing over a limit (a full CS recycles in `cs_store`), is an inlined check; the
    /// eviction itself is out of line.
    #[inline]
    pub(crate) fn cs_evict(&mut self) {
        let within = self.len_cs() <= self.cfg.cs_capacity_packets as usize
            && self.cs_bytes <= self.cfg.cs_capacity_bytes;
        if within && self.cfg.cs_policy != CsPolicy::Arc {
            return;
        }
        self.cs_evict_over();
    }

    /// [`Pcct::cs_evict`] when a limit is exceeded or ARC has admission work pending.
    #[inline(never)]
    fn cs_evict_over(&mut self) {
        let cap = self.cfg.cs_capacity_packets as usize;
        let cap_bytes = self.cfg.cs_capacity_bytes;
        if self.cfg.cs_policy != CsPolicy::Arc {
            while self.len_cs() > cap || self.cs_bytes > cap_bytes {
                let Some(v) = self.lists[T1].front() else {
                    break;
                };
                self.cs_remove(v);
                self.counters.evictions += 1;
            }
            return;
        }
        if let ArcPending::Admit {
            x,
            from_b2,
            delete,
            replace,
        } = core::mem::replace(&mut self.arc_pending, ArcPending::None)
        {
            if let Some(l) = delete {
                if let Some(v) = self.lists[l].front() {
                    self.cs_remove(v);
                    self.counters.evictions += u64::from(l == T1);
                }
            }
            if replace && self.len_cs() > cap {
                self.arc_replace(Some(x), from_b2);
            }
        }
        while self.cs_bytes > cap_bytes && self.len_cs() > 0 {
            self.arc_replace(None, false);
        }
    }

    /// Removes CS entry `c` (resident or ghost) and its indirect entries, freeing emptied keys.
    fn cs_remove(&mut self, c: u32) {
        self.detach_all_indirect(c);
        let Some(e) = self.cs.get(c) else { return };
        let (key, list) = (e.key, usize::from(e.list));
        if self
            .cs_data
            .get_mut(c as usize)
            .and_then(Option::take)
            .is_some()
        {
            self.cs_bytes -= u64::from(e.size);
        }
        if let Some(l) = self.lists.get_mut(list) {
            l.remove(&mut self.cs, c);
        }
        self.cs.free(c);
        if let Some(k) = self.keys.get_live_mut(key) {
            k.cs = NIL;
        }
        self.maybe_free_key(key);
    }

    /// Points key `k` (a CanBePrefix Interest name) at resident CS entry `c`, unless `k` has a
    /// Data (or ghost) of its own or `c` already has [`MAX_INDIRECT`] indirect entries.
    pub(crate) fn cs_attach_indirect(&mut self, k: u32, c: u32) {
        let Some(e) = self.keys.get(k) else { return };
        if (e.cs != NIL && !e.indirect()) || e.cs == c {
            return;
        }
        let Some(slot) = self
            .cs
            .get(c)
            .and_then(|x| x.indirect.iter().position(|&i| i == NIL))
        else {
            return;
        };
        if e.indirect() {
            self.detach_indirect(k);
        }
        if let Some(x) = self.cs.get_mut(c) {
            if let Some(s) = x.indirect.get_mut(slot) {
                *s = k;
            }
        }
        if let Some(e) = self.keys.get_mut(k) {
            e.cs = c;
            e.flags |= FLAG_INDIRECT;
        }
    }

    /// Clears the indirect part of key `k` (the key itself stays).
    fn detach_indirect(&mut self, k: u32) {
        let Some(e) = self.keys.get_mut(k) else {
            return;
        };
        let target = core::mem::replace(&mut e.cs, NIL);
        e.flags &= !FLAG_INDIRECT;
        if let Some(x) = self.cs.get_mut(target) {
            for s in x.indirect.iter_mut().filter(|s| **s == k) {
                *s = NIL;
            }
        }
    }

    /// Removes every indirect entry pointing to CS entry `c`, freeing emptied keys.
    fn detach_all_indirect(&mut self, c: u32) {
        let Some(x) = self.cs.get_mut(c) else { return };
        if x.indirect == [NIL; MAX_INDIRECT] {
            return; // the usual case on eviction: nothing to walk or rewrite
        }
        let ind = core::mem::replace(&mut x.indirect, [NIL; MAX_INDIRECT]);
        for k in ind.into_iter().filter(|&k| k != NIL) {
            if let Some(e) = self.keys.get_mut(k) {
                e.cs = NIL;
                e.flags &= !FLAG_INDIRECT;
            }
            self.maybe_free_key(k);
        }
    }

    /// Erases up to `limit` cached Data whose name starts with `prefix` (NFD `cs/erase`);
    /// returns how many. Management path: scans the resident entries and parses each name.
    pub fn cs_erase(&mut self, prefix: NameRef<'_>, limit: usize) -> usize {
        let mut victims = Vec::new();
        for l in [T1, T2] {
            for c in self.lists[l].iter(&self.cs) {
                if victims.len() >= limit {
                    break;
                }
                let hit = self
                    .cs_data
                    .get(c as usize)
                    .and_then(|d| d.as_deref())
                    .and_then(data_name);
                if hit.is_some_and(|name| prefix.is_prefix_of(name)) {
                    victims.push(c);
                }
            }
        }
        for &c in &victims {
            self.cs_remove(c);
        }
        self.counters.cs_erased += victims.len() as u64;
        victims.len()
    }
}
