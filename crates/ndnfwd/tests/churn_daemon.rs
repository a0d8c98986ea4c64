//! FIB churn through management while forwarding: one Unix-socket face sends `rib/register`
//! and `rib/unregister` for prefixes beside a producer's `/stable` route (same first component,
//! depths 2 to 4, so binary-search markers in that subtree change all the time), pipelined as
//! fast as the daemon answers, while a consumer fetches under `/stable`. It runs twice, one
//! daemon at a time: in the shipped single-thread mode, and with two workers reading the FIB
//! while the control thread writes it.
//!
//! Pass criteria: every command is answered 200, every fetch of an untouched route is
//! answered with its Data (nothing misforwarded, no Nack, no timeout), and no churned route is
//! left once the churn stops. The achieved command rate and the fetch time with and without
//! churn are printed as JSON (figures in docs/RELIABILITY.md), never asserted.
//! `NDNFWD_CHURN_COUNT` sets the fetches per phase (default 20000).

mod common;
#[path = "common/mgmt.rs"]
mod mgmt;

use std::io::{BufReader, Write as _};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
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

/// Commands answered so far, and a condition the writer waits on while its window is full.
#[derive(Default)]
struct Answered {
    count: Mutex<u64>,
    moved: Condvar,
}

/// Reads answers until `done` and every sent command is answered; returns how many were not
/// 200. Frames come through a buffer, and the count is published once per buffer drained, so
/// the reader costs about one `read` per batch rather than several per answer.
fn read_answers(rx: UnixStream, sent: &AtomicU64, done: &AtomicBool, answered: &Answered) -> u64 {
    let mut rx = BufReader::with_capacity(1 << 16, rx);
    let (mut failed, mut seen) = (0u64, 0u64);
    while !(done.load(Ordering::Acquire) && seen == sent.load(Ordering::Acquire)) {
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
        seen += 1;
        if rx.buffer().is_empty() {
            *answered.count.lock().unwrap() = seen;
            answered.moved.notify_one();
        }
    }
    *answered.count.lock().unwrap() = seen;
    answered.moved.notify_one();
    failed
}

/// Registers and unregisters routes until `stop`, then waits for the last answers. The writer
/// fills its window with as many commands as it has credit for and sends them in one write,
/// then sleeps until answers free the window (it never spins: on 2 cores a spinning client
/// takes the CPU the daemon needs).
fn churn(sock: &std::path::Path, stop: Arc<AtomicBool>) -> Churn {
    let mut tx = UnixStream::connect(sock).unwrap();
    let rx = tx.try_clone().unwrap();
    rx.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let sent = Arc::new(AtomicU64::new(0));
    let answered = Arc::new(Answered::default());
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (sent, answered, done) = (sent.clone(), answered.clone(), done.clone());
        std::thread::spawn(move || read_answers(rx, &sent, &done, &answered))
    };
    let mut signer = CommandSigner::new(Signing::Unsigned);
    let prefix = mgmt::name("/localhost/nfd");
    let start = Instant::now();
    let (mut i, mut n_sent) = (0u64, 0u64);
    let mut batch = Vec::with_capacity(WINDOW as usize * 128);
    while !stop.load(Ordering::Acquire) {
        let credit = {
            let mut a = answered.count.lock().unwrap();
            while n_sent - *a > WINDOW / 2 {
                a = answered.moved.wait(a).unwrap();
            }
            WINDOW - (n_sent - *a)
        };
        batch.clear();
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        for _ in 0..credit / 2 {
            let p = ControlParameters {
                name: Some(mgmt::name(&churn_prefix(i))),
                ..ControlParameters::default()
            };
            for verb in ["register", "unregister"] {
                let wire = signer
                    .command_interest(&prefix, "rib", verb, &p, ms)
                    .unwrap();
                batch.extend_from_slice(&wire);
            }
            i += 1;
        }
        n_sent += credit / 2 * 2;
        sent.store(n_sent, Ordering::Release);
        tx.write_all(&batch).unwrap();
    }
    done.store(true, Ordering::Release);
    let failed = reader.join().unwrap();
    assert_eq!(
        *answered.count.lock().unwrap(),
        n_sent,
        "every command answered"
    );
    Churn {
        commands: n_sent,
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

/// One daemon at a time: the two tests below measure a rate, so they must not share the CPU.
static SERIAL: Mutex<()> = Mutex::new(());

/// The shipped default: one run-to-completion thread does I/O, forwarding and management, so
/// route changes and lookups interleave on one thread.
#[test]
fn fib_churn_in_the_default_single_thread_mode_never_misforwards() {
    churn_while_fetching("single", "mode = \"single\"");
}

/// Two workers read the FIB while the control thread rewrites it.
#[test]
fn fib_churn_with_two_workers_reading_the_fib_never_misforwards() {
    churn_while_fetching("multi-2", "mode = \"multi\"\nworkers = 2");
}

fn churn_while_fetching(label: &str, threads: &str) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let count: u64 = std::env::var("NDNFWD_CHURN_COUNT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let dir = TempDir::new(&format!("churn-{label}"));
    let sections = format!("[log]\nlevel = \"warn\"\n[threads]\n{threads}\n");
    let cfg = write_config(&dir, &[], "", &sections);
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
        "{{\"threads\":\"{label}\",\"fetches\":{count},\"fetch_ms_without_churn\":{base_ms:.0},\
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
