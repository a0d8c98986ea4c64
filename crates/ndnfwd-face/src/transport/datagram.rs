//! Datagram transports: UDP unicast (one socket per address family carries every unicast
//! face, on-demand faces made on a new peer's first packet), UDP multicast, and Ethernet over
//! AF_PACKET. Receive and send go through `recvmmsg` / `sendmmsg` in batches.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use ndn_packet::{tlv, FaceId, RxPacket};

use super::{Queued, Status};
use crate::counters::DropReason;
use crate::info::DownReason;
use crate::sys::{OutMsg, Peer, RecvBatch, SendBatch};
use crate::table::Faces;
use crate::uri::MacAddr;

/// How received datagrams map to faces.
#[derive(Debug)]
pub(crate) enum Demux {
    /// UDP unicast: faces by peer address; `accept` makes on-demand faces for new peers.
    Channel {
        peers: HashMap<SocketAddr, FaceId>,
        accept: bool,
        local: SocketAddr,
    },
    /// A UDP multicast group (one face); `own` is the send socket's address, whose packets
    /// looped back by the kernel are ignored.
    Multicast { face: FaceId, own: SocketAddr },
    /// An Ethernet face: frames to the group when `remote` is a group address, otherwise
    /// frames sent to this host by `remote`.
    Ether { face: FaceId, remote: MacAddr },
}

/// A UDP or packet socket with its receive batch and send queue.
#[derive(Debug)]
pub(crate) struct DatagramEndpoint {
    sock: OwnedFd,
    /// Separate send socket (multicast); `None`: send on `sock`.
    tx: Option<OwnedFd>,
    batch: RecvBatch,
    pub(crate) demux: Demux,
    pub(crate) queue: Vec<Queued>,
}

/// Sender key for reassembly on multi-access faces.
fn inet_key(a: &SocketAddr) -> u64 {
    match a {
        SocketAddr::V4(v) => (u64::from(u32::from(*v.ip())) << 16) | u64::from(v.port()),
        SocketAddr::V6(v) => {
            let o = v.ip().octets();
            let mut low = [0u8; 8];
            low.copy_from_slice(&o[8..]);
            u64::from_be_bytes(low) ^ u64::from(v.port())
        }
    }
}

fn mac_key(m: &MacAddr) -> u64 {
    m.0.iter().fold(0u64, |k, &b| (k << 8) | u64::from(b))
}

/// Length of the TLV at the start of `data` (Ethernet frames may carry padding after it).
fn tlv_total(data: &[u8]) -> Option<usize> {
    let (_, tl) = tlv::read_var_number(data).ok()?;
    let (len, ll) = tlv::read_var_number(data.get(tl..)?).ok()?;
    usize::try_from(len).ok()?.checked_add(tl + ll)
}

impl DatagramEndpoint {
    /// An endpoint receiving datagrams of up to `slot` bytes, `batch` per call.
    pub(crate) fn new(
        sock: OwnedFd,
        tx: Option<OwnedFd>,
        demux: Demux,
        slot: usize,
        batch: usize,
    ) -> Self {
        Self {
            sock,
            tx,
            batch: RecvBatch::new(slot, batch),
            demux,
            queue: Vec::new(),
        }
    }

    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.sock.as_fd()
    }

    /// Receives one batch (at most `limit - out.len()` datagrams) and decodes it.
    /// `slot` is this endpoint's number, for faces created on the way.
    pub(crate) fn recv(
        &mut self,
        slot: usize,
        now: u64,
        faces: &mut Faces,
        out: &mut Vec<RxPacket>,
        limit: usize,
    ) -> Status {
        let n = match self
            .batch
            .recv(self.sock.as_fd(), limit.saturating_sub(out.len()))
        {
            Ok(n) => n,
            Err(e) => return Status::Down(DownReason::Error(e.kind())),
        };
        for i in 0..n {
            let Some((face, key, len)) = self.classify(i, slot, now, faces) else {
                continue;
            };
            if self.batch.truncated(i) {
                if let Some(c) = faces.counters(face) {
                    c.in_bytes(len);
                    c.drop(DropReason::FrameTooLarge);
                }
                continue;
            }
            let frame = self.batch.take(i, len);
            faces.deliver(now, face, key, frame, out);
        }
        Status::Open
    }

    /// The face, reassembly key and payload length of datagram `i`, or `None` to ignore it.
    fn classify(
        &mut self,
        i: usize,
        slot: usize,
        now: u64,
        faces: &mut Faces,
    ) -> Option<(FaceId, u64, usize)> {
        let len = self.batch.len(i);
        match (&mut self.demux, self.batch.peer(i)) {
            (
                Demux::Channel {
                    peers,
                    accept,
                    local,
                },
                Peer::Inet(a),
            ) => {
                let face = match peers.get(&a) {
                    Some(&f) => f,
                    None if *accept => {
                        let f = faces.create_udp_on_demand(slot, a, *local, now)?;
                        peers.insert(a, f);
                        f
                    }
                    None => {
                        faces.stats.rx_unknown_peer += 1;
                        return None;
                    }
                };
                Some((face, 0, len))
            }
            (Demux::Multicast { face, own }, Peer::Inet(a)) => {
                (a != *own).then_some((*face, inet_key(&a), len))
            }
            (Demux::Ether { face, remote }, Peer::Ether { mac, pkttype }) => {
                let wanted = if remote.is_multicast() {
                    pkttype == libc::PACKET_MULTICAST
                } else {
                    pkttype == libc::PACKET_HOST && mac == *remote
                };
                if !wanted {
                    return None;
                }
                let len = tlv_total(self.batch.data(i)).map_or(len, |t| t.min(len));
                Some((*face, mac_key(&mac), len))
            }
            _ => None,
        }
    }

    /// Sends every queued frame; failures are counted on their faces.
    pub(crate) fn flush(&mut self, heads: &[u8], send: &mut SendBatch, faces: &Faces) {
        let queue = &self.queue;
        let fd = self.tx.as_ref().unwrap_or(&self.sock).as_fd();
        send.send(
            fd,
            queue.len(),
            |i| match queue.get(i) {
                Some(q) => OutMsg {
                    head: heads.get(q.frame.head.clone()).unwrap_or_default(),
                    body: q.frame.body_parts(),
                    dest: q.dest.as_ref(),
                },
                None => OutMsg {
                    head: &[],
                    body: [&[]; 3],
                    dest: None,
                },
            },
            |i, kind| {
                let reason = if kind == io::ErrorKind::WouldBlock {
                    DropReason::TxQueueFull
                } else {
                    DropReason::TxError
                };
                if let Some(c) = queue.get(i).and_then(|q| faces.counters(q.face)) {
                    c.drop(reason);
                }
            },
        );
        self.queue.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_padding() {
        let a: SocketAddr = "10.0.0.1:6363".parse().unwrap();
        assert_eq!(inet_key(&a), (0x0a00_0001 << 16) | 6363);
        assert_eq!(mac_key(&MacAddr([0, 0, 0, 0, 1, 2])), 0x0102);
        // A 5-byte Interest followed by Ethernet padding.
        assert_eq!(tlv_total(&[5, 3, 1, 2, 3, 0, 0, 0]), Some(5));
        assert_eq!(tlv_total(&[5]), None);
    }
}
