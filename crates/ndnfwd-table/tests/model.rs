//! Property test: `BucketTable` against a plain `HashMap` model.
//!
//! Hashes are drawn from a tiny space so that home buckets collide, fingerprints collide (equal
//! fingerprints with different indices), and the 4-bucket table with a 3-bucket overflow pool
//! chains, unlinks and runs full. The model keys entries by what the table can distinguish:
//! (fingerprint, home bucket).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use ndnfwd_table::{fingerprint, BucketTable, Layout, TableFull};
use proptest::prelude::*;

const HOME: u64 = 4;
const POOL: usize = 3;

#[derive(Debug, Clone)]
enum Op {
    Insert(u64, u32),
    /// Remove the n-th live entry (modulo the live count).
    RemoveLive(usize),
    /// Remove an arbitrary (hash, index), usually absent.
    RemoveAny(u64, u32),
    Lookup(u64, u32),
    Candidates(u64),
}

fn hash() -> impl Strategy<Value = u64> {
    (
        0..2 * HOME,
        prop::sample::select(vec![0u32, 1, 2, 3, 0x8000_0000, u32::MAX]),
        any::<u32>(),
    )
        .prop_map(|(home, hi, noise)| {
            ((hi as u64) << 32) | (((noise as u64) << 2) & 0xFFFF_FFFC) | home
        })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (hash(), 0..48u32).prop_map(|(h, i)| Op::Insert(h, i)),
        2 => any::<usize>().prop_map(Op::RemoveLive),
        1 => (hash(), 0..48u32).prop_map(|(h, i)| Op::RemoveAny(h, i)),
        3 => (hash(), 0..48u32).prop_map(|(h, i)| Op::Lookup(h, i)),
        1 => hash().prop_map(Op::Candidates),
    ]
}

/// What the table can tell apart.
type Key = (u32, u64);
fn key(h: u64) -> Key {
    (fingerprint(h), h % HOME)
}

#[derive(Default)]
struct Model {
    /// key -> indices (a multiset: duplicates are the caller's business, and allowed).
    map: HashMap<Key, Vec<u32>>,
    /// Live entries in insertion order, to pick removals from.
    live: Vec<(u64, u32)>,
}

impl Model {
    fn remove(&mut self, h: u64, i: u32) -> bool {
        let Some(v) = self.map.get_mut(&key(h)) else {
            return false;
        };
        let Some(p) = v.iter().position(|&x| x == i) else {
            return false;
        };
        v.swap_remove(p);
        let q = self
            .live
            .iter()
            .position(|&(lh, li)| key(lh) == key(h) && li == i);
        self.live.swap_remove(q.expect("live list in sync"));
        true
    }
    fn home_len(&self, h: u64) -> usize {
        self.live
            .iter()
            .filter(|(lh, _)| lh % HOME == h % HOME)
            .count()
    }
}

/// Runs `ops` on `t` and on the model, checking every answer, then drains the table.
fn run_model<L: Layout>(t: &BucketTable<L>, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut w = t.take_writer().unwrap();
    let mut m = Model::default();
    for op in ops {
        match op {
            Op::Insert(h, i) => match t.insert(&mut w, h, i) {
                Ok(()) => {
                    m.map.entry(key(h)).or_default().push(i);
                    m.live.push((h, i));
                }
                Err(TableFull) => {
                    prop_assert_eq!(t.overflow_in_use(), POOL, "full only with the pool used up");
                    prop_assert!(m.home_len(h) >= 7, "full only when the home bucket is full");
                }
            },
            Op::RemoveLive(n) => {
                if !m.live.is_empty() {
                    let (h, i) = m.live[n % m.live.len()];
                    prop_assert!(m.remove(h, i));
                    prop_assert!(t.remove(&mut w, h, i));
                }
            }
            Op::RemoveAny(h, i) => {
                let expect = m.remove(h, i);
                prop_assert_eq!(t.remove(&mut w, h, i), expect);
            }
            Op::Lookup(h, i) => {
                let present = m.map.get(&key(h)).is_some_and(|v| v.contains(&i));
                prop_assert_eq!(t.lookup(h, |x| x == i), present.then_some(i));
                let mut seen = vec![];
                let all = t.lookup(h, |x| {
                    seen.push(x);
                    x == i
                });
                let mut by_writer = vec![];
                let found = t.lookup_writer(&w, h, |x| {
                    by_writer.push(x);
                    x == i
                });
                prop_assert_eq!(found, all, "the writer's one-walk lookup agrees");
                prop_assert_eq!(&by_writer, &seen, "with the same candidates in order");
                let any = t.lookup(h, |_| true);
                let expect_any = m.map.get(&key(h)).is_some_and(|v| !v.is_empty());
                prop_assert_eq!(any.is_some(), expect_any);
            }
            Op::Candidates(h) => {
                let mut got = vec![];
                t.candidates(h, |x| got.push(x));
                got.sort_unstable();
                let mut want = m.map.get(&key(h)).cloned().unwrap_or_default();
                want.sort_unstable();
                prop_assert_eq!(got, want);
            }
        }
        prop_assert_eq!(t.len(), m.live.len());
        prop_assert!(t.overflow_in_use() <= POOL);
    }
    for &(h, i) in &m.live {
        prop_assert_eq!(t.lookup(h, |x| x == i), Some(i));
    }
    // Drain: everything removable exactly once, and the pool comes back.
    for (h, i) in std::mem::take(&mut m.live) {
        prop_assert!(t.remove(&mut w, h, i));
    }
    prop_assert!(t.is_empty());
    prop_assert_eq!(t.overflow_in_use(), 0);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn behaves_like_a_multimap(ops in prop::collection::vec(op(), 1..300)) {
        let t = BucketTable::try_with_buckets(HOME as usize, POOL).unwrap();
        run_model(&t, ops)?;
    }

    /// Paged over several pages, the last one short: the same answers, and the pages'
    /// payload, filled with a pattern first, is never touched.
    #[test]
    fn behaves_like_a_multimap_when_paged(
        ops in prop::collection::vec(op(), 1..300),
        per_page in 2usize..4,
    ) {
        let t = BucketTable::try_with_pages(HOME as usize, POOL, per_page).unwrap();
        prop_assert_eq!(t.pages(), (HOME as usize).div_ceil(per_page));
        let pattern = 0xA5A5_A5A5_A5A5_A5A5u64;
        let payload = || (0..t.pages()).flat_map(|p| t.page_payload::<AtomicU64>(p).iter());
        for word in payload() {
            word.store(pattern, Ordering::Relaxed);
        }
        prop_assert_eq!(payload().count() * 8, t.payload_bytes());
        prop_assert_eq!(payload().count(), t.pages() * (64 - per_page) * 8);
        run_model(&t, ops)?;
        prop_assert!(payload().all(|word| word.load(Ordering::Relaxed) == pattern));
    }
}
