//! One generator thread's face: connected to a forwarder (any face URI ndnfwd opens: Unix,
//! shared memory, TCP, UDP, Ethernet) or listening for a generator peer (self-test without a forwarder), plus the
//! `rib/register` exchange.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use ndn_packet::link::{LpToken, PacketKind, RxPacket, TxLp, TxPacket};
use ndn_packet::{FaceId, Name};
use ndnfwd_face::{FaceEvent, FaceIdAllocator, FaceTable, FaceTableConfig, FaceUri, Persistency};
use ndnfwd_mgmt::client::{parse_command_response, CommandSigner, Signing};
use ndnfwd_mgmt::ControlParameters;

/// Timestamp of the last command Interest this process signed.
static LAST_COMMAND_MS: AtomicU64 = AtomicU64::new(0);

/// Token of our own management commands (never a [`ndnfwd_workload::GenToken`]).
const COMMAND_TOKEN: [u8; 8] = u64::MAX.to_be_bytes();

/// Where a generator thread's face goes.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// Connect to a forwarder (or a listening generator) at this URI; `local` is the
    /// `dev://IFNAME` of an `ether://` remote.
    Connect {
        /// Remote face URI.
        remote: FaceUri,
        /// Local interface (Ethernet only).
        local: Option<String>,
    },
    /// Listen at this URI (unix:// or udp4://) and answer whoever connects.
    Listen(FaceUri),
}

impl Endpoint {
    /// Parses `--connect` / `--listen` / `--local`; `connect` defaults as for `ndnfwd ctl`
    /// (`$NDN_CLIENT_TRANSPORT`, then the standard Unix socket or the unprivileged fallback).
    pub fn parse(
        connect: Option<&str>,
        listen: Option<&str>,
        local: Option<&str>,
    ) -> Result<Self, String> {
        if let Some(l) = listen {
            let uri: FaceUri = l.parse().map_err(|e| format!("--listen {l}: {e}"))?;
            return match uri {
                FaceUri::Unix(_) | FaceUri::Shm(_) | FaceUri::Udp(_) => Ok(Self::Listen(uri)),
                _ => Err(format!("--listen {l}: use unix://, shm:// or udp4://")),
            };
        }
        let s = crate::ctl_face::resolve(connect);
        let remote: FaceUri = s.parse().map_err(|e| format!("--connect {s}: {e}"))?;
        let local = match (&remote, local) {
            (FaceUri::Ether(_), Some(l)) => match l.parse() {
                Ok(FaceUri::Dev(ifname)) => Some(ifname),
                _ => return Err(format!("--local {l}: use dev://IFNAME")),
            },
            (FaceUri::Ether(_), None) => {
                return Err(format!("--connect {s} needs --local dev://IFNAME"))
            }
            _ => None,
        };
        Ok(Self::Connect { remote, local })
    }

    /// True when the face is made by listening (no registration possible).
    pub fn is_listen(&self) -> bool {
        matches!(self, Self::Listen(_))
    }
}

/// One face (or one listener and the faces it accepts) owned by one thread.
pub struct Client {
    table: FaceTable,
    /// The connected face; `None` while listening.
    face: Option<FaceId>,
    /// Packets received by [`Client::poll`].
    pub rx: Vec<RxPacket>,
    tx: Vec<TxPacket>,
    epoch: Instant,
    /// Whether the face is a shared-memory one (see [`Client::poll`]).
    shm: bool,
    /// When a packet last arrived (ns since `epoch`).
    last_rx: u64,
    /// How long an idle thread on a shared-memory face naps before it looks at its ring again
    /// (generator threads sleep with a 1 us timer slack, so it lasts about that).
    nap: Duration,
}

/// Packets taken per poll. A thread handles at most this many before it flushes what they
/// caused, so its peer has work while it goes on: with 512, a self-test producer answered a
/// whole 131-deep window of 8 KB Interests before the consumer saw the first Data, and the two
/// took turns instead of overlapping.
const RX_BURST: usize = 64;

/// After this long without a packet, a thread on a shared-memory face sleeps until a doorbell
/// instead of napping, so an idle generator costs no CPU.
const SHM_NAP_WINDOW_NS: u64 = 2_000_000;

impl Client {
    /// Opens the endpoint; on a shared-memory face a busy thread naps `nap` when its ring
    /// is empty.
    pub fn open(ep: &Endpoint, nap: Duration) -> Result<Self, String> {
        let mut table = FaceTable::new(FaceIdAllocator::default(), FaceTableConfig::default())
            .map_err(|e| format!("face table: {e}"))?;
        let p = Persistency::Persistent;
        let face = match ep {
            Endpoint::Connect { remote, local } => Some(
                match (remote, local) {
                    (FaceUri::Unix(path), _) => table.connect_unix(path, p),
                    (FaceUri::Shm(path), _) => table.connect_shm(path, p),
                    (FaceUri::Tcp(a), _) => table.connect_tcp(*a, p),
                    (FaceUri::Udp(a), _) => table.connect_udp(*a, p),
                    (FaceUri::Ether(mac), Some(ifname)) => table.add_ether(ifname, *mac, p),
                    _ => return Err(format!("cannot connect to {remote:?}")),
                }
                .map_err(|e| format!("cannot connect to {remote:?}: {e}"))?,
            ),
            Endpoint::Listen(uri) => {
                match uri {
                    FaceUri::Unix(path) => {
                        let _ = std::fs::remove_file(path);
                        table.listen_unix(path)
                    }
                    FaceUri::Shm(path) => {
                        let _ = std::fs::remove_file(path);
                        table.listen_shm(path)
                    }
                    FaceUri::Udp(a) => table.listen_udp(*a),
                    _ => return Err(format!("cannot listen on {uri:?}")),
                }
                .map_err(|e| format!("cannot listen on {uri:?}: {e}"))?;
                None
            }
        };
        let _ = table.drain_events().count();
        let shm = matches!(
            ep,
            Endpoint::Connect {
                remote: FaceUri::Shm(_),
                ..
            } | Endpoint::Listen(FaceUri::Shm(_))
        );
        Ok(Self {
            table,
            face,
            rx: Vec::with_capacity(512),
            tx: Vec::with_capacity(512),
            epoch: Instant::now(),
            shm,
            last_rx: 0,
            nap,
        })
    }

    /// Queues a packet for the connected face (or, listening, for `to`); sent by [`Client::flush`].
    pub fn queue(&mut self, to: Option<FaceId>, kind: PacketKind, wire: Bytes, lp: TxLp) {
        if let Some(face) = to.or(self.face) {
            self.tx.push(TxPacket {
                face,
                kind,
                lp,
                wire,
                patch: None,
            });
        }
    }

    /// Sends every queued packet in one burst.
    pub fn flush(&mut self) {
        if !self.tx.is_empty() {
            self.table.send_burst(&self.tx);
            self.tx.clear();
        }
    }

    /// Waits up to `ms` for packets (0: just check) and appends them to `self.rx`; an error when
    /// the connected face is gone.
    ///
    /// On a shared-memory face a thread that received within the last 2 ms naps and looks
    /// again instead of sleeping until a doorbell: waking a sleeping peer costs the forwarder a system call and a cross-CPU
    /// wake-up per burst (15 % of its time at 800k exchanges/s), a nap costs only this thread
    /// a timer. A benchmark generator should load the forwarder with forwarding, as
    /// busy-polling memif clients do for NDN-DPDK.
    pub fn poll(&mut self, ms: i32) -> Result<(), String> {
        let now = || u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let busy = now().saturating_sub(self.last_rx) < SHM_NAP_WINDOW_NS;
        if ms != 0 && self.shm && busy {
            if self.table.recv_burst(now(), &mut self.rx, RX_BURST) == 0 {
                std::thread::sleep(self.nap);
            }
        } else if ms != 0 {
            let _ = self.table.wait(ms);
        }
        let now = now();
        if self.table.recv_burst(now, &mut self.rx, RX_BURST) > 0 || !self.rx.is_empty() {
            self.last_rx = now;
        }
        self.table.tick(now);
        for ev in self.table.drain_events() {
            if let FaceEvent::Removed(id, why) = ev {
                if Some(id) == self.face {
                    return Err(format!("the forwarder closed the face ({why:?})"));
                }
            }
        }
        Ok(())
    }
}

/// Sends `rib/register` for `prefix` on the client's face and waits for the answer.
pub fn register(c: &mut Client, prefix: &Name, cost: u64) -> Result<(), String> {
    let params = ControlParameters {
        name: Some(prefix.clone()),
        cost: Some(cost),
        ..Default::default()
    };
    let wall_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0));
    // Signed command Interests need strictly increasing timestamps (the forwarder rejects a
    // repeated one as a replay), also when several prefixes or threads register in one ms.
    let next = |last: u64| wall_ms.max(last + 1);
    let now_ms = LAST_COMMAND_MS
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| {
            Some(next(last))
        })
        .map_or(wall_ms, next);
    let mgmt = Name::from_uri("/localhost/nfd").map_err(|e| e.to_string())?;
    let wire = CommandSigner::new(Signing::DigestCommandName)
        .command_interest(&mgmt, "rib", "register", &params, now_ms)
        .map_err(|e| format!("cannot encode command: {e}"))?;
    let lp = TxLp {
        pit_token: LpToken::new(&COMMAND_TOKEN).unwrap_or(LpToken::EMPTY),
        ..TxLp::default()
    };
    c.queue(None, PacketKind::Interest, Bytes::from(wire), lp);
    c.flush();
    let deadline = Instant::now() + Duration::from_secs(4);
    while Instant::now() < deadline {
        c.poll(10)?;
        let mut answer = None;
        c.rx.retain(|p| {
            let mine = p.lp.pit_token.as_bytes() == COMMAND_TOKEN;
            if mine && answer.is_none() {
                answer = Some(p.clone());
            }
            !mine
        });
        let Some(p) = answer else { continue };
        if p.kind != PacketKind::Data {
            return Err(format!("rib/register for {prefix} was Nacked"));
        }
        let r = parse_command_response(&p.wire).map_err(|e| e.to_string())?;
        if r.code != 200 {
            return Err(format!("rib/register for {prefix}: {} {}", r.code, r.text));
        }
        return Ok(());
    }
    Err(format!("rib/register for {prefix}: no answer"))
}
