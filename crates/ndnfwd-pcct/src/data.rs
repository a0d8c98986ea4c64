//! Incoming Data: find the PIT entries it satisfies, collect downstreams, and turn the exact
//! entry into the CS entry.
//!
//! Which entries a Data matches:
//! - **With a valid token** (ours, live generation, the entry holds a PIT part, and the name
//!   check passes: same name, or the entry's name is a prefix and it has CanBePrefix
//!   in-records, or the entry's name is the Data's full name with implicit digest): that entry,
//!   plus the entry of the Data name under the token entry's forwarding hint, if it has PIT
//!   parts. O(1) lookups.
//! - **Otherwise** (no token, wrong length, forged, stale, or failed name check): the entry of
//!   the Data name without forwarding hint; every proper prefix of the name holding CanBePrefix
//!   in-records (only walked while such entries exist); and the full-name entry (only hashed
//!   while digest Interests are pending).
//!
//! Both PIT parts (MustBeFresh 0 and 1) of a matched entry are satisfied: Data from upstream
//! counts as fresh. A prefix match satisfies only the CanBePrefix in-records. Downstreams are
//! the satisfied in-records that have not expired, ingress face excluded, one per face.
//! Solicited Data (at least one in-record satisfied) is cached under the Data name (+ forwarding
//! hint) and indexed by indirect entries under the prefix names it satisfied; unsolicited Data
//! goes through the unsolicited policy.

use ndn_packet::tlv::{self, tt};
use ndn_packet::{FaceId, NameRef};
use sha2::{Digest, Sha256};

use crate::api::{DataInfo, DataOutcome, DataSink, Downstream};
use crate::entry::{key_hash, InRecord, PccEntry};
use crate::list::NIL;
use crate::pcct::{Pcct, Relation};
use crate::records::{Recs, View};
use crate::token::{PitToken, RxToken};

/// SHA-256 of a Data TLV: its implicit digest.
pub(crate) fn sha256(wire: &[u8]) -> [u8; 32] {
    Sha256::digest(wire).into()
}

/// What matching a Data found besides the matched entries: its name's component count and
/// identity, the forwarding hint of the token's entry, the digest if computed, and the key of
/// (Data name, hint) if it exists.
struct Matches {
    n: usize,
    id: u128,
    fh: Option<u64>,
    digest: Option<[u8; 32]>,
    exact: Option<u32>,
    via_token: bool,
}

impl Pcct {
    /// Incoming Data from `in_face` carrying `token` (our PIT token, if the upstream echoed
    /// one). Appends the downstreams to send it to to `out` (without allocating once `out` has
    /// capacity) and caches it; see the module docs for the matching rules.
    ///
    /// The usual Data, whose token names a live key of the Data's own name holding a PIT part
    /// (an exact token match: the only entry it matches, no bucket access, no match list), is
    /// settled here; every other Data goes through `Pcct::on_data_general`, out of line so
    /// that its registers and stack do not weigh on the usual one.
    pub fn on_data(
        &mut self,
        now: u64,
        d: &DataInfo<'_>,
        in_face: FaceId,
        token: Option<&[u8]>,
        face_is_local: bool,
        out: &mut Vec<Downstream>,
    ) -> DataOutcome {
        self.on_data_parsed(now, d, in_face, token.into(), face_is_local, out)
    }

    /// [`Pcct::on_data`] with the token already parsed ([`RxToken::from_lp`], as the Data's
    /// prefetches read it).
    #[inline]
    pub fn on_data_parsed(
        &mut self,
        now: u64,
        d: &DataInfo<'_>,
        in_face: FaceId,
        token: RxToken,
        face_is_local: bool,
        out: &mut Vec<Downstream>,
    ) -> DataOutcome {
        let mut sink = Collect::new(out);
        self.on_data_into(now, d, in_face, token, face_is_local, &mut sink)
    }

    /// [`Pcct::on_data_parsed`] handing each downstream to `out` as it is found (the caller
    /// builds its packet there, without a list of downstreams to copy it from); `out` keeps
    /// the faces it was offered, so that a Data goes at most once per face.
    /// [`DataOutcome::downstreams`] is `out`'s [`DataSink::held`] before and after.
    #[inline(always)]
    pub fn on_data_into<S: DataSink>(
        &mut self,
        now: u64,
        d: &DataInfo<'_>,
        in_face: FaceId,
        token: RxToken,
        face_is_local: bool,
        out: &mut S,
    ) -> DataOutcome {
        let exact = token.pit_token().and_then(|t| self.token_exact(t, d));
        match exact {
            Some((k, e)) => self.settle_exact(now, d, in_face, face_is_local, k, &e, out),
            None => self.on_data_general(now, d, in_face, token, face_is_local, out),
        }
    }

    /// The key our token names and a copy of its entry when that is an exact match: the
    /// `Relation::Exact` case of [`Pcct::token_relation`], which needs neither digest nor
    /// prefix hashes.
    #[inline(always)]
    fn token_exact(&self, t: PitToken, d: &DataInfo<'_>) -> Option<(u32, PccEntry)> {
        let (k, &e) = self.token_entry(t)?;
        let exact =
            e.has_pit() && usize::from(e.ncomps) == d.id.components() && e.id == d.id.id128();
        exact.then_some((k, e))
    }

    /// [`Pcct::on_data`] for every Data but the exact token match (which this path would
    /// settle the same way, through the match list).
    #[inline(never)]
    fn on_data_general<S: DataSink>(
        &mut self,
        now: u64,
        d: &DataInfo<'_>,
        in_face: FaceId,
        token: RxToken,
        face_is_local: bool,
        out: &mut S,
    ) -> DataOutcome {
        let (n, id) = (d.id.components(), d.id.id128());
        let mut digest = d.digest;
        let mut by_token = None;
        let mut key_fh = None;
        if token != RxToken::Absent {
            let found = token
                .pit_token()
                .and_then(|t| self.token_relation(t, d, n, id, &mut digest));
            match found {
                Some((k, rel, e)) => {
                    key_fh = e.fh();
                    by_token = Some((k, rel));
                }
                None => self.counters.token_miss += 1,
            }
        }
        let mut m = Matches {
            n,
            id,
            fh: key_fh,
            digest,
            exact: None,
            via_token: by_token.is_some(),
        };
        let mut matched = core::mem::take(&mut self.matched);
        matched.clear();
        matched.extend(by_token);
        m.exact = self.find_key(key_hash(id as u64, m.fh), id, m.fh);
        if let Some(e) = m.exact {
            let pending = self.keys.get_live(e).is_some_and(PccEntry::has_pit);
            if pending && !matched.iter().any(|&(k, _)| k == e) {
                matched.push((e, Relation::Exact));
            }
        }
        if !m.via_token {
            if self.cbp_pending > 0 {
                self.hash_data_prefixes(d);
                for i in 0..n {
                    let k = self.find_prefix(&self.scratch_hashes, i, None);
                    if let Some(k) = k.filter(|&k| self.has_cbp_part(k)) {
                        matched.push((k, Relation::Prefix));
                    }
                }
            }
            if self.digest_pending > 0 {
                let k = self
                    .digest_name_id(d, &mut m.digest)
                    .and_then(|dig_id| self.find_key(dig_id as u64, dig_id, None));
                if let Some(k) = k.filter(|&k| self.keys.get_live(k).is_some_and(PccEntry::has_pit))
                {
                    matched.push((k, Relation::Digest));
                }
            }
        }
        let o = self.settle_data(now, d, in_face, face_is_local, &m, &matched, out);
        self.matched = matched;
        o
    }

    /// [`Pcct::settle_data`] for the usual Data: our token names key `k`, whose name is the
    /// Data's (same forwarding hint) and which holds a PIT part. The same steps with the match
    /// list reduced to `[(k, Exact)]` by hand: both parts satisfied whole, the Data cached under
    /// `k` (which may recycle the CS victim's slot: no other key is left to free), `k` freed if
    /// it ends up empty, then the end-of-Data eviction. Written out because the compiler does
    /// not fold `settle_data`'s loops over a one-element list: they cost ~100 instructions.
    /// `e` is the copy of `k`'s entry the token check read: its PIT parts, CS part and flags
    /// are still those of the key (satisfying the parts changes only `pit`), so the key is
    /// not read again, neither here nor by the CS insert. The usual single part is released
    /// without touching the key ([`Pcct::satisfy_exact`]); the key's parts are cleared and its
    /// CS part attached in one access at the end (the table sees no delete and no insert).
    #[allow(clippy::too_many_arguments)] // on_data's own parameters, plus the token's key
    #[inline(always)]
    fn settle_exact<S: DataSink>(
        &mut self,
        now: u64,
        d: &DataInfo<'_>,
        in_face: FaceId,
        face_is_local: bool,
        k: u32,
        e: &PccEntry,
        out: &mut S,
    ) -> DataOutcome {
        let start = out.held();
        let [p0, p1] = e.pit;
        // Usually one part is pending: NIL is `u32::MAX`, so the smaller index is that part.
        let parts = if p0 == NIL || p1 == NIL {
            u32::from(self.satisfy_exact(now, p0.min(p1), e.digest(), in_face, out))
        } else {
            self.satisfy_both(now, p0, p1, in_face, out)
        };
        let solicited = parts > 0;
        let admit = solicited || self.cfg.unsolicited.admits(face_is_local);
        let c = if admit && !d.no_cache && self.cfg.cs_capacity_packets > 0 {
            self.cs_store_as(now, k, e, d, d.digest.as_ref(), true)
        } else {
            None
        };
        let cached = c.is_some();
        // A branch the usual (solicited) Data does not take, not two counters updated by it.
        if !solicited {
            self.counters.unsolicited += 1;
            self.counters.unsolicited_cached += u64::from(cached);
        }
        if let Some(key) = self.keys.get_live_mut(k) {
            key.pit = [NIL; 2];
            if let Some(c) = c {
                key.cs = c;
            } else if key.is_empty() {
                let (hash, at) = (key.hash(), key.at);
                self.free_key(k, hash, at);
            }
        }
        self.cs_evict();
        DataOutcome {
            downstreams: start..out.held(),
            matched: parts,
            cached,
            unsolicited: !solicited,
            via_token: true,
        }
    }

    /// [`Pcct::satisfy_all`] for the one pending part `p` of the exact-token Data's key (a
    /// digest name's key if `digest`): the part is released ([`Pcct::release_part`]) but its
    /// key is left to the caller, which clears the key's parts in the access that attaches the
    /// CS part.
    #[inline(always)]
    fn satisfy_exact<S: DataSink>(
        &mut self,
        now: u64,
        p: u32,
        digest: bool,
        in_face: FaceId,
        out: &mut S,
    ) -> bool {
        let Some(any) = self.push_part_records(now, p, in_face, out) else {
            return false;
        };
        self.release_part(p);
        self.digest_pending -= u32::from(digest);
        self.counters.satisfied += 1;
        any
    }

    /// Both PIT parts of an exact match (MustBeFresh 0, then 1), satisfied whole: how many
    /// were. Out of line: [`Pcct::settle_exact`] inlines the usual single part.
    #[inline(never)]
    fn satisfy_both<S: DataSink>(
        &mut self,
        now: u64,
        p0: u32,
        p1: u32,
        in_face: FaceId,
        out: &mut S,
    ) -> u32 {
        let a = self.satisfy_all(now, p0, in_face, out);
        let b = self.satisfy_all(now, p1, in_face, out);
        u32::from(a) + u32::from(b)
    }

    /// The rest of [`Pcct::on_data`] once the matched entries are known: satisfy them, cache
    /// the Data (under `m.exact` or a new key), free emptied keys, evict.
    #[allow(clippy::too_many_arguments)] // on_data's own parameters, plus what matching found
    fn settle_data<S: DataSink>(
        &mut self,
        now: u64,
        d: &DataInfo<'_>,
        in_face: FaceId,
        face_is_local: bool,
        m: &Matches,
        matched: &[(u32, Relation)],
        out: &mut S,
    ) -> DataOutcome {
        let start = out.held();
        let mut parts = 0u32;
        for &(k, rel) in matched {
            let Some(pits) = self.keys.get_live(k).map(|e| e.pit) else {
                continue;
            };
            for p in pits.into_iter().filter(|&p| p != NIL) {
                parts += u32::from(self.satisfy_part(now, p, rel, in_face, out));
            }
        }
        let solicited = parts > 0;
        self.counters.unsolicited += u64::from(!solicited);

        let mut cached = false;
        let mut settled = None;
        let admit = solicited || self.cfg.unsolicited.admits(face_is_local);
        if admit && !d.no_cache && self.cfg.cs_capacity_packets > 0 {
            let ncomps = u16::try_from(m.n).unwrap_or(u16::MAX);
            let key = m
                .exact
                .or_else(|| self.insert_key(PccEntry::new(m.id, m.fh, ncomps, false)));
            match key {
                Some(k) => {
                    // Freeing a victim's key inside the store keeps the order of key frees
                    // only when no other matched key is left to free after it.
                    let recycle = matched.iter().all(|&(mk, _)| mk == k);
                    if let Some(c) = self.cs_store(now, k, d, m.digest.as_ref(), recycle) {
                        cached = true;
                        for &(p, rel) in matched {
                            if rel == Relation::Prefix {
                                self.cs_attach_indirect(p, c);
                            }
                        }
                    } else {
                        // Only a key that did not take the Data may be left empty.
                        self.maybe_free_key(k);
                    }
                    settled = Some(k);
                }
                None => self.counters.cs_table_full += 1,
            }
            self.counters.unsolicited_cached += u64::from(cached && !solicited);
        }
        // The CS key was settled above (usually the exact match itself).
        for &(k, _) in matched.iter().filter(|&&(k, _)| Some(k) != settled) {
            self.maybe_free_key(k);
        }
        self.cs_evict();
        DataOutcome {
            downstreams: start..out.held(),
            matched: parts,
            cached,
            unsolicited: !solicited,
            via_token: m.via_token,
        }
    }

    /// Whether key `k` holds a PIT part with CanBePrefix in-records.
    fn has_cbp_part(&self, k: u32) -> bool {
        let Some(e) = self.keys.get_live(k) else {
            return false;
        };
        e.pit
            .iter()
            .any(|&p| self.pits.get_live(p).is_some_and(|x| x.n_cbp > 0))
    }

    /// The name check behind a token: the live key it names, how that entry relates to the
    /// Data, and a copy of the entry. A match implies the entry holds a PIT part.
    fn token_relation(
        &mut self,
        t: PitToken,
        d: &DataInfo<'_>,
        n: usize,
        id: u128,
        digest: &mut Option<[u8; 32]>,
    ) -> Option<(u32, Relation, PccEntry)> {
        let (k, &e) = self.token_entry(t)?;
        let nc = usize::from(e.ncomps);
        let rel = if !e.has_pit() {
            None
        } else if nc == n && e.id == id {
            Some(Relation::Exact)
        } else if e.digest() && nc == n + 1 {
            (self.digest_name_id(d, digest)? == e.id).then_some(Relation::Digest)
        } else if nc < n && self.has_cbp_part(k) && {
            self.hash_data_prefixes(d);
            self.scratch_hashes.id128(nc) == Some(e.id)
        } {
            Some(Relation::Prefix)
        } else {
            None
        };
        rel.map(|r| (k, r, e))
    }

    /// Keyed 128-bit identity of the Data's full name (name + ImplicitSha256DigestComponent);
    /// computes the digest into `digest` if needed.
    fn digest_name_id(&mut self, d: &DataInfo<'_>, digest: &mut Option<[u8; 32]>) -> Option<u128> {
        let dg = *digest.get_or_insert_with(|| sha256(d.wire));
        self.scratch_name.clear();
        self.scratch_name.extend_from_slice(d.name.value());
        tlv::write_tlv(
            &mut self.scratch_name,
            tt::IMPLICIT_SHA256_DIGEST_COMPONENT,
            &dg,
        );
        let name = NameRef::new_checked(&self.scratch_name).ok()?;
        Some(self.hasher.name_id(name).id128())
    }

    /// Hashes every prefix of the Data name into the scratch set, for the rare matches that
    /// need them (a Data carries its whole name's identity only): a second walk over the
    /// checked name, with the same key, so the values equal those of the Interests' names.
    fn hash_data_prefixes(&mut self, d: &DataInfo<'_>) {
        self.hasher.hash_prefixes(d.name, &mut self.scratch_hashes);
    }

    /// Satisfies the in-records of part `p` that `rel` allows, appending new downstream faces
    /// to `out`. Frees the part when no in-record is left. True if any was satisfied.
    #[inline]
    fn satisfy_part<S: DataSink>(
        &mut self,
        now: u64,
        p: u32,
        rel: Relation,
        in_face: FaceId,
        out: &mut S,
    ) -> bool {
        if rel == Relation::Prefix {
            self.satisfy_prefix(now, p, in_face, out)
        } else {
            self.satisfy_all(now, p, in_face, out)
        }
    }

    /// [`Pcct::satisfy_part`] for a prefix match: only the CanBePrefix in-records.
    fn satisfy_prefix<S: DataSink>(
        &mut self,
        now: u64,
        p: u32,
        in_face: FaceId,
        out: &mut S,
    ) -> bool {
        let Some(e) = self.pits.get_live_mut(p) else {
            return false;
        };
        let had_cbp = e.n_cbp > 0;
        let mut recs = Recs::new(e, &mut self.pools);
        let mut any = false;
        let mut i = recs.view().n_in();
        while i > 0 {
            i -= 1;
            let Some(r) = recs.view().in_at(i).copied() else {
                continue;
            };
            if !r.can_be_prefix() {
                continue;
            }
            any = true;
            recs.swap_remove_in(i);
            push_satisfied(&r, now, in_face, out);
        }
        if recs.view().n_in() == 0 {
            self.free_part(p);
            self.counters.satisfied += 1;
        } else if any {
            self.refresh_part(p, had_cbp);
        }
        any
    }

    /// [`Pcct::satisfy_part`] for an exact or digest match, which satisfies every in-record
    /// ([`Pcct::push_part_records`]) and frees the part whole, without moving records it is
    /// about to free. Inlined with the part's release ([`Pcct::free_part_inline`]).
    #[inline(always)]
    fn satisfy_all<S: DataSink>(&mut self, now: u64, p: u32, in_face: FaceId, out: &mut S) -> bool {
        let Some(any) = self.push_part_records(now, p, in_face, out) else {
            return false;
        };
        self.free_part_inline(p);
        self.counters.satisfied += 1;
        any
    }

    /// Appends every in-record of part `p` to the downstreams `out`
    /// ([`push_satisfied`]), in the order the general loop removes them (last first). Whether
    /// the part had any in-record; `None` when `p` is not a part.
    #[inline(always)]
    fn push_part_records<S: DataSink>(
        &self,
        now: u64,
        p: u32,
        in_face: FaceId,
        out: &mut S,
    ) -> Option<bool> {
        let e = self.pits.get_live(p)?;
        let n = usize::from(e.n_in);
        match e.ins.get(..n) {
            // Every record inline, the usual entry: the same records in the same order as the
            // view's, without looking up the extension block.
            Some(ins) => {
                for r in ins.iter().rev() {
                    push_satisfied(r, now, in_face, out);
                }
            }
            None => {
                let v = View::new(e, &self.pools);
                for r in (0..n).rev().filter_map(|i| v.in_at(i)) {
                    push_satisfied(r, now, in_face, out);
                }
            }
        }
        Some(n > 0)
    }
}

/// Offers satisfied in-record `r` to the downstreams `out` unless it expired or is the ingress
/// face (`out` drops a face it was offered before: the other PIT part of a key may have it
/// too).
#[inline]
fn push_satisfied<S: DataSink>(r: &InRecord, now: u64, in_face: FaceId, out: &mut S) {
    if r.expiry > now && r.face != in_face {
        out.offer(Downstream {
            face: r.face,
            token: r.token,
            nonce: r.nonce,
            congestion_mark: r.mark,
        });
    }
}

/// The [`DataSink`] of [`Pcct::on_data`]: appends the downstreams to a vector, each face once
/// from where it stood when the Data came.
struct Collect<'a> {
    out: &'a mut Vec<Downstream>,
    start: usize,
}

impl<'a> Collect<'a> {
    #[inline(always)]
    fn new(out: &'a mut Vec<Downstream>) -> Self {
        let start = out.len();
        Self { out, start }
    }
}

impl DataSink for Collect<'_> {
    #[inline]
    fn offer(&mut self, d: Downstream) {
        let seen = self
            .out
            .get(self.start..)
            .is_some_and(|s| s.iter().any(|x| x.face == d.face));
        if !seen {
            self.out.push(d);
        }
    }

    #[inline(always)]
    fn held(&self) -> usize {
        self.out.len()
    }
}
