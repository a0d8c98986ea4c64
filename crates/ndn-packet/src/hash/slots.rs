//! The prefix slots, word-major: each field of a prefix (its four absorbing state words, its
//! last block, its two output words) is an array of its own, index `i` being the prefix of `i`
//! components. Four consecutive prefixes' values of one field are then one 256-bit load or
//! store (the lanes' finalization, [`super::lanes`]) with no transposes, and a hashing walk
//! writes each prefix as five scalar stores at fixed distances. The arrays hold a name's first
//! [`HEAD`] prefixes (every prefix of any name a forwarder meets in practice), each with three
//! words of padding so that a group of four starting at any of them stays inside its array;
//! the prefixes past them (hostile or odd names) are kept one after the other in a vector, and
//! their output words are not cached. The walk writes through [`Spare`] with no bounds check
//! per field; its unsafe steps are those writes (the room checked once per prefix).

use core::cell::Cell;

use super::Sip;

/// Prefixes kept word-major, the first of a name: as many as the bits of a `u64` mask.
pub(super) const HEAD: usize = 64;
/// Words of padding past the head in each array: a group of four starting at the last
/// prefix of the head stays inside its array.
const PAD: usize = 3;
/// Words per array.
pub(super) const STRIDE: usize = HEAD + PAD;
/// Arrays: the four state words, the last block, then the two output words.
const ARRAYS: usize = 7;
/// Index of the last block's array (packed: [`pack_last`]).
pub(super) const LAST: usize = 4;
/// Index of the first output word's array.
pub(super) const H1: usize = 5;
/// Index of the second output word's array.
pub(super) const H2: usize = 6;

/// A prefix's last block as the walks store it in the slots ([`unpack_last`] gives the block):
/// the word of its tail bytes turned left a byte, over the low byte of its length. The word's
/// bytes past the tail may be anything (the whole-word walk stores the raw word at the tail's
/// start): unpacking masks them off, so the walk pays no mask per prefix.
#[inline(always)]
pub(super) fn pack_last(word: u64, end: usize) -> u64 {
    (word << 8) | (end as u64 & 0xff)
}

/// The last block of a prefix packed by [`pack_last`]: the length's byte on top, the tail's
/// `end % 8` bytes (the packed word's lowest) below it.
#[inline(always)]
pub(super) fn unpack_last(packed: u64) -> u64 {
    let end = packed & 0xff;
    let mask = LOW_BYTES.get((end & 7) as usize).copied().unwrap_or(0);
    (end << 56) | ((packed >> 8) & mask)
}

/// Masks of the low `r` bytes of a word, for `r` from 0 to 7.
const LOW_BYTES: [u64; 8] = [
    0,
    0xff,
    0xffff,
    0xff_ffff,
    0xffff_ffff,
    0xff_ffff_ffff,
    0xffff_ffff_ffff,
    0xff_ffff_ffff_ffff,
];

/// The arrays of the head. Cells: the output words are cached through `&self`.
#[derive(Clone)]
struct Head {
    w: [[Cell<u64>; STRIDE]; ARRAYS],
}

/// The prefixes of one name (see the module comment).
#[derive(Clone)]
pub(super) struct Slots {
    /// In place, not boxed: a cached word is then read with one load off the owner's
    /// address, not two (the box's pointer first). A `PrefixHashes` is therefore about 3.8 KB;
    /// its owners keep it where it is (the engine's ring, the FIB writer's scratch).
    head: Head,
    /// The prefixes past the head: state words and last block.
    tail: Vec<[u64; 5]>,
    /// Prefixes written by the last walk.
    len: usize,
}

impl Default for Slots {
    fn default() -> Self {
        let head = Head {
            w: core::array::from_fn(|_| core::array::from_fn(|_| Cell::new(0))),
        };
        Self {
            head,
            tail: Vec::new(),
            len: 0,
        }
    }
}

impl Slots {
    /// Slots for `n` prefixes (those past the head in a vector reserved now).
    pub(super) fn with_capacity(n: usize) -> Self {
        let mut s = Self::default();
        s.tail.reserve(n.saturating_sub(HEAD));
        s
    }

    /// Prefixes written.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The head's first word (of array 0); array `a`'s word `i` is `STRIDE * a + i` words on.
    #[inline(always)]
    pub(super) fn base(&self) -> *const u64 {
        self.head.w.as_ptr().cast()
    }

    /// Word `i` of array `a` of the head (0 past it).
    #[inline(always)]
    pub(super) fn word(&self, a: usize, i: usize) -> u64 {
        self.head
            .w
            .get(a)
            .and_then(|w| w.get(i))
            .map_or(0, Cell::get)
    }

    /// Words `lo..=hi` of array `a` of the head (`None` past it).
    #[inline(always)]
    pub(super) fn words(&self, a: usize, lo: usize, hi: usize) -> Option<&[Cell<u64>]> {
        self.head.w.get(a)?.get(lo..=hi)
    }

    /// Sets word `i` of array `a` of the head (nothing past it).
    #[inline(always)]
    pub(super) fn set(&self, a: usize, i: usize, v: u64) {
        if let Some(c) = self.head.w.get(a).and_then(|w| w.get(i)) {
            c.set(v);
        }
    }

    /// The absorbing state and the last block (unpacked) of prefix `i` (below `len`).
    #[inline(always)]
    pub(super) fn prefix(&self, i: usize) -> (Sip, u64) {
        let w = if i < HEAD {
            [0, 1, 2, 3, LAST].map(|a| self.word(a, i))
        } else {
            self.tail.get(i - HEAD).copied().unwrap_or_default()
        };
        let [v0, v1, v2, v3, last] = w;
        (
            Sip {
                v: [v0, v1, v2, v3],
            },
            unpack_last(last),
        )
    }
}

/// The slots a walk fills, in order from the first.
pub(super) struct Spare<'v> {
    /// Array 0's first word.
    base: *mut u64,
    /// Slots of the head written: the next slot is `n` (the head is full at `HEAD`).
    n: usize,
    tail: &'v mut Vec<[u64; 5]>,
}

impl Spare<'_> {
    /// Writes the prefix with absorbing state `s` and packed last block `last`
    /// ([`pack_last`]) into the next slot.
    #[inline(always)]
    pub(super) fn push(&mut self, s: Sip, last: u64) {
        if self.n >= HEAD {
            let [v0, v1, v2, v3] = s.v;
            return push_tail(self.tail, v0, v1, v2, v3, last);
        }
        #[allow(unsafe_code)]
        // SAFETY: `n < HEAD`, checked just above.
        unsafe {
            self.push_head(s, last);
        }
    }

    /// [`Self::push`] for a walk that knows the head has room: no check per prefix.
    ///
    /// # Safety
    ///
    /// Fewer than [`HEAD`] slots are written (`n < HEAD`).
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(super) unsafe fn push_head(&mut self, s: Sip, last: u64) {
        debug_assert!(self.n < HEAD);
        let [v0, v1, v2, v3] = s.v;
        // SAFETY: `n < HEAD` (the caller's contract), so `at = base + n` is array 0's word of a
        // slot of the head; the head (borrowed mutably by `refill` for as long as this `Spare`
        // lives) is `ARRAYS` arrays of `STRIDE` words, so word `at + STRIDE * a` is inside it
        // for every `a < ARRAYS`. The cells are written through the pointer only; no reference
        // to them is alive meanwhile.
        unsafe {
            let at = self.base.add(self.n);
            at.write(v0);
            at.add(STRIDE).write(v1);
            at.add(2 * STRIDE).write(v2);
            at.add(3 * STRIDE).write(v3);
            at.add(LAST * STRIDE).write(last);
        }
        self.n += 1;
    }
}

/// A prefix past the head, out of the walk's way. Takes the words by value (in registers: the
/// walk need not keep its state in memory for this call).
#[cold]
#[inline(never)]
fn push_tail(tail: &mut Vec<[u64; 5]>, v0: u64, v1: u64, v2: u64, v3: u64, last: u64) {
    tail.push([v0, v1, v2, v3, last]);
}

/// Runs `fill` over the slots from the first; what it pushed becomes their content.
#[inline(always)]
pub(super) fn refill<R>(slots: &mut Slots, fill: impl FnOnce(&mut Spare<'_>) -> R) -> R {
    slots.tail.clear();
    let mut s = Spare {
        base: slots.head.w.as_mut_ptr().cast(),
        n: 0,
        tail: &mut slots.tail,
    };
    let r = fill(&mut s);
    slots.len = s.n + slots.tail.len();
    r
}
