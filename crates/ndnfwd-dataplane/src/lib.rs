//! The data plane of ndnfwd: the threads that move packets between the face layer and the
//! forwarding engines, and the control thread that runs the RIB and NFD management.
//!
//! Contract: [`Dataplane::start`] builds I/O stages (each owns one `ndnfwd_face::FaceTable`:
//! receive bursts, dispatch, face events, send), workers (each owns one `ndnfwd_fwd::Engine`
//! with its own PIT-CS and a QSBR reader of the shared FIB) and one control stage (RIB and FIB
//! writer, face registry, management, status). Stages talk only through bounded rings
//! (`crossbeam_queue::ArrayQueue`: a push that finds the ring full hands the value back; packets
//! are then dropped and counted, face changes and jobs wait in an ordered backlog) and, for
//! control-plane traffic, a channel. Interests are dispatched by a name dispatch table over the
//! keyed hash of their first P components; Data and Nacks by the worker id in our PIT token,
//! and to every worker when they carry none ([`dispatch`] explains why). A face that goes down
//! is removed from every engine and its routes from the RIB and FIB. The same stages run either
//! on their own threads ([`Threads::Multi`]) or polled in turn by one thread
//! ([`Threads::Single`], run-to-completion). Idle threads back off (spin, then sleep on epoll or
//! park), so an idle forwarder uses close to no CPU. Time is read only here, at the top of each
//! loop, and passed down as nanoseconds. `unsafe` lives only in the CPU-pinning `sys` module.
#![deny(unsafe_code)]

pub mod backoff;
pub mod config;
pub mod control;
pub mod dispatch;
pub mod io;
pub mod msg;
mod runtime;
#[allow(unsafe_code)]
mod sys;
pub mod worker;

use std::sync::Arc;

use crossbeam_queue::ArrayQueue;

pub use config::{DataplaneConfig, FaceSpec, ListenerSpec, RouteSpec, Threads};
pub use runtime::{Dataplane, StartError};
pub use sys::{pin_current_thread, set_timer_slack};

/// The output rings, one per I/O stage: packets the workers send, drained by the I/O stage
/// that owns the egress face.
pub type Outputs = Arc<[ArrayQueue<ndn_packet::TxPacket>]>;
