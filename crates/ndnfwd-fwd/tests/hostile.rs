//! Hostile traffic against one engine in virtual time: a PIT flood from one face, CS
//! pollution, unsolicited Data floods and malformed packets. Pass criteria are on counts and
//! correctness, never on time.

mod harness;

use bytes::Bytes;
use harness::*;
use ndn_packet::link::{PacketKind, RxLp};
use ndn_packet::lp::NackReason;
use ndnfwd_fwd::face::FaceInfo;
use ndnfwd_fwd::{EngineConfig, PrefetchMode};
use ndnfwd_pcct::{PcctConfig, UnsolicitedPolicy};

const PIT: u32 = 1024;
const LEGIT_FACES: usize = 3;
/// Unique flood Interests per ms: 10x the legitimate rate (one per ms per legitimate face).
const FLOOD_PER_MS: usize = 10 * LEGIT_FACES;
const RUN_MS: u64 = 3000;

fn node_cfg(pcct: PcctConfig, quota: u32) -> EngineConfig {
    EngineConfig {
        prefetch: PrefetchMode::Speculative,
        pcct,
        pit_face_quota: quota,
        ..EngineConfig::default()
    }
}

/// What a PIT flood run observed.
struct Flood {
    legit_sent: usize,
    legit_data: usize,
    flood_congestion: usize,
    max_pit: usize,
    quota_refused: u64,
}

/// Legitimate faces fetch one unique name per ms each from a producer; one face sends
/// `FLOOD_PER_MS` unique Interests per ms toward a prefix that never answers.
fn pit_flood(quota: u32) -> Flood {
    let mut sim = Sim::new();
    let pcct = PcctConfig {
        pit_capacity: PIT,
        ..PcctConfig::default()
    };
    let r = sim.node(node_cfg(pcct, quota));
    let prod = sim.producer(r, "/legit", 1000);
    let sink = sim.app(r, Behaviour::Sink);
    let (pf, sf) = (sim.face_of(prod), sim.face_of(sink));
    sim.route(r, "/legit", pf, 0);
    sim.route(r, "/void", sf, 0);
    let legit: Vec<usize> = (0..LEGIT_FACES)
        .map(|_| sim.app_with(r, Behaviour::Sink, FaceInfo::network()))
        .collect();
    let flooder = sim.app_with(r, Behaviour::Sink, FaceInfo::network());
    let (mut nonce, mut max_pit) = (1u32, 0usize);
    for t in 0..RUN_MS {
        // Interleaved as they would arrive: ten flood Interests, then one legitimate one.
        for (k, &a) in legit.iter().enumerate() {
            for j in 0..FLOOD_PER_MS / LEGIT_FACES {
                nonce += 1;
                sim.express(flooder, interest(&format!("/void/{t}/{k}/{j}"), nonce), b"");
            }
            nonce += 1;
            sim.express(a, interest(&format!("/legit/c{k}/t{t}"), nonce), b"");
        }
        sim.run_for(MS);
        max_pit = max_pit.max(sim.engine(r).pcct().len_pit());
    }
    let legit_data = legit
        .iter()
        .map(|&a| sim.received(a, PacketKind::Data).len())
        .sum();
    let flood_congestion = sim
        .received(flooder, PacketKind::Nack)
        .iter()
        .filter(|t| t.lp.nack == Some(NackReason::Congestion))
        .count();
    Flood {
        legit_sent: LEGIT_FACES * RUN_MS as usize,
        legit_data,
        flood_congestion,
        max_pit,
        quota_refused: sim.engine(r).counters().pit_face_quota,
    }
}

/// With a per-face quota of a quarter of the PIT, the flooder cannot starve other faces.
#[test]
fn pit_flood_with_face_quota_keeps_legit_traffic() {
    let f = pit_flood(PIT / 4);
    let pct = 100.0 * f.legit_data as f64 / f.legit_sent as f64;
    assert!(pct >= 95.0, "legit satisfied {pct:.1}%");
    assert!(f.max_pit <= PIT as usize, "PIT {} > capacity", f.max_pit);
    assert!(f.flood_congestion > 0, "flooder never got Nack Congestion");
    assert_eq!(f.quota_refused, f.flood_congestion as u64);
    println!("{{\"quota\":{},\"legit_satisfied_pct\":{pct:.2},\"max_pit\":{},\"flood_nack_congestion\":{}}}",
        PIT / 4, f.max_pit, f.flood_congestion);
}

/// The control: without the quota the same flood fills the PIT and legitimate Interests are
/// refused with Nack Congestion (the quota is what passes the test above).
#[test]
fn pit_flood_without_quota_starves_legit_traffic() {
    let f = pit_flood(0);
    assert!(f.max_pit <= PIT as usize);
    assert!(f.flood_congestion > 0, "PIT full answers Nack Congestion");
    assert_eq!(f.quota_refused, 0);
    let pct = 100.0 * f.legit_data as f64 / f.legit_sent as f64;
    println!(
        "{{\"quota\":0,\"legit_satisfied_pct\":{pct:.2},\"max_pit\":{}}}",
        f.max_pit
    );
    assert!(
        pct < 95.0,
        "legit {pct:.1}% without a quota: the flood is too weak"
    );
}

/// CS pollution: a face requesting a stream of unique names never grows the CS past its
/// capacity; every displaced entry is counted as an eviction and popular content is re-fetched.
#[test]
fn cs_pollution_is_bounded_and_counted() {
    let mut sim = Sim::new();
    let pcct = PcctConfig {
        cs_capacity_packets: 64,
        ..PcctConfig::default()
    };
    let r = sim.node(node_cfg(pcct, 0));
    let prod = sim.producer(r, "/p", 100_000);
    let pf = sim.face_of(prod);
    sim.route(r, "/p", pf, 0);
    let polluter = sim.app_with(r, Behaviour::Sink, FaceInfo::network());
    for i in 0..2000u32 {
        sim.express(polluter, interest(&format!("/p/junk{i}"), i + 1), b"");
        sim.run_for(MS / 10);
        assert!(sim.engine(r).pcct().len_cs() <= 64);
    }
    let c = *sim.engine(r).pcct().counters();
    assert_eq!(c.cs_inserts, 2000);
    assert_eq!(c.evictions, 2000 - 64);
    assert_eq!(sim.received(polluter, PacketKind::Data).len(), 2000);
}

fn unsolicited_flood(policy: UnsolicitedPolicy) -> (u64, usize, u64) {
    let mut sim = Sim::new();
    let pcct = PcctConfig {
        cs_capacity_packets: 32,
        unsolicited: policy,
        ..PcctConfig::default()
    };
    let r = sim.node(node_cfg(pcct, 0));
    let attacker = sim.app_with(r, Behaviour::Sink, FaceInfo::network());
    let victim = sim.app(r, Behaviour::Sink);
    for i in 0..500 {
        sim.send(
            attacker,
            data(&format!("/push/{i}"), 10_000),
            RxLp::default(),
        );
    }
    sim.run_for(MS);
    let e = sim.engine(r);
    assert!(
        sim.apps[victim].received.is_empty(),
        "unsolicited Data goes nowhere"
    );
    (
        e.counters().unsolicited_data,
        e.pcct().len_cs(),
        e.pcct().counters().unsolicited_cached,
    )
}

/// Unsolicited Data floods: every packet counted; drop-all caches nothing; admit-network
/// caches within the CS capacity.
#[test]
fn unsolicited_data_flood_counted_and_dropped_per_policy() {
    assert_eq!(unsolicited_flood(UnsolicitedPolicy::DropAll), (500, 0, 0));
    assert_eq!(
        unsolicited_flood(UnsolicitedPolicy::AdmitLocal),
        (500, 0, 0)
    );
    let (n, cs, cached) = unsolicited_flood(UnsolicitedPolicy::AdmitNetwork);
    assert_eq!((n, cached), (500, 500));
    assert_eq!(cs, 32);
}

/// Malformed network packets reach the engine (the face layer hands over anything that starts
/// like an Interest or Data): every one is dropped and counted as `bad_packet`, and the engine
/// forwards normally afterwards.
#[test]
fn malformed_packets_counted_and_engine_still_forwards() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let prod = sim.producer(r, "/ok", 1000);
    let pf = sim.face_of(prod);
    sim.route(r, "/ok", pf, 0);
    let bad = sim.app_with(r, Behaviour::Sink, FaceInfo::network());
    let good_wire = interest("/ok/x", 7).encode().unwrap();
    let mut corpus: Vec<Vec<u8>> = vec![
        vec![0x05],                                                       // type only
        vec![0x05, 0x10, 0x07, 0x02],                                     // length past the buffer
        vec![0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // maximal VAR-NUMBER
        vec![0x06, 0xfe, 0xff, 0xff, 0xff, 0xff],                         // Data, 4 GiB length
        vec![0x05, 0x04, 0x07, 0x04, 0x08, 0x02], // Name longer than the Interest
        vec![0x05, 0x06, 0x07, 0x02, 0x08, 0x00, 0x0d, 0x00], // unknown critical type 13
        vec![0x05, 0x00],                         // empty Interest (no Name)
        vec![0x06, 0x02, 0x15, 0x00],             // Data without a Name
    ];
    // Deep nesting: Interests wrapped in Interests (the first element must be a Name).
    let mut deep = good_wire.clone();
    for _ in 0..40 {
        let mut outer = vec![0x05u8];
        if deep.len() < 253 {
            outer.push(deep.len() as u8);
        } else {
            outer.extend_from_slice(&[0xfd, (deep.len() >> 8) as u8, deep.len() as u8]);
        }
        outer.extend_from_slice(&deep);
        deep = outer;
    }
    corpus.push(deep);
    // Every prefix of a valid Interest is truncated.
    for cut in 1..good_wire.len() {
        corpus.push(good_wire[..cut].to_vec());
    }
    let n = corpus.len() as u64;
    for w in corpus {
        sim.send(bad, Bytes::from(w), RxLp::default());
    }
    sim.run_for(MS);
    assert_eq!(sim.engine(r).counters().bad_packet, n);
    assert!(sim.apps[bad].received.is_empty());
    let client = sim.app(r, Behaviour::Sink);
    sim.express(client, interest("/ok/after", 99), b"");
    sim.run_for(MS);
    assert_eq!(sim.received(client, PacketKind::Data).len(), 1);
}
