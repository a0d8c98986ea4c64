//! Which FIB prefix an Interest is built from.

use core::fmt;
use core::str::FromStr;

use crate::error::WorkloadError;
use crate::permute::Permutation;
use crate::rng::{subkey, Stream, Tag};

/// How Interests choose the FIB prefix they extend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Popularity {
    /// Every prefix equally likely.
    #[default]
    Uniform,
    /// Zipf-like with exponent 1 over popularity ranks (see the crate README); ranks are mapped to
    /// prefix indices through a keyed permutation, so popular prefixes are spread over the whole
    /// index range instead of being the first ones inserted.
    Zipf,
}

impl FromStr for Popularity {
    type Err = WorkloadError;

    fn from_str(s: &str) -> Result<Self, WorkloadError> {
        match s {
            "uniform" => Ok(Self::Uniform),
            "zipf" => Ok(Self::Zipf),
            _ => Err(WorkloadError::UnknownSpec),
        }
    }
}

impl fmt::Display for Popularity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Uniform => "uniform",
            Self::Zipf => "zipf",
        })
    }
}

/// Draws prefix indices in `0..n` under a [`Popularity`].
#[derive(Debug, Clone)]
pub(crate) struct Picker {
    n: u64,
    popularity: Popularity,
    order: Permutation,
}

impl Picker {
    pub(crate) fn new(n: u64, popularity: Popularity, seed: u64) -> Self {
        Self {
            n,
            popularity,
            order: Permutation::new(n, subkey(seed, Tag::Popularity)),
        }
    }

    pub(crate) fn pick(&self, s: &mut Stream) -> u64 {
        match self.popularity {
            Popularity::Uniform => s.below(self.n),
            Popularity::Zipf => self.order.apply(s.zipf_octave(self.n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipf_concentrates_and_uniform_spreads() {
        let n = 1000;
        for (popularity, lo, hi) in [(Popularity::Uniform, 0, 40), (Popularity::Zipf, 800, 1300)] {
            let p = Picker::new(n, popularity, 5);
            let mut hits = vec![0u32; n as usize];
            for i in 0..10_000 {
                let j = p.pick(&mut Stream::new(5, Tag::SoInterest, i));
                hits[j as usize] += 1;
            }
            let top = *hits.iter().max().unwrap();
            assert!(
                (lo..hi).contains(&top),
                "{popularity}: top prefix drew {top}"
            );
        }
        assert_eq!("zipf".parse(), Ok(Popularity::Zipf));
        assert!("pareto".parse::<Popularity>().is_err());
    }
}
