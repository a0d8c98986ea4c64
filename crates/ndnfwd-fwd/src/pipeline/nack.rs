//! Incoming and outgoing Nack.

use bytes::Bytes;
use ndn_packet::interest::Interest;
use ndn_packet::lp::NackReason;
use ndn_packet::{FaceId, PrefixHashes};
use ndnfwd_pcct::{NackInfo, NackOutcome};

use crate::cycles::{Laps, Stage};
use crate::engine::Core;
use crate::out::{TxBurst, Wire};
use ndn_packet::link::LinkType;
use ndn_packet::link::{LpToken, PacketKind, RxPacket, TxLp, TxPacket};

impl Core {
    /// NFD `onIncomingNack`: only from point-to-point faces; the PIT-CS finds the entry (by our
    /// token, else by name), checks the out-record's Nonce and marks it Nacked. Once no upstream
    /// is pending the downstreams get the least severe reason received (the PIT-CS applies
    /// NFD's `ProcessNackTraits` for every strategy).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_incoming_nack<const A: bool>(
        &mut self,
        now: u64,
        rx: &RxPacket,
        interest: &Interest<'_>,
        fh: Option<u64>,
        reason: Option<NackReason>,
        hashes: &PrefixHashes,
        out: &mut TxBurst,
        laps: &mut Laps<A>,
    ) {
        self.counters.rx_nack += 1;
        let Some(info) = self.faces.get(rx.face) else {
            self.counters.unknown_face += 1;
            return;
        };
        if info.link != LinkType::PointToPoint {
            self.counters.nack_multi_access += 1;
            return;
        }
        let Some(nonce) = interest.nonce().map(u32::from_be_bytes) else {
            self.counters.nack_unmatched += 1;
            return;
        };
        let nk = NackInfo {
            name: interest.name(),
            hashes,
            must_be_fresh: interest.must_be_fresh(),
            forwarding_hint_hash: fh,
            nonce,
            // A Nack without a reason is the most severe; code 0 stands for it.
            reason: reason.unwrap_or(NackReason::Other(0)),
        };
        let token = Some(rx.lp.pit_token.as_bytes()).filter(|t| !t.is_empty());
        self.downstreams.clear();
        let outcome = self
            .pcct
            .on_nack(now, &nk, rx.face, token, &mut self.downstreams);
        laps.lap(&mut self.cycles, Stage::Pcct);
        match outcome {
            NackOutcome::NoEntry | NackOutcome::Stale => self.counters.nack_unmatched += 1,
            NackOutcome::Pending => {}
            NackOutcome::Nacked {
                reason,
                downstreams,
            } => {
                let mut taken = false;
                for k in downstreams {
                    if let Some(d) = self.downstreams.get(k).copied() {
                        let wire = self.nack_wire(interest, rx, d.nonce, &mut taken);
                        let mark = rx.lp.congestion_mark;
                        self.on_outgoing_nack(d.face, d.token, reason, wire, mark, out);
                    }
                }
            }
        }
        laps.lap(&mut self.cycles, Stage::Output);
    }

    /// NFD `onOutgoingNack`: never onto a multi-access or ad hoc face; the downstream's token is
    /// echoed and `interest`, the Interest's bytes, sent as they are.
    pub(crate) fn on_outgoing_nack(
        &mut self,
        face: FaceId,
        token: LpToken,
        reason: NackReason,
        interest: Wire,
        congestion_mark: u64,
        out: &mut TxBurst,
    ) {
        let Some(egress) = self.faces.get(face) else {
            self.counters.face_gone += 1;
            return;
        };
        if egress.link != LinkType::PointToPoint {
            self.counters.nack_multi_access += 1;
            return;
        }
        self.counters.tx_nack += 1;
        let p = TxPacket {
            face,
            kind: PacketKind::Nack,
            lp: TxLp {
                pit_token: token,
                nack: Some(reason),
                congestion_mark,
                incoming_face_id: None,
            },
            wire: Bytes::new(),
            patch: None,
        };
        out.push_wire(interest, p);
    }
}
