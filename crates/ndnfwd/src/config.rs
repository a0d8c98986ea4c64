//! `ndnfwd run`'s TOML configuration.
//!
//! The shipped `ndnfwd.toml` is embedded and is the only source of defaults: a user file is
//! merged over it (tables key by key, arrays replaced), then the result is read with unknown
//! keys rejected and every value checked. Errors name the key and the problem.

use std::net::SocketAddr;
use std::path::PathBuf;

use ndn_packet::Name;
use ndnfwd_dataplane::{DataplaneConfig, FaceSpec, ListenerSpec, RouteSpec, Threads};
use ndnfwd_face::FaceUri;
use ndnfwd_fib::{LpmAlgorithm, LpmConfig, MAX_DEPTH};
use ndnfwd_pcct::{CsPolicy, UnsolicitedPolicy};
use serde::Deserialize;

/// The shipped configuration file, which is also the default.
pub const DEFAULT_TOML: &str = include_str!("../ndnfwd.toml");

/// A configuration problem, naming the key when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted key (`threads.workers`), or empty for a syntax error.
    pub key: String,
    /// What is wrong.
    pub problem: String,
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.key.is_empty() {
            write!(f, "bad configuration: {}", self.problem)
        } else {
            write!(f, "bad configuration: `{}`: {}", self.key, self.problem)
        }
    }
}

fn err(key: impl Into<String>, problem: impl Into<String>) -> ConfigError {
    ConfigError {
        key: key.into(),
        problem: problem.into(),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    log: Log,
    threads: ThreadsSection,
    listeners: Listeners,
    faces: Faces,
    tables: Tables,
    dataplane: Dataplane,
    management: Management,
    metrics: Metrics,
    #[serde(default)]
    face: Vec<FaceEntry>,
    #[serde(default)]
    route: Vec<RouteEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Log {
    level: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThreadsSection {
    mode: String,
    io: usize,
    workers: usize,
    pin_cpus: Vec<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Listeners {
    unix: String,
    shm: bool,
    tcp: Vec<String>,
    udp: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Faces {
    udp_mtu: usize,
    idle_timeout_s: u64,
    max_faces: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Tables {
    pit_capacity: u32,
    pit_face_quota: u32,
    cs_capacity: u32,
    cs_capacity_mb: u64,
    cs_policy: String,
    unsolicited: String,
    fib_capacity: usize,
    fib_algorithm: String,
    fib_m: u8,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Dataplane {
    burst: usize,
    ring_capacity: usize,
    dispatch_prefix_len: usize,
    idle_spin_us: u64,
    idle_max_sleep_ms: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Management {
    localhop: bool,
    status_file: String,
    status_interval_ms: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Metrics {
    enabled: bool,
    port: u16,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FaceEntry {
    remote: String,
    local: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RouteEntry {
    prefix: String,
    face: String,
    local: Option<String>,
    #[serde(default)]
    cost: u32,
}

/// A checked configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Log level.
    pub log_level: log::LevelFilter,
    /// The Unix listener path as configured (`None`: disabled).
    pub unix: Option<PathBuf>,
    /// Whether `unix` is the shipped default (an unprivileged run may then fall back).
    pub unix_is_default: bool,
    /// Whether shared-memory faces are offered next to the Unix socket.
    pub shm: bool,
    /// Port of the metrics HTTP endpoint on 127.0.0.1 (`None`: disabled; 0: any free port).
    pub metrics_port: Option<u16>,
    /// Everything else, ready for the data plane (the Unix listener is added by `run`).
    pub dataplane: DataplaneConfig,
}

/// Overlays `user` on `base`: tables merge key by key, anything else is replaced.
fn merge(base: &mut toml::Table, user: toml::Table) {
    for (k, v) in user {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(u)) => merge(b, u),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Names the key of a deserialization error: the error's span points into `doc` (the merged
/// document as TOML text); the key is on that line and its table is the last header above.
fn serde_error(e: &toml::de::Error, doc: &str) -> ConfigError {
    let msg = e.message().to_owned();
    let Some(span) = e.span() else {
        return err("", msg);
    };
    let before = doc.get(..span.start).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = doc
        .get(line_start..)
        .and_then(|l| l.lines().next())
        .unwrap_or_default();
    let key = line.split('=').next().unwrap_or_default().trim();
    let header = before
        .lines()
        .rev()
        .find_map(|l| {
            let l = l.trim();
            l.starts_with('[')
                .then(|| l.trim_matches(|c| c == '[' || c == ']').to_owned())
        })
        .unwrap_or_default();
    let full = match (header.is_empty(), key.is_empty() || key.starts_with('[')) {
        (_, true) => header,
        (true, false) => key.to_owned(),
        (false, false) => format!("{header}.{key}"),
    };
    err(full, msg)
}

fn parse_uri(key: &str, s: &str) -> Result<FaceUri, ConfigError> {
    s.parse()
        .map_err(|e| err(key, format!("`{s}` is not a face URI ({e})")))
}

fn parse_addr(key: &str, s: &str) -> Result<SocketAddr, ConfigError> {
    s.parse()
        .map_err(|_| err(key, format!("`{s}` is not an address:port")))
}

fn range<T: PartialOrd + core::fmt::Display>(
    key: &str,
    v: T,
    lo: T,
    hi: T,
) -> Result<T, ConfigError> {
    if v < lo || v > hi {
        return Err(err(key, format!("{v} is outside {lo}..={hi}")));
    }
    Ok(v)
}

/// Parses and checks `text` (a user file) over the defaults.
pub fn parse(text: &str) -> Result<Config, ConfigError> {
    let user: toml::Table = toml::from_str(text).map_err(|e| err("", e.to_string()))?;
    let mut merged: toml::Table =
        toml::from_str(DEFAULT_TOML).map_err(|e| err("", format!("built-in default: {e}")))?;
    merge(&mut merged, user.clone());
    let doc = toml::to_string(&merged).map_err(|e| err("", e.to_string()))?;
    let f: File = toml::from_str(&doc).map_err(|e| serde_error(&e, &doc))?;
    build(f, &user)
}

fn build(f: File, user: &toml::Table) -> Result<Config, ConfigError> {
    let log_level = f
        .log
        .level
        .parse::<log::LevelFilter>()
        .map_err(|_| err("log.level", "expected error, warn, info, debug or trace"))?;
    let threads = match f.threads.mode.as_str() {
        "single" => Threads::Single,
        "multi" => Threads::Multi {
            io: range("threads.io", f.threads.io, 1, 255)?,
            workers: range("threads.workers", f.threads.workers, 1, 255)?,
        },
        other => {
            return Err(err(
                "threads.mode",
                format!("`{other}`: expected single or multi"),
            ))
        }
    };
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    if let Some(c) = f.threads.pin_cpus.iter().find(|&&c| c >= cpus) {
        return Err(err(
            "threads.pin_cpus",
            format!("CPU {c} does not exist (this host has {cpus})"),
        ));
    }
    let mut listeners = Vec::new();
    for s in &f.listeners.tcp {
        listeners.push(ListenerSpec::Tcp(parse_addr("listeners.tcp", s)?));
    }
    for s in &f.listeners.udp {
        listeners.push(ListenerSpec::Udp(parse_addr("listeners.udp", s)?));
    }
    let unix = (!f.listeners.unix.is_empty()).then(|| PathBuf::from(&f.listeners.unix));
    if unix.as_ref().is_some_and(|p| !p.is_absolute()) {
        return Err(err("listeners.unix", "must be an absolute path"));
    }
    let unix_is_default = user.get("listeners").and_then(|l| l.get("unix")).is_none();

    let t = &f.tables;
    let cs_policy: CsPolicy = t
        .cs_policy
        .parse()
        .map_err(|()| err("tables.cs_policy", "expected lru, arc or fifo"))?;
    let unsolicited: UnsolicitedPolicy = t.unsolicited.parse().map_err(|()| {
        err(
            "tables.unsolicited",
            "expected drop-all, admit-local, admit-network or admit-all",
        )
    })?;
    let algorithm: LpmAlgorithm = t.fib_algorithm.parse().map_err(|()| {
        err(
            "tables.fib_algorithm",
            "expected longest-first, two-stage or binary-search",
        )
    })?;
    let m = range("tables.fib_m", usize::from(t.fib_m), 1, MAX_DEPTH)?;
    let pit = range("tables.pit_capacity", t.pit_capacity, 16, 1 << 28)?;
    let quota = range("tables.pit_face_quota", t.pit_face_quota, 0, pit)?;
    let cs = range("tables.cs_capacity", t.cs_capacity, 0, 1 << 28)?;
    let fib_cap = range("tables.fib_capacity", t.fib_capacity, 16, 1 << 30)?;

    let mut dp = DataplaneConfig {
        threads,
        pin_cpus: f.threads.pin_cpus.clone(),
        burst: range("dataplane.burst", f.dataplane.burst, 1, 1024)?,
        ring_capacity: range(
            "dataplane.ring_capacity",
            f.dataplane.ring_capacity,
            16,
            1 << 20,
        )?,
        dispatch_prefix_len: range(
            "dataplane.dispatch_prefix_len",
            f.dataplane.dispatch_prefix_len,
            1,
            32,
        )?,
        idle_spin_us: f.dataplane.idle_spin_us,
        idle_max_sleep_ms: range(
            "dataplane.idle_max_sleep_ms",
            f.dataplane.idle_max_sleep_ms,
            1,
            1000,
        )?,
        listeners,
        status_file: (!f.management.status_file.is_empty())
            .then(|| PathBuf::from(&f.management.status_file)),
        status_interval_ms: f.management.status_interval_ms,
        ..DataplaneConfig::default()
    };
    dp.engine.pcct.pit_capacity = pit;
    dp.engine.pit_face_quota = quota;
    dp.engine.pcct.cs_capacity_packets = cs;
    dp.engine.pcct.cs_capacity_bytes = t.cs_capacity_mb.saturating_mul(1 << 20);
    dp.engine.pcct.cs_policy = cs_policy;
    dp.engine.pcct.unsolicited = unsolicited;
    dp.fib.capacity = fib_cap;
    dp.fib.lpm = LpmConfig {
        algorithm,
        m: u8::try_from(m).unwrap_or(4),
    };
    dp.faces.udp_mtu = range(
        "faces.udp_mtu",
        f.faces.udp_mtu,
        576,
        ndnfwd_face::MAX_FRAME_LEN,
    )?;
    dp.faces.idle_timeout = f.faces.idle_timeout_s.saturating_mul(1_000_000_000);
    dp.faces.max_faces = range("faces.max_faces", f.faces.max_faces, 1, 1 << 20)?;
    dp.mgmt.localhop = f.management.localhop;

    for e in &f.face {
        dp.static_faces.push(FaceSpec {
            remote: parse_uri("face.remote", &e.remote)?,
            local: e
                .local
                .as_deref()
                .map(|l| parse_uri("face.local", l))
                .transpose()?,
        });
    }
    for r in &f.route {
        let prefix = Name::from_uri(&r.prefix)
            .map_err(|e| err("route.prefix", format!("`{}`: {e}", r.prefix)))?;
        dp.routes.push(RouteSpec {
            prefix,
            face: FaceSpec {
                remote: parse_uri("route.face", &r.face)?,
                local: r
                    .local
                    .as_deref()
                    .map(|l| parse_uri("route.local", l))
                    .transpose()?,
            },
            cost: r.cost,
        });
    }
    for s in dp
        .static_faces
        .iter()
        .chain(dp.routes.iter().map(|r| &r.face))
    {
        if matches!(s.remote, FaceUri::Ether(_)) && !matches!(s.local, Some(FaceUri::Dev(_))) {
            return Err(err(
                "face.local",
                format!("{} needs local = \"dev://<interface>\"", s.remote),
            ));
        }
    }
    Ok(Config {
        log_level,
        unix,
        unix_is_default,
        shm: f.listeners.shm,
        metrics_port: f.metrics.enabled.then_some(f.metrics.port),
        dataplane: dp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_file_parses_to_the_defaults() {
        let c = parse("").unwrap();
        assert_eq!(c.unix, Some(PathBuf::from("/run/nfd/nfd.sock")));
        assert!(c.unix_is_default);
        assert!(c.shm);
        assert_eq!(
            crate::run::shm_path(std::path::Path::new("/run/nfd/nfd.sock")),
            std::path::Path::new("/run/nfd/nfd-shm.sock")
        );
        assert_eq!(
            crate::run::shm_path(std::path::Path::new("/tmp/x")),
            std::path::Path::new("/tmp/x-shm")
        );
        assert_eq!(c.dataplane.threads, Threads::Single);
        assert_eq!(c.dataplane.listeners.len(), 2);
        assert_eq!(c.dataplane.faces.udp_mtu, 1452);
        assert_eq!(c.dataplane.fib.lpm.algorithm, LpmAlgorithm::BinarySearch);
        assert_eq!(c.log_level, log::LevelFilter::Info);
        assert_eq!(c.metrics_port, Some(9363));
    }

    #[test]
    fn metrics_port_zero_and_disabled() {
        assert_eq!(parse("[metrics]\nport = 0").unwrap().metrics_port, Some(0));
        assert_eq!(
            parse("[metrics]\nenabled = false").unwrap().metrics_port,
            None
        );
        assert_eq!(
            parse("[metrics]\nport = 70000").unwrap_err().key,
            "metrics.port"
        );
    }

    #[test]
    fn user_values_override_and_arrays_replace() {
        let c = parse(
            r#"
            [threads]
            mode = "multi"
            workers = 2
            [listeners]
            unix = "/tmp/x.sock"
            udp = []
            [[route]]
            prefix = "/a/b"
            face = "udp4://10.0.0.2:6363"
            cost = 7
            [[face]]
            remote = "ether://[01:00:5e:00:17:aa]"
            local = "dev://veth0"
            "#,
        )
        .unwrap();
        assert_eq!(c.dataplane.threads, Threads::Multi { io: 1, workers: 2 });
        assert!(!c.unix_is_default);
        assert_eq!(c.dataplane.listeners.len(), 1, "udp list replaced");
        assert_eq!(c.dataplane.routes.len(), 1);
        assert_eq!(c.dataplane.routes[0].cost, 7);
        assert_eq!(c.dataplane.routes[0].prefix.to_string(), "/a/b");
        assert_eq!(c.dataplane.static_faces.len(), 1);
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            ("[threads]\nwrokers = 2", "threads.wrokers"),
            ("[threads]\nmode = \"many\"", "threads.mode"),
            (
                "[threads]\nmode = \"multi\"\nworkers = 0",
                "threads.workers",
            ),
            ("[tables]\ncs_policy = \"random\"", "tables.cs_policy"),
            ("[tables]\nfib_m = 0", "tables.fib_m"),
            ("[faces]\nudp_mtu = 100", "faces.udp_mtu"),
            ("[listeners]\ntcp = [\"nowhere\"]", "listeners.tcp"),
            ("[listeners]\nunix = \"relative.sock\"", "listeners.unix"),
            ("[log]\nlevel = \"loud\"", "log.level"),
            (
                "[[route]]\nprefix = \"/a\"\nface = \"http://x\"",
                "route.face",
            ),
            (
                "[[route]]\nprefix = \"/a\"\nfaec = \"udp4://1.2.3.4\"",
                "route.faec",
            ),
            (
                "[[face]]\nremote = \"ether://[02:00:00:00:00:01]\"",
                "face.local",
            ),
            ("[tables]\npit_capacity = \"big\"", "tables.pit_capacity"),
            (
                "[tables]\npit_capacity = 64\npit_face_quota = 65",
                "tables.pit_face_quota",
            ),
        ];
        for (text, key) in cases {
            let e = parse(text).expect_err(text);
            assert_eq!(e.key, key, "{text}: {e}");
            assert!(e.to_string().contains(key));
        }
        let e = parse("[threads\n").unwrap_err();
        assert!(e.key.is_empty() && !e.problem.is_empty());
    }
}
