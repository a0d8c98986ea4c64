//! The hashed-PIT front tier against the engine alone: same scripted consumers and producer,
//! every Data must reach exactly the (face, name, token) triples the reference delivers, and
//! never a face that did not ask.

use std::collections::BTreeMap;

use bytes::Bytes;
use ndn_packet::{
    Data, DataBuilder, FaceId, Interest, InterestBuilder, LpToken, Name, NameHasher, PacketKind,
    RxLp, RxPacket, SipVariant, TxPacket,
};
use ndnfwd_fib::{FibConfig, FibWriter, NextHop};
use ndnfwd_fwd::face::FaceInfo;
use ndnfwd_fwd::{Engine, EngineConfig, TxBurst};
use ndnfwd_offload::FrontTier;

const MS: u64 = 1_000_000;
const PRODUCER: FaceId = 300;
const CONSUMERS: [FaceId; 4] = [256, 257, 258, 259];

/// One consumer Interest: at step `at` (ms), from `face`, for `name`, with `lifetime` ms.
#[derive(Debug, Clone)]
struct Ask {
    at: u64,
    face: FaceId,
    name: String,
    lifetime: u64,
}

/// What the producer does with the n-th forwarded Interest for a name (0-based).
#[derive(Debug, Clone, Copy)]
enum Producer {
    /// Answers every Interest after `delay` ms.
    Answer { delay: u64 },
    /// Ignores the first Interest for a name, answers the rest after `delay` ms.
    LoseFirst { delay: u64 },
}

enum Node {
    Tier(Box<FrontTier>),
    Alone(Box<Engine>),
}

impl Node {
    fn process(&mut self, now: u64, burst: &mut [RxPacket], out: &mut Vec<TxPacket>) {
        match self {
            Node::Tier(t) => t.process(now, burst, out),
            Node::Alone(e) => {
                let mut sent = TxBurst::new();
                e.process(now, burst, &mut sent);
                out.extend(sent.drain());
            }
        }
    }
}

/// (face, name, token) of every Data delivered to a consumer, with multiplicity.
type Deliveries = BTreeMap<(FaceId, String, Vec<u8>), u32>;

fn engine() -> (Engine, FibWriter) {
    let hasher = NameHasher::new(*b"front-tier-test!", SipVariant::Sip13);
    let mut fib = FibWriter::new(FibConfig::default(), hasher.clone()).expect("FIB");
    let root = Name::from_uri("/").expect("root");
    fib.set(
        root.as_ref(),
        &[NextHop {
            face: PRODUCER,
            cost: 0,
        }],
        0,
    )
    .expect("route");
    let mut e =
        Engine::new(EngineConfig::default(), hasher, fib.handle().reader()).expect("engine");
    for f in CONSUMERS.into_iter().chain([PRODUCER]) {
        e.add_face(f, FaceInfo::network());
    }
    (e, fib)
}

fn token(seq: usize) -> LpToken {
    LpToken::new(&(seq as u64 | 0xabcd << 48).to_be_bytes()).expect("8 bytes")
}

fn data(name: &str) -> Bytes {
    let n = Name::from_uri(name).expect("name");
    Bytes::from(
        DataBuilder::new(n)
            .content(b"x".to_vec())
            .encode()
            .expect("Data"),
    )
}

/// Runs `asks` through `node` for `steps` ms; returns the deliveries. Panics on a Data sent to
/// a face without a matching Interest (name and token) from it.
fn run(node: &mut Node, asks: &[Ask], producer: Producer, steps: u64) -> Deliveries {
    let mut pending: BTreeMap<u64, Vec<RxPacket>> = BTreeMap::new();
    let mut asked: BTreeMap<(FaceId, Vec<u8>), String> = BTreeMap::new();
    for (seq, a) in asks.iter().enumerate() {
        let n = Name::from_uri(&a.name).expect("name");
        let wire = InterestBuilder::new(n)
            .nonce((seq as u32 + 1).to_be_bytes())
            .lifetime_ms(a.lifetime)
            .encode()
            .expect("Interest");
        let t = token(seq);
        asked.insert((a.face, t.as_bytes().to_vec()), a.name.clone());
        pending.entry(a.at).or_default().push(RxPacket {
            face: a.face,
            kind: PacketKind::Interest,
            wire: Bytes::from(wire),
            lp: RxLp {
                pit_token: t,
                ..RxLp::default()
            },
        });
    }
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    let mut got = Deliveries::new();
    let mut out = Vec::new();
    for step in 0..steps {
        let mut burst = pending.remove(&step).unwrap_or_default();
        out.clear();
        node.process(step * MS, &mut burst, &mut out);
        for tx in out.drain(..) {
            match tx.kind {
                PacketKind::Interest => {
                    assert_eq!(tx.face, PRODUCER);
                    let name = Interest::new_checked(&tx.wire)
                        .expect("I")
                        .name()
                        .to_string();
                    let n = seen.entry(name.clone()).or_default();
                    *n += 1;
                    let delay = match producer {
                        Producer::Answer { delay } => Some(delay),
                        Producer::LoseFirst { delay } => (*n > 1).then_some(delay),
                    };
                    if let Some(d) = delay {
                        pending.entry(step + d).or_default().push(RxPacket {
                            face: PRODUCER,
                            kind: PacketKind::Data,
                            wire: data(&name),
                            lp: RxLp {
                                pit_token: tx.lp.pit_token,
                                ..RxLp::default()
                            },
                        });
                    }
                }
                PacketKind::Data => {
                    let name = Data::new_checked(&tx.wire).expect("D").name().to_string();
                    let tok = tx.lp.pit_token.as_bytes().to_vec();
                    assert_eq!(
                        asked.get(&(tx.face, tok.clone())),
                        Some(&name),
                        "Data {name} to face {} that did not ask for it with that token",
                        tx.face
                    );
                    *got.entry((tx.face, name, tok)).or_default() += 1;
                }
                PacketKind::Nack => {}
            }
        }
    }
    got
}

/// Runs both and checks they deliver the same; returns the tier (for its counters).
fn compare(bits: u32, asks: &[Ask], producer: Producer, steps: u64) -> Box<FrontTier> {
    let (reference, _fib_a) = engine();
    let want = run(&mut Node::Alone(Box::new(reference)), asks, producer, steps);
    let (e, _fib_b) = engine();
    let hasher = NameHasher::new(*b"switch-tier-key!", SipVariant::Sip13);
    let mut tier = Node::Tier(Box::new(FrontTier::new(e, bits, 2, hasher)));
    let got = run(&mut tier, asks, producer, steps);
    assert_eq!(got, want, "front tier and engine alone deliver differently");
    assert!(!got.is_empty());
    match tier {
        Node::Tier(t) => t,
        Node::Alone(_) => unreachable!("built as a tier"),
    }
}

/// A tiny linear congruential generator: deterministic scripts without a dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[test]
fn collisions_in_a_three_bit_hash_are_resolved_by_the_computer() {
    let asks: Vec<Ask> = (0..450u64)
        .map(|i| Ask {
            at: i,
            face: CONSUMERS[(i % 3) as usize],
            name: format!("/c/{}/{i}", i % 3),
            lifetime: 1000,
        })
        .collect();
    let t = compare(3, &asks, Producer::Answer { delay: 2 }, 460);
    let c = t.pit().counters();
    assert_eq!(c.data_at_switch + c.data_at_computer, 450);
    assert!(c.interests_at_computer > 20, "{c:?}");
    assert!(c.data_at_switch > 100, "{c:?}");
    assert_eq!(c.pending_underflow, 0);
}

#[test]
fn duplicate_interests_go_to_every_asker_through_the_computer() {
    let mut asks = Vec::new();
    for i in 0..40u64 {
        let name = format!("/dup/{i}");
        // Two consumers at once, and the first retransmits a millisecond later.
        for (at, face) in [
            (i * 2, CONSUMERS[0]),
            (i * 2, CONSUMERS[1]),
            (i * 2 + 1, CONSUMERS[0]),
        ] {
            asks.push(Ask {
                at,
                face,
                name: name.clone(),
                lifetime: 1000,
            });
        }
    }
    let t = compare(21, &asks, Producer::Answer { delay: 5 }, 120);
    let c = t.pit().counters();
    assert_eq!(c.interests_at_switch, 40);
    assert_eq!(c.interests_at_computer, 80);
    assert_eq!(c.data_at_switch, 0, "{c:?}");
}

#[test]
fn expired_slots_are_reused_and_single_askers_go_from_the_switch() {
    let mut asks = Vec::new();
    for i in 0..30u64 {
        let name = format!("/lost/{i}");
        // The first Interest is lost upstream and expires; the retry after it gets the Data.
        asks.push(Ask {
            at: i,
            face: CONSUMERS[2],
            name: name.clone(),
            lifetime: 10,
        });
        asks.push(Ask {
            at: i + 20,
            face: CONSUMERS[2],
            name,
            lifetime: 10,
        });
    }
    let t = compare(21, &asks, Producer::LoseFirst { delay: 2 }, 80);
    let c = t.pit().counters();
    assert_eq!(c.slots_expired, 30, "{c:?}");
    assert_eq!(c.data_at_switch, 30, "{c:?}");
    assert_eq!(c.data_at_computer, 0);
    assert_eq!(t.counters().engine_entries_left, 30);
}

#[test]
fn mixed_traffic_matches_the_engine_alone() {
    let mut rng = Lcg(0x5eed_0003);
    let mut asks = Vec::new();
    // 60 names; a name is asked again only after its lifetime (see FrontTier's docs), by any
    // consumer, sometimes by two at once.
    let mut free_at = [0u64; 60];
    for at in 0..300u64 {
        for &face in &CONSUMERS {
            if rng.next(2) == 0 {
                continue;
            }
            let n = rng.next(60) as usize;
            if free_at[n] > at && free_at[n] != at + 25 {
                continue;
            }
            free_at[n] = at + 25;
            asks.push(Ask {
                at,
                face,
                name: format!("/mix/{n}"),
                lifetime: 20,
            });
        }
    }
    let t = compare(6, &asks, Producer::Answer { delay: 4 }, 340);
    let c = t.pit().counters();
    assert!(c.data_at_switch > 0 && c.data_at_computer > 0, "{c:?}");
    assert_eq!(c.pending_underflow, 0, "{c:?}");
}

#[test]
fn seed_sizing_in_front_of_the_engine_sends_about_98_percent_from_the_switch() {
    // Two Interests per ms for distinct names, each answered 10 s later: 20,000 outstanding in
    // 2^21 slots, as in `share::ShareConfig::SEED_LIKE`, but through the engine.
    let n = 40_000u64;
    let asks: Vec<Ask> = (0..n)
        .map(|i| Ask {
            at: i / 2,
            face: CONSUMERS[(i % 4) as usize],
            name: format!("/seed/{}/{i}", i % 4),
            lifetime: 60_000,
        })
        .collect();
    let t = compare(
        ndnfwd_offload::SEED_HASH_BITS,
        &asks,
        Producer::Answer { delay: 10_000 },
        n / 2 + 10_001,
    );
    let c = t.pit().counters();
    assert_eq!(c.data_at_switch + c.data_at_computer, n);
    let share = t.pit().switch_share();
    assert!((0.95..=0.995).contains(&share), "share {share}: {c:?}");
}
