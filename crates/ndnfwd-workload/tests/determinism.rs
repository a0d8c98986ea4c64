//! Names are pure functions of (seed, index): equal seeds agree, different seeds differ, and
//! random access agrees with a sequential pass through a reused buffer.

use ndn_packet::NameRef;
use ndnfwd_workload::{
    NameSource, NoMatch, Params, Permutation, Popularity, Real, So, Workload, WorkloadSpec, Yuan,
};
use proptest::prelude::*;

fn fixture() -> Real {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/names-sample.ndn"
    );
    Real::load(path.as_ref(), None, 11, Popularity::Uniform).unwrap()
}

fn all(seed: u64) -> Vec<Workload> {
    let params = Params {
        prefixes: Some(5000),
        seed,
        popularity: Popularity::Zipf,
    };
    let mut v: Vec<Workload> = ["so", "yuan7", "yuan15"]
        .iter()
        .map(|s| s.parse::<WorkloadSpec>().unwrap().build(&params).unwrap())
        .collect();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/names-sample.ndn"
    );
    v.push(
        Real::load(path.as_ref(), None, seed, Popularity::Zipf)
            .map(Workload::Real)
            .unwrap(),
    );
    v
}

#[test]
fn same_seed_same_names_different_seed_different_names() {
    for ((a, b), c) in all(7).iter().zip(all(7)).zip(all(8)) {
        let mut same_prefixes = 0;
        let mut same_interests = 0;
        for i in 0..500 {
            assert_eq!(a.prefix(i), b.prefix(i));
            assert_eq!(a.interest(i), b.interest(i));
            same_prefixes += u32::from(a.prefix(i) == c.prefix(i));
            same_interests += u32::from(a.interest(i) == c.interest(i));
        }
        if let Workload::Real(_) = a {
            // The file fixes the prefixes; the seed only drives Interests.
            assert_eq!(same_prefixes, 500);
        } else {
            assert_eq!(same_prefixes, 0);
        }
        assert!(
            same_interests < 10,
            "{same_interests} equal Interests across seeds"
        );
    }
    let (x, y, z) = (NoMatch::new(1), NoMatch::new(1), NoMatch::new(2));
    let (mut bx, mut by, mut bz) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..100 {
        x.name_into(i, &mut bx);
        y.name_into(i, &mut by);
        z.name_into(i, &mut bz);
        assert_eq!(bx, by);
        assert_ne!(bx, bz);
    }
}

#[test]
fn random_access_matches_a_sequential_pass() {
    for (w, fresh) in all(3).iter().zip(all(3)) {
        let n = 2000u64;
        let mut buf = Vec::new();
        let mut prefixes = Vec::new();
        let mut interests = Vec::new();
        for i in 0..n {
            w.prefix_into(i, &mut buf);
            prefixes.push(buf.clone());
            w.interest_into(i, &mut buf);
            interests.push(buf.clone());
        }
        // A fresh generator, visited in a shuffled order with fresh buffers.
        let order = Permutation::new(n, 99);
        for k in 0..n {
            let i = order.apply(k);
            let mut p = Vec::new();
            fresh.prefix_into(i, &mut p);
            assert_eq!(p, prefixes[i as usize], "prefix {i}");
            let mut q = vec![0xAA; 3]; // stale content must be cleared
            fresh.interest_into(i, &mut q);
            assert_eq!(q, interests[i as usize], "interest {i}");
            assert!(NameRef::new_checked(&q).is_ok());
        }
    }
}

#[test]
fn fixture_interests_do_not_depend_on_load_order_of_calls() {
    let (a, b) = (fixture(), fixture());
    let forward: Vec<_> = (0..300).map(|i| a.interest(i)).collect();
    let backward: Vec<_> = (0..300).rev().map(|i| b.interest(i)).collect();
    assert!(forward.iter().eq(backward.iter().rev()));
}

proptest! {
    #[test]
    fn any_index_of_any_seed_is_reproducible_and_valid(seed: u64, i: u64) {
        let so = So::new(1 << 40, seed, Popularity::Zipf).unwrap();
        let again = So::new(1 << 40, seed, Popularity::Zipf).unwrap();
        let yuan = Yuan::new(15, u64::MAX, seed).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        so.prefix_into(i, &mut a);
        again.prefix_into(i, &mut b);
        prop_assert_eq!(&a, &b);
        prop_assert!(NameRef::new_checked(&a).is_ok());
        so.interest_into(i, &mut a);
        again.interest_into(i, &mut b);
        prop_assert_eq!(&a, &b);
        let prefix = so.prefix(so.interest_prefix(i));
        prop_assert!(prefix.as_ref().is_prefix_of(NameRef::new_checked(&a).unwrap()));
        yuan.lookup_into(i, &mut a);
        prop_assert_eq!(NameRef::new_checked(&a).unwrap().len(), 15);
        prop_assert!(yuan.lookup_index(i) < yuan.phase_two_count());
    }
}
