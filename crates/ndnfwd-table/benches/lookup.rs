//! Lookup cost vs table size and load factor (seed 000 Figure 9), table only.
//!
//! For each size (default 1M and 16M entries) and load factor (1, 2, 4, 8) the table is filled
//! with pseudo-random 64-bit hashes (as a keyed SipHash would give), then timed on batches of
//! 1024 lookups in random order:
//! - `hit`: inserted keys, `eq` confirms the expected index (no entry memory touched);
//! - `miss`: fresh random hashes;
//! - `hit_prefetch8`: `hit` in groups of 8, prefetching group i+1's buckets before looking up
//!   group i (the loop shape of `prefetch_read`'s docs).
//!
//! Average buckets visited per lookup (from `lookup_probes`) are printed before each group.
//!
//! Time is the benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not wall time, because
//! the 2-core machines this runs on are shared: time spent descheduled is not the table's cost.
//! `NDNFWD_TABLE_BENCH_CLOCK=wall` switches to wall-clock time.
//!
//! ```text
//! cargo bench -p ndnfwd-table --bench lookup                 # full (~2 min on 2 cores, plus build)
//! cargo bench -p ndnfwd-table --bench lookup -- --quick      # shorter statistics
//! NDNFWD_TABLE_BENCH_SIZES=1M NDNFWD_TABLE_BENCH_LF=4 cargo bench -p ndnfwd-table --bench lookup
//! ```

#![allow(missing_docs)] // criterion_group! generates an undocumented pub fn

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndnfwd_table::BucketTable;

const QUERIES: usize = 1 << 20;
const BATCH: usize = 1024;
const GROUP: usize = 8;

/// SplitMix64: a fast, well-mixed stand-in for keyed SipHash outputs.
struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn parse_size(s: &str) -> usize {
    let s = s.trim();
    let (num, mul) = match s.as_bytes().last() {
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1 << 10),
        _ => (s, 1),
    };
    num.parse::<usize>().expect("size like 1M, 16M, 65536") * mul
}

fn env_list(name: &str, default: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .map(str::to_owned)
        .collect()
}

fn label(n: usize) -> String {
    if n % (1 << 20) == 0 {
        format!("{}M", n >> 20)
    } else {
        format!("{n}")
    }
}

/// Times `BATCH` lookups per iteration, walking a cursor through `queries`.
fn run_batches<'q>(
    queries: &'q [(u64, u32)],
    mut one: impl FnMut(&[(u64, u32)]) -> u32 + 'q,
) -> impl FnMut() + 'q {
    let mut at = 0;
    move || {
        let batch = &queries[at..at + BATCH];
        at = (at + BATCH) % queries.len();
        black_box(one(batch));
    }
}

/// Thread CPU time (default) or wall time, reported like criterion's `WallTime`.
struct Clock {
    cpu: bool,
}

static WALL: WallTime = WallTime;

fn thread_cpu_now() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID is supported on Linux
    // and the return value is checked.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

impl Measurement for Clock {
    type Intermediate = (Duration, std::time::Instant);
    type Value = Duration;

    fn start(&self) -> Self::Intermediate {
        (
            if self.cpu {
                thread_cpu_now()
            } else {
                Duration::ZERO
            },
            std::time::Instant::now(),
        )
    }
    fn end(&self, (cpu, wall): Self::Intermediate) -> Duration {
        if self.cpu {
            thread_cpu_now().saturating_sub(cpu)
        } else {
            wall.elapsed()
        }
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}

fn bench_lookup(c: &mut Criterion<Clock>) {
    let sizes: Vec<usize> = env_list("NDNFWD_TABLE_BENCH_SIZES", "1M,16M")
        .iter()
        .map(|s| parse_size(s))
        .collect();
    let lfs: Vec<usize> = env_list("NDNFWD_TABLE_BENCH_LF", "1,2,4,8")
        .iter()
        .map(|s| s.trim().parse().expect("load factor"))
        .collect();
    for &n in &sizes {
        let mut rng = SplitMix(0x5EED_0000 ^ n as u64);
        let hashes: Vec<u64> = (0..n).map(|_| rng.next()).collect();
        let hits: Vec<(u64, u32)> = (0..QUERIES)
            .map(|_| {
                let i = (rng.next() % n as u64) as u32;
                (hashes[i as usize], i)
            })
            .collect();
        let misses: Vec<(u64, u32)> = (0..QUERIES).map(|_| (rng.next(), u32::MAX)).collect();
        for &lf in &lfs {
            let table = BucketTable::with_capacity(n, lf);
            let mut w = table.take_writer().expect("fresh table");
            for (i, &h) in hashes.iter().enumerate() {
                table
                    .insert(&mut w, h, i as u32)
                    .expect("default overflow pool suffices");
            }
            let probes = |qs: &[(u64, u32)]| {
                let sum: u64 = qs
                    .iter()
                    .map(|&(h, i)| table.lookup_probes(h, |x| x == i).1 as u64)
                    .sum();
                sum as f64 / qs.len() as f64
            };
            eprintln!(
                "lookup/{}/lf{lf}: {} buckets, {}/{} overflow in use, {:.1} B/entry, avg buckets visited: hit {:.3}, miss {:.3}",
                label(n),
                table.bucket_count(),
                table.overflow_in_use(),
                table.overflow_capacity(),
                table.memory_bytes() as f64 / n as f64,
                probes(&hits[..1 << 18]),
                probes(&misses[..1 << 18]),
            );

            let mut g = c.benchmark_group(format!("lookup/{}", label(n)));
            g.throughput(Throughput::Elements(BATCH as u64));
            let t = &table;
            g.bench_function(BenchmarkId::new("hit", format!("lf{lf}")), |b| {
                b.iter(run_batches(&hits, |qs| {
                    qs.iter()
                        .map(|&(h, i)| t.lookup(h, |x| x == i).unwrap_or(0))
                        .fold(0, u32::wrapping_add)
                }))
            });
            g.bench_function(BenchmarkId::new("miss", format!("lf{lf}")), |b| {
                b.iter(run_batches(&misses, |qs| {
                    qs.iter()
                        .map(|&(h, i)| t.lookup(h, |x| x == i).unwrap_or(1))
                        .fold(0, u32::wrapping_add)
                }))
            });
            g.bench_function(BenchmarkId::new("hit_prefetch8", format!("lf{lf}")), |b| {
                b.iter(run_batches(&hits, |qs| {
                    let mut acc = 0u32;
                    for &(h, _) in &qs[..GROUP] {
                        t.prefetch(h);
                    }
                    for (gi, group) in qs.chunks(GROUP).enumerate() {
                        if let Some(next) = qs.get((gi + 1) * GROUP..(gi + 2) * GROUP) {
                            for &(h, _) in next {
                                t.prefetch(h);
                            }
                        }
                        for &(h, i) in group {
                            acc = acc.wrapping_add(t.lookup(h, |x| x == i).unwrap_or(0));
                        }
                    }
                    acc
                }))
            });
            g.finish();
        }
    }
}

fn config() -> Criterion<Clock> {
    let cpu = std::env::var("NDNFWD_TABLE_BENCH_CLOCK").map_or(true, |v| v != "wall");
    Criterion::default()
        .with_measurement(Clock { cpu })
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args()
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_lookup
}
criterion_main!(benches);
