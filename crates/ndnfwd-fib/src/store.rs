//! `Segmented<T>`: a u32-indexed array that grows by whole segments and never moves.
//!
//! The FIB's entries and nexthop sets are read by lock-free readers while the single writer
//! allocates, so they cannot live in `ndnfwd_table::Arena` (its `alloc` needs `&mut`). Values here
//! are made of atomics (`T: Default` builds an empty one); a segment of [`SEGMENT`] values is
//! allocated the first time the writer touches an index in it and stays until the store is
//! dropped, so a `&T` handed to a reader is always valid memory. Whether the *contents* still mean
//! what the reader thinks is the business of the QSBR protocol above this store.
//!
//! Index `i` lives in segment `i >> SEGMENT_BITS` at offset `i & (SEGMENT - 1)`; the directory of
//! segment pointers is small and stays cache resident.

use std::sync::OnceLock;

use ndnfwd_table::prefetch_read;

/// log2 of the values per segment.
pub const SEGMENT_BITS: u32 = 16;
/// Values per segment.
pub const SEGMENT: usize = 1 << SEGMENT_BITS;

/// Grow-only segmented storage. `Sync` when `T` is (atomics).
#[derive(Debug)]
pub struct Segmented<T> {
    dir: Box<[OnceLock<Box<[T]>>]>,
}

impl<T: Default> Segmented<T> {
    /// Room for `capacity` values (rounded up to whole segments); nothing is allocated yet.
    pub fn with_capacity(capacity: u64) -> Self {
        let segs = usize::try_from(capacity.div_ceil(SEGMENT as u64))
            .unwrap_or(usize::MAX)
            .min((u32::MAX as usize + 1) / SEGMENT);
        Self {
            dir: (0..segs).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The value at `i` if its segment exists.
    #[inline(always)]
    pub fn get(&self, i: u32) -> Option<&T> {
        let seg = self.dir.get((i >> SEGMENT_BITS) as usize)?.get()?;
        seg.get(i as usize & (SEGMENT - 1))
    }

    /// Prefetches the cache line holding the value at `i` (seed 002's speculative entry
    /// prefetch); nothing happens when its segment does not exist or `i` is beyond the capacity.
    #[inline(always)]
    pub fn prefetch(&self, i: u32) {
        if let Some(v) = self.get(i) {
            prefetch_read(v);
        }
    }

    /// The value at `i`, allocating its segment if needed; `None` beyond the capacity.
    /// Only the writer calls this (it is not a hot path).
    pub fn get_or_grow(&self, i: u32) -> Option<&T> {
        let slot = self.dir.get((i >> SEGMENT_BITS) as usize)?;
        let seg = slot.get_or_init(|| (0..SEGMENT).map(|_| T::default()).collect());
        seg.get(i as usize & (SEGMENT - 1))
    }

    /// Largest index plus one that the directory can address.
    pub fn capacity(&self) -> u64 {
        (self.dir.len() * SEGMENT) as u64
    }

    /// Bytes of the segments allocated so far plus the directory.
    pub fn memory_bytes(&self) -> usize {
        let segs = self.dir.iter().filter(|s| s.get().is_some()).count();
        segs * SEGMENT * core::mem::size_of::<T>()
            + self.dir.len() * core::mem::size_of::<OnceLock<Box<[T]>>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn grows_by_segment_and_bounds_capacity() {
        let s: Segmented<AtomicU64> = Segmented::with_capacity(3 * SEGMENT as u64 - 5);
        assert_eq!(s.capacity(), 3 * SEGMENT as u64);
        assert!(s.get(0).is_none());
        s.get_or_grow(SEGMENT as u32 + 3)
            .unwrap()
            .store(9, Ordering::Relaxed);
        assert!(s.get(0).is_none(), "segment 0 untouched");
        assert_eq!(
            s.get(SEGMENT as u32 + 3).unwrap().load(Ordering::Relaxed),
            9
        );
        assert_eq!(s.get(SEGMENT as u32).unwrap().load(Ordering::Relaxed), 0);
        assert!(
            s.get_or_grow(3 * SEGMENT as u32).is_none(),
            "beyond capacity"
        );
        assert!(s.memory_bytes() >= SEGMENT * 8);
    }

    #[test]
    fn prefetch_never_allocates_or_faults() {
        let s: Segmented<AtomicU64> = Segmented::with_capacity(2 * SEGMENT as u64);
        for i in [0, 1, SEGMENT as u32, 2 * SEGMENT as u32, u32::MAX] {
            s.prefetch(i);
        }
        assert_eq!(
            s.memory_bytes(),
            2 * core::mem::size_of::<OnceLock<Box<[AtomicU64]>>>()
        );
        s.get_or_grow(5).unwrap().store(3, Ordering::Relaxed);
        s.prefetch(5);
        assert_eq!(s.get(5).unwrap().load(Ordering::Relaxed), 3);
    }
}
