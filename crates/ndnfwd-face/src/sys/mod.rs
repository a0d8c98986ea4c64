//! Every syscall of the face layer, and all of its `unsafe`: batched datagram I/O
//! (`recvmmsg`/`sendmmsg`), reads into a buffer's spare capacity, epoll, socket options std does
//! not offer, AF_PACKET sockets, and the shared memory of shm faces. Each `unsafe` block states
//! why it is sound; the rest of the crate sees only safe functions and types.

mod addr;
mod epoll;
mod fd;
mod mmsg;
mod packet;
mod shm;

pub(crate) use addr::{Peer, RawAddr};
pub use epoll::Poller;
pub(crate) use fd::{read_spare, set_buffer_sizes, set_multicast_if_v4, udp_socket};
pub(crate) use mmsg::{OutMsg, RecvBatch, SendBatch};
pub(crate) use packet::packet_socket;
pub(crate) use shm::{recv_fd, send_fd, ShmRings, MAX_RING, MIN_RING};

use std::io;

/// Turns a `-1` return into the thread's `errno`.
fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// `setsockopt` with a plain-old-data value.
fn setsockopt<T: Copy>(
    fd: std::os::fd::BorrowedFd<'_>,
    level: libc::c_int,
    name: libc::c_int,
    value: &T,
) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let len = libc::socklen_t::try_from(core::mem::size_of::<T>())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: `value` points to `len` readable bytes of a `Copy` value for the whole call, and
    // `fd` is a live descriptor borrowed for the call.
    check(unsafe {
        libc::setsockopt(fd.as_raw_fd(), level, name, (value as *const T).cast(), len)
    })?;
    Ok(())
}
