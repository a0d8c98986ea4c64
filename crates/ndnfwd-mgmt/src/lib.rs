//! NFD's management protocol for ndnfwd: the forwarder side (command dispatch, command-Interest
//! verification, status datasets, the face event stream), the metrics exposition, and the client
//! side used by `ndnfwd ctl`.
//!
//! Contract: [`Manager::handle_interest`] takes one Interest under `/localhost/nfd` (or
//! `/localhop/nfd` when enabled), the face it came from and the current time, and returns what to
//! send back ([`Outcome`]): a signed Data carrying a ControlResponse or a dataset segment, a
//! counted drop, or nothing yet (a face-event subscriber waiting for the next event). It reads no
//! clock and does no I/O; the forwarder's state is reached only through the [`MgmtBackend`]
//! trait, which the daemon implements over its face table, RIB/FIB, strategy table and content
//! store. Every wire decoder here is a checked constructor that never panics and reports a small
//! `Copy` error; protocol errors are answered with NFD's status codes, and every request that gets
//! no answer is counted by reason in [`MgmtCounters`]. The wire formats, field orders, status
//! codes, defaults, 8000-byte dataset segments and one-second freshness follow NFD and ndn-cxx so
//! that `nfdc`, python-ndn and ndn-cxx clients work unchanged; the deviations are listed in the
//! crate README.
#![deny(unsafe_code)]
#![deny(clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]
#![cfg_attr(
    test,
    allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)
)]

pub mod auth;
pub mod backend;
pub mod client;
mod commands;
mod datasets;
mod dispatch;
pub mod http;
pub mod metrics;
pub mod params;
pub mod records;
pub mod response;
pub mod tt;

#[cfg(test)]
mod fake;
#[cfg(test)]
mod fixtures;

pub use auth::{HmacKey, LocalTrust};
pub use backend::{CommandError, CsErased, FaceCreated, FaceParams, MgmtBackend};
pub use dispatch::{DropReason, Manager, MgmtConfig, MgmtCounters, Now, Outcome, RequestFace};
pub use params::{ControlParameters, Field};
pub use response::ControlResponse;
