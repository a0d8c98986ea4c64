//! `unsafe` for the CPU: reading the CPU's cycle counter for per-stage accounting, and
//! the calling thread's CPU time for the benchmark. (The only other `unsafe`: the outgoing
//! packet chunk writer, `pool/raw.rs`.)

/// Reads the time-stamp counter (x86_64 `RDTSC`, aarch64 `CNTVCT_EL0`); 0 on other targets.
///
/// A profiling counter, not a clock: the forwarding logic never sees it. It is not serializing,
/// so a stage boundary is accurate to a few tens of cycles, which is what per-stage averages
/// over millions of packets need.
#[inline(always)]
pub(crate) fn cycles() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC reads a counter register; it touches no memory and is available on
        // every x86_64 CPU (the intrinsic is `unsafe` only because all intrinsics are).
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(target_arch = "aarch64")]
    {
        let v: u64;
        // SAFETY: reads the virtual counter, which EL0 may read on Linux; no memory access.
        unsafe { core::arch::asm!("mrs {0}, cntvct_el0", out(reg) v, options(nomem, nostack)) };
        v
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        0
    }
}

/// [`cycles`] fenced on both sides (x86_64 `LFENCE; RDTSC; LFENCE`): every earlier instruction
/// has completed before the read and no later one starts before it. Without the fences the
/// cache misses still outstanding at a stage boundary are charged to the next stage; with them
/// each stage pays for its own loads (prefetches are not waited for). Elsewhere: [`cycles`].
#[inline(always)]
pub(crate) fn cycles_fenced() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: LFENCE and RDTSC only order instructions and read a counter; no memory access.
        // Both are in the x86_64 baseline (SSE2, TSC).
        unsafe {
            core::arch::x86_64::_mm_lfence();
            let t = core::arch::x86_64::_rdtsc();
            core::arch::x86_64::_mm_lfence();
            t
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        cycles()
    }
}

/// CPU time consumed by the calling thread, in ns (`CLOCK_THREAD_CPUTIME_ID`); `None` where
/// unavailable. Benchmark only: it tells the time a worker actually ran from the time it was
/// preempted on a shared machine.
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the duration of the call; the clock id
        // is a constant the C library defines.
        let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        let secs = u64::try_from(ts.tv_sec).ok()?;
        let nanos = u64::try_from(ts.tv_nsec).ok()?;
        (r == 0).then(|| secs * 1_000_000_000 + nanos)
    }
    #[cfg(not(unix))]
    {
        None
    }
}
