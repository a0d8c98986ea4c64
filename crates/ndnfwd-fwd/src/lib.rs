//! The forwarding core of ndnfwd: NFD's pipelines and strategies over a per-worker PIT-CS and a
//! shared FIB, driven burst by burst through a prefetch-pipelined loop.
//!
//! Contract: an [`Engine`] does no I/O and reads no clock. The caller hands it a burst of
//! received network packets ([`ndn_packet::RxPacket`]: ingress face, the Interest or Data wire
//! as `bytes::Bytes`, and the link fields the face layer decoded; the same type the face layer
//! produces) together with `now` (ns from any monotonic epoch), and gets back packets to send
//! ([`ndn_packet::TxPacket`]: egress face, link fields to add, wire) in a [`TxBurst`] it owns and reuses. Data and Nacks leave as clones of the
//! received buffers, and so does an Interest whose HopLimit alone changes (with a one-byte
//! patch the face layer applies while sending); an Interest whose other guiders change is
//! written once into a recycled buffer, so steady state allocates nothing. The pipelines are named after NFD's (`on_incoming_interest`,
//! `on_content_store_miss`, ..., `on_outgoing_nack`) and every dropped packet increments one
//! named counter ([`counters::Counters`]). Strategies ([`strategy`]) are chosen per name prefix
//! by longest match and only decide; the pipelines act. The burst loop's prefetch mode
//! ([`PrefetchMode`]: none, bucket, pre-hash, speculative) changes timing, never results, and
//! per-stage cycle accounting ([`cycles`]) costs nothing when off. [`mod@bench`] is the library
//! side of `ndnfwd bench engine`.
//!
//! One engine per worker thread: it owns its PIT-CS exclusively and holds its own
//! `ndnfwd_fib::FibReader` (call [`Engine::fib_mut`]`().offline()` while idle). Data and Nacks
//! must reach the worker whose id is in our PIT token (`ndnfwd_pcct::worker_of`); without a
//! token they are matched by name, so Interests must be dispatched by name consistently.
//!
//! ```
//! use bytes::Bytes;
//! use ndn_packet::link::{PacketKind, RxLp, RxPacket};
//! use ndn_packet::{InterestBuilder, Name, NameHasher, SipVariant};
//! use ndnfwd_fib::{FibConfig, FibWriter, NextHop};
//! use ndnfwd_fwd::face::FaceInfo;
//! use ndnfwd_fwd::{Engine, EngineConfig, TxBurst};
//!
//! let hasher = NameHasher::new([7; 16], SipVariant::Sip13);
//! let mut fib = FibWriter::new(FibConfig::default(), hasher.clone()).unwrap();
//! let prefix = Name::from_uri("/ndn/video").unwrap();
//! fib.set(prefix.as_ref(), &[NextHop { face: 2, cost: 10 }], 0).unwrap();
//!
//! let mut engine = Engine::new(EngineConfig::default(), hasher, fib.handle().reader()).unwrap();
//! engine.add_face(1, FaceInfo::local()); // an application
//! engine.add_face(2, FaceInfo::network()); // the upstream router
//!
//! let name = Name::from_uri("/ndn/video/seg=0").unwrap();
//! let wire = InterestBuilder::new(name).nonce([1, 2, 3, 4]).hop_limit(8).encode().unwrap();
//! let mut burst = [RxPacket {
//!     face: 1, kind: PacketKind::Interest, wire: Bytes::from(wire), lp: RxLp::default(),
//! }];
//! let mut out = TxBurst::with_capacity(64);
//! engine.process(0, &mut burst, &mut out);
//! assert_eq!(out.len(), 1);
//! let sent = out.get(0).unwrap();
//! assert_eq!((sent.face, sent.kind), (2, PacketKind::Interest));
//! assert_eq!(sent.lp.pit_token.as_bytes().len(), 8); // our PIT token
//! ```
#![deny(unsafe_code)]

pub mod bench;
pub mod counters;
pub mod cycles;
mod engine;
pub mod face;
mod out;
mod pipeline;
mod pool;
mod prefetch;
mod quota;
#[allow(unsafe_code)]
mod raw;
pub mod strategy;

pub use engine::{Engine, EngineConfig, EngineError, DEFAULT_STRATEGY};
pub use out::TxBurst;
pub use prefetch::PrefetchMode;
