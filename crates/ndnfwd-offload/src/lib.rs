//! The switch tier of seed 003 (Takemasa et al., "Toward 10 Tbps NDN forwarding with billion
//! prefixes by programmable switches"): Data is forwarded from a compact hashed PIT, Interests
//! by the computer that holds the FIB and the name-based PIT.
//!
//! - [`HashedPit`]: the switch's PIT as the seed lays it out (D1, D2): `2^bits` slots keyed by a
//!   truncated keyed name hash; the in-face record and the pending counter in separate stage
//!   arrays; an Interest is recorded at the switch when its hash is new, otherwise only at the
//!   computer; Data leaves from the switch alone only when exactly one Interest is pending.
//! - [`FrontTier`]: that PIT in front of an [`ndnfwd_fwd::Engine`] (the computer), with the
//!   engine's `process(now, burst, out)` shape; it never sends Data to a face that did not ask.
//! - [`share`]: the share of Data the switch forwards alone on a seed-like workload.
//! - [`estimate`]: the seed's throughput model (ideal number of computers, router throughput).
//! - [`xdp`]: the same hashed PIT as BPF maps and an XDP program on Linux interfaces, built
//!   with a typed instruction builder and loaded with `bpf(2)`, no external toolchain.
#![deny(unsafe_code)]

pub mod estimate;
mod front;
mod hashed_pit;
pub mod share;
pub mod xdp;

pub use front::{FrontCounters, FrontTier};
pub use hashed_pit::{DataVerdict, HashedPit, PitCounters, SlotRecord, SEED_HASH_BITS};
