//! The thread settings the data plane and the generator make themselves: pinning a thread to
//! a CPU, and its timer slack.

use std::io;

/// Pins the calling thread to CPU `cpu` (`sched_setaffinity`).
pub fn pin_current_thread(cpu: usize) -> io::Result<()> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    // SAFETY: `cpu_set_t` is a plain bit array for which all-zero is the valid empty set.
    let mut set: libc::cpu_set_t = unsafe { core::mem::zeroed() };
    // SAFETY: `cpu < CPU_SETSIZE` was checked above, so CPU_SET stays inside `set`.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: pid 0 is the calling thread; `set` is a valid, initialized cpu_set_t and the size
    // passed is its size.
    let r = unsafe { libc::sched_setaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), &set) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Sets how late the kernel may wake the calling thread from a timed sleep
/// (`PR_SET_TIMERSLACK`; the default is 50 us, which turns a 20 us nap into about 70).
pub fn set_timer_slack(ns: u64) -> io::Result<()> {
    let ns =
        libc::c_ulong::try_from(ns).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument by value and touches no memory of
    // ours; the unused arguments are zero as prctl(2) asks.
    let r = unsafe {
        libc::prctl(
            libc::PR_SET_TIMERSLACK,
            ns,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timer_slack_is_set_for_the_calling_thread() {
        let got = std::thread::spawn(|| {
            set_timer_slack(1_000).unwrap();
            std::fs::read_to_string("/proc/thread-self/timerslack_ns")
        })
        .join()
        .unwrap();
        // Older kernels have no timerslack_ns file; where it exists it shows the new value.
        if let Ok(v) = got {
            assert_eq!(v.trim(), "1000");
        }
    }

    #[test]
    fn rejects_out_of_range_cpu() {
        assert!(pin_current_thread(usize::MAX).is_err());
    }

    #[test]
    fn pins_to_cpu_zero_in_a_scratch_thread() {
        // CPU 0 exists on every machine; the thread ends right after, so nothing else is pinned.
        let r = std::thread::spawn(|| pin_current_thread(0)).join().unwrap();
        assert!(r.is_ok(), "{r:?}");
    }
}
