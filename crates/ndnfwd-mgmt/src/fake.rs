//! An in-memory forwarder for tests: maps and vectors standing in for the face table, RIB, FIB,
//! strategy table and content store.

use std::collections::BTreeMap;

use ndn_packet::{FaceId, Name, NameRef};

use crate::backend::{CommandError, CsErased, FaceCreated, FaceParams, MgmtBackend};
use crate::metrics::{MetricKind, Sample};
use crate::records::{
    cs_flags, face_flags, ChannelStatus, CsInfo, FaceCounters, FacePersistency, FaceScope,
    FaceStatus, FibEntry, GeneralStatus, LinkType, NextHopRecord, RibEntry, Route, StrategyChoice,
};

#[derive(Debug, Default)]
pub(crate) struct FakeBackend {
    pub faces: BTreeMap<u64, FaceStatus>,
    pub fib: BTreeMap<Name, BTreeMap<u64, u64>>,
    pub rib: BTreeMap<Name, Vec<Route>>,
    pub strategies: BTreeMap<Name, Name>,
    pub cs: CsInfo,
    pub cs_names: Vec<Name>,
    next_face: u64,
}

pub(crate) fn face(id: u64, uri: &str, scope: FaceScope) -> FaceStatus {
    FaceStatus {
        face_id: id,
        uri: uri.into(),
        local_uri: match scope {
            FaceScope::Local => "unix:///run/nfd/nfd.sock".into(),
            FaceScope::NonLocal => {
                let scheme = uri.split("://").next().unwrap_or_default();
                format!("{scheme}://192.0.2.254:6363")
            }
        },
        expiration_period: None,
        face_scope: scope,
        face_persistency: FacePersistency::Persistent,
        link_type: LinkType::PointToPoint,
        base_congestion_marking_interval: None,
        default_congestion_threshold: None,
        mtu: None,
        counters: FaceCounters::default(),
        flags: 0,
    }
}

impl FakeBackend {
    /// A forwarder with a local app face 256 and a UDP face 257.
    pub(crate) fn new() -> Self {
        let mut b = Self {
            next_face: 258,
            cs: CsInfo {
                capacity: 65536,
                flags: 3,
                ..Default::default()
            },
            ..Default::default()
        };
        b.faces.insert(256, face(256, "fd://12", FaceScope::Local));
        b.faces
            .insert(257, face(257, "udp4://192.0.2.1:6363", FaceScope::NonLocal));
        b.strategies.insert(
            Name::new(),
            Name::from_uri("/localhost/nfd/strategy/best-route/v=5").unwrap_or_default(),
        );
        b
    }

    fn check_face(&self, id: FaceId) -> Result<(), CommandError> {
        if self.faces.contains_key(&u64::from(id)) {
            Ok(())
        } else {
            Err(CommandError::FaceNotFound)
        }
    }
}

fn set_bit(flags: &mut u64, bit: u32, v: Option<bool>) {
    match v {
        Some(true) => *flags |= 1 << bit,
        Some(false) => *flags &= !(1 << bit),
        None => {}
    }
}

impl MgmtBackend for FakeBackend {
    fn face_create(
        &mut self,
        uri: &str,
        _local_uri: Option<&str>,
        params: &FaceParams,
    ) -> Result<FaceCreated, CommandError> {
        let (scheme, rest) = uri.split_once("://").ok_or(CommandError::MalformedUri)?;
        if !matches!(scheme, "udp4" | "tcp4") {
            return Err(CommandError::UnsupportedProtocol);
        }
        if !rest.contains(':') {
            return Err(CommandError::NonCanonicalUri);
        }
        if let Some(f) = self.faces.values().find(|f| f.uri == uri) {
            return Ok(FaceCreated {
                face: f.clone(),
                existed: true,
            });
        }
        let mut f = face(self.next_face, uri, FaceScope::NonLocal);
        self.next_face += 1;
        f.face_persistency = params.persistency.unwrap_or(FacePersistency::Persistent);
        f.mtu = params.mtu.or(Some(8800));
        set_bit(
            &mut f.flags,
            face_flags::LOCAL_FIELDS_ENABLED,
            params.local_fields,
        );
        self.faces.insert(f.face_id, f.clone());
        Ok(FaceCreated {
            face: f,
            existed: false,
        })
    }

    fn face_update(&mut self, id: FaceId, params: &FaceParams) -> Result<FaceStatus, CommandError> {
        let f = self
            .faces
            .get_mut(&u64::from(id))
            .ok_or(CommandError::FaceNotFound)?;
        if params.persistency == Some(FacePersistency::OnDemand)
            || (params.local_fields == Some(true) && f.face_scope == FaceScope::NonLocal)
        {
            return Err(CommandError::InvalidProperties);
        }
        if let Some(p) = params.persistency {
            f.face_persistency = p;
        }
        set_bit(
            &mut f.flags,
            face_flags::LOCAL_FIELDS_ENABLED,
            params.local_fields,
        );
        Ok(f.clone())
    }

    fn face_destroy(&mut self, id: FaceId) -> Result<(), CommandError> {
        self.faces.remove(&u64::from(id));
        Ok(())
    }

    fn faces(&self) -> Vec<FaceStatus> {
        self.faces.values().cloned().collect()
    }

    fn channels(&self) -> Vec<ChannelStatus> {
        vec![ChannelStatus {
            local_uri: "unix:///run/nfd/nfd.sock".into(),
        }]
    }

    fn fib_add_nexthop(
        &mut self,
        prefix: NameRef<'_>,
        face: FaceId,
        cost: u64,
    ) -> Result<(), CommandError> {
        self.check_face(face)?;
        self.fib
            .entry(prefix.to_name())
            .or_default()
            .insert(u64::from(face), cost);
        Ok(())
    }

    fn fib_remove_nexthop(
        &mut self,
        prefix: NameRef<'_>,
        face: FaceId,
    ) -> Result<(), CommandError> {
        if let Some(e) = self.fib.get_mut(&prefix.to_name()) {
            e.remove(&u64::from(face));
        }
        Ok(())
    }

    fn fib(&self) -> Vec<FibEntry> {
        self.fib
            .iter()
            .map(|(name, hops)| FibEntry {
                name: name.clone(),
                next_hops: hops
                    .iter()
                    .map(|(&face_id, &cost)| NextHopRecord { face_id, cost })
                    .collect(),
            })
            .collect()
    }

    fn rib_register(&mut self, prefix: NameRef<'_>, route: &Route) -> Result<(), CommandError> {
        self.check_face(FaceId::try_from(route.face_id).map_err(|_| CommandError::FaceNotFound)?)?;
        let routes = self.rib.entry(prefix.to_name()).or_default();
        routes.retain(|r| (r.face_id, r.origin) != (route.face_id, route.origin));
        routes.push(*route);
        Ok(())
    }

    fn rib_unregister(
        &mut self,
        prefix: NameRef<'_>,
        face: FaceId,
        origin: u64,
    ) -> Result<(), CommandError> {
        if let Some(routes) = self.rib.get_mut(&prefix.to_name()) {
            routes.retain(|r| (r.face_id, r.origin) != (u64::from(face), origin));
        }
        Ok(())
    }

    fn rib(&self) -> Vec<RibEntry> {
        self.rib
            .iter()
            .map(|(name, routes)| RibEntry {
                name: name.clone(),
                routes: routes.clone(),
            })
            .collect()
    }

    fn strategy_set(
        &mut self,
        prefix: NameRef<'_>,
        strategy: NameRef<'_>,
    ) -> Result<Name, CommandError> {
        let version = match strategy.to_string().as_str() {
            "/localhost/nfd/strategy/best-route" => 5,
            "/localhost/nfd/strategy/multicast" => 4,
            _ => return Err(CommandError::StrategyNotRegistered),
        };
        let instance = strategy
            .to_name()
            .push_number(ndn_packet::tlv::tt::VERSION_COMPONENT, version);
        self.strategies.insert(prefix.to_name(), instance.clone());
        Ok(instance)
    }

    fn strategy_unset(&mut self, prefix: NameRef<'_>) -> Result<(), CommandError> {
        self.strategies.remove(&prefix.to_name());
        Ok(())
    }

    fn strategy_choices(&self) -> Vec<StrategyChoice> {
        self.strategies
            .iter()
            .map(|(name, strategy)| StrategyChoice {
                name: name.clone(),
                strategy: strategy.clone(),
            })
            .collect()
    }

    fn cs_config(
        &mut self,
        capacity: Option<u64>,
        admit: Option<bool>,
        serve: Option<bool>,
    ) -> Result<CsInfo, CommandError> {
        if let Some(c) = capacity {
            self.cs.capacity = c;
        }
        set_bit(&mut self.cs.flags, cs_flags::ENABLE_ADMIT, admit);
        set_bit(&mut self.cs.flags, cs_flags::ENABLE_SERVE, serve);
        Ok(self.cs)
    }

    fn cs_erase(&mut self, prefix: NameRef<'_>, limit: u64) -> Result<CsErased, CommandError> {
        let mut erased = 0;
        self.cs_names.retain(|n| {
            if erased < limit && prefix.is_prefix_of(n.as_ref()) {
                erased += 1;
                false
            } else {
                true
            }
        });
        let more = self
            .cs_names
            .iter()
            .any(|n| prefix.is_prefix_of(n.as_ref()));
        Ok(CsErased { erased, more })
    }

    fn cs_info(&self) -> CsInfo {
        CsInfo {
            n_cs_entries: self.cs_names.len() as u64,
            ..self.cs
        }
    }

    fn general_status(&self) -> GeneralStatus {
        GeneralStatus {
            nfd_version: "ndnfwd-test".into(),
            start_timestamp: 1_700_000_000_000,
            n_fib_entries: self.fib.len() as u64,
            ..Default::default()
        }
    }

    fn metrics(&self, out: &mut Vec<Sample>) {
        for f in self.faces.values() {
            out.push(
                Sample::new(
                    "ndnfwd_face_in_interests_total",
                    "Interests received on the face",
                    MetricKind::Counter,
                    f.counters.n_in_interests,
                )
                .label("face", f.face_id.to_string()),
            );
        }
        out.push(Sample::new(
            "ndnfwd_cs_entries",
            "Content store entries",
            MetricKind::Gauge,
            self.cs_names.len() as u64,
        ));
    }
}
