//! `ndnfwd gen` end to end on this host: weighted consumer patterns against per-pattern
//! producer replies through the daemon over a Unix socket (Data, Nack, silence), fixed-rate
//! mode, several consumer threads, both ends on shared-memory faces, and the self-test without
//! a forwarder (null-signed Data) over Unix and shared memory, and `bench e2e` in rounds. A few
//! thousand exchanges at most (`bench e2e`: a few seconds of traffic); no timing assertions.

mod common;

use std::process::Command;

use common::*;

fn gen_producer(args: &[&str]) -> Proc {
    spawn(
        "producer",
        ["gen", "producer"].into_iter().chain(args.iter().copied()),
    )
}

#[test]
fn patterns_replies_and_rate_mode_through_the_daemon() {
    let dir = TempDir::new("gen");
    let sock = dir.path("nfd.sock");
    let _d = daemon(
        "gen",
        None,
        &write_config(&dir, &[], "", "[threads]\nmode = \"single\"\n"),
        &dir.path("daemon.log"),
    );
    let connect = format!("unix://{}", sock.display());
    let _p = gen_producer(&[
        "--connect",
        &connect,
        "--pattern",
        "prefix=/g/d,payload=300,freshness=0",
        "--pattern",
        "prefix=/g/n,reply=nack:Congestion",
        "--pattern",
        "prefix=/g/s,reply=silence",
    ]);
    wait_route(&sock, "/g/d/probe");

    // Window mode, two threads, three weighted patterns with flag mixes.
    let (code, v) = consumer(
        &sock,
        &[
            "--pattern",
            "prefix=/g/d,weight=8,cbp=0.5,mbf=0.5",
            "--pattern",
            "prefix=/g/n,weight=1",
            "--pattern",
            "prefix=/g/s,weight=1",
            "--count",
            "300",
            "--window",
            "8",
            "--threads",
            "2",
            "--lifetime",
            "300",
        ],
    );
    assert_eq!(
        code,
        Some(1),
        "silence and Nacks mean not everything came back: {v}"
    );
    let p = &v["patterns"];
    let (d, n, s) = (&p[0], &p[1], &p[2]);
    assert_eq!(v["sent"], 300, "{v}");
    let sent_d = d["sent"].as_u64().unwrap();
    assert!((190..=280).contains(&sent_d), "weight 8 of 10: {v}");
    assert_eq!(v["received"], d["sent"], "{v}");
    assert_eq!(d["data"], d["sent"], "{v}");
    assert_eq!(v["content_bytes"], sent_d * 300, "{v}");
    assert_eq!(v["nack_reasons"]["Congestion"], n["sent"], "{v}");
    assert_eq!(n["nacks"], n["sent"], "{v}");
    assert_eq!(v["timeouts"], s["sent"], "{v}");
    assert_eq!(s["data"], 0, "{v}");
    assert_eq!(v["rtt_samples"], v["received"], "{v}");
    assert_eq!(v["unmatched"], 0, "{v}");
    assert!(v["rtt_ms"]["p99"].as_f64().unwrap() >= v["rtt_ms"]["p50"].as_f64().unwrap());

    // Fixed-rate mode keeps no table: every answer is accounted for from its token.
    let (code, v) = consumer(
        &sock,
        &[
            "--name",
            "/g/d/rate",
            "--count",
            "200",
            "--rate",
            "4000",
            "--batch",
            "8",
        ],
    );
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["mode"], "rate");
    assert_eq!(v["received"], 200);
    assert_eq!(v["content_bytes"], 200 * 300);
}

#[test]
fn shared_memory_faces_through_the_daemon() {
    let dir = TempDir::new("genshm");
    let sock = dir.path("nfd.sock");
    let d = daemon(
        "genshm",
        None,
        &write_config(&dir, &[], "", "[threads]\nmode = \"single\"\n"),
        &dir.path("daemon.log"),
    );
    // The daemon offers shared-memory faces next to its Unix socket.
    let shm = format!("shm://{}", dir.path("nfd-shm.sock").display());
    let _p = gen_producer(&[
        "--connect",
        &shm,
        "--pattern",
        "prefix=/m/d,payload=8000",
        "--pattern",
        "prefix=/m/n,reply=nack:NoRoute",
    ]);
    wait_route(&sock, "/m/d/probe");
    let fetch = |args: &[&str]| {
        let out = Command::new(BIN)
            .args(["gen", "consumer", "--connect", &shm, "--interval-ms", "0"])
            .args(args)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), v)
    };
    // Deep enough to wrap the 2 MiB rings several times over with 8 KB Data.
    let (code, v) = fetch(&["--name", "/m/d/x", "--count", "2000", "--window", "100"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["received"], 2000, "{v}");
    assert_eq!(v["content_bytes"], 2000 * 8000, "{v}");
    let (code, v) = fetch(&["--name", "/m/n/x", "--count", "20"]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["nack_reasons"]["NoRoute"], 20, "{v}");
    // Both are shared-memory faces of the daemon, and the consumer's is gone after it left.
    eventually(
        &d,
        &dir.path("status.json"),
        5,
        "only the producer's face",
        |st| {
            let faces = st["status"]["faces"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let shm = faces.iter().filter(|f| {
                f["local_uri"]
                    .as_str()
                    .is_some_and(|l| l.starts_with("shm://"))
            });
            shm.count() == 1
        },
    );
}

#[test]
fn self_test_without_a_forwarder() {
    for scheme in ["unix", "shm"] {
        self_test(scheme);
    }
}

fn self_test(scheme: &str) {
    let dir = TempDir::new("genself");
    let uri = format!("{scheme}://{}", dir.path("prod.sock").display());
    let _p = gen_producer(&[
        "--listen",
        &uri,
        "--prefix",
        "/s",
        "--payload",
        "50",
        "--sign",
        "null",
    ]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !dir.path("prod.sock").exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "producer never listened"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = Command::new(BIN)
        .args([
            "gen",
            "consumer",
            "--connect",
            &uri,
            "--name",
            "/s/x",
            "--count",
            "300",
        ])
        .args(["--window", "32", "--interval-ms", "0"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["received"], 300);
    assert_eq!(v["content_bytes"], 300 * 50);
}

/// `bench e2e` end to end, briefly: every case of every round measured, the median round's row
/// listing each round's rate, the self-test ratios computed, nothing skipped, nothing lost.
#[test]
fn bench_e2e_in_rounds() {
    let out = Command::new(BIN)
        .args(["bench", "e2e", "--faces", "shm,unix", "--payloads", "100"])
        .args(["--duration", "0.3", "--rounds", "2"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rounds"], 2);
    assert_eq!(v["skipped"], serde_json::json!([]), "{v}");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{v}");
    for r in rows {
        let rounds = r["rounds_data_per_sec"].as_array().unwrap();
        assert_eq!(rounds.len(), 2, "{r}");
        let steal = r["rounds_host_steal_pct"].as_array().unwrap();
        assert_eq!(steal.len(), 2, "{r}");
        assert!(
            steal
                .iter()
                .all(|s| (0.0..=100.0).contains(&s.as_f64().unwrap())),
            "{r}"
        );
        assert!(rounds.contains(&r["data_per_sec"]), "{r}");
        assert!(r["received"].as_u64().unwrap() > 0, "{r}");
        assert_eq!(r["received"], r["sent"], "{r}");
        assert_eq!(r["timeouts"], 0, "{r}");
    }
    let ratios = v["self_test_ratios"].as_array().unwrap();
    assert_eq!(ratios.len(), 2, "{v}");
    assert!(ratios
        .iter()
        .all(|x| x["self_test_over_forwarder"].as_f64().unwrap() > 0.0));
}
