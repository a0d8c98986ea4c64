//! The prefetch modes and steps of the burst loop (see the `engine` module docs for their
//! order), and the prefetch of a packet's wire.

use core::str::FromStr;

use ndn_packet::PrefixHashes;
use ndnfwd_fib::FibHint;
use ndnfwd_pcct::RxToken;
use ndnfwd_table::prefetch_read;

use crate::cycles::{Laps, Stage};
use crate::engine::{Core, Parsed};
use crate::pipeline::interest_info;
use ndn_packet::link::RxPacket;

/// How the burst loop overlaps memory fetches with work (see the `engine` module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PrefetchMode {
    /// No software prefetch (seed 002's "Naive").
    None,
    /// Hash, then prefetch all buckets of the packet at once (seed 000, "Bucket Prefetch").
    Bucket,
    /// Hash and prefetch the next packet before processing this one (seed 002 "Pre-Hash").
    Prehash,
    /// Pre-hash two ahead and prefetch entries behind candidate slots one ahead (seed 002 "SHTL");
    /// under two-stage and a longest-first plan deeper than its head four and three ahead, then
    /// the FIB's further steps (the entries below the plan's head, stage 2's bucket and entries)
    /// two and one ahead.
    #[default]
    Speculative,
}

impl PrefetchMode {
    /// Every mode, in the order of the seeds' ablation.
    pub const ALL: [PrefetchMode; 4] = [
        PrefetchMode::None,
        PrefetchMode::Bucket,
        PrefetchMode::Prehash,
        PrefetchMode::Speculative,
    ];

    /// Stable name: `none`, `bucket`, `prehash`, `speculative`.
    pub const fn key(self) -> &'static str {
        match self {
            PrefetchMode::None => "none",
            PrefetchMode::Bucket => "bucket",
            PrefetchMode::Prehash => "prehash",
            PrefetchMode::Speculative => "speculative",
        }
    }

    /// The mode's position in [`PrefetchMode::ALL`] (the burst loop's const parameter).
    pub(crate) const fn index(self) -> u8 {
        match self {
            PrefetchMode::None => 0,
            PrefetchMode::Bucket => 1,
            PrefetchMode::Prehash => 2,
            PrefetchMode::Speculative => 3,
        }
    }

    /// The mode at `index` in [`PrefetchMode::ALL`] (the last one past the end).
    pub(crate) const fn from_index(index: u8) -> Self {
        match index {
            0 => PrefetchMode::None,
            1 => PrefetchMode::Bucket,
            2 => PrefetchMode::Prehash,
            _ => PrefetchMode::Speculative,
        }
    }

    /// How many packets ahead of *process* the *prepare* stage runs (with the FIB's further
    /// steps the speculative mode runs further: see the `engine` module docs).
    pub(crate) const fn lookahead(self) -> usize {
        match self {
            PrefetchMode::None | PrefetchMode::Bucket => 0,
            PrefetchMode::Prehash => 1,
            PrefetchMode::Speculative => 2,
        }
    }
}

impl FromStr for PrefetchMode {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        Self::ALL.into_iter().find(|m| m.key() == s).ok_or(())
    }
}

/// How much of a packet's wire is prefetched: the header, name and the fields after it of a
/// usual Interest or Data (the Content of a large Data is not read by the forwarder).
const WIRE_PREFETCH_BYTES: usize = 256;

/// Prefetches the head of `rx`'s wire, line by line (unrolled: a fixed number of steps).
#[inline(always)]
pub(crate) fn prefetch_wire(rx: &RxPacket) {
    let (p, len) = (rx.wire.as_ptr(), rx.wire.len());
    for off in (0..WIRE_PREFETCH_BYTES).step_by(64) {
        if off < len {
            prefetch_read(p.wrapping_add(off));
        }
    }
}

impl Core {
    /// All-at-once bucket prefetch of one packet: its PCCT bucket (for a Data carrying our
    /// token, the entry the token names instead) and, for an Interest, every FIB bucket of the
    /// probe plan; with `head` (the speculative mode, whose next step prefetches the rest of
    /// the plan when needed) only the head of a top-down plan (`FibReader::prefetch_head`).
    /// Inlined into `prepare`, itself inlined into the burst loop (no call per packet).
    #[inline(always)]
    pub(crate) fn prefetch_buckets<const A: bool>(
        &mut self,
        rx: &RxPacket,
        parsed: &Parsed<'_>,
        hashes: &PrefixHashes,
        head: bool,
        laps: &mut Laps<A>,
    ) {
        match parsed {
            Parsed::Interest(i, fh) => {
                // The FIB first: it finalizes its plan's prefix hashes together, the whole
                // name's (the PCCT's key) among them when the plan reaches it.
                if head {
                    self.fib.prefetch_head(hashes);
                } else {
                    self.fib.prefetch(hashes);
                }
                laps.lap(&mut self.cycles, Stage::Fib);
                self.pcct
                    .prefetch_interest(&interest_info(i, hashes, *fh, 0, rx));
                laps.lap(&mut self.cycles, Stage::Pcct);
            }
            Parsed::Data(d) => {
                let token = RxToken::from_lp(&rx.lp.pit_token);
                self.pcct.prefetch_data_name(&d.id, token);
                laps.lap(&mut self.cycles, Stage::Pcct);
            }
            Parsed::Nack(..) | Parsed::Bad => {}
        }
    }

    /// Speculative hash-table lookup (seed 002 SHTL) for a packet whose buckets were
    /// prefetched one step ago: prefetch the entries behind every fingerprint match, in its
    /// PCCT bucket and in every FIB bucket of the probe plan. Where the FIB scan of an Interest
    /// stopped goes to `fib_hint`, for this packet's further steps and lookup (other packets
    /// leave it as it is: only an Interest's steps and pipeline read it). A Data carrying our
    /// token had its PCCT key prefetched with the bucket step; now the PIT and CS parts that
    /// key names. Inlined into the burst loop's two calls (a call costs a prologue and
    /// epilogue per packet).
    #[inline(always)]
    pub(crate) fn speculate<const A: bool>(
        &mut self,
        rx: &RxPacket,
        parsed: &Parsed<'_>,
        hashes: &PrefixHashes,
        fib_hint: &mut FibHint,
        laps: &mut Laps<A>,
    ) {
        match parsed {
            Parsed::Interest(i, fh) => {
                self.pcct
                    .prefetch_interest_entries(&interest_info(i, hashes, *fh, 0, rx));
                laps.lap(&mut self.cycles, Stage::Pcct);
                *fib_hint = self.fib.prefetch_entries(hashes);
                laps.lap(&mut self.cycles, Stage::Fib);
            }
            Parsed::Data(..) => {
                let token = RxToken::from_lp(&rx.lp.pit_token);
                self.pcct.prefetch_data_entries(token);
                laps.lap(&mut self.cycles, Stage::Pcct);
            }
            Parsed::Nack(..) | Parsed::Bad => {}
        }
    }
}
