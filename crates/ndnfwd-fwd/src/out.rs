//! The engine's output buffer: the packets a burst sends, each written in place.

use bytes::Bytes;
use ndn_packet::link::{RxPacket, TxPacket};

/// The packets [`crate::Engine::process`] sends, in order. A run of slots the caller sizes
/// once ([`TxBurst::with_capacity`]): the pipelines write each packet straight into the next
/// free slot (an index and a store, no call and no copy of a built packet, which `Vec::push`
/// costs), and past the slots the buffer grows. The caller takes the packets
/// ([`TxBurst::drain`]) or clears the buffer, and reuses it; taking or dropping the sent
/// packets before the next burst lets the engine recycle its Interest buffers.
///
/// A packet that sends a received packet's bytes as they arrived (a forwarded Interest or
/// Data, a Nack carrying the received Interest) is written with an empty wire and the index
/// of that packet in its slot; at the burst's end `TxBurst::fill` moves the received buffer
/// into it (the other packets sending the same bytes, to several upstreams or downstreams,
/// clone it in the pipeline). The usual forwarded packet then costs no reference-count
/// update for its bytes, where a clone in the pipeline and the drop of the received packet
/// cost one each (a locked atomic).
#[derive(Debug, Default)]
pub struct TxBurst {
    /// `slots[..len]` hold the packets; the rest are `None` once taken.
    slots: Vec<Slot>,
    len: usize,
}

/// One packet's place in a [`TxBurst`]: 128 bytes, two cache lines.
#[derive(Debug, Default)]
struct Slot {
    packet: Option<TxPacket>,
    /// The index in the burst received of the packet whose wire `packet` takes at the burst's
    /// end ([`TxBurst::fill`]), or [`Slot::OWN`] (`packet` has its own, or took it).
    from: u32,
}

const _: () = assert!(core::mem::size_of::<Slot>() == 128);

impl Slot {
    /// [`Slot::from`] of a packet with a buffer of its own.
    const OWN: u32 = u32::MAX;
}

/// The bytes a packet sends.
#[derive(Debug)]
pub(crate) enum Wire {
    /// The wire of packet `.0` of the burst received, as it arrived: moved into the packet when
    /// the burst ends ([`TxBurst::fill`]). One packet at most takes a received packet's wire;
    /// the others send a clone ([`Wire::shared`]).
    Received(usize),
    /// A buffer of its own (a clone of the received one, the CS's, a rewritten Interest).
    Own(Bytes),
}

impl Wire {
    /// The same bytes for one more packet (`rx`: the received packet): a clone of the buffer
    /// (the received wire is whole until the burst ends), the move left to this one.
    pub(crate) fn shared(&self, rx: &RxPacket) -> Wire {
        match self {
            Wire::Received(_) => Wire::Own(rx.wire.clone()),
            Wire::Own(b) => Wire::Own(b.clone()),
        }
    }
}

impl TxBurst {
    /// An empty buffer with no slots (the first bursts grow it).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty buffer with `n` slots: a burst sending at most `n` packets allocates nothing.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            slots: (0..n).map(|_| Slot::default()).collect(),
            len: 0,
        }
    }

    /// How many packets the buffer holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no packet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Packet `i` (in sending order).
    pub fn get(&self, i: usize) -> Option<&TxPacket> {
        self.held().get(i)?.packet.as_ref()
    }

    /// The packets, in sending order.
    pub fn iter(&self) -> impl Iterator<Item = &TxPacket> {
        self.held().iter().filter_map(|s| s.packet.as_ref())
    }

    /// The packets, in sending order, used in place: a sender taking `&mut TxPacket` (the face
    /// table's) moves the buffer out of its slot, never the packet itself.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut TxPacket> {
        let n = self.len;
        self.slots
            .get_mut(..n)
            .unwrap_or_default()
            .iter_mut()
            .filter_map(|s| s.packet.as_mut())
    }

    /// Takes out of the packets from `start` on those `keep` refuses, handing each to `other`
    /// in sending order; the kept ones stay in order (moved down a slot only past a taken one,
    /// so when `keep` takes them all nothing moves).
    pub fn split_off_from(
        &mut self,
        start: usize,
        mut keep: impl FnMut(&TxPacket) -> bool,
        mut other: impl FnMut(TxPacket),
    ) {
        let n = self.len.min(self.slots.len());
        // `slots[start..w]` hold the kept packets, `slots[w..i]` are empty.
        let from = start.min(n);
        let mut w = from;
        for i in from..n {
            let Some(slot) = self.slots.get_mut(i) else {
                break;
            };
            let kept = match &slot.packet {
                Some(p) => keep(p),
                None => continue,
            };
            if kept {
                if w != i {
                    self.slots.swap(w, i);
                }
                w += 1;
            } else if let Some(p) = slot.packet.take() {
                other(p);
            }
        }
        self.len = w;
    }

    /// Takes the packets out in sending order and leaves the buffer empty (packets the
    /// iterator does not reach are dropped when their slot is written again or the buffer is
    /// cleared or dropped).
    pub fn drain(&mut self) -> impl Iterator<Item = TxPacket> + '_ {
        let n = core::mem::take(&mut self.len);
        self.slots
            .get_mut(..n)
            .unwrap_or_default()
            .iter_mut()
            .filter_map(|s| s.packet.take())
    }

    /// Drops the packets.
    pub fn clear(&mut self) {
        self.drain().for_each(drop);
    }

    /// Appends `p` (built with an empty wire) sending `wire`: written in the next slot,
    /// inlined into the pipelines. A received packet's wire is left empty until
    /// [`TxBurst::fill`] moves it in.
    #[inline(always)]
    pub(crate) fn push_wire(&mut self, wire: Wire, mut p: TxPacket) {
        match wire {
            // A burst is far below 2^32 - 1 packets.
            Wire::Received(rx) => self.push_from(p, rx as u32),
            Wire::Own(bytes) => {
                p.wire = bytes;
                self.push_from(p, Slot::OWN);
            }
        }
    }

    /// Writes `p` and where its wire comes from in the next slot.
    #[inline(always)]
    fn push_from(&mut self, p: TxPacket, from: u32) {
        match self.slots.get_mut(self.len) {
            Some(slot) => {
                slot.packet = Some(p);
                slot.from = from;
            }
            None => self.grow(p, from),
        }
        self.len += 1;
    }

    /// Moves into each packet pushed with [`Wire::Received`] the wire of its packet in `burst`
    /// (left empty); received packets no packet took keep their wires. Out of line: once per
    /// burst, and the burst loop's registers stay as they are.
    #[inline(never)]
    pub(crate) fn fill(&mut self, burst: &mut [RxPacket]) {
        for s in self.slots.get_mut(..self.len).unwrap_or_default() {
            if s.from == Slot::OWN {
                continue;
            }
            if let (Some(p), Some(rx)) = (&mut s.packet, burst.get_mut(s.from as usize)) {
                // `p.wire` is empty (a static buffer, whose drop does nothing): the received
                // packet is left with that.
                let wire = core::mem::take(&mut rx.wire);
                core::mem::forget(core::mem::replace(&mut p.wire, wire));
            }
            s.from = Slot::OWN;
        }
    }

    /// [`TxBurst::push_from`] past the last slot (`len == slots.len()`): one slot more.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, p: TxPacket, from: u32) {
        self.slots.push(Slot {
            packet: Some(p),
            from,
        });
    }

    /// The slots holding packets.
    fn held(&self) -> &[Slot] {
        self.slots.get(..self.len).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use ndn_packet::link::{LpToken, PacketKind, RxLp, TxLp};

    fn pkt(face: u32) -> TxPacket {
        TxPacket {
            face,
            kind: PacketKind::Data,
            lp: TxLp {
                pit_token: LpToken::EMPTY,
                nack: None,
                congestion_mark: 0,
                incoming_face_id: None,
            },
            wire: Bytes::from(vec![6, 1, face as u8]),
            patch: None,
        }
    }

    impl TxBurst {
        /// Appends `p` with the buffer it holds.
        fn push(&mut self, mut p: TxPacket) {
            let wire = core::mem::take(&mut p.wire);
            self.push_wire(Wire::Own(wire), p);
        }
    }

    fn rx(face: u32) -> RxPacket {
        RxPacket {
            face,
            kind: PacketKind::Data,
            wire: Bytes::from(vec![6, 1, face as u8]),
            lp: RxLp::default(),
        }
    }

    /// Each packet pushed with a received wire gets that buffer (moved, not copied: the same
    /// pointer) and the received packet is left empty; a received packet nothing took keeps
    /// its wire; packets with their own buffer and packets of earlier bursts are untouched,
    /// within the slots and past them.
    #[test]
    fn fill_moves_each_received_wire_into_its_packet() {
        for cap in [0, 2, 8] {
            let mut b = TxBurst::with_capacity(cap);
            let mut burst: Vec<RxPacket> = (0..4).map(rx).collect();
            let ptrs: Vec<_> = burst.iter().map(|r| r.wire.as_ptr()).collect();
            let empty = |face| TxPacket {
                wire: Bytes::new(),
                ..pkt(face)
            };
            b.push(pkt(9));
            b.fill(&mut burst);
            b.push_wire(Wire::Received(0), empty(10));
            b.push_wire(Wire::Own(burst[2].wire.clone()), empty(11));
            b.push_wire(Wire::Received(2), empty(12));
            b.push_wire(Wire::Received(3), empty(13));
            b.fill(&mut burst);
            let ptr = |i| b.get(i).map(|t| t.wire.as_ptr());
            assert_eq!(b.get(0).map(|t| t.wire.as_ref()), Some(&[6, 1, 9][..]));
            assert_eq!(ptr(1), Some(ptrs[0]));
            assert_eq!(
                (ptr(2), ptr(3), ptr(4)),
                (Some(ptrs[2]), Some(ptrs[2]), Some(ptrs[3]))
            );
            assert_eq!(b.get(1).map(|t| t.wire.as_ref()), Some(&[6, 1, 0][..]));
            assert!(burst[0].wire.is_empty() && burst[2].wire.is_empty());
            assert!(burst[3].wire.is_empty());
            assert_eq!(burst[1].wire.as_ptr(), ptrs[1], "not sent: kept");
            // The next burst's fill leaves the packets filled before alone.
            let mut next: Vec<RxPacket> = (20..22).map(rx).collect();
            b.push_wire(Wire::Received(1), empty(14));
            b.fill(&mut next);
            assert_eq!(b.get(1).map(|t| t.wire.as_ptr()), Some(ptrs[0]));
            assert_eq!(b.get(5).map(|t| t.wire.as_ref()), Some(&[6, 1, 21][..]));
            assert_eq!(next[0].wire.as_ref(), &[6, 1, 20]);
            assert!(next[1].wire.is_empty());
            assert_eq!(b.drain().count(), 6);
        }
    }

    /// The slots and the grown part keep the order a `Vec` would, across reuses, partial
    /// drains and clears.
    #[test]
    fn tx_burst_behaves_as_a_vec() {
        for cap in [0, 1, 3, 8] {
            let mut b = TxBurst::with_capacity(cap);
            let mut v: Vec<TxPacket> = Vec::new();
            for round in 0..6u32 {
                for f in 0..round * 2 {
                    b.push(pkt(f + round));
                    v.push(pkt(f + round));
                }
                assert_eq!(b.len(), v.len());
                assert_eq!(b.is_empty(), v.is_empty());
                assert!(b.iter().eq(v.iter()));
                assert_eq!(b.get(1), v.get(1));
                assert_eq!(b.get(v.len()), None);
                match round % 3 {
                    0 => assert!(b.drain().eq(v.drain(..))),
                    1 => {
                        // A partial drain: the rest is dropped, the buffer is empty.
                        let first = b.drain().next();
                        assert_eq!(first.as_ref(), v.first());
                        v.clear();
                    }
                    _ => {
                        b.clear();
                        v.clear();
                    }
                }
                assert!(b.is_empty());
            }
        }
    }

    proptest::proptest! {
        /// `split_off_from` keeps what `Vec::retain` keeps and hands out what it removes, both
        /// in order; `iter_mut` sees the kept packets; the buffer is reusable after it.
        #[test]
        fn split_off_from_matches_retain(
            cap in 0usize..6,
            before in 0u32..5,
            faces in proptest::collection::vec(0u32..4, 0..12),
        ) {
            let mut b = TxBurst::with_capacity(cap);
            for f in 0..before {
                b.push(pkt(10 + f));
            }
            let start = b.len();
            for &f in &faces {
                b.push(pkt(f));
            }
            let mut others = Vec::new();
            b.split_off_from(start, |t| t.face != 1, |t| others.push(t));
            let mut kept: Vec<TxPacket> = (0..before).map(|f| pkt(10 + f)).collect();
            kept.extend(faces.iter().filter(|&&f| f != 1).map(|&f| pkt(f)));
            let out: Vec<TxPacket> = faces.iter().filter(|&&f| f == 1).map(|&f| pkt(f)).collect();
            proptest::prop_assert_eq!(&others, &out);
            proptest::prop_assert_eq!(b.len(), kept.len());
            proptest::prop_assert!(b.iter_mut().map(|t| &*t).eq(kept.iter()));
            proptest::prop_assert!(b.drain().eq(kept.into_iter()));
            b.push(pkt(3));
            proptest::prop_assert!(b.iter().eq([pkt(3)].iter()));
        }
    }
}
