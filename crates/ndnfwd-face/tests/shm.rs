//! Shared-memory faces: whole packets both ways through the rings (8 KB ones too), a sleeping
//! side woken by its peer's doorbell, a full ring dropping and counting instead of blocking,
//! the listener's face limit, a peer that is not an ndnfwd client, and a closed peer becoming
//! a `Removed` event.

mod common;

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use common::{data, interest, patched, recv_n, tx, wait_event, TempDir};
use ndn_packet::link::{FaceScope, PacketKind};
use ndnfwd_face::{
    DownReason, DropReason, FaceEvent, FaceIdAllocator, FaceTable, FaceTableConfig, FaceUri,
    Persistency,
};

fn accepted(t: &mut FaceTable) -> u32 {
    match wait_event(t, 100, |e| matches!(e, FaceEvent::Added(_))) {
        Some(FaceEvent::Added(id)) => id,
        e => panic!("no face accepted: {e:?}"),
    }
}

/// A forwarder table listening at `path` and an app table connected to it; the app connects
/// from a thread because the handshake waits for the forwarder to accept.
fn pair(cfg: FaceTableConfig, path: &std::path::Path) -> (FaceTable, u32, FaceTable, u32) {
    let ids = FaceIdAllocator::default();
    let mut fwd = FaceTable::new(ids.clone(), cfg).unwrap();
    let uri = fwd.listen_shm(path).unwrap();
    assert_eq!(uri, FaceUri::Shm(path.to_owned()));
    assert_eq!(fwd.channels(), vec![uri]);
    let p = path.to_owned();
    let app = std::thread::spawn(move || {
        let mut app = FaceTable::new(ids, FaceTableConfig::default()).unwrap();
        let fa = app.connect_shm(&p, Persistency::Persistent).unwrap();
        (app, fa)
    });
    let ff = accepted(&mut fwd);
    let (app, fa) = app.join().unwrap();
    (fwd, ff, app, fa)
}

#[test]
fn shm_face_pair_exchanges_whole_packets_and_reports_close() {
    let dir = TempDir::new("shm");
    let path = dir.0.join("shm.sock");
    let (mut fwd, ff, mut app, fa) = pair(FaceTableConfig::default(), &path);
    let info = fwd.info(ff).unwrap();
    assert_eq!(
        (info.scope, info.persistency, info.mtu),
        (FaceScope::Local, Persistency::OnDemand, None)
    );
    assert_eq!(app.info(fa).unwrap().remote, FaceUri::Shm(path.clone()));

    // Interests up, then Data of every size up to 8 KB down, unfragmented.
    // Most patched: the patched byte is written into the ring as the packet is copied.
    let up: Vec<_> = (0..300u32)
        .map(|i| {
            patched(
                tx(fa, PacketKind::Interest, interest(i, i as usize % 40)),
                i,
            )
        })
        .collect();
    assert_eq!(app.send_burst(&up), 300);
    let got = recv_n(&mut fwd, 300, 100);
    assert_eq!(got.len(), 300);
    for (g, s) in got.iter().zip(&up) {
        assert_eq!((g.face, &g.wire), (ff, &s.sent_wire()));
    }
    let down: Vec<_> = (0..200u32)
        .map(|i| tx(ff, PacketKind::Data, data(i, 41 * i as usize)))
        .collect();
    assert_eq!(fwd.send_burst(&down), 200);
    let got = recv_n(&mut app, 200, 100);
    assert_eq!(got.len(), 200);
    for (g, s) in got.iter().zip(&down) {
        assert_eq!((g.face, &g.wire), (fa, &s.wire));
    }
    let c = fwd.counters(ff).unwrap().snapshot();
    assert_eq!((c.in_interests, c.out_data), (300, 200));

    // The app goes away: the forwarder sees the face go down.
    drop(app);
    let ev = wait_event(&mut fwd, 100, |e| matches!(e, FaceEvent::Removed(..)));
    assert_eq!(ev, Some(FaceEvent::Removed(ff, DownReason::Closed)));
    assert!(fwd.info(ff).is_none());
}

#[test]
fn sleeping_side_is_woken_by_its_peer() {
    let dir = TempDir::new("shm-wake");
    let path = dir.0.join("shm.sock");
    let (mut fwd, ff, mut app, fa) = pair(FaceTableConfig::default(), &path);
    // The forwarder sleeps for up to 10 s; the app's send must wake it long before.
    let sleeper = std::thread::spawn(move || {
        let mut out = Vec::new();
        let start = std::time::Instant::now();
        while out.is_empty() && start.elapsed() < Duration::from_secs(30) {
            fwd.wait(10_000).unwrap();
            fwd.recv_burst(0, &mut out, 64);
        }
        (out, start.elapsed())
    });
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(
        app.send_burst([tx(fa, PacketKind::Interest, interest(1, 0))]),
        1
    );
    let (out, waited) = sleeper.join().unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].face, ff);
    assert!(
        waited < Duration::from_secs(10),
        "woken by the doorbell, not the timeout"
    );
}

#[test]
fn full_ring_drops_and_counts_instead_of_blocking() {
    let dir = TempDir::new("shm-full");
    let path = dir.0.join("shm.sock");
    let cfg = FaceTableConfig {
        shm_ring: 1 << 16,
        ..FaceTableConfig::default()
    };
    let (mut fwd, ff, mut app, _) = pair(cfg, &path);
    // 20 Data of 8 KB do not fit a 64 KiB ring the app does not read.
    let down: Vec<_> = (0..20u32)
        .map(|i| tx(ff, PacketKind::Data, data(i, 8000)))
        .collect();
    assert_eq!(fwd.send_burst(&down), 20);
    let c = fwd.counters(ff).unwrap().snapshot();
    let dropped = c.drops(DropReason::TxQueueFull);
    assert!((10..20).contains(&dropped), "dropped {dropped}");
    let got = recv_n(&mut app, 20 - dropped as usize, 100);
    assert_eq!(got.len(), 20 - dropped as usize);
    for (g, s) in got.iter().zip(&down) {
        assert_eq!(g.wire, s.wire);
    }
    // Once read, the ring takes packets again.
    assert_eq!(fwd.send_burst(&down[..2]), 2);
    assert_eq!(recv_n(&mut app, 2, 100).len(), 2);
}

#[test]
fn listener_limit_and_foreign_peers_are_refused_cleanly() {
    let dir = TempDir::new("shm-limit");
    let path = dir.0.join("shm.sock");
    let cfg = FaceTableConfig {
        shm_faces: 1,
        ..FaceTableConfig::default()
    };
    let (mut fwd, _ff, _app, _) = pair(cfg, &path);
    // Over the limit: the connection is closed without memory, and counted.
    let mut extra = UnixStream::connect(&path).unwrap();
    extra
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut sink = Vec::new();
    for _ in 0..50 {
        fwd.recv_burst(0, &mut sink, 64);
        if fwd.stats().faces_refused > 0 {
            break;
        }
        fwd.wait(20).unwrap();
    }
    assert_eq!(fwd.stats().faces_refused, 1);
    let mut b = [0u8; 8];
    assert_eq!(extra.read(&mut b).unwrap(), 0, "closed");
    assert_eq!(fwd.len(), 1);

    // An app connecting to a plain Unix listener gets no memory: a clear error, no face.
    let plain = dir.0.join("plain.sock");
    let mut other = FaceTable::new(FaceIdAllocator::default(), FaceTableConfig::default()).unwrap();
    other.listen_unix(&plain).unwrap();
    let cfg = FaceTableConfig {
        connect_timeout_ms: 200,
        ..FaceTableConfig::default()
    };
    let mut app = FaceTable::new(FaceIdAllocator::default(), cfg).unwrap();
    assert!(app.connect_shm(&plain, Persistency::Persistent).is_err());
    assert!(app.is_empty());
    // A peer that writes garbage doorbell bytes and never maps its memory is harmless; its
    // face goes when it closes.
    drop(fwd);
    let shm2 = dir.0.join("shm2.sock");
    let mut fwd2 = FaceTable::new(FaceIdAllocator::default(), FaceTableConfig::default()).unwrap();
    fwd2.listen_shm(&shm2).unwrap();
    let mut raw = UnixStream::connect(&shm2).unwrap();
    let fr = accepted(&mut fwd2);
    raw.write_all(&[0xff; 100]).unwrap();
    for _ in 0..5 {
        fwd2.recv_burst(0, &mut sink, 64);
        fwd2.wait(20).unwrap();
    }
    assert!(fwd2.info(fr).is_some());
    assert!(sink.is_empty());
    // It never read the byte that came with its memory, so the close is a reset.
    drop(raw);
    let ev = wait_event(&mut fwd2, 100, |e| matches!(e, FaceEvent::Removed(..)));
    assert!(
        matches!(ev, Some(FaceEvent::Removed(id, _)) if id == fr),
        "{ev:?}"
    );
}

#[test]
fn busy_rings_take_turns() {
    let dir = TempDir::new("shm-turns");
    let path = dir.0.join("shm.sock");
    let (mut fwd, f1, mut app1, a1) = pair(FaceTableConfig::default(), &path);
    let mut app2 = FaceTable::new(FaceIdAllocator::default(), FaceTableConfig::default()).unwrap();
    let p = path.clone();
    let joined = std::thread::spawn(move || {
        let a2 = app2.connect_shm(&p, Persistency::Persistent).unwrap();
        (app2, a2)
    });
    let f2 = accepted(&mut fwd);
    let (mut app2, a2) = joined.join().unwrap();
    let burst = |face| -> Vec<_> {
        (0..200u32)
            .map(|i| tx(face, PacketKind::Interest, interest(i, 0)))
            .collect()
    };
    assert_eq!(app1.send_burst(burst(a1)), 200);
    assert_eq!(app2.send_burst(burst(a2)), 200);
    // Bursts of 64 from two full rings: within two bursts both faces are served.
    let mut out = Vec::new();
    fwd.recv_burst(0, &mut out, 64);
    fwd.recv_burst(0, &mut out, 64);
    assert!(out.iter().any(|p| p.face == f1) && out.iter().any(|p| p.face == f2));
    assert_eq!(
        recv_n(&mut fwd, 400 - out.len(), 100).len(),
        400 - out.len()
    );
}
