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
