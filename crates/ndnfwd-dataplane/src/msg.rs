//! What crosses between stages: worker input messages (packets, face changes, jobs) and control
//! messages. Packets cross as they are: the face layer and the engine share
//! [`ndn_packet::link`]'s packet types, so only a face's description is narrowed to what the
//! engine needs ([`engine_face`]).
//!
//! Ordering rule: a face's `FaceUp` travels in the same ring as the packets of the I/O thread
//! that owns the face, ahead of them, so a worker never sees a packet from a face it does not
//! know yet. Face changes and jobs must not be lost, so a producer that finds a ring full keeps
//! them in a per-ring backlog ([`Backlog`]) and retries; only packets are dropped (and counted).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::Thread;

use crossbeam_queue::ArrayQueue;
use ndn_packet::link::RxPacket;
use ndn_packet::FaceId;
use ndnfwd_face::FaceTable;
use ndnfwd_fwd::face::FaceInfo as EngineFace;
use ndnfwd_fwd::Engine;

/// A job run on a worker's engine (management: strategy choice, CS erase). Results travel back
/// on a channel the job captured.
pub type EngineJob = Box<dyn FnOnce(&mut Engine) + Send>;

/// A job run on an I/O thread's face table (management: create, update, destroy faces).
pub type IoJob = Box<dyn FnOnce(&mut FaceTable) + Send>;

/// Who sends a face's packets: an I/O thread (index) or the control stage (the internal face).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// I/O thread `n`.
    Io(u8),
    /// The control stage (management's internal face, [`ndnfwd_face::info::FACEID_INTERNAL`]).
    Control,
}

/// A message in a worker's input ring.
pub enum WorkerMsg {
    /// A received packet.
    Packet(RxPacket),
    /// A face appeared: add it to the engine and remember who sends for it.
    FaceUp {
        /// Face id.
        id: FaceId,
        /// Scope and link type.
        info: EngineFace,
        /// Its sender.
        owner: Owner,
    },
    /// A face is gone: remove it from the engine.
    FaceDown(FaceId),
    /// A management job.
    Job(EngineJob),
}

impl WorkerMsg {
    /// True for messages that must not be dropped when a ring is full.
    pub(crate) fn is_control(&self) -> bool {
        !matches!(self, WorkerMsg::Packet(_))
    }
}

impl core::fmt::Debug for WorkerMsg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Packet(p) => write!(f, "Packet(face {})", p.face),
            Self::FaceUp { id, owner, .. } => write!(f, "FaceUp({id}, {owner:?})"),
            Self::FaceDown(id) => write!(f, "FaceDown({id})"),
            Self::Job(_) => f.write_str("Job"),
        }
    }
}

/// Wakes a parked worker after a producer pushed into its ring.
#[derive(Debug, Default)]
pub struct Waker {
    sleeping: AtomicBool,
    thread: OnceLock<Thread>,
}

impl Waker {
    /// Called once by the worker thread that will park (run-to-completion mode never parks, so
    /// never registers, and waking is a no-op).
    pub fn register_current(&self) {
        let _ = self.thread.set(std::thread::current());
    }

    /// Called by a producer after pushing.
    #[inline]
    pub fn wake(&self) {
        if self.sleeping.load(Ordering::SeqCst) {
            if let Some(t) = self.thread.get() {
                t.unpark();
            }
        }
    }

    /// Called by the consumer before it re-checks its ring and parks, and after it wakes.
    pub(crate) fn set_sleeping(&self, on: bool) {
        self.sleeping.store(on, Ordering::SeqCst);
    }
}

/// A worker's input: its ring and its waker.
#[derive(Debug)]
pub struct WorkerInput {
    /// Bounded ring of messages (many producers, one consumer).
    pub ring: ArrayQueue<WorkerMsg>,
    /// Wakes the worker when it parks.
    pub waker: Waker,
}

/// Messages a producer must deliver to one ring, kept in order while the ring is full.
#[derive(Debug, Default)]
pub struct Backlog(VecDeque<WorkerMsg>);

impl Backlog {
    /// Pushes what the ring takes, oldest first; true when nothing is left.
    pub fn flush(&mut self, input: &WorkerInput) -> bool {
        let mut pushed = false;
        while let Some(m) = self.0.pop_front() {
            if let Err(m) = input.ring.push(m) {
                self.0.push_front(m);
                break;
            }
            pushed = true;
        }
        if pushed {
            input.waker.wake();
        }
        self.0.is_empty()
    }

    /// Delivers `msg` after everything already waiting. A packet that does not fit (ring full
    /// or a backlog ahead of it) is returned, for the caller to count as dropped; a control
    /// message is kept.
    pub fn send(&mut self, input: &WorkerInput, msg: WorkerMsg) -> Result<(), WorkerMsg> {
        if !self.flush(input) {
            return self.keep_or_drop(msg);
        }
        match input.ring.push(msg) {
            Ok(()) => {
                input.waker.wake();
                Ok(())
            }
            Err(m) => self.keep_or_drop(m),
        }
    }

    fn keep_or_drop(&mut self, msg: WorkerMsg) -> Result<(), WorkerMsg> {
        if msg.is_control() {
            self.0.push_back(msg);
            Ok(())
        } else {
            Err(msg)
        }
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Shared handle to the inputs of all workers.
pub type Inputs = Arc<[WorkerInput]>;

/// New inputs for `n` workers with rings of `capacity` messages.
pub(crate) fn inputs(n: usize, capacity: usize) -> Inputs {
    (0..n)
        .map(|_| WorkerInput {
            ring: ArrayQueue::new(capacity.max(1)),
            waker: Waker::default(),
        })
        .collect()
}

/// The engine's view of a face-layer face: the scope and link type, nothing about endpoints.
pub fn engine_face(info: &ndnfwd_face::FaceInfo) -> EngineFace {
    EngineFace {
        scope: info.scope,
        link: info.link_type,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use ndn_packet::link::{PacketKind, RxLp};

    fn packet(face: FaceId) -> WorkerMsg {
        WorkerMsg::Packet(RxPacket {
            face,
            kind: PacketKind::Interest,
            wire: Bytes::new(),
            lp: RxLp::default(),
        })
    }

    #[test]
    fn backlog_keeps_control_in_order_and_drops_packets() {
        let input = WorkerInput {
            ring: ArrayQueue::new(2),
            waker: Waker::default(),
        };
        let mut b = Backlog::default();
        assert!(b.send(&input, packet(1)).is_ok());
        assert!(b.send(&input, packet(2)).is_ok());
        // Full: a packet is handed back, a face change waits.
        assert!(b.send(&input, packet(3)).is_err());
        assert!(b.send(&input, WorkerMsg::FaceDown(7)).is_ok());
        assert!(!b.is_empty());
        // Room for one: the waiting face change goes first, so the next packet still does not
        // fit and is dropped rather than overtaking it.
        assert!(matches!(input.ring.pop(), Some(WorkerMsg::Packet(p)) if p.face == 1));
        assert!(b.send(&input, packet(4)).is_err());
        assert!(b.is_empty());
        assert!(matches!(input.ring.pop(), Some(WorkerMsg::Packet(p)) if p.face == 2));
        assert!(matches!(input.ring.pop(), Some(WorkerMsg::FaceDown(7))));
        assert!(b.send(&input, packet(5)).is_ok());
        assert!(matches!(input.ring.pop(), Some(WorkerMsg::Packet(p)) if p.face == 5));
        assert!(b.is_empty());
    }
}
