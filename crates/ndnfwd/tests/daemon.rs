//! `ndnfwd run` and `ndnfwd gen` as processes on this host (loopback and Unix sockets only):
//! configuration errors, a fetch through the daemon, and clean-up after a producer dies.

mod common;

use std::process::Command;

use common::*;

#[test]
fn bad_configuration_exits_2_and_names_the_key() {
    let dir = TempDir::new("badcfg");
    let cases = [
        ("[threads]\nwrokers = 4\n", "threads.wrokers"),
        ("[tables]\ncs_policy = \"mru\"\n", "tables.cs_policy"),
        ("[faces]\nudp_mtu = 10\n", "faces.udp_mtu"),
    ];
    for (text, key) in cases {
        let cfg = dir.path("bad.toml");
        std::fs::write(&cfg, text).unwrap();
        let out = Command::new(BIN)
            .args(["run", "--check", "--config"])
            .arg(&cfg)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(key), "{text}: {err}");
    }
    let out = Command::new(BIN)
        .args(["run", "--check", "--config", "/nonexistent/ndnfwd.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn default_configuration_checks_and_prints() {
    let out = Command::new(BIN).args(["run", "--check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Unix"), "{text}");
    assert!(text.contains("configuration ok"));
    let out = Command::new(BIN)
        .args(["run", "--print-default-config"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("[listeners]"));
}

fn fetch_and_producer_death(mode: &str) {
    let dir = TempDir::new(mode);
    let threads = format!("[threads]\nmode = \"{mode}\"\nworkers = 2\n");
    let cfg = write_config(&dir, &[], "", &threads);
    let sock = dir.path("nfd.sock");
    let status_path = dir.path("status.json");
    let d = daemon("local", None, &cfg, &dir.path("daemon.log"));
    let mut prod = producer(&sock, "/local", 500);
    wait_route(&sock, "/local/probe");

    let (code, v) = consumer(
        &sock,
        &["--name", "/local/obj", "--count", "100", "--window", "8"],
    );
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["received"], 100);
    assert_eq!(v["content_bytes"], 100 * 500);

    // Producer killed: its face and route go, and nothing stays in the PIT.
    let s = status(&d, &status_path);
    assert!(has_route(&s, "/local"));
    prod.signal("KILL");
    prod.wait_secs(5);
    eventually(&d, &status_path, 5, "producer face and route gone", |s| {
        !has_route(s, "/local") && face_uris(s).is_empty() && pit_entries(s) == 0
    });
    let (code, v) = consumer(&sock, &["--name", "/local/after", "--lifetime", "500"]);
    assert_eq!(code, Some(1));
    assert_eq!(v["nack_reasons"]["NoRoute"], 1, "{v}");

    // SIGTERM: clean exit, socket file removed.
    d.signal("TERM");
    let mut d = d;
    let st = d.wait_secs(10).expect("daemon exits on SIGTERM");
    assert!(st.success());
    assert!(!sock.exists());
}

#[test]
fn local_fetch_single_thread() {
    fetch_and_producer_death("single");
}

#[test]
fn local_fetch_threads() {
    fetch_and_producer_death("multi");
}
