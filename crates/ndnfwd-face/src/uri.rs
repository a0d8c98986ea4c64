//! Face URIs as NFD spells them (`unix:///run/nfd/nfd.sock`, `fd://12`, `tcp4://127.0.0.1:6363`,
//! `udp6://[::1]:6363`, `dev://eth0`, `ether://[01:00:5e:00:17:aa]`), ndnfwd's shared-memory
//! faces (`shm:///run/nfd/nfd-shm.sock`), and Ethernet addresses.
//!
//! Only literal addresses are accepted: name resolution belongs to the management plane, not
//! here. A missing port means NDN's default, 6363, as NFD's canonization does.

use core::fmt;
use core::str::FromStr;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

/// NDN's default TCP and UDP port.
pub const DEFAULT_PORT: u16 = 6363;

/// A 48-bit Ethernet address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    /// NDN's Ethernet multicast group, 01:00:5e:00:17:aa.
    pub const NDN_MULTICAST: MacAddr = MacAddr([0x01, 0x00, 0x5e, 0x00, 0x17, 0xaa]);

    /// True for a group (multicast or broadcast) address.
    pub const fn is_multicast(&self) -> bool {
        self.0[0] & 1 == 1
    }
}

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e, g] = self.0;
        write!(f, "{a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{g:02x}")
    }
}

impl FromStr for MacAddr {
    type Err = UriError;

    /// Six hexadecimal octets separated by `:` or `-`.
    fn from_str(s: &str) -> Result<Self, UriError> {
        let mut out = [0u8; 6];
        let mut parts = s.split([':', '-']);
        for o in &mut out {
            let p = parts.next().ok_or(UriError::Address)?;
            if p.len() != 2 {
                return Err(UriError::Address);
            }
            *o = u8::from_str_radix(p, 16).map_err(|_| UriError::Address)?;
        }
        if parts.next().is_some() {
            return Err(UriError::Address);
        }
        Ok(Self(out))
    }
}

/// Why a face URI did not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UriError {
    /// No `scheme://`, or a scheme this forwarder does not know.
    Scheme,
    /// The part after the scheme is not a literal address of the scheme's kind.
    Address,
}

impl fmt::Display for UriError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Scheme => "unknown face URI scheme",
            Self::Address => "bad address in face URI",
        })
    }
}

impl std::error::Error for UriError {}

/// The local or remote end of a face.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FaceUri {
    /// A Unix stream socket path: `unix:///run/nfd/nfd.sock`.
    Unix(PathBuf),
    /// The remote end of an accepted Unix stream: `fd://<descriptor>`.
    Fd(i32),
    /// A TCP endpoint: `tcp4://` or `tcp6://`.
    Tcp(SocketAddr),
    /// A UDP endpoint (unicast or multicast group): `udp4://` or `udp6://`.
    Udp(SocketAddr),
    /// A network interface: `dev://eth0`.
    Dev(String),
    /// An Ethernet address: `ether://[01:00:5e:00:17:aa]`.
    Ether(MacAddr),
    /// The Unix socket of a shared-memory face listener: `shm:///run/nfd/nfd-shm.sock`
    /// (ndnfwd's own; see the crate README).
    Shm(PathBuf),
}

impl FaceUri {
    /// True when the endpoint is on this host: Unix sockets and loopback addresses. NFD gives
    /// such faces local scope.
    pub fn is_local(&self) -> bool {
        match self {
            Self::Unix(_) | Self::Fd(_) | Self::Shm(_) => true,
            Self::Tcp(a) | Self::Udp(a) => a.ip().is_loopback(),
            Self::Dev(_) | Self::Ether(_) => false,
        }
    }
}

fn family(a: &SocketAddr) -> char {
    if a.is_ipv4() {
        '4'
    } else {
        '6'
    }
}

impl fmt::Display for FaceUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unix(p) => write!(f, "unix://{}", p.display()),
            Self::Fd(n) => write!(f, "fd://{n}"),
            Self::Tcp(a) => write!(f, "tcp{}://{a}", family(a)),
            Self::Udp(a) => write!(f, "udp{}://{a}", family(a)),
            Self::Dev(d) => write!(f, "dev://{d}"),
            Self::Ether(m) => write!(f, "ether://[{m}]"),
            Self::Shm(p) => write!(f, "shm://{}", p.display()),
        }
    }
}

/// `host[:port]` with `host` an IP literal (IPv6 in brackets); `want` is the family the
/// scheme demands (`None` for plain `tcp`/`udp`).
fn socket_addr(s: &str, want: Option<char>) -> Result<SocketAddr, UriError> {
    let s = s.strip_suffix('/').unwrap_or(s);
    let addr = match s.parse::<SocketAddr>() {
        Ok(a) => a,
        Err(_) => {
            let host = s
                .strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .unwrap_or(s);
            let ip = host.parse::<IpAddr>().map_err(|_| UriError::Address)?;
            SocketAddr::new(ip, DEFAULT_PORT)
        }
    };
    match want {
        Some(c) if c != family(&addr) => Err(UriError::Address),
        _ => Ok(addr),
    }
}

impl FromStr for FaceUri {
    type Err = UriError;

    fn from_str(s: &str) -> Result<Self, UriError> {
        let (scheme, rest) = s.split_once("://").ok_or(UriError::Scheme)?;
        let ip = |c| socket_addr(rest, c);
        Ok(match scheme {
            "unix" if rest.starts_with('/') => Self::Unix(PathBuf::from(rest)),
            "unix" => return Err(UriError::Address),
            "shm" if rest.starts_with('/') => Self::Shm(PathBuf::from(rest)),
            "shm" => return Err(UriError::Address),
            "fd" => Self::Fd(rest.parse().map_err(|_| UriError::Address)?),
            "tcp" => Self::Tcp(ip(None)?),
            "tcp4" => Self::Tcp(ip(Some('4'))?),
            "tcp6" => Self::Tcp(ip(Some('6'))?),
            "udp" => Self::Udp(ip(None)?),
            "udp4" => Self::Udp(ip(Some('4'))?),
            "udp6" => Self::Udp(ip(Some('6'))?),
            "dev" if !rest.is_empty() && !rest.contains('/') => Self::Dev(rest.to_owned()),
            "dev" => return Err(UriError::Address),
            "ether" => {
                let mac = rest.strip_prefix('[').and_then(|m| m.strip_suffix(']'));
                Self::Ether(mac.ok_or(UriError::Address)?.parse()?)
            }
            _ => return Err(UriError::Scheme),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms_round_trip() {
        for s in [
            "unix:///run/nfd/nfd.sock",
            "shm:///run/nfd/nfd-shm.sock",
            "fd://12",
            "tcp4://127.0.0.1:6363",
            "tcp6://[::1]:6363",
            "udp4://224.0.23.170:56363",
            "udp6://[fe80::1]:6363",
            "dev://eth0",
            "ether://[01:00:5e:00:17:aa]",
        ] {
            let u: FaceUri = s.parse().unwrap();
            assert_eq!(u.to_string(), s);
        }
    }

    #[test]
    fn canonicalizes_and_rejects() {
        let u: FaceUri = "udp://10.0.0.1".parse().unwrap();
        assert_eq!(u.to_string(), "udp4://10.0.0.1:6363");
        let u: FaceUri = "tcp6://[::1]".parse().unwrap();
        assert_eq!(u.to_string(), "tcp6://[::1]:6363");
        assert_eq!("tcp4://[::1]:1".parse::<FaceUri>(), Err(UriError::Address));
        assert_eq!(
            "udp4://example.net:6363".parse::<FaceUri>(),
            Err(UriError::Address)
        );
        assert_eq!("http://x".parse::<FaceUri>(), Err(UriError::Scheme));
        assert_eq!("eth0".parse::<FaceUri>(), Err(UriError::Scheme));
        assert_eq!("unix://relative".parse::<FaceUri>(), Err(UriError::Address));
        assert_eq!("shm://relative".parse::<FaceUri>(), Err(UriError::Address));
        assert_eq!(
            "ether://01:00:5e:00:17:aa".parse::<FaceUri>(),
            Err(UriError::Address)
        );
        assert_eq!(
            "ether://[01:00:5e:00:17]".parse::<FaceUri>(),
            Err(UriError::Address)
        );
        assert_eq!(
            "ether://[01:00:5e:00:17:aa:bb]".parse::<FaceUri>(),
            Err(UriError::Address)
        );
        assert_eq!("fd://x".parse::<FaceUri>(), Err(UriError::Address));
    }

    #[test]
    fn scope_and_multicast() {
        assert!(FaceUri::Unix("/x".into()).is_local());
        assert!(FaceUri::Shm("/x".into()).is_local());
        assert!("tcp4://127.0.0.1:1".parse::<FaceUri>().unwrap().is_local());
        assert!("udp6://[::1]:1".parse::<FaceUri>().unwrap().is_local());
        assert!(!"udp4://10.1.2.3:1".parse::<FaceUri>().unwrap().is_local());
        assert!(MacAddr::NDN_MULTICAST.is_multicast());
        assert!(!"02-00-00-00-00-01"
            .parse::<MacAddr>()
            .unwrap()
            .is_multicast());
    }
}
