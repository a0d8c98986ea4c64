//! Configuration of one PCCT: capacities, CS policies, lifetimes, retransmission suppression.

/// One millisecond in nanoseconds.
pub const MS: u64 = 1_000_000;

/// Content Store replacement policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CsPolicy {
    /// Least recently used: a hit or a refresh moves the entry to the back of the eviction list.
    #[default]
    Lru,
    /// Adaptive Replacement Cache (Megiddo and Modha, as in NDN-DPDK): recency list T1,
    /// frequency list T2 and their ghost lists B1, B2 (names only) steer the split between them.
    Arc,
    /// First in, first out (seed 002): hits do not reorder; a refresh with a new Data re-queues.
    Fifo,
}

impl core::str::FromStr for CsPolicy {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "lru" => Ok(Self::Lru),
            "arc" => Ok(Self::Arc),
            "fifo" => Ok(Self::Fifo),
            _ => Err(()),
        }
    }
}

/// What to do with a Data that satisfies no PIT entry (NFD's unsolicited-Data policies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnsolicitedPolicy {
    /// Cache nothing unsolicited (NFD's default).
    #[default]
    DropAll,
    /// Cache unsolicited Data that arrived from a local face (an app pushing content).
    AdmitLocal,
    /// Cache unsolicited Data that arrived from a non-local face.
    AdmitNetwork,
    /// Cache every unsolicited Data.
    AdmitAll,
}

impl core::str::FromStr for UnsolicitedPolicy {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "drop-all" => Ok(Self::DropAll),
            "admit-local" => Ok(Self::AdmitLocal),
            "admit-network" => Ok(Self::AdmitNetwork),
            "admit-all" => Ok(Self::AdmitAll),
            _ => Err(()),
        }
    }
}

impl UnsolicitedPolicy {
    /// Whether an unsolicited Data from a face of this locality is cached.
    pub fn admits(self, face_is_local: bool) -> bool {
        match self {
            Self::DropAll => false,
            Self::AdmitLocal => face_is_local,
            Self::AdmitNetwork => !face_is_local,
            Self::AdmitAll => true,
        }
    }
}

/// Sizes and policies of one [`crate::Pcct`]. All memory is reserved from these at construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcctConfig {
    /// Worker id put in our PIT tokens (and checked on the way back).
    pub worker_id: u8,
    /// Maximum PIT entries (a MustBeFresh and a non-MustBeFresh entry of one name count as two).
    pub pit_capacity: u32,
    /// Maximum cached Data packets (0 disables the CS).
    pub cs_capacity_packets: u32,
    /// Maximum bytes of cached Data wire.
    pub cs_capacity_bytes: u64,
    /// Replacement policy.
    pub cs_policy: CsPolicy,
    /// Unsolicited-Data policy.
    pub unsolicited: UnsolicitedPolicy,
    /// Lifetime of an Interest without InterestLifetime (NDN: 4 s).
    pub default_lifetime_ns: u64,
    /// Longest lifetime honoured; longer InterestLifetimes are cut to it. It also sizes the
    /// timer wheel (one slot per 2^22 ns).
    pub lifetime_cap_ns: u64,
    /// First retransmission-suppression interval (NFD: 10 ms).
    pub suppress_initial_ns: u64,
    /// The suppression interval doubles per forwarded retransmission up to this (100 ms).
    pub suppress_max_ns: u64,
    /// Record extension blocks shared by PIT entries that outgrow their inline records
    /// (each adds 12 in-records and 12 out-records).
    pub record_ext_capacity: u32,
}

impl Default for PcctConfig {
    fn default() -> Self {
        Self {
            worker_id: 0,
            pit_capacity: 1 << 16,
            cs_capacity_packets: 1 << 16,
            cs_capacity_bytes: 256 << 20,
            cs_policy: CsPolicy::Lru,
            unsolicited: UnsolicitedPolicy::DropAll,
            default_lifetime_ns: 4_000 * MS,
            lifetime_cap_ns: 120_000 * MS,
            suppress_initial_ns: 10 * MS,
            suppress_max_ns: 100 * MS,
            record_ext_capacity: 1 << 10,
        }
    }
}

/// The InterestLifetime a new PIT entry's Interest goes upstream with, and how long its
/// in-record lives, with what they depend on in the configuration worked out once (at
/// [`crate::Pcct::new`]): for the usual Interest a load or a compare, where the general rule is
/// a multiply, a cap and a rounding division (upstream) or a default and a cap (in-record).
#[derive(Debug, Clone, Copy)]
pub(crate) struct UpstreamLifetime {
    /// Without InterestLifetime: the default lifetime, capped, in whole ms (rounded up, >= 1).
    default_ms: u64,
    /// Without InterestLifetime: the default lifetime, capped (ns).
    default_ns: u64,
    /// The longest InterestLifetime (ms) the cap leaves as it is.
    uncapped_max_ms: u64,
    /// The cap on an entry's lifetime (ns).
    cap_ns: u64,
}

impl UpstreamLifetime {
    pub(crate) fn new(cfg: &PcctConfig) -> Self {
        let cap_ns = cfg.lifetime_cap_ns;
        Self {
            default_ms: whole_ms(cfg.default_lifetime_ns.min(cap_ns)),
            default_ns: cfg.default_lifetime_ns.min(cap_ns),
            uncapped_max_ms: cap_ns / MS,
            cap_ns,
        }
    }

    /// How long an in-record of an Interest with InterestLifetime `lifetime_ns` (if any) lives:
    /// that lifetime or the default, capped. The usual Interest (none) takes one load.
    #[inline(always)]
    pub(crate) fn in_record_ns(&self, lifetime_ns: Option<u64>) -> u64 {
        match lifetime_ns {
            None => self.default_ns,
            Some(ns) => ns.min(self.cap_ns),
        }
    }

    /// The time a new entry of an Interest with InterestLifetime `lifetime_ms` (if any) has
    /// left, as [`crate::Pcct::on_interest`] sets its expiry, in whole ms (rounded up, >= 1).
    /// Below the cap, `ms * MS <= cap_ns` exactly when `ms <= cap_ns / MS`: the lifetime itself.
    #[inline(always)]
    pub(crate) fn ms(&self, lifetime_ms: Option<u64>) -> u64 {
        match lifetime_ms {
            None => self.default_ms,
            Some(ms) if ms <= self.uncapped_max_ms => ms.max(1),
            Some(ms) => whole_ms(ms.saturating_mul(MS).min(self.cap_ns)),
        }
    }
}

/// `ns` in whole milliseconds, rounded up, at least 1 (an InterestLifetime of 0 expires at once).
pub(crate) fn whole_ms(ns: u64) -> u64 {
    ns.div_ceil(MS).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::num::u64::ANY;
    use proptest::option::of;
    use proptest::prop_oneof;

    proptest::proptest! {
        /// The upstream InterestLifetime of a new entry, as worked out from the precomputed
        /// values, is the general rule's: the entry's lifetime (the Interest's, else the default,
        /// capped), rounded up to whole ms, at least 1; and so is its in-record's lifetime.
        #[test]
        fn upstream_lifetime_is_the_general_rule(
            default_ns in prop_oneof![0..10 * MS, ANY],
            cap_ns in prop_oneof![0..10 * MS, ANY],
            lifetime in of(prop_oneof![0..20_000u64, ANY]),
        ) {
            let cfg = PcctConfig {
                default_lifetime_ns: default_ns,
                lifetime_cap_ns: cap_ns,
                ..PcctConfig::default()
            };
            let general = lifetime
                .map_or(default_ns, |ms| ms.saturating_mul(MS))
                .min(cap_ns)
                .div_ceil(MS)
                .max(1);
            proptest::prop_assert_eq!(UpstreamLifetime::new(&cfg).ms(lifetime), general);
            // The in-record's lifetime: the Interest's (ns), else the default, capped.
            let lifetime_ns = lifetime.map(|ms| ms.saturating_mul(MS));
            proptest::prop_assert_eq!(
                UpstreamLifetime::new(&cfg).in_record_ns(lifetime_ns),
                lifetime_ns.unwrap_or(default_ns).min(cap_ns)
            );
        }
    }
}
