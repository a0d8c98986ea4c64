//! The NDNLPv2 link service: pure protocol logic between a transport's frames and network
//! packets, with no I/O and time passed in.
//!
//! Receive ([`LinkService::decode`]): a frame is a bare Interest or Data or an LpPacket. The
//! common frame (bare, or only PitToken/Nack/CongestionMark around a whole packet) is read in
//! one walk by [`ndn_packet::lp::decode_common`]; anything else goes through the general
//! decoder, which alone decides what is malformed, so drops are counted the same way. LP
//! fields are checked against the packet type as NFD's GenericLinkService does (NextHopFaceId
//! only on an Interest and only with local fields enabled, CachePolicy only on Data, Nack only
//! on an Interest, IncomingFaceId ignored); fragments are reassembled
//! ([`reassembly`]). The network packet is handed on as a zero-copy slice of
//! the frame whenever it arrived whole.
//!
//! Send ([`LinkService::encode`]): a packet without link fields that fits goes bare; otherwise
//! an LpPacket head is written into a shared head buffer and the payload is referenced, never
//! copied. A packet's [`BytePatch`] (the engine's HopLimit decrement) travels with the frame
//! holding its offset and is applied by the transport: the body goes out as the bytes before
//! it, the patched byte and the bytes after it. Each frame goes to a [`FrameSink`] as it is
//! made: a `Vec<Frame>` for transports that queue, or straight into a shared-memory ring. A packet over the MTU is cut into fragments carrying consecutive Sequence numbers,
//! FragIndex and FragCount, the other fields on the first fragment only (as NFD's fragmenter).
//! A face without MTU (streams, including local app faces: python-ndn rejects fragments) never
//! fragments.

mod head;
pub mod reassembly;

use core::ops::Range;

use bytes::{Buf, Bytes};
use ndn_packet::link::{BytePatch, LpToken, PacketKind, RxLp, RxPacket, TxPacket};
use ndn_packet::lp::{self, CommonFields, LpHeaders, LpPacket};
use ndn_packet::tlv::{self, tt};
use ndn_packet::FaceId;

use self::head::{Fields, FragInfo, FRAG_OVERHEAD};
use self::reassembly::{Fragment, Outcome, Reassembler, ReassemblyLimits};
use crate::counters::{DropReason, FaceCounters};

/// One frame produced by [`LinkService::encode`]: `heads[head] ++ body`, with `patch`
/// applied to `body`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Where the LpPacket head is in the head buffer passed to `encode` (empty: bare packet).
    pub head: Range<usize>,
    /// The network packet or a slice of it.
    pub body: Bytes,
    /// A byte of `body` sent replaced (offset inside `body`).
    pub patch: Option<BytePatch>,
}

/// `body` as sent with `patch` applied, in three pieces: the bytes before the patched one,
/// the patched byte, the bytes after it; without a patch (or one outside `body`, which
/// `encode` never hands on) the whole body and two empty pieces. The transports send the
/// pieces as separate I/O vectors or copy them one after the other: the body is never copied
/// to patch it.
#[inline]
pub(crate) fn patched_parts<'a>(body: &'a [u8], patch: Option<&'a BytePatch>) -> [&'a [u8]; 3] {
    if let Some(p) = patch {
        let at = usize::from(p.at);
        if let (Some(before), Some(after)) = (body.get(..at), body.get(at + 1..)) {
            return [before, core::slice::from_ref(&p.byte), after];
        }
    }
    [body, &[], &[]]
}

impl Frame {
    /// The body as sent, in three pieces (`patched_parts`).
    #[inline]
    pub fn body_parts(&self) -> [&[u8]; 3] {
        patched_parts(&self.body, self.patch.as_ref())
    }

    /// Frame length on the wire.
    pub fn len(&self) -> usize {
        self.head.len() + self.body.len()
    }

    /// True for an empty frame (never produced by `encode`).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where [`LinkService::encode`] puts each frame it makes, as soon as it is made.
pub trait FrameSink {
    /// Takes one frame: `heads[head] ++ body` with `patch` applied to `body` (`heads` is the
    /// head buffer passed to `encode`; the patch offset is inside `body`).
    fn frame(&mut self, heads: &[u8], head: Range<usize>, body: Bytes, patch: Option<BytePatch>);
}

/// Collects the frames, to be sent later.
impl FrameSink for Vec<Frame> {
    #[inline]
    fn frame(&mut self, _heads: &[u8], head: Range<usize>, body: Bytes, patch: Option<BytePatch>) {
        self.push(Frame { head, body, patch });
    }
}

/// Where [`LinkService::decode_into`] puts a whole received packet.
pub trait PacketSink {
    /// Takes one packet.
    fn packet(&mut self, p: RxPacket);
}

/// Appends.
impl PacketSink for Vec<RxPacket> {
    #[inline]
    fn packet(&mut self, p: RxPacket) {
        self.push(p);
    }
}

/// Holds the packet ([`LinkService::decode`]).
impl PacketSink for Option<RxPacket> {
    #[inline]
    fn packet(&mut self, p: RxPacket) {
        *self = Some(p);
    }
}

/// Link service settings of one face (default: a stream face, no local fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LinkConfig {
    /// Largest frame the transport carries; `None` for streams, which never fragment.
    pub mtu: Option<usize>,
    /// Accept NextHopFaceId and CachePolicy, send IncomingFaceId (local faces only).
    pub local_fields: bool,
    /// Reassembly bounds.
    pub reassembly: ReassemblyLimits,
}

/// NDNLPv2 state of one face: fragmentation sequence numbers and reassembly buffers.
#[derive(Debug)]
pub struct LinkService {
    cfg: LinkConfig,
    next_seq: u64,
    reassembler: Reassembler,
}

/// LP fields of a received packet before they are checked against its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RxFields {
    lp: RxLp,
    cache_policy: Option<u64>,
}

/// CachePolicyType NoCache.
const NO_CACHE: u64 = 1;

fn rx_fields(h: &LpHeaders<'_>) -> RxFields {
    let common = CommonFields {
        pit_token: h.pit_token,
        nack: h.nack,
        congestion_mark: h.congestion_mark,
    };
    let mut fields = common_fields(&common);
    fields.lp.next_hop_face_id = h.next_hop_face_id;
    fields.cache_policy = h.cache_policy;
    fields
}

/// The fields of a common frame ([`rx_fields`] adds the local-face fields to these).
#[inline]
fn common_fields(c: &CommonFields<'_>) -> RxFields {
    RxFields {
        lp: RxLp {
            pit_token: c.pit_token.and_then(LpToken::new).unwrap_or_default(),
            nack: c.nack,
            congestion_mark: c.congestion_mark.unwrap_or(0),
            next_hop_face_id: None,
            no_cache: false,
        },
        cache_policy: None,
    }
}

/// The type of the single TLV that `wire` must be exactly.
#[inline]
fn single_tlv_type(wire: &[u8]) -> Option<u32> {
    let (typ, len, hdr) = tlv::header(wire).ok()?;
    (hdr.checked_add(len)? == wire.len()).then_some(typ)
}

/// True when `p` replaces a byte of `wire`'s TLV value: the outer type and length checked
/// before sending stay as sent.
fn patch_in_value(wire: &[u8], p: BytePatch) -> bool {
    matches!(tlv::header(wire), Ok((_, _, hdr)) if (hdr..wire.len()).contains(&usize::from(p.at)))
}

impl LinkService {
    /// A link service; `first_seq` is the first Sequence number it sends (draw it at random
    /// so a restarted peer does not confuse old and new fragments).
    pub fn new(cfg: LinkConfig, first_seq: u64) -> Self {
        Self {
            cfg,
            next_seq: first_seq,
            reassembler: Reassembler::new(cfg.reassembly),
        }
    }

    /// The settings.
    pub fn config(&self) -> &LinkConfig {
        &self.cfg
    }

    /// Turns local fields on or off (the caller checks that the face is local).
    pub fn set_local_fields(&mut self, on: bool) {
        self.cfg.local_fields = on;
    }

    /// Partial packets and fragment bytes held for reassembly.
    pub fn reassembly_usage(&self) -> (usize, usize) {
        (
            self.reassembler.pending(),
            self.reassembler.buffered_bytes(),
        )
    }

    /// Drops partial packets that timed out.
    pub fn expire(&mut self, now: u64, counters: &FaceCounters) {
        self.reassembler.expire(now, |r| counters.drop(r));
    }

    /// Decodes one received frame from `peer` (any stable number naming the sender on a
    /// multi-access link; 0 on a point-to-point face). Returns the network packet once whole;
    /// every drop is counted in `counters`.
    pub fn decode(
        &mut self,
        now: u64,
        face: FaceId,
        peer: u64,
        frame: Bytes,
        counters: &FaceCounters,
    ) -> Option<RxPacket> {
        let mut got = None;
        self.decode_into(now, face, peer, frame, counters, &mut got);
        got
    }

    /// [`LinkService::decode`] handing the packet, once whole, to `out` (a `Vec` appends it:
    /// the packet is built in place, not returned and moved).
    pub fn decode_into(
        &mut self,
        now: u64,
        face: FaceId,
        peer: u64,
        frame: Bytes,
        counters: &FaceCounters,
        out: &mut impl PacketSink,
    ) {
        counters.in_bytes(frame.len());
        if let Some(c) = lp::decode_common(&frame) {
            let (fields, net_type, range) = (common_fields(&c.fields), Some(c.net_type), c.payload);
            // Narrowed in place: no second reference to count up and down.
            let mut wire = frame;
            wire.truncate(range.end);
            wire.advance(range.start);
            return self.deliver(face, wire, net_type, fields, counters, out);
        }
        let is_lp =
            matches!(tlv::read_var_number(&frame), Ok((t, _)) if t == u64::from(tt::LP_PACKET));
        if !is_lp {
            let net_type = single_tlv_type(&frame);
            return self.deliver(face, frame, net_type, RxFields::default(), counters, out);
        }
        let lp = match LpPacket::new_checked(&frame) {
            Ok(lp) => lp,
            Err(_) => {
                counters.drop(DropReason::BadLp);
                return;
            }
        };
        let h = lp.headers();
        let fields = rx_fields(h);
        // An idle LpPacket (no fragment) carries nothing for the network layer.
        let Some(range) = lp.fragment_range() else {
            return;
        };
        if !h.is_fragmented() {
            let wire = frame.slice(range);
            let net_type = single_tlv_type(&wire);
            return self.deliver(face, wire, net_type, fields, counters, out);
        }
        let (Some(seq), Some(payload)) = (h.sequence, lp.fragment()) else {
            counters.drop(DropReason::BadFragment);
            return;
        };
        let f = Fragment {
            peer,
            seq,
            index: h.frag_index.unwrap_or(0),
            count: h.frag_count.unwrap_or(1),
            payload,
            fields,
        };
        match self.reassembler.add(now, &f, |r| counters.drop(r)) {
            Ok(Outcome::Pending) => {}
            Ok(Outcome::Complete(wire, fields)) => {
                let net_type = single_tlv_type(&wire);
                self.deliver(face, wire, net_type, fields, counters, out)
            }
            Err(r) => counters.drop(r),
        }
    }

    /// Checks a whole network packet and its fields, counts it and hands it to `out`.
    /// `net_type` is the type of the single TLV `wire` must be (`None`: it is not one TLV).
    #[inline(always)]
    fn deliver(
        &self,
        face: FaceId,
        wire: Bytes,
        net_type: Option<u32>,
        fields: RxFields,
        counters: &FaceCounters,
        out: &mut impl PacketSink,
    ) {
        if wire.len() > crate::MAX_PACKET_LEN {
            counters.drop(DropReason::PacketTooLarge);
            return;
        }
        let mut lp = fields.lp;
        let cache_policy = fields.cache_policy.is_some();
        let kind = match (net_type, lp.nack) {
            (Some(tt::INTEREST), None) => PacketKind::Interest,
            (Some(tt::INTEREST), Some(_)) => PacketKind::Nack,
            (Some(tt::DATA), _) => PacketKind::Data,
            _ => {
                counters.drop(DropReason::BadPacket);
                return;
            }
        };
        let bad = match kind {
            PacketKind::Interest => cache_policy,
            PacketKind::Data => lp.nack.is_some() || lp.next_hop_face_id.is_some(),
            PacketKind::Nack => cache_policy || lp.next_hop_face_id.is_some(),
        };
        if bad {
            counters.drop(DropReason::BadLp);
            return;
        }
        if lp.next_hop_face_id.is_some() && !self.cfg.local_fields {
            counters.drop(DropReason::LocalFieldsDisabled);
            return;
        }
        // Other policies, or a face without local fields, are ignored as NFD does.
        lp.no_cache = kind == PacketKind::Data
            && fields.cache_policy == Some(NO_CACHE)
            && self.cfg.local_fields;
        counters.count_in(kind);
        out.packet(RxPacket {
            face,
            kind,
            wire,
            lp,
        });
    }

    /// Encodes `pkt` into frames handed to `out` in order (a `Vec<Frame>` collects them),
    /// writing LpPacket heads into `heads`; an unfragmented packet moves its buffer into its
    /// frame (`pkt.wire` is left empty) with its patch, a fragmented one gives the patch to
    /// the fragment holding its offset. Returns false (and counts the drop) when the packet is
    /// invalid (a patch outside its TLV value included) or cannot fit the MTU.
    pub fn encode(
        &mut self,
        pkt: &mut TxPacket,
        heads: &mut Vec<u8>,
        out: &mut impl FrameSink,
        counters: &FaceCounters,
    ) -> bool {
        let typ = single_tlv_type(&pkt.wire);
        let valid = match pkt.kind {
            PacketKind::Interest => typ == Some(tt::INTEREST) && pkt.lp.nack.is_none(),
            PacketKind::Nack => typ == Some(tt::INTEREST),
            PacketKind::Data => typ == Some(tt::DATA) && pkt.lp.nack.is_none(),
        };
        if !valid || pkt.patch.is_some_and(|p| !patch_in_value(&pkt.wire, p)) {
            counters.drop(DropReason::TxBadPacket);
            return false;
        }
        let incoming_face_id = pkt.lp.incoming_face_id.filter(|_| self.cfg.local_fields);
        let len = pkt.wire.len();
        let limit = self.cfg.mtu.unwrap_or(crate::MAX_FRAME_LEN);
        // The common frame: a bare packet, or only a PitToken around it, that fits.
        if pkt.kind != PacketKind::Nack && incoming_face_id.is_none() && pkt.lp.congestion_mark == 0
        {
            let start = heads.len();
            let head = if pkt.lp.pit_token.is_empty() {
                Some(0)
            } else {
                head::write_token_head(heads, &pkt.lp.pit_token, len)
            };
            match head {
                Some(h) if h + len <= limit => {
                    counters.count_out(pkt.kind);
                    let body = core::mem::take(&mut pkt.wire);
                    self.emit(heads, start, body, pkt.patch, out, counters);
                    return true;
                }
                // Over the MTU: the general path fragments it.
                _ => heads.truncate(start),
            }
        }
        let fields = Fields {
            pit_token: pkt.lp.pit_token.as_bytes(),
            nack: (pkt.kind == PacketKind::Nack).then_some(pkt.lp.nack),
            incoming_face_id,
            congestion_mark: pkt.lp.congestion_mark,
        };
        let whole = if fields.is_empty() {
            len
        } else {
            tlv::tlv_len(
                tt::LP_PACKET,
                fields.len() + tlv::tlv_len(tt::FRAGMENT, len),
            )
        };
        if whole <= limit {
            let start = heads.len();
            if !fields.is_empty() {
                head::write_head(heads, None, &fields, len);
            }
            let body = core::mem::take(&mut pkt.wire);
            self.emit(heads, start, body, pkt.patch, out, counters);
        } else if self.cfg.mtu.is_none() || !self.fragment(pkt, &fields, heads, out, counters) {
            counters.drop(DropReason::TxOverMtu);
            return false;
        }
        counters.count_out(pkt.kind);
        true
    }

    fn emit(
        &self,
        heads: &[u8],
        start: usize,
        body: Bytes,
        patch: Option<BytePatch>,
        out: &mut impl FrameSink,
        counters: &FaceCounters,
    ) {
        let head = start..heads.len();
        counters.out_bytes(head.len() + body.len());
        out.frame(heads, head, body, patch);
    }

    /// Cuts `pkt` into fragments that each fit the MTU. False when the MTU cannot hold the
    /// first fragment's fields or the packet needs more fragments than a receiver accepts.
    fn fragment(
        &mut self,
        pkt: &TxPacket,
        fields: &Fields<'_>,
        heads: &mut Vec<u8>,
        out: &mut impl FrameSink,
        counters: &FaceCounters,
    ) -> bool {
        let mtu = self.cfg.mtu.unwrap_or(0);
        let len = pkt.wire.len();
        let Some(first) = mtu
            .checked_sub(FRAG_OVERHEAD + fields.len())
            .filter(|&n| n > 0)
        else {
            return false;
        };
        let first = first.min(len);
        let rest = mtu - FRAG_OVERHEAD;
        let count = 1 + (len - first).div_ceil(rest);
        if count as u64 > self.cfg.reassembly.max_fragments {
            return false;
        }
        let seq = self.next_seq;
        self.next_seq = seq.wrapping_add(count as u64);
        let mut off = 0;
        for index in 0..count {
            let n = if index == 0 {
                first
            } else {
                rest.min(len - off)
            };
            let info = FragInfo {
                seq: seq.wrapping_add(index as u64),
                index: index as u64,
                count: count as u64,
            };
            let none = Fields::default();
            let f = if index == 0 { fields } else { &none };
            let start = heads.len();
            head::write_head(heads, Some(&info), f, n);
            // The fragment holding the patched byte carries the patch, at its own offset.
            let patch = pkt.patch.and_then(|p| {
                let at = usize::from(p.at).checked_sub(off).filter(|&at| at < n)?;
                Some(BytePatch {
                    at: at as u16,
                    byte: p.byte,
                })
            });
            let body = pkt.wire.slice(off..off + n);
            self.emit(heads, start, body, patch, out, counters);
            off += n;
        }
        true
    }
}

#[cfg(test)]
mod tests;
