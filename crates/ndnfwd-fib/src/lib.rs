//! ndnfwd's FIB: a control-plane RIB of full names that computes each prefix's nexthops with
//! NFD's route semantics, and a data-plane FIB that workers query lock-free.
//!
//! Contract: the data-plane FIB maps every prefix of an Interest name to at most one *real*
//! prefix, the longest one with an entry, using one of three LPM algorithms chosen by
//! configuration and switchable at run time ([`LpmAlgorithm`]): longest-first, seed 000's
//! two-stage lookup (virtual entries at depth M carrying MD), or seed 001's binary search over
//! prefix lengths (markers carrying the depth of their best matching real prefix, so at most
//! `ceil(log2(k + 1))` probes plus one to fetch a marker's answer, for FIB depth `k`, whatever the
//! name's length). Prefixes are identified by the keyed 128-bit SipHash identity
//! ([`ndn_packet::PrefixHashes::id128`]), never by stored names: an entry is 24 bytes shared by
//! a real prefix and up to two auxiliary records, and nexthop sets are deduplicated. There is one
//! [`FibWriter`] (not `Clone`) and any number of [`FibReader`]s (one per worker thread, `Send`,
//! not `Sync`); readers never block, and whatever the writer removes is reused only after every
//! online reader has passed a quiescent point ([`qsbr`]). The [`Rib`] drives a `FibWriter`;
//! [`bulk`] loads a static FIB straight from a name stream for benchmarks of hundreds of
//! millions of prefixes; [`bench`](mod@bench) measures lookups.
#![deny(unsafe_code)]

pub mod bench;
pub mod bulk;
mod entry;
pub mod lpm;
mod nexthop;
mod ops;
pub mod qsbr;
mod reader;
pub mod rib;
mod spec;
mod store;
mod writer;

pub use lpm::{choose_m, LpmAlgorithm, LpmConfig, MHeuristic, MAX_DEPTH};
pub use nexthop::{NextHop, StrategyId, MAX_NEXTHOPS};
pub use reader::{FibHandle, FibMatch, FibMemory, FibReader, LookupTrace};
pub use rib::{Rib, Route, RouteFlags};
pub use spec::FibHint;
pub use writer::{FibConfig, FibWriter, WriterStats, SHRINK_AFTER};

/// Why a FIB update failed. The FIB stays consistent for every other prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FibError {
    /// The prefix has more than [`MAX_DEPTH`] components.
    TooDeep,
    /// The bucket table's overflow pool is exhausted.
    TableFull,
    /// The entry store is full.
    EntriesFull,
    /// The nexthop-set store is full.
    SetsFull,
    /// M must be in `1 ..= MAX_DEPTH`.
    InvalidM,
    /// Memory for the table could not be mapped.
    OutOfMemory,
}

impl core::fmt::Display for FibError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            FibError::TooDeep => "prefix deeper than the FIB supports",
            FibError::TableFull => "FIB bucket table full",
            FibError::EntriesFull => "FIB entry store full",
            FibError::SetsFull => "FIB nexthop-set store full",
            FibError::InvalidM => "two-stage M out of range",
            FibError::OutOfMemory => "cannot map FIB memory",
        })
    }
}

impl std::error::Error for FibError {}
