//! The XDP program under the kernel's verifier and `BPF_PROG_TEST_RUN`: real frames in, the
//! verdict and the rewritten frame out, in a network namespace made for the test (its `lo` and
//! a veth interface stand for the downstream and upstream sides). Needs root; otherwise it
//! says why and passes.

use ndn_packet::{
    decode_link_packet, DataBuilder, InterestBuilder, LpPacketBuilder, Name, Payload,
};
use ndnfwd_netns::{skip_reason, veth, Netns};
use ndnfwd_offload::xdp::{self, XdpConfig, XdpPit, XDP_PASS, XDP_REDIRECT};

const GROUP: [u8; 6] = [0x01, 0x00, 0x5e, 0x00, 0x17, 0xaa];
const CONSUMER_MAC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0c];
const PRODUCER_MAC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0f];
const LO_MAC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x01];
const TOKEN_DOWN: [u8; 8] = *b"consumr1";
const TOKEN_UP: [u8; 8] = *b"router99";

fn frame(dst: [u8; 6], src: [u8; 6], payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(14 + payload.len());
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&[0x86, 0x24]);
    f.extend_from_slice(payload);
    f
}

fn interest(name: &str, nonce: u32, token: Option<&[u8]>) -> Vec<u8> {
    let n = Name::from_uri(name).expect("name");
    let i = InterestBuilder::new(n)
        .nonce(nonce.to_be_bytes())
        .encode()
        .expect("Interest");
    let lp = match token {
        Some(t) => LpPacketBuilder::new()
            .pit_token(t)
            .encode(Some(&i))
            .expect("LP"),
        None => i,
    };
    frame(GROUP, CONSUMER_MAC, &lp)
}

fn data(name: &str) -> Vec<u8> {
    let n = Name::from_uri(name).expect("name");
    let d = DataBuilder::new(n)
        .content(b"payload".to_vec())
        .encode()
        .expect("Data");
    let lp = LpPacketBuilder::new()
        .pit_token(&TOKEN_UP)
        .encode(Some(&d))
        .expect("LP");
    frame(GROUP, PRODUCER_MAC, &lp)
}

fn name_value(uri: &str) -> Vec<u8> {
    Name::from_uri(uri).expect("name").as_ref().value().to_vec()
}

/// A name under `/t/<stem>` whose slot no earlier scenario used. The key is random, so fixed
/// names would share a slot now and then (the switch then sees a collision the scenario does
/// not expect); each scenario needs a slot of its own.
fn own_slot(pit: &XdpPit, used: &mut Vec<u32>, stem: &str) -> String {
    let name = (0..10_000)
        .map(|i| format!("/t/{stem}/{i}"))
        .find(|n| !used.contains(&pit.slot_of(&name_value(n)).0))
        .expect("a free slot");
    used.push(pit.slot_of(&name_value(&name)).0);
    name
}

#[test]
fn the_program_records_interests_and_redirects_single_pending_data() {
    if let Some(why) = skip_reason() {
        eprintln!("skipping XDP test-run test: {why}");
        return;
    }
    // `lo` and veth `up0` stand for the downstream and upstream sides.
    let ns = Netns::new("ndnoff-tr").unwrap_or_else(|e| panic!("{e}"));
    veth((&ns, "up0"), (&ns, "up1")).unwrap_or_else(|e| panic!("{e}"));
    let name = ns.name().to_owned();
    // setns moves only this thread; run the body in a thread of its own.
    std::thread::spawn(move || body(&name))
        .join()
        .expect("test body");
    drop(ns);
}

fn body(ns: &str) {
    xdp::enter_netns(ns).expect("setns");
    let up = xdp::ifindex("up0").expect("up0");
    let cfg = XdpConfig {
        bits: 8,
        lifetime_ms: 200,
        key: XdpConfig::random_key().expect("key"),
    };
    let pit = match XdpPit::load(&cfg) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    pit.set_ifmac(1, LO_MAC).expect("ifmac");
    let mut used = Vec::new();
    let one = own_slot(&pit, &mut used, "one");
    let two = own_slot(&pit, &mut used, "two");
    let same = own_slot(&pit, &mut used, "same");
    let bare = own_slot(&pit, &mut used, "bare");
    let fp_name = own_slot(&pit, &mut used, "fp");
    let late = own_slot(&pit, &mut used, "late");

    // One Interest from downstream (lo), its Data from upstream: redirected, token and MACs
    // rewritten, Data untouched.
    let (v, _) = pit
        .test_run(&interest(&one, 1, Some(&TOKEN_DOWN)), 1)
        .expect("run");
    assert_eq!(v, XDP_PASS);
    let (slot, _) = pit.slot_of(&name_value(&one));
    assert_eq!(pit.pending(slot).expect("slot"), 1);
    let d = data(&one);
    let (v, out) = pit.test_run(&d, up).expect("run");
    assert_eq!(v, XDP_REDIRECT);
    assert_eq!(out.len(), d.len());
    assert_eq!(
        &out[..6],
        &GROUP,
        "destination: where the Interest was sent"
    );
    assert_eq!(&out[6..12], &LO_MAC, "source: the egress interface");
    let lp = decode_link_packet(&out[14..]).expect("LP");
    assert_eq!(lp.headers.pit_token, Some(&TOKEN_DOWN[..]));
    let orig = decode_link_packet(&d[14..]).expect("LP");
    assert!(matches!(lp.payload, Payload::Data(_)));
    assert_eq!(
        &out[14..][lp.payload_range.clone()],
        &d[14..][orig.payload_range.clone()]
    );
    assert_eq!(pit.pending(slot).expect("slot"), 0);
    // The same Data again: nobody is pending at the switch any more.
    assert_eq!(pit.test_run(&d, up).expect("run").0, XDP_PASS);

    // Two Interests for one name (a retransmission): collided, the Data goes up.
    for nonce in [2, 3] {
        let f = interest(&two, nonce, Some(&TOKEN_DOWN));
        assert_eq!(pit.test_run(&f, 1).expect("run").0, XDP_PASS);
    }
    assert_eq!(pit.test_run(&data(&two), up).expect("run").0, XDP_PASS);

    // A Data back on the Interest's own interface goes up.
    pit.test_run(&interest(&same, 4, Some(&TOKEN_DOWN)), 1)
        .expect("run");
    assert_eq!(pit.test_run(&data(&same), 1).expect("run").0, XDP_PASS);

    // An Interest without a PIT token: the switch cannot give its Data one.
    pit.test_run(&interest(&bare, 5, None), 1).expect("run");
    assert_eq!(pit.test_run(&data(&bare), up).expect("run").0, XDP_PASS);

    // Another name in the same slot: the fingerprint differs, the Data goes up.
    pit.test_run(&interest(&fp_name, 6, Some(&TOKEN_DOWN)), 1)
        .expect("run");
    let (fp_slot, fp) = pit.slot_of(&name_value(&fp_name));
    let other = (0..100_000)
        .map(|i| format!("/t/other/{i}"))
        .find(|n| {
            let (s, f) = pit.slot_of(&name_value(n));
            s == fp_slot && f != fp
        })
        .expect("a name in the same slot");
    assert_eq!(pit.test_run(&data(&other), up).expect("run").0, XDP_PASS);
    // ... and the right name still goes from the switch.
    assert_eq!(
        pit.test_run(&data(&fp_name), up).expect("run").0,
        XDP_REDIRECT
    );

    // A slot past its deadline is free again: its Data goes up.
    pit.test_run(&interest(&late, 7, Some(&TOKEN_DOWN)), 1)
        .expect("run");
    std::thread::sleep(std::time::Duration::from_millis(250));
    assert_eq!(pit.test_run(&data(&late), up).expect("run").0, XDP_PASS);

    // A name longer than the program hashes: unparsed, passed.
    let long = format!("/{}", "x".repeat(300));
    assert_eq!(
        pit.test_run(&interest(&long, 8, Some(&TOKEN_DOWN)), 1)
            .expect("run")
            .0,
        XDP_PASS
    );

    let c = pit.counters().expect("counters");
    assert_eq!(c.data_redirected, 2, "{c:?}");
    assert_eq!(c.interests_recorded, 6, "{c:?}");
    assert_eq!(c.interests_collided, 1, "{c:?}");
    assert_eq!(c.data_passed, 6, "{c:?}");
    assert_eq!(c.unparsed, 1, "{c:?}");
}
