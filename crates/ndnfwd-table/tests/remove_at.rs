//! Property test: `BucketTable::remove_at` against `BucketTable::remove`.
//!
//! Two tables take the same inserts; one removes with `remove`, the other with `remove_at` and
//! the `SlotRef` its `insert_at` returned (or a stale or default one, which must fall back to
//! the walk). Hashes come from a tiny space, so home buckets fill, chain into the small overflow
//! pool and unlink again. Each index is inserted once (as the PIT-CS does), and after every step
//! both tables must answer every lookup with the same candidates in the same order.

use ndnfwd_table::{BucketTable, SlotRef, TableWriter};
use proptest::prelude::*;

const HOME: u64 = 4;
const POOL: usize = 3;

#[derive(Debug, Clone)]
enum Op {
    Insert(u64),
    /// Remove the n-th live entry (modulo the live count) with its own slot reference.
    Remove(usize),
    /// The same with the slot reference of another live entry (stale for this one).
    RemoveStale(usize, usize),
    /// The same with the default (no slot) reference.
    RemoveDefault(usize),
    /// Remove a pair that is not in the table.
    RemoveAbsent(u64, usize),
}

fn hash() -> impl Strategy<Value = u64> {
    (
        0..2 * HOME,
        prop::sample::select(vec![0u32, 1, 2, 0x8000_0000]),
    )
        .prop_map(|(home, hi)| ((hi as u64) << 32) | home)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => hash().prop_map(Op::Insert),
        3 => any::<usize>().prop_map(Op::Remove),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::RemoveStale(a, b)),
        1 => any::<usize>().prop_map(Op::RemoveDefault),
        1 => (hash(), any::<usize>()).prop_map(|(h, i)| Op::RemoveAbsent(h, i)),
    ]
}

struct Twin {
    by_walk: BucketTable,
    walk_w: TableWriter,
    by_slot: BucketTable,
    slot_w: TableWriter,
}

impl Twin {
    fn remove(&mut self, h: u64, i: u32, at: SlotRef) -> (bool, bool) {
        (
            self.by_walk.remove(&mut self.walk_w, h, i),
            self.by_slot.remove_at(&mut self.slot_w, h, at, i),
        )
    }

    /// Both tables hold the same pairs in the same chain order.
    fn same(&self, hashes: &[u64]) -> Result<(), TestCaseError> {
        prop_assert_eq!(self.by_walk.len(), self.by_slot.len());
        prop_assert_eq!(
            self.by_walk.overflow_in_use(),
            self.by_slot.overflow_in_use()
        );
        for &h in hashes {
            let (mut a, mut b) = (vec![], vec![]);
            self.by_walk.candidates(h, |i| a.push(i));
            self.by_slot.candidates(h, |i| b.push(i));
            prop_assert_eq!(a, b, "candidates of {:#x}", h);
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn remove_at_equals_remove(ops in prop::collection::vec(op(), 1..300)) {
        let by_walk = BucketTable::try_with_buckets(HOME as usize, POOL).unwrap();
        let by_slot = BucketTable::try_with_buckets(HOME as usize, POOL).unwrap();
        let mut t = Twin {
            walk_w: by_walk.take_writer().unwrap(),
            slot_w: by_slot.take_writer().unwrap(),
            by_walk,
            by_slot,
        };
        let mut live: Vec<(u64, u32, SlotRef)> = vec![];
        let mut hashes: Vec<u64> = vec![];
        let mut next = 0u32;
        for op in ops {
            match op {
                Op::Insert(h) => {
                    let i = next;
                    next += 1;
                    let a = t.by_walk.insert_at(&mut t.walk_w, t.by_walk.place(h), i);
                    let b = t.by_slot.insert_at(&mut t.slot_w, t.by_slot.place(h), i);
                    prop_assert_eq!(a, b, "same slot choice");
                    if let Ok(at) = b {
                        live.push((h, i, at));
                        hashes.push(h);
                    }
                }
                Op::Remove(n) if !live.is_empty() => {
                    let (h, i, at) = live.swap_remove(n % live.len());
                    prop_assert_eq!(t.remove(h, i, at), (true, true));
                }
                Op::RemoveStale(n, m) if !live.is_empty() => {
                    let other = live[m % live.len()].2;
                    let (h, i, _) = live.swap_remove(n % live.len());
                    prop_assert_eq!(t.remove(h, i, other), (true, true));
                }
                Op::RemoveDefault(n) if !live.is_empty() => {
                    let (h, i, _) = live.swap_remove(n % live.len());
                    prop_assert_eq!(t.remove(h, i, SlotRef::default()), (true, true));
                }
                Op::RemoveAbsent(h, m) => {
                    let at = live.get(m % live.len().max(1)).map_or_else(SlotRef::default, |x| x.2);
                    prop_assert_eq!(t.remove(h, next, at), (false, false));
                }
                _ => {}
            }
            t.same(&hashes)?;
        }
    }
}
