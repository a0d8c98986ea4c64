//! The common NDNLPv2 frame read in one walk: a bare Interest or Data, or an LpPacket holding
//! only PitToken, Nack and CongestionMark around one whole packet ([`decode_common`]), with
//! fixed-shape fast paths for the token frames nearly every packet on a local face is.

use core::ops::Range;

use super::{LpHeaders, NackReason, MAX_PIT_TOKEN_LEN};
use crate::tlv::{self, tt};

/// The link fields the common frame may carry: a PitToken, a Nack, a CongestionMark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CommonFields<'a> {
    /// PitToken (98), 1 to 32 bytes.
    pub pit_token: Option<&'a [u8]>,
    /// Nack (800): `Some(reason)`, where the NackReason itself is optional.
    pub nack: Option<Option<NackReason>>,
    /// CongestionMark (832).
    pub congestion_mark: Option<u64>,
}

impl<'a> From<CommonFields<'a>> for LpHeaders<'a> {
    /// The same fields as the general decoder reports them; every other field absent.
    fn from(c: CommonFields<'a>) -> Self {
        Self {
            pit_token: c.pit_token,
            nack: c.nack,
            congestion_mark: c.congestion_mark,
            ..Self::default()
        }
    }
}

/// A received frame of the common shape, read by [`decode_common`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommonFrame<'a> {
    /// The link fields (all absent for a bare packet).
    pub fields: CommonFields<'a>,
    /// Where the network packet is in the frame (the whole frame for a bare packet).
    pub payload: Range<usize>,
    /// TLV-TYPE of the network packet: [`tt::INTEREST`] or [`tt::DATA`]. Its TLV spans exactly
    /// `payload`; its inside is not checked.
    pub net_type: u32,
}

/// Reads the frame nearly every packet is, in one walk and without the general structures: a
/// bare Interest or Data, or an LpPacket that holds only PitToken, Nack and CongestionMark
/// fields around one whole (unfragmented) Interest or Data.
///
/// `None` means "not this shape", not "malformed": the caller then runs the general decoder
/// ([`super::LpPacket::new_checked`]), which accepts or rejects the frame and says why. Whenever this
/// returns a frame, the general decoder accepts the same bytes with the same fields, no other
/// field, and the same fragment (the `lp_packet` fuzz target checks it).
pub fn decode_common(wire: &[u8]) -> Option<CommonFrame<'_>> {
    if let Some(f) = token_frame(wire).or_else(|| token_frame_long(wire)) {
        return Some(f);
    }
    walk_common(wire)
}

/// The general walk of [`decode_common`].
pub(super) fn walk_common(wire: &[u8]) -> Option<CommonFrame<'_>> {
    let (typ, len, hdr) = tlv::header(wire).ok()?;
    if hdr.checked_add(len)? != wire.len() {
        return None;
    }
    if typ != tt::LP_PACKET {
        return is_network_type(typ).then_some(CommonFrame {
            fields: CommonFields::default(),
            payload: 0..wire.len(),
            net_type: typ,
        });
    }
    let mut fields = CommonFields::default();
    let mut pos = hdr;
    let mut prev = 0u32;
    loop {
        let (t, l, h) = tlv::header(wire.get(pos..)?).ok()?;
        let start = pos.checked_add(h)?;
        let end = start.checked_add(l)?;
        let value = wire.get(start..end)?;
        if t == tt::FRAGMENT {
            // The Fragment must be last and hold exactly one Interest or Data TLV.
            let (nt, nl, nh) = tlv::header(value).ok()?;
            let whole = end == wire.len() && nh.checked_add(nl)? == value.len();
            return (whole && is_network_type(nt)).then_some(CommonFrame {
                fields,
                payload: start..end,
                net_type: nt,
            });
        }
        if t <= prev {
            return None;
        }
        prev = t;
        match t {
            tt::PIT_TOKEN if (1..=MAX_PIT_TOKEN_LEN).contains(&l) => fields.pit_token = Some(value),
            tt::NACK => fields.nack = Some(nack_reason(value)?),
            tt::CONGESTION_MARK => fields.congestion_mark = Some(tlv::read_nni(value).ok()?),
            _ => return None,
        }
        pos = end;
    }
}

// The one-byte codes the token frames match on.
const _: () = assert!(
    tt::LP_PACKET < 253 && tt::PIT_TOKEN < 253 && tt::FRAGMENT < 253 && MAX_PIT_TOKEN_LEN < 253
);
const LP: u8 = tt::LP_PACKET as u8;
const TOKEN: u8 = tt::PIT_TOKEN as u8;
const FRAGMENT: u8 = tt::FRAGMENT as u8;
const MAX_TOKEN: u8 = MAX_PIT_TOKEN_LEN as u8;

/// The answer of a token frame: its token around the network packet of type `net` at
/// `payload`, when its lengths agree (`whole`) and `net` is an Interest or a Data.
#[inline(always)]
fn token_only(
    whole: bool,
    token: &[u8],
    payload: Range<usize>,
    net: u8,
) -> Option<CommonFrame<'_>> {
    let net_type = u32::from(net);
    (whole && is_network_type(net_type)).then_some(CommonFrame {
        fields: CommonFields {
            pit_token: Some(token),
            nack: None,
            congestion_mark: None,
        },
        payload,
        net_type,
    })
}

/// The shape of nearly every frame between local faces, read at fixed offsets: an LpPacket
/// holding only a PitToken and a Fragment around a whole Interest or Data, every TLV-TYPE and
/// TLV-LENGTH one byte. `None` for anything else, which the general walk of [`decode_common`]
/// then reads; whenever this answers, that walk gives the same answer (each test below is one
/// of its checks with the lengths known to be one byte).
#[inline(always)]
pub(super) fn token_frame(wire: &[u8]) -> Option<CommonFrame<'_>> {
    let [LP, outer @ 0..=252, TOKEN, t @ 1..=MAX_TOKEN, rest @ ..] = wire else {
        return None;
    };
    let (token, rest) = rest.split_at_checked(usize::from(*t))?;
    let [FRAGMENT, frag @ 0..=252, net, net_len @ 0..=252, ..] = rest else {
        return None;
    };
    // The LpPacket spans the frame, the Fragment ends it, the network packet fills the Fragment.
    let start = 4 + token.len() + 2;
    let whole = usize::from(*outer) + 2 == wire.len()
        && start + usize::from(*frag) == wire.len()
        && usize::from(*net_len) + 2 == usize::from(*frag);
    token_only(whole, token, start..wire.len(), *net)
}

/// A TLV-LENGTH as a token frame up to the largest packet writes it: one byte, or 253 and two
/// bytes holding at least 253 (the shorter form is the only one the general reader accepts
/// below that). The length and the bytes after it.
#[inline(always)]
fn short_length(b: &[u8]) -> Option<(usize, &[u8])> {
    match b {
        [l @ 0..=252, rest @ ..] => Some((usize::from(*l), rest)),
        [253, hi, lo, rest @ ..] => {
            let v = usize::from(u16::from_be_bytes([*hi, *lo]));
            (v >= 253).then_some((v, rest))
        }
        _ => None,
    }
}

/// The token frame of [`token_frame`] with lengths of one or three bytes each: a Data of more
/// than about 200 bytes, which the fixed offsets do not cover, skips the general walk too.
/// Each test is one of the walk's checks (see [`token_frame`]).
pub(super) fn token_frame_long(wire: &[u8]) -> Option<CommonFrame<'_>> {
    let [LP, rest @ ..] = wire else {
        return None;
    };
    let (outer, rest) = short_length(rest)?;
    let lp_spans_frame = outer == rest.len();
    let [TOKEN, t @ 1..=MAX_TOKEN, rest @ ..] = rest else {
        return None;
    };
    let (token, rest) = rest.split_at_checked(usize::from(*t))?;
    let [FRAGMENT, rest @ ..] = rest else {
        return None;
    };
    let (frag, rest) = short_length(rest)?;
    let start = wire.len() - rest.len();
    let [net, rest @ ..] = rest else {
        return None;
    };
    let (net_len, rest) = short_length(rest)?;
    // The LpPacket spans the frame, the Fragment ends it, the network packet fills the Fragment.
    let whole = lp_spans_frame && frag == wire.len() - start && net_len == rest.len();
    token_only(whole, token, start..wire.len(), *net)
}

fn is_network_type(typ: u32) -> bool {
    typ == tt::INTEREST || typ == tt::DATA
}

/// The value of a Nack that is empty or exactly one NackReason (anything else: `None`).
fn nack_reason(value: &[u8]) -> Option<Option<NackReason>> {
    if value.is_empty() {
        return Some(None);
    }
    let (t, l, h) = tlv::header(value).ok()?;
    if t != tt::NACK_REASON || h.checked_add(l)? != value.len() {
        return None;
    }
    let code = tlv::read_nni(value.get(h..)?).ok()?;
    Some(Some(NackReason::from_code(code)))
}
