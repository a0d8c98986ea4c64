use super::*;
use crate::auth::DIGEST_SHA256_IDENTITY;
use crate::client::{CommandSigner, Signing};
use crate::fake::{face, FakeBackend};
use crate::fixtures;
use crate::records::{decode_records, FacePersistency, FaceQueryFilter, FaceScope, FaceStatus};
use ndn_packet::data::Data;
use ndn_packet::signature::{sha256, sig_type};
use ndn_packet::InterestBuilder;

const T0: u64 = 1_700_000_000_000;
const LOCAL: RequestFace = RequestFace {
    id: 256,
    local: true,
};
const REMOTE: RequestFace = RequestFace {
    id: 257,
    local: false,
};

fn now(unix_ms: u64) -> Now {
    Now {
        mono_ns: (unix_ms - T0) * 1_000_000 + 1_000_000_000,
        unix_ms,
    }
}

fn n(uri: &str) -> Name {
    Name::from_uri(uri).unwrap()
}

fn prefix(top: &str) -> Name {
    n(&format!("/{top}/nfd"))
}

fn command(
    top: &str,
    module: &str,
    verb: &str,
    p: &ControlParameters,
    signing: Signing,
) -> Vec<u8> {
    CommandSigner::new(signing)
        .command_interest(&prefix(top), module, verb, p, T0)
        .unwrap()
}

/// Runs `wire` and decodes the ControlResponse of the reply, checking the Data around it.
fn run(m: &mut Manager, b: &mut FakeBackend, wire: &[u8], face: RequestFace) -> ControlResponse {
    match m.handle_interest(b, wire, face, now(T0)) {
        Outcome::Reply(d) => {
            let data = Data::new_checked(&d).unwrap();
            let i = Interest::new_checked(wire).unwrap();
            assert_eq!(data.name(), i.name(), "response named as the command");
            assert_eq!(data.freshness_period(), Some(1000));
            let si = data.signature_info();
            assert_eq!(si.sig_type(), sig_type::DIGEST_SHA256);
            let signed_end = d.len() - data.signature_value().len() - 2;
            let outer = ndn_packet::tlv::read_single(&d).unwrap().value_start;
            assert_eq!(sha256(&[&d[outer..signed_end]]), data.signature_value());
            ControlResponse::new_checked(data.content().unwrap()).unwrap()
        }
        o => panic!("expected a reply, got {o:?}"),
    }
}

fn unsigned(module: &str, verb: &str, p: &ControlParameters) -> Vec<u8> {
    command("localhost", module, verb, p, Signing::Unsigned)
}

fn call(
    m: &mut Manager,
    b: &mut FakeBackend,
    module: &str,
    verb: &str,
    p: ControlParameters,
) -> (u32, ControlParameters) {
    let r = run(m, b, &unsigned(module, verb, &p), LOCAL);
    (r.code, r.body.unwrap_or_default())
}

fn named(uri: &str) -> ControlParameters {
    ControlParameters {
        name: Some(n(uri)),
        ..Default::default()
    }
}

#[test]
fn unsigned_rib_register_from_app_face_gets_full_body() {
    let (mut m, mut b) = (Manager::new(MgmtConfig::default()), FakeBackend::new());
    let r = run(
        &mut m,
        &mut b,
        &unsigned("rib", "register", &named("/app")),
        LOCAL,
    );
    assert_eq!((r.code, r.text.as_str()), (200, "Success"));
    let body = r.body.unwrap();
    assert_eq!(
        body,
        ControlParameters {
            name: Some(n("/app")),
            face_id: Some(256),
            origin: Some(0),
            cost: Some(0),
            flags: Some(1),
            ..Default::default()
        }
    );
    assert_eq!(b.rib[&n("/app")][0].face_id, 256);
    // ExpirationPeriod is echoed when given.
    let mut p = named("/app2");
    p.expiration_period = Some(30_000);
    p.cost = Some(7);
    let r = run(&mut m, &mut b, &unsigned("rib", "register", &p), LOCAL);
    let body = r.body.unwrap();
    assert_eq!((body.expiration_period, body.cost), (Some(30_000), Some(7)));
    assert_eq!(b.rib[&n("/app2")][0].expiration_period, Some(30_000));
    assert_eq!(m.counters().commands_ok, 2);
}

#[test]
fn python_ndn_commands_register_and_replays_are_refused() {
    let (mut m, mut b) = (Manager::new(MgmtConfig::default()), FakeBackend::new());
    let r = run(&mut m, &mut b, &fixtures::PY_REGISTER_V02, LOCAL);
    assert_eq!(r.code, 200);
    assert_eq!(r.body.unwrap().name, Some(n("/app")));
    let r = run(&mut m, &mut b, &fixtures::PY_REGISTER_V02, LOCAL);
    assert_eq!(r.code, 403);
    assert_eq!(
        m.counters().unauthorized.get("replayed_timestamp"),
        Some(&1)
    );

    // The v0.3 form carries its own SignatureTime; use it as the wall clock.
    let i = Interest::new_checked(&fixtures::PY_REGISTER_V03).unwrap();
    let info = ndn_packet::SignatureInfo::new_checked(i.signature_info().unwrap()).unwrap();
    let ts = ndn_packet::tlv::Reader::new(info.value())
        .map(|e| e.unwrap())
        .find(|e| e.typ == 40)
        .unwrap()
        .nni()
        .unwrap();
    let mut m = Manager::new(MgmtConfig::default());
    let at = Now {
        mono_ns: 1,
        unix_ms: ts,
    };
    match m.handle_interest(&mut b, &fixtures::PY_REGISTER_V03, LOCAL, at) {
        Outcome::Reply(d) => {
            let data = Data::new_checked(&d).unwrap();
            let r = ControlResponse::new_checked(data.content().unwrap()).unwrap();
            assert_eq!(r.code, 200);
        }
        o => panic!("{o:?}"),
    }
    // Far from the wall clock: outside the grace period.
    let late = Now {
        mono_ns: 2,
        unix_ms: ts + 10 * 60_000,
    };
    let mut m = Manager::new(MgmtConfig::default());
    assert!(matches!(
        m.handle_interest(&mut b, &fixtures::PY_REGISTER_V03, LOCAL, late),
        Outcome::Reply(_)
    ));
    assert_eq!(m.counters().unauthorized.get("stale_timestamp"), Some(&1));
}

#[test]
fn signed_forms_built_by_the_client_are_accepted_and_ordered_per_signer() {
    let (mut m, mut b) = (Manager::new(MgmtConfig::default()), FakeBackend::new());
    let mut signer = CommandSigner::new(Signing::Digest);
    let mut legacy = CommandSigner::new(Signing::DigestCommandName);
    let p = named("/x");
    let a = signer
        .command_interest(&prefix("localhost"), "rib", "register", &p, T0)
        .unwrap();
    let c = legacy
        .command_interest(&prefix("localhost"), "rib", "register", &p, T0)
        .unwrap();
    assert_eq!(run(&mut m, &mut b, &a, LOCAL).code, 200);
    // Same signer (/localhost/identity/digest-sha256), same timestamp: refused.
    assert_eq!(run(&mut m, &mut b, &c, LOCAL).code, 403);
    let d = legacy
        .command_interest(&prefix("localhost"), "rib", "register", &p, T0 + 1)
        .unwrap();
    let d2 = legacy
        .command_interest(&prefix("localhost"), "rib", "register", &p, T0)
        .unwrap();
    assert_eq!(run(&mut m, &mut b, &d, LOCAL).code, 200);
    // The signer itself keeps timestamps increasing even when the clock does not.
    assert_eq!(run(&mut m, &mut b, &d2, LOCAL).code, 200);
    assert!(!DIGEST_SHA256_IDENTITY.is_empty());
}

#[test]
fn every_verb_with_nfd_defaults_and_codes() {
    let (mut m, mut b) = (Manager::new(MgmtConfig::default()), FakeBackend::new());
    // faces/create: new (200), existing (409 with body), unsupported scheme (406), non-canonical.
    let mut p = ControlParameters {
        uri: Some("udp4://192.0.2.9:6363".into()),
        ..Default::default()
    };
    let (code, body) = call(&mut m, &mut b, "faces", "create", p.clone());
    assert_eq!(code, 200);
    assert_eq!(body.face_id, Some(258));
    assert_eq!(body.uri.as_deref(), Some("udp4://192.0.2.9:6363"));
    assert!(body.local_uri.is_some() && body.flags.is_some());
    assert_eq!(body.face_persistency, Some(FacePersistency::Persistent));
    assert_eq!(call(&mut m, &mut b, "faces", "create", p.clone()).0, 409);
    assert_eq!(
        call(&mut m, &mut b, "faces", "create", p.clone()).1.face_id,
        Some(258)
    );
    p.uri = Some("ether://[01:00:5e:00:17:aa]".into());
    assert_eq!(call(&mut m, &mut b, "faces", "create", p.clone()).0, 406);
    p.uri = Some("udp4://192.0.2.9".into());
    assert_eq!(call(&mut m, &mut b, "faces", "create", p.clone()).0, 400);
    // faces/update: FaceId 0 means the requesting face; invalid change 409; unknown face 404.
    let (code, body) = call(
        &mut m,
        &mut b,
        "faces",
        "update",
        ControlParameters {
            face_persistency: Some(FacePersistency::Permanent),
            ..Default::default()
        },
    );
    assert_eq!(code, 200);
    assert_eq!(
        (body.face_id, body.face_persistency, body.uri),
        (Some(256), Some(FacePersistency::Permanent), None)
    );
    let bad = ControlParameters {
        face_id: Some(257),
        flags: Some(1),
        mask: Some(1),
        ..Default::default()
    };
    let (code, body) = call(&mut m, &mut b, "faces", "update", bad);
    assert_eq!((code, body.flags, body.mask), (409, Some(1), Some(1)));
    let gone = ControlParameters {
        face_id: Some(9999),
        ..Default::default()
    };
    assert_eq!(call(&mut m, &mut b, "faces", "update", gone.clone()).0, 404);
    // faces/destroy: 200 whether or not the face exists.
    assert_eq!(call(&mut m, &mut b, "faces", "destroy", gone).0, 200);
    let (code, body) = call(
        &mut m,
        &mut b,
        "faces",
        "destroy",
        ControlParameters {
            face_id: Some(258),
            ..Default::default()
        },
    );
    assert_eq!((code, body.face_id), (200, Some(258)));
    assert!(!b.faces.contains_key(&258));

    // fib/add-nexthop defaults FaceId to the requester and Cost to 0.
    let (code, body) = call(&mut m, &mut b, "fib", "add-nexthop", named("/f"));
    assert_eq!((code, body.face_id, body.cost), (200, Some(256), Some(0)));
    assert_eq!(b.fib[&n("/f")][&256], 0);
    let mut p = named("/f");
    p.face_id = Some(4242);
    assert_eq!(call(&mut m, &mut b, "fib", "add-nexthop", p).0, 410);
    let long = "/c".repeat(33);
    assert_eq!(
        call(&mut m, &mut b, "fib", "add-nexthop", named(&long)).0,
        414
    );
    assert_eq!(call(&mut m, &mut b, "rib", "register", named(&long)).0, 414);
    let (code, body) = call(&mut m, &mut b, "fib", "remove-nexthop", named("/f"));
    assert_eq!((code, body.face_id), (200, Some(256)));
    assert!(b.fib[&n("/f")].is_empty());
    assert_eq!(
        call(&mut m, &mut b, "fib", "remove-nexthop", named("/none")).0,
        200
    );

    // rib/unregister defaults Origin to app and FaceId to the requester.
    call(&mut m, &mut b, "rib", "register", named("/r"));
    let (code, body) = call(&mut m, &mut b, "rib", "unregister", named("/r"));
    assert_eq!((code, body.face_id, body.origin), (200, Some(256), Some(0)));
    assert!(b.rib[&n("/r")].is_empty());

    // strategy-choice: the answer carries the versioned instance name.
    let mut p = named("/s");
    p.strategy = Some(n("/localhost/nfd/strategy/multicast"));
    let (code, body) = call(&mut m, &mut b, "strategy-choice", "set", p.clone());
    assert_eq!(code, 200);
    assert_eq!(
        body.strategy.unwrap().to_string(),
        "/localhost/nfd/strategy/multicast/v=4"
    );
    p.strategy = Some(n("/localhost/nfd/strategy/nope"));
    assert_eq!(call(&mut m, &mut b, "strategy-choice", "set", p).0, 404);
    assert_eq!(
        call(&mut m, &mut b, "strategy-choice", "unset", named("/")).0,
        400
    );
    assert_eq!(
        call(&mut m, &mut b, "strategy-choice", "unset", named("/s")).0,
        200
    );
    assert!(!b.strategies.contains_key(&n("/s")));

    // cs/config answers the resulting capacity and flags; cs/erase counts.
    let (code, body) = call(
        &mut m,
        &mut b,
        "cs",
        "config",
        ControlParameters {
            capacity: Some(100),
            flags: Some(0),
            mask: Some(2),
            ..Default::default()
        },
    );
    assert_eq!((code, body.capacity, body.flags), (200, Some(100), Some(1)));
    b.cs_names = (0..300).map(|i| n(&format!("/e/{i}"))).collect();
    let (code, body) = call(&mut m, &mut b, "cs", "erase", named("/e"));
    assert_eq!(
        (code, body.count, body.capacity),
        (200, Some(256), Some(256))
    );
    let mut p = named("/e");
    p.count = Some(10);
    let (_, body) = call(&mut m, &mut b, "cs", "erase", p);
    assert_eq!((body.count, body.capacity), (Some(10), None));
    assert_eq!(b.cs_names.len(), 34);
}

#[test]
fn malformed_forbidden_and_unknown_commands() {
    let (mut m, mut b) = (Manager::new(MgmtConfig::default()), FakeBackend::new());
    // Garbage where ControlParameters belongs, and no parameters at all: 400.
    let garbage = InterestBuilder::new(n("/localhost/nfd/rib/register/%68%05%07"))
        .encode()
        .unwrap();
    assert_eq!(run(&mut m, &mut b, &garbage, LOCAL).code, 400);
    let missing = InterestBuilder::new(n("/localhost/nfd/rib/register"))
        .encode()
        .unwrap();
    assert_eq!(run(&mut m, &mut b, &missing, LOCAL).code, 400);
    assert_eq!(m.counters().malformed_params, 2);
    // Valid TLV, wrong fields for the verb: 400 with ndn-cxx's text.
    let mut p = named("/a");
    p.mask = Some(1);
    let r = run(&mut m, &mut b, &unsigned("rib", "register", &p), LOCAL);
    assert_eq!(
        (r.code, r.text.as_str()),
        (400, "Mask is forbidden but present")
    );
    let r = run(
        &mut m,
        &mut b,
        &unsigned("rib", "register", &ControlParameters::default()),
        LOCAL,
    );
    assert_eq!(r.code, 400);
    assert_eq!(m.counters().invalid_params, 2);
    // Unknown verb and unknown module: 501.
    assert_eq!(
        run(&mut m, &mut b, &unsigned("rib", "frobnicate", &p), LOCAL).code,
        501
    );
    assert_eq!(
        run(&mut m, &mut b, &unsigned("nope", "list", &p), LOCAL).code,
        501
    );
    assert_eq!(m.counters().unknown_commands, 2);
    // Not management, not an Interest.
    let other = InterestBuilder::new(n("/localhost/other"))
        .encode()
        .unwrap();
    assert_eq!(
        m.handle_interest(&mut b, &other, LOCAL, now(T0)),
        Outcome::NotManagement
    );
    assert_eq!(
        m.handle_interest(&mut b, &[5, 1, 0], LOCAL, now(T0)),
        Outcome::Drop(DropReason::BadInterest)
    );
}

fn hmac_key() -> HmacKey {
    HmacKey {
        name: n("/ops/KEY/1"),
        secret: b"sesame".to_vec(),
    }
}

#[test]
fn scope_localhop_and_trusted_keys() {
    let mut b = FakeBackend::new();
    let mut m = Manager::new(MgmtConfig::default());
    let reg = unsigned("rib", "register", &named("/a"));
    assert_eq!(
        m.handle_interest(&mut b, &reg, REMOTE, now(T0)),
        Outcome::Drop(DropReason::LocalhostFromNonLocal)
    );
    let hop = command(
        "localhop",
        "rib",
        "register",
        &named("/a"),
        Signing::Unsigned,
    );
    assert_eq!(
        m.handle_interest(&mut b, &hop, REMOTE, now(T0)),
        Outcome::Drop(DropReason::LocalhopDisabled)
    );
    assert_eq!(m.counters().drops.get("localhop_disabled"), Some(&1));

    let cfg = MgmtConfig {
        localhop: true,
        hmac_keys: vec![hmac_key()],
        ..MgmtConfig::default()
    };
    let mut m = Manager::new(cfg.clone());
    assert_eq!(run(&mut m, &mut b, &hop, REMOTE).code, 403);
    let signed = command(
        "localhop",
        "rib",
        "register",
        &named("/a"),
        Signing::Hmac(hmac_key()),
    );
    let r = run(&mut m, &mut b, &signed, REMOTE);
    assert_eq!((r.code, r.body.unwrap().face_id), (200, Some(257)));
    let wrong = HmacKey {
        secret: b"guess".to_vec(),
        ..hmac_key()
    };
    let mut later = CommandSigner::new(Signing::Hmac(wrong));
    let forged = later
        .command_interest(&prefix("localhop"), "rib", "register", &named("/b"), T0 + 5)
        .unwrap();
    assert_eq!(run(&mut m, &mut b, &forged, REMOTE).code, 403);
    assert_eq!(m.counters().unauthorized.get("bad_signature"), Some(&1));
    let digest = command("localhop", "rib", "register", &named("/c"), Signing::Digest);
    assert_eq!(run(&mut m, &mut b, &digest, REMOTE).code, 403);
    // Only rib is offered under /localhop.
    let create = command(
        "localhop",
        "faces",
        "create",
        &ControlParameters::default(),
        Signing::Hmac(hmac_key()),
    );
    assert_eq!(run(&mut m, &mut b, &create, REMOTE).code, 501);

    // Local faces with TrustedKeys: python-ndn's unkeyed command is refused, HMAC accepted.
    let mut m = Manager::new(MgmtConfig {
        local_trust: LocalTrust::TrustedKeys,
        ..cfg
    });
    assert_eq!(
        run(&mut m, &mut b, &fixtures::PY_REGISTER_V02, LOCAL).code,
        403
    );
    assert_eq!(run(&mut m, &mut b, &reg, LOCAL).code, 403);
    let ok = command(
        "localhost",
        "rib",
        "register",
        &named("/k"),
        Signing::Hmac(hmac_key()),
    );
    assert_eq!(run(&mut m, &mut b, &ok, LOCAL).code, 200);
}

fn dataset_interest(uri: &str, can_be_prefix: bool) -> Vec<u8> {
    InterestBuilder::new(n(uri))
        .can_be_prefix(can_be_prefix)
        .must_be_fresh(can_be_prefix)
        .encode()
        .unwrap()
}

fn reply(o: Outcome) -> Bytes {
    match o {
        Outcome::Reply(d) => d,
        o => panic!("expected a reply, got {o:?}"),
    }
}

#[test]
fn large_face_list_is_segmented_and_served_from_the_cache() {
    let mut b = FakeBackend::new();
    for id in 300..800 {
        let uri = format!("udp4://10.0.{}.{}:6363", id / 256, id % 256);
        b.faces.insert(id, face(id, &uri, FaceScope::NonLocal));
    }
    let mut m = Manager::new(MgmtConfig::default());
    let first = reply(m.handle_interest(
        &mut b,
        &dataset_interest("/localhost/nfd/faces/list", true),
        LOCAL,
        now(T0),
    ));
    let d0 = Data::new_checked(&first).unwrap();
    let name = d0.name();
    assert_eq!(name.len(), 6);
    assert_eq!(name.get(4).unwrap().to_string(), format!("v={T0}"));
    assert_eq!(name.get(5).unwrap().to_string(), "seg=0");
    assert_eq!(d0.content().unwrap().len(), 8000);
    assert!(d0.final_block_id().is_none());
    let mut content = d0.content().unwrap().to_vec();
    let mut seg = 1;
    loop {
        let i = dataset_interest(
            &format!("/localhost/nfd/faces/list/v={T0}/seg={seg}"),
            false,
        );
        let d = reply(m.handle_interest(&mut b, &i, LOCAL, now(T0 + 10)));
        let d = Data::new_checked(&d).unwrap();
        content.extend_from_slice(d.content().unwrap());
        if let Some(last) = d.final_block_id() {
            assert_eq!(last.to_string(), format!("seg={seg}"));
            break;
        }
        seg += 1;
    }
    assert!(seg >= 4, "{seg} segments");
    let faces: Vec<FaceStatus> = decode_records(&content).unwrap();
    assert_eq!(faces.len(), 502);
    assert_eq!(m.counters().dataset_cache_hits, seg);
    // Past the last segment, an unknown version, or after the cache lifetime: dropped.
    for uri in [
        format!("/localhost/nfd/faces/list/v={T0}/seg={}", seg + 1),
        format!("/localhost/nfd/faces/list/v={}/seg=0", T0 + 1),
    ] {
        assert_eq!(
            m.handle_interest(&mut b, &dataset_interest(&uri, false), LOCAL, now(T0 + 10)),
            Outcome::Drop(DropReason::DatasetNotCached)
        );
    }
    let again = dataset_interest(&format!("/localhost/nfd/faces/list/v={T0}/seg=1"), false);
    assert_eq!(
        m.handle_interest(&mut b, &again, LOCAL, now(T0 + 60_000)),
        Outcome::Drop(DropReason::DatasetNotCached)
    );
    // A repeated request within a second reuses the version; later ones get a new version.
    let i = dataset_interest("/localhost/nfd/faces/list", true);
    let d = reply(m.handle_interest(&mut b, &i, LOCAL, now(T0 + 60_000)));
    let v1 = Data::new_checked(&d)
        .unwrap()
        .name()
        .get(4)
        .unwrap()
        .to_string();
    let d = reply(m.handle_interest(&mut b, &i, LOCAL, now(T0 + 60_500)));
    let v2 = Data::new_checked(&d)
        .unwrap()
        .name()
        .get(4)
        .unwrap()
        .to_string();
    let d = reply(m.handle_interest(&mut b, &i, LOCAL, now(T0 + 61_500)));
    let v3 = Data::new_checked(&d)
        .unwrap()
        .name()
        .get(4)
        .unwrap()
        .to_string();
    assert_eq!(v1, v2);
    assert_ne!(v2, v3);
    // A successful command makes the next bare request produce a new version.
    run(
        &mut m,
        &mut b,
        &unsigned("rib", "register", &named("/z")),
        LOCAL,
    );
    let d = reply(m.handle_interest(&mut b, &i, LOCAL, now(T0 + 61_600)));
    let v4 = Data::new_checked(&d)
        .unwrap()
        .name()
        .get(4)
        .unwrap()
        .to_string();
    assert_ne!(v3, v4);
}

#[test]
fn face_query_status_and_cs_datasets() {
    let (mut m, mut b) = (Manager::new(MgmtConfig::default()), FakeBackend::new());
    let filter = FaceQueryFilter {
        face_scope: Some(FaceScope::Local),
        ..Default::default()
    };
    let mut f = Vec::new();
    filter.encode_to(&mut f);
    let name = n("/localhost/nfd/faces/query").push(f);
    let i = InterestBuilder::new(name.clone())
        .can_be_prefix(true)
        .encode()
        .unwrap();
    let d = reply(m.handle_interest(&mut b, &i, LOCAL, now(T0)));
    let d = Data::new_checked(&d).unwrap();
    let faces: Vec<FaceStatus> = decode_records(d.content().unwrap()).unwrap();
    assert_eq!(faces.iter().map(|f| f.face_id).collect::<Vec<_>>(), [256]);
    // The same filter before a ParametersSha256Digest (python-ndn's nfdc signs its requests).
    let i = InterestBuilder::new(name)
        .can_be_prefix(true)
        .app_params(Vec::new())
        .encode()
        .unwrap();
    let last = ndn_packet::interest::Interest::new_checked(&i)
        .unwrap()
        .name()
        .last()
        .unwrap()
        .typ();
    assert_eq!(
        last,
        ndn_packet::tlv::tt::PARAMETERS_SHA256_DIGEST_COMPONENT
    );
    let d = reply(m.handle_interest(&mut b, &i, LOCAL, now(T0 + 1)));
    let d = Data::new_checked(&d).unwrap();
    let faces: Vec<FaceStatus> = decode_records(d.content().unwrap()).unwrap();
    assert_eq!(faces.iter().map(|f| f.face_id).collect::<Vec<_>>(), [256]);
    // A malformed filter is rejected with a Nack-typed ControlResponse 400.
    let i = dataset_interest("/localhost/nfd/faces/query/%96%01", true);
    let d = reply(m.handle_interest(&mut b, &i, LOCAL, now(T0)));
    let d = Data::new_checked(&d).unwrap();
    assert_eq!(d.content_type(), Some(content_type::NACK));
    assert_eq!(
        ControlResponse::new_checked(d.content().unwrap())
            .unwrap()
            .code,
        400
    );
    let i = dataset_interest("/localhost/nfd/status/general", true);
    let d = reply(m.handle_interest(&mut b, &i, LOCAL, now(T0 + 5)));
    let s = crate::records::GeneralStatus::decode_content(
        Data::new_checked(&d).unwrap().content().unwrap(),
    )
    .unwrap();
    assert_eq!(
        (s.nfd_version.as_str(), s.current_timestamp),
        ("ndnfwd-test", T0 + 5)
    );
    // Datasets are only offered under /localhost.
    let cfg = MgmtConfig {
        localhop: true,
        ..MgmtConfig::default()
    };
    let mut m = Manager::new(cfg);
    let i = dataset_interest("/localhop/nfd/faces/list", true);
    assert_eq!(run(&mut m, &mut b, &i, REMOTE).code, 501);
}

#[test]
fn face_events_stream() {
    let (mut m, mut b) = (Manager::new(MgmtConfig::default()), FakeBackend::new());
    let sub = dataset_interest("/localhost/nfd/faces/events", true);
    assert_eq!(
        m.handle_interest(&mut b, &sub, LOCAL, now(T0)),
        Outcome::Wait
    );
    let ev =
        FaceEventNotification::from_status(crate::records::FaceEventKind::Created, &b.faces[&257]);
    let d = m.post_face_event(&ev, now(T0)).unwrap();
    let data = Data::new_checked(&d).unwrap();
    assert_eq!(data.name().to_string(), "/localhost/nfd/faces/events/seq=0");
    assert_eq!(
        decode_records(data.content().unwrap()),
        Ok(vec![ev.clone()])
    );
    // A fresh notification answers the bare subscription; by sequence number it is kept.
    assert_eq!(
        reply(m.handle_interest(&mut b, &sub, LOCAL, now(T0 + 100))),
        d
    );
    assert_eq!(
        m.handle_interest(&mut b, &sub, LOCAL, now(T0 + 5000)),
        Outcome::Wait
    );
    let by_seq = dataset_interest("/localhost/nfd/faces/events/seq=0", false);
    assert_eq!(
        reply(m.handle_interest(&mut b, &by_seq, LOCAL, now(T0 + 5000))),
        d
    );
    let next = dataset_interest("/localhost/nfd/faces/events/seq=1", false);
    assert_eq!(
        m.handle_interest(&mut b, &next, LOCAL, now(T0 + 5000)),
        Outcome::Wait
    );
    let d1 = m.post_face_event(&ev, now(T0 + 6000)).unwrap();
    assert_eq!(
        reply(m.handle_interest(&mut b, &next, LOCAL, now(T0 + 6000))),
        d1
    );
    assert_eq!(m.counters().notifications_posted, 2);
    assert_eq!(m.counters().notification_waits, 3);
}

#[test]
fn metrics_and_status_document_cover_backend_and_manager() {
    let (mut m, mut b) = (Manager::new(MgmtConfig::default()), FakeBackend::new());
    run(
        &mut m,
        &mut b,
        &unsigned("rib", "register", &named("/app")),
        LOCAL,
    );
    m.handle_interest(
        &mut b,
        &unsigned("rib", "register", &named("/a")),
        REMOTE,
        now(T0),
    );
    let text = crate::metrics::render_metrics(&b, m.counters());
    assert!(
        text.contains("ndnfwd_face_in_interests_total{face=\"256\"} 0\n"),
        "{text}"
    );
    assert!(text.contains("# TYPE ndnfwd_cs_entries gauge\n"));
    assert!(text.contains("ndnfwd_mgmt_commands_ok_total 1\n"));
    assert!(text.contains("ndnfwd_mgmt_drops_total{reason=\"localhost_from_non_local\"} 1\n"));
    let doc = crate::metrics::StatusDocument::collect(&b, m.counters(), T0 + 1).to_json();
    let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(v["general"]["current_timestamp"], T0 + 1);
    assert_eq!(v["faces"][1]["uri"], "udp4://192.0.2.1:6363");
    assert_eq!(v["faces"][0]["face_scope"], "local");
    assert_eq!(v["rib"][0]["name"], "/app");
    assert_eq!(
        v["strategy_choices"][0]["strategy"],
        "/localhost/nfd/strategy/best-route/v=5"
    );
    assert_eq!(v["mgmt"]["drops"]["localhost_from_non_local"], 1);
}
