//! Incoming Data, unsolicited Data, outgoing Data.

use bytes::Bytes;
use ndn_packet::FaceId;
use ndnfwd_pcct::{DataInfo, DataSink, Downstream, RxToken, MS};

use crate::counters::Counters;
use crate::cycles::{Laps, Stage};
use crate::engine::{Core, DataHead};
use crate::face::FaceTable;
use crate::out::{TxBurst, Wire};
use crate::strategy::NameScope;
use ndn_packet::link::{LpToken, PacketKind, RxPacket, TxLp, TxPacket};

/// The PIT-CS view of a Data.
fn data_info<'a>(d: &DataHead<'a>, rx: &'a RxPacket) -> DataInfo<'a> {
    DataInfo {
        name: d.name,
        id: d.id,
        freshness_ns: d.freshness_period.unwrap_or(0).saturating_mul(MS),
        wire: &rx.wire,
        digest: None,
        no_cache: rx.lp.no_cache,
    }
}

impl Core {
    /// NFD `onIncomingData`: `/localhost` scope, then one PIT-CS call that matches PIT entries
    /// (by our token, read from its fixed-size block, else by name), caches the Data and hands
    /// each downstream to a [`DataTx`], which builds its packet at once (NFD
    /// `onOutgoingData`, so the `Pcct` stage's cycles include the Data's output).
    pub(crate) fn on_incoming_data<const A: bool>(
        &mut self,
        now: u64,
        rx: &RxPacket,
        data: &DataHead<'_>,
        out: &mut TxBurst,
        laps: &mut Laps<A>,
    ) {
        self.counters.rx_data += 1;
        let Some(info) = self.faces.get(rx.face) else {
            self.counters.unknown_face += 1;
            return;
        };
        let scope = NameScope::of(data.name);
        if scope == NameScope::Localhost && !info.is_local() {
            self.counters.localhost_violation_in += 1;
            return;
        }
        let token = RxToken::from_lp(&rx.lp.pit_token);
        self.downstreams.clear();
        let mut tx = DataTx {
            start: out.len(),
            out,
            faces: &self.faces,
            counters: &mut self.counters,
            refused: &mut self.downstreams,
            at: self.at,
            rx,
            scope,
            any: false,
        };
        let d = data_info(data, rx);
        let outcome = self
            .pcct
            .on_data_into(now, &d, rx.face, token, info.is_local(), &mut tx);
        laps.lap(&mut self.cycles, Stage::Pcct);
        if outcome.unsolicited {
            self.on_data_unsolicited();
            return;
        }
        self.counters.satisfied += u64::from(outcome.matched);
    }

    /// NFD `onDataUnsolicited`: the PIT-CS already applied the unsolicited-Data policy (cache
    /// or not); the Data goes nowhere and is counted.
    fn on_data_unsolicited(&mut self) {
        self.counters.unsolicited_data += 1;
    }

    /// NFD `onOutgoingData` for a Data the CS answers ([`send_data`]).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn on_outgoing_data(
        &mut self,
        face: FaceId,
        token: LpToken,
        congestion_mark: u64,
        wire: Bytes,
        scope: NameScope,
        incoming_face_id: Option<FaceId>,
        out: &mut TxBurst,
    ) {
        let lp = TxLp {
            pit_token: token,
            nack: None,
            congestion_mark,
            incoming_face_id,
        };
        let wire = Wire::Own(wire);
        send_data(&self.faces, &mut self.counters, face, lp, wire, scope, out);
    }
}

/// NFD `onOutgoingData`: `/localhost` Data never leaves through a non-local face. `lp` carries
/// the downstream's own token; the buffer is shared, not copied. Whether the Data was sent.
#[inline(always)]
fn send_data(
    faces: &FaceTable,
    counters: &mut Counters,
    face: FaceId,
    lp: TxLp,
    wire: Wire,
    scope: NameScope,
    out: &mut TxBurst,
) -> bool {
    let Some(egress) = faces.get(face) else {
        counters.face_gone += 1;
        return false;
    };
    if scope == NameScope::Localhost && !egress.is_local() {
        counters.localhost_violation_out += 1;
        return false;
    }
    counters.tx_data += 1;
    let p = TxPacket {
        face,
        kind: PacketKind::Data,
        lp,
        wire: Bytes::new(),
        patch: None,
    };
    out.push_wire(wire, p);
    true
}

/// The outgoing side of one incoming Data: each downstream the PIT-CS finds is sent at once
/// ([`send_data`]) into `out` after `start`, echoing the Data's CongestionMark and ingress
/// face. A face is offered once: the sent ones are in `out[start..]`, the refused ones (gone,
/// or non-local for a `/localhost` Data) in `refused`, so neither is sent nor counted twice.
struct DataTx<'a> {
    out: &'a mut TxBurst,
    start: usize,
    faces: &'a FaceTable,
    counters: &'a mut Counters,
    refused: &'a mut Vec<Downstream>,
    /// The Data's index in the burst received, and the packet.
    at: usize,
    rx: &'a RxPacket,
    scope: NameScope,
    /// A downstream was offered before.
    any: bool,
}

impl DataTx<'_> {
    /// Whether `face` was offered before for this Data (sent or refused).
    #[cold]
    #[inline(never)]
    fn offered(&self, face: FaceId) -> bool {
        let sent = self.out.iter().skip(self.start).any(|t| t.face == face);
        sent || self.refused.iter().any(|x| x.face == face)
    }
}

impl DataSink for DataTx<'_> {
    #[inline(always)]
    fn offer(&mut self, d: Downstream) {
        // The usual Data has one downstream: nothing offered before it, no list to look at.
        // The first takes the received buffer, the others clone it.
        let wire = if self.any {
            if self.offered(d.face) {
                return;
            }
            Wire::Own(self.rx.wire.clone())
        } else {
            self.any = true;
            Wire::Received(self.at)
        };
        let lp = TxLp {
            pit_token: d.token,
            nack: None,
            congestion_mark: self.rx.lp.congestion_mark,
            incoming_face_id: Some(self.rx.face),
        };
        let (faces, counters) = (self.faces, &mut *self.counters);
        if !send_data(faces, counters, d.face, lp, wire, self.scope, self.out) {
            self.refused.push(d);
        }
    }

    #[inline(always)]
    fn held(&self) -> usize {
        self.out.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::FaceInfo;
    use ndn_packet::link::RxLp;

    fn down(face: FaceId) -> Downstream {
        Downstream {
            face,
            token: LpToken::new(&[face as u8; 8]).unwrap_or(LpToken::EMPTY),
            nonce: face,
            congestion_mark: 0,
        }
    }

    /// Each face is sent or refused once, however often the PIT-CS offers it (both PIT parts
    /// of a key may name it): a refused face is neither sent later nor counted twice.
    #[test]
    fn data_tx_offers_each_face_once() {
        let mut faces = FaceTable::new();
        faces.insert(1, FaceInfo::network());
        faces.insert(2, FaceInfo::local());
        let rx = RxPacket {
            face: 9,
            kind: PacketKind::Data,
            wire: Bytes::from_static(b"\x06\x00"),
            lp: RxLp {
                congestion_mark: 3,
                ..RxLp::default()
            },
        };
        let (mut counters, mut refused) = (Counters::default(), Vec::new());
        let mut out = TxBurst::new();
        let p = TxPacket {
            face: 2,
            kind: PacketKind::Interest,
            lp: TxLp {
                pit_token: LpToken::EMPTY,
                nack: None,
                congestion_mark: 0,
                incoming_face_id: None,
            },
            wire: Bytes::new(),
            patch: None,
        };
        out.push_wire(Wire::Own(Bytes::new()), p);
        let mut tx = DataTx {
            start: out.len(),
            out: &mut out,
            faces: &faces,
            counters: &mut counters,
            refused: &mut refused,
            at: 0,
            rx: &rx,
            scope: NameScope::Localhost,
            any: false,
        };
        // Face 1 is non-local (a /localhost Data may not leave there), 3 is gone, 2 is local.
        for f in [1, 3, 2, 1, 3, 2, 2] {
            tx.offer(down(f));
        }
        assert_eq!(tx.held(), 2);
        assert_eq!(counters.localhost_violation_out, 1);
        assert_eq!(counters.face_gone, 1);
        assert_eq!(counters.tx_data, 1);
        let sent = out.get(1).cloned();
        assert_eq!(
            sent.as_ref().map(|t| (t.face, t.kind)),
            Some((2, PacketKind::Data))
        );
        let lp = sent.map(|t| t.lp);
        assert_eq!(
            lp.map(|l| (l.pit_token, l.congestion_mark, l.incoming_face_id)),
            Some((down(2).token, 3, Some(9)))
        );
    }
}
