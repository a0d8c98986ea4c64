//! One producer thread: answers each Interest by the rule of its longest matching pattern
//! (Data signed with DigestSha256, a Nack, or silence), echoing the Interest's PIT token.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bytes::Bytes;
use ndn_packet::link::{PacketKind, TxLp};
use ndn_packet::tlv::{self, tt};
use ndn_packet::{DataBuilder, DataSignature, NackReason, Name, NameRef};
use ndnfwd_workload::{producer_rule, ProducerPattern, Reply, Signing, NULL_SIGNATURE_TYPE};

use super::client::Client;
use super::stats::Live;
use super::wire::{interest_name, Packer};

/// SignatureInfo holding SignatureType 200 ("null") and an empty SignatureValue.
fn null_signature() -> DataSignature {
    let sig_type = u8::try_from(tt::SIGNATURE_TYPE).unwrap_or(27);
    DataSignature::Raw {
        info: vec![sig_type, 1, NULL_SIGNATURE_TYPE],
        value: Vec::new(),
    }
}

/// How one rule's Data are encoded. With the null signature everything after the Name (MetaInfo,
/// Content, SignatureInfo, SignatureValue) is the same for every reply, so it is encoded once
/// and each reply is one copy into the burst's buffer: Data header, the Interest's Name, the tail.
/// A DigestSha256 covers the Name, so those Data go through the builder each time.
enum DataEncoder {
    /// The encoded bytes that follow the Name.
    Template(Vec<u8>),
    /// Build each Data (signed).
    Builder { payload: Vec<u8> },
}

impl DataEncoder {
    fn new(rule: &ProducerPattern) -> Self {
        let payload: Vec<u8> = b"ndnfwd "
            .iter()
            .copied()
            .cycle()
            .take(rule.payload)
            .collect();
        if rule.signing != Signing::Null {
            return Self::Builder { payload };
        }
        // The builder's own encoding with an empty Name: keep what follows the Name TLV.
        let tail = builder(rule, Name::new(), payload.clone())
            .encode()
            .ok()
            .and_then(|w| {
                let data = tlv::read_single(&w).ok()?;
                let name = tlv::Reader::new(data.value).read().ok()?;
                data.value.get(name.wire.len()..).map(<[u8]>::to_vec)
            });
        match tail {
            Some(t) => Self::Template(t),
            None => Self::Builder { payload },
        }
    }

    /// The Data answering an Interest whose Name TLV is `name_wire`.
    fn encode(
        &self,
        packer: &mut Packer,
        rule: &ProducerPattern,
        name_wire: &[u8],
        name: NameRef<'_>,
    ) -> Option<Bytes> {
        match self {
            Self::Template(tail) => Some(packer.pack(|w| {
                let len = name_wire.len() + tail.len();
                tlv::write_header(w, tt::DATA, len);
                w.extend_from_slice(name_wire);
                w.extend_from_slice(tail);
            })),
            Self::Builder { payload } => builder(rule, name.to_name(), payload.clone())
                .encode()
                .ok()
                .map(Bytes::from),
        }
    }
}

fn builder(rule: &ProducerPattern, name: Name, payload: Vec<u8>) -> DataBuilder {
    let mut d = DataBuilder::new(name).content(payload);
    if rule.freshness_ms > 0 {
        d = d.freshness_period(rule.freshness_ms);
    }
    if rule.signing == Signing::Null {
        d = d.signature(null_signature());
    }
    d
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
    let encoders: Vec<DataEncoder> = rules.iter().map(DataEncoder::new).collect();
    let mut s = Served::default();
    let mut packer = Packer::new();
    while !stop.load(Ordering::Relaxed) && (limit == 0 || total.load(Ordering::Relaxed) < limit) {
        c.poll(20)?;
        let (d0, n0) = (s.data, s.nacks);
        let rx = core::mem::take(&mut c.rx);
        for p in &rx {
            let Some((name_wire, name)) =
                interest_name(&p.wire).filter(|_| p.kind == PacketKind::Interest)
            else {
                s.ignored += 1;
                continue;
            };
            let Some(k) = producer_rule(rules, name) else {
                s.ignored += 1;
                continue;
            };
            let (Some(rule), Some(encoder)) = (rules.get(k), encoders.get(k)) else {
                continue;
            };
            let lp = TxLp {
                pit_token: p.lp.pit_token,
                ..TxLp::default()
            };
            match rule.reply {
                Reply::Data => match encoder.encode(&mut packer, rule, name_wire, name) {
                    Some(w) => {
                        c.queue(Some(p.face), PacketKind::Data, w, lp);
                        s.data += 1;
                    }
                    None => s.ignored += 1,
                },
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

#[cfg(test)]
mod tests {
    use super::*;
    use ndn_packet::Data;

    /// The template is a shortcut for the builder: byte for byte the same Data.
    #[test]
    fn template_data_equals_builder_data() {
        let names = [
            "/e2e/x/%00%01",
            "/a",
            "/long/name/with/several/components/0123456789",
        ];
        for (payload, freshness_ms) in [(0, 0), (100, 0), (8000, 4000), (300, 70000)] {
            let rule = ProducerPattern {
                payload,
                freshness_ms,
                signing: Signing::Null,
                .."prefix=/e2e".parse::<ProducerPattern>().unwrap()
            };
            let enc = DataEncoder::new(&rule);
            let mut packer = Packer::new();
            assert!(matches!(enc, DataEncoder::Template(_)));
            for uri in names {
                let name = Name::from_uri(uri).unwrap();
                let wire = name.to_wire();
                let got = enc
                    .encode(&mut packer, &rule, &wire, name.as_ref())
                    .unwrap();
                let payload_bytes = b"ndnfwd ".iter().copied().cycle().take(payload).collect();
                let want = builder(&rule, name.clone(), payload_bytes)
                    .encode()
                    .unwrap();
                assert_eq!(got, want, "{uri} {payload} B");
                assert_eq!(Data::new_checked(&got).unwrap().name(), name.as_ref());
            }
        }
        let signed = ProducerPattern {
            signing: Signing::Digest,
            .."prefix=/e2e".parse::<ProducerPattern>().unwrap()
        };
        assert!(matches!(
            DataEncoder::new(&signed),
            DataEncoder::Builder { .. }
        ));
    }
}
