//! The prefetch mode changes timing only: the same bursts through engines in each mode give the
//! same packets out, the same counters and the same table state.

use bytes::Bytes;
use ndn_packet::link::{LpToken, PacketKind, RxLp, RxPacket, TxPacket};
use ndn_packet::lp::NackReason;
use ndn_packet::{DataBuilder, InterestBuilder, Name, NameHasher, SipVariant};
use ndnfwd_fib::{FibConfig, FibWriter, LpmAlgorithm, LpmConfig, NextHop};
use ndnfwd_fwd::face::FaceInfo;
use ndnfwd_fwd::{Engine, EngineConfig, PrefetchMode, TxBurst};
use ndnfwd_pcct::PcctConfig;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn trace(seed: u64) -> Vec<(u64, Vec<RxPacket>)> {
    let mut r = Rng(seed);
    let mut now = 0;
    let mut bursts = Vec::new();
    let mut recent: Vec<(Name, u32)> = Vec::new();
    for _ in 0..60 {
        now += r.below(30) * 1_000_000;
        let n = 1 + r.below(48) as usize;
        let mut burst = Vec::with_capacity(n);
        for _ in 0..n {
            let (p, x) = (r.below(3), r.below(40));
            // A quarter of the names are five components long: under longest-first (k = 5)
            // those whose plan's head (depths 5 to 2) holds no prefix take the speculative
            // mode's step below the head.
            let uri = if x >= 30 {
                format!("/p{p}/x{x}/c/d/e")
            } else {
                format!("/p{p}/x{x}")
            };
            let name = Name::from_uri(&uri).unwrap();
            let face = 1 + r.below(6) as u32;
            let pkt = match r.below(10) {
                0..=4 => {
                    let nonce = r.below(50) as u32;
                    recent.push((name.clone(), nonce));
                    let b = InterestBuilder::new(name)
                        .nonce(nonce.to_be_bytes())
                        .can_be_prefix(r.below(4) == 0)
                        .must_be_fresh(r.below(3) == 0)
                        .hop_limit(r.below(5) as u8)
                        .lifetime_ms(50 + r.below(200));
                    let lp = RxLp {
                        pit_token: LpToken::new(&[face as u8]).unwrap(),
                        ..RxLp::default()
                    };
                    RxPacket {
                        face,
                        kind: PacketKind::Interest,
                        wire: Bytes::from(b.encode().unwrap()),
                        lp,
                    }
                }
                5..=7 => {
                    let wire = DataBuilder::new(name)
                        .freshness_period(r.below(3) * 20)
                        .encode()
                        .unwrap();
                    RxPacket {
                        face,
                        kind: PacketKind::Data,
                        wire: Bytes::from(wire),
                        lp: RxLp::default(),
                    }
                }
                8 => {
                    // Mostly a Nack for a recent Interest (it may match an out-record).
                    let (name, nonce) = match recent.len() {
                        0 => (name, 0),
                        n => recent[n - 1 - r.below(n.min(8) as u64) as usize].clone(),
                    };
                    let b = InterestBuilder::new(name).nonce(nonce.to_be_bytes());
                    let reason = [
                        NackReason::Congestion,
                        NackReason::NoRoute,
                        NackReason::Duplicate,
                    ][r.below(3) as usize];
                    RxPacket {
                        face,
                        kind: PacketKind::Nack,
                        wire: Bytes::from(b.encode().unwrap()),
                        lp: RxLp {
                            nack: Some(Some(reason)),
                            ..RxLp::default()
                        },
                    }
                }
                _ => RxPacket {
                    face,
                    kind: PacketKind::Interest,
                    wire: Bytes::from(vec![5, 2, 7, 0]),
                    lp: RxLp::default(),
                },
            };
            burst.push(pkt);
        }
        bursts.push((now, burst));
    }
    bursts
}

fn engine(mode: PrefetchMode, lpm: LpmConfig) -> (Engine, FibWriter) {
    let hasher = NameHasher::new([5; 16], SipVariant::Sip13);
    let fib_cfg = FibConfig {
        lpm,
        ..FibConfig::default()
    };
    let mut fib = FibWriter::new(fib_cfg, hasher.clone()).unwrap();
    let hop = |face, cost| NextHop { face, cost };
    fib.set(
        Name::from_uri("/p0").unwrap().as_ref(),
        &[hop(1, 1), hop(2, 2)],
        0,
    )
    .unwrap();
    fib.set(Name::from_uri("/p1").unwrap().as_ref(), &[hop(3, 1)], 0)
        .unwrap();
    fib.set(
        Name::from_uri("/p1/x7").unwrap().as_ref(),
        &[hop(4, 1), hop(5, 3)],
        0,
    )
    .unwrap();
    // Deeper than every Interest: under two-stage with M = 1, /p2 is a virtual entry whose
    // MD (3) is beyond the name.
    fib.set(
        Name::from_uri("/p2/x3/y").unwrap().as_ref(),
        &[hop(4, 1)],
        0,
    )
    .unwrap();
    // Under no name of the trace: longest-first's plan is five deep (k = 5).
    fib.set(
        Name::from_uri("/p3/c/d/e/f").unwrap().as_ref(),
        &[hop(6, 1)],
        0,
    )
    .unwrap();
    let cfg = EngineConfig {
        prefetch: mode,
        pcct: PcctConfig {
            pit_capacity: 64,
            cs_capacity_packets: 16,
            ..PcctConfig::default()
        },
        ..EngineConfig::default()
    };
    let mut e = Engine::new(cfg, hasher, fib.handle().reader()).unwrap();
    for f in 1..=6 {
        e.add_face(
            f,
            if f == 6 {
                FaceInfo::local()
            } else {
                FaceInfo::network()
            },
        );
    }
    e.set_strategy(
        Name::from_uri("/p1").unwrap().as_ref(),
        "/localhost/nfd/strategy/multicast",
    )
    .unwrap();
    (e, fib)
}

fn run(
    mode: PrefetchMode,
    lpm: LpmConfig,
    seed: u64,
) -> (
    Vec<Vec<TxPacket>>,
    ndnfwd_fwd::counters::Counters,
    usize,
    usize,
) {
    let (mut e, _fib) = engine(mode, lpm);
    let mut outs = Vec::new();
    for (now, mut burst) in trace(seed) {
        let mut out = TxBurst::new();
        e.process(now, &mut burst, &mut out);
        outs.push(out.drain().collect());
    }
    let c = *e.counters();
    (outs, c, e.pcct().len_pit(), e.pcct().len_cs())
}

/// Each algorithm's lookups under every mode: the default (binary search), longest-first
/// (k = 5: its five-component names under /p0 and /p1 go through the speculative mode's step
/// below the plan's head), and two-stage with M = 1, whose Interests under /p1 (a real entry
/// at M with MD 2) and /p2 (a virtual one, MD 3) go on with stage 2, through the speculative
/// mode's further steps.
#[test]
fn every_mode_forwards_identically() {
    let mut total = ndnfwd_fwd::counters::Counters::default();
    let two_stage = LpmConfig {
        algorithm: LpmAlgorithm::TwoStage,
        m: 1,
    };
    let longest_first = LpmConfig {
        algorithm: LpmAlgorithm::LongestFirst,
        ..LpmConfig::default()
    };
    for lpm in [LpmConfig::default(), longest_first, two_stage] {
        for seed in 1..=12 {
            let reference = run(PrefetchMode::None, lpm, seed);
            total.add(&reference.1);
            for mode in [
                PrefetchMode::Bucket,
                PrefetchMode::Prehash,
                PrefetchMode::Speculative,
            ] {
                let got = run(mode, lpm, seed);
                let at = format!("{:?} seed {seed} {mode:?}", lpm.algorithm);
                assert_eq!(got.1, reference.1, "{at}: counters");
                assert_eq!((got.2, got.3), (reference.2, reference.3), "{at}: tables");
                assert_eq!(got.0, reference.0, "{at}: packets out");
            }
        }
    }
    // The traces went through every branch that matters here.
    for (key, v) in total.iter() {
        let expected_zero = matches!(
            key,
            "unknown_face"
                | "localhost_violation_in"
                | "localhost_violation_out"
                | "pit_full"
                | "pit_face_quota"
                | "next_hop_unknown"
                | "out_records_full"
                | "nack_multi_access"
                | "face_gone"
        );
        assert_eq!(v == 0, expected_zero, "{key} = {v}");
    }
}
