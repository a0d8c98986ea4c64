//! Engines connected back to back over virtual links: multi-hop forwarding, loops, Nack
//! propagation, caching along the path.

mod harness;

use harness::*;
use ndn_packet::link::PacketKind;
use ndn_packet::lp::NackReason;

#[test]
fn multi_hop_interest_and_data_with_per_hop_tokens() {
    let mut sim = Sim::new();
    let (a, b, c) = (sim.default_node(), sim.default_node(), sim.default_node());
    let (ab, _ba) = sim.link(a, b, 2 * MS);
    let (bc, _cb) = sim.link(b, c, 3 * MS);
    let consumer = sim.app(a, Behaviour::Sink);
    let producer = sim.producer(c, "/video", 1000);
    sim.route(a, "/video", ab, 1);
    sim.route(b, "/video", bc, 1);
    sim.route(c, "/video", sim.face_of(producer), 1);
    sim.express(
        consumer,
        interest("/video/seg=1", 77).hop_limit(10).lifetime_ms(2000),
        b"app",
    );
    sim.run_for(MS);
    assert!(
        sim.received(producer, PacketKind::Interest).is_empty(),
        "still on the wire"
    );
    sim.run_for(20 * MS);
    let at_p = sim.received(producer, PacketKind::Interest);
    assert_eq!(at_p.len(), 1);
    let i = interest_of(at_p[0]);
    assert_eq!(i.hop_limit(), Some(7), "decremented at each of three hops");
    assert_eq!(i.nonce(), Some(77u32.to_be_bytes()));
    assert_eq!(
        i.lifetime(),
        Some(2000),
        "each hop's new entry lives the Interest's lifetime"
    );
    let d = sim.received(consumer, PacketKind::Data);
    assert_eq!(d.len(), 1);
    assert_eq!(name_of(d[0]), "/video/seg=1");
    assert_eq!(d[0].lp.pit_token.as_bytes(), b"app");
    for n in [a, b, c] {
        let k = sim.engine(n).counters();
        assert_eq!(
            (k.tx_interest, k.tx_data, k.satisfied),
            (1, 1, 1),
            "node {n}"
        );
        assert_eq!(sim.engine(n).pcct().len_pit(), 0);
        assert_eq!(sim.engine(n).pcct().len_cs(), 1);
        // Data came back through our own token at every hop.
        assert_eq!(sim.engine(n).pcct().counters().token_miss, 0);
    }
}

#[test]
fn caches_along_the_path_answer_later_consumers() {
    let mut sim = Sim::new();
    let (a, b) = (sim.default_node(), sim.default_node());
    let (ab, _) = sim.link(a, b, MS);
    let c1 = sim.app(a, Behaviour::Sink);
    let c2 = sim.app(b, Behaviour::Sink);
    let c3 = sim.app(a, Behaviour::Sink);
    let p = sim.producer(b, "/p", 10_000);
    sim.route(a, "/p", ab, 1);
    sim.route(b, "/p", sim.face_of(p), 1);
    sim.express(c1, interest("/p/x", 1), b"");
    sim.run_for(10 * MS);
    sim.express(c2, interest("/p/x", 2), b"");
    sim.express(c3, interest("/p/x", 3), b"");
    sim.run_for(10 * MS);
    assert_eq!(sim.received(p, PacketKind::Interest).len(), 1);
    assert_eq!(sim.received(c2, PacketKind::Data).len(), 1);
    assert_eq!(sim.received(c3, PacketKind::Data).len(), 1);
    assert_eq!(sim.engine(a).counters().cs_hit, 1);
    assert_eq!(sim.engine(b).counters().cs_hit, 1);
}

#[test]
fn loop_detected_by_duplicate_nonce_and_nacked_back() {
    // Two links between A and B; A routes /x over the first, B routes it back over the second.
    let mut sim = Sim::new();
    let (a, b) = (sim.default_node(), sim.default_node());
    let (a1, _b1) = sim.link(a, b, MS);
    let (_a2, b2) = sim.link(a, b, MS);
    let consumer = sim.app(a, Behaviour::Sink);
    sim.route(a, "/x", a1, 1);
    sim.route(b, "/x", b2, 1);
    sim.express(consumer, interest("/x/loop", 1234), b"c");
    sim.run_for(20 * MS);
    assert_eq!(
        sim.engine(a).counters().dup_nonce,
        1,
        "A sees its own Interest come back"
    );
    let n = sim.received(consumer, PacketKind::Nack);
    assert_eq!(
        n.len(),
        1,
        "the Duplicate Nack travels back to the consumer"
    );
    assert_eq!(n[0].lp.nack, Some(NackReason::Duplicate));
    assert_eq!(n[0].lp.pit_token.as_bytes(), b"c");
    for node in [a, b] {
        assert_eq!(sim.engine(node).pcct().len_pit(), 0, "node {node}");
    }
    assert_eq!(sim.engine(b).counters().rx_nack, 1);
}

#[test]
fn no_route_nack_propagates_to_the_consumer() {
    let mut sim = Sim::new();
    let (a, b) = (sim.default_node(), sim.default_node());
    let (ab, _) = sim.link(a, b, MS);
    let consumer = sim.app(a, Behaviour::Sink);
    sim.route(a, "/far", ab, 1);
    sim.express(consumer, interest("/far/away", 5), b"t");
    sim.run_for(10 * MS);
    assert_eq!(sim.engine(b).counters().no_route, 1);
    let n = sim.received(consumer, PacketKind::Nack);
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].lp.nack, Some(NackReason::NoRoute));
    assert_eq!(interest_of(n[0]).nonce(), Some(5u32.to_be_bytes()));
    assert_eq!(sim.engine(a).pcct().len_pit(), 0);
}

#[test]
fn least_severe_nack_reason_across_routers() {
    // A multicasts to B (no route: NoRoute) and C (its producer is congested: Congestion).
    let mut sim = Sim::new();
    let (a, b, c) = (sim.default_node(), sim.default_node(), sim.default_node());
    sim.engine_mut(a)
        .set_strategy(name("/m").as_ref(), "/localhost/nfd/strategy/multicast")
        .unwrap();
    let (ab, _) = sim.link(a, b, MS);
    let (ac, _) = sim.link(a, c, 4 * MS);
    let busy = sim.app(c, Behaviour::Nacker(NackReason::Congestion));
    sim.route(c, "/m", sim.face_of(busy), 1);
    sim.route(a, "/m", ab, 1);
    sim.route(a, "/m", ac, 2);
    let consumer = sim.app(a, Behaviour::Sink);
    sim.express(consumer, interest("/m/x", 9), b"");
    sim.run_for(4 * MS);
    assert!(
        sim.received(consumer, PacketKind::Nack).is_empty(),
        "C has not answered yet"
    );
    sim.run_for(10 * MS);
    let n = sim.received(consumer, PacketKind::Nack);
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].lp.nack, Some(NackReason::Congestion));
}

#[test]
fn consumer_retransmission_reaches_the_second_path_after_suppression() {
    // A has two routes to the producer's router; the cheaper one is a black hole.
    let mut sim = Sim::new();
    let (a, hole, b) = (sim.default_node(), sim.default_node(), sim.default_node());
    let (ah, _) = sim.link(a, hole, MS);
    let (ab, _) = sim.link(a, b, MS);
    let sink = sim.app(hole, Behaviour::Sink);
    sim.route(hole, "/p", sim.face_of(sink), 1);
    let p = sim.producer(b, "/p", 0);
    sim.route(b, "/p", sim.face_of(p), 1);
    sim.route(a, "/p", ah, 1);
    sim.route(a, "/p", ab, 5);
    let consumer = sim.app(a, Behaviour::Sink);
    sim.express(consumer, interest("/p/r", 1), b"");
    sim.run_for(50 * MS);
    assert!(sim.received(consumer, PacketKind::Data).is_empty());
    sim.express(consumer, interest("/p/r", 2), b"");
    sim.run_for(50 * MS);
    assert_eq!(sim.received(consumer, PacketKind::Data).len(), 1);
    assert_eq!(sim.received(sink, PacketKind::Interest).len(), 1);
    // The black hole's entry expires there in time.
    sim.run_for(5_000 * MS);
    assert_eq!(sim.engine(hole).counters().unsatisfied, 1);
    assert_eq!(sim.engine(hole).pcct().len_pit(), 0);
}
