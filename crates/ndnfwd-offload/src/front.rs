//! [`FrontTier`]: the switch's hashed PIT in front of an engine (the computer).
//!
//! Every Interest goes up to the engine (the computer does the FIB work) after the tier has
//! counted it in its slot (D1). A Data whose slot has exactly one, never-collided, Interest
//! pending is sent by the tier alone to the recorded face with the recorded token; every other
//! Data and every Nack goes up. Data and Nacks the engine sends downstream take one off their
//! slot's counter.
//!
//! The engine still holds a PIT entry for an Interest whose Data the tier forwarded (the seed's
//! computer would not: it records only collided Interests); that entry expires at its lifetime
//! and shows in the engine's expiry counter, counted here as `engine_entries_left`. Until then a
//! new Interest for the same name from another face is aggregated by the engine and waits for
//! that expiry: this model is for workloads that do not re-ask a name within one lifetime.

use ndn_packet::{Data, Interest, NameHasher, NameRef, PacketKind, RxPacket, TxLp, TxPacket};
use ndnfwd_fwd::{Engine, TxBurst};

use crate::hashed_pit::{DataVerdict, HashedPit, SlotRecord};

/// Nanoseconds per millisecond (the engine's clock is in nanoseconds).
const NS_PER_MS: u64 = 1_000_000;

/// Counters of the tier itself (the PIT's own are in [`HashedPit::counters`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FrontCounters {
    /// Packets the tier could not parse (handed to the engine, which counts and drops them).
    pub unparsed: u64,
    /// Data the tier forwarded while the engine keeps a PIT entry for it (left to expire).
    pub engine_entries_left: u64,
}

/// The switch tier (hashed PIT) in front of an engine.
#[derive(Debug)]
pub struct FrontTier {
    engine: Engine,
    pit: HashedPit,
    hasher: NameHasher,
    counters: FrontCounters,
    up: Vec<RxPacket>,
    engine_out: TxBurst,
}

impl FrontTier {
    /// `engine` (the computer) behind a hashed PIT of `2^bits` slots over `stages` stages;
    /// `hasher` keys the name hash (it need not be the engine's).
    pub fn new(engine: Engine, bits: u32, stages: usize, hasher: NameHasher) -> Self {
        Self {
            engine,
            pit: HashedPit::new(bits, stages),
            hasher,
            counters: FrontCounters::default(),
            up: Vec::with_capacity(64),
            engine_out: TxBurst::with_capacity(64),
        }
    }

    /// The engine behind the tier.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The engine behind the tier, mutably (faces, strategies).
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// The hashed PIT.
    pub fn pit(&self) -> &HashedPit {
        &self.pit
    }

    /// The tier's counters.
    pub fn counters(&self) -> &FrontCounters {
        &self.counters
    }

    fn slot(&self, name: NameRef<'_>) -> u32 {
        self.pit.slot_of(self.hasher.hash_name(name))
    }

    /// Processes a burst received at `now` (nanoseconds), as [`Engine::process`] does: packets
    /// to send are appended to `out`.
    pub fn process(&mut self, now: u64, burst: &[RxPacket], out: &mut Vec<TxPacket>) {
        self.up.clear();
        for rx in burst {
            match rx.kind {
                PacketKind::Interest => self.on_incoming_interest(now, rx),
                PacketKind::Data => self.on_incoming_data(now, rx, out),
                PacketKind::Nack => self.up.push(rx.clone()),
            }
        }
        self.engine_out.clear();
        self.engine.process(now, &mut self.up, &mut self.engine_out);
        for tx in self.engine_out.drain() {
            let name = match tx.kind {
                PacketKind::Data => Data::new_checked(&tx.wire).ok().map(|d| d.name()),
                PacketKind::Nack => Interest::new_checked(&tx.wire).ok().map(|i| i.name()),
                PacketKind::Interest => None,
            };
            if let Some(name) = name {
                let slot = self.pit.slot_of(self.hasher.hash_name(name));
                self.pit.on_computer_downstream(now, slot);
            }
            out.push(tx);
        }
    }

    fn on_incoming_interest(&mut self, now: u64, rx: &RxPacket) {
        if let Ok(i) = Interest::new_checked(&rx.wire) {
            let slot = self.slot(i.name());
            let deadline = now.saturating_add(i.lifetime_ms().saturating_mul(NS_PER_MS));
            let record = SlotRecord {
                face: rx.face,
                token: rx.lp.pit_token,
            };
            self.pit.on_interest(now, slot, record, deadline);
        } else {
            self.counters.unparsed += 1;
        }
        self.up.push(rx.clone());
    }

    fn on_incoming_data(&mut self, now: u64, rx: &RxPacket, out: &mut Vec<TxPacket>) {
        let Ok(d) = Data::new_checked(&rx.wire) else {
            self.counters.unparsed += 1;
            self.up.push(rx.clone());
            return;
        };
        let slot = self.slot(d.name());
        match self.pit.on_data(now, slot, rx.face) {
            DataVerdict::Switch(r) => {
                self.counters.engine_entries_left += 1;
                out.push(TxPacket {
                    face: r.face,
                    kind: PacketKind::Data,
                    lp: TxLp {
                        pit_token: r.token,
                        congestion_mark: rx.lp.congestion_mark,
                        ..TxLp::default()
                    },
                    wire: rx.wire.clone(),
                    patch: None,
                });
            }
            DataVerdict::Computer => self.up.push(rx.clone()),
        }
    }
}
