//! `ndnfwd bench e2e`: consumer -> forwarder -> producer through real faces, as processes on
//! this host: ndnfwd's shared-memory faces, Unix sockets, UDP over loopback, and (as root)
//! Ethernet across a veth pair between two network namespaces the benchmark makes and removes.
//! The forwarder under test is a command line (`--forwarder`), so the same run can measure
//! another forwarder side by side; the generator self-test connects the consumer straight to a
//! listening producer (no forwarder), over each local face kind measured, to show the generator
//! is not the limit. Prints one JSON object.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::Args;
use ndnfwd_netns::{veth, Netns};
use serde_json::{json, Value};

use crate::gen::{cpu_seconds, host_steal_seconds};

#[path = "e2e_summary.rs"]
mod summary;

use summary::{median_row, self_test_ratio};

/// Options of `bench e2e`.
#[derive(Args, Debug)]
pub struct E2eArgs {
    /// Forwarder command line (run with `sh -c`). Placeholders: {config} (an ndnfwd
    /// configuration written for the case), {sock} (Unix socket path to listen on), {port}
    /// (UDP port on 127.0.0.1). Default: this binary's `run --config {config}`.
    #[arg(long)]
    forwarder: Option<String>,
    /// Face kinds to measure: shm (ndnfwd's shared-memory faces; only with the default
    /// forwarder), unix, udp, ether (ether needs root; skipped otherwise).
    #[arg(long, value_delimiter = ',', default_value = "shm,unix,udp,ether")]
    faces: Vec<String>,
    /// Data payload sizes in bytes.
    #[arg(long, value_delimiter = ',', default_value = "100,8000")]
    payloads: Vec<usize>,
    /// Seconds of traffic per case.
    #[arg(long, default_value_t = 5.0)]
    duration: f64,
    /// Interests outstanding per consumer thread on datagram faces (UDP, Ethernet), where a
    /// deeper window overflows socket and NIC queues and turns into losses, not rate.
    #[arg(long, default_value_t = 128)]
    window: u32,
    /// Interests outstanding per consumer thread on lossless local faces (the shared-memory
    /// and Unix rows and the self-tests), capped so that at most 1 MiB of Data payload is in
    /// flight (8 KB Data: 131).
    /// A stream loses nothing, so this only has to be deep enough that neither the forwarder
    /// nor the generator waits on it: at 128, 100 B exchanges were window-bound at both ends;
    /// at 512, 8 KB ones made the generator itself slower (more memory in flight).
    #[arg(long, default_value_t = 512)]
    stream_window: u32,
    /// Consumer threads (each its own face).
    #[arg(long, default_value_t = 1)]
    threads: u8,
    /// Producer signature: null (SignatureType 200, no hashing, so the producer's SHA-256
    /// over 8 KB payloads does not limit the run) or digest (DigestSha256).
    #[arg(long, default_value = "null")]
    sign: String,
    /// Skip the generator self-tests (consumer straight to producer).
    #[arg(long)]
    no_self_test: bool,
    /// Run the forwarder on the last CPU alone (`taskset`) and the consumer and producer on
    /// the others (`gen --cpus`), so the one forwarding thread has a core to itself and does
    /// not share it with the generator. A self-test, which measures what the generator can do
    /// with the whole machine, puts its producer on the others and its consumer on the last.
    #[arg(long)]
    pin: bool,
    /// Rounds: every case is measured this many times, one round of all cases after another,
    /// and each row is the round with the median rate, listing every round's rate. On a
    /// shared machine a single run can land in a slow minute.
    #[arg(long, default_value_t = 1)]
    rounds: u32,
}

/// The nap of generator processes that share a CPU (see [`E2eArgs::generator_cpus`]).
const SHARED_CPU_NAP_US: &str = "100";

/// CPUs of a pinned run: the forwarder's and the generators'.
struct Pinning {
    forwarder: usize,
    generator: String,
}

impl E2eArgs {
    fn pinning(&self) -> Result<Option<Pinning>, String> {
        if !self.pin {
            return Ok(None);
        }
        let n = std::thread::available_parallelism().map_or(1, usize::from);
        if n < 2 {
            return Err("--pin needs at least 2 CPUs".into());
        }
        let generator = (0..n - 1)
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(",");
        Ok(Some(Pinning {
            forwarder: n - 1,
            generator,
        }))
    }

    /// `--cpus LIST` for the generator processes of a pinned run, which share those CPUs,
    /// and a 100 us nap (`gen --nap-us`): each nap hands the CPU to the other process, and at
    /// the default 20 us the pair spent about a third more CPU per exchange on switching.
    fn generator_cpus(&self) -> Vec<String> {
        match self.pinning() {
            Ok(Some(p)) => vec![
                "--cpus".into(),
                p.generator,
                "--nap-us".into(),
                SHARED_CPU_NAP_US.into(),
            ],
            _ => Vec::new(),
        }
    }

    /// `--cpus` for the producer and the consumer of a pinned self-test: the producer on the
    /// generators' CPUs, the consumer on the forwarder's (free during a self-test), so the
    /// pair has the whole machine and the scheduler cannot stack them on one CPU.
    fn self_test_cpus(&self) -> (Vec<String>, Vec<String>) {
        match self.pinning() {
            Ok(Some(p)) => (
                vec!["--cpus".into(), p.generator],
                vec!["--cpus".into(), p.forwarder.to_string()],
            ),
            _ => (Vec::new(), Vec::new()),
        }
    }
}

/// A child process killed and reaped on drop.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Two network namespaces joined by veth `va` (in `a`) -- `vb` (in `b`); deleted on drop.
struct Net {
    a: Netns,
    b: Netns,
}

impl Net {
    fn new() -> Result<Self, String> {
        if let Some(why) = ndnfwd_netns::skip_reason() {
            return Err(why);
        }
        let n = Self {
            a: Netns::new("ndnfwd-e2e-a")?,
            b: Netns::new("ndnfwd-e2e-b")?,
        };
        veth((&n.a, "va"), (&n.b, "vb"))?;
        Ok(n)
    }
}

fn self_exe() -> Result<PathBuf, String> {
    std::env::current_exe().map_err(|e| format!("cannot find own binary: {e}"))
}

/// `program` in namespace `ns` when given.
fn command(ns: Option<&Netns>, program: &Path) -> Command {
    match ns {
        Some(ns) => ns.command(program),
        None => Command::new(program),
    }
}

/// Starts a producer and waits for its `event=serving` line (10 s at most).
fn producer(ns: Option<&Netns>, args: &[String]) -> Result<Proc, String> {
    let mut child = command(ns, &self_exe()?)
        .args(["gen", "producer"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn producer: {e}"))?;
    let err = child.stderr.take();
    let p = Proc(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let Some(err) = err else { return };
        let mut lines = BufReader::new(err).lines().map_while(Result::ok);
        let first = lines.find(|l| l.contains("event=serving") || l.contains("ndnfwd gen:"));
        let _ = tx.send(first);
        lines.for_each(drop);
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(Some(l)) if l.contains("event=serving") => Ok(p),
        Ok(l) => Err(format!("producer failed: {}", l.unwrap_or_default())),
        Err(_) => Err("producer did not start in 10 s".into()),
    }
}

/// Runs a consumer to completion and parses its summary.
fn consumer(ns: Option<&Netns>, args: &[String]) -> Result<Value, String> {
    let out = command(ns, &self_exe()?)
        .args([
            "gen",
            "consumer",
            "--interval-ms",
            "0",
            "--lifetime",
            "1000",
        ])
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("spawn consumer: {e}"))?;
    serde_json::from_slice(&out.stdout).map_err(|e| format!("consumer output: {e}"))
}

/// Waits (10 s at most) until `path` exists.
fn wait_path(path: &Path) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !path.exists() {
        if Instant::now() > deadline {
            return Err(format!("{} never appeared", path.display()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

struct Case<'a> {
    face: &'a str,
    payload: usize,
}

/// Starts the forwarder for one case: `{config}`, `{sock}`, `{port}` substituted.
fn forwarder(
    a: &E2eArgs,
    dir: &Path,
    ns: Option<&Netns>,
    extra: &str,
    port: u16,
) -> Result<(Proc, PathBuf), String> {
    let sock = dir.join("fwd.sock");
    let cfg = dir.join("fwd.toml");
    let text = format!(
        "[log]\nlevel = \"warn\"\n[threads]\nmode = \"single\"\n\
         [listeners]\nunix = \"{}\"\ntcp = []\nudp = [\"127.0.0.1:{port}\"]\n\
         [tables]\npit_capacity = 262144\ncs_capacity = 65536\n{extra}",
        sock.display()
    );
    std::fs::write(&cfg, text).map_err(|e| e.to_string())?;
    let default = format!("'{}' run --config {{config}}", self_exe()?.display());
    let line = a
        .forwarder
        .as_deref()
        .unwrap_or(&default)
        .replace("{config}", &cfg.display().to_string())
        .replace("{sock}", &sock.display().to_string())
        .replace("{port}", &port.to_string());
    let mut c = match ns {
        Some(ns) => ns.command("sh"),
        None => Command::new("sh"),
    };
    let line = match a.pinning()? {
        Some(p) => format!("taskset -c {} {line}", p.forwarder),
        None => line,
    };
    c.args(["-c", &format!("exec {line}")]);
    let log = std::fs::File::create(dir.join("fwd.log")).map_err(|e| e.to_string())?;
    let child = c
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("spawn forwarder: {e}"))?;
    let p = Proc(child);
    wait_path(&sock)?;
    Ok((p, sock))
}

fn scratch(tag: &str) -> Result<Scratch, String> {
    let d = std::env::temp_dir().join(format!("ndnfwd-e2e-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).map_err(|e| e.to_string())?;
    Ok(Scratch(d))
}

/// Data payload bytes a stream case keeps in flight at most (see `--stream-window`).
const STREAM_IN_FLIGHT: usize = 1 << 20;

/// Face kinds that lose nothing (a full shared-memory ring drops, but the window is far below
/// its 2 MiB).
const LOSSLESS: [&str; 2] = ["shm", "unix"];

/// The consumer window of a case: deep on lossless local faces (up to [`STREAM_IN_FLIGHT`]
/// bytes of payload), shallow on datagrams.
fn window(a: &E2eArgs, case: &Case<'_>) -> u32 {
    if LOSSLESS.contains(&case.face) {
        let by_bytes = u32::try_from(STREAM_IN_FLIGHT / case.payload.max(1)).unwrap_or(u32::MAX);
        a.stream_window.min(by_bytes).max(1)
    } else {
        a.window
    }
}

fn consumer_args(a: &E2eArgs, case: &Case<'_>, connect: &str) -> Vec<String> {
    vec![
        "--connect".into(),
        connect.into(),
        "--pattern".into(),
        "prefix=/e2e,suffix=seq".into(),
        "--duration".into(),
        a.duration.to_string(),
        "--window".into(),
        window(a, case).to_string(),
        "--threads".into(),
        a.threads.to_string(),
    ]
}

/// Host steal over one measured span: the hypervisor's `steal` CPU seconds and the wall
/// clock, both read at the span's start and end (so the share is of the same span).
struct StealSpan {
    at: Instant,
    steal: f64,
}

impl StealSpan {
    fn start() -> Self {
        Self {
            at: Instant::now(),
            steal: host_steal_seconds(),
        }
    }

    /// Share of the machine's CPU time (all its CPUs) the hypervisor took since `start`, in
    /// percent. `/proc/stat` counts steal in 10 ms ticks per CPU, so a short span can read a
    /// tick more than it lasted: the share is capped at 100.
    fn pct(&self) -> f64 {
        let cpus = std::thread::available_parallelism().map_or(1, usize::from) as f64;
        let wall = self.at.elapsed().as_secs_f64() * cpus;
        (100.0 * (host_steal_seconds() - self.steal) / wall.max(1e-9)).clamp(0.0, 100.0)
    }
}

/// One measured row from a consumer summary.
fn row(
    a: &E2eArgs,
    case: &Case<'_>,
    path: &str,
    v: &Value,
    fwd_cpu: Option<f64>,
    prod_cpu: f64,
    steal_pct: f64,
) -> Value {
    let per = |cpu: f64| cpu * 1e6 / v["received"].as_f64().unwrap_or(0.0).max(1.0);
    json!({
        "face": case.face,
        "payload": case.payload,
        "path": path,
        "window": window(a, case),
        "data_per_sec": v["data_per_sec"],
        "rtt_p50_ms": v["rtt_ms"]["p50"],
        "rtt_p99_ms": v["rtt_ms"]["p99"],
        "sent": v["sent"],
        "received": v["received"],
        "nacks": v["nacks"],
        "timeouts": v["timeouts"],
        "forwarder_cpu_s": fwd_cpu,
        // Forwarder CPU time (user + system, idle polling included) per exchange: an upper
        // bound of its cost, whatever the generator and the shared cores allowed.
        "forwarder_us_per_exchange": fwd_cpu.map(per),
        // The same for each generator process: what one exchange costs the generator.
        "consumer_us_per_exchange": v["cpu_s"].as_f64().map(per),
        "producer_us_per_exchange": per(prod_cpu),
        // Share of the machine's CPU time the hypervisor took away during the run: on a
        // shared VM, what makes one run of the same code slower than another.
        "host_steal_pct": steal_pct,
    })
}

/// Measures one case through the forwarder.
fn through_forwarder(a: &E2eArgs, case: &Case<'_>, port: u16) -> Result<Value, String> {
    let dir = scratch(&format!("{}-{}", case.face, case.payload))?;
    let payload = case.payload.to_string();
    if case.face == "ether" {
        if a.forwarder.is_some() {
            return Err("the Ethernet case configures ndnfwd's own [[face]]/[[route]]; not run for --forwarder".into());
        }
        let net = Net::new()?;
        let group = "ether://[01:00:5e:00:17:aa]";
        let extra = format!(
            "[[route]]\nprefix = \"/e2e\"\nface = \"{group}\"\nlocal = \"dev://va\"\ncost = 0\n"
        );
        let (fwd, sock) = forwarder(a, &dir.0, Some(&net.a), &extra, port)?;
        let prod_args: Vec<String> = [
            "--connect",
            group,
            "--local",
            "dev://vb",
            "--prefix",
            "/e2e",
            "--no-register",
            "--payload",
            &payload,
            "--sign",
            &a.sign,
        ]
        .map(str::to_owned)
        .to_vec();
        let prod = producer(Some(&net.b), &[prod_args, a.generator_cpus()].concat())?;
        let connect = format!("unix://{}", sock.display());
        return measure(a, case, Some(&net.a), &connect, &fwd, &prod);
    }
    if case.face == "shm" && a.forwarder.is_some() {
        return Err("shared-memory faces are ndnfwd's own; not run for --forwarder".into());
    }
    let (fwd, sock) = forwarder(a, &dir.0, None, "", port)?;
    let connect = match case.face {
        "shm" => {
            let shm = crate::run::shm_path(&sock);
            wait_path(&shm)?;
            format!("shm://{}", shm.display())
        }
        "unix" => format!("unix://{}", sock.display()),
        "udp" => format!("udp4://127.0.0.1:{port}"),
        f => return Err(format!("unknown face kind {f}")),
    };
    let prod_args: Vec<String> = [
        "--connect",
        &connect,
        "--prefix",
        "/e2e",
        "--payload",
        &payload,
        "--sign",
        &a.sign,
    ]
    .map(str::to_owned)
    .to_vec();
    let prod = producer(None, &[prod_args, a.generator_cpus()].concat())?;
    measure(a, case, None, &connect, &fwd, &prod)
}

fn measure(
    a: &E2eArgs,
    case: &Case<'_>,
    ns: Option<&Netns>,
    connect: &str,
    fwd: &Proc,
    prod: &Proc,
) -> Result<Value, String> {
    // Warm-up: the route works and the faces exist.
    let warm = consumer(
        ns,
        &[
            "--connect",
            connect,
            "--name",
            "/e2e/warm",
            "--count",
            "200",
            "--window",
            "16",
        ]
        .map(str::to_owned),
    )?;
    if warm["received"].as_u64().unwrap_or(0) == 0 {
        return Err(format!("warm-up fetched nothing: {warm}"));
    }
    let (fwd_pid, prod_pid) = (fwd.0.id().to_string(), prod.0.id().to_string());
    let (f0, p0) = (cpu_seconds(&fwd_pid), cpu_seconds(&prod_pid));
    let steal = StealSpan::start();
    let mut args = consumer_args(a, case, connect);
    args.extend(a.generator_cpus());
    let v = consumer(ns, &args)?;
    let steal_pct = steal.pct();
    let (f1, p1) = (cpu_seconds(&fwd_pid), cpu_seconds(&prod_pid));
    Ok(row(
        a,
        case,
        "forwarder",
        &v,
        Some(f1 - f0),
        p1 - p0,
        steal_pct,
    ))
}

/// The generator self-test: consumer straight to a listening producer over a local face
/// (`shm` or `unix`).
fn self_test(a: &E2eArgs, face: &str, payload: usize) -> Result<Value, String> {
    let dir = scratch(&format!("self-{face}-{payload}"))?;
    let uri = format!("{face}://{}", dir.0.join("prod.sock").display());
    let p = payload.to_string();
    let (prod_cpus, cons_cpus) = a.self_test_cpus();
    let prod_args = [
        "--listen",
        &uri,
        "--prefix",
        "/e2e",
        "--payload",
        &p,
        "--sign",
        &a.sign,
    ]
    .map(str::to_owned);
    let prod = producer(None, &[&prod_args[..], &prod_cpus].concat())?;
    let pid = prod.0.id().to_string();
    let (p0, steal) = (cpu_seconds(&pid), StealSpan::start());
    let case = Case { face, payload };
    let v = consumer(None, &[consumer_args(a, &case, &uri), cons_cpus].concat())?;
    let (p1, steal_pct) = (cpu_seconds(&pid), steal.pct());
    Ok(row(a, &case, "self-test", &v, None, p1 - p0, steal_pct))
}

/// One case of a round: through the forwarder (with its UDP port) or the self-test.
struct Planned<'a> {
    case: Case<'a>,
    port: Option<u16>,
}

impl Planned<'_> {
    fn measure(&self, a: &E2eArgs) -> Result<Value, String> {
        let c = &self.case;
        match self.port {
            Some(port) => through_forwarder(a, c, port),
            None => self_test(a, c.face, c.payload),
        }
    }

    fn path(&self) -> &'static str {
        if self.port.is_some() {
            "forwarder"
        } else {
            "self-test"
        }
    }
}

/// Runs every case; prints one JSON object.
pub fn run(a: &E2eArgs) -> Result<(), String> {
    // A self-test runs right after the forwarder case of the same face and payload, so the
    // two rates of a round were measured in the same minute of this shared machine.
    let mut plan = Vec::new();
    let base_port = 20000 + (std::process::id() % 20000) as u16;
    for (k, face) in a.faces.iter().enumerate() {
        for (j, &payload) in a.payloads.iter().enumerate() {
            let port = Some(base_port + (k * 16 + j) as u16);
            plan.push(Planned {
                case: Case { face, payload },
                port,
            });
            if !a.no_self_test && LOSSLESS.contains(&face.as_str()) {
                plan.push(Planned {
                    case: Case { face, payload },
                    port: None,
                });
            }
        }
    }
    let mut runs: Vec<Vec<Value>> = plan.iter().map(|_| Vec::new()).collect();
    let mut skipped = Vec::new();
    for round in 1..=a.rounds.max(1) {
        for (p, got) in plan.iter().zip(&mut runs) {
            let (face, payload, path) = (p.case.face, p.case.payload, p.path());
            eprintln!("bench e2e: round {round}: {face} {payload} B {path}");
            match p.measure(a) {
                Ok(mut r) => {
                    r["round"] = round.into();
                    got.push(r);
                }
                Err(why) => {
                    eprintln!("bench e2e: skipped {face} {payload} B {path}: {why}");
                    skipped.push(json!({"face": face, "path": path, "payload": payload,
                                        "round": round, "reason": why}));
                }
            }
        }
    }
    let ratios: Vec<Value> = plan
        .iter()
        .zip(&runs)
        .zip(plan.iter().zip(&runs).skip(1))
        .filter(|((f, _), (s, _))| f.port.is_some() && s.port.is_none())
        .filter_map(|((f, fwd), (_, own))| self_test_ratio(&f.case, fwd, own))
        .collect();
    let rows: Vec<Value> = runs.iter().filter_map(|r| median_row(r)).collect();
    let out = json!({
        "bench": "e2e",
        "machine": super::machine(),
        "forwarder": a.forwarder.clone().unwrap_or_else(|| "ndnfwd run (mode single, 1 thread)".into()),
        "duration_s": a.duration,
        "window": a.window,
        "stream_window": a.stream_window,
        "rounds": a.rounds.max(1),
        "consumer_threads": a.threads,
        "pinned": a.pinning()?.map(|p| json!({"forwarder_cpu": p.forwarder, "generator_cpus": p.generator,
                                              "generator_nap_us": SHARED_CPU_NAP_US})),
        "producer_signing": a.sign,
        "rows": rows,
        "skipped": skipped,
        "self_test_ratios": ratios,
    });
    println!("{out}");
    Ok(())
}
