//! FIB churn through management while forwarding: one Unix-socket face sends `rib/register`
//! and `rib/unregister` for prefixes beside a producer's `/stable` route (same first component,
//! depths 2 to 4, so binary-search markers in that subtree change all the time), pipelined as
//! fast as the daemon answers, while a consumer fetches under `/stable`.
//!
//! Pass criteria: every command is answered 200, every fetch of an untouched route is
//! answered with its Data (nothing misforwarded, no Nack, no timeout), and no churned route is
//! left once the churn stops. The achieved command rate and the fetch time with and without
//! churn are printed as JSON (figures in docs/RELIABILITY.md), never asserted.
//! `NDNFWD_CHURN_COUNT` sets the fetches per phase (default 20000).

mod common;
#[path = "common/mgmt.rs"]
mod mgmt;

use std::io::Write as _;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::*;
use ndn_packet::decode_link_packet;
use ndnfwd_mgmt::client::{parse_command_response, CommandSigner, Signing};
use ndnfwd_mgmt::ControlParameters;

/// Commands in flight at once.
const WINDOW: u64 = 256;

/// What the churn achieved.
struct Churn {
    commands: u64,
    failed: u64,
    secs: f64,
}

fn churn_prefix(i: u64) -> String {
    match i % 3 {
        0 => format!("/stable/c{i}"),
        1 => format!("/stable/c{i}/x"),
        _ => format!("/stable/c{i}/x/y"),
    }
}

/// Registers and unregisters routes until `stop`, then waits for the last answers.
fn churn(sock: &std::path::Path, stop: Arc<AtomicBool>) -> Churn {
    let mut tx = UnixStream::connect(sock).unwrap();
    let mut rx = tx.try_clone().unwrap();
    rx.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let sent = Arc::new(AtomicU64::new(0));
    let answered = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (sent, answered, done) = (sent.clone(), answered.clone(), done.clone());
        std::thread::spawn(move || {
            let mut failed = 0u64;
            while !(done.load(Ordering::Acquire)
                && answered.load(Ordering::Acquire) == sent.load(Ordering::Acquire))
            {
                let Ok(frame) = mgmt::read_frame(&mut rx) else {
                    break;
                };
                let ok = decode_link_packet(&frame).ok().is_some_and(|lp| {
                    lp.nack().is_none()
                        && frame
                            .get(lp.payload_range)
                            .and_then(|d| parse_command_response(d).ok())
                            .is_some_and(|r| r.code == 200)
                });
                failed += u64::from(!ok);
                answered.fetch_add(1, Ordering::AcqRel);
            }
            failed
        })
    };
    let mut signer = CommandSigner::new(Signing::Unsigned);
    let prefix = mgmt::name("/localhost/nfd");
    let start = Instant::now();
    let mut i = 0u64;
    while !stop.load(Ordering::Acquire) {
        let name = mgmt::name(&churn_prefix(i));
        for verb in ["register", "unregister"] {
            while sent.load(Ordering::Acquire) - answered.load(Ordering::Acquire) >= WINDOW {
                std::thread::yield_now();
            }
            let p = ControlParameters {
                name: Some(name.clone()),
                ..ControlParameters::default()
            };
            let ms = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            let wire = signer
                .command_interest(&prefix, "rib", verb, &p, ms)
                .unwrap();
            tx.write_all(&wire).unwrap();
            sent.fetch_add(1, Ordering::AcqRel);
        }
        i += 1;
    }
    done.store(true, Ordering::Release);
    let failed = reader.join().unwrap();
    let commands = sent.load(Ordering::Acquire);
    assert_eq!(
        answered.load(Ordering::Acquire),
        commands,
        "every command answered"
    );
    Churn {
        commands,
        failed,
        secs: start.elapsed().as_secs_f64(),
    }
}

fn fetch(sock: &std::path::Path, name: &str, count: u64) -> f64 {
    let (code, v) = consumer(
        sock,
        &[
            "--name",
            name,
            "--count",
            &count.to_string(),
            "--window",
            "16",
        ],
    );
    assert_eq!(code, Some(0), "{name}: {v}");
    assert_eq!(v["received"], count, "{v}");
    assert_eq!(v["nacks"], 0, "{v}");
    v["elapsed_ms"].as_f64().unwrap_or(0.0)
}

#[test]
fn fib_churn_never_misforwards_untouched_routes() {
    let count: u64 = std::env::var("NDNFWD_CHURN_COUNT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let dir = TempDir::new("churn");
    let cfg = dir.path("ndnfwd.toml");
    std::fs::write(
        &cfg,
        format!(
            "[log]\nlevel = \"warn\"\n[threads]\nmode = \"multi\"\nworkers = 2\n\
             [listeners]\nunix = \"{}\"\ntcp = []\nudp = []\n\
             [management]\nstatus_file = \"{}\"\n",
            dir.path("nfd.sock").display(),
            dir.path("status.json").display()
        ),
    )
    .unwrap();
    let sock = dir.path("nfd.sock");
    let path = dir.path("status.json");
    let d = daemon("churn", None, &cfg, &dir.path("daemon.log"));
    let _p = producer(&sock, "/stable", 100);
    wait_route(&sock, "/stable/probe");

    let base_ms = fetch(&sock, "/stable/base", count);
    let stop = Arc::new(AtomicBool::new(false));
    let churner = {
        let (sock, stop) = (sock.clone(), stop.clone());
        std::thread::spawn(move || churn(&sock, stop))
    };
    let churn_ms = fetch(&sock, "/stable/churned", count);
    stop.store(true, Ordering::Release);
    let c = churner.join().unwrap();
    assert!(c.commands > 0);
    assert_eq!(c.failed, 0, "commands refused");
    println!(
        "{{\"fetches\":{count},\"fetch_ms_without_churn\":{base_ms:.0},\
         \"fetch_ms_with_churn\":{churn_ms:.0},\"slowdown\":{:.3},\
         \"churn_commands\":{},\"churn_commands_per_s\":{:.0}}}",
        churn_ms / base_ms,
        c.commands,
        c.commands as f64 / c.secs
    );
    eventually(&d, &path, 10, "churned routes gone", |s| {
        let fib = s["status"]["fib"].as_array().cloned().unwrap_or_default();
        fib.iter().all(|e| {
            e["name"]
                .as_str()
                .is_some_and(|n| !n.starts_with("/stable/c"))
        }) && has_route(s, "/stable")
    });
}
