//! One producer thread: answers each Interest by the rule of its longest matching pattern
//! (Data signed with DigestSha256, a Nack, or silence), echoing the Interest's PIT token.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bytes::Bytes;
use ndn_packet::interest::Interest;
use ndn_packet::link::{PacketKind, TxLp};
use ndn_packet::tlv::tt;
use ndn_packet::{DataBuilder, DataSignature, NackReason};
use ndnfwd_workload::{producer_rule, ProducerPattern, Reply, Signing, NULL_SIGNATURE_TYPE};

use super::client::Client;
use super::stats::Live;

/// SignatureInfo holding SignatureType 200 ("null") and an empty SignatureValue.
fn null_signature() -> DataSignature {
    let sig_type = u8::try_from(tt::SIGNATURE_TYPE).unwrap_or(27);
    DataSignature::Raw {
        info: vec![sig_type, 1, NULL_SIGNATURE_TYPE],
        value: Vec::new(),
    }
}

/// One producer thread's counts.
#[derive(Debug, Default, Clone, Copy)]
pub struct Served {
    /// Data sent.
    pub data: u64,
    /// Nacks sent.
    pub nacks: u64,
    /// Interests left unanswered on purpose (`reply=silence`).
    pub silenced: u64,
    /// Packets that were not an Interest under a pattern (or not decodable).
    pub ignored: u64,
}

/// Serves until `stop`, or until `total` (shared by all threads) reaches `limit` (0: no limit).
pub fn run(
    c: &mut Client,
    rules: &[ProducerPattern],
    stop: &AtomicBool,
    total: &AtomicU64,
    limit: u64,
    live: &Live,
) -> Result<Served, String> {
    let payloads: Vec<Vec<u8>> = rules
        .iter()
        .map(|r| b"ndnfwd ".iter().copied().cycle().take(r.payload).collect())
        .collect();
    let mut s = Served::default();
    while !stop.load(Ordering::Relaxed) && (limit == 0 || total.load(Ordering::Relaxed) < limit) {
        c.poll(20)?;
        let (d0, n0) = (s.data, s.nacks);
        let rx = core::mem::take(&mut c.rx);
        for p in &rx {
            let i = match (p.kind, Interest::new_checked(&p.wire)) {
                (PacketKind::Interest, Ok(i)) => i,
                _ => {
                    s.ignored += 1;
                    continue;
                }
            };
            let Some(k) = producer_rule(rules, i.name()) else {
                s.ignored += 1;
                continue;
            };
            let (Some(rule), Some(payload)) = (rules.get(k), payloads.get(k)) else {
                continue;
            };
            let lp = TxLp {
                pit_token: p.lp.pit_token,
                ..TxLp::default()
            };
            match rule.reply {
                Reply::Data => {
                    let mut d = DataBuilder::new(i.name().to_name()).content(payload.clone());
                    if rule.freshness_ms > 0 {
                        d = d.freshness_period(rule.freshness_ms);
                    }
                    if rule.signing == Signing::Null {
                        d = d.signature(null_signature());
                    }
                    match d.encode() {
                        Ok(w) => {
                            c.queue(Some(p.face), PacketKind::Data, Bytes::from(w), lp);
                            s.data += 1;
                        }
                        Err(_) => s.ignored += 1,
                    }
                }
                Reply::Nack(code) => {
                    let lp = TxLp {
                        nack: Some(NackReason::from_code(code)),
                        ..lp
                    };
                    c.queue(Some(p.face), PacketKind::Nack, p.wire.clone(), lp);
                    s.nacks += 1;
                }
                Reply::Silence => s.silenced += 1,
            }
        }
        c.rx = rx;
        c.rx.clear();
        c.flush();
        let answered = (s.data - d0) + (s.nacks - n0);
        total.fetch_add(answered, Ordering::Relaxed);
        live.add(answered, s.data - d0, s.nacks - n0);
    }
    Ok(s)
}
