//! The one syscall the data plane makes itself: pinning a thread to a CPU.

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

#[cfg(test)]
mod tests {
    use super::*;

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
