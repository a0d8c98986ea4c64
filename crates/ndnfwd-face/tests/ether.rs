//! Ethernet faces over AF_PACKET on a veth pair inside a network namespace this test creates
//! and deletes. Needs root and `ip`; otherwise it prints why it is skipped.
//!
//! The outer test builds the namespace and re-runs this binary inside it (`ip netns exec`)
//! for the inner test, which does the traffic; so no frame ever leaves the namespace.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{data, interest, recv_n, tx};
use ndn_packet::link::{LinkType, PacketKind};
use ndnfwd_face::{FaceIdAllocator, FaceTable, FaceTableConfig, FaceUri, MacAddr, Persistency};

const INNER_ENV: &str = "NDNFWD_FACE_NETNS_INNER";

fn ip(args: &[&str]) -> bool {
    Command::new("ip")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Deletes the namespace (and with it the veth pair) however the test ends.
struct Netns(String);

impl Drop for Netns {
    fn drop(&mut self) {
        ip(&["netns", "del", &self.0]);
    }
}

fn skip_reason() -> Option<&'static str> {
    // The effective uid is the third field of the Uid line.
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let root = status
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(2))
        == Some("0");
    if !root {
        return Some("not root");
    }
    if !ip(&["-V"]) {
        return Some("the `ip` command is missing");
    }
    None
}

#[test]
fn ether_faces_over_veth_in_netns() {
    if let Some(why) = skip_reason() {
        eprintln!("skipped ether_faces_over_veth_in_netns: {why}");
        return;
    }
    let ns = Netns(format!("ndnfwd-face-{}", std::process::id()));
    if !ip(&["netns", "add", &ns.0]) {
        eprintln!("skipped ether_faces_over_veth_in_netns: cannot create a network namespace");
        return;
    }
    let n = &ns.0;
    assert!(ip(&[
        "-n", n, "link", "add", "nf0", "type", "veth", "peer", "name", "nf1"
    ]));
    for dev in ["nf0", "nf1", "lo"] {
        assert!(ip(&["-n", n, "link", "set", dev, "up"]));
    }
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new("ip")
        .args(["netns", "exec", n])
        .arg(exe)
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
