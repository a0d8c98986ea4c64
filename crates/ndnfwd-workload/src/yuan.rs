//! `yuan7` / `yuan15`: the worst-case binary-search datasets of seed 001 §3.3.1 (Yuan,
//! Crowley): `n` names of exactly `k` components of 6 to 10 random letters and digits, inserted
//! in two phases, looked up in shuffled order.

use crate::permute::Permutation;
use crate::rng::{subkey, Stream, Tag};
use crate::text::{push_random, ALNUM};
use crate::{NameSource, WorkloadError};

/// The `yuan` workload.
///
/// Dataset name `j` (`0..n`) is a pure function of `(seed, j)`. Following the paper, the first
/// `n / L` names, `L` = [`Yuan::lookups_per_name`] (3 for k = 7, 4 for k = 15), are the
/// phase-two names: real prefix entries, inserted last and the only ones looked up. The remaining
/// `n - n / L` are phase-one names, inserted first so that their binary-search markers exist
/// without prefix entries. Lookup `i` is phase-two name `π(i mod n/L)` for a keyed permutation
/// `π` (the paper shuffles with `shuf`; a permutation needs no index array).
#[derive(Debug, Clone)]
pub struct Yuan {
    components: u8,
    names: u64,
    seed: u64,
    order: Permutation,
}

impl Yuan {
    /// `names` names of `components` components under `seed`. Fails when there would be no
    /// phase-two name (`names < lookups_per_name`) or `components == 0`.
    pub fn new(components: u8, names: u64, seed: u64) -> Result<Self, WorkloadError> {
        let lookups = probes(components);
        if components == 0 || names / lookups == 0 {
            return Err(WorkloadError::NoPrefixes);
        }
        Ok(Self {
            components,
            names,
            seed,
            order: Permutation::new(names / lookups, subkey(seed, Tag::LookupOrder)),
        })
    }

    /// Components per name (`k`).
    pub fn components(&self) -> u8 {
        self.components
    }

    /// Hash-table probes of a binary search over `k` prefix lengths, `ceil(log2(k + 1))`: the
    /// paper's `log(k)` (3 for k = 7, 4 for k = 15).
    pub fn lookups_per_name(&self) -> u64 {
        probes(self.components)
    }

    /// Number of phase-two names, `n / log(k)`: the real prefix entries and the lookup set.
    pub fn phase_two_count(&self) -> u64 {
        self.names / self.lookups_per_name()
    }

    /// Number of phase-one names, `n - n / log(k)`: inserted for their markers only.
    pub fn phase_one_count(&self) -> u64 {
        self.names - self.phase_two_count()
    }

    /// Clears `out` and writes dataset name `j`; names `0..phase_two_count()` are phase two.
    /// Indices past `n` continue the same distribution.
    pub fn name_into(&self, j: u64, out: &mut Vec<u8>) {
        out.clear();
        let mut s = Stream::new(self.seed, Tag::YuanName, j);
        for _ in 0..self.components {
            let len = 6 + s.below(5) as usize;
            push_random(out, &mut s, len, &ALNUM);
        }
    }

    /// Clears `out` and writes phase-two name `i` (dataset name `i`).
    pub fn phase_two_into(&self, i: u64, out: &mut Vec<u8>) {
        self.name_into(i, out);
    }

    /// Clears `out` and writes phase-one name `i` (dataset name `phase_two_count() + i`).
    pub fn phase_one_into(&self, i: u64, out: &mut Vec<u8>) {
        self.name_into(self.phase_two_count().wrapping_add(i), out);
    }

    /// Phase-two index looked up by lookup `i`: a bijection of `0..phase_two_count()`, repeated
    /// for larger `i`.
    pub fn lookup_index(&self, i: u64) -> u64 {
        self.order.apply(i)
    }

    /// Clears `out` and writes lookup name `i`.
    pub fn lookup_into(&self, i: u64, out: &mut Vec<u8>) {
        self.name_into(self.lookup_index(i), out);
    }
}

fn probes(components: u8) -> u64 {
    u64::from(u8::BITS - components.leading_zeros()).max(1)
}

/// As a generic source, prefixes are the dataset names (phase two first, then phase one) and
/// Interests are the shuffled lookups, each an exact match of a phase-two prefix.
impl NameSource for Yuan {
    fn prefix_count(&self) -> u64 {
        self.names
    }

    fn prefix_into(&self, i: u64, out: &mut Vec<u8>) {
        self.name_into(i, out);
    }

    fn interest_into(&self, i: u64, out: &mut Vec<u8>) {
        self.lookup_into(i, out);
    }

    fn interest_prefix(&self, i: u64) -> u64 {
        self.lookup_index(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_split_follows_the_paper() {
        let y7 = Yuan::new(7, 3_000_000, 0).unwrap();
        assert_eq!(y7.lookups_per_name(), 3);
        assert_eq!(
            (y7.phase_two_count(), y7.phase_one_count()),
            (1_000_000, 2_000_000)
        );
        let y15 = Yuan::new(15, 1001, 0).unwrap();
        assert_eq!(y15.lookups_per_name(), 4);
        assert_eq!((y15.phase_two_count(), y15.phase_one_count()), (250, 751));
        assert_eq!(probes(1), 1);
        assert_eq!(probes(8), 4);
        assert_eq!(Yuan::new(7, 2, 0).err(), Some(WorkloadError::NoPrefixes));
        assert_eq!(Yuan::new(0, 100, 0).err(), Some(WorkloadError::NoPrefixes));
    }

    #[test]
    fn phases_partition_the_dataset() {
        let y = Yuan::new(7, 30, 3).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..y.phase_two_count() {
            y.phase_two_into(i, &mut a);
            y.name_into(i, &mut b);
            assert_eq!(a, b);
        }
        for i in 0..y.phase_one_count() {
            y.phase_one_into(i, &mut a);
            y.name_into(10 + i, &mut b);
            assert_eq!(a, b);
        }
    }
}
