//! The daemon's [`MgmtBackend`]: management operations over the control state (face registry,
//! RIB/FIB, strategy choices, worker snapshots) and, through a [`Plane`], the face tables of
//! the I/O stages and the engines of the workers.
//!
//! Deviations from NFD, each for a reason stated where it is implemented: `fib/add-nexthop`
//! is a RIB route of origin [`ORIGIN_FIB`] (the RIB is the one writer of the FIB);
//! `cs/config` cannot change the capacity or switch admit/serve at run time (the PIT-CS pools
//! are sized at start-up): such requests answer 501.

use ndn_packet::{FaceId, Name, NameRef};
use ndnfwd_face::{FaceError, FaceInfo, FaceTable, FaceUri, Persistency};
use ndnfwd_fib::{Route as RibRoute, RouteFlags};
use ndnfwd_fwd::Engine;
use ndnfwd_mgmt::metrics::{MetricKind, Sample, StatusDocument};
use ndnfwd_mgmt::records::{
    cs_flags, face_flags, ChannelStatus, CsInfo, FaceCounters, FacePersistency, FaceScope,
    FaceStatus, FibEntry, GeneralStatus, LinkType, NextHopRecord, RibEntry, Route, StrategyChoice,
};
use ndnfwd_mgmt::{CommandError, CsErased, FaceCreated, FaceParams, MgmtBackend, MgmtCounters};

use super::plane::{engines_call, io_call, Plane};
use super::{ControlState, FaceRecord};

/// Route origin standing for next hops added with `fib/add-nexthop`.
pub const ORIGIN_FIB: u64 = u64::MAX;

/// The backend for one management call: the control state and the way to the other stages.
pub struct Backend<'a> {
    st: &'a mut ControlState,
    plane: &'a mut dyn Plane,
}

impl core::fmt::Debug for Backend<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Backend").field("state", &self.st).finish()
    }
}

impl<'a> Backend<'a> {
    pub(crate) fn new(st: &'a mut ControlState, plane: &'a mut dyn Plane) -> Self {
        Self { st, plane }
    }
}

fn persistency_to_nfd(p: Persistency) -> FacePersistency {
    match p {
        Persistency::OnDemand => FacePersistency::OnDemand,
        Persistency::Persistent => FacePersistency::Persistent,
        Persistency::Permanent => FacePersistency::Permanent,
    }
}

fn persistency_from_nfd(p: FacePersistency) -> Persistency {
    match p {
        FacePersistency::OnDemand => Persistency::OnDemand,
        FacePersistency::Persistent => Persistency::Persistent,
        FacePersistency::Permanent => Persistency::Permanent,
    }
}

/// NFD's FaceStatus of a face.
pub(crate) fn face_status(rec: &FaceRecord) -> FaceStatus {
    let i = &rec.info;
    let c = rec.counters.snapshot();
    FaceStatus {
        face_id: u64::from(i.id),
        uri: i.remote.to_string(),
        local_uri: i.local.to_string(),
        expiration_period: None,
        face_scope: match i.scope {
            ndn_packet::FaceScope::Local => FaceScope::Local,
            ndn_packet::FaceScope::NonLocal => FaceScope::NonLocal,
        },
        face_persistency: persistency_to_nfd(i.persistency),
        link_type: match i.link_type {
            ndn_packet::LinkType::PointToPoint => LinkType::PointToPoint,
            ndn_packet::LinkType::MultiAccess => LinkType::MultiAccess,
            ndn_packet::LinkType::AdHoc => LinkType::AdHoc,
        },
        base_congestion_marking_interval: None,
        default_congestion_threshold: None,
        mtu: i.mtu.map(|m| m as u64),
        counters: FaceCounters {
            n_in_interests: c.in_interests,
            n_in_data: c.in_data,
            n_in_nacks: c.in_nacks,
            n_out_interests: c.out_interests,
            n_out_data: c.out_data,
            n_out_nacks: c.out_nacks,
            n_in_bytes: c.in_bytes,
            n_out_bytes: c.out_bytes,
        },
        flags: u64::from(i.local_fields) << face_flags::LOCAL_FIELDS_ENABLED,
    }
}

/// Opens a face to `remote` on the next I/O stage: UDP unicast or multicast (`local` =
/// `udp4://<interface address>`), TCP, Unix, or Ethernet (`local` = `dev://<ifname>`). A face
/// that already has this remote endpoint is returned with `true`.
pub(crate) fn create_face(
    st: &mut ControlState,
    plane: &mut dyn Plane,
    remote: &FaceUri,
    local: Option<&FaceUri>,
    persistency: Persistency,
) -> Result<(FaceRecord, bool), FaceError> {
    let io = st.pick_io(plane.io_count());
    let remote_c = remote.clone();
    let local_c = local.cloned();
    let made = io_call(plane, io, move |t: &mut FaceTable| {
        let r = open(t, &remote_c, local_c.as_ref(), persistency);
        let (id, existed) = match r {
            Ok(id) => (id, false),
            Err(FaceError::Exists(id)) => (id, true),
            Err(e) => return Err(e),
        };
        let info = t.info(id).cloned().ok_or(FaceError::NoSuchFace)?;
        let counters = t.counters(id).ok_or(FaceError::NoSuchFace)?;
        Ok((info, counters, existed))
    })
    .ok_or(FaceError::Io(std::io::ErrorKind::TimedOut))??;
    let (info, counters, existed) = made;
    let rec = st
        .faces
        .entry(info.id)
        .or_insert(FaceRecord { info, counters, io })
        .clone();
    Ok((rec, existed))
}

fn open(
    t: &mut FaceTable,
    remote: &FaceUri,
    local: Option<&FaceUri>,
    p: Persistency,
) -> Result<FaceId, FaceError> {
    match (remote, local) {
        (FaceUri::Udp(a), Some(FaceUri::Udp(l))) if a.ip().is_multicast() => match l.ip() {
            std::net::IpAddr::V4(ip) => t.add_udp_multicast(*a, ip),
            std::net::IpAddr::V6(_) => Err(FaceError::Unsupported),
        },
        (FaceUri::Udp(a), _) => t.connect_udp(*a, p),
        (FaceUri::Tcp(a), _) => t.connect_tcp(*a, p),
        (FaceUri::Unix(path), _) => t.connect_unix(path, p),
        (FaceUri::Ether(mac), Some(FaceUri::Dev(ifname))) => t.add_ether(ifname, *mac, p),
        _ => Err(FaceError::Unsupported),
    }
}

fn command_error(e: FaceError) -> CommandError {
    match e {
        FaceError::Io(_) => CommandError::ConnectFailed,
        FaceError::Exists(_) | FaceError::Unsupported => CommandError::UnsupportedProtocol,
        FaceError::TooManyFaces => CommandError::TableFull,
        FaceError::NoSuchFace => CommandError::FaceNotFound,
        FaceError::NotLocal => CommandError::InvalidProperties,
    }
}

fn parse_uri(s: &str) -> Result<FaceUri, CommandError> {
    let u: FaceUri = s.parse().map_err(|_| CommandError::MalformedUri)?;
    if u.to_string() != s {
        return Err(CommandError::NonCanonicalUri);
    }
    Ok(u)
}

impl Backend<'_> {
    fn record(&self, face: FaceId) -> Result<&FaceRecord, CommandError> {
        self.st.faces.get(&face).ok_or(CommandError::FaceNotFound)
    }

    fn face_known(&self, face: FaceId) -> bool {
        face == ndnfwd_face::info::FACEID_INTERNAL || self.st.faces.contains_key(&face)
    }

    fn fib_error(e: ndnfwd_fib::FibError) -> CommandError {
        log::warn!("event=fib_update_failed error=\"{e}\"");
        match e {
            ndnfwd_fib::FibError::TooDeep => CommandError::Unsupported,
            _ => CommandError::TableFull,
        }
    }

    fn snapshots(&self) -> Vec<crate::worker::WorkerSnapshot> {
        self.st
            .workers
            .iter()
            .map(|w| w.snapshot.lock().map(|s| s.clone()).unwrap_or_default())
            .collect()
    }

    fn cs_flags_value() -> u64 {
        1 << cs_flags::ENABLE_ADMIT | 1 << cs_flags::ENABLE_SERVE
    }
}

impl MgmtBackend for Backend<'_> {
    fn face_create(
        &mut self,
        uri: &str,
        local_uri: Option<&str>,
        params: &FaceParams,
    ) -> Result<FaceCreated, CommandError> {
        let remote = parse_uri(uri)?;
        let local = local_uri.map(parse_uri).transpose()?;
        let p = params
            .persistency
            .map_or(Persistency::Persistent, persistency_from_nfd);
        if p == Persistency::OnDemand {
            return Err(CommandError::InvalidProperties);
        }
        let (rec, existed) =
            create_face(self.st, self.plane, &remote, local.as_ref(), p).map_err(command_error)?;
        if let Some(on) = params.local_fields.filter(|_| !existed) {
            let id = rec.info.id;
            let info = io_call(self.plane, rec.io, move |t: &mut FaceTable| {
                t.set_local_fields(id, on).map(|()| t.info(id).cloned())
            });
            self.store_info(info)?;
        }
        let face = face_status(self.record(rec.info.id)?);
        Ok(FaceCreated { face, existed })
    }

    fn face_update(
        &mut self,
        face: FaceId,
        params: &FaceParams,
    ) -> Result<FaceStatus, CommandError> {
        let io = self.record(face)?.io;
        let lf = params.local_fields;
        let p = params.persistency.map(persistency_from_nfd);
        let info = io_call(self.plane, io, move |t: &mut FaceTable| {
            if let Some(on) = lf {
                t.set_local_fields(face, on)?;
            }
            if let Some(p) = p {
                t.set_persistency(face, p)?;
            }
            Ok(t.info(face).cloned())
        });
        self.store_info(info)?;
        Ok(face_status(self.record(face)?))
    }

    fn face_destroy(&mut self, face: FaceId) -> Result<(), CommandError> {
        let Ok(rec) = self.record(face) else {
            return Ok(());
        };
        let io = rec.io;
        // The I/O stage reports the removal; routes are purged when that report arrives.
        io_call(self.plane, io, move |t: &mut FaceTable| t.remove(face));
        Ok(())
    }

    fn faces(&self) -> Vec<FaceStatus> {
        self.st.faces.values().map(face_status).collect()
    }

    fn channels(&self) -> Vec<ChannelStatus> {
        self.st
            .channels
            .iter()
            .map(|u| ChannelStatus {
                local_uri: u.to_string(),
            })
            .collect()
    }

    fn fib_add_nexthop(
        &mut self,
        prefix: NameRef<'_>,
        face: FaceId,
        cost: u64,
    ) -> Result<(), CommandError> {
        let route = Route {
            face_id: u64::from(face),
            origin: ORIGIN_FIB,
            cost,
            flags: 0,
            expiration_period: None,
        };
        self.rib_register(prefix, &route)
    }

    fn fib_remove_nexthop(
        &mut self,
        prefix: NameRef<'_>,
        face: FaceId,
    ) -> Result<(), CommandError> {
        self.rib_unregister(prefix, face, ORIGIN_FIB)
    }

    fn fib(&self) -> Vec<FibEntry> {
        let rib = &self.st.rib;
        rib.fib()
            .prefixes()
            .map(|name| FibEntry {
                name: name.to_name(),
                next_hops: rib
                    .nexthops(name)
                    .into_iter()
                    .map(|nh| NextHopRecord {
                        face_id: u64::from(nh.face),
                        cost: u64::from(nh.cost),
                    })
                    .collect(),
            })
            .collect()
    }

    fn rib_register(&mut self, prefix: NameRef<'_>, route: &Route) -> Result<(), CommandError> {
        let face = FaceId::try_from(route.face_id).map_err(|_| CommandError::FaceNotFound)?;
        if !self.face_known(face) {
            return Err(CommandError::FaceNotFound);
        }
        let now = self.st.now.mono_ns;
        let r = RibRoute {
            face,
            origin: route.origin,
            cost: u32::try_from(route.cost).unwrap_or(u32::MAX),
            flags: RouteFlags(u8::try_from(route.flags & 3).unwrap_or(0)),
            expires: route
                .expiration_period
                .map(|ms| now.saturating_add(ms.saturating_mul(1_000_000))),
        };
        self.st.rib.register(prefix, r).map_err(Self::fib_error)?;
        log::info!(
            "event=route_registered prefix={prefix} face={face} origin={} cost={}",
            route.origin,
            route.cost
        );
        Ok(())
    }

    fn rib_unregister(
        &mut self,
        prefix: NameRef<'_>,
        face: FaceId,
        origin: u64,
    ) -> Result<(), CommandError> {
        self.st
            .rib
            .unregister(prefix, face, origin)
            .map(|_| ())
            .map_err(Self::fib_error)
    }

    fn rib(&self) -> Vec<RibEntry> {
        let rib = &self.st.rib;
        let now = self.st.now.mono_ns;
        rib.fib()
            .prefixes()
            .filter(|name| !rib.routes(*name).is_empty())
            .map(|name| RibEntry {
                name: name.to_name(),
                routes: rib
                    .routes(name)
                    .iter()
                    .map(|r| Route {
                        face_id: u64::from(r.face),
                        origin: r.origin,
                        cost: u64::from(r.cost),
                        flags: u64::from(r.flags.0),
                        expiration_period: r.expires.map(|t| t.saturating_sub(now) / 1_000_000),
                    })
                    .collect(),
            })
            .collect()
    }

    fn strategy_set(
        &mut self,
        prefix: NameRef<'_>,
        strategy: NameRef<'_>,
    ) -> Result<Name, CommandError> {
        let want = strategy.to_string();
        let instance = ndnfwd_fwd::strategy::instantiate(&want)
            .map_err(|_| CommandError::StrategyNotRegistered)?;
        let full = ndnfwd_fwd::strategy::full_name(instance.as_ref());
        let name = Name::from_uri(&full).map_err(|_| CommandError::Internal)?;
        let p = prefix.to_name();
        let (p2, w) = (p.clone(), want);
        let results = engines_call(self.plane, move |e: &mut Engine| {
            e.set_strategy(p2.as_ref(), &w).is_ok()
        });
        if results.len() != self.plane.worker_count() || results.iter().any(|ok| !ok) {
            return Err(CommandError::TableFull);
        }
        self.st.strategies.insert(p, full);
        Ok(name)
    }

    fn strategy_unset(&mut self, prefix: NameRef<'_>) -> Result<(), CommandError> {
        if prefix.is_empty() {
            return Err(CommandError::Unsupported);
        }
        let p = prefix.to_name();
        let p2 = p.clone();
        engines_call(self.plane, move |e: &mut Engine| {
            e.unset_strategy(p2.as_ref()).is_ok()
        });
        self.st.strategies.remove(&p);
        Ok(())
    }

    fn strategy_choices(&self) -> Vec<StrategyChoice> {
        let root = Name::from_uri(&self.st.default_strategy).unwrap_or_default();
        let mut out = vec![StrategyChoice {
            name: Name::new(),
            strategy: root,
        }];
        out.extend(
            self.st
                .strategies
                .iter()
                .filter(|(p, _)| !p.is_empty())
                .map(|(p, s)| StrategyChoice {
                    name: p.clone(),
                    strategy: Name::from_uri(s).unwrap_or_default(),
                }),
        );
        out
    }

    fn cs_config(
        &mut self,
        capacity: Option<u64>,
        admit: Option<bool>,
        serve: Option<bool>,
    ) -> Result<CsInfo, CommandError> {
        let info = self.cs_info();
        let changes_capacity = capacity.is_some_and(|c| c != info.capacity);
        if changes_capacity || admit == Some(false) || serve == Some(false) {
            return Err(CommandError::Unsupported);
        }
        Ok(info)
    }

    fn cs_erase(&mut self, prefix: NameRef<'_>, limit: u64) -> Result<CsErased, CommandError> {
        let p = prefix.to_name();
        let lim = usize::try_from(limit).unwrap_or(usize::MAX);
        let erased: usize = engines_call(self.plane, move |e: &mut Engine| {
            e.pcct_mut().cs_erase(p.as_ref(), lim)
        })
        .into_iter()
        .sum();
        let erased = erased as u64;
        Ok(CsErased {
            erased: erased.min(limit),
            more: erased >= limit,
        })
    }

    fn cs_info(&self) -> CsInfo {
        let s = self.snapshots();
        CsInfo {
            capacity: s.iter().map(|w| u64::from(w.cs_capacity)).sum(),
            flags: Self::cs_flags_value(),
            n_cs_entries: s.iter().map(|w| w.cs_entries as u64).sum(),
            n_hits: s.iter().map(|w| w.cs_hits).sum(),
            n_misses: s.iter().map(|w| w.cs_misses).sum(),
        }
    }

    fn general_status(&self) -> GeneralStatus {
        let s = self.snapshots();
        let mut c = ndnfwd_fwd::counters::Counters::default();
        for w in &s {
            c.add(&w.counters);
        }
        GeneralStatus {
            nfd_version: concat!("ndnfwd-", env!("CARGO_PKG_VERSION")).to_owned(),
            start_timestamp: self.st.start_unix_ms,
            current_timestamp: self.st.now.unix_ms,
            n_name_tree_entries: 0,
            n_fib_entries: self.st.rib.len() as u64,
            n_pit_entries: s.iter().map(|w| w.pit_entries as u64).sum(),
            n_measurements_entries: 0,
            n_cs_entries: s.iter().map(|w| w.cs_entries as u64).sum(),
            n_in_interests: c.rx_interest,
            n_in_data: c.rx_data,
            n_in_nacks: c.rx_nack,
            n_out_interests: c.tx_interest,
            n_out_data: c.tx_data,
            n_out_nacks: c.tx_nack,
            n_satisfied_interests: c.satisfied,
            n_unsatisfied_interests: c.unsatisfied,
        }
    }

    fn metrics(&self, out: &mut Vec<Sample>) {
        for f in self.st.faces.values() {
            let c = f.counters.snapshot();
            let id = f.info.id.to_string();
            for (name, help, v) in [
                (
                    "ndnfwd_face_in_interests_total",
                    "Interests received",
                    c.in_interests,
                ),
                ("ndnfwd_face_in_data_total", "Data received", c.in_data),
                ("ndnfwd_face_in_nacks_total", "Nacks received", c.in_nacks),
                (
                    "ndnfwd_face_out_interests_total",
                    "Interests sent",
                    c.out_interests,
                ),
                ("ndnfwd_face_out_data_total", "Data sent", c.out_data),
                ("ndnfwd_face_out_nacks_total", "Nacks sent", c.out_nacks),
            ] {
                out.push(Sample::new(name, help, MetricKind::Counter, v).label("face", &id));
            }
            for (reason, v) in c.drop_counts() {
                out.push(
                    Sample::new(
                        "ndnfwd_face_drops_total",
                        "Packets dropped by the face layer",
                        MetricKind::Counter,
                        v,
                    )
                    .label("face", &id)
                    .label("reason", reason),
                );
            }
        }
        for (i, w) in self.st.workers.iter().enumerate() {
            let snap = w.snapshot.lock().map(|s| s.clone()).unwrap_or_default();
            let wl = i.to_string();
            let gauge = |name: &str, help: &'static str, v: u64| {
                Sample::new(name, help, MetricKind::Gauge, v).label("worker", &wl)
            };
            out.push(gauge(
                "ndnfwd_pit_entries",
                "PIT entries",
                snap.pit_entries as u64,
            ));
            out.push(gauge(
                "ndnfwd_cs_entries",
                "CS entries",
                snap.cs_entries as u64,
            ));
            for (key, v) in snap.counters.iter().chain(w.stats.iter()) {
                out.push(
                    Sample::new(
                        "ndnfwd_worker_events_total",
                        "Forwarding events and drops by stable key",
                        MetricKind::Counter,
                        v,
                    )
                    .label("worker", &wl)
                    .label("key", key),
                );
            }
        }
        let c = self.st.stats;
        for (key, v) in [
            ("mgmt_interests", c.mgmt_interests),
            ("mgmt_reply_dropped", c.mgmt_reply_dropped),
            ("internal_non_interest", c.internal_non_interest),
            ("static_failures", c.static_failures),
        ] {
            out.push(
                Sample::new(
                    "ndnfwd_control_events_total",
                    "Control stage events and drops by stable key",
                    MetricKind::Counter,
                    v,
                )
                .label("key", key),
            );
        }
        for (i, s) in self.st.io_stats.iter().enumerate() {
            for (key, v) in s.iter() {
                out.push(
                    Sample::new(
                        "ndnfwd_io_events_total",
                        "I/O stage packets and drops by stable key",
                        MetricKind::Counter,
                        v,
                    )
                    .label("io", i.to_string())
                    .label("key", key),
                );
            }
        }
    }
}

impl Backend<'_> {
    /// Records the answer of a face-table job that changed a face.
    fn store_info(
        &mut self,
        info: Option<Result<Option<FaceInfo>, FaceError>>,
    ) -> Result<(), CommandError> {
        match info {
            Some(Ok(Some(info))) => {
                if let Some(rec) = self.st.faces.get_mut(&info.id) {
                    rec.info = info;
                }
                Ok(())
            }
            Some(Ok(None)) => Err(CommandError::FaceNotFound),
            Some(Err(FaceError::NotLocal)) => Err(CommandError::InvalidProperties),
            Some(Err(e)) => Err(command_error(e)),
            None => Err(CommandError::Internal),
        }
    }
}

/// The status document: NFD's datasets (general, faces, channels, FIB, RIB, strategies, CS,
/// management counters) plus the data plane's per-worker and per-I/O-stage counters.
pub(crate) fn status_json(be: &Backend<'_>, mgmt: &MgmtCounters) -> String {
    let doc = StatusDocument::collect(be, mgmt, be.st.now.unix_ms);
    let workers: Vec<serde_json::Value> = be
        .st
        .workers
        .iter()
        .map(|w| {
            let snap = w.snapshot.lock().map(|s| s.clone()).unwrap_or_default();
            let counters: serde_json::Map<String, serde_json::Value> = snap
                .counters
                .iter()
                .chain(w.stats.iter())
                .map(|(k, v)| (k.to_owned(), v.into()))
                .collect();
            serde_json::json!({ "table": snap, "counters": counters })
        })
        .collect();
    let io: Vec<serde_json::Value> = be
        .st
        .io_stats
        .iter()
        .map(|s| {
            let m: serde_json::Map<String, serde_json::Value> =
                s.iter().map(|(k, v)| (k.to_owned(), v.into())).collect();
            serde_json::Value::Object(m)
        })
        .collect();
    // Face-layer drops by stable reason, summed over the faces that exist now.
    let mut face_drops = serde_json::Map::new();
    for f in be.st.faces.values() {
        for (reason, n) in f.counters.snapshot().drop_counts() {
            let total = face_drops.get(reason).and_then(serde_json::Value::as_u64);
            face_drops.insert(reason.to_owned(), (total.unwrap_or(0) + n).into());
        }
    }
    let v = serde_json::json!({
        "status": doc,
        "dataplane": {
            "workers": workers, "io": io, "control": be.st.stats, "face_drops": face_drops,
        },
    });
    serde_json::to_string_pretty(&v).unwrap_or_else(|_| "{}".into())
}
