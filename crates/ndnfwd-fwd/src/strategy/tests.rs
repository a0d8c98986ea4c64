use super::*;
use ndn_packet::link::{FaceScope, LinkType};
use ndn_packet::{Name, NameHasher, SipVariant};
use proptest::prelude::{any, prop_assert, prop_assert_eq, proptest};

fn faces() -> FaceTable {
    let mut t = FaceTable::new();
    for id in 1..=4 {
        t.insert(id, FaceInfo::network());
    }
    t.insert(10, FaceInfo::local());
    t.insert(
        20,
        FaceInfo {
            scope: FaceScope::NonLocal,
            link: LinkType::AdHoc,
        },
    );
    t
}

fn nh(face: FaceId, cost: u32) -> NextHop {
    NextHop { face, cost }
}

fn out(face: FaceId, sent: u64) -> OutRecordInfo {
    OutRecordInfo {
        face,
        nonce: 1,
        sent,
        nacked: None,
    }
}

fn ctx<'a>(
    faces: &'a FaceTable,
    ingress: FaceId,
    retx: bool,
    nexthops: &'a [NextHop],
    outs: &'a [OutRecordInfo],
) -> InterestCtx<'a> {
    InterestCtx {
        now: 1_000_000_000,
        ingress,
        ingress_info: faces.get(ingress).unwrap(),
        scope: NameScope::Global,
        retransmission: retx,
        nexthops,
        out_records: outs,
        faces,
    }
}

fn run(s: &mut dyn Strategy, c: &InterestCtx<'_>) -> Actions {
    let mut a = Actions::new();
    s.after_receive_interest(c, &mut a);
    a
}

#[test]
fn best_route_new_takes_lowest_cost_but_never_the_downstream() {
    let f = faces();
    let nhs = [nh(1, 10), nh(2, 20), nh(3, 30)];
    let mut br = BestRoute::new();
    assert_eq!(run(&mut br, &ctx(&f, 4, false, &nhs, &[])).sends(), &[1]);
    assert_eq!(run(&mut br, &ctx(&f, 1, false, &nhs, &[])).sends(), &[2]);
    let only_back = [nh(1, 10)];
    let a = run(&mut br, &ctx(&f, 1, false, &only_back, &[]));
    assert!(a.sends().is_empty());
    assert_eq!(a.nack(), Some(NackReason::NoRoute));
    let a = run(&mut br, &ctx(&f, 1, false, &[], &[]));
    assert_eq!(a.nack(), Some(NackReason::NoRoute));
}

#[test]
fn best_route_retransmission_tries_next_then_earliest() {
    let f = faces();
    let nhs = [nh(1, 10), nh(2, 20), nh(3, 30)];
    let mut br = BestRoute::new();
    let outs = [out(1, 100)];
    assert_eq!(run(&mut br, &ctx(&f, 4, true, &nhs, &outs)).sends(), &[2]);
    let outs = [out(1, 100), out(2, 50)];
    assert_eq!(run(&mut br, &ctx(&f, 4, true, &nhs, &outs)).sends(), &[3]);
    let outs = [out(1, 300), out(2, 100), out(3, 200)];
    assert_eq!(run(&mut br, &ctx(&f, 4, true, &nhs, &outs)).sends(), &[2]);
    // The downstream itself is never a candidate, even when it was used earliest.
    let outs = [out(1, 300), out(2, 200), out(3, 400)];
    assert_eq!(run(&mut br, &ctx(&f, 2, true, &nhs, &outs)).sends(), &[1]);
    // Retransmission with nowhere to go: nothing, no Nack.
    let a = run(&mut br, &ctx(&f, 1, true, &[nh(1, 1)], &[]));
    assert_eq!(a, Actions::new());
}

#[test]
fn scope_rules() {
    let f = faces();
    let nhs = [nh(1, 10), nh(10, 20)];
    let mut br = BestRoute::new();
    let mut c = ctx(&f, 2, false, &nhs, &[]);
    c.scope = NameScope::Localhost;
    assert_eq!(
        run(&mut br, &c).sends(),
        &[10],
        "/localhost only to local faces"
    );
    c.scope = NameScope::Localhop;
    assert_eq!(
        run(&mut br, &c).sends(),
        &[10],
        "/localhop from non-local: not onward"
    );
    let mut c = ctx(&f, 10, false, &nhs, &[]);
    c.scope = NameScope::Localhop;
    assert_eq!(
        run(&mut br, &c).sends(),
        &[1],
        "/localhop from local may go out"
    );
    assert_eq!(
        NameScope::of(Name::from_uri("/localhost/nfd").unwrap().as_ref()),
        NameScope::Localhost
    );
    assert_eq!(
        NameScope::of(Name::from_uri("/localhop/x").unwrap().as_ref()),
        NameScope::Localhop
    );
    assert_eq!(
        NameScope::of(Name::from_uri("/a/localhost").unwrap().as_ref()),
        NameScope::Global
    );
    assert_eq!(
        NameScope::of(Name::from_uri("/32=localhost").unwrap().as_ref()),
        NameScope::Global
    );
    for (uri, want) in [
        ("/localhost", NameScope::Localhost),
        ("/localhop", NameScope::Localhop),
        ("/localhostx/a", NameScope::Global),
        ("/localhos/t", NameScope::Global),
        ("/localhopp", NameScope::Global),
        ("/", NameScope::Global),
        ("/8=localhost", NameScope::Localhost),
    ] {
        let name = Name::from_uri(uri).unwrap();
        assert_eq!(NameScope::of(name.as_ref()), want, "{uri}");
    }
}

#[test]
fn ad_hoc_face_may_send_back_and_unknown_faces_are_skipped() {
    let f = faces();
    let mut br = BestRoute::new();
    let nhs = [nh(99, 1), nh(20, 5)];
    assert_eq!(run(&mut br, &ctx(&f, 20, false, &nhs, &[])).sends(), &[20]);
}

#[test]
fn multicast_fans_out_except_ingress() {
    let f = faces();
    let nhs = [nh(1, 10), nh(2, 20), nh(3, 30), nh(10, 1)];
    let mut mc = Multicast::new();
    assert_eq!(
        run(&mut mc, &ctx(&f, 2, false, &nhs, &[])).sends(),
        &[1, 3, 10]
    );
    let a = run(&mut mc, &ctx(&f, 2, false, &[nh(2, 1)], &[]));
    assert_eq!(a.nack(), Some(NackReason::NoRoute));
    let a = run(&mut mc, &ctx(&f, 2, true, &[nh(2, 1)], &[]));
    assert_eq!(a, Actions::new());
}

#[test]
fn actions_fanout_is_bounded() {
    let mut a = Actions::new();
    for i in 0..MAX_FANOUT as u32 {
        assert!(a.send_interest(i));
    }
    assert!(!a.send_interest(99));
    assert_eq!(a.sends().len(), MAX_FANOUT);
    a.nack_downstreams(NackReason::Congestion);
    assert_eq!(a.nack(), Some(NackReason::Congestion));
    a.clear();
    assert_eq!(a, Actions::new());
}

#[test]
fn instantiate_by_name_and_version() {
    let s = instantiate("/localhost/nfd/strategy/best-route").unwrap();
    assert_eq!(
        full_name(s.as_ref()),
        "/localhost/nfd/strategy/best-route/v=5"
    );
    assert!(instantiate("/localhost/nfd/strategy/multicast/v=4").is_ok());
    assert_eq!(
        instantiate("/localhost/nfd/strategy/multicast/v=1").err(),
        Some(StrategyError::Unknown)
    );
    assert_eq!(
        instantiate("/localhost/nfd/strategy/asf").err(),
        Some(StrategyError::Unknown)
    );
    assert_eq!(
        instantiate("/best-route").err(),
        Some(StrategyError::Unknown)
    );
    assert_eq!(
        instantiate("/localhost/nfd/strategy/best-route/x").err(),
        Some(StrategyError::Unknown)
    );
}

fn hasher() -> NameHasher {
    NameHasher::new([3; 16], SipVariant::Sip13)
}

#[test]
fn choice_basics() {
    let mut t = StrategyChoice::new(hasher(), 0);
    let n = |s: &str| Name::from_uri(s).unwrap();
    assert_eq!(t.find_name(n("/a/b").as_ref()), 0);
    t.insert(n("/a").as_ref(), 1).unwrap();
    t.insert(n("/a/b/c").as_ref(), 2).unwrap();
    assert_eq!(t.find_name(n("/a/b").as_ref()), 1);
    assert_eq!(t.find_name(n("/a/b/c/d").as_ref()), 2);
    assert_eq!(t.find_name(n("/b").as_ref()), 0);
    assert_eq!(t.len(), 3);
    assert_eq!(t.remove(n("/a").as_ref()), Ok(true));
    assert_eq!(t.remove(n("/a").as_ref()), Ok(false));
    assert_eq!(
        t.remove(Name::new().as_ref()),
        Err(StrategyError::RootUnset)
    );
    assert_eq!(t.find_name(n("/a/b").as_ref()), 0);
    t.insert(Name::new().as_ref(), 3).unwrap();
    assert_eq!(t.find_name(n("/a/b").as_ref()), 3);
    assert_eq!(t.iter().count(), 2);
}

proptest! {
    /// The table agrees with a plain reference: the longest of the chosen prefixes.
    #[test]
    fn choice_matches_reference(
        ops in proptest::collection::vec((0u8..3, 0usize..4, 0u8..3, any::<bool>()), 0..30),
        probe in proptest::collection::vec(0u8..3, 0..6),
    ) {
        let comp = |i: u8| [b"x".as_slice(), b"y", b"z"][usize::from(i)];
        let mut t = StrategyChoice::new(hasher(), 0);
        let mut reference: Vec<(Name, StrategyId)> = Vec::new();
        for (first, depth, strategy, insert) in ops {
            let name = (0..depth).fold(Name::new(), |n, k| n.push(comp((first + k as u8) % 3)));
            if name.is_empty() {
                continue;
            }
            reference.retain(|(n, _)| *n != name);
            if insert {
                t.insert(name.as_ref(), strategy).unwrap();
                reference.push((name, strategy));
            } else {
                t.remove(name.as_ref()).unwrap();
            }
        }
        let name = probe.iter().fold(Name::new(), |n, &c| n.push(comp(c)));
        let want = reference
            .iter()
            .filter(|(p, _)| p.as_ref().is_prefix_of(name.as_ref()))
            .max_by_key(|(p, _)| p.len())
            .map_or(0, |(_, s)| *s);
        prop_assert_eq!(t.find_name(name.as_ref()), want);
    }
}

proptest! {
    /// Best-route declares the rule the engine applies to new Interests on its behalf, and its
    /// own decision is exactly that rule: the first nexthop `eligible_egress` accepts, else
    /// Nack NoRoute. Multicast does not declare it.
    #[test]
    fn best_route_new_interest_is_the_first_eligible_rule(
        hops in proptest::collection::vec((0usize..7, 0u32..4), 0..6),
        ingress in 0usize..6,
        scope in 0usize..3,
    ) {
        let f = faces();
        let ids: [FaceId; 7] = [1, 2, 3, 4, 10, 20, 99];
        let ingress = [1, 2, 3, 4, 10, 20][ingress];
        let scope = [NameScope::Global, NameScope::Localhop, NameScope::Localhost][scope];
        let mut nhs: Vec<NextHop> = hops.into_iter().map(|(i, c)| nh(ids[i], c)).collect();
        nhs.sort_by_key(|h| (h.cost, h.face));
        nhs.dedup_by_key(|h| h.face);
        let c = InterestCtx { scope, ..ctx(&f, ingress, false, &nhs, &[]) };
        let mut br = BestRoute::new();
        prop_assert!(br.new_interest_to_first_eligible());
        prop_assert!(!Multicast::new().new_interest_to_first_eligible());
        let rule = nhs
            .iter()
            .find(|h| eligible_egress(&f, ingress, c.ingress_info, scope, h.face).is_some());
        let mut want = Actions::new();
        match rule {
            Some(h) => {
                want.send_interest(h.face);
            }
            None => want.nack_downstreams(NackReason::NoRoute),
        }
        prop_assert_eq!(run(&mut br, &c), want);
    }
}
