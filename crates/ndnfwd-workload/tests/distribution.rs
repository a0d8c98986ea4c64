//! Name shapes against the papers: seed 000 Tables 3 and 5 for `so`, seed 001 §3.3.1 for `yuan`.

use std::collections::HashSet;

use ndn_packet::NameRef;
use ndnfwd_workload::{NameSource, NoMatch, Popularity, So, Yuan, NO_MATCH_MARK};

#[test]
fn so_means_match_the_paper() {
    for (seed, popularity) in [
        (1, Popularity::Uniform),
        (2, Popularity::Zipf),
        (3, Popularity::Uniform),
    ] {
        let so = So::new(100_000_000, seed, popularity).unwrap();
        let s = so.describe(100_000);
        assert_eq!((s.sampled, s.invalid), (100_000, 0));
        assert!((s.prefix_components - 4.26).abs() < 0.1, "{s:?}");
        assert!((s.interest_components - 6.66).abs() < 0.15, "{s:?}");
        assert!((s.prefix_component_len - 8.8).abs() < 0.3, "{s:?}");
        assert!((s.interest_component_len - 8.8).abs() < 0.3, "{s:?}");
    }
}

#[test]
fn so_component_counts_follow_table_5() {
    let so = So::new(1 << 30, 5, Popularity::Uniform).unwrap();
    let mut hist = [0u32; 16];
    let mut buf = Vec::new();
    let n = 100_000;
    for i in 0..n {
        so.prefix_into(i, &mut buf);
        hist[NameRef::new_checked(&buf).unwrap().len().min(15)] += 1;
    }
    let pct = |k: usize| f64::from(hist[k]) * 100.0 / n as f64;
    // Table 5 "FIB component distribution" row: 3: 28.5%, 4: 36.9%, 5: 19.1%, 6: 6.9%, 7: 3.3%,
    // 8+: 3.4%; cumulative 30.3% at 3, so 1.8% below 3.
    for (k, want) in [(3, 28.5), (4, 36.9), (5, 19.1), (6, 6.9), (7, 3.3)] {
        assert!((pct(k) - want).abs() < 0.6, "{k} components: {}%", pct(k));
    }
    let below3 = pct(1) + pct(2);
    let above7: f64 = (8..16).map(pct).sum();
    assert!((below3 - 1.8).abs() < 0.3, "{below3}");
    assert!((above7 - 3.4).abs() < 0.4, "{above7}");
    assert_eq!(hist[0] + hist[12..].iter().sum::<u32>(), 0);
}

#[test]
fn so_prefixes_are_practically_distinct() {
    let so = So::new(200_000, 9, Popularity::Uniform).unwrap();
    let mut seen = HashSet::new();
    let dups = (0..200_000).filter(|&i| !seen.insert(so.prefix(i))).count();
    assert!(dups < 10, "{dups} repeated prefixes");
}

#[test]
fn no_match_names_share_no_first_component_with_so() {
    let so = So::new(50_000, 4, Popularity::Uniform).unwrap();
    let firsts: HashSet<Vec<u8>> = (0..50_000)
        .map(|i| so.prefix(i).as_ref().get(0).unwrap().value().to_vec())
        .collect();
    assert!(firsts.iter().all(|c| !c.contains(&NO_MATCH_MARK)));
    let g = NoMatch::new(4);
    let mut buf = Vec::new();
    for i in 0..50_000 {
        g.name_into(i, &mut buf);
        let first = NameRef::new_checked(&buf)
            .unwrap()
            .get(0)
            .unwrap()
            .value()
            .to_vec();
        assert!(!firsts.contains(&first));
    }
}

fn check_yuan(k: u8) {
    let y = Yuan::new(k, 3000, 17).unwrap();
    let mut buf = Vec::new();
    for j in 0..3000 {
        y.name_into(j, &mut buf);
        let name = NameRef::new_checked(&buf).unwrap();
        assert_eq!(name.len(), usize::from(k));
        for c in name.components() {
            assert!((6..=10).contains(&c.value().len()));
            assert!(c.value().iter().all(u8::is_ascii_alphanumeric));
        }
    }
}

#[test]
fn yuan_names_have_k_components_of_6_to_10_characters() {
    check_yuan(7);
    check_yuan(15);
}

#[test]
fn yuan_lookups_are_a_shuffle_of_the_phase_two_names() {
    for (k, n) in [(7u8, 3000u64), (15, 4003), (7, 5)] {
        let y = Yuan::new(k, n, 23).unwrap();
        let two = y.phase_two_count();
        let mut hit = vec![false; two as usize];
        for i in 0..two {
            let j = y.lookup_index(i);
            assert!(!hit[j as usize], "phase-two name {j} looked up twice");
            hit[j as usize] = true;
            assert_eq!(y.interest(i), y.prefix(j));
            assert_eq!(
                y.lookup_index(i + two),
                j,
                "lookups repeat with period n/log k"
            );
        }
        assert!(hit.iter().all(|&h| h));
        if two > 100 {
            let in_place = (0..two).filter(|&i| y.lookup_index(i) == i).count();
            assert!(in_place < 10, "{in_place} lookups in insertion order");
        }
    }
}
