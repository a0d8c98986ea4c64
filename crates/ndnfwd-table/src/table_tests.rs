use super::*;

/// Hash landing in home bucket `home` with high half `hi`.
fn h(home: u64, hi: u32) -> u64 {
    ((hi as u64) << 32) | home
}

fn small(home: usize, pool: usize) -> (BucketTable, TableWriter) {
    let t = BucketTable::try_with_buckets(home, pool).unwrap();
    let w = t.take_writer().unwrap();
    (t, w)
}

#[test]
fn insert_lookup_remove() {
    let (t, mut w) = small(16, 4);
    assert!(t.is_empty());
    for i in 0..40u32 {
        t.insert(&mut w, h(i as u64 % 16, i * 7919), i).unwrap();
    }
    assert_eq!(t.len(), 40);
    for i in 0..40u32 {
        assert_eq!(t.lookup(h(i as u64 % 16, i * 7919), |x| x == i), Some(i));
    }
    assert_eq!(
        t.lookup(h(3, 12345), |_| true),
        None,
        "fingerprint not present"
    );
    assert!(t.remove(&mut w, h(5, 5 * 7919), 5));
    assert!(!t.remove(&mut w, h(5, 5 * 7919), 5), "already removed");
    assert_eq!(t.lookup(h(5, 5 * 7919), |_| true), None);
    assert_eq!(t.len(), 39);
}

#[test]
fn eq_is_called_only_for_fingerprint_matches_and_decides() {
    let (t, mut w) = small(1, 0);
    t.insert(&mut w, h(0, 100), 1).unwrap();
    t.insert(&mut w, h(0, 200), 2).unwrap();
    t.insert(&mut w, h(0, 201), 3).unwrap(); // fingerprint(201) == fingerprint(200): bit 0 forced
    t.insert(&mut w, h(0, 200), 4).unwrap(); // same fingerprint, another index
    let mut seen = vec![];
    let r = t.lookup(h(0, 200), |i| {
        seen.push(i);
        i == 4
    });
    assert_eq!(r, Some(4));
    assert_eq!(
        seen,
        vec![2, 3, 4],
        "only the three fingerprint matches, in slot order"
    );
    let mut c = vec![];
    t.candidates(h(0, 200), |i| c.push(i));
    assert_eq!(c, vec![2, 3, 4]);
    seen.clear();
    let r = t.lookup(h(0, 200), |i| {
        seen.push(i);
        i == 3
    });
    assert_eq!(
        (r, seen),
        (Some(3), vec![2, 3]),
        "stops at the first confirmed"
    );
    assert_eq!(t.lookup(h(0, 200), |_| false), None);
    // Removing is exact on (fingerprint, index).
    assert!(!t.remove(&mut w, h(0, 200), 1));
    assert!(t.remove(&mut w, h(0, 200), 3));
    assert_eq!(t.lookup(h(0, 100), |i| i == 1), Some(1));
}

#[test]
fn same_fingerprint_in_other_bucket_is_invisible() {
    let (t, mut w) = small(2, 0);
    t.insert(&mut w, h(0, 42), 7).unwrap();
    assert_eq!(t.lookup(h(1, 42), |_| true), None);
    assert_eq!(
        t.lookup(h(2, 42), |_| true),
        Some(7),
        "home = low bits & mask"
    );
}

#[test]
fn overflow_chains_and_reuses_buckets() {
    let (t, mut w) = small(1, 2);
    for i in 0..7 {
        t.insert(&mut w, h(0, i), i).unwrap();
    }
    assert_eq!(t.overflow_in_use(), 0);
    assert_eq!(t.lookup_probes(h(0, 6), |i| i == 6), (Some(6), 1));
    t.insert(&mut w, h(0, 7), 7).unwrap();
    assert_eq!(t.overflow_in_use(), 1);
    assert_eq!(t.lookup_probes(h(0, 7), |i| i == 7), (Some(7), 2));
    assert_eq!(
        t.lookup_probes(h(0, 99), |_| true),
        (None, 2),
        "a miss walks the chain"
    );

    // A hole in the home bucket is filled before the chain grows.
    assert!(t.remove(&mut w, h(0, 3), 3));
    t.insert(&mut w, h(0, 30), 30).unwrap();
    assert_eq!(t.lookup_probes(h(0, 30), |i| i == 30), (Some(30), 1));
    assert_eq!(t.overflow_in_use(), 1);

    // Emptying the overflow bucket returns it to the pool and shortens the chain.
    let v0 = t.buckets[0].meta.load(Ordering::Relaxed) & !OCC_MASK;
    assert!(t.remove(&mut w, h(0, 7), 7));
    assert_eq!(t.overflow_in_use(), 0);
    assert_ne!(
        t.buckets[0].meta.load(Ordering::Relaxed) & !OCC_MASK,
        v0,
        "chain version bumped"
    );
    assert_eq!(t.lookup_probes(h(0, 99), |_| true), (None, 1));

    // Churn through the overflow a long time with a pool of 2: it never runs out.
    for round in 0..1000u32 {
        for k in 0..10 {
            t.insert(&mut w, h(0, 1000 + k), 1000 + k).unwrap();
        }
        assert_eq!(t.overflow_in_use(), 2, "round {round}");
        for k in 0..10 {
            assert!(t.remove(&mut w, h(0, 1000 + k), 1000 + k));
        }
        assert_eq!(t.overflow_in_use(), 0);
    }
    assert_eq!(t.len(), 7);
    for i in [0, 1, 2, 4, 5, 6, 30] {
        assert_eq!(t.lookup(h(0, i), |x| x == i), Some(i));
    }
}

#[test]
fn middle_overflow_bucket_unlinks_and_keeps_tail_reachable() {
    let (t, mut w) = small(1, 3);
    for i in 0..21 {
        t.insert(&mut w, h(0, i), i).unwrap();
    }
    assert_eq!(t.overflow_in_use(), 2);
    for i in 7..14 {
        assert!(t.remove(&mut w, h(0, i), i));
    }
    assert_eq!(t.overflow_in_use(), 1);
    for i in (0..7).chain(14..21) {
        assert_eq!(t.lookup(h(0, i), |x| x == i), Some(i));
    }
    assert_eq!(t.lookup_probes(h(0, 20), |x| x == 20).1, 2);
}

/// A place taken before the chain changed (filled into an overflow bucket, then emptied and
/// recycled) still inserts where `insert` would: the index is found, with its fingerprint.
#[test]
fn place_survives_chain_changes() {
    let (t, mut w) = small(2, 2);
    let hash = h(1, 0xABC);
    let place = t.place(hash);
    assert_eq!(place, t.place(h(1, 0xABC)));
    assert_ne!(place, t.place(h(0, 0xABC)), "other home bucket");
    for i in 0..8 {
        t.insert(&mut w, h(1, i), i).unwrap();
    }
    assert_eq!(t.overflow_in_use(), 1);
    assert!(t.remove(&mut w, h(1, 7), 7));
    assert_eq!(
        t.overflow_in_use(),
        0,
        "the emptied overflow bucket went back"
    );
    assert!(t.remove(&mut w, h(1, 3), 3));
    t.insert_at(&mut w, place, 99).unwrap();
    assert_eq!(t.lookup(hash, |x| x == 99), Some(99));
    assert_eq!(
        t.lookup(h(1, 0xAB0), |x| x == 99),
        None,
        "stored with its fingerprint"
    );
    assert_eq!(
        t.lookup_probes(hash, |x| x == 99).1,
        1,
        "in slot 3 of the home bucket"
    );
}

#[test]
fn full_pool_reports_table_full() {
    let (t, mut w) = small(1, 1);
    for i in 0..14 {
        t.insert(&mut w, h(0, i), i).unwrap();
    }
    assert_eq!(t.insert(&mut w, h(0, 14), 14), Err(TableFull));
    assert_eq!(t.len(), 14);
    // Other home buckets would still have room; here there is one. Free one slot and retry.
    assert!(t.remove(&mut w, h(0, 0), 0));
    assert_eq!(t.insert(&mut w, h(0, 14), 14), Ok(()));
    assert_eq!(t.lookup(h(0, 14), |x| x == 14), Some(14));
    assert_eq!(
        TableFull.to_string(),
        "bucket table full: overflow pool exhausted"
    );
}

#[test]
fn writer_is_unique() {
    let t = BucketTable::with_capacity(100, 4);
    let w = t.take_writer();
    assert!(w.is_some());
    assert!(t.take_writer().is_none());
}

#[test]
#[should_panic(expected = "another BucketTable")]
fn foreign_writer_is_rejected() {
    let a = BucketTable::with_capacity(100, 4);
    let b = BucketTable::with_capacity(100, 4);
    let _wa = a.take_writer().unwrap();
    let mut wb = b.take_writer().unwrap();
    let _ = a.insert(&mut wb, 1, 1);
}

#[test]
fn sizing() {
    let t = BucketTable::with_capacity(1 << 20, 4);
    assert_eq!(t.bucket_count(), 1 << 18);
    let pool = t.overflow_capacity();
    // ~5.1% of buckets overflow at load 4; the pool covers twice that plus home/16.
    assert!(pool > (1 << 18) / 10 && pool < (1 << 18) / 5, "pool {pool}");
    assert_eq!(t.memory_bytes(), ((1 << 18) + pool) * 64);
    assert_eq!(
        BucketTable::with_capacity(1000, 0).bucket_count(),
        256,
        "0 = default load 4"
    );
    assert_eq!(BucketTable::with_capacity(1000, 3).bucket_count(), 512);
    assert_eq!(BucketTable::with_capacity(0, 4).bucket_count(), 1);
    let lf8 = default_overflow_buckets(8 << 20, 1 << 20);
    assert!(
        lf8 > 1 << 20,
        "load 8 needs about one overflow bucket per home bucket: {lf8}"
    );
    assert_eq!(default_overflow_buckets(0, 1024), 64 + 64);
    assert!(
        BucketTable::try_with_buckets(1 << 31, 1 << 31).is_err(),
        "u32 bucket numbers"
    );
}

#[test]
fn fills_to_capacity_with_default_pool() {
    // Pseudo-random hashes (SplitMix64), the way a keyed hash spreads names.
    for lf in [1, 4, 8, 16] {
        let n = 50_000;
        let t = BucketTable::with_capacity(n, lf);
        let mut w = t.take_writer().unwrap();
        let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ lf as u64;
        let mut hashes = Vec::with_capacity(n);
        for i in 0..n as u32 {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            t.insert(&mut w, z, i)
                .unwrap_or_else(|_| panic!("lf {lf}: full at {i}"));
            hashes.push(z);
        }
        for (i, &z) in hashes.iter().enumerate() {
            assert_eq!(t.lookup(z, |x| x == i as u32), Some(i as u32));
        }
        assert!(t.overflow_in_use() <= t.overflow_capacity());
    }
}

#[test]
fn home_candidates_scan_the_home_bucket_and_say_whether_the_chain_goes_on() {
    let (t, mut w) = small(2, 2);
    let home = |hash| {
        let mut c = vec![];
        let more = t.home_candidates(hash, |i| c.push(i));
        (c, more)
    };
    assert_eq!(home(h(0, 5)), (vec![], false), "the empty chain");
    t.insert(&mut w, h(0, 5), 50).unwrap();
    assert_eq!(home(h(0, 5)), (vec![50], false));
    // Fill the home bucket with other fingerprints: the eighth key goes to an overflow bucket.
    for i in 0..6 {
        t.insert(&mut w, h(0, 100 + 2 * i), i).unwrap();
    }
    t.insert(&mut w, h(0, 7), 70).unwrap();
    assert_eq!(t.overflow_in_use(), 1);
    assert_eq!(home(h(0, 5)), (vec![50], true), "home match, chain goes on");
    // The only match is in the overflow bucket: the home scan offers none and says more
    // follows; the full scan finds it.
    assert_eq!(home(h(0, 7)), (vec![], true));
    let mut c = vec![];
    t.candidates(h(0, 7), |i| c.push(i));
    assert_eq!(c, vec![70]);
    // Another home bucket is unaffected.
    assert_eq!(home(h(1, 7)), (vec![], false));
    assert!(t.remove(&mut w, h(0, 7), 70));
    assert_eq!(home(h(0, 7)), (vec![], false), "overflow bucket returned");
}

#[test]
fn prefetch_any_hash_is_harmless() {
    let t = BucketTable::with_capacity(10, 4);
    for hash in [0, 1, u64::MAX, 0xDEAD_BEEF] {
        t.prefetch(hash);
    }
    crate::prefetch_read(core::ptr::null::<u8>());
}

proptest::proptest! {
    /// `candidates` (SIMD filter without the re-check) offers exactly the indices, in the same
    /// order, that a lookup's `eq` is offered when it confirms none, over chains with overflow
    /// buckets and removals.
    #[test]
    fn candidates_are_the_lookups_fingerprint_matches(
        keys in proptest::collection::vec((0u64..4, 0u32..6, proptest::bool::ANY), 0..60),
        probe_hi in 0u32..6,
    ) {
        let (t, mut w) = small(4, 16);
        for (i, &(home, hi, _)) in keys.iter().enumerate() {
            t.insert(&mut w, h(home, hi), i as u32).unwrap();
        }
        for (i, &(home, hi, gone)) in keys.iter().enumerate() {
            if gone {
                assert!(t.remove(&mut w, h(home, hi), i as u32));
            }
        }
        for home in 0..4 {
            let key = h(home, probe_hi);
            let mut seen = vec![];
            proptest::prop_assert_eq!(t.lookup(key, |i| { seen.push(i); false }), None);
            let mut c = vec![];
            t.candidates(key, |i| c.push(i));
            proptest::prop_assert_eq!(&c, &seen);
            let mut home_c = vec![];
            let more = t.home_candidates(key, |i| home_c.push(i));
            proptest::prop_assert!(seen.starts_with(&home_c));
            if !more {
                proptest::prop_assert_eq!(&home_c, &seen);
            }
        }
    }
}

/// `insert_at_clearing` asks for the retired slots only when the home bucket is full, then
/// empties just those (occupied) slots and takes the first; an overflow pair's `SlotRef` has no
/// home slot, and `remove_at` still removes it.
#[test]
fn insert_at_clearing_empties_retired_slots_of_a_full_home() {
    let (t, mut w) = small(2, 2);
    let mut at = vec![];
    for i in 0..7 {
        at.push(t.insert_at(&mut w, t.place(h(1, i)), i).unwrap());
    }
    assert!(at.iter().all(|a| a.home_slot().is_some()));
    // Room in another home bucket: the closure is not called.
    t.insert_at_clearing(&mut w, t.place(h(0, 50)), 50, || unreachable!())
        .unwrap();
    // Slots 2 and 5 retired (their pairs left in place by the caller), then a full-home insert.
    let mask = 1 << at[2].home_slot().unwrap() | 1 << at[5].home_slot().unwrap();
    let got = t
        .insert_at_clearing(&mut w, t.place(h(1, 70)), 70, || mask)
        .unwrap();
    assert_eq!(got.home_slot(), at[2].home_slot(), "the first emptied slot");
    assert_eq!(t.len(), 7 + 1 + 1 - 2);
    assert_eq!(t.overflow_in_use(), 0);
    for i in [2, 5] {
        assert_eq!(t.lookup(h(1, i), |x| x == i), None, "retired {i} cleared");
    }
    for i in [0, 1, 3, 4, 6, 70] {
        assert_eq!(t.lookup(h(1, i), |x| x == i), Some(i), "{i} kept");
    }
    // Slot 5 is free now: the next insert takes it; the one after goes to an overflow bucket.
    t.insert_at_clearing(&mut w, t.place(h(1, 80)), 80, || 0)
        .unwrap();
    let ov = t
        .insert_at_clearing(&mut w, t.place(h(1, 90)), 90, || 0)
        .unwrap();
    assert_eq!(ov.home_slot(), None);
    assert_eq!(t.overflow_in_use(), 1);
    assert!(t.remove_at(&mut w, h(1, 90), ov, 90));
    assert_eq!(t.overflow_in_use(), 0);
}
