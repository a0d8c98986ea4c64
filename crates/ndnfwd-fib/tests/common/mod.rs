//! Helpers shared by the integration tests: names from small alphabets and a plain reference
//! model of longest prefix match.
#![allow(dead_code)]

use std::collections::BTreeMap;

use ndn_packet::{Name, NameHasher, NameRef, PrefixHashes, SipVariant};
use ndnfwd_fib::{FibConfig, FibReader, FibWriter, LpmAlgorithm, LpmConfig, NextHop};

pub const KEY: [u8; 16] = *b"fib-test-key-123";

pub fn hasher() -> NameHasher {
    NameHasher::new(KEY, SipVariant::Sip13)
}

/// A name from a list of component strings.
pub fn name(comps: &[&str]) -> Name {
    comps.iter().fold(Name::new(), |n, c| n.push(c.as_bytes()))
}

pub fn uri(s: &str) -> Name {
    Name::from_uri(s).unwrap()
}

pub fn hop(face: u32) -> Vec<NextHop> {
    vec![NextHop { face, cost: 10 }]
}

pub fn writer(algorithm: LpmAlgorithm, m: u8) -> FibWriter {
    let cfg = FibConfig {
        capacity: 1 << 12,
        load_factor: 4,
        max_entries: 1 << 20,
        max_nexthop_sets: 1 << 16,
        lpm: LpmConfig { algorithm, m },
    };
    FibWriter::new(cfg, hasher()).unwrap()
}

/// (depth, first nexthop face) of a lookup, or None.
pub fn answer(r: &FibReader, h: &NameHasher, n: NameRef<'_>) -> Option<(usize, u32)> {
    let mut hs = PrefixHashes::default();
    h.hash_prefixes(n, &mut hs);
    r.lookup(&hs)
        .map(|m| (m.depth(), m.nexthops().next().map_or(0, |x| x.face)))
}

/// [`answer`] preceded by both prefetch steps of the engine (buckets, then speculative entries).
pub fn answer_prefetched(r: &FibReader, h: &NameHasher, n: NameRef<'_>) -> Option<(usize, u32)> {
    let mut hs = PrefixHashes::default();
    h.hash_prefixes(n, &mut hs);
    r.prefetch(&hs);
    let hint = r.prefetch_entries(&hs);
    r.lookup_with(&hs, hint)
        .map(|m| (m.depth(), m.nexthops().next().map_or(0, |x| x.face)))
}

/// Probes spent by a lookup.
pub fn probes(r: &FibReader, h: &NameHasher, n: NameRef<'_>) -> (Option<usize>, u32) {
    let mut hs = PrefixHashes::default();
    h.hash_prefixes(n, &mut hs);
    let (m, tr) = r.lookup_traced(&hs);
    (m.map(|m| m.depth()), tr.probes)
}

/// Reference LPM: the map of prefixes walked from the full name down to the root.
#[derive(Debug, Default, Clone)]
pub struct Model {
    pub prefixes: BTreeMap<Name, u32>,
}

impl Model {
    pub fn lpm(&self, n: NameRef<'_>) -> Option<(usize, u32)> {
        (0..=n.len())
            .rev()
            .find_map(|d| self.prefixes.get(&n.prefix(d).to_name()).map(|&f| (d, f)))
    }
}
