//! Per-stage cycle accounting (seed 002 §5.2, Table 1 style): where the cycles of a burst go.
//!
//! The engine is generic over `const ACCT: bool`; with `false` every lap of the stage timer
//! compiles to nothing, so accounting is free when turned off. The choice is made once per
//! burst, outside the per-packet loop. Laps read a fenced TSC (`LFENCE; RDTSC; LFENCE` on
//! x86_64) so that a stage is charged for its own cache misses rather than the next stage; the
//! fences cost some overlap, so an accounting run is slower in total than a plain one and the
//! benchmark takes its medians from plain runs.

use crate::raw;

/// A pipeline stage, for accounting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Decoding the network packet (checked views) and hashing every name prefix (a Data's
    /// whole name only): the decoder's walk over an Interest's name hashes it too
    /// (`new_checked_hashed`), and a group's Data names are hashed together right after their
    /// decode (`NameHasher::name_ids`), so the two are one.
    Parse = 0,
    /// Hashing the forwarding hint's name (the name's own prefixes are hashed in `Parse`).
    Hash = 1,
    /// PIT-CS lookup, insert, satisfy (including its prefetches).
    Pcct = 2,
    /// FIB longest-prefix match (including its prefetches).
    Fib = 3,
    /// Strategy decision.
    Strategy = 4,
    /// Building the packets to send.
    Output = 5,
}

impl Stage {
    /// Every stage in pipeline order.
    pub const ALL: [Stage; 6] = [
        Stage::Parse,
        Stage::Hash,
        Stage::Pcct,
        Stage::Fib,
        Stage::Strategy,
        Stage::Output,
    ];

    /// Stable key, as printed by the benchmark.
    pub const fn key(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Hash => "hash",
            Stage::Pcct => "pcct",
            Stage::Fib => "fib",
            Stage::Strategy => "strategy",
            Stage::Output => "output",
        }
    }
}

/// Cycles spent per stage, summed over the packets processed while accounting was on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StageCycles {
    /// Cycles per stage, indexed by `Stage as usize`, including the cost of the counter reads.
    pub cycles: [u64; 6],
    /// Laps charged to each stage (each one paid one fenced counter read).
    pub laps: [u64; 6],
}

impl StageCycles {
    /// Cycles of one stage.
    pub fn get(&self, s: Stage) -> u64 {
        self.cycles.get(s as usize).copied().unwrap_or(0)
    }

    /// Cycles of one stage without the counter reads, given the cost of one read
    /// ([`lap_overhead`]).
    pub fn net(&self, s: Stage, overhead: u64) -> u64 {
        let laps = self.laps.get(s as usize).copied().unwrap_or(0);
        self.get(s).saturating_sub(laps.saturating_mul(overhead))
    }

    /// Adds every stage of `other` (to aggregate workers).
    pub fn add(&mut self, other: &StageCycles) {
        for (a, b) in self.cycles.iter_mut().zip(other.cycles) {
            *a += b;
        }
        for (a, b) in self.laps.iter_mut().zip(other.laps) {
            *a += b;
        }
    }

    /// Sum over all stages.
    pub fn total(&self) -> u64 {
        self.cycles.iter().sum()
    }

    /// Clears every stage.
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

/// A lap timer: each [`Laps::lap`] charges the cycles since the previous lap to a stage.
#[derive(Debug)]
pub(crate) struct Laps<const ON: bool> {
    last: u64,
}

impl<const ON: bool> Laps<ON> {
    /// Starts timing now (reads nothing when `ON` is false).
    #[inline(always)]
    pub(crate) fn start() -> Self {
        Self {
            last: if ON { raw::cycles_fenced() } else { 0 },
        }
    }

    /// Charges the cycles since the last lap to `stage`.
    #[inline(always)]
    pub(crate) fn lap(&mut self, acc: &mut StageCycles, stage: Stage) {
        if ON {
            let now = raw::cycles_fenced();
            if let Some(c) = acc.cycles.get_mut(stage as usize) {
                *c += now.wrapping_sub(self.last);
            }
            if let Some(l) = acc.laps.get_mut(stage as usize) {
                *l += 1;
            }
            self.last = now;
        }
    }
}

/// Reads the cycle counter (for benchmarks that time whole bursts).
#[inline(always)]
pub fn cycle_counter() -> u64 {
    raw::cycles()
}

/// The cost of one lap's fenced counter read, in cycles: the median gap between back-to-back
/// reads. Stage figures subtract it once per lap ([`StageCycles::net`]).
pub fn lap_overhead() -> u64 {
    let mut gaps: Vec<u64> = (0..1001)
        .map(|_| {
            let a = raw::cycles_fenced();
            raw::cycles_fenced().wrapping_sub(a)
        })
        .collect();
    gaps.sort_unstable();
    gaps.get(gaps.len() / 2).copied().unwrap_or(0)
}

/// CPU time the calling thread has consumed, in ns, where the OS tells (benchmarks on shared
/// machines: unlike the cycle counter it does not advance while the thread is preempted).
pub fn thread_cpu_ns() -> Option<u64> {
    raw::thread_cpu_ns()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_charges_nothing_on_charges_the_named_stage() {
        let mut acc = StageCycles::default();
        let mut laps = Laps::<false>::start();
        laps.lap(&mut acc, Stage::Fib);
        assert_eq!(acc.total(), 0);

        let mut laps = Laps::<true>::start();
        let mut x = 0u64;
        for i in 0..10_000u64 {
            x = x.wrapping_add(std::hint::black_box(i));
        }
        std::hint::black_box(x);
        laps.lap(&mut acc, Stage::Fib);
        if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
            assert!(acc.get(Stage::Fib) > 0);
        }
        assert_eq!(acc.total(), acc.get(Stage::Fib));
        assert_eq!(acc.laps[Stage::Fib as usize], 1);
        assert!(acc.net(Stage::Fib, lap_overhead()) <= acc.get(Stage::Fib));
        assert_eq!(acc.net(Stage::Fib, u64::MAX), 0);
        let mut sum = StageCycles::default();
        sum.add(&acc);
        sum.add(&acc);
        assert_eq!(sum.get(Stage::Fib), 2 * acc.get(Stage::Fib));
        assert_eq!(Stage::ALL.map(Stage::key).len(), 6);
        acc.reset();
        assert_eq!(acc.total(), 0);
    }
}
