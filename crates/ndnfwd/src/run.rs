//! `ndnfwd run`: load the configuration, open the listeners, start the data plane, and run
//! until SIGINT or SIGTERM. SIGUSR1 writes the status file; SIGHUP reloads the configuration
//! file (see `reload`). With `[metrics]` enabled, a thread serves Prometheus text at `/metrics`
//! and the JSON status at `/status` on 127.0.0.1 (its address is printed as
//! `METRICS=http://...` before the `NDN_CLIENT_TRANSPORT` line). Logs are `key=value` lines on
//! stderr, one stable `event=` key per kind of line.
//!
//! Exit codes: 0 after a clean shutdown, 1 when the forwarder cannot start, 2 for a bad
//! configuration (the message names the key).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Args;
use ndnfwd_dataplane::{Dataplane, ListenerSpec};
use ndnfwd_mgmt::http::{HttpConfig, HttpServer};

use crate::config::{self, Config};

/// Arguments of `ndnfwd run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// TOML configuration file (defaults: the shipped ndnfwd.toml, built in).
    #[arg(long, short)]
    config: Option<PathBuf>,
    /// Write the JSON status document here (on SIGUSR1 and at shutdown); overrides
    /// management.status_file.
    #[arg(long)]
    status_file: Option<PathBuf>,
    /// Check the configuration, print the effective listeners, and exit.
    #[arg(long)]
    check: bool,
    /// Print the built-in default configuration and exit.
    #[arg(long)]
    print_default_config: bool,
}

/// key=value lines on stderr, at `log::max_level()` (a SIGHUP reload may change it).
struct Logger;

impl log::Log for Logger {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.level() <= log::max_level()
    }

    fn log(&self, r: &log::Record<'_>) {
        if !self.enabled(r.metadata()) {
            return;
        }
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let level = r.level().as_str().to_ascii_lowercase();
        let mut e = std::io::stderr().lock();
        let _ = writeln!(e, "ts={ms} level={level} {}", r.args());
    }

    fn flush(&self) {}
}

/// True when a file can be created in `dir` (made if missing).
fn writable_dir(dir: &Path) -> bool {
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    let probe = dir.join(format!(".ndnfwd-probe-{}", std::process::id()));
    let ok = std::fs::File::create(&probe).is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

/// The Unix socket path to listen on: the configured one, or for an unprivileged run with the
/// default path a user-writable fallback.
fn unix_path(cfg: &Config) -> Option<(PathBuf, bool)> {
    let path = cfg.unix.clone()?;
    if !cfg.unix_is_default || path.parent().is_none_or(writable_dir) {
        return Some((path, false));
    }
    Some((fallback_unix_path(), true))
}

/// Where shared-memory faces are offered when the Unix socket is at `unix`: the same
/// directory, `-shm` added to the file stem (`nfd.sock` -> `nfd-shm.sock`).
pub fn shm_path(unix: &Path) -> PathBuf {
    let stem = unix.file_stem().unwrap_or_default().to_string_lossy();
    let ext = unix
        .extension()
        .map_or(String::new(), |e| format!(".{}", e.to_string_lossy()));
    unix.with_file_name(format!("{stem}-shm{ext}"))
}

/// Where an unprivileged run listens when it cannot write the default socket's directory:
/// `$XDG_RUNTIME_DIR/ndnfwd.sock`, else `<tmp>/ndnfwd-<uid>.sock`. `ndnfwd ctl` looks there too.
pub fn fallback_unix_path() -> PathBuf {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute() && writable_dir(d));
    match runtime {
        Some(d) => d.join("ndnfwd.sock"),
        None => {
            use std::os::unix::fs::MetadataExt as _;
            let uid = std::fs::metadata("/proc/self").map_or(0, |m| m.uid());
            std::env::temp_dir().join(format!("ndnfwd-{uid}.sock"))
        }
    }
}

/// How long the HTTP responder waits for the control stage to render a page.
const RENDER_TIMEOUT: Duration = Duration::from_secs(2);

/// Serves `/metrics` and `/status` on 127.0.0.1:`port` from its own thread until `stop`.
/// A port that cannot be bound is logged, not fatal: forwarding does not depend on it.
fn start_metrics(
    port: u16,
    dp: &Dataplane,
    stop: &Arc<AtomicBool>,
) -> Option<std::thread::JoinHandle<()>> {
    let mut server = match HttpServer::bind(port, HttpConfig::default()) {
        Ok(s) => s,
        Err(e) => {
            log::warn!("event=metrics_unavailable port={port} error=\"{e}\"");
            return None;
        }
    };
    let addr = server.local_addr().ok()?;
    println!("METRICS=http://{addr}/metrics");
    log::info!("event=metrics_listening addr={addr}");
    let renderer = dp.renderer();
    let stop = Arc::clone(stop);
    let spawned = std::thread::Builder::new()
        .name("ndnfwd-metrics".into())
        .spawn(move || {
            let mut render = |e| renderer.render(e, RENDER_TIMEOUT);
            if let Err(e) = server.run(&stop, &mut render) {
                log::error!("event=metrics_failed error=\"{e}\"");
            }
        });
    match spawned {
        Ok(h) => Some(h),
        Err(e) => {
            log::warn!("event=metrics_unavailable port={port} error=\"{e}\"");
            None
        }
    }
}

/// Runs the forwarder; returns the process exit code.
pub fn main(args: RunArgs) -> ExitCode {
    if args.print_default_config {
        print!("{}", config::DEFAULT_TOML);
        return ExitCode::SUCCESS;
    }
    let text = match &args.config {
        Some(p) => match std::fs::read_to_string(p) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("ndnfwd: cannot read {}: {e}", p.display());
                return ExitCode::from(2);
            }
        },
        None => String::new(),
    };
    let mut cfg = match config::parse(&text) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ndnfwd: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(p) = args.status_file {
        cfg.dataplane.status_file = Some(p);
    }
    let _ = log::set_logger(&Logger);
    log::set_max_level(cfg.log_level);

    let unix = unix_path(&cfg);
    if let Some((p, fell_back)) = &unix {
        cfg.dataplane
            .listeners
            .insert(0, ListenerSpec::Unix(p.clone()));
        if cfg.shm {
            cfg.dataplane
                .listeners
                .insert(1, ListenerSpec::Shm(shm_path(p)));
        }
        if *fell_back {
            log::warn!(
                "event=unix_fallback wanted={} using={}",
                cfg.unix
                    .as_ref()
                    .map_or(String::new(), |d| d.display().to_string()),
                p.display()
            );
        }
    }
    if args.check {
        for l in &cfg.dataplane.listeners {
            println!("listener {l:?}");
        }
        match cfg.metrics_port {
            Some(port) => println!("metrics 127.0.0.1:{port}"),
            None => println!("metrics disabled"),
        }
        println!("configuration ok");
        return ExitCode::SUCCESS;
    }

    let term = Arc::new(AtomicBool::new(false));
    let usr1 = Arc::new(AtomicBool::new(false));
    let hup = Arc::new(AtomicBool::new(false));
    let mut reloader = crate::reload::Reloader::new(args.config.clone(), &text);
    for (sig, flag) in [
        (signal_hook::consts::SIGINT, &term),
        (signal_hook::consts::SIGTERM, &term),
        (signal_hook::consts::SIGUSR1, &usr1),
        (signal_hook::consts::SIGHUP, &hup),
    ] {
        if let Err(e) = signal_hook::flag::register(sig, Arc::clone(flag)) {
            eprintln!("ndnfwd: cannot install signal handler: {e}");
            return ExitCode::FAILURE;
        }
    }

    let dp = match Dataplane::start(cfg.dataplane.clone()) {
        Ok(dp) => dp,
        Err(e) => {
            let what = match e {
                ndnfwd_dataplane::StartError::Listen(i, _) => cfg
                    .dataplane
                    .listeners
                    .get(i)
                    .map(|l| format!(" ({l:?})"))
                    .unwrap_or_default(),
                _ => String::new(),
            };
            eprintln!("ndnfwd: cannot start: {e}{what}");
            return ExitCode::FAILURE;
        }
    };
    let metrics_stop = Arc::new(AtomicBool::new(false));
    let metrics = cfg
        .metrics_port
        .and_then(|port| start_metrics(port, &dp, &metrics_stop));
    if let Some((p, _)) = &unix {
        // Apps (python-ndn, ndn-cxx, ndnfwd gen) find the forwarder through this variable
        // when it does not listen at the default path.
        println!("NDN_CLIENT_TRANSPORT=unix://{}", p.display());
        let _ = std::io::stdout().flush();
    }
    log::info!(
        "event=started threads={:?} channels={}",
        cfg.dataplane.threads,
        dp.channels()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    while !term.load(Ordering::Relaxed) {
        if usr1.swap(false, Ordering::Relaxed) {
            dp.dump_status();
        }
        if hup.swap(false, Ordering::Relaxed) {
            reloader.reload();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    log::info!("event=stopping");
    metrics_stop.store(true, Ordering::Relaxed);
    if let Some(h) = metrics {
        let _ = h.join();
    }
    // The listener removes its socket file when the face table is dropped.
    dp.shutdown();
    log::info!("event=stopped");
    ExitCode::SUCCESS
}
