//! Per-face counters: packets and bytes in and out, and every drop by reason.
//!
//! Counters are atomics so the management plane can read them from another thread while the
//! I/O thread that owns the face writes them. There is exactly one writer (the owner), so an
//! increment is a relaxed load and store, not a locked read-modify-write.

use core::sync::atomic::{AtomicU64, Ordering};

use ndn_packet::PacketKind;

/// Why a packet was dropped by the face layer. Each reason is one counter with a stable name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// An LpPacket that did not decode, or a field the packet type forbids (Nack on Data,
    /// NextHopFaceId on Data or Nack, CachePolicy on Interest or Nack).
    BadLp,
    /// The network packet is not exactly one Interest or Data TLV.
    BadPacket,
    /// The network packet is larger than [`crate::MAX_PACKET_LEN`] (NDN's 8800 bytes; a frame
    /// may be a little larger for its link headers, its packet may not).
    PacketTooLarge,
    /// NextHopFaceId on a face whose local fields are disabled (NFD drops these).
    LocalFieldsDisabled,
    /// A fragment without Sequence, with a FragCount over the limit or changed, a duplicate,
    /// or one that makes the packet larger than the maximum.
    BadFragment,
    /// A partial packet whose missing fragments did not arrive in time.
    ReassemblyTimeout,
    /// A partial packet evicted because the face's reassembly buffer was full.
    ReassemblyFull,
    /// A received frame larger than the maximum frame (the stream face is closed).
    FrameTooLarge,
    /// A packet handed to `send_burst` that is not a valid Interest, Data or Nack.
    TxBadPacket,
    /// A packet that does not fit the face's MTU and cannot be fragmented (stream faces never
    /// fragment; MTU too small; too many fragments).
    TxOverMtu,
    /// The socket buffer or the stream backlog is full.
    TxQueueFull,
    /// The kernel refused the send for another reason.
    TxError,
}

impl DropReason {
    /// Every reason, in counter order.
    pub const ALL: [DropReason; 12] = [
        Self::BadLp,
        Self::BadPacket,
        Self::PacketTooLarge,
        Self::LocalFieldsDisabled,
        Self::BadFragment,
        Self::ReassemblyTimeout,
        Self::ReassemblyFull,
        Self::FrameTooLarge,
        Self::TxBadPacket,
        Self::TxOverMtu,
        Self::TxQueueFull,
        Self::TxError,
    ];

    /// Stable counter and log key.
    pub const fn name(self) -> &'static str {
        match self {
            Self::BadLp => "bad_lp",
            Self::BadPacket => "bad_packet",
            Self::PacketTooLarge => "packet_too_large",
            Self::LocalFieldsDisabled => "local_fields_disabled",
            Self::BadFragment => "bad_fragment",
            Self::ReassemblyTimeout => "reassembly_timeout",
            Self::ReassemblyFull => "reassembly_full",
            Self::FrameTooLarge => "frame_too_large",
            Self::TxBadPacket => "tx_bad_packet",
            Self::TxOverMtu => "tx_over_mtu",
            Self::TxQueueFull => "tx_queue_full",
            Self::TxError => "tx_error",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

const N_DROPS: usize = DropReason::ALL.len();

/// Live counters of one face (see the module doc for the threading rule).
#[derive(Debug, Default)]
pub struct FaceCounters {
    in_interests: AtomicU64,
    in_data: AtomicU64,
    in_nacks: AtomicU64,
    out_interests: AtomicU64,
    out_data: AtomicU64,
    out_nacks: AtomicU64,
    in_bytes: AtomicU64,
    out_bytes: AtomicU64,
    drops: [AtomicU64; N_DROPS],
}

/// Single-writer increment.
fn bump(c: &AtomicU64, n: u64) {
    c.store(c.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed);
}

impl FaceCounters {
    pub(crate) fn count_in(&self, kind: PacketKind) {
        bump(
            match kind {
                PacketKind::Interest => &self.in_interests,
                PacketKind::Data => &self.in_data,
                PacketKind::Nack => &self.in_nacks,
            },
            1,
        );
    }

    pub(crate) fn count_out(&self, kind: PacketKind) {
        bump(
            match kind {
                PacketKind::Interest => &self.out_interests,
                PacketKind::Data => &self.out_data,
                PacketKind::Nack => &self.out_nacks,
            },
            1,
        );
    }

    pub(crate) fn in_bytes(&self, n: usize) {
        bump(&self.in_bytes, n as u64);
    }

    pub(crate) fn out_bytes(&self, n: usize) {
        bump(&self.out_bytes, n as u64);
    }

    pub(crate) fn drop(&self, r: DropReason) {
        self.drop_n(r, 1);
    }

    pub(crate) fn drop_n(&self, r: DropReason, n: u64) {
        if let Some(c) = self.drops.get(r.index()) {
            bump(c, n);
        }
    }

    /// A consistent-enough copy of every counter (each value is exact; values are read one
    /// after another while the owner may be counting).
    pub fn snapshot(&self) -> CounterSnapshot {
        let r = |c: &AtomicU64| c.load(Ordering::Relaxed);
        CounterSnapshot {
            in_interests: r(&self.in_interests),
            in_data: r(&self.in_data),
            in_nacks: r(&self.in_nacks),
            out_interests: r(&self.out_interests),
            out_data: r(&self.out_data),
            out_nacks: r(&self.out_nacks),
            in_bytes: r(&self.in_bytes),
            out_bytes: r(&self.out_bytes),
            drops: core::array::from_fn(|i| self.drops.get(i).map_or(0, r)),
        }
    }
}

/// A copy of a face's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CounterSnapshot {
    /// Interests received.
    pub in_interests: u64,
    /// Data received.
    pub in_data: u64,
    /// Nacks received.
    pub in_nacks: u64,
    /// Interests handed to the transport.
    pub out_interests: u64,
    /// Data handed to the transport.
    pub out_data: u64,
    /// Nacks handed to the transport.
    pub out_nacks: u64,
    /// Link-layer bytes received (every frame, fragments and dropped ones included).
    pub in_bytes: u64,
    /// Link-layer bytes handed to the transport.
    pub out_bytes: u64,
    drops: [u64; N_DROPS],
}

impl CounterSnapshot {
    /// Packets dropped for `r`.
    pub fn drops(&self, r: DropReason) -> u64 {
        self.drops.get(r.index()).copied().unwrap_or(0)
    }

    /// Every drop counter with its stable name.
    pub fn drop_counts(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        DropReason::ALL.iter().map(|&r| (r.name(), self.drops(r)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_kind_and_reason() {
        let c = FaceCounters::default();
        c.count_in(PacketKind::Interest);
        c.count_in(PacketKind::Nack);
        c.count_out(PacketKind::Data);
        c.in_bytes(10);
        c.out_bytes(20);
        c.drop(DropReason::ReassemblyFull);
        c.drop_n(DropReason::TxQueueFull, 3);
        let s = c.snapshot();
        assert_eq!(
            (s.in_interests, s.in_nacks, s.in_data, s.out_data),
            (1, 1, 0, 1)
        );
        assert_eq!((s.in_bytes, s.out_bytes), (10, 20));
        assert_eq!(s.drops(DropReason::ReassemblyFull), 1);
        assert_eq!(s.drops(DropReason::TxQueueFull), 3);
        assert_eq!(s.drops(DropReason::BadLp), 0);
        let names: Vec<_> = s.drop_counts().filter(|(_, n)| *n > 0).collect();
        assert_eq!(names, vec![("reassembly_full", 1), ("tx_queue_full", 3)]);
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
        }
    }
}
