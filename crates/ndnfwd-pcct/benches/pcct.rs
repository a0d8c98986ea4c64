//! PCCT operations per entry at 2^20 (about 1M) entries: PIT insert (single and burst),
//! Data lookup-and-satisfy (by our token, single and burst, and by name; the PIT entry becomes
//! the CS entry),
//! expiry, and CS hits (in order, and in a shuffled order with no prefetch, bucket prefetch,
//! or bucket plus speculative entry prefetch, seed 002). Names (`/bench/seg=i/x`) are hashed beforehand, as the input stage
//! does in the forwarder. Each benchmark keeps one table across iterations so memory is
//! resident after criterion's warm-up; only the named operation is timed (`iter_custom`),
//! refilling and resetting the table is not. One iteration = 2^20 operations; criterion reports
//! elements per second, and ns/op = 1e9 / that.
//!
//! `cargo bench -p ndnfwd-pcct --bench pcct -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::{Criterion, SamplingMode, Throughput};
use ndn_packet::tlv::{self, tt};
use ndn_packet::{LpToken, Name, NameHasher, PrefixHashes, SipVariant};
use ndnfwd_pcct::{
    DataArrival, DataInfo, InterestArrival, InterestInfo, InterestOutcome, Pcct, PcctConfig, MS,
};

const N: usize = 1 << 20;
const LIFETIME: u64 = 4_000 * MS;

struct Fixture {
    hasher: NameHasher,
    names: Vec<Name>,
    hashes: Vec<PrefixHashes>,
    wires: Vec<Bytes>,
}

fn fixture() -> Fixture {
    let hasher = NameHasher::new([42; 16], SipVariant::Sip13);
    let names: Vec<Name> = (0..N as u64)
        .map(|i| {
            Name::new()
                .push("bench")
                .push_number(tt::SEGMENT_COMPONENT, i)
                .push("x")
        })
        .collect();
    let hashes = names
        .iter()
        .map(|n| {
            let mut h = PrefixHashes::with_capacity(3);
            hasher.hash_prefixes(n.as_ref(), &mut h);
            h
        })
        .collect();
    let wires = names
        .iter()
        .map(|n| {
            let mut v = n.to_wire();
            tlv::write_tlv(&mut v, tt::CONTENT, &[0; 100]);
            let mut d = Vec::new();
            tlv::write_tlv(&mut d, tt::DATA, &v);
            Bytes::from(d)
        })
        .collect();
    Fixture {
        hasher,
        names,
        hashes,
        wires,
    }
}

fn config() -> PcctConfig {
    PcctConfig {
        pit_capacity: N as u32,
        cs_capacity_packets: N as u32,
        cs_capacity_bytes: u64::MAX,
        ..PcctConfig::default()
    }
}

impl Fixture {
    fn interest(&self, i: usize, nonce: u32) -> InterestInfo<'_> {
        InterestInfo {
            name: self.names[i].as_ref(),
            hashes: &self.hashes[i],
            can_be_prefix: false,
            must_be_fresh: false,
            forwarding_hint_hash: None,
            nonce,
            lifetime_ns: Some(LIFETIME),
            hop_limit: None,
            token: &LpToken::EMPTY,
            congestion_mark: 0,
        }
    }

    fn data(&self, i: usize) -> DataInfo<'_> {
        DataInfo {
            name: self.names[i].as_ref(),
            id: self.hashes[i].name_id(),
            freshness_ns: 10_000 * MS,
            wire: &self.wires[i],
            digest: None,
            no_cache: false,
        }
    }

    /// Inserts every name at `now` and returns our tokens.
    fn fill(&self, p: &mut Pcct, now: u64, nonce: u32) -> Vec<[u8; 8]> {
        (0..N)
            .map(|i| match p.on_interest(now, &self.interest(i, nonce), 1) {
                InterestOutcome::NewPit { pit } => pit.token.to_bytes(),
                other => panic!("fill: {other:?}"),
            })
            .collect()
    }
}

/// Prefetching in the shuffled CS-hit loops.
#[derive(Debug, Clone, Copy)]
enum Prefetch {
    /// None.
    None,
    /// Buckets of group `g + 1` while group `g` runs.
    Bucket,
    /// Buckets of group `g + 2` and the entries behind group `g + 1`'s buckets (seed 002 SHTL).
    Speculative,
}

/// Burst group of the shuffled CS-hit loops.
const GROUP: usize = 8;

/// A fixed permutation of `0..N` (xorshift Fisher-Yates): hits in random key order, so the
/// hardware prefetcher cannot follow the arena.
fn shuffled() -> Vec<usize> {
    let mut v: Vec<usize> = (0..N).collect();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in (1..N).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

/// Interests for `order` (all CS hits), in groups of [`GROUP`] with `mode` prefetching.
fn hits(p: &mut Pcct, f: &Fixture, order: &[usize], now: u64, mode: Prefetch) {
    let group = |g: usize| {
        let rest = order.get(g * GROUP..).unwrap_or(&[]);
        rest.get(..GROUP).unwrap_or(rest)
    };
    let groups = order.len().div_ceil(GROUP);
    for g in 0..groups {
        match mode {
            Prefetch::None => {}
            Prefetch::Bucket => {
                for &i in group(g + 1) {
                    p.prefetch_interest(&f.interest(i, 2));
                }
            }
            Prefetch::Speculative => {
                for &i in group(g + 2) {
                    p.prefetch_interest(&f.interest(i, 2));
                }
                for &i in group(g + 1) {
                    p.prefetch_interest_entries(&f.interest(i, 2));
                }
            }
        }
        for &i in group(g) {
            black_box(p.on_interest(now, &f.interest(i, 2), 3));
        }
    }
}

/// Keeps a table and a clock across criterion iterations.
struct State {
    p: Pcct,
    now: u64,
}

impl State {
    fn new(f: &Fixture) -> Self {
        Self {
            p: Pcct::new(config(), f.hasher.clone()).expect("PCCT"),
            now: 0,
        }
    }

    /// Caches every Data (unless already done); returns the time to look it up at.
    fn fill_cs(&mut self, f: &Fixture) -> u64 {
        if self.p.len_cs() != N {
            self.reset();
            let tokens = f.fill(&mut self.p, self.now, 1);
            let mut down = Vec::with_capacity(8);
            for (i, t) in tokens.iter().enumerate() {
                down.clear();
                self.p
                    .on_data(self.now, &f.data(i), 2, Some(t), false, &mut down);
            }
            assert_eq!(self.p.len_cs(), N);
        }
        self.now + 1
    }

    /// Empties the PIT (expiry) and the CS.
    fn reset(&mut self) {
        self.now += LIFETIME + MS;
        let mut out = Vec::with_capacity(N);
        self.p.expire(self.now, &mut out);
        self.p.cs_erase(Name::new().as_ref(), usize::MAX);
        assert_eq!(
            (self.p.len_pit(), self.p.len_cs(), self.p.len_keys()),
            (0, 0, 0)
        );
    }
}

fn benches(c: &mut Criterion) {
    let f = fixture();
    let mut g = c.benchmark_group("pcct_1M");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Elements(N as u64));

    let mut s = State::new(&f);
    g.bench_function("insert", |b| {
        b.iter_custom(|iters| {
            let st = &mut s;
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                st.reset();
                let (now, p) = (st.now, &mut st.p);
                let t = Instant::now();
                for i in 0..N {
                    black_box(p.on_interest(now, &f.interest(i, 1), 1));
                }
                total += t.elapsed();
            }
            total
        })
    });

    g.bench_function("insert_burst32", |b| {
        let arrivals: Vec<InterestArrival<'_>> = (0..N)
            .map(|i| InterestArrival {
                interest: f.interest(i, 1),
                face: 1,
            })
            .collect();
        let mut out = Vec::with_capacity(32);
        b.iter_custom(|iters| {
            let st = &mut s;
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                st.reset();
                let (now, p) = (st.now, &mut st.p);
                let t = Instant::now();
                for burst in arrivals.chunks(32) {
                    out.clear();
                    p.on_interest_burst(now, burst, &mut out);
                    black_box(&out);
                }
                total += t.elapsed();
            }
            total
        })
    });

    for by_token in [true, false] {
        let label = if by_token {
            "satisfy_by_token"
        } else {
            "satisfy_by_name"
        };
        let mut down = Vec::with_capacity(8);
        g.bench_function(label, |b| {
            b.iter_custom(|iters| {
                let st = &mut s;
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    st.reset();
                    let now = st.now;
                    let tokens = f.fill(&mut st.p, now, 1);
                    let t = Instant::now();
                    for (i, tok) in tokens.iter().enumerate() {
                        down.clear();
                        let tok = by_token.then_some(&tok[..]);
                        black_box(st.p.on_data(now + 1, &f.data(i), 2, tok, false, &mut down));
                    }
                    total += t.elapsed();
                }
                total
            })
        });
    }

    g.bench_function("satisfy_by_token_burst32", |b| {
        let mut out = Vec::with_capacity(32);
        let mut down = Vec::with_capacity(32);
        b.iter_custom(|iters| {
            let st = &mut s;
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                st.reset();
                let now = st.now;
                let tokens = f.fill(&mut st.p, now, 1);
                let arrivals: Vec<DataArrival<'_>> = (0..N)
                    .map(|i| DataArrival {
                        data: f.data(i),
                        face: 2,
                        token: Some(&tokens[i][..]),
                        face_is_local: false,
                    })
                    .collect();
                let t = Instant::now();
                for burst in arrivals.chunks(32) {
                    out.clear();
                    down.clear();
                    st.p.on_data_burst(now + 1, burst, &mut out, &mut down);
                    black_box(&out);
                }
                total += t.elapsed();
            }
            total
        })
    });

    g.bench_function("expire", |b| {
        let mut out = Vec::with_capacity(N);
        b.iter_custom(|iters| {
            let st = &mut s;
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                st.reset();
                // Arrivals spread over 1 s: expiries spread over about 240 wheel slots.
                for i in 0..N {
                    let now = st.now + (i as u64 * 1_000 * MS) / N as u64;
                    black_box(st.p.on_interest(now, &f.interest(i, 1), 1));
                }
                let at = st.now + 1_000 * MS + LIFETIME;
                out.clear();
                let t = Instant::now();
                let n = st.p.expire(at, &mut out);
                total += t.elapsed();
                assert_eq!(n, N);
            }
            total
        })
    });

    g.bench_function("cs_hit", |b| {
        let now = s.fill_cs(&f);
        b.iter_custom(|iters| {
            let t = Instant::now();
            for _ in 0..iters {
                for i in 0..N {
                    black_box(s.p.on_interest(now, &f.interest(i, 2), 3));
                }
            }
            t.elapsed()
        })
    });

    let order = shuffled();
    for (label, mode) in [
        ("cs_hit_shuffled", Prefetch::None),
        ("cs_hit_shuffled_bucket8", Prefetch::Bucket),
        ("cs_hit_shuffled_speculative8", Prefetch::Speculative),
    ] {
        g.bench_function(label, |b| {
            let now = s.fill_cs(&f);
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    hits(&mut s.p, &f, &order, now, mode);
                }
                t.elapsed()
            })
        });
    }
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
