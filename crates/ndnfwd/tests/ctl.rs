//! `ndnfwd ctl` and the metrics endpoint against a running `ndnfwd run` (Unix socket and
//! 127.0.0.1 only): counters served over HTTP move with traffic, ctl commands change forwarding,
//! and failures have their exit codes.

mod common;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// A daemon with metrics on a free port; returns it and the metrics address (host:port).
fn start(dir: &TempDir, mode: &str) -> (Proc, String) {
    let sections = format!("[threads]\nmode = \"{mode}\"\nworkers = 2\n[metrics]\nport = 0\n");
    let cfg = write_config(dir, &[], "", &sections);
    let (d, lines) = daemon_lines(mode, None, &cfg, &dir.path("daemon.log"));
    let url = lines
        .iter()
        .find_map(|l| l.strip_prefix("METRICS=http://"))
        .unwrap_or_else(|| panic!("no METRICS line in {lines:?}"));
    let addr = url
        .strip_suffix("/metrics")
        .expect("metrics URL")
        .to_owned();
    (d, addr)
}

/// `GET path` on `addr`; returns the status code and the body.
fn http_get(addr: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect to metrics");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut r = String::new();
    s.read_to_string(&mut r).expect("read HTTP answer");
    let code = r
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = r.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_owned();
    (code, body)
}

/// Sum of the samples of `metric` whose labels contain every `labels` pair.
fn metric(text: &str, metric: &str, labels: &[(&str, &str)]) -> Option<u64> {
    let mut found = None;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((series, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let (name, rest) = series.split_once('{').unwrap_or((series, ""));
        if name != metric
            || !labels
                .iter()
                .all(|(k, v)| rest.contains(&format!("{k}=\"{v}\"")))
        {
            continue;
        }
        *found.get_or_insert(0) += value.parse::<u64>().expect("integer sample");
    }
    found
}

fn status(addr: &str) -> serde_json::Value {
    let (code, body) = http_get(addr, "/status");
    assert_eq!(code, 200, "{body}");
    serde_json::from_str(&body).expect("status is JSON")
}

/// Polls `/status` until `check` holds (at most `secs` seconds).
fn wait_status(addr: &str, secs: u64, what: &str, check: impl Fn(&serde_json::Value) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let s = status(addr);
        if check(&s) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what} never held: {}",
            s["status"]
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `ndnfwd ctl --connect unix://<sock> args...` (killed after 20 s): exit code, stdout, stderr.
fn ctl(sock: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    ctl_uri(&unix_uri(sock), args)
}

/// `ndnfwd ctl --connect <uri> args...`, as [`ctl`].
fn ctl_uri(uri: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let all = ["ctl", "--connect", uri]
        .into_iter()
        .chain(args.iter().copied());
    run("ctl", all, 20)
}

fn ctl_json(sock: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let (code, out, err) = ctl(sock, &all);
    assert_eq!(code, Some(0), "ctl {args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("ctl {args:?}: {e}: {out}"))
}

/// `ndnfwd gen producer ... --count 1` reading `extra` args; returns its process.
fn producer_once(sock: &Path, prefix: &str, extra: &[&str]) -> Proc {
    let child = Command::new(BIN)
        .args(["gen", "producer", "--count", "1", "--prefix", prefix])
        .arg("--connect")
        .arg(format!("unix://{}", sock.display()))
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn producer");
    Proc {
        child,
        name: format!("producer {prefix}"),
    }
}

/// Waits (at most 10 s) for a `--count 1` producer to exit and returns how many it served.
fn served(p: &mut Proc) -> u64 {
    let st = p.wait_secs(10);
    assert!(st.is_some_and(|s| s.success()), "{} did not finish", p.name);
    let mut out = String::new();
    if let Some(mut s) = p.child.stdout.take() {
        let _ = s.read_to_string(&mut out);
    }
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_default();
    v["served"].as_u64().unwrap_or(0)
}

fn route_count(s: &serde_json::Value, prefix: &str) -> usize {
    s["status"]["rib"].as_array().map_or(0, |a| {
        a.iter()
            .filter(|e| e["name"] == prefix)
            .map(|e| e["routes"].as_array().map_or(0, Vec::len))
            .sum()
    })
}

fn metrics_follow_traffic(mode: &str) {
    let dir = TempDir::new(&format!("metrics-{mode}"));
    let sock = dir.path("nfd.sock");
    let (_d, addr) = start(&dir, mode);
    let (code, before) = http_get(&addr, "/metrics");
    assert_eq!(code, 200);
    let sat0 = metric(
        &before,
        "ndnfwd_worker_events_total",
        &[("key", "satisfied")],
    )
    .unwrap();
    assert_eq!(http_get(&addr, "/nope").0, 404);

    let _prod = producer(&sock, "/metrics", 100);
    wait_route(&sock, "/metrics/probe");
    let (_, probed) = http_get(&addr, "/metrics");
    let noroute0 = metric(
        &probed,
        "ndnfwd_worker_events_total",
        &[("key", "no_route")],
    )
    .unwrap();
    let (code, v) = consumer(
        &sock,
        &["--name", "/metrics/obj", "--count", "20", "--window", "4"],
    );
    assert_eq!(code, Some(0), "{v}");
    let (code, v) = consumer(&sock, &["--name", "/unrouted/x", "--lifetime", "500"]);
    assert_eq!(code, Some(1), "{v}");

    let (code, after) = http_get(&addr, "/metrics");
    assert_eq!(code, 200);
    let sat1 = metric(
        &after,
        "ndnfwd_worker_events_total",
        &[("key", "satisfied")],
    )
    .unwrap();
    assert!(sat1 >= sat0 + 20, "satisfied {sat0} -> {sat1}\n{after}");
    let noroute1 = metric(&after, "ndnfwd_worker_events_total", &[("key", "no_route")]).unwrap();
    assert_eq!(noroute1, noroute0 + 1, "{after}");
    assert!(metric(&after, "ndnfwd_pit_entries", &[("worker", "0")]).is_some());
    assert!(
        metric(&after, "ndnfwd_cs_entries", &[]).unwrap() >= 20,
        "{after}"
    );
    assert!(metric(&after, "ndnfwd_io_events_total", &[]).unwrap() > 0);
    assert!(metric(&after, "ndnfwd_mgmt_commands_ok_total", &[]).unwrap() >= 1);

    // The producer's face (the only face left) sent at least the 20 Interests.
    let s = status(&addr);
    let faces = s["status"]["faces"].as_array().unwrap();
    assert_eq!(faces.len(), 1, "{faces:?}");
    let id = faces[0]["face_id"].as_u64().unwrap().to_string();
    let out = metric(&after, "ndnfwd_face_out_interests_total", &[("face", &id)]).unwrap();
    assert!(out >= 20, "face {id} sent {out} Interests\n{after}");
    assert!(s["status"]["general"]["n_in_interests"].as_u64().unwrap() >= 22);
    assert!(s["dataplane"]["workers"].as_array().unwrap().len() == 2 || mode == "single");
}

#[test]
fn metrics_follow_traffic_single_thread() {
    metrics_follow_traffic("single");
}

#[test]
fn metrics_follow_traffic_threads() {
    metrics_follow_traffic("multi");
}

#[test]
fn ctl_routes_and_strategies_steer_forwarding() {
    let dir = TempDir::new("ctl");
    let sock = dir.path("nfd.sock");
    let (_d, addr) = start(&dir, "single");

    let (code, out, err) = ctl(&sock, &["status"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("version=ndnfwd"), "{out}");
    let st = ctl_json(&sock, &["status"]);
    assert!(st["n_fib_entries"].as_u64().unwrap() >= 1, "{st}");

    // A producer that does not register: the route comes from ctl. Its face is the only one
    // that has not sent an Interest (earlier ctl faces may not be gone yet).
    let mut p = producer_once(&sock, "/steer", &["--no-register"]);
    let silent = |s: &serde_json::Value| -> Vec<u64> {
        s["status"]["faces"].as_array().map_or(Vec::new(), |a| {
            a.iter()
                .filter(|f| f["counters"]["n_in_interests"] == 0)
                .filter_map(|f| f["face_id"].as_u64())
                .collect()
        })
    };
    wait_status(&addr, 5, "producer face", |s| silent(s).len() == 1);
    let face_id = silent(&status(&addr))[0];
    let face = face_id.to_string();
    let faces = ctl_json(&sock, &["face", "list"]);
    assert!(
        faces
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["face_id"] == face_id),
        "{faces}"
    );
    let (code, v) = consumer(&sock, &["--name", "/steer/a", "--lifetime", "500"]);
    assert_eq!(
        v["nack_reasons"]["NoRoute"], 1,
        "no route yet: {code:?} {v}"
    );
    let (code, out, err) = ctl(&sock, &["route", "add", "/steer", &face, "--cost", "7"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("200 "), "{out}");
    let routes = ctl_json(&sock, &["route", "list"]);
    let r = routes
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "/steer")
        .unwrap_or_else(|| panic!("{routes}"));
    assert_eq!(r["routes"][0]["cost"], 7);
    let fib = ctl_json(&sock, &["fib", "list"]);
    assert!(fib.to_string().contains("/steer"), "{fib}");
    let (code, v) = consumer(&sock, &["--name", "/steer/b"]);
    assert_eq!(code, Some(0), "route added by ctl: {v}");
    assert_eq!(served(&mut p), 1);
    let (code, _, err) = ctl(&sock, &["route", "remove", "/steer", &face]);
    assert_eq!(code, Some(0), "{err}");

    // Multicast set by ctl: one Interest reaches both producers of /mc.
    let (code, _, err) = ctl(&sock, &["strategy", "set", "/mc", "multicast"]);
    assert_eq!(code, Some(0), "{err}");
    let choices = ctl_json(&sock, &["strategy", "list"]);
    assert!(
        choices
            .to_string()
            .contains("/localhost/nfd/strategy/multicast"),
        "{choices}"
    );
    let mut a = producer_once(&sock, "/mc", &[]);
    let mut b = producer_once(&sock, "/mc", &["--cost", "5"]);
    wait_status(&addr, 5, "two routes for /mc", |s| {
        route_count(s, "/mc") == 2
    });
    let (code, v) = consumer(&sock, &["--name", "/mc/x"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!((served(&mut a), served(&mut b)), (1, 1));
    let (code, _, err) = ctl(&sock, &["strategy", "unset", "/mc"]);
    assert_eq!(code, Some(0), "{err}");

    // The content store: info, config, erase.
    let cs = ctl_json(&sock, &["cs", "info"]);
    assert!(cs["n_cs_entries"].as_u64().unwrap() >= 2, "{cs}");
    // Switching admit/serve off or resizing at run time is not implemented: 501, exit 1.
    let (code, _, err) = ctl(&sock, &["cs", "config", "--serve", "false"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("501"), "{err}");
    let (code, out, err) = ctl(
        &sock,
        &["cs", "config", "--admit", "true", "--serve", "true"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains(&format!("capacity={}", cs["capacity"])),
        "{out}"
    );
    let (code, out, err) = ctl(&sock, &["cs", "erase", "/mc"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("count=1"), "{out}");
}

#[test]
fn ctl_failures_have_exit_codes() {
    let dir = TempDir::new("ctlfail");
    let sock = dir.path("nfd.sock");
    let (_d, _addr) = start(&dir, "single");
    // Refused by the forwarder: status code and text on stderr, exit 1.
    let (code, _, err) = ctl(&sock, &["route", "add", "/x", "4000"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("410 Face not found"), "{err}");
    let (code, _, err) = ctl(&sock, &["strategy", "set", "/x", "no-such-strategy"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("404"), "{err}");
    let (code, _, err) = ctl(&sock, &["face", "create", "udp4://999.1.1.1:6363"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("faces/create failed: 4"), "{err}");
    // Shared-memory faces are made by the app connecting, never toward a peer.
    let shm = format!("shm://{}", dir.path("nfd-shm.sock").display());
    let (code, _, err) = ctl(&sock, &["face", "create", &shm]);
    assert_eq!(code, Some(1));
    assert!(err.contains("406"), "{err}");
    // ...while ctl itself can talk over one.
    let (code, out, err) = ctl_uri(&shm, &["status"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!out.is_empty());
    // Bad arguments: exit 2, checked before connecting.
    let nowhere = PathBuf::from("/nonexistent/ndnfwd.sock");
    let (code, _, err) = ctl(&nowhere, &["route", "add", "x", "1"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("`x` is not an NDN name"), "{err}");
    assert_eq!(ctl(&sock, &["route", "frobnicate"]).0, Some(2));
    // No forwarder: exit 3, naming the socket.
    let (code, _, err) = ctl(&nowhere, &["status"]);
    assert_eq!(code, Some(3));
    assert!(err.contains("/nonexistent/ndnfwd.sock"), "{err}");
    // The daemon is still there.
    assert_eq!(ctl(&sock, &["status"]).0, Some(0));
}
