//! The face table of one I/O thread: faces and the sockets behind them, id allocation,
//! lookup, events, and the busy-polling data path (`recv_burst`, `send_burst`, `tick`).
//!
//! Threading: a `FaceTable` is `Send` and is owned by exactly one I/O thread, which does
//! both receive and send for its faces. A forwarder with several I/O threads gives each its
//! own table and one shared [`FaceIdAllocator`], so ids stay unique; packets for a face are
//! routed to the thread whose table holds it (the data plane learns that from the
//! [`FaceEvent`]s). Counters are shared (`Arc<FaceCounters>`) so management can read them
//! from any thread.

mod open;
mod rx;

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use ndn_packet::link::{FaceScope, LinkType, RxPacket};
use ndn_packet::FaceId;

use crate::counters::FaceCounters;
use crate::info::{DownReason, FaceEvent, FaceIdAllocator, FaceInfo, Persistency};
use crate::link::reassembly::ReassemblyLimits;
use crate::link::{Frame, LinkConfig, LinkService};
use crate::sys::{Poller, RawAddr, SendBatch};
use crate::transport::{Demux, Endpoint, Queued, ShmSink, Status};
use crate::uri::FaceUri;
use crate::TxItem;

pub use open::FaceError;

/// Settings of a face table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaceTableConfig {
    /// Datagrams per `recvmmsg` call.
    pub batch: usize,
    /// MTU of UDP faces: larger packets are fragmented. The default, [`crate::MAX_FRAME_LEN`],
    /// fragments nothing a forwarder normally sends; use 1452 or so across the Internet.
    pub udp_mtu: usize,
    /// Nanoseconds without a received packet after which an on-demand UDP face is closed
    /// (NFD: 600 s).
    pub idle_timeout: u64,
    /// Faces this table holds at most; listeners refuse new peers beyond it.
    pub max_faces: usize,
    /// Bytes a stream face may hold back when the peer reads slowly.
    pub stream_backlog: usize,
    /// Kernel socket buffer size requested for UDP and Unix stream sockets.
    pub socket_buffer: usize,
    /// Whether this host's other processes hear our UDP multicast (tests on one host).
    pub multicast_loop: bool,
    /// Milliseconds `connect_tcp` waits for the handshake.
    pub connect_timeout_ms: u64,
    /// Reassembly bounds of every face.
    pub reassembly: ReassemblyLimits,
    /// Bytes of each ring of a shared-memory face (a power of two, 64 KiB to 1 GiB); a face
    /// maps two.
    pub shm_ring: usize,
    /// Shared-memory faces a listener accepts at most (their memory is the forwarder's).
    pub shm_faces: usize,
}

impl Default for FaceTableConfig {
    fn default() -> Self {
        Self {
            batch: 64,
            udp_mtu: crate::MAX_FRAME_LEN,
            idle_timeout: 600_000_000_000,
            max_faces: 4096,
            stream_backlog: 4 << 20,
            socket_buffer: 4 << 20,
            multicast_loop: false,
            connect_timeout_ms: 3000,
            reassembly: ReassemblyLimits::default(),
            shm_ring: 2 << 20,
            shm_faces: 64,
        }
    }
}

/// Table-wide counters (things that belong to no face).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TableStats {
    /// Packets handed to `send_burst` for a face this table does not hold.
    pub tx_unknown_face: u64,
    /// Datagrams from an unknown peer on a socket that makes no on-demand faces.
    pub rx_unknown_peer: u64,
    /// Peers refused because the table was full or face ids ran out.
    pub faces_refused: u64,
    /// `accept` failures (other than "nothing to accept").
    pub accept_errors: u64,
}

/// One face's state.
#[derive(Debug)]
pub(crate) struct FaceState {
    info: FaceInfo,
    counters: Arc<FaceCounters>,
    link: LinkService,
    endpoint: usize,
    dest: Option<RawAddr>,
    last_rx: u64,
}

/// Everything but the sockets, so transport code can borrow both.
#[derive(Debug)]
pub(crate) struct Faces {
    map: HashMap<FaceId, FaceState>,
    ids: FaceIdAllocator,
    events: Vec<FaceEvent>,
    cfg: FaceTableConfig,
    pub(crate) stats: TableStats,
    seq: u64,
}

/// What a new face looks like.
struct NewFace {
    endpoint: usize,
    remote: FaceUri,
    local: FaceUri,
    persistency: Persistency,
    link_type: LinkType,
    mtu: Option<usize>,
    dest: Option<RawAddr>,
}

impl Faces {
    /// A fresh random-looking first Sequence number per face (splitmix64 over a random seed).
    fn next_seq(&mut self) -> u64 {
        self.seq = self.seq.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.seq;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn create(&mut self, f: NewFace, now: u64) -> Option<FaceId> {
        let id = (self.map.len() < self.cfg.max_faces)
            .then(|| self.ids.next())
            .flatten();
        let Some(id) = id else {
            self.stats.faces_refused += 1;
            return None;
        };
        let scope = if f.remote.is_local() {
            FaceScope::Local
        } else {
            FaceScope::NonLocal
        };
        let link_cfg = LinkConfig {
            mtu: f.mtu,
            local_fields: false,
            reassembly: self.cfg.reassembly,
        };
        let link = LinkService::new(link_cfg, self.next_seq());
        let info = FaceInfo {
            id,
            remote: f.remote,
            local: f.local,
            scope,
            persistency: f.persistency,
            link_type: f.link_type,
            mtu: f.mtu,
            local_fields: false,
        };
        let state = FaceState {
            info,
            counters: Arc::default(),
            link,
            endpoint: f.endpoint,
            dest: f.dest,
            last_rx: now,
        };
        self.map.insert(id, state);
        self.events.push(FaceEvent::Added(id));
        Some(id)
    }

    /// An on-demand face for a new UDP peer on socket `endpoint`.
    pub(crate) fn create_udp_on_demand(
        &mut self,
        endpoint: usize,
        peer: SocketAddr,
        local: SocketAddr,
        now: u64,
    ) -> Option<FaceId> {
        let nf = NewFace {
            endpoint,
            remote: FaceUri::Udp(peer),
            local: FaceUri::Udp(local),
            persistency: Persistency::OnDemand,
            link_type: LinkType::PointToPoint,
            mtu: Some(self.cfg.udp_mtu),
            dest: Some(RawAddr::inet(peer)),
        };
        self.create(nf, now)
    }

    /// Counters of a face.
    pub(crate) fn counters(&self, id: FaceId) -> Option<&FaceCounters> {
        self.map.get(&id).map(|f| &*f.counters)
    }

    /// The receive side of face `id`, looked up once for a run of frames from one socket.
    pub(crate) fn receiver(&mut self, id: FaceId) -> Option<Receiver<'_>> {
        self.map.get_mut(&id).map(|face| Receiver { id, face })
    }

    /// Decodes a received frame on face `id` and appends the packet, if whole, to `out`.
    pub(crate) fn deliver(
        &mut self,
        now: u64,
        id: FaceId,
        peer: u64,
        frame: Bytes,
        out: &mut Vec<RxPacket>,
    ) {
        if let Some(mut rx) = self.receiver(id) {
            rx.deliver(now, peer, frame, out);
        }
    }
}

/// One face's receive side (see [`Faces::receiver`]).
pub(crate) struct Receiver<'a> {
    id: FaceId,
    face: &'a mut FaceState,
}

impl Receiver<'_> {
    /// Decodes a received frame and appends the packet, if whole, to `out`.
    pub(crate) fn deliver(&mut self, now: u64, peer: u64, frame: Bytes, out: &mut Vec<RxPacket>) {
        let f = &mut *self.face;
        f.last_rx = now;
        f.link
            .decode_into(now, self.id, peer, frame, &f.counters, out);
    }

    /// The face's counters.
    pub(crate) fn counters(&self) -> &FaceCounters {
        &self.face.counters
    }
}

/// The faces of one I/O thread (see the module doc).
#[derive(Debug)]
pub struct FaceTable {
    faces: Faces,
    endpoints: Vec<Option<Endpoint>>,
    free_slots: Vec<usize>,
    poller: Poller,
    ready: Vec<u64>,
    ready_valid: bool,
    rx_backlog: Vec<usize>,
    /// Slots of shared-memory faces, whose rings every `recv_burst` looks at.
    shm: Vec<usize>,
    /// Whether the last `recv_burst` took packets from a ring, and how many calls since then
    /// skipped the epoll check (see [`SKIP_EPOLL`]).
    shm_busy: bool,
    epoll_skipped: u32,
    heads: Vec<u8>,
    frames: Vec<Frame>,
    touched: Vec<usize>,
    send: SendBatch,
    rr: usize,
}

impl FaceTable {
    /// An empty table drawing face ids from `ids`.
    pub fn new(ids: FaceIdAllocator, cfg: FaceTableConfig) -> io::Result<Self> {
        let mut seed = [0u8; 8];
        getrandom::getrandom(&mut seed).map_err(|_| io::Error::other("no OS randomness"))?;
        Ok(Self {
            faces: Faces {
                map: HashMap::new(),
                ids,
                events: Vec::new(),
                cfg,
                stats: TableStats::default(),
                seq: u64::from_ne_bytes(seed),
            },
            endpoints: Vec::new(),
            free_slots: Vec::new(),
            poller: Poller::new()?,
            ready: Vec::new(),
            ready_valid: false,
            rx_backlog: Vec::new(),
            shm: Vec::new(),
            shm_busy: false,
            epoll_skipped: 0,
            heads: Vec::new(),
            frames: Vec::new(),
            touched: Vec::new(),
            send: SendBatch::default(),
            rr: 0,
        })
    }

    /// The settings.
    pub fn config(&self) -> &FaceTableConfig {
        &self.faces.cfg
    }

    /// Number of faces.
    pub fn len(&self) -> usize {
        self.faces.map.len()
    }

    /// True when there is no face.
    pub fn is_empty(&self) -> bool {
        self.faces.map.is_empty()
    }

    /// Description of a face.
    pub fn info(&self, id: FaceId) -> Option<&FaceInfo> {
        self.faces.map.get(&id).map(|f| &f.info)
    }

    /// Live counters of a face, readable from any thread.
    pub fn counters(&self, id: FaceId) -> Option<Arc<FaceCounters>> {
        self.faces.map.get(&id).map(|f| Arc::clone(&f.counters))
    }

    /// Every face, in no particular order.
    pub fn faces(&self) -> impl Iterator<Item = &FaceInfo> + '_ {
        self.faces.map.values().map(|f| &f.info)
    }

    /// The face whose remote endpoint is `remote`.
    pub fn find_remote(&self, remote: &FaceUri) -> Option<FaceId> {
        self.faces().find(|i| &i.remote == remote).map(|i| i.id)
    }

    /// Local URIs of the listeners (NFD's channels).
    pub fn channels(&self) -> Vec<FaceUri> {
        self.endpoints
            .iter()
            .flatten()
            .filter_map(|e| match e {
                Endpoint::Listener(l) => l.uri(),
                Endpoint::Datagram(d) => match &d.demux {
                    Demux::Channel {
                        accept: true,
                        local,
                        ..
                    } => Some(FaceUri::Udp(*local)),
                    _ => None,
                },
                Endpoint::Stream(_) | Endpoint::Shm(_) => None,
            })
            .collect()
    }

    /// Table-wide counters.
    pub fn stats(&self) -> TableStats {
        self.faces.stats
    }

    /// Takes the events that happened since the last call.
    pub fn drain_events(&mut self) -> std::vec::Drain<'_, FaceEvent> {
        self.faces.events.drain(..)
    }

    /// Enables or disables NDNLPv2 local fields; only local faces may enable them.
    pub fn set_local_fields(&mut self, id: FaceId, on: bool) -> Result<(), FaceError> {
        let f = self.faces.map.get_mut(&id).ok_or(FaceError::NoSuchFace)?;
        if on && f.info.scope != FaceScope::Local {
            return Err(FaceError::NotLocal);
        }
        f.info.local_fields = on;
        f.link.set_local_fields(on);
        Ok(())
    }

    /// Changes a face's persistency (for example when a command adopts an on-demand face).
    pub fn set_persistency(&mut self, id: FaceId, p: Persistency) -> Result<(), FaceError> {
        let f = self.faces.map.get_mut(&id).ok_or(FaceError::NoSuchFace)?;
        f.info.persistency = p;
        Ok(())
    }

    /// Closes a face; a [`FaceEvent::Removed`] follows. False if there was no such face.
    pub fn remove(&mut self, id: FaceId) -> bool {
        self.close_face(id, DownReason::Removed)
    }

    /// Takes an empty endpoint slot (so a face can name it before its socket is installed).
    fn reserve_slot(&mut self) -> usize {
        self.free_slots.pop().unwrap_or_else(|| {
            self.endpoints.push(None);
            self.endpoints.len() - 1
        })
    }

    fn release_slot(&mut self, slot: usize) {
        if matches!(self.endpoints.get(slot), Some(None)) {
            self.free_slots.push(slot);
        }
    }

    /// Registers `ep` in reserved `slot`; on failure removes face `face` made for it.
    fn install(&mut self, slot: usize, face: FaceId, ep: Endpoint) -> io::Result<()> {
        if let Err(e) = self.poller.add(ep.fd(), slot as u64) {
            self.faces.map.remove(&face);
            self.faces.events.retain(|ev| *ev != FaceEvent::Added(face));
            self.release_slot(slot);
            return Err(e);
        }
        if let Some(s) = self.endpoints.get_mut(slot) {
            *s = Some(ep);
        }
        Ok(())
    }

    /// Registers an endpoint that no face names yet (a listener, a shared UDP socket).
    fn add_endpoint(&mut self, ep: Endpoint) -> io::Result<usize> {
        let slot = self.reserve_slot();
        if let Err(e) = self.poller.add(ep.fd(), slot as u64) {
            self.release_slot(slot);
            return Err(e);
        }
        if let Some(s) = self.endpoints.get_mut(slot) {
            *s = Some(ep);
        }
        Ok(slot)
    }

    fn remove_endpoint(&mut self, slot: usize) {
        if let Some(ep) = self.endpoints.get_mut(slot).and_then(Option::take) {
            if matches!(ep, Endpoint::Shm(_)) {
                self.shm.retain(|&s| s != slot);
            }
            // Closing the socket removes it from epoll anyway; this just keeps it tidy.
            let _ = self.poller.remove(ep.fd());
            self.free_slots.push(slot);
        }
    }

    /// Removes a face and, unless it shares its socket, the socket.
    fn close_face(&mut self, id: FaceId, reason: DownReason) -> bool {
        let Some(f) = self.faces.map.remove(&id) else {
            return false;
        };
        self.faces.events.push(FaceEvent::Removed(id, reason));
        match self.endpoints.get_mut(f.endpoint).and_then(Option::as_mut) {
            Some(Endpoint::Datagram(d)) => {
                if let (Demux::Channel { peers, .. }, FaceUri::Udp(a)) =
                    (&mut d.demux, &f.info.remote)
                {
                    peers.remove(a);
                    return true;
                }
            }
            Some(_) => {}
            None => return true,
        }
        self.remove_endpoint(f.endpoint);
        true
    }

    /// Closes a socket and every face on it.
    fn close_endpoint(&mut self, slot: usize, reason: DownReason) {
        let ids: Vec<FaceId> = match self.endpoints.get(slot).and_then(Option::as_ref) {
            Some(Endpoint::Stream(s)) => vec![s.face],
            Some(Endpoint::Shm(s)) => vec![s.face],
            Some(Endpoint::Datagram(d)) => match &d.demux {
                Demux::Channel { peers, .. } => peers.values().copied().collect(),
                Demux::Multicast { face, .. } | Demux::Ether { face, .. } => vec![*face],
            },
            _ => Vec::new(),
        };
        for id in ids {
            if let Some(f) = self.faces.map.remove(&id) {
                debug_assert_eq!(f.endpoint, slot);
                self.faces.events.push(FaceEvent::Removed(id, reason));
            }
        }
        self.remove_endpoint(slot);
    }

    /// Encodes and sends a burst; packets for unknown faces, invalid packets and packets the
    /// socket refuses are dropped and counted. Returns how many packets were encoded. Packets
    /// passed by `&mut` or by value give their buffers to the frames (see [`TxItem`]); borrowed
    /// ones are cloned.
    pub fn send_burst<I>(&mut self, pkts: I) -> usize
    where
        I: IntoIterator,
        I::Item: TxItem,
    {
        let mut accepted = 0;
        // Bursts come in runs for one face: look the face up once per run.
        let mut cur: Option<&mut FaceState> = None;
        let mut scratch = None;
        for p in pkts {
            let p = p.packet(&mut scratch);
            let face = p.face;
            if cur.as_ref().is_none_or(|f| f.info.id != face) {
                cur = self.faces.map.get_mut(&face);
            }
            let Some(f) = cur.as_deref_mut() else {
                self.faces.stats.tx_unknown_face += 1;
                continue;
            };
            let ep = match self.endpoints.get_mut(f.endpoint).and_then(Option::as_mut) {
                // A shared-memory face writes each frame into its ring as it is encoded: no
                // frame list, no queue to fill and drain.
                Some(Endpoint::Shm(s)) => {
                    let mut sink = ShmSink::new(s, &f.counters);
                    if f.link.encode(p, &mut self.heads, &mut sink, &f.counters) {
                        accepted += 1;
                    }
                    if sink.first {
                        self.touched.push(f.endpoint);
                    }
                    continue;
                }
                ep => ep,
            };
            self.frames.clear();
            if !f
                .link
                .encode(p, &mut self.heads, &mut self.frames, &f.counters)
            {
                continue;
            }
            accepted += 1;
            let Some(ep) = ep else {
                continue;
            };
            let Some(q) = ep.queue() else {
                continue;
            };
            if q.is_empty() {
                self.touched.push(f.endpoint);
            }
            let queued = |frame| Queued {
                face,
                frame,
                dest: f.dest,
            };
            // Nearly every packet is one frame: move it without a drain.
            if self.frames.len() == 1 {
                q.extend(self.frames.pop().map(queued));
            } else {
                q.extend(self.frames.drain(..).map(queued));
            }
        }
        let touched = core::mem::take(&mut self.touched);
        for &slot in &touched {
            self.flush_endpoint(slot);
        }
        self.touched = touched;
        self.touched.clear();
        self.heads.clear();
        accepted
    }

    fn flush_endpoint(&mut self, slot: usize) {
        let status = match self.endpoints.get_mut(slot).and_then(Option::as_mut) {
            Some(Endpoint::Datagram(d)) => {
                d.flush(&self.heads, &mut self.send, &self.faces);
                Status::Open
            }
            Some(Endpoint::Stream(s)) => {
                let counters = self.faces.map.get(&s.face).map(|f| &*f.counters);
                s.flush(&self.heads, counters, self.faces.cfg.stream_backlog)
            }
            Some(Endpoint::Shm(s)) => s.flush(),
            _ => Status::Open,
        };
        match status {
            Status::Down(reason) => self.close_endpoint(slot, reason),
            Status::Open => self.watch_output(slot),
        }
    }

    /// Housekeeping, to call every few milliseconds: expires reassembly buffers, closes
    /// on-demand UDP faces idle for longer than the idle timeout, and retries stream
    /// backlogs.
    pub fn tick(&mut self, now: u64) {
        let timeout = self.faces.cfg.idle_timeout;
        let mut idle = Vec::new();
        for (id, f) in &mut self.faces.map {
            f.link.expire(now, &f.counters);
            let datagram = matches!(f.info.remote, FaceUri::Udp(_));
            if datagram
                && f.info.persistency == Persistency::OnDemand
                && now.saturating_sub(f.last_rx) >= timeout
            {
                idle.push(*id);
            }
        }
        for id in idle {
            self.close_face(id, DownReason::Idle);
        }
        let mut pending = Vec::new();
        for (slot, ep) in self.endpoints.iter_mut().enumerate() {
            if let Some(Endpoint::Stream(s)) = ep {
                if s.backlog_bytes() > 0 {
                    pending.push((slot, s.write_backlog()));
                }
            }
        }
        for (slot, status) in pending {
            match status {
                Status::Down(r) => self.close_endpoint(slot, r),
                Status::Open => self.watch_output(slot),
            }
        }
    }
}
