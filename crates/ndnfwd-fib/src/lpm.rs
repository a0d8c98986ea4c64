//! LPM algorithm selection, the published configuration word, binary-search tree geometry, and
//! the choice of the two-stage parameter M.
//!
//! - Longest-first (seed 002 §3.3.1): probe depths `min(n, k) ..= 1`, `k` = FIB depth.
//! - Two-stage (seed 000 §2.3, Algorithm 1): probe `min(n, M) ..= 1`; a hit at depth M whose MD
//!   exceeds M restarts at `min(n, MD)`. Virtual entries at depth M carry MD.
//! - Binary search over prefix lengths (seed 001 §3.1): a complete search tree over depths
//!   `1 ..= 2^d - 1` with `d = ceil(log2(k + 1))`, so at most `d` probes; markers carry the depth
//!   of their best matching real prefix, so there is no backtracking.

use serde::Serialize;

/// Deepest FIB prefix accepted (components). Record values are 7-bit depths.
pub const MAX_DEPTH: usize = crate::entry::REC_VALUE_MAX as usize;

/// The LPM algorithm readers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum LpmAlgorithm {
    /// Longest prefix first, one probe per depth down to 1.
    LongestFirst,
    /// Seed 000's 2-stage lookup with virtual entries at depth M.
    TwoStage,
    /// Seed 001's binary search of prefix lengths with markers.
    BinarySearch,
}

impl core::str::FromStr for LpmAlgorithm {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "longest-first" | "lf" => Ok(Self::LongestFirst),
            "two-stage" | "2stage" | "2s" => Ok(Self::TwoStage),
            "binary-search" | "binary" | "bs" => Ok(Self::BinarySearch),
            _ => Err(()),
        }
    }
}

/// Algorithm and two-stage depth M (ignored by the other algorithms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LpmConfig {
    /// Algorithm.
    pub algorithm: LpmAlgorithm,
    /// Two-stage start depth, `1 ..= MAX_DEPTH`.
    pub m: u8,
}

impl Default for LpmConfig {
    fn default() -> Self {
        Self {
            algorithm: LpmAlgorithm::BinarySearch,
            m: 4,
        }
    }
}

/// What readers load once per lookup: algorithm, M, search-tree height d, FIB depth k.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Published {
    pub algorithm: LpmAlgorithm,
    pub m: u8,
    pub d: u8,
    pub k: u8,
}

impl Published {
    /// The word: the algorithm readers run (see [`Published::walk`]), M, d and k a byte each,
    /// then the published algorithm (readers decode the low byte, as cheaply as before).
    pub(crate) fn pack(self) -> u64 {
        let code = |a| match a {
            LpmAlgorithm::LongestFirst => 0u64,
            LpmAlgorithm::TwoStage => 1,
            LpmAlgorithm::BinarySearch => 2,
        };
        code(self.walk().algorithm)
            | u64::from(self.m) << 8
            | u64::from(self.d) << 16
            | u64::from(self.k) << 24
            | code(self.algorithm) << 32
    }

    /// The configuration readers run: binary search over a FIB at most two components deep is
    /// longest-first. Its search probes depth `min(n, 2)`, then 1 after a miss, exactly
    /// longest-first's probes, and no prefix that shallow needs a marker (a marker stands where
    /// a search turns towards a deeper real prefix), so the top-down walk and its speculation
    /// hint run it, with the same probes (at most `d`) and answers.
    pub(crate) fn walk(self) -> Self {
        let mut p = self;
        if p.algorithm == LpmAlgorithm::BinarySearch && p.k <= 2 {
            p.algorithm = LpmAlgorithm::LongestFirst;
        }
        p
    }

    /// The deepest probe of a top-down plan, before capping at the name's length: k for
    /// longest-first, M for two-stage stage 1; 0 for binary search, whose plan is not top-down.
    #[inline(always)]
    pub(crate) fn top_down_depth(self) -> usize {
        match self.algorithm {
            LpmAlgorithm::LongestFirst => usize::from(self.k),
            LpmAlgorithm::TwoStage => usize::from(self.m),
            LpmAlgorithm::BinarySearch => 0,
        }
    }

    /// The configuration as published (the writer's view).
    #[inline(always)]
    pub(crate) fn unpack(w: u64) -> Self {
        Self::decode(w, 32)
    }

    /// The configuration readers run, [`Published::walk`] of the published one, decoded from
    /// its own byte (no more work per lookup than [`Published::unpack`]).
    #[inline(always)]
    pub(crate) fn unpack_walk(w: u64) -> Self {
        Self::decode(w, 0)
    }

    #[inline(always)]
    fn decode(w: u64, at: u32) -> Self {
        let algorithm = match (w >> at) & 0xff {
            0 => LpmAlgorithm::LongestFirst,
            1 => LpmAlgorithm::TwoStage,
            _ => LpmAlgorithm::BinarySearch,
        };
        Self {
            algorithm,
            m: (w >> 8) as u8,
            d: (w >> 16) as u8,
            k: (w >> 24) as u8,
        }
    }
}

/// Height of the binary-search tree for FIB depth `k`: `ceil(log2(k + 1))`.
pub fn tree_height(k: usize) -> u8 {
    (usize::BITS - k.leading_zeros()) as u8
}

/// Calls `f(level)` for each depth on the search path to `depth` at which the search must turn
/// towards longer prefixes: the depths that need a marker (or a real prefix) for `depth` to be
/// found, in search order. Tree of height `d` over `1 ..= 2^d - 1`.
pub fn marker_levels(depth: usize, d: u8, mut f: impl FnMut(usize)) {
    let (mut lo, mut hi) = (1usize, (1usize << d) - 1);
    while lo <= hi {
        let mid = (lo + hi) / 2;
        if depth > mid {
            f(mid);
            lo = mid + 1;
        } else if depth < mid {
            hi = mid - 1;
        } else {
            return;
        }
    }
}

/// How to pick M from the FIB's prefix-depth distribution (seed 000 §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum MHeuristic {
    /// The depth holding the most prefixes.
    MostLikely,
    /// The smallest depth at which the cumulative share of prefixes reaches this fraction.
    CumulativeThreshold(f64),
}

/// Chooses M from `hist[depth] = number of real prefixes of that depth` (index 0 = root).
/// Returns at least 1; an empty histogram gives 1.
pub fn choose_m(hist: &[u64], heuristic: MHeuristic) -> u8 {
    let deep = hist.iter().enumerate().skip(1);
    let m = match heuristic {
        MHeuristic::MostLikely => deep
            .max_by_key(|&(d, &n)| (n, core::cmp::Reverse(d)))
            .filter(|(_, &n)| n > 0)
            .map_or(1, |(d, _)| d),
        MHeuristic::CumulativeThreshold(t) => {
            let total: u64 = hist.iter().skip(1).sum();
            let mut acc = 0u64;
            deep.map(|(d, &n)| {
                acc += n;
                (d, acc)
            })
            .find(|&(_, acc)| total > 0 && acc as f64 >= t * total as f64)
            .map_or(1, |(d, _)| d)
        }
    };
    m.clamp(1, MAX_DEPTH) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(depth: usize, d: u8) -> Vec<usize> {
        let mut v = Vec::new();
        marker_levels(depth, d, |l| v.push(l));
        v
    }

    #[test]
    fn tree_geometry() {
        assert_eq!(tree_height(0), 0);
        assert_eq!(tree_height(1), 1);
        assert_eq!(tree_height(3), 2);
        assert_eq!(tree_height(7), 3);
        assert_eq!(tree_height(8), 4);
        assert_eq!(tree_height(127), 7);
        assert_eq!(levels(7, 3), vec![4, 6]);
        assert_eq!(levels(4, 3), Vec::<usize>::new());
        assert_eq!(levels(3, 3), vec![2]);
        assert_eq!(levels(5, 3), vec![4]);
        assert_eq!(levels(1, 3), Vec::<usize>::new());
        assert_eq!(levels(15, 4), vec![8, 12, 14]);
    }

    #[test]
    fn published_roundtrip() {
        for algorithm in [
            LpmAlgorithm::LongestFirst,
            LpmAlgorithm::TwoStage,
            LpmAlgorithm::BinarySearch,
        ] {
            let p = Published {
                algorithm,
                m: 127,
                d: 7,
                k: 126,
            };
            assert_eq!(Published::unpack(p.pack()), p);
            assert_eq!(Published::unpack_walk(p.pack()), p);
            for k in [0, 1, 2] {
                let p = Published { k, d: 2, ..p };
                let walk = Published::unpack_walk(p.pack());
                assert_eq!(Published::unpack(p.pack()), p);
                let lf = algorithm == LpmAlgorithm::BinarySearch;
                assert_eq!(
                    walk.algorithm == LpmAlgorithm::LongestFirst,
                    lf || algorithm == LpmAlgorithm::LongestFirst
                );
                assert_eq!(
                    walk,
                    Published {
                        algorithm: walk.algorithm,
                        ..p
                    }
                );
            }
        }
    }

    #[test]
    fn m_heuristics_follow_seed_000_table_5() {
        // Seed 000 Table 5 distribution (per mille) for depths <=3, 4, 5, 6, 7, 8.
        let hist = [0, 0, 0, 303, 369, 191, 69, 33, 34];
        assert_eq!(choose_m(&hist, MHeuristic::MostLikely), 4);
        assert_eq!(choose_m(&hist, MHeuristic::CumulativeThreshold(0.5)), 4);
        assert_eq!(choose_m(&hist, MHeuristic::CumulativeThreshold(0.75)), 5);
        assert_eq!(choose_m(&hist, MHeuristic::CumulativeThreshold(0.9)), 6);
        assert_eq!(choose_m(&[5], MHeuristic::MostLikely), 1);
        assert_eq!(choose_m(&[], MHeuristic::CumulativeThreshold(0.9)), 1);
    }
}
