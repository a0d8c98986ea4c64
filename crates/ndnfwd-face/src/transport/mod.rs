//! Transports: the sockets behind faces. Each [`Endpoint`] is one socket registered with the
//! table's poller under its slot number; a stream or multicast socket carries one face, a UDP
//! unicast socket carries every unicast face of its address family (demultiplexed by peer
//! address, so one socket serves thousands of on-demand faces), a shared-memory face has its
//! doorbell socket, a listener carries none.

pub(crate) mod datagram;
pub(crate) mod shm;
pub(crate) mod stream;

use std::os::fd::BorrowedFd;

use ndn_packet::FaceId;

use crate::info::DownReason;
use crate::link::Frame;
use crate::sys::RawAddr;

pub(crate) use datagram::{DatagramEndpoint, Demux};
pub(crate) use shm::{ShmEndpoint, ShmSink};
pub(crate) use stream::{Listener, StreamEndpoint};

/// A frame waiting in an endpoint's send queue until the end of the burst.
#[derive(Debug)]
pub(crate) struct Queued {
    pub(crate) face: FaceId,
    pub(crate) frame: Frame,
    pub(crate) dest: Option<RawAddr>,
}

/// What an endpoint reports after receiving or sending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Still usable.
    Open,
    /// The socket is finished; its faces must go.
    Down(DownReason),
}

/// One socket of the face table.
#[derive(Debug)]
pub(crate) enum Endpoint {
    /// A Unix or TCP listener.
    Listener(Listener),
    /// A Unix or TCP stream (one face).
    Stream(StreamEndpoint),
    /// A UDP or Ethernet socket.
    Datagram(DatagramEndpoint),
    /// A shared-memory face (its rings and doorbell socket).
    Shm(ShmEndpoint),
}

impl Endpoint {
    /// The descriptor the poller watches.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        match self {
            Self::Listener(l) => l.fd(),
            Self::Stream(s) => s.fd(),
            Self::Datagram(d) => d.fd(),
            Self::Shm(s) => s.fd(),
        }
    }

    /// Frames queued for sending (a shared-memory face has no queue: see
    /// [`ShmEndpoint::push`]).
    pub(crate) fn queue(&mut self) -> Option<&mut Vec<Queued>> {
        match self {
            Self::Stream(s) => Some(&mut s.queue),
            Self::Datagram(d) => Some(&mut d.queue),
            Self::Listener(_) | Self::Shm(_) => None,
        }
    }
}
