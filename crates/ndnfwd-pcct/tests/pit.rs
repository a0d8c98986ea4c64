//! PIT behaviour: aggregation, retransmission suppression, loops, records, Nacks, expiry, tokens.

mod common;

use common::*;
use ndn_packet::LpToken;
use ndnfwd_pcct::*;

fn new_pit(o: InterestOutcome) -> PitHandle {
    match o {
        InterestOutcome::NewPit { pit } => pit,
        other => panic!("expected NewPit, got {other:?}"),
    }
}

#[test]
fn aggregation_and_exponential_suppression() {
    let mut p = pcct(PcctConfig::default());
    let n = name("/a/b");
    let h = hashes(&n);
    let pit = new_pit(p.on_interest(0, &interest(&n, &h, 1), 1));
    // Nothing forwarded yet: a second downstream is forwarded too.
    assert_eq!(
        p.on_interest(MS, &interest(&n, &h, 2), 2),
        InterestOutcome::Aggregated { pit, forward: true }
    );
    p.record_out(MS, pit, 9, 2).unwrap();
    // Within 10 ms of the last send: suppressed.
    assert_eq!(
        p.on_interest(5 * MS, &interest(&n, &h, 3), 3),
        InterestOutcome::Aggregated {
            pit,
            forward: false
        }
    );
    // 10 ms later: forwarded, interval doubles to 20 ms.
    assert_eq!(
        p.on_interest(11 * MS, &interest(&n, &h, 4), 1),
        InterestOutcome::Retransmission { pit, forward: true }
    );
    p.record_out(11 * MS, pit, 9, 4).unwrap();
    assert_eq!(
        p.on_interest(30 * MS, &interest(&n, &h, 5), 1),
        InterestOutcome::Retransmission {
            pit,
            forward: false
        }
    );
    assert_eq!(
        p.on_interest(31 * MS, &interest(&n, &h, 6), 1),
        InterestOutcome::Retransmission { pit, forward: true }
    );
    // Intervals keep doubling but stop at 100 ms.
    let mut t = 31 * MS;
    for _ in 0..6 {
        p.record_out(t, pit, 9, 7).unwrap();
        t += 100 * MS;
        let o = p.on_interest(t, &interest(&n, &h, 8), 1);
        assert_eq!(o, InterestOutcome::Retransmission { pit, forward: true });
    }
    p.record_out(t, pit, 9, 7).unwrap();
    let o = p.on_interest(t + 99 * MS, &interest(&n, &h, 8), 1);
    assert_eq!(
        o,
        InterestOutcome::Retransmission {
            pit,
            forward: false
        }
    );
    let c = p.counters();
    assert_eq!((c.inserts, c.aggregated, c.retransmissions), (1, 2, 10));
    assert_eq!(c.suppressed, 3);
    assert_eq!(p.len_pit(), 1);
    let faces: Vec<_> = p.in_records(pit).map(|r| r.face).collect();
    assert_eq!(faces.len(), 3);
}

#[test]
fn duplicate_nonce_rules() {
    let mut p = pcct(PcctConfig::default());
    let n = name("/loop");
    let h = hashes(&n);
    let pit = new_pit(p.on_interest(0, &interest(&n, &h, 7), 1));
    // Same nonce from another face: loop.
    assert_eq!(
        p.on_interest(1, &interest(&n, &h, 7), 2),
        InterestOutcome::DuplicateNonce
    );
    // Same nonce from the same face: a retransmission.
    assert!(matches!(
        p.on_interest(2, &interest(&n, &h, 7), 1),
        InterestOutcome::Retransmission { .. }
    ));
    // Forwarded upstream with the downstream's nonce; the downstream repeats it: not a loop.
    p.record_out(3, pit, 5, 7).unwrap();
    assert!(matches!(
        p.on_interest(3, &interest(&n, &h, 7), 1),
        InterestOutcome::Retransmission { .. }
    ));
    assert_eq!(
        p.on_interest(3, &interest(&n, &h, 7), 4),
        InterestOutcome::DuplicateNonce
    );
    // A nonce we sent upstream coming back on any other face: loop.
    p.record_out(3, pit, 5, 99).unwrap();
    assert_eq!(
        p.on_interest(4, &interest(&n, &h, 99), 5),
        InterestOutcome::DuplicateNonce
    );
    assert_eq!(
        p.on_interest(4, &interest(&n, &h, 99), 3),
        InterestOutcome::DuplicateNonce
    );
    // MustBeFresh=1 is another PIT entry with its own nonces.
    let mut i = interest(&n, &h, 7);
    i.must_be_fresh = true;
    let pit1 = new_pit(p.on_interest(5, &i, 2));
    assert_eq!(
        pit1.token, pit.token,
        "both PIT entries share the PCC entry's token"
    );
    assert!(pit1.must_be_fresh);
    assert_eq!(p.counters().dup_nonce, 4);
    assert_eq!(p.len_pit(), 2);
    assert_eq!(p.len_keys(), 1);
}

#[test]
fn lifetime_default_cap_and_expiry_report() {
    let cfg = PcctConfig {
        lifetime_cap_ns: 10_000 * MS,
        ..PcctConfig::default()
    };
    let mut p = pcct(cfg);
    let (a, b, c) = (name("/a"), name("/b"), name("/c"));
    let (ha, hb, hc) = (hashes(&a), hashes(&b), hashes(&c));
    let pa = new_pit(p.on_interest(0, &interest(&a, &ha, 1), 1));
    let mut ib = interest(&b, &hb, 2);
    ib.lifetime_ns = Some(100 * MS);
    let pb = new_pit(p.on_interest(0, &ib, 1));
    let mut ic = interest(&c, &hc, 3);
    ic.lifetime_ns = Some(3_600_000 * MS);
    let pc = new_pit(p.on_interest(0, &ic, 1));
    p.record_out(1, pb, 4, 22).unwrap();
    let mut out = vec![];
    assert_eq!(p.expire(100 * MS - 1, &mut out), 0);
    assert_eq!(p.expire(100 * MS, &mut out), 1);
    assert_eq!(out[0].pit, pb);
    assert_eq!(out[0].last_out_nonce, Some(22));
    assert!(out[0].forwarded);
    assert_eq!(out[0].name_id, hb.id128(1).unwrap());
    out.clear();
    // Another downstream extends /a: the entry lives until its latest in-record expires.
    let mut ia2 = interest(&a, &ha, 9);
    ia2.lifetime_ns = Some(4_500 * MS);
    assert!(matches!(
        p.on_interest(1_000 * MS, &ia2, 2),
        InterestOutcome::Aggregated { .. }
    ));
    assert_eq!(
        p.expire(4_000 * MS, &mut out),
        0,
        "default 4 s, extended by face 2"
    );
    assert_eq!(p.expire(5_500 * MS, &mut out), 1);
    assert_eq!((out[0].pit, out[0].forwarded), (pa, false));
    out.clear();
    assert_eq!(p.expire(10_000 * MS - 1, &mut out), 0);
    assert_eq!(
        p.expire(10_000 * MS, &mut out),
        1,
        "one hour capped at 10 s"
    );
    assert_eq!(out[0].pit, pc);
    assert_eq!(p.len_pit(), 0);
    assert_eq!(p.len_keys(), 0);
    assert_eq!(p.counters().expired, 3);
    assert_eq!(p.record_out(1, pa, 1, 1), Err(RecordError::NoEntry));
}

#[test]
fn pit_full_and_records_full() {
    let cfg = PcctConfig {
        pit_capacity: 2,
        record_ext_capacity: 1,
        ..PcctConfig::default()
    };
    let mut p = pcct(cfg);
    let names: Vec<_> = (0..3).map(|i| name(&format!("/n/{i}"))).collect();
    let hs: Vec<_> = names.iter().map(hashes).collect();
    let p0 = new_pit(p.on_interest(0, &interest(&names[0], &hs[0], 1), 1));
    new_pit(p.on_interest(0, &interest(&names[1], &hs[1], 1), 1));
    assert_eq!(
        p.on_interest(0, &interest(&names[2], &hs[2], 1), 1),
        InterestOutcome::PitFull
    );
    assert_eq!(p.counters().pit_full, 1);
    assert_eq!(p.len_keys(), 2, "failed insert leaves no key behind");
    // Entry 0 takes the only extension block: up to 16 downstreams.
    for f in 2..=MAX_IN_RECORDS as u32 {
        let o = p.on_interest(0, &interest(&names[0], &hs[0], f), f);
        assert!(
            matches!(o, InterestOutcome::Aggregated { .. }),
            "{f}: {o:?}"
        );
    }
    let o = p.on_interest(0, &interest(&names[0], &hs[0], 100), 100);
    assert_eq!(o, InterestOutcome::PitFull);
    // Entry 1 cannot grow past its inline records: the pool is used up.
    for f in 2..=4 {
        assert!(matches!(
            p.on_interest(0, &interest(&names[1], &hs[1], f), f),
            InterestOutcome::Aggregated { .. }
        ));
    }
    assert_eq!(
        p.on_interest(0, &interest(&names[1], &hs[1], 5), 5),
        InterestOutcome::PitFull
    );
    assert_eq!(p.counters().records_full, 2);
    // Expired in-records make room: face 3 of entry 0 expires first.
    let mut short = interest(&names[0], &hs[0], 300);
    short.lifetime_ns = Some(MS);
    assert!(matches!(
        p.on_interest(0, &short, 3),
        InterestOutcome::Retransmission { .. }
    ));
    let o = p.on_interest(2 * MS, &interest(&names[0], &hs[0], 101), 101);
    assert!(matches!(o, InterestOutcome::Aggregated { .. }), "{o:?}");
    assert!(!p.in_records(p0).any(|r| r.face == 3));
    // Out-records are bounded the same way.
    for f in 0..MAX_OUT_RECORDS as u32 {
        p.record_out(3 * MS, p0, 1000 + f, f).unwrap();
    }
    assert_eq!(
        p.record_out(3 * MS, p0, 5000, 1),
        Err(RecordError::RecordsFull)
    );
    assert_eq!(p.out_records(p0).count(), MAX_OUT_RECORDS);
}

#[test]
fn in_record_fields_are_kept_and_echoed() {
    let mut p = pcct(PcctConfig::default());
    let n = name("/x");
    let h = hashes(&n);
    let mut i = interest(&n, &h, 5);
    i.hop_limit = Some(3);
    let token = LpToken::new(&[0xAA; 12]).unwrap();
    i.token = &token;
    i.congestion_mark = 1;
    i.can_be_prefix = true;
    let pit = new_pit(p.on_interest(10, &i, 4));
    let r: Vec<_> = p.in_records(pit).collect();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].hop_limit, Some(3));
    assert_eq!(r[0].token.as_bytes(), &[0xAA; 12]);
    assert_eq!(
        (r[0].congestion_mark, r[0].can_be_prefix, r[0].nonce),
        (1, true, 5)
    );
    assert_eq!(r[0].expiry, 10 + 4_000 * MS);
    p.record_out(11, pit, 6, 5).unwrap();
    let wire = data_wire(&n, b"x");
    let mut out = vec![];
    let d = data(&n, &h, &wire, 0);
    let o = p.on_data(12, &d, 6, Some(&pit.token.to_bytes()), false, &mut out);
    assert_eq!(
        out[o.downstreams].to_vec(),
        vec![Downstream {
            face: 4,
            token: *i.token,
            nonce: 5,
            congestion_mark: 1
        }]
    );
}

#[test]
fn nack_least_severe_once_all_upstreams_nacked() {
    let mut p = pcct(PcctConfig::default());
    let n = name("/nack/me");
    let h = hashes(&n);
    let pit = new_pit(p.on_interest(0, &interest(&n, &h, 1), 1));
    assert!(matches!(
        p.on_interest(0, &interest(&n, &h, 2), 2),
        InterestOutcome::Aggregated { .. }
    ));
    p.record_out(0, pit, 10, 1).unwrap();
    p.record_out(0, pit, 11, 1).unwrap();
    let nack = |reason, nonce| NackInfo {
        name: n.as_ref(),
        hashes: &h,
        must_be_fresh: false,
        forwarding_hint_hash: None,
        nonce,
        reason,
    };
    let tok = pit.token.to_bytes();
    let mut out = vec![];
    assert_eq!(
        p.on_nack(1, &nack(NackReason::NoRoute, 9), 10, Some(&tok), &mut out),
        NackOutcome::Stale
    );
    assert_eq!(
        p.on_nack(1, &nack(NackReason::NoRoute, 1), 12, Some(&tok), &mut out),
        NackOutcome::Stale
    );
    assert_eq!(
        p.on_nack(1, &nack(NackReason::NoRoute, 1), 10, Some(&tok), &mut out),
        NackOutcome::Pending
    );
    assert_eq!(
        p.on_nack(1, &nack(NackReason::NoRoute, 1), 10, Some(&tok), &mut out),
        NackOutcome::Stale,
        "already nacked"
    );
    let nacked: Vec<_> = p.out_records(pit).map(|o| o.nacked).collect();
    assert!(nacked.contains(&Some(NackReason::NoRoute)) && nacked.contains(&None));
    // Without a token the Nack is matched by name.
    let o = p.on_nack(2, &nack(NackReason::Congestion, 1), 11, None, &mut out);
    let NackOutcome::Nacked {
        reason,
        downstreams,
    } = o
    else {
        panic!("{o:?}")
    };
    assert_eq!(reason, NackReason::Congestion);
    let mut faces: Vec<_> = out[downstreams].iter().map(|d| d.face).collect();
    faces.sort_unstable();
    assert_eq!(faces, vec![1, 2]);
    assert_eq!(p.len_pit(), 0);
    assert_eq!(
        p.on_nack(3, &nack(NackReason::Congestion, 1), 11, None, &mut out),
        NackOutcome::NoEntry
    );
    assert_eq!(p.counters().nacked, 1);
    // NFD's order; an unknown code ranks as the most severe.
    let ranks: Vec<u8> = [50, 100, 150, 7]
        .map(|c| nack_severity(NackReason::from_code(c)))
        .to_vec();
    assert_eq!(ranks, vec![0, 1, 2, 3]);
}

/// Aggregated downstreams sent different nonces; each `Downstream` carries its own, for Nack,
/// reject and Data alike.
#[test]
fn downstreams_carry_their_own_nonce() {
    let mut p = pcct(PcctConfig::default());
    let n = name("/nonces");
    let h = hashes(&n);
    let setup = |p: &mut Pcct| {
        let pit = new_pit(p.on_interest(0, &interest(&n, &h, 11), 1));
        p.on_interest(0, &interest(&n, &h, 22), 2);
        p.on_interest(0, &interest(&n, &h, 33), 3);
        // Face 1 refreshes its in-record with a new nonce.
        p.on_interest(0, &interest(&n, &h, 44), 1);
        p.record_out(0, pit, 9, 33).unwrap();
        pit
    };
    let pairs = |out: &[Downstream]| {
        let mut v: Vec<(u32, u32)> = out.iter().map(|d| (d.face, d.nonce)).collect();
        v.sort_unstable();
        v
    };
    let pit = setup(&mut p);
    let info = NackInfo {
        name: n.as_ref(),
        hashes: &h,
        must_be_fresh: false,
        forwarding_hint_hash: None,
        nonce: 33,
        reason: NackReason::NoRoute,
    };
    let mut out = vec![];
    let o = p.on_nack(1, &info, 9, Some(&pit.token.to_bytes()), &mut out);
    let NackOutcome::Nacked { downstreams, .. } = o else {
        panic!("{o:?}")
    };
    assert_eq!(pairs(&out[downstreams]), vec![(1, 44), (2, 22), (3, 33)]);

    let pit = setup(&mut p);
    out.clear();
    let r = p.reject(1, pit, &mut out).unwrap();
    assert_eq!(pairs(&out[r]), vec![(1, 44), (2, 22), (3, 33)]);

    let pit = setup(&mut p);
    out.clear();
    let wire = data_wire(&n, b"d");
    let tok = pit.token.to_bytes();
    let o = p.on_data(1, &data(&n, &h, &wire, 0), 2, Some(&tok), false, &mut out);
    assert_eq!(
        pairs(&out[o.downstreams]),
        vec![(1, 44), (3, 33)],
        "ingress excluded"
    );
}

#[test]
fn reject_erases_and_lists_downstreams() {
    let mut p = pcct(PcctConfig::default());
    let n = name("/noroute");
    let h = hashes(&n);
    let pit = new_pit(p.on_interest(0, &interest(&n, &h, 1), 3));
    let mut out = vec![];
    let r = p.reject(1, pit, &mut out).unwrap();
    assert_eq!(out[r].iter().map(|d| d.face).collect::<Vec<_>>(), vec![3]);
    assert_eq!(p.reject(1, pit, &mut out), None);
    assert_eq!((p.len_pit(), p.len_keys()), (0, 0));
}

#[test]
fn stale_forged_and_wrong_length_tokens_never_satisfy_the_wrong_entry() {
    let cfg = PcctConfig {
        worker_id: 5,
        ..PcctConfig::default()
    };
    let mut p = pcct(cfg);
    let (a, b, c) = (name("/a"), name("/b"), name("/c"));
    let (ha, hb, hc) = (hashes(&a), hashes(&b), hashes(&c));
    let ta = new_pit(p.on_interest(0, &interest(&a, &ha, 1), 1)).token;
    assert_eq!(ta.worker(), 5);
    let mut out = vec![];
    p.expire(5_000 * MS, &mut out);
    // /b reuses the slot of /a with a new generation.
    let tb = new_pit(p.on_interest(5_000 * MS, &interest(&b, &hb, 1), 1)).token;
    assert_eq!(tb.index(), ta.index());
    assert_ne!(tb.generation(), ta.generation());
    let t = 5_001 * MS;
    let mut down = vec![];
    // Stale token of /a on a Data /a: no entry (the slot now holds /b), nothing satisfied.
    let o = p.on_data(
        t,
        &data(&a, &ha, &data_wire(&a, b""), 0),
        9,
        Some(&ta.to_bytes()),
        false,
        &mut down,
    );
    assert!(o.unsolicited && !o.via_token);
    // Valid token of /b on a Data /c: the name check fails; /b stays pending.
    let o = p.on_data(
        t,
        &data(&c, &hc, &data_wire(&c, b""), 0),
        9,
        Some(&tb.to_bytes()),
        false,
        &mut down,
    );
    assert!(o.unsolicited && !o.via_token);
    // Forged: right index and worker, every other generation; other workers; wrong lengths.
    for g in (0..=GENERATION_MASK).step_by(4099).chain([ta.generation()]) {
        if g == tb.generation() {
            continue;
        }
        let f = PitToken::new(5, g, tb.index());
        let o = p.on_data(
            t,
            &data(&c, &hc, &data_wire(&c, b""), 0),
            9,
            Some(&f.to_bytes()),
            false,
            &mut down,
        );
        assert!(o.unsolicited);
    }
    let other_worker = PitToken::new(6, tb.generation(), tb.index());
    let o = p.on_data(
        t,
        &data(&c, &hc, &data_wire(&c, b""), 0),
        9,
        Some(&other_worker.to_bytes()),
        false,
        &mut down,
    );
    assert!(o.unsolicited);
    for bad in [&tb.to_bytes()[..7], &[0u8; 9][..], &[][..]] {
        let o = p.on_data(
            t,
            &data(&c, &hc, &data_wire(&c, b""), 0),
            9,
            Some(bad),
            false,
            &mut down,
        );
        assert!(o.unsolicited);
    }
    assert!(down.is_empty());
    assert_eq!(p.len_pit(), 1, "/b is still pending");
    // A wrong-length token on the right Data falls back to the name: /b is satisfied by name.
    let o = p.on_data(
        t,
        &data(&b, &hb, &data_wire(&b, b""), 0),
        9,
        Some(&[1, 2, 3]),
        false,
        &mut down,
    );
    assert!(!o.unsolicited && !o.via_token);
    assert_eq!(p.len_pit(), 0);
    assert!(p.counters().token_miss >= 8);
    // A token naming a CS-only entry (no PIT part) is not used either.
    let o = p.on_data(
        t,
        &data(&b, &hb, &data_wire(&b, b""), 0),
        9,
        Some(&tb.to_bytes()),
        false,
        &mut down,
    );
    assert!(o.unsolicited && !o.via_token);
}

#[test]
fn burst_equals_single_calls() {
    let names: Vec<_> = (0..20)
        .map(|i| name(&format!("/burst/{}", i % 13)))
        .collect();
    let hs: Vec<_> = names.iter().map(hashes).collect();
    let mut single = pcct(PcctConfig::default());
    let mut burst = pcct(PcctConfig::default());
    let arrivals: Vec<_> = (0..20)
        .map(|i| InterestArrival {
            interest: interest(&names[i], &hs[i], i as u32),
            face: 1 + (i as u32 % 3),
        })
        .collect();
    let want: Vec<_> = arrivals
        .iter()
        .map(|a| single.on_interest(7, &a.interest, a.face))
        .collect();
    let mut got = vec![];
    burst.on_interest_burst(7, &arrivals, &mut got);
    assert_eq!(got, want);
    let wires: Vec<_> = names.iter().map(|n| data_wire(n, b"z")).collect();
    let datas: Vec<_> = (0..20)
        .map(|i| DataArrival {
            data: data(&names[i], &hs[i], &wires[i], 0),
            face: 9,
            token: None,
            face_is_local: false,
        })
        .collect();
    let (mut d1, mut d2) = (vec![], vec![]);
    let want: Vec<_> = datas
        .iter()
        .map(|a| single.on_data(8, &a.data, a.face, a.token, a.face_is_local, &mut d1))
        .collect();
    let mut got = vec![];
    burst.on_data_burst(8, &datas, &mut got, &mut d2);
    assert_eq!(got, want);
    assert_eq!(d1, d2);
    assert_eq!(burst.len_cs(), 13);
}

/// The prefetch calls, fed anything (no components, forged or foreign tokens, huge indices),
/// leave every outcome and counter as it would be without them.
#[test]
fn prefetch_with_any_input_changes_nothing() {
    let cfg = PcctConfig {
        worker_id: 2,
        ..PcctConfig::default()
    };
    let (mut plain, mut fetched) = (pcct(cfg), pcct(cfg));
    let names: Vec<_> = (0..12).map(|i| name(&format!("/pf/{}", i % 5))).collect();
    let hs: Vec<_> = names.iter().map(hashes).collect();
    let empty = ndn_packet::PrefixHashes::default();
    let root = name("/");
    let junk = [
        vec![],
        vec![2, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        vec![9; 8],
        vec![2; 5],
    ];
    for i in 0..names.len() {
        let mut it = interest(&names[i], &hs[i], i as u32);
        it.forwarding_hint_hash = (i % 3 == 0).then_some(77);
        fetched.prefetch_interest(&it);
        fetched.prefetch_interest_entries(&it);
        fetched.prefetch_interest_entries(&interest(&root, &empty, 0));
        let (a, b) = (
            plain.on_interest(i as u64, &it, 1),
            fetched.on_interest(i as u64, &it, 1),
        );
        assert_eq!(a, b);
        if let InterestOutcome::NewPit { pit } = a {
            plain.record_out(i as u64, pit, 3, i as u32).unwrap();
            fetched.record_out(i as u64, pit, 3, i as u32).unwrap();
        }
    }
    let tokens: Vec<_> = (0..4u32)
        .map(|k| PitToken::new(2, 0, k).to_bytes().to_vec())
        .collect();
    let (mut d1, mut d2) = (vec![], vec![]);
    for i in 0..names.len() {
        let wire = data_wire(&names[i], b"p");
        let tok = tokens.get(i % 6).map(Vec::as_slice);
        for j in &junk {
            fetched.prefetch_data_name(&empty.name_id(), RxToken::parse(j));
            fetched.prefetch_data_name(&hs[i].name_id(), RxToken::parse(j));
            fetched.prefetch_data_entries(RxToken::parse(j));
        }
        fetched.prefetch_data_name(&hs[i].name_id(), tok.into());
        fetched.prefetch_data_entries(tok.into());
        let d = data(&names[i], &hs[i], &wire, 0);
        let a = plain.on_data(50, &d, 3, tok, false, &mut d1);
        let b = fetched.on_data_parsed(50, &d, 3, tok.into(), false, &mut d2);
        assert_eq!(a, b);
    }
    assert_eq!(d1, d2);
    assert_eq!(plain.counters(), fetched.counters());
    assert_eq!(
        (plain.len_pit(), plain.len_cs()),
        (fetched.len_pit(), fetched.len_cs())
    );
}

#[test]
fn pcct_moves_to_its_worker_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<Pcct>();
}

/// A new PIT entry reuses the slot of an erased one without rebuilding it whole (only the live
/// fields are written): nothing of the old entry (records past the counts, out-records, Nacks,
/// suppression state, CanBePrefix count) shows through.
#[test]
fn a_recycled_pit_slot_shows_nothing_of_its_last_entry() {
    let mut p = pcct(PcctConfig::default());
    let old = name("/old/entry");
    let oh = hashes(&old);
    let mut cbp = interest(&old, &oh, 1);
    cbp.can_be_prefix = true;
    let pit = new_pit(p.on_interest(0, &cbp, 1));
    for face in 2..5 {
        let mut it = interest(&old, &oh, face);
        it.can_be_prefix = true;
        p.on_interest(MS, &it, face);
    }
    for face in 10..13 {
        p.record_out(MS, pit, face, 7).unwrap();
    }
    assert_eq!(p.in_records(pit).count(), 4);
    let mut down = Vec::new();
    p.reject(2 * MS, pit, &mut down);
    assert_eq!(p.len_pit(), 0);

    let new = name("/new");
    let nh = hashes(&new);
    let fresh = new_pit(p.on_interest(3 * MS, &interest(&new, &nh, 99), 20));
    let ins: Vec<_> = p.in_records(fresh).map(|r| (r.face, r.nonce)).collect();
    assert_eq!(ins, vec![(20, 99)], "exactly the one new in-record");
    assert_eq!(
        p.out_records(fresh).count(),
        0,
        "no out-record of the old entry"
    );
    // A fresh entry with no out-record forwards the next downstream (no suppression state).
    assert_eq!(
        p.on_interest(3 * MS, &interest(&new, &nh, 100), 21),
        InterestOutcome::Aggregated {
            pit: fresh,
            forward: true
        }
    );
    // The old CanBePrefix count is gone: a longer Data name does not match the new entry.
    let longer = name("/new/child");
    let lh = hashes(&longer);
    let wire = data_wire(&longer, b"x");
    let out = p.on_data(
        4 * MS,
        &data(&longer, &lh, &wire, 0),
        30,
        None,
        false,
        &mut down,
    );
    assert_eq!(out.matched, 0);
    assert_eq!(p.in_records(fresh).count(), 2);
}

/// `record_out` for the handle `on_interest` just issued finds the part without the token
/// check; once that part is freed (satisfied) the handle names nothing, until a new part
/// under the same key issues the same handle again.
#[test]
fn record_out_follows_the_last_issued_handle_through_free_and_reissue() {
    let mut p = pcct(PcctConfig::default());
    let n = name("/r/o");
    let h = hashes(&n);
    let fresh = |nonce| InterestInfo {
        must_be_fresh: true,
        ..interest(&n, &h, nonce)
    };
    let pit = new_pit(p.on_interest(0, &fresh(1), 1));
    p.record_out(1, pit, 2, 1).unwrap();
    let wire = data_wire(&n, b"x");
    let mut out = vec![];
    let o = p.on_data(
        2,
        &data(&n, &h, &wire, 0),
        2,
        Some(&pit.token.to_bytes()),
        false,
        &mut out,
    );
    assert!(o.cached && o.matched == 1);
    assert_eq!(p.record_out(3, pit, 2, 1), Err(RecordError::NoEntry));
    assert_eq!(p.out_records(pit).count(), 0);
    // The cached Data is stale (FreshnessPeriod 0): a MustBeFresh Interest makes a new part
    // under the same key, so the same handle.
    let again = new_pit(p.on_interest(4, &fresh(2), 1));
    assert_eq!(again, pit);
    p.record_out(5, again, 3, 2).unwrap();
    let faces: Vec<_> = p.out_records(again).map(|r| (r.face, r.nonce)).collect();
    assert_eq!(faces, vec![(3, 2)]);
}
