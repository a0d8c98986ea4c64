//! The 24-byte shared data-plane entry: one real prefix and up to two auxiliary records.
//!
//! A prefix is identified by its keyed 128-bit identity `id128 = h2 << 64 | h1`
//! ([`ndn_packet::PrefixHashes::id128`]). `h1` is the table hash: its low bits pick the bucket and
//! its high 32 bits (bit 0 forced) are the slot fingerprint, so the bucket table already checks
//! `31 + log2(buckets)` bits. The entry stores the rest:
//!
//! - the *real* prefix (the one with nexthops): all 64 bits of its `h2`;
//! - each *record* (a binary-search marker or a two-stage virtual entry of some other prefix,
//!   seed 001 Figure 3 sharing): the low [`REC_TAG_BITS`] bits of that prefix's `h2`, so a
//!   record is verified with `31 + 34 = 65` keyed bits beyond the bucket index.
//!
//! ```text
//! word  bits    field
//!   w0  0..64   real tag: h2 of the real prefix (meaningful iff HAS_REAL)
//!   w1  0..32   fwd: index of the (strategy, nexthops) set of the real prefix
//!       32..40  real_md: two-stage MD of the real prefix (kept for prefixes at depth M)
//!       40      HAS_REAL
//!       41,42   record 0 / 1 valid
//!       43,44   record 0 / 1 kind (0 marker, 1 virtual)
//!       45..52  record 0 value (marker: BMP depth; virtual: MD)
//!       52..59  record 1 value
//!       59..61  record 0 tag bits 32..34
//!       61..63  record 1 tag bits 32..34
//!   w2  0..32   record 0 tag bits 0..32
//!       32..64  record 1 tag bits 0..32
//! ```
//!
//! Concurrency rules (one writer, lock-free readers): every field that changes while the entry
//! is reachable (fwd, real_md, record values, valid and HAS_REAL bits) lives in `w1`, so each
//! change is one store and a reader sees the old or the new word, never a mix. Tags (`w0`, `w2`
//! and the tag bits of `w1`) are written before the valid bit that makes them meaningful
//! (Release store of `w1`; readers load `w1` with Acquire first) and are never rewritten while
//! the entry is reachable: a record position is filled once, and a whole entry is reused only
//! after a QSBR grace period.

use std::sync::atomic::{AtomicU64, Ordering};

use ndn_packet::PrefixHashes;

/// Record tag width: bits of the record prefix's `h2` stored per record.
pub const REC_TAG_BITS: u32 = 34;
const REC_TAG_MASK: u64 = (1 << REC_TAG_BITS) - 1;
/// Largest value a record can carry (a depth): 7 bits.
pub const REC_VALUE_MAX: u8 = 127;

const REAL_MD_SHIFT: u32 = 32;
const HAS_REAL: u64 = 1 << 40;
const VALID0: u64 = 1 << 41;
const KIND0: u64 = 1 << 43;
const VALUE0_SHIFT: u32 = 45;
const TAGHI0_SHIFT: u32 = 59;

/// What an auxiliary record stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecKind {
    /// Binary-search marker; value = depth of its best matching real prefix (0: none or root).
    Marker,
    /// Two-stage virtual entry at depth M; value = MD, the deepest real prefix below it.
    Virtual,
}

impl RecKind {
    fn bit(self) -> u64 {
        match self {
            RecKind::Marker => 0,
            RecKind::Virtual => 1,
        }
    }
}

/// One entry: three atomic words (24 bytes, see the module docs).
#[derive(Debug, Default)]
pub struct Entry {
    w: [AtomicU64; 3],
}

const _: () = assert!(core::mem::size_of::<Entry>() == 24);

/// What a probe found in an entry for one prefix identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// The prefix is this entry's real prefix; carries `real_md`.
    Real(u8),
    /// The prefix has a record of the wanted kind here, at position `pos`.
    Record {
        /// The record's value (BMP depth or MD).
        value: u8,
        /// Record position in the entry.
        pos: u8,
    },
}

/// The identity word of the prefix of `level` components that its entry holds and a probe
/// compares (the high half of its 128-bit identity; 0 past the name).
#[inline(always)]
pub(crate) fn h2_of(hashes: &PrefixHashes, level: usize) -> u64 {
    hashes.id128(level).map_or(0, |id| (id >> 64) as u64)
}

/// Tag bits of `h2` kept in a record.
#[inline(always)]
pub fn rec_tag(h2: u64) -> u64 {
    h2 & REC_TAG_MASK
}

#[inline(always)]
fn pos_valid(pos: u8) -> u64 {
    VALID0 << pos
}

#[inline(always)]
fn pos_kind(pos: u8) -> u64 {
    KIND0 << pos
}

#[inline(always)]
fn pos_value_shift(pos: u8) -> u32 {
    VALUE0_SHIFT + 7 * u32::from(pos)
}

#[inline(always)]
fn pos_taghi_shift(pos: u8) -> u32 {
    TAGHI0_SHIFT + 2 * u32::from(pos)
}

/// Reader view of `w1` decoded lazily.
#[derive(Clone, Copy)]
struct W1(u64);

impl W1 {
    fn has_real(self) -> bool {
        self.0 & HAS_REAL != 0
    }
    fn fwd(self) -> u32 {
        self.0 as u32
    }
    fn real_md(self) -> u8 {
        (self.0 >> REAL_MD_SHIFT) as u8
    }
    fn valid(self, pos: u8) -> bool {
        self.0 & pos_valid(pos) != 0
    }
    fn kind_is(self, pos: u8, kind: RecKind) -> bool {
        (self.0 & pos_kind(pos) != 0) == (kind.bit() != 0)
    }
    fn value(self, pos: u8) -> u8 {
        ((self.0 >> pos_value_shift(pos)) & 0x7f) as u8
    }
    fn tag_hi(self, pos: u8) -> u64 {
        (self.0 >> pos_taghi_shift(pos)) & 3
    }
}

impl Entry {
    /// Checks whether this entry answers for the prefix whose `h2` is given: as its real
    /// prefix (if `want_real`) or as a valid record of kind `want_rec`.
    #[inline(always)]
    pub fn probe(&self, h2: u64, want_real: bool, want_rec: Option<RecKind>) -> Option<Found> {
        let w1 = W1(self.w[1].load(Ordering::Acquire));
        if want_real && w1.has_real() && self.w[0].load(Ordering::Relaxed) == h2 {
            return Some(Found::Real(w1.real_md()));
        }
        let kind = want_rec?;
        let tag = rec_tag(h2);
        let w2 = self.w[2].load(Ordering::Relaxed);
        for pos in 0..2u8 {
            if w1.valid(pos) && w1.kind_is(pos, kind) {
                let lo = (w2 >> (32 * u32::from(pos))) & 0xffff_ffff;
                if lo | w1.tag_hi(pos) << 32 == tag {
                    return Some(Found::Record {
                        value: w1.value(pos),
                        pos,
                    });
                }
            }
        }
        None
    }

    /// `probe(h2, true, None)` answering `Found::Real` for the same `w1` load, as the fwd index
    /// of that real prefix: a lookup that confirms and then fetches the nexthop set reads the
    /// entry once instead of twice.
    #[inline(always)]
    pub fn real_fwd(&self, h2: u64) -> Option<u32> {
        let w1 = W1(self.w[1].load(Ordering::Acquire));
        (w1.has_real() && self.w[0].load(Ordering::Relaxed) == h2).then_some(w1.fwd())
    }

    /// The fwd index of the real prefix (read after a successful `probe`).
    #[inline(always)]
    pub fn fwd(&self) -> u32 {
        W1(self.w[1].load(Ordering::Acquire)).fwd()
    }

    // ---- writer side (single writer: plain load / compute / store) ----

    /// Writes a fresh, unreachable entry: optional real part and no records.
    pub fn init(&self, real: Option<(u64, u32, u8)>) {
        let (w0, w1) = match real {
            Some((h2, fwd, md)) => (
                h2,
                u64::from(fwd) | u64::from(md) << REAL_MD_SHIFT | HAS_REAL,
            ),
            None => (0, 0),
        };
        self.w[0].store(w0, Ordering::Relaxed);
        self.w[2].store(0, Ordering::Relaxed);
        self.w[1].store(w1, Ordering::Release);
    }

    /// Fills record position `pos` (never used before in this entry's life) and makes it valid.
    pub fn set_record(&self, pos: u8, kind: RecKind, h2: u64, value: u8) {
        let tag = rec_tag(h2);
        let shift = 32 * u32::from(pos);
        let w2 = self.w[2].load(Ordering::Relaxed) & !(0xffff_ffff << shift);
        self.w[2].store(w2 | (tag & 0xffff_ffff) << shift, Ordering::Release);
        let mut w1 = self.w[1].load(Ordering::Relaxed);
        w1 &= !(pos_kind(pos) | 0x7f << pos_value_shift(pos) | 3 << pos_taghi_shift(pos));
        w1 |= kind.bit() << (43 + u32::from(pos))
            | u64::from(value.min(REC_VALUE_MAX)) << pos_value_shift(pos)
            | (tag >> 32) << pos_taghi_shift(pos)
            | pos_valid(pos);
        self.w[1].store(w1, Ordering::Release);
    }

    fn update_w1(&self, f: impl FnOnce(u64) -> u64) {
        let w1 = self.w[1].load(Ordering::Relaxed);
        self.w[1].store(f(w1), Ordering::Release);
    }

    /// Changes a valid record's value in place.
    pub fn set_record_value(&self, pos: u8, value: u8) {
        let shift = pos_value_shift(pos);
        self.update_w1(|w| w & !(0x7f << shift) | u64::from(value.min(REC_VALUE_MAX)) << shift);
    }

    /// Current value of record `pos`.
    pub fn record_value(&self, pos: u8) -> u8 {
        W1(self.w[1].load(Ordering::Relaxed)).value(pos)
    }

    /// Invalidates record `pos` (its tag stays until the entry is reused).
    pub fn clear_record(&self, pos: u8) {
        self.update_w1(|w| w & !pos_valid(pos));
    }

    /// Replaces the real prefix's fwd index in place.
    pub fn set_fwd(&self, fwd: u32) {
        self.update_w1(|w| w & !0xffff_ffff | u64::from(fwd));
    }

    /// Replaces the real prefix's two-stage MD in place.
    pub fn set_real_md(&self, md: u8) {
        self.update_w1(|w| w & !(0xff << REAL_MD_SHIFT) | u64::from(md) << REAL_MD_SHIFT);
    }

    /// Removes the real part (the tag stays until the entry is reused).
    pub fn clear_real(&self) {
        self.update_w1(|w| w & !HAS_REAL);
    }

    /// True when neither a real prefix nor any record is valid.
    pub fn is_empty(&self) -> bool {
        let w1 = W1(self.w[1].load(Ordering::Relaxed));
        !w1.has_real() && !w1.valid(0) && !w1.valid(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_and_records_probe_exactly() {
        let e = Entry::default();
        let (p, x, y) = (
            0x1234_5678_9abc_def0u64,
            0xffff_fffe_0000_0001,
            0x3_0000_0005,
        );
        e.init(Some((p, 77, 4)));
        assert_eq!(e.probe(p, true, None), Some(Found::Real(4)));
        assert_eq!(e.probe(p ^ 1, true, None), None);
        assert_eq!(
            e.probe(p, false, Some(RecKind::Marker)),
            None,
            "real not wanted"
        );
        assert_eq!(e.fwd(), 77);
        assert_eq!(e.real_fwd(p), Some(77));
        assert_eq!(e.real_fwd(p ^ 1), None);
        e.set_record(0, RecKind::Marker, x, 3);
        e.set_record(1, RecKind::Virtual, y, 9);
        assert_eq!(
            e.probe(x, true, Some(RecKind::Marker)),
            Some(Found::Record { value: 3, pos: 0 })
        );
        assert_eq!(
            e.probe(x, true, Some(RecKind::Virtual)),
            None,
            "kind checked"
        );
        assert_eq!(
            e.probe(y, false, Some(RecKind::Virtual)),
            Some(Found::Record { value: 9, pos: 1 })
        );
        // Tag bits 32..34 are checked; bits 34.. are not stored.
        assert_eq!(e.probe(y ^ (1 << 33), false, Some(RecKind::Virtual)), None);
        assert_eq!(
            e.probe(y ^ (1 << 40), false, Some(RecKind::Virtual)),
            Some(Found::Record { value: 9, pos: 1 })
        );
        e.set_record_value(1, 11);
        e.set_fwd(5);
        e.set_real_md(6);
        assert_eq!(
            e.probe(y, false, Some(RecKind::Virtual)),
            Some(Found::Record { value: 11, pos: 1 })
        );
        assert_eq!(e.probe(p, true, None), Some(Found::Real(6)));
        assert_eq!(e.fwd(), 5);
        assert_eq!(e.real_fwd(p), Some(5));
        assert_eq!(
            e.real_fwd(x),
            None,
            "a record's identity is not the real prefix"
        );
        assert_eq!(
            e.probe(x, false, Some(RecKind::Marker)),
            Some(Found::Record { value: 3, pos: 0 })
        );
        e.clear_real();
        e.clear_record(0);
        assert!(!e.is_empty());
        assert_eq!(e.probe(p, true, None), None);
        assert_eq!(e.probe(x, false, Some(RecKind::Marker)), None);
        e.clear_record(1);
        assert!(e.is_empty());
    }
}
