//! The bucket's fingerprint compare: all seven slots in one pass with SSE2 (x86_64 baseline).

use crate::bucket::Bucket;

/// Bit `2 * s + 1` set <=> the fingerprint half of slot `s` equals `fp`; no other bit is set.
///
/// The bucket is read as sixteen 32-bit lanes (lane `2 * s` = slot `s`'s index half, lane
/// `2 * s + 1` its fingerprint half, lanes 14 and 15 = `next` and `meta`); each lane is compared
/// with `fp`, the sixteen results are narrowed to one bit each and the fingerprint lanes kept.
/// About 15 instructions for the whole line instead of four or five per slot.
///
/// The result is a filter taken at one moment: the caller re-loads a matched slot atomically
/// and re-checks its fingerprint before using the index, since the writer may change a slot
/// between this read and that load (exactly as between two slot loads of a scalar scan).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn fp_match_bits(bucket: &Bucket, fp: u32) -> u32 {
    let mask: u32;
    // SAFETY: `bucket` is a valid, 64-byte aligned (`Bucket` is `align(64)`), 64-byte object
    // for the whole call, so the four aligned 16-byte memory operands at offsets 0..64 lie in
    // it and satisfy PCMPEQD's alignment rule. The block only reads that memory and writes its
    // declared registers (no stack, no flags). The slots are atomics the writer may store to
    // concurrently: the asm is outside Rust's memory model, and on x86_64 every aligned 8-byte
    // part of an SSE load is read atomically (Intel SDM vol. 3 §9.1.1), so each slot word is
    // seen whole, as by a relaxed load; the result is only a filter (see above). SSE2 is part
    // of the x86_64 baseline.
    unsafe {
        core::arch::asm!(
            "movd {f}, {fp:e}",
            "pshufd {f}, {f}, 0",
            "movdqa {a}, {f}",
            "pcmpeqd {a}, xmmword ptr [{p}]",
            "movdqa {b}, {f}",
            "pcmpeqd {b}, xmmword ptr [{p} + 16]",
            "packssdw {a}, {b}",
            "movdqa {b}, {f}",
            "pcmpeqd {b}, xmmword ptr [{p} + 32]",
            "pcmpeqd {f}, xmmword ptr [{p} + 48]",
            "packssdw {b}, {f}",
            "packsswb {a}, {b}",
            "pmovmskb {m:e}, {a}",
            p = in(reg) core::ptr::from_ref(bucket),
            fp = in(reg) fp,
            m = lateout(reg) mask,
            f = out(xmm_reg) _,
            a = out(xmm_reg) _,
            b = out(xmm_reg) _,
            options(readonly, nostack, preserves_flags)
        );
    }
    mask & FP_LANES
}

/// Bits of the fingerprint lanes (odd lanes 1..13) in [`fp_match_bits`]' result.
#[cfg(target_arch = "x86_64")]
const FP_LANES: u32 = 0x2AAA;

#[cfg(not(target_arch = "x86_64"))]
pub(crate) use crate::bucket::fp_match_bits_scalar as fp_match_bits;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bucket::fp_match_bits_scalar;
    use core::sync::atomic::{AtomicU32, AtomicU64};
    use proptest::prelude::*;

    fn bucket(slots: [u64; 7], next: u32, meta: u32) -> Bucket {
        Bucket {
            slots: slots.map(AtomicU64::new),
            next: AtomicU32::new(next),
            meta: AtomicU32::new(meta),
        }
    }

    /// A slot word built around `fp`: empty, a match, `fp` only in the index half, both
    /// halves, or anything.
    fn slot(fp: u32) -> impl Strategy<Value = u64> {
        prop_oneof![
            Just(0),
            any::<u32>().prop_map(move |i| u64::from(fp) << 32 | u64::from(i)),
            any::<u32>().prop_map(move |f| u64::from(f | 1) << 32 | u64::from(fp)),
            Just(u64::from(fp) << 32 | u64::from(fp)),
            any::<u64>(),
        ]
    }

    fn case() -> impl Strategy<Value = (u32, [u64; 7], u32, u32)> {
        any::<u32>().prop_flat_map(|fp| {
            let word = prop_oneof![Just(fp), any::<u32>()];
            (
                Just(fp),
                prop::array::uniform7(slot(fp)),
                word.clone(),
                word,
            )
        })
    }

    proptest! {
        /// The SSE2 compare marks exactly the slots the scalar reference marks: never an index
        /// half, `next` or `meta` that happens to equal the fingerprint.
        #[test]
        fn sse2_compare_equals_the_scalar_reference((fp, slots, next, meta) in case()) {
            let b = bucket(slots, next, meta);
            prop_assert_eq!(fp_match_bits(&b, fp), fp_match_bits_scalar(&b, fp));
        }
    }

    #[test]
    fn every_slot_and_only_fingerprint_lanes() {
        let fp = 0x8765_4321;
        for s in 0..7 {
            let mut slots = [u64::from(fp); 7]; // fp in every index half
            slots[s] = u64::from(fp) << 32 | 5;
            let b = bucket(slots, fp, fp);
            assert_eq!(fp_match_bits(&b, fp), 2 << (2 * s), "slot {s}");
        }
        let b = bucket([u64::from(fp) << 32; 7], 0, 0);
        assert_eq!(fp_match_bits(&b, fp), FP_LANES);
        assert_eq!(fp_match_bits(&b, fp ^ 2), 0);
    }
}
