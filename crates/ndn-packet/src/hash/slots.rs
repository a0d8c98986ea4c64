//! The prefix slots a hashing walk fills: the spare capacity of the prefix vector, written in
//! order and then made its elements. Writing through the spare capacity needs no capacity check
//! per prefix (a `push` has one, and its growth call costs the walk registers); the one unsafe
//! step is `set_len` over the slots written.

use core::mem::MaybeUninit;
use core::slice::IterMut;

use super::Prefix;

/// The spare slots of a prefix vector, handed out in order; a prefix past them is counted.
pub(super) struct Spare<'v> {
    /// Slots not taken yet. Only [`Spare::push`] takes one, and it writes it.
    slots: IterMut<'v, MaybeUninit<Prefix>>,
    missed: usize,
}

impl Spare<'_> {
    /// Writes `p` into the next slot, or counts it when none is left.
    #[inline(always)]
    pub(super) fn push(&mut self, p: Prefix) {
        match self.slots.next() {
            Some(slot) => {
                slot.write(p);
            }
            None => self.missed += 1,
        }
    }
}

/// Clears `v` and runs `fill` over its spare capacity; what `fill` pushed becomes the content of
/// `v`. Returns `fill`'s result and how many prefixes did not fit (0: `v` holds them all).
#[inline(always)]
#[allow(unsafe_code)]
pub(super) fn refill<R>(v: &mut Vec<Prefix>, fill: impl FnOnce(&mut Spare<'_>) -> R) -> (R, usize) {
    v.clear();
    let spare = v.spare_capacity_mut();
    let room = spare.len();
    let mut s = Spare {
        slots: spare.iter_mut(),
        missed: 0,
    };
    let r = fill(&mut s);
    let (written, missed) = (room - s.slots.len(), s.missed);
    // SAFETY: `written <= room`, the spare capacity. Slots leave `s.slots` only through
    // `Spare::push` (the field is private to this module), which initializes each one it
    // takes, in order from the first: the first `written` spare slots are initialized
    // `Prefix`es (plain integers in cells; no drop glue).
    unsafe { v.set_len(written) };
    (r, missed)
}
