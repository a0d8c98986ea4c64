//! Face-layer micro-benchmarks: the NDNLPv2 link service alone (encode + decode, with and
//! without fragmentation), and a UDP face pair on loopback (sendmmsg + epoll + recvmmsg +
//! decode) per burst of 64 packets.
#![allow(missing_docs)] // criterion_group! generates an undocumented pub fn

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ndn_packet::link::{LpToken, PacketKind, TxLp, TxPacket};
use ndn_packet::{DataBuilder, InterestBuilder, Name};
use ndnfwd_face::{
    FaceCounters, FaceIdAllocator, FaceTable, FaceTableConfig, FaceUri, LinkConfig, LinkService,
    Persistency,
};

fn interest() -> Bytes {
    let name = Name::from_uri("/bench/prefix/component/42").unwrap();
    InterestBuilder::new(name)
        .nonce([1, 2, 3, 4])
        .lifetime_ms(4000)
        .encode()
        .unwrap()
        .into()
}

fn data(len: usize) -> Bytes {
    let name = Name::from_uri("/bench/prefix/component/42").unwrap();
    DataBuilder::new(name)
        .content(vec![7; len])
        .encode()
        .unwrap()
        .into()
}

fn pkt(kind: PacketKind, wire: Bytes, token: bool) -> TxPacket {
    let lp = TxLp {
        pit_token: if token {
            LpToken::new(&[9; 8]).unwrap()
        } else {
            LpToken::EMPTY
        },
        ..TxLp::default()
    };
    TxPacket {
        face: 300,
        kind,
        lp,
        wire,
        patch: None,
    }
}

/// Encode on one link service, decode on another; returns the packets delivered.
fn through(tx: &mut LinkService, rx: &mut LinkService, p: &TxPacket, s: &mut Scratch) -> usize {
    s.heads.clear();
    s.frames.clear();
    tx.encode(&mut p.clone(), &mut s.heads, &mut s.frames, &s.c);
    let mut n = 0;
    for f in &s.frames {
        let frame = if f.head.is_empty() {
            f.body.clone()
        } else {
            let mut w = s.heads[f.head.clone()].to_vec();
            f.body_parts().iter().for_each(|p| w.extend_from_slice(p));
            w.into()
        };
        n += usize::from(rx.decode(0, 300, 0, frame, &s.c).is_some());
    }
    n
}

struct Scratch {
    heads: Vec<u8>,
    frames: Vec<ndnfwd_face::Frame>,
    c: FaceCounters,
}

fn link(c: &mut Criterion) {
    let mut g = c.benchmark_group("link");
    g.sample_size(20)
        .measurement_time(std::time::Duration::from_secs(2));
    g.throughput(Throughput::Elements(1));
    let cases = [
        (
            "interest_bare",
            pkt(PacketKind::Interest, interest(), false),
            None,
        ),
        (
            "interest_pit_token",
            pkt(PacketKind::Interest, interest(), true),
            None,
        ),
        (
            "data_1k_pit_token",
            pkt(PacketKind::Data, data(1000), true),
            Some(1500),
        ),
        (
            "data_8k_frag_mtu1500",
            pkt(PacketKind::Data, data(8000), true),
            Some(1500),
        ),
    ];
    for (name, p, mtu) in cases {
        let mut tx = LinkService::new(
            LinkConfig {
                mtu,
                ..LinkConfig::default()
            },
            0,
        );
        let mut rx = LinkService::new(LinkConfig::default(), 0);
        let mut s = Scratch {
            heads: Vec::new(),
            frames: Vec::new(),
            c: FaceCounters::default(),
        };
        g.bench_function(name, |b| b.iter(|| through(&mut tx, &mut rx, &p, &mut s)));
    }
    g.finish();
}

fn udp(c: &mut Criterion) {
    let mut g = c.benchmark_group("udp_loopback_burst64");
    g.sample_size(20)
        .measurement_time(std::time::Duration::from_secs(3));
    g.throughput(Throughput::Elements(64));
    let mut a = FaceTable::new(FaceIdAllocator::default(), FaceTableConfig::default()).unwrap();
    let mut b = FaceTable::new(FaceIdAllocator::default(), FaceTableConfig::default()).unwrap();
    let FaceUri::Udp(addr) = a.listen_udp("127.0.0.1:0".parse().unwrap()).unwrap() else {
        panic!("not UDP");
    };
    let fb = b.connect_udp(addr, Persistency::Persistent).unwrap();
    for (name, wire) in [("interest", interest()), ("data_1k", data(1000))] {
        let kind = if name == "interest" {
            PacketKind::Interest
        } else {
            PacketKind::Data
        };
        let burst: Vec<_> = (0..64)
            .map(|_| TxPacket {
                face: fb,
                ..pkt(kind, wire.clone(), true)
            })
            .collect();
        let mut out = Vec::with_capacity(128);
        g.bench_function(name, |bn| {
            bn.iter(|| {
                b.send_burst(&burst);
                let mut got = 0;
                while got < 64 {
                    out.clear();
                    got += a.recv_burst(0, &mut out, 128);
                }
                got
            })
        });
    }
    g.finish();
}

criterion_group!(benches, link, udp);
criterion_main!(benches);
