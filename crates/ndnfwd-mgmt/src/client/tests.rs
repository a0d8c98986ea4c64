use super::*;
use crate::auth::CommandInterest;
use crate::dispatch::{Manager, MgmtConfig, Now, Outcome, RequestFace};
use crate::fake::{face, FakeBackend};
use crate::records::FaceScope;
use ndn_packet::interest::Interest;

const APP: RequestFace = RequestFace {
    id: 256,
    local: true,
};

fn n(uri: &str) -> Name {
    Name::from_uri(uri).unwrap()
}

/// An exchange that hands every Interest to an in-process manager, as the CLI's Unix face would.
fn in_process<'a>(
    m: &'a mut Manager,
    b: &'a mut FakeBackend,
) -> impl FnMut(&[u8]) -> Result<Vec<u8>, ExchangeError> + 'a {
    let mut t = 0;
    move |i: &[u8]| {
        t += 1;
        let now = Now {
            mono_ns: t,
            unix_ms: now_ms(),
        };
        match m.handle_interest(b, i, APP, now) {
            Outcome::Reply(d) => Ok(d.to_vec()),
            _ => Err(ExchangeError::Timeout),
        }
    }
}

#[test]
fn every_ctl_operation_round_trips_through_a_manager() {
    let mut m = Manager::new(MgmtConfig::default());
    let mut b = FakeBackend::new();
    for id in 300..700 {
        b.faces.insert(
            id,
            face(
                id,
                &format!("tcp4://10.1.{}.{}:6363", id / 256, id % 256),
                FaceScope::NonLocal,
            ),
        );
    }
    let mut c = Client::new(in_process(&mut m, &mut b), Signing::Digest);
    let status = c.status().unwrap();
    assert_eq!(status.nfd_version, "ndnfwd-test");
    assert!(status_text(&status).contains("version=ndnfwd-test"));
    let faces = c.faces().unwrap();
    assert_eq!(faces.len(), 402, "multi-segment dataset reassembled");
    let table = faces_table(&faces);
    assert_eq!(table.lines().count(), 403);
    assert!(table.starts_with("FACEID  REMOTE"));
    let filter = FaceQueryFilter {
        uri_scheme: Some("udp4".into()),
        ..Default::default()
    };
    assert_eq!(c.face_query(&filter).unwrap().len(), 1);
    assert_eq!(c.channels().unwrap().len(), 1);

    let r = c.face_create("udp4://192.0.2.50:6363", None).unwrap();
    assert!(r.is_ok(), "{}", response_text(&r));
    let created = r.body.as_ref().and_then(|b| b.face_id).unwrap();
    assert!(response_text(&r).contains("uri=udp4://192.0.2.50:6363"));
    let r = c
        .route_add(&n("/video"), created as FaceId, 0, 10, Some(60_000))
        .unwrap();
    assert_eq!(r.code, 200);
    let routes = c.routes().unwrap();
    assert_eq!(routes[0].routes[0].expiration_period, Some(60_000));
    let table = routes_table(&routes);
    assert!(
        table.contains("/video") && table.contains("child-inherit") && table.contains("60000ms")
    );
    assert!(to_json(&routes).contains("\"name\": \"/video\""));
    assert_eq!(
        c.route_remove(&n("/video"), created as FaceId, 0)
            .unwrap()
            .code,
        200
    );
    assert!(c.routes().unwrap()[0].routes.is_empty());
    assert_eq!(c.face_destroy(created as FaceId).unwrap().code, 200);

    let mut p = ControlParameters {
        name: Some(n("/f")),
        ..Default::default()
    };
    p.cost = Some(3);
    assert_eq!(c.command("fib", "add-nexthop", &p).unwrap().code, 200);
    let fib = c.fib().unwrap();
    assert!(
        fib_table(&fib).contains("/f      256 (3)"),
        "{}",
        fib_table(&fib)
    );

    let r = c
        .strategy_set(&n("/m"), &n("/localhost/nfd/strategy/multicast"))
        .unwrap();
    assert_eq!(r.code, 200);
    let s = c.strategies().unwrap();
    assert!(strategies_table(&s).contains("/localhost/nfd/strategy/multicast/v=4"));
    assert_eq!(c.strategy_unset(&n("/m")).unwrap().code, 200);
    assert_eq!(c.strategies().unwrap().len(), 1);

    let r = c.cs_config(Some(500), Some(false), None).unwrap();
    assert_eq!(
        r.body.as_ref().map(|b| (b.capacity, b.flags)),
        Some((Some(500), Some(2)))
    );
    let cs = c.cs_info().unwrap();
    assert!(cs_text(&cs).contains("capacity=500\n  admit=off\n  serve=on"));
    assert_eq!(
        c.cs_erase(&n("/x"), Some(5)).unwrap().body.unwrap().count,
        Some(0)
    );
    let r = c
        .command("cs", "erase", &ControlParameters::default())
        .unwrap();
    assert_eq!(r.code, 400);
}

#[test]
fn signers_produce_forms_the_parser_recognizes() {
    let prefix = n("/localhost/nfd");
    let p = ControlParameters {
        name: Some(n("/app")),
        ..Default::default()
    };
    for (signing, signed) in [
        (Signing::Unsigned, false),
        (Signing::DigestCommandName, true),
        (Signing::Digest, true),
    ] {
        let mut s = CommandSigner::new(signing);
        let wire = s
            .command_interest(&prefix, "rib", "register", &p, 1000)
            .unwrap();
        let i = Interest::new_checked(&wire).unwrap();
        let ci = CommandInterest::parse(&i).unwrap();
        assert_eq!(
            ControlParameters::new_checked(ci.params.unwrap().value()),
            Ok(p.clone())
        );
        assert_eq!(ci.signature.is_some(), signed);
        if let Some(sig) = ci.signature {
            assert!(sig.digest_matches());
        }
        assert_eq!(i.lifetime(), Some(LIFETIME_MS));
    }
}

#[test]
fn transport_and_protocol_failures_are_reported() {
    let mut dead = |_: &[u8]| Err(ExchangeError::Io(std::io::ErrorKind::ConnectionRefused));
    let mut c = Client::new(&mut dead, Signing::Unsigned);
    assert_eq!(
        c.status(),
        Err(ClientError::Exchange(ExchangeError::Io(
            std::io::ErrorKind::ConnectionRefused
        )))
    );
    // A Data with the wrong name for a segment.
    let mut wrong = |_: &[u8]| {
        Ok(ndn_packet::DataBuilder::new(n("/elsewhere/v=1/seg=0"))
            .encode()
            .unwrap())
    };
    assert_eq!(
        fetch_dataset(&mut wrong, &n("/localhost/nfd/fib/list")),
        Err(ClientError::UnexpectedName)
    );
    // Segments that never end.
    let mut endless = |i: &[u8]| {
        let i = Interest::new_checked(i).unwrap();
        let mut name = i.name().to_name();
        if i.can_be_prefix() {
            name = name
                .push_number(tt::VERSION_COMPONENT, 1)
                .push_number(tt::SEGMENT_COMPONENT, 0);
        }
        Ok(ndn_packet::DataBuilder::new(name)
            .content(vec![1])
            .encode()
            .unwrap())
    };
    let prefix = n("/localhost/nfd/fib/list");
    assert_eq!(
        fetch_dataset(&mut endless, &prefix),
        Err(ClientError::BadSegmentation)
    );
    let mut garbage = |_: &[u8]| Ok(vec![6, 0]);
    assert!(matches!(
        fetch_dataset(&mut garbage, &prefix),
        Err(ClientError::Decode(_))
    ));
    assert!(parse_command_response(&[0xff]).is_err());
    assert_eq!(
        ClientError::Rejected(400).to_string(),
        "request rejected with status 400"
    );
}
