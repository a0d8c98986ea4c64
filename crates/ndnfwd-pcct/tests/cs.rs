//! CS behaviour: PIT entry becomes CS entry, freshness, prefix and digest match, forwarding
//! hints, unsolicited policies, replacement policies, byte limit, erase.

mod common;

use common::*;
use ndnfwd_pcct::*;

fn token(o: &InterestOutcome) -> Vec<u8> {
    match o {
        InterestOutcome::NewPit { pit } => pit.token.to_bytes().to_vec(),
        other => panic!("expected NewPit, got {other:?}"),
    }
}

fn is_hit(o: &InterestOutcome) -> bool {
    matches!(o, InterestOutcome::CsHit { .. })
}

#[test]
fn pit_entry_becomes_cs_entry_in_place() {
    let mut p = pcct(PcctConfig::default());
    let n = name("/v/1");
    let h = hashes(&n);
    let t = token(&p.on_interest(0, &interest(&n, &h, 1), 1));
    assert_eq!(p.len_keys(), 1);
    let wire = data_wire(&n, b"payload");
    let mut out = vec![];
    let o = p.on_data(1, &data(&n, &h, &wire, 0), 2, Some(&t), false, &mut out);
    assert!(o.cached && o.via_token && !o.unsolicited);
    assert_eq!(o.matched, 1);
    assert_eq!((p.len_pit(), p.len_cs(), p.len_keys()), (0, 1, 1));
    assert_eq!(p.cs_bytes(), wire.len() as u64);
    let InterestOutcome::CsHit { data: got } = p.on_interest(2, &interest(&n, &h, 2), 3) else {
        panic!()
    };
    assert_eq!(got, wire);
    assert_eq!(
        got.as_ptr(),
        wire.as_ptr(),
        "the cached buffer is the received one"
    );
    let c = p.counters();
    assert_eq!((c.hits, c.misses, c.satisfied, c.cs_inserts), (1, 1, 1, 1));
}

#[test]
fn must_be_fresh_against_freshness_period() {
    let mut p = pcct(PcctConfig::default());
    let (stale, fresh) = (name("/stale"), name("/fresh"));
    let (hs, hf) = (hashes(&stale), hashes(&fresh));
    let mut out = vec![];
    for (n, h, f) in [(&stale, &hs, 0), (&fresh, &hf, 100 * MS)] {
        token(&p.on_interest(0, &interest(n, h, 1), 1));
        let o = p.on_data(
            0,
            &data(n, h, &data_wire(n, b""), f),
            2,
            None,
            false,
            &mut out,
        );
        assert!(o.cached);
    }
    let mbf = |n, h, nonce| InterestInfo {
        must_be_fresh: true,
        ..interest(n, h, nonce)
    };
    // FreshnessPeriod 0: never fresh. A MustBeFresh PIT entry coexists with the CS entry.
    let t1 = token(&p.on_interest(1, &mbf(&stale, &hs, 5), 1));
    assert!(is_hit(&p.on_interest(1, &interest(&stale, &hs, 6), 1)));
    assert!(is_hit(&p.on_interest(99 * MS, &mbf(&fresh, &hf, 7), 1)));
    assert!(!is_hit(&p.on_interest(100 * MS, &mbf(&fresh, &hf, 8), 1)));
    assert_eq!(p.len_pit(), 2);
    // New Data satisfies the MustBeFresh entry and refreshes the cached copy.
    let o = p.on_data(
        2,
        &data(&stale, &hs, &data_wire(&stale, b"2"), 50 * MS),
        2,
        Some(&t1),
        false,
        &mut out,
    );
    assert!(o.cached && o.via_token);
    assert_eq!(p.len_cs(), 2);
    assert!(is_hit(&p.on_interest(3, &mbf(&stale, &hs, 9), 1)));
}

#[test]
fn can_be_prefix_through_indirect_entries() {
    let mut p = pcct(PcctConfig::default());
    let (a, abc, ab) = (name("/a"), name("/a/b/c"), name("/a/b"));
    let (ha, habc, hab) = (hashes(&a), hashes(&abc), hashes(&ab));
    let cbp = |n, h, nonce| InterestInfo {
        can_be_prefix: true,
        ..interest(n, h, nonce)
    };
    let t = token(&p.on_interest(0, &cbp(&a, &ha, 1), 1));
    // A non-CanBePrefix Interest for /a from face 2 shares the PIT entry.
    assert!(matches!(
        p.on_interest(0, &interest(&a, &ha, 2), 2),
        InterestOutcome::Aggregated { .. }
    ));
    let wire = data_wire(&abc, b"c");
    let mut out = vec![];
    let o = p.on_data(
        1,
        &data(&abc, &habc, &wire, 0),
        9,
        Some(&t),
        false,
        &mut out,
    );
    assert!(o.via_token && o.cached);
    assert_eq!(
        out[o.downstreams]
            .iter()
            .map(|d| d.face)
            .collect::<Vec<_>>(),
        vec![1]
    );
    assert_eq!(
        p.len_pit(),
        1,
        "face 2 wanted exactly /a and is still pending"
    );
    // One lookup of /a finds /a/b/c through the indirect entry, for CanBePrefix only.
    let InterestOutcome::CsHit { data: got } = p.on_interest(2, &cbp(&a, &ha, 3), 3) else {
        panic!()
    };
    assert_eq!(got, wire);
    assert!(!is_hit(&p.on_interest(2, &interest(&a, &ha, 4), 4)));
    assert!(
        !is_hit(&p.on_interest(2, &cbp(&ab, &hab, 5), 5)),
        "only names that fetched it"
    );
    assert!(
        is_hit(&p.on_interest(2, &cbp(&abc, &habc, 6), 6)),
        "exact name, CanBePrefix"
    );
    // Without a token, prefix entries are found by walking the Data name's prefixes.
    let (x, xy) = (name("/x"), name("/x/y"));
    let (hx, hxy) = (hashes(&x), hashes(&xy));
    token(&p.on_interest(3, &cbp(&x, &hx, 1), 1));
    let o = p.on_data(
        4,
        &data(&xy, &hxy, &data_wire(&xy, b""), 0),
        9,
        None,
        false,
        &mut out,
    );
    assert!(!o.unsolicited && !o.via_token && o.cached);
    assert!(is_hit(&p.on_interest(5, &cbp(&x, &hx, 2), 2)));
    // Evicting the Data removes its indirect entries.
    assert_eq!(p.cs_erase(xy.as_ref(), 10), 1);
    assert!(!is_hit(&p.on_interest(6, &cbp(&x, &hx, 3), 3)));
}

#[test]
fn indirect_entries_are_bounded_per_data() {
    let mut p = pcct(PcctConfig::default());
    let long = name("/p/q/r/s/t/u/v");
    let hl = hashes(&long);
    let prefixes: Vec<_> = (0..7).map(|i| long.as_ref().prefix(i).to_name()).collect();
    let hp: Vec<_> = prefixes.iter().map(hashes).collect();
    for (n, h) in prefixes.iter().zip(&hp) {
        let i = InterestInfo {
            can_be_prefix: true,
            ..interest(n, h, 1)
        };
        token(&p.on_interest(0, &i, 1));
    }
    let mut out = vec![];
    let o = p.on_data(
        1,
        &data(&long, &hl, &data_wire(&long, b""), 0),
        9,
        None,
        false,
        &mut out,
    );
    assert_eq!(o.matched, 7);
    assert_eq!(p.len_pit(), 0);
    assert_eq!(
        p.len_keys(),
        1 + MAX_INDIRECT,
        "direct + bounded indirect entries"
    );
    let hits = prefixes
        .iter()
        .zip(&hp)
        .filter(|(n, h)| {
            let i = InterestInfo {
                can_be_prefix: true,
                ..interest(n, h, 2)
            };
            is_hit(&p.on_interest(2, &i, 2))
        })
        .count();
    assert_eq!(hits, MAX_INDIRECT);
}

#[test]
fn implicit_digest_match() {
    let mut p = pcct(PcctConfig::default());
    let n = name("/d/e");
    let h = hashes(&n);
    let wire = data_wire(&n, b"digest me");
    let full = full_name(&n, &wire);
    let hf = hashes(&full);
    let other = full_name(&n, b"something else");
    let ho = hashes(&other);
    let t = token(&p.on_interest(0, &interest(&full, &hf, 1), 1));
    token(&p.on_interest(0, &interest(&other, &ho, 1), 1));
    let mut out = vec![];
    // With our token: the digest is checked against the entry's name.
    let o = p.on_data(1, &data(&n, &h, &wire, 0), 9, Some(&t), false, &mut out);
    assert!(o.via_token && o.cached && o.matched == 1);
    assert_eq!(p.len_pit(), 1, "the other digest is still pending");
    // CS: the full name finds the Data under its parent name; a wrong digest does not.
    assert!(is_hit(&p.on_interest(2, &interest(&full, &hf, 2), 2)));
    assert!(!is_hit(&p.on_interest(2, &interest(&other, &ho, 3), 3)));
    // Without a token: the full-name entry is found by hashing name + digest.
    let (m, hm) = (name("/d/f"), hashes(&name("/d/f")));
    let wm = data_wire(&m, b"f");
    let fm = full_name(&m, &wm);
    let hfm = hashes(&fm);
    token(&p.on_interest(3, &interest(&fm, &hfm, 1), 4));
    let mut d = data(&m, &hm, &wm, 0);
    d.digest = Some(digest(&wm));
    let o = p.on_data(4, &d, 9, None, false, &mut out);
    assert!(!o.unsolicited && o.matched == 1);
    assert_eq!(out[o.downstreams][0].face, 4);
}

#[test]
fn forwarding_hint_is_part_of_the_key() {
    let mut p = pcct(PcctConfig::default());
    let n = name("/fh");
    let h = hashes(&n);
    let hint = hasher().hash_name(name("/isp").as_ref());
    let with = InterestInfo {
        forwarding_hint_hash: Some(hint),
        ..interest(&n, &h, 1)
    };
    let t = token(&p.on_interest(0, &with, 1));
    let t0 = token(&p.on_interest(0, &interest(&n, &h, 2), 2));
    assert_ne!(t, t0);
    assert_eq!(p.len_keys(), 2);
    let mut out = vec![];
    let o = p.on_data(
        1,
        &data(&n, &h, &data_wire(&n, b""), 0),
        9,
        Some(&t),
        false,
        &mut out,
    );
    assert_eq!(o.matched, 1, "the token leads to the hinted entry only");
    assert_eq!(
        out[o.downstreams]
            .iter()
            .map(|d| d.face)
            .collect::<Vec<_>>(),
        vec![1]
    );
    assert!(is_hit(&p.on_interest(
        2,
        &InterestInfo { nonce: 3, ..with },
        3
    )));
    assert_eq!(p.len_pit(), 1);
    let o = p.on_data(
        3,
        &data(&n, &h, &data_wire(&n, b""), 0),
        9,
        None,
        false,
        &mut out,
    );
    assert_eq!(o.matched, 1);
    assert_eq!(p.len_cs(), 2, "one copy per delegation");
}

#[test]
fn unsolicited_policies_and_no_cache() {
    let n = name("/u");
    let h = hashes(&n);
    for (policy, local, cached) in [
        (UnsolicitedPolicy::DropAll, true, false),
        (UnsolicitedPolicy::AdmitLocal, true, true),
        (UnsolicitedPolicy::AdmitLocal, false, false),
        (UnsolicitedPolicy::AdmitNetwork, false, true),
        (UnsolicitedPolicy::AdmitNetwork, true, false),
        (UnsolicitedPolicy::AdmitAll, false, true),
    ] {
        let mut p = pcct(PcctConfig {
            unsolicited: policy,
            ..PcctConfig::default()
        });
        let mut out = vec![];
        let o = p.on_data(
            0,
            &data(&n, &h, &data_wire(&n, b""), 0),
            1,
            None,
            local,
            &mut out,
        );
        assert!(o.unsolicited);
        assert_eq!(o.cached, cached, "{policy:?} local={local}");
        assert_eq!(p.len_cs(), usize::from(cached));
        assert_eq!(p.len_keys(), usize::from(cached));
        assert_eq!(p.counters().unsolicited, 1);
        assert_eq!(p.counters().unsolicited_cached, u64::from(cached));
    }
    let mut p = pcct(PcctConfig::default());
    token(&p.on_interest(0, &interest(&n, &h, 1), 1));
    let wire = data_wire(&n, b"");
    let mut d = data(&n, &h, &wire, 0);
    d.no_cache = true;
    let mut out = vec![];
    let o = p.on_data(1, &d, 2, None, false, &mut out);
    assert!(!o.cached && !o.unsolicited);
    assert_eq!((p.len_cs(), p.len_keys()), (0, 0));
    assert_eq!("admit-local".parse(), Ok(UnsolicitedPolicy::AdmitLocal));
    assert_eq!("fifo".parse(), Ok(CsPolicy::Fifo));
}

fn fill(p: &mut Pcct, names: &[ndn_packet::Name], t: u64) {
    let mut out = vec![];
    for n in names {
        let h = hashes(n);
        p.on_data(
            t,
            &data(n, &h, &data_wire(n, b"0123456789"), 0),
            1,
            None,
            true,
            &mut out,
        );
    }
}

fn cached(p: &mut Pcct, names: &[ndn_packet::Name], t: u64) -> Vec<bool> {
    // Probe with CanBePrefix=false MustBeFresh=false; a probe is a hit and touches the entry,
    // so probe copies of the table.
    names
        .iter()
        .map(|n| {
            let h = hashes(n);
            let mut i = interest(n, &h, 1);
            i.lifetime_ns = Some(0);
            let hit = is_hit(&p.on_interest(t, &i, 1));
            let mut e = vec![];
            p.expire(t, &mut e);
            hit
        })
        .collect()
}

#[test]
fn lru_and_fifo_orders() {
    let names: Vec<_> = (0..5).map(|i| name(&format!("/cs/{i}"))).collect();
    for policy in [CsPolicy::Lru, CsPolicy::Fifo] {
        let cfg = PcctConfig {
            cs_capacity_packets: 3,
            cs_policy: policy,
            unsolicited: UnsolicitedPolicy::AdmitAll,
            ..PcctConfig::default()
        };
        let mut p = pcct(cfg);
        fill(&mut p, &names[..3], 0);
        // Touch /cs/0, then insert /cs/3: LRU evicts /cs/1, FIFO evicts /cs/0.
        assert_eq!(cached(&mut p, &names[..1], 1), vec![true]);
        fill(&mut p, &names[3..4], 2);
        let want = match policy {
            CsPolicy::Lru => vec![true, false, true, true],
            _ => vec![false, true, true, true],
        };
        let mut q = pcct(cfg);
        fill(&mut q, &names[..3], 0);
        let _ = cached(&mut q, &names[..1], 1);
        fill(&mut q, &names[3..4], 2);
        assert_eq!(cached(&mut q, &names[..4], 3), want, "{policy:?}");
        assert_eq!(p.len_cs(), 3);
        assert_eq!(p.counters().evictions, 1);
        // A refresh re-queues in both policies.
        fill(&mut p, &names[2..3], 4);
        fill(&mut p, &names[4..5], 5);
        assert_eq!(p.len_cs(), 3);
        assert!(
            cached(&mut p, &names[2..3], 6)[0],
            "{policy:?}: refreshed entry survives"
        );
    }
}

#[test]
fn byte_limit_evicts() {
    let names: Vec<_> = (0..4).map(|i| name(&format!("/b/{i}"))).collect();
    let one = data_wire(&names[0], b"0123456789").len() as u64;
    for policy in [CsPolicy::Lru, CsPolicy::Arc, CsPolicy::Fifo] {
        let mut p = pcct(PcctConfig {
            cs_capacity_bytes: 2 * one + 1,
            cs_policy: policy,
            unsolicited: UnsolicitedPolicy::AdmitAll,
            ..PcctConfig::default()
        });
        fill(&mut p, &names, 0);
        assert_eq!(p.len_cs(), 2, "{policy:?}");
        assert!(p.cs_bytes() <= 2 * one + 1);
        assert_eq!(p.counters().evictions, 2);
        assert_eq!(
            cached(&mut p, &names, 1),
            vec![false, false, true, true],
            "{policy:?}"
        );
    }
}

/// A Data entering a CS full in packets takes the slot of the entry the eviction would remove
/// (LRU/FIFO): same victim, counters, bytes and key bookkeeping as insert-then-evict, and the
/// byte limit still evicts further. The victim's key survives while it holds a PIT part.
#[test]
fn full_cs_insert_replaces_the_victim_in_one_step() {
    let names: Vec<_> = (0..4).map(|i| name(&format!("/r/{i}"))).collect();
    let one = data_wire(&names[0], b"0123456789").len() as u64;
    let big_wire = data_wire(&names[3], &[7; 40]);
    let big = big_wire.len() as u64;
    for policy in [CsPolicy::Lru, CsPolicy::Fifo] {
        let mut p = pcct(PcctConfig {
            cs_capacity_packets: 3,
            cs_capacity_bytes: one + big,
            cs_policy: policy,
            unsolicited: UnsolicitedPolicy::AdmitAll,
            ..PcctConfig::default()
        });
        fill(&mut p, &names[..3], 0);
        assert_eq!((p.len_cs(), p.cs_bytes(), p.len_keys()), (3, 3 * one, 3));
        // A pending MustBeFresh Interest for /r/1 (its Data is not fresh): a PIT part on the key.
        let h1 = hashes(&names[1]);
        let mut i1 = interest(&names[1], &h1, 5);
        i1.must_be_fresh = true;
        assert!(matches!(
            p.on_interest(1, &i1, 2),
            InterestOutcome::NewPit { .. }
        ));
        let h3 = hashes(&names[3]);
        let mut out = vec![];
        let o = p.on_data(
            2,
            &data(&names[3], &h3, &big_wire, 0),
            1,
            None,
            true,
            &mut out,
        );
        assert!(o.cached, "{policy:?}");
        // /r/0 gave its slot, then the byte limit evicted /r/1; its key stays for the PIT.
        assert_eq!(p.counters().evictions, 2, "{policy:?}");
        assert_eq!((p.len_cs(), p.cs_bytes()), (2, one + big), "{policy:?}");
        assert_eq!((p.len_pit(), p.len_keys()), (1, 3), "{policy:?}");
        assert_eq!(
            cached(&mut p, &names, 3),
            vec![false, false, true, true],
            "{policy:?}"
        );
        // The recycled entry is an ordinary one: the next insert evicts in order.
        fill(&mut p, &names[..1], 4);
        assert_eq!(p.len_cs(), 2, "{policy:?}");
        assert_eq!(p.counters().evictions, 3, "{policy:?}");
    }
}

#[test]
fn arc_keeps_frequent_entries_through_a_scan() {
    let hot: Vec<_> = (0..4).map(|i| name(&format!("/hot/{i}"))).collect();
    let scan: Vec<_> = (0..40).map(|i| name(&format!("/scan/{i}"))).collect();
    let run = |policy| {
        let mut p = pcct(PcctConfig {
            cs_capacity_packets: 8,
            cs_policy: policy,
            unsolicited: UnsolicitedPolicy::AdmitAll,
            ..PcctConfig::default()
        });
        fill(&mut p, &hot, 0);
        for t in 1..4 {
            assert!(cached(&mut p, &hot, t).iter().all(|&b| b));
        }
        fill(&mut p, &scan, 10);
        assert_eq!(p.len_cs(), 8);
        assert!(p.len_ghosts() <= 8);
        assert!(p.len_cs() + p.len_ghosts() <= 16);
        cached(&mut p, &hot, 20).iter().filter(|&&b| b).count()
    };
    assert_eq!(
        run(CsPolicy::Arc),
        4,
        "ARC keeps the frequently used entries (T2)"
    );
    assert_eq!(run(CsPolicy::Lru), 0, "LRU loses them to the scan");
    // A ghost hit brings the Data back into T2 and adapts the T1 target.
    let mut p = pcct(PcctConfig {
        cs_capacity_packets: 2,
        cs_policy: CsPolicy::Arc,
        unsolicited: UnsolicitedPolicy::AdmitAll,
        ..PcctConfig::default()
    });
    fill(&mut p, &scan[..2], 0);
    assert_eq!(cached(&mut p, &scan[..1], 1), vec![true]); // scan/0 -> T2
    fill(&mut p, &scan[2..3], 2); // REPLACE demotes scan/1 (T1) to B1
    assert_eq!((p.len_cs(), p.len_ghosts()), (2, 1));
    fill(&mut p, &scan[1..2], 3); // ghost hit: scan/1 -> T2, scan/0 (T2 LRU) -> B2
    assert_eq!((p.len_cs(), p.len_ghosts()), (2, 1));
    assert_eq!(cached(&mut p, &scan[..3], 4), vec![false, true, true]);
    // Case IV with T1 full: the LRU of T1 leaves without a ghost.
    let mut p = pcct(PcctConfig {
        cs_capacity_packets: 2,
        cs_policy: CsPolicy::Arc,
        unsolicited: UnsolicitedPolicy::AdmitAll,
        ..PcctConfig::default()
    });
    fill(&mut p, &scan[..3], 0);
    assert_eq!(
        (p.len_cs(), p.len_ghosts(), p.counters().evictions),
        (2, 0, 1)
    );
}

#[test]
fn erase_by_prefix_with_limit() {
    let mut p = pcct(PcctConfig {
        unsolicited: UnsolicitedPolicy::AdmitAll,
        ..PcctConfig::default()
    });
    let names: Vec<_> = ["/e/1", "/e/2", "/e/3", "/f/1", "/ex"]
        .iter()
        .map(|u| name(u))
        .collect();
    fill(&mut p, &names, 0);
    assert_eq!(p.cs_erase(name("/e").as_ref(), 2), 2);
    assert_eq!(p.cs_erase(name("/e").as_ref(), 10), 1);
    assert_eq!(p.cs_erase(name("/e").as_ref(), 10), 0);
    assert_eq!(
        cached(&mut p, &names, 1),
        vec![false, false, false, true, true]
    );
    assert_eq!(p.cs_erase(name("/").as_ref(), usize::MAX), 2);
    assert_eq!((p.len_cs(), p.len_keys(), p.cs_bytes()), (0, 0, 0));
    assert_eq!(p.counters().cs_erased, 5);
}

#[test]
fn cs_disabled() {
    let mut p = pcct(PcctConfig {
        cs_capacity_packets: 0,
        unsolicited: UnsolicitedPolicy::AdmitAll,
        ..PcctConfig::default()
    });
    fill(&mut p, &[name("/z")], 0);
    assert_eq!((p.len_cs(), p.len_keys()), (0, 0));
}

/// A Data that leaves the CS (recycled victim, evicted over the byte limit, demoted to an ARC
/// ghost, erased) leaves no reference to its buffer behind; the CS keeps its own reference to
/// a resident one.
#[test]
fn leaving_data_releases_its_buffer() {
    let names: Vec<_> = (0..3).map(|i| name(&format!("/r/{i}"))).collect();
    let wires: Vec<_> = names.iter().map(|n| data_wire(n, b"0123456789")).collect();
    let one = wires[0].len() as u64;
    let limits = [(1, u64::MAX), (8, one + 1)];
    for policy in [CsPolicy::Lru, CsPolicy::Fifo, CsPolicy::Arc] {
        for (packets, bytes) in limits {
            let mut p = pcct(PcctConfig {
                cs_capacity_packets: packets,
                cs_capacity_bytes: bytes,
                cs_policy: policy,
                unsolicited: UnsolicitedPolicy::AdmitAll,
                ..PcctConfig::default()
            });
            let mut out = vec![];
            for (n, w) in names.iter().zip(&wires) {
                let o = p.on_data(0, &data(n, &hashes(n), w, 0), 2, None, false, &mut out);
                assert!(o.cached, "{policy:?} {packets}");
            }
            assert_eq!(p.len_cs(), 1, "{policy:?} {packets}");
            let (gone, kept) = wires.split_at(2);
            for w in gone {
                assert!(w.is_unique(), "{policy:?} {packets}: evicted");
            }
            assert!(!kept[0].is_unique(), "{policy:?} {packets}: cached");
            assert_eq!(p.cs_erase(name("/r").as_ref(), 10), 1);
            assert!(kept[0].is_unique(), "{policy:?} {packets}: erased");
        }
    }
}
