//! Soak: mixed traffic through a real `ndnfwd run` for a given time while sampling its RSS and
//! its PIT and CS sizes. Ignored by default (it runs for minutes); `scripts/test` runs the
//! 2-minute form and `scripts/soak SECONDS` any other length.
//!
//! Each round brings: new names fetched from a producer (PIT inserts, Data, CS inserts), the
//! same names fetched again (CS hits), an unrouted prefix (Nack NoRoute), a stopped producer
//! whose Interests expire (PIT expiry), and face churn (every consumer is a new face; the
//! stopped producer's face is killed and made again every round; the main producer restarts
//! every few rounds, taking its route with it).
//!
//! Pass criteria: every fetch from a live producer is answered and the refetches are CS hits;
//! after warm-up (the first quarter of the run) the RSS has no upward trend (the median of the
//! last half of the samples is within `RSS_TREND_KIB` of the median of the first half) and
//! never exceeds the warm-up peak by more than `RSS_CAP_KIB`; once traffic stops the PIT
//! drains to 0. One JSON sample per round goes to stdout (shown with
//! `--nocapture`) and, when `NDNFWD_SOAK_OUT` names a file, is appended there.

mod common;

use std::io::Write as _;
use std::time::{Duration, Instant};

use common::*;

/// Upward trend allowed after warm-up. Tables are allocated once but their pages are touched
/// lazily, so the CS is kept small enough to be filled during warm-up, and every round's names
/// (dispatched on three components) may land on either worker.
const RSS_TREND_KIB: u64 = 4096;
/// Largest excursion above the warm-up peak (the allocator's free lists move RSS by a few MiB
/// either way; a 30-minute run spanned 4 MiB with no trend).
const RSS_CAP_KIB: u64 = 8192;

fn median(v: &[u64]) -> u64 {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

fn cs_hits(s: &serde_json::Value) -> u64 {
    s["status"]["cs"]["n_hits"].as_u64().unwrap_or(0)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn cs_entries(s: &serde_json::Value) -> u64 {
    s["status"]["general"]["n_cs_entries"]
        .as_u64()
        .unwrap_or(u64::MAX)
}

#[test]
#[ignore = "minutes long: scripts/test runs it with --ignored, scripts/soak for longer runs"]
fn soak_mixed_traffic() {
    let secs: u64 = std::env::var("NDNFWD_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    let mut out = std::env::var_os("NDNFWD_SOAK_OUT").map(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .expect("NDNFWD_SOAK_OUT is writable")
    });
    let dir = TempDir::new("soak");
    let cfg = write_config(
        &dir,
        &[],
        "",
        "[log]\nlevel = \"warn\"\n\
         [threads]\nmode = \"multi\"\nworkers = 2\n\
         [tables]\npit_capacity = 4096\ncs_capacity = 512\ncs_capacity_mb = 8\n\
         [dataplane]\ndispatch_prefix_len = 3\n",
    );
    let sock = dir.path("nfd.sock");
    let status_path = dir.path("status.json");
    let d = daemon("soak", None, &cfg, &dir.path("daemon.log"));
    let start = Instant::now();
    let warm_up = Duration::from_secs(secs / 4);
    let end = start + Duration::from_secs(secs);

    let mut prod = producer(&sock, "/soak/a", 300);
    wait_route(&sock, "/soak/a/probe0");
    let mut warm_peak = 0u64;
    let mut after: Vec<u64> = Vec::new();
    let mut round = 0u64;
    let (mut hits, mut nacks, mut timeouts) = (0u64, 0u64, 0u64);
    while Instant::now() < end {
        round += 1;
        if round % 5 == 0 {
            // Face and route churn: the producer leaves and comes back.
            prod.signal("KILL");
            prod.wait_secs(5);
            prod = producer(&sock, "/soak/a", 300);
            // A fresh name: an old probe would be answered from the CS before registration.
            wait_route(&sock, &format!("/soak/a/probe{round}"));
        }
        // A producer that never answers: its Interests expire in the PIT.
        let stalled = producer(&sock, "/soak/stall", 10);
        wait_route(&sock, &format!("/soak/stall/probe{round}"));
        stalled.signal("STOP");

        let name = format!("/soak/a/r{round}");
        let args = ["--name", &name, "--count", "300", "--window", "16"];
        let (code, v) = consumer(&sock, &args);
        assert_eq!(code, Some(0), "round {round} fetch: {v}");
        // The same names again: answered from the CS (the producer is not asked twice).
        let (code, v) = consumer(&sock, &args);
        assert_eq!(code, Some(0), "round {round} refetch: {v}");
        let (code, v) = consumer(
            &sock,
            &["--name", "/soak/none", "--count", "20", "--window", "4"],
        );
        assert_eq!(code, Some(1), "{v}");
        nacks += v["nack_reasons"]["NoRoute"].as_u64().unwrap_or(0);
        let (_, v) = consumer(
            &sock,
            &[
                "--name",
                &format!("/soak/stall/r{round}"),
                "--count",
                "20",
                "--window",
                "20",
                "--lifetime",
                "200",
            ],
        );
        timeouts += v["timeouts"].as_u64().unwrap_or(0);
        drop(stalled); // SIGKILL: its face goes

        let s = status(&d, &status_path);
        let rss = rss_kib(d.pid());
        let t = start.elapsed();
        if t < warm_up {
            warm_peak = warm_peak.max(rss);
        } else {
            after.push(rss);
        }
        hits = cs_hits(&s);
        let sample = serde_json::json!({
            "t_s": t.as_secs_f64(), "round": round, "rss_kib": rss,
            "pit": pit_entries(&s), "cs": cs_entries(&s),
            "cs_hits": hits, "nacks": nacks, "timeouts": timeouts,
        });
        println!("{sample}");
        if let Some(f) = out.as_mut() {
            let _ = writeln!(f, "{sample}");
        }
    }
    drop(prod);
    assert!(nacks > 0, "no Nack NoRoute seen");
    assert!(timeouts > 0, "no Interest expired");
    // Each round refetches 300 names its first fetch just cached (the CS holds 512 per worker).
    assert!(hits >= 270 * round, "{hits} CS hits in {round} rounds");
    eventually(&d, &status_path, 10, "PIT drained", |s| pit_entries(s) == 0);
    let half = after.len() / 2;
    let (early, late) = after.split_at(half);
    let (early, late) = (median(early), median(late));
    let max_after = after.iter().copied().max().unwrap_or(0);
    let summary = serde_json::json!({
        "summary": true, "secs": secs, "rounds": round, "cs_hits": hits,
        "rss_warm_peak_kib": warm_peak, "rss_max_after_warmup_kib": max_after,
        "rss_median_early_kib": early, "rss_median_late_kib": late,
        "rss_trend_kib": RSS_TREND_KIB, "rss_cap_kib": RSS_CAP_KIB, "pit_after_drain": 0,
    });
    println!("{summary}");
    if let Some(f) = out.as_mut() {
        let _ = writeln!(f, "{summary}");
    }
    assert!(
        warm_peak > 0 && half > 0,
        "RSS not readable, or no samples after warm-up"
    );
    assert!(
        late <= early + RSS_TREND_KIB,
        "RSS trend after warm-up: median {early} KiB -> {late} KiB"
    );
    assert!(
        max_after <= warm_peak + RSS_CAP_KIB,
        "RSS after warm-up {max_after} KiB, warm-up peak {warm_peak} KiB"
    );
}
