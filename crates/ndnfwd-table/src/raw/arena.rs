//! `Arena<T>`: fixed-capacity storage addressed by `u32` indices, allocated once.
//!
//! One mapping holds three arrays (each starting on a cache line):
//!
//! ```text
//! [ values: capacity x T ][ occupied: ceil(capacity/64) x u64 bitmap ][ free: capacity x u32 stack ]
//! ```
//!
//! Invariants (all upheld by the `&mut self` methods below):
//! - slot `i` holds an initialized `T` iff bit `i` of `occupied` is set; set bits are all `< bump`;
//! - slots `>= bump` have never been handed out (the OS zero page; never read as `T`);
//! - `free[0..free_len]` are distinct indices `< bump` whose bits are clear; every index
//!   `< bump` is either occupied or on that stack, so `bump - free_len` slots are allocated
//!   (no count is kept beside them: `alloc` and `free` would pay a store each to keep it).
//!
//! Untouched pages cost nothing (`MAP_NORESERVE`), so a large capacity reserves address space
//! only; pages fill in as `bump` advances.

use core::marker::PhantomData;
use core::mem::{align_of, size_of};

use super::mem::{Mapping, MAP_ALIGN};
use super::prefetch::prefetch_read;
use crate::AllocError;

/// Fixed-capacity slab of `T` with `u32` indices and a free list; never grows or moves.
///
/// `alloc` hands the value back when full (like `crossbeam`'s `ArrayQueue::push`), so a full
/// table is an ordinary, countable outcome. Indices are stable until `free`.
pub struct Arena<T> {
    map: Mapping,
    /// Start of the occupancy bitmap inside `map`, kept rather than recomputed from `map`'s
    /// base and an offset: every checked access, `alloc` and `free` reads it (one load instead
    /// of two and an add).
    occ: *mut u64,
    /// Start of the free stack inside `map`, kept for the same reason.
    free: *mut u32,
    cap: u32,
    bump: u32,
    free_len: u32,
    _t: PhantomData<T>,
}

// SAFETY: an `Arena<T>` owns its `T`s exactly like a `Vec<T>` does; moving it to another thread
// moves the values, which is sound when `T: Send`. Its raw pointers (`occ`, `free`) point into
// its own mapping, which does not move with the struct and is owned by nobody else.
unsafe impl<T: Send> Send for Arena<T> {}
// SAFETY: `&Arena<T>` only gives out `&T` (no interior mutation of the arena itself), so sharing
// it is sound when `T: Sync`.
unsafe impl<T: Sync> Sync for Arena<T> {}

const fn align64(x: usize) -> Option<usize> {
    match x.checked_add(63) {
        Some(y) => Some(y & !63),
        None => None,
    }
}

impl<T> Arena<T> {
    /// Creates an arena of `capacity` slots. Panics if the memory cannot be mapped (see
    /// [`Arena::try_with_capacity`]).
    pub fn with_capacity(capacity: u32) -> Self {
        match Self::try_with_capacity(capacity) {
            Ok(a) => a,
            Err(e) => panic!("ndnfwd-table: cannot map arena: {e}"),
        }
    }

    /// Creates an arena of `capacity` slots, or reports that the memory could not be mapped.
    pub fn try_with_capacity(capacity: u32) -> Result<Self, AllocError> {
        const { assert!(align_of::<T>() <= MAP_ALIGN) };
        let n = capacity as usize;
        let too_big = AllocError { bytes: usize::MAX };
        let values = n.checked_mul(size_of::<T>()).ok_or(too_big)?;
        let occ_off = align64(values).ok_or(too_big)?;
        let free_off = align64(occ_off + n.div_ceil(64) * 8).ok_or(too_big)?;
        let total = free_off
            .checked_add(n.checked_mul(4).ok_or(too_big)?)
            .ok_or(too_big)?;
        let map = Mapping::new(total)?;
        // In bounds of (or one past) the mapping by construction; 64-byte aligned.
        let occ = map.as_ptr().wrapping_add(occ_off).cast::<u64>();
        let free = map.as_ptr().wrapping_add(free_off).cast::<u32>();
        Ok(Self {
            map,
            occ,
            free,
            cap: capacity,
            bump: 0,
            free_len: 0,
            _t: PhantomData,
        })
    }

    fn values(&self) -> *mut T {
        self.map.as_ptr().cast::<T>()
    }

    fn occ(&self) -> *mut u64 {
        self.occ
    }

    fn free_stack(&self) -> *mut u32 {
        self.free
    }

    fn occupied(&self, i: u32) -> bool {
        if i >= self.bump {
            return false;
        }
        // SAFETY: i < bump <= cap, so word i/64 lies inside the occupancy bitmap, which is part of
        // the mapping, aligned for u64, and only written through `&mut self`.
        let w = unsafe { self.occ().add(i as usize / 64).read() };
        w & (1 << (i % 64)) != 0
    }

    fn set_occupied(&mut self, i: u32, on: bool) {
        // SAFETY: callers pass i < bump <= cap (see `occupied`); `&mut self` excludes readers.
        unsafe {
            let p = self.occ().add(i as usize / 64);
            let bit = 1u64 << (i % 64);
            p.write(if on { p.read() | bit } else { p.read() & !bit });
        }
    }

    /// Stores `v` and returns its index, or hands `v` back when every slot is taken.
    pub fn alloc(&mut self, v: T) -> Result<u32, T> {
        let Some((i, _)) = self.take_slot() else {
            return Err(v);
        };
        // SAFETY: i < bump <= cap, so the slot lies inside the values array and is aligned for T.
        // It was free (off the free stack or never used), so it holds no live T to leak.
        unsafe { self.values().add(i as usize).write(v) };
        Ok(i)
    }

    /// Stores the value `make` builds and returns its index, or `None` (`make` not called) when
    /// every slot is taken. The slot is taken first, so the value is written straight into it
    /// rather than built aside and moved in, as [`Arena::alloc`] must (it hands the value back
    /// when full): for a large `T` built from parts, that move is a copy of the whole value.
    #[inline]
    pub fn alloc_with(&mut self, make: impl FnOnce() -> T) -> Option<u32> {
        let (i, _) = self.take_slot()?;
        // SAFETY: as in `alloc`: i < bump <= cap, so the slot lies inside the values array and is
        // aligned for T; it was free, so it holds no live T to leak.
        unsafe { self.values().add(i as usize).write(make()) };
        Some(i)
    }

    /// Marks a free slot occupied and returns it: the top of the free stack, or else the next
    /// never-used slot (then `true`: it holds no `T` yet). `None` when every slot is taken.
    #[inline(always)]
    fn take_slot(&mut self) -> Option<(u32, bool)> {
        let (i, never_used) = if self.free_len > 0 {
            self.free_len -= 1;
            // SAFETY: free_len < cap, so the read is inside the free stack; that entry was written
            // by `free` (invariant: free[0..free_len] are initialized indices < bump).
            (
                unsafe { self.free_stack().add(self.free_len as usize).read() },
                false,
            )
        } else if self.bump < self.cap {
            self.bump += 1;
            (self.bump - 1, true)
        } else {
            return None;
        };
        self.set_occupied(i, true);
        Some((i, never_used))
    }

    /// Removes and returns the value at `i`; `None` if `i` is not allocated. Inlined: a caller
    /// that drops the value (the usual one) then copies nothing out (out of line, the whole
    /// value is copied into the return slot).
    #[inline(always)]
    pub fn free(&mut self, i: u32) -> Option<T> {
        if !self.occupied(i) {
            return None;
        }
        self.set_occupied(i, false);
        // SAFETY: the slot was occupied, so it holds an initialized T; clearing its bit first means
        // the value is moved out exactly once and never read again until re-written by `alloc`.
        let v = unsafe { self.values().add(i as usize).read() };
        // SAFETY: slot i was occupied, so it is not on the free stack, which therefore holds
        // fewer than bump <= cap indices: free_len < cap, and the write is inside the stack.
        unsafe { self.free_stack().add(self.free_len as usize).write(i) };
        self.free_len += 1;
        Some(v)
    }

    /// Shared access to the value at `i`, if allocated.
    #[inline]
    pub fn get(&self, i: u32) -> Option<&T> {
        if !self.occupied(i) {
            return None;
        }
        // SAFETY: occupied => initialized T inside the values array; the borrow is tied to &self,
        // and mutation requires &mut self.
        Some(unsafe { &*self.values().add(i as usize) })
    }

    /// Exclusive access to the value at `i`, if allocated.
    #[inline]
    pub fn get_mut(&mut self, i: u32) -> Option<&mut T> {
        if !self.occupied(i) {
            return None;
        }
        // SAFETY: as in `get`, and `&mut self` guarantees this is the only live reference.
        Some(unsafe { &mut *self.values().add(i as usize) })
    }

    /// Prefetches the slot of `i` and its occupancy word (any `i`; out of range is harmless).
    /// A caller that only uses [`Arena::get_live`] for `i` may use [`Arena::prefetch_value`].
    #[inline]
    pub fn prefetch(&self, i: u32) {
        self.prefetch_value(i);
        prefetch_read(self.occ().wrapping_add(i as usize / 64));
    }

    /// Prefetches the slot of `i` (any `i`; out of range is harmless): the lines of its first
    /// and last byte, so a value that straddles two lines is fetched whole.
    #[inline]
    pub fn prefetch_value(&self, i: u32) {
        let first = self.values().wrapping_add(i as usize).cast::<u8>();
        prefetch_read(first);
        prefetch_read(first.wrapping_add(size_of::<T>().saturating_sub(1)));
    }

    /// Prefetches every line of the slot of `i` (any `i`; out of range is harmless), for a
    /// value over two lines long that its user reads whole.
    #[inline]
    pub fn prefetch_lines(&self, i: u32) {
        let first = self.values().wrapping_add(i as usize).cast::<u8>();
        // Steps of one line from the first byte reach every line but perhaps the last byte's:
        // that one is prefetched at the last byte itself. No address leaves the slot, and none
        // needs clamping (about 4 instructions a line).
        for l in 0..size_of::<T>().div_ceil(64) {
            prefetch_read(first.wrapping_add(l << 6));
        }
        // A line-aligned value a whole number of lines long ends on the last line above.
        if align_of::<T>() % 64 != 0 || size_of::<T>() % 64 != 0 {
            prefetch_read(first.wrapping_add(size_of::<T>().saturating_sub(1)));
        }
    }

    /// The slot the allocation `n` allocations from now takes if nothing is freed meanwhile
    /// (`n = 0`: the next one; down the free stack from its top, then the never-used slots),
    /// `None` past the capacity: a caller that will allocate soon prefetches it, so that
    /// writing the new value does not wait for its lines.
    #[inline]
    pub fn nth_free(&self, n: u32) -> Option<u32> {
        if n < self.free_len {
            // SAFETY: free_len - 1 - n < free_len <= cap, so the read is inside the free stack;
            // that entry was written by `free` (invariant: free[0..free_len] are initialized
            // indices < bump).
            Some(unsafe {
                self.free_stack()
                    .add((self.free_len - 1 - n) as usize)
                    .read()
            })
        } else {
            let i = u64::from(self.bump) + u64::from(n - self.free_len);
            (i < u64::from(self.cap)).then_some(i as u32)
        }
    }

    /// Iterates over `(index, &value)` of allocated slots in index order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> + '_ {
        (0..self.bump).filter_map(move |i| self.get(i).map(|v| (i, v)))
    }

    /// Number of allocated slots.
    pub fn len(&self) -> usize {
        (self.bump - self.free_len) as usize
    }

    /// True when no slot is allocated.
    pub fn is_empty(&self) -> bool {
        self.bump == self.free_len
    }

    /// Number of slots (fixed at construction).
    pub fn capacity(&self) -> u32 {
        self.cap
    }

    /// Bytes of address space mapped (values, occupancy bitmap, free stack); resident memory is
    /// at most this and grows with the highest index ever allocated.
    pub fn memory_bytes(&self) -> usize {
        self.map.len()
    }
}

impl<T: Copy> Arena<T> {
    /// Shared access to slot `i` without the occupancy check, for an index the caller knows is
    /// allocated (it holds the index in a live entry, or the table just returned it). About half
    /// the instructions of [`Arena::get`] and no read of the occupancy bitmap (its own cache line).
    ///
    /// Bounds checked: `None` when `i` was never handed out. An `i` that is currently free is a
    /// caller bug: debug builds panic (so the tests check the caller's claim), release builds
    /// return the last value stored there, still a valid `T` (`T: Copy` has no destructor and
    /// freeing only copies the bits out) but a stale one. Use [`Arena::get`] for indices from
    /// untrusted input (tokens on the wire).
    #[inline]
    pub fn get_live(&self, i: u32) -> Option<&T> {
        debug_assert!(
            i >= self.bump || self.occupied(i),
            "Arena::get_live of free slot {i}"
        );
        self.get_any(i)
    }

    /// [`Arena::get_live`] for an index that may be free, in every build: the value last
    /// stored in slot `i` (the live one, or the one freed last), `None` when `i` was never
    /// handed out. For a caller that tells a freed value from a live one by its contents (the
    /// PIT-CS's lookups, which may meet the index of a key it freed without clearing its table
    /// slot, and never match that key's contents).
    #[inline]
    pub fn get_any(&self, i: u32) -> Option<&T> {
        if i >= self.bump {
            return None;
        }
        // SAFETY: i < bump <= cap, so the slot lies inside the values array, aligned for T. Every
        // slot below bump was written with a T by `alloc`; `free` only copies the bits out, and a
        // copy of a `Copy` value leaves the original valid, so the slot holds a valid T whether
        // or not it is occupied now. The borrow is tied to &self; mutation requires &mut self.
        Some(unsafe { &*self.values().add(i as usize) })
    }

    /// Allocates a slot and lends it out to be filled in field by field, instead of building a
    /// whole `T` and copying it in: a recycled slot still holds the last value freed there (a
    /// valid `T`, as in [`Arena::get_live`]); a slot never handed out is first written with
    /// `fresh()`. The caller must overwrite every field it will read; this pays off for large
    /// entries whose tail is dead until written (records beyond a count). `None` when full.
    #[inline]
    pub fn alloc_reuse(&mut self, fresh: impl FnOnce() -> T) -> Option<(u32, &mut T)> {
        let (i, never_used) = self.take_slot()?;
        if never_used {
            // SAFETY: i < bump <= cap, so the slot lies inside the values array, aligned for T,
            // and was never handed out: no T to leak, and from now on it holds a valid T.
            unsafe { self.values().add(i as usize).write(fresh()) };
        }
        // SAFETY: i < bump, so the slot holds a valid T: written just above, or (recycled) by an
        // earlier `alloc`/`alloc_reuse` and only copied out by `free`, which leaves a `Copy`
        // value valid. `&mut self` makes this the only reference.
        Some((i, unsafe { &mut *self.values().add(i as usize) }))
    }

    /// Exclusive access to slot `i` without the occupancy check; see [`Arena::get_live`]. In
    /// release builds, writing into a free slot is harmless: `alloc` overwrites it without a drop.
    #[inline]
    pub fn get_live_mut(&mut self, i: u32) -> Option<&mut T> {
        if i >= self.bump {
            return None;
        }
        debug_assert!(self.occupied(i), "Arena::get_live_mut of free slot {i}");
        // SAFETY: as in `get_live`, and `&mut self` guarantees this is the only live reference.
        Some(unsafe { &mut *self.values().add(i as usize) })
    }
}

impl<T> Drop for Arena<T> {
    fn drop(&mut self) {
        if core::mem::needs_drop::<T>() {
            for i in 0..self.bump {
                if self.occupied(i) {
                    // SAFETY: occupied => initialized; dropped once, then the mapping goes away.
                    unsafe { core::ptr::drop_in_place(self.values().add(i as usize)) };
                }
            }
        }
    }
}

impl<T> core::fmt::Debug for Arena<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Arena")
            .field("len", &self.len())
            .field("capacity", &self.cap)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn alloc_get_free_realloc() {
        let mut a: Arena<u64> = Arena::with_capacity(3);
        assert!(a.is_empty());
        let i0 = a.alloc(10).unwrap();
        let i1 = a.alloc(11).unwrap();
        assert_ne!(i0, i1);
        assert_eq!(a.get(i0), Some(&10));
        assert_eq!(a.get(i1), Some(&11));
        assert_eq!(a.get(2), None, "never allocated");
        assert_eq!(a.get(99), None, "out of range");
        *a.get_mut(i1).unwrap() += 1;
        assert_eq!(a.free(i1), Some(12));
        assert_eq!(a.free(i1), None, "double free");
        assert_eq!(a.get(i1), None);
        assert_eq!(a.len(), 1);
        let i2 = a.alloc(20).unwrap();
        assert_eq!(i2, i1, "freed slot is reused first");
        assert_eq!(a.get(i2), Some(&20));
        assert_eq!(
            a.iter().map(|(i, v)| (i, *v)).collect::<Vec<_>>(),
            vec![(0, 10), (1, 20)]
        );
    }

    #[test]
    fn alloc_with_builds_in_the_slot_and_never_when_full() {
        let mut a: Arena<String> = Arena::with_capacity(2);
        let i = a.alloc_with(|| "a".into()).unwrap();
        assert_eq!(a.get(i).map(String::as_str), Some("a"));
        a.free(i);
        assert_eq!(
            a.alloc_with(|| "b".into()),
            Some(i),
            "freed slot is reused first"
        );
        assert!(a.alloc_with(|| "c".into()).is_some());
        let mut called = false;
        assert_eq!(
            a.alloc_with(|| {
                called = true;
                "d".into()
            }),
            None
        );
        assert!(!called, "a full arena does not build the value");
        assert_eq!(a.len(), 2);
        let mut v: Vec<_> = a.iter().map(|(_, s)| s.clone()).collect();
        v.sort();
        assert_eq!(v, ["b", "c"]);
    }

    #[test]
    fn full_arena_hands_value_back() {
        let mut a: Arena<String> = Arena::with_capacity(2);
        a.alloc("a".into()).unwrap();
        a.alloc("b".into()).unwrap();
        assert_eq!(a.alloc("c".into()), Err("c".to_string()));
        assert_eq!(a.len(), 2);
        assert_eq!(a.capacity(), 2);
        assert_eq!(a.free(0).as_deref(), Some("a"));
        assert_eq!(a.alloc("d".into()), Ok(0));
        assert_eq!(a.alloc("e".into()), Err("e".to_string()));
    }

    #[test]
    fn drop_runs_for_live_values_only() {
        let rc = Rc::new(());
        {
            let mut a: Arena<Rc<()>> = Arena::with_capacity(100);
            for _ in 0..70 {
                a.alloc(rc.clone()).unwrap();
            }
            for i in (0..70).step_by(2) {
                drop(a.free(i));
            }
            assert_eq!(Rc::strong_count(&rc), 36);
        }
        assert_eq!(Rc::strong_count(&rc), 1);
    }

    #[test]
    fn zero_capacity_and_zst() {
        let mut a: Arena<u8> = Arena::with_capacity(0);
        assert_eq!(a.alloc(1), Err(1));
        let mut z: Arena<()> = Arena::with_capacity(5);
        for k in 0..5 {
            assert_eq!(z.alloc(()), Ok(k));
        }
        assert_eq!(z.alloc(()), Err(()));
        assert_eq!(z.free(3), Some(()));
        assert_eq!(z.get(3), None);
    }

    #[test]
    fn get_live_skips_occupancy_but_not_bounds() {
        let mut a: Arena<u64> = Arena::with_capacity(4);
        let i = a.alloc(5).unwrap();
        let j = a.alloc(6).unwrap();
        assert_eq!(a.get_live(i), Some(&5));
        *a.get_live_mut(j).unwrap() += 1;
        assert_eq!(a.get(j), Some(&7));
        assert_eq!(a.get_live(2), None, "never handed out");
        assert_eq!(a.get_live(u32::MAX), None, "out of range");
        assert_eq!(a.get_live_mut(3), None);
        assert_eq!(a.free(i), Some(5));
        assert_eq!(a.get(i), None);
        if !cfg!(debug_assertions) {
            assert_eq!(
                a.get_live(i),
                Some(&5),
                "a freed slot reads its stale value"
            );
            *a.get_live_mut(i).unwrap() = 9;
            assert_eq!(a.get(i), None, "writing a free slot does not allocate it");
        }
        assert_eq!(a.alloc(1), Ok(i));
        assert_eq!(a.get_live(i), Some(&1));
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn alloc_reuse_fresh_then_recycled() {
        let mut a: Arena<[u32; 2]> = Arena::with_capacity(2);
        let (i, v) = a.alloc_reuse(|| [1, 2]).unwrap();
        assert_eq!(*v, [1, 2], "a fresh slot starts as fresh()");
        v[1] = 5;
        let (j, _) = a.alloc_reuse(|| [3, 4]).unwrap();
        assert_ne!(i, j);
        assert!(a.alloc_reuse(|| [0, 0]).is_none(), "full");
        assert_eq!(a.free(i), Some([1, 5]));
        let (k, v) = a
            .alloc_reuse(|| unreachable!("a recycled slot needs no fresh value"))
            .unwrap();
        assert_eq!((k, *v), (i, [1, 5]), "a recycled slot keeps its last value");
        v[0] = 9;
        assert_eq!(a.get(i), Some(&[9, 5]));
        assert_eq!(a.len(), 2);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "get_live of free slot")]
    fn get_live_of_free_slot_panics_in_debug() {
        let mut a: Arena<u64> = Arena::with_capacity(2);
        let i = a.alloc(5).unwrap();
        a.free(i);
        let _ = a.get_live(i);
    }

    #[test]
    fn large_capacity_is_lazy() {
        // 2^24 x 64 B = 1 GiB of address space; only touched pages become resident.
        let mut a: Arena<[u64; 8]> = Arena::with_capacity(1 << 24);
        assert!(a.memory_bytes() >= (1 << 24) * 64);
        let i = a.alloc([7; 8]).unwrap();
        a.prefetch(i);
        a.prefetch(u32::MAX);
        a.prefetch_value(i);
        a.prefetch_value(u32::MAX);
        a.prefetch_lines(i);
        a.prefetch_lines(u32::MAX);
        assert_eq!(a.get(i).map(|v| v[3]), Some(7));
        assert_eq!(a.nth_free(0), Some(i + 1), "never-used slots in order");
        assert_eq!(a.nth_free(2), Some(i + 3));
        let j = a.alloc([8; 8]).unwrap();
        let k = a.alloc([8; 8]).unwrap();
        a.free(k);
        a.free(i);
        assert_eq!(a.nth_free(0), Some(i), "the last freed slot first");
        assert_eq!(a.nth_free(1), Some(k), "then down the free stack");
        assert_eq!(a.nth_free(2), Some(k + 1), "then the never-used slots");
        assert_eq!(a.alloc([9; 8]), Ok(i));
        assert_eq!(a.alloc([9; 8]), Ok(k));
        assert_eq!(a.alloc([9; 8]), Ok(k + 1));
        assert_ne!(j, i);
        assert_eq!(a.nth_free(u32::MAX), None, "past the capacity");
    }
}
