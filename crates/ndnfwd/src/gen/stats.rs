//! Generator accounting: an HDR histogram of round-trip times, per-thread tallies merged at the
//! end, and shared atomic counters for the live rate line on stderr.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use hdrhistogram::Histogram;
use serde_json::{json, Value};

/// Largest RTT recorded exactly, in ns (longer ones are clamped): one minute.
const RTT_MAX_NS: u64 = 60_000_000_000;

/// RTT histogram in nanoseconds, 3 significant digits (HDR: constant memory, O(1) record).
pub struct Rtt(Histogram<u64>);

impl Rtt {
    /// An empty histogram.
    pub fn new() -> Self {
        Self(
            Histogram::new_with_bounds(1, RTT_MAX_NS, 3)
                .expect("1 ns..60 s at 3 significant digits is a valid HDR configuration"),
        )
    }

    /// Records one RTT.
    pub fn record(&mut self, ns: u64) {
        self.0.saturating_record(ns.clamp(1, RTT_MAX_NS));
    }

    /// Adds another histogram's samples.
    pub fn merge(&mut self, other: &Rtt) {
        let _ = self.0.add(&other.0);
    }

    /// Samples recorded.
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// Summary in milliseconds: min, avg, p50, p90, p99, p99.9, max (all 0 when empty).
    pub fn summary_ms(&self) -> Value {
        let h = &self.0;
        let ms = |ns: u64| ns as f64 / 1e6;
        if h.is_empty() {
            return json!({"min": 0.0, "avg": 0.0, "p50": 0.0, "p90": 0.0, "p99": 0.0, "p999": 0.0, "max": 0.0});
        }
        json!({
            "min": ms(h.min()),
            "avg": h.mean() / 1e6,
            "p50": ms(h.value_at_quantile(0.5)),
            "p90": ms(h.value_at_quantile(0.9)),
            "p99": ms(h.value_at_quantile(0.99)),
            "p999": ms(h.value_at_quantile(0.999)),
            "max": ms(h.max()),
        })
    }
}

/// User + system CPU seconds used so far by process `pid` (`"self"`: this one), from
/// `/proc/PID/stat` (0 when unreadable). Clock ticks are taken as 1/100 s, Linux's USER_HZ.
pub fn cpu_seconds(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name; the state (field 3) is not numeric, so utime (14) and
    // stime (15) are the 11th and 12th numbers.
    let rest = stat.rsplit(')').next().unwrap_or_default();
    let f: Vec<f64> = rest
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    (f.get(10).copied().unwrap_or(0.0) + f.get(11).copied().unwrap_or(0.0)) / 100.0
}

/// CPU seconds this machine's hypervisor gave to others while our CPUs wanted to run (the
/// `steal` column of `/proc/stat`, all CPUs together); 0 where the kernel does not report it.
pub fn host_steal_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    // cpu user nice system idle iowait irq softirq steal ...
    let steal = stat
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(8))
        .and_then(|x| x.parse::<f64>().ok());
    steal.unwrap_or(0.0) / 100.0
}

/// Per-pattern tallies.
#[derive(Debug, Default, Clone, Copy)]
pub struct PatternTally {
    /// Interests sent.
    pub sent: u64,
    /// Data received.
    pub data: u64,
    /// Nacks received.
    pub nacks: u64,
}

/// One consumer thread's results.
pub struct Tally {
    /// Interests sent.
    pub sent: u64,
    /// Data received.
    pub data: u64,
    /// Nacks by reason.
    pub nacks: BTreeMap<String, u64>,
    /// Window slots that expired without an answer (window mode).
    pub timeouts: u64,
    /// Answers whose token did not match an outstanding Interest (late or foreign).
    pub unmatched: u64,
    /// Content bytes of the Data received.
    pub content_bytes: u64,
    /// Round-trip times of Data.
    pub rtt: Rtt,
    /// Per pattern.
    pub patterns: Vec<PatternTally>,
    /// Time of the last answer, ns since the run's start.
    pub last_answer_ns: u64,
    /// Content of the first Data (for single fetches), at most 256 bytes.
    pub content_sample: Option<String>,
}

impl Tally {
    /// Empty tallies for `patterns` patterns.
    pub fn new(patterns: usize) -> Self {
        Self {
            sent: 0,
            data: 0,
            nacks: BTreeMap::new(),
            timeouts: 0,
            unmatched: 0,
            content_bytes: 0,
            rtt: Rtt::new(),
            patterns: vec![PatternTally::default(); patterns],
            last_answer_ns: 0,
            content_sample: None,
        }
    }

    /// Nacks of every reason.
    pub fn nack_total(&self) -> u64 {
        self.nacks.values().sum()
    }

    /// Adds another thread's results.
    pub fn merge(&mut self, o: &Tally) {
        self.sent += o.sent;
        self.data += o.data;
        for (k, v) in &o.nacks {
            *self.nacks.entry(k.clone()).or_default() += v;
        }
        self.timeouts += o.timeouts;
        self.unmatched += o.unmatched;
        self.content_bytes += o.content_bytes;
        self.rtt.merge(&o.rtt);
        for (a, b) in self.patterns.iter_mut().zip(&o.patterns) {
            a.sent += b.sent;
            a.data += b.data;
            a.nacks += b.nacks;
        }
        self.last_answer_ns = self.last_answer_ns.max(o.last_answer_ns);
        if self.content_sample.is_none() {
            self.content_sample.clone_from(&o.content_sample);
        }
    }
}

/// Counters every thread bumps and the reporting thread reads for the live rate line.
#[derive(Default)]
pub struct Live {
    /// Interests (consumer) or Interests served (producer).
    pub sent: AtomicU64,
    /// Data received (consumer) or sent (producer).
    pub data: AtomicU64,
    /// Nacks received (consumer) or sent (producer).
    pub nacks: AtomicU64,
}

impl Live {
    /// Adds a thread's progress since its last report.
    pub fn add(&self, sent: u64, data: u64, nacks: u64) {
        self.sent.fetch_add(sent, Ordering::Relaxed);
        self.data.fetch_add(data, Ordering::Relaxed);
        self.nacks.fetch_add(nacks, Ordering::Relaxed);
    }

    /// Current totals.
    pub fn read(&self) -> (u64, u64, u64) {
        (
            self.sent.load(Ordering::Relaxed),
            self.data.load(Ordering::Relaxed),
            self.nacks.load(Ordering::Relaxed),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_percentiles_and_merge() {
        let mut a = Rtt::new();
        // 1..=1000 us.
        for us in 1..=1000u64 {
            a.record(us * 1000);
        }
        let s = a.summary_ms();
        let near = |v: &Value, want: f64| (v.as_f64().unwrap() - want).abs() <= want * 0.002 + 1e-9;
        assert!(near(&s["p50"], 0.5), "{s}");
        assert!(near(&s["p99"], 0.99), "{s}");
        assert!(near(&s["max"], 1.0), "{s}");
        assert!(near(&s["min"], 0.001), "{s}");
        let mut b = Rtt::new();
        for _ in 0..1000 {
            b.record(10_000_000);
        }
        a.merge(&b);
        assert_eq!(a.len(), 2000);
        let s = a.summary_ms();
        assert!(near(&s["p99"], 10.0), "{s}");
        // Out of range values are clamped, not lost.
        a.record(0);
        a.record(u64::MAX);
        assert_eq!(a.len(), 2002);
        assert!(Rtt::new().summary_ms()["p50"] == 0.0);
    }

    #[test]
    fn tallies_merge() {
        let mut a = Tally::new(2);
        let mut b = Tally::new(2);
        a.sent = 3;
        a.nacks.insert("NoRoute".into(), 1);
        b.sent = 4;
        b.data = 2;
        b.nacks.insert("NoRoute".into(), 2);
        b.nacks.insert("Congestion".into(), 1);
        b.patterns[1].data = 2;
        b.last_answer_ns = 9;
        a.merge(&b);
        assert_eq!((a.sent, a.data, a.nack_total()), (7, 2, 4));
        assert_eq!(a.nacks["NoRoute"], 3);
        assert_eq!(a.patterns[1].data, 2);
        assert_eq!(a.last_answer_ns, 9);
    }
}
