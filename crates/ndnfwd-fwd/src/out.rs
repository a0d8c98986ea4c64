//! The engine's output buffer: the packets a burst sends, each written in place.

use ndn_packet::link::TxPacket;

/// The packets [`crate::Engine::process`] sends, in order. A run of slots the caller sizes
/// once ([`TxBurst::with_capacity`]): the pipelines write each packet straight into the next
/// free slot (an index and a store, no call and no copy of a built packet, which `Vec::push`
/// costs), and past the slots the buffer grows. The caller takes the packets
/// ([`TxBurst::drain`]) or clears the buffer, and reuses it; taking or dropping the sent
/// packets before the next burst lets the engine recycle its Interest buffers.
#[derive(Debug, Default)]
pub struct TxBurst {
    /// `slots[..len]` hold the packets; the rest are `None` once taken.
    slots: Vec<Option<TxPacket>>,
    len: usize,
}

impl TxBurst {
    /// An empty buffer with no slots (the first bursts grow it).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty buffer with `n` slots: a burst sending at most `n` packets allocates nothing.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            slots: (0..n).map(|_| None).collect(),
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
        self.held().get(i)?.as_ref()
    }

    /// The packets, in sending order.
    pub fn iter(&self) -> impl Iterator<Item = &TxPacket> {
        self.held().iter().flatten()
    }

    /// The packets, in sending order, used in place: a sender taking `&mut TxPacket` (the face
    /// table's) moves the buffer out of its slot, never the packet itself.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut TxPacket> {
        let n = self.len;
        self.slots
            .get_mut(..n)
            .unwrap_or_default()
            .iter_mut()
            .filter_map(Option::as_mut)
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
            let kept = match slot {
                Some(p) => keep(p),
                None => continue,
            };
            if kept {
                if w != i {
                    self.slots.swap(w, i);
                }
                w += 1;
            } else if let Some(p) = slot.take() {
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
            .filter_map(Option::take)
    }

    /// Drops the packets.
    pub fn clear(&mut self) {
        self.drain().for_each(drop);
    }

    /// Appends `p`: written in the next slot, inlined into the pipelines.
    #[inline(always)]
    pub(crate) fn push(&mut self, p: TxPacket) {
        match self.slots.get_mut(self.len) {
            Some(slot) => *slot = Some(p),
            None => self.grow(p),
        }
        self.len += 1;
    }

    /// [`TxBurst::push`] past the last slot (`len == slots.len()`): one slot more.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, p: TxPacket) {
        self.slots.push(Some(p));
    }

    /// The slots holding packets.
    fn held(&self) -> &[Option<TxPacket>] {
        self.slots.get(..self.len).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use ndn_packet::link::{LpToken, PacketKind, TxLp};

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
