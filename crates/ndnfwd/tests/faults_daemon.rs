//! Faults against a running daemon (loopback and Unix sockets only): 10k face create/destroy
//! cycles through management, a producer killed mid-stream, full worker rings, a reload with
//! an invalid file, and SIGTERM under load. Pass criteria are on exit codes, counters and
//! state in the status file, never on time.

mod common;
#[path = "common/mgmt.rs"]
mod mgmt;

use std::net::UdpSocket;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use ndn_packet::InterestBuilder;

/// A consumer running in the background (killed on drop).
fn background_consumer(sock: &std::path::Path, name: &str, count: u64) -> Proc {
    let child = Command::new(BIN)
        .args(["gen", "consumer", "--connect"])
        .arg(format!("unix://{}", sock.display()))
        .args([
            "--name",
            name,
            "--count",
            &count.to_string(),
            "--window",
            "32",
        ])
        .args(["--lifetime", "1000"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Proc {
        child,
        name: "consumer".into(),
    }
}

fn in_interests(s: &serde_json::Value) -> u64 {
    s["status"]["general"]["n_in_interests"]
        .as_u64()
        .unwrap_or(0)
}

const CYCLES: u32 = 10_000;

#[test]
fn ten_thousand_face_create_destroy_cycles() {
    let dir = TempDir::new("facechurn");
    let cfg = write_config(&dir, &[], "", "");
    let sock = dir.path("nfd.sock");
    let d = daemon("facechurn", None, &cfg, &dir.path("daemon.log"));
    let mut c = mgmt::client(&sock);
    let baseline = c.faces().expect("faces dataset").len();
    let start = Instant::now();
    for i in 0..CYCLES {
        // Remote endpoints on loopback; nothing is sent to them.
        let uri = format!("udp4://127.0.0.1:{}", 20_000 + i % 2000);
        let r = c.face_create(&uri, None).expect("faces/create answered");
        assert_eq!(r.code, 200, "cycle {i}: {r:?}");
        let id = r
            .body
            .and_then(|b| b.face_id)
            .expect("FaceId in the answer");
        let r = c
            .face_destroy(u32::try_from(id).unwrap())
            .expect("faces/destroy answered");
        assert_eq!(r.code, 200, "cycle {i}: {r:?}");
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{{\"face_cycles\":{CYCLES},\"secs\":{secs:.2},\"cycles_per_s\":{:.0}}}",
        f64::from(CYCLES) / secs
    );
    assert_eq!(c.faces().unwrap().len(), baseline, "no face left behind");
    let s = status(&d, &dir.path("status.json"));
    assert_eq!(face_uris(&s).len(), baseline);
    // Still forwarding.
    let _p = producer(&sock, "/after", 10);
    wait_route(&sock, "/after/probe");
}

#[test]
fn producer_killed_mid_stream_leaves_nothing_behind() {
    let dir = TempDir::new("midstream");
    let cfg = write_config(&dir, &[], "", "[threads]\nmode = \"multi\"\nworkers = 2\n");
    let sock = dir.path("nfd.sock");
    let path = dir.path("status.json");
    let d = daemon("midstream", None, &cfg, &dir.path("daemon.log"));
    let mut prod = producer(&sock, "/stream", 1000);
    wait_route(&sock, "/stream/probe");
    let mut cons = background_consumer(&sock, "/stream/obj", 1_000_000);
    eventually(&d, &path, 10, "traffic flowing", |s| in_interests(s) > 500);
    prod.signal("KILL");
    prod.wait_secs(5);
    eventually(&d, &path, 10, "producer face and route gone", |s| {
        !has_route(s, "/stream") && face_uris(s).len() == 1
    });
    cons.signal("KILL");
    cons.wait_secs(5);
    eventually(&d, &path, 10, "PIT drained", |s| pit_entries(s) == 0);
    // A new producer serves the same prefix again.
    let _p = producer(&sock, "/stream", 100);
    wait_route(&sock, "/stream/again");
    let (code, v) = consumer(&sock, &["--name", "/stream/after", "--count", "50"]);
    assert_eq!(code, Some(0), "{v}");
}

fn sum_io(s: &serde_json::Value, key: &str) -> u64 {
    s["dataplane"]["io"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|io| io[key].as_u64().unwrap_or(0))
        .sum()
}

#[test]
fn full_worker_ring_is_counted_and_recovers() {
    let dir = TempDir::new("ring");
    let port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cfg = write_config(
        &dir,
        &[&format!("127.0.0.1:{port}")],
        "",
        "[threads]\nmode = \"multi\"\nio = 1\nworkers = 1\n\
         [dataplane]\nring_capacity = 16\nburst = 256\n",
    );
    let sock = dir.path("nfd.sock");
    let path = dir.path("status.json");
    let d = daemon("ring", None, &cfg, &dir.path("daemon.log"));
    let _p = producer(&sock, "/ring", 10);
    wait_route(&sock, "/ring/probe");
    // Bursts of Interests far larger than the 16-slot ring between the I/O thread and the
    // worker: the I/O thread reads up to 256 per batch and the ring overflows.
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.connect(("127.0.0.1", port)).unwrap();
    let wires: Vec<Vec<u8>> = (0..4000u32)
        .map(|i| {
            InterestBuilder::new(mgmt::name(&format!("/ring/f{i}")))
                .nonce(i.to_be_bytes())
                .lifetime_ms(500)
                .encode()
                .unwrap()
        })
        .collect();
    let mut overflowed = 0;
    for round in 0..20 {
        for w in &wires {
            let _ = udp.send(w);
        }
        let s = status(&d, &path);
        overflowed = sum_io(&s, "input_ring_full");
        if overflowed > 0 {
            println!(
                "{{\"rounds\":{},\"input_ring_full\":{overflowed}}}",
                round + 1
            );
            break;
        }
    }
    assert!(overflowed > 0, "the ring never overflowed");
    // Recovers: the PIT drains and fetches succeed.
    eventually(&d, &path, 10, "PIT drained", |s| pit_entries(s) == 0);
    let (code, v) = consumer(&sock, &["--name", "/ring/after", "--count", "100"]);
    assert_eq!(code, Some(0), "{v}");
}

#[test]
fn reload_with_an_invalid_file_keeps_the_running_configuration() {
    let dir = TempDir::new("reload");
    let cfg = write_config(&dir, &[], "", "[log]\nlevel = \"info\"\n");
    let good = std::fs::read_to_string(&cfg).unwrap();
    let sock = dir.path("nfd.sock");
    let log = dir.path("daemon.log");
    let d = daemon("reload", None, &cfg, &log);
    let wait_log = |what: &str| {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if let Some(l) = text.lines().find(|l| l.contains(what)) {
                return l.to_owned();
            }
            assert!(Instant::now() < deadline, "no `{what}` in the log:\n{text}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    // Invalid: an unknown key and a bad value; each rejection names its key.
    for (bad, key) in [
        ("[tables]\ncs_policy = \"mru\"\n", "tables.cs_policy"),
        ("[threads]\nwrokers = 4\n", "threads.wrokers"),
    ] {
        std::fs::write(&cfg, format!("{good}{bad}")).unwrap();
        d.signal("HUP");
        let line = wait_log(&format!("key={key}"));
        assert!(line.contains("event=reload_rejected"), "{line}");
        assert!(line.contains("running=unchanged"), "{line}");
    }
    // Still running with its configuration: it forwards.
    let _p = producer(&sock, "/reload", 10);
    wait_route(&sock, "/reload/probe");
    // A valid file: the log level applies, a changed capacity needs a restart.
    std::fs::write(
        &cfg,
        good.replace("level = \"info\"", "level = \"debug\"") + "[tables]\ncs_capacity = 128\n",
    )
    .unwrap();
    d.signal("HUP");
    let line = wait_log("event=reloaded");
    assert!(line.contains("log_level=DEBUG"), "{line}");
    let line = wait_log("event=reload_needs_restart");
    assert!(line.contains("sections=tables"), "{line}");
    let (code, v) = consumer(&sock, &["--name", "/reload/after", "--count", "10"]);
    assert_eq!(code, Some(0), "{v}");
}

#[test]
fn sigterm_under_load_exits_cleanly() {
    let dir = TempDir::new("sigterm");
    let cfg = write_config(&dir, &[], "", "[threads]\nmode = \"multi\"\nworkers = 2\n");
    let sock = dir.path("nfd.sock");
    let path = dir.path("status.json");
    let mut d = daemon("sigterm", None, &cfg, &dir.path("daemon.log"));
    let _p = producer(&sock, "/load", 1000);
    wait_route(&sock, "/load/probe");
    let _c = background_consumer(&sock, "/load/obj", 1_000_000);
    eventually(&d, &path, 10, "under load", |s| in_interests(s) > 500);
    d.signal("TERM");
    let st = d.wait_secs(10).expect("exits on SIGTERM under load");
    assert_eq!(st.code(), Some(0));
    assert!(!sock.exists(), "Unix socket removed");
}
