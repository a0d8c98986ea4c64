//! Incoming Interest, CS hit, CS miss, Interest loop, outgoing Interest.

use bytes::Bytes;
use ndn_packet::interest::{Guiders, Interest};
use ndn_packet::lp::NackReason;
use ndn_packet::{FaceId, PrefixHashes};
use ndnfwd_pcct::{InterestInfo, InterestOutcome, PitHandle, MS};

use crate::cycles::{Laps, Stage};
use crate::engine::Core;
use crate::face::FaceInfo;
use crate::out::{TxBurst, Wire};
use crate::strategy::{eligible_egress, InterestCtx, NameScope};
use ndn_packet::link::LinkType;
use ndn_packet::link::{BytePatch, LpToken, PacketKind, RxPacket, TxLp, TxPacket};

/// One Interest as it moves through the Interest pipelines.
#[derive(Clone, Copy)]
pub(crate) struct Incoming<'p, 'a> {
    pub(crate) rx: &'p RxPacket,
    pub(crate) interest: &'p Interest<'a>,
    pub(crate) hashes: &'p PrefixHashes,
    pub(crate) fh: Option<u64>,
    pub(crate) info: FaceInfo,
    pub(crate) scope: NameScope,
    pub(crate) nonce: u32,
    /// True when `nonce` is the Interest's own, false when the engine made it up.
    pub(crate) own_nonce: bool,
    /// The received HopLimit, read from the wire once for every stage.
    pub(crate) hop_limit: Option<u8>,
}

/// The PIT-CS view of an Interest (also what its bucket prefetch needs).
pub(crate) fn interest_info<'a>(
    i: &Interest<'a>,
    hashes: &'a PrefixHashes,
    fh: Option<u64>,
    nonce: u32,
    rx: &'a RxPacket,
) -> InterestInfo<'a> {
    InterestInfo {
        name: i.name(),
        hashes,
        can_be_prefix: i.can_be_prefix(),
        must_be_fresh: i.must_be_fresh(),
        forwarding_hint_hash: fh,
        nonce,
        lifetime_ns: i.lifetime().map(|ms| ms.saturating_mul(MS)),
        hop_limit: i.hop_limit(),
        token: &rx.lp.pit_token,
        congestion_mark: u8::try_from(rx.lp.congestion_mark).unwrap_or(u8::MAX),
    }
}

/// When `g` changes only the HopLimit (the usual forwarded Interest: Nonce present, lifetime
/// unchanged), the new packet is the old one with the one-byte HopLimit value replaced
/// (TLV lengths are minimal and HopLimit is one byte, so nothing moves): the patch that the
/// face layer applies to the received buffer as it sends it.
#[inline(always)]
fn hop_limit_patch(i: &Interest<'_>, g: &Guiders) -> Option<BytePatch> {
    match *g {
        Guiders {
            nonce: None,
            lifetime_ms: None,
            hop_limit: Some(byte),
        } => Some(BytePatch {
            at: u16::try_from(i.hop_limit_offset()?).ok()?,
            byte,
        }),
        _ => None,
    }
}

/// An outgoing Interest's bytes: the received ones or a buffer, and the byte the face layer
/// patches into them.
type OutWire = (Wire, Option<BytePatch>);

impl Core {
    /// NFD `onIncomingInterest`: HopLimit, `/localhost` scope, then one PIT-CS lookup that does
    /// loop detection, the CS lookup and PIT insert or aggregation.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_incoming_interest<const A: bool>(
        &mut self,
        now: u64,
        rx: &RxPacket,
        interest: &Interest<'_>,
        fh: Option<u64>,
        hashes: &PrefixHashes,
        out: &mut TxBurst,
        laps: &mut Laps<A>,
    ) {
        self.counters.rx_interest += 1;
        let Some(info) = self.faces.get(rx.face) else {
            self.counters.unknown_face += 1;
            return;
        };
        let hop_limit = interest.hop_limit();
        if hop_limit == Some(0) {
            self.counters.hop_limit_zero += 1;
            return;
        }
        let scope = NameScope::of(interest.name());
        if scope == NameScope::Localhost && !info.is_local() {
            self.counters.localhost_violation_in += 1;
            return;
        }
        let (nonce, own_nonce) = match interest.nonce() {
            Some(n) => (u32::from_be_bytes(n), true),
            None => (self.next_nonce(), false),
        };
        if !self.quota.admit(&self.pcct, rx.face) {
            self.counters.pit_face_quota += 1;
            let token = rx.lp.pit_token;
            let wire = Wire::Received(self.at);
            self.on_outgoing_nack(rx.face, token, NackReason::Congestion, wire, 0, out);
            return;
        }
        // The HopLimit read above, not read from the wire a second time.
        let it = InterestInfo {
            hop_limit,
            ..interest_info(interest, hashes, fh, nonce, rx)
        };
        let outcome = self.pcct.on_interest(now, &it, rx.face);
        laps.lap(&mut self.cycles, Stage::Pcct);
        let inc = Incoming {
            rx,
            interest,
            hashes,
            fh,
            info,
            scope,
            nonce,
            own_nonce,
            hop_limit,
        };
        // Every outcome that goes on to the CS-miss stage (a new entry, or an aggregated or
        // retransmitted Interest that is not suppressed) meets at one call site, so that stage
        // is inlined once rather than called.
        let miss = match outcome {
            InterestOutcome::CsHit { data } => {
                self.on_content_store_hit(rx, inc.scope, data, out);
                None
            }
            InterestOutcome::NewPit { pit } => {
                self.counters.cs_miss += 1;
                self.quota.created(rx.face, pit);
                Some((pit, true))
            }
            InterestOutcome::Aggregated { pit, forward } => {
                self.counters.aggregated += 1;
                self.forward_again(pit, forward)
            }
            InterestOutcome::Retransmission { pit, forward } => self.forward_again(pit, forward),
            InterestOutcome::DuplicateNonce => {
                self.on_interest_loop(rx, info, out);
                None
            }
            InterestOutcome::PitFull => {
                self.counters.pit_full += 1;
                self.on_outgoing_nack(
                    rx.face,
                    rx.lp.pit_token,
                    NackReason::Congestion,
                    Wire::Received(self.at),
                    0,
                    out,
                );
                None
            }
        };
        if let Some((pit, new)) = miss {
            self.on_content_store_miss(now, &inc, pit, new, out, laps);
        }
        laps.lap(&mut self.cycles, Stage::Output);
    }

    /// An Interest joined a pending entry: it goes on to the CS-miss stage (not as a new
    /// entry) unless suppressed.
    fn forward_again(&mut self, pit: PitHandle, forward: bool) -> Option<(PitHandle, bool)> {
        if !forward {
            self.counters.retx_suppressed += 1;
            return None;
        }
        Some((pit, false))
    }

    /// NFD `onInterestLoop`: Nack Duplicate on point-to-point faces, silent drop otherwise.
    /// (The out-of-line stages take the fields they use, not the [`Incoming`]: given its
    /// address, the pipeline would build it in memory for every Interest.)
    fn on_interest_loop(&mut self, rx: &RxPacket, info: FaceInfo, out: &mut TxBurst) {
        self.counters.dup_nonce += 1;
        if info.link == LinkType::PointToPoint {
            self.on_outgoing_nack(
                rx.face,
                rx.lp.pit_token,
                NackReason::Duplicate,
                Wire::Received(self.at),
                0,
                out,
            );
        }
    }

    /// NFD `onContentStoreHit`: the cached Data goes back to the downstream with its token.
    fn on_content_store_hit(
        &mut self,
        rx: &RxPacket,
        scope: NameScope,
        data: Bytes,
        out: &mut TxBurst,
    ) {
        self.counters.cs_hit += 1;
        self.on_outgoing_data(rx.face, rx.lp.pit_token, 0, data, scope, None, out);
    }

    /// NFD `onContentStoreMiss`: the in-record is in place (PIT-CS); NextHopFaceId from a local
    /// face bypasses the strategy; otherwise FIB lookup (ForwardingHint first) and strategy.
    #[inline(always)]
    fn on_content_store_miss<const A: bool>(
        &mut self,
        now: u64,
        inc: &Incoming<'_, '_>,
        pit: PitHandle,
        new: bool,
        out: &mut TxBurst,
        laps: &mut Laps<A>,
    ) {
        // The stages other than the first-eligible one run out of line, on a copy of `inc`:
        // given the address of `inc` itself, the pipeline would build it in memory for every
        // Interest.
        if let Some(face) = inc.rx.lp.next_hop_face_id.filter(|_| inc.info.is_local()) {
            let copy = *inc;
            self.forward_to_next_hop_face(now, &copy, pit, new, face, out);
            return;
        }
        // When every chosen instance follows the first-eligible rule (the usual root-only
        // best-route), a new Interest goes by it without the choice lookup.
        if new
            && inc.fh.is_none()
            && (self.all_first_eligible || self.first_eligible_at(inc.hashes))
        {
            self.new_to_first_eligible(now, inc, pit, out, laps);
            return;
        }
        let copy = *inc;
        self.forward_by_strategy(now, &copy, pit, new, out, laps);
    }

    /// NextHopFaceId from a local face: the Interest goes to that face, bypassing the
    /// strategy.
    #[inline(never)]
    fn forward_to_next_hop_face(
        &mut self,
        now: u64,
        inc: &Incoming<'_, '_>,
        pit: PitHandle,
        new: bool,
        face: FaceId,
        out: &mut TxBurst,
    ) {
        if self.faces.get(face).is_none() {
            self.counters.next_hop_unknown += 1;
            return;
        }
        let wire = self.outgoing_wire(now, inc, pit, new);
        self.on_outgoing_interest(now, inc, pit, face, wire, out);
    }

    /// The strategy's decision: FIB lookup (ForwardingHint first), the chosen strategy's
    /// actions, then the Interest to each face it picked or the Nack to the downstreams.
    #[inline(never)]
    fn forward_by_strategy<const A: bool>(
        &mut self,
        now: u64,
        inc: &Incoming<'_, '_>,
        pit: PitHandle,
        new: bool,
        out: &mut TxBurst,
        laps: &mut Laps<A>,
    ) {
        let sid = self.choice.find(inc.hashes);
        self.lookup_fib(inc);
        laps.lap(&mut self.cycles, Stage::Fib);

        self.outs.clear();
        if !new {
            self.outs.extend(self.pcct.out_records(pit));
        }
        self.actions.clear();
        let ctx = InterestCtx {
            now,
            ingress: inc.rx.face,
            ingress_info: inc.info,
            scope: inc.scope,
            retransmission: !self.outs.is_empty(),
            nexthops: self.nexthops.as_slice(),
            out_records: &self.outs,
            faces: &self.faces,
        };
        if let Some(s) = self.strategies.get_mut(usize::from(sid)) {
            s.after_receive_interest(&ctx, &mut self.actions);
        }
        laps.lap(&mut self.cycles, Stage::Strategy);

        let actions = self.actions;
        if let Some(reason) = actions.nack() {
            if reason == NackReason::NoRoute {
                self.counters.no_route += 1;
            }
            self.reject_pending(now, inc.rx, inc.interest, pit, reason, out);
            return;
        }
        let Some((&last, rest)) = actions.sends().split_last() else {
            return;
        };
        let wire = self.outgoing_wire(now, inc, pit, new);
        for &face in rest {
            let shared = (wire.0.shared(inc.rx), wire.1);
            self.on_outgoing_interest(now, inc, pit, face, shared, out);
        }
        // The last upstream takes the buffer itself: one reference-count update fewer.
        self.on_outgoing_interest(now, inc, pit, last, wire, out);
    }

    /// Whether the instance chosen for the name follows the first-eligible rule.
    fn first_eligible_at(&self, hashes: &PrefixHashes) -> bool {
        let sid = self.choice.find(hashes);
        self.first_eligible
            .get(usize::from(sid))
            .is_some_and(|&f| f)
    }

    /// A new PIT entry without ForwardingHint under a strategy that follows best-route's rule
    /// for new Interests ([`Strategy::new_interest_to_first_eligible`]): the first eligible
    /// nexthop of the name's longest match, else Nack NoRoute, decided here straight from the
    /// match (no copy of the nexthops, no strategy context, no actions).
    ///
    /// [`Strategy::new_interest_to_first_eligible`]: crate::strategy::Strategy::new_interest_to_first_eligible
    #[inline(always)]
    fn new_to_first_eligible<const A: bool>(
        &mut self,
        now: u64,
        inc: &Incoming<'_, '_>,
        pit: PitHandle,
        out: &mut TxBurst,
        laps: &mut Laps<A>,
    ) {
        let m = self.fib.lookup_with(inc.hashes, self.fib_hint);
        laps.lap(&mut self.cycles, Stage::Fib);
        let mut best = None;
        if let Some(m) = m {
            // A plain loop: `find` on the nexthop iterator is an outlined `try_fold`.
            for nh in m.nexthops() {
                let e = eligible_egress(&self.faces, inc.rx.face, inc.info, inc.scope, nh.face);
                if let Some(egress) = e {
                    best = Some((nh.face, egress));
                    break;
                }
            }
        }
        laps.lap(&mut self.cycles, Stage::Strategy);
        match best {
            Some((face, egress)) => {
                let wire = self.outgoing_wire(now, inc, pit, true);
                self.send_interest(now, inc, pit, face, egress, wire, out);
            }
            None => {
                self.counters.no_route += 1;
                self.reject_pending(now, inc.rx, inc.interest, pit, NackReason::NoRoute, out);
            }
        }
    }

    /// Longest prefix match into `self.nexthops`: the first ForwardingHint delegation that has
    /// a route, else the Interest name.
    #[inline(always)]
    fn lookup_fib(&mut self, inc: &Incoming<'_, '_>) {
        self.nexthops.clear();
        if inc.fh.is_some() {
            for d in inc.interest.forwarding_hint() {
                self.hasher.hash_prefixes(d, &mut self.fh_hashes);
                if let Some(m) = self.fib.lookup(&self.fh_hashes) {
                    self.nexthops.extend(m.nexthops());
                }
                if !self.nexthops.is_empty() {
                    return;
                }
            }
        }
        if let Some(m) = self.fib.lookup_with(inc.hashes, self.fib_hint) {
            self.nexthops.extend(m.nexthops());
        }
    }

    /// The Interest as it leaves: HopLimit decremented, InterestLifetime = time left on the PIT
    /// entry, a Nonce if it had none. Unchanged packets reuse the received buffer, and so do
    /// packets whose only change is the HopLimit (with a patch for the face layer to apply);
    /// other changes are written once into the recycled buffer. Shared by every upstream.
    #[inline(always)]
    fn outgoing_wire(
        &mut self,
        now: u64,
        inc: &Incoming<'_, '_>,
        pit: PitHandle,
        new: bool,
    ) -> OutWire {
        let i = inc.interest;
        let left_ms = if new {
            self.pcct.new_entry_lifetime_ms(i.lifetime())
        } else {
            self.pcct.lifetime_left_ms(pit, now)
        };
        let g = Guiders {
            nonce: (!inc.own_nonce).then(|| inc.nonce.to_be_bytes()),
            lifetime_ms: (i.lifetime_ms() != left_ms).then_some(left_ms),
            hop_limit: inc.hop_limit.map(|h| h.saturating_sub(1)),
        };
        if g == Guiders::default() {
            return (Wire::Received(self.at), None);
        }
        if let Some(patch) = hop_limit_patch(i, &g) {
            return (Wire::Received(self.at), Some(patch));
        }
        // `move`: the closure holds its own copy of `g`, so `g` need not be in memory on the
        // usual paths above.
        let wire = self.tx.write(move |v| i.write_with_guiders(&g, v));
        (Wire::Own(wire), None)
    }

    /// NFD `onOutgoingInterest`: no HopLimit-0 Interest onto a non-local face; out-record with
    /// the Nonce sent; our PIT token on the packet.
    #[inline(always)]
    fn on_outgoing_interest(
        &mut self,
        now: u64,
        inc: &Incoming<'_, '_>,
        pit: PitHandle,
        face: FaceId,
        wire: OutWire,
        out: &mut TxBurst,
    ) {
        let Some(egress) = self.faces.get(face) else {
            self.counters.face_gone += 1;
            return;
        };
        self.send_interest(now, inc, pit, face, egress, wire, out);
    }

    /// [`Core::on_outgoing_interest`] toward a known face whose info is `egress`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn send_interest(
        &mut self,
        now: u64,
        inc: &Incoming<'_, '_>,
        pit: PitHandle,
        face: FaceId,
        egress: FaceInfo,
        (wire, patch): OutWire,
        out: &mut TxBurst,
    ) {
        let hop_after = inc.hop_limit.map(|h| h.saturating_sub(1));
        if hop_after == Some(0) && !egress.is_local() {
            self.counters.hop_limit_zero_out += 1;
            return;
        }
        if self.pcct.record_out(now, pit, face, inc.nonce).is_err() {
            self.counters.out_records_full += 1;
            return;
        }
        self.counters.tx_interest += 1;
        let p = TxPacket {
            face,
            kind: PacketKind::Interest,
            lp: TxLp {
                pit_token: LpToken::new(&pit.token.to_bytes()).unwrap_or_default(),
                nack: None,
                congestion_mark: inc.rx.lp.congestion_mark,
                incoming_face_id: Some(inc.rx.face),
            },
            wire: Bytes::new(),
            patch,
        };
        out.push_wire(wire, p);
    }

    /// The strategy Nacked: the PIT entry is erased and every downstream gets the Nack.
    fn reject_pending(
        &mut self,
        now: u64,
        rx: &RxPacket,
        interest: &Interest<'_>,
        pit: PitHandle,
        reason: NackReason,
        out: &mut TxBurst,
    ) {
        self.downstreams.clear();
        let Some(range) = self.pcct.reject(now, pit, &mut self.downstreams) else {
            return;
        };
        let mut taken = false;
        for k in range {
            if let Some(d) = self.downstreams.get(k).copied() {
                let wire = self.nack_wire(interest, rx, d.nonce, &mut taken);
                let mark = u64::from(d.congestion_mark);
                self.on_outgoing_nack(d.face, d.token, reason, wire, mark, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndn_packet::interest::InterestBuilder;
    use ndn_packet::Name;

    /// The one-byte patch gives exactly what the general guider rewrite writes, and applies
    /// only when the HopLimit alone changes.
    #[test]
    fn hop_limit_patch_matches_the_general_rewrite() {
        let name = Name::from_uri("/a/b/c").unwrap();
        let variants = [
            InterestBuilder::new(name.clone())
                .nonce([1, 2, 3, 4])
                .hop_limit(64),
            InterestBuilder::new(name.clone())
                .nonce([1, 2, 3, 4])
                .lifetime_ms(1500)
                .hop_limit(1)
                .app_params(vec![9; 20]),
            InterestBuilder::new(name.clone())
                .can_be_prefix(true)
                .must_be_fresh(true)
                .nonce([5, 6, 7, 8])
                .hop_limit(255),
        ];
        for b in variants {
            let wire = b.encode().unwrap();
            let i = Interest::new_checked(&wire).unwrap();
            let g = Guiders {
                hop_limit: i.hop_limit().map(|h| h.saturating_sub(1)),
                ..Guiders::default()
            };
            let p = hop_limit_patch(&i, &g).expect("HopLimit only");
            let mut patched = wire.clone();
            patched[usize::from(p.at)] = p.byte;
            let mut general = Vec::new();
            i.write_with_guiders(&g, &mut general);
            assert_eq!(patched, general);
            for other in [
                Guiders {
                    nonce: Some([0; 4]),
                    ..g
                },
                Guiders {
                    lifetime_ms: Some(10),
                    ..g
                },
                Guiders::default(),
            ] {
                assert_eq!(hop_limit_patch(&i, &other), None, "{other:?}");
            }
        }
        let no_hop = InterestBuilder::new(name).nonce([1; 4]).encode().unwrap();
        let i = Interest::new_checked(&no_hop).unwrap();
        let g = Guiders {
            hop_limit: Some(3),
            ..Guiders::default()
        };
        assert_eq!(
            hop_limit_patch(&i, &g),
            None,
            "no HopLimit element to patch"
        );
    }
}
