//! Helpers for the daemon tests: running `ndnfwd` (daemons, generators) as child processes with
//! time limits, reading status files, and cleaning up through guards.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use ndnfwd_netns::Netns;

pub const BIN: &str = env!("CARGO_BIN_EXE_ndnfwd");

static SEQ: AtomicU32 = AtomicU32::new(0);

/// A unique tag for names of files and namespaces of this test run.
pub fn unique(tag: &str) -> String {
    format!(
        "{tag}{}x{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

/// A scratch directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(unique(&format!("ndnfwd-{tag}-")));
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `ndnfwd.toml` in `dir` and returns its path: a Unix listener at `nfd.sock`, the UDP
/// listeners `udp`, no TCP, the status file `status.json` and the further `[management]` keys
/// `management` (lines), then `sections` (more tables, but not `[listeners]` or `[management]`).
pub fn write_config(dir: &TempDir, udp: &[&str], management: &str, sections: &str) -> PathBuf {
    let udp: Vec<String> = udp.iter().map(|u| format!("\"{u}\"")).collect();
    let text = format!(
        "[listeners]\nunix = \"{}\"\ntcp = []\nudp = [{}]\n\
         [management]\nstatus_file = \"{}\"\n{management}{sections}",
        dir.path("nfd.sock").display(),
        udp.join(", "),
        dir.path("status.json").display()
    );
    let p = dir.path("ndnfwd.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// A child process killed (and reaped) on drop.
pub struct Proc {
    pub child: Child,
    pub name: String,
}

impl Proc {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn signal(&self, sig: &str) {
        let _ = Command::new("kill")
            .args([&format!("-{sig}"), &self.pid().to_string()])
            .status();
    }

    /// Waits for the exit status, at most `secs` seconds (then kills).
    pub fn wait_secs(&mut self, secs: u64) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < deadline {
            if let Ok(Some(s)) = self.child.try_wait() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `ndnfwd run --config <cfg>` (inside `netns` when given); returns once it printed its
/// NDN_CLIENT_TRANSPORT line (it is up), or panics after 10 s.
pub fn daemon(name: &str, netns: Option<&Netns>, cfg: &Path, log: &Path) -> Proc {
    daemon_lines(name, netns, cfg, log).0
}

/// [`daemon`], also returning what it printed on stdout up to its NDN_CLIENT_TRANSPORT line
/// (the METRICS=http://... line comes before it).
pub fn daemon_lines(
    name: &str,
    netns: Option<&Netns>,
    cfg: &Path,
    log: &Path,
) -> (Proc, Vec<String>) {
    let mut cmd = match netns {
        Some(ns) => ns.command(BIN),
        None => Command::new(BIN),
    };
    cmd.args(["run", "--config"])
        .arg(cfg)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap());
    let mut child = cmd.spawn().expect("spawn ndnfwd run");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut head = Vec::new();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let up = line.starts_with("NDN_CLIENT_TRANSPORT=");
            head.push(line);
            if up {
                let _ = tx.send(core::mem::take(&mut head));
            }
        }
    });
    let p = Proc {
        child,
        name: name.to_owned(),
    };
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(lines) => (p, lines),
        Err(_) => {
            let log = std::fs::read_to_string(log).unwrap_or_default();
            panic!("daemon {name} did not start:\n{log}");
        }
    }
}

/// `ndnfwd ARGS` in the background as `name`: stdin closed, stdout and stderr piped.
pub fn spawn<S: AsRef<std::ffi::OsStr>>(name: &str, args: impl IntoIterator<Item = S>) -> Proc {
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {name}: {e}"));
    Proc {
        child,
        name: name.into(),
    }
}

/// Runs `ndnfwd ARGS` to completion (killed after `secs`): exit code, stdout, stderr.
pub fn run<S: AsRef<std::ffi::OsStr>>(
    name: &str,
    args: impl IntoIterator<Item = S>,
    secs: u64,
) -> (Option<i32>, String, String) {
    use std::io::Read as _;
    let mut p = spawn(name, args);
    let status = p.wait_secs(secs);
    let (mut out, mut err) = (String::new(), String::new());
    if let Some(mut s) = p.child.stdout.take() {
        let _ = s.read_to_string(&mut out);
    }
    if let Some(mut s) = p.child.stderr.take() {
        let _ = s.read_to_string(&mut err);
    }
    (status.and_then(|s| s.code()), out, err)
}

/// `unix://<sock>`, the face URI of a daemon's socket.
pub fn unix_uri(sock: &Path) -> String {
    format!("unix://{}", sock.display())
}

/// `ndnfwd gen producer` in the background.
pub fn producer(sock: &Path, prefix: &str, payload: usize) -> Proc {
    let payload = payload.to_string();
    let uri = unix_uri(sock);
    spawn(
        "producer",
        [
            "gen",
            "producer",
            "--prefix",
            prefix,
            "--payload",
            &payload,
            "--connect",
            &uri,
        ],
    )
}

/// Runs `ndnfwd gen consumer` to completion (killed after 30 s) and parses its JSON line.
pub fn consumer(sock: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let uri = unix_uri(sock);
    let all = ["gen", "consumer", "--connect", &uri]
        .into_iter()
        .chain(args.iter().copied());
    let (code, out, _) = run("consumer", all, 30);
    let v = serde_json::from_str(out.trim()).unwrap_or(serde_json::Value::Null);
    (code, v)
}

/// Waits (at most 5 s) for the producer to have registered: a consumer of one name succeeds.
pub fn wait_route(sock: &Path, name: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (code, v) = consumer(sock, &["--name", name, "--lifetime", "300"]);
        if code == Some(0) {
            return;
        }
        assert!(Instant::now() < deadline, "route never worked: {v}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Asks daemon `d` (SIGUSR1) for its status file and parses it.
pub fn status(d: &Proc, path: &Path) -> serde_json::Value {
    let _ = std::fs::remove_file(path);
    d.signal("USR1");
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        if let Ok(s) = std::fs::read_to_string(path) {
            if let Ok(v) = serde_json::from_str(&s) {
                return v;
            }
        }
        assert!(Instant::now() < deadline, "no status from {}", d.name);
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls `check` on fresh status documents for at most `secs` seconds.
pub fn eventually(
    d: &Proc,
    path: &Path,
    secs: u64,
    what: &str,
    check: impl Fn(&serde_json::Value) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let s = status(d, path);
        if check(&s) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{}: {what} never held; last status: {}",
            d.name,
            s["status"]
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub fn pit_entries(s: &serde_json::Value) -> u64 {
    s["status"]["general"]["n_pit_entries"]
        .as_u64()
        .unwrap_or(u64::MAX)
}

pub fn face_uris(s: &serde_json::Value) -> Vec<String> {
    s["status"]["faces"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f["uri"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

pub fn has_route(s: &serde_json::Value, prefix: &str) -> bool {
    s["status"]["rib"]
        .as_array()
        .is_some_and(|a| a.iter().any(|e| e["name"] == prefix))
}
