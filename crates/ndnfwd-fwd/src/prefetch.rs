//! The prefetch steps of the burst loop (see the `engine` module docs for their order).

use ndn_packet::PrefixHashes;

use crate::cycles::{Laps, Stage};
use crate::engine::{Core, Parsed};
use crate::pipeline::interest_info;
use ndn_packet::link::RxPacket;

impl Core {
    /// All-at-once bucket prefetch of one packet: its PCCT bucket (for a Data carrying our
    /// token, the entry the token names instead) and, for an Interest, every FIB bucket of the
    /// probe plan.
    pub(crate) fn prefetch_buckets<const A: bool>(
        &mut self,
        rx: &RxPacket,
        parsed: &Parsed<'_>,
        hashes: &PrefixHashes,
        laps: &mut Laps<A>,
    ) {
        match parsed {
            Parsed::Interest(i, fh) => {
                // The FIB first: it finalizes its plan's prefix hashes together, the whole
                // name's (the PCCT's key) among them when the plan reaches it.
                self.fib.prefetch(hashes);
                laps.lap(&mut self.cycles, Stage::Fib);
                self.pcct
                    .prefetch_interest(&interest_info(i, hashes, *fh, 0, rx));
                laps.lap(&mut self.cycles, Stage::Pcct);
            }
            Parsed::Data(_, id) => {
                let token = Some(rx.lp.pit_token.as_bytes()).filter(|t| !t.is_empty());
                self.pcct.prefetch_data_name(id, token);
                laps.lap(&mut self.cycles, Stage::Pcct);
            }
            Parsed::Nack(..) | Parsed::Bad => {}
        }
    }

    /// Speculative hash-table lookup (seed 002 SHTL) for a packet whose buckets were
    /// prefetched one step ago: prefetch the entries behind every fingerprint match, in its
    /// PCCT bucket and in every FIB bucket of the probe plan (the FIB reader keeps where its
    /// scan stopped, for this packet's lookup). A Data carrying our token had its PCCT key
    /// prefetched with the bucket step; now the PIT and CS parts that key names.
    pub(crate) fn speculate<const A: bool>(
        &mut self,
        rx: &RxPacket,
        parsed: &Parsed<'_>,
        hashes: &PrefixHashes,
        laps: &mut Laps<A>,
    ) {
        match parsed {
            Parsed::Interest(i, fh) => {
                self.pcct
                    .prefetch_interest_entries(&interest_info(i, hashes, *fh, 0, rx));
                laps.lap(&mut self.cycles, Stage::Pcct);
                self.fib.prefetch_entries(hashes);
                laps.lap(&mut self.cycles, Stage::Fib);
            }
            Parsed::Data(..) => {
                let token = Some(rx.lp.pit_token.as_bytes()).filter(|t| !t.is_empty());
                self.pcct.prefetch_data_entries(token);
                laps.lap(&mut self.cycles, Stage::Pcct);
            }
            Parsed::Nack(..) | Parsed::Bad => {}
        }
    }
}
