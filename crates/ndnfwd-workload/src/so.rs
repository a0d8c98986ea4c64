//! `so`: synthetic FIB prefixes and Interests with the name shapes of seed 000 §4.1 (So,
//! Narayanan, Oran): a URLBlacklist-shaped FIB (Table 5, mean 4.26 components) and IRCache-shaped
//! Interests (Table 3, mean 6.66 components, 8.8 characters per component).

use crate::popularity::{Picker, Popularity};
use crate::rng::{Stream, Tag};
use crate::text::{
    draw_tld, push_chars, push_header, push_random, DOMAIN_LEN, EXTRA_COMPONENTS, FIB_COMPONENTS,
    LEAF_LEN, LOWER_ALNUM, PATH_LEN,
};
use crate::{NameSource, WorkloadError};

/// Size of the second-level ("domain") vocabulary, as a power of two. With Zipf(1) popularity
/// over 2^20 words the most popular domain carries 1/21 of the names below each top-level label.
const DOMAIN_OCTAVES: u32 = 20;

/// The `so` workload.
///
/// Prefix `i` has `k` components, `k` drawn from seed 000 Table 5. Shape, for `k >= 3`:
/// `/<top-level label>/<domain>/<random>...`: the top-level label comes from a fixed
/// popularity-weighted list (`com` 42%), the domain from a 2^20-word vocabulary with Zipf(1)
/// popularity, so prefixes share their first two components the way a hierarchical FIB does;
/// deeper components are random lowercase letters and digits. For `k == 2` the second component
/// and for `k == 1` the only component is random, so every prefix ends in a component drawn for
/// it alone: prefixes are distinct with high probability (a repeat needs two random components
/// to collide), though not by construction. Interest `i` is a FIB prefix chosen by
/// [`Popularity`] plus 1 to 6 random components (mean 2.41).
#[derive(Debug, Clone)]
pub struct So {
    prefixes: u64,
    seed: u64,
    picker: Picker,
}

impl So {
    /// A FIB of `prefixes` names under `seed`; Interests pick prefixes by `popularity`.
    pub fn new(prefixes: u64, seed: u64, popularity: Popularity) -> Result<Self, WorkloadError> {
        if prefixes == 0 {
            return Err(WorkloadError::NoPrefixes);
        }
        Ok(Self {
            prefixes,
            seed,
            picker: Picker::new(prefixes, popularity, seed),
        })
    }

    /// Writes the word of domain-vocabulary rank `rank` (a pure function of seed and rank).
    fn push_domain(&self, out: &mut Vec<u8>, rank: u64) {
        let mut s = Stream::new(self.seed, Tag::SoDomain, rank);
        let len = DOMAIN_LEN.draw(&mut s);
        push_header(out, len);
        push_chars(out, &mut s, len, &LOWER_ALNUM);
    }
}

impl NameSource for So {
    fn prefix_count(&self) -> u64 {
        self.prefixes
    }

    /// Defined for every `i`: indices past [`NameSource::prefix_count`] continue the same
    /// distribution (useful to grow a FIB or to make non-FIB names of FIB shape).
    fn prefix_into(&self, i: u64, out: &mut Vec<u8>) {
        out.clear();
        let mut s = Stream::new(self.seed, Tag::SoPrefix, i);
        let k = FIB_COMPONENTS.draw(&mut s);
        if k == 1 {
            let len = PATH_LEN.draw(&mut s);
            push_random(out, &mut s, len, &LOWER_ALNUM);
            return;
        }
        let tld = draw_tld(&mut s);
        push_header(out, tld.len());
        out.extend_from_slice(tld);
        if k == 2 {
            let len = DOMAIN_LEN.draw(&mut s);
            push_random(out, &mut s, len, &LOWER_ALNUM);
            return;
        }
        self.push_domain(out, s.zipf_octave(1 << DOMAIN_OCTAVES));
        for _ in 2..k {
            let len = PATH_LEN.draw(&mut s);
            push_random(out, &mut s, len, &LOWER_ALNUM);
        }
    }

    fn interest_into(&self, i: u64, out: &mut Vec<u8>) {
        let mut s = Stream::new(self.seed, Tag::SoInterest, i);
        self.prefix_into(self.picker.pick(&mut s), out);
        for _ in 0..EXTRA_COMPONENTS.draw(&mut s) {
            let len = LEAF_LEN.draw(&mut s);
            push_random(out, &mut s, len, &LOWER_ALNUM);
        }
    }

    fn interest_prefix(&self, i: u64) -> u64 {
        self.picker
            .pick(&mut Stream::new(self.seed, Tag::SoInterest, i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndn_packet::NameRef;

    #[test]
    fn prefixes_are_hierarchical() {
        let so = So::new(100_000, 1, Popularity::Uniform).unwrap();
        let mut buf = Vec::new();
        let mut second = std::collections::HashMap::<Vec<u8>, u32>::new();
        let mut com = 0;
        for i in 0..20_000 {
            so.prefix_into(i, &mut buf);
            let name = NameRef::new_checked(&buf).unwrap();
            if name.len() >= 3 {
                com += u32::from(name.get(0).unwrap().value() == b"com");
                *second.entry(name.prefix(2).value().to_vec()).or_default() += 1;
            }
        }
        assert!((7_500..9_000).contains(&com), "{com}");
        let top = second.values().max().copied().unwrap_or(0);
        // /com/<rank 0 domain>: 42% x 1/21 of ~19_600 names.
        assert!((300..500).contains(&top), "{top}");
    }

    #[test]
    fn interests_extend_their_prefix() {
        let so = So::new(1000, 2, Popularity::Zipf).unwrap();
        let (mut p, mut q) = (Vec::new(), Vec::new());
        for i in 0..2000 {
            so.interest_into(i, &mut q);
            so.prefix_into(so.interest_prefix(i), &mut p);
            let (p, q) = (
                NameRef::new_checked(&p).unwrap(),
                NameRef::new_checked(&q).unwrap(),
            );
            assert!(p.is_prefix_of(q) && (1..=6).contains(&(q.len() - p.len())));
        }
        assert_eq!(
            So::new(0, 0, Popularity::Uniform).err(),
            Some(WorkloadError::NoPrefixes)
        );
    }
}
