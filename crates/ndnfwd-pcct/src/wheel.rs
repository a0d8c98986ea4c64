//! Timer wheel for PIT expiry: O(1) schedule and cancel, no per-entry heap timers.
//!
//! One level of `2^k` slots of [`TICK_NS`] each, covering the lifetime cap plus two ticks, so an
//! entry is always filed in the slot of its own expiry tick and no slot ever mixes revolutions.
//! Each slot is an intrusive list threaded through the PIT entries (`PitEntry::link`). An entry
//! whose expiry tick has already been swept goes into the cursor's slot. [`Wheel::advance`]
//! visits each tick from the cursor to `now` once (at most one revolution) and hands back the
//! entries with `expiry <= now`; entries of the current tick that are not yet due stay put.

use ndnfwd_table::Arena;

use crate::entry::PitEntry;
use crate::list::{List, NIL};

/// log2 of the slot width in ns (about 4.2 ms). It only bounds how many not-yet-due entries a
/// sweep may look at; expiry itself is exact to the nanosecond.
pub(crate) const TICK_SHIFT: u32 = 22;
/// Slot width in ns.
pub const TICK_NS: u64 = 1 << TICK_SHIFT;

pub(crate) struct Wheel {
    slots: Box<[List]>,
    mask: u64,
    /// First tick not yet fully swept.
    cursor: u64,
}

impl Wheel {
    /// A wheel for expiries at most `span_ns` ahead of the latest sweep.
    pub(crate) fn new(span_ns: u64) -> Self {
        let n = ((span_ns >> TICK_SHIFT) + 2).next_power_of_two();
        Self {
            slots: vec![List::EMPTY; n as usize].into_boxed_slice(),
            mask: n - 1,
            cursor: 0,
        }
    }

    /// Files entry `i` under its `expiry` (it must not be scheduled).
    pub(crate) fn schedule(&mut self, pits: &mut Arena<PitEntry>, i: u32) {
        let Some(e) = pits.get_live_mut(i) else {
            return;
        };
        let tick = (e.expiry >> TICK_SHIFT).max(self.cursor);
        let slot = (tick & self.mask) as u32;
        e.slot = slot;
        if let Some(l) = self.slots.get_mut(slot as usize) {
            l.push_back(pits, i);
        }
    }

    /// Removes entry `i` from the wheel if it is scheduled.
    pub(crate) fn cancel(&mut self, pits: &mut Arena<PitEntry>, i: u32) {
        let Some(e) = pits.get_live_mut(i) else {
            return;
        };
        let slot = core::mem::replace(&mut e.slot, NIL);
        self.unlink(pits, i, slot);
    }

    /// The list half of [`Wheel::cancel`], for a caller that already read entry `i`'s `slot`
    /// and set it to [`NIL`]: unlinks `i` from that slot's list (nothing when `slot` is NIL).
    /// Inlined: the Data path releases a part for nearly every Data.
    #[inline(always)]
    pub(crate) fn unlink(&mut self, pits: &mut Arena<PitEntry>, i: u32, slot: u32) {
        if let Some(l) = self.slots.get_mut(slot as usize) {
            l.remove(pits, i);
        }
    }

    /// Re-files entry `i` after its expiry changed.
    pub(crate) fn reschedule(&mut self, pits: &mut Arena<PitEntry>, i: u32) {
        self.cancel(pits, i);
        self.schedule(pits, i);
    }

    /// Unschedules every entry with `expiry <= now` and appends it to `due`.
    pub(crate) fn advance(&mut self, now: u64, pits: &mut Arena<PitEntry>, due: &mut Vec<u32>) {
        let now_tick = now >> TICK_SHIFT;
        if now_tick < self.cursor {
            return;
        }
        let ticks = (now_tick - self.cursor + 1).min(self.mask + 1);
        for t in 0..ticks {
            let slot = ((self.cursor + t) & self.mask) as usize;
            let Some(list) = self.slots.get_mut(slot) else {
                continue;
            };
            let mut at = list.front();
            while let Some(i) = at {
                let Some(e) = pits.get_live_mut(i) else { break };
                let next = e.link.next;
                if e.expiry <= now {
                    e.slot = NIL;
                    list.remove(pits, i);
                    due.push(i);
                }
                at = (next != NIL).then_some(next);
            }
        }
        self.cursor = now_tick;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pits: &mut Arena<PitEntry>, expiry: u64) -> u32 {
        let mut e = PitEntry::new(0, false, 0);
        e.expiry = expiry;
        pits.alloc(e).ok().unwrap()
    }

    #[test]
    fn expires_exactly_and_cancels() {
        let mut pits: Arena<PitEntry> = Arena::with_capacity(16);
        let mut w = Wheel::new(100 * TICK_NS);
        let a = entry(&mut pits, 10);
        let b = entry(&mut pits, TICK_NS * 5 + 7);
        let c = entry(&mut pits, TICK_NS * 5 + 9);
        let d = entry(&mut pits, TICK_NS * 99);
        for i in [a, b, c, d] {
            w.schedule(&mut pits, i);
        }
        w.cancel(&mut pits, c);
        let mut due = vec![];
        w.advance(9, &mut pits, &mut due);
        assert!(due.is_empty(), "same tick, not yet due");
        w.advance(10, &mut pits, &mut due);
        assert_eq!(due, vec![a]);
        due.clear();
        w.advance(TICK_NS * 5 + 6, &mut pits, &mut due);
        assert!(due.is_empty());
        w.advance(TICK_NS * 5 + 8, &mut pits, &mut due);
        assert_eq!(due, vec![b], "cancelled entry never fires");
        due.clear();
        // An entry scheduled in the past fires at the next sweep.
        let e = entry(&mut pits, 3);
        w.schedule(&mut pits, e);
        // A jump of more than one revolution sweeps everything once.
        w.advance(TICK_NS * 1000, &mut pits, &mut due);
        due.sort_unstable();
        assert_eq!(due, vec![d, e]);
    }

    #[test]
    fn reschedule_moves_entry() {
        let mut pits: Arena<PitEntry> = Arena::with_capacity(4);
        let mut w = Wheel::new(10 * TICK_NS);
        let a = entry(&mut pits, TICK_NS);
        w.schedule(&mut pits, a);
        pits.get_mut(a).unwrap().expiry = TICK_NS * 8;
        w.reschedule(&mut pits, a);
        let mut due = vec![];
        w.advance(TICK_NS * 2, &mut pits, &mut due);
        assert!(due.is_empty());
        w.advance(TICK_NS * 8, &mut pits, &mut due);
        assert_eq!(due, vec![a]);
    }
}
