//! Building the stages and running them on threads: [`Dataplane::start`] and its handle.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crossbeam_queue::ArrayQueue;
use ndn_packet::{NameHasher, SipVariant};
use ndnfwd_face::{FaceError, FaceIdAllocator, FaceTable, FaceUri};
use ndnfwd_fib::{FibError, FibWriter, Rib};
use ndnfwd_fwd::{Engine, EngineError};

use crate::backoff::{Backoff, Idle};
use crate::config::{DataplaneConfig, ListenerSpec, Threads};
use crate::control::{ControlMsg, ControlParts, ControlStage, Direct, Remote, WorkerView};
use crate::dispatch::Dispatcher;
use crate::io::IoStage;
use crate::msg::{inputs, Inputs, IoJob};
use crate::worker::WorkerStage;
use crate::Outputs;

/// Why the data plane did not start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartError {
    /// No randomness for the hash key.
    NoRandomness,
    /// The FIB could not be created.
    Fib(FibError),
    /// An engine could not be created.
    Engine(EngineError),
    /// A face table (epoll) could not be created.
    FaceTable(io::ErrorKind),
    /// Listener `n` (index into the configuration's list) failed.
    Listen(usize, FaceError),
    /// A thread could not be spawned.
    Spawn(io::ErrorKind),
}

impl core::fmt::Display for StartError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NoRandomness => f.write_str("no OS randomness for the hash key"),
            Self::Fib(e) => write!(f, "FIB: {e}"),
            Self::Engine(e) => write!(f, "{e}"),
            Self::FaceTable(k) => write!(f, "face table: {k}"),
            Self::Listen(i, e) => write!(f, "listener {i}: {e}"),
            Self::Spawn(k) => write!(f, "cannot spawn thread: {k}"),
        }
    }
}

impl std::error::Error for StartError {}

/// A running data plane.
#[derive(Debug)]
pub struct Dataplane {
    threads: Vec<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    control: Sender<ControlMsg>,
    channels: Vec<FaceUri>,
}

/// Monotonic nanoseconds since `epoch`.
fn nanos_since(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

fn pin(cpus: &[usize], slot: usize, what: &str) {
    if let Some(&cpu) = cpus.get(slot) {
        match crate::sys::pin_current_thread(cpu) {
            Ok(()) => log::info!("event=thread_pinned thread={what} cpu={cpu}"),
            Err(e) => log::warn!("event=pin_failed thread={what} cpu={cpu} error=\"{e}\""),
        }
    }
}

impl Dataplane {
    /// Builds every stage, opens the listeners, starts the threads, then makes the static faces
    /// and routes. Returns once the listeners are open.
    pub fn start(cfg: DataplaneConfig) -> Result<Self, StartError> {
        let hasher =
            NameHasher::from_os(SipVariant::Sip13).map_err(|_| StartError::NoRandomness)?;
        let writer = FibWriter::new(cfg.fib, hasher.clone()).map_err(StartError::Fib)?;
        let fib = writer.handle();
        let rib = Rib::new(writer);
        let (n_io, n_workers) = cfg.threads.counts();
        let (ctl_tx, ctl_rx) = mpsc::channel();
        let inputs: Inputs = inputs(n_workers, cfg.ring_capacity);
        let outputs: Outputs = (0..n_io)
            .map(|_| ArrayQueue::new(cfg.ring_capacity.max(1)))
            .collect();

        let mut workers = Vec::with_capacity(n_workers);
        for w in 0..n_workers {
            let id = u8::try_from(w).unwrap_or(u8::MAX);
            let mut ec = cfg.engine;
            ec.pcct.worker_id = id;
            ec.nonce_seed ^= (w as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let engine =
                Engine::new(ec, hasher.clone(), fib.reader()).map_err(StartError::Engine)?;
            workers.push(WorkerStage::new(
                id,
                engine,
                Arc::clone(&inputs),
                Arc::clone(&outputs),
                ctl_tx.clone(),
                cfg.burst,
            ));
        }

        let ids = FaceIdAllocator::default();
        let mut tables = Vec::with_capacity(n_io);
        for _ in 0..n_io {
            let t = FaceTable::new(ids.clone(), cfg.faces)
                .map_err(|e| StartError::FaceTable(e.kind()))?;
            tables.push(t);
        }
        let mut channels = Vec::new();
        for (i, l) in cfg.listeners.iter().enumerate() {
            let Some(t) = tables.get_mut(i % n_io) else {
                continue;
            };
            let r = match l {
                ListenerSpec::Unix(p) => t.listen_unix(p),
                ListenerSpec::Shm(p) => t.listen_shm(p),
                ListenerSpec::Tcp(a) => t.listen_tcp(*a),
                ListenerSpec::Udp(a) => t.listen_udp(*a),
            };
            let uri = r.map_err(|e| StartError::Listen(i, e))?;
            log::info!("event=listening uri={uri}");
            channels.push(uri);
        }

        let dispatcher = Dispatcher::new(hasher, n_workers, cfg.dispatch_prefix_len, cfg.ndt_bits);
        let last_rx = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let mut io_jobs = Vec::with_capacity(n_io);
        let mut io_stages = Vec::with_capacity(n_io);
        for (i, t) in tables.into_iter().enumerate() {
            let (jtx, jrx) = mpsc::channel::<IoJob>();
            io_jobs.push(jtx);
            io_stages.push(IoStage::new(
                u8::try_from(i).unwrap_or(u8::MAX),
                t,
                dispatcher.clone(),
                Arc::clone(&inputs),
                Arc::clone(&outputs),
                ctl_tx.clone(),
                jrx,
                cfg.burst,
                Arc::clone(&last_rx),
            ));
        }

        let epoch = Instant::now();
        let unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0));
        let mut control = ControlStage::new(ControlParts {
            rib,
            mgmt: cfg.mgmt.clone(),
            rx: ctl_rx,
            inputs: Arc::clone(&inputs),
            workers: workers
                .iter()
                .map(|w| WorkerView {
                    snapshot: w.snapshot(),
                    stats: w.stats(),
                })
                .collect(),
            io_stats: io_stages.iter().map(IoStage::stats).collect(),
            channels: channels.clone(),
            status_file: cfg.status_file.clone(),
            status_interval_ms: cfg.status_interval_ms,
            clock_anchor: (0, unix_ms),
        });

        let stop = Arc::new(AtomicBool::new(false));
        let spin_ns = cfg.idle_spin_us.saturating_mul(1000);
        let mut threads = Vec::new();
        let spawn = |name: String, f: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new()
                .name(name)
                .spawn(f)
                .map_err(|e| StartError::Spawn(e.kind()))
        };

        match cfg.threads {
            Threads::Single => {
                let (mut io, mut worker) = match (io_stages.pop(), workers.pop()) {
                    (Some(i), Some(w)) => (i, w),
                    _ => return Err(StartError::Spawn(io::ErrorKind::InvalidInput)),
                };
                let stop2 = Arc::clone(&stop);
                let (faces, routes, cpus) = (cfg.static_faces, cfg.routes, cfg.pin_cpus);
                let max_sleep = cfg.idle_max_sleep_ms;
                threads.push(spawn(
                    "ndnfwd-rtc".into(),
                    Box::new(move || {
                        pin(&cpus, 0, "rtc");
                        let mut direct = Direct {
                            io: core::slice::from_mut(&mut io),
                            workers: core::slice::from_mut(&mut worker),
                        };
                        control.apply_static(&mut direct, &faces, &routes);
                        run_to_completion(
                            &mut io,
                            &mut worker,
                            &mut control,
                            &stop2,
                            epoch,
                            spin_ns,
                            max_sleep,
                        );
                    }),
                )?);
            }
            Threads::Multi { .. } => {
                for (i, mut io) in io_stages.into_iter().enumerate() {
                    let (stop2, cpus) = (Arc::clone(&stop), cfg.pin_cpus.clone());
                    let (busy_cap, quiet_cap) = (cfg.io_max_sleep_ms, cfg.idle_max_sleep_ms);
                    threads.push(spawn(
                        format!("ndnfwd-io{i}"),
                        Box::new(move || {
                            pin(&cpus, i, "io");
                            let mut b = Backoff::new(spin_ns, quiet_cap.max(busy_cap));
                            while !stop2.load(Ordering::Relaxed) {
                                let now = nanos_since(epoch);
                                let worked = io.poll(now);
                                match b.next(now, worked || io.has_pending()) {
                                    Idle::Spin => core::hint::spin_loop(),
                                    // Outputs may still come from workers while traffic is
                                    // recent: sleep briefly (workers cannot wake epoll).
                                    Idle::Sleep(ms) if !io.quiet(now) => io.wait(ms.min(busy_cap)),
                                    Idle::Sleep(ms) => io.wait(ms),
                                }
                            }
                        }),
                    )?);
                }
                for (w, mut worker) in workers.into_iter().enumerate() {
                    let (stop2, cpus, inputs2) =
                        (Arc::clone(&stop), cfg.pin_cpus.clone(), Arc::clone(&inputs));
                    let max_sleep = cfg.idle_max_sleep_ms;
                    threads.push(spawn(
                        format!("ndnfwd-w{w}"),
                        Box::new(move || {
                            pin(&cpus, n_io + w, "worker");
                            let Some(input) = inputs2.get(w) else { return };
                            input.waker.register_current();
                            let mut b = Backoff::new(spin_ns, max_sleep);
                            while !stop2.load(Ordering::Relaxed) {
                                let now = nanos_since(epoch);
                                let worked = worker.poll(now);
                                match b.next(now, worked) {
                                    Idle::Spin => core::hint::spin_loop(),
                                    Idle::Sleep(ms) => {
                                        worker.idle();
                                        input.waker.set_sleeping(true);
                                        if !worker.has_input() {
                                            std::thread::park_timeout(
                                                std::time::Duration::from_millis(u64::from(ms)),
                                            );
                                        }
                                        input.waker.set_sleeping(false);
                                    }
                                }
                            }
                            worker.idle();
                        }),
                    )?);
                }
                let mut remote = Remote {
                    io_jobs,
                    inputs: Arc::clone(&inputs),
                };
                let (faces, routes) = (cfg.static_faces, cfg.routes);
                threads.push(spawn(
                    "ndnfwd-control".into(),
                    Box::new(move || {
                        control.apply_static(&mut remote, &faces, &routes);
                        control.run(&mut remote, &|| nanos_since(epoch));
                    }),
                )?);
            }
        }
        Ok(Self {
            threads,
            stop,
            control: ctl_tx,
            channels,
        })
    }

    /// The listeners' local URIs (bound addresses: port 0 in the configuration shows the port
    /// picked).
    pub fn channels(&self) -> &[FaceUri] {
        &self.channels
    }

    /// A handle that asks the control stage for the metrics text or the status document
    /// (for the HTTP responder, from any thread).
    pub fn renderer(&self) -> crate::control::Renderer {
        crate::control::Renderer::new(self.control.clone())
    }

    /// Asks the control stage to write the status file now.
    pub fn dump_status(&self) {
        let _ = self.control.send(ControlMsg::DumpStatus);
    }

    /// Stops every thread (the status file is written one last time) and waits for them.
    pub fn shutdown(self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.control.send(ControlMsg::Shutdown);
        for t in self.threads {
            if let Err(e) = t.join() {
                log::error!("event=thread_panicked error=\"{e:?}\"");
            }
        }
    }
}

/// The single-thread loop: I/O, worker and control stages polled in turn; sleeps on epoll
/// only when every ring is empty (nothing else can produce into them).
fn run_to_completion(
    io: &mut IoStage,
    worker: &mut WorkerStage,
    control: &mut ControlStage,
    stop: &AtomicBool,
    epoch: Instant,
    spin_ns: u64,
    max_sleep_ms: u32,
) {
    let mut b = Backoff::new(spin_ns, max_sleep_ms);
    while !stop.load(Ordering::Relaxed) {
        let now = nanos_since(epoch);
        let mut worked = io.poll_direct(now, worker);
        {
            let mut direct = Direct {
                io: core::slice::from_mut(io),
                workers: core::slice::from_mut(worker),
            };
            worked |= control.poll(now, &mut direct);
        }
        let pending = worker.has_input() || io.has_pending();
        match b.next(now, worked || pending) {
            Idle::Spin => core::hint::spin_loop(),
            Idle::Sleep(ms) => {
                worker.idle();
                io.wait(ms);
            }
        }
    }
    worker.idle();
    let mut direct = Direct {
        io: core::slice::from_mut(io),
        workers: core::slice::from_mut(worker),
    };
    control.write_status(&mut direct);
}
