//! AF_PACKET sockets for Ethernet faces: `SOCK_DGRAM` (the kernel adds and strips the
//! Ethernet header), bound to one interface and one EtherType, optionally subscribed to a
//! multicast group.

use std::io;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};

use super::{check, setsockopt, RawAddr};
use crate::uri::MacAddr;

/// What a packet socket learned about its interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EtherLink {
    /// Interface index.
    pub(crate) ifindex: i32,
    /// Interface MTU (payload bytes per frame).
    pub(crate) mtu: usize,
}

/// An `ifreq` naming `ifname`.
fn ifreq(ifname: &str) -> io::Result<libc::ifreq> {
    let name = ifname.as_bytes();
    if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains(&0) {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    // SAFETY: `ifreq` is a C struct of integers, arrays and a union of such; all-zero bytes
    // are a valid value.
    let mut req: libc::ifreq = unsafe { core::mem::zeroed() };
    for (d, s) in req.ifr_name.iter_mut().zip(name) {
        *d = *s as libc::c_char;
    }
    Ok(req)
}

/// Runs an interface `ioctl` that fills `req`.
fn ioctl(fd: &OwnedFd, op: libc::c_ulong, req: &mut libc::ifreq) -> io::Result<()> {
    // SAFETY: `req` is a valid, writable `ifreq` for the call, which is what SIOCGIF* expect.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), op, req as *mut libc::ifreq) })?;
    Ok(())
}

/// Opens a non-blocking packet socket on `ifname` for EtherType `proto`, joined to `group`
/// when given. Needs `CAP_NET_RAW`.
pub(crate) fn packet_socket(
    ifname: &str,
    proto: u16,
    group: Option<MacAddr>,
) -> io::Result<(OwnedFd, EtherLink)> {
    let ty = libc::SOCK_DGRAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC;
    // SAFETY: `socket` takes no pointers; a non-negative result is a new descriptor.
    let fd = check(unsafe { libc::socket(libc::AF_PACKET, ty, i32::from(proto.to_be())) })?;
    // SAFETY: `fd` is a fresh descriptor that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };

    let mut req = ifreq(ifname)?;
    ioctl(&fd, libc::SIOCGIFINDEX, &mut req)?;
    // SAFETY: SIOCGIFINDEX filled the `ifru_ifindex` member.
    let ifindex = unsafe { req.ifr_ifru.ifru_ifindex };
    let mut req = ifreq(ifname)?;
    ioctl(&fd, libc::SIOCGIFMTU, &mut req)?;
    // SAFETY: SIOCGIFMTU filled the `ifru_mtu` member.
    let mtu = usize::try_from(unsafe { req.ifr_ifru.ifru_mtu }).unwrap_or(0);

    let local = RawAddr::ether(ifindex, MacAddr([0; 6]), proto);
    let (p, len) = local.as_ptr();
    // SAFETY: `p` points to a `sockaddr_ll` of `len` bytes alive across the call.
    check(unsafe { libc::bind(fd.as_raw_fd(), p, len) })?;
    if let Some(g) = group {
        let mut mr_address = [0u8; 8];
        mr_address[..6].copy_from_slice(&g.0);
        let mreq = libc::packet_mreq {
            mr_ifindex: ifindex,
            mr_type: libc::PACKET_MR_MULTICAST as libc::c_ushort,
            mr_alen: 6,
            mr_address,
        };
        setsockopt(
            fd.as_fd(),
            libc::SOL_PACKET,
            libc::PACKET_ADD_MEMBERSHIP,
            &mreq,
        )?;
    }
    Ok((fd, EtherLink { ifindex, mtu }))
}
