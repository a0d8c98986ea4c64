//! The control stage: the RIB (which owns the FIB writer), the face registry, NFD management,
//! static configuration and the status document.
//!
//! Management plugs in as NFD's internal face ([`FACEID_INTERNAL`]): the RIB routes
//! `/localhost/nfd` (and `/localhop/nfd` when enabled) to it, so management Interests go through
//! a worker's pipelines like any other (PIT entry, our PIT token, scope checks) and arrive here
//! as the worker's output. The answer is injected back as a Data received on the internal face,
//! carrying the token, so it returns to the same worker and satisfies the PIT entry; face event
//! notifications are injected without a token and reach every worker.
//!
//! Face clean-up: when an I/O stage reports a face gone, its routes leave the RIB (and so the
//! FIB); the workers have already been told by the I/O stage itself.

mod backend;
mod plane;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use ndn_packet::link::{FaceScope, LpToken, PacketKind, RxLp, RxPacket, TxPacket};
use ndn_packet::{FaceId, Name};
use ndnfwd_face::info::FACEID_INTERNAL;
use ndnfwd_face::{FaceCounters, FaceInfo, FaceUri, Persistency};
use ndnfwd_fib::{Rib, Route, RouteFlags};
use ndnfwd_mgmt::http::Endpoint;
use ndnfwd_mgmt::records::{FaceEventKind, FaceEventNotification};
use ndnfwd_mgmt::{Manager, MgmtConfig, Now, Outcome, RequestFace};

pub use backend::Backend;
pub use plane::{Direct, Plane, Remote};

use crate::config::{FaceSpec, RouteSpec};
use crate::io::IoStats;
use crate::msg::{Backlog, Inputs, WorkerMsg};
use crate::worker::{WorkerSnapshot, WorkerStats};

/// NFD's route origin for static routes.
pub const ORIGIN_STATIC: u64 = 255;

/// How often expired routes are purged and FIB memory reclaimed.
const HOUSEKEEPING_NS: u64 = 100_000_000;

/// A message to the control stage.
#[derive(Debug)]
pub enum ControlMsg {
    /// An I/O stage made a face.
    FaceAdded {
        /// Its description.
        info: FaceInfo,
        /// Its live counters.
        counters: Arc<FaceCounters>,
        /// The I/O stage that owns it.
        io: u8,
    },
    /// A face went down.
    FaceRemoved {
        /// Its id.
        id: FaceId,
    },
    /// A worker forwarded an Interest to the internal face (management).
    Interest(TxPacket),
    /// Write the status file now.
    DumpStatus,
    /// Render a metrics endpoint (for the HTTP responder) and send the text back.
    Render {
        /// What to render.
        endpoint: Endpoint,
        /// Where the text goes.
        reply: Sender<String>,
    },
    /// Stop (threaded mode).
    Shutdown,
}

/// One face as the control stage knows it.
#[derive(Debug, Clone)]
pub(crate) struct FaceRecord {
    pub(crate) info: FaceInfo,
    pub(crate) counters: Arc<FaceCounters>,
    pub(crate) io: u8,
}

/// What a worker shares with the control stage.
#[derive(Debug, Clone)]
pub(crate) struct WorkerView {
    pub(crate) snapshot: Arc<Mutex<WorkerSnapshot>>,
    pub(crate) stats: Arc<WorkerStats>,
}

/// Asks a running control stage for the metrics text or the status document, from any thread
/// (the daemon's HTTP responder).
#[derive(Debug, Clone)]
pub struct Renderer {
    control: Sender<ControlMsg>,
}

impl Renderer {
    /// A renderer talking to the control stage through `control`.
    pub(crate) fn new(control: Sender<ControlMsg>) -> Self {
        Self { control }
    }

    /// The text of `endpoint`, or `None` when the control stage does not answer within
    /// `timeout` (stopped, or busy with a slow job).
    pub fn render(&self, endpoint: Endpoint, timeout: Duration) -> Option<String> {
        let (reply, rx) = mpsc::channel();
        self.control
            .send(ControlMsg::Render { endpoint, reply })
            .ok()?;
        rx.recv_timeout(timeout).ok()
    }
}

/// Control-stage counters.
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct ControlStats {
    /// Interests received on the internal face.
    pub mgmt_interests: u64,
    /// Management answers dropped because a worker ring was full.
    pub mgmt_reply_dropped: u64,
    /// Packets other than Interests sent to the internal face (ignored).
    pub internal_non_interest: u64,
    /// Static faces or routes that could not be set up.
    pub static_failures: u64,
}

/// Everything the management backend works on.
pub(crate) struct ControlState {
    pub(crate) rib: Rib,
    pub(crate) faces: BTreeMap<FaceId, FaceRecord>,
    pub(crate) channels: Vec<FaceUri>,
    pub(crate) strategies: BTreeMap<Name, String>,
    pub(crate) default_strategy: String,
    pub(crate) workers: Vec<WorkerView>,
    pub(crate) io_stats: Vec<Arc<IoStats>>,
    pub(crate) stats: ControlStats,
    pub(crate) now: Now,
    pub(crate) start_unix_ms: u64,
    next_io: usize,
}

impl core::fmt::Debug for ControlState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ControlState")
            .field("rib", &self.rib.len())
            .field("faces", &self.faces.len())
            .finish_non_exhaustive()
    }
}

impl ControlState {
    /// The I/O stage for the next face made by a command or configuration (round-robin).
    pub(crate) fn pick_io(&mut self, n: usize) -> u8 {
        let i = self.next_io % n.max(1);
        self.next_io = self.next_io.wrapping_add(1);
        u8::try_from(i).unwrap_or(0)
    }
}

/// The control stage (see the module docs).
pub struct ControlStage {
    state: ControlState,
    manager: Manager,
    rx: Receiver<ControlMsg>,
    inputs: Inputs,
    backlogs: Vec<Backlog>,
    status_file: Option<PathBuf>,
    status_interval_ns: u64,
    last_status: u64,
    last_housekeeping: u64,
    clock_anchor: (u64, u64),
}

impl core::fmt::Debug for ControlStage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ControlStage")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

/// What the control stage is built from.
pub(crate) struct ControlParts {
    pub(crate) rib: Rib,
    pub(crate) mgmt: MgmtConfig,
    pub(crate) rx: Receiver<ControlMsg>,
    pub(crate) inputs: Inputs,
    pub(crate) workers: Vec<WorkerView>,
    pub(crate) io_stats: Vec<Arc<IoStats>>,
    pub(crate) channels: Vec<FaceUri>,
    pub(crate) status_file: Option<PathBuf>,
    pub(crate) status_interval_ms: u64,
    /// (monotonic ns, Unix ms) read at the same moment.
    pub(crate) clock_anchor: (u64, u64),
}

impl ControlStage {
    pub(crate) fn new(p: ControlParts) -> Self {
        let default_strategy = ndnfwd_fwd::strategy::instantiate(ndnfwd_fwd::DEFAULT_STRATEGY)
            .map(|s| ndnfwd_fwd::strategy::full_name(s.as_ref()))
            .unwrap_or_else(|_| ndnfwd_fwd::DEFAULT_STRATEGY.to_owned());
        let localhop = p.mgmt.localhop;
        let mut state = ControlState {
            rib: p.rib,
            faces: BTreeMap::new(),
            channels: p.channels,
            strategies: BTreeMap::new(),
            default_strategy,
            workers: p.workers,
            io_stats: p.io_stats,
            stats: ControlStats::default(),
            now: Now {
                mono_ns: p.clock_anchor.0,
                unix_ms: p.clock_anchor.1,
            },
            start_unix_ms: p.clock_anchor.1,
            next_io: 0,
        };
        let mut prefixes = vec!["/localhost/nfd"];
        if localhop {
            prefixes.push("/localhop/nfd");
        }
        for uri in prefixes {
            let route = Route {
                face: FACEID_INTERNAL,
                origin: 0,
                cost: 0,
                flags: RouteFlags::NONE,
                expires: None,
            };
            if let Ok(name) = Name::from_uri(uri) {
                if let Err(e) = state.rib.register(name.as_ref(), route) {
                    log::error!("event=mgmt_route_failed prefix={uri} error=\"{e}\"");
                }
            }
        }
        let backlogs = p.inputs.iter().map(|_| Backlog::default()).collect();
        Self {
            state,
            manager: Manager::new(p.mgmt),
            rx: p.rx,
            inputs: p.inputs,
            backlogs,
            status_file: p.status_file,
            status_interval_ns: p.status_interval_ms.saturating_mul(1_000_000),
            last_status: 0,
            last_housekeeping: 0,
            clock_anchor: p.clock_anchor,
        }
    }

    fn set_now(&mut self, now: u64) {
        let (mono, unix) = self.clock_anchor;
        self.state.now = Now {
            mono_ns: now,
            unix_ms: unix + now.saturating_sub(mono) / 1_000_000,
        };
    }

    /// Creates the configured faces and routes (at start-up, with the stages running or
    /// borrowed through `plane`). Failures are logged and counted, not fatal: a peer may come
    /// up later.
    pub fn apply_static(
        &mut self,
        plane: &mut dyn Plane,
        faces: &[FaceSpec],
        routes: &[RouteSpec],
    ) {
        for f in faces {
            self.static_face(plane, f);
        }
        for r in routes {
            let Some(face) = self.static_face(plane, &r.face) else {
                continue;
            };
            let route = Route {
                face,
                origin: ORIGIN_STATIC,
                cost: r.cost,
                flags: RouteFlags::CHILD_INHERIT,
                expires: None,
            };
            match self.state.rib.register(r.prefix.as_ref(), route) {
                Ok(()) => log::info!(
                    "event=static_route prefix={} face={face} cost={}",
                    r.prefix,
                    r.cost
                ),
                Err(e) => {
                    self.state.stats.static_failures += 1;
                    log::error!(
                        "event=static_route_failed prefix={} error=\"{e}\"",
                        r.prefix
                    );
                }
            }
        }
    }

    fn static_face(&mut self, plane: &mut dyn Plane, f: &FaceSpec) -> Option<FaceId> {
        let persistency = match f.remote {
            FaceUri::Tcp(_) | FaceUri::Unix(_) => Persistency::Persistent,
            _ => Persistency::Permanent,
        };
        let r = backend::create_face(
            &mut self.state,
            plane,
            &f.remote,
            f.local.as_ref(),
            persistency,
        );
        match r {
            Ok((rec, _)) => Some(rec.info.id),
            Err(e) => {
                self.state.stats.static_failures += 1;
                log::error!(
                    "event=static_face_failed remote={} error=\"{e:?}\"",
                    f.remote
                );
                None
            }
        }
    }

    /// Handles every pending message and periodic duty at `now`, without blocking; true when
    /// anything was done.
    pub fn poll(&mut self, now: u64, plane: &mut dyn Plane) -> bool {
        self.set_now(now);
        let mut worked = false;
        for (b, input) in self.backlogs.iter_mut().zip(self.inputs.iter()) {
            b.flush(input);
        }
        while let Ok(msg) = self.rx.try_recv() {
            worked = true;
            self.handle(msg, plane);
        }
        self.housekeeping(now, plane);
        worked
    }

    /// Threaded mode: waits for messages until [`ControlMsg::Shutdown`]; `clock` gives `now`.
    pub fn run(&mut self, plane: &mut dyn Plane, clock: &dyn Fn() -> u64) {
        loop {
            let msg = self.rx.recv_timeout(Duration::from_millis(20));
            let now = clock();
            self.set_now(now);
            for (b, input) in self.backlogs.iter_mut().zip(self.inputs.iter()) {
                b.flush(input);
            }
            match msg {
                Ok(ControlMsg::Shutdown) | Err(RecvTimeoutError::Disconnected) => break,
                Ok(m) => {
                    self.handle(m, plane);
                    let mut stop = false;
                    while let Ok(m) = self.rx.try_recv() {
                        stop |= matches!(m, ControlMsg::Shutdown);
                        self.handle(m, plane);
                    }
                    if stop {
                        break;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            self.housekeeping(now, plane);
        }
        self.write_status(plane);
    }

    fn housekeeping(&mut self, now: u64, plane: &mut dyn Plane) {
        if now.saturating_sub(self.last_housekeeping) >= HOUSEKEEPING_NS {
            self.last_housekeeping = now;
            match self.state.rib.expire(now) {
                Ok(0) => {}
                Ok(n) => log::info!("event=routes_expired count={n}"),
                Err(e) => log::error!("event=rib_expire_failed error=\"{e}\""),
            }
            self.state.rib.fib_mut().reclaim();
        }
        if self.status_interval_ns > 0
            && now.saturating_sub(self.last_status) >= self.status_interval_ns
        {
            self.last_status = now;
            self.write_status(plane);
        }
    }

    fn handle(&mut self, msg: ControlMsg, plane: &mut dyn Plane) {
        match msg {
            ControlMsg::FaceAdded { info, counters, io } => {
                let id = info.id;
                let rec = FaceRecord { info, counters, io };
                let status = backend::face_status(&rec);
                self.state.faces.insert(id, rec);
                self.post_event(FaceEventKind::Created, &status);
            }
            ControlMsg::FaceRemoved { id } => self.on_face_removed(id),
            ControlMsg::Interest(tx) => self.on_mgmt_interest(tx, plane),
            ControlMsg::DumpStatus => self.write_status(plane),
            ControlMsg::Render { endpoint, reply } => {
                let text = match endpoint {
                    Endpoint::Metrics => self.metrics_text(plane),
                    Endpoint::Status => self.status_json(plane),
                };
                let _ = reply.send(text);
            }
            ControlMsg::Shutdown => {}
        }
    }

    /// A face is gone: drop it from the registry and its routes from the RIB and FIB.
    fn on_face_removed(&mut self, id: FaceId) {
        let Some(rec) = self.state.faces.remove(&id) else {
            return;
        };
        match self.state.rib.remove_face(id) {
            Ok(n) if n > 0 => log::info!("event=routes_removed face={id} count={n}"),
            Ok(_) => {}
            Err(e) => log::error!("event=rib_remove_face_failed face={id} error=\"{e}\""),
        }
        let status = backend::face_status(&rec);
        self.post_event(FaceEventKind::Destroyed, &status);
    }

    fn post_event(&mut self, kind: FaceEventKind, status: &ndnfwd_mgmt::records::FaceStatus) {
        let ev = FaceEventNotification::from_status(kind, status);
        if let Ok(d) = self.manager.post_face_event(&ev, self.state.now) {
            self.inject(d, &LpToken::EMPTY);
        }
    }

    fn on_mgmt_interest(&mut self, tx: TxPacket, plane: &mut dyn Plane) {
        if tx.kind != PacketKind::Interest {
            self.state.stats.internal_non_interest += 1;
            return;
        }
        self.state.stats.mgmt_interests += 1;
        let requester = tx.lp.incoming_face_id.unwrap_or(FACEID_INTERNAL);
        let local = requester == FACEID_INTERNAL
            || self
                .state
                .faces
                .get(&requester)
                .is_some_and(|f| f.info.scope == FaceScope::Local);
        let face = RequestFace {
            id: requester,
            local,
        };
        let now = self.state.now;
        let mut be = Backend::new(&mut self.state, plane);
        // The Interest as the engine sent it (its HopLimit patch applied).
        let wire = tx.sent_wire();
        match self.manager.handle_interest(&mut be, &wire, face, now) {
            Outcome::Reply(d) => self.inject(d, &tx.lp.pit_token),
            Outcome::Wait | Outcome::Drop(_) | Outcome::NotManagement => {}
        }
    }

    /// Hands `data` to the worker named by `token` (every worker without one) as a Data
    /// received on the internal face.
    fn inject(&mut self, data: Bytes, token: &LpToken) {
        let n = self.inputs.len();
        let target = ndnfwd_pcct::worker_of(token.as_bytes())
            .map(usize::from)
            .filter(|&w| w < n);
        let rx = RxPacket {
            face: FACEID_INTERNAL,
            kind: PacketKind::Data,
            wire: data,
            lp: RxLp {
                pit_token: *token,
                ..RxLp::default()
            },
        };
        // A command's answer goes to one worker: moved there, no list and no clone.
        let (from, to) = target.map_or((0, n), |w| (w, w + 1));
        let mut rx = Some(rx);
        for w in from..to {
            let Some(pkt) = (if w + 1 == to { rx.take() } else { rx.clone() }) else {
                break;
            };
            if let (Some(b), Some(input)) = (self.backlogs.get_mut(w), self.inputs.get(w)) {
                if b.send(input, WorkerMsg::Packet(pkt)).is_err() {
                    self.state.stats.mgmt_reply_dropped += 1;
                }
            }
        }
    }

    /// The status document (NFD's datasets plus data-plane counters) as JSON.
    pub fn status_json(&mut self, plane: &mut dyn Plane) -> String {
        let counters = self.manager.counters().clone();
        let be = Backend::new(&mut self.state, plane);
        backend::status_json(&be, &counters)
    }

    /// The Prometheus text: faces, workers, I/O stages, the control stage and management.
    pub fn metrics_text(&mut self, plane: &mut dyn Plane) -> String {
        let counters = self.manager.counters().clone();
        let be = Backend::new(&mut self.state, plane);
        ndnfwd_mgmt::metrics::render_metrics(&be, &counters)
    }

    /// Writes the status file, if one is configured (atomically: temporary file and rename).
    pub fn write_status(&mut self, plane: &mut dyn Plane) {
        let Some(path) = self.status_file.clone() else {
            return;
        };
        let json = self.status_json(plane);
        let tmp = path.with_extension("tmp");
        let r = std::fs::write(&tmp, json).and_then(|()| std::fs::rename(&tmp, &path));
        if let Err(e) = r {
            log::warn!(
                "event=status_write_failed path={} error=\"{e}\"",
                path.display()
            );
        }
    }
}
