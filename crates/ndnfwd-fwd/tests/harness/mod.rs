//! Deterministic simulation harness: engines joined by virtual links with fixed delays, local
//! applications on virtual faces, and virtual time. Nothing reads a clock; events at the same
//! instant are delivered in the order they were created, each node's arrivals at one instant
//! form one burst.
#![allow(dead_code)]

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use bytes::Bytes;
use ndn_packet::link::{FaceScope, LinkType, LpToken, PacketKind, RxLp, RxPacket, TxPacket};
use ndn_packet::lp::NackReason;
use ndn_packet::tlv::tt;
use ndn_packet::{
    Data, DataBuilder, FaceId, Interest, InterestBuilder, Name, NameHasher, SipVariant,
};
use ndnfwd_fib::{FibConfig, FibWriter, NextHop};
use ndnfwd_fwd::face::FaceInfo;
use ndnfwd_fwd::{Engine, EngineConfig, PrefetchMode, TxBurst};

/// One millisecond of virtual time.
pub const MS: u64 = 1_000_000;

/// A node: an engine and the writer of its FIB.
pub struct Node {
    pub engine: Engine,
    pub fib: FibWriter,
    next_face: FaceId,
}

/// Where a face leads.
#[derive(Debug, Clone, Copy)]
enum Peer {
    /// The other end of a link: (node, face) after `delay`.
    Link {
        node: usize,
        face: FaceId,
        delay: u64,
    },
    /// A local application.
    App(usize),
}

/// What an application does with what it receives.
#[derive(Debug, Clone)]
pub enum Behaviour {
    /// Records everything, answers nothing.
    Sink,
    /// Answers every Interest under `prefix` with a Data of the Interest's name plus `suffix`
    /// (components), FreshnessPeriod `freshness_ms`, echoing the token.
    Producer {
        prefix: Name,
        suffix: Vec<&'static str>,
        freshness_ms: u64,
    },
    /// Answers every Interest with a Nack of `reason`, echoing the token.
    Nacker(NackReason),
}

/// A local application attached to one face of one node.
pub struct App {
    pub node: usize,
    pub face: FaceId,
    pub behaviour: Behaviour,
    /// Every packet the app received, with its arrival time.
    pub received: Vec<(u64, TxPacket)>,
}

#[derive(Debug)]
struct Event {
    node: usize,
    rx: RxPacket,
}

/// The simulated network.
pub struct Sim {
    pub now: u64,
    pub nodes: Vec<Node>,
    pub apps: Vec<App>,
    peers: Vec<Vec<(FaceId, Peer)>>,
    queue: BinaryHeap<Reverse<(u64, u64, usize)>>,
    events: Vec<Option<Event>>,
    seq: u64,
    hasher: NameHasher,
    out: TxBurst,
    routes: HashMap<(usize, Name), Vec<NextHop>>,
}

/// The key every simulated engine and FIB shares.
pub fn hasher() -> NameHasher {
    NameHasher::new(*b"ndnfwd-sim-key!!", SipVariant::Sip13)
}

pub fn name(uri: &str) -> Name {
    Name::from_uri(uri).expect("test URI")
}

/// Encodes an Interest.
pub fn interest(uri: &str, nonce: u32) -> InterestBuilder {
    InterestBuilder::new(name(uri)).nonce(nonce.to_be_bytes())
}

/// Encodes a Data.
pub fn data(uri: &str, freshness_ms: u64) -> Bytes {
    Bytes::from(
        DataBuilder::new(name(uri))
            .freshness_period(freshness_ms)
            .content(b"hello".to_vec())
            .encode()
            .expect("test Data"),
    )
}

/// The name (URI) of a sent packet.
pub fn name_of(tx: &TxPacket) -> String {
    match tx.kind {
        PacketKind::Data => Data::new_checked(&tx.wire)
            .expect("Data")
            .name()
            .to_string(),
        PacketKind::Interest | PacketKind::Nack => Interest::new_checked(&tx.wire)
            .expect("Interest")
            .name()
            .to_string(),
    }
}

/// The decoded Interest of a sent Interest or Nack.
pub fn interest_of(tx: &TxPacket) -> Interest<'_> {
    Interest::new_checked(&tx.wire).expect("Interest")
}

impl Default for Sim {
    fn default() -> Self {
        Self::new()
    }
}

impl Sim {
    pub fn new() -> Self {
        Self {
            now: 0,
            nodes: Vec::new(),
            apps: Vec::new(),
            peers: Vec::new(),
            queue: BinaryHeap::new(),
            events: Vec::new(),
            seq: 0,
            hasher: hasher(),
            out: TxBurst::new(),
            routes: HashMap::new(),
        }
    }

    /// Adds a node with `cfg`; returns its index.
    pub fn node(&mut self, cfg: EngineConfig) -> usize {
        let fib = FibWriter::new(FibConfig::default(), self.hasher.clone()).expect("FIB");
        let engine = Engine::new(cfg, self.hasher.clone(), fib.handle().reader()).expect("engine");
        self.nodes.push(Node {
            engine,
            fib,
            next_face: 256,
        });
        self.peers.push(Vec::new());
        self.nodes.len() - 1
    }

    /// A node with default configuration and the given prefetch mode.
    pub fn default_node(&mut self) -> usize {
        self.node(EngineConfig {
            prefetch: PrefetchMode::Speculative,
            ..EngineConfig::default()
        })
    }

    fn new_face(&mut self, node: usize, info: FaceInfo, peer: Peer) -> FaceId {
        let n = &mut self.nodes[node];
        let id = n.next_face;
        n.next_face += 1;
        n.engine.add_face(id, info);
        self.peers[node].push((id, peer));
        id
    }

    /// Joins `a` and `b` with a point-to-point link of `delay`; returns (face on a, face on b).
    pub fn link(&mut self, a: usize, b: usize, delay: u64) -> (FaceId, FaceId) {
        let fa = self.nodes[a].next_face;
        let fb = self.nodes[b].next_face;
        self.new_face(
            a,
            FaceInfo::network(),
            Peer::Link {
                node: b,
                face: fb,
                delay,
            },
        );
        self.new_face(
            b,
            FaceInfo::network(),
            Peer::Link {
                node: a,
                face: fa,
                delay,
            },
        );
        (fa, fb)
    }

    /// Attaches an application to `node` on a new face of `info` (local by default).
    pub fn app_with(&mut self, node: usize, behaviour: Behaviour, info: FaceInfo) -> usize {
        let idx = self.apps.len();
        let face = self.new_face(node, info, Peer::App(idx));
        self.apps.push(App {
            node,
            face,
            behaviour,
            received: Vec::new(),
        });
        idx
    }

    /// A local application.
    pub fn app(&mut self, node: usize, behaviour: Behaviour) -> usize {
        self.app_with(node, behaviour, FaceInfo::local())
    }

    /// A producer of `prefix` on a local face of `node` that answers with the Interest name.
    pub fn producer(&mut self, node: usize, prefix: &str, freshness_ms: u64) -> usize {
        self.app(
            node,
            Behaviour::Producer {
                prefix: name(prefix),
                suffix: Vec::new(),
                freshness_ms,
            },
        )
    }

    /// Adds a nexthop to `prefix` on `node` (keeping its other nexthops).
    pub fn route(&mut self, node: usize, prefix: &str, face: FaceId, cost: u32) {
        let prefix = name(prefix);
        let hops = self.routes.entry((node, prefix.clone())).or_default();
        hops.retain(|h| h.face != face);
        hops.push(NextHop { face, cost });
        let hops = hops.clone();
        self.nodes[node]
            .fib
            .set(prefix.as_ref(), &hops, 0)
            .expect("FIB set");
    }

    /// The app's face id.
    pub fn face_of(&self, app: usize) -> FaceId {
        self.apps[app].face
    }

    /// Schedules `rx` to arrive at `node` at `at`.
    fn schedule(&mut self, at: u64, node: usize, rx: RxPacket) {
        let slot = self.events.len();
        self.events.push(Some(Event { node, rx }));
        self.queue.push(Reverse((at, self.seq, slot)));
        self.seq += 1;
    }

    /// The app sends a network packet with link fields `lp`, arriving now.
    pub fn send(&mut self, app: usize, wire: Bytes, lp: RxLp) {
        let (node, face) = (self.apps[app].node, self.apps[app].face);
        let kind = match (lp.nack, wire.first()) {
            (Some(_), _) => PacketKind::Nack,
            (None, Some(&t)) if u32::from(t) == tt::DATA => PacketKind::Data,
            _ => PacketKind::Interest,
        };
        self.schedule(
            self.now,
            node,
            RxPacket {
                face,
                kind,
                wire,
                lp,
            },
        );
    }

    /// The app expresses an Interest (with an optional token).
    pub fn express(&mut self, app: usize, b: InterestBuilder, token: &[u8]) {
        let wire = Bytes::from(b.encode().expect("test Interest"));
        let lp = RxLp {
            pit_token: LpToken::new(token).expect("token"),
            ..RxLp::default()
        };
        self.send(app, wire, lp);
    }

    /// Runs until no event is due at or before `until`; time ends at `until`.
    pub fn run_until(&mut self, until: u64) {
        while let Some(Reverse((at, _, _))) = self.queue.peek().copied() {
            if at > until {
                break;
            }
            self.now = at;
            // Gather every event due now into per-node bursts, in creation order.
            let mut bursts: Vec<Vec<RxPacket>> = vec![Vec::new(); self.nodes.len()];
            while let Some(Reverse((t, _, slot))) = self.queue.peek().copied() {
                if t != at {
                    break;
                }
                self.queue.pop();
                if let Some(ev) = self.events[slot].take() {
                    bursts[ev.node].push(ev.rx);
                }
            }
            for (node, mut burst) in bursts.into_iter().enumerate() {
                if !burst.is_empty() {
                    self.deliver(node, &mut burst);
                }
            }
        }
        self.now = until;
        for node in 0..self.nodes.len() {
            self.nodes[node].engine.tick(until);
        }
    }

    /// Runs until the queue is empty or `limit` of virtual time has passed.
    pub fn run_for(&mut self, d: u64) {
        let until = self.now + d;
        self.run_until(until);
    }

    fn deliver(&mut self, node: usize, burst: &mut [RxPacket]) {
        let mut out = std::mem::take(&mut self.out);
        out.clear();
        self.nodes[node].engine.process(self.now, burst, &mut out);
        for tx in out.drain() {
            self.transmit(node, tx);
        }
        self.out = out;
    }

    fn transmit(&mut self, node: usize, mut tx: TxPacket) {
        // What a face would send: the HopLimit patch applied (the next node and the
        // applications see the packet as it goes on the wire).
        tx.apply_patch();
        let Some(&(_, peer)) = self.peers[node].iter().find(|(f, _)| *f == tx.face) else {
            return;
        };
        match peer {
            Peer::Link {
                node: to,
                face,
                delay,
            } => {
                let lp = RxLp {
                    pit_token: tx.lp.pit_token,
                    nack: (tx.kind == PacketKind::Nack).then_some(tx.lp.nack),
                    congestion_mark: tx.lp.congestion_mark,
                    ..RxLp::default()
                };
                self.schedule(
                    self.now + delay,
                    to,
                    RxPacket {
                        face,
                        kind: tx.kind,
                        wire: tx.wire,
                        lp,
                    },
                );
            }
            Peer::App(app) => self.app_receive(app, tx),
        }
    }

    fn app_receive(&mut self, app: usize, tx: TxPacket) {
        let behaviour = self.apps[app].behaviour.clone();
        let now = self.now;
        if tx.kind == PacketKind::Interest {
            match behaviour {
                Behaviour::Producer {
                    prefix,
                    suffix,
                    freshness_ms,
                } => {
                    let i = interest_of(&tx);
                    if prefix.as_ref().is_prefix_of(i.name()) {
                        let n = suffix.iter().fold(i.name().to_name(), |n, c| n.push(c));
                        let wire = data(&n.to_string(), freshness_ms);
                        let lp = RxLp {
                            pit_token: tx.lp.pit_token,
                            ..RxLp::default()
                        };
                        self.send(app, wire, lp);
                    }
                }
                Behaviour::Nacker(reason) => {
                    let lp = RxLp {
                        pit_token: tx.lp.pit_token,
                        nack: Some(Some(reason)),
                        ..RxLp::default()
                    };
                    self.send(app, tx.wire.clone(), lp);
                }
                Behaviour::Sink => {}
            }
        }
        self.apps[app].received.push((now, tx));
    }

    /// Packets an app received, of one kind.
    pub fn received(&self, app: usize, kind: PacketKind) -> Vec<&TxPacket> {
        self.apps[app]
            .received
            .iter()
            .map(|(_, t)| t)
            .filter(|t| t.kind == kind)
            .collect()
    }

    pub fn engine(&self, node: usize) -> &Engine {
        &self.nodes[node].engine
    }

    pub fn engine_mut(&mut self, node: usize) -> &mut Engine {
        &mut self.nodes[node].engine
    }
}

/// A face on a multi-access link (for loop and Nack rules).
pub fn multi_access() -> FaceInfo {
    FaceInfo {
        scope: FaceScope::NonLocal,
        link: LinkType::MultiAccess,
    }
}
