//! Shared, deduplicated forwarding sets: (strategy id, up to [`MAX_NEXTHOPS`] nexthops).
//!
//! Millions of prefixes use a handful of distinct nexthop sets, so a FIB entry stores only a
//! `u32` index ("fwd") into this store. A set is immutable while any entry points to it; the
//! writer interns sets by value with a reference count, and an unused index is reused only
//! after a QSBR grace period. The strategy id travels in the set, so (strategy, nexthops) pairs
//! are what is deduplicated; the forwarding core's strategy table decides the id.
//!
//! Layout of one set (72 bytes): word 0 = strategy (bits 0..8) | count (bits 8..16);
//! words 1..=8 = `face << 32 | cost` in ascending (cost, face) order.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use ndn_packet::FaceId;

use crate::store::Segmented;

/// Nexthops kept per FIB entry (as NDN-DPDK); extra ones (highest cost first) are dropped and
/// counted by the writer.
pub const MAX_NEXTHOPS: usize = 8;

/// Strategy identifier carried by an entry (the forwarding core maps it to a strategy).
pub type StrategyId = u8;

/// One nexthop: an outgoing face and its routing cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct NextHop {
    /// Outgoing face.
    pub face: FaceId,
    /// Routing cost (lower is better).
    pub cost: u32,
}

/// Stored form of one set.
#[derive(Debug, Default)]
pub struct FwdSet {
    w: [AtomicU64; 1 + MAX_NEXTHOPS],
}

const _: () = assert!(core::mem::size_of::<FwdSet>() == 72);

impl FwdSet {
    fn write(&self, strategy: StrategyId, hops: &[NextHop]) {
        for (w, h) in self.w.iter().skip(1).zip(hops) {
            w.store(
                u64::from(h.face) << 32 | u64::from(h.cost),
                Ordering::Relaxed,
            );
        }
        let n = hops.len().min(MAX_NEXTHOPS) as u64;
        self.w[0].store(u64::from(strategy) | n << 8, Ordering::Release);
    }

    /// The strategy id.
    #[inline]
    pub fn strategy(&self) -> StrategyId {
        self.w[0].load(Ordering::Acquire) as u8
    }

    /// The nexthops, lowest cost first.
    #[inline]
    pub fn nexthops(&self) -> impl Iterator<Item = NextHop> + '_ {
        let n = ((self.w[0].load(Ordering::Acquire) >> 8) & 0xff) as usize;
        self.w.iter().skip(1).take(n).map(|w| {
            let v = w.load(Ordering::Relaxed);
            NextHop {
                face: (v >> 32) as FaceId,
                cost: v as u32,
            }
        })
    }
}

/// Canonical form of a set: nexthops sorted by (cost, face), one per face, at most
/// [`MAX_NEXTHOPS`]. Returns the number dropped because of the limit.
pub fn canonical(hops: &[NextHop]) -> (Vec<NextHop>, usize) {
    let mut v: Vec<NextHop> = hops.to_vec();
    // Lowest cost per face.
    v.sort_by_key(|h| (h.face, h.cost));
    v.dedup_by_key(|h| h.face);
    v.sort_by_key(|h| (h.cost, h.face));
    let dropped = v.len().saturating_sub(MAX_NEXTHOPS);
    v.truncate(MAX_NEXTHOPS);
    (v, dropped)
}

/// Writer-side interning of sets: value -> (index, references).
#[derive(Debug)]
pub struct FwdInterner {
    by_value: HashMap<(StrategyId, Vec<NextHop>), u32>,
    refs: Vec<u32>,
    free: Vec<u32>,
    next: u32,
}

/// The set store is full (2^32 distinct sets, or the configured capacity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetsFull;

impl FwdInterner {
    /// Empty interner.
    pub fn new() -> Self {
        Self {
            by_value: HashMap::new(),
            refs: Vec::new(),
            free: Vec::new(),
            next: 0,
        }
    }

    /// Takes a reference on the set `(strategy, hops)` (already canonical), creating it in
    /// `store` if needed; returns its index.
    pub fn acquire(
        &mut self,
        store: &Segmented<FwdSet>,
        strategy: StrategyId,
        hops: Vec<NextHop>,
    ) -> Result<u32, SetsFull> {
        let key = (strategy, hops);
        if let Some(&i) = self.by_value.get(&key) {
            if let Some(r) = self.refs.get_mut(i as usize) {
                *r += 1;
            }
            return Ok(i);
        }
        let i = match self.free.pop() {
            Some(i) => i,
            None => {
                let i = self.next;
                self.next = self.next.checked_add(1).ok_or(SetsFull)?;
                i
            }
        };
        let Some(slot) = store.get_or_grow(i) else {
            self.free.push(i);
            return Err(SetsFull);
        };
        slot.write(key.0, &key.1);
        if self.refs.len() <= i as usize {
            self.refs.resize(i as usize + 1, 0);
        }
        if let Some(r) = self.refs.get_mut(i as usize) {
            *r = 1;
        }
        self.by_value.insert(key, i);
        Ok(i)
    }

    /// Drops a reference; returns true when the set became unused (the caller retires the
    /// index and hands it back with [`FwdInterner::reuse`] after a grace period).
    pub fn release(&mut self, store: &Segmented<FwdSet>, i: u32) -> bool {
        let Some(r) = self.refs.get_mut(i as usize) else {
            return false;
        };
        *r = r.saturating_sub(1);
        if *r > 0 {
            return false;
        }
        if let Some(set) = store.get(i) {
            let key = (set.strategy(), set.nexthops().collect::<Vec<_>>());
            self.by_value.remove(&key);
        }
        true
    }

    /// Makes a retired index available again.
    pub fn reuse(&mut self, i: u32) {
        self.free.push(i);
    }

    /// Sets currently referenced.
    pub fn live(&self) -> usize {
        self.by_value.len()
    }
}

impl Default for FwdInterner {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nh(face: u32, cost: u32) -> NextHop {
        NextHop { face, cost }
    }

    #[test]
    fn canonical_keeps_lowest_cost_per_face_and_limit() {
        let (v, d) = canonical(&[nh(3, 10), nh(1, 5), nh(3, 2), nh(2, 5)]);
        assert_eq!(v, vec![nh(3, 2), nh(1, 5), nh(2, 5)]);
        assert_eq!(d, 0);
        let many: Vec<_> = (0..12).map(|f| nh(f, 100 - f)).collect();
        let (v, d) = canonical(&many);
        assert_eq!(v.len(), MAX_NEXTHOPS);
        assert_eq!(d, 4);
        assert_eq!(v[0], nh(11, 89));
    }

    #[test]
    fn interning_dedups_and_recycles() {
        let store = Segmented::with_capacity(1 << 16);
        let mut it = FwdInterner::new();
        let a = it.acquire(&store, 1, vec![nh(1, 1)]).unwrap();
        let b = it.acquire(&store, 1, vec![nh(1, 1)]).unwrap();
        let c = it.acquire(&store, 2, vec![nh(1, 1)]).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c, "strategy is part of the key");
        let s = store.get(c).unwrap();
        assert_eq!(
            (s.strategy(), s.nexthops().collect::<Vec<_>>()),
            (2, vec![nh(1, 1)])
        );
        assert!(!it.release(&store, a));
        assert!(it.release(&store, a));
        assert_eq!(it.live(), 1);
        it.reuse(a);
        let d = it.acquire(&store, 7, vec![nh(9, 9), nh(8, 10)]).unwrap();
        assert_eq!(d, a, "retired index reused");
        assert_eq!(store.get(d).unwrap().nexthops().count(), 2);
    }
}
