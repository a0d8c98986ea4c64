//! The binary's global allocator: the system allocator plus an allocation counter that only
//! `ndnfwd bench engine` switches on (to report `allocations_per_packet`). While the counter is
//! off, which is always the case for `ndnfwd run`, an allocation costs one relaxed load of a
//! flag that is never written, so the data-plane threads share no counter cache line.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting allocations while [`start_counting`] is in effect.
pub struct Counting;

#[inline]
fn count() {
    if COUNTING.load(Ordering::Relaxed) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards its arguments unchanged to the system allocator, which upholds
// the GlobalAlloc contract; counting touches no memory the allocator hands out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract for `alloc` is passed through unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: `ptr` and `layout` come from this allocator, which is the system's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` and `layout` come from this allocator, which is the system's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Turns the counter on for the rest of the process.
pub fn start_counting() {
    COUNTING.store(true, Ordering::Relaxed);
}

/// Allocations counted so far (0 until [`start_counting`]).
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

/// Free bytes at the top of a malloc heap that glibc keeps for reuse after
/// [`keep_freed_memory`] (its default is 128 KiB).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_THRESHOLD: libc::c_int = 64 << 20;

/// Makes glibc keep up to [`TRIM_THRESHOLD`] of freed heap memory instead of returning it to
/// the kernel as soon as 128 KiB are free. A process that frees a burst of 8 KB packets and
/// allocates the next burst otherwise faults every page in again: measured on the generator's
/// consumer, 0.57 minor faults per 8 KB Data and twice the system time. Call it before threads
/// start. Elsewhere than glibc it does nothing.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes a malloc tuning parameter, and any positive value is valid
    // for M_TRIM_THRESHOLD; no memory is touched.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}
