//! What crosses the face layer's boundary: received network packets with the link fields
//! already decoded ([`RxPacket`]), and packets to send with the link fields to add
//! ([`TxPacket`]). The shapes follow `ndnfwd-fwd`'s engine types field for field, so the data
//! plane converts between them by moving fields.

use bytes::Bytes;
use ndn_packet::lp::{NackReason, MAX_PIT_TOKEN_LEN};
use ndn_packet::FaceId;

pub use crate::counters::PacketKind;

/// A PIT token (NDNLPv2 PitToken, 1 to 32 bytes) held inline, so copying one never allocates.
/// The empty token means "absent".
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PitToken {
    len: u8,
    bytes: [u8; MAX_PIT_TOKEN_LEN],
}

impl PitToken {
    /// The absent token.
    pub const NONE: PitToken = PitToken {
        len: 0,
        bytes: [0; MAX_PIT_TOKEN_LEN],
    };

    /// A token holding `b`; `None` when `b` is longer than 32 bytes.
    pub fn new(b: &[u8]) -> Option<Self> {
        let mut t = Self::NONE;
        t.bytes.get_mut(..b.len())?.copy_from_slice(b);
        t.len = u8::try_from(b.len()).ok()?;
        Some(t)
    }

    /// The token bytes (empty when absent).
    pub fn as_slice(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or_default()
    }

    /// True when there is a token.
    pub fn is_some(&self) -> bool {
        self.len != 0
    }
}

impl core::fmt::Debug for PitToken {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("PitToken(")?;
        for b in self.as_slice() {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

/// Link-layer fields of a received packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RxLp {
    /// PitToken (absent: [`PitToken::NONE`]).
    pub pit_token: PitToken,
    /// `Some(reason)` when the packet is a Nack; the reason itself may be absent.
    pub nack: Option<Option<NackReason>>,
    /// CongestionMark (0 when absent).
    pub congestion_mark: u64,
    /// NextHopFaceId; only ever set on an Interest from a face with local fields enabled.
    pub next_hop_face_id: Option<FaceId>,
    /// CachePolicy NoCache on a Data from a face with local fields enabled.
    pub no_cache: bool,
}

/// One received network packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxPacket {
    /// The face it arrived on.
    pub face: FaceId,
    /// Interest, Data, or Nack (an Interest with a Nack header).
    pub kind: PacketKind,
    /// The network packet after LP decoding and reassembly: exactly one Interest or Data TLV.
    /// Only the outer type and length are checked here; the forwarder's view constructor
    /// checks the rest.
    pub wire: Bytes,
    /// Its link-layer fields.
    pub lp: RxLp,
}

/// Link-layer fields to add to a packet being sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxLp {
    /// PitToken to attach (absent: [`PitToken::NONE`]).
    pub pit_token: PitToken,
    /// Nack reason, for [`PacketKind::Nack`] (`None` there sends a Nack without reason).
    pub nack: Option<NackReason>,
    /// CongestionMark to add (0: none).
    pub congestion_mark: u64,
    /// The face the packet came in on; sent as IncomingFaceId when the egress face has local
    /// fields enabled.
    pub incoming_face_id: Option<FaceId>,
}

/// One packet to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxPacket {
    /// Egress face.
    pub face: FaceId,
    /// Interest, Data or Nack (the wire of a Nack is the Interest being Nacked).
    pub kind: PacketKind,
    /// Link fields to add.
    pub lp: TxLp,
    /// The network packet.
    pub wire: Bytes,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_inline_bounds() {
        assert!(!PitToken::NONE.is_some());
        let t = PitToken::new(&[1, 2, 3]).unwrap();
        assert!(t.is_some());
        assert_eq!(t.as_slice(), &[1, 2, 3]);
        assert_eq!(format!("{t:?}"), "PitToken(010203)");
        assert_eq!(
            PitToken::new(&[7; 32]).map(|t| t.as_slice().len()),
            Some(32)
        );
        assert_eq!(PitToken::new(&[7; 33]), None);
        assert_eq!(PitToken::new(&[]), Some(PitToken::NONE));
    }
}
