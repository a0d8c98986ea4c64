//! The project's one software-prefetch helper.

/// Hints the CPU to pull the cache line holding `p` into L1 for reading.
///
/// This is the only prefetch helper of ndnfwd; tables, arenas and pipeline stages all call it.
/// A prefetch never faults, so `p` may be dangling, null or out of bounds (the hint is then
/// wasted, never harmful). On targets other than x86_64 and aarch64 it compiles to nothing.
///
/// # Prefetch distance
/// One DRAM miss costs a few hundred cycles, roughly the work of handling one burst group, so the
/// intended distance is **one group ahead**: with a burst split into groups (e.g. 8 packets),
///
/// ```text
/// prefetch the buckets of group 0
/// for i in 0..groups {
///     prefetch the buckets of group i + 1   // in flight while we...
///     look up group i                       // ...work on lines fetched one step ago
/// }
/// ```
///
/// Seed 000 §2.2 found "all-at-once" (issue every prefetch of a packet right after hashing, before
/// any lookup) better than "cascade" (one lookup ahead) because DRAM latency exceeds one lookup.
/// Do not prefetch a whole large burst at once either: more than ~10-16 outstanding misses exceed
/// the L1 fill buffers and later prefetches are dropped.
#[inline(always)]
pub fn prefetch_read<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: PREFETCHT0 is a hint: it performs no architectural memory access and cannot
        // fault for any address. SSE (which provides it) is part of the x86_64 baseline.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
        };
    }
    #[cfg(target_arch = "aarch64")]
    {
        // SAFETY: PRFM is a hint: it cannot fault, reads no register other than `p`, writes no
        // memory, flags or stack.
        unsafe {
            core::arch::asm!(
                "prfm pldl1keep, [{0}]",
                in(reg) p,
                options(nostack, readonly, preserves_flags)
            )
        };
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = p;
    }
}
