//! Intrusive doubly linked lists threaded through arena entries by `u32` index: O(1) push,
//! remove and move, no allocation. Used by the CS policy lists and the timer-wheel slots.

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

/// Head, tail and length of one list. Front is the oldest (LRU / FIFO head).
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

    pub(crate) fn len(&self) -> u32 {
        self.len
    }

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

    /// Moves `i` (on this list) to the back.
    pub(crate) fn move_to_back<T: Linked>(&mut self, arena: &mut Arena<T>, i: u32) {
        if self.tail == i {
            return;
        }
        if self.head != i {
            self.remove(arena, i);
            self.push_back(arena, i);
            return;
        }
        self.front_to_back(arena);
    }

    /// Moves the front entry to the back (a CS refresh of the LRU entry): three entries
    /// change, not five. Nothing happens to an empty list or one of a single entry.
    #[inline]
    pub(crate) fn front_to_back<T: Linked>(&mut self, arena: &mut Arena<T>) {
        let i = self.head;
        let Some(e) = T::entry_mut(arena, i) else {
            return;
        };
        let old = e.link();
        *e.link_mut() = self.back_link_of_front(old);
        self.front_moved_to_back(arena, i, old.next);
    }

    /// The first half of [`List::front_to_back`] for a caller holding the front entry: the link
    /// it must store in that entry once moved to the back (unchanged for a list of one entry).
    /// The caller then calls [`List::front_moved_to_back`] with the front's old `next`; the
    /// front entry is never looked up by the list. Three entries change, the front one by the
    /// caller.
    pub(crate) fn back_link_of_front(&self, old: Link) -> Link {
        if self.tail == self.head {
            return old;
        }
        Link {
            prev: self.tail,
            next: NIL,
        }
    }

    /// The second half of the move started by [`List::back_link_of_front`]: relinks the
    /// neighbours of front entry `head`, whose old next link was `next`, and returns the new
    /// front's entry, already in hand (`None` for a list of one entry, whose front stays `head`).
    #[inline(always)]
    pub(crate) fn front_moved_to_back<'a, T: Linked>(
        &mut self,
        arena: &'a mut Arena<T>,
        head: u32,
        next: u32,
    ) -> Option<&'a mut T> {
        debug_assert_eq!(head, self.head);
        if self.tail == head {
            return None;
        }
        if let Some(t) = T::entry_mut(arena, self.tail) {
            t.link_mut().next = head;
        }
        self.head = next;
        self.tail = head;
        let n = T::entry_mut(arena, next)?;
        n.link_mut().prev = NIL;
        Some(n)
    }

    /// Indices front to back.
    pub(crate) fn iter<'a, T: Linked>(
        &self,
        arena: &'a Arena<T>,
    ) -> impl Iterator<Item = u32> + 'a {
        let mut at = self.head;
        core::iter::from_fn(move || {
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

    #[test]
    fn push_remove_move() {
        let mut a: Arena<N> = Arena::with_capacity(8);
        let ids: Vec<u32> = (0..4)
            .map(|_| a.alloc(N(Link::UNLINKED)).ok().unwrap())
            .collect();
        let mut l = List::EMPTY;
        for &i in &ids {
            l.push_back(&mut a, i);
        }
        assert_eq!(l.iter(&a).collect::<Vec<_>>(), ids);
        l.remove(&mut a, ids[0]);
        l.remove(&mut a, ids[2]);
        assert_eq!(l.iter(&a).collect::<Vec<_>>(), vec![ids[1], ids[3]]);
        l.move_to_back(&mut a, ids[1]);
        assert_eq!(l.iter(&a).collect::<Vec<_>>(), vec![ids[3], ids[1]]);
        l.push_back(&mut a, ids[0]);
        l.move_to_back(&mut a, ids[3]); // front to back
        assert_eq!(l.iter(&a).collect::<Vec<_>>(), vec![ids[1], ids[0], ids[3]]);
        assert_eq!(
            a.get(ids[1]).map(|n| n.0.prev),
            Some(NIL),
            "new head has no prev"
        );
        l.move_to_back(&mut a, ids[0]); // middle to back
        assert_eq!(l.iter(&a).collect::<Vec<_>>(), vec![ids[1], ids[3], ids[0]]);
        l.remove(&mut a, ids[0]);
        l.move_to_back(&mut a, ids[1]); // front to back of two
        assert_eq!(l.iter(&a).collect::<Vec<_>>(), vec![ids[3], ids[1]]);
        assert_eq!(l.front(), Some(ids[3]));
        assert_eq!(l.len(), 2);
        l.remove(&mut a, ids[3]);
        l.remove(&mut a, ids[1]);
        assert_eq!(l, List::EMPTY);
    }

    #[test]
    fn front_to_back_rotates() {
        let mut a: Arena<N> = Arena::with_capacity(4);
        let ids: Vec<u32> = (0..3)
            .map(|_| a.alloc(N(Link::UNLINKED)).ok().unwrap())
            .collect();
        let mut l = List::EMPTY;
        l.front_to_back(&mut a);
        assert_eq!(l, List::EMPTY, "empty list unchanged");
        l.push_back(&mut a, ids[0]);
        l.front_to_back(&mut a);
        assert_eq!(l.iter(&a).collect::<Vec<_>>(), vec![ids[0]], "one entry");
        l.push_back(&mut a, ids[1]);
        l.push_back(&mut a, ids[2]);
        l.front_to_back(&mut a);
        assert_eq!(l.iter(&a).collect::<Vec<_>>(), vec![ids[1], ids[2], ids[0]]);
        assert_eq!(a.get(ids[1]).map(|n| n.0.prev), Some(NIL));
        assert_eq!(
            a.get(ids[0]).map(|n| n.0),
            Some(Link {
                prev: ids[2],
                next: NIL
            })
        );
        assert_eq!(l.len(), 3);
    }
}
