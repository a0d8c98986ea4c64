//! Scenario tests of every pipeline rule on one engine with virtual faces and virtual time.

mod harness;

use bytes::Bytes;
use harness::*;
use ndn_packet::link::{LpToken, PacketKind, RxLp, RxPacket};
use ndn_packet::lp::NackReason;
use ndn_packet::Interest;
use ndnfwd_fwd::face::FaceInfo;
use ndnfwd_fwd::{EngineConfig, TxBurst};
use ndnfwd_pcct::PcctConfig;

/// One router with a consumer app and a producer app for `/p`.
fn router() -> (Sim, usize, usize, usize) {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c = sim.app(r, Behaviour::Sink);
    let p = sim.producer(r, "/p", 1000);
    let pf = sim.face_of(p);
    sim.route(r, "/p", pf, 10);
    (sim, r, c, p)
}

#[test]
fn interest_forwarded_data_returned_with_tokens() {
    let (mut sim, r, c, p) = router();
    sim.express(
        c,
        interest("/p/a", 1).hop_limit(5).lifetime_ms(1000),
        b"tok-c",
    );
    sim.run_for(MS);

    let up = sim.received(p, PacketKind::Interest);
    assert_eq!(up.len(), 1);
    let i = interest_of(up[0]);
    assert_eq!(i.hop_limit(), Some(4), "HopLimit decremented");
    assert_eq!(
        i.lifetime(),
        Some(1000),
        "lifetime = time left on the new PIT entry"
    );
    assert_eq!(i.nonce(), Some(1u32.to_be_bytes()));
    assert_eq!(
        up[0].lp.pit_token.as_bytes().len(),
        ndnfwd_pcct::PIT_TOKEN_LEN,
        "our token"
    );
    assert_eq!(up[0].lp.incoming_face_id, Some(sim.face_of(c)));

    let down = sim.received(c, PacketKind::Data);
    assert_eq!(down.len(), 1);
    assert_eq!(name_of(down[0]), "/p/a");
    assert_eq!(
        down[0].lp.pit_token.as_bytes(),
        b"tok-c",
        "downstream token echoed"
    );
    let k = sim.engine(r).counters();
    assert_eq!(
        (
            k.rx_interest,
            k.tx_interest,
            k.rx_data,
            k.tx_data,
            k.satisfied
        ),
        (1, 1, 1, 1, 1)
    );
    assert_eq!(sim.engine(r).pcct().len_pit(), 0);
}

#[test]
fn unchanged_interest_reuses_the_received_buffer() {
    let (mut sim, _r, c, p) = router();
    // No HopLimit, default lifetime: nothing to rewrite.
    let wire = Bytes::from(interest("/p/zero-copy", 9).encode().unwrap());
    sim.send(c, wire.clone(), RxLp::default());
    sim.run_for(MS);
    let up = sim.received(p, PacketKind::Interest);
    assert_eq!(up.len(), 1);
    assert_eq!(up[0].wire, wire);
    assert_eq!(
        up[0].wire.as_ptr(),
        wire.as_ptr(),
        "same buffer, not a copy"
    );
}

#[test]
fn data_answered_to_every_aggregated_downstream_with_its_own_token() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c1 = sim.app(r, Behaviour::Sink);
    let c2 = sim.app(r, Behaviour::Sink);
    let up = sim.app(r, Behaviour::Sink);
    sim.route(r, "/p", sim.face_of(up), 10);
    sim.express(c1, interest("/p/x", 1), b"one");
    sim.express(c2, interest("/p/x", 2), b"two");
    sim.run_for(MS);
    assert_eq!(
        sim.received(up, PacketKind::Interest).len(),
        1,
        "aggregated, suppressed"
    );
    assert_eq!(sim.engine(r).counters().aggregated, 1);
    assert_eq!(sim.engine(r).counters().retx_suppressed, 1);
    let token = sim.received(up, PacketKind::Interest)[0].lp.pit_token;
    sim.send(
        up,
        data("/p/x", 0),
        RxLp {
            pit_token: token,
            ..RxLp::default()
        },
    );
    sim.run_for(MS);
    let d1 = sim.received(c1, PacketKind::Data);
    let d2 = sim.received(c2, PacketKind::Data);
    assert_eq!((d1.len(), d2.len()), (1, 1));
    assert_eq!(d1[0].lp.pit_token.as_bytes(), b"one");
    assert_eq!(d2[0].lp.pit_token.as_bytes(), b"two");
    assert_eq!(
        d1[0].wire.as_ptr(),
        d2[0].wire.as_ptr(),
        "one buffer for both"
    );
}

/// A Data with two downstreams, straight from the engine: both get the same bytes, one of
/// them the received buffer itself (taken from the burst), the other a shared reference to
/// it; a packet of the burst that is not sent keeps its wire.
#[test]
fn data_to_two_downstreams_takes_the_received_buffer() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c1 = sim.app(r, Behaviour::Sink);
    let c2 = sim.app(r, Behaviour::Sink);
    let up = sim.app(r, Behaviour::Sink);
    sim.route(r, "/p", sim.face_of(up), 10);
    sim.express(c1, interest("/p/x", 1), b"one");
    sim.express(c2, interest("/p/x", 2), b"two");
    sim.run_for(MS);
    let token = sim.received(up, PacketKind::Interest)[0].lp.pit_token;
    let wire = data("/p/x", 0);
    let bad = Bytes::from_static(b"\x64\x00");
    let mut burst = [
        RxPacket {
            face: sim.face_of(up),
            kind: PacketKind::Data,
            wire: wire.clone(),
            lp: RxLp {
                pit_token: token,
                ..RxLp::default()
            },
        },
        RxPacket {
            face: sim.face_of(up),
            kind: PacketKind::Data,
            wire: bad.clone(),
            lp: RxLp::default(),
        },
    ];
    let mut out = TxBurst::new();
    let now = sim.now;
    sim.engine_mut(r).process(now, &mut burst, &mut out);
    assert_eq!(out.len(), 2);
    let mut faces: Vec<_> = out.iter().map(|t| t.face).collect();
    faces.sort_unstable();
    assert_eq!(faces, [sim.face_of(c1), sim.face_of(c2)]);
    for t in out.iter() {
        assert_eq!(t.kind, PacketKind::Data);
        assert_eq!(t.wire, wire, "the same bytes to every downstream");
        assert_eq!(
            t.wire.as_ptr(),
            wire.as_ptr(),
            "the received buffer, no copy"
        );
    }
    assert!(
        burst[0].wire.is_empty(),
        "a downstream took the received buffer"
    );
    assert_eq!(burst[1].wire, bad, "a packet not sent keeps its wire");
    assert_eq!(sim.engine(r).counters().bad_packet, 1);
}

/// A Nack carrying the received Interest as it arrived takes its buffer.
#[test]
fn nack_takes_the_received_interest_buffer() {
    let (mut sim, r, c, _p) = router();
    let wire = Bytes::from(interest("/nowhere/y", 8).encode().unwrap());
    let mut burst = [RxPacket {
        face: sim.face_of(c),
        kind: PacketKind::Interest,
        wire: wire.clone(),
        lp: RxLp::default(),
    }];
    let mut out = TxBurst::new();
    let now = sim.now;
    sim.engine_mut(r).process(now, &mut burst, &mut out);
    let n = out.get(0).unwrap();
    assert_eq!((out.len(), n.lp.nack), (1, Some(NackReason::NoRoute)));
    assert_eq!(
        n.wire.as_ptr(),
        wire.as_ptr(),
        "the received buffer, no copy"
    );
    assert_eq!(n.wire, wire);
    assert!(burst[0].wire.is_empty());
}

#[test]
fn cs_hit_serves_second_consumer() {
    let (mut sim, r, c, p) = router();
    let c2 = sim.app(r, Behaviour::Sink);
    sim.express(c, interest("/p/cached", 1), b"");
    sim.run_for(MS);
    sim.express(c2, interest("/p/cached", 2), b"t2");
    sim.run_for(MS);
    assert_eq!(
        sim.received(p, PacketKind::Interest).len(),
        1,
        "producer asked once"
    );
    let d = sim.received(c2, PacketKind::Data);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].lp.pit_token.as_bytes(), b"t2");
    assert_eq!(d[0].lp.incoming_face_id, None, "from the CS");
    assert_eq!(sim.engine(r).counters().cs_hit, 1);
}

#[test]
fn can_be_prefix_matches_longer_data_and_later_hits_the_cs() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c = sim.app(r, Behaviour::Sink);
    let p = sim.app(
        r,
        Behaviour::Producer {
            prefix: name("/p"),
            suffix: vec!["v1"],
            freshness_ms: 1000,
        },
    );
    sim.route(r, "/p", sim.face_of(p), 1);
    sim.express(c, interest("/p/doc", 1).can_be_prefix(true), b"");
    sim.run_for(MS);
    let d = sim.received(c, PacketKind::Data);
    assert_eq!(d.len(), 1);
    assert_eq!(name_of(d[0]), "/p/doc/v1");
    // Without CanBePrefix the same name is not satisfied by /p/doc/v1 from the CS.
    sim.express(c, interest("/p/doc", 2).can_be_prefix(true), b"");
    sim.run_for(MS);
    assert_eq!(sim.received(c, PacketKind::Data).len(), 2);
    assert_eq!(
        sim.received(p, PacketKind::Interest).len(),
        1,
        "second from the CS"
    );
    assert_eq!(sim.engine(r).counters().cs_hit, 1);
}

#[test]
fn must_be_fresh_with_freshness_zero_misses_the_cs() {
    let (mut sim, r, c, p) = router();
    sim.apps[p].behaviour = Behaviour::Producer {
        prefix: name("/p"),
        suffix: vec![],
        freshness_ms: 0,
    };
    sim.express(c, interest("/p/f", 1), b"");
    sim.run_for(MS);
    sim.express(c, interest("/p/f", 2).must_be_fresh(true), b"");
    sim.run_for(MS);
    assert_eq!(
        sim.received(p, PacketKind::Interest).len(),
        2,
        "stale Data cannot answer MustBeFresh"
    );
    sim.express(c, interest("/p/f", 3), b"");
    sim.run_for(MS);
    assert_eq!(
        sim.received(p, PacketKind::Interest).len(),
        2,
        "but answers without MustBeFresh"
    );
    assert_eq!(sim.engine(r).counters().cs_hit, 1);
    assert_eq!(sim.received(c, PacketKind::Data).len(), 3);
}

#[test]
fn unsolicited_data_dropped_and_counted() {
    let (mut sim, r, c, p) = router();
    sim.send(p, data("/p/nobody-asked", 1000), RxLp::default());
    sim.run_for(MS);
    assert_eq!(sim.engine(r).counters().unsolicited_data, 1);
    assert!(sim.received(c, PacketKind::Data).is_empty());
    assert_eq!(
        sim.engine(r).pcct().len_cs(),
        0,
        "drop-all policy caches nothing"
    );
}

#[test]
fn hop_limit_zero_dropped() {
    let (mut sim, r, c, p) = router();
    sim.express(c, interest("/p/h", 1).hop_limit(0), b"");
    sim.run_for(MS);
    assert!(sim.received(p, PacketKind::Interest).is_empty());
    assert_eq!(sim.engine(r).counters().hop_limit_zero, 1);
    assert_eq!(sim.engine(r).pcct().len_pit(), 0);
}

#[test]
fn hop_limit_one_reaches_local_faces_only() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c = sim.app(r, Behaviour::Sink);
    let net = sim.app_with(r, Behaviour::Sink, FaceInfo::network());
    let local = sim.app(r, Behaviour::Sink);
    sim.route(r, "/n", sim.face_of(net), 1);
    sim.route(r, "/l", sim.face_of(local), 1);
    sim.express(c, interest("/n/x", 1).hop_limit(1), b"");
    sim.express(c, interest("/l/x", 2).hop_limit(1), b"");
    sim.run_for(MS);
    assert!(sim.received(net, PacketKind::Interest).is_empty());
    let l = sim.received(local, PacketKind::Interest);
    assert_eq!(l.len(), 1);
    assert_eq!(interest_of(l[0]).hop_limit(), Some(0));
    assert_eq!(sim.engine(r).counters().hop_limit_zero_out, 1);
}

#[test]
fn localhost_only_between_local_faces() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let net = sim.app_with(r, Behaviour::Sink, FaceInfo::network());
    let local = sim.app(r, Behaviour::Sink);
    let mgmt = sim.producer(r, "/localhost/nfd", 0);
    sim.route(r, "/localhost/nfd", sim.face_of(mgmt), 0);
    sim.express(net, interest("/localhost/nfd/status", 1), b"");
    sim.run_for(MS);
    assert!(sim.received(mgmt, PacketKind::Interest).is_empty());
    assert_eq!(sim.engine(r).counters().localhost_violation_in, 1);
    sim.express(local, interest("/localhost/nfd/status", 2), b"");
    sim.run_for(MS);
    assert_eq!(sim.received(local, PacketKind::Data).len(), 1);
    // A /localhost Data arriving from the network is dropped too.
    sim.send(net, data("/localhost/nfd/x", 0), RxLp::default());
    sim.run_for(MS);
    assert_eq!(sim.engine(r).counters().localhost_violation_in, 2);
    // And a /localhost route toward a non-local face is never used.
    sim.route(r, "/localhost/other", sim.face_of(net), 0);
    sim.express(local, interest("/localhost/other/x", 3), b"");
    sim.run_for(MS);
    assert!(sim.received(net, PacketKind::Interest).is_empty());
    let n = sim.received(local, PacketKind::Nack);
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].lp.nack, Some(NackReason::NoRoute));
}

#[test]
fn pit_full_answers_nack_congestion() {
    let mut sim = Sim::new();
    let r = sim.node(EngineConfig {
        pcct: PcctConfig {
            pit_capacity: 2,
            ..PcctConfig::default()
        },
        ..EngineConfig::default()
    });
    let c = sim.app(r, Behaviour::Sink);
    let up = sim.app(r, Behaviour::Sink);
    sim.route(r, "/p", sim.face_of(up), 1);
    for k in 0..3u32 {
        sim.express(
            c,
            interest(&format!("/p/{k}"), k),
            format!("t{k}").as_bytes(),
        );
    }
    sim.run_for(MS);
    assert_eq!(sim.received(up, PacketKind::Interest).len(), 2);
    let n = sim.received(c, PacketKind::Nack);
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].lp.nack, Some(NackReason::Congestion));
    assert_eq!(n[0].lp.pit_token.as_bytes(), b"t2");
    assert_eq!(name_of(n[0]), "/p/2");
    assert_eq!(sim.engine(r).counters().pit_full, 1);
}

#[test]
fn no_route_answers_nack_no_route() {
    let (mut sim, r, c, _p) = router();
    sim.express(c, interest("/nowhere/x", 7), b"tk");
    sim.run_for(MS);
    let n = sim.received(c, PacketKind::Nack);
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].lp.nack, Some(NackReason::NoRoute));
    assert_eq!(n[0].lp.pit_token.as_bytes(), b"tk");
    assert_eq!(interest_of(n[0]).nonce(), Some(7u32.to_be_bytes()));
    assert_eq!(sim.engine(r).counters().no_route, 1);
    assert_eq!(sim.engine(r).pcct().len_pit(), 0, "entry rejected");
}

#[test]
fn best_route_retransmission_tries_next_nexthop_then_earliest() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c = sim.app(r, Behaviour::Sink);
    let u1 = sim.app(r, Behaviour::Sink);
    let u2 = sim.app(r, Behaviour::Sink);
    sim.route(r, "/p", sim.face_of(u1), 10);
    sim.route(r, "/p", sim.face_of(u2), 20);
    sim.express(c, interest("/p/r", 1), b"");
    sim.run_for(MS);
    assert_eq!(
        sim.received(u1, PacketKind::Interest).len(),
        1,
        "lowest cost first"
    );
    // Within the 10 ms suppression interval: suppressed.
    sim.express(c, interest("/p/r", 2), b"");
    sim.run_for(MS);
    assert_eq!(sim.received(u2, PacketKind::Interest).len(), 0);
    assert_eq!(sim.engine(r).counters().retx_suppressed, 1);
    sim.run_for(20 * MS);
    sim.express(c, interest("/p/r", 3), b"");
    sim.run_for(MS);
    let at_u2 = sim.received(u2, PacketKind::Interest);
    assert_eq!(at_u2.len(), 1, "retransmission goes to the unused nexthop");
    assert_eq!(interest_of(at_u2[0]).nonce(), Some(3u32.to_be_bytes()));
    sim.run_for(50 * MS);
    sim.express(c, interest("/p/r", 4), b"");
    sim.run_for(MS);
    assert_eq!(
        sim.received(u1, PacketKind::Interest).len(),
        2,
        "then the one used earliest"
    );
}

#[test]
fn multicast_fans_out_except_the_ingress() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    sim.engine_mut(r)
        .set_strategy(name("/m").as_ref(), "/localhost/nfd/strategy/multicast")
        .unwrap();
    let c = sim.app(r, Behaviour::Sink);
    let ups: Vec<usize> = (0..3).map(|_| sim.app(r, Behaviour::Sink)).collect();
    for (k, &u) in ups.iter().enumerate() {
        sim.route(r, "/m", sim.face_of(u), k as u32);
    }
    sim.route(r, "/m", sim.face_of(c), 0);
    sim.express(c, interest("/m/x", 1).hop_limit(9), b"");
    sim.run_for(MS);
    for &u in &ups {
        assert_eq!(sim.received(u, PacketKind::Interest).len(), 1);
    }
    assert!(
        sim.received(c, PacketKind::Interest).is_empty(),
        "not back to the ingress"
    );
    for &u in &ups {
        let i = interest_of(sim.received(u, PacketKind::Interest)[0]);
        assert_eq!(i.hop_limit(), Some(8), "HopLimit decremented");
    }
    // Straight from the engine (the harness applies the patch as a face would): every
    // upstream shares the received buffer, the HopLimit going out as a one-byte patch.
    let wire = Bytes::from(interest("/m/y", 2).hop_limit(9).encode().unwrap());
    let rx = RxPacket {
        face: sim.face_of(c),
        kind: PacketKind::Interest,
        wire: wire.clone(),
        lp: RxLp::default(),
    };
    let mut out = TxBurst::new();
    let now = sim.now;
    let mut burst = [rx];
    sim.engine_mut(r).process(now, &mut burst, &mut out);
    assert!(
        burst[0].wire.is_empty(),
        "the last upstream took the buffer"
    );
    assert_eq!(out.len(), 3);
    for t in out.iter() {
        assert_eq!(t.wire, wire, "the same bytes on every face");
        assert_eq!(
            t.wire.as_ptr(),
            wire.as_ptr(),
            "the received buffer, no copy"
        );
        assert!(t.patch.is_some());
        let sent = t.sent_wire();
        let i = Interest::new_checked(&sent).unwrap();
        assert_eq!((i.hop_limit(), i.name()), (Some(8), name("/m/y").as_ref()));
    }
    assert_eq!(
        sim.engine_mut(r).strategy_of(name("/m/x").as_ref()),
        "/localhost/nfd/strategy/multicast/v=4"
    );
    assert_eq!(
        sim.engine_mut(r).strategy_of(name("/p").as_ref()),
        "/localhost/nfd/strategy/best-route/v=5"
    );
}

#[test]
fn nack_least_severe_reason_after_every_upstream() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    sim.engine_mut(r)
        .set_strategy(name("/m").as_ref(), "/localhost/nfd/strategy/multicast")
        .unwrap();
    let c = sim.app(r, Behaviour::Sink);
    let u1 = sim.app(r, Behaviour::Sink);
    let u2 = sim.app(r, Behaviour::Sink);
    sim.route(r, "/m", sim.face_of(u1), 1);
    sim.route(r, "/m", sim.face_of(u2), 2);
    sim.express(c, interest("/m/n", 5), b"ct");
    sim.run_for(MS);
    let i1 = sim.received(u1, PacketKind::Interest)[0].clone();
    let i2 = sim.received(u2, PacketKind::Interest)[0].clone();
    let nack = |t: &ndn_packet::TxPacket, r: NackReason| RxLp {
        pit_token: t.lp.pit_token,
        nack: Some(Some(r)),
        ..RxLp::default()
    };
    sim.send(u1, i1.wire.clone(), nack(&i1, NackReason::NoRoute));
    sim.run_for(MS);
    assert!(
        sim.received(c, PacketKind::Nack).is_empty(),
        "u2 still pending"
    );
    // A Nack with the wrong nonce is not accepted.
    let other = Bytes::from(interest("/m/n", 99).encode().unwrap());
    sim.send(u2, other, nack(&i2, NackReason::Duplicate));
    sim.run_for(MS);
    assert!(sim.received(c, PacketKind::Nack).is_empty());
    assert_eq!(sim.engine(r).counters().nack_unmatched, 1);
    sim.send(u2, i2.wire.clone(), nack(&i2, NackReason::Congestion));
    sim.run_for(MS);
    let n = sim.received(c, PacketKind::Nack);
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].lp.nack, Some(NackReason::Congestion), "least severe");
    assert_eq!(n[0].lp.pit_token.as_bytes(), b"ct");
    assert_eq!(sim.engine(r).pcct().len_pit(), 0);
}

#[test]
fn expiry_finalizes_unsatisfied_entries() {
    let (mut sim, r, c, _p) = router();
    let silent = sim.app(r, Behaviour::Sink);
    sim.route(r, "/s", sim.face_of(silent), 1);
    sim.express(c, interest("/s/x", 1).lifetime_ms(100), b"");
    sim.run_for(MS);
    assert_eq!(sim.engine(r).pcct().len_pit(), 1);
    sim.run_for(50 * MS);
    assert_eq!(sim.engine(r).counters().unsatisfied, 0);
    sim.run_for(100 * MS);
    assert_eq!(sim.engine(r).counters().unsatisfied, 1);
    assert_eq!(sim.engine(r).pcct().len_pit(), 0);
    // Data arriving after expiry is unsolicited.
    sim.send(silent, data("/s/x", 0), RxLp::default());
    sim.run_for(MS);
    assert_eq!(sim.engine(r).counters().unsolicited_data, 1);
    assert!(sim.received(c, PacketKind::Data).is_empty());
}

#[test]
fn aggregated_interest_lifetime_is_time_left() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c1 = sim.app(r, Behaviour::Sink);
    let c2 = sim.app(r, Behaviour::Sink);
    let up = sim.app(r, Behaviour::Sink);
    sim.route(r, "/p", sim.face_of(up), 1);
    sim.express(c1, interest("/p/t", 1).lifetime_ms(1000), b"");
    sim.run_for(400 * MS);
    // c2 joins after the suppression interval with a shorter lifetime: forwarded again with the
    // entry's time left, which is still c1's (600 ms).
    sim.express(c2, interest("/p/t", 2).lifetime_ms(300), b"");
    sim.run_for(MS);
    let sent = sim.received(up, PacketKind::Interest);
    assert_eq!(sent.len(), 2);
    assert_eq!(interest_of(sent[1]).lifetime(), Some(600));
}

#[test]
fn interest_without_nonce_gets_one() {
    let (mut sim, _r, c, p) = router();
    let wire = Bytes::from(
        ndn_packet::InterestBuilder::new(name("/p/nn"))
            .encode()
            .unwrap(),
    );
    assert_eq!(Interest::new_checked(&wire).unwrap().nonce(), None);
    sim.send(c, wire, RxLp::default());
    sim.run_for(MS);
    let up = sim.received(p, PacketKind::Interest);
    assert_eq!(up.len(), 1);
    assert!(interest_of(up[0]).nonce().is_some());
    assert_eq!(sim.received(c, PacketKind::Data).len(), 1);
}

#[test]
fn next_hop_face_id_from_local_faces_bypasses_the_strategy() {
    let (mut sim, r, c, p) = router();
    let other = sim.app(r, Behaviour::Sink);
    let net = sim.app_with(r, Behaviour::Sink, FaceInfo::network());
    let wire = Bytes::from(interest("/p/nh", 1).encode().unwrap());
    let lp = RxLp {
        next_hop_face_id: Some(sim.face_of(other)),
        ..RxLp::default()
    };
    sim.send(c, wire.clone(), lp);
    sim.run_for(MS);
    assert_eq!(sim.received(other, PacketKind::Interest).len(), 1);
    assert!(sim.received(p, PacketKind::Interest).is_empty());
    // From a non-local face the field is ignored.
    let wire = Bytes::from(interest("/p/nh2", 2).encode().unwrap());
    sim.send(
        net,
        wire,
        RxLp {
            next_hop_face_id: Some(sim.face_of(other)),
            ..RxLp::default()
        },
    );
    sim.run_for(MS);
    assert_eq!(sim.received(p, PacketKind::Interest).len(), 1);
    // An unknown face is a counted drop.
    let wire = Bytes::from(interest("/p/nh3", 3).encode().unwrap());
    sim.send(
        c,
        wire,
        RxLp {
            next_hop_face_id: Some(9999),
            ..RxLp::default()
        },
    );
    sim.run_for(MS);
    assert_eq!(sim.engine(r).counters().next_hop_unknown, 1);
}

#[test]
fn forwarding_hint_is_tried_first() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c = sim.app(r, Behaviour::Sink);
    let by_name = sim.app(r, Behaviour::Sink);
    let by_hint = sim.app(r, Behaviour::Sink);
    sim.route(r, "/app", sim.face_of(by_name), 1);
    sim.route(r, "/isp", sim.face_of(by_hint), 1);
    sim.express(
        c,
        interest("/app/x", 1).forwarding_hint(vec![name("/nohint"), name("/isp/region")]),
        b"",
    );
    sim.express(
        c,
        interest("/app/y", 2).forwarding_hint(vec![name("/nohint")]),
        b"",
    );
    sim.run_for(MS);
    assert_eq!(sim.received(by_hint, PacketKind::Interest).len(), 1);
    assert_eq!(
        name_of(sim.received(by_hint, PacketKind::Interest)[0]),
        "/app/x"
    );
    assert_eq!(
        sim.received(by_name, PacketKind::Interest).len(),
        1,
        "no hint route: the name's"
    );
}

#[test]
fn loop_on_point_to_point_nacks_duplicate_on_multi_access_drops() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c = sim.app(r, Behaviour::Sink);
    let c2 = sim.app(r, Behaviour::Sink);
    let ma = sim.app_with(r, Behaviour::Sink, multi_access());
    let up = sim.app(r, Behaviour::Sink);
    sim.route(r, "/p", sim.face_of(up), 1);
    sim.express(c, interest("/p/l", 42), b"");
    sim.run_for(MS);
    sim.express(c2, interest("/p/l", 42), b"t");
    sim.express(ma, interest("/p/l", 42), b"");
    sim.run_for(MS);
    let n = sim.received(c2, PacketKind::Nack);
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].lp.nack, Some(NackReason::Duplicate));
    assert!(sim.received(ma, PacketKind::Nack).is_empty());
    assert_eq!(sim.engine(r).counters().dup_nonce, 2);
    // The same downstream repeating its nonce is a retransmission, not a loop.
    sim.run_for(20 * MS);
    sim.express(c, interest("/p/l", 42), b"");
    sim.run_for(MS);
    assert_eq!(sim.engine(r).counters().dup_nonce, 2);
}

#[test]
fn removed_face_leaves_the_pit() {
    let (mut sim, r, c, p) = router();
    let c2 = sim.app(r, Behaviour::Sink);
    sim.apps[p].behaviour = Behaviour::Sink;
    sim.express(c, interest("/p/gone", 1), b"");
    sim.express(c2, interest("/p/gone", 2), b"");
    sim.express(c, interest("/p/only-c", 3), b"");
    sim.run_for(MS);
    assert_eq!(sim.engine(r).pcct().len_pit(), 2);
    let cf = sim.face_of(c);
    let now = sim.now;
    assert!(sim.engine_mut(r).remove_face(now, cf).is_some());
    assert_eq!(
        sim.engine(r).pcct().len_pit(),
        1,
        "the entry only c wanted is erased"
    );
    let token = sim.received(p, PacketKind::Interest)[0].lp.pit_token;
    sim.send(
        p,
        data("/p/gone", 0),
        RxLp {
            pit_token: token,
            ..RxLp::default()
        },
    );
    sim.run_for(MS);
    assert_eq!(sim.received(c2, PacketKind::Data).len(), 1);
    assert!(sim.received(c, PacketKind::Data).is_empty());
    assert_eq!(
        sim.engine(r).counters().face_gone,
        0,
        "no record of the face was left"
    );
    // Packets from the removed face are counted drops.
    sim.express(c, interest("/p/again", 4), b"");
    sim.run_for(MS);
    assert_eq!(sim.engine(r).counters().unknown_face, 1);
    assert_eq!(sim.engine_mut(r).remove_face(now, cf), None);
}

#[test]
fn removed_upstream_is_not_retried() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c = sim.app(r, Behaviour::Sink);
    let u1 = sim.app(r, Behaviour::Sink);
    let u2 = sim.app(r, Behaviour::Sink);
    sim.route(r, "/p", sim.face_of(u1), 1);
    sim.route(r, "/p", sim.face_of(u2), 2);
    sim.express(c, interest("/p/u", 1), b"");
    sim.run_for(MS);
    let now = sim.now;
    let uf = sim.face_of(u1);
    sim.engine_mut(r).remove_face(now, uf);
    sim.run_for(20 * MS);
    sim.express(c, interest("/p/u", 2), b"");
    sim.run_for(MS);
    assert_eq!(sim.received(u1, PacketKind::Interest).len(), 1);
    assert_eq!(
        sim.received(u2, PacketKind::Interest).len(),
        1,
        "the retransmission goes to u2"
    );
}

#[test]
fn undecodable_packets_are_counted() {
    let (mut sim, r, c, _p) = router();
    for wire in [
        vec![5u8, 1, 0],
        vec![6, 0],
        vec![100, 0],
        vec![],
        vec![6, 2, 7, 0],
    ] {
        sim.send(c, Bytes::from(wire), RxLp::default());
    }
    // A Nack whose packet is a Data is not a Nack.
    sim.send(
        c,
        data("/p/x", 0),
        RxLp {
            nack: Some(None),
            ..RxLp::default()
        },
    );
    sim.run_for(MS);
    assert_eq!(sim.engine(r).counters().bad_packet, 6);
}

#[test]
fn token_of_wrong_length_still_matches_by_name() {
    let (mut sim, r, c, p) = router();
    sim.apps[p].behaviour = Behaviour::Sink;
    sim.express(c, interest("/p/tk", 1), b"");
    sim.run_for(MS);
    sim.send(
        p,
        data("/p/tk", 0),
        RxLp {
            pit_token: LpToken::new(b"bogus").unwrap(),
            ..RxLp::default()
        },
    );
    sim.run_for(MS);
    assert_eq!(sim.received(c, PacketKind::Data).len(), 1);
    assert_eq!(sim.engine(r).pcct().counters().token_miss, 1);
}

#[test]
fn congestion_marks_travel_with_the_packets() {
    let (mut sim, _r, c, p) = router();
    sim.apps[p].behaviour = Behaviour::Sink;
    let wire = Bytes::from(interest("/p/cm", 1).encode().unwrap());
    sim.send(
        c,
        wire,
        RxLp {
            congestion_mark: 1,
            ..RxLp::default()
        },
    );
    sim.run_for(MS);
    let up = sim.received(p, PacketKind::Interest);
    assert_eq!(
        up[0].lp.congestion_mark, 1,
        "the Interest's mark goes upstream"
    );
    let token = up[0].lp.pit_token;
    sim.send(
        p,
        data("/p/cm", 0),
        RxLp {
            pit_token: token,
            congestion_mark: 3,
            ..RxLp::default()
        },
    );
    sim.run_for(MS);
    let d = sim.received(c, PacketKind::Data);
    assert_eq!(
        d[0].lp.congestion_mark, 3,
        "the Data's mark goes downstream"
    );
}

/// A strategy from outside the crate: sends to the most expensive nexthop.
struct Worst;

impl ndnfwd_fwd::strategy::Strategy for Worst {
    fn name(&self) -> &'static str {
        "/localhost/nfd/strategy/worst"
    }

    fn version(&self) -> u64 {
        1
    }

    fn after_receive_interest(
        &mut self,
        ctx: &ndnfwd_fwd::strategy::InterestCtx<'_>,
        act: &mut ndnfwd_fwd::strategy::Actions,
    ) {
        if let Some(nh) = ctx
            .nexthops
            .iter()
            .rev()
            .find(|nh| ctx.is_eligible(nh, false))
        {
            act.send_interest(nh.face);
        }
    }
}

#[test]
fn strategy_choice_management_and_custom_strategies() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c = sim.app(r, Behaviour::Sink);
    let cheap = sim.app(r, Behaviour::Sink);
    let dear = sim.app(r, Behaviour::Sink);
    sim.route(r, "/w", sim.face_of(cheap), 1);
    sim.route(r, "/w", sim.face_of(dear), 9);
    let e = sim.engine_mut(r);
    e.set_strategy(
        name("/w/multi").as_ref(),
        "/localhost/nfd/strategy/multicast/v=4",
    )
    .unwrap();
    e.set_custom_strategy(name("/w/worst").as_ref(), Box::new(Worst))
        .unwrap();
    assert!(e
        .set_strategy(name("/x").as_ref(), "/localhost/nfd/strategy/asf")
        .is_err());
    let mut choices: Vec<(String, String)> = e
        .strategy_choices()
        .map(|(p, s)| (p.to_string(), s))
        .collect();
    choices.sort();
    assert_eq!(
        choices,
        [
            (
                "/".to_string(),
                "/localhost/nfd/strategy/best-route/v=5".to_string()
            ),
            (
                "/w/multi".to_string(),
                "/localhost/nfd/strategy/multicast/v=4".to_string()
            ),
            (
                "/w/worst".to_string(),
                "/localhost/nfd/strategy/worst/v=1".to_string()
            ),
        ]
    );
    sim.express(c, interest("/w/worst/1", 1), b"");
    sim.express(c, interest("/w/multi/1", 2), b"");
    sim.express(c, interest("/w/plain/1", 3), b"");
    sim.run_for(MS);
    assert_eq!(
        sim.received(dear, PacketKind::Interest).len(),
        2,
        "worst and multicast"
    );
    assert_eq!(
        sim.received(cheap, PacketKind::Interest).len(),
        2,
        "multicast and best-route"
    );
    let e = sim.engine_mut(r);
    assert_eq!(e.unset_strategy(name("/w/worst").as_ref()), Ok(true));
    assert!(
        e.unset_strategy(ndn_packet::Name::new().as_ref()).is_err(),
        "root stays"
    );
    assert_eq!(
        e.strategy_of(name("/w/worst/2").as_ref()),
        "/localhost/nfd/strategy/best-route/v=5"
    );
}

#[test]
fn each_downstream_gets_the_nack_with_its_own_nonce() {
    let mut sim = Sim::new();
    let r = sim.default_node();
    let c1 = sim.app(r, Behaviour::Sink);
    let c2 = sim.app(r, Behaviour::Sink);
    let up = sim.app(r, Behaviour::Sink);
    sim.route(r, "/p", sim.face_of(up), 1);
    sim.express(c1, interest("/p/agg", 11), b"a");
    sim.express(c2, interest("/p/agg", 22), b"b");
    sim.run_for(MS);
    let sent = sim.received(up, PacketKind::Interest)[0].clone();
    assert_eq!(interest_of(&sent).nonce(), Some(11u32.to_be_bytes()));
    let lp = RxLp {
        pit_token: sent.lp.pit_token,
        nack: Some(Some(NackReason::NoRoute)),
        ..RxLp::default()
    };
    sim.send(up, sent.wire.clone(), lp);
    sim.run_for(MS);
    for (c, nonce, token) in [(c1, 11u32, b"a"), (c2, 22, b"b")] {
        let n = sim.received(c, PacketKind::Nack);
        assert_eq!(n.len(), 1);
        assert_eq!(interest_of(n[0]).nonce(), Some(nonce.to_be_bytes()));
        assert_eq!(n[0].lp.pit_token.as_bytes(), token);
        assert_eq!(n[0].lp.nack, Some(NackReason::NoRoute));
    }
}
