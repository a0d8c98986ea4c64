//! An I/O thread's stage: owns one [`FaceTable`], receives bursts (the face layer decodes LP,
//! reassembles and counts), dispatches each packet to a worker ring, announces face changes to
//! the workers and the control stage, and sends what the workers put in its output ring.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;

use ndnfwd_face::{FaceEvent, FaceTable};
use ndnfwd_fwd::TxBurst;

use ndn_packet::link::{RxPacket, TxPacket};

use crate::control::ControlMsg;
use crate::dispatch::{Dispatcher, Target};
use crate::msg::{engine_face, Backlog, Inputs, IoJob, Owner, WorkerMsg};
use crate::worker::WorkerStage;
use crate::Outputs;

/// How often the face table's housekeeping runs (reassembly expiry, idle faces, backlogs).
const TICK_NS: u64 = 5_000_000;

/// Counters of one I/O stage.
#[derive(Debug, Default)]
pub struct IoStats {
    /// Packets received (after reassembly).
    pub rx_packets: AtomicU64,
    /// Packets sent (handed to the face table).
    pub tx_packets: AtomicU64,
    /// Drop: a received packet without a decodable name.
    pub bad_name: AtomicU64,
    /// Drop: a worker's input ring was full.
    pub input_ring_full: AtomicU64,
    /// Tokenless Data or Nack handed to every worker.
    pub broadcasts: AtomicU64,
    /// Packets handed straight to the engine, without the worker ring (run-to-completion).
    pub direct_packets: AtomicU64,
}

fn add(c: &AtomicU64, n: u64) {
    c.store(c.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed);
}

impl IoStats {
    /// The counters with their stable keys.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> {
        let r = |c: &AtomicU64| c.load(Ordering::Relaxed);
        [
            ("rx_packets", r(&self.rx_packets)),
            ("tx_packets", r(&self.tx_packets)),
            ("bad_name", r(&self.bad_name)),
            ("input_ring_full", r(&self.input_ring_full)),
            ("broadcasts", r(&self.broadcasts)),
            ("direct_packets", r(&self.direct_packets)),
        ]
        .into_iter()
    }
}

/// One I/O thread's stage (see the module docs).
pub struct IoStage {
    index: u8,
    faces: FaceTable,
    dispatcher: Dispatcher,
    inputs: Inputs,
    backlogs: Vec<Backlog>,
    outputs: Outputs,
    control: Sender<ControlMsg>,
    jobs: Receiver<IoJob>,
    rx: Vec<RxPacket>,
    tx: Vec<TxPacket>,
    /// Engine outputs of a direct (run-to-completion) round, written there by the engine and
    /// sent from their slots after the ring's.
    direct: TxBurst,
    burst: usize,
    stats: Arc<IoStats>,
    last_tick: u64,
    last_rx: Arc<AtomicU64>,
}

/// After this long without a packet received by any I/O stage, no worker output is in flight,
/// and an idle I/O thread may sleep past `io_max_sleep_ms`.
pub const QUIET_NS: u64 = 100_000_000;

impl core::fmt::Debug for IoStage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IoStage")
            .field("index", &self.index)
            .field("faces", &self.faces.len())
            .finish_non_exhaustive()
    }
}

impl IoStage {
    /// I/O stage `index` over `faces`, reading `outputs[index]`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        index: u8,
        faces: FaceTable,
        dispatcher: Dispatcher,
        inputs: Inputs,
        outputs: Outputs,
        control: Sender<ControlMsg>,
        jobs: Receiver<IoJob>,
        burst: usize,
        last_rx: Arc<AtomicU64>,
    ) -> Self {
        let backlogs = inputs.iter().map(|_| Backlog::default()).collect();
        Self {
            index,
            faces,
            dispatcher,
            inputs,
            backlogs,
            outputs,
            control,
            jobs,
            rx: Vec::with_capacity(burst),
            tx: Vec::with_capacity(burst),
            direct: TxBurst::with_capacity(burst.max(1) * 2),
            burst: burst.max(1),
            stats: Arc::default(),
            last_tick: 0,
            last_rx,
        }
    }

    /// The stage's counters.
    pub fn stats(&self) -> Arc<IoStats> {
        Arc::clone(&self.stats)
    }

    /// The face table (management jobs in run-to-completion mode).
    pub fn faces_mut(&mut self) -> &mut FaceTable {
        &mut self.faces
    }

    /// Sleeps on the sockets for at most `ms` milliseconds.
    pub fn wait(&mut self, ms: u32) {
        // An epoll error here only means "poll again"; the next recv reports real failures.
        let _ = self.faces.wait(i32::try_from(ms).unwrap_or(i32::MAX));
    }

    /// True when no I/O stage (they share the timestamp) received anything for [`QUIET_NS`].
    pub fn quiet(&self, now: u64) -> bool {
        now.saturating_sub(self.last_rx.load(Ordering::Relaxed)) >= QUIET_NS
    }

    /// True when the output ring or a backlog still holds work.
    pub fn has_pending(&self) -> bool {
        self.outputs
            .get(usize::from(self.index))
            .is_some_and(|q| !q.is_empty())
            || self.backlogs.iter().any(|b| !b.is_empty())
    }

    /// One round: jobs, receive and dispatch, face events, send. True when anything was done.
    pub fn poll(&mut self, now: u64) -> bool {
        self.poll_with(now, None)
    }

    /// One run-to-completion round with the only worker borrowed (see [`IoStage::poll`]):
    /// the worker first drains its ring (face changes just announced, injected answers), then
    /// the received burst goes straight into its engine and the outputs for this stage's faces
    /// straight to the face table, with no ring on the way. When the ring is not empty after
    /// that (more than a burst waited), the burst takes the ring like in [`IoStage::poll`], so
    /// nothing overtakes a face change.
    pub fn poll_direct(&mut self, now: u64, worker: &mut WorkerStage) -> bool {
        self.poll_with(now, Some(worker))
    }

    fn poll_with(&mut self, now: u64, mut worker: Option<&mut WorkerStage>) -> bool {
        let mut worked = false;
        while let Ok(job) = self.jobs.try_recv() {
            job(&mut self.faces);
            worked = true;
        }
        for (b, input) in self.backlogs.iter_mut().zip(self.inputs.iter()) {
            b.flush(input);
        }
        self.rx.clear();
        let n = self.faces.recv_burst(now, &mut self.rx, self.burst);
        // Faces made while receiving are announced before their first packet is dispatched,
        // and faces closed while receiving after their last one (a producer that answers and
        // exits at once must not lose its answer to its own FaceDown).
        let (added, removed): (Vec<FaceEvent>, Vec<FaceEvent>) = self
            .faces
            .drain_events()
            .partition(|ev| matches!(ev, FaceEvent::Added(_)));
        worked |= self.announce_events(added);
        if let Some(w) = worker.as_deref_mut() {
            worked |= w.poll(now);
        }
        if n > 0 {
            worked = true;
            self.last_rx.store(now, Ordering::Relaxed);
            add(&self.stats.rx_packets, n as u64);
            match worker {
                Some(w) if self.direct_ok(w) => {
                    add(&self.stats.direct_packets, n as u64);
                    w.forward_direct(now, &mut self.rx, self.index, &mut self.direct);
                    self.rx.clear();
                }
                _ => {
                    let rx = core::mem::take(&mut self.rx);
                    for p in rx {
                        self.dispatch(p);
                    }
                }
            }
        }
        worked |= self.announce_events(removed);
        worked |= self.send_outputs();
        if now.saturating_sub(self.last_tick) >= TICK_NS {
            self.last_tick = now;
            self.faces.tick(now);
            let events = self.faces.drain_events().collect();
            worked |= self.announce_events(events);
        }
        worked
    }

    /// True when a burst may skip the ring of `worker`: it is the only worker and nothing
    /// waits for it in the ring or in this stage's backlog.
    fn direct_ok(&self, worker: &WorkerStage) -> bool {
        self.inputs.len() == 1 && !worker.has_input() && self.backlogs.iter().all(Backlog::is_empty)
    }

    fn dispatch(&mut self, p: RxPacket) {
        match self
            .dispatcher
            .dispatch(p.kind, &p.wire, p.lp.pit_token.as_bytes())
        {
            Target::Worker(w) => self.send_to(usize::from(w), p),
            Target::All => {
                add(&self.stats.broadcasts, 1);
                for w in 0..self.inputs.len() {
                    self.send_to(w, p.clone());
                }
            }
            Target::Drop => add(&self.stats.bad_name, 1),
        }
    }

    fn send_to(&mut self, w: usize, p: RxPacket) {
        let (Some(b), Some(input)) = (self.backlogs.get_mut(w), self.inputs.get(w)) else {
            return;
        };
        if b.send(input, WorkerMsg::Packet(p)).is_err() {
            add(&self.stats.input_ring_full, 1);
        }
    }

    fn broadcast(&mut self, msg: impl Fn() -> WorkerMsg) {
        for (b, input) in self.backlogs.iter_mut().zip(self.inputs.iter()) {
            // Control messages are never handed back: they wait in the backlog.
            let _ = b.send(input, msg());
        }
    }

    /// Tells the workers and the control stage about faces that came or went.
    fn announce_events(&mut self, events: Vec<FaceEvent>) -> bool {
        let any = !events.is_empty();
        for ev in events {
            match ev {
                FaceEvent::Added(id) => {
                    let (Some(info), Some(counters)) =
                        (self.faces.info(id).cloned(), self.faces.counters(id))
                    else {
                        continue;
                    };
                    let owner = Owner::Io(self.index);
                    let ef = engine_face(&info);
                    self.broadcast(|| WorkerMsg::FaceUp {
                        id,
                        info: ef,
                        owner,
                    });
                    log::info!(
                        "event=face_up face={id} remote={} local={} io={}",
                        info.remote,
                        info.local,
                        self.index
                    );
                    let _ = self.control.send(ControlMsg::FaceAdded {
                        info,
                        counters,
                        io: self.index,
                    });
                }
                FaceEvent::Removed(id, reason) => {
                    self.broadcast(|| WorkerMsg::FaceDown(id));
                    log::info!("event=face_down face={id} reason={reason:?}");
                    let _ = self.control.send(ControlMsg::FaceRemoved { id });
                }
            }
        }
        any
    }

    fn send_outputs(&mut self) -> bool {
        self.tx.clear();
        if let Some(q) = self.outputs.get(usize::from(self.index)) {
            while self.tx.len() < self.burst {
                match q.pop() {
                    Some(p) => self.tx.push(p),
                    None => break,
                }
            }
        }
        let n = self.tx.len() + self.direct.len();
        if n == 0 {
            return false;
        }
        add(&self.stats.tx_packets, n as u64);
        // Direct outputs were produced after everything in the ring: they go last, one burst
        // with the ring's, each sent from its slot.
        self.faces
            .send_burst(self.tx.iter_mut().chain(self.direct.iter_mut()));
        self.tx.clear();
        self.direct.clear();
        true
    }
}
