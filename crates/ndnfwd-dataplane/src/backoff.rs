//! Adaptive idle backoff: busy-poll while there is work and for a short spin window after it,
//! then sleep in growing steps up to a cap, so an idle forwarder uses close to no CPU while a
//! loaded one never sleeps. Time is passed in (no clock reads), which keeps it testable.

/// What an idle loop should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idle {
    /// Poll again at once.
    Spin,
    /// Sleep (epoll wait or park) for at most this many milliseconds.
    Sleep(u32),
}

/// Per-thread backoff state.
#[derive(Debug, Clone)]
pub struct Backoff {
    spin_ns: u64,
    max_sleep_ms: u32,
    idle_since: Option<u64>,
    sleep_ms: u32,
}

impl Backoff {
    /// Spins for `spin_ns` after the last work, then sleeps 1, 2, 4 ... ms up to
    /// `max_sleep_ms` (at least 1).
    pub fn new(spin_ns: u64, max_sleep_ms: u32) -> Self {
        Self {
            spin_ns,
            max_sleep_ms: max_sleep_ms.max(1),
            idle_since: None,
            sleep_ms: 0,
        }
    }

    /// Reports one loop iteration at `now` (ns) that did (`worked`) or did not find work.
    pub fn next(&mut self, now: u64, worked: bool) -> Idle {
        if worked {
            self.idle_since = None;
            self.sleep_ms = 0;
            return Idle::Spin;
        }
        let since = *self.idle_since.get_or_insert(now);
        if now.saturating_sub(since) < self.spin_ns {
            return Idle::Spin;
        }
        self.sleep_ms = (self.sleep_ms.saturating_mul(2)).clamp(1, self.max_sleep_ms);
        Idle::Sleep(self.sleep_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spins_then_sleeps_longer_up_to_cap_and_resets_on_work() {
        let mut b = Backoff::new(1000, 5);
        assert_eq!(b.next(0, true), Idle::Spin);
        assert_eq!(b.next(10, false), Idle::Spin);
        assert_eq!(b.next(500, false), Idle::Spin);
        assert_eq!(b.next(1010, false), Idle::Sleep(1));
        assert_eq!(b.next(2000, false), Idle::Sleep(2));
        assert_eq!(b.next(3000, false), Idle::Sleep(4));
        assert_eq!(b.next(4000, false), Idle::Sleep(5));
        assert_eq!(b.next(5000, false), Idle::Sleep(5));
        assert_eq!(b.next(6000, true), Idle::Spin);
        assert_eq!(b.next(6500, false), Idle::Spin);
        assert_eq!(b.next(7500, false), Idle::Sleep(1));
    }

    #[test]
    fn zero_spin_sleeps_at_once() {
        let mut b = Backoff::new(0, 0);
        assert_eq!(b.next(0, false), Idle::Sleep(1));
        assert_eq!(b.next(1, false), Idle::Sleep(1));
    }
}
