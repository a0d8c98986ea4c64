//! Counter-based randomness: every generated name owns a short SplitMix64 stream whose start is
//! a pure function of `(seed, tag, index)`, so name `i` never depends on names `0..i`.

/// SplitMix64 increment (the golden-ratio constant).
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// The SplitMix64 output function (Stafford's "Mix13"): a bijective 64-bit avalanche mixer.
pub(crate) const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Domain separation between the independent streams of one seed. Distinct odd constants, so a
/// prefix stream and an Interest stream with the same index never coincide.
#[derive(Debug, Clone, Copy)]
#[repr(u64)]
pub(crate) enum Tag {
    SoPrefix = 0x243f_6a88_85a3_08d3,
    SoInterest = 0x1319_8a2e_0370_7345,
    SoDomain = 0xa409_3822_299f_31d1,
    YuanName = 0x082e_fa98_ec4e_6c89,
    RealInterest = 0x4528_21e6_38d0_1377,
    NoMatch = 0xbe54_66cf_34e9_0c6d,
    Popularity = 0xc0ac_29b7_c97c_50dd,
    LookupOrder = 0x3f84_d5b5_b547_0917,
    Traffic = 0x9216_d5d9_8979_fb1b,
}

/// Derives the key of a sub-generator (a permutation, a vocabulary) from the workload seed.
pub(crate) const fn subkey(seed: u64, tag: Tag) -> u64 {
    mix64(seed ^ tag as u64)
}

/// A SplitMix64 stream positioned at the start of one name's draws.
#[derive(Debug, Clone)]
pub(crate) struct Stream {
    state: u64,
}

impl Stream {
    /// The stream of item `index` under `(seed, tag)`.
    pub(crate) const fn new(seed: u64, tag: Tag, index: u64) -> Self {
        Self {
            state: mix64(subkey(seed, tag) ^ mix64(index.wrapping_add(GOLDEN))),
        }
    }

    /// Next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        mix64(self.state)
    }

    /// Uniform in `0..n` (multiply-shift; the bias is below `n / 2^64`). Returns 0 for `n == 0`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Six random bits, as an index into a 64-entry quantile table.
    pub(crate) fn six_bits(&mut self) -> usize {
        (self.next_u64() >> 58) as usize
    }

    /// Zipf-like rank in `0..n` with exponent 1, integer-only: an octave `e` is drawn uniformly
    /// among the bit lengths of `n`, then a rank uniformly within `[2^e - 1, 2^(e+1) - 1)`. Each
    /// octave of a Zipf(1) law holds the same mass (about ln 2), which this reproduces exactly;
    /// within an octave the density is flat instead of `1/r`. Rank 0 is the most popular.
    pub(crate) fn zipf_octave(&mut self, n: u64) -> u64 {
        let octaves = u64::from(u64::BITS - n.leading_zeros());
        let e = self.below(octaves);
        let start = (1u64 << e) - 1;
        let width = (1u64 << e).min(n.saturating_sub(start));
        start + self.below(width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_pure_functions_of_their_coordinates() {
        let a: Vec<u64> = (0..4)
            .map(|_| Stream::new(7, Tag::SoPrefix, 3).next_u64())
            .collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut s = Stream::new(7, Tag::SoPrefix, 3);
        let first = s.next_u64();
        assert_ne!(first, s.next_u64());
        assert_ne!(first, Stream::new(8, Tag::SoPrefix, 3).next_u64());
        assert_ne!(first, Stream::new(7, Tag::SoInterest, 3).next_u64());
        assert_ne!(first, Stream::new(7, Tag::SoPrefix, 4).next_u64());
    }

    #[test]
    fn below_and_zipf_stay_in_range() {
        let mut s = Stream::new(1, Tag::Popularity, 0);
        for n in [1u64, 2, 3, 5, 8, 1000, u64::MAX] {
            for _ in 0..2000 {
                assert!(s.below(n) < n);
                assert!(s.zipf_octave(n) < n);
            }
        }
        assert_eq!(s.below(0), 0);
    }

    #[test]
    fn zipf_octave_is_skewed_toward_low_ranks() {
        let mut s = Stream::new(2, Tag::Popularity, 0);
        let n = 1 << 20;
        let draws = 210_000u64;
        let rank0 = (0..draws).filter(|_| s.zipf_octave(n) == 0).count() as f64;
        // One octave in 21 is rank 0 alone: 10_000 expected.
        assert!((rank0 - 10_000.0).abs() < 600.0, "{rank0}");
    }
}
