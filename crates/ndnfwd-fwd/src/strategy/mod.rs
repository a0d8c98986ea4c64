//! Forwarding strategies behind one trait, and the strategy-choice table that picks one per
//! name prefix.
//!
//! A strategy sees a read-only context (the ingress face, the FIB nexthops, the PIT entry's
//! out-records) and answers with [`Actions`]: faces to send the Interest to, a Nack for the
//! downstreams, or a rejection. The pipelines execute the actions, so a strategy never touches
//! tables or buffers, allocates nothing, and a new strategy (ASF, ...) is one more
//! implementation of [`Strategy`] plus one line in [`instantiate`].
//!
//! Two decisions NFD leaves to strategies are made for all of them here, by the PIT-CS:
//! retransmission suppression (per PIT entry, exponential 10 ms to 100 ms, as NFD's best-route
//! does; a strategy is only told whether the Interest is new or an unsuppressed
//! retransmission), and Nack aggregation (NFD's `ProcessNackTraits`, used by both NFD
//! strategies: wait while an upstream is pending, then Nack the downstreams with the least
//! severe reason).

mod best_route;
mod choice;
mod multicast;

pub use best_route::BestRoute;
pub use choice::{StrategyChoice, StrategyId};
pub use multicast::Multicast;

pub use ndnfwd_fib::NextHop;
pub use ndnfwd_pcct::OutRecordInfo;

use ndn_packet::lp::NackReason;
use ndn_packet::{FaceId, NameRef};

use crate::face::{FaceInfo, FaceTable};

/// Most faces one strategy decision can send an Interest to: every nexthop of a FIB entry.
pub const MAX_FANOUT: usize = ndnfwd_fib::MAX_NEXTHOPS;

/// Name prefix of every strategy name.
pub const STRATEGY_PREFIX: &str = "/localhost/nfd/strategy";

/// Scope class of an Interest name, for NFD's scope rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameScope {
    /// Under `/localhost`: never leaves the host.
    Localhost,
    /// Under `/localhop`: at most one hop away from the host that sent it.
    Localhop,
    /// Anything else.
    Global,
}

/// Wire form of the GenericNameComponent `localhost` (TLV-TYPE 8, TLV-LENGTH 9).
const LOCALHOST: &[u8] = b"\x08\x09localhost";
/// Wire form of the GenericNameComponent `localhop` (TLV-TYPE 8, TLV-LENGTH 8).
const LOCALHOP: &[u8] = b"\x08\x08localhop";

impl NameScope {
    /// The scope class of `name`, from its first component.
    ///
    /// A decoded name holds its VAR-NUMBERs in their shortest form, so a first component that
    /// is the GenericNameComponent `localhost` is exactly the bytes `08 09 localhost` at the
    /// start of the name (`08 08 localhop` likewise): a prefix compare, no TLV walk, on every
    /// Interest and Data. The two candidates' first two bytes (type and length) differ only in
    /// the length's lowest bit, so a global name costs one masked two-byte test; the prefix
    /// compares run out of line.
    #[inline(always)]
    pub fn of(name: NameRef<'_>) -> Self {
        let v = name.value();
        match v.first_chunk::<2>() {
            Some(&h) if u16::from_le_bytes(h) & 0xfeff == 0x0808 => Self::of_local_candidate(v),
            _ => Self::Global,
        }
    }

    /// [`NameScope::of`] of a name starting `08 08` or `08 09`.
    #[cold]
    #[inline(never)]
    fn of_local_candidate(v: &[u8]) -> Self {
        if v.starts_with(LOCALHOST) {
            Self::Localhost
        } else if v.starts_with(LOCALHOP) {
            Self::Localhop
        } else {
            Self::Global
        }
    }
}

/// NFD's `wouldViolateScope`: may an Interest of scope `scope` that came in on `ingress` go
/// out of `egress`?
pub fn would_violate_scope(ingress: FaceInfo, scope: NameScope, egress: FaceInfo) -> bool {
    if egress.is_local() {
        return false;
    }
    match scope {
        NameScope::Localhost => true,
        NameScope::Localhop => !ingress.is_local(),
        NameScope::Global => false,
    }
}

/// [`InterestCtx::is_eligible`] without the out-record test: may an Interest of scope `scope`
/// that came in on `ingress` (whose info is `ingress_info`) go to `face`? Not back to the
/// ingress (unless ad hoc), a known face, no scope violation. The egress face's info when it
/// may. Always inlined: the Interest pipeline's best-route step calls it for every new
/// Interest, and a call costs more than its few compares.
#[inline(always)]
pub(crate) fn eligible_egress(
    faces: &FaceTable,
    ingress: FaceId,
    ingress_info: FaceInfo,
    scope: NameScope,
    face: FaceId,
) -> Option<FaceInfo> {
    let egress = faces.get(face)?;
    if face == ingress && egress.link != ndn_packet::LinkType::AdHoc {
        return None;
    }
    (!would_violate_scope(ingress_info, scope, egress)).then_some(egress)
}

/// Everything a strategy may look at when an Interest arrives (after the CS missed and the PIT
/// entry holds the Interest's in-record).
#[derive(Debug, Clone, Copy)]
pub struct InterestCtx<'a> {
    /// Current time, ns.
    pub now: u64,
    /// The face the Interest came in on.
    pub ingress: FaceId,
    /// Its info.
    pub ingress_info: FaceInfo,
    /// Scope class of the Interest name.
    pub scope: NameScope,
    /// False for a new PIT entry (no out-record yet), true for an unsuppressed retransmission.
    pub retransmission: bool,
    /// FIB nexthops of the longest match (the ForwardingHint's when it had a route), lowest
    /// cost first.
    pub nexthops: &'a [NextHop],
    /// The PIT entry's out-records.
    pub out_records: &'a [OutRecordInfo],
    /// The engine's faces.
    pub faces: &'a FaceTable,
}

impl InterestCtx<'_> {
    /// NFD's `isNextHopEligible`: not back to the ingress (unless ad hoc), a known face, no
    /// scope violation, and with `want_unused`, not tried yet. (An out-record lives as long as
    /// its PIT entry here, because the Interest we send carries the entry's remaining lifetime,
    /// so NFD's "no unexpired out-record" is "no out-record".)
    #[inline]
    pub fn is_eligible(&self, nh: &NextHop, want_unused: bool) -> bool {
        eligible_egress(
            self.faces,
            self.ingress,
            self.ingress_info,
            self.scope,
            nh.face,
        )
        .is_some()
            && !(want_unused && self.out_record(nh.face).is_some())
    }

    /// The out-record toward `face`, if any.
    pub fn out_record(&self, face: FaceId) -> Option<&OutRecordInfo> {
        self.out_records.iter().find(|o| o.face == face)
    }
}

/// A strategy's decision, executed by the pipelines: faces to send the Interest to, or a Nack
/// for every downstream. Neither means the entry waits (for a retransmission or expiry).
#[derive(Debug, Clone, Copy)]
pub struct Actions {
    sends: [FaceId; MAX_FANOUT],
    n: u8,
    nack: Option<NackReason>,
}

impl PartialEq for Actions {
    fn eq(&self, other: &Self) -> bool {
        self.sends() == other.sends() && self.nack == other.nack
    }
}

impl Eq for Actions {}

impl Default for Actions {
    fn default() -> Self {
        Self::new()
    }
}

impl Actions {
    /// No action.
    pub const fn new() -> Self {
        Self {
            sends: [0; MAX_FANOUT],
            n: 0,
            nack: None,
        }
    }

    /// Clears every action (the engine reuses one value).
    pub fn clear(&mut self) {
        self.n = 0;
        self.nack = None;
    }

    /// Sends the Interest to `face` (outgoing Interest pipeline). False when the fan-out is
    /// already [`MAX_FANOUT`] faces.
    pub fn send_interest(&mut self, face: FaceId) -> bool {
        match self.sends.get_mut(usize::from(self.n)) {
            Some(slot) => {
                *slot = face;
                self.n += 1;
                true
            }
            None => false,
        }
    }

    /// Nacks every downstream with `reason` and finalizes the PIT entry.
    pub fn nack_downstreams(&mut self, reason: NackReason) {
        self.nack = Some(reason);
    }

    /// Faces to send the Interest to.
    pub fn sends(&self) -> &[FaceId] {
        self.sends.get(..usize::from(self.n)).unwrap_or_default()
    }

    /// The Nack reason asked for, if any.
    pub fn nack(&self) -> Option<NackReason> {
        self.nack
    }
}

/// A forwarding strategy. One instance per engine (per worker), so `&mut self` state needs no
/// synchronization.
pub trait Strategy: Send {
    /// The strategy's NFD name without version, e.g. `/localhost/nfd/strategy/best-route`.
    fn name(&self) -> &'static str;

    /// Version, the `v=` component of the full strategy name.
    fn version(&self) -> u64;

    /// An Interest missed the CS and its in-record is in the PIT entry: decide where it goes.
    fn after_receive_interest(&mut self, ctx: &InterestCtx<'_>, act: &mut Actions);

    /// True when this strategy's decision for a new Interest (a new PIT entry, so no
    /// out-record and not a retransmission) is always best-route's: send it to the first
    /// eligible nexthop ([`InterestCtx::is_eligible`] without `want_unused`, lowest cost
    /// first), or Nack NoRoute when none is. The engine then applies that rule itself, without
    /// building the context or calling [`Strategy::after_receive_interest`]. Read once, when
    /// the engine adds the instance: the answer must not change.
    fn new_interest_to_first_eligible(&self) -> bool {
        false
    }
}

/// Why a strategy name was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrategyError {
    /// No strategy with that name (or version) exists.
    Unknown,
    /// The strategy-choice table has no room for another prefix.
    TableFull,
    /// The root entry cannot be unset.
    RootUnset,
    /// The engine already holds the most strategy instances a [`StrategyId`] can name.
    TooManyInstances,
}

impl core::fmt::Display for StrategyError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Unknown => "unknown strategy",
            Self::TableFull => "strategy-choice table full",
            Self::RootUnset => "the root strategy choice cannot be unset",
            Self::TooManyInstances => "too many strategy instances",
        })
    }
}

impl std::error::Error for StrategyError {}

/// Creates the strategy named `name`: `/localhost/nfd/strategy/<short>` optionally followed by
/// `v=<version>` (which must then be the implemented one).
pub fn instantiate(name: &str) -> Result<Box<dyn Strategy>, StrategyError> {
    let rest = name
        .strip_prefix(STRATEGY_PREFIX)
        .and_then(|r| r.strip_prefix('/'))
        .ok_or(StrategyError::Unknown)?;
    let (short, version) = match rest.split_once('/') {
        Some((s, v)) => {
            let v = v.strip_prefix("v=").and_then(|v| v.parse::<u64>().ok());
            (s, Some(v.ok_or(StrategyError::Unknown)?))
        }
        None => (rest, None),
    };
    let s: Box<dyn Strategy> = match short {
        "best-route" => Box::new(BestRoute::new()),
        "multicast" => Box::new(Multicast::new()),
        _ => return Err(StrategyError::Unknown),
    };
    match version {
        Some(v) if v != s.version() => Err(StrategyError::Unknown),
        _ => Ok(s),
    }
}

/// The full name of a strategy instance, `<name>/v=<version>`.
pub fn full_name(s: &dyn Strategy) -> String {
    format!("{}/v={}", s.name(), s.version())
}

#[cfg(test)]
mod tests;
