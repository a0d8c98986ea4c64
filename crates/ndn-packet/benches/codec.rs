//! Per-packet codec costs on the forwarding path: decoding a received frame (bare Interest,
//! Interest with parameters, which pays the ParametersSha256 check, Data inside an LpPacket with
//! a PIT token), re-emitting an Interest with new guiders, and the implicit digest of a Data.
//! Run: `cargo bench -p ndn-packet --bench codec`.
// criterion_group! generates an undocumented pub fn.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndn_packet::{
    decode_link_packet, Data, DataBuilder, Guiders, Interest, InterestBuilder, LpPacketBuilder,
    Name,
};

/// A 7-component name of 8.5 bytes per component on average (seed 000's URL-like names).
fn name() -> Name {
    (0..7).fold(Name::new(), |n, i| {
        n.push(
            (0..6 + i % 6)
                .map(|j| b'a' + ((i * 7 + j * 3) % 26) as u8)
                .collect::<Vec<u8>>(),
        )
    })
}

fn bench(c: &mut Criterion) {
    let interest = InterestBuilder::new(name())
        .can_be_prefix(true)
        .nonce([1, 2, 3, 4])
        .lifetime_ms(4000)
        .hop_limit(32)
        .encode()
        .unwrap();
    let with_params = InterestBuilder::new(name())
        .nonce([1, 2, 3, 4])
        .app_params(vec![7; 64])
        .encode()
        .unwrap();
    let data = DataBuilder::new(name())
        .freshness_period(1000)
        .content(vec![0x5a; 1024])
        .encode()
        .unwrap();
    let token = [0xaa; 8];
    let lp_data = LpPacketBuilder::new()
        .pit_token(&token)
        .encode(Some(&data))
        .unwrap();

    let mut g = c.benchmark_group("codec");
    g.throughput(Throughput::Elements(1));
    for (label, wire) in [
        ("interest", &interest),
        ("interest_params64", &with_params),
        ("lp_pit_token_data1k", &lp_data),
    ] {
        g.bench_with_input(
            BenchmarkId::new("decode_link_packet", label),
            wire,
            |b, w| b.iter(|| decode_link_packet(black_box(w)).map(|p| p.payload_range.len())),
        );
    }
    let i = Interest::new_checked(&interest).unwrap();
    let guiders = Guiders {
        nonce: Some([9; 4]),
        lifetime_ms: Some(100),
        hop_limit: Some(31),
    };
    let mut out = Vec::with_capacity(256);
    g.bench_function("write_with_guiders", |b| {
        b.iter(|| {
            out.clear();
            black_box(&i).write_with_guiders(&guiders, &mut out);
            out.len()
        })
    });
    let d = Data::new_checked(&data).unwrap();
    g.bench_function("implicit_digest_data1k", |b| {
        b.iter(|| black_box(&d).implicit_digest())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
