//! The 64-byte bucket: seven (fingerprint, index) slots, an overflow link and a metadata word.
//!
//! ```text
//! offset  size  field
//!      0    56  slots[0..7]: AtomicU64 each = fingerprint << 32 | entry index; 0 = empty
//!     56     4  next: AtomicU32  = absolute bucket number of the overflow bucket, 0 = end of chain
//!     60     4  meta: AtomicU32  = bits 0..7 occupancy (bit i <=> slots[i] != 0), writer-maintained;
//!                                  bits 7..32 chain version (home buckets only), bumped whenever an
//!                                  overflow bucket is unlinked from this chain
//! ```
//!
//! Empty-slot encoding: a fingerprint is the high 32 bits of the hash with bit 0 forced to 1
//! ([`fingerprint`]), so an occupied slot is never 0 and 0 means empty. This costs one bit of
//! fingerprint (false-positive rate 2^-31 per occupied slot) and lets a reader test a slot with
//! one load and one compare, or the whole bucket with one SIMD compare (`raw::scan`), since an
//! empty slot never matches. Readers never look at the occupancy bits, which only the writer
//! uses to find a free slot and an empty overflow bucket.
//!
//! Bucket 0 is always a home bucket, so `next == 0` can mean "no overflow".

use core::mem::{align_of, offset_of, size_of};
use core::sync::atomic::{AtomicU32, AtomicU64};

/// Slots per bucket.
pub(crate) const SLOTS: usize = 7;
/// Bucket size: one cache line.
pub const BUCKET_BYTES: usize = 64;

/// `meta` bits holding the slot occupancy mask.
pub(crate) const OCC_MASK: u32 = (1 << SLOTS) - 1;
/// One step of the chain version held in the other `meta` bits.
pub(crate) const VERSION_ONE: u32 = 1 << SLOTS;

/// One cache line of the table. See the module docs for the layout.
#[repr(C, align(64))]
pub(crate) struct Bucket {
    /// `fingerprint << 32 | index`, or 0 when empty.
    pub(crate) slots: [AtomicU64; SLOTS],
    /// Absolute bucket number of the next bucket in the chain, 0 = none.
    pub(crate) next: AtomicU32,
    /// Occupancy bits and chain version.
    pub(crate) meta: AtomicU32,
}

const _: () = assert!(size_of::<Bucket>() == BUCKET_BYTES);
const _: () = assert!(align_of::<Bucket>() == BUCKET_BYTES);
const _: () = assert!(offset_of!(Bucket, slots) == 0);
const _: () = assert!(offset_of!(Bucket, next) == 56);
const _: () = assert!(offset_of!(Bucket, meta) == 60);
const _: () = assert!(OCC_MASK & VERSION_ONE == 0);

/// The 32-bit fingerprint stored for `hash`: its high half with bit 0 set (never 0).
///
/// The home bucket is chosen by the low bits of the same hash, so a table cannot tell apart two
/// hashes that agree on the home bits and on this fingerprint; the caller's equality closure
/// always makes the final decision.
#[inline(always)]
pub const fn fingerprint(hash: u64) -> u32 {
    ((hash >> 32) as u32) | 1
}

/// Slot word for (`fp`, `index`); never 0 because `fp` is odd.
#[inline(always)]
pub(crate) const fn encode(fp: u32, index: u32) -> u64 {
    ((fp as u64) << 32) | index as u64
}

/// Fingerprint half of a slot word.
#[inline(always)]
pub(crate) const fn slot_fp(slot: u64) -> u32 {
    (slot >> 32) as u32
}

/// Index half of a slot word.
#[inline(always)]
pub(crate) const fn slot_index(slot: u64) -> u32 {
    slot as u32
}

/// Where [`BucketTable::insert_at`](crate::BucketTable::insert_at) stored one (fingerprint, index) pair, for
/// [`BucketTable::remove_at`](crate::BucketTable::remove_at): its slot number in its home bucket, or
/// `SlotRef::OVERFLOW` when an overflow bucket of the chain took it (`Default`: none).
/// Entries never move, so it stays valid until the pair is removed. One byte, to sit in a
/// spare byte of the caller's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotRef(pub(crate) u8);

impl SlotRef {
    /// A pair in an overflow bucket: [`BucketTable::remove_at`](crate::BucketTable::remove_at)
    /// walks the chain for it.
    pub(crate) const OVERFLOW: Self = Self(SLOTS as u8);

    /// The pair's slot in its home bucket (`0..7`), or `None` (an overflow bucket, or no slot),
    /// for [`BucketTable::insert_at_clearing`](crate::BucketTable::insert_at_clearing)'s mask.
    #[inline(always)]
    pub fn home_slot(self) -> Option<u8> {
        (usize::from(self.0) < SLOTS).then_some(self.0)
    }
}

impl Default for SlotRef {
    /// No slot: [`BucketTable::remove_at`](crate::BucketTable::remove_at) walks the chain.
    fn default() -> Self {
        Self(u8::MAX)
    }
}

/// Portable `raw::scan::fp_match_bits`: bit `2 * s + 1` set <=> slot `s`'s fingerprint is
/// `fp`, one relaxed load and compare per slot (the SSE2 version's reference in tests).
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(crate) fn fp_match_bits_scalar(bucket: &Bucket, fp: u32) -> u32 {
    let mut bits = 0;
    for (s, slot) in bucket.slots.iter().enumerate() {
        if slot_fp(slot.load(core::sync::atomic::Ordering::Relaxed)) == fp {
            bits |= 2 << (2 * s);
        }
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_one_cache_line() {
        assert_eq!(size_of::<Bucket>(), 64);
        assert_eq!(align_of::<Bucket>(), 64);
        assert_eq!(offset_of!(Bucket, next), 7 * 8);
        assert_eq!(offset_of!(Bucket, meta), 7 * 8 + 4);
    }

    #[test]
    fn fingerprint_never_zero_and_slot_roundtrips() {
        for h in [
            0u64,
            1,
            u64::MAX,
            0xFFFF_FFFF,
            0x1_0000_0000,
            0xDEAD_BEEF_0000_0000,
        ] {
            let fp = fingerprint(h);
            assert_eq!(fp & 1, 1);
            assert_eq!(fp | 1, ((h >> 32) as u32) | 1);
            for idx in [0u32, 1, u32::MAX] {
                let s = encode(fp, idx);
                assert_ne!(s, 0);
                assert_eq!(slot_fp(s), fp);
                assert_eq!(slot_index(s), idx);
            }
        }
    }
}
