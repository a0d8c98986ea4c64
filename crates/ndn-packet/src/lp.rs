//! NDNLPv2 link packets: a checked view of the LpPacket header fields and fragment, an owned
//! builder, network Nack reasons, and [`decode_link_packet`], the one entry point for a
//! received frame (an LpPacket or a bare Interest/Data). [`decode_common`] is the fast path for
//! the frame nearly every packet is (a bare packet, or only a PitToken, Nack or CongestionMark
//! around a whole one); it defers anything else to the general decoder.
//!
//! ```text
//! LpPacket = LP-PACKET-TYPE TLV-LENGTH *LpHeaderField [Fragment]
//! ```
//!
//! Rules (NFD's NDNLPv2 page as ndn-cxx applies them): header fields appear in increasing
//! TLV-TYPE order, only Ack may repeat (consecutively), and the Fragment comes last; an
//! unrecognized header field is skipped when [`tlv::lp_is_ignorable`] allows it (it still takes
//! part in the ordering) and is an error otherwise. Sequence, TxSequence and Ack are 8-byte
//! fixed-width integers; PitToken is 1 to 32 bytes; face ids must fit a [`FaceId`].

use core::ops::Range;

use crate::data::Data;
use crate::interest::Interest;
use crate::tlv::{self, tt, Element, Reader};
use crate::{DecodeError, FaceId};

mod common;

pub use common::{decode_common, CommonFields, CommonFrame};

/// Largest PitToken, in bytes.
pub const MAX_PIT_TOKEN_LEN: usize = 32;

/// Reason carried by a network Nack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NackReason {
    /// The upstream is congested (50).
    Congestion,
    /// The upstream saw this Nonce before (100).
    Duplicate,
    /// The upstream has no route (150).
    NoRoute,
    /// Any other code, kept as received.
    Other(u64),
}

impl NackReason {
    /// The reason for a wire code.
    pub const fn from_code(code: u64) -> Self {
        match code {
            50 => Self::Congestion,
            100 => Self::Duplicate,
            150 => Self::NoRoute,
            c => Self::Other(c),
        }
    }

    /// The wire code.
    pub const fn code(self) -> u64 {
        match self {
            Self::Congestion => 50,
            Self::Duplicate => 100,
            Self::NoRoute => 150,
            Self::Other(c) => c,
        }
    }
}

/// The Ack fields of one LpPacket (consecutive 8-byte sequence numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Acks<'a> {
    wire: &'a [u8],
}

impl<'a> Acks<'a> {
    /// The acknowledged sequence numbers in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + 'a {
        Reader::new(self.wire).filter_map(|e| fixed8(&e.ok()?).ok())
    }

    /// True when there is no Ack.
    pub fn is_empty(&self) -> bool {
        self.wire.is_empty()
    }
}

/// Decoded LpPacket header fields; all absent (the default) for a bare network packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LpHeaders<'a> {
    /// Sequence (81).
    pub sequence: Option<u64>,
    /// FragIndex (82); absent means 0.
    pub frag_index: Option<u64>,
    /// FragCount (83); absent means 1.
    pub frag_count: Option<u64>,
    /// PitToken (98), 1 to 32 bytes.
    pub pit_token: Option<&'a [u8]>,
    /// Nack (800): `Some(reason)`, where the NackReason itself is optional.
    pub nack: Option<Option<NackReason>>,
    /// IncomingFaceId (812).
    pub incoming_face_id: Option<FaceId>,
    /// NextHopFaceId (816).
    pub next_hop_face_id: Option<FaceId>,
    /// CachePolicyType inside CachePolicy (820/821); 1 is NoCache.
    pub cache_policy: Option<u64>,
    /// CongestionMark (832).
    pub congestion_mark: Option<u64>,
    /// Ack (836), repeatable.
    pub acks: Acks<'a>,
    /// TxSequence (840).
    pub tx_sequence: Option<u64>,
    /// NonDiscovery (844).
    pub non_discovery: bool,
    /// TLV-VALUE of PrefixAnnouncement (848), kept as bytes.
    pub prefix_announcement: Option<&'a [u8]>,
}

impl LpHeaders<'_> {
    /// True when the network packet was cut into more than one fragment.
    pub fn is_fragmented(&self) -> bool {
        self.frag_count.unwrap_or(1) > 1
    }
}

/// A checked, borrowed LpPacket: header fields and the Fragment, not decoded further.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LpPacket<'a> {
    wire: &'a [u8],
    headers: LpHeaders<'a>,
    fragment: Option<(usize, &'a [u8])>,
}

fn fixed8(e: &Element<'_>) -> Result<u64, DecodeError> {
    <[u8; 8]>::try_from(e.value)
        .map(u64::from_be_bytes)
        .map_err(|_| DecodeError::Invalid(e.typ))
}

fn face_id(e: &Element<'_>) -> Result<FaceId, DecodeError> {
    FaceId::try_from(e.nni()?).map_err(|_| DecodeError::Invalid(e.typ))
}

/// Reads the NNI that must be the first child of `e` (NackReason in Nack, CachePolicyType in
/// CachePolicy); `required` tells whether it may be absent.
fn first_child_nni(e: &Element<'_>, typ: u32, required: bool) -> Result<Option<u64>, DecodeError> {
    match e.children().next().transpose()? {
        Some(c) if c.typ == typ => c.nni().map(Some),
        None if !required => Ok(None),
        None => Err(DecodeError::Missing(typ)),
        Some(_) => Err(DecodeError::Invalid(e.typ)),
    }
}

impl<'a> LpPacket<'a> {
    /// Checks that `wire` is exactly one valid LpPacket TLV.
    pub fn new_checked(wire: &'a [u8]) -> Result<Self, DecodeError> {
        let outer = tlv::read_single(wire)?;
        if outer.typ != tt::LP_PACKET {
            return Err(DecodeError::UnexpectedType(outer.typ));
        }
        let mut h = LpHeaders::default();
        let mut fragment = None;
        let mut acks: Option<Range<usize>> = None;
        let mut prev = 0u32;
        for e in Reader::new(outer.value) {
            let e = e?;
            let repeated_ack = e.typ == tt::ACK && prev == tt::ACK;
            if fragment.is_some() || (e.typ != tt::FRAGMENT && e.typ <= prev && !repeated_ack) {
                return Err(DecodeError::OutOfOrder(e.typ));
            }
            prev = e.typ;
            match e.typ {
                tt::FRAGMENT if e.value.is_empty() => {
                    return Err(DecodeError::Invalid(tt::FRAGMENT))
                }
                tt::FRAGMENT => fragment = Some((outer.value_start + e.value_start, e.value)),
                tt::SEQUENCE => h.sequence = Some(fixed8(&e)?),
                tt::FRAG_INDEX => h.frag_index = Some(e.nni()?),
                tt::FRAG_COUNT => h.frag_count = Some(e.nni()?),
                tt::PIT_TOKEN if e.value.is_empty() || e.value.len() > MAX_PIT_TOKEN_LEN => {
                    return Err(DecodeError::Invalid(tt::PIT_TOKEN))
                }
                tt::PIT_TOKEN => h.pit_token = Some(e.value),
                tt::NACK => {
                    let reason = first_child_nni(&e, tt::NACK_REASON, false)?;
                    h.nack = Some(reason.map(NackReason::from_code));
                }
                tt::INCOMING_FACE_ID => h.incoming_face_id = Some(face_id(&e)?),
                tt::NEXT_HOP_FACE_ID => h.next_hop_face_id = Some(face_id(&e)?),
                tt::CACHE_POLICY => {
                    h.cache_policy = first_child_nni(&e, tt::CACHE_POLICY_TYPE, true)?;
                }
                tt::CONGESTION_MARK => h.congestion_mark = Some(e.nni()?),
                tt::ACK => {
                    fixed8(&e)?;
                    let start = acks.as_ref().map_or(e.start, |r| r.start);
                    acks = Some(start..e.end());
                }
                tt::TX_SEQUENCE => h.tx_sequence = Some(fixed8(&e)?),
                tt::NON_DISCOVERY if !e.value.is_empty() => {
                    return Err(DecodeError::Invalid(tt::NON_DISCOVERY))
                }
                tt::NON_DISCOVERY => h.non_discovery = true,
                tt::PREFIX_ANNOUNCEMENT => h.prefix_announcement = Some(e.value),
                t if tlv::lp_is_ignorable(t) => {}
                t => return Err(DecodeError::UnknownCritical(t)),
            }
        }
        if let Some(r) = acks {
            h.acks = Acks {
                wire: outer.value.get(r).unwrap_or_default(),
            };
        }
        let count = h.frag_count.unwrap_or(1);
        if count == 0 {
            return Err(DecodeError::Invalid(tt::FRAG_COUNT));
        }
        if h.frag_index.unwrap_or(0) >= count {
            return Err(DecodeError::Invalid(tt::FRAG_INDEX));
        }
        Ok(Self {
            wire,
            headers: h,
            fragment,
        })
    }

    /// The whole LpPacket TLV.
    pub fn wire(&self) -> &'a [u8] {
        self.wire
    }

    /// The header fields.
    pub fn headers(&self) -> &LpHeaders<'a> {
        &self.headers
    }

    /// TLV-VALUE of the Fragment (absent in an idle packet).
    pub fn fragment(&self) -> Option<&'a [u8]> {
        self.fragment.map(|(_, f)| f)
    }

    /// Byte range of the Fragment value in [`LpPacket::wire`], for zero-copy slicing.
    pub fn fragment_range(&self) -> Option<Range<usize>> {
        self.fragment.map(|(s, f)| s..s + f.len())
    }
}

/// What a link packet carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload<'a> {
    /// An Interest (a network Nack when the headers carry one).
    Interest(Interest<'a>),
    /// A Data packet.
    Data(Data<'a>),
    /// One fragment of a network packet (FragCount > 1), to be reassembled.
    Fragment(&'a [u8]),
    /// No fragment: an idle LpPacket (acks, for example).
    Idle,
}

/// A decoded received frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkPacket<'a> {
    /// LpPacket header fields (all absent for a bare Interest or Data).
    pub headers: LpHeaders<'a>,
    /// The network packet or fragment.
    pub payload: Payload<'a>,
    /// Where the payload bytes are in the decoded buffer (empty for an idle packet).
    pub payload_range: Range<usize>,
}

impl LinkPacket<'_> {
    /// The Nack reason when this is a network Nack (`Some(None)`: a Nack without reason).
    pub fn nack(&self) -> Option<Option<NackReason>> {
        self.headers.nack
    }
}

/// Decodes a received frame: an LpPacket, or a bare Interest or Data. An unfragmented Fragment
/// must be an Interest or Data; a Nack must carry an Interest (or a fragment of one).
pub fn decode_link_packet(wire: &[u8]) -> Result<LinkPacket<'_>, DecodeError> {
    let (typ, _) = tlv::read_var_number(wire)?;
    if typ != u64::from(tt::LP_PACKET) {
        return Ok(LinkPacket {
            headers: LpHeaders::default(),
            payload: network_packet(wire)?,
            payload_range: 0..wire.len(),
        });
    }
    let lp = LpPacket::new_checked(wire)?;
    let headers = lp.headers;
    let (payload, payload_range) = match (lp.fragment(), lp.fragment_range()) {
        (Some(f), Some(r)) if headers.is_fragmented() => (Payload::Fragment(f), r),
        (Some(f), Some(r)) => (network_packet(f)?, r),
        _ => (Payload::Idle, 0..0),
    };
    if headers.nack.is_some() && matches!(payload, Payload::Data(_) | Payload::Idle) {
        return Err(DecodeError::Invalid(tt::NACK));
    }
    Ok(LinkPacket {
        headers,
        payload,
        payload_range,
    })
}

fn network_packet(wire: &[u8]) -> Result<Payload<'_>, DecodeError> {
    let typ = tlv::read_var_number(wire)?.0;
    match u32::try_from(typ) {
        Ok(tt::INTEREST) => Interest::new_checked(wire).map(Payload::Interest),
        Ok(tt::DATA) => Data::new_checked(wire).map(Payload::Data),
        _ => Err(DecodeError::UnexpectedType(
            u32::try_from(typ).unwrap_or(u32::MAX),
        )),
    }
}

/// One header field as the builder writes it.
enum Field<'b> {
    Bytes(&'b [u8]),
    Nni(u64),
    Fixed8(u64),
    /// An element holding one optional NonNegativeInteger child of the given type.
    Nested(u32, Option<u64>),
}

impl Field<'_> {
    fn value_len(&self) -> usize {
        match self {
            Self::Bytes(b) => b.len(),
            Self::Nni(v) => tlv::nni_len(*v),
            Self::Fixed8(_) => 8,
            Self::Nested(t, v) => v.map_or(0, |v| tlv::tlv_len(*t, tlv::nni_len(v))),
        }
    }

    fn write(&self, typ: u32, out: &mut Vec<u8>) {
        match self {
            Self::Bytes(b) => tlv::write_tlv(out, typ, b),
            Self::Nni(v) => tlv::write_nni_tlv(out, typ, *v),
            Self::Fixed8(v) => tlv::write_tlv(out, typ, &v.to_be_bytes()),
            Self::Nested(t, v) => {
                tlv::write_header(out, typ, self.value_len());
                if let Some(v) = v {
                    tlv::write_nni_tlv(out, *t, *v);
                }
            }
        }
    }
}

/// Owned LpPacket encoder. Byte fields are borrowed, so a PIT token or prefix announcement can be
/// echoed from a received packet without copying.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LpPacketBuilder<'a> {
    headers: LpHeaders<'a>,
    acks: Vec<u64>,
}

impl<'a> LpPacketBuilder<'a> {
    /// A builder with no header field.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder holding every header field of `h`.
    pub fn from_headers(h: &LpHeaders<'a>) -> Self {
        Self {
            headers: LpHeaders {
                acks: Acks::default(),
                ..*h
            },
            acks: h.acks.iter().collect(),
        }
    }

    /// The header fields set so far (Acks are kept apart, see [`LpPacketBuilder::ack`]).
    pub fn headers_mut(&mut self) -> &mut LpHeaders<'a> {
        &mut self.headers
    }

    /// Sets the PitToken.
    pub fn pit_token(mut self, token: &'a [u8]) -> Self {
        self.headers.pit_token = Some(token);
        self
    }

    /// Makes this a network Nack.
    pub fn nack(mut self, reason: Option<NackReason>) -> Self {
        self.headers.nack = Some(reason);
        self
    }

    /// Appends an Ack.
    pub fn ack(mut self, seq: u64) -> Self {
        self.acks.push(seq);
        self
    }

    /// Encodes an LpPacket around `fragment` (None: an idle packet). Fails, with the decoder's
    /// error, on a PitToken that is empty or longer than 32 bytes, an empty fragment, or a
    /// FragIndex/FragCount pair the decoder would reject.
    pub fn encode(&self, fragment: Option<&[u8]>) -> Result<Vec<u8>, DecodeError> {
        let mut out = Vec::new();
        self.encode_to(fragment, &mut out)?;
        Ok(out)
    }

    /// Like [`LpPacketBuilder::encode`], appending to `out` (unchanged on error).
    pub fn encode_to(&self, fragment: Option<&[u8]>, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        let h = &self.headers;
        if h.pit_token
            .is_some_and(|t| t.is_empty() || t.len() > MAX_PIT_TOKEN_LEN)
        {
            return Err(DecodeError::Invalid(tt::PIT_TOKEN));
        }
        if fragment.is_some_and(<[u8]>::is_empty) {
            return Err(DecodeError::Invalid(tt::FRAGMENT));
        }
        let count = h.frag_count.unwrap_or(1);
        if count == 0 {
            return Err(DecodeError::Invalid(tt::FRAG_COUNT));
        }
        if h.frag_index.unwrap_or(0) >= count {
            return Err(DecodeError::Invalid(tt::FRAG_INDEX));
        }
        let mut len = 0;
        self.for_each_field(fragment, |typ, f| len += tlv::tlv_len(typ, f.value_len()));
        out.reserve(tlv::tlv_len(tt::LP_PACKET, len));
        tlv::write_header(out, tt::LP_PACKET, len);
        self.for_each_field(fragment, |typ, f| f.write(typ, out));
        Ok(())
    }

    /// Calls `f` for every field in wire order.
    fn for_each_field(&self, fragment: Option<&[u8]>, mut f: impl FnMut(u32, Field<'_>)) {
        let h = &self.headers;
        let mut opt = |typ: u32, v: Option<Field<'_>>| {
            if let Some(v) = v {
                f(typ, v);
            }
        };
        opt(tt::SEQUENCE, h.sequence.map(Field::Fixed8));
        opt(tt::FRAG_INDEX, h.frag_index.map(Field::Nni));
        opt(tt::FRAG_COUNT, h.frag_count.map(Field::Nni));
        opt(tt::PIT_TOKEN, h.pit_token.map(Field::Bytes));
        let nack = h
            .nack
            .map(|r| Field::Nested(tt::NACK_REASON, r.map(NackReason::code)));
        opt(tt::NACK, nack);
        opt(
            tt::INCOMING_FACE_ID,
            h.incoming_face_id.map(|id| Field::Nni(id.into())),
        );
        opt(
            tt::NEXT_HOP_FACE_ID,
            h.next_hop_face_id.map(|id| Field::Nni(id.into())),
        );
        let cache = h
            .cache_policy
            .map(|t| Field::Nested(tt::CACHE_POLICY_TYPE, Some(t)));
        opt(tt::CACHE_POLICY, cache);
        opt(tt::CONGESTION_MARK, h.congestion_mark.map(Field::Nni));
        for &a in &self.acks {
            opt(tt::ACK, Some(Field::Fixed8(a)));
        }
        opt(tt::TX_SEQUENCE, h.tx_sequence.map(Field::Fixed8));
        opt(
            tt::NON_DISCOVERY,
            h.non_discovery.then_some(Field::Bytes(&[])),
        );
        opt(
            tt::PREFIX_ANNOUNCEMENT,
            h.prefix_announcement.map(Field::Bytes),
        );
        opt(tt::FRAGMENT, fragment.map(Field::Bytes));
    }
}

#[cfg(test)]
#[path = "lp_tests.rs"]
mod tests;
