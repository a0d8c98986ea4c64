//! A name's bytes with at least 8 more after them (an Interest's name is followed by its other
//! elements): a word that starts inside the name, or at its end, is a whole word inside the
//! buffer, so the whole-word walk loads it with no bounds check. The one unsafe step is that
//! load; the constructor checks the room once per name.

use super::slots::{self, pack_last};
use super::Sip;
use crate::name::NameVisitor;

/// The first `len` bytes of `bytes` are a name; `bytes.len() >= len + 8`.
#[derive(Clone, Copy)]
pub(super) struct Room<'r> {
    bytes: &'r [u8],
    len: usize,
}

impl<'r> Room<'r> {
    /// The name `bytes[..len]` when `bytes` has 8 bytes or more after it.
    #[inline(always)]
    pub(super) fn new(bytes: &'r [u8], len: usize) -> Option<Self> {
        (bytes.len().checked_sub(len)? >= 8).then_some(Self { bytes, len })
    }

    /// Compresses into `s` the name's whole words from `*next - 8` (a multiple of 8, at most
    /// `end`) up to `end` rounded down, leaving `*next` 8 past there (the end of the next word
    /// to absorb), and returns the last block of the prefix ending at `end`, packed
    /// (`slots::pack_last`: the word at the tail's start and the length byte, one load and no
    /// mask). Kept as the next word's end, the bound is one compare with `end` (no rounding)
    /// and the tail's word is the one before it.
    /// `None` (and nothing done) when `end` is past the name: a walk's ends are inside it
    /// (`NameRef::scan_common` checks each), so after that check this one compiles away.
    #[inline(always)]
    pub(super) fn advance<const C: usize>(
        &self,
        s: &mut Sip,
        next: &mut usize,
        end: usize,
    ) -> Option<u64> {
        if end > self.len {
            return None;
        }
        debug_assert!(*next >= 8 && *next % 8 == 0 && *next - 8 <= end);
        while *next <= end {
            #[allow(unsafe_code)]
            // SAFETY: `next - 8 < next <= end <= len`.
            s.compress::<C>(unsafe { self.word(*next - 8) });
            *next += 8;
        }
        #[allow(unsafe_code)]
        // SAFETY: `next - 8 <= end <= len`: it was at most `end` (the caller's contract) and
        // the loop steps only while `next <= end`. It is `end` rounded down to a word.
        Some(pack_last(unsafe { self.word(*next - 8) }, end))
    }

    /// The little-endian word of the 8 bytes at `at`.
    ///
    /// # Safety
    ///
    /// `at <= len`, the name's length.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn word(&self, at: usize) -> u64 {
        debug_assert!(at <= self.len);
        // SAFETY: `at <= len` (the caller's contract) and `len + 8 <= bytes.len()` (checked by
        // `new`): bytes `at..at + 8` are inside `bytes`. `read_unaligned` has no alignment rule.
        u64::from_le(unsafe { self.bytes.as_ptr().add(at).cast::<u64>().read_unaligned() })
    }
}

/// The absorber of the whole-word walk, for a name followed, in its buffer, by at least 8 more
/// bytes (an Interest's name is followed by its other elements): every word it loads, including
/// a prefix's last partial word, is a whole word inside the [`Room`], loaded with no bounds
/// check, so the last block is one load (packed, no mask) instead of `tail`'s cases. Same
/// states and last blocks as the general walk's `Absorber`. `FITS`: the name is at most
/// [`FITS_BYTES`] long, so its prefixes all fit in the head of the slots and are written with
/// no check per prefix.
pub(super) struct RoomAbsorber<'o, 'v, 'r, const C: usize, const FITS: bool> {
    pub(super) s: Sip,
    /// The end of the next word to absorb: bytes absorbed so far (a multiple of 8), plus 8.
    pub(super) next: usize,
    pub(super) room: Room<'r>,
    pub(super) slots: &'o mut slots::Spare<'v>,
}

/// The longest name whose prefixes all fit in the head of the slots: a component TLV takes at
/// least 2 bytes, so a name of at most `2 * (HEAD - 1)` bytes has at most `HEAD - 1` components,
/// `HEAD` prefixes with the root.
pub(super) const FITS_BYTES: usize = 2 * (slots::HEAD - 1);

impl<const C: usize, const FITS: bool> NameVisitor for RoomAbsorber<'_, '_, '_, C, FITS> {
    #[inline(always)]
    fn component(&mut self, _: &[u8], end: usize) {
        if let Some(last) = self.room.advance::<C>(&mut self.s, &mut self.next, end) {
            if FITS {
                #[allow(unsafe_code)]
                // SAFETY: a `FITS` walk is over a name of at most `FITS_BYTES` bytes
                // (`common_with` checks), and `NameRef::scan_common` calls this once per
                // component, each ending at least 2 bytes past the one before (a header is 2
                // bytes): after the root and `k` components, `2k <= end <= FITS_BYTES`, so
                // `k < HEAD` slots are written before this push.
                unsafe {
                    self.slots.push_head(self.s, last);
                }
            } else {
                self.slots.push(self.s, last);
            }
        }
    }
}
