//! Benchmark: Interest throughput of one engine under hostile name mixes, as one JSON object.
//!
//! ```sh
//! cargo run --release -p ndnfwd-fwd --example hostile_throughput
//! ```
//!
//! Variants, each `N` unique Interests (a new PIT entry each, forwarded by a default route),
//! fed in bursts of 64 through [`Engine::process`], one engine per variant; median of `RUNS`
//! passes, the passes of all variants interleaved:
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
use ndn_packet::link::{PacketKind, RxLp, RxPacket};
use ndn_packet::{InterestBuilder, Name, NameHasher, SipVariant};
use ndnfwd_fib::{FibConfig, FibWriter, NextHop};
use ndnfwd_fwd::face::FaceInfo;
use ndnfwd_fwd::{Engine, EngineConfig, TxBurst};
use ndnfwd_pcct::PcctConfig;

const N: usize = 2000;
const RUNS: usize = 15;
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

/// Mean wire size of `pkts` in bytes.
fn mean_bytes(pkts: &[RxPacket]) -> f64 {
    pkts.iter().map(|p| p.wire.len()).sum::<usize>() as f64 / pkts.len() as f64
}

/// One variant: its packets, an engine of its own, and the ns per Interest of each pass.
struct Variant {
    pkts: Vec<RxPacket>,
    engine: Engine,
    now: u64,
    samples: Vec<f64>,
}

impl Variant {
    /// `pkts` through an engine keyed with `key`.
    fn new(pkts: Vec<RxPacket>, key: [u8; 16]) -> Self {
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
        let mut engine = Engine::new(cfg, hasher, fib.handle().reader()).expect("engine");
        engine.add_face(1, FaceInfo::network());
        engine.add_face(2, FaceInfo::network());
        Self {
            pkts,
            engine,
            now: 0,
            samples: Vec::with_capacity(RUNS),
        }
    }

    /// One pass over every packet, in bursts of 64 (copies of the packets, made before the
    /// clock starts: the engine takes the wires it forwards).
    fn pass(&mut self) {
        let mut out = TxBurst::with_capacity(128);
        let mut pkts = self.pkts.clone();
        let t = Instant::now();
        for burst in pkts.chunks_mut(64) {
            out.clear();
            self.engine.process(self.now, burst, &mut out);
        }
        self.samples
            .push(t.elapsed().as_nanos() as f64 / self.pkts.len() as f64);
        // Every entry expires before the next pass, so each pass inserts N new entries.
        self.now += 2000 * MS;
        self.engine.tick(self.now);
        assert_eq!(self.engine.pcct().len_pit(), 0);
    }

    /// (median, fastest) ns per Interest.
    fn figures(&mut self) -> (f64, f64) {
        self.samples.sort_by(f64::total_cmp);
        (self.samples[RUNS / 2], self.samples[0])
    }
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
    let (normal_bytes, garbage_bytes) = (mean_bytes(&normal), mean_bytes(&garbage));
    // Passes of all variants interleave, so a burst of load from elsewhere on a shared machine
    // slows every variant rather than one.
    let mut v = [
        Variant::new(normal, SECRET_KEY),
        Variant::new(flood.clone(), SECRET_KEY),
        Variant::new(flood, ATTACKER_KEY),
        Variant::new(garbage20, SECRET_KEY),
        Variant::new(garbage, SECRET_KEY),
        Variant::new(routed, SECRET_KEY),
    ];
    for _ in 0..RUNS {
        v.iter_mut().for_each(Variant::pass);
    }
    let [base, secret, known, mid, long, long_routed] = v.each_mut().map(Variant::figures);
    let (fast_long, fast_routed) = (long.1, long_routed.1);
    let [base, secret, known, mid, long, long_routed] =
        [base, secret, known, mid, long, long_routed].map(|f| f.0);
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
        "bytes_per_interest": { "normal": normal_bytes, "garbage_200": garbage_bytes },
        // Bytes of Interest per second: garbage_200 against normal. Parsing and hashing cost
        // grows with the name, so per byte is where long names compare with short ones.
        "garbage_200_bytes_per_s_vs_normal": (garbage_bytes / long) / (normal_bytes / base),
        // FIB work is bounded when garbage costs what a routed name of the same length costs.
        "garbage_200_vs_routed_200": long_routed / long,
        // The same from each variant's fastest pass (least disturbed by other load).
        "garbage_200_vs_routed_200_fastest": fast_routed / fast_long,
    });
    println!("{v}");
}
