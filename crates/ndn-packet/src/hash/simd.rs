//! Which vector code the lanes ([`super::lanes`], [`super::ids`]) run: the best the CPU has,
//! detected once; each hasher keeps its choice, so the lanes' dispatch reads a field next to
//! the round variant.
//!
//! `NDNFWD_SIMD=avx2` (or `scalar`) in the environment caps the choice, read at the first
//! detection: a benchmark compares the paths on one host, in one binary. Any other value, or
//! none, leaves the best the CPU runs.

use std::sync::OnceLock;

/// The instruction sets of the lanes' paths, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(super) enum Simd {
    /// AVX2 with AVX-512F and VL: the AVX2 code with native 64-bit rotates.
    Avx512,
    /// AVX2: a rotate is two shifts and an OR.
    Avx2,
    /// One name or prefix at a time (the default: an empty [`super::PrefixHashes`]'s).
    #[default]
    Scalar,
}

impl Simd {
    /// Every path, best first.
    pub(super) const ALL: [Self; 3] = [Self::Avx512, Self::Avx2, Self::Scalar];

    /// The best path this CPU runs under the environment's cap, detected on the first call. A
    /// [`super::NameHasher`] takes it when it is made, and its lanes run it.
    pub(super) fn best() -> Self {
        static BEST: OnceLock<Simd> = OnceLock::new();
        *BEST.get_or_init(|| {
            let cap = match std::env::var("NDNFWD_SIMD").as_deref() {
                Ok("avx2") => Self::Avx2,
                Ok("scalar") => Self::Scalar,
                _ => Self::Avx512,
            };
            Self::ALL
                .into_iter()
                .find(|s| *s >= cap && s.runs())
                .unwrap_or(Self::Scalar)
        })
    }

    /// Whether this CPU runs the path.
    pub(super) fn runs(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            match self {
                Self::Avx512 => has!("avx2") && has!("avx512f") && has!("avx512vl"),
                Self::Avx2 => has!("avx2"),
                Self::Scalar => true,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Self::Scalar
        }
    }
}
