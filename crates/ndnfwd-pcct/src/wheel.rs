//! Timer wheel for PIT expiry with lazy re-filing: O(1) schedule, nothing to cancel.
//!
//! One level of `2^k` slots of [`TICK_NS`] each, covering the lifetime cap plus two ticks. Each
//! slot is an intrusive list of *PIT slot indices*, threaded through the wheel's own nodes (one
//! per PIT slot), not through the PIT entries: a PIT slot stays filed when its entry is freed
//! (a Data satisfied it, a Nack or a reject erased it) and when the slot is taken by a new
//! entry. The invariant is one-sided: a live entry is always filed under a tick **no later
//! than** its expiry tick (and never before the cursor). So:
//!
//! - [`Wheel::schedule`] (a new entry, or an entry whose expiry changed) writes nothing when
//!   its slot is already filed at or before the new expiry tick: the usual case once the PIT
//!   has been through its slots, since a slot freed by a Data is filed under its previous
//!   entry's expiry, which is earlier. Only a slot never filed, or filed later than the new
//!   expiry (a shorter lifetime than the slot's previous entry), is (re)linked.
//! - Freeing an entry touches the wheel not at all (no unlink per Data).
//! - [`Wheel::advance`] visits each tick from the cursor to `now` once (at most one
//!   revolution). Each filed PIT slot it finds is settled: a free slot is unfiled, an entry with
//!   `expiry <= now` is unfiled and handed back, and any other entry is re-filed under its own
//!   expiry tick (left in place when that is the tick it is on). So expiry stays exact to the
//!   nanosecond and is never reported late, and a PIT slot costs the sweep about one visit per
//!   lifetime however many entries it held meanwhile.

use ndnfwd_table::{AllocError, Arena};

use crate::entry::PitEntry;
use crate::list::{Link, Linked, List, NIL};

/// log2 of the slot width in ns (about 4.2 ms). It only bounds how many not-yet-due entries a
/// sweep may look at; expiry itself is exact to the nanosecond.
pub(crate) const TICK_SHIFT: u32 = 22;
/// Slot width in ns.
pub const TICK_NS: u64 = 1 << TICK_SHIFT;

/// `Node::filed` of a PIT slot on no list.
const UNFILED: u64 = u64::MAX;

/// A PIT slot's place on the wheel (16 bytes per PIT slot).
#[derive(Debug, Clone, Copy)]
struct Node {
    link: Link,
    /// Absolute tick of the list the slot is on, [`UNFILED`] when on none.
    filed: u64,
}

impl Linked for Node {
    fn link(&self) -> Link {
        self.link
    }
    fn link_mut(&mut self) -> &mut Link {
        &mut self.link
    }
    /// Every node is allocated when the wheel is built and never freed.
    fn entry_mut(arena: &mut Arena<Self>, i: u32) -> Option<&mut Self> {
        arena.get_live_mut(i)
    }
}

pub(crate) struct Wheel {
    slots: Box<[List]>,
    /// One node per PIT slot, all allocated up front (node `i` is PIT slot `i`).
    nodes: Arena<Node>,
    mask: u64,
    /// First tick not yet fully swept.
    cursor: u64,
}

impl Wheel {
    /// A wheel for expiries at most `span_ns` ahead of the latest sweep, for PIT slots
    /// `0..pit_capacity`.
    pub(crate) fn new(span_ns: u64, pit_capacity: u32) -> Result<Self, AllocError> {
        let n = ((span_ns >> TICK_SHIFT) + 2).next_power_of_two();
        let mut nodes = Arena::try_with_capacity(pit_capacity)?;
        let unfiled = Node {
            link: Link::UNLINKED,
            filed: UNFILED,
        };
        while nodes.alloc(unfiled).is_ok() {}
        Ok(Self {
            slots: vec![List::EMPTY; n as usize].into_boxed_slice(),
            nodes,
            mask: n - 1,
            cursor: 0,
        })
    }

    /// Bytes of address space the nodes take (the slot heads are not counted).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.nodes.memory_bytes()
    }

    /// Makes sure PIT slot `i`, whose entry now expires at `expiry`, is filed no later than
    /// that tick (a new entry, or one whose expiry changed). Inlined: the usual case is one
    /// load and a compare.
    #[inline(always)]
    pub(crate) fn schedule(&mut self, i: u32, expiry: u64) {
        let tick = (expiry >> TICK_SHIFT).max(self.cursor);
        let Some(filed) = self.nodes.get_live(i).map(|n| n.filed) else {
            return;
        };
        // An unfiled slot has `filed == UNFILED`, later than any tick.
        if filed > tick {
            self.file(i, filed, tick);
        }
    }

    /// Moves PIT slot `i` from the list of tick `filed` (if any) to that of `tick`.
    #[inline(never)]
    fn file(&mut self, i: u32, filed: u64, tick: u64) {
        if filed != UNFILED {
            self.unfile(i, filed);
        }
        let Some(l) = self.slots.get_mut((tick & self.mask) as usize) else {
            return;
        };
        if let Some(n) = self.nodes.get_live_mut(i) {
            n.filed = tick;
        }
        l.push_back(&mut self.nodes, i);
    }

    /// Takes PIT slot `i` off the list of tick `filed`, where it is.
    fn unfile(&mut self, i: u32, filed: u64) {
        if let Some(l) = self.slots.get_mut((filed & self.mask) as usize) {
            l.remove(&mut self.nodes, i);
        }
        if let Some(n) = self.nodes.get_live_mut(i) {
            n.filed = UNFILED;
        }
    }

    /// Settles every PIT slot filed under the ticks from the cursor to `now` (see the module
    /// docs) and appends the entries with `expiry <= now` to `due`.
    pub(crate) fn advance(&mut self, now: u64, pits: &Arena<PitEntry>, due: &mut Vec<u32>) {
        let now_tick = now >> TICK_SHIFT;
        if now_tick < self.cursor {
            return;
        }
        let mask = self.mask;
        let ticks = (now_tick - self.cursor + 1).min(mask + 1);
        for t in 0..ticks {
            let slot = ((self.cursor + t) & mask) as usize;
            let mut at = self.slots.get(slot).and_then(List::front);
            while let Some(i) = at {
                let Some(n) = self.nodes.get_live(i) else {
                    break;
                };
                let (next, filed) = (n.link.next, n.filed);
                at = (next != NIL).then_some(next);
                let expiry = pits.get(i).map(|e| e.expiry);
                let target = match expiry {
                    Some(x) if x > now => x >> TICK_SHIFT,
                    // A free slot, or a due entry: off the wheel.
                    _ => UNFILED,
                };
                if target == filed {
                    continue;
                }
                self.unfile(i, filed);
                match target {
                    UNFILED => due.extend(expiry.map(|_| i)),
                    // Filed before its expiry tick: re-filed there (a later slot of this sweep
                    // visits it again only if that tick is also due, and then leaves it).
                    _ => self.file(i, UNFILED, target),
                }
            }
        }
        self.cursor = now_tick;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pits: &mut Arena<PitEntry>, w: &mut Wheel, expiry: u64) -> u32 {
        let mut e = PitEntry::new(0, false, 0);
        e.expiry = expiry;
        let i = pits.alloc(e).ok().unwrap();
        w.schedule(i, expiry);
        i
    }

    #[test]
    fn expires_exactly_and_forgets_freed_entries() {
        let mut pits: Arena<PitEntry> = Arena::with_capacity(16);
        let mut w = Wheel::new(100 * TICK_NS, 16).unwrap();
        let a = entry(&mut pits, &mut w, 10);
        let b = entry(&mut pits, &mut w, TICK_NS * 5 + 7);
        let c = entry(&mut pits, &mut w, TICK_NS * 5 + 9);
        let d = entry(&mut pits, &mut w, TICK_NS * 99);
        // Freed without telling the wheel: never reported.
        pits.free(c);
        let mut due = vec![];
        w.advance(9, &pits, &mut due);
        assert!(due.is_empty(), "same tick, not yet due");
        w.advance(10, &pits, &mut due);
        assert_eq!(due, vec![a]);
        pits.free(a);
        due.clear();
        w.advance(TICK_NS * 5 + 6, &pits, &mut due);
        assert!(due.is_empty());
        w.advance(TICK_NS * 5 + 8, &pits, &mut due);
        assert_eq!(due, vec![b], "freed entry never fires");
        pits.free(b);
        due.clear();
        // An entry scheduled in the past fires at the next sweep.
        let e = entry(&mut pits, &mut w, 3);
        // A jump of more than one revolution sweeps everything once.
        w.advance(TICK_NS * 1000, &pits, &mut due);
        due.sort_unstable();
        let mut want = vec![d, e];
        want.sort_unstable();
        assert_eq!(due, want);
    }

    #[test]
    fn expiry_moved_either_way_and_slot_reused() {
        let mut pits: Arena<PitEntry> = Arena::with_capacity(4);
        let mut w = Wheel::new(10 * TICK_NS, 4).unwrap();
        let a = entry(&mut pits, &mut w, TICK_NS);
        // Later: stays filed at tick 1, re-filed by the sweep of tick 1.
        pits.get_mut(a).unwrap().expiry = TICK_NS * 8;
        w.schedule(a, TICK_NS * 8);
        let mut due = vec![];
        w.advance(TICK_NS * 2, &pits, &mut due);
        assert!(due.is_empty());
        // Earlier again: moved.
        pits.get_mut(a).unwrap().expiry = TICK_NS * 3 + 1;
        w.schedule(a, TICK_NS * 3 + 1);
        w.advance(TICK_NS * 3 + 1, &pits, &mut due);
        assert_eq!(due, vec![a]);
        pits.free(a);
        due.clear();
        // The slot taken by an entry with a later expiry, then freed and taken by one with an
        // earlier one: each fires at its own expiry only.
        let b = entry(&mut pits, &mut w, TICK_NS * 9);
        pits.free(b);
        let c = entry(&mut pits, &mut w, TICK_NS * 5);
        assert_eq!(b, c, "the slot is reused");
        w.advance(TICK_NS * 5 - 1, &pits, &mut due);
        assert!(due.is_empty());
        w.advance(TICK_NS * 5, &pits, &mut due);
        assert_eq!(due, vec![c]);
        pits.free(c);
        due.clear();
        w.advance(TICK_NS * 12, &pits, &mut due);
        assert!(due.is_empty(), "nothing fires twice");
    }

    proptest::proptest! {
        /// Against a map of live entries: every sweep reports exactly the live entries whose
        /// expiry has come, whatever the entries freed, slots reused and expiries moved (up to
        /// the cap) in between, and sweeps that jump past a revolution.
        #[test]
        fn reports_what_a_map_of_expiries_reports(
            ops in proptest::collection::vec((0u8..4, 0u64..64, 0usize..8), 1..200),
        ) {
            const CAP: u32 = 8;
            let span = 16 * TICK_NS;
            let mut pits: Arena<PitEntry> = Arena::with_capacity(CAP);
            let mut w = Wheel::new(span, CAP).unwrap();
            let mut live: std::collections::BTreeMap<u32, u64> = Default::default();
            let mut now = 0u64;
            let mut due = vec![];
            for (op, x, pick) in ops {
                let victim = live.keys().nth(pick % live.len().max(1)).copied();
                match op {
                    0 => {
                        let expiry = now + x * span / 64;
                        if let Ok(i) = pits.alloc(PitEntry::new(0, false, 0)) {
                            pits.get_mut(i).unwrap().expiry = expiry;
                            w.schedule(i, expiry);
                            live.insert(i, expiry);
                        }
                    }
                    1 => {
                        if let Some(i) = victim {
                            pits.free(i);
                            live.remove(&i);
                        }
                    }
                    2 => {
                        if let Some(i) = victim {
                            let expiry = now + x * span / 64;
                            pits.get_mut(i).unwrap().expiry = expiry;
                            w.schedule(i, expiry);
                            live.insert(i, expiry);
                        }
                    }
                    _ => {
                        now += if x == 63 { 40 * span } else { x * TICK_NS / 8 };
                        due.clear();
                        w.advance(now, &pits, &mut due);
                        due.sort_unstable();
                        let want: Vec<u32> =
                            live.iter().filter(|(_, &e)| e <= now).map(|(&i, _)| i).collect();
                        proptest::prop_assert_eq!(&due, &want);
                        for i in want {
                            pits.free(i);
                            live.remove(&i);
                        }
                    }
                }
            }
        }
    }
}
