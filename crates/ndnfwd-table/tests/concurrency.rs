//! One writer churns a small, chained table while two readers look up keys that are present for
//! the whole time a reader may check them: every such lookup must return the right index.
//!
//! Overflow buckets are only ever appended at the tail of a chain, so to keep putting
//! soon-to-be-recycled buckets in front of checked keys the writer rotates key groups. Per home
//! bucket the chain is `home(A) -> S_old(group) -> X(B)` at the start of a round, and a round is:
//!
//! 1. insert a fresh group into a new tail bucket S_new and make it checkable;
//! 2. remove B: X (in front of S_new) is unlinked and freed; re-insert B: it reuses a free
//!    bucket (often X itself) at the tail;
//! 3. make S_old unchecked, wait until both readers finished any lookup begun before, remove it:
//!    S_old (in front of S_new) is unlinked and freed, to be reused by the next round elsewhere.
//!
//! A reader standing in X or S_old while it is recycled would miss S_new's keys unless `lookup`
//! re-validates its miss (the chain version). Home keys A are checked all the time.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::SeqCst};
use std::sync::Arc;
use std::thread;

use ndnfwd_table::{fingerprint, BucketTable, TableWriter};

const HOME: u32 = 8;
const GROUP: u32 = 7; // keys per group = one bucket
/// Groups per home: 0 = A (home bucket, never removed), 1 = B (churn), 2 and 3 = rotating.
const GROUPS: u32 = 4;
const ROUNDS: u32 = 4_000;
const READERS: usize = 2;

fn index(home: u32, group: u32, j: u32) -> u32 {
    (home * GROUPS + group) * GROUP + j
}

/// Hash of key index `k`: home in the low bits; rotating group 3 shares fingerprints with group 2
/// (equal fingerprints, different indices, so the readers' `eq` has to reject some candidates).
fn key_hash(k: u32) -> u64 {
    let home = k / (GROUPS * GROUP);
    let group = (k / GROUP) % GROUPS;
    let fp_src = if group == 3 { k - GROUP } else { k };
    (((fp_src as u64) * 2 + 0x10_0000) << 32) | ((k as u64) << 8) | home as u64
}

fn insert_group(t: &BucketTable, w: &mut TableWriter, home: u32, group: u32) {
    for j in 0..GROUP {
        let k = index(home, group, j);
        t.insert(w, key_hash(k), k)
            .expect("pool sized for the test");
    }
}

fn remove_group(t: &BucketTable, w: &mut TableWriter, home: u32, group: u32) {
    for j in 0..GROUP {
        let k = index(home, group, j);
        assert!(t.remove(w, key_hash(k), k), "key {k} was present");
    }
}

struct Shared {
    table: BucketTable,
    /// Bit g set: group g of that home may be checked by readers.
    checkable: Vec<AtomicU8>,
    /// Per reader: lookups completed (its quiescent-state counter).
    epochs: Vec<AtomicU64>,
    stop: AtomicBool,
    wrong: AtomicU64,
    torn: AtomicU64,
    lookups: AtomicU64,
}

fn reader(s: &Shared, me: usize) {
    let total = HOME * GROUPS * GROUP;
    let mut x = 0x2545_F491_4F6C_DD1Du64 ^ me as u64;
    let mut n = 0u64;
    while !s.stop.load(SeqCst) || n < 50_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let home = (x % HOME as u64) as u32;
        let group = [0, 2, 3][(x >> 8) as usize % 3];
        let k = index(home, group, (x >> 16) as u32 % GROUP);
        if s.checkable[home as usize].load(SeqCst) & (1 << group) != 0 {
            let h = key_hash(k);
            let mut eq = |i| {
                if i >= total || fingerprint(key_hash(i)) != fingerprint(h) {
                    s.torn.fetch_add(1, SeqCst);
                }
                i == k
            };
            let got = s.table.lookup(h, &mut eq);
            if got != Some(k) {
                s.wrong.fetch_add(1, SeqCst);
            }
            n += 1;
        }
        s.epochs[me].fetch_add(1, SeqCst);
    }
    s.lookups.fetch_add(n, SeqCst);
}

/// Waits until every reader has finished the lookup it may have been doing.
fn quiesce(s: &Shared) {
    for e in &s.epochs {
        let seen = e.load(SeqCst);
        while e.load(SeqCst) == seen {
            // Sleep rather than yield: with more busy threads than cores, the reader we wait
            // for may need this core.
            thread::sleep(std::time::Duration::from_micros(20));
        }
    }
}

#[test]
fn readers_always_find_present_keys_while_writer_recycles_buckets() {
    let table = BucketTable::try_with_buckets(HOME as usize, 4 * HOME as usize).unwrap();
    let mut w = table.take_writer().unwrap();
    let s = Arc::new(Shared {
        table,
        checkable: (0..HOME).map(|_| AtomicU8::new(0b0101)).collect(),
        epochs: (0..READERS).map(|_| AtomicU64::new(0)).collect(),
        stop: AtomicBool::new(false),
        wrong: AtomicU64::new(0),
        torn: AtomicU64::new(0),
        lookups: AtomicU64::new(0),
    });
    for home in 0..HOME {
        for group in [0, 2, 1] {
            insert_group(&s.table, &mut w, home, group); // home(A) -> S(2) -> X(B)
        }
    }
    assert_eq!(s.table.overflow_in_use(), 2 * HOME as usize);
    let readers: Vec<_> = (0..READERS)
        .map(|me| {
            let s = s.clone();
            thread::spawn(move || reader(&s, me))
        })
        .collect();

    let mut old = vec![2u32; HOME as usize];
    for round in 0..ROUNDS {
        let home = round % HOME;
        let (o, new) = (old[home as usize], 5 - old[home as usize]);
        let flags = &s.checkable[home as usize];
        insert_group(&s.table, &mut w, home, new);
        flags.store(flags.load(SeqCst) | 1 << new, SeqCst);
        remove_group(&s.table, &mut w, home, 1);
        insert_group(&s.table, &mut w, home, 1);
        flags.store(flags.load(SeqCst) & !(1 << o), SeqCst);
        quiesce(&s);
        remove_group(&s.table, &mut w, home, o);
        old[home as usize] = new;
    }
    s.stop.store(true, SeqCst);
    for r in readers {
        r.join().unwrap();
    }
    let n = s.lookups.load(SeqCst);
    assert_eq!(s.table.len(), (HOME * 3 * GROUP) as usize);
    assert!(n >= 100_000, "readers ran only {n} lookups");
    assert_eq!(s.torn.load(SeqCst), 0, "torn (fingerprint, index) pairs");
    assert_eq!(
        s.wrong.load(SeqCst),
        0,
        "present keys missed in {n} lookups"
    );
}
