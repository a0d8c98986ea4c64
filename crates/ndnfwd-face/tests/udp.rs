//! UDP faces over 127.0.0.1: on-demand faces from a listener, a burst through
//! `recvmmsg`/`sendmmsg`, fragmentation across a small MTU, idle timeout, multicast.

mod common;

use common::{data, interest, patched, recv_n, tx};
use ndn_packet::link::{FaceScope, LinkType, LpToken, PacketKind};
use ndnfwd_face::{
    DownReason, DropReason, FaceEvent, FaceIdAllocator, FaceTable, FaceTableConfig, FaceUri,
    Persistency,
};

fn table(cfg: FaceTableConfig) -> FaceTable {
    FaceTable::new(FaceIdAllocator::default(), cfg).unwrap()
}

#[test]
fn udp_unicast_burst_creates_on_demand_face_and_round_trips() {
    let cfg = FaceTableConfig {
        udp_mtu: 1400,
        ..FaceTableConfig::default()
    };
    let mut a = table(cfg);
    let mut b = table(cfg);
    let FaceUri::Udp(a_addr) = a.listen_udp("127.0.0.1:0".parse().unwrap()).unwrap() else {
        panic!("listener URI is not UDP");
    };
    let fb = b.connect_udp(a_addr, Persistency::Persistent).unwrap();
    assert_eq!(
        b.drain_events().collect::<Vec<_>>(),
        vec![FaceEvent::Added(fb)]
    );

    // 200 Interests, every 10th one large enough to be fragmented at MTU 1400.
    let sent: Vec<_> = (0..200u32)
        .map(|i| {
            let mut p = tx(
                fb,
                PacketKind::Interest,
                interest(i, if i % 10 == 0 { 4000 } else { 0 }),
            );
            p.lp.pit_token = LpToken::new(&i.to_be_bytes()).unwrap();
            // Most patched, the big ones in any of their fragments.
            patched(p, i)
        })
        .collect();
    assert_eq!(b.send_burst(&sent), 200);

    // Loopback delivers synchronously, so the first receive takes one full recvmmsg batch
    // of 64 datagrams (fewer packets: some were fragments).
    let mut first = Vec::new();
    let n = a.recv_burst(0, &mut first, 10_000);
    assert!(n > 40 && n <= cfg.batch, "first burst {n}");
    let rest = recv_n(&mut a, 200 - first.len(), 100);
    let got: Vec<_> = first.into_iter().chain(rest).collect();
    assert_eq!(got.len(), 200);
    for (p, s) in got.iter().zip(&sent) {
        assert_eq!(p.wire, s.sent_wire());
        assert_eq!(p.lp.pit_token, s.lp.pit_token);
        assert_eq!(p.kind, PacketKind::Interest);
    }
    let fa = got[0].face;
    assert!(got.iter().all(|p| p.face == fa));
    let events: Vec<_> = a.drain_events().collect();
    assert_eq!(events, vec![FaceEvent::Added(fa)]);
    let info = a.info(fa).unwrap();
    // B's socket is bound to 0.0.0.0: the ports match.
    let (FaceUri::Udp(r), FaceUri::Udp(l)) = (&info.remote, &b.info(fb).unwrap().local) else {
        panic!("not UDP URIs");
    };
    assert_eq!(r.port(), l.port());
    assert_eq!(
        (info.scope, info.persistency),
        (FaceScope::Local, Persistency::OnDemand)
    );
    assert_eq!(info.link_type, LinkType::PointToPoint);
    assert!(info.remote.to_string().starts_with("udp4://127.0.0.1:"));
    assert_eq!(a.find_remote(&info.remote.clone()), Some(fa));
    assert_eq!(a.channels(), vec![FaceUri::Udp(a_addr)]);

    // Data back through the on-demand face.
    let replies: Vec<_> = (0..50u32)
        .map(|i| tx(fa, PacketKind::Data, data(i, 1000)))
        .collect();
    assert_eq!(a.send_burst(&replies), 50);
    let back = recv_n(&mut b, 50, 100);
    assert_eq!(back.len(), 50);
    assert!(back
        .iter()
        .zip(&replies)
        .all(|(g, s)| g.wire == s.wire && g.face == fb));

    let ca = a.counters(fa).unwrap().snapshot();
    assert_eq!((ca.in_interests, ca.out_data), (200, 50));
    let cb = b.counters(fb).unwrap().snapshot();
    assert_eq!((cb.out_interests, cb.in_data), (200, 50));
    assert!(ca.drop_counts().all(|(_, n)| n == 0));

    // Idle on-demand faces time out; the persistent one does not.
    a.tick(cfg.idle_timeout - 1);
    assert!(a.info(fa).is_some());
    a.tick(cfg.idle_timeout);
    assert!(a.info(fa).is_none());
    assert_eq!(
        a.drain_events().collect::<Vec<_>>(),
        vec![FaceEvent::Removed(fa, DownReason::Idle)]
    );
    b.tick(u64::MAX);
    assert!(b.info(fb).is_some());
    // Sending to a removed face is counted, not fatal.
    assert_eq!(a.send_burst(&replies[..1]), 0);
    assert_eq!(a.stats().tx_unknown_face, 1);
}

#[test]
fn connect_only_socket_ignores_strangers_and_duplicates_are_refused() {
    let mut a = table(FaceTableConfig::default());
    let mut b = table(FaceTableConfig::default());
    let FaceUri::Udp(a_addr) = a.listen_udp("127.0.0.1:0".parse().unwrap()).unwrap() else {
        panic!("listener URI is not UDP");
    };
    let fb = b.connect_udp(a_addr, Persistency::Permanent).unwrap();
    assert_eq!(
        b.connect_udp(a_addr, Persistency::Permanent),
        Err(ndnfwd_face::FaceError::Exists(fb))
    );
    // A stranger writes to B's connect-only socket: no face is made for it.
    let FaceUri::Udp(b_local) = b.info(fb).unwrap().local.clone() else {
        panic!("local URI is not UDP");
    };
    let stranger = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let b_port = std::net::SocketAddr::from(([127, 0, 0, 1], b_local.port()));
    stranger.send_to(&interest(1, 0), b_port).unwrap();
    assert!(recv_n(&mut b, 1, 5).is_empty());
    assert_eq!(b.stats().rx_unknown_peer, 1);
    assert_eq!(b.len(), 1);
    // Garbage from the real peer is counted on its face.
    b.send_burst(&[tx(fb, PacketKind::Interest, interest(2, 0))]);
    let got = recv_n(&mut a, 1, 50);
    let fa = got[0].face;
    let garbage = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    garbage.send_to(&[100, 2, 81, 0], a_addr).unwrap();
    assert!(recv_n(&mut a, 1, 5).is_empty());
    let stray = a
        .drain_events()
        .filter(|e| matches!(e, FaceEvent::Added(_)))
        .count();
    assert_eq!(stray, 2, "the garbage sender got an on-demand face too");
    let bad: u64 = a
        .faces()
        .filter(|i| i.id != fa)
        .map(|i| {
            a.counters(i.id)
                .unwrap()
                .snapshot()
                .drops(DropReason::BadLp)
        })
        .sum();
    assert_eq!(bad, 1);
}

#[test]
fn udp_multicast_over_loopback() {
    let cfg = FaceTableConfig {
        multicast_loop: true,
        ..FaceTableConfig::default()
    };
    let group: std::net::SocketAddr = format!(
        "239.255.70.{}:{}",
        std::process::id() % 250 + 1,
        50_000 + std::process::id() % 10_000
    )
    .parse()
    .unwrap();
    let lo = std::net::Ipv4Addr::LOCALHOST;
    let mut a = table(cfg);
    let mut b = table(cfg);
    let (fa, fb) = match (
        a.add_udp_multicast(group, lo),
        b.add_udp_multicast(group, lo),
    ) {
        (Ok(x), Ok(y)) => (x, y),
        (x, y) => {
            eprintln!("skipped: multicast on loopback unavailable here ({x:?}, {y:?})");
            return;
        }
    };
    let info = a.info(fa).unwrap();
    assert_eq!(info.link_type, LinkType::MultiAccess);
    assert_eq!(info.persistency, Persistency::Permanent);
    let pkts: Vec<_> = (0..20u32)
        .map(|i| tx(fa, PacketKind::Interest, interest(i, 0)))
        .collect();
    assert_eq!(a.send_burst(&pkts), 20);
    let got = recv_n(&mut b, 20, 100);
    if got.is_empty() {
        eprintln!("skipped: this host does not loop multicast back on lo");
        return;
    }
    assert_eq!(got.len(), 20);
    assert!(got.iter().all(|p| p.face == fb));
    // A does not hear itself.
    assert!(recv_n(&mut a, 1, 3).is_empty());
}
