//! Stream faces: Unix sockets in a temp dir and TCP on loopback. Whole packets both ways (never
//! fragmented), framing across partial writes, oversized elements close the face, a closed
//! peer becomes a `Removed` event, and backpressure never cuts a frame.

mod common;

use std::io::Write;
use std::os::unix::net::UnixStream;

use common::{data, interest, patched, recv_n, recv_n_pumping, tx, wait_event, TempDir};
use ndn_packet::link::{FaceScope, PacketKind};
use ndn_packet::Data;
use ndnfwd_face::{
    DownReason, DropReason, FaceEvent, FaceIdAllocator, FaceTable, FaceTableConfig, FaceUri,
    Persistency,
};

fn table(cfg: FaceTableConfig) -> FaceTable {
    FaceTable::new(FaceIdAllocator::default(), cfg).unwrap()
}

/// The face `t` made for a new peer (accepting it on the way).
fn accepted(t: &mut FaceTable) -> u32 {
    match wait_event(t, 100, |e| matches!(e, FaceEvent::Added(_))) {
        Some(FaceEvent::Added(id)) => id,
        e => panic!("no face accepted: {e:?}"),
    }
}

#[test]
fn unix_face_pair_exchanges_whole_packets_and_reports_close() {
    let dir = TempDir::new("unix");
    let path = dir.0.join("nfd.sock");
    let ids = FaceIdAllocator::default();
    let mut fwd = FaceTable::new(ids.clone(), FaceTableConfig::default()).unwrap();
    let mut app = FaceTable::new(ids, FaceTableConfig::default()).unwrap();
    let uri = fwd.listen_unix(&path).unwrap();
    assert_eq!(uri.to_string(), format!("unix://{}", path.display()));
    let fa = app.connect_unix(&path, Persistency::Persistent).unwrap();
    let ff = accepted(&mut fwd);
    assert_ne!(fa, ff, "one allocator: ids unique across tables");
    let info = fwd.info(ff).unwrap();
    assert_eq!(
        (info.scope, info.persistency, info.mtu),
        (FaceScope::Local, Persistency::OnDemand, None)
    );
    assert!(matches!(info.remote, FaceUri::Fd(_)));
    assert_eq!(info.local, uri);

    // Big Data goes whole toward the app: a stream face never fragments.
    // Most of them patched: the patch goes out in place through writev and the backlog.
    let pkts: Vec<_> = (0..100u32)
        .map(|i| patched(tx(ff, PacketKind::Data, data(i, 80 * i as usize)), i))
        .collect();
    assert_eq!(fwd.send_burst(&pkts), 100);
    // 400 kB is more than the socket buffer: the rest waits in the backlog until the
    // forwarder's poller reports the socket writable.
    let got = recv_n_pumping(&mut app, &mut fwd, 100, 200);
    assert_eq!(got.len(), 100);
    for (g, s) in got.iter().zip(&pkts) {
        assert_eq!(g.wire, s.sent_wire());
        assert_eq!(g.face, fa);
    }
    // Packets passed by `&mut` give their buffers to the frames; borrowed ones (above) stay.
    let mut up: Vec<_> = (0..30u32)
        .map(|i| tx(fa, PacketKind::Interest, interest(i, 0)))
        .collect();
    let wires: Vec<_> = up.iter().map(|p| p.wire.clone()).collect();
    assert_eq!(app.send_burst(&mut up), 30);
    assert!(up.iter().all(|p| p.wire.is_empty()));
    let got = recv_n(&mut fwd, 30, 100);
    assert_eq!(got.into_iter().map(|p| p.wire).collect::<Vec<_>>(), wires);

    // The app goes away: the forwarder sees the face go down.
    let counters = fwd.counters(ff).unwrap();
    drop(app);
    let ev = wait_event(&mut fwd, 100, |e| matches!(e, FaceEvent::Removed(..)));
    assert_eq!(ev, Some(FaceEvent::Removed(ff, DownReason::Closed)));
    assert!(fwd.info(ff).is_none());
    assert_eq!(counters.snapshot().out_data, 100);
    drop(fwd);
    assert!(!path.exists(), "the listener removes its socket file");
}

#[test]
fn partial_writes_are_framed_and_oversized_elements_close_the_face() {
    let dir = TempDir::new("framing");
    let path = dir.0.join("s.sock");
    let mut fwd = table(FaceTableConfig::default());
    fwd.listen_unix(&path).unwrap();
    let mut client = UnixStream::connect(&path).unwrap();
    let ff = accepted(&mut fwd);

    // Two packets written in 1-, 2- and 3-byte pieces, with the face polled in between.
    let mut wire = interest(1, 0).to_vec();
    wire.extend_from_slice(&data(2, 3000));
    let mut got = Vec::new();
    for (k, piece) in wire.chunks(1 + wire.len() % 3).enumerate() {
        client.write_all(piece).unwrap();
        if k % 50 == 0 {
            got.extend(recv_n(&mut fwd, 0, 1));
        }
    }
    got.extend(recv_n(&mut fwd, 2 - got.len(), 100));
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].kind, PacketKind::Interest);
    assert_eq!(got[1].wire, data(2, 3000));

    // A Data declaring 100 000 bytes: the face is closed before the body arrives.
    let counters = fwd.counters(ff).unwrap();
    client.write_all(&[6, 254, 0, 1, 0x86, 0xa0]).unwrap();
    let ev = wait_event(&mut fwd, 100, |e| matches!(e, FaceEvent::Removed(..)));
    assert_eq!(ev, Some(FaceEvent::Removed(ff, DownReason::BadFraming)));
    assert_eq!(counters.snapshot().drops(DropReason::FrameTooLarge), 1);
}

#[test]
fn tcp_face_pair_on_loopback() {
    let mut a = table(FaceTableConfig::default());
    let mut b = table(FaceTableConfig::default());
    let FaceUri::Tcp(addr) = a.listen_tcp("127.0.0.1:0".parse().unwrap()).unwrap() else {
        panic!("listener URI is not TCP");
    };
    let fb = b.connect_tcp(addr, Persistency::Persistent).unwrap();
    assert_eq!(
        b.connect_tcp(addr, Persistency::Persistent),
        Err(ndnfwd_face::FaceError::Exists(fb))
    );
    let fa = accepted(&mut a);
    let info = a.info(fa).unwrap();
    assert_eq!(info.scope, FaceScope::Local);
    assert_eq!(info.remote, b.info(fb).unwrap().local);
    assert!(info.remote.to_string().starts_with("tcp4://127.0.0.1:"));

    let pkts: Vec<_> = (0..200u32)
        .map(|i| tx(fb, PacketKind::Interest, interest(i, i as usize)))
        .collect();
    b.send_burst(&pkts);
    let got = recv_n(&mut a, 200, 100);
    assert_eq!(got.len(), 200);
    assert!(got
        .iter()
        .zip(&pkts)
        .all(|(g, s)| g.wire == s.wire && g.face == fa));
    let mut nack = tx(fa, PacketKind::Nack, interest(7, 0));
    nack.lp.nack = Some(ndn_packet::lp::NackReason::NoRoute);
    a.send_burst(&[nack]);
    let got = recv_n(&mut b, 1, 100);
    assert_eq!(got[0].kind, PacketKind::Nack);

    drop(b);
    let ev = wait_event(&mut a, 100, |e| matches!(e, FaceEvent::Removed(..)));
    assert!(matches!(ev, Some(FaceEvent::Removed(id, _)) if id == fa));
}

#[test]
fn backpressure_keeps_frames_whole_and_bounded() {
    let cfg = FaceTableConfig {
        stream_backlog: 256 * 1024,
        ..FaceTableConfig::default()
    };
    let mut a = table(cfg);
    let mut b = table(cfg);
    let FaceUri::Tcp(addr) = a.listen_tcp("127.0.0.1:0".parse().unwrap()).unwrap() else {
        panic!("listener URI is not TCP");
    };
    let fb = b.connect_tcp(addr, Persistency::Persistent).unwrap();
    accepted(&mut a);
    // 16 MB while nobody reads: the kernel takes a few MB, the backlog 256 KiB, the rest is
    // dropped whole.
    let n = 2000u32;
    for chunk in (0..n).collect::<Vec<_>>().chunks(100) {
        let pkts: Vec<_> = chunk
            .iter()
            .map(|&i| patched(tx(fb, PacketKind::Data, data(i, 8000)), i))
            .collect();
        b.send_burst(&pkts);
    }
    let dropped = b
        .counters(fb)
        .unwrap()
        .snapshot()
        .drops(DropReason::TxQueueFull);
    assert!(dropped > 0 && dropped < u64::from(n));
    let expect = (u64::from(n) - dropped) as usize;
    let mut got = Vec::new();
    for _ in 0..2000 {
        a.recv_burst(0, &mut got, 512);
        b.tick(0);
        if got.len() >= expect {
            break;
        }
        a.wait(5).unwrap();
    }
    assert_eq!(got.len(), expect);
    // Every packet arrived whole and in order.
    let mut last = None;
    for p in &got {
        let d = Data::new_checked(&p.wire).unwrap();
        let i = u32::from_be_bytes(d.name().get(1).unwrap().value().try_into().unwrap());
        assert!(last < Some(i));
        last = Some(i);
        let sent = patched(tx(fb, PacketKind::Data, data(i, 8000)), i);
        assert_eq!(p.wire, sent.sent_wire());
    }
}
