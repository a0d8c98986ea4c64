//! Shared-memory faces: a local app's frames cross a pair of rings in memory the forwarder
//! creates (see `sys::shm` for the layout and the wake-up protocol), and the Unix stream the
//! memory was handed over on stays open as the doorbell and the liveness signal: a byte on it
//! means "look at the ring", end of stream means the peer is gone.
//!
//! The face carries NDNLPv2 frames exactly as a Unix stream face does (PIT tokens, Nacks,
//! never fragmented); only the transport differs, so a frame costs two copies and no system
//! call while both sides are busy. Receive copies runs of frames into a 64 KiB arena and
//! splits each run off once (at most one allocation per arena, none when its frames are gone
//! before it fills). Send writes the LP head and the packet into the ring as soon as it is
//! encoded (no send queue) and publishes the burst once at its end; when the ring is full the
//! frame is dropped and counted (`tx_queue_full`), as a datagram face would.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;

use core::ops::Range;

use bytes::{Bytes, BytesMut};
use ndn_packet::{BytePatch, FaceId, RxPacket};

use super::Status;
use crate::counters::{DropReason, FaceCounters};
use crate::info::DownReason;
use crate::link::{patched_parts, FrameSink};
use crate::sys::ShmRings;
use crate::table::Faces;

/// Receive arena size: frames are copied out of the ring into it.
const ARENA: usize = 64 << 10;
/// Frames copied into the arena before it is split.
const RUN: usize = 32;

/// Hands each frame [`crate::LinkService::encode`] makes straight to a shared-memory face's
/// ring: no frame list to fill and drain.
pub(crate) struct ShmSink<'a> {
    ep: &'a mut ShmEndpoint,
    counters: &'a FaceCounters,
    /// Whether a frame was the first since the endpoint's last flush (see
    /// [`ShmEndpoint::push`]).
    pub(crate) first: bool,
}

impl<'a> ShmSink<'a> {
    pub(crate) fn new(ep: &'a mut ShmEndpoint, counters: &'a FaceCounters) -> Self {
        Self {
            ep,
            counters,
            first: false,
        }
    }
}

impl FrameSink for ShmSink<'_> {
    #[inline]
    fn frame(&mut self, heads: &[u8], head: Range<usize>, body: Bytes, patch: Option<BytePatch>) {
        let head = heads.get(head).unwrap_or_default();
        // A patched body is copied in its three pieces: the patched byte is written as the
        // body is copied, not patched in a copy of its own.
        self.first |= match patch {
            None => self.ep.push([head, &body], self.counters),
            Some(p) => {
                let [a, b, c] = patched_parts(&body, Some(&p));
                self.ep.push([head, a, b, c], self.counters)
            }
        };
    }
}

/// One shared-memory face: its rings and its doorbell socket.
#[derive(Debug)]
pub(crate) struct ShmEndpoint {
    sock: UnixStream,
    rings: ShmRings,
    pub(crate) face: FaceId,
    arena: BytesMut,
    /// Frames were pushed since the last [`ShmEndpoint::flush`] (the table flushes it once).
    pending: bool,
    /// The ring was found corrupt while pushing: nothing more is pushed, the flush reports it.
    broken: bool,
}

impl ShmEndpoint {
    /// Wraps rings already set up on `sock` (which must be non-blocking).
    pub(crate) fn new(sock: UnixStream, rings: ShmRings, face: FaceId) -> Self {
        Self {
            sock,
            rings,
            face,
            arena: BytesMut::new(),
            pending: false,
            broken: false,
        }
    }

    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.sock.as_fd()
    }

    /// Drains doorbell bytes; reports the peer gone at end of stream.
    pub(crate) fn doorbell(&mut self) -> Status {
        let mut buf = [0u8; 64];
        loop {
            match (&self.sock).read(&mut buf) {
                Ok(0) => return Status::Down(DownReason::Closed),
                Ok(n) if n < buf.len() => return Status::Open,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Status::Open,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Status::Down(DownReason::Error(e.kind())),
            }
        }
    }

    /// Takes frames from the ring until `out` holds `limit` packets or the ring is empty. The
    /// flag is true when it stopped at the limit.
    pub(crate) fn recv(
        &mut self,
        now: u64,
        faces: &mut Faces,
        out: &mut Vec<RxPacket>,
        limit: usize,
    ) -> (Status, bool) {
        let mut rx = faces.receiver(self.face);
        loop {
            let room = limit.saturating_sub(out.len()).min(RUN);
            if room == 0 {
                self.rings.release();
                return (Status::Open, true);
            }
            if self.arena.capacity() - self.arena.len() < crate::MAX_FRAME_LEN {
                // The whole buffer comes back when every frame split from it is gone (no
                // allocation, no fresh pages to fault in); otherwise a new one is made.
                self.arena.reserve(ARENA);
            }
            // Copy a run of frames into the arena, then split the run off once and slice the
            // frames from it: one reference-count set-up per run, not per frame.
            let mut lens = [0usize; RUN];
            let (n, got) = self
                .rings
                .recv_run(&mut self.arena, lens.get_mut(..room).unwrap_or_default());
            if n > 0 {
                let run = self.arena.split().freeze();
                let mut at = 0;
                for &len in lens.get(..n).unwrap_or_default() {
                    if let Some(rx) = rx.as_mut() {
                        rx.deliver(now, 0, run.slice(at..at + len), out);
                    }
                    at += len;
                }
            }
            match got {
                Ok(true) => {}
                Ok(false) => break,
                Err(_) => {
                    if let Some(rx) = &rx {
                        rx.counters().drop(DropReason::BadPacket);
                    }
                    return (Status::Down(DownReason::BadFraming), false);
                }
            }
        }
        self.rings.release();
        (Status::Open, false)
    }

    /// Writes one encoded frame (its `parts` one after the other: the head, then the body
    /// whole or in patched pieces) into the ring, not yet visible to the peer.
    /// True when it is the first frame since the last flush: the caller then flushes the
    /// endpoint at the end of its burst. A frame that does not fit is dropped
    /// (`tx_queue_full`).
    pub(crate) fn push<const N: usize>(
        &mut self,
        parts: [&[u8]; N],
        counters: &FaceCounters,
    ) -> bool {
        let first = !self.pending;
        self.pending = true;
        if !self.broken {
            match self.rings.push(parts) {
                Ok(true) => {}
                Ok(false) => counters.drop(DropReason::TxQueueFull),
                Err(_) => self.broken = true,
            }
        }
        first
    }

    /// Publishes the frames pushed since the last flush and wakes the peer if it sleeps.
    pub(crate) fn flush(&mut self) -> Status {
        self.pending = false;
        if self.broken {
            return Status::Down(DownReason::BadFraming);
        }
        if self.rings.publish() {
            return self.ring_doorbell();
        }
        Status::Open
    }

    fn ring_doorbell(&self) -> Status {
        match (&self.sock).write(&[1]) {
            Ok(_) => Status::Open,
            // A full socket already holds unread doorbell bytes: the peer will look.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Status::Open,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => self.ring_doorbell(),
            Err(e) => Status::Down(DownReason::Error(e.kind())),
        }
    }

    /// Before sleeping: announces it to the peer; true when frames are already waiting.
    pub(crate) fn arm(&self) -> bool {
        self.rings.arm()
    }

    /// After sleeping.
    pub(crate) fn awake(&self) {
        self.rings.awake();
    }
}
