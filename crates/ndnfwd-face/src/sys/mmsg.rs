//! Batched datagram I/O: [`RecvBatch`] over `recvmmsg` and [`SendBatch`] over `sendmmsg`.
//!
//! Receive memory: one zeroed `BytesMut` region holds `max_msgs` fixed slots. A datagram larger
//! than a quarter slot is split off its slot as a frozen `Bytes` (zero copy; the slot's tail is
//! wasted while the packet lives); a smaller one is copied into a compact 64 KiB arena, so a
//! 100-byte Interest does not pin a 9 KiB slot. Either way nothing is allocated per packet: the
//! slot region is replaced (one allocation) once a batch has consumed slots, and the arena
//! when it is full.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

use bytes::{Buf, Bytes, BytesMut};

use super::{Peer, RawAddr};

/// Capacity of the compact arena for small datagrams.
const SMALL_ARENA: usize = 64 * 1024;

/// Messages per `sendmmsg` call.
const SEND_CHUNK: usize = 64;

/// An all-zero value of a plain C struct.
fn zeroed<T: Copy>() -> T {
    // SAFETY: only used for `mmsghdr`, `iovec` and `sockaddr_storage`: C structs of integers
    // and raw pointers, for which all-zero bytes are a valid (null/empty) value.
    unsafe { core::mem::zeroed() }
}

/// `len` bytes at batch offset `at` of `buf`, whose first `consumed` batch bytes were split
/// off (empty when the datagram was taken already).
fn slot_data(buf: &[u8], at: usize, consumed: usize, len: usize) -> &[u8] {
    match at.checked_sub(consumed) {
        Some(start) => buf.get(start..start + len).unwrap_or_default(),
        None => &[],
    }
}

/// Receive state for one datagram socket: slots, headers, source addresses.
pub(crate) struct RecvBatch {
    slot: usize,
    max_msgs: usize,
    buf: BytesMut,
    small: BytesMut,
    hdrs: Vec<libc::mmsghdr>,
    iovs: Vec<libc::iovec>,
    addrs: Vec<libc::sockaddr_storage>,
    got: usize,
    consumed: usize,
}

// SAFETY: the raw pointers inside `hdrs` and `iovs` are rewritten to point into this struct's
// own buffers right before every `recvmmsg` and are never dereferenced by Rust code, so moving
// the struct to another thread cannot create shared access.
unsafe impl Send for RecvBatch {}

impl core::fmt::Debug for RecvBatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "RecvBatch(slot {}, max {})", self.slot, self.max_msgs)
    }
}

impl RecvBatch {
    /// Receive state for up to `max_msgs` datagrams of up to `slot` bytes per call.
    pub(crate) fn new(slot: usize, max_msgs: usize) -> Self {
        let max_msgs = max_msgs.max(1);
        Self {
            slot,
            max_msgs,
            buf: BytesMut::new(),
            small: BytesMut::with_capacity(SMALL_ARENA),
            hdrs: vec![zeroed(); max_msgs],
            iovs: vec![zeroed(); max_msgs],
            addrs: vec![zeroed(); max_msgs],
            got: 0,
            consumed: 0,
        }
    }

    /// Receives up to `max` datagrams without blocking. Returns how many arrived (0 when none
    /// was waiting).
    pub(crate) fn recv(&mut self, fd: BorrowedFd<'_>, max: usize) -> io::Result<usize> {
        self.got = 0;
        self.consumed = 0;
        let n = max.min(self.max_msgs);
        if n == 0 {
            return Ok(0);
        }
        if self.buf.len() < self.max_msgs * self.slot {
            self.buf = BytesMut::zeroed(self.max_msgs * self.slot);
        }
        let base = self.buf.as_mut_ptr();
        let addr_len = core::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        for i in 0..n {
            let (Some(iov), Some(addr), Some(hdr)) = (
                self.iovs.get_mut(i),
                self.addrs.get_mut(i),
                self.hdrs.get_mut(i),
            ) else {
                return Ok(0);
            };
            // SAFETY: `i * slot + slot <= buf.len()` (checked above), so the pointer stays
            // inside the buffer's initialized region.
            iov.iov_base = unsafe { base.add(i * self.slot) }.cast();
            iov.iov_len = self.slot;
            hdr.msg_hdr.msg_name = (addr as *mut libc::sockaddr_storage).cast();
            hdr.msg_hdr.msg_namelen = addr_len;
            hdr.msg_hdr.msg_iov = iov;
            hdr.msg_hdr.msg_iovlen = 1;
            hdr.msg_hdr.msg_control = core::ptr::null_mut();
            hdr.msg_hdr.msg_controllen = 0;
            hdr.msg_hdr.msg_flags = 0;
            hdr.msg_len = 0;
        }
        let vlen = libc::c_uint::try_from(n).unwrap_or(libc::c_uint::MAX);
        // SAFETY: the first `n` headers point at live iovecs, slots and address storage owned
        // by `self`, each with the lengths set above; nothing else touches them during the call.
        let r = unsafe {
            libc::recvmmsg(
                fd.as_raw_fd(),
                self.hdrs.as_mut_ptr(),
                vlen,
                libc::MSG_DONTWAIT,
                core::ptr::null_mut(),
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
                _ => Err(e),
            };
        }
        self.got = usize::try_from(r).unwrap_or(0).min(n);
        Ok(self.got)
    }

    /// Length of datagram `i` of the last batch (0 if out of range).
    pub(crate) fn len(&self, i: usize) -> usize {
        match self.hdrs.get(i) {
            Some(h) if i < self.got => (h.msg_len as usize).min(self.slot),
            _ => 0,
        }
    }

    /// True when datagram `i` was larger than a slot and got cut.
    pub(crate) fn truncated(&self, i: usize) -> bool {
        self.hdrs
            .get(i)
            .is_some_and(|h| i < self.got && h.msg_hdr.msg_flags & libc::MSG_TRUNC != 0)
    }

    /// Sender of datagram `i`.
    pub(crate) fn peer(&self, i: usize) -> Peer {
        match (self.hdrs.get(i), self.addrs.get(i)) {
            (Some(h), Some(a)) if i < self.got => Peer::from_storage(a, h.msg_hdr.msg_namelen),
            _ => Peer::Unknown,
        }
    }

    /// Bytes of datagram `i` (empty once taken or out of range).
    pub(crate) fn data(&self, i: usize) -> &[u8] {
        slot_data(&self.buf, i * self.slot, self.consumed, self.len(i))
    }

    /// The first `len` bytes of datagram `i` as `Bytes`. Take datagrams in increasing order;
    /// each at most once.
    pub(crate) fn take(&mut self, i: usize, len: usize) -> Bytes {
        let len = len.min(self.len(i));
        if len <= self.slot / 4 || i * self.slot < self.consumed {
            let data = slot_data(&self.buf, i * self.slot, self.consumed, len);
            self.small.reserve(len);
            self.small.extend_from_slice(data);
            return self.small.split().freeze();
        }
        self.buf.advance(i * self.slot - self.consumed);
        let mut chunk = self.buf.split_to(self.slot.min(self.buf.len()));
        chunk.truncate(len);
        self.consumed = (i + 1) * self.slot;
        chunk.freeze()
    }
}

/// One datagram to send: an optional link header written by the link service, the network
/// packet (or fragment) in up to three pieces (a patched byte between the bytes before and
/// after it; unused pieces empty), and the destination for unconnected sockets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OutMsg<'a> {
    pub(crate) head: &'a [u8],
    pub(crate) body: [&'a [u8]; 3],
    pub(crate) dest: Option<&'a RawAddr>,
}

/// I/O vectors of one message: the head and the three body pieces.
const MSG_IOVS: usize = 4;

/// Scratch headers for `sendmmsg`.
pub(crate) struct SendBatch {
    hdrs: Vec<libc::mmsghdr>,
    iovs: Vec<[libc::iovec; MSG_IOVS]>,
}

// SAFETY: as for `RecvBatch`: the pointers are rebuilt before every call and only the kernel
// reads through them.
unsafe impl Send for SendBatch {}

impl core::fmt::Debug for SendBatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SendBatch")
    }
}

impl Default for SendBatch {
    fn default() -> Self {
        Self {
            hdrs: vec![zeroed(); SEND_CHUNK],
            iovs: vec![[zeroed(); MSG_IOVS]; SEND_CHUNK],
        }
    }
}

impl SendBatch {
    /// Sends messages `msg(0) .. msg(n-1)` with as few `sendmmsg` calls as possible. A message
    /// the kernel refuses is reported to `failed` with its index and skipped; when the socket
    /// buffer is full (or another error repeats) every message not yet sent is reported.
    /// Returns how many were sent.
    pub(crate) fn send<'a>(
        &mut self,
        fd: BorrowedFd<'_>,
        n: usize,
        mut msg: impl FnMut(usize) -> OutMsg<'a>,
        mut failed: impl FnMut(usize, io::ErrorKind),
    ) -> usize {
        let mut sent = 0;
        let mut next = 0;
        while next < n {
            let chunk = (n - next).min(SEND_CHUNK);
            for j in 0..chunk {
                let m = msg(next + j);
                let (Some(hdr), Some(iov)) = (self.hdrs.get_mut(j), self.iovs.get_mut(j)) else {
                    break;
                };
                // Only the non-empty pieces, so the kernel sees one iovec for a bare packet.
                let [b0, b1, b2] = m.body;
                let mut used = 0;
                for part in [m.head, b0, b1, b2] {
                    if let Some(v) = iov.get_mut(used).filter(|_| !part.is_empty()) {
                        v.iov_base = part.as_ptr().cast_mut().cast();
                        v.iov_len = part.len();
                        used += 1;
                    }
                }
                let (name, namelen) = match m.dest {
                    Some(d) => d.as_ptr(),
                    None => (core::ptr::null(), 0),
                };
                hdr.msg_hdr.msg_name = name.cast_mut().cast();
                hdr.msg_hdr.msg_namelen = namelen;
                hdr.msg_hdr.msg_iov = iov.as_mut_ptr();
                hdr.msg_hdr.msg_iovlen = used;
                hdr.msg_hdr.msg_control = core::ptr::null_mut();
                hdr.msg_hdr.msg_controllen = 0;
                hdr.msg_hdr.msg_flags = 0;
                hdr.msg_len = 0;
            }
            let mut done = 0;
            while done < chunk {
                let vlen = libc::c_uint::try_from(chunk - done).unwrap_or(1);
                // SAFETY: headers `done..chunk` point at iovecs in `self.iovs` and at buffers
                // and addresses borrowed for `'a` from the caller, all alive during the call;
                // the kernel only reads them.
                let r = unsafe {
                    libc::sendmmsg(
                        fd.as_raw_fd(),
                        self.hdrs.as_mut_ptr().add(done),
                        vlen,
                        libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
                    )
                };
                if r > 0 {
                    let k = usize::try_from(r).unwrap_or(0);
                    done += k;
                    sent += k;
                    continue;
                }
                let e = io::Error::last_os_error();
                match e.kind() {
                    io::ErrorKind::Interrupted => continue,
                    io::ErrorKind::WouldBlock => {
                        (next + done..n).for_each(|i| failed(i, e.kind()));
                        return sent;
                    }
                    kind => {
                        failed(next + done, kind);
                        done += 1;
                    }
                }
            }
            next += chunk;
        }
        sent
    }
}
