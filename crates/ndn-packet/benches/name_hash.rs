//! One-pass prefix hashing against n independent hashes, for names of 4, 7, 15 and 40
//! components of 8.8 bytes on average (the IRCache statistics of seed 000 Table 3), with both
//! SipHash variants, and the lanes' finalizations and identities (`NDNFWD_SIMD=avx2` or
//! `scalar` caps their instruction set). Run: `cargo bench -p ndn-packet --bench name_hash`.
// criterion_group! generates an undocumented pub fn.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndn_packet::{Name, NameHasher, PrefixHashes, SipVariant};

fn name_of(components: usize) -> Name {
    // Component lengths cycle 6..=11 (mean 8.5) with varied bytes, as in a URL-derived name.
    (0..components).fold(Name::new(), |n, i| {
        let len = 6 + i % 6;
        n.push(
            (0..len)
                .map(|j| b'a' + ((i * 7 + j * 3) % 26) as u8)
                .collect::<Vec<u8>>(),
        )
    })
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("name_hash");
    for variant in [SipVariant::Sip13, SipVariant::Sip24] {
        let hasher = NameHasher::new([7; 16], variant);
        let tag = match variant {
            SipVariant::Sip13 => "sip13",
            SipVariant::Sip24 => "sip24",
        };
        for n in [4usize, 7, 15, 40] {
            let name = name_of(n);
            g.throughput(Throughput::Elements(1));
            let mut out = PrefixHashes::with_capacity(n);
            g.bench_with_input(
                BenchmarkId::new(format!("{tag}/one_pass"), n),
                &name,
                |b, name| {
                    b.iter(|| {
                        hasher.hash_prefixes(black_box(name.as_ref()), &mut out);
                        // Read every prefix's table hash: finalization is lazy, and the
                        // per-prefix baseline below computes them all.
                        (1..=n).fold(0u64, |acc, i| acc ^ out.get(i).unwrap_or(0))
                    })
                },
            );
            // The lanes (`NDNFWD_SIMD=avx2` or `scalar` caps their instruction set): the walk
            // alone, then the walk and both output words of every prefix finalized four at a
            // time (as a lookup plan asks for them); the difference is the finalizations.
            g.bench_with_input(
                BenchmarkId::new(format!("{tag}/walk"), n),
                &name,
                |b, name| b.iter(|| hasher.hash_prefixes(black_box(name.as_ref()), &mut out)),
            );
            g.bench_with_input(
                BenchmarkId::new(format!("{tag}/lanes"), n),
                &name,
                |b, name| {
                    b.iter(|| {
                        hasher.hash_prefixes(black_box(name.as_ref()), &mut out);
                        out.finalize(1..=n);
                        out.id128(n)
                    })
                },
            );
            // Prefix boundaries are found outside the timed loop: only the hashing is compared.
            let prefixes: Vec<&[u8]> = (1..=n).map(|i| name.as_ref().prefix(i).value()).collect();
            g.bench_with_input(
                BenchmarkId::new(format!("{tag}/per_prefix"), n),
                &prefixes,
                |b, p| {
                    b.iter(|| {
                        black_box(p)
                            .iter()
                            .fold(0u64, |acc, v| acc ^ hasher.hash_value(v))
                    })
                },
            );
        }
        // The identities of four Data names side by side (`NameHasher::name_ids`, as the
        // engine asks for them), names of 4 to 15 components.
        let names = [4, 7, 15, 7].map(name_of);
        let group: Vec<_> = names.iter().map(|n| (n.as_ref(), n.len())).collect();
        g.throughput(Throughput::Elements(4));
        g.bench_function(format!("{tag}/name_ids4"), |b| {
            b.iter(|| {
                let mut acc = 0;
                hasher.name_ids(black_box(&group), |_, id| acc ^= id.hash());
                acc
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
