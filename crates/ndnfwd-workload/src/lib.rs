//! Deterministic NDN name workloads for the FIB and engine benchmarks, the traffic generator and
//! tests.
//!
//! Contract: every generated name is a pure function of `(seed, index)` — a counter-based
//! SplitMix64 stream per name — so workloads of 10^8 and more names are streamed and re-generated
//! on demand instead of stored: a benchmark inserts prefixes `0..n` on the fly and later
//! regenerates exactly the Interest names it needs. [`NameSource::prefix_into`] and
//! [`NameSource::interest_into`] write a Name TLV-VALUE into a caller's reusable buffer and do not
//! allocate once the buffer has grown; [`NameSource::prefix`] and [`NameSource::interest`] return
//! owned [`Name`]s for convenience. Workloads: [`So`] (seed 000 §4.1 name shapes), [`Yuan`]
//! (seed 001 §3.3.1 worst-case datasets with the two-phase split and a table-free shuffled lookup
//! order, [`Permutation`]), [`Real`] (a name file, plain or gzip, loaded once; bad lines are
//! counted, never fatal) and [`NoMatch`] (names that match nothing, including 200-component DoS
//! names). [`WorkloadSpec`] parses `so`, `yuan7`, `yuan15`, `real:PATH`. Nothing here reads a
//! clock or the OS random source; only [`Real`] does I/O.
#![deny(unsafe_code)]

mod error;
mod nomatch;
mod permute;
mod popularity;
mod real;
mod rng;
mod so;
mod spec;
mod text;
mod traffic;
mod yuan;

pub use error::WorkloadError;
pub use nomatch::{NoMatch, LONG_COMPONENTS, NO_MATCH_MARK};
pub use permute::Permutation;
pub use popularity::Popularity;
pub use real::{LoadReport, Real};
pub use so::So;
pub use spec::{Params, Workload, WorkloadSpec, DEFAULT_PREFIXES};
pub use traffic::{
    producer_rule, ConsumerPattern, GenToken, PatternError, PatternMix, Pick, ProducerPattern,
    Reply, Signing, Suffix, GEN_TOKEN_LEN, MAX_PATTERNS, NULL_SIGNATURE_TYPE,
};
pub use yuan::Yuan;

use ndn_packet::{Name, NameRef};
use serde::Serialize;

/// A workload: FIB prefixes `0..prefix_count()` and an unbounded stream of Interest names.
///
/// Every method is a pure function of the generator's parameters and its index argument; none
/// keeps state between calls, so any thread may generate any index at any time.
pub trait NameSource {
    /// Number of FIB prefixes.
    fn prefix_count(&self) -> u64;

    /// Clears `out`, then writes the Name TLV-VALUE (the component TLVs) of prefix `i`.
    fn prefix_into(&self, i: u64, out: &mut Vec<u8>);

    /// Clears `out`, then writes the Name TLV-VALUE of Interest `i` (any `i`).
    fn interest_into(&self, i: u64, out: &mut Vec<u8>);

    /// Index of the FIB prefix that Interest `i` extends. The Interest's longest FIB match is that
    /// prefix or, if the FIB holds one, a longer prefix of the Interest.
    fn interest_prefix(&self, i: u64) -> u64;

    /// Prefix `i` as an owned name.
    fn prefix(&self, i: u64) -> Name {
        let mut out = Vec::new();
        self.prefix_into(i, &mut out);
        owned(out)
    }

    /// Interest `i` as an owned name.
    fn interest(&self, i: u64) -> Name {
        let mut out = Vec::new();
        self.interest_into(i, &mut out);
        owned(out)
    }

    /// Shape statistics over `sample` prefixes spread evenly over `0..prefix_count()` (all of
    /// them when there are fewer) and Interests `0..sample`.
    fn describe(&self, sample: u64) -> Stats {
        let n = self.prefix_count();
        let taken = sample.min(n);
        let mut buf = Vec::with_capacity(256);
        let mut prefixes = Tally::default();
        for j in 0..taken {
            // Evenly spaced indices; u128 avoids overflow for huge n.
            let i = (u128::from(j) * u128::from(n) / u128::from(taken)) as u64;
            self.prefix_into(i, &mut buf);
            prefixes.add(&buf);
        }
        let mut interests = Tally::default();
        for i in 0..sample {
            self.interest_into(i, &mut buf);
            interests.add(&buf);
        }
        Stats {
            prefixes: n,
            sampled: taken,
            prefix_components: prefixes.mean_components(),
            prefix_component_len: prefixes.mean_component_len(),
            prefix_bytes: prefixes.mean_bytes(),
            interest_components: interests.mean_components(),
            interest_component_len: interests.mean_component_len(),
            interest_bytes: interests.mean_bytes(),
            invalid: prefixes.invalid + interests.invalid,
        }
    }
}

/// Generators only emit validated component TLVs (random, from fixed tables, or copied from names
/// that parsed); the unit and integration tests check every shape with `NameRef::new_checked`.
fn owned(value: Vec<u8>) -> Name {
    Name::from_value(value).expect("generated names are valid Name TLV-VALUEs")
}

/// Name-shape statistics of a workload sample ([`NameSource::describe`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Stats {
    /// FIB prefixes in the workload.
    pub prefixes: u64,
    /// Prefixes (and Interests) sampled.
    pub sampled: u64,
    /// Mean components per prefix.
    pub prefix_components: f64,
    /// Mean value bytes per prefix component (total value bytes / total components, the
    /// "chars / comp" of seed 000 Table 3).
    pub prefix_component_len: f64,
    /// Mean Name TLV-VALUE bytes per prefix.
    pub prefix_bytes: f64,
    /// Mean components per Interest name.
    pub interest_components: f64,
    /// Mean value bytes per Interest component.
    pub interest_component_len: f64,
    /// Mean Name TLV-VALUE bytes per Interest name.
    pub interest_bytes: f64,
    /// Sampled names that failed `NameRef::new_checked` (always 0 unless a generator is broken).
    pub invalid: u64,
}

#[derive(Debug, Default)]
struct Tally {
    names: u64,
    components: u64,
    value_bytes: u64,
    wire_bytes: u64,
    invalid: u64,
}

impl Tally {
    fn add(&mut self, value: &[u8]) {
        let Ok(name) = NameRef::new_checked(value) else {
            self.invalid += 1;
            return;
        };
        self.names += 1;
        self.wire_bytes += value.len() as u64;
        for c in name.components() {
            self.components += 1;
            self.value_bytes += c.value().len() as u64;
        }
    }

    fn mean_components(&self) -> f64 {
        ratio(self.components, self.names)
    }

    fn mean_component_len(&self) -> f64 {
        ratio(self.value_bytes, self.components)
    }

    fn mean_bytes(&self) -> f64 {
        ratio(self.wire_bytes, self.names)
    }
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}
