//! The management dispatcher: classifies an Interest under `/localhost/nfd` or `/localhop/nfd`,
//! authorizes and runs commands, serves datasets and the face event stream, and counts what it
//! does not answer.
//!
//! Order for a command, as in ndn-cxx: parse the ControlParameters component (missing or
//! malformed: 400, where NFD stays silent), authorize (403), validate the fields for the verb
//! (400), apply defaults, run. Scope, as NFD's forwarder enforces it: `/localhost` Interests from
//! non-local faces are dropped; `/localhop/nfd` is served only when enabled, and then only the
//! `rib` commands, each signed by a trusted key.

use std::collections::BTreeMap;

use bytes::Bytes;
use ndn_packet::data::{content_type, DataBuilder};
use ndn_packet::interest::Interest;
use ndn_packet::{FaceId, Name, NameRef};
use serde::Serialize;

use crate::auth::{Authenticator, CommandInterest, HmacKey, LocalTrust};
use crate::backend::MgmtBackend;
use crate::commands::{self, CommandSpec};
use crate::datasets::{self, DatasetCache, EventStream, StreamAnswer, FRESHNESS_MS};
use crate::metrics::{MetricKind, Sample};
use crate::params::ControlParameters;
use crate::records::{FaceEventNotification, Record};
use crate::response::ControlResponse;

/// The current time, passed in by the caller: a monotonic clock for ages and the wall clock for
/// command timestamps and dataset versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    /// Nanoseconds from an arbitrary monotonic epoch.
    pub mono_ns: u64,
    /// Milliseconds since the Unix epoch.
    pub unix_ms: u64,
}

/// The face an Interest arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestFace {
    /// Its id (the target of FaceId 0).
    pub id: FaceId,
    /// Whether its scope is local.
    pub local: bool,
}

/// Why an Interest under a management prefix got no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    /// The Interest did not decode.
    BadInterest,
    /// A `/localhost` Interest from a non-local face.
    LocalhostFromNonLocal,
    /// A `/localhop/nfd` Interest while localhop management is disabled.
    LocalhopDisabled,
    /// A dataset Interest for a version or segment that is no longer (or never was) cached.
    DatasetNotCached,
    /// A response could not be encoded.
    EncodeError,
}

impl DropReason {
    /// Stable name for counters and logs.
    pub const fn name(self) -> &'static str {
        match self {
            Self::BadInterest => "bad_interest",
            Self::LocalhostFromNonLocal => "localhost_from_non_local",
            Self::LocalhopDisabled => "localhop_disabled",
            Self::DatasetNotCached => "dataset_not_cached",
            Self::EncodeError => "encode_error",
        }
    }
}

/// What to do with an Interest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Send this signed Data back on the requesting face.
    Reply(Bytes),
    /// Nothing yet: a face event subscriber waiting for the next event (keep the Interest in
    /// the PIT; [`Manager::post_face_event`] produces the Data that satisfies it).
    Wait,
    /// Nothing, ever; counted under the reason.
    Drop(DropReason),
    /// Not under a management prefix: forward it as usual.
    NotManagement,
}

/// Management configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MgmtConfig {
    /// Serve `rib` commands under `/localhop/nfd` to non-local faces (off by default).
    pub localhop: bool,
    /// Who may issue commands from local faces.
    pub local_trust: LocalTrust,
    /// Keys trusted to sign commands (required under `/localhop/nfd` and with
    /// [`LocalTrust::TrustedKeys`]).
    pub hmac_keys: Vec<HmacKey>,
    /// How far a command timestamp may be from the wall clock, in ms (ndn-cxx: 2 minutes).
    pub grace_period_ms: u64,
    /// Signers whose last timestamp is remembered (ndn-cxx: 1000).
    pub max_signer_records: usize,
    /// How long a signer's last timestamp is remembered, in ms (ndn-cxx: 1 hour).
    pub signer_record_lifetime_ms: u64,
    /// Dataset segment payload size in bytes (ndn-cxx: 8800 - 800 = 8000).
    pub segment_size: usize,
    /// Datasets kept for segment and version requests.
    pub dataset_cache_entries: usize,
    /// How long a produced dataset answers version and segment requests, in ms.
    pub dataset_cache_lifetime_ms: u64,
    /// Face event notifications kept for subscribers asking by sequence number.
    pub notification_history: usize,
}

impl Default for MgmtConfig {
    fn default() -> Self {
        Self {
            localhop: false,
            local_trust: LocalTrust::AcceptAll,
            hmac_keys: Vec::new(),
            grace_period_ms: 120_000,
            max_signer_records: 1000,
            signer_record_lifetime_ms: 3_600_000,
            segment_size: 8000,
            dataset_cache_entries: 16,
            dataset_cache_lifetime_ms: 5000,
            notification_history: 64,
        }
    }
}

/// What management did, by outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MgmtCounters {
    /// Commands answered 200.
    pub commands_ok: u64,
    /// Commands the forwarder answered with an error code (404, 409, 410, 414, 5xx...).
    pub commands_failed: u64,
    /// Commands answered 400 because ControlParameters was missing or undecodable.
    pub malformed_params: u64,
    /// Commands answered 400 because a field was missing, forbidden or invalid for the verb.
    pub invalid_params: u64,
    /// Commands answered 403, by [`AuthError`](crate::auth::AuthError) name.
    pub unauthorized: BTreeMap<&'static str, u64>,
    /// Interests answered 501 (no such module or verb here).
    pub unknown_commands: u64,
    /// Datasets generated.
    pub datasets_generated: u64,
    /// Dataset segments answered from the cache.
    pub dataset_cache_hits: u64,
    /// Dataset requests rejected (malformed face query filter).
    pub datasets_rejected: u64,
    /// Face event notifications posted.
    pub notifications_posted: u64,
    /// Face event Interests left waiting.
    pub notification_waits: u64,
    /// Interests dropped, by [`DropReason`] name.
    pub drops: BTreeMap<&'static str, u64>,
}

impl MgmtCounters {
    /// Appends the counters as metric samples (`ndnfwd_mgmt_*`).
    pub fn samples(&self, out: &mut Vec<Sample>) {
        let counter = |name: &str, help: &'static str, value: u64| Sample {
            name: format!("ndnfwd_mgmt_{name}"),
            help,
            kind: MetricKind::Counter,
            labels: Vec::new(),
            value,
        };
        out.extend([
            counter(
                "commands_ok_total",
                "Control commands answered 200",
                self.commands_ok,
            ),
            counter(
                "commands_failed_total",
                "Control commands the forwarder failed",
                self.commands_failed,
            ),
            counter(
                "malformed_params_total",
                "Commands with missing or malformed ControlParameters",
                self.malformed_params,
            ),
            counter(
                "invalid_params_total",
                "Commands with parameters invalid for the verb",
                self.invalid_params,
            ),
            counter(
                "unknown_commands_total",
                "Interests for an unknown module or verb",
                self.unknown_commands,
            ),
            counter(
                "datasets_generated_total",
                "Status datasets generated",
                self.datasets_generated,
            ),
            counter(
                "dataset_cache_hits_total",
                "Dataset segments served from the cache",
                self.dataset_cache_hits,
            ),
            counter(
                "notifications_posted_total",
                "Face event notifications posted",
                self.notifications_posted,
            ),
        ]);
        for (reason, &n) in &self.unauthorized {
            let mut s = counter("unauthorized_total", "Commands answered 403", n);
            s.labels.push(("reason".into(), (*reason).into()));
            out.push(s);
        }
        for (reason, &n) in &self.drops {
            let mut s = counter("drops_total", "Management Interests dropped", n);
            s.labels.push(("reason".into(), (*reason).into()));
            out.push(s);
        }
    }
}

/// Which management prefix an Interest is under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Top {
    Localhost,
    Localhop,
}

fn top_prefix(name: NameRef<'_>) -> Option<Top> {
    let mut c = name.components();
    let first = c.next()?;
    let second = c.next()?;
    if first.typ() != ndn_packet::tlv::tt::GENERIC_COMPONENT || second.value() != b"nfd" {
        return None;
    }
    match first.value() {
        b"localhost" => Some(Top::Localhost),
        b"localhop" => Some(Top::Localhop),
        _ => None,
    }
}

/// The forwarder's management endpoint. One per forwarder; not shared between threads.
#[derive(Debug)]
pub struct Manager {
    config: MgmtConfig,
    auth: Authenticator,
    datasets: DatasetCache,
    events: EventStream,
    counters: MgmtCounters,
}

impl Manager {
    /// A manager with `config`.
    pub fn new(config: MgmtConfig) -> Self {
        let auth = Authenticator::new(
            config.hmac_keys.clone(),
            config.grace_period_ms,
            config.max_signer_records,
            config.signer_record_lifetime_ms.saturating_mul(1_000_000),
        );
        let datasets = DatasetCache::new(
            config.dataset_cache_entries,
            config.dataset_cache_lifetime_ms.saturating_mul(1_000_000),
        );
        let events = EventStream::new(config.notification_history);
        Self {
            config,
            auth,
            datasets,
            events,
            counters: MgmtCounters::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &MgmtConfig {
        &self.config
    }

    /// What has been done so far.
    pub fn counters(&self) -> &MgmtCounters {
        &self.counters
    }

    /// Handles one Interest (its whole TLV) from `face`.
    pub fn handle_interest(
        &mut self,
        backend: &mut dyn MgmtBackend,
        wire: &[u8],
        face: RequestFace,
        now: Now,
    ) -> Outcome {
        let Ok(interest) = Interest::new_checked(wire) else {
            return self.drop(DropReason::BadInterest);
        };
        let name = interest.name();
        let Some(top) = top_prefix(name) else {
            return Outcome::NotManagement;
        };
        match top {
            Top::Localhost if !face.local => return self.drop(DropReason::LocalhostFromNonLocal),
            Top::Localhop if !self.config.localhop => {
                return self.drop(DropReason::LocalhopDisabled)
            }
            _ => {}
        }
        let word = |i: usize| {
            name.get(i)
                .filter(|c| c.typ() == ndn_packet::tlv::tt::GENERIC_COMPONENT)
                .map(|c| c.value())
                .unwrap_or_default()
        };
        let (module, verb) = (word(2), word(3));
        if let Some(spec) = commands::lookup(module, verb) {
            if top == Top::Localhost || spec.module == "rib" {
                return self.command(backend, spec, &interest, face, top, now);
            }
        } else if top == Top::Localhost {
            if let Some(ds) = datasets::lookup(module, verb) {
                return self.dataset(backend, ds, &interest, now);
            }
            if (module, verb) == (b"faces".as_slice(), b"events".as_slice()) {
                return match self.events.answer(&interest, 4, now.mono_ns) {
                    StreamAnswer::Data(d) => Outcome::Reply(d),
                    StreamAnswer::Wait => {
                        self.counters.notification_waits += 1;
                        Outcome::Wait
                    }
                };
            }
        }
        self.counters.unknown_commands += 1;
        self.respond(
            name,
            &ControlResponse::new(501, "Unsupported command"),
            false,
        )
    }

    fn command(
        &mut self,
        backend: &mut dyn MgmtBackend,
        spec: &CommandSpec,
        interest: &Interest<'_>,
        face: RequestFace,
        top: Top,
        now: Now,
    ) -> Outcome {
        let name = interest.name();
        let ci = CommandInterest::parse(interest);
        let params = ci
            .as_ref()
            .ok()
            .and_then(|ci| ci.params)
            .and_then(|c| ControlParameters::new_checked(c.value()).ok());
        let Some(params) = params else {
            self.counters.malformed_params += 1;
            let r = ControlResponse::new(400, "Malformed ControlParameters");
            return self.respond(name, &r, false);
        };
        let require_key =
            top == Top::Localhop || self.config.local_trust == LocalTrust::TrustedKeys;
        let authorized = ci.and_then(|ci| self.auth.authorize(&ci, require_key, face.id, now));
        if let Err(e) = authorized {
            *self.counters.unauthorized.entry(e.name()).or_default() += 1;
            let r = ControlResponse::new(403, "authorization rejected");
            return self.respond(name, &r, false);
        }
        if let Err(text) = spec.validate(&params) {
            self.counters.invalid_params += 1;
            return self.respond(name, &ControlResponse::new(400, text), false);
        }
        let r = spec.execute(params, face, backend);
        if r.is_ok() {
            self.datasets.state_changed();
            self.counters.commands_ok += 1;
        } else {
            self.counters.commands_failed += 1;
        }
        self.respond(name, &r, false)
    }

    fn dataset(
        &mut self,
        backend: &dyn MgmtBackend,
        ds: datasets::Dataset,
        interest: &Interest<'_>,
        now: Now,
    ) -> Outcome {
        let name = interest.name();
        if datasets::is_versioned(name) {
            return match self.datasets.find(interest, now.mono_ns) {
                Some(d) => {
                    self.counters.dataset_cache_hits += 1;
                    Outcome::Reply(d)
                }
                None => self.drop(DropReason::DatasetNotCached),
            };
        }
        if let Some(d) = self.datasets.fresh_first(name, now.mono_ns) {
            self.counters.dataset_cache_hits += 1;
            return Outcome::Reply(d);
        }
        let content = match ds.content(backend, name, now.unix_ms) {
            Ok(c) => c,
            Err(datasets::MalformedFilter) => {
                self.counters.datasets_rejected += 1;
                let r = ControlResponse::new(400, "malformed filter");
                return self.respond(name, &r, true);
            }
        };
        let version = self.datasets.next_version(now.unix_ms);
        let prefix = name.to_name();
        let Ok(segments) = datasets::segment(&prefix, version, &content, self.config.segment_size)
        else {
            return self.drop(DropReason::EncodeError);
        };
        let Some(first) = segments.first().cloned() else {
            return self.drop(DropReason::EncodeError);
        };
        self.counters.datasets_generated += 1;
        self.datasets.insert(prefix, version, now.mono_ns, segments);
        Outcome::Reply(first)
    }

    /// Wraps `event` as the next Data of `/localhost/nfd/faces/events`; the caller injects it
    /// into the forwarder so it satisfies waiting subscribers. Later subscribers asking for its
    /// sequence number get it from the kept history.
    pub fn post_face_event(
        &mut self,
        event: &FaceEventNotification,
        now: Now,
    ) -> Result<Bytes, ndn_packet::DecodeError> {
        let mut record = Vec::with_capacity(64);
        event.encode_to(&mut record);
        let stream = Name::from_uri("/localhost/nfd/faces/events")?;
        let d = self.events.post(&stream, record, now.mono_ns)?;
        self.counters.notifications_posted += 1;
        Ok(d)
    }

    /// A Data named `name` carrying `r` (ContentType Nack for rejected dataset requests, as
    /// ndn-cxx marks them), signed with DigestSha256.
    fn respond(&mut self, name: NameRef<'_>, r: &ControlResponse, nack: bool) -> Outcome {
        let mut d = DataBuilder::new(name.to_name())
            .freshness_period(FRESHNESS_MS)
            .content(r.encode());
        if nack {
            d = d.content_type(content_type::NACK);
        }
        match d.encode() {
            Ok(w) => Outcome::Reply(Bytes::from(w)),
            Err(_) => self.drop(DropReason::EncodeError),
        }
    }

    fn drop(&mut self, reason: DropReason) -> Outcome {
        *self.counters.drops.entry(reason.name()).or_default() += 1;
        Outcome::Drop(reason)
    }
}

#[cfg(test)]
#[path = "dispatch_tests.rs"]
mod tests;
