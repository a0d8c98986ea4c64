//! *Prepare*'s first half: decoding a group of packets into their ring slots, an Interest's
//! prefixes hashed in its decoder's walk, the group's Data names hashed side by side.

use ndn_packet::data::Data;
use ndn_packet::interest::Interest;
use ndn_packet::link::RxPacket;
use ndn_packet::tlv::tt;
use ndn_packet::{NameId, NameRef, PrefixHashes};

use super::{Core, DataHead, Engine, Parsed, GROUP, RING};
use crate::cycles::{Laps, Stage};
use crate::prefetch::prefetch_wire;

impl Engine {
    /// Decodes packets `from..to` of the burst (at most [`GROUP`]) into their views and ring
    /// slots, an Interest's prefixes hashed in its decoder's walk and its forwarding hint
    /// hashed after it, then the group's Data names' identities together
    /// (`NameHasher::name_ids`: side by side in vector lanes). With `wires`, first prefetches
    /// the wires of the next group, decoded `to - from` steps later. Out of line: one call per
    /// group.
    #[inline(never)]
    pub(super) fn decode<'b, const ACCT: bool>(
        &mut self,
        burst: &'b [RxPacket],
        from: usize,
        to: usize,
        views: &mut [Parsed<'b>; RING],
        wires: bool,
        laps: &mut Laps<ACCT>,
    ) {
        if wires {
            let next = burst.get(to..).unwrap_or_default();
            next.iter().take(to - from).for_each(prefetch_wire);
        }
        let mut names = [(NameRef::root(), 0); GROUP];
        let mut slots = [0; GROUP];
        let mut n = 0;
        for j in from..to {
            let k = j % RING;
            let (Some(rx), Some(parsed), Some(hashes)) =
                (burst.get(j), views.get_mut(k), self.ring.get_mut(k))
            else {
                continue;
            };
            let core = &mut self.core;
            let components = core.parse(rx, hashes, parsed);
            laps.lap(&mut core.cycles, Stage::Parse);
            match &mut *parsed {
                Parsed::Interest(i, fh) | Parsed::Nack(i, fh, _) => {
                    if i.has_forwarding_hint() {
                        *fh = i.forwarding_hint().next().map(|d| core.hasher.hash_name(d));
                    }
                    laps.lap(&mut core.cycles, Stage::Hash);
                }
                Parsed::Data(d) => {
                    if let (Some(name), Some(slot)) = (names.get_mut(n), slots.get_mut(n)) {
                        (*name, *slot) = ((d.name, components), k);
                        n += 1;
                    }
                }
                Parsed::Bad => {}
            }
        }
        if n > 0 {
            let names = names.get(..n).unwrap_or_default();
            // Each identity goes straight into its Data's view, from the lanes.
            self.core.hasher.name_ids(names, |i, id| {
                if let Some(Parsed::Data(d)) = slots.get(i).and_then(|&k| views.get_mut(k)) {
                    d.id = id;
                }
            });
            laps.lap(&mut self.core.cycles, Stage::Parse);
        }
    }
}

impl Core {
    /// Decodes the network packet of `rx` into `parsed`, hashing every prefix of an Interest's
    /// name into `hashes` during the decoder's walk over the name (the forwarding-hint hash is
    /// left to the caller). A Data's identity is left to the caller too (its group's names are
    /// hashed together): its view holds a default [`NameId`] and the name's component count is
    /// returned (0 for any other packet). Each arm stores its own variant into the slot: a
    /// whole `Parsed` is never built elsewhere and copied in (that copy was a `memcpy` call per
    /// packet).
    #[inline(always)]
    pub(super) fn parse<'b>(
        &self,
        rx: &'b RxPacket,
        hashes: &mut PrefixHashes,
        parsed: &mut Parsed<'b>,
    ) -> usize {
        let wire: &'b [u8] = &rx.wire;
        match (wire.first().map(|&b| u32::from(b)), rx.lp.nack) {
            (Some(tt::INTEREST), nack) => {
                // A slot that holds an Interest already (the ring's last lap) takes the new
                // view in place: the decoder stores its fields there, no view is copied.
                if let (Parsed::Interest(i, fh), None) = (&mut *parsed, nack) {
                    match i.check_hashed_into(wire, &self.hasher, hashes) {
                        Ok(()) => *fh = None,
                        Err(_) => *parsed = Parsed::Bad,
                    }
                    return 0;
                }
                *parsed = match Interest::new_checked_hashed(wire, &self.hasher, hashes) {
                    Ok(i) => match nack {
                        None => Parsed::Interest(i, None),
                        Some(reason) => Parsed::Nack(i, None, reason),
                    },
                    Err(_) => Parsed::Bad,
                };
                0
            }
            (Some(tt::DATA), None) => match Data::new_checked_counted(wire) {
                Ok((d, components)) => {
                    *parsed = Parsed::Data(DataHead {
                        name: d.name(),
                        id: NameId::default(),
                        freshness_period: d.freshness_period(),
                    });
                    components
                }
                Err(_) => {
                    *parsed = Parsed::Bad;
                    0
                }
            },
            _ => {
                *parsed = Parsed::Bad;
                0
            }
        }
    }
}
