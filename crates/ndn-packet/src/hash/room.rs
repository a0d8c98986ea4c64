//! A name's bytes with at least 8 more after them (an Interest's name is followed by its other
//! elements): a word that starts inside the name, or at its end, is a whole word inside the
//! buffer, so the whole-word walk loads it with no bounds check. The one unsafe step is that
//! load; the constructor checks the room once per name.

use super::slots::pack_last;
use super::Sip;

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
        (len.checked_add(8)? <= bytes.len()).then_some(Self { bytes, len })
    }

    /// Compresses into `s` the name's whole words from `*done` (a multiple of 8, at most
    /// `end`) up to `end` rounded down, leaving `*done` there, and returns the last block of
    /// the prefix ending at `end`, packed (`slots::pack_last`: the word at the tail's start
    /// and the length byte, one load and no mask).
    /// `None` (and nothing done) when `end` is past the name: a walk's ends are inside it
    /// (`NameRef::scan_common` checks each), so after that check this one compiles away.
    #[inline(always)]
    pub(super) fn advance<const C: usize>(
        &self,
        s: &mut Sip,
        done: &mut usize,
        end: usize,
    ) -> Option<u64> {
        if end > self.len {
            return None;
        }
        let whole = end & !7;
        while *done < whole {
            #[allow(unsafe_code)]
            // SAFETY: `done < whole <= end <= len`.
            s.compress::<C>(unsafe { self.word(*done) });
            *done += 8;
        }
        #[allow(unsafe_code)]
        // SAFETY: `whole <= end <= len`.
        Some(pack_last(unsafe { self.word(whole) }, end))
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
