//! Benchmark: Interest throughput of one engine under hostile name mixes, as one JSON object.
//!
//! ```sh
//! cargo run --release -p ndnfwd-fwd --example hostile_throughput
//! ```
//!
//! Variants, each `N` unique Interests (a new PIT entry each, forwarded by a default route),
//! fed in bursts of 64 through [`Engine::process`]; median of `RUNS` passes:
//! - `normal`: three-component names;
//! - `flood_secret_key`: names crafted so their hashes share the low `BITS` bits (one PIT
//!   bucket) under a key the attacker assumes, against an engine keyed with another key (the
//!   forwarder's key is drawn from the OS at start-up);
//! - `flood_known_key`: the same names against an engine keyed with the attacker's key (what
//!   an unkeyed or published hash would cost);
//! - `garbage_20`, `garbage_200`: names of 20 or 200 random components (4 to 8 bytes each)
//!   matching no route but the default;
//! - `routed_200`: 200-component names under the route `/g`: the same length as
//!   `garbage_200`, so their ratio isolates what matching nothing costs. Every packet hashes
//!   all its prefixes in one pass (seed 000), so work grows with the name's length; the FIB's
//!   share is bounded by the FIB, not the name.
//!
//! Ratios are against `normal` in the same run (machines are noisy; compare within a run).

use std::time::Instant;

use bytes::Bytes;
use ndn_packet::link::{PacketKind, RxLp, RxPacket, TxPacket};
use ndn_packet::{InterestBuilder, Name, NameHasher, SipVariant};
use ndnfwd_fib::{FibConfig, FibWriter, NextHop};
use ndnfwd_fwd::face::FaceInfo;
use ndnfwd_fwd::{Engine, EngineConfig};
use ndnfwd_pcct::PcctConfig;

const N: usize = 2000;
const RUNS: usize = 7;
const BITS: u32 = 12;
const ATTACKER_KEY: [u8; 16] = *b"published-key-00";
const SECRET_KEY: [u8; 16] = *b"\x9c\x11secret-key\x07\x42\xe0\x05";
const MS: u64 = 1_000_000;

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn crafted() -> Vec<Name> {
    let h = NameHasher::new(ATTACKER_KEY, SipVariant::Sip13);
    let mask = (1u64 << BITS) - 1;
    (0u64..)
        .map(|i| Name::from_uri(&format!("/c/{i}")).expect("name"))
        .filter(|n| h.hash_name(n.as_ref()) & mask == 0x2a)
        .take(N)
        .collect()
}

/// Names of `components` random components, the first one `first` when given.
fn random_names(components: usize, first: Option<&str>) -> Vec<Name> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..N)
        .map(|_| {
            let start = first.map_or_else(Name::new, |f| Name::new().push(f));
            (start.len()..components).fold(start, |n, _| {
                let v = xorshift(&mut x);
                n.push(&v.to_le_bytes()[..(4 + (v % 5) as usize)])
            })
        })
        .collect()
}

fn wires(names: &[Name]) -> Vec<RxPacket> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| RxPacket {
            face: 1,
            kind: PacketKind::Interest,
            wire: Bytes::from(
                InterestBuilder::new(n.clone())
                    .nonce((i as u32).to_be_bytes())
                    .lifetime_ms(1000)
                    .encode()
                    .expect("Interest"),
            ),
            lp: RxLp::default(),
        })
        .collect()
}

/// Median ns per Interest of `pkts` through an engine keyed with `key`.
fn measure(pkts: &[RxPacket], key: [u8; 16]) -> f64 {
    let hasher = NameHasher::new(key, SipVariant::Sip13);
    let mut fib = FibWriter::new(FibConfig::default(), hasher.clone()).expect("FIB");
    let mut x = 7u64;
    for i in 0..10_000 {
        let p = Name::from_uri(&format!("/r{}/x{}", i, xorshift(&mut x) % 97)).expect("name");
        fib.set(p.as_ref(), &[NextHop { face: 2, cost: 0 }], 0)
            .expect("route");
    }
    fib.set(Name::new().as_ref(), &[NextHop { face: 2, cost: 0 }], 0)
        .expect("default route");
    fib.set(
        Name::new().push("g").as_ref(),
        &[NextHop { face: 2, cost: 0 }],
        0,
    )
    .expect("route /g");
    let cfg = EngineConfig {
        pcct: PcctConfig {
            pit_capacity: 4096,
            cs_capacity_packets: 4096,
            ..PcctConfig::default()
        },
        ..EngineConfig::default()
    };
    let mut e = Engine::new(cfg, hasher, fib.handle().reader()).expect("engine");
    e.add_face(1, FaceInfo::network());
    e.add_face(2, FaceInfo::network());
    let mut out: Vec<TxPacket> = Vec::with_capacity(128);
    let mut now = 0u64;
    let mut samples = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let t = Instant::now();
        for burst in pkts.chunks(64) {
            out.clear();
            e.process(now, burst, &mut out);
        }
        samples.push(t.elapsed().as_nanos() as f64 / pkts.len() as f64);
        // Every entry expires before the next pass, so each pass inserts N new entries.
        now += 2000 * MS;
        e.tick(now);
        assert_eq!(e.pcct().len_pit(), 0);
    }
    samples.sort_by(f64::total_cmp);
    samples[RUNS / 2]
}

fn main() {
    let normal: Vec<Name> = (0..N)
        .map(|i| Name::from_uri(&format!("/n/{}/s{}", i / 10, i)).expect("name"))
        .collect();
    let normal = wires(&normal);
    let flood = wires(&crafted());
    let garbage20 = wires(&random_names(20, None));
    let garbage = wires(&random_names(200, None));
    let routed = wires(&random_names(200, Some("g")));
    let base = measure(&normal, SECRET_KEY);
    let secret = measure(&flood, SECRET_KEY);
    let known = measure(&flood, ATTACKER_KEY);
    let mid = measure(&garbage20, SECRET_KEY);
    let long = measure(&garbage, SECRET_KEY);
    let long_routed = measure(&routed, SECRET_KEY);
    let v = serde_json::json!({
        "interests_per_variant": N,
        "runs": RUNS,
        "ns_per_interest": {
            "normal": base, "flood_secret_key": secret,
            "flood_known_key": known, "garbage_20": mid, "garbage_200": long,
            "routed_200": long_routed,
        },
        "throughput_vs_normal": {
            "flood_secret_key": base / secret,
            "flood_known_key": base / known,
            "garbage_20": base / mid,
            "garbage_200": base / long,
        },
        // FIB work is bounded when garbage costs what a routed name of the same length costs.
        "garbage_200_vs_routed_200": long_routed / long,
    });
    println!("{v}");
}
