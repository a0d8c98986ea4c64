//! `ndnfwd bench offload`: seed 003's switch-offloaded Data path.
//!
//! Three figures, each from `ndnfwd-offload`: the share of Data the switch tier's hashed PIT
//! forwards alone (the model, on a seed-like workload), the seed's throughput estimate (its
//! 10.8-Tbps example and the same switch with ndnfwd's Interest rate), and, with `--veth` as
//! root, Data throughput through a real router daemon between two others over veth pairs,
//! without and then with the XDP fast path on the router's interfaces.
//!
//! The veth topology: namespaces `ndnoff-{c,r,p}-<pid>-<seq>`; consumer daemon (veth `vc`) -- router
//! daemon (`rc` | `rp`) -- producer daemon (`vp`), Ethernet faces on the NDN multicast group;
//! `gen consumer` and `gen producer` on the outer daemons' Unix sockets. Everything it starts
//! is stopped and the namespaces are deleted when it ends, also on error.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::Args;
use ndn_packet::{DataBuilder, InterestBuilder, LpPacketBuilder, Name, NameHasher, SipVariant};
use ndnfwd_netns::{veth, Netns};
use ndnfwd_offload::estimate::{estimate, Inputs, SEED_EXAMPLE};
use ndnfwd_offload::share::{run_share, ShareConfig};
use ndnfwd_offload::xdp::{self, AttachMode, XdpConfig, XdpPit};
use serde_json::{json, Value};

/// Options of `bench offload`.
#[derive(Args, Debug)]
pub struct OffloadArgs {
    /// Width of the switch tier's name hash (the seed: 21).
    #[arg(long, default_value_t = ndnfwd_offload::SEED_HASH_BITS)]
    bits: u32,
    /// Interests outstanding in the model's workload.
    #[arg(long, default_value_t = ShareConfig::SEED_LIKE.outstanding)]
    outstanding: usize,
    /// Interests in the model's workload.
    #[arg(long, default_value_t = ShareConfig::SEED_LIKE.interests)]
    interests: u64,
    /// ndnfwd's measured Interest rate per computer (packets/s), for the estimator.
    #[arg(long)]
    interest_pps: Option<f64>,
    /// Also measure Data throughput on the veth topology (root only).
    #[arg(long)]
    veth: bool,
    /// Data per veth run.
    #[arg(long, default_value_t = 2000)]
    count: u64,
    /// Consumer window (Interests in flight) per veth run.
    #[arg(long, default_value_t = 16)]
    window: u64,
    /// Content bytes per Data (1000 keeps a Data in one 1500-byte frame).
    #[arg(long, default_value_t = 1000)]
    payload: usize,
    /// Try native (driver) XDP before SKB mode on the veth interfaces. A native redirect into
    /// a veth is dropped unless the veth's peer runs XDP or NAPI itself, which this topology
    /// does not set up: expect the XDP run's Data to time out.
    #[arg(long)]
    native: bool,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs the benchmark.
pub fn run(a: &OffloadArgs) -> Result<(), String> {
    let hasher = NameHasher::from_os(SipVariant::Sip13).map_err(|e| e.to_string())?;
    let share = run_share(
        ShareConfig {
            bits: a.bits,
            outstanding: a.outstanding,
            interests: a.interests,
            ..ShareConfig::SEED_LIKE
        },
        &hasher,
    );
    let seed = estimate(&SEED_EXAMPLE).ok_or("seed example inputs")?;
    let ours = match a.interest_pps {
        Some(pps) => {
            let i = Inputs {
                interest_pps: pps,
                ..SEED_EXAMPLE
            };
            let e = estimate(&i).ok_or("--interest-pps must be a positive number")?;
            json!({ "inputs": i, "estimate": e })
        }
        None => Value::Null,
    };
    let veth = if a.veth {
        match veth_runs(a) {
            Ok(v) => v,
            Err(e) => json!({ "skipped": e }),
        }
    } else {
        json!({ "skipped": "not asked (--veth)" })
    };
    let out = json!({
        "model": share,
        "estimator": {
            "seed_example": { "inputs": SEED_EXAMPLE, "estimate": seed },
            "ndnfwd": ours,
        },
        "veth": veth,
    });
    if a.json {
        println!("{out}");
    } else {
        println!(
            "switch tier (model, 2^{} slots, {} outstanding): {:.2}% of Data from the switch",
            a.bits,
            a.outstanding,
            share.switch_share * 100.0
        );
        println!(
            "estimator, seed example: {} computers, {:.2} Tbit/s",
            seed.computers,
            seed.throughput_bps / 1e12
        );
        if let Some(e) = out["estimator"]["ndnfwd"]["estimate"].as_object() {
            println!(
                "estimator, ndnfwd's Interest rate: {}",
                Value::from(e.clone())
            );
        }
        println!("veth: {}", out["veth"]);
    }
    Ok(())
}

/// A child process killed and reaped on drop.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The three namespaces, their daemons and a scratch directory; all removed on drop.
struct Topology {
    ns: [Netns; 3],
    dir: PathBuf,
    procs: Vec<Proc>,
}

impl Drop for Topology {
    fn drop(&mut self) {
        // Children first (they hold sockets in the namespaces); the namespaces (which take
        // their veth ends, and so the pairs, with them) go when the fields are dropped next.
        self.procs.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const GROUP: &str = "ether://[01:00:5e:00:17:aa]";

/// InterestLifetime of the measured Interests (the router's PIT entries for Data the XDP path
/// forwarded expire after it).
const LIFETIME_MS: u64 = 1000;

impl Topology {
    fn new(payload: usize) -> Result<Self, String> {
        let pid = std::process::id();
        let mut t = Topology {
            ns: [
                Netns::new("ndnoff-c")?,
                Netns::new("ndnoff-r")?,
                Netns::new("ndnoff-p")?,
            ],
            dir: std::env::temp_dir().join(format!("ndnfwd-offload-{pid}")),
            procs: Vec::new(),
        };
        std::fs::create_dir_all(&t.dir).map_err(|e| e.to_string())?;
        let [c, r, p] = &t.ns;
        veth((c, "vc"), (r, "rc"))?;
        veth((p, "vp"), (r, "rp"))?;
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let faces = [
            format!(
                "[[route]]\nprefix = \"/p\"\nface = \"{GROUP}\"\nlocal = \"dev://vc\"\ncost = 10\n"
            ),
            format!(
                "[[face]]\nremote = \"{GROUP}\"\nlocal = \"dev://rc\"\n\
                 [[route]]\nprefix = \"/p\"\nface = \"{GROUP}\"\nlocal = \"dev://rp\"\ncost = 10\n"
            ),
            format!("[[face]]\nremote = \"{GROUP}\"\nlocal = \"dev://vp\"\n"),
        ];
        for (i, extra) in faces.iter().enumerate() {
            let host = ["c", "r", "p"][i];
            let cfg = t.dir.join(format!("{host}.toml"));
            let text = format!(
                "[log]\nlevel = \"warn\"\n[listeners]\nunix = \"{}\"\ntcp = []\nudp = []\n\
                 [management]\nstatus_file = \"{}\"\n{extra}",
                t.sock(host).display(),
                t.dir.join(format!("{host}.json")).display()
            );
            std::fs::write(&cfg, text).map_err(|e| e.to_string())?;
            let d = daemon(&exe, &t.ns[i], &cfg, &t.dir.join(format!("{host}.log")))?;
            t.procs.push(d);
        }
        let producer = Command::new(&exe)
            .args(["gen", "producer", "--prefix", "/p", "--payload"])
            .arg(payload.to_string())
            .arg("--connect")
            .arg(format!("unix://{}", t.sock("p").display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("gen producer: {e}"))?;
        t.procs.push(Proc(producer));
        Ok(t)
    }

    /// The router daemon's general counters (NFD's ForwarderStatus), from its status file.
    fn router_general(&self) -> Result<Value, String> {
        let path = self.dir.join("r.json");
        let _ = std::fs::remove_file(&path);
        let pid = self.procs.get(1).map(|p| p.0.id()).ok_or("no router")?;
        Command::new("kill")
            .args(["-USR1", &pid.to_string()])
            .status()
            .map_err(|e| format!("kill: {e}"))?;
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            if let Ok(Ok(v)) = std::fs::read(&path).map(|b| serde_json::from_slice::<Value>(&b)) {
                let g = &v["status"]["general"];
                return Ok(json!({
                    "n_pit_entries": g["n_pit_entries"],
                    "n_in_data": g["n_in_data"],
                    "n_out_data": g["n_out_data"],
                    "n_satisfied_interests": g["n_satisfied_interests"],
                    "n_unsatisfied_interests": g["n_unsatisfied_interests"],
                }));
            }
            if Instant::now() > deadline {
                return Err("no status file from the router".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn sock(&self, host: &str) -> PathBuf {
        self.dir.join(format!("{host}.sock"))
    }

    /// `gen consumer` on the consumer daemon; its JSON summary.
    fn consume(&self, args: &[String]) -> Result<Value, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let out = Command::new(exe)
            .args(["gen", "consumer", "--connect"])
            .arg(format!("unix://{}", self.sock("c").display()))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("gen consumer: {e}"))?;
        serde_json::from_slice(&out.stdout).map_err(|e| format!("gen consumer output: {e}"))
    }
}

/// Starts `ndnfwd run` in `ns` and waits (10 s at most) for it to be up.
fn daemon(exe: &Path, ns: &Netns, cfg: &Path, log: &Path) -> Result<Proc, String> {
    let mut child = ns
        .command(exe)
        .args(["run", "--config"])
        .arg(cfg)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| format!("ndnfwd run: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let p = Proc(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.starts_with("NDN_CLIENT_TRANSPORT=") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(10)).map_err(|_| {
        format!(
            "daemon in {} did not start: {}",
            ns.name(),
            std::fs::read_to_string(log).unwrap_or_default()
        )
    })?;
    Ok(p)
}

/// One consumer run: its summary plus Data rates.
fn measure(t: &Topology, a: &OffloadArgs, name: &str) -> Result<Value, String> {
    let args: Vec<String> = vec![
        "--name".into(),
        name.into(),
        "--count".into(),
        a.count.to_string(),
        "--window".into(),
        a.window.to_string(),
        "--lifetime".into(),
        LIFETIME_MS.to_string(),
    ];
    let mut v = t.consume(&args)?;
    let secs = v["elapsed_ms"].as_f64().unwrap_or(0.0) / 1e3;
    let bytes = v["content_bytes"].as_f64().unwrap_or(0.0);
    let data = v["received"].as_f64().unwrap_or(0.0);
    if secs > 0.0 {
        v["data_pps"] = json!(data / secs);
        v["content_bps"] = json!(bytes * 8.0 / secs);
    }
    Ok(v)
}

/// Frames of the timing runs: Ethernet header (NDN multicast group) + LpPacket{PitToken,
/// Fragment}.
fn lp_frame(token: &[u8], packet: &[u8]) -> Result<Vec<u8>, String> {
    let lp = LpPacketBuilder::new()
        .pit_token(token)
        .encode(Some(packet))
        .map_err(|e| format!("{e:?}"))?;
    let mut f = vec![
        0x01, 0x00, 0x5e, 0x00, 0x17, 0xaa, 0x02, 0, 0, 0, 0, 0x0c, 0x86, 0x24,
    ];
    f.extend_from_slice(&lp);
    Ok(f)
}

/// Per-frame cost of the program (ns), from the kernel's `BPF_PROG_TEST_RUN` timing, on a
/// separate, unattached copy (so the measured run's counters stay clean): Interests recorded
/// in free slots, their Data redirected, and a Data finding no Interest (passed). Names like
/// the consumer's, 1000-byte contents. Runs in the router's namespace (ingress `rc`, `rp`).
fn program_cost() -> Result<Value, String> {
    const PAIRS: u32 = 10_000;
    let (rc, rp) = (
        xdp::ifindex("rc").map_err(|e| e.to_string())?,
        xdp::ifindex("rp").map_err(|e| e.to_string())?,
    );
    let key = XdpConfig::random_key().map_err(|e| e.to_string())?;
    let pit = XdpPit::load(&XdpConfig {
        bits: 21,
        lifetime_ms: 4000,
        key,
    })
    .map_err(|e| e.to_string())?;
    pit.set_ifmac(rc, [0x02, 0, 0, 0, 0, 0x01])
        .map_err(|e| e.to_string())?;
    let (mut interest_ns, mut data_ns, mut redirected) = (0u64, 0u64, 0u32);
    for i in 0..PAIRS {
        let name = Name::from_uri(&format!("/p/xdp/{i}")).map_err(|e| format!("{e:?}"))?;
        let interest = InterestBuilder::new(name.clone())
            .nonce(i.to_be_bytes())
            .encode()
            .map_err(|e| format!("{e:?}"))?;
        let data = DataBuilder::new(name)
            .content(vec![0x5a; 1000])
            .encode()
            .map_err(|e| format!("{e:?}"))?;
        let run =
            |frame: &[u8], ifindex| pit.time_run(frame, ifindex, 1).map_err(|e| e.to_string());
        let (_, ns) = run(&lp_frame(b"consumer", &interest)?, rc)?;
        interest_ns += u64::from(ns);
        let (verdict, ns) = run(&lp_frame(b"router00", &data)?, rp)?;
        data_ns += u64::from(ns);
        redirected += u32::from(verdict == xdp::XDP_REDIRECT);
    }
    let stray = DataBuilder::new(Name::from_uri("/p/none").map_err(|e| format!("{e:?}"))?)
        .content(vec![0x5a; 1000])
        .encode()
        .map_err(|e| format!("{e:?}"))?;
    // The same one-run-per-call method as above (each figure includes the test-run timer's
    // own per-call cost), then the kernel's mean over one call of many repeats.
    let stray = lp_frame(b"router00", &stray)?;
    let mut pass_ns = 0u64;
    for _ in 0..PAIRS {
        pass_ns += u64::from(pit.time_run(&stray, rp, 1).map_err(|e| e.to_string())?.1);
    }
    let (_, repeated_ns) = pit
        .time_run(&stray, rp, 100_000)
        .map_err(|e| e.to_string())?;
    Ok(json!({
        "interest_record": interest_ns as f64 / f64::from(PAIRS),
        "data_redirect": data_ns as f64 / f64::from(PAIRS),
        "data_redirected": redirected,
        "pairs": PAIRS,
        "data_no_interest_passed": pass_ns as f64 / f64::from(PAIRS),
        "data_no_interest_passed_100000_repeats": repeated_ns,
    }))
}

fn veth_runs(a: &OffloadArgs) -> Result<Value, String> {
    if let Some(why) = ndnfwd_netns::skip_reason() {
        return Err(why);
    }
    let t = Topology::new(a.payload)?;
    // The producer registers asynchronously: probe until a Data comes back (10 s at most).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let v = t.consume(&[
            "--name".into(),
            "/p/probe".into(),
            "--lifetime".into(),
            "300".into(),
        ])?;
        if v["received"] == 1 {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("the route to the producer never worked: {v}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let without = measure(&t, a, "/p/plain")?;
    let router_before = t.router_general()?;
    let router = t.ns[1].name().to_owned();
    let mode = if a.native {
        AttachMode::Native
    } else {
        AttachMode::Skb
    };
    // setns moves one thread: load and attach from a thread inside the router's namespace.
    let (pit, cost) = std::thread::spawn(move || -> Result<(XdpPit, Value), String> {
        xdp::enter_netns(&router).map_err(|e| format!("setns {router}: {e}"))?;
        let key = XdpConfig::random_key().map_err(|e| e.to_string())?;
        let mut pit = XdpPit::load(&XdpConfig {
            bits: 21,
            lifetime_ms: 4000,
            key,
        })
        .map_err(|e| e.to_string())?;
        for dev in ["rc", "rp"] {
            pit.attach(dev, mode).map_err(|e| e.to_string())?;
        }
        let cost = program_cost()?;
        Ok((pit, cost))
    })
    .join()
    .map_err(|_| "XDP loader thread panicked".to_string())??;
    let mut with = measure(&t, a, "/p/xdp")?;
    with["xdp"] = json!(pit.counters().map_err(|e| e.to_string())?);
    with["attach"] = json!(pit.attachments().collect::<Vec<_>>());
    // The router daemon forwarded every Interest and kept a PIT entry for each; the Data the
    // XDP path took never reached it, so those entries expire unsatisfied after the lifetime.
    let router_after = t.router_general()?;
    std::thread::sleep(Duration::from_millis(LIFETIME_MS + 500));
    let router_later = t.router_general()?;
    let ratio = match (
        with["content_bps"].as_f64(),
        without["content_bps"].as_f64(),
    ) {
        (Some(x), Some(y)) if y > 0.0 => json!(x / y),
        _ => Value::Null,
    };
    drop(pit);
    drop(t);
    Ok(json!({
        "count": a.count,
        "window": a.window,
        "payload": a.payload,
        "without_xdp": without,
        "with_xdp": with,
        "with_over_without": ratio,
        "xdp_program_ns": cost,
        "router": {
            "after_plain_run": router_before,
            "after_xdp_run": router_after,
            "one_lifetime_later": router_later,
        },
    }))
}
