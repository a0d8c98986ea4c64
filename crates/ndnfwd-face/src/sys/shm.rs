//! Shared-memory rings for local faces: a sealed memfd holding two single-producer
//! single-consumer byte rings (app to forwarder, forwarder to app), passed over a Unix socket
//! with `SCM_RIGHTS`. The socket stays open as the face's doorbell and liveness signal.
//!
//! Layout of the memory (all integers little-endian, positions are byte counts that only grow):
//!
//! | offset | what |
//! |---|---|
//! | 0 | magic `NDNFWDSH` (u64), version (u32), ring bytes (u32) |
//! | 64 + 192 r | ring r: head (u64, written by its producer) |
//! | 128 + 192 r | ring r: tail (u64, written by its consumer) |
//! | 192 + 192 r | ring r: consumer sleeping (u64: 1 when it is about to wait on the socket) |
//! | 4096 + r * ring bytes | ring r's data |
//!
//! Ring 0 carries app-to-forwarder frames, ring 1 forwarder-to-app ones. A record is a u32
//! length and the frame, padded to 8 bytes; a length of `u32::MAX` means "continue at the start
//! of the ring". A producer publishes a batch with one release store of its head; a consumer
//! frees space with one release store of its tail.
//!
//! The peer is not trusted: it can write anything into the shared memory at any time. Each side
//! keeps its own positions privately and only reads the peer's, every value read is checked
//! before use (a bad one is [`Corrupt`] and the face goes down), and frames are copied out
//! before they are decoded. The forwarder creates the memory and seals its size
//! (`F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL`), so a peer cannot make it shorter and turn a
//! read into `SIGBUS`; the app side checks the seals and size of what it maps.
//!
//! Waking: before sleeping on the socket a consumer sets its sleeping flag, fences, and looks
//! at the ring once more; a producer publishes, fences, and writes one byte to the socket only
//! if it finds the flag set (clearing it). One of the two always sees the other, so no wake-up
//! is lost, and a busy consumer costs its producer no system call.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicU64, Ordering};

use bytes::BytesMut;

use super::check;

/// `NDNFWDSH` as a little-endian u64.
const MAGIC: u64 = u64::from_le_bytes(*b"NDNFWDSH");
const VERSION: u32 = 1;
/// Where the rings' data starts.
const DATA_START: usize = 4096;
/// Length value that sends the reader to the start of the ring.
const WRAP: u32 = u32::MAX;
/// Smallest and largest ring size (a power of two).
pub(crate) const MIN_RING: usize = 1 << 16;
pub(crate) const MAX_RING: usize = 1 << 30;
/// Seals the forwarder puts on the memory.
const SEALS: libc::c_int = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;

/// The peer broke the ring protocol (or scribbled over the shared memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Corrupt;

/// Which end of the rings this process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// The forwarder: reads ring 0, writes ring 1.
    Forwarder,
    /// The app: reads ring 1, writes ring 0.
    App,
}

/// A shared mapping, unmapped on drop.
#[derive(Debug)]
struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by this value; it is only reached through `&self`
// methods that use atomics for the shared control words and byte copies for the data.
unsafe impl Send for Mapping {}

impl Mapping {
    fn new(fd: BorrowedFd<'_>, len: usize) -> io::Result<Self> {
        // SAFETY: a fresh shared mapping of `len` bytes of `fd`, which is at least that long
        // (checked by the callers); no existing memory is affected.
        let p = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(p.cast()).ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(Self { ptr, len })
    }

    /// The control word at `off` (8-aligned, inside the first page).
    fn word(&self, off: usize) -> &AtomicU64 {
        debug_assert!(off % 8 == 0 && off + 8 <= DATA_START);
        // SAFETY: `off + 8 <= DATA_START <= len`, the mapping is page-aligned so the word is
        // 8-aligned, and shared words are only ever accessed atomically.
        unsafe { &*self.ptr.as_ptr().add(off).cast::<AtomicU64>() }
    }

    /// Copies `src` to `off`. The caller checked `off + src.len() <= len`.
    fn write(&self, off: usize, src: &[u8]) {
        assert!(off.checked_add(src.len()).is_some_and(|e| e <= self.len));
        // SAFETY: the destination range is inside the mapping (asserted) and does not overlap
        // `src`, which is private memory of this process.
        unsafe {
            core::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.as_ptr().add(off), src.len())
        }
    }

    /// Writes a record at `off`: the little-endian `len` (the parts' total) and the parts.
    fn write_record<const N: usize>(&self, off: usize, len: u32, parts: [&[u8]; N]) {
        assert!(parts.iter().map(|p| p.len()).sum::<usize>() == len as usize);
        assert!(off
            .checked_add(4 + len as usize)
            .is_some_and(|e| e <= self.len));
        // SAFETY: the length word and the parts' destination ranges are consecutive and
        // together inside the mapping (asserted: the parts add up to `len`); the sources are
        // private memory of this process.
        unsafe {
            let p = self.ptr.as_ptr().add(off);
            p.cast::<u32>().write_unaligned(len.to_le());
            let mut at = 4;
            for part in parts {
                core::ptr::copy_nonoverlapping(part.as_ptr(), p.add(at), part.len());
                at += part.len();
            }
        }
    }

    /// Reads the u32 at `off` (4-aligned).
    fn read_u32(&self, off: usize) -> u32 {
        assert!(off % 4 == 0 && off + 4 <= self.len);
        // SAFETY: in bounds and aligned (asserted); a racing peer can only make the value
        // wrong, which the caller checks.
        u32::from_le(unsafe { self.ptr.as_ptr().add(off).cast::<u32>().read_volatile() })
    }

    /// Appends `len` bytes from `off` to `out`.
    fn read_into(&self, off: usize, len: usize, out: &mut BytesMut) {
        assert!(off.checked_add(len).is_some_and(|e| e <= self.len));
        out.reserve(len);
        let spare = out.spare_capacity_mut();
        // SAFETY: the source range is inside the mapping (asserted), the destination is `len`
        // bytes of spare capacity just reserved; a racing (misbehaving) peer can only change
        // the bytes copied, which are decoded as untrusted input afterwards.
        unsafe {
            core::ptr::copy_nonoverlapping(
                self.ptr.as_ptr().add(off),
                spare.as_mut_ptr().cast::<u8>(),
                len,
            );
            out.set_len(out.len() + len);
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what `mmap` returned, unmapped once.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// This process's position in one ring and where its control words are.
#[derive(Debug)]
struct End {
    /// Our private position: the tail when reading, the head when writing.
    pos: u64,
    /// The peer's position as last read: head when reading, tail when writing.
    seen: u64,
    head: usize,
    tail: usize,
    sleeping: usize,
    data: usize,
}

impl End {
    fn new(ring: usize, ring_bytes: usize) -> Self {
        let ctrl = 64 + 192 * ring;
        Self {
            pos: 0,
            seen: 0,
            head: ctrl,
            tail: ctrl + 64,
            sleeping: ctrl + 128,
            data: DATA_START + ring * ring_bytes,
        }
    }
}

/// One side of a pair of shared rings.
#[derive(Debug)]
pub(crate) struct ShmRings {
    map: Mapping,
    cap: u64,
    rx: End,
    tx: End,
}

fn round8(v: u64) -> u64 {
    (v + 7) & !7
}

impl ShmRings {
    /// Creates the sealed memory for a new face (forwarder side) with rings of `ring_bytes`
    /// (a power of two in `MIN_RING..=MAX_RING`); returns the rings and the descriptor to send.
    pub(crate) fn create(ring_bytes: usize) -> io::Result<(Self, OwnedFd)> {
        if !ring_bytes.is_power_of_two() || !(MIN_RING..=MAX_RING).contains(&ring_bytes) {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        }
        let len = DATA_START + 2 * ring_bytes;
        let flags = libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING;
        // SAFETY: the name is a NUL-terminated literal; a non-negative result is a new
        // descriptor that nothing else owns.
        let fd = check(unsafe { libc::memfd_create(c"ndnfwd-shm-face".as_ptr(), flags) })?;
        // SAFETY: `fd` is fresh and owned by no one else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let size = libc::off_t::try_from(len).map_err(|_| io::ErrorKind::InvalidInput)?;
        // SAFETY: plain descriptor calls with integer arguments.
        check(unsafe { libc::ftruncate(fd.as_raw_fd(), size) })?;
        // SAFETY: as above.
        check(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, SEALS) })?;
        let map = Mapping::new(fd.as_fd(), len)?;
        let mut header = [0u8; 16];
        header[..8].copy_from_slice(&MAGIC.to_le_bytes());
        header[8..12].copy_from_slice(&VERSION.to_le_bytes());
        let rb = u32::try_from(ring_bytes).map_err(|_| io::ErrorKind::InvalidInput)?;
        header[12..].copy_from_slice(&rb.to_le_bytes());
        map.write(0, &header);
        Ok((Self::with_map(map, ring_bytes, Side::Forwarder), fd))
    }

    /// Maps memory received from a forwarder (app side), after checking its seals, size and
    /// header.
    pub(crate) fn open(fd: &OwnedFd) -> io::Result<Self> {
        let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_owned());
        // SAFETY: plain descriptor call.
        let seals = check(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GET_SEALS) })?;
        if seals & SEALS != SEALS {
            return Err(bad("shared memory is not sealed"));
        }
        // SAFETY: `st` is a valid out-parameter for the call.
        let mut st: libc::stat = unsafe { core::mem::zeroed() };
        // SAFETY: as above; `fd` is open.
        check(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) })?;
        let len = usize::try_from(st.st_size).map_err(|_| bad("bad size"))?;
        if len < DATA_START + 2 * MIN_RING {
            return Err(bad("shared memory too small"));
        }
        let map = Mapping::new(fd.as_fd(), len)?;
        let magic = u64::from(map.read_u32(0)) | (u64::from(map.read_u32(4)) << 32);
        let ring_bytes = map.read_u32(12) as usize;
        if magic != MAGIC || map.read_u32(8) != VERSION {
            return Err(bad("not an ndnfwd shared-memory face"));
        }
        if !ring_bytes.is_power_of_two()
            || !(MIN_RING..=MAX_RING).contains(&ring_bytes)
            || DATA_START + 2 * ring_bytes != len
        {
            return Err(bad("bad ring size"));
        }
        Ok(Self::with_map(map, ring_bytes, Side::App))
    }

    fn with_map(map: Mapping, ring_bytes: usize, side: Side) -> Self {
        let (rx, tx) = match side {
            Side::Forwarder => (0, 1),
            Side::App => (1, 0),
        };
        Self {
            map,
            cap: ring_bytes as u64,
            rx: End::new(rx, ring_bytes),
            tx: End::new(tx, ring_bytes),
        }
    }

    /// Copies received frames to the end of `out` while `lens` has room for one more length
    /// and `out` has spare capacity for a maximal frame; each frame's length goes to `lens`.
    /// Returns how many frames were copied, and `Ok(false)` when it stopped at an empty ring
    /// (`Ok(true)`: it stopped at a limit). One call per run of frames: the ring positions
    /// stay in registers for the run and are stored back once at its end.
    pub(crate) fn recv_run(
        &mut self,
        out: &mut BytesMut,
        lens: &mut [usize],
    ) -> (usize, Result<bool, Corrupt>) {
        let cap = self.cap;
        let mut pos = self.rx.pos;
        let mut seen = self.rx.seen;
        let mut n = 0;
        let result = loop {
            if n == lens.len() || out.capacity() - out.len() < crate::MAX_FRAME_LEN {
                break Ok(true);
            }
            if pos == seen {
                let head = self.map.word(self.rx.head).load(Ordering::Acquire);
                if head.wrapping_sub(pos) > cap {
                    break Err(Corrupt);
                }
                seen = head;
                if head == pos {
                    break Ok(false);
                }
            }
            let idx = pos & (cap - 1);
            let avail = seen - pos;
            // `pos` only ever grows by multiples of 8 and `idx < cap`: the length word is
            // aligned and inside the ring.
            let len = self.map.read_u32(self.rx.data + idx as usize);
            if len == WRAP {
                let skip = cap - idx;
                if skip > avail {
                    break Err(Corrupt);
                }
                pos += skip;
                continue;
            }
            // The peer's length: bounded by the frame limit, by what it published and by the
            // end of the ring before anything is read.
            let rec = round8(4 + u64::from(len));
            if len as usize > crate::MAX_FRAME_LEN || rec > avail || idx + 4 + u64::from(len) > cap
            {
                break Err(Corrupt);
            }
            self.map
                .read_into(self.rx.data + idx as usize + 4, len as usize, out);
            if let Some(l) = lens.get_mut(n) {
                *l = len as usize;
            }
            pos += rec;
            n += 1;
        };
        self.rx.pos = pos;
        self.rx.seen = seen;
        (n, result)
    }

    /// Copies the next received frame to the end of `out`. `Ok(false)` when the ring is empty.
    #[cfg(test)]
    pub(crate) fn recv(&mut self, out: &mut BytesMut) -> Result<bool, Corrupt> {
        if out.capacity() - out.len() < crate::MAX_FRAME_LEN {
            out.reserve(crate::MAX_FRAME_LEN);
        }
        let (n, got) = self.recv_run(out, &mut [0]);
        got.map(|_| n == 1)
    }

    /// Gives the space of the frames read so far back to the producer.
    pub(crate) fn release(&self) {
        self.map
            .word(self.rx.tail)
            .store(self.rx.pos, Ordering::Release);
    }

    /// Appends one frame made of `parts` (not yet visible to the peer: see
    /// [`ShmRings::publish`]). `Ok(false)` when the ring has no room for it. Inlined into the
    /// send loop: a call per frame saved and restored six registers.
    #[inline]
    pub(crate) fn push<const N: usize>(&mut self, parts: [&[u8]; N]) -> Result<bool, Corrupt> {
        let len = parts.iter().map(|p| p.len()).sum::<usize>();
        let Ok(len32) = u32::try_from(len) else {
            return Ok(false);
        };
        if len > crate::MAX_FRAME_LEN {
            return Ok(false);
        }
        let rec = round8(4 + len as u64);
        let idx = self.tx.pos & (self.cap - 1);
        let skip = if rec > self.cap - idx {
            self.cap - idx
        } else {
            0
        };
        let end = self.tx.pos + skip + rec;
        if end > self.tx.seen + self.cap {
            let tail = self.map.word(self.tx.tail).load(Ordering::Acquire);
            if self.tx.pos.wrapping_sub(tail) > self.cap {
                return Err(Corrupt);
            }
            self.tx.seen = tail;
            if end > tail + self.cap {
                return Ok(false);
            }
        }
        let base = self.tx.data;
        if skip > 0 {
            self.map.write(base + idx as usize, &WRAP.to_le_bytes());
            self.tx.pos += skip;
        }
        let at = base + (self.tx.pos & (self.cap - 1)) as usize;
        self.map.write_record(at, len32, parts);
        self.tx.pos += rec;
        Ok(true)
    }

    /// Makes the pushed frames visible to the peer. True when the peer is asleep and must be
    /// woken through the socket.
    pub(crate) fn publish(&self) -> bool {
        self.map
            .word(self.tx.head)
            .store(self.tx.pos, Ordering::Release);
        fence(Ordering::SeqCst);
        let sleeping = self.map.word(self.tx.sleeping);
        sleeping.load(Ordering::Relaxed) != 0 && sleeping.swap(0, Ordering::AcqRel) != 0
    }

    /// Announces that this side is about to sleep; true when frames arrived meanwhile (then
    /// do not sleep). Call [`ShmRings::awake`] after the wait.
    pub(crate) fn arm(&self) -> bool {
        self.map.word(self.rx.sleeping).store(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        self.map.word(self.rx.head).load(Ordering::Acquire) != self.rx.pos
    }

    /// Withdraws [`ShmRings::arm`].
    pub(crate) fn awake(&self) {
        self.map.word(self.rx.sleeping).store(0, Ordering::Relaxed);
    }
}

/// Sends one byte and `fd` over the Unix socket `sock` (`SCM_RIGHTS`).
pub(crate) fn send_fd(sock: BorrowedFd<'_>, fd: BorrowedFd<'_>) -> io::Result<()> {
    let mut byte = [1u8];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // Room for one descriptor, aligned as a cmsghdr.
    let mut space = [0u64; 4];
    // SAFETY: plain arithmetic on sizes.
    let clen = unsafe { libc::CMSG_SPACE(core::mem::size_of::<libc::c_int>() as u32) } as usize;
    debug_assert!(clen <= core::mem::size_of_val(&space));
    // SAFETY: a zeroed msghdr is valid; the pointers set below outlive the call.
    let mut msg: libc::msghdr = unsafe { core::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space.as_mut_ptr().cast();
    msg.msg_controllen = clen as _;
    // SAFETY: `msg` has a control buffer of `clen` bytes, enough for one header and one int,
    // so CMSG_FIRSTHDR is non-null and CMSG_DATA points to room for the descriptor.
    unsafe {
        let c = libc::CMSG_FIRSTHDR(&msg);
        (*c).cmsg_level = libc::SOL_SOCKET;
        (*c).cmsg_type = libc::SCM_RIGHTS;
        (*c).cmsg_len = libc::CMSG_LEN(core::mem::size_of::<libc::c_int>() as u32) as _;
        libc::CMSG_DATA(c)
            .cast::<libc::c_int>()
            .write_unaligned(fd.as_raw_fd());
    }
    // SAFETY: `msg` and everything it points to are valid for the call.
    let sent = unsafe { libc::sendmsg(sock.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Receives the byte and descriptor [`send_fd`] sent (blocking per the socket's mode).
pub(crate) fn recv_fd(sock: BorrowedFd<'_>) -> io::Result<OwnedFd> {
    let mut byte = [0u8];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut space = [0u64; 8];
    // SAFETY: a zeroed msghdr is valid; the pointers set below outlive the call.
    let mut msg: libc::msghdr = unsafe { core::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space.as_mut_ptr().cast();
    msg.msg_controllen = core::mem::size_of_val(&space) as _;
    // SAFETY: `msg` and its buffers are valid for the call; MSG_CMSG_CLOEXEC keeps received
    // descriptors out of child processes.
    let got = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
    if got < 0 {
        return Err(io::Error::last_os_error());
    }
    if got == 0 {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    let mut found = None;
    // SAFETY: the kernel filled `msg_controllen` bytes of the control buffer with well-formed
    // headers; CMSG_FIRSTHDR/NXTHDR stay inside it. Every SCM_RIGHTS descriptor is taken into
    // an `OwnedFd` (so extra ones are closed, not leaked).
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(c).cast::<libc::c_int>();
                let bytes = (*c).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                for i in 0..bytes / core::mem::size_of::<libc::c_int>() {
                    let fd = OwnedFd::from_raw_fd(data.add(i).read_unaligned());
                    found.get_or_insert(fd);
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    if msg.msg_flags & libc::MSG_CTRUNC != 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "descriptor truncated",
        ));
    }
    found.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no descriptor received"))
}

#[cfg(test)]
#[path = "shm_tests.rs"]
mod tests;
