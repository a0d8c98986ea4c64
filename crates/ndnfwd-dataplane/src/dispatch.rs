//! Input dispatch: which worker gets a received packet (NDN-DPDK's input thread).
//!
//! - Interest: the name dispatch table (NDT), indexed by the keyed hash of the name's first
//!   `P` components (the whole name when shorter), maps to a worker. Interests for one name
//!   always reach the same worker, so PIT aggregation, loop detection and CS hits work within
//!   one PIT-CS.
//! - Data and Nack carrying our PIT token: the worker named in the token
//!   (`ndnfwd_pcct::worker_of`), without any table access.
//! - Data and Nack without a usable token: **every worker**. Matching by name cannot use the
//!   NDT, because a CanBePrefix Interest shorter than `P` components hashes differently from
//!   the longer Data that satisfies it. With the few workers a host runs, a clone per worker
//!   (a reference count) is cheaper than being wrong; each worker that has no matching entry
//!   counts it as unsolicited.
//!
//! The hash is the forwarder's keyed SipHash, so an outsider cannot aim names at one worker.

use ndn_packet::link::PacketKind;
use ndn_packet::tlv::{tt, Reader};
use ndn_packet::{NameHasher, NameRef};

/// Where a packet goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// One worker.
    Worker(u8),
    /// Every worker (tokenless Data or Nack).
    All,
    /// Nowhere: the packet has no decodable name (counted as `bad_name`; only with several
    /// workers, a single worker's engine counts its own decode drops).
    Drop,
}

/// The dispatch function of the input stage.
#[derive(Debug, Clone)]
pub struct Dispatcher {
    hasher: NameHasher,
    prefix_len: usize,
    ndt: Box<[u8]>,
    workers: u8,
}

/// The name of an Interest or Data wire: the first child of the outer TLV must be a Name.
pub fn packet_name(wire: &[u8]) -> Option<NameRef<'_>> {
    let outer = Reader::new(wire).read().ok()?;
    if outer.typ != tt::INTEREST && outer.typ != tt::DATA {
        return None;
    }
    let name = outer.children().read().ok()?;
    if name.typ != tt::NAME {
        return None;
    }
    NameRef::new_checked(name.value).ok()
}

impl Dispatcher {
    /// A dispatcher over `workers` workers (1..=255), hashing the first `prefix_len` components
    /// into an NDT of `2^ndt_bits` entries filled round-robin.
    pub fn new(hasher: NameHasher, workers: usize, prefix_len: usize, ndt_bits: u8) -> Self {
        let workers = u8::try_from(workers.clamp(1, 255)).unwrap_or(u8::MAX);
        let size = 1usize << ndt_bits.min(16);
        let ndt = (0..size)
            .map(|i| u8::try_from(i % usize::from(workers)).unwrap_or(0))
            .collect();
        Self {
            hasher,
            prefix_len: prefix_len.max(1),
            ndt,
            workers,
        }
    }

    /// Number of workers.
    pub fn workers(&self) -> u8 {
        self.workers
    }

    /// The worker an Interest named `name` goes to.
    pub fn interest_worker(&self, name: NameRef<'_>) -> u8 {
        if self.workers == 1 {
            return 0;
        }
        let h = self
            .hasher
            .hash_name(name.prefix(self.prefix_len.min(name.len())));
        let i = (h as usize) & (self.ndt.len() - 1);
        self.ndt.get(i).copied().unwrap_or(0)
    }

    /// Where a received packet of `kind` with network-layer `wire` and PitToken `token` goes.
    /// With one worker nothing is parsed: the worker's engine decodes the packet anyway and
    /// drops and counts a malformed one, so checking its name here would be a second pass.
    pub fn dispatch(&self, kind: PacketKind, wire: &[u8], token: &[u8]) -> Target {
        if self.workers == 1 {
            return Target::Worker(0);
        }
        match kind {
            PacketKind::Interest => match packet_name(wire) {
                Some(name) => Target::Worker(self.interest_worker(name)),
                None => Target::Drop,
            },
            PacketKind::Data | PacketKind::Nack => match ndnfwd_pcct::worker_of(token) {
                Some(w) if w < self.workers => Target::Worker(w),
                _ => Target::All,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndn_packet::{InterestBuilder, Name, SipVariant};
    use ndnfwd_pcct::PitToken;
    use proptest::prelude::*;

    fn hasher() -> NameHasher {
        NameHasher::new([3; 16], SipVariant::Sip13)
    }

    fn interest(uri: &str) -> Vec<u8> {
        InterestBuilder::new(Name::from_uri(uri).unwrap())
            .encode()
            .unwrap()
    }

    #[test]
    fn names_of_packets() {
        let w = interest("/a/b/c");
        assert_eq!(packet_name(&w).unwrap().to_string(), "/a/b/c");
        assert!(packet_name(&[5, 0]).is_none());
        assert!(
            packet_name(&[6, 2, 8, 0]).is_none(),
            "first child is not a Name"
        );
        assert!(packet_name(&[100, 0]).is_none());
        assert!(packet_name(&[]).is_none());
    }

    #[test]
    fn tokens_pick_their_worker_and_tokenless_goes_everywhere() {
        let d = Dispatcher::new(hasher(), 4, 2, 8);
        let tok = PitToken::new(3, 1, 9).to_bytes();
        assert_eq!(d.dispatch(PacketKind::Data, &[], &tok), Target::Worker(3));
        assert_eq!(d.dispatch(PacketKind::Nack, &[], &tok), Target::Worker(3));
        let foreign = PitToken::new(9, 1, 9).to_bytes();
        assert_eq!(d.dispatch(PacketKind::Data, &[], &foreign), Target::All);
        assert_eq!(d.dispatch(PacketKind::Data, &[], &[1, 2]), Target::All);
        assert_eq!(d.dispatch(PacketKind::Data, &[], &[]), Target::All);
        assert_eq!(d.dispatch(PacketKind::Interest, &[5, 0], &[]), Target::Drop);
        let one = Dispatcher::new(hasher(), 1, 2, 8);
        assert_eq!(one.dispatch(PacketKind::Data, &[], &[]), Target::Worker(0));
        // One worker: nothing is parsed; the engine drops and counts malformed packets.
        assert_eq!(
            one.dispatch(PacketKind::Interest, &[5, 0], &[]),
            Target::Worker(0)
        );
    }

    #[test]
    fn ndt_spreads_names_over_workers() {
        let d = Dispatcher::new(hasher(), 4, 2, 8);
        let mut seen = [0u32; 4];
        for i in 0..400 {
            let w = interest(&format!("/site{i}/x/y"));
            match d.dispatch(PacketKind::Interest, &w, &[]) {
                Target::Worker(k) => seen[usize::from(k)] += 1,
                t => panic!("{t:?}"),
            }
        }
        assert!(seen.iter().all(|&n| n > 50), "{seen:?}");
    }

    proptest! {
        /// Reference model: the worker is a function of the first P components only.
        #[test]
        fn same_first_p_components_same_worker(
            a in prop::collection::vec("[a-c]{1,2}", 1..6),
            b in prop::collection::vec("[a-c]{1,2}", 1..6),
            p in 1usize..4,
        ) {
            let d = Dispatcher::new(hasher(), 3, p, 6);
            let uri = |v: &[String]| format!("/{}", v.join("/"));
            let wa = interest(&uri(&a));
            let wb = interest(&uri(&b));
            let ta = d.dispatch(PacketKind::Interest, &wa, &[]);
            let tb = d.dispatch(PacketKind::Interest, &wb, &[]);
            let key = |v: &[String]| v.iter().take(p).cloned().collect::<Vec<_>>();
            if key(&a) == key(&b) {
                prop_assert_eq!(ta, tb);
            }
            prop_assert!(matches!(ta, Target::Worker(w) if w < 3));
        }
    }
}
