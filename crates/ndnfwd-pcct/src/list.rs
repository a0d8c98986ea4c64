//! Intrusive doubly linked lists threaded through arena entries by `u32` index: O(1) push,
//! remove and move, no allocation. Two shapes:
//!
//! - [`List`]: linear (the ends link to [`NIL`]), head and tail held by the list. The
//!   timer-wheel slots: pushed at the back, walked front to back until `NIL`.
//! - [`Ring`]: circular (the back's `next` is the front, the front's `prev` the back), only
//!   the front held by the list. The CS policy lists: their hottest step, a full LRU/FIFO CS
//!   handing its front entry to a new Data at the back, is a rotation, and a rotation of a
//!   ring writes no entry at all (the front moves one step; [`Ring::rotate`]).

use ndnfwd_table::Arena;

/// "No entry" in every `u32` link and index of this crate.
pub(crate) const NIL: u32 = u32::MAX;

/// Previous and next entry of the list an entry is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) prev: u32,
    pub(crate) next: u32,
}

impl Link {
    pub(crate) const UNLINKED: Self = Self {
        prev: NIL,
        next: NIL,
    };
}

/// An arena entry that carries one [`Link`].
pub(crate) trait Linked: Sized {
    fn link(&self) -> Link;
    fn link_mut(&mut self) -> &mut Link;

    /// Entry `i` of `arena`, reached through a list (every index on a list is allocated, and
    /// entries leave their list before they are freed). Checked access unless the entry type
    /// allows [`Arena::get_live_mut`].
    fn entry_mut(arena: &mut Arena<Self>, i: u32) -> Option<&mut Self> {
        arena.get_mut(i)
    }
}

/// Head, tail and length of one linear list. Front is the oldest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct List {
    head: u32,
    tail: u32,
    len: u32,
}

impl List {
    pub(crate) const EMPTY: Self = Self {
        head: NIL,
        tail: NIL,
        len: 0,
    };

    pub(crate) fn front(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    /// Appends `i` (which must not be on any list) at the back.
    pub(crate) fn push_back<T: Linked>(&mut self, arena: &mut Arena<T>, i: u32) {
        let Some(e) = T::entry_mut(arena, i) else {
            return;
        };
        *e.link_mut() = Link {
            prev: self.tail,
            next: NIL,
        };
        match T::entry_mut(arena, self.tail) {
            Some(t) => t.link_mut().next = i,
            None => self.head = i,
        }
        self.tail = i;
        self.len += 1;
    }

    /// Unlinks `i`, which must be on this list.
    pub(crate) fn remove<T: Linked>(&mut self, arena: &mut Arena<T>, i: u32) {
        let Some(e) = T::entry_mut(arena, i) else {
            return;
        };
        let Link { prev, next } = e.link();
        *e.link_mut() = Link::UNLINKED;
        match T::entry_mut(arena, prev) {
            Some(p) => p.link_mut().next = next,
            None => self.head = next,
        }
        match T::entry_mut(arena, next) {
            Some(n) => n.link_mut().prev = prev,
            None => self.tail = prev,
        }
        self.len -= 1;
    }
}

/// Front and length of one circular list (see the module docs). Front is the oldest (LRU /
/// FIFO head); the back is the front's `prev`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ring {
    head: u32,
    len: u32,
}

impl Ring {
    pub(crate) const EMPTY: Self = Self { head: NIL, len: 0 };

    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    pub(crate) fn front(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    /// Appends `i` (an allocated entry on no list) at the back: between the back and the front
    /// (an empty ring's `i` is its own neighbour both ways). The front's `prev` is read and
    /// rewritten in one access (with its `next` too when it is also the back), then `i`'s link
    /// is written, then the back's `next`: two or three entry accesses, not four.
    pub(crate) fn push_back<T: Linked>(&mut self, arena: &mut Arena<T>, i: u32) {
        let head = self.head;
        let (back, front) = match T::entry_mut(arena, head) {
            Some(h) => {
                let l = h.link_mut();
                let back = core::mem::replace(&mut l.prev, i);
                if back == head {
                    l.next = i; // a ring of one: the front is the back
                }
                (back, head)
            }
            None => (i, i),
        };
        if let Some(e) = T::entry_mut(arena, i) {
            *e.link_mut() = Link {
                prev: back,
                next: front,
            };
        }
        if back != head && back != i {
            if let Some(b) = T::entry_mut(arena, back) {
                b.link_mut().next = i;
            }
        }
        if head == NIL {
            self.head = i;
        }
        self.len += 1;
    }

    /// Unlinks `i`, which must be on this ring.
    pub(crate) fn remove<T: Linked>(&mut self, arena: &mut Arena<T>, i: u32) {
        let Some(e) = T::entry_mut(arena, i) else {
            return;
        };
        let Link { prev, next } = e.link();
        *e.link_mut() = Link::UNLINKED;
        self.len -= 1;
        if next == i {
            self.head = NIL; // it was alone
            return;
        }
        if let Some(p) = T::entry_mut(arena, prev) {
            p.link_mut().next = next;
        }
        if let Some(n) = T::entry_mut(arena, next) {
            n.link_mut().prev = prev;
        }
        if self.head == i {
            self.head = next;
        }
    }

    /// Moves `i` (on this ring) to the back. The front's move is a [`Ring::rotate`] (no entry
    /// written); the back stays; any other entry is unlinked and relinked before the front.
    pub(crate) fn move_to_back<T: Linked>(&mut self, arena: &mut Arena<T>, i: u32) {
        let Some(next) = T::entry_mut(arena, i).map(|e| e.link().next) else {
            return;
        };
        if i == self.head {
            self.rotate(next);
        } else if next != self.head {
            self.remove(arena, i);
            self.push_back(arena, i);
        }
    }

    /// Moves the front to the back, given the front's `next` link (read by the caller, who
    /// holds the front entry): the ring's order is unchanged, only its front moves one step,
    /// so no entry is written. Nothing changes for a ring of one entry (its `next` is itself).
    #[inline(always)]
    pub(crate) fn rotate(&mut self, front_next: u32) {
        self.head = front_next;
    }

    /// Indices front to back.
    pub(crate) fn iter<'a, T: Linked>(
        &self,
        arena: &'a Arena<T>,
    ) -> impl Iterator<Item = u32> + 'a {
        let mut at = self.head;
        let mut left = self.len;
        core::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            let i = at;
            at = arena.get(i)?.link().next;
            Some(i)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct N(Link);
    impl Linked for N {
        fn link(&self) -> Link {
            self.0
        }
        fn link_mut(&mut self) -> &mut Link {
            &mut self.0
        }
    }

    fn arena(n: usize) -> (Arena<N>, Vec<u32>) {
        let mut a: Arena<N> = Arena::with_capacity(8);
        let ids = (0..n)
            .map(|_| a.alloc(N(Link::UNLINKED)).ok().unwrap())
            .collect();
        (a, ids)
    }

    /// The linear list's order, front to back by `next` until `NIL`.
    fn order(l: &List, a: &Arena<N>) -> Vec<u32> {
        let mut v = Vec::new();
        let mut at = l.front();
        while let Some(i) = at {
            v.push(i);
            at = a.get(i).map(|n| n.0.next).filter(|&n| n != NIL);
        }
        v
    }

    #[test]
    fn list_push_remove() {
        let (mut a, ids) = arena(4);
        let mut l = List::EMPTY;
        for &i in &ids {
            l.push_back(&mut a, i);
        }
        assert_eq!(order(&l, &a), ids);
        l.remove(&mut a, ids[0]);
        l.remove(&mut a, ids[2]);
        assert_eq!(order(&l, &a), vec![ids[1], ids[3]]);
        assert_eq!(a.get(ids[1]).map(|n| n.0.prev), Some(NIL), "front");
        assert_eq!(a.get(ids[3]).map(|n| n.0.next), Some(NIL), "back");
        l.push_back(&mut a, ids[0]);
        assert_eq!(order(&l, &a), vec![ids[1], ids[3], ids[0]]);
        for &i in &[ids[3], ids[1], ids[0]] {
            l.remove(&mut a, i);
        }
        assert_eq!(l, List::EMPTY);
    }

    /// Every link of a ring agrees with its order both ways, and the order is `want`.
    fn check_ring(r: &Ring, a: &Arena<N>, want: &[u32]) {
        assert_eq!(r.iter(a).collect::<Vec<_>>(), want);
        assert_eq!(r.len() as usize, want.len());
        assert_eq!(r.front(), want.first().copied());
        for (k, &i) in want.iter().enumerate() {
            let l = a.get(i).unwrap().0;
            assert_eq!(l.next, want[(k + 1) % want.len()], "next of {i}");
            assert_eq!(
                l.prev,
                want[(k + want.len() - 1) % want.len()],
                "prev of {i}"
            );
        }
    }

    #[test]
    fn ring_push_remove_move() {
        let (mut a, ids) = arena(4);
        let mut r = Ring::EMPTY;
        check_ring(&r, &a, &[]);
        for (k, &i) in ids.iter().enumerate() {
            r.push_back(&mut a, i);
            check_ring(&r, &a, &ids[..=k]);
        }
        r.remove(&mut a, ids[0]); // front
        r.remove(&mut a, ids[2]); // middle
        check_ring(&r, &a, &[ids[1], ids[3]]);
        assert_eq!(a.get(ids[0]).map(|n| n.0), Some(Link::UNLINKED));
        r.move_to_back(&mut a, ids[1]); // front of two
        check_ring(&r, &a, &[ids[3], ids[1]]);
        r.push_back(&mut a, ids[0]);
        r.move_to_back(&mut a, ids[0]); // back: stays
        check_ring(&r, &a, &[ids[3], ids[1], ids[0]]);
        r.move_to_back(&mut a, ids[1]); // middle
        check_ring(&r, &a, &[ids[3], ids[0], ids[1]]);
        r.remove(&mut a, ids[1]); // back
        check_ring(&r, &a, &[ids[3], ids[0]]);
        r.remove(&mut a, ids[3]);
        check_ring(&r, &a, &[ids[0]]);
        r.move_to_back(&mut a, ids[0]); // alone
        check_ring(&r, &a, &[ids[0]]);
        r.remove(&mut a, ids[0]);
        assert_eq!(r, Ring::EMPTY);
    }

    #[test]
    fn ring_rotate_moves_the_front_to_the_back() {
        let (mut a, ids) = arena(3);
        let mut r = Ring::EMPTY;
        r.push_back(&mut a, ids[0]);
        r.rotate(a.get(ids[0]).unwrap().0.next);
        check_ring(&r, &a, &[ids[0]]);
        r.push_back(&mut a, ids[1]);
        r.push_back(&mut a, ids[2]);
        r.rotate(a.get(ids[0]).unwrap().0.next);
        check_ring(&r, &a, &[ids[1], ids[2], ids[0]]);
        r.move_to_back(&mut a, ids[1]);
        check_ring(&r, &a, &[ids[2], ids[0], ids[1]]);
    }

    proptest::proptest! {
        /// Any sequence of ring operations leaves the ring in the order of a plain deque model
        /// with every link consistent both ways (`check_ring`); `rotate` is the front's
        /// `move_to_back` without a link written.
        #[test]
        fn ring_matches_a_deque(ops in proptest::collection::vec((0u8..4, 0usize..6), 0..64)) {
            let (mut a, ids) = arena(6);
            let mut r = Ring::EMPTY;
            let mut model: std::collections::VecDeque<u32> = Default::default();
            for (op, x) in ops {
                let i = ids[x];
                let on = model.contains(&i);
                match op {
                    0 if !on => {
                        r.push_back(&mut a, i);
                        model.push_back(i);
                    }
                    1 if on => {
                        r.remove(&mut a, i);
                        model.retain(|&m| m != i);
                    }
                    2 if on => {
                        r.move_to_back(&mut a, i);
                        model.retain(|&m| m != i);
                        model.push_back(i);
                    }
                    3 => {
                        if let Some(f) = r.front() {
                            r.rotate(a.get(f).unwrap().0.next);
                            model.rotate_left(1);
                        }
                    }
                    _ => {}
                }
                check_ring(&r, &a, &model.iter().copied().collect::<Vec<_>>());
            }
        }
    }
}
