//! The identity of a whole name ([`NameId`]): one name at a time, or several at once (AVX2,
//! with AVX-512VL's rotates where the CPU has them) with the scalar path as fallback.
//!
//! SipHash is serial inside one message, but the Data names of a burst are independent: four of
//! them are hashed side by side, each SipHash state word of the four names in one 256-bit register,
//! so a compression or finalization round costs the 20 vector instructions of [`super::lanes`] (14
//! with AVX-512VL's rotates) for four names instead of 14 scalar ones for each. Each lane absorbs
//! its own name's words (one gather per word for all four); once the shortest name has no whole
//! word left, a word step runs under a lane mask (the gather skips the lanes whose name is done,
//! and a blend keeps their state), so every lane ends on its own name's last block. The last blocks
//! come from one more gather when every name has a whole word (each name's last 8 bytes, shifted),
//! else the scalar way. Both output words are finalized in lanes. Results equal
//! [`NameHasher::name_id`]'s bit for bit (same operations on the same words; tested). The
//! instruction set is picked at run time ([`Simd::best`], kept by the hasher); without AVX2, and
//! for a group of one name, each name is hashed the scalar way.

use super::simd::Simd;
use super::{finish2, NameHasher, PrefixHashes, Sip, SipVariant};
use crate::name::NameRef;

/// The keyed identity of one whole name and its component count: all a Data needs in the
/// common case (its token's entry and its CS key are keyed on the full name alone). Equal to
/// [`PrefixHashes::id128`] of the whole name (and its low word to [`PrefixHashes::full`]) under
/// the same key, so tables keyed either way agree. Built by [`NameHasher::name_id`] or, during
/// the decoder's walk, by `Data::new_checked_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NameId {
    id: u128,
    components: usize,
}

impl NameId {
    /// The 128-bit keyed identity (SipHash-128 of the name's TLV-VALUE).
    #[inline]
    pub fn id128(&self) -> u128 {
        self.id
    }

    /// The 64-bit table hash: the identity's low word.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.id as u64
    }

    /// Number of components of the name.
    #[inline]
    pub fn components(&self) -> usize {
        self.components
    }
}

impl PrefixHashes {
    /// The whole name's identity, as [`NameHasher::name_id`] gives it.
    pub fn name_id(&self) -> NameId {
        let components = self.components();
        NameId {
            id: self.id128(components).unwrap_or(0),
            components,
        }
    }
}

impl NameHasher {
    /// The identity of a checked name: one run over its TLV-VALUE, whole words at a time, and
    /// one 128-bit finalization (no per-prefix state, unlike [`Self::hash_prefixes`]).
    pub fn name_id(&self, name: NameRef<'_>) -> NameId {
        self.id_of_value(name.value(), name.len())
    }

    /// [`Self::name_id`] of the name whose TLV-VALUE is `value`, with `components` components
    /// already counted by the caller's checking walk.
    #[inline(always)]
    pub(crate) fn id_of_value(&self, value: &[u8], components: usize) -> NameId {
        #[inline(always)]
        fn run<const C: usize, const D: usize>(root: Sip, value: &[u8]) -> u128 {
            let (h1, f) = root.hash_whole::<C, D>(value);
            u128::from(finish2::<D>(f)) << 64 | u128::from(h1)
        }
        let id = match self.variant {
            SipVariant::Sip13 => run::<1, 3>(self.root, value),
            SipVariant::Sip24 => run::<2, 4>(self.root, value),
        };
        NameId { id, components }
    }
}

/// Names hashed side by side.
pub const ID_LANES: usize = 4;

impl NameHasher {
    /// The identities of checked names, each given with its component count as the decoder's
    /// walk counted it (`Data::new_checked_counted`): `out(i, id)` is called once for each
    /// `names[i]`, `id` being [`Self::name_id`] of `names[i].0`. Groups of [`ID_LANES`] names
    /// are hashed side by side; a forwarder decodes a group of Data and then asks for their
    /// identities together, `out` storing each one straight into its Data's view (no list of
    /// identities to copy from).
    #[allow(unsafe_code)]
    pub fn name_ids(&self, names: &[(NameRef<'_>, usize)], out: impl FnMut(usize, NameId)) {
        // SAFETY: `self.simd` is `Simd::best`, a path the CPU runs.
        unsafe { self.name_ids_with(self.simd, names, out) }
    }

    /// [`Self::name_ids`] on the path `simd`.
    ///
    /// # Safety
    ///
    /// The CPU runs `simd` ([`Simd::runs`]).
    #[inline]
    #[allow(unsafe_code)]
    pub(super) unsafe fn name_ids_with(
        &self,
        simd: Simd,
        names: &[(NameRef<'_>, usize)],
        mut out: impl FnMut(usize, NameId),
    ) {
        match simd {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2, AVX-512F and AVX-512VL: the caller's contract.
            Simd::Avx512 if names.len() > 1 => unsafe { x86::name_ids_avx512(self, names, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2: the caller's contract.
            Simd::Avx2 if names.len() > 1 => unsafe { x86::name_ids_avx2(self, names, out) },
            _ => {
                for (i, &(name, components)) in names.iter().enumerate() {
                    out(i, self.id_of_value(name.value(), components));
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use core::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_blendv_epi8, _mm256_cmpgt_epi64,
        _mm256_i64gather_epi64, _mm256_mask_i64gather_epi64, _mm256_or_si256,
        _mm256_permute2x128_si256, _mm256_set1_epi64x, _mm256_set_epi64x, _mm256_setzero_si256,
        _mm256_slli_epi64, _mm256_srli_epi64, _mm256_srlv_epi64, _mm256_storeu_si256,
        _mm256_sub_epi64, _mm256_unpackhi_epi64, _mm256_unpacklo_epi64, _mm256_xor_si256,
    };

    use super::super::lanes::x86::{fold, round, Avx2, Avx512, Rotate};
    use super::super::{NameHasher, Sip, SipVariant};
    use super::NameId;
    use super::ID_LANES;
    use crate::name::NameRef;

    /// [`NameHasher::name_ids`]: whole groups side by side, rotating with `r`; a last group of
    /// one name the scalar way, of two or three with the padding lanes repeating its first name.
    #[inline(always)]
    fn name_ids<R: Rotate>(
        r: R,
        h: &NameHasher,
        names: &[(NameRef<'_>, usize)],
        out: impl FnMut(usize, NameId),
    ) {
        // SAFETY: a `Rotate` is made only where the CPU runs AVX2.
        unsafe {
            match h.variant {
                SipVariant::Sip13 => run::<R, 1, 3>(r, h, names, out),
                SipVariant::Sip24 => run::<R, 2, 4>(r, h, names, out),
            }
        }
    }

    /// [`name_ids`] in AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn name_ids_avx2(
        h: &NameHasher,
        names: &[(NameRef<'_>, usize)],
        out: impl FnMut(usize, NameId),
    ) {
        name_ids(Avx2::new(), h, names, out);
    }

    /// [`name_ids`] with AVX-512VL's rotates.
    #[target_feature(enable = "avx2,avx512f,avx512vl")]
    pub(super) fn name_ids_avx512(
        h: &NameHasher,
        names: &[(NameRef<'_>, usize)],
        out: impl FnMut(usize, NameId),
    ) {
        name_ids(Avx512::new(), h, names, out);
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn run<R: Rotate, const C: usize, const D: usize>(
        r: R,
        h: &NameHasher,
        names: &[(NameRef<'_>, usize)],
        mut out: impl FnMut(usize, NameId),
    ) {
        // A forwarder asks for one group at a time: without the loop, nothing of the group's
        // work (the key's broadcast, `out`'s targets) is hoisted out of it to be kept on the
        // stack and read back, and `out` is passed as it is, so each lane's index is a
        // constant where it is called.
        if names.len() <= ID_LANES {
            group::<R, C, D>(r, h, names, &mut out);
            return;
        }
        for (g, names) in names.chunks(ID_LANES).enumerate() {
            group::<R, C, D>(r, h, names, &mut |k, id| out(g * ID_LANES + k, id));
        }
    }

    /// The identities of `names` (at most [`ID_LANES`]): `out(k, id)` for `names[k]`; one name
    /// the scalar way, two or three with the padding lanes repeating the first.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn group<R: Rotate, const C: usize, const D: usize>(
        r: R,
        h: &NameHasher,
        names: &[(NameRef<'_>, usize)],
        out: &mut impl FnMut(usize, NameId),
    ) {
        let [a, b, c, d] = match *names {
            [a, b, c, d] => [a, b, c, d],
            [a, b, c] => [a, b, c, a],
            [a, b] => [a, b, a, a],
            [(name, components)] => {
                out(0, h.id_of_value(name.value(), components));
                return;
            }
            _ => return,
        };
        let lanes = [a, b, c, d];
        // Written out: `lanes.map(..)` was an out-of-line `array::map` call here.
        let values = [a.0.value(), b.0.value(), c.0.value(), d.0.value()];
        ids::<R, C, D>(r, &h.root, values, names.len(), |k, id| {
            if let Some(&(_, components)) = lanes.get(k) {
                out(k, NameId { id, components });
            }
        });
    }

    /// [`Sip::compress`] of the four lanes' words `m`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn compress<R: Rotate, const C: usize>(r: R, v: &mut [__m256i; 4], m: __m256i) {
        v[3] = _mm256_xor_si256(v[3], m);
        for _ in 0..C {
            round(r, v);
        }
        v[0] = _mm256_xor_si256(v[0], m);
    }

    /// The 128-bit identities (SipHash-128 from the keyed state `root`) of the four byte
    /// strings `values`, lane by lane what [`super::super::NameHasher::id_of_value`] computes:
    /// `out(k, id)` for each lane `k < used` (the others are a short group's padding).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn ids<R: Rotate, const C: usize, const D: usize>(
        r: R,
        root: &Sip,
        values: [&[u8]; 4],
        used: usize,
        mut out: impl FnMut(usize, u128),
    ) {
        let [a, b, c, d] = values;
        let words = values.map(|x| x.len() / 8);
        let common = words.iter().copied().min().unwrap_or(0);
        let longest = words.iter().copied().max().unwrap_or(0);
        // Lane `k` reads `values[k]` at `base + at[k]`; `at` advances a word per step.
        let base = a.as_ptr();
        let off = |x: &[u8]| (x.as_ptr() as usize).wrapping_sub(base as usize) as i64;
        let start = _mm256_set_epi64x(off(d), off(c), off(b), 0);
        let mut at = start;
        let step = _mm256_set1_epi64x(8);
        let mut v = root.v.map(|w| _mm256_set1_epi64x(w as i64));
        for _ in 0..common {
            // SAFETY: this is step `t < common`, and `at[k] = values[k].as_ptr() - base + 8t`:
            // each lane reads bytes `8t..8t + 8` of its string, inside it since `8t + 8 <=
            // 8 * common <= values[k].len()`. The gather has no alignment rule.
            let m = unsafe { _mm256_i64gather_epi64::<1>(base.cast(), at) };
            compress::<R, C>(r, &mut v, m);
            at = _mm256_add_epi64(at, step);
        }
        let lens = _mm256_set_epi64x(
            d.len() as i64,
            c.len() as i64,
            b.len() as i64,
            a.len() as i64,
        );
        // Where each lane's whole words end: `start + 8 * (len / 8)`, the offset `at` reaches
        // after its last word. Compared with `at` itself, no step count is kept (an offset is
        // a difference of two addresses, far from the `i64` bounds: the signed compare holds).
        let ends = _mm256_add_epi64(start, _mm256_slli_epi64::<3>(_mm256_srli_epi64::<3>(lens)));
        for _ in common..longest {
            // Lanes whose string still has a whole word at this step.
            let live = _mm256_cmpgt_epi64(ends, at);
            // SAFETY: as above for the live lanes (the step is below their word count); the
            // gather does not read for a lane whose mask is clear (it takes the zero source).
            let m = unsafe {
                _mm256_mask_i64gather_epi64::<1>(_mm256_setzero_si256(), base.cast(), at, live)
            };
            let mut n = v;
            compress::<R, C>(r, &mut n, m);
            for (w, n) in v.iter_mut().zip(n) {
                *w = _mm256_blendv_epi8(*w, n, live);
            }
            at = _mm256_add_epi64(at, step);
        }
        let m = if common > 0 {
            // Every string has 8 bytes or more: its tail is the top `len % 8` bytes of its last
            // 8 (a shift by 64 leaves 0 for a string of whole words).
            let back = _mm256_sub_epi64(_mm256_add_epi64(start, lens), step);
            // SAFETY: lane `k` reads bytes `len - 8..len` of `values[k]` (`len >= 8`).
            let w = unsafe { _mm256_i64gather_epi64::<1>(base.cast(), back) };
            let tail_bits = _mm256_slli_epi64::<3>(_mm256_and_si256(lens, _mm256_set1_epi64x(7)));
            let tail = _mm256_srlv_epi64(w, _mm256_sub_epi64(_mm256_set1_epi64x(64), tail_bits));
            _mm256_or_si256(tail, _mm256_slli_epi64::<56>(lens))
        } else {
            let last = |x: &[u8]| Sip::last_block(x, x.len() & !7, x.len()) as i64;
            _mm256_set_epi64x(last(d), last(c), last(b), last(a))
        };
        compress::<R, C>(r, &mut v, m);
        v[2] = _mm256_xor_si256(v[2], _mm256_set1_epi64x(0xee));
        for _ in 0..D {
            round(r, &mut v);
        }
        let h1 = fold(v);
        v[1] = _mm256_xor_si256(v[1], _mm256_set1_epi64x(0xdd));
        for _ in 0..D {
            round(r, &mut v);
        }
        let h2 = fold(v);
        // Lane `k`'s identity is `h2[k] << 64 | h1[k]`: the little-endian pair (h1[k], h2[k]).
        let (lo, hi) = (_mm256_unpacklo_epi64(h1, h2), _mm256_unpackhi_epi64(h1, h2));
        let mut ids = [0u128; 4];
        let (first, second) = ids.split_at_mut(2);
        // SAFETY: each half of `ids` is two `u128`s, 32 writable bytes; `storeu` has no
        // alignment rule.
        unsafe {
            _mm256_storeu_si256(
                first.as_mut_ptr().cast(),
                _mm256_permute2x128_si256::<0x20>(lo, hi),
            );
            _mm256_storeu_si256(
                second.as_mut_ptr().cast(),
                _mm256_permute2x128_si256::<0x31>(lo, hi),
            );
        }
        for (k, id) in ids.into_iter().enumerate().take(used) {
            out(k, id);
        }
    }
}
