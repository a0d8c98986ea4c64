//! Incoming Data, unsolicited Data, outgoing Data.

use bytes::Bytes;
use ndn_packet::data::Data;
use ndn_packet::{FaceId, NameId};
use ndnfwd_pcct::{DataInfo, RxToken, MS};

use crate::cycles::{Laps, Stage};
use crate::engine::Core;
use crate::strategy::NameScope;
use ndn_packet::link::{LpToken, PacketKind, RxPacket, TxLp, TxPacket};

/// The PIT-CS view of a Data.
fn data_info<'a>(d: &Data<'a>, id: NameId, rx: &'a RxPacket) -> DataInfo<'a> {
    DataInfo {
        name: d.name(),
        id,
        freshness_ns: d.freshness_period().unwrap_or(0).saturating_mul(MS),
        wire: &rx.wire,
        digest: None,
        no_cache: rx.lp.no_cache,
    }
}

impl Core {
    /// NFD `onIncomingData`: `/localhost` scope, then one PIT-CS call that matches PIT entries
    /// (by our token, read from its fixed-size block, else by name), collects their downstreams and
    /// caches the Data.
    pub(crate) fn on_incoming_data<const A: bool>(
        &mut self,
        now: u64,
        rx: &RxPacket,
        data: &Data<'_>,
        id: NameId,
        out: &mut Vec<TxPacket>,
        laps: &mut Laps<A>,
    ) {
        self.counters.rx_data += 1;
        let Some(info) = self.faces.get(rx.face) else {
            self.counters.unknown_face += 1;
            return;
        };
        let scope = NameScope::of(data.name());
        if scope == NameScope::Localhost && !info.is_local() {
            self.counters.localhost_violation_in += 1;
            return;
        }
        let token = RxToken::from_lp(&rx.lp.pit_token);
        self.downstreams.clear();
        let outcome = self.pcct.on_data_parsed(
            now,
            &data_info(data, id, rx),
            rx.face,
            token,
            info.is_local(),
            &mut self.downstreams,
        );
        laps.lap(&mut self.cycles, Stage::Pcct);
        if outcome.unsolicited {
            self.on_data_unsolicited();
            return;
        }
        self.counters.satisfied += u64::from(outcome.matched);
        for k in outcome.downstreams {
            if let Some(d) = self.downstreams.get(k).copied() {
                let mark = rx.lp.congestion_mark;
                self.on_outgoing_data(d.face, d.token, mark, &rx.wire, scope, Some(rx.face), out);
            }
        }
        laps.lap(&mut self.cycles, Stage::Output);
    }

    /// NFD `onDataUnsolicited`: the PIT-CS already applied the unsolicited-Data policy (cache
    /// or not); the Data goes nowhere and is counted.
    fn on_data_unsolicited(&mut self) {
        self.counters.unsolicited_data += 1;
    }

    /// NFD `onOutgoingData`: `/localhost` Data never leaves through a non-local face. The
    /// downstream's own token is echoed; the buffer is shared, not copied.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn on_outgoing_data(
        &mut self,
        face: FaceId,
        token: LpToken,
        congestion_mark: u64,
        wire: &Bytes,
        scope: NameScope,
        incoming_face_id: Option<FaceId>,
        out: &mut Vec<TxPacket>,
    ) {
        let Some(egress) = self.faces.get(face) else {
            self.counters.face_gone += 1;
            return;
        };
        if scope == NameScope::Localhost && !egress.is_local() {
            self.counters.localhost_violation_out += 1;
            return;
        }
        self.counters.tx_data += 1;
        out.push(TxPacket {
            face,
            kind: PacketKind::Data,
            lp: TxLp {
                pit_token: token,
                nack: None,
                congestion_mark,
                incoming_face_id,
            },
            wire: wire.clone(),
            patch: None,
        });
    }
}
