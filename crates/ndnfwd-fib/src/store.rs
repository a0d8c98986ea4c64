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
//!
//! Segments are `ndnfwd_table::ZeroedSlice`s (in a `MaskedSlice`, so the offset needs no bounds
//! check): zero-filled mappings backed only where touched,
//! and (being several MiB) on transparent huge pages like the bucket tables, so the random entry
//! reads of a lookup in a FIB of millions of prefixes do not each cost a page walk. Stored types
//! are atomics, valid when zero ([`ZeroValid`]); that is the same value as their `Default`.

use std::sync::OnceLock;

use ndnfwd_table::{prefetch_read, MaskedSlice, ZeroValid, ZeroedSlice};

use crate::entry::Entry;
use crate::nexthop::FwdSet;
use crate::reader::Shared;

// SAFETY: an `Entry` is only `[AtomicU64; 3]`: zero is valid (the empty entry, equal to its
// `Default`), no drop glue, alignment 8.
#[allow(unsafe_code)]
unsafe impl ZeroValid for Entry {}

// SAFETY: a `FwdSet` is only `[AtomicU64; 9]`: zero is valid (the empty set, equal to its
// `Default`), no drop glue, alignment 8.
#[allow(unsafe_code)]
unsafe impl ZeroValid for FwdSet {}

/// log2 of the values per segment: 2^19 entries make 12 MiB, six whole huge pages.
pub const SEGMENT_BITS: u32 = 19;
/// Values per segment.
pub const SEGMENT: usize = 1 << SEGMENT_BITS;

/// Grow-only segmented storage. `Sync` when `T` is (atomics).
#[derive(Debug)]
pub struct Segmented<T: ZeroValid> {
    /// Segments of [`SEGMENT`] values, masked by `SEGMENT - 1` (no bounds check in a segment).
    dir: Box<[OnceLock<MaskedSlice<T>>]>,
}

impl<T: ZeroValid> Segmented<T> {
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
        Some(seg.at_masked(i as usize))
    }

    /// The value at `i`, mapping its segment if needed; `None` beyond the capacity or when the
    /// segment cannot be mapped. Only the writer calls this (it is not a hot path).
    pub fn get_or_grow(&self, i: u32) -> Option<&T> {
        let slot = self.dir.get((i >> SEGMENT_BITS) as usize)?;
        if slot.get().is_none() {
            let seg = MaskedSlice::new(ZeroedSlice::new(SEGMENT).ok()?, SEGMENT - 1)?;
            // Only the writer grows, so the slot is still empty; a lost race would only drop `seg`.
            let _ = slot.set(seg);
        }
        Some(slot.get()?.at_masked(i as usize))
    }

    /// Largest index plus one that the directory can address.
    pub fn capacity(&self) -> u64 {
        (self.dir.len() * SEGMENT) as u64
    }

    /// Bytes of the segments mapped so far plus the directory (address space: pages of a
    /// segment are only backed once touched).
    pub fn memory_bytes(&self) -> usize {
        let segs = self.dir.iter().filter(|s| s.get().is_some()).count();
        segs * SEGMENT * core::mem::size_of::<T>()
            + self.dir.len() * core::mem::size_of::<OnceLock<MaskedSlice<T>>>()
    }
}

/// log2 of the entry ids a page of the table is given: a page's payload holds at most
/// `2^PAGE_SLOT_BITS` entries (106 at 24 home buckets a page).
pub(crate) const PAGE_SLOT_BITS: u32 = 7;

/// The FIB's entries. A real prefix's entry sits in the payload of one of the table's 4 KiB
/// pages ([`ndnfwd_table::BucketTable::page_payload`]): the page of its home bucket, or of the
/// first record it hosts (two-stage's virtual at M, read right after that record's bucket), so
/// that the speculative scan's entry prefetch reuses the translation its bucket read has just
/// made instead of paying a page walk of its own (s22-iwalk). Entry id `i` below `paged` is
/// slot `i % 2^PAGE_SLOT_BITS` of page `i >> PAGE_SLOT_BITS`; the others, `spill[i - paged]`,
/// are the entries of prefixes whose page was full (about 1 % at the page's planned load) and
/// the shared hosts of records beyond a prefix's two.
#[derive(Debug)]
pub(crate) struct Entries {
    /// Entry ids below this live in the table's pages.
    pub paged: u32,
    /// Entries outside the pages.
    pub spill: Segmented<Entry>,
}

impl Shared {
    /// Entry `i`, if it exists (a page slot or a mapped spill segment).
    #[inline(always)]
    pub(crate) fn entry(&self, i: u32) -> Option<&Entry> {
        let e = &self.entries;
        if i < e.paged {
            self.table
                .page_payload::<Entry>((i >> PAGE_SLOT_BITS) as usize)
                .get((i & ((1 << PAGE_SLOT_BITS) - 1)) as usize)
        } else {
            e.spill.get(i - e.paged)
        }
    }

    /// Entry `i`, mapping its spill segment if needed (the writer only).
    pub(crate) fn entry_or_grow(&self, i: u32) -> Option<&Entry> {
        let e = &self.entries;
        if i < e.paged {
            self.entry(i)
        } else {
            e.spill.get_or_grow(i - e.paged)
        }
    }

    /// Prefetches entry `i` (seed 002's speculative entry prefetch): the lines of its first
    /// and last byte, so an entry that straddles two lines (a 24-byte entry at 8-byte alignment
    /// does at two of every eight positions) is fetched whole; nothing happens when it does not
    /// exist.
    #[inline(always)]
    pub(crate) fn prefetch_entry(&self, i: u32) {
        if let Some(v) = self.entry(i) {
            let first = core::ptr::from_ref(v).cast::<u8>();
            prefetch_read(first);
            prefetch_read(first.wrapping_add(size_of::<Entry>() - 1));
        }
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
}
