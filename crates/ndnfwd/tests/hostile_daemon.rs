//! Hostile input through a running daemon's UDP face: malformed frames of every kind are
//! dropped and counted under their own names and the daemon forwards normally afterwards
//! (loopback); scope rules hold for a non-local UDP face (inside a network namespace the test
//! makes; skipped with a printed reason when not root).

mod common;

use std::net::UdpSocket;
use std::time::Duration;

use common::*;
use ndn_packet::data::Data;
use ndn_packet::interest::Interest;
use ndn_packet::{decode_link_packet, InterestBuilder, Name};
use ndnfwd_mgmt::client::{CommandSigner, Signing};
use ndnfwd_mgmt::ControlParameters;
use ndnfwd_netns::{skip_reason, veth, Netns};

fn vn(n: usize) -> Vec<u8> {
    match n {
        0..=252 => vec![n as u8],
        253..=0xffff => vec![0xfd, (n >> 8) as u8, n as u8],
        _ => [vec![0xfe], (n as u32).to_be_bytes().to_vec()].concat(),
    }
}

fn tlv(t: usize, v: &[u8]) -> Vec<u8> {
    [vn(t), vn(v.len()), v.to_vec()].concat()
}

fn interest(uri: &str) -> Vec<u8> {
    InterestBuilder::new(Name::from_uri(uri).unwrap())
        .nonce(rand_nonce())
        .lifetime_ms(1000)
        .encode()
        .unwrap()
}

fn rand_nonce() -> [u8; 4] {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0x1000);
    N.fetch_add(1, Ordering::Relaxed).to_be_bytes()
}

/// LpPacket TLV-TYPEs (NDNLPv2).
const LP_PACKET: usize = 100;
const FRAGMENT: usize = 80;
const SEQUENCE: usize = 81;
const FRAG_INDEX: usize = 82;
const FRAG_COUNT: usize = 83;
const PIT_TOKEN: usize = 98;

fn fragment(seq: u64, index: u16, count: u16, part: &[u8]) -> Vec<u8> {
    let v = [
        tlv(SEQUENCE, &seq.to_be_bytes()),
        tlv(FRAG_INDEX, &index.to_be_bytes()),
        tlv(FRAG_COUNT, &count.to_be_bytes()),
        tlv(FRAGMENT, part),
    ]
    .concat();
    tlv(LP_PACKET, &v)
}

/// Sums the counters named `keys` over every place the status document has them: face-layer
/// drops, I/O stages, workers and management.
fn sum(s: &serde_json::Value, keys: &[&str]) -> u64 {
    let dp = &s["dataplane"];
    let mut total = 0;
    for k in keys {
        total += dp["face_drops"][k].as_u64().unwrap_or(0);
        for io in dp["io"].as_array().into_iter().flatten() {
            total += io[k].as_u64().unwrap_or(0);
        }
        for w in dp["workers"].as_array().into_iter().flatten() {
            total += w["counters"][k].as_u64().unwrap_or(0);
        }
        total += s["status"]["mgmt"]["drops"][k].as_u64().unwrap_or(0);
    }
    total
}

fn free_udp_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Daemon {
    dir: TempDir,
    d: Proc,
    port: u16,
}

impl Daemon {
    fn start(tag: &str, localhop: bool) -> Self {
        let dir = TempDir::new(tag);
        let port = free_udp_port();
        let udp = format!("127.0.0.1:{port}");
        let cfg = write_config(&dir, &[&udp], &format!("localhop = {localhop}\n"), "");
        let d = daemon(tag, None, &cfg, &dir.path("daemon.log"));
        Self { dir, d, port }
    }

    fn status(&self) -> serde_json::Value {
        status(&self.d, &self.dir.path("status.json"))
    }

    fn udp(&self) -> UdpSocket {
        let s = UdpSocket::bind("127.0.0.1:0").unwrap();
        s.connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_millis(700)))
            .unwrap();
        s
    }

    /// Sends `frames` and waits until the counters `keys` grew by exactly `frames.len()`.
    fn expect_dropped(&self, sock: &UdpSocket, what: &str, frames: &[Vec<u8>], keys: &[&str]) {
        let before = sum(&self.status(), keys);
        for f in frames {
            sock.send(f).unwrap();
        }
        let n = frames.len() as u64;
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        let mut s = self.status();
        while sum(&s, keys) < before + n && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
            s = self.status();
        }
        let after = sum(&s, keys);
        assert_eq!(
            after - before,
            n,
            "{what}: counted {keys:?}; data plane: {}",
            s["dataplane"]
        );
    }
}

#[test]
fn malformed_frames_dropped_by_name_and_daemon_still_forwards() {
    let dm = Daemon::start("hostile", false);
    let sock_path = dm.dir.path("nfd.sock");
    let _prod = producer(&sock_path, "/ok", 100);
    wait_route(&sock_path, "/ok/probe");
    let udp = dm.udp();
    // Make the on-demand UDP face exist first (its counters are the ones to watch).
    let (code, v) = consumer(&sock_path, &["--name", "/ok/warm", "--lifetime", "500"]);
    assert_eq!(code, Some(0), "{v}");
    udp.send(&interest("/ok/udp-warm")).unwrap();
    let mut buf = vec![0u8; 9000];
    assert!(udp.recv(&mut buf).is_ok(), "UDP face answers");

    let good = interest("/ok/x");
    let truncated: Vec<Vec<u8>> = (1..good.len()).map(|k| good[..k].to_vec()).collect();
    dm.expect_dropped(&udp, "truncated TLVs", &truncated, &["bad_packet"]);
    let past = vec![
        vec![0x05, 0xfd, 0x10, 0x00, 0x07, 0x00],
        vec![0x06, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x07],
        vec![0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        [vec![0xff; 9], vec![0x00]].concat(),
    ];
    dm.expect_dropped(
        &udp,
        "lengths past the buffer, max VAR-NUMBERs",
        &past,
        &["bad_packet"],
    );
    // Interests nested in Interests: one well-formed outer TLV whose content is not an Interest.
    let mut deep = good.clone();
    for _ in 0..50 {
        deep = tlv(5, &deep);
    }
    dm.expect_dropped(&udp, "deep nesting", &[deep], &["bad_packet", "bad_name"]);
    // Unknown critical network-layer element (type 13: <= 31, critical) inside an Interest.
    let crit = tlv(5, &[tlv(7, &tlv(8, b"ok")), tlv(13, b"")].concat());
    dm.expect_dropped(
        &udp,
        "unknown critical type",
        &[crit],
        &["bad_packet", "bad_name"],
    );
    // LpPacket: unknown critical header field (801 & 3 != 0), headers out of order, header
    // after the fragment.
    let lp = vec![
        tlv(LP_PACKET, &[tlv(801, b"x"), tlv(FRAGMENT, &good)].concat()),
        tlv(
            LP_PACKET,
            &[
                tlv(PIT_TOKEN, b"tok1"),
                tlv(SEQUENCE, &[0; 8]),
                tlv(FRAGMENT, &good),
            ]
            .concat(),
        ),
        tlv(
            LP_PACKET,
            &[tlv(FRAGMENT, &good), tlv(PIT_TOKEN, b"tok1")].concat(),
        ),
        tlv(LP_PACKET, &tlv(FRAGMENT, &good[..good.len() - 1])),
    ];
    dm.expect_dropped(&udp, "bad LP headers", &lp, &["bad_lp", "bad_packet"]);
    // Fragment flood: first halves only, each of a different packet, far more than the
    // reassembly buffer holds; every one ends evicted or timed out.
    let big = interest(&format!("/ok/{}", "z".repeat(600)));
    let half = &big[..big.len() / 2];
    let flood: Vec<Vec<u8>> = (0..3000u64).map(|k| fragment(k * 4, 0, 2, half)).collect();
    dm.expect_dropped(
        &udp,
        "fragments with missing pieces",
        &flood,
        &["reassembly_full", "reassembly_timeout"],
    );
    // Bad fragments: a duplicate, a FragCount over the limit (400), an index past the count.
    let first = fragment(1_000_000, 0, 3, half);
    udp.send(&first).unwrap();
    let badfrag = vec![
        first,
        fragment(1_000_100, 0, 401, half),
        fragment(1_000_201, 3, 2, half),
    ];
    dm.expect_dropped(&udp, "bad fragments", &badfrag, &["bad_fragment", "bad_lp"]);
    // Oversized: a name bigger than any NDN packet may be.
    let huge = interest(&format!("/ok/{}", "n".repeat(9000)));
    dm.expect_dropped(&udp, "oversized name", &[huge], &["packet_too_large"]);

    // The daemon still forwards, over the same UDP face and over Unix.
    udp.send(&interest("/ok/after-udp")).unwrap();
    let n = udp.recv(&mut buf).expect("UDP answer after the garbage");
    let lp = decode_link_packet(&buf[..n]).unwrap();
    let d = Data::new_checked(&buf[lp.payload_range]).expect("a Data");
    assert_eq!(d.name().to_string(), "/ok/after-udp");
    let (code, v) = consumer(&sock_path, &["--name", "/ok/after", "--count", "50"]);
    assert_eq!(code, Some(0), "{v}");
}

/// A management command (python-ndn's signed-name form) under `prefix`, as a URI.
fn register_uri(prefix: &str) -> String {
    let params = ControlParameters {
        name: Some(Name::from_uri("/udp-app").unwrap()),
        ..ControlParameters::default()
    };
    let wire = CommandSigner::new(Signing::DigestCommandName)
        .command_interest(
            &Name::from_uri(prefix).unwrap(),
            "rib",
            "register",
            &params,
            1,
        )
        .unwrap();
    Interest::new_checked(&wire).unwrap().name().to_string()
}

/// One network namespace of this test with an interface holding `NS_IP` (so UDP inside
/// it comes from a non-loopback, hence non-local, address); deleted on drop.
struct Ns(Netns);

const NS_IP: &str = "10.77.0.1";

impl Ns {
    /// `None` without root or `ip`; as root, failing to build the namespace fails the test.
    fn new() -> Option<Self> {
        if let Some(why) = skip_reason() {
            println!("skipped: {why}");
            return None;
        }
        let ns = Netns::new("ndnfwd-scope").unwrap_or_else(|e| panic!("{e}"));
        // A veth pair with both ends inside: the dummy driver is not in every kernel.
        veth((&ns, "d0"), (&ns, "d1")).unwrap_or_else(|e| panic!("{e}"));
        ns.ip(&["addr", "add", &format!("{NS_IP}/24"), "dev", "d0"])
            .unwrap_or_else(|e| panic!("{e}"));
        Some(Ns(ns))
    }

    /// `ndnfwd gen consumer` of one name over UDP from inside the namespace; (exit code, JSON).
    fn fetch(&self, name: &str) -> (Option<i32>, serde_json::Value) {
        let out = self
            .0
            .command(BIN)
            .args(["gen", "consumer", "--connect"])
            .arg(format!("udp4://{NS_IP}:6363"))
            .args(["--name", name, "--lifetime", "500"])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
        (out.status.code(), v)
    }
}

/// A daemon in `ns` listening on UDP `NS_IP`:6363, with localhop management on or off.
fn scoped_daemon(ns: &Ns, localhop: bool) -> (TempDir, Proc) {
    let dir = TempDir::new("scope");
    let udp = format!("{NS_IP}:6363");
    let cfg = write_config(&dir, &[&udp], &format!("localhop = {localhop}\n"), "");
    let d = daemon("scope", Some(&ns.0), &cfg, &dir.path("daemon.log"));
    (dir, d)
}

/// `/localhost` packets from a non-local face are dropped and counted; management under
/// `/localhop/nfd` is refused unless enabled, then answered.
#[test]
fn scope_rules_for_a_non_local_udp_face() {
    let Some(ns) = Ns::new() else { return };
    let (dir, d) = scoped_daemon(&ns, false);
    let path = dir.path("status.json");
    let local_keys = ["localhost_violation_in", "localhost_from_non_local"];
    let refused_keys = ["localhop_disabled", "no_route"];
    let before = (
        sum(&status(&d, &path), &local_keys),
        sum(&status(&d, &path), &refused_keys),
    );
    for name in [
        "/localhost/nfd/status/general",
        &register_uri("/localhost/nfd"),
    ] {
        let (code, v) = ns.fetch(name);
        assert_eq!(code, Some(1), "{name}: {v}");
        assert_eq!(v["received"], 0, "{v}");
    }
    let (code, v) = ns.fetch(&register_uri("/localhop/nfd"));
    assert_eq!((code, &v["received"]), (Some(1), &0.into()), "{v}");
    let s = status(&d, &path);
    assert_eq!(sum(&s, &local_keys) - before.0, 2, "{}", s["dataplane"]);
    assert_eq!(
        sum(&s, &refused_keys) - before.1,
        1,
        "{}",
        s["status"]["mgmt"]
    );
    // The UDP face really is non-local.
    let faces = s["status"]["faces"].as_array().cloned().unwrap_or_default();
    assert!(faces.iter().any(|f| f["uri"]
        .as_str()
        .is_some_and(|u| u.starts_with("udp4://10.77."))
        && f["face_scope"] == "non-local"));
    drop(d);

    let (_dir, _d) = scoped_daemon(&ns, true);
    let (code, v) = ns.fetch(&register_uri("/localhop/nfd"));
    assert_eq!(
        (code, &v["received"]),
        (Some(0), &1.into()),
        "localhop served: {v}"
    );
}
