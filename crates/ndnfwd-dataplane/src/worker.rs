//! A forwarding worker: drains its input ring in bursts through its own [`Engine`] (its own
//! PIT-CS, a reader of the shared FIB) and routes each output packet to the ring of the I/O
//! thread that owns the egress face, or to the control stage for the internal face.
//!
//! QSBR: the engine announces a quiescent point at the end of every burst; before sleeping the
//! worker goes offline so an idle worker never holds back FIB reclamation.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

use ndn_packet::link::{RxPacket, TxPacket};
use ndn_packet::FaceId;
use ndnfwd_face::info::FACEID_INTERNAL;
use ndnfwd_fwd::counters::Counters;
use ndnfwd_fwd::{Engine, TxBurst};
use serde::Serialize;

use crate::control::ControlMsg;
use crate::msg::{Inputs, Owner, WorkerMsg};
use crate::Outputs;

/// How often an idle worker expires PIT entries and publishes its snapshot.
const HOUSEKEEPING_NS: u64 = 20_000_000;

/// Ids below this are looked up by indexing (the face layer hands out small increasing ids).
const DENSE_IDS: FaceId = 1 << 20;

/// Drop and hand-off counters of one worker's stage (its engine counts the forwarding drops).
#[derive(Debug, Default)]
pub struct WorkerStats {
    /// Output packets dropped because the owning I/O thread's ring was full.
    pub output_ring_full: AtomicU64,
    /// Output packets for a face no I/O thread announced (it went down meanwhile).
    pub output_unknown_face: AtomicU64,
    /// Output packets for the internal face that the control stage could not take.
    pub output_control_gone: AtomicU64,
    /// Bursts processed.
    pub bursts: AtomicU64,
}

impl WorkerStats {
    fn bump(c: &AtomicU64) {
        c.store(c.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
    }

    /// The counters with their stable keys.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> {
        let r = |c: &AtomicU64| c.load(Ordering::Relaxed);
        [
            ("output_ring_full", r(&self.output_ring_full)),
            ("output_unknown_face", r(&self.output_unknown_face)),
            ("output_control_gone", r(&self.output_control_gone)),
            ("bursts", r(&self.bursts)),
        ]
        .into_iter()
    }
}

/// What a worker publishes for status readers (refreshed every few tens of milliseconds).
#[derive(Debug, Clone, Default, Serialize)]
pub struct WorkerSnapshot {
    /// PIT entries.
    pub pit_entries: usize,
    /// CS entries.
    pub cs_entries: usize,
    /// Bytes of cached Data.
    pub cs_bytes: u64,
    /// CS capacity in packets.
    pub cs_capacity: u32,
    /// CS hits (PIT-CS counter).
    pub cs_hits: u64,
    /// CS misses (PIT-CS counter).
    pub cs_misses: u64,
    /// Forwarding counters (stable keys).
    #[serde(skip)]
    pub counters: Counters,
}

/// Which thread sends each face's packets, as announced by `FaceUp` messages.
#[derive(Debug, Default)]
struct FaceOwners {
    dense: Vec<Option<Owner>>,
    sparse: HashMap<FaceId, Owner>,
}

impl FaceOwners {
    fn set(&mut self, id: FaceId, owner: Option<Owner>) {
        if id < DENSE_IDS {
            let i = id as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, None);
            }
            if let Some(s) = self.dense.get_mut(i) {
                *s = owner;
            }
        } else if let Some(o) = owner {
            self.sparse.insert(id, o);
        } else {
            self.sparse.remove(&id);
        }
    }

    #[inline]
    fn get(&self, id: FaceId) -> Option<Owner> {
        if id < DENSE_IDS {
            self.dense.get(id as usize).copied().flatten()
        } else {
            self.sparse.get(&id).copied()
        }
    }
}

/// One worker's stage (see the module docs). Run it with [`WorkerStage::poll`].
pub struct WorkerStage {
    id: u8,
    engine: Engine,
    inputs: Inputs,
    outputs: Outputs,
    control: Sender<ControlMsg>,
    owners: FaceOwners,
    burst: Vec<RxPacket>,
    out: TxBurst,
    burst_max: usize,
    stats: Arc<WorkerStats>,
    snapshot: Arc<Mutex<WorkerSnapshot>>,
    last_housekeeping: u64,
    online: bool,
}

impl core::fmt::Debug for WorkerStage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WorkerStage")
            .field("id", &self.id)
            .field("engine", &self.engine)
            .finish_non_exhaustive()
    }
}

impl WorkerStage {
    /// Worker `id` running `engine`, reading `inputs[id]`. The internal face is known from the
    /// start.
    pub(crate) fn new(
        id: u8,
        mut engine: Engine,
        inputs: Inputs,
        outputs: Outputs,
        control: Sender<ControlMsg>,
        burst_max: usize,
    ) -> Self {
        let mut owners = FaceOwners::default();
        owners.set(FACEID_INTERNAL, Some(Owner::Control));
        engine.add_face(FACEID_INTERNAL, ndnfwd_fwd::face::FaceInfo::local());
        Self {
            id,
            engine,
            inputs,
            outputs,
            control,
            owners,
            burst: Vec::with_capacity(burst_max),
            out: TxBurst::with_capacity(burst_max * 2),
            burst_max: burst_max.max(1),
            stats: Arc::default(),
            snapshot: Arc::default(),
            last_housekeeping: 0,
            online: true,
        }
    }

    /// The stage's hand-off counters.
    pub fn stats(&self) -> Arc<WorkerStats> {
        Arc::clone(&self.stats)
    }

    /// The snapshot this worker publishes.
    pub fn snapshot(&self) -> Arc<Mutex<WorkerSnapshot>> {
        Arc::clone(&self.snapshot)
    }

    /// The engine (management jobs in run-to-completion mode).
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// True when the input ring holds messages.
    pub fn has_input(&self) -> bool {
        self.inputs
            .get(usize::from(self.id))
            .is_some_and(|i| !i.ring.is_empty())
    }

    /// Drains up to one burst of input at `now`; true when anything was done.
    pub fn poll(&mut self, now: u64) -> bool {
        if !self.online {
            self.engine.fib_mut().online();
            self.online = true;
        }
        let mut worked = false;
        let inputs = Arc::clone(&self.inputs);
        if let Some(input) = inputs.get(usize::from(self.id)) {
            for _ in 0..self.burst_max {
                let Some(msg) = input.ring.pop() else { break };
                worked = true;
                match msg {
                    WorkerMsg::Packet(p) => self.burst.push(p),
                    other => {
                        self.flush(now);
                        self.handle(now, other);
                    }
                }
            }
        }
        self.flush(now);
        if now.saturating_sub(self.last_housekeeping) >= HOUSEKEEPING_NS {
            self.last_housekeeping = now;
            self.engine.tick(now);
            self.publish();
        }
        worked
    }

    /// Called before the thread sleeps: leaves QSBR and publishes the current state.
    pub fn idle(&mut self) {
        if self.online {
            self.engine.fib_mut().offline();
            self.online = false;
        }
        self.publish();
    }

    fn handle(&mut self, now: u64, msg: WorkerMsg) {
        match msg {
            WorkerMsg::Packet(p) => self.burst.push(p),
            WorkerMsg::FaceUp { id, info, owner } => {
                self.engine.add_face(id, info);
                self.owners.set(id, Some(owner));
            }
            WorkerMsg::FaceDown(id) => {
                // Purges the face's PIT records now instead of letting them expire.
                self.engine.remove_face(now, id);
                self.owners.set(id, None);
            }
            WorkerMsg::Job(job) => job(&mut self.engine),
        }
    }

    /// Runs the pending burst through the engine and routes what it sends.
    fn flush(&mut self, now: u64) {
        if self.burst.is_empty() {
            return;
        }
        self.engine.process(now, &mut self.burst, &mut self.out);
        self.burst.clear();
        WorkerStats::bump(&self.stats.bursts);
        let mut out = core::mem::take(&mut self.out);
        for tx in out.drain() {
            self.route(tx);
        }
        self.out = out;
    }

    /// Run-to-completion hand-off: forwards `burst`, received by I/O stage `local`, straight
    /// through the engine, which writes its outputs into that stage's `out`, so neither
    /// direction goes through a ring and the outputs for the stage's faces are not moved again;
    /// other outputs are taken out and routed as usual. The caller lets [`WorkerStage::poll`]
    /// empty the input ring first, so face changes and earlier packets still come before these
    /// packets.
    pub(crate) fn forward_direct(
        &mut self,
        now: u64,
        burst: &mut [RxPacket],
        local: u8,
        out: &mut TxBurst,
    ) {
        if burst.is_empty() {
            return;
        }
        if !self.online {
            self.engine.fib_mut().online();
            self.online = true;
        }
        let start = out.len();
        self.engine.process(now, burst, out);
        WorkerStats::bump(&self.stats.bursts);
        // Outputs for other owners are rare (the internal face): taken out and routed, in order.
        out.split_off_from(
            start,
            |t| self.owners.get(t.face) == Some(Owner::Io(local)),
            |t| self.route(t),
        );
    }

    /// Sends one engine output to the ring of the I/O stage that owns its face, or to the
    /// control stage for the internal face.
    fn route(&self, tx: TxPacket) {
        match self.owners.get(tx.face) {
            Some(Owner::Io(i)) => {
                let pushed = self.outputs.get(usize::from(i)).map(|q| q.push(tx).is_ok());
                if pushed != Some(true) {
                    WorkerStats::bump(&self.stats.output_ring_full);
                }
            }
            Some(Owner::Control) => {
                if self.control.send(ControlMsg::Interest(tx)).is_err() {
                    WorkerStats::bump(&self.stats.output_control_gone);
                }
            }
            None => WorkerStats::bump(&self.stats.output_unknown_face),
        }
    }

    fn publish(&self) {
        let Ok(mut s) = self.snapshot.try_lock() else {
            return;
        };
        let p = self.engine.pcct();
        *s = WorkerSnapshot {
            pit_entries: p.len_pit(),
            cs_entries: p.len_cs(),
            cs_bytes: p.cs_bytes(),
            cs_capacity: p.config().cs_capacity_packets,
            cs_hits: p.counters().hits,
            cs_misses: p.counters().misses,
            counters: *self.engine.counters(),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_dense_and_sparse() {
        let mut o = FaceOwners::default();
        o.set(300, Some(Owner::Io(1)));
        o.set(DENSE_IDS + 5, Some(Owner::Io(2)));
        assert_eq!(o.get(300), Some(Owner::Io(1)));
        assert_eq!(o.get(301), None);
        assert_eq!(o.get(DENSE_IDS + 5), Some(Owner::Io(2)));
        o.set(300, None);
        o.set(DENSE_IDS + 5, None);
        assert_eq!(o.get(300), None);
        assert_eq!(o.get(DENSE_IDS + 5), None);
    }
}
