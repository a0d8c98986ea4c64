//! The face layer of ndnfwd: transports (Unix and TCP streams, UDP unicast and multicast,
//! Ethernet over AF_PACKET), the face table, and the NDNLPv2 link service.
//!
//! Contract: a [`FaceTable`] is owned by one I/O thread and driven by busy polling:
//! [`FaceTable::recv_burst`] returns whole network packets (reassembled, LP fields decoded
//! into [`RxPacket`](ndn_packet::RxPacket)), [`FaceTable::send_burst`] takes
//! [`ndn_packet::TxPacket`]s and adds the LP fields,
//! fragmenting to the face's MTU (never on streams: local apps get whole packets),
//! [`FaceTable::tick`] does timeouts with the time passed in, [`FaceTable::wait`] sleeps on
//! epoll when idle. Faces come and go as [`FaceEvent`]s (a peer that closes or crashes is a
//! `Removed` event, after which its PIT records and routes must be purged). Every drop is
//! counted per face by [`DropReason`]; nothing panics on wire input. Received packets are
//! zero-copy slices of the receive buffers, and the steady state allocates per batch, not per
//! packet (see each transport's doc for exactly what allocates). Syscalls and `unsafe` live
//! only in the `sys` module.
#![deny(unsafe_code)]

pub mod counters;
mod framing;
pub mod info;
pub mod link;
#[allow(unsafe_code)]
mod sys;
mod table;
mod transport;
pub mod uri;

pub use counters::{CounterSnapshot, DropReason, FaceCounters};
pub use info::{DownReason, FaceEvent, FaceIdAllocator, FaceInfo, Persistency};
pub use link::reassembly::ReassemblyLimits;
pub use link::{Frame, FrameSink, LinkConfig, LinkService, PacketSink};
pub use sys::Poller;
pub use table::{FaceError, FaceTable, FaceTableConfig, TableStats};
pub use uri::{FaceUri, MacAddr, UriError};

use ndn_packet::link::TxPacket;

/// Largest network packet (NDN's `MAX_NDN_PACKET_SIZE`).
pub const MAX_PACKET_LEN: usize = 8800;

/// Largest link frame: a maximum packet plus room for NDNLPv2 headers (PIT token, Nack,
/// fragmentation fields...). Stream elements above this close the face; datagrams above it
/// are dropped.
pub const MAX_FRAME_LEN: usize = MAX_PACKET_LEN + 256;

/// NDN's EtherType.
pub const ETHERTYPE_NDN: u16 = 0x8624;

/// NFD's default Unix socket path.
pub const DEFAULT_UNIX_PATH: &str = "/run/nfd/nfd.sock";

// A face table moves into the I/O thread that owns it.
const _: fn() = || {
    fn is_send<T: Send>() {}
    is_send::<FaceTable>();
    is_send::<LinkService>();
};

/// A packet [`FaceTable::send_burst`] takes. It encodes in place and moves the packet's
/// buffer into its frame: a `&mut TxPacket` (`vec.iter_mut()`, `&mut vec`) is left with an empty
/// `wire`, an owned `TxPacket` is consumed, and a `&TxPacket` is cloned first (one more
/// reference to its buffer).
pub trait TxItem {
    /// The packet to encode: `self` when it is a `&mut`, else `self` stored in `scratch`.
    fn packet<'s>(self, scratch: &'s mut Option<TxPacket>) -> &'s mut TxPacket
    where
        Self: 's;
}

impl TxItem for &mut TxPacket {
    fn packet<'s>(self, _: &'s mut Option<TxPacket>) -> &'s mut TxPacket
    where
        Self: 's,
    {
        self
    }
}

impl TxItem for TxPacket {
    fn packet<'s>(self, scratch: &'s mut Option<TxPacket>) -> &'s mut TxPacket
    where
        Self: 's,
    {
        scratch.insert(self)
    }
}

impl TxItem for &TxPacket {
    fn packet<'s>(self, scratch: &'s mut Option<TxPacket>) -> &'s mut TxPacket
    where
        Self: 's,
    {
        scratch.insert(self.clone())
    }
}
