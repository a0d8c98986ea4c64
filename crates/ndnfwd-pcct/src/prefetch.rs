//! Prefetch steps and burst entry points of the PIT-CS: what each packet will touch is
//! fetched ahead of its turn (buckets, then the entries behind them, then the parts a Data's
//! key names, the LRU victims a recycle will free and the slots a new entry will take), so the
//! misses overlap the work on earlier packets. A prefetch reads at most lines an earlier step
//! fetched and never changes an outcome.

use ndn_packet::NameId;
use ndnfwd_table::prefetch_read;

use crate::api::{DataInfo, DataOutcome, Downstream, InterestInfo, InterestOutcome};
use crate::entry::key_hash;
use crate::list::NIL;
use crate::pcct::{DataArrival, InterestArrival, Pcct, BURST_GROUP};
use crate::token::RxToken;

/// New entries whose slots [`Pcct::prefetch_next_entry`] fetches together. Four: at a 1M PIT
/// (16M FIB, longest-first, speculative) it took about 30 cycles off an Interest against one
/// at a time, eight gave back most of that (docs/bench/recorded.md, session 24).
const NEXT_SLOTS: u32 = 4;

impl Pcct {
    /// Turns the prefetches the operations make on their own (new PIT entries for the next
    /// ones' slots, each CS recycle along the LRU front) on or off; on by default. The
    /// engine's `none` mode turns them off, so that it measures no software prefetch at all.
    pub fn set_prefetch(&mut self, on: bool) {
        self.prefetch = on;
    }

    /// Prefetches the slots new entries will take, [`NEXT_SLOTS`] entries at a time: a new
    /// Interest calls it, and every `NEXT_SLOTS`-th call fetches the key slot (and its
    /// generation) and the PIT slot of the `NEXT_SLOTS` new entries after the next one (the
    /// next one's were fetched by the group before), so that filling them in does not wait on
    /// their lines. On a large PIT-CS those slots were last touched long ago, often in pages
    /// the TLB no longer holds: fetched one at a time, each new entry's page walks stall the
    /// core on their own, fetched together they overlap.
    #[inline]
    pub(crate) fn prefetch_next_entry(&mut self) {
        if self.slots_ahead > 0 {
            self.slots_ahead -= 1;
            return;
        }
        self.slots_ahead = NEXT_SLOTS - 1;
        for n in 1..=NEXT_SLOTS {
            if let Some(k) = self.keys.nth_free(n) {
                self.keys.prefetch_value(k);
                prefetch_read(self.gens.as_ptr().wrapping_add(k as usize));
            }
            if let Some(p) = self.pits.nth_free(n) {
                self.pits.prefetch_lines(p);
            }
        }
    }

    /// Prefetches the bucket an Interest will look up.
    #[inline]
    pub fn prefetch_interest(&self, it: &InterestInfo<'_>) {
        self.table
            .prefetch(key_hash(it.hashes.full(), it.forwarding_hint_hash));
    }

    /// Speculative entry prefetch (seed 002's Speculative HT Lookup): prefetches the PCC
    /// entries (keys) behind every fingerprint match in the Interest's bucket. Call it one step
    /// after [`Pcct::prefetch_interest`] with the same Interest, once that bucket is in cache.
    /// It reads only the bucket, so it never changes an outcome.
    ///
    /// The PIT and CS parts behind a key are not prefetched: their indices are in the key line
    /// this call starts fetching, so reading them here would stall on the very miss it hides.
    #[inline]
    pub fn prefetch_interest_entries(&self, it: &InterestInfo<'_>) {
        self.for_each_interest_candidate(it, |k| self.keys.prefetch_value(k));
    }

    /// Key indices behind fingerprint matches in the bucket of an Interest's PCC key (one
    /// compare of the whole bucket, which may hold retired slots: `Pcct::find_key_inline`).
    /// Inlined into the speculative step of every Interest (a call and a closure argument
    /// otherwise).
    #[inline(always)]
    pub(crate) fn for_each_interest_candidate(&self, it: &InterestInfo<'_>, f: impl FnMut(u32)) {
        let hash = key_hash(it.hashes.full(), it.forwarding_hint_hash);
        self.table.candidates(hash, f);
    }

    /// Prefetches what a Data will touch first: the entry its token names if the token is
    /// ours (an exact match then needs no bucket), else the bucket of its name.
    #[inline]
    pub fn prefetch_data(&self, d: &DataInfo<'_>, token: Option<&[u8]>) {
        self.prefetch_data_name(&d.id, token.into());
    }

    /// [`Pcct::prefetch_data`] from the Data name's identity alone (no [`DataInfo`]
    /// needed): the key slot our token names, else the bucket of the name's
    /// table hash. Any token (absent, another worker's, forged, wrong length) and any identity
    /// are fine; a prefetch never changes an outcome.
    #[inline]
    pub fn prefetch_data_name(&self, name: &NameId, token: RxToken) {
        let ours = token
            .pit_token()
            .filter(|t| t.worker() == self.cfg.worker_id);
        match ours {
            Some(t) => {
                // The key and its generation, which the token check compares.
                self.keys.prefetch(t.index());
                prefetch_read(self.gens.as_ptr().wrapping_add(t.index() as usize));
            }
            None => self.table.prefetch(name.hash()),
        }
    }

    /// Speculative step for a Data (call it one step after [`Pcct::prefetch_data_name`] with
    /// the same token, once the key is in cache): prefetches the PIT parts (every line: the
    /// in-records, expiry and bookkeeping are all read when they are satisfied and freed) and
    /// the CS part of the key our token names. Reads only that key; never changes
    /// an outcome, whatever the token.
    #[inline]
    pub fn prefetch_data_entries(&self, token: RxToken) {
        let key = token
            .pit_token()
            .filter(|t| t.worker() == self.cfg.worker_id)
            .and_then(|t| self.keys.get(t.index()));
        if let Some(e) = key {
            for p in e.pit.into_iter().filter(|&p| p != NIL) {
                self.pits.prefetch_lines(p);
            }
            if e.cs != NIL {
                self.cs.prefetch_value(e.cs);
                prefetch_read(self.cs_data.as_ptr().wrapping_add(e.cs as usize));
            }
        }
    }

    /// [`Pcct::on_interest`] over a burst, prefetching one [`BURST_GROUP`] ahead; one outcome
    /// per Interest is appended to `out`.
    pub fn on_interest_burst(
        &mut self,
        now: u64,
        burst: &[InterestArrival<'_>],
        out: &mut Vec<InterestOutcome>,
    ) {
        for a in burst.iter().take(BURST_GROUP) {
            self.prefetch_interest(&a.interest);
        }
        for (g, group) in burst.chunks(BURST_GROUP).enumerate() {
            let next = burst.iter().skip((g + 1) * BURST_GROUP).take(BURST_GROUP);
            next.for_each(|a| self.prefetch_interest(&a.interest));
            for a in group {
                out.push(self.on_interest(now, &a.interest, a.face));
            }
        }
    }

    /// [`Pcct::on_data`] over a burst, prefetching one [`BURST_GROUP`] ahead; one outcome per
    /// Data is appended to `out`, downstreams to `downstreams`.
    pub fn on_data_burst(
        &mut self,
        now: u64,
        burst: &[DataArrival<'_>],
        out: &mut Vec<DataOutcome>,
        downstreams: &mut Vec<Downstream>,
    ) {
        for a in burst.iter().take(BURST_GROUP) {
            self.prefetch_data(&a.data, a.token);
        }
        for (g, group) in burst.chunks(BURST_GROUP).enumerate() {
            let next = burst.iter().skip((g + 1) * BURST_GROUP).take(BURST_GROUP);
            next.for_each(|a| self.prefetch_data(&a.data, a.token));
            for a in group {
                let o = self.on_data(now, &a.data, a.face, a.token, a.face_is_local, downstreams);
                out.push(o);
            }
        }
    }
}
