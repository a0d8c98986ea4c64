//! Writes the LpPacket header that goes in front of a network packet or fragment, so the
//! payload itself is never copied: a frame is `head ++ payload` sent as two iovecs.
//!
//! ```text
//! head = LP-PACKET-TYPE TLV-LENGTH [Sequence FragIndex FragCount] *fields FRAGMENT-TYPE TLV-LENGTH
//! ```
//! Fields appear in increasing TLV-TYPE order as NDNLPv2 requires: Sequence (81), FragIndex
//! (82), FragCount (83), PitToken (98), Nack (800), IncomingFaceId (812), CongestionMark (832),
//! then the Fragment (80) last.

use ndn_packet::link::LpToken;
use ndn_packet::lp::{NackReason, MAX_PIT_TOKEN_LEN};
use ndn_packet::tlv::{self, tt};
use ndn_packet::FaceId;

/// Upper bound of the fragmentation part of a head, whatever the numbers: LpPacket TL (1 + 5),
/// Sequence (10), FragIndex and FragCount (2 + 8 each), Fragment TL (1 + 5).
pub(crate) const FRAG_OVERHEAD: usize = 6 + 10 + 10 + 10 + 6;

/// Header fields other than fragmentation; they go on the first fragment only.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Fields<'a> {
    pub(crate) pit_token: &'a [u8],
    /// `Some(reason)` for a Nack.
    pub(crate) nack: Option<Option<NackReason>>,
    pub(crate) incoming_face_id: Option<FaceId>,
    pub(crate) congestion_mark: u64,
}

/// Sequence, FragIndex and FragCount of one fragment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FragInfo {
    pub(crate) seq: u64,
    pub(crate) index: u64,
    pub(crate) count: u64,
}

fn nack_value_len(reason: Option<NackReason>) -> usize {
    reason.map_or(0, |r| tlv::tlv_len(tt::NACK_REASON, tlv::nni_len(r.code())))
}

impl Fields<'_> {
    /// True when no field is set (a bare network packet can be sent instead of an LpPacket).
    pub(crate) fn is_empty(&self) -> bool {
        self.pit_token.is_empty()
            && self.nack.is_none()
            && self.incoming_face_id.is_none()
            && self.congestion_mark == 0
    }

    /// Encoded size of the fields.
    pub(crate) fn len(&self) -> usize {
        let mut n = 0;
        if !self.pit_token.is_empty() {
            n += tlv::tlv_len(tt::PIT_TOKEN, self.pit_token.len());
        }
        if let Some(r) = self.nack {
            n += tlv::tlv_len(tt::NACK, nack_value_len(r));
        }
        if let Some(id) = self.incoming_face_id {
            n += tlv::tlv_len(tt::INCOMING_FACE_ID, tlv::nni_len(id.into()));
        }
        if self.congestion_mark != 0 {
            n += tlv::tlv_len(tt::CONGESTION_MARK, tlv::nni_len(self.congestion_mark));
        }
        n
    }

    fn write(&self, out: &mut Vec<u8>) {
        if !self.pit_token.is_empty() {
            tlv::write_tlv(out, tt::PIT_TOKEN, self.pit_token);
        }
        if let Some(r) = self.nack {
            tlv::write_header(out, tt::NACK, nack_value_len(r));
            if let Some(r) = r {
                tlv::write_nni_tlv(out, tt::NACK_REASON, r.code());
            }
        }
        if let Some(id) = self.incoming_face_id {
            tlv::write_nni_tlv(out, tt::INCOMING_FACE_ID, id.into());
        }
        if self.congestion_mark != 0 {
            tlv::write_nni_tlv(out, tt::CONGESTION_MARK, self.congestion_mark);
        }
    }
}

fn frag_len(f: &FragInfo) -> usize {
    tlv::tlv_len(tt::SEQUENCE, 8)
        + tlv::tlv_len(tt::FRAG_INDEX, tlv::nni_len(f.index))
        + tlv::tlv_len(tt::FRAG_COUNT, tlv::nni_len(f.count))
}

/// Appends the head of an LpPacket whose Fragment holds `payload_len` bytes; returns the head
/// length. The head never exceeds `FRAG_OVERHEAD + fields.len()`.
pub(crate) fn write_head(
    out: &mut Vec<u8>,
    frag: Option<&FragInfo>,
    fields: &Fields<'_>,
    payload_len: usize,
) -> usize {
    let start = out.len();
    let inner = frag.map_or(0, frag_len) + fields.len() + tlv::tlv_len(tt::FRAGMENT, payload_len);
    tlv::write_header(out, tt::LP_PACKET, inner);
    if let Some(f) = frag {
        tlv::write_tlv(out, tt::SEQUENCE, &f.seq.to_be_bytes());
        tlv::write_nni_tlv(out, tt::FRAG_INDEX, f.index);
        tlv::write_nni_tlv(out, tt::FRAG_COUNT, f.count);
    }
    fields.write(out);
    tlv::write_header(out, tt::FRAGMENT, payload_len);
    out.len() - start
}

/// Largest head [`write_token_head`] writes: LpPacket TL (1 + 3), PitToken TLV (2 + 32),
/// Fragment TL (1 + 3).
const TOKEN_HEAD_MAX: usize = 4 + 2 + MAX_PIT_TOKEN_LEN + 4;

/// Largest Fragment [`write_token_head`] takes: every length in its head then fits a
/// VAR-NUMBER of at most 3 bytes.
const TOKEN_HEAD_PAYLOAD_MAX: usize = 0xffff - (TOKEN_HEAD_MAX - 4);

/// Writes a VAR-NUMBER below 2^16 at `buf[pos..]`; returns the position after it. Callers
/// keep `pos + 3 <= TOKEN_HEAD_MAX`.
#[inline(always)]
fn put_short(buf: &mut [u8; TOKEN_HEAD_MAX], pos: usize, v: usize) -> usize {
    if v < 253 {
        buf[pos] = v as u8;
        pos + 1
    } else {
        let [hi, lo] = (v as u16).to_be_bytes();
        buf[pos] = 253;
        buf[pos + 1] = hi;
        buf[pos + 2] = lo;
        pos + 3
    }
}

/// The head of the frame nearly every packet is sent in: an LpPacket holding only a PitToken
/// and the Fragment of `payload_len` bytes. Byte for byte what [`write_head`] writes for the
/// same fields, built on the stack from fixed-size copies. Returns the head length, or `None`
/// (nothing written) for an empty token or a payload over `TOKEN_HEAD_PAYLOAD_MAX`. Inlined
/// into its one caller whatever codegen unit holds it: the fixed-size copies only pay off
/// there (out of line it cost twice as much: 73 instructions a call against 37).
#[inline(always)]
pub(crate) fn write_token_head(
    out: &mut Vec<u8>,
    token: &LpToken,
    payload_len: usize,
) -> Option<usize> {
    let (block, t) = token.padded();
    if t == 0 || payload_len > TOKEN_HEAD_PAYLOAD_MAX {
        return None;
    }
    let frag_hdr = if payload_len < 253 { 2 } else { 4 };
    let inner = 2 + t + frag_hdr + payload_len;
    // Every index below stays under TOKEN_HEAD_MAX: 4 + 2 + 32 + 4 bytes at most.
    let mut buf = [0u8; TOKEN_HEAD_MAX];
    buf[0] = tt::LP_PACKET as u8;
    let mut pos = put_short(&mut buf, 1, inner);
    buf[pos] = tt::PIT_TOKEN as u8;
    buf[pos + 1] = t as u8;
    buf[pos + 2..pos + 2 + MAX_PIT_TOKEN_LEN].copy_from_slice(block);
    pos += 2 + t;
    buf[pos] = tt::FRAGMENT as u8;
    pos = put_short(&mut buf, pos + 1, payload_len);
    // The whole block is one fixed-size copy; the unused tail is cut off again.
    let start = out.len();
    out.extend_from_slice(&buf);
    out.truncate(start + pos);
    Some(pos)
}

// The one-byte type codes above.
const _: () = assert!(tt::LP_PACKET < 253 && tt::PIT_TOKEN < 253 && tt::FRAGMENT < 253);

#[cfg(test)]
mod tests {
    use super::*;
    use ndn_packet::lp::{LpPacket, LpPacketBuilder};

    /// The builder in ndn-packet is the reference encoder: heads plus payload must equal it.
    #[test]
    fn head_plus_payload_equals_builder_output() {
        let payload = [5u8, 3, 7, 1, 8];
        let token = [9u8; 32];
        let cases = [
            (None, Fields::default()),
            (
                Some(FragInfo {
                    seq: 0xdead_beef,
                    index: 2,
                    count: 300,
                }),
                Fields {
                    pit_token: &token,
                    nack: Some(Some(NackReason::NoRoute)),
                    incoming_face_id: Some(70000),
                    congestion_mark: 1,
                },
            ),
            (
                None,
                Fields {
                    nack: Some(None),
                    ..Fields::default()
                },
            ),
        ];
        for (frag, fields) in cases {
            let mut out = Vec::new();
            let n = write_head(&mut out, frag.as_ref(), &fields, payload.len());
            assert_eq!(n, out.len());
            assert!(n <= FRAG_OVERHEAD + fields.len());
            out.extend_from_slice(&payload);

            let mut b = LpPacketBuilder::new();
            let h = b.headers_mut();
            if let Some(f) = frag {
                h.sequence = Some(f.seq);
                h.frag_index = Some(f.index);
                h.frag_count = Some(f.count);
            }
            h.pit_token = (!fields.pit_token.is_empty()).then_some(fields.pit_token);
            h.nack = fields.nack;
            h.incoming_face_id = fields.incoming_face_id;
            h.congestion_mark = (fields.congestion_mark != 0).then_some(fields.congestion_mark);
            assert_eq!(out, b.encode(Some(&payload)).unwrap());
            let lp = LpPacket::new_checked(&out).unwrap();
            assert_eq!(lp.fragment(), Some(&payload[..]));
        }
    }

    /// The PitToken-only head equals the general writer's for every token length and for
    /// payload lengths at each VAR-NUMBER size boundary it takes; it declines the others.
    #[test]
    fn token_head_equals_general_head() {
        let token = [0xa5u8; MAX_PIT_TOKEN_LEN];
        for t in 0..=MAX_PIT_TOKEN_LEN {
            let tok = LpToken::new(&token[..t]).unwrap();
            for len in [
                0usize,
                1,
                100,
                214,
                215,
                240,
                252,
                253,
                8800,
                65_497,
                65_498,
                1 << 33,
            ] {
                let mut fast = vec![7u8];
                let n = write_token_head(&mut fast, &tok, len);
                if t == 0 || len > TOKEN_HEAD_PAYLOAD_MAX {
                    assert_eq!((n, fast.len()), (None, 1), "token {t} payload {len}");
                    continue;
                }
                let fields = Fields {
                    pit_token: tok.as_bytes(),
                    ..Fields::default()
                };
                let mut general = vec![7u8];
                let m = write_head(&mut general, None, &fields, len);
                assert_eq!(n, Some(m), "token {t} payload {len}");
                assert_eq!(fast, general, "token {t} payload {len}");
            }
        }
    }
}
