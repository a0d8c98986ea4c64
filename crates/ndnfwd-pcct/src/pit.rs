//! PIT operations: incoming Interest (CS lookup, loop check, aggregation, insert), out-records
//! and retransmission suppression, Nacks, rejection, face removal and expiry.
//!
//! Semantics follow NFD's forwarder:
//! - Loop: the nonce equals an in-record nonce of *another* face or any out-record nonce, and
//!   the ingress face's own in-record does not carry it (a downstream repeating its own nonce
//!   on a point-to-point face is a retransmission, not a loop).
//! - An Interest joining an entry with out-records is forwarded again only if at least the
//!   suppression interval passed since the last out-record write; the interval then doubles up
//!   to the maximum (NFD's `RetxSuppressionExponential`, per entry).
//! - An entry lives until [`Pcct::expire`] sees `now >= expiry`, the latest in-record expiry.

use core::ops::Range;

use ndn_packet::tlv::tt;
use ndn_packet::{FaceId, NackReason, NameRef};

use crate::api::{
    nack_severity, Downstream, Expired, FacePurge, InterestInfo, InterestOutcome, NackInfo,
    NackOutcome, PitHandle, RecordError,
};
use crate::config::whole_ms;
use crate::entry::{key_hash, InRecord, OutRecord, PccEntry, PitEntry, IN_CBP, IN_HOP};
use crate::list::NIL;
use crate::pcct::Pcct;
use crate::records::{put_out_inline, Recs, View};
use crate::token::{Issued, PitToken};

/// TLV header of an ImplicitSha256DigestComponent: TLV-TYPE 1, TLV-LENGTH 32.
const DIGEST_HEADER: [u8; 2] = [tt::IMPLICIT_SHA256_DIGEST_COMPONENT as u8, 32];

/// The value of the name's last component if it is an ImplicitSha256DigestComponent.
///
/// VAR-NUMBERs are decoded in their shortest form only, so such a last component is exactly
/// the bytes `01 20` and 32 more at the end of the name. Names without that tail (almost all)
/// are settled with two byte compares instead of a walk over every component; the walk only
/// confirms a match (the same bytes may sit inside a longer component's value). The two
/// compares are inlined into the caller; only the confirming walk is a call.
#[inline(always)]
pub(crate) fn last_digest(name: NameRef<'_>) -> Option<[u8; 32]> {
    let v = name.value();
    let header = v.len().checked_sub(DIGEST_HEADER.len() + 32)?;
    if v.get(header..header + DIGEST_HEADER.len()) != Some(&DIGEST_HEADER[..]) {
        return None;
    }
    confirm_digest(name)
}

/// The component walk of [`last_digest`], for a name whose bytes end like a digest component.
#[inline(never)]
fn confirm_digest(name: NameRef<'_>) -> Option<[u8; 32]> {
    let c = name.last()?;
    if c.typ() != tt::IMPLICIT_SHA256_DIGEST_COMPONENT {
        return None;
    }
    c.value().try_into().ok()
}

/// Appends the unexpired downstreams of part `v` except `except` (one per face: in-records
/// are unique per face) to `out`.
fn push_downstreams(v: View<'_>, now: u64, except: Option<FaceId>, out: &mut Vec<Downstream>) {
    for r in v.ins() {
        if r.expiry > now && Some(r.face) != except {
            out.push(Downstream {
                face: r.face,
                token: r.token,
                nonce: r.nonce,
                congestion_mark: r.mark,
            });
        }
    }
}

impl Pcct {
    /// Incoming Interest: CS lookup, loop detection, aggregation or a new PIT entry.
    ///
    /// The PCC key is the Interest name plus `forwarding_hint_hash`. MustBeFresh selects one of
    /// the two PIT entries of the key. A CS entry under the key answers when its Data name is
    /// the Interest name, or (indirect entry) when CanBePrefix is set; an Interest ending in an
    /// implicit digest also checks the CS entry of its parent name against the digest.
    /// MustBeFresh requires `now < arrival + FreshnessPeriod`.
    ///
    /// Always inlined: the Interest pipeline calls it once per Interest, and inlined, the
    /// [`InterestInfo`] it is given need not be built in memory.
    #[inline(always)]
    pub fn on_interest(
        &mut self,
        now: u64,
        it: &InterestInfo<'_>,
        in_face: FaceId,
    ) -> InterestOutcome {
        let n = it.hashes.components();
        let id = it.hashes.id128(n).unwrap_or(0);
        let digest = last_digest(it.name);
        let fh = it.forwarding_hint_hash;
        let hash = key_hash(id as u64, fh);
        let k = self.find_key_inline(hash, id, fh);
        let m = usize::from(it.must_be_fresh);
        let part = k
            .and_then(|k| self.keys.get_live(k))
            .map(|e| e.pit[m])
            .filter(|&p| p != NIL);
        if let Some(p) = part {
            if self.is_loop(p, in_face, it.nonce) {
                self.counters.dup_nonce += 1;
                return InterestOutcome::DuplicateNonce;
            }
        }
        // Without a key and without an implicit digest (a name nothing is cached or pending
        // under: the usual new Interest) the CS has nothing to offer: no call.
        let cs = if k.is_some() || digest.is_some() {
            // A copy made here, on the rare path: handing `it` itself to the call (out of
            // line) would make the caller build the whole `InterestInfo` in memory for every
            // Interest, where inlined its fields otherwise stay in registers.
            let copy = *it;
            self.cs_lookup(now, k, &copy, n, digest)
        } else {
            None
        };
        if let Some(data) = cs {
            self.counters.hits += 1;
            return InterestOutcome::CsHit { data };
        }
        self.counters.misses += 1;
        let lifetime = self.upstream_lifetime.in_record_ns(it.lifetime_ns);
        // Selected by multiplication, not branches: one shift and an `or` of the two bits.
        let flags =
            (IN_CBP * u8::from(it.can_be_prefix)) | (IN_HOP * u8::from(it.hop_limit.is_some()));
        let rec = InRecord {
            expiry: now.saturating_add(lifetime),
            face: in_face,
            nonce: it.nonce,
            token: *it.token,
            hop_limit: it.hop_limit.unwrap_or(0),
            flags,
            mark: it.congestion_mark,
        };
        match (k, part) {
            (Some(_), Some(p)) => self.aggregate(now, p, rec),
            _ => {
                let ncomps = u16::try_from(n).unwrap_or(u16::MAX);
                let key = PccEntry::new(id, fh, ncomps, digest.is_some());
                self.insert_pit(k, key, hash, rec, it.must_be_fresh)
            }
        }
    }

    /// The InterestLifetime (ms) the Interest of a new PIT entry goes upstream with: the time
    /// the entry has left (the Interest's `lifetime_ms`, else the default, capped), rounded up
    /// to whole milliseconds, at least 1.
    #[inline(always)]
    pub fn new_entry_lifetime_ms(&self, lifetime_ms: Option<u64>) -> u64 {
        self.upstream_lifetime.ms(lifetime_ms)
    }

    /// The InterestLifetime (ms) a retransmission of live PIT entry `h` goes upstream with at
    /// `now`: the time its latest in-record has left, rounded up to whole milliseconds, at
    /// least 1 (as for a new entry).
    #[inline(always)]
    pub fn lifetime_left_ms(&self, h: PitHandle, now: u64) -> u64 {
        let expiry = self.in_records(h).map(|r| r.expiry).max().unwrap_or(now);
        whole_ms(expiry.saturating_sub(now))
    }

    fn is_loop(&self, p: u32, face: FaceId, nonce: u32) -> bool {
        let Some(e) = self.pits.get_live(p) else {
            return false;
        };
        let v = View::new(e, &self.pools);
        let same = v.ins().any(|r| r.face == face && r.nonce == nonce);
        let other = v.ins().any(|r| r.face != face && r.nonce == nonce)
            || v.outs().any(|r| r.nonce == nonce);
        other && !same
    }

    /// New PIT part under key `k`, or under a new key `key` whose table hash is `hash`.
    fn insert_pit(
        &mut self,
        k: Option<u32>,
        key: PccEntry,
        hash: u64,
        rec: InRecord,
        must_be_fresh: bool,
    ) -> InterestOutcome {
        let (k, new_key) = match k {
            Some(k) => (k, false),
            None => match self.insert_key_inline(key, self.table.place(hash)) {
                Some(k) => (k, true),
                None => {
                    self.counters.pit_full += 1;
                    return InterestOutcome::PitFull;
                }
            },
        };
        let suppress = self.cfg.suppress_initial_ns;
        let fresh = || PitEntry::new(k, must_be_fresh, suppress);
        let Some((p, e)) = self.pits.alloc_reuse(fresh) else {
            if new_key {
                self.maybe_free_key(k);
            }
            self.counters.pit_full += 1;
            return InterestOutcome::PitFull;
        };
        e.restart(k, must_be_fresh, suppress, rec);
        let digest = match self.keys.get_live_mut(k) {
            Some(key) => {
                key.pit[usize::from(must_be_fresh)] = p;
                key.digest()
            }
            None => false,
        };
        self.digest_pending += u32::from(digest);
        self.cbp_pending += u32::from(rec.can_be_prefix());
        self.wheel.schedule(p, rec.expiry);
        self.counters.inserts += 1;
        if self.prefetch {
            self.prefetch_next_entry();
        }
        let pit = PitHandle {
            token: self.token_of(k),
            must_be_fresh,
        };
        self.issued = Issued {
            handle: pit,
            part: p,
        };
        InterestOutcome::NewPit { pit }
    }

    fn aggregate(&mut self, now: u64, p: u32, rec: InRecord) -> InterestOutcome {
        let Some(e) = self.pits.get_live(p) else {
            return InterestOutcome::PitFull;
        };
        let had_cbp = e.n_cbp > 0;
        let retx = match View::new(e, &self.pools).in_position(rec.face) {
            Some(i) => {
                if let Some(e) = self.pits.get_live_mut(p) {
                    if let Some(r) = Recs::new(e, &mut self.pools).in_at_mut(i) {
                        *r = rec;
                    }
                }
                true
            }
            None => {
                if !self.push_in_record(now, p, rec) {
                    self.refresh_part(p, had_cbp);
                    self.counters.records_full += 1;
                    return InterestOutcome::PitFull;
                }
                false
            }
        };
        self.refresh_part(p, had_cbp);
        let forward = self.suppression(now, p);
        let Some(pit) = self.handle_of(p) else {
            return InterestOutcome::PitFull;
        };
        self.counters.suppressed += u64::from(!forward);
        if retx {
            self.counters.retransmissions += 1;
            InterestOutcome::Retransmission { pit, forward }
        } else {
            self.counters.aggregated += 1;
            InterestOutcome::Aggregated { pit, forward }
        }
    }

    /// Adds an in-record; when full, first drops in-records that already expired.
    fn push_in_record(&mut self, now: u64, p: u32, rec: InRecord) -> bool {
        if !self.reserve_record(p, false) {
            let Some(e) = self.pits.get_live_mut(p) else {
                return false;
            };
            let mut recs = Recs::new(e, &mut self.pools);
            let mut i = recs.view().n_in();
            while i > 0 {
                i -= 1;
                if recs.view().in_at(i).is_some_and(|r| r.expiry <= now) {
                    recs.swap_remove_in(i);
                }
            }
            if !self.reserve_record(p, false) {
                return false;
            }
        }
        let Some(e) = self.pits.get_live_mut(p) else {
            return false;
        };
        Recs::new(e, &mut self.pools).push_in(rec)
    }

    /// Retransmission suppression decision for an Interest joining part `p`.
    fn suppression(&mut self, now: u64, p: u32) -> bool {
        let max = self.cfg.suppress_max_ns;
        let Some(e) = self.pits.get_live_mut(p) else {
            return false;
        };
        if e.n_out == 0 {
            return true;
        }
        if now.saturating_sub(e.last_tx) < e.suppress {
            return false;
        }
        e.suppress = e.suppress.saturating_mul(2).min(max);
        true
    }

    /// Records that the Interest of `pit` was sent to `face` with `nonce` at `now` (creates or
    /// renews the out-record and clears a Nack recorded for it). Always inlined: the outgoing
    /// Interest pipeline calls it for every Interest it sends.
    #[inline(always)]
    pub fn record_out(
        &mut self,
        now: u64,
        pit: PitHandle,
        face: FaceId,
        nonce: u32,
    ) -> Result<(), RecordError> {
        // The Interest just inserted is forwarded at once: its handle is the one last issued.
        // Once that part is freed (`NIL`) the handle names no part ([`Issued`]): the slot
        // lookup below refuses `NIL`, as the token lookup would refuse the handle.
        let p = if pit == self.issued.handle {
            self.issued.part
        } else {
            self.handle_part(pit).ok_or(RecordError::NoEntry)?
        };
        let e = self.pits.get_live_mut(p).ok_or(RecordError::NoEntry)?;
        e.last_tx = e.last_tx.max(now);
        // A new entry (no out-record: the usual case) takes the entry's own slot, written
        // field by field rather than through a record built aside; what `put_out_inline`
        // would do with no record to search.
        if e.n_out == 0 {
            if let Some(r) = e.outs.first_mut() {
                r.sent = now;
                r.face = face;
                r.nonce = nonce;
                r.nack = 0;
                r.nacked = false;
                e.n_out = 1;
                return Ok(());
            }
        }
        let rec = OutRecord {
            sent: now,
            face,
            nonce,
            ..OutRecord::EMPTY
        };
        // Otherwise, with no tail block, the entry's own record if it is toward `face`: no
        // view of the pools needed.
        if put_out_inline(e, rec) {
            return Ok(());
        }
        self.record_out_ext(p, rec)
    }

    /// [`Pcct::record_out`] through the tail or extension block: out of line, so the inline case
    /// above needs no large stack frame.
    #[inline(never)]
    fn record_out_ext(&mut self, p: u32, rec: OutRecord) -> Result<(), RecordError> {
        let face = rec.face;
        let e = self.pits.get_live_mut(p).ok_or(RecordError::NoEntry)?;
        let mut recs = Recs::new(e, &mut self.pools);
        if let Some(i) = recs.view().out_position(face) {
            if let Some(r) = recs.out_at_mut(i) {
                *r = rec;
            }
            return Ok(());
        }
        // The tail or extension block may already be attached.
        if recs.push_out(rec) {
            return Ok(());
        }
        if !self.reserve_record(p, true) {
            return Err(RecordError::RecordsFull);
        }
        let e = self.pits.get_live_mut(p).ok_or(RecordError::NoEntry)?;
        if Recs::new(e, &mut self.pools).push_out(rec) {
            Ok(())
        } else {
            Err(RecordError::RecordsFull)
        }
    }

    /// Incoming Nack from upstream `in_face`. Found through our token when it is valid and the
    /// entry's name is the nacked Interest's name, else by name (+ forwarding hint). The
    /// out-record toward `in_face` must carry the Nack's nonce. When every out-record is
    /// nacked, the entry is erased and its unexpired downstreams (ingress excluded) appended
    /// to `out`, with the least severe reason.
    pub fn on_nack(
        &mut self,
        now: u64,
        nk: &NackInfo<'_>,
        in_face: FaceId,
        token: Option<&[u8]>,
        out: &mut Vec<Downstream>,
    ) -> NackOutcome {
        let n = nk.hashes.components();
        let id = nk.hashes.id128(n).unwrap_or(0);
        let by_token = token
            .and_then(|t| PitToken::from_bytes(t).ok())
            .and_then(|t| self.token_key(t))
            .filter(|&k| self.keys.get(k).is_some_and(|e| e.id == id));
        if token.is_some() && by_token.is_none() {
            self.counters.token_miss += 1;
        }
        let fh = nk.forwarding_hint_hash;
        let k = by_token.or_else(|| self.find_key(key_hash(id as u64, fh), id, fh));
        let m = usize::from(nk.must_be_fresh);
        let part = k
            .and_then(|k| self.keys.get_live(k))
            .map(|e| e.pit[m])
            .filter(|&p| p != NIL);
        let Some((p, e)) = part.and_then(|p| Some((p, self.pits.get_live_mut(p)?))) else {
            self.counters.nack_no_entry += 1;
            return NackOutcome::NoEntry;
        };
        let mut recs = Recs::new(e, &mut self.pools);
        let pos = recs
            .view()
            .outs()
            .position(|r| r.face == in_face && r.nonce == nk.nonce && r.nack == 0);
        let Some(r) = pos.and_then(|i| recs.out_at_mut(i)) else {
            self.counters.nack_stale += 1;
            return NackOutcome::Stale;
        };
        r.nack = u32::try_from(nk.reason.code()).unwrap_or(u32::MAX);
        r.nacked = true;
        let v = recs.view();
        if v.outs().any(|r| !r.nacked) {
            return NackOutcome::Pending;
        }
        let reason = v
            .outs()
            .filter_map(|r| r.nack_reason())
            .min_by_key(|&r| nack_severity(r))
            .unwrap_or(NackReason::Other(0));
        let start = out.len();
        push_downstreams(v, now, Some(in_face), out);
        if let Some(k) = self.free_part(p) {
            self.maybe_free_key(k);
        }
        self.counters.nacked += 1;
        NackOutcome::Nacked {
            reason,
            downstreams: start..out.len(),
        }
    }

    /// Erases a PIT entry now (e.g. no route: the caller Nacks the downstreams); appends its
    /// unexpired downstreams to `out` and returns their range, or `None` for a stale handle.
    pub fn reject(
        &mut self,
        now: u64,
        pit: PitHandle,
        out: &mut Vec<Downstream>,
    ) -> Option<Range<usize>> {
        let p = self.handle_part(pit)?;
        let start = out.len();
        push_downstreams(
            View::new(self.pits.get_live(p)?, &self.pools),
            now,
            None,
            out,
        );
        if let Some(k) = self.free_part(p) {
            self.maybe_free_key(k);
        }
        Some(start..out.len())
    }

    /// Removes face `face` from the PIT (NFD `cleanupOnFaceRemoval`): its in-record is erased
    /// from every entry, and an entry left without in-records is erased (timer cancelled,
    /// records freed; the token of a key left empty stops matching, its generation bumped).
    /// From every entry that stays, the out-record toward `face` is erased. The CS is kept.
    ///
    /// An entry that stays, had a pending (not nacked) out-record toward `face`, now has no
    /// pending upstream left, and still has an unexpired downstream is appended to `orphans`:
    /// no upstream will answer it. The caller may forward it elsewhere (`record_out`), or
    /// [`Pcct::reject`] it and send its downstreams Nack NoRoute (each [`Downstream`] carries
    /// its own nonce), or let it expire, as NFD does. Cost: one pass over the PIT arena (face
    /// removal is rare); no allocation once `orphans` has capacity.
    pub fn purge_face(
        &mut self,
        now: u64,
        face: FaceId,
        orphans: &mut Vec<PitHandle>,
    ) -> FacePurge {
        let mut hit = core::mem::take(&mut self.due);
        hit.clear();
        let pools = &self.pools;
        hit.extend(self.pits.iter().filter_map(|(p, e)| {
            let v = View::new(e, pools);
            (v.in_position(face).is_some() || v.out_position(face).is_some()).then_some(p)
        }));
        let mut done = FacePurge::default();
        for &p in &hit {
            let Some(e) = self.pits.get_live_mut(p) else {
                continue;
            };
            let had_cbp = e.n_cbp > 0;
            let mut recs = Recs::new(e, &mut self.pools);
            if let Some(i) = recs.view().in_position(face) {
                recs.swap_remove_in(i);
                done.in_records += 1;
            }
            if recs.view().n_in() == 0 {
                if let Some(k) = self.free_part(p) {
                    self.maybe_free_key(k);
                }
                done.erased += 1;
                continue;
            }
            let mut was_pending = false;
            if let Some(i) = recs.view().out_position(face) {
                was_pending = recs.remove_out(i).is_some_and(|r| !r.nacked);
                done.out_records += 1;
            }
            let v = recs.view();
            let orphan =
                was_pending && v.outs().all(|r| r.nacked) && v.ins().any(|r| r.expiry > now);
            self.refresh_part(p, had_cbp);
            if let Some(h) = self.handle_of(p).filter(|_| orphan) {
                orphans.push(h);
            }
        }
        self.counters.face_purged += u64::from(done.erased);
        self.due = hit;
        done
    }

    /// Erases every PIT entry whose expiry is `<= now`, appending one [`Expired`] per entry to
    /// `out`; returns how many. Cost: one visit per elapsed wheel tick plus one per PIT slot
    /// filed under those ticks (due, freed since, or re-filed under a later expiry).
    pub fn expire(&mut self, now: u64, out: &mut Vec<Expired>) -> usize {
        let mut due = core::mem::take(&mut self.due);
        due.clear();
        self.wheel.advance(now, &self.pits, &mut due);
        for &p in &due {
            let Some(e) = self.pits.get_live(p) else {
                continue;
            };
            let v = View::new(e, &self.pools);
            let last = v.outs().max_by_key(|r| r.sent).map(|r| r.nonce);
            let name_id = self.keys.get(e.key).map_or(0, |k| k.id);
            if let Some(pit) = self.handle_of(p) {
                out.push(Expired {
                    pit,
                    name_id,
                    forwarded: last.is_some(),
                    last_out_nonce: last,
                });
            }
            if let Some(k) = self.free_part(p) {
                self.maybe_free_key(k);
            }
        }
        let n = due.len();
        self.counters.expired += n as u64;
        self.due = due;
        n
    }
}

#[cfg(test)]
#[path = "pit_tests.rs"]
mod tests;
