//! One anonymous memory mapping per table or arena, allocated once and freed on drop.
//!
//! Memory comes from `mmap(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)`: the kernel hands out
//! zero-filled pages lazily, so an untouched overflow pool or arena tail costs address space only.
//! Mappings of at least [`HUGE_PAGE`] bytes are placed on a 2 MiB boundary and advised with
//! `MADV_HUGEPAGE` (Linux), so a bucket array is covered by few TLB entries. If the kernel refuses
//! the advice (THP disabled) the mapping simply stays on 4 KiB pages.

use core::marker::PhantomData;
use core::ops::Deref;
use core::ptr::NonNull;

use crate::bucket::Bucket;
use crate::AllocError;

/// Huge page size the mapping aligns to (x86_64 and aarch64 with 4 KiB base pages).
pub(crate) const HUGE_PAGE: usize = 2 << 20;

/// Alignment every mapping start is guaranteed to have (the smallest page size we accept).
pub(crate) const MAP_ALIGN: usize = 4096;

/// Only used for its alignment: the dangling pointer of an empty mapping.
#[repr(C, align(4096))]
struct PageAligned;
const _: () = assert!(core::mem::align_of::<PageAligned>() == MAP_ALIGN);

/// A zero-filled, read-write, private anonymous mapping of `len` bytes.
///
/// Invariant: `ptr` is aligned to [`MAP_ALIGN`] and, when `len > 0`, is the start of a live mapping
/// of exactly `len` bytes owned by this value (unmapped on drop). When `len == 0` nothing is
/// mapped and `ptr` is a dangling, suitably aligned pointer that is never dereferenced.
pub(crate) struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: `Mapping` is a uniquely owned block of plain memory (like `Box<[u8]>`); it has no thread
// affinity. Access to its contents is governed by the types built on top of it.
unsafe impl Send for Mapping {}
// SAFETY: `&Mapping` only exposes the base pointer and length; see `Send` above.
unsafe impl Sync for Mapping {}

fn page_size() -> usize {
    // SAFETY: `sysconf` has no preconditions; it only reads a system constant.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p)
        .ok()
        .filter(|p| p.is_power_of_two())
        .unwrap_or(MAP_ALIGN)
}

const fn round_up(x: usize, to: usize) -> Option<usize> {
    // `to` is a power of two.
    match x.checked_add(to - 1) {
        Some(y) => Some(y & !(to - 1)),
        None => None,
    }
}

impl Mapping {
    /// Maps `bytes` zero-filled bytes (rounded up to whole pages).
    pub(crate) fn new(bytes: usize) -> Result<Self, AllocError> {
        let err = AllocError { bytes };
        if bytes == 0 {
            // A dangling, MAP_ALIGN-aligned pointer; never dereferenced because len == 0.
            let ptr = NonNull::<PageAligned>::dangling().cast::<u8>();
            return Ok(Self { ptr, len: 0 });
        }
        let page = page_size().max(MAP_ALIGN);
        let huge = bytes >= HUGE_PAGE;
        let len = round_up(bytes, if huge { HUGE_PAGE } else { page }).ok_or(err)?;
        // Over-map by one huge page so that a 2 MiB aligned window of `len` bytes exists.
        let map_len = if huge {
            len.checked_add(HUGE_PAGE).ok_or(err)?
        } else {
            len
        };

        #[cfg(target_os = "linux")]
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
        #[cfg(not(target_os = "linux"))]
        let flags = libc::MAP_PRIVATE | libc::MAP_ANON;

        // SAFETY: anonymous mapping request with a null hint: it creates a new mapping and does not
        // touch any existing memory. The result is checked against MAP_FAILED below.
        let base = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(err);
        }
        let base_addr = base as usize;
        let start_addr = if huge {
            round_up(base_addr, HUGE_PAGE).ok_or(err)?
        } else {
            base_addr
        };
        let head = start_addr - base_addr;
        let tail = map_len - head - len;
        // Derive the start from the returned pointer (keeps its provenance).
        let start = base.cast::<u8>().wrapping_add(head);
        if head > 0 {
            // SAFETY: [base, base + head) lies inside the mapping created above and nothing refers
            // to it; unmapping it only trims the unused, unaligned head.
            unsafe { libc::munmap(base, head) };
        }
        if tail > 0 {
            // SAFETY: [start + len, start + len + tail) is the unused end of the same mapping.
            unsafe { libc::munmap(start.wrapping_add(len).cast(), tail) };
        }
        #[cfg(target_os = "linux")]
        if huge {
            // SAFETY: advising a range we own; MADV_HUGEPAGE does not change its contents. A failure
            // (THP disabled or unsupported) is ignored: the mapping stays on base pages.
            unsafe { libc::madvise(start.cast(), len, libc::MADV_HUGEPAGE) };
        }
        let ptr = NonNull::new(start).ok_or(err)?;
        Ok(Self { ptr, len })
    }

    /// Start of the mapping (aligned to at least [`MAP_ALIGN`]).
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Bytes mapped (a whole number of pages, or 0).
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: by the type invariant `ptr..ptr+len` is a live mapping owned by `self`, and
            // every borrow of its contents is tied to `&self`, so none outlives this drop.
            unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
        }
    }
}

/// Types for which the all-zero bit pattern is a valid value and which need no drop, so a
/// [`ZeroedSlice`] of them can come straight from fresh zero-filled pages.
///
/// # Safety
/// An implementor must be valid when all of its bytes are zero, must not implement `Drop` (nor
/// contain fields that do), and must have an alignment of at most 4096 bytes.
pub unsafe trait ZeroValid: Sized {}

// SAFETY: zero is a valid atomic integer, atomics have no drop glue, alignment 8 <= 4096.
unsafe impl ZeroValid for core::sync::atomic::AtomicU64 {}

// SAFETY: zero is a valid `u32`, which has no drop glue and alignment 4 <= 4096.
unsafe impl ZeroValid for u32 {}

// SAFETY: zero is a valid `u8`, which has no drop glue and alignment 1 <= 4096.
unsafe impl ZeroValid for u8 {}

// SAFETY: an array of zero-valid values is all zeros exactly when each element is; arrays add no
// drop glue; their alignment is the element's.
unsafe impl<T: ZeroValid, const N: usize> ZeroValid for [T; N] {}

// SAFETY: a `Bucket` is only atomics (`AtomicU64` x 7, `AtomicU32` x 2), for which zero is a valid
// value (an empty bucket); atomics have no drop glue; its alignment is 64 <= MAP_ALIGN.
unsafe impl ZeroValid for Bucket {}

/// Bucket lines that a paged table never uses as buckets (the payload lines of its pages,
/// [`crate::BucketTable::page_payload`]) seen as values of `T`, as many as fit.
pub(crate) fn lines_as<T: ZeroValid>(lines: &[Bucket]) -> &[T] {
    const {
        assert!(core::mem::align_of::<T>() <= core::mem::align_of::<Bucket>());
        assert!(core::mem::size_of::<T>() > 0);
    }
    let n = core::mem::size_of_val(lines) / core::mem::size_of::<T>();
    // SAFETY: the lines are zero-filled memory of the table's mapping (zero is a valid `T`) and
    // the pointer is aligned for `T` (a line is 64-aligned, `T` at most that); `n` values fit in
    // the lines' bytes. The table never reads or writes these lines as buckets (its home
    // buckets and overflow pool are other lines), so the only accesses to this memory are
    // through `T`, which has no drop glue.
    unsafe { core::slice::from_raw_parts(lines.as_ptr().cast::<T>(), n) }
}

/// A fixed-length slice of `T` living in its own zero-filled mapping: pages are only backed
/// when first touched, and a slice of at least 2 MiB sits on 2 MiB boundaries advised for
/// transparent huge pages, so random reads over it miss the TLB far less than on 4 KiB pages.
pub struct ZeroedSlice<T: ZeroValid> {
    map: Mapping,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: ZeroValid> ZeroedSlice<T> {
    /// Maps `len` zeroed values of `T`.
    pub fn new(len: usize) -> Result<Self, AllocError> {
        const {
            assert!(core::mem::align_of::<T>() <= MAP_ALIGN);
            assert!(!core::mem::needs_drop::<T>());
        }
        let bytes = len
            .checked_mul(core::mem::size_of::<T>())
            .ok_or(AllocError { bytes: usize::MAX })?;
        Ok(Self {
            map: Mapping::new(bytes)?,
            len,
            _t: PhantomData,
        })
    }
}

impl<T: ZeroValid> core::fmt::Debug for ZeroedSlice<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ZeroedSlice")
            .field("len", &self.len)
            .field("mapped", &self.map.len())
            .finish()
    }
}

impl<T: ZeroValid> Deref for ZeroedSlice<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: the mapping holds at least `len * size_of::<T>()` zero-filled bytes (or `len` is
        // 0, or `T` is zero-sized, and the pointer is dangling but aligned), its start is aligned
        // to MAP_ALIGN >= align_of::<T>() (checked in `new`), zero is a valid `T` (ZeroValid), and
        // the returned borrow cannot outlive `self`, which owns the mapping. Through `&self`
        // only shared slices exist (mutation goes through `T`'s interior mutability); a unique
        // slice needs `&mut self` (`deref_mut`).
        unsafe { core::slice::from_raw_parts(self.map.as_ptr().cast::<T>(), self.len) }
    }
}

impl<T: ZeroValid> core::ops::DerefMut for ZeroedSlice<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as for `deref`; in addition `&mut self` proves this is the only borrow of the
        // mapping, which `self` owns exclusively, so the unique slice aliases nothing.
        unsafe { core::slice::from_raw_parts_mut(self.map.as_ptr().cast::<T>(), self.len) }
    }
}

/// A [`ZeroedSlice`] with a mask below its length: [`MaskedSlice::at_masked`] reads the element
/// at `x & mask` with no bounds check, for a table that picks a home bucket by a hash's low bits
/// (one load and compare less on every lookup). Invariant: `mask < slice.len()`, established by
/// [`MaskedSlice::new`] and kept since neither field is ever changed.
pub struct MaskedSlice<T: ZeroValid> {
    slice: ZeroedSlice<T>,
    mask: usize,
}

impl<T: ZeroValid> MaskedSlice<T> {
    /// `slice` with `mask`; `None` unless `mask < slice.len()`.
    pub fn new(slice: ZeroedSlice<T>, mask: usize) -> Option<Self> {
        (mask < slice.len()).then_some(Self { slice, mask })
    }

    /// The mask.
    #[inline(always)]
    pub fn mask(&self) -> usize {
        self.mask
    }

    /// The element at `x & mask`.
    #[inline(always)]
    pub fn at_masked(&self, x: usize) -> &T {
        let i = x & self.mask;
        // SAFETY: `i <= mask < slice.len()` (the type's invariant), so `i` is in bounds.
        unsafe { self.slice.get_unchecked(i) }
    }
}

impl<T: ZeroValid> core::fmt::Debug for MaskedSlice<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MaskedSlice")
            .field("slice", &self.slice)
            .field("mask", &self.mask)
            .finish()
    }
}

impl<T: ZeroValid> Deref for MaskedSlice<T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        &self.slice
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_huge_mappings_are_zeroed_and_aligned() {
        for bytes in [1, 4096, 4097, HUGE_PAGE, 3 * HUGE_PAGE + 5] {
            let m = Mapping::new(bytes).expect("map");
            assert!(m.len() >= bytes);
            assert_eq!(m.as_ptr() as usize % MAP_ALIGN, 0);
            if bytes >= HUGE_PAGE {
                assert_eq!(m.as_ptr() as usize % HUGE_PAGE, 0);
            }
        }
        let s: ZeroedSlice<Bucket> = ZeroedSlice::new(100_000).expect("map");
        assert_eq!(s.len(), 100_000);
        assert!(s
            .iter()
            .all(|b| b.next.load(core::sync::atomic::Ordering::Relaxed) == 0));
        assert!(s.map.len() >= 100_000 * 64);
    }

    #[test]
    fn empty_mapping() {
        let m = Mapping::new(0).expect("empty");
        assert_eq!(m.len(), 0);
        let s: ZeroedSlice<Bucket> = ZeroedSlice::new(0).expect("empty");
        assert!(s.is_empty());
        assert!(
            MaskedSlice::new(s, 0).is_none(),
            "no element for the mask to pick"
        );
    }

    #[test]
    fn masked_reads_stay_below_the_mask() {
        let s: ZeroedSlice<u32> = ZeroedSlice::new(10).expect("map");
        let m = MaskedSlice::new(s, 7).expect("mask 7 < 10");
        for x in [0usize, 7, 8, 15, usize::MAX] {
            let p = core::ptr::from_ref(m.at_masked(x));
            assert_eq!(p, core::ptr::from_ref(&m[x & 7]));
        }
        assert_eq!(m.len(), 10);
        let s: ZeroedSlice<u32> = ZeroedSlice::new(8).expect("map");
        assert!(MaskedSlice::new(s, 8).is_none());
    }

    #[test]
    fn absurd_size_fails_cleanly() {
        assert!(ZeroedSlice::<Bucket>::new(usize::MAX / 2).is_err());
    }
}
