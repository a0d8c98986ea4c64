//! `ndnfwd gen consumer|producer`: a minimal traffic generator that talks to a forwarder as an
//! application does, over a Unix, TCP or UDP face (ndnfwd or NFD).
//!
//! - `producer` registers its prefix with `rib/register` (NFD management, python-ndn's signed
//!   command form, so NFD accepts it too) and answers every Interest under it with a Data of
//!   `--payload` bytes signed with DigestSha256, until `--count` Interests are served or it is
//!   interrupted; it prints `{"served": N, ...}`.
//! - `consumer` fetches `--name` (`--count 1`) or `<name>/seq=<i>` for i in 0..count, keeping
//!   `--window` Interests outstanding, and prints a JSON summary: received, nacks by reason,
//!   timeouts, RTT percentiles. Exit code 0 when everything was received, 1 otherwise.
//!
//! Our PIT token on every Interest carries its index, so answers are matched without name
//! lookups (the forwarder echoes downstream tokens).

use std::collections::{BTreeMap, HashMap};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use clap::{Args, Subcommand};
use ndn_packet::data::Data;
use ndn_packet::interest::Interest;
use ndn_packet::link::{LpToken, PacketKind, RxPacket, TxLp, TxPacket};
use ndn_packet::tlv::tt;
use ndn_packet::{DataBuilder, FaceId, InterestBuilder, Name};
use ndnfwd_face::{FaceEvent, FaceIdAllocator, FaceTable, FaceTableConfig, FaceUri, Persistency};
use ndnfwd_mgmt::client::{parse_command_response, CommandSigner, Signing};
use ndnfwd_mgmt::ControlParameters;
use serde_json::json;

/// `ndnfwd gen` subcommands.
#[derive(Subcommand, Debug)]
pub enum Gen {
    /// Fetch named Data and print a JSON summary.
    Consumer(ConsumerArgs),
    /// Register a prefix and answer Interests under it.
    Producer(ProducerArgs),
}

/// Where to reach the forwarder.
#[derive(Args, Debug)]
pub struct Connect {
    /// Face URI of the forwarder: unix:///path, tcp4://host:port, udp4://host:port. Default:
    /// $NDN_CLIENT_TRANSPORT, else unix:///run/nfd/nfd.sock.
    #[arg(long)]
    connect: Option<String>,
}

/// Arguments of `gen consumer`.
#[derive(Args, Debug)]
pub struct ConsumerArgs {
    #[command(flatten)]
    connect: Connect,
    /// Name to fetch (with --count > 1, a SequenceNum component i is appended).
    #[arg(long)]
    name: String,
    /// Interests to send.
    #[arg(long, default_value_t = 1)]
    count: u64,
    /// Interests outstanding at once.
    #[arg(long, default_value_t = 1)]
    window: u64,
    /// InterestLifetime in ms; no answer by then counts as a timeout.
    #[arg(long, default_value_t = 4000)]
    lifetime: u64,
    /// Set CanBePrefix.
    #[arg(long)]
    can_be_prefix: bool,
    /// Set MustBeFresh.
    #[arg(long)]
    must_be_fresh: bool,
}

/// Arguments of `gen producer`.
#[derive(Args, Debug)]
pub struct ProducerArgs {
    #[command(flatten)]
    connect: Connect,
    /// Prefix to register and serve.
    #[arg(long)]
    prefix: String,
    /// Content bytes per Data.
    #[arg(long, default_value_t = 100)]
    payload: usize,
    /// FreshnessPeriod in ms (0: none).
    #[arg(long, default_value_t = 0)]
    freshness: u64,
    /// Stop after serving this many Interests (0: until interrupted).
    #[arg(long, default_value_t = 0)]
    count: u64,
    /// Route cost to register.
    #[arg(long, default_value_t = 0)]
    cost: u64,
    /// Do not register (the forwarder has a route already).
    #[arg(long)]
    no_register: bool,
}

/// Runs a generator; returns the exit code.
pub fn main(g: Gen) -> ExitCode {
    let r = match g {
        Gen::Consumer(a) => consumer(&a),
        Gen::Producer(a) => producer(&a),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ndnfwd gen: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One face to the forwarder.
struct Client {
    table: FaceTable,
    face: FaceId,
    rx: Vec<RxPacket>,
    epoch: Instant,
}

impl Client {
    fn connect(c: &Connect) -> Result<Self, String> {
        let s = c
            .connect
            .clone()
            .or_else(|| std::env::var("NDN_CLIENT_TRANSPORT").ok())
            .unwrap_or_else(|| format!("unix://{}", ndnfwd_face::DEFAULT_UNIX_PATH));
        let uri: FaceUri = s.parse().map_err(|e| format!("--connect {s}: {e}"))?;
        let mut table = FaceTable::new(FaceIdAllocator::default(), FaceTableConfig::default())
            .map_err(|e| format!("face table: {e}"))?;
        let p = Persistency::Persistent;
        let face = match &uri {
            FaceUri::Unix(path) => table.connect_unix(path, p),
            FaceUri::Tcp(a) => table.connect_tcp(*a, p),
            FaceUri::Udp(a) => table.connect_udp(*a, p),
            _ => return Err(format!("--connect {s}: use unix://, tcp4:// or udp4://")),
        }
        .map_err(|e| format!("cannot connect to {s}: {e}"))?;
        let _ = table.drain_events().count();
        Ok(Self {
            table,
            face,
            rx: Vec::new(),
            epoch: Instant::now(),
        })
    }

    fn send(&mut self, kind: PacketKind, wire: Bytes, token: LpToken) {
        let p = TxPacket {
            face: self.face,
            kind,
            lp: TxLp {
                pit_token: token,
                ..TxLp::default()
            },
            wire,
        };
        self.table.send_burst(&[p]);
    }

    /// Waits up to `ms` for packets (appended to `self.rx`); an error when the face is gone.
    fn poll(&mut self, ms: i32) -> Result<(), String> {
        let _ = self.table.wait(ms);
        let now = u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.table.recv_burst(now, &mut self.rx, 256);
        self.table.tick(now);
        for ev in self.table.drain_events() {
            if let FaceEvent::Removed(id, why) = ev {
                if id == self.face {
                    return Err(format!("the forwarder closed the face ({why:?})"));
                }
            }
        }
        Ok(())
    }
}

fn nonce() -> [u8; 4] {
    let mut b = [0u8; 4];
    if getrandom::getrandom(&mut b).is_err() {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        b = t.to_be_bytes();
    }
    b
}

fn token(i: u64) -> LpToken {
    LpToken::new(&i.to_be_bytes()).unwrap_or(LpToken::EMPTY)
}

fn token_index(t: &LpToken) -> Option<u64> {
    t.as_bytes().try_into().ok().map(u64::from_be_bytes)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted.get(i).copied().unwrap_or(0.0)
}

fn consumer(a: &ConsumerArgs) -> Result<ExitCode, String> {
    let base = Name::from_uri(&a.name).map_err(|e| format!("--name {}: {e}", a.name))?;
    let mut c = Client::connect(&a.connect)?;
    let name_of = |i: u64| {
        if a.count == 1 {
            base.clone()
        } else {
            base.clone().push_number(tt::SEQUENCE_NUM_COMPONENT, i)
        }
    };
    let lifetime = Duration::from_millis(a.lifetime);
    let mut outstanding: HashMap<u64, Instant> = HashMap::new();
    let (mut next, mut received, mut timeouts, mut bytes) = (0u64, 0u64, 0u64, 0u64);
    let mut nacks: BTreeMap<String, u64> = BTreeMap::new();
    let mut rtts: Vec<f64> = Vec::new();
    let mut content_sample = String::new();
    let start = Instant::now();
    while next < a.count || !outstanding.is_empty() {
        while next < a.count && (outstanding.len() as u64) < a.window.max(1) {
            let wire = InterestBuilder::new(name_of(next))
                .can_be_prefix(a.can_be_prefix)
                .must_be_fresh(a.must_be_fresh)
                .lifetime_ms(a.lifetime)
                .nonce(nonce())
                .encode()
                .map_err(|e| format!("cannot encode Interest: {e}"))?;
            c.send(PacketKind::Interest, Bytes::from(wire), token(next));
            outstanding.insert(next, Instant::now());
            next += 1;
        }
        c.poll(5)?;
        for p in core::mem::take(&mut c.rx) {
            let Some(i) = token_index(&p.lp.pit_token) else {
                continue;
            };
            let Some(sent) = outstanding.remove(&i) else {
                continue;
            };
            match p.kind {
                PacketKind::Data => {
                    received += 1;
                    rtts.push(sent.elapsed().as_secs_f64() * 1e3);
                    if let Ok(d) = Data::new_checked(&p.wire) {
                        let content = d.content().unwrap_or_default();
                        bytes += content.len() as u64;
                        if a.count == 1 {
                            let cut = content.get(..256).unwrap_or(content);
                            content_sample = String::from_utf8_lossy(cut).into_owned();
                        }
                    }
                }
                PacketKind::Nack => {
                    let reason =
                        p.lp.nack
                            .flatten()
                            .map_or("none".into(), |r| format!("{r:?}"));
                    *nacks.entry(reason).or_default() += 1;
                }
                PacketKind::Interest => {}
            }
        }
        outstanding.retain(|_, sent| {
            let alive = sent.elapsed() < lifetime;
            if !alive {
                timeouts += 1;
            }
            alive
        });
    }
    rtts.sort_by(f64::total_cmp);
    let avg = if rtts.is_empty() {
        0.0
    } else {
        rtts.iter().sum::<f64>() / rtts.len() as f64
    };
    let mut out = json!({
        "name": base.to_string(),
        "sent": a.count,
        "received": received,
        "nacks": nacks.values().sum::<u64>(),
        "nack_reasons": nacks,
        "timeouts": timeouts,
        "content_bytes": bytes,
        "elapsed_ms": start.elapsed().as_secs_f64() * 1e3,
        "rtt_ms": {
            "min": rtts.first().copied().unwrap_or(0.0),
            "avg": avg,
            "p50": percentile(&rtts, 0.5),
            "p99": percentile(&rtts, 0.99),
            "max": rtts.last().copied().unwrap_or(0.0),
        },
    });
    if a.count == 1 && received == 1 {
        out["content"] = json!(content_sample);
    }
    println!("{out}");
    Ok(if received == a.count {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Sends `rib/register` for `prefix` on the client's face and waits for the answer.
fn register(c: &mut Client, prefix: &Name, cost: u64) -> Result<(), String> {
    let params = ControlParameters {
        name: Some(prefix.clone()),
        cost: Some(cost),
        ..Default::default()
    };
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0));
    let mgmt = Name::from_uri("/localhost/nfd").map_err(|e| e.to_string())?;
    let wire = CommandSigner::new(Signing::DigestCommandName)
        .command_interest(&mgmt, "rib", "register", &params, now_ms)
        .map_err(|e| format!("cannot encode command: {e}"))?;
    c.send(PacketKind::Interest, Bytes::from(wire), token(u64::MAX));
    let deadline = Instant::now() + Duration::from_secs(4);
    while Instant::now() < deadline {
        c.poll(10)?;
        let mut answer = None;
        c.rx.retain(|p| {
            let mine = token_index(&p.lp.pit_token) == Some(u64::MAX);
            if mine && answer.is_none() {
                answer = Some(p.clone());
            }
            !mine
        });
        let Some(p) = answer else { continue };
        if p.kind != PacketKind::Data {
            return Err(format!("rib/register for {prefix} was Nacked"));
        }
        let r = parse_command_response(&p.wire).map_err(|e| e.to_string())?;
        if r.code != 200 {
            return Err(format!("rib/register for {prefix}: {} {}", r.code, r.text));
        }
        return Ok(());
    }
    Err(format!("rib/register for {prefix}: no answer"))
}

fn producer(a: &ProducerArgs) -> Result<ExitCode, String> {
    let prefix = Name::from_uri(&a.prefix).map_err(|e| format!("--prefix {}: {e}", a.prefix))?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).map_err(|e| e.to_string())?;
    }
    let mut c = Client::connect(&a.connect)?;
    if !a.no_register {
        register(&mut c, &prefix, a.cost)?;
    }
    eprintln!("event=serving prefix={prefix}");
    let pattern = b"ndnfwd ";
    let payload: Vec<u8> = pattern.iter().copied().cycle().take(a.payload).collect();
    let (mut served, mut ignored) = (0u64, 0u64);
    let mut result = Ok(());
    while !stop.load(Ordering::Relaxed) && (a.count == 0 || served < a.count) {
        if let Err(e) = c.poll(20) {
            result = Err(e);
            break;
        }
        for p in core::mem::take(&mut c.rx) {
            let name = match (p.kind, Interest::new_checked(&p.wire)) {
                (PacketKind::Interest, Ok(i)) if prefix.as_ref().is_prefix_of(i.name()) => {
                    i.name().to_name()
                }
                _ => {
                    ignored += 1;
                    continue;
                }
            };
            let mut d = DataBuilder::new(name).content(payload.clone());
            if a.freshness > 0 {
                d = d.freshness_period(a.freshness);
            }
            match d.encode() {
                Ok(w) => {
                    c.send(PacketKind::Data, Bytes::from(w), p.lp.pit_token);
                    served += 1;
                }
                Err(_) => ignored += 1,
            }
        }
    }
    println!(
        "{}",
        json!({ "prefix": prefix.to_string(), "served": served, "ignored": ignored })
    );
    result.map(|()| ExitCode::SUCCESS)
}
