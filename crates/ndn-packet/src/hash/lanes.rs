//! The first finalizations of several prefixes at once (AVX2), with the scalar path as fallback.
//!
//! A lookup plan reads the table hashes of most prefixes of a name, and their finalizations are
//! independent: four of them run side by side, each SipHash state word of the four prefixes in
//! one 256-bit register. A round is then 20 vector instructions for four prefixes (a rotation
//! is two shifts and an OR; LLVM turns the one by 16 into a byte shuffle, those by 32 are a
//! dword shuffle) instead of 14 scalar ones for each.
//! AVX2 is detected at run time (the check is a cached load); without it, and for a last single
//! prefix, each is finalized the scalar way. Results equal the scalar [`super::Sip::finish1`]'s
//! bit for bit (same operations on the same words; tested).

use super::{Prefix, SipVariant};

/// The scalar first finalization of `p`, cached as [`super::PrefixHashes::get`] caches it.
#[inline(always)]
fn finish1_scalar<const C: usize, const D: usize>(p: &Prefix) {
    let (h, f) = super::Sip { v: p.state.get() }.finish1::<C, D>(p.last);
    if h != 0 {
        p.state.set(f);
        p.h1.set(h);
    }
}

/// Finalizes every prefix of `prefixes` whose `h1` is not cached, one at a time.
pub(super) fn finalize_scalar(prefixes: &[Prefix], variant: SipVariant) {
    for p in prefixes.iter().filter(|p| p.h1.get() == 0) {
        match variant {
            SipVariant::Sip13 => finish1_scalar::<1, 3>(p),
            SipVariant::Sip24 => finish1_scalar::<2, 4>(p),
        }
    }
}

/// Finalizes every uncached prefix of `prefixes` with the best code the CPU runs.
#[inline]
pub(super) fn finalize_h1s(prefixes: &[Prefix], variant: SipVariant) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[allow(unsafe_code)]
        // SAFETY: `avx2::finalize` only needs the CPU to support AVX2, checked just above.
        unsafe {
            avx2::finalize(prefixes, variant);
        }
        return;
    }
    finalize_scalar(prefixes, variant);
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(super) mod avx2 {
    use core::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_extract_epi64, _mm256_loadu_si256, _mm256_or_si256,
        _mm256_permute2x128_si256, _mm256_set1_epi64x, _mm256_set_epi64x, _mm256_shuffle_epi32,
        _mm256_slli_epi64, _mm256_srli_epi64, _mm256_storeu_si256, _mm256_unpackhi_epi64,
        _mm256_unpacklo_epi64, _mm256_xor_si256,
    };

    use super::{finish1_scalar, Prefix, SipVariant};

    /// Prefixes finalized together.
    const LANES: usize = 4;

    /// `x.rotate_left(L)` in each 64-bit lane (`R = 64 - L`).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn rotl<const L: i32, const R: i32>(x: __m256i) -> __m256i {
        _mm256_or_si256(_mm256_slli_epi64::<L>(x), _mm256_srli_epi64::<R>(x))
    }

    /// `x.rotate_left(32)` in each 64-bit lane: swap the 32-bit halves.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn rot32(x: __m256i) -> __m256i {
        _mm256_shuffle_epi32::<0b10_11_00_01>(x)
    }

    /// [`super::super::round`] on four states, `v[w]` holding word `w` of each.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::hash) fn round(v: &mut [__m256i; 4]) {
        let [mut v0, mut v1, mut v2, mut v3] = *v;
        v0 = _mm256_add_epi64(v0, v1);
        v1 = _mm256_xor_si256(rotl::<13, 51>(v1), v0);
        v0 = rot32(v0);
        v2 = _mm256_add_epi64(v2, v3);
        v3 = _mm256_xor_si256(rotl::<16, 48>(v3), v2);
        v0 = _mm256_add_epi64(v0, v3);
        v3 = _mm256_xor_si256(rotl::<21, 43>(v3), v0);
        v2 = _mm256_add_epi64(v2, v1);
        v1 = _mm256_xor_si256(rotl::<17, 47>(v1), v2);
        v2 = rot32(v2);
        *v = [v0, v1, v2, v3];
    }

    /// Rows become columns (4 x 4 words): four prefix states to word-major lanes and back.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn transpose([r0, r1, r2, r3]: [__m256i; 4]) -> [__m256i; 4] {
        let t0 = _mm256_unpacklo_epi64(r0, r1);
        let t1 = _mm256_unpackhi_epi64(r0, r1);
        let t2 = _mm256_unpacklo_epi64(r2, r3);
        let t3 = _mm256_unpackhi_epi64(r2, r3);
        [
            _mm256_permute2x128_si256::<0x20>(t0, t2),
            _mm256_permute2x128_si256::<0x20>(t1, t3),
            _mm256_permute2x128_si256::<0x31>(t0, t2),
            _mm256_permute2x128_si256::<0x31>(t1, t3),
        ]
    }

    /// The state words of `p`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(p: &Prefix) -> __m256i {
        // SAFETY: `as_ptr` points at the cell's `[u64; 4]`, 32 readable bytes while `p` is
        // borrowed; `loadu` has no alignment rule. `Prefix` is not `Sync`, so no other thread
        // writes the cell meanwhile.
        unsafe { _mm256_loadu_si256(p.state.as_ptr().cast()) }
    }

    /// Stores `v` as the state words of `p`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store(p: &Prefix, v: __m256i) {
        // SAFETY: as in `load`, 32 writable bytes (a `Cell` may be written through a shared
        // reference); no reference into the cell's content is alive (`Cell` hands out copies).
        unsafe { _mm256_storeu_si256(p.state.as_ptr().cast(), v) }
    }

    /// Caches `h1` and the finished state `f` of `p` when `h1` is non-zero (the scalar rule).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn keep(p: &Prefix, h1: i64, f: __m256i) {
        if h1 != 0 {
            store(p, f);
            p.h1.set(h1 as u64);
        }
    }

    /// The scalar `finish1` of four prefixes; the results of the first `used` lanes are kept
    /// (the others are stale lanes, computed and dropped).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn finish4<const C: usize, const D: usize>(p: &[&Prefix; LANES], used: usize) {
        let [a, b, c, d] = *p;
        let mut v = transpose([load(a), load(b), load(c), load(d)]);
        let m = _mm256_set_epi64x(d.last as i64, c.last as i64, b.last as i64, a.last as i64);
        v[3] = _mm256_xor_si256(v[3], m);
        for _ in 0..C {
            round(&mut v);
        }
        v[0] = _mm256_xor_si256(v[0], m);
        v[2] = _mm256_xor_si256(v[2], _mm256_set1_epi64x(0xee));
        for _ in 0..D {
            round(&mut v);
        }
        let h = _mm256_xor_si256(_mm256_xor_si256(v[0], v[1]), _mm256_xor_si256(v[2], v[3]));
        let [fa, fb, fc, fd] = transpose(v);
        keep(a, _mm256_extract_epi64::<0>(h), fa);
        if used > 1 {
            keep(b, _mm256_extract_epi64::<1>(h), fb);
        }
        if used > 2 {
            keep(c, _mm256_extract_epi64::<2>(h), fc);
        }
        if used > 3 {
            keep(d, _mm256_extract_epi64::<3>(h), fd);
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn run<const C: usize, const D: usize>(prefixes: &[Prefix]) {
        // Fast path: whole groups of four uncached prefixes (the usual case: the FIB's bucket
        // prefetch is the plan's first reader) go to `finish4` as they lie, without the
        // per-prefix pick below; the first group with a cached prefix ends it.
        let mut prefixes = prefixes;
        while let [a, b, c, d, rest @ ..] = prefixes {
            if a.h1.get() | b.h1.get() | c.h1.get() | d.h1.get() != 0 {
                break;
            }
            finish4::<C, D>(&[a, b, c, d], LANES);
            prefixes = rest;
        }
        // The usual end of the run: one to three uncached prefixes, as they lie (the padding
        // lanes repeat the first and are dropped).
        let fresh = |p: &Prefix| p.h1.get() == 0;
        match prefixes {
            [] => return,
            [a] if fresh(a) => return finish1_scalar::<C, D>(a),
            [a, b] if fresh(a) && fresh(b) => return finish4::<C, D>(&[a, b, a, a], 2),
            [a, b, c] if fresh(a) && fresh(b) && fresh(c) => {
                return finish4::<C, D>(&[a, b, c, a], 3)
            }
            _ => {}
        }
        let Some(first) = prefixes.first() else {
            return;
        };
        let mut pick = [first; LANES];
        let mut used = 0;
        for p in prefixes.iter().filter(|p| p.h1.get() == 0) {
            if let Some(slot) = pick.get_mut(used) {
                *slot = p;
            }
            used += 1;
            if used == LANES {
                finish4::<C, D>(&pick, LANES);
                used = 0;
            }
        }
        match used {
            0 => {}
            1 => finish1_scalar::<C, D>(pick[0]),
            _ => finish4::<C, D>(&pick, used),
        }
    }

    /// Finalizes every prefix of `prefixes` whose `h1` is not cached, four at a time.
    #[target_feature(enable = "avx2")]
    pub(in crate::hash) fn finalize(prefixes: &[Prefix], variant: SipVariant) {
        match variant {
            SipVariant::Sip13 => run::<1, 3>(prefixes),
            SipVariant::Sip24 => run::<2, 4>(prefixes),
        }
    }
}
