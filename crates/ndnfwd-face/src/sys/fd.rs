//! Descriptor-level helpers: reading into a buffer's spare capacity, socket buffer sizes, and
//! UDP sockets bound with `SO_REUSEADDR` (which std cannot set before `bind`).

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

use bytes::BytesMut;

use super::{check, setsockopt, RawAddr};

/// Reads once from `fd` into the spare capacity of `buf` (reserving `want` bytes first) and
/// extends `buf` by what was read. Returns the byte count; 0 means end of stream.
pub(crate) fn read_spare(fd: BorrowedFd<'_>, buf: &mut BytesMut, want: usize) -> io::Result<usize> {
    buf.reserve(want);
    let spare = buf.spare_capacity_mut();
    // SAFETY: `spare` is writable memory of `spare.len()` bytes owned by `buf`; `read` writes
    // at most that many bytes into it.
    let n = unsafe { libc::read(fd.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len()) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    let n = usize::try_from(n).unwrap_or(0);
    // SAFETY: the kernel initialized the first `n` spare bytes, and `n <= spare.len()`.
    unsafe { buf.set_len(buf.len() + n) };
    Ok(n)
}

/// Asks for socket buffers of `rcv` and `snd` bytes (the kernel caps them at its maximum).
pub(crate) fn set_buffer_sizes(fd: BorrowedFd<'_>, rcv: usize, snd: usize) -> io::Result<()> {
    let clamp = |v: usize| libc::c_int::try_from(v).unwrap_or(libc::c_int::MAX);
    setsockopt(fd, libc::SOL_SOCKET, libc::SO_RCVBUF, &clamp(rcv))?;
    setsockopt(fd, libc::SOL_SOCKET, libc::SO_SNDBUF, &clamp(snd))
}

/// A non-blocking UDP socket bound to `addr`, with `SO_REUSEADDR` set before `bind` when
/// `reuse` (several multicast receivers on one port). IPv6 sockets are IPv6-only.
pub(crate) fn udp_socket(addr: SocketAddr, reuse: bool) -> io::Result<UdpSocket> {
    let family = if addr.is_ipv4() {
        libc::AF_INET
    } else {
        libc::AF_INET6
    };
    let ty = libc::SOCK_DGRAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC;
    // SAFETY: `socket` takes no pointers; a non-negative result is a new descriptor.
    let fd = check(unsafe { libc::socket(family, ty, 0) })?;
    // SAFETY: `fd` is a fresh descriptor that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let one: libc::c_int = 1;
    if reuse {
        setsockopt(fd.as_fd(), libc::SOL_SOCKET, libc::SO_REUSEADDR, &one)?;
    }
    if addr.is_ipv6() {
        setsockopt(fd.as_fd(), libc::IPPROTO_IPV6, libc::IPV6_V6ONLY, &one)?;
    }
    let raw = RawAddr::inet(addr);
    let (p, len) = raw.as_ptr();
    // SAFETY: `p` points to a socket address of `len` bytes that lives across the call.
    check(unsafe { libc::bind(fd.as_raw_fd(), p, len) })?;
    Ok(UdpSocket::from(fd))
}

/// Sends IPv4 multicast from the interface that has address `iface`.
pub(crate) fn set_multicast_if_v4(sock: &UdpSocket, iface: std::net::Ipv4Addr) -> io::Result<()> {
    let addr = libc::in_addr {
        s_addr: u32::from(iface).to_be(),
    };
    setsockopt(sock.as_fd(), libc::IPPROTO_IP, libc::IP_MULTICAST_IF, &addr)
}
