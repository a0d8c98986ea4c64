//! The face `ndnfwd ctl` talks over: one connection to the forwarder (Unix, TCP or UDP) and the
//! exchange function the management client (`ndnfwd_mgmt::client`) runs on.
//!
//! Requests go one at a time; each carries a fresh PIT token that the forwarder echoes, so the
//! answer (Data or Nack) is recognised without name matching, and anything else received is
//! ignored. The wait is bounded by the Interest lifetime.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bytes::Bytes;
use ndn_packet::link::{LpToken, PacketKind, RxPacket, TxLp, TxPacket};
use ndn_packet::FaceId;
use ndnfwd_face::{FaceEvent, FaceIdAllocator, FaceTable, FaceTableConfig, FaceUri, Persistency};
use ndnfwd_mgmt::client::{ExchangeError, LIFETIME_MS};

/// The forwarder to talk to: `--connect`, else `$NDN_CLIENT_TRANSPORT`, else the default Unix
/// socket (`/run/nfd/nfd.sock`), or the unprivileged fallback `ndnfwd run` uses when only that
/// one exists.
pub fn resolve(connect: Option<&str>) -> String {
    if let Some(c) = connect {
        return c.to_owned();
    }
    if let Ok(env) = std::env::var("NDN_CLIENT_TRANSPORT") {
        if !env.is_empty() {
            return env;
        }
    }
    let default = PathBuf::from(ndnfwd_face::DEFAULT_UNIX_PATH);
    let fallback = crate::run::fallback_unix_path();
    let path = if !default.exists() && fallback.exists() {
        fallback
    } else {
        default
    };
    format!("unix://{}", path.display())
}

/// One face to the forwarder.
pub struct CtlFace {
    table: FaceTable,
    face: FaceId,
    next_token: u64,
    rx: Vec<RxPacket>,
    epoch: Instant,
}

impl CtlFace {
    /// Connects to the forwarder at face URI `uri`.
    pub fn connect(uri: &str) -> Result<Self, String> {
        let parsed: FaceUri = uri.parse().map_err(|e| format!("--connect {uri}: {e}"))?;
        let mut table = FaceTable::new(FaceIdAllocator::default(), FaceTableConfig::default())
            .map_err(|e| format!("face table: {e}"))?;
        let p = Persistency::Persistent;
        let face = match &parsed {
            FaceUri::Unix(path) => table.connect_unix(path, p),
            FaceUri::Shm(path) => table.connect_shm(path, p),
            FaceUri::Tcp(a) => table.connect_tcp(*a, p),
            FaceUri::Udp(a) => table.connect_udp(*a, p),
            _ => {
                return Err(format!(
                    "--connect {uri}: use unix://, shm://, tcp4:// or udp4://"
                ))
            }
        }
        .map_err(|e| format!("cannot connect to {uri}: {e}"))?;
        let _ = table.drain_events().count();
        Ok(Self {
            table,
            face,
            next_token: 0,
            rx: Vec::new(),
            epoch: Instant::now(),
        })
    }

    /// Sends the Interest `wire` and returns the Data that answers it.
    pub fn exchange(&mut self, wire: &[u8]) -> Result<Vec<u8>, ExchangeError> {
        self.next_token += 1;
        let token = LpToken::new(&self.next_token.to_be_bytes()).unwrap_or(LpToken::EMPTY);
        let p = TxPacket {
            face: self.face,
            kind: PacketKind::Interest,
            lp: TxLp {
                pit_token: token,
                ..TxLp::default()
            },
            wire: Bytes::copy_from_slice(wire),
            patch: None,
        };
        if self.table.send_burst([p]) != 1 {
            return Err(ExchangeError::Io(std::io::ErrorKind::BrokenPipe));
        }
        let deadline = Instant::now() + Duration::from_millis(LIFETIME_MS);
        while Instant::now() < deadline {
            let _ = self.table.wait(20);
            let now = u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
            self.table.recv_burst(now, &mut self.rx, 64);
            self.table.tick(now);
            let gone = self
                .table
                .drain_events()
                .any(|ev| matches!(ev, FaceEvent::Removed(id, _) if id == self.face));
            for p in core::mem::take(&mut self.rx) {
                if p.lp.pit_token != token {
                    continue;
                }
                return match p.kind {
                    PacketKind::Data => Ok(p.wire.to_vec()),
                    _ => Err(ExchangeError::Nack),
                };
            }
            if gone {
                return Err(ExchangeError::Io(std::io::ErrorKind::ConnectionReset));
            }
        }
        Err(ExchangeError::Timeout)
    }
}
