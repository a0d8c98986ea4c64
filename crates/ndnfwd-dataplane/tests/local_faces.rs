//! A whole data plane in this process, driven through real Unix-socket faces: a producer
//! registers its prefix with `rib/register` (management through the internal face), a consumer
//! fetches through it, the producer goes away and its route and face go with it. Run in
//! run-to-completion mode and with several I/O threads and workers.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndn_packet::link::{PacketKind, RxPacket, TxLp, TxPacket};
use ndn_packet::{Data, DataBuilder, FaceId, InterestBuilder, Name};
use ndnfwd_dataplane::{Dataplane, DataplaneConfig, ListenerSpec, Threads};
use ndnfwd_face::{FaceIdAllocator, FaceTable, FaceTableConfig, Persistency};
use ndnfwd_mgmt::client::{parse_command_response, CommandSigner, Signing};
use ndnfwd_mgmt::ControlParameters;

/// One application: its own face table with one face to the forwarder.
struct App {
    table: FaceTable,
    face: FaceId,
    rx: Vec<RxPacket>,
    start: Instant,
}

impl App {
    fn connect(sock: &PathBuf) -> Self {
        let mut table =
            FaceTable::new(FaceIdAllocator::default(), FaceTableConfig::default()).unwrap();
        let face = table.connect_unix(sock, Persistency::Persistent).unwrap();
        Self {
            table,
            face,
            rx: Vec::new(),
            start: Instant::now(),
        }
    }

    fn send_lp(&mut self, kind: PacketKind, wire: Vec<u8>, lp: TxLp) {
        let p = TxPacket {
            face: self.face,
            kind,
            lp,
            wire: Bytes::from(wire),
            patch: None,
        };
        assert_eq!(self.table.send_burst(&[p]), 1);
    }

    fn send(&mut self, kind: PacketKind, wire: Vec<u8>) {
        self.send_lp(kind, wire, TxLp::default());
    }

    /// The next packet received, within 3 s.
    fn recv(&mut self) -> Option<RxPacket> {
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            if !self.rx.is_empty() {
                return Some(self.rx.remove(0));
            }
            if Instant::now() > deadline {
                return None;
            }
            let _ = self.table.wait(10);
            let now = self.start.elapsed().as_nanos() as u64;
            self.table.recv_burst(now, &mut self.rx, 64);
        }
    }
}

fn interest(uri: &str, lifetime_ms: u64) -> Vec<u8> {
    InterestBuilder::new(Name::from_uri(uri).unwrap())
        .nonce(rand_nonce())
        .lifetime_ms(lifetime_ms)
        .encode()
        .unwrap()
}

fn rand_nonce() -> [u8; 4] {
    let mut b = [0; 4];
    getrandom::getrandom(&mut b).unwrap();
    b
}

fn register(app: &mut App, prefix: &str) -> u32 {
    let params = ControlParameters {
        name: Some(Name::from_uri(prefix).unwrap()),
        ..Default::default()
    };
    let now_ms = 1_700_000_000_000;
    let wire = CommandSigner::new(Signing::Unsigned)
        .command_interest(
            &Name::from_uri("/localhost/nfd").unwrap(),
            "rib",
            "register",
            &params,
            now_ms,
        )
        .unwrap();
    app.send(PacketKind::Interest, wire);
    let reply = app.recv().expect("management answered");
    assert_eq!(reply.kind, PacketKind::Data);
    parse_command_response(&reply.wire).unwrap().code
}

fn status(dp: &Dataplane, path: &PathBuf) -> serde_json::Value {
    let _ = std::fs::remove_file(path);
    dp.dump_status();
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        if let Ok(s) = std::fs::read_to_string(path) {
            return serde_json::from_str(&s).unwrap();
        }
        assert!(Instant::now() < deadline, "no status file");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn scenario(threads: Threads, tag: &str) {
    let dir = std::env::temp_dir().join(format!("ndnfwd-dp-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sock = dir.join("nfd.sock");
    let status_path = dir.join("status.json");
    let cfg = DataplaneConfig {
        threads,
        listeners: vec![ListenerSpec::Unix(sock.clone())],
        status_file: Some(status_path.clone()),
        ..DataplaneConfig::default()
    };
    let dp = Dataplane::start(cfg).unwrap();
    assert_eq!(dp.channels().len(), 1);

    let mut consumer = App::connect(&sock);
    let mut producer = App::connect(&sock);

    // No route yet: Nack NoRoute.
    consumer.send(PacketKind::Interest, interest("/p/early", 1000));
    let nack = consumer.recv().expect("a Nack");
    assert_eq!(nack.kind, PacketKind::Nack);

    assert_eq!(register(&mut producer, "/p"), 200);

    // Fetch a few names spread over workers; the producer answers each Interest it sees.
    for i in 0..20 {
        let name = format!("/p/obj{i}/seg0");
        consumer.send(PacketKind::Interest, interest(&name, 2000));
        let got = producer.recv().expect("Interest reached the producer");
        assert_eq!(got.kind, PacketKind::Interest);
        let d = DataBuilder::new(Name::from_uri(&name).unwrap())
            .content(vec![i as u8; 100])
            .encode()
            .unwrap();
        let lp = TxLp {
            pit_token: got.lp.pit_token,
            ..TxLp::default()
        };
        producer.send_lp(PacketKind::Data, d, lp);
        let back = consumer.recv().expect("Data came back");
        assert_eq!(back.kind, PacketKind::Data);
        let view = Data::new_checked(&back.wire).unwrap();
        assert_eq!(view.name().to_string(), name);
        assert_eq!(view.content(), Some(&[i as u8; 100][..]));
    }

    // The same name again is a CS hit: the producer sees nothing.
    consumer.send(PacketKind::Interest, interest("/p/obj3/seg0", 2000));
    let back = consumer.recv().expect("CS hit");
    assert_eq!(back.kind, PacketKind::Data);

    let s = status(&dp, &status_path);
    let routes: Vec<String> = s["status"]["rib"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(routes.contains(&"/p".to_owned()), "{routes:?}");
    assert_eq!(s["status"]["faces"].as_array().unwrap().len(), 2);
    // Run-to-completion hands received bursts to the engine without the ring; threads never.
    let direct: u64 = s["dataplane"]["io"]
        .as_array()
        .unwrap()
        .iter()
        .map(|io| io["direct_packets"].as_u64().unwrap())
        .sum();
    if matches!(threads, Threads::Single) {
        assert!(direct >= 40, "direct_packets={direct}");
    } else {
        assert_eq!(direct, 0);
    }

    // An Interest left pending, then the producer goes away.
    consumer.send(PacketKind::Interest, interest("/p/pending", 300));
    assert!(producer.recv().is_some());
    drop(producer);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let s = status(&dp, &status_path);
        let faces = s["status"]["faces"].as_array().unwrap().len();
        let has_route = s["status"]["rib"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "/p");
        let pit = s["status"]["general"]["n_pit_entries"].as_u64().unwrap();
        if faces == 1 && !has_route && pit == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "faces={faces} route={has_route} pit={pit}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // With the route gone the consumer gets Nack NoRoute again.
    consumer.send(PacketKind::Interest, interest("/p/late", 1000));
    assert_eq!(consumer.recv().map(|p| p.kind), Some(PacketKind::Nack));

    dp.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_to_completion() {
    scenario(Threads::Single, "rtc");
}

#[test]
fn threads_one_io_two_workers() {
    scenario(Threads::Multi { io: 1, workers: 2 }, "m12");
}

#[test]
fn threads_two_io_three_workers() {
    scenario(Threads::Multi { io: 2, workers: 3 }, "m23");
}
