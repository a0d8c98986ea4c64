//! The finalizations of several prefixes at once (AVX2, or AVX-512VL's rotates where the CPU
//! has them), with the scalar path as fallback.
//!
//! A lookup plan reads the table hashes of most prefixes of a name and the identities of one
//! or two, and their finalizations are independent: four of them run side by side, each
//! SipHash state word of four consecutive prefixes in one 256-bit register, loaded straight
//! from the word-major slots ([`super::slots`]), and both output words are stored back the
//! same way (no transposes, no lane extracts). A round is then 20 AVX2 instructions for four
//! prefixes (a rotation is two shifts and an OR; LLVM turns the one by 16 into a byte shuffle,
//! those by 32 are a dword shuffle) instead of 14 scalar ones for each; with AVX-512VL a
//! rotation is one `vprolq` and a round 14, on the same 256-bit registers. The code exists
//! once, generic over the rotation ([`x86::Rotate`]), and is compiled for each instruction set
//! behind its own entry; [`Simd::best`] picks one at run time, kept by the hasher; without AVX2
//! each prefix is finalized the scalar way. Results equal the scalar [`super::Sip::finish1`]
//! and [`super::finish2`]'s bit for bit (same operations on the same words; tested).

use super::simd::Simd;
use super::{PrefixHashes, SipVariant};

/// Finalizes both output words of the prefixes of `want`'s bits (below `len` and not cached),
/// one at a time.
pub(super) fn finalize_scalar(p: &PrefixHashes, mut want: u64) {
    while want != 0 {
        p.finish_both(want.trailing_zeros() as usize);
        want &= want - 1;
    }
}

/// The finalization of one path, kept by a hasher ([`super::NameHasher`], made from its
/// [`Simd`]) and copied into the prefixes it hashes: the lanes' dispatch is then one indirect
/// call through the copy, not a match on the path at each call site. Made only for a path the
/// CPU runs ([`Finalizer::new`]'s contract), so calling it is sound; the default, an empty
/// [`PrefixHashes`]'s, is the scalar path's.
#[derive(Clone, Copy)]
pub(super) struct Finalizer(unsafe fn(&PrefixHashes, u64));

impl Finalizer {
    /// The finalization of the path `simd`.
    ///
    /// # Safety
    ///
    /// The CPU runs `simd` ([`Simd::runs`]).
    #[allow(unsafe_code)]
    pub(super) unsafe fn new(simd: Simd) -> Self {
        match simd {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => Self(x86::finalize_avx512),
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => Self(x86::finalize_avx2),
            _ => Self(finalize_scalar),
        }
    }

    /// Finalizes both output words of the prefixes of `want`'s bits (below `len`, not cached)
    /// in `p`.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(super) fn call(self, p: &PrefixHashes, want: u64) {
        // SAFETY: a `Finalizer` is made for a path the CPU runs (`new`'s contract) or is the
        // scalar one (`default`).
        unsafe { (self.0)(p, want) }
    }
}

impl Default for Finalizer {
    fn default() -> Self {
        Self(finalize_scalar)
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(super) mod x86 {
    use core::arch::asm;
    use core::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256, _mm256_loadu_si256,
        _mm256_or_si256, _mm256_set1_epi64x, _mm256_shuffle_epi32, _mm256_slli_epi64,
        _mm256_sllv_epi64, _mm256_srli_epi64, _mm256_storeu_si256, _mm256_xor_si256,
    };

    use super::super::slots::{H1, H2, HEAD, LAST, STRIDE};
    use super::{PrefixHashes, SipVariant};

    /// The 64-bit rotation of each lane, all the AVX2 and AVX-512 paths differ by. A value is
    /// made only inside a function that enables its instructions (its `new` enables them), so
    /// the code given one may run them.
    pub(in crate::hash) trait Rotate: Copy {
        /// `x.rotate_left(L)` in each 64-bit lane (`R = 64 - L`).
        fn rotl<const L: i32, const R: i32>(self, x: __m256i) -> __m256i;
    }

    /// AVX2's rotation: two shifts and an OR (LLVM makes the one by 16 a byte shuffle).
    #[derive(Clone, Copy)]
    pub(in crate::hash) struct Avx2(());

    impl Avx2 {
        /// The token, made where the CPU runs AVX2.
        #[inline]
        #[target_feature(enable = "avx2")]
        pub(in crate::hash) fn new() -> Self {
            Self(())
        }
    }

    impl Rotate for Avx2 {
        #[inline(always)]
        fn rotl<const L: i32, const R: i32>(self, x: __m256i) -> __m256i {
            // SAFETY: an `Avx2` is made only where the CPU runs AVX2 (`Avx2::new`).
            unsafe { _mm256_or_si256(_mm256_slli_epi64::<L>(x), _mm256_srli_epi64::<R>(x)) }
        }
    }

    /// AVX-512VL's rotation: one `vprolq` on the 256-bit registers ([`vprolq`]).
    #[derive(Clone, Copy)]
    pub(in crate::hash) struct Avx512(());

    impl Avx512 {
        /// The token, made where the CPU runs AVX2, AVX-512F and AVX-512VL.
        #[inline]
        #[target_feature(enable = "avx2,avx512f,avx512vl")]
        pub(in crate::hash) fn new() -> Self {
            Self(())
        }
    }

    impl Rotate for Avx512 {
        #[inline(always)]
        fn rotl<const L: i32, const R: i32>(self, x: __m256i) -> __m256i {
            // SAFETY: an `Avx512` is made only where the CPU runs AVX-512F and AVX-512VL
            // (`Avx512::new`).
            unsafe { vprolq::<L>(x) }
        }
    }

    /// `x.rotate_left(L)` in each 64-bit lane with AVX-512VL's `vprolq`, written as assembly:
    /// `_mm256_rol_epi64` enables AVX-512F and VL itself, so LLVM inlines it only into code
    /// that enables them, and the bodies shared with the AVX2 path (which enable AVX2) called
    /// it out of line until they were inlined into the AVX-512 entry: its 184 calls made
    /// `name_ids`' body too costly to inline there, so every rotate stayed a call.
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512F and AVX-512VL.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn vprolq<const L: i32>(x: __m256i) -> __m256i {
        let r;
        // SAFETY: the instruction needs AVX-512F and VL (the caller's contract); it reads and
        // writes registers only.
        unsafe {
            asm!(
                "vprolq {r}, {x}, {l}",
                r = lateout(ymm_reg) r,
                x = in(ymm_reg) x,
                l = const L,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        r
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
    pub(in crate::hash) fn round<R: Rotate>(r: R, v: &mut [__m256i; 4]) {
        let [mut v0, mut v1, mut v2, mut v3] = *v;
        v0 = _mm256_add_epi64(v0, v1);
        v1 = _mm256_xor_si256(r.rotl::<13, 51>(v1), v0);
        v0 = rot32(v0);
        v2 = _mm256_add_epi64(v2, v3);
        v3 = _mm256_xor_si256(r.rotl::<16, 48>(v3), v2);
        v0 = _mm256_add_epi64(v0, v3);
        v3 = _mm256_xor_si256(r.rotl::<21, 43>(v3), v0);
        v2 = _mm256_add_epi64(v2, v1);
        v1 = _mm256_xor_si256(r.rotl::<17, 47>(v1), v2);
        v2 = rot32(v2);
        *v = [v0, v1, v2, v3];
    }

    /// Words `i..i + 4` of array `a` of the slots of `p`.
    ///
    /// # Safety
    ///
    /// `i < HEAD`, `a < 7` (the head's arrays), and the CPU supports AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load(p: &PrefixHashes, a: usize, i: usize) -> __m256i {
        // SAFETY: the head is 7 arrays of `STRIDE` words, `HEAD` and 3 of padding; `i < HEAD`,
        // so words `i..i + 4` of array `a` are inside it. `loadu` has no alignment rule. The
        // cells are not `Sync`: no other thread writes them meanwhile.
        unsafe { _mm256_loadu_si256(p.slots.base().add(STRIDE * a + i).cast()) }
    }

    /// Stores `v` as words `i..i + 4` of array `a` of the slots of `p`.
    ///
    /// # Safety
    ///
    /// As for [`load`].
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn store(p: &PrefixHashes, a: usize, i: usize, v: __m256i) {
        // SAFETY: inside the head as in `load`; the words are cells (written through a shared
        // reference), and no reference into them is alive (`Cell` hands out copies).
        unsafe {
            let at = p.slots.base().add(STRIDE * a + i).cast_mut();
            _mm256_storeu_si256(at.cast(), v);
        }
    }

    /// [`super::super::slots::unpack_last`] in each lane: the packed word `(w << 8) | e` holds the
    /// tail's `r = e % 8` bytes as its bytes 1 to `r`; they are kept by clearing the bits from
    /// `8r` up (all ones shifted left by `8r`, at most 56: no shift past the word, which LLVM
    /// would guard with a compare and a mask), and `e` goes on top.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn unpack_last(p: __m256i) -> __m256i {
        let r8 = _mm256_and_si256(_mm256_slli_epi64::<3>(p), _mm256_set1_epi64x(0x38));
        let above = _mm256_sllv_epi64(_mm256_set1_epi64x(-1), r8);
        let tail = _mm256_andnot_si256(above, _mm256_srli_epi64::<8>(p));
        _mm256_or_si256(_mm256_slli_epi64::<56>(p), tail)
    }

    /// The XOR of the four state words of each lane: an output word.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::hash) fn fold([v0, v1, v2, v3]: [__m256i; 4]) -> __m256i {
        _mm256_xor_si256(_mm256_xor_si256(v0, v1), _mm256_xor_si256(v2, v3))
    }

    /// Both output words of prefixes `i..i + 4`, each lane what the scalar `finish1` and
    /// `finish2` give (lanes past the name compute on stale slots; their words are stored in
    /// slots no read takes before a walk rewrites them).
    ///
    /// # Safety
    ///
    /// As for [`load`].
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn finish4<R: Rotate, const C: usize, const D: usize>(r: R, p: &PrefixHashes, i: usize) {
        // SAFETY: `i < HEAD`, arrays 0 to 4, AVX2: the caller's contract.
        let (mut v, m) = unsafe {
            (
                [load(p, 0, i), load(p, 1, i), load(p, 2, i), load(p, 3, i)],
                unpack_last(load(p, LAST, i)),
            )
        };
        v[3] = _mm256_xor_si256(v[3], m);
        for _ in 0..C {
            round(r, &mut v);
        }
        v[0] = _mm256_xor_si256(v[0], m);
        v[2] = _mm256_xor_si256(v[2], _mm256_set1_epi64x(0xee));
        for _ in 0..D {
            round(r, &mut v);
        }
        // SAFETY: `i < HEAD`, array 5, AVX2: the caller's contract.
        unsafe { store(p, H1, i, fold(v)) };
        v[1] = _mm256_xor_si256(v[1], _mm256_set1_epi64x(0xdd));
        for _ in 0..D {
            round(r, &mut v);
        }
        // SAFETY: `i < HEAD`, array 6, AVX2: the caller's contract.
        unsafe { store(p, H2, i, fold(v)) };
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn run<R: Rotate, const C: usize, const D: usize>(r: R, p: &PrefixHashes, want: u64) {
        debug_assert!(p.len() >= 64 || want >> p.len() == 0);
        // `want`'s bits are below the name's length (the caller's contract), and so are all
        // bits up to its highest: the lanes of a group past it are computed but not cached (a
        // mask from `want` alone, not from the length; `| 1` keeps the shift below 64).
        let upto = u64::MAX >> (want | 1).leading_zeros();
        let mut left = want;
        let mut done = 0;
        while left != 0 {
            let i = left.trailing_zeros() as usize;
            debug_assert!(i < HEAD);
            // SAFETY: `i < HEAD` (a bit of a `u64`); the CPU has AVX2 (this function's feature).
            unsafe { finish4::<R, C, D>(r, p, i) };
            done |= 0xf << i;
            left &= !(0xf << i);
        }
        let done = done & upto;
        p.h1s.set(p.h1s.get() | done);
        p.h2s.set(p.h2s.get() | done);
    }

    /// Finalizes both output words of the prefixes of `want`'s bits (below `len`) four at a
    /// time, rotating with `r`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn finalize<R: Rotate>(r: R, p: &PrefixHashes, want: u64) {
        match p.variant {
            SipVariant::Sip13 => run::<R, 1, 3>(r, p, want),
            SipVariant::Sip24 => run::<R, 2, 4>(r, p, want),
        }
    }

    /// [`finalize`] in AVX2.
    #[target_feature(enable = "avx2")]
    pub(in crate::hash) fn finalize_avx2(p: &PrefixHashes, want: u64) {
        finalize(Avx2::new(), p, want);
    }

    /// [`finalize`] with AVX-512VL's rotates.
    #[target_feature(enable = "avx2,avx512f,avx512vl")]
    pub(in crate::hash) fn finalize_avx512(p: &PrefixHashes, want: u64) {
        finalize(Avx512::new(), p, want);
    }
}
