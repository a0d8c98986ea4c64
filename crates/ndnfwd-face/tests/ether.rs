//! Ethernet faces over AF_PACKET on a veth pair inside a network namespace this test creates
//! and deletes. Needs root and `ip`; otherwise it prints why it is skipped.
//!
//! The outer test builds the namespace and re-runs this binary inside it (`ip netns exec`)
//! for the inner test, which does the traffic; so no frame ever leaves the namespace.

mod common;

use std::time::{Duration, Instant};

use common::{data, interest, recv_n, tx};
use ndn_packet::link::{LinkType, PacketKind};
use ndnfwd_face::{FaceIdAllocator, FaceTable, FaceTableConfig, FaceUri, MacAddr, Persistency};
use ndnfwd_netns::{skip_reason, veth, Netns};

const INNER_ENV: &str = "NDNFWD_FACE_NETNS_INNER";

#[test]
fn ether_faces_over_veth_in_netns() {
    if let Some(why) = skip_reason() {
        eprintln!("skipped ether_faces_over_veth_in_netns: {why}");
        return;
    }
    // Deleted (and with it the veth pair) however the test ends.
    let ns = Netns::new("ndnfwd-face").unwrap_or_else(|e| panic!("{e}"));
    veth((&ns, "nf0"), (&ns, "nf1")).unwrap_or_else(|e| panic!("{e}"));
    let exe = std::env::current_exe().unwrap();
    let mut child = ns
        .command(exe)
        .args(["--exact", "ether_inner", "--include-ignored", "--nocapture"])
        .env(INNER_ENV, "1")
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("inner test hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "inner test failed: {status}");
}

fn mac_of(dev: &str) -> MacAddr {
    std::fs::read_to_string(format!("/sys/class/net/{dev}/address"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
#[ignore = "run inside a namespace by ether_faces_over_veth_in_netns"]
fn ether_inner() {
    if std::env::var_os(INNER_ENV).is_none() {
        eprintln!("skipped ether_inner: only runs inside the namespace the outer test makes");
        return;
    }
    let ids = FaceIdAllocator::default();
    let mut a = FaceTable::new(ids.clone(), FaceTableConfig::default()).unwrap();
    let mut b = FaceTable::new(ids, FaceTableConfig::default()).unwrap();
    let group = MacAddr::NDN_MULTICAST;
    let ma = a.add_ether("nf0", group, Persistency::Permanent).unwrap();
    let mb = b.add_ether("nf1", group, Persistency::Permanent).unwrap();
    let info = a.info(ma).unwrap();
    assert_eq!(info.local, FaceUri::Dev("nf0".into()));
    assert_eq!(info.remote.to_string(), "ether://[01:00:5e:00:17:aa]");
    assert_eq!(
        (info.link_type, info.mtu),
        (LinkType::MultiAccess, Some(1500))
    );

    // Multicast: small Interests (shorter than Ethernet's minimum: padding is stripped) and a
    // Data larger than the MTU (fragmented).
    let mut pkts: Vec<_> = (0..40u32)
        .map(|i| tx(ma, PacketKind::Interest, interest(i, 0)))
        .collect();
    pkts.push(tx(ma, PacketKind::Data, data(99, 6000)));
    assert_eq!(a.send_burst(&pkts), 41);
    let got = recv_n(&mut b, 41, 100);
    assert_eq!(got.len(), 41);
    assert!(got
        .iter()
        .zip(&pkts)
        .all(|(g, s)| g.wire == s.wire && g.face == mb));
    assert!(
        recv_n(&mut a, 1, 3).is_empty(),
        "a face does not hear its own frames"
    );

    // Unicast faces between the two MACs.
    let ua = a
        .add_ether("nf0", mac_of("nf1"), Persistency::Persistent)
        .unwrap();
    let ub = b
        .add_ether("nf1", mac_of("nf0"), Persistency::Persistent)
        .unwrap();
    assert_eq!(a.info(ua).unwrap().link_type, LinkType::PointToPoint);
    let back: Vec<_> = (0..20u32)
        .map(|i| tx(ub, PacketKind::Data, data(i, 1200)))
        .collect();
    b.send_burst(&back);
    let got = recv_n(&mut a, 20, 100);
    assert_eq!(got.len(), 20);
    // Unicast frames reach the unicast face only, not the multicast one.
    assert!(got
        .iter()
        .zip(&back)
        .all(|(g, s)| g.wire == s.wire && g.face == ua));
    let c = a.counters(ua).unwrap().snapshot();
    assert_eq!(c.in_data, 20);
    assert!(c.drop_counts().all(|(_, n)| n == 0));
}
