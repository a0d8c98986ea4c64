//! Socket addresses in the kernel's layout: [`RawAddr`] to send to, [`Peer`] as received.

use core::mem::size_of;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};

use crate::uri::MacAddr;

/// The address kinds a datagram face sends to, in the kernel's layout.
#[repr(C)]
#[derive(Clone, Copy)]
union AddrUnion {
    v4: libc::sockaddr_in,
    v6: libc::sockaddr_in6,
    ll: libc::sockaddr_ll,
}

/// A destination address ready to hand to `sendmmsg` (32 bytes, copied into each queued frame
/// so the send path needs no lookup).
#[derive(Clone, Copy)]
pub(crate) struct RawAddr {
    addr: AddrUnion,
    len: libc::socklen_t,
}

impl core::fmt::Debug for RawAddr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "RawAddr(len {})", self.len)
    }
}

const fn socklen<T>() -> libc::socklen_t {
    // Socket address structs are a few dozen bytes: the cast is exact.
    size_of::<T>() as libc::socklen_t
}

impl RawAddr {
    /// An IPv4 or IPv6 UDP destination.
    pub(crate) fn inet(a: SocketAddr) -> Self {
        match a {
            SocketAddr::V4(a) => Self {
                addr: AddrUnion {
                    v4: libc::sockaddr_in {
                        sin_family: libc::AF_INET as libc::sa_family_t,
                        sin_port: a.port().to_be(),
                        sin_addr: libc::in_addr {
                            s_addr: u32::from(*a.ip()).to_be(),
                        },
                        sin_zero: [0; 8],
                    },
                },
                len: socklen::<libc::sockaddr_in>(),
            },
            SocketAddr::V6(a) => Self {
                addr: AddrUnion {
                    v6: libc::sockaddr_in6 {
                        sin6_family: libc::AF_INET6 as libc::sa_family_t,
                        sin6_port: a.port().to_be(),
                        sin6_flowinfo: a.flowinfo(),
                        sin6_addr: libc::in6_addr {
                            s6_addr: a.ip().octets(),
                        },
                        sin6_scope_id: a.scope_id(),
                    },
                },
                len: socklen::<libc::sockaddr_in6>(),
            },
        }
    }

    /// An Ethernet destination on interface `ifindex` for EtherType `proto` (host order).
    pub(crate) fn ether(ifindex: i32, mac: MacAddr, proto: u16) -> Self {
        let mut sll_addr = [0u8; 8];
        sll_addr[..6].copy_from_slice(&mac.0);
        Self {
            addr: AddrUnion {
                ll: libc::sockaddr_ll {
                    sll_family: libc::AF_PACKET as u16,
                    sll_protocol: proto.to_be(),
                    sll_ifindex: ifindex,
                    sll_hatype: 0,
                    sll_pkttype: 0,
                    sll_halen: 6,
                    sll_addr,
                },
            },
            len: socklen::<libc::sockaddr_ll>(),
        }
    }

    /// Pointer and length for `msg_name` / `bind`.
    pub(crate) fn as_ptr(&self) -> (*const libc::sockaddr, libc::socklen_t) {
        ((&self.addr as *const AddrUnion).cast(), self.len)
    }
}

/// Where a received datagram came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Peer {
    /// A UDP sender.
    Inet(SocketAddr),
    /// An Ethernet sender and the kernel's packet type (`PACKET_HOST`, `PACKET_MULTICAST`,
    /// `PACKET_OUTGOING`...).
    Ether { mac: MacAddr, pkttype: u8 },
    /// An address family this crate does not use.
    Unknown,
}

impl Peer {
    /// Decodes a `sockaddr_storage` filled in by the kernel with `len` valid bytes.
    pub(crate) fn from_storage(ss: &libc::sockaddr_storage, len: libc::socklen_t) -> Self {
        let base = (ss as *const libc::sockaddr_storage).cast::<u8>();
        match libc::c_int::from(ss.ss_family) {
            libc::AF_INET if len >= socklen::<libc::sockaddr_in>() => {
                // SAFETY: `sockaddr_storage` is large and aligned enough for every socket
                // address type, and the kernel wrote a whole `sockaddr_in` (checked length).
                let a = unsafe { &*base.cast::<libc::sockaddr_in>() };
                let ip = Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr));
                Self::Inet(SocketAddr::V4(SocketAddrV4::new(
                    ip,
                    u16::from_be(a.sin_port),
                )))
            }
            libc::AF_INET6 if len >= socklen::<libc::sockaddr_in6>() => {
                // SAFETY: as above, for a whole `sockaddr_in6`.
                let a = unsafe { &*base.cast::<libc::sockaddr_in6>() };
                let ip = Ipv6Addr::from(a.sin6_addr.s6_addr);
                Self::Inet(SocketAddr::V6(SocketAddrV6::new(
                    ip,
                    u16::from_be(a.sin6_port),
                    a.sin6_flowinfo,
                    a.sin6_scope_id,
                )))
            }
            libc::AF_PACKET if len >= socklen::<libc::sockaddr_ll>() - 8 + 6 => {
                // SAFETY: as above; the kernel wrote the fixed fields and at least six
                // address bytes (checked length), and the storage beyond is zero-initialized.
                let a = unsafe { &*base.cast::<libc::sockaddr_ll>() };
                let mut mac = [0u8; 6];
                mac.copy_from_slice(&a.sll_addr[..6]);
                Self::Ether {
                    mac: MacAddr(mac),
                    pkttype: a.sll_pkttype,
                }
            }
            _ => Self::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn storage_of(r: &RawAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
        // SAFETY: an all-zero `sockaddr_storage` is valid.
        let mut ss: libc::sockaddr_storage = unsafe { core::mem::zeroed() };
        let (p, len) = r.as_ptr();
        // SAFETY: `p` points to `len` <= 32 initialized bytes of the union, and the storage
        // has 128 bytes; the regions do not overlap.
        unsafe {
            core::ptr::copy_nonoverlapping(
                p.cast::<u8>(),
                (&mut ss as *mut libc::sockaddr_storage).cast::<u8>(),
                len as usize,
            );
        }
        (ss, len)
    }

    #[test]
    fn inet_round_trip() {
        for a in ["127.0.0.1:6363", "[::1]:56363", "[fe80::1%3]:1"] {
            let a: SocketAddr = a.parse().unwrap();
            let (ss, len) = storage_of(&RawAddr::inet(a));
            assert_eq!(Peer::from_storage(&ss, len), Peer::Inet(a));
        }
    }

    #[test]
    fn ether_round_trip() {
        let mac = MacAddr([0x01, 0x00, 0x5e, 0x00, 0x17, 0xaa]);
        let (ss, len) = storage_of(&RawAddr::ether(3, mac, 0x8624));
        assert_eq!(
            Peer::from_storage(&ss, len),
            Peer::Ether { mac, pkttype: 0 }
        );
        assert_eq!(Peer::from_storage(&ss, 4), Peer::Unknown);
    }
}
