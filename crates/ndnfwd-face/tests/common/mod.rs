//! Helpers shared by the integration tests: packets, and a bounded pump loop.
#![allow(dead_code)]

use bytes::Bytes;
use ndn_packet::link::{BytePatch, PacketKind, RxPacket, TxLp, TxPacket};
use ndn_packet::{DataBuilder, FaceId, InterestBuilder, Name};
use ndnfwd_face::{FaceEvent, FaceTable};

/// An Interest for `/test/<i>` with `pad` bytes of ApplicationParameters.
pub fn interest(i: u32, pad: usize) -> Bytes {
    let name = Name::from_uri("/test").unwrap().push(i.to_be_bytes());
    let mut b = InterestBuilder::new(name).nonce(i.to_le_bytes());
    if pad > 0 {
        b = b.app_params(vec![0x5a; pad]);
    }
    b.encode().unwrap().into()
}

/// A Data for `/test/<i>` with `len` bytes of content.
pub fn data(i: u32, len: usize) -> Bytes {
    let name = Name::from_uri("/test").unwrap().push(i.to_be_bytes());
    let content = (0..len).map(|k| (k as u32 ^ i) as u8).collect();
    DataBuilder::new(name)
        .content(content)
        .encode()
        .unwrap()
        .into()
}

/// A packet to send on `face`.
pub fn tx(face: FaceId, kind: PacketKind, wire: Bytes) -> TxPacket {
    TxPacket {
        face,
        kind,
        lp: TxLp::default(),
        wire,
        patch: None,
    }
}

/// `p` with a patch on a byte of the middle half of its TLV value chosen by `i` (every third
/// packet keeps none; in a big Data that is content, so tests can still decode it and read its
/// name), so that a burst mixes patched and plain packets: what arrives must be
/// `p.sent_wire()`.
pub fn patched(mut p: TxPacket, i: u32) -> TxPacket {
    if i % 3 != 0 {
        let (_, _, hdr) = ndn_packet::tlv::header(&p.wire).unwrap();
        let value = p.wire.len() - hdr;
        let at = hdr + value / 4 + (i as usize * 7919) % (value / 2);
        p.patch = Some(BytePatch {
            at: at as u16,
            byte: !p.wire[at],
        });
    }
    p
}

/// Receives on `t` until `n` packets arrived or `rounds` waits of up to 20 ms passed
/// (a bound against hangs, not a timing assertion).
pub fn recv_n(t: &mut FaceTable, n: usize, rounds: usize) -> Vec<RxPacket> {
    let mut out = Vec::new();
    for _ in 0..rounds {
        t.recv_burst(0, &mut out, 256);
        if out.len() >= n {
            break;
        }
        t.wait(20).unwrap();
    }
    out
}

/// Receives until an event matching `pred` arrives (bounded like [`recv_n`]).
pub fn wait_event(
    t: &mut FaceTable,
    rounds: usize,
    mut pred: impl FnMut(&FaceEvent) -> bool,
) -> Option<FaceEvent> {
    let mut sink = Vec::new();
    for _ in 0..rounds {
        t.recv_burst(0, &mut sink, 256);
        if let Some(e) = t.drain_events().find(|e| pred(e)) {
            return Some(e);
        }
        t.wait(20).unwrap();
    }
    None
}

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("ndnfwd-face-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Like [`recv_n`], while also polling `sender` so it can finish writing its backlog when
/// its socket becomes writable (what the sender's own I/O loop would do).
pub fn recv_n_pumping(
    t: &mut FaceTable,
    sender: &mut FaceTable,
    n: usize,
    rounds: usize,
) -> Vec<RxPacket> {
    let (mut out, mut sink) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        sender.recv_burst(0, &mut sink, 256);
        t.recv_burst(0, &mut out, 256);
        if out.len() >= n {
            break;
        }
        t.wait(20).unwrap();
    }
    assert!(sink.is_empty(), "the sender received nothing");
    out
}
