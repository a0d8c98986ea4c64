//! Keyed SipHash of every name prefix in ONE pass (seed 000 §2.1).
//!
//! The hasher absorbs the name's component TLVs as one byte stream and, at each component
//! boundary, records the running state and the prefix's last block: H1..Hn cost one pass over
//! the name plus one finalization per prefix actually read (done on first read and cached),
//! instead of n passes. The stream is the prefix's TLV-VALUE (the
//! concatenated component TLVs), so equal prefixes hash equally whatever name they come from, and
//! `H0` (the root `/`) is computed once per key. The walk over the components is the decoder's
//! own checking walk ([`NameRef::new_checked`]'s): `Interest::new_checked_hashed` hashes the
//! prefixes while it checks the name, so a forwarded packet's name is read once;
//! [`NameHasher::hash_prefixes`] runs the same walk on a checked name. A Data needs its whole
//! name's identity only ([`NameId`], `Data::new_checked_id`): one run over the name's words;
//! [`NameHasher::name_ids`] hashes a group of such names side by side in vector lanes.
//!
//! The core is SipHash-128 (c-d rounds selectable: 1-3 or 2-4). The first output word `h1`,
//! which costs the same as 64-bit SipHash, is the table hash. The second word is finished lazily
//! from the saved state by [`PrefixHashes::id128`] when a caller needs a 128-bit keyed identity
//! (the FIB stores that instead of names). The key is drawn from the OS at start-up
//! ([`NameHasher::from_os`]); an outsider who does not know it cannot aim names at one bucket.

use core::cell::Cell;
use core::ops::RangeInclusive;

use crate::name::{NameRef, NameScan, NameVisitor};
use crate::DecodeError;

mod ids;
mod lanes;
mod room;
mod simd;
mod slots;

pub use ids::{NameId, ID_LANES};

/// Which SipHash round counts to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SipVariant {
    /// SipHash-1-3: one compression round, three finalization rounds (faster).
    #[default]
    Sip13,
    /// SipHash-2-4: the conservative original.
    Sip24,
}

impl core::str::FromStr for SipVariant {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "1-3" | "sip13" => Ok(Self::Sip13),
            "2-4" | "sip24" => Ok(Self::Sip24),
            _ => Err(()),
        }
    }
}

/// SipHash state after the first finalization, enough to finish the second output word.
type Finished = [u64; 4];

/// The four SipHash state words. The message is never buffered: a name is one contiguous buffer,
/// so whole 8-byte words are compressed straight from it and only the tail of the current prefix
/// is loaded, at finalization.
#[derive(Clone, Copy)]
struct Sip {
    v: [u64; 4],
}

#[inline(always)]
fn round(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13) ^ v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16) ^ v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21) ^ v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17) ^ v[2];
    v[2] = v[2].rotate_left(32);
}

/// Little-endian load of up to 8 bytes, zero-padded: a byte loop, since a copy of a variable
/// length compiles to a `memcpy` call that costs more than the few bytes it moves.
#[inline(always)]
fn load(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .take(8)
        .rev()
        .fold(0, |w, &b| w << 8 | u64::from(b))
}

/// The little-endian word of `buf[at..at + 8]`, or 0 past the end (callers stay inside).
#[inline(always)]
fn word(buf: &[u8], at: usize) -> u64 {
    buf.get(at..at + 8)
        .and_then(|w| <[u8; 8]>::try_from(w).ok())
        .map_or(0, u64::from_le_bytes)
}

/// The `end - done` (< 8) bytes of `buf[done..end]` as a zero-padded little-endian word: one
/// whole-word load and a mask when the buffer has 8 bytes from `done`; otherwise the buffer's
/// last word shifted down (the tail of a name is near its end); a byte loop for names shorter
/// than a word.
#[inline(always)]
fn tail(buf: &[u8], done: usize, end: usize) -> u64 {
    let mask = (1u64 << (8 * (end - done))) - 1;
    if done + 8 <= buf.len() {
        word(buf, done) & mask
    } else if let Some(back) = buf.len().checked_sub(8) {
        // `back < done <= back + 8`: the tail starts `done - back` bytes into the last word.
        let shift = 8 * (done - back) as u32;
        word(buf, back).checked_shr(shift).unwrap_or(0) & mask
    } else {
        load(buf.get(done..end).unwrap_or_default())
    }
}

impl Sip {
    fn new(k0: u64, k1: u64) -> Self {
        Self {
            v: [
                k0 ^ 0x736f_6d65_7073_6575,
                k1 ^ 0x646f_7261_6e64_6f6d ^ 0xee,
                k0 ^ 0x6c79_6765_6e65_7261,
                k1 ^ 0x7465_6462_7974_6573,
            ],
        }
    }

    #[inline(always)]
    fn compress<const C: usize>(&mut self, m: u64) {
        self.v[3] ^= m;
        for _ in 0..C {
            round(&mut self.v);
        }
        self.v[0] ^= m;
    }

    /// Compresses the words of `buf` from offset `from` up to `to`, both multiples of 8 (a
    /// word past the end of `buf` would read as 0; callers stay inside).
    #[inline(always)]
    fn absorb_words<const C: usize>(&mut self, buf: &[u8], from: usize, to: usize) {
        let mut at = from;
        while at < to {
            self.compress::<C>(word(buf, at));
            at += 8;
        }
    }

    /// The last block of the message `buf[..end]` whose whole words up to `done` are absorbed:
    /// its tail bytes and its length.
    #[inline(always)]
    fn last_block(buf: &[u8], done: usize, end: usize) -> u64 {
        ((end as u64 & 0xff) << 56) | tail(buf, done, end)
    }

    /// Absorbs the whole of `value` from this state and runs the first finalization: the
    /// string's table hash and the state for its second word.
    #[inline(always)]
    fn hash_whole<const C: usize, const D: usize>(mut self, value: &[u8]) -> (u64, Finished) {
        // One run over the words: no bounds check per word.
        let words = value.chunks_exact(8);
        let whole = value.len() - words.remainder().len();
        for w in words {
            self.compress::<C>(<[u8; 8]>::try_from(w).map_or(0, u64::from_le_bytes));
        }
        self.finish1::<C, D>(Sip::last_block(value, whole, value.len()))
    }

    /// Finalizes with the last block `b`: returns the first output word and the state needed
    /// for the second.
    #[inline(always)]
    fn finish1<const C: usize, const D: usize>(&self, b: u64) -> (u64, Finished) {
        let mut s = *self;
        s.compress::<C>(b);
        s.v[2] ^= 0xee;
        for _ in 0..D {
            round(&mut s.v);
        }
        (s.v[0] ^ s.v[1] ^ s.v[2] ^ s.v[3], s.v)
    }
}

/// The second output word from the state after the first finalization.
#[inline(always)]
fn finish2<const D: usize>(mut v: Finished) -> u64 {
    v[1] ^= 0xdd;
    for _ in 0..D {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

/// Hashes of every prefix of one name: index `i` is the prefix of `i` components (0 is `/`).
///
/// Hashing a name absorbs it once and records, per prefix, the state to finalize from; a
/// prefix's finalization rounds are paid when its hash is first read ([`Self::get`],
/// [`Self::id128`]) and cached, so a lookup that reads 3 of 10 prefixes pays 3 finalizations.
/// The prefixes are kept word-major (`slots::Slots`); which output words are cached is one
/// bit per prefix in a word per output (prefixes past the 64th are finalized on every read).
/// Reuse one across packets: its buffers keep their capacity (a name of more than 64
/// components grows one to the longest seen), so steady state allocates nothing. Not `Sync` (the cache is `Cell`s): each thread hashes into
/// its own.
#[derive(Clone, Default)]
pub struct PrefixHashes {
    slots: slots::Slots,
    /// Bit `i`: the table hash `h1` of prefix `i` is cached.
    h1s: Cell<u64>,
    /// Bit `i`: both output words of prefix `i` are cached.
    h2s: Cell<u64>,
    variant: SipVariant,
    /// The lanes' finalization of the hasher that hashed the name (of [`simd::Simd::best`]
    /// when it was made): one the CPU runs.
    finalizer: lanes::Finalizer,
}

/// Bit `i` of `mask` (false past bit 63): a cache bit, set only below the name's length.
#[inline(always)]
fn bit(mask: u64, i: usize) -> bool {
    i < slots::HEAD && (mask >> i) & 1 != 0
}

impl PrefixHashes {
    /// An empty set with room for names of `n` components.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            slots: slots::Slots::with_capacity(n + 1),
            ..Self::default()
        }
    }

    /// Number of prefixes, counting the root: components + 1 (0 before any hashing).
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True before any name was hashed.
    pub fn is_empty(&self) -> bool {
        self.slots.len() == 0
    }

    /// Number of components of the hashed name.
    pub fn components(&self) -> usize {
        self.slots.len().saturating_sub(1)
    }

    /// The first finalization of prefix `i` (below `len`): its table hash and the state for
    /// its second word.
    #[inline(always)]
    fn finish1(&self, i: usize) -> (u64, Finished) {
        let (s, last) = self.slots.prefix(i);
        match self.variant {
            SipVariant::Sip13 => s.finish1::<1, 3>(last),
            SipVariant::Sip24 => s.finish1::<2, 4>(last),
        }
    }

    /// Both output words of prefix `i` (below `len`), cached when `i < 64`.
    #[inline(always)]
    fn finish_both(&self, i: usize) -> (u64, u64) {
        let (h1, f) = self.finish1(i);
        let h2 = match self.variant {
            SipVariant::Sip13 => finish2::<3>(f),
            SipVariant::Sip24 => finish2::<4>(f),
        };
        if i < slots::HEAD {
            self.slots.set(slots::H1, i, h1);
            self.slots.set(slots::H2, i, h2);
            self.h1s.set(self.h1s.get() | 1 << i);
            self.h2s.set(self.h2s.get() | 1 << i);
        }
        (h1, h2)
    }

    /// The 64-bit table hash of the prefix of `i` components. The cached read is inlined into
    /// the caller; the first read of a prefix calls out to finalize it.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<u64> {
        // A cache bit is set only below the name's length.
        if bit(self.h1s.get(), i) {
            return Some(self.slots.word(slots::H1, i));
        }
        if i >= self.slots.len() {
            return None;
        }
        Some(self.finalize_h1(i))
    }

    /// The table hashes of the prefixes of `depths` components, deepest first, when every one
    /// is cached (after [`Self::finalize`] of those depths); `None` otherwise. For a caller
    /// reading a run of depths: one test of the cache bits for the whole run instead of one
    /// per [`Self::get`].
    #[inline(always)]
    pub fn cached_rev(
        &self,
        depths: RangeInclusive<usize>,
    ) -> Option<impl Iterator<Item = u64> + '_> {
        let (lo, hi) = (*depths.start(), *depths.end());
        if lo > hi || hi >= slots::HEAD {
            return None;
        }
        // Bits `lo..=hi` of the missing ones (a cache bit is set only below the name's
        // length), those above shifted out at the top and those below at the bottom: two
        // shifts, no mask built.
        if (!self.h1s.get() << (63 - hi)) >> (63 - hi + lo) != 0 {
            return None;
        }
        let words = self.slots.words(slots::H1, lo, hi)?;
        Some(words.iter().rev().map(Cell::get))
    }

    /// Finalizes the table hash of prefix `i` (below `len`), cached when `i < 64`.
    #[inline(never)]
    fn finalize_h1(&self, i: usize) -> u64 {
        let h1 = self.finish1(i).0;
        if i < slots::HEAD {
            self.slots.set(slots::H1, i, h1);
            self.h1s.set(self.h1s.get() | 1 << i);
        }
        h1
    }

    /// Finalizes both output words of the prefixes of `depths` components (those not yet
    /// cached; depths past the name, or past the 64th prefix, are ignored) four at a time, for
    /// a caller about to read most of their table hashes and the identity of some: the four
    /// cost about one [`Self::id128`] finalization. Values are exactly what `get` and `id128`
    /// of each give.
    #[inline]
    pub fn finalize(&self, depths: RangeInclusive<usize>) {
        let (lo, hi) = (
            *depths.start(),
            (*depths.end()).min(self.components()).min(63),
        );
        if lo > hi {
            return;
        }
        // Bits `lo..=hi`.
        let range = (u64::MAX >> (63 - hi)) & (u64::MAX << lo);
        let want = range & !self.h2s.get();
        if want != 0 {
            self.finalizer.call(self, want);
        }
    }

    /// The table hash of the whole name.
    #[inline]
    pub fn full(&self) -> u64 {
        // The last prefix; before any hashing, `usize::MAX`, which `get` answers `None` as it
        // does prefix 0 (a wrapping step, not `components`' saturating one).
        self.get(self.slots.len().wrapping_sub(1)).unwrap_or(0)
    }

    /// The 128-bit keyed identity of the prefix of `i` components (SipHash-128 of its TLV-VALUE);
    /// its low word is the table hash. The cached read is inlined; the first read of a prefix's
    /// identity calls out to finalize it.
    #[inline(always)]
    pub fn id128(&self, i: usize) -> Option<u128> {
        // A cache bit is set only below the name's length.
        if bit(self.h2s.get(), i) {
            let (h1, h2) = (self.slots.word(slots::H1, i), self.slots.word(slots::H2, i));
            return Some(u128::from(h2) << 64 | u128::from(h1));
        }
        if i >= self.slots.len() {
            return None;
        }
        Some(self.finalize_id(i))
    }

    /// Finalizes and caches (when `i < 64`) both output words of prefix `i` (below `len`).
    #[inline(never)]
    fn finalize_id(&self, i: usize) -> u128 {
        let (h1, h2) = self.finish_both(i);
        u128::from(h2) << 64 | u128::from(h1)
    }
}

/// The hashing side of one walk over a name, small enough to stay in registers: the running
/// state, the previous component's end (the whole words absorbed end there, rounded down to a
/// word) and the slots left for the next prefixes.
struct Absorber<'o, 'v, const C: usize> {
    s: Sip,
    prev: usize,
    slots: &'o mut slots::Spare<'v>,
}

impl<const C: usize> NameVisitor for Absorber<'_, '_, C> {
    #[inline(always)]
    fn component(&mut self, value: &[u8], end: usize) {
        // The walk's ends increase, so the words up to `prev` rounded down are absorbed.
        let whole = end & !7;
        self.s.absorb_words::<C>(value, self.prev & !7, whole);
        self.slots
            .push(self.s, slots::pack_last(tail(value, whole, end), end));
        self.prev = end;
    }
}

/// Keyed hasher of names and their prefixes.
#[derive(Clone)]
pub struct NameHasher {
    variant: SipVariant,
    /// The lanes' path, [`simd::Simd::best`] when the hasher was made.
    simd: simd::Simd,
    /// The prefixes' finalization on that path, copied into each [`PrefixHashes`] it fills.
    finalizer: lanes::Finalizer,
    /// The keyed initial state (the key itself is not kept apart from it).
    root: Sip,
}

impl core::fmt::Debug for NameHasher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never print the key.
        f.debug_struct("NameHasher")
            .field("variant", &self.variant)
            .finish_non_exhaustive()
    }
}

impl NameHasher {
    /// A hasher with a fixed key (tests and reproducible benchmarks).
    pub fn new(key: [u8; 16], variant: SipVariant) -> Self {
        let (a, b) = key.split_at(8);
        let mut k = [0u8; 8];
        k.copy_from_slice(a);
        let k0 = u64::from_le_bytes(k);
        k.copy_from_slice(b);
        let k1 = u64::from_le_bytes(k);
        let simd = simd::Simd::best();
        Self {
            variant,
            simd,
            #[allow(unsafe_code)]
            // SAFETY: `Simd::best` is a path the CPU runs.
            finalizer: unsafe { lanes::Finalizer::new(simd) },
            root: Sip::new(k0, k1),
        }
    }

    /// A hasher keyed from the operating system's random source.
    pub fn from_os(variant: SipVariant) -> Result<Self, getrandom::Error> {
        let mut key = [0u8; 16];
        getrandom::getrandom(&mut key)?;
        Ok(Self::new(key, variant))
    }

    /// The round variant in use.
    pub fn variant(&self) -> SipVariant {
        self.variant
    }

    /// Hashes every prefix of `name` in one pass into `out` (cleared first).
    /// `Interest::new_checked_hashed` does the same during its checking walk over the name.
    pub fn hash_prefixes(&self, name: NameRef<'_>, out: &mut PrefixHashes) {
        // The name is checked, so the walk cannot fail: it only drives the absorber.
        let value = name.value();
        let _ = self.scan_hashed(value, value.len(), out);
    }

    /// [`NameRef::scan`] of a name's TLV-VALUE, the first `len` bytes of `room`, that also
    /// hashes every prefix into `out` (replacing its content). The bytes of `room` after the
    /// name (an Interest's other elements) are never hashed: with 8 of them or more, the walk
    /// loads whole words only. On error `out` holds the prefixes hashed before the error.
    #[inline(always)]
    pub(crate) fn scan_hashed<'a>(
        &self,
        room: &'a [u8],
        len: usize,
        out: &mut PrefixHashes,
    ) -> Result<(NameRef<'a>, NameScan), DecodeError> {
        match self.scan_hashed_common(room, len, out) {
            Some(name) => Ok((name, NameScan::default())),
            None => self.scan_hashed_general(room, len, out),
        }
    }

    /// [`Self::scan_hashed`] of a common name (one-byte headers, no digest component) with
    /// room after it, by the whole-word walk: `Some` with the name (its [`NameScan`] is the
    /// default) when it is one, else `None` and the caller ([`Self::scan_hashed`], the usual
    /// Interest's decoder) runs [`Self::scan_hashed_general`], which decides. The results are the general walk's bit
    /// for bit. Returns in registers.
    #[inline(always)]
    pub(crate) fn scan_hashed_common<'a>(
        &self,
        room: &'a [u8],
        len: usize,
        out: &mut PrefixHashes,
    ) -> Option<NameRef<'a>> {
        match self.variant {
            SipVariant::Sip13 => self.common_with::<1>(room, len, out),
            SipVariant::Sip24 => self.common_with::<2>(room, len, out),
        }
    }

    /// [`Self::scan_hashed`] by the general walk alone (any name), when
    /// [`Self::scan_hashed_common`] answered `None`.
    #[cold]
    #[inline(never)]
    pub(crate) fn scan_hashed_general<'a>(
        &self,
        room: &'a [u8],
        len: usize,
        out: &mut PrefixHashes,
    ) -> Result<(NameRef<'a>, NameScan), DecodeError> {
        match self.variant {
            SipVariant::Sip13 => self.general_with::<1>(room, len, out),
            SipVariant::Sip24 => self.general_with::<2>(room, len, out),
        }
    }

    /// [`Self::scan_hashed_common`] with `C` compression rounds. Out of line: the walk's state
    /// (the absorber and the scan's position) then has the registers to itself whatever the
    /// decoder around it keeps live.
    #[inline(never)]
    fn common_with<'a, const C: usize>(
        &self,
        room: &'a [u8],
        len: usize,
        out: &mut PrefixHashes,
    ) -> Option<NameRef<'a>> {
        out.variant = self.variant;
        out.finalizer = self.finalizer;
        let words = room::Room::new(room, len)?;
        if len <= room::FITS_BYTES {
            self.walk_room::<C, true>(room, len, words, out)
        } else {
            self.walk_room::<C, false>(room, len, words, out)
        }
    }

    /// [`Self::scan_hashed_general`] with `C` compression rounds.
    #[inline(always)]
    fn general_with<'a, const C: usize>(
        &self,
        room: &'a [u8],
        len: usize,
        out: &mut PrefixHashes,
    ) -> Result<(NameRef<'a>, NameScan), DecodeError> {
        out.variant = self.variant;
        out.finalizer = self.finalizer;
        let value = room.get(..len).ok_or(DecodeError::Truncated)?;
        self.scan_general::<C>(value, out)
    }

    /// The whole-word walk of [`Self::scan_hashed`] over the name of `len` bytes at the start
    /// of `room`, whose `words` were checked ([`room::RoomAbsorber`]; `FITS`:
    /// `len <= room::FITS_BYTES`).
    #[inline(always)]
    fn walk_room<'a, const C: usize, const FITS: bool>(
        &self,
        room: &'a [u8],
        len: usize,
        words: room::Room<'_>,
        out: &mut PrefixHashes,
    ) -> Option<NameRef<'a>> {
        self.walk_from_root(out, |s, slots| {
            let mut a = room::RoomAbsorber::<C, FITS> {
                s,
                next: 8,
                room: words,
                slots,
            };
            NameRef::scan_common(room, len, &mut a)
        })
    }

    /// The general walk of [`Self::scan_hashed`] (any header, digest components, no room after
    /// the name). Out of line and cold: the whole-word walk then need not keep the keyed
    /// initial state in registers for it.
    #[cold]
    #[inline(never)]
    fn scan_general<'a, const C: usize>(
        &self,
        value: &'a [u8],
        out: &mut PrefixHashes,
    ) -> Result<(NameRef<'a>, NameScan), DecodeError> {
        self.walk_from_root(out, |s, slots| {
            let mut a = Absorber::<C> { s, prev: 0, slots };
            NameRef::scan(value, &mut a)
        })
    }

    /// Refills `out` with the root prefix and the prefixes `walk` pushes after it, starting
    /// from the keyed initial state; returns `walk`'s result.
    #[inline(always)]
    fn walk_from_root<R>(
        &self,
        out: &mut PrefixHashes,
        walk: impl FnOnce(Sip, &mut slots::Spare<'_>) -> R,
    ) -> R {
        out.h1s.set(0);
        out.h2s.set(0);
        slots::refill(&mut out.slots, |slots| {
            slots.push(self.root, 0);
            walk(self.root, slots)
        })
    }

    /// The table hash of one byte string, a prefix's TLV-VALUE; equal to the matching entry of
    /// [`Self::hash_prefixes`]. Used for single lookups and by the per-prefix baseline.
    pub fn hash_value(&self, value: &[u8]) -> u64 {
        match self.variant {
            SipVariant::Sip13 => self.root.hash_whole::<1, 3>(value).0,
            SipVariant::Sip24 => self.root.hash_whole::<2, 4>(value).0,
        }
    }

    /// The table hash of a whole name.
    pub fn hash_name(&self, name: NameRef<'_>) -> u64 {
        self.hash_value(name.value())
    }
}

#[cfg(test)]
mod tests;
