//! Creating listeners and faces: the control-plane half of the face table. These calls may
//! block briefly (`connect_tcp` waits for the handshake) and allocate; the data path does not.

use core::fmt;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpListener, TcpStream, UdpSocket};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::time::Duration;

use ndn_packet::{FaceId, LinkType};

use super::{FaceTable, NewFace};
use crate::info::Persistency;
use crate::sys::{self, packet_socket, RawAddr, ShmRings};
use crate::transport::stream::StreamSock;
use crate::transport::{DatagramEndpoint, Demux, Endpoint, Listener, ShmEndpoint, StreamEndpoint};
use crate::uri::{FaceUri, MacAddr};

/// Why a face or listener could not be made or changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaceError {
    /// A socket call failed.
    Io(io::ErrorKind),
    /// A face to this remote endpoint exists already (NFD answers 409 with it).
    Exists(FaceId),
    /// The table is full, or face ids ran out.
    TooManyFaces,
    /// No face has this id.
    NoSuchFace,
    /// Local fields asked for on a non-local face.
    NotLocal,
    /// An address this kind of face cannot use (for example an IPv6 multicast group).
    Unsupported,
}

impl fmt::Display for FaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(k) => write!(f, "socket error: {k}"),
            Self::Exists(id) => write!(f, "face {id} already has this remote endpoint"),
            Self::TooManyFaces => f.write_str("face table full"),
            Self::NoSuchFace => f.write_str("no such face"),
            Self::NotLocal => f.write_str("local fields need a local face"),
            Self::Unsupported => f.write_str("unsupported address for this face kind"),
        }
    }
}

impl std::error::Error for FaceError {}

impl From<io::Error> for FaceError {
    fn from(e: io::Error) -> Self {
        Self::Io(e.kind())
    }
}

/// Prepares a Unix listener at `path`: creates the directory, replaces a stale socket file
/// that nobody listens on, and makes the socket connectable by every local user (mode 0666)
/// as NFD does.
fn bind_unix(path: &Path) -> Result<UnixListener, FaceError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    if path.exists() {
        if UnixStream::connect(path).is_ok() {
            return Err(FaceError::Io(io::ErrorKind::AddrInUse));
        }
        std::fs::remove_file(path)?;
    }
    let l = UnixListener::bind(path)?;
    l.set_nonblocking(true)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))?;
    Ok(l)
}

/// Datagram slot size: the largest frame, rounded up to a cache line.
const fn slot_for(mtu: usize) -> usize {
    (mtu + 63) & !63
}

impl FaceTable {
    /// Creates a face for a command; on failure releases `slot` when it was reserved for it.
    fn new_face(&mut self, slot: usize, f: NewFace) -> Result<FaceId, FaceError> {
        let reserved = matches!(self.endpoints.get(slot), Some(None));
        self.faces.create(f, 0).ok_or_else(|| {
            if reserved {
                self.release_slot(slot);
            }
            FaceError::TooManyFaces
        })
    }

    /// Listens on a Unix stream socket at `path` (NFD's default: `/run/nfd/nfd.sock`),
    /// creating the directory, replacing a stale socket file that nobody listens on, and
    /// making the socket connectable by every local user (mode 0666) as NFD does.
    pub fn listen_unix(&mut self, path: impl AsRef<Path>) -> Result<FaceUri, FaceError> {
        let path = path.as_ref();
        let l = bind_unix(path)?;
        let uri = FaceUri::Unix(path.to_owned());
        self.add_endpoint(Endpoint::Listener(Listener::Unix(l, path.to_owned())))?;
        Ok(uri)
    }

    /// Listens for shared-memory faces on a Unix socket at `path` (prepared as by
    /// [`FaceTable::listen_unix`]): each connection is handed a sealed memory region with two
    /// rings of [`FaceTableConfig::shm_ring`](super::FaceTableConfig) bytes and becomes an
    /// on-demand face, up to [`FaceTableConfig::shm_faces`](super::FaceTableConfig) of them.
    pub fn listen_shm(&mut self, path: impl AsRef<Path>) -> Result<FaceUri, FaceError> {
        let path = path.as_ref();
        let ring = self.faces.cfg.shm_ring;
        if !ring.is_power_of_two() || !(sys::MIN_RING..=sys::MAX_RING).contains(&ring) {
            return Err(FaceError::Unsupported);
        }
        let l = bind_unix(path)?;
        let uri = FaceUri::Shm(path.to_owned());
        self.add_endpoint(Endpoint::Listener(Listener::Shm(l, path.to_owned())))?;
        Ok(uri)
    }

    /// Listens for TCP connections on `addr`; returns the bound address (port 0 picks one).
    pub fn listen_tcp(&mut self, addr: SocketAddr) -> Result<FaceUri, FaceError> {
        let l = TcpListener::bind(addr)?;
        l.set_nonblocking(true)?;
        let uri = FaceUri::Tcp(l.local_addr()?);
        self.add_endpoint(Endpoint::Listener(Listener::Tcp(l)))?;
        Ok(uri)
    }

    /// Accepts pending connections on listener `slot`, each becoming an on-demand face.
    pub(super) fn accept(&mut self, slot: usize, now: u64) {
        for _ in 0..16 {
            let Some(Some(Endpoint::Listener(l))) = self.endpoints.get(slot) else {
                return;
            };
            let shm = matches!(l, Listener::Shm(..));
            let (sock, remote, local) = match l.accept() {
                Ok(Some(a)) => a,
                Ok(None) => return,
                Err(_) => {
                    self.faces.stats.accept_errors += 1;
                    return;
                }
            };
            match sock {
                StreamSock::Unix(u) if shm => self.accept_shm(u, remote, local, now),
                sock => {
                    self.add_stream(sock, remote, local, Persistency::OnDemand, now);
                }
            }
        }
    }

    /// Hands a new shared-memory peer its memory and makes its face; a peer over the limit,
    /// or one whose socket fails, is closed and counted.
    fn accept_shm(&mut self, sock: UnixStream, remote: FaceUri, local: FaceUri, now: u64) {
        if self.shm.len() >= self.faces.cfg.shm_faces {
            self.faces.stats.faces_refused += 1;
            return;
        }
        let made = ShmRings::create(self.faces.cfg.shm_ring)
            .and_then(|(rings, fd)| sys::send_fd(sock.as_fd(), fd.as_fd()).map(|()| rings));
        match made {
            Ok(rings) => {
                self.add_shm(sock, rings, remote, local, Persistency::OnDemand, now);
            }
            Err(_) => self.faces.stats.accept_errors += 1,
        }
    }

    fn add_shm(
        &mut self,
        sock: UnixStream,
        rings: ShmRings,
        remote: FaceUri,
        local: FaceUri,
        persistency: Persistency,
        now: u64,
    ) -> Option<FaceId> {
        let (slot, id) = self.add_local(remote, local, persistency, now, |id| {
            Endpoint::Shm(ShmEndpoint::new(sock, rings, id))
        })?;
        self.shm.push(slot);
        Some(id)
    }

    /// Makes a point-to-point face on a new endpoint (`make` builds it for the face's id):
    /// a stream or shared-memory peer. Returns the endpoint's slot and the face.
    fn add_local(
        &mut self,
        remote: FaceUri,
        local: FaceUri,
        persistency: Persistency,
        now: u64,
        make: impl FnOnce(FaceId) -> Endpoint,
    ) -> Option<(usize, FaceId)> {
        let slot = self.reserve_slot();
        let nf = NewFace {
            endpoint: slot,
            remote,
            local,
            persistency,
            link_type: LinkType::PointToPoint,
            mtu: None,
            dest: None,
        };
        let Some(id) = self.faces.create(nf, now) else {
            self.release_slot(slot);
            return None;
        };
        self.install(slot, id, make(id)).ok()?;
        Some((slot, id))
    }

    /// Opens a shared-memory face to a forwarder listening at `path` (see
    /// [`FaceTable::listen_shm`]), waiting up to the configured connect timeout for its memory.
    pub fn connect_shm(
        &mut self,
        path: impl AsRef<Path>,
        persistency: Persistency,
    ) -> Result<FaceId, FaceError> {
        use std::os::fd::AsRawFd;
        let remote = FaceUri::Shm(path.as_ref().to_owned());
        if let Some(id) = self.find_remote(&remote) {
            return Err(FaceError::Exists(id));
        }
        let s = UnixStream::connect(path)?;
        s.set_read_timeout(Some(Duration::from_millis(
            self.faces.cfg.connect_timeout_ms.max(1),
        )))?;
        let fd = sys::recv_fd(s.as_fd())?;
        let rings = ShmRings::open(&fd)?;
        s.set_nonblocking(true)?;
        let local = FaceUri::Fd(s.as_raw_fd());
        self.add_shm(s, rings, remote, local, persistency, 0)
            .ok_or(FaceError::TooManyFaces)
    }

    fn add_stream(
        &mut self,
        sock: StreamSock,
        remote: FaceUri,
        local: FaceUri,
        persistency: Persistency,
        now: u64,
    ) -> Option<FaceId> {
        if let StreamSock::Unix(u) = &sock {
            // A Unix stream holds at most the sender's SO_SNDBUF in flight (208 KiB by default:
            // 26 Data of 8 KB); a larger burst would wait in the user-space backlog for an
            // EPOLLOUT wake-up. Best effort: the kernel caps the size at its maximum.
            let size = self.faces.cfg.socket_buffer;
            let _ = sys::set_buffer_sizes(u.as_fd(), size, size);
        }
        let make = |id| Endpoint::Stream(StreamEndpoint::new(sock, id, crate::MAX_FRAME_LEN));
        self.add_local(remote, local, persistency, now, make)
            .map(|(_, id)| id)
    }

    /// Opens a TCP face to `remote`, waiting up to the configured connect timeout.
    pub fn connect_tcp(
        &mut self,
        remote: SocketAddr,
        persistency: Persistency,
    ) -> Result<FaceId, FaceError> {
        if let Some(id) = self.find_remote(&FaceUri::Tcp(remote)) {
            return Err(FaceError::Exists(id));
        }
        let timeout = Duration::from_millis(self.faces.cfg.connect_timeout_ms);
        let s = TcpStream::connect_timeout(&remote, timeout)?;
        s.set_nodelay(true)?;
        s.set_nonblocking(true)?;
        let local = FaceUri::Tcp(s.local_addr()?);
        self.add_stream(
            StreamSock::Tcp(s),
            FaceUri::Tcp(remote),
            local,
            persistency,
            0,
        )
        .ok_or(FaceError::TooManyFaces)
    }

    /// Opens a Unix stream face to a forwarder listening at `path` (what an app or a tool
    /// such as `ndnfwd gen` does).
    pub fn connect_unix(
        &mut self,
        path: impl AsRef<Path>,
        persistency: Persistency,
    ) -> Result<FaceId, FaceError> {
        use std::os::fd::AsRawFd;
        let remote = FaceUri::Unix(path.as_ref().to_owned());
        if let Some(id) = self.find_remote(&remote) {
            return Err(FaceError::Exists(id));
        }
        let s = UnixStream::connect(path)?;
        s.set_nonblocking(true)?;
        let local = FaceUri::Fd(s.as_raw_fd());
        self.add_stream(StreamSock::Unix(s), remote, local, persistency, 0)
            .ok_or(FaceError::TooManyFaces)
    }

    fn udp_endpoint(
        &mut self,
        sock: UdpSocket,
        tx: Option<UdpSocket>,
        demux: Demux,
    ) -> DatagramEndpoint {
        let cfg = self.faces.cfg;
        let slot = slot_for(cfg.udp_mtu.max(crate::MAX_FRAME_LEN));
        let tx = tx.map(OwnedFd::from);
        DatagramEndpoint::new(OwnedFd::from(sock), tx, demux, slot, cfg.batch)
    }

    /// A UDP socket bound to `addr` with the configured buffer sizes.
    fn bind_udp(&self, addr: SocketAddr, reuse: bool) -> Result<UdpSocket, FaceError> {
        use std::os::fd::AsFd;
        let sock = sys::udp_socket(addr, reuse)?;
        let size = self.faces.cfg.socket_buffer;
        sys::set_buffer_sizes(sock.as_fd(), size, size)?;
        Ok(sock)
    }

    /// Listens for UDP on `addr`: a datagram from a new peer creates an on-demand face.
    /// Returns the bound address.
    pub fn listen_udp(&mut self, addr: SocketAddr) -> Result<FaceUri, FaceError> {
        let sock = self.bind_udp(addr, false)?;
        let local = sock.local_addr()?;
        let demux = Demux::Channel {
            peers: Default::default(),
            accept: true,
            local,
        };
        let ep = self.udp_endpoint(sock, None, demux);
        self.add_endpoint(Endpoint::Datagram(ep))?;
        Ok(FaceUri::Udp(local))
    }

    /// Opens a UDP unicast face to `remote`, sent from the listener of the same address family
    /// when there is one (so the peer sees the well-known port), else from a socket of its own.
    pub fn connect_udp(
        &mut self,
        remote: SocketAddr,
        persistency: Persistency,
    ) -> Result<FaceId, FaceError> {
        if let Some(id) = self.find_remote(&FaceUri::Udp(remote)) {
            return Err(FaceError::Exists(id));
        }
        let same_family = |l: &SocketAddr| l.is_ipv4() == remote.is_ipv4();
        let found = self
            .endpoints
            .iter()
            .enumerate()
            .find_map(|(i, e)| match e {
                Some(Endpoint::Datagram(d)) => match &d.demux {
                    Demux::Channel { local, .. } if same_family(local) => Some((i, *local)),
                    _ => None,
                },
                _ => None,
            });
        let (slot, local) = match found {
            Some(f) => f,
            None => {
                let any: SocketAddr = if remote.is_ipv4() {
                    (Ipv4Addr::UNSPECIFIED, 0).into()
                } else {
                    (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
                };
                let sock = self.bind_udp(any, false)?;
                let local = sock.local_addr()?;
                let demux = Demux::Channel {
                    peers: Default::default(),
                    accept: false,
                    local,
                };
                let ep = self.udp_endpoint(sock, None, demux);
                (self.add_endpoint(Endpoint::Datagram(ep))?, local)
            }
        };
        let id = self.new_face(
            slot,
            NewFace {
                endpoint: slot,
                remote: FaceUri::Udp(remote),
                local: FaceUri::Udp(local),
                persistency,
                link_type: LinkType::PointToPoint,
                mtu: Some(self.faces.cfg.udp_mtu),
                dest: Some(RawAddr::inet(remote)),
            },
        )?;
        if let Some(Some(Endpoint::Datagram(d))) = self.endpoints.get_mut(slot) {
            if let Demux::Channel { peers, .. } = &mut d.demux {
                peers.insert(remote, id);
            }
        }
        Ok(id)
    }

    /// Opens a permanent multi-access face on UDP multicast `group` (NFD's default:
    /// 224.0.23.170:56363) through the interface that has address `iface`.
    pub fn add_udp_multicast(
        &mut self,
        group: SocketAddr,
        iface: Ipv4Addr,
    ) -> Result<FaceId, FaceError> {
        let SocketAddr::V4(g) = group else {
            return Err(FaceError::Unsupported);
        };
        if !g.ip().is_multicast() {
            return Err(FaceError::Unsupported);
        }
        let rx = self.bind_udp(SocketAddr::V4(g), true)?;
        rx.join_multicast_v4(g.ip(), &iface)?;
        let tx = self.bind_udp(SocketAddr::V4(SocketAddrV4::new(iface, 0)), false)?;
        sys::set_multicast_if_v4(&tx, iface)?;
        tx.set_multicast_loop_v4(self.faces.cfg.multicast_loop)?;
        rx.set_multicast_loop_v4(self.faces.cfg.multicast_loop)?;
        let own = tx.local_addr()?;
        let slot = self.reserve_slot();
        let id = self.new_face(
            slot,
            NewFace {
                endpoint: slot,
                remote: FaceUri::Udp(group),
                local: FaceUri::Udp(own),
                persistency: Persistency::Permanent,
                link_type: LinkType::MultiAccess,
                mtu: Some(self.faces.cfg.udp_mtu),
                dest: Some(RawAddr::inet(group)),
            },
        )?;
        let ep = self.udp_endpoint(rx, Some(tx), Demux::Multicast { face: id, own });
        self.install(slot, id, Endpoint::Datagram(ep))?;
        Ok(id)
    }

    /// Opens an Ethernet face on interface `ifname` (EtherType 0x8624) to `remote`: NDN's
    /// multicast group [`MacAddr::NDN_MULTICAST`] (a multi-access face) or one peer. Needs
    /// `CAP_NET_RAW`. The MTU is the interface's.
    pub fn add_ether(
        &mut self,
        ifname: &str,
        remote: MacAddr,
        persistency: Persistency,
    ) -> Result<FaceId, FaceError> {
        let group = remote.is_multicast().then_some(remote);
        let (fd, link) = packet_socket(ifname, crate::ETHERTYPE_NDN, group)?;
        let local = FaceUri::Dev(ifname.to_owned());
        if let Some(id) = self
            .faces()
            .find(|i| i.remote == FaceUri::Ether(remote) && i.local == local)
        {
            return Err(FaceError::Exists(id.id));
        }
        let slot = self.reserve_slot();
        let link_type = if remote.is_multicast() {
            LinkType::MultiAccess
        } else {
            LinkType::PointToPoint
        };
        let id = self.new_face(
            slot,
            NewFace {
                endpoint: slot,
                remote: FaceUri::Ether(remote),
                local,
                persistency,
                link_type,
                mtu: Some(link.mtu),
                dest: Some(RawAddr::ether(link.ifindex, remote, crate::ETHERTYPE_NDN)),
            },
        )?;
        let ep = DatagramEndpoint::new(
            fd,
            None,
            Demux::Ether { face: id, remote },
            slot_for(link.mtu.max(64)),
            self.faces.cfg.batch,
        );
        self.install(slot, id, Endpoint::Datagram(ep))?;
        Ok(id)
    }
}
