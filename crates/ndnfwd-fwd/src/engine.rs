//! The engine: one worker's forwarding state and the staged, prefetch-pipelined burst loop.
//!
//! # Burst stages and prefetch modes (seed 002 §4, Fig. 2)
//!
//! Each packet goes through *prepare* (parse and hash every name prefix in the same walk over
//! the name, hash the forwarding hint, and except in `none`
//! mode prefetch every bucket its lookups will touch: the PCCT bucket and all FIB buckets of the
//! probe plan at once) and *process* (PCCT, FIB, strategy, output). The modes differ only in how
//! far ahead of *process* the *prepare* of later packets runs:
//!
//! | mode          | step `i` does                                                           |
//! |---------------|-------------------------------------------------------------------------|
//! | `none`        | prepare(i) without prefetch; process(i)                                 |
//! | `bucket`      | prepare(i) with all-at-once bucket prefetch; process(i) (seed 000)      |
//! | `prehash`     | prepare(i+1); process(i): hashing i+1 hides i's bucket fetches          |
//! | `speculative` | prepare(i+2); prefetch the entries behind i+1's candidate slots (its buckets arrived during step i-1); process(i); with the FIB's further steps, longest-first deeper than the head: prepare(i+3), the entries of i+2, the step below the head of i+1, process(i); two-stage: prepare(i+4), the entries of i+3, the further steps of i+2 and i+1, process(i) |
//!
//! The speculative step is seed 002's SHTL: the entries behind every fingerprint match of the
//! buckets fetched one step earlier are prefetched (`FibReader::prefetch_entries` over the
//! probe plan's depths, for the top-down LPMs only up to the first bucket with a match, and
//! `Pcct::prefetch_interest_entries`), so that entry misses too are hidden behind the work on
//! the packets before. Because of that step, this mode's *prepare* prefetches only the head of a
//! top-down plan (`FibReader::prefetch_head`, its first four depths): the speculative step
//! finalizes and prefetches the rest when the head's buckets hold no candidate. Under a
//! longest-first plan deeper than the head and under two-stage (`FibReader::speculative_steps`,
//! read per burst: one step, two) *prepare* runs as many packets further ahead and as many
//! more steps follow an Interest whose memory the lookup would still miss on
//! (`FibReader::prefetch_steps`). When the head held no candidate, one step later the rest of
//! the plan's buckets (prefetched by the speculative step) are scanned down to the first
//! holding a fingerprint match, and the entries behind its matches prefetched: the lookup
//! then starts at that candidate, its entry in cache, instead of scanning those buckets and
//! then missing on the entry. When two-stage's scan found a
//! candidate at M, one step later its entry, prefetched by the speculative step, is read, and
//! when its MD sends the lookup on to stage 2 the bucket of stage 2's first probe is
//! prefetched; one step after that, that bucket is scanned and the entries behind its
//! fingerprint matches prefetched. Stage 2's first probe then finds its bucket and entry in
//! cache instead of two dependent misses. Correctness never depends on the mode: prefetches
//! are hints, and table lookups and updates run in packet order.
//!
//! *Prepare*'s first half, the decode, runs by groups of four packets in every mode but `none`:
//! when packet `i + lookahead` is not decoded yet, it is decoded with the three after it, and
//! the group's Data names are hashed side by side in vector lanes (`NameHasher::name_ids`).
//! Interests, Nacks and malformed packets in a group take the single-packet decoders. The
//! bucket prefetch of each packet keeps its mode's distance above, except in the speculative
//! mode, which prefetches the buckets of the whole group right after its decode (packets
//! `i + lookahead` to `i + lookahead + 3`): on a large FIB or PIT-CS each packet's buckets sit
//! in pages the TLB does not hold, and a prefetch waits for its page walk before it retires, so
//! a packet's prefetches stall the core once per packet when issued alone, once per group when
//! issued together (their walks overlap). Alternated pairs at a 1M PIT, longest-first: 572-584
//! -> 530-537 cycles an Interest at a 64K FIB, 696-712 -> 653-693 at 16M, with the same
//! instructions (docs/bench/recorded.md, session 24). The seeds' per-packet modes
//! (`bucket`, `prehash`) keep their one packet at a time.
//!
//! Every mode but `none` also prefetches the head of a packet's wire (`prefetch_wire`)
//! one group before its decode: the decoder reads the header and name first
//! and the rest of the packet's fields after them, so a wire that is not in cache (a burst
//! larger than the caches, a buffer the NIC or another core wrote) is otherwise a chain of
//! misses at the head of every *prepare*. `none` also turns off the prefetches the PIT-CS makes
//! inside its operations (the next entry's slots, the LRU victims: `Pcct::set_prefetch`), so
//! that it measures no software prefetch at all.

mod decode;

use ndn_packet::hash::ID_LANES;
use ndn_packet::interest::Interest;
use ndn_packet::lp::NackReason;
use ndn_packet::{FaceId, NameHasher, NameId, NameRef, PrefixHashes};
use ndnfwd_fib::{FibHint, FibReader};
use ndnfwd_pcct::{Downstream, Expired, Pcct, PcctConfig, PitHandle};

use crate::counters::Counters;
use crate::cycles::{Laps, Stage, StageCycles};
use crate::face::{FaceInfo, FaceTable};
use crate::out::TxBurst;
use crate::pool::{TxBuffers, DEFAULT_CHUNK};
use crate::prefetch::{prefetch_wire, PrefetchMode};
use crate::quota::FaceQuota;
use crate::strategy::{
    full_name, instantiate, Actions, NextHop, OutRecordInfo, Strategy, StrategyChoice,
    StrategyError, StrategyId, MAX_FANOUT,
};
use ndn_packet::link::RxPacket;

/// Packets decoded together (*prepare*'s first half in every mode but `none`): their Data
/// names' identities are computed side by side in vector lanes (`NameHasher::name_ids`).
const GROUP: usize = ID_LANES;

/// Packets in flight in the prepare/process pipeline: the one processed, and up to a whole
/// group decoded from the largest lookahead on (a power of two: the slot of packet `i` is
/// `i % RING`).
const RING: usize = 8;

/// The burst loop's mode indices (beside [`PrefetchMode::index`]) of the speculative mode with
/// one and with two of the FIB's further steps (`FibReader::prefetch_steps`) between the
/// speculative step and *process*: its *prepare* runs as many packets further ahead.
const SPECULATIVE_STEP1: u8 = 4;
const SPECULATIVE_STEP2: u8 = 5;

/// The FIB's further steps a packet goes through in the burst loop of mode `mode`.
const fn further_steps(mode: u8) -> usize {
    match mode {
        SPECULATIVE_STEP1 => 1,
        SPECULATIVE_STEP2 => 2,
        _ => 0,
    }
}

const _: () = assert!(
    RING >= 1 + PrefetchMode::Speculative.lookahead() + further_steps(SPECULATIVE_STEP2) + GROUP
        - 1
        && RING.is_power_of_two()
);

/// The default strategy, NFD's.
pub const DEFAULT_STRATEGY: &str = "/localhost/nfd/strategy/best-route";

/// Configuration of one engine (one worker).
#[derive(Debug, Clone, Copy)]
pub struct EngineConfig {
    /// The worker's PIT-CS (its `worker_id` goes into our PIT tokens).
    pub pcct: PcctConfig,
    /// Burst-loop prefetch mode.
    pub prefetch: PrefetchMode,
    /// Size of the chunks outgoing Interests are written into (see `pool`).
    pub tx_chunk_bytes: usize,
    /// Seed of the Nonces the engine adds to Interests that arrive without one.
    pub nonce_seed: u64,
    /// Most PIT entries one face may hold (0: no per-face limit); see `quota`.
    pub pit_face_quota: u32,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            pcct: PcctConfig::default(),
            prefetch: PrefetchMode::default(),
            tx_chunk_bytes: DEFAULT_CHUNK,
            nonce_seed: 0x6e64_6e66_7764,
            pit_face_quota: 0,
        }
    }
}

/// `Engine::new` failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineError {
    /// The PIT-CS could not be created.
    Pcct(ndnfwd_pcct::NewError),
}

impl core::fmt::Display for EngineError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Pcct(e) => write!(f, "engine: {e}"),
        }
    }
}

impl std::error::Error for EngineError {}

/// The FIB nexthops found for one Interest (lowest cost first).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hops {
    n: u8,
    hops: [NextHop; MAX_FANOUT],
}

impl Hops {
    pub(crate) const EMPTY: Hops = Hops {
        n: 0,
        hops: [NextHop { face: 0, cost: 0 }; MAX_FANOUT],
    };

    pub(crate) fn clear(&mut self) {
        self.n = 0;
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Appends nexthops while there is room.
    pub(crate) fn extend(&mut self, it: impl Iterator<Item = NextHop>) {
        for nh in it {
            match self.hops.get_mut(usize::from(self.n)) {
                Some(slot) => *slot = nh,
                None => return,
            }
            self.n += 1;
        }
    }

    pub(crate) fn as_slice(&self) -> &[NextHop] {
        self.hops.get(..usize::from(self.n)).unwrap_or_default()
    }
}

/// A decoded packet of the burst, borrowed from its wire.
///
/// `repr(C, u8)`: each variant's fields in declaration order after the tag, so the Interest and
/// the Nack keep their [`Interest`] at one offset (a move between them, or a store of either
/// from the decoder's result, is then the same stores; the layout the compiler picks otherwise
/// interleaves them, at a dozen instructions per Interest).
#[derive(Debug, Clone, Copy)]
#[repr(C, u8)]
pub(crate) enum Parsed<'a> {
    /// Undecodable, or neither Interest nor Data.
    Bad,
    /// An Interest and the table hash of its forwarding-hint delegation in use.
    Interest(Interest<'a>, Option<u64>),
    /// A Nack: the nacked Interest, its forwarding-hint hash and the reason.
    Nack(Interest<'a>, Option<u64>, Option<NackReason>),
    /// A checked Data, kept as what its pipeline reads (the ring's prefix hashes are not
    /// filled for a Data).
    Data(DataHead<'a>),
}

/// What the Data pipeline reads of a checked Data (its wire is the packet's): the name, its
/// keyed identity and the FreshnessPeriod. The decoder checks the whole Data but stores only
/// these in the ring slot (the full 104-byte view's other spans were stored and never read).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DataHead<'a> {
    /// The Data name.
    pub(crate) name: NameRef<'a>,
    /// The name's keyed identity (filled after the group's decode, its names hashed together).
    pub(crate) id: NameId,
    /// FreshnessPeriod in milliseconds, as encoded.
    pub(crate) freshness_period: Option<u64>,
}

/// Everything but the hash ring: what the pipelines work on.
pub(crate) struct Core {
    pub(crate) hasher: NameHasher,
    pub(crate) pcct: Pcct,
    pub(crate) fib: FibReader,
    pub(crate) faces: FaceTable,
    pub(crate) strategies: Vec<Box<dyn Strategy>>,
    /// Each instance's [`Strategy::new_interest_to_first_eligible`] by [`StrategyId`], read once
    /// when the instance is added rather than by a virtual call per Interest (every `u8` id has
    /// a slot, so the pipeline's read has no bounds check).
    pub(crate) first_eligible: [bool; 1 << u8::BITS],
    /// True when every instance the strategy choice names has `first_eligible` set: a new
    /// Interest then goes by that rule without the choice lookup (refreshed on every change
    /// of the choice, [`Engine::refresh_all_first_eligible`]).
    pub(crate) all_first_eligible: bool,
    pub(crate) choice: StrategyChoice,
    pub(crate) counters: Counters,
    pub(crate) cycles: StageCycles,
    pub(crate) tx: TxBuffers,
    pub(crate) downstreams: Vec<Downstream>,
    pub(crate) outs: Vec<OutRecordInfo>,
    pub(crate) nexthops: Hops,
    pub(crate) fh_hashes: PrefixHashes,
    /// What the speculative steps' FIB scans found for the Interest being processed
    /// ([`FibHint::NONE`] in the other modes; a stale value under a packet of another kind),
    /// for its lookup.
    pub(crate) fib_hint: FibHint,
    /// The index in the burst of the packet in the pipelines (set by the burst loop with
    /// [`Core::fib_hint`]): a packet sending its bytes names it ([`crate::out::Wire`]).
    pub(crate) at: usize,
    pub(crate) expired: Vec<Expired>,
    /// Scratch for `Pcct::purge_face` (entries left without a pending upstream; they expire).
    orphans: Vec<PitHandle>,
    pub(crate) actions: Actions,
    pub(crate) quota: FaceQuota,
    nonce_state: u64,
}

/// One worker's forwarding engine: its PIT-CS, a reader of the shared FIB, the face-info
/// table, strategies and strategy choice, counters. Feed it bursts with [`Engine::process`].
pub struct Engine {
    core: Core,
    ring: [PrefixHashes; RING],
    prefetch: PrefetchMode,
    accounting: bool,
}

impl core::fmt::Debug for Engine {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Engine")
            .field("pcct", &self.core.pcct)
            .field("faces", &self.core.faces.len())
            .field("prefetch", &self.prefetch)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// An engine over `fib` (this worker's reader of the shared FIB). `hasher` must carry the
    /// key the FIB was built with. The root strategy is [`DEFAULT_STRATEGY`].
    pub fn new(cfg: EngineConfig, hasher: NameHasher, fib: FibReader) -> Result<Self, EngineError> {
        let mut pcct = Pcct::new(cfg.pcct, hasher.clone()).map_err(EngineError::Pcct)?;
        pcct.set_prefetch(cfg.prefetch != PrefetchMode::None);
        let root = instantiate(DEFAULT_STRATEGY)
            .unwrap_or_else(|_| Box::new(crate::strategy::BestRoute::new()));
        let mut first_eligible = [false; 1 << u8::BITS];
        first_eligible[0] = root.new_interest_to_first_eligible();
        let strategies: Vec<Box<dyn Strategy>> = vec![root];
        let core = Core {
            choice: StrategyChoice::new(hasher.clone(), 0),
            hasher,
            pcct,
            fib,
            faces: FaceTable::new(),
            strategies,
            first_eligible,
            all_first_eligible: first_eligible[0],
            counters: Counters::default(),
            cycles: StageCycles::default(),
            tx: TxBuffers::new(cfg.tx_chunk_bytes),
            downstreams: Vec::with_capacity(64),
            outs: Vec::with_capacity(64),
            nexthops: Hops::EMPTY,
            fh_hashes: PrefixHashes::with_capacity(16),
            fib_hint: FibHint::NONE,
            at: 0,
            expired: Vec::with_capacity(256),
            orphans: Vec::new(),
            actions: Actions::new(),
            quota: FaceQuota::new(cfg.pit_face_quota),
            nonce_state: cfg.nonce_seed | 1,
        };
        Ok(Self {
            core,
            ring: core::array::from_fn(|_| PrefixHashes::with_capacity(32)),
            prefetch: cfg.prefetch,
            accounting: false,
        })
    }

    // ----- faces -----

    /// Adds (or updates) a face.
    pub fn add_face(&mut self, id: FaceId, info: FaceInfo) {
        self.core.faces.insert(id, info);
    }

    /// Removes a face at `now` (NFD's `cleanupOnFaceRemoval`): its in-records leave every PIT
    /// entry (an entry left without downstream is erased) and its out-records leave every
    /// entry that stays; from now on it is never chosen as an upstream. An entry whose only
    /// pending upstream was this face waits for another downstream retransmission or expires,
    /// as in NFD. The CS is kept; FIB nexthops toward the face are the FIB's business. One pass
    /// over the PIT (face removal is rare). Returns the face's info if it was known.
    pub fn remove_face(&mut self, now: u64, id: FaceId) -> Option<FaceInfo> {
        let info = self.core.faces.remove(id);
        self.core.orphans.clear();
        self.core.pcct.purge_face(now, id, &mut self.core.orphans);
        self.core.quota.remove_face(id);
        info
    }

    /// The engine's faces.
    pub fn faces(&self) -> &FaceTable {
        &self.core.faces
    }

    // ----- strategies -----

    /// Chooses strategy `name` (`/localhost/nfd/strategy/<name>[/v=<n>]`) for `prefix` and
    /// everything under it that has no longer choice.
    pub fn set_strategy(&mut self, prefix: NameRef<'_>, name: &str) -> Result<(), StrategyError> {
        let want = instantiate(name)?;
        let id = self.strategy_id(want)?;
        let r = self.core.choice.insert(prefix, id);
        self.refresh_all_first_eligible();
        r
    }

    /// Adds a strategy instance of the caller's own type (e.g. a measurement-driven one) and
    /// chooses it for `prefix`.
    pub fn set_custom_strategy(
        &mut self,
        prefix: NameRef<'_>,
        strategy: Box<dyn Strategy>,
    ) -> Result<(), StrategyError> {
        let id = self.strategy_id(strategy)?;
        let r = self.core.choice.insert(prefix, id);
        self.refresh_all_first_eligible();
        r
    }

    /// The instance id of `s`, reusing an existing instance of the same strategy.
    fn strategy_id(&mut self, s: Box<dyn Strategy>) -> Result<StrategyId, StrategyError> {
        let existing = self
            .core
            .strategies
            .iter()
            .position(|x| x.name() == s.name() && x.version() == s.version());
        let i = match existing {
            Some(i) => i,
            None => {
                if let Some(f) = self.core.first_eligible.get_mut(self.core.strategies.len()) {
                    *f = s.new_interest_to_first_eligible();
                }
                self.core.strategies.push(s);
                self.core.strategies.len() - 1
            }
        };
        StrategyId::try_from(i).map_err(|_| StrategyError::TooManyInstances)
    }

    /// Removes the choice of `prefix` (the root cannot be removed).
    pub fn unset_strategy(&mut self, prefix: NameRef<'_>) -> Result<bool, StrategyError> {
        let r = self.core.choice.remove(prefix);
        self.refresh_all_first_eligible();
        r
    }

    /// [`Core::all_first_eligible`] after a change of the strategy choice.
    fn refresh_all_first_eligible(&mut self) {
        let c = &mut self.core;
        let fe = &c.first_eligible;
        c.all_first_eligible = c
            .choice
            .iter()
            .all(|(_, id)| fe.get(usize::from(id)).is_some_and(|&f| f));
    }

    /// Every strategy choice: prefix and full strategy name (`.../v=<n>`), root first.
    pub fn strategy_choices(&self) -> impl Iterator<Item = (NameRef<'_>, String)> + '_ {
        self.core.choice.iter().map(|(p, id)| {
            let name = self
                .core
                .strategies
                .get(usize::from(id))
                .map_or_else(String::new, |s| full_name(s.as_ref()));
            (p, name)
        })
    }

    /// The full name of the strategy that governs `name`.
    pub fn strategy_of(&mut self, name: NameRef<'_>) -> String {
        let id = self.core.choice.find_name(name);
        self.core
            .strategies
            .get(usize::from(id))
            .map_or_else(String::new, |s| full_name(s.as_ref()))
    }

    // ----- state -----

    /// Forwarding counters.
    pub fn counters(&self) -> &Counters {
        &self.core.counters
    }

    /// The worker's PIT-CS (read-only: status datasets, table counters).
    pub fn pcct(&self) -> &Pcct {
        &self.core.pcct
    }

    /// The worker's PIT-CS, e.g. for `cs/erase`.
    pub fn pcct_mut(&mut self) -> &mut Pcct {
        &mut self.core.pcct
    }

    /// The worker's FIB reader: call `offline()` on it while the worker idles.
    pub fn fib_mut(&mut self) -> &mut FibReader {
        &mut self.core.fib
    }

    /// Current prefetch mode.
    pub fn prefetch(&self) -> PrefetchMode {
        self.prefetch
    }

    /// Changes the prefetch mode (takes effect at the next burst).
    pub fn set_prefetch(&mut self, mode: PrefetchMode) {
        self.prefetch = mode;
        self.core.pcct.set_prefetch(mode != PrefetchMode::None);
    }

    /// Turns per-stage cycle accounting on or off (free when off).
    pub fn set_accounting(&mut self, on: bool) {
        self.accounting = on;
    }

    /// Cycles per stage since the last reset, while accounting was on.
    pub fn stage_cycles(&self) -> &StageCycles {
        &self.core.cycles
    }

    /// Clears the per-stage cycles.
    pub fn reset_stage_cycles(&mut self) {
        self.core.cycles.reset();
    }

    /// Outgoing-Interest buffer chunks allocated so far (stays at 1 when the caller drops the
    /// packets it sent before the next bursts).
    pub fn tx_chunks_allocated(&self) -> u64 {
        self.core.tx.fresh_chunks()
    }

    // ----- time -----

    /// Expires PIT entries whose lifetime ended by `now` (Interest finalize); returns how many.
    /// [`Engine::process`] does this too, at the start of every burst.
    pub fn tick(&mut self, now: u64) -> usize {
        self.core.expire(now)
    }

    // ----- bursts -----

    /// Processes a burst received at `now`, appending the packets to send to `out` (which the
    /// caller clears and reuses; dropping sent packets before the next burst lets the engine
    /// recycle its Interest buffers). A received packet sent on with the bytes it arrived with
    /// gives them up: afterwards its [`RxPacket::wire`] is empty, one packet sent holding its
    /// buffer (no reference-count update; the others sending the same bytes share it), and
    /// the packets not sent that way keep theirs. Out of line: one call per burst, and the
    /// unit profilers and the callgrind recipe measure (`--toggle-collect`).
    #[inline(never)]
    pub fn process(&mut self, now: u64, burst: &mut [RxPacket], out: &mut TxBurst) {
        // One burst loop per accounting choice and prefetch mode: the mode's tests in the
        // per-packet steps fold away.
        const NONE: u8 = PrefetchMode::None.index();
        const BUCKET: u8 = PrefetchMode::Bucket.index();
        const PREHASH: u8 = PrefetchMode::Prehash.index();
        const SPECULATIVE: u8 = PrefetchMode::Speculative.index();
        // The speculative mode also runs the FIB's further steps, further ahead, when the
        // configuration may want them.
        const STEP1: u8 = SPECULATIVE_STEP1;
        const STEP2: u8 = SPECULATIVE_STEP2;
        let steps = match self.prefetch {
            PrefetchMode::Speculative => self.core.fib.speculative_steps(),
            _ => 0,
        };
        match (self.accounting, self.prefetch, steps) {
            (true, PrefetchMode::None, _) => self.run::<true, NONE>(now, burst, out),
            (true, PrefetchMode::Bucket, _) => self.run::<true, BUCKET>(now, burst, out),
            (true, PrefetchMode::Prehash, _) => self.run::<true, PREHASH>(now, burst, out),
            (true, PrefetchMode::Speculative, 0) => self.run::<true, SPECULATIVE>(now, burst, out),
            (true, PrefetchMode::Speculative, 1) => self.run::<true, STEP1>(now, burst, out),
            (true, PrefetchMode::Speculative, _) => self.run::<true, STEP2>(now, burst, out),
            (false, PrefetchMode::None, _) => self.run::<false, NONE>(now, burst, out),
            (false, PrefetchMode::Bucket, _) => self.run::<false, BUCKET>(now, burst, out),
            (false, PrefetchMode::Prehash, _) => self.run::<false, PREHASH>(now, burst, out),
            (false, PrefetchMode::Speculative, 0) => {
                self.run::<false, SPECULATIVE>(now, burst, out)
            }
            (false, PrefetchMode::Speculative, 1) => self.run::<false, STEP1>(now, burst, out),
            (false, PrefetchMode::Speculative, _) => self.run::<false, STEP2>(now, burst, out),
        }
        // The burst's views are gone: the packets sent take the received wires.
        out.fill(burst);
    }

    /// The burst loop of mode `MODE` (a [`PrefetchMode::index`], [`SPECULATIVE_STEP1`] or
    /// [`SPECULATIVE_STEP2`]).
    fn run<const ACCT: bool, const MODE: u8>(
        &mut self,
        now: u64,
        burst: &[RxPacket],
        out: &mut TxBurst,
    ) {
        let mut laps = Laps::<ACCT>::start();
        self.core.tx.recycle();
        self.core.expire(now);
        laps.lap(&mut self.core.cycles, Stage::Pcct);
        let mode = PrefetchMode::from_index(MODE);
        let steps = further_steps(MODE);
        let ahead = mode.lookahead() + steps;
        // Each packet is decoded straight into its ring slot and the stages read it there by
        // reference: the views are never moved between stages.
        let mut views = [Parsed::Bad; RING];
        // The FIB hints of the packets between their speculative step and their lookup, by
        // ring slot (a slot's hint is stale under a packet of another kind: only an
        // Interest's pipeline reads it).
        let mut hints = [FibHint::NONE; RING];
        let mut decoded = 0;
        if mode != PrefetchMode::None {
            burst.iter().take(GROUP).for_each(prefetch_wire);
        }
        // The burst's first packets have no lead: all their buckets are prefetched before
        // any of their steps reads one, so that those misses overlap.
        for t in 0..ahead {
            self.prepare(burst, t, &mut decoded, &mut views, mode, &mut laps);
        }
        // The speculative mode's first packet goes without (one packet in a burst); with the
        // further steps the burst's first three would, so their steps start here.
        if steps > 0 {
            for t in 1..ahead {
                self.speculate(burst, t - 1, &views, &mut hints, steps, &mut laps);
            }
        }
        for (i, rx) in burst.iter().enumerate() {
            self.prepare(burst, i + ahead, &mut decoded, &mut views, mode, &mut laps);
            if mode == PrefetchMode::Speculative {
                self.speculate(burst, i + ahead - 1, &views, &mut hints, steps, &mut laps);
            }
            let k = i % RING;
            if let (Some(view), Some(hashes), Some(hint)) =
                (views.get(k), self.ring.get(k), hints.get(k))
            {
                self.core.fib_hint = *hint;
                self.core.at = i;
                self.core.dispatch(now, rx, view, hashes, out, &mut laps);
            }
        }
        self.core.fib.quiescent();
    }

    /// The speculative mode's steps between *prepare* and *process*: the speculative lookup
    /// of packet `j` (its buckets were prefetched one step ago), then the `steps` further steps
    /// (`FibReader::prefetch_steps`) of packets `j - 1` (and `j - 2`). A slot's hint is only
    /// written by an Interest's speculative step and is complete (the further steps leave it
    /// as it is) once those have run, so the further steps need no test of the packet behind
    /// their slot (for a slot before the burst's start, its initial `NONE`).
    #[inline(always)]
    fn speculate<'b, const ACCT: bool>(
        &mut self,
        burst: &'b [RxPacket],
        j: usize,
        views: &[Parsed<'b>; RING],
        hints: &mut [FibHint; RING],
        steps: usize,
        laps: &mut Laps<ACCT>,
    ) {
        let k = j % RING;
        if let (Some(rx), Some(view), Some(hashes), Some(hint)) = (
            burst.get(j),
            views.get(k),
            self.ring.get(k),
            hints.get_mut(k),
        ) {
            self.core.speculate(rx, view, hashes, hint, laps);
        }
        if steps == 0 {
            return;
        }
        for back in 1..=steps {
            let k = j.wrapping_sub(back) % RING;
            if let (Some(hashes), Some(hint)) = (self.ring.get(k), hints.get_mut(k)) {
                self.core.fib.prefetch_steps(hashes, hint);
            }
        }
        laps.lap(&mut self.core.cycles, Stage::Fib);
    }

    /// Prepares packet `j` of the burst (nothing past its end): decodes it with the rest of its
    /// group when it is not decoded yet (`decoded` is the count decoded so far), then (unless
    /// `none`) prefetches its buckets; the speculative mode prefetches the buckets of the whole
    /// group right after its decode instead (see the module docs). Inlined into the burst
    /// loop: a call costs a prologue and epilogue per packet.
    #[inline(always)]
    fn prepare<'b, const ACCT: bool>(
        &mut self,
        burst: &'b [RxPacket],
        j: usize,
        decoded: &mut usize,
        views: &mut [Parsed<'b>; RING],
        mode: PrefetchMode,
        laps: &mut Laps<ACCT>,
    ) {
        if j >= burst.len() {
            return;
        }
        let speculative = mode == PrefetchMode::Speculative;
        if j >= *decoded {
            // `none` decodes one packet at a time (nothing ahead of any kind).
            let group = if mode == PrefetchMode::None { 1 } else { GROUP };
            *decoded = (j + group).min(burst.len());
            self.decode(burst, j, *decoded, views, mode != PrefetchMode::None, laps);
        } else if speculative {
            // Its buckets were prefetched with its group's.
            return;
        }
        if mode == PrefetchMode::None {
            return;
        }
        let to = if speculative { *decoded } else { j + 1 };
        for p in j..to {
            let k = p % RING;
            if let (Some(rx), Some(parsed), Some(hashes)) =
                (burst.get(p), views.get(k), self.ring.get(k))
            {
                self.core
                    .prefetch_buckets(rx, parsed, hashes, speculative, laps);
            }
        }
    }
}

impl Core {
    /// A Nonce for an Interest that arrived without one (xorshift64*, seeded per engine).
    pub(crate) fn next_nonce(&mut self) -> u32 {
        let mut x = self.nonce_state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.nonce_state = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }

    /// Interest finalize for every PIT entry that expired unsatisfied.
    pub(crate) fn expire(&mut self, now: u64) -> usize {
        self.expired.clear();
        let n = self.pcct.expire(now, &mut self.expired);
        self.on_interest_finalize(n);
        n
    }

    /// NFD's Interest finalize for `n` entries that expired unsatisfied (satisfied and Nacked
    /// entries are finalized by the PIT-CS itself when the Data or last Nack arrives). No
    /// dead-nonce list is kept: loops are caught by the nonces of pending entries.
    fn on_interest_finalize(&mut self, n: usize) {
        self.counters.unsatisfied += n as u64;
    }

    /// Routes one prepared packet to its incoming pipeline. Inlined into the burst loop (the
    /// Data pipeline with it): a call costs a prologue and epilogue per packet.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn dispatch<const ACCT: bool>(
        &mut self,
        now: u64,
        rx: &RxPacket,
        parsed: &Parsed<'_>,
        hashes: &PrefixHashes,
        out: &mut TxBurst,
        laps: &mut Laps<ACCT>,
    ) {
        match parsed {
            Parsed::Bad => self.counters.bad_packet += 1,
            Parsed::Interest(i, fh) => {
                self.on_incoming_interest(now, rx, i, *fh, hashes, out, laps)
            }
            Parsed::Data(d) => self.on_incoming_data(now, rx, d, out, laps),
            Parsed::Nack(i, fh, reason) => {
                self.on_incoming_nack(now, rx, i, *fh, *reason, hashes, out, laps)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_moves_to_its_worker_thread() {
        fn assert_send<T: Send>() {}
        assert_send::<Engine>();
    }

    #[test]
    fn prefetch_mode_names_round_trip() {
        for m in PrefetchMode::ALL {
            assert_eq!(m.key().parse::<PrefetchMode>(), Ok(m));
        }
        assert!("all".parse::<PrefetchMode>().is_err());
        for (i, m) in PrefetchMode::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(m.index()), i);
            assert_eq!(PrefetchMode::from_index(m.index()), m);
        }
        assert_eq!(PrefetchMode::Speculative.lookahead(), 2);
        assert_eq!(
            PrefetchMode::from_index(SPECULATIVE_STEP2),
            PrefetchMode::Speculative
        );
    }
}
