//! The forwarder as management sees it: one trait with the operations behind every command and
//! dataset, in terms of the plain record types of [`crate::records`].
//!
//! The daemon implements [`MgmtBackend`] by delegating to its face table, RIB/FIB, strategy
//! table and content store; tests use an in-memory fake. Validation of parameters, defaults,
//! self-registration (FaceId 0) and the mapping of errors to status codes happen in the
//! dispatcher, so an implementation only performs the operation.

use ndn_packet::{FaceId, Name, NameRef};

use crate::metrics::Sample;
use crate::records::{
    ChannelStatus, CsInfo, FacePersistency, FaceStatus, FibEntry, GeneralStatus, RibEntry, Route,
    StrategyChoice,
};

/// Why the forwarder refused or failed an operation. The dispatcher turns each into NFD's status
/// code for the command at hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommandError {
    /// The face does not exist (404 for faces/update, 410 elsewhere).
    FaceNotFound,
    /// The FaceUri could not be parsed (400).
    MalformedUri,
    /// The FaceUri is not in canonical form (400).
    NonCanonicalUri,
    /// No transport handles this FaceUri scheme (406).
    UnsupportedProtocol,
    /// faces/update asked for a change the face does not allow, such as a persistency the
    /// transport cannot take or local fields on a non-local face (409).
    InvalidProperties,
    /// The transport could not reach the remote endpoint (504).
    ConnectFailed,
    /// No strategy of that name is available (404).
    StrategyNotRegistered,
    /// A table is full (503).
    TableFull,
    /// The forwarder does not support this operation (501).
    Unsupported,
    /// Anything else (500).
    Internal,
}

/// Face properties requested by faces/create and faces/update (absent: unchanged, or the
/// transport's default on create).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaceParams {
    /// Persistency (faces/create defaults it to persistent).
    pub persistency: Option<FacePersistency>,
    /// Congestion marking base interval in nanoseconds.
    pub base_congestion_marking_interval: Option<u64>,
    /// Congestion threshold in bytes.
    pub default_congestion_threshold: Option<u64>,
    /// MTU override in bytes.
    pub mtu: Option<u64>,
    /// NDNLPv2 local fields on or off.
    pub local_fields: Option<bool>,
    /// NDNLPv2 reliability on or off.
    pub lp_reliability: Option<bool>,
    /// Congestion marking on or off.
    pub congestion_marking: Option<bool>,
}

/// Result of faces/create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaceCreated {
    /// The face (new, or the one that already had this remote endpoint).
    pub face: FaceStatus,
    /// True when the face existed before (NFD answers 409 with its description).
    pub existed: bool,
}

/// Result of cs/erase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsErased {
    /// Entries erased.
    pub erased: u64,
    /// True when entries under the prefix remain because the limit was reached.
    pub more: bool,
}

/// Everything management needs from the forwarder.
pub trait MgmtBackend {
    /// Creates a face to `uri` (from `local_uri` when given).
    fn face_create(
        &mut self,
        uri: &str,
        local_uri: Option<&str>,
        params: &FaceParams,
    ) -> Result<FaceCreated, CommandError>;

    /// Changes the properties of `face`; returns its new description.
    fn face_update(
        &mut self,
        face: FaceId,
        params: &FaceParams,
    ) -> Result<FaceStatus, CommandError>;

    /// Closes `face`. A face that does not exist is not an error (NFD answers 200).
    fn face_destroy(&mut self, face: FaceId) -> Result<(), CommandError>;

    /// All faces, for `faces/list` and `faces/query`.
    fn faces(&self) -> Vec<FaceStatus>;

    /// All listening channels, for `faces/channels`.
    fn channels(&self) -> Vec<ChannelStatus>;

    /// Adds or updates the next hop `face` with `cost` on the FIB entry `prefix`.
    fn fib_add_nexthop(
        &mut self,
        prefix: NameRef<'_>,
        face: FaceId,
        cost: u64,
    ) -> Result<(), CommandError>;

    /// Removes the next hop; a missing entry or next hop is not an error.
    fn fib_remove_nexthop(&mut self, prefix: NameRef<'_>, face: FaceId)
        -> Result<(), CommandError>;

    /// All FIB entries, for `fib/list`.
    fn fib(&self) -> Vec<FibEntry>;

    /// Adds or replaces the route (`face`, `origin`) of `prefix`; `route.expiration_period` is
    /// in milliseconds from now.
    fn rib_register(&mut self, prefix: NameRef<'_>, route: &Route) -> Result<(), CommandError>;

    /// Removes the route (`face`, `origin`); a missing route is not an error.
    fn rib_unregister(
        &mut self,
        prefix: NameRef<'_>,
        face: FaceId,
        origin: u64,
    ) -> Result<(), CommandError>;

    /// All RIB entries, for `rib/list`.
    fn rib(&self) -> Vec<RibEntry>;

    /// Sets the strategy of `prefix`; returns the instance name with its version
    /// (`/localhost/nfd/strategy/best-route/v=5`).
    fn strategy_set(
        &mut self,
        prefix: NameRef<'_>,
        strategy: NameRef<'_>,
    ) -> Result<Name, CommandError>;

    /// Removes the strategy choice of `prefix` (never `/`); a missing one is not an error.
    fn strategy_unset(&mut self, prefix: NameRef<'_>) -> Result<(), CommandError>;

    /// All strategy choices, for `strategy-choice/list`.
    fn strategy_choices(&self) -> Vec<StrategyChoice>;

    /// Applies cs/config: a new capacity, and admit/serve switches; returns the resulting state
    /// (`capacity` and `flags` are used).
    fn cs_config(
        &mut self,
        capacity: Option<u64>,
        admit: Option<bool>,
        serve: Option<bool>,
    ) -> Result<CsInfo, CommandError>;

    /// Erases at most `limit` CS entries under `prefix`.
    fn cs_erase(&mut self, prefix: NameRef<'_>, limit: u64) -> Result<CsErased, CommandError>;

    /// CS state and counters, for `cs/info`.
    fn cs_info(&self) -> CsInfo;

    /// Forwarder version, start time and global counters, for `status/general`.
    fn general_status(&self) -> GeneralStatus;

    /// Appends metric samples (per-face and per-worker counters, table sizes, drops by reason)
    /// for the Prometheus exposition.
    fn metrics(&self, out: &mut Vec<Sample>);
}
