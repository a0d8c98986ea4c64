//! Stream transports (Unix and TCP): listeners, TLV framing on receive, and writes that keep
//! frames whole under backpressure.
//!
//! Send: a burst's frames go out with `writev`, heads and payloads as separate slices (no
//! copy; a patched payload as the slices before and after its patched byte and that byte).
//! What the kernel does not take waits in a per-face backlog (heads and patched bytes copied,
//! payloads referenced), retried when the poller reports the socket writable and on every send and
//! tick; a frame is queued or dropped whole, never cut,
//! so the stream stays framed. The backlog is bounded; beyond it new packets are dropped
//! (`tx_queue_full`).

use std::collections::VecDeque;
use std::io::{self, IoSlice, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;

use bytes::{Buf, Bytes};
use ndn_packet::{FaceId, RxPacket};

use super::{Queued, Status};
use crate::counters::{DropReason, FaceCounters};
use crate::framing::{FramingError, StreamFramer};
use crate::info::DownReason;
use crate::sys::read_spare;
use crate::table::Faces;
use crate::uri::FaceUri;

/// Frames per `writev` call (up to four slices each: the head and the body in up to three
/// pieces).
const WRITE_CHUNK: usize = 32;
/// Slices of one frame.
const FRAME_PARTS: usize = 4;
/// Reads per stream per receive call, so one busy stream cannot starve the others.
const READS_PER_CALL: usize = 4;

/// A connected stream socket.
#[derive(Debug)]
pub(crate) enum StreamSock {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl StreamSock {
    fn fd(&self) -> BorrowedFd<'_> {
        match self {
            Self::Tcp(s) => s.as_fd(),
            Self::Unix(s) => s.as_fd(),
        }
    }

    fn write_vectored(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        match self {
            Self::Tcp(s) => (&*s).write_vectored(bufs),
            Self::Unix(s) => (&*s).write_vectored(bufs),
        }
    }
}

/// A listening socket.
#[derive(Debug)]
pub(crate) enum Listener {
    /// A Unix listener; its socket file is removed when the listener is dropped.
    Unix(UnixListener, PathBuf),
    Tcp(TcpListener),
    /// A Unix listener whose connections become shared-memory faces (file removed on drop).
    Shm(UnixListener, PathBuf),
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Self::Unix(_, path) | Self::Shm(_, path) = self {
            // Best effort: the file may already be gone.
            let _ = std::fs::remove_file(path);
        }
    }
}

/// An accepted connection and its endpoints.
pub(crate) type Accepted = (StreamSock, FaceUri, FaceUri);

impl Listener {
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        match self {
            Self::Unix(l, _) | Self::Shm(l, _) => l.as_fd(),
            Self::Tcp(l) => l.as_fd(),
        }
    }

    /// The listener's local URI.
    pub(crate) fn uri(&self) -> Option<FaceUri> {
        match self {
            Self::Unix(_, p) => Some(FaceUri::Unix(p.clone())),
            Self::Tcp(l) => l.local_addr().ok().map(FaceUri::Tcp),
            Self::Shm(_, p) => Some(FaceUri::Shm(p.clone())),
        }
    }

    /// Accepts one pending connection (non-blocking); `None` when there is none.
    pub(crate) fn accept(&self) -> io::Result<Option<Accepted>> {
        let r = match self {
            Self::Unix(l, path) => l.accept().map(|(s, _)| {
                let remote = FaceUri::Fd(s.as_raw_fd());
                (StreamSock::Unix(s), remote, FaceUri::Unix(path.clone()))
            }),
            Self::Shm(l, path) => l.accept().map(|(s, _)| {
                let remote = FaceUri::Fd(s.as_raw_fd());
                (StreamSock::Unix(s), remote, FaceUri::Shm(path.clone()))
            }),
            Self::Tcp(l) => l.accept().and_then(|(s, peer)| {
                s.set_nodelay(true)?;
                let local = FaceUri::Tcp(s.local_addr()?);
                Ok((StreamSock::Tcp(s), FaceUri::Tcp(peer), local))
            }),
        };
        match r {
            Ok((s, remote, local)) => {
                match &s {
                    StreamSock::Tcp(t) => t.set_nonblocking(true)?,
                    StreamSock::Unix(u) => u.set_nonblocking(true)?,
                }
                Ok(Some((s, remote, local)))
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// One stream face's socket and buffers.
#[derive(Debug)]
pub(crate) struct StreamEndpoint {
    sock: StreamSock,
    pub(crate) face: FaceId,
    framer: StreamFramer,
    backlog: VecDeque<Bytes>,
    backlog_bytes: usize,
    /// Whether the poller watches this socket for writability (while the backlog is not empty).
    pub(crate) watching_out: bool,
    pub(crate) queue: Vec<Queued>,
}

impl StreamEndpoint {
    pub(crate) fn new(sock: StreamSock, face: FaceId, max_frame: usize) -> Self {
        Self {
            sock,
            face,
            framer: StreamFramer::new(max_frame),
            backlog: VecDeque::new(),
            backlog_bytes: 0,
            watching_out: false,
            queue: Vec::new(),
        }
    }

    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.sock.fd()
    }

    /// Bytes waiting in the send backlog.
    pub(crate) fn backlog_bytes(&self) -> usize {
        self.backlog_bytes
    }

    /// Reads and decodes until `out` holds `limit` packets, the socket is drained, or the
    /// stream ends. The flag is true when whole frames are still buffered (the caller must
    /// come back without waiting for the poller).
    pub(crate) fn recv(
        &mut self,
        now: u64,
        faces: &mut Faces,
        out: &mut Vec<RxPacket>,
        limit: usize,
    ) -> (Status, bool) {
        let mut reads = 0;
        let mut rx = faces.receiver(self.face);
        loop {
            loop {
                if out.len() >= limit {
                    return (Status::Open, self.framer.buffered() > 0);
                }
                match self.framer.next_frame() {
                    Ok(Some(frame)) => {
                        if let Some(rx) = rx.as_mut() {
                            rx.deliver(now, 0, frame, out);
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        let reason = match e {
                            FramingError::TooLarge => DropReason::FrameTooLarge,
                            FramingError::BadHeader => DropReason::BadPacket,
                        };
                        if let Some(rx) = &rx {
                            rx.counters().drop(reason);
                        }
                        return (Status::Down(DownReason::BadFraming), false);
                    }
                }
            }
            if reads == READS_PER_CALL {
                return (Status::Open, false);
            }
            reads += 1;
            let fd = self.sock.fd();
            match self.framer.fill(|buf, want| read_spare(fd, buf, want)) {
                Ok(0) => return (Status::Down(DownReason::Closed), false),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return (Status::Open, false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return (Status::Down(DownReason::Error(e.kind())), false),
            }
        }
    }

    /// Writes the queued frames (`heads` holds their LP heads), then keeps what the kernel
    /// did not take in the backlog, up to `max_backlog` bytes.
    pub(crate) fn flush(
        &mut self,
        heads: &[u8],
        counters: Option<&FaceCounters>,
        max_backlog: usize,
    ) -> Status {
        if let Status::Down(r) = self.write_backlog() {
            self.queue.clear();
            return Status::Down(r);
        }
        let mut queue = core::mem::take(&mut self.queue);
        let (mut i, mut skip) = (0, 0);
        if self.backlog.is_empty() {
            match write_frames(&self.sock, heads, &queue) {
                Ok((n, s)) => (i, skip) = (n, s),
                Err(e) => {
                    queue.clear();
                    self.queue = queue;
                    return Status::Down(DownReason::Error(e.kind()));
                }
            }
        }
        for (k, q) in queue.iter().enumerate().skip(i) {
            let head = heads.get(q.frame.head.clone()).unwrap_or_default();
            let started = k == i && skip > 0;
            if !started && self.backlog_bytes + q.frame.len() > max_backlog {
                if let Some(c) = counters {
                    c.drop(DropReason::TxQueueFull);
                }
                continue;
            }
            let mut s = if started { skip } else { 0 };
            if s < head.len() {
                self.push_backlog(Bytes::copy_from_slice(head.get(s..).unwrap_or_default()));
            }
            s = s.saturating_sub(head.len());
            for piece in body_pieces(q) {
                let cut = s.min(piece.len());
                s -= cut;
                self.push_backlog(piece.slice(cut..));
            }
        }
        queue.clear();
        self.queue = queue;
        Status::Open
    }

    fn push_backlog(&mut self, b: Bytes) {
        if !b.is_empty() {
            self.backlog_bytes += b.len();
            self.backlog.push_back(b);
        }
    }

    /// Writes as much of the backlog as the kernel takes.
    pub(crate) fn write_backlog(&mut self) -> Status {
        while !self.backlog.is_empty() {
            let mut slices = [IoSlice::new(&[]); 2 * WRITE_CHUNK];
            let n = slices.len().min(self.backlog.len());
            for (s, b) in slices.iter_mut().zip(self.backlog.iter()) {
                *s = IoSlice::new(b);
            }
            let mut written = match self
                .sock
                .write_vectored(slices.get(..n).unwrap_or_default())
            {
                Ok(0) => return Status::Open,
                Ok(w) => w,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Status::Open,
                Err(e) => return Status::Down(DownReason::Error(e.kind())),
            };
            self.backlog_bytes -= written;
            while written > 0 {
                let Some(front) = self.backlog.front_mut() else {
                    break;
                };
                if written >= front.len() {
                    written -= front.len();
                    self.backlog.pop_front();
                } else {
                    front.advance(written);
                    written = 0;
                }
            }
        }
        Status::Open
    }
}

/// The body of a queued frame as sent ([`crate::link::Frame::body_parts`]), as buffers for
/// the backlog: slices of the body around a copy of the patched byte.
fn body_pieces(q: &Queued) -> [Bytes; 3] {
    let body = &q.frame.body;
    let [before, byte, after] = q.frame.body_parts();
    [
        body.slice_ref(before),
        Bytes::copy_from_slice(byte),
        body.slice_ref(after),
    ]
}

fn frame_parts<'a>(heads: &'a [u8], q: &'a Queued) -> [&'a [u8]; FRAME_PARTS] {
    let [a, b, c] = q.frame.body_parts();
    [heads.get(q.frame.head.clone()).unwrap_or_default(), a, b, c]
}

/// Writes frames with `writev` until done or the kernel pushes back. Returns the index of the
/// first frame not completely written and how many of its bytes were.
fn write_frames(sock: &StreamSock, heads: &[u8], queue: &[Queued]) -> io::Result<(usize, usize)> {
    let (mut i, mut skip) = (0usize, 0usize);
    while i < queue.len() {
        let mut slices = [IoSlice::new(&[]); FRAME_PARTS * WRITE_CHUNK];
        let mut n = 0;
        for (k, q) in queue.iter().enumerate().skip(i).take(WRITE_CHUNK) {
            // The first `skip` bytes of the first frame were written already.
            let mut s = if k == i { skip } else { 0 };
            for p in frame_parts(heads, q) {
                let cut = s.min(p.len());
                s -= cut;
                let p = p.get(cut..).unwrap_or_default();
                if let Some(slot) = slices.get_mut(n).filter(|_| !p.is_empty()) {
                    *slot = IoSlice::new(p);
                    n += 1;
                }
            }
        }
        let mut written = match sock.write_vectored(slices.get(..n).unwrap_or_default()) {
            Ok(0) => return Ok((i, skip)),
            Ok(w) => w,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok((i, skip)),
            Err(e) => return Err(e),
        };
        while written > 0 {
            let Some(q) = queue.get(i) else { break };
            let left = q.frame.len() - skip;
            if written >= left {
                written -= left;
                i += 1;
                skip = 0;
            } else {
                skip += written;
                written = 0;
            }
        }
    }
    Ok((i, skip))
}
