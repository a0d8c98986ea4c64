//! `ndnfwd gen consumer|producer`: a traffic generator that talks to a forwarder as applications
//! do, over any face ndnfwd opens (Unix, TCP, UDP, Ethernet), so it can drive ndnfwd, NFD or NDNd.
//!
//! - `consumer`: weighted name patterns (`--pattern prefix=/a,weight=3,suffix=seq,cbp=0.1,mbf=0.5`,
//!   or `--name` for one), window (closed-loop, `--window`) or fixed-rate (`--rate`) pacing,
//!   `--threads` threads each with its own face, a live rate line on stderr every
//!   `--interval-ms`, and a JSON summary on stdout: Data, Nacks by reason, timeouts/losses, an
//!   HDR histogram of RTTs, per-pattern counts. All per-Interest state travels in the PIT token
//!   ([`ndnfwd_workload::GenToken`]), so the generator keeps no table. Exit code 0 when every
//!   Interest brought Data.
//! - `producer`: registers its patterns' prefixes (`rib/register`, NFD's signed command form) or,
//!   with `--listen`, accepts a consumer directly (generator self-test, no forwarder), and answers
//!   per pattern (`--pattern prefix=/a,reply=data|nack:REASON|silence,payload=N,freshness=MS`)
//!   with DigestSha256-signed Data (or `sign=null`), Nacks or silence.
//!
//! The pattern, weighting and token logic lives in `ndnfwd-workload` (`traffic`); this module
//! moves packets and prints.

mod client;
mod consumer;
mod producer;
mod stats;
mod wire;

pub use stats::{cpu_seconds, host_steal_seconds};

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use ndn_packet::Name;
use ndnfwd_workload::{ConsumerPattern, PatternMix, ProducerPattern, Reply, Signing, Suffix};
use serde_json::json;

use client::{Client, Endpoint};
use consumer::{Pace, Plan};
use stats::{Live, Tally};

/// `ndnfwd gen` subcommands.
#[derive(Subcommand, Debug)]
pub enum Gen {
    /// Send Interests and print a JSON summary.
    Consumer(ConsumerArgs),
    /// Register prefixes and answer Interests under them.
    Producer(ProducerArgs),
}

/// Where each thread's face goes.
#[derive(Args, Debug)]
pub struct Connect {
    /// Face URI of the forwarder: unix:///path, tcp4://host:port, udp4://host:port,
    /// ether://[MAC] (with --local). Default: $NDN_CLIENT_TRANSPORT, else
    /// unix:///run/nfd/nfd.sock.
    #[arg(long)]
    connect: Option<String>,
    /// Local interface of an ether:// face: dev://IFNAME.
    #[arg(long)]
    local: Option<String>,
    /// CPUs to pin the generator's threads to, in turn (for benchmarks that keep the
    /// generator off the forwarder's cores). Default: no pinning.
    #[arg(long, value_delimiter = ',')]
    cpus: Vec<usize>,
    /// Microseconds a thread on a busy shared-memory face naps when its ring is empty. Short
    /// naps keep a thread with a CPU of its own close to its peer; when generator processes
    /// share one CPU each nap hands it to the other, and longer naps mean bigger batches per
    /// context switch.
    #[arg(long, default_value_t = 20)]
    nap_us: u64,
}

impl Connect {
    /// Sets up the calling generator thread `t`: a timer slack of 1 us, so that the nap of a
    /// busy shared-memory face ([`Client::poll`], `--nap-us`) lasts what it says and not 50 us
    /// more (a peer that finds its ring empty would wait that long for work already there),
    /// and its CPU, if any were given.
    fn prepare_thread(&self, t: usize) -> Result<(), String> {
        let pinned = match self.cpus.get(t % self.cpus.len().max(1)) {
            Some(&cpu) => ndnfwd_dataplane::pin_current_thread(cpu)
                .map_err(|e| format!("cannot pin to CPU {cpu}: {e}")),
            None => Ok(()),
        };
        pinned
            .and(ndnfwd_dataplane::set_timer_slack(1_000).map_err(|e| format!("timer slack: {e}")))
    }
}

/// Arguments of `gen consumer`.
#[derive(Args, Debug)]
pub struct ConsumerArgs {
    #[command(flatten)]
    connect: Connect,
    /// One name to fetch (with --count > 1, a SequenceNum component is appended).
    #[arg(long)]
    name: Option<String>,
    /// A weighted name pattern, repeatable:
    /// prefix=/a[,weight=N][,suffix=seq|random|none|real:PATH][,cbp=RATIO][,mbf=RATIO].
    #[arg(long)]
    pattern: Vec<String>,
    /// Interests to send in all (default 1, or unlimited with --duration).
    #[arg(long)]
    count: Option<u64>,
    /// Stop sending after this many seconds.
    #[arg(long)]
    duration: Option<f64>,
    /// Interests outstanding at once, per thread (window mode).
    #[arg(long, default_value_t = 1)]
    window: u32,
    /// Fixed-rate mode: Interests per second in all threads (0: window mode).
    #[arg(long, default_value_t = 0.0)]
    rate: f64,
    /// Threads, each with its own face.
    #[arg(long, default_value_t = 1)]
    threads: u8,
    /// Interests per send burst.
    #[arg(long, default_value_t = 64)]
    batch: usize,
    /// InterestLifetime in ms; no answer by then counts as a timeout.
    #[arg(long, default_value_t = 4000)]
    lifetime: u64,
    /// Set CanBePrefix on --name Interests.
    #[arg(long)]
    can_be_prefix: bool,
    /// Set MustBeFresh on --name Interests.
    #[arg(long)]
    must_be_fresh: bool,
    /// Live rates on stderr every this many ms (0: none).
    #[arg(long, default_value_t = 1000)]
    interval_ms: u64,
    /// Seed of pattern choice and random suffixes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Arguments of `gen producer`.
#[derive(Args, Debug)]
pub struct ProducerArgs {
    #[command(flatten)]
    connect: Connect,
    /// Listen at unix:///path or udp4://addr:port instead of connecting (self-test: a consumer
    /// connects straight to the producer, no forwarder); one thread.
    #[arg(long)]
    listen: Option<String>,
    /// Prefix to register and serve with Data (same as --pattern prefix=P,payload=..).
    #[arg(long)]
    prefix: Option<String>,
    /// A reply rule, repeatable:
    /// prefix=/a[,reply=data|silence|nack|nack:REASON][,payload=N][,freshness=MS].
    #[arg(long)]
    pattern: Vec<String>,
    /// Content bytes per Data (for --prefix).
    #[arg(long, default_value_t = 100)]
    payload: usize,
    /// FreshnessPeriod in ms (for --prefix; 0: none).
    #[arg(long, default_value_t = 0)]
    freshness: u64,
    /// Signature for --prefix: digest (DigestSha256) or null (SignatureType 200, no hashing).
    #[arg(long, default_value = "digest", value_parser = parse_signing)]
    sign: Signing,
    /// Stop after answering this many Interests in all (0: until interrupted).
    #[arg(long, default_value_t = 0)]
    count: u64,
    /// Route cost to register.
    #[arg(long, default_value_t = 0)]
    cost: u64,
    /// Do not register (the forwarder has a route already).
    #[arg(long)]
    no_register: bool,
    /// Threads, each with its own face (each registers every prefix).
    #[arg(long, default_value_t = 1)]
    threads: u8,
}

/// Runs a generator; returns the exit code.
pub fn main(g: Gen) -> ExitCode {
    // 8 KB Data freed and allocated burst after burst must not fault their pages in each time.
    crate::alloc::keep_freed_memory();
    let r = match g {
        Gen::Consumer(a) => run_consumer(&a),
        Gen::Producer(a) => run_producer(&a),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ndnfwd gen: {e}");
            ExitCode::FAILURE
        }
    }
}

fn stop_flag() -> Result<Arc<AtomicBool>, String> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).map_err(|e| e.to_string())?;
    }
    Ok(stop)
}

fn consumer_patterns(a: &ConsumerArgs, count: Option<u64>) -> Result<Vec<ConsumerPattern>, String> {
    let mut out = Vec::new();
    if let Some(n) = &a.name {
        let prefix = Name::from_uri(n).map_err(|e| format!("--name {n}: {e}"))?;
        let suffix = if count == Some(1) {
            Suffix::None
        } else {
            Suffix::Seq
        };
        let mut p = ConsumerPattern::new(prefix, suffix);
        p.can_be_prefix = f64::from(u8::from(a.can_be_prefix));
        p.must_be_fresh = f64::from(u8::from(a.must_be_fresh));
        out.push(p);
    }
    for s in &a.pattern {
        out.push(s.parse().map_err(|e| format!("--pattern {s}: {e}"))?);
    }
    if out.is_empty() {
        return Err("give --name or at least one --pattern".into());
    }
    Ok(out)
}

/// Prints a live rate line every `interval` until `running` threads are done.
fn report_live(what: &str, live: &Live, running: &AtomicUsize, interval: Duration) {
    let start = Instant::now();
    let mut last = (0u64, 0u64, 0u64);
    let mut last_t = start;
    while running.load(Ordering::Acquire) > 0 {
        std::thread::sleep(Duration::from_millis(20));
        if interval.is_zero() || last_t.elapsed() < interval {
            continue;
        }
        let now = live.read();
        let dt = last_t.elapsed().as_secs_f64();
        eprintln!(
            "gen {what}: t={:.1}s sent={} data={} nacks={} interest/s={:.0} data/s={:.0}",
            start.elapsed().as_secs_f64(),
            now.0,
            now.1,
            now.2,
            (now.0 - last.0) as f64 / dt,
            (now.1 - last.1) as f64 / dt,
        );
        (last, last_t) = (now, Instant::now());
    }
}

fn run_consumer(a: &ConsumerArgs) -> Result<ExitCode, String> {
    let count = match (a.count, a.duration) {
        (Some(n), _) => Some(n),
        (None, Some(_)) => None,
        (None, None) => Some(1),
    };
    let mix = PatternMix::new(consumer_patterns(a, count)?, a.seed)
        .map_err(|e| format!("patterns: {e}"))?;
    let ep = Endpoint::parse(
        a.connect.connect.as_deref(),
        None,
        a.connect.local.as_deref(),
    )?;
    let threads = a.threads.max(1);
    let pace = if a.rate > 0.0 {
        Pace::Rate(a.rate / f64::from(threads))
    } else {
        Pace::Window(a.window)
    };
    let stop = stop_flag()?;
    let live = Live::default();
    let running = AtomicUsize::new(usize::from(threads));
    let mut clients = (0..threads)
        .map(|_| Client::open(&ep, Duration::from_micros(a.connect.nap_us)))
        .collect::<Result<Vec<_>, _>>()?;
    let epoch = Instant::now();
    let deadline_ns = a.duration.map(|d| (d.max(0.0) * 1e9) as u64);
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let handles: Vec<_> = clients
            .iter_mut()
            .enumerate()
            .map(|(t, c)| {
                let per = count.map(|n| {
                    n / u64::from(threads) + u64::from((t as u64) < n % u64::from(threads))
                });
                let plan = Plan {
                    thread: t as u8,
                    threads: u64::from(threads),
                    mix: &mix,
                    pace,
                    count: per,
                    deadline_ns,
                    lifetime_ms: a.lifetime,
                    batch: a.batch.max(1),
                    epoch,
                    stop: &stop,
                    live: &live,
                    sample_content: count == Some(1),
                };
                let running = &running;
                let connect = &a.connect;
                s.spawn(move || {
                    if let Err(e) = connect.prepare_thread(t) {
                        eprintln!("ndnfwd gen: {e}");
                    }
                    let t = consumer::run(c, &plan);
                    running.fetch_sub(1, Ordering::Release);
                    t
                })
            })
            .collect();
        report_live(
            "consumer",
            &live,
            &running,
            Duration::from_millis(a.interval_ms),
        );
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut total = Tally::new(mix.patterns().len());
    for t in &tallies {
        total.merge(t);
    }
    let elapsed_s = (total.last_answer_ns as f64 / 1e9).max(1e-9);
    let patterns: Vec<_> = mix
        .patterns()
        .iter()
        .zip(&total.patterns)
        .map(|(p, t)| json!({"prefix": p.prefix.to_string(), "weight": p.weight, "sent": t.sent, "data": t.data, "nacks": t.nacks}))
        .collect();
    let mut out = json!({
        "name": mix.patterns().first().map(|p| p.prefix.to_string()),
        "mode": match pace { Pace::Window(_) => "window", Pace::Rate(_) => "rate" },
        "threads": threads,
        "window": a.window,
        "rate_target": a.rate,
        "sent": total.sent,
        "received": total.data,
        "nacks": total.nack_total(),
        "nack_reasons": total.nacks,
        "timeouts": total.timeouts,
        "unmatched": total.unmatched,
        "content_bytes": total.content_bytes,
        "elapsed_ms": elapsed_s * 1e3,
        "data_per_sec": total.data as f64 / elapsed_s,
        "rtt_ms": total.rtt.summary_ms(),
        "rtt_samples": total.rtt.len(),
        "cpu_s": cpu_seconds("self"),
        "patterns": patterns,
    });
    if let Some(c) = &total.content_sample {
        out["content"] = json!(c);
    }
    println!("{out}");
    Ok(if total.sent > 0 && total.data == total.sent {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn parse_signing(s: &str) -> Result<Signing, String> {
    match s {
        "digest" => Ok(Signing::Digest),
        "null" => Ok(Signing::Null),
        _ => Err(format!("unknown signing {s}: digest or null")),
    }
}

fn producer_patterns(a: &ProducerArgs) -> Result<Vec<ProducerPattern>, String> {
    let mut out = Vec::new();
    if let Some(p) = &a.prefix {
        out.push(ProducerPattern {
            prefix: Name::from_uri(p).map_err(|e| format!("--prefix {p}: {e}"))?,
            reply: Reply::Data,
            payload: a.payload,
            freshness_ms: a.freshness,
            signing: a.sign,
        });
    }
    for s in &a.pattern {
        out.push(s.parse().map_err(|e| format!("--pattern {s}: {e}"))?);
    }
    if out.is_empty() {
        return Err("give --prefix or at least one --pattern".into());
    }
    Ok(out)
}

fn run_producer(a: &ProducerArgs) -> Result<ExitCode, String> {
    let rules = producer_patterns(a)?;
    let ep = Endpoint::parse(
        a.connect.connect.as_deref(),
        a.listen.as_deref(),
        a.connect.local.as_deref(),
    )?;
    let threads = if ep.is_listen() { 1 } else { a.threads.max(1) };
    let stop = stop_flag()?;
    let mut clients = Vec::new();
    for _ in 0..threads {
        let mut c = Client::open(&ep, Duration::from_micros(a.connect.nap_us))?;
        if !a.no_register && !ep.is_listen() {
            for r in &rules {
                client::register(&mut c, &r.prefix, a.cost)?;
            }
        }
        clients.push(c);
    }
    eprintln!(
        "event=serving prefix={} threads={threads}",
        rules
            .first()
            .map(|r| r.prefix.to_string())
            .unwrap_or_default()
    );
    let total = AtomicU64::new(0);
    let live = Live::default();
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = clients
            .iter_mut()
            .enumerate()
            .map(|(t, c)| {
                let (rules, stop, total, live) = (&rules, &stop, &total, &live);
                s.spawn(move || {
                    if let Err(e) = a.connect.prepare_thread(t) {
                        eprintln!("ndnfwd gen: {e}");
                    }
                    producer::run(c, rules, stop, total, a.count, live)
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut sum = producer::Served::default();
    let mut error = None;
    for r in results {
        match r {
            Ok(s) => {
                sum.data += s.data;
                sum.nacks += s.nacks;
                sum.silenced += s.silenced;
                sum.ignored += s.ignored;
            }
            Err(e) => error = Some(e),
        }
    }
    println!(
        "{}",
        json!({
            "prefix": rules.first().map(|r| r.prefix.to_string()),
            "threads": threads,
            "served": sum.data,
            "nacked": sum.nacks,
            "silenced": sum.silenced,
            "ignored": sum.ignored,
        })
    );
    match error {
        Some(e) => Err(e),
        None => Ok(ExitCode::SUCCESS),
    }
}
