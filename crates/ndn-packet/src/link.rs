//! A network-layer packet with its NDNLPv2 fields as handed between the face layer and the
//! forwarding core, and NFD's face scope and link type.
//!
//! One definition serves both sides, so the data plane moves packets from the face layer to
//! the engine and back without converting them. A received packet ([`RxPacket`]) carries its
//! link fields already decoded (and the fragments reassembled); a packet to send
//! ([`TxPacket`]) carries the link fields the face layer must add. Both hold the network
//! packet as `bytes::Bytes`: a received Data goes to the CS and out to every downstream as
//! clones of the same buffer (a reference count, no copy), and a Nack reuses the received
//! Interest's buffer. A forwarded Interest whose only change is its HopLimit also shares the
//! received buffer: it carries the new byte as a [`BytePatch`] that the face layer applies while
//! framing (as separate I/O pieces, or as it copies into a ring), so the Interest is never
//! copied for it.

use bytes::Bytes;

use crate::lp::{NackReason, MAX_PIT_TOKEN_LEN};
use crate::FaceId;

/// An NDNLPv2 PitToken value (1 to [`MAX_PIT_TOKEN_LEN`] bytes) held inline, so copying one
/// never allocates. The empty token means "absent".
///
/// This is the token as it travels on a link: the downstream's own token on an Interest
/// (stored in the PIT in-record and echoed on the Data or Nack sent back), ours on an Interest
/// sent upstream and on the Data or Nack that answers it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct LpToken {
    len: u8,
    bytes: [u8; MAX_PIT_TOKEN_LEN],
}

impl LpToken {
    /// The absent token.
    pub const EMPTY: Self = Self {
        len: 0,
        bytes: [0; MAX_PIT_TOKEN_LEN],
    };

    /// A token holding `b` (empty `b`: [`LpToken::EMPTY`]); `None` when `b` is longer than
    /// [`MAX_PIT_TOKEN_LEN`] bytes.
    pub fn new(b: &[u8]) -> Option<Self> {
        let mut t = Self::EMPTY;
        // The forwarder's own tokens, which every Data and Nack from upstream echo, are 8
        // bytes: one fixed-size move instead of a `memcpy` call of `b.len()` bytes.
        if let Ok(w) = <&[u8; 8]>::try_from(b) {
            let (head, _) = t.bytes.split_at_mut(8);
            head.copy_from_slice(w);
            t.len = 8;
            return Some(t);
        }
        t.bytes.get_mut(..b.len())?.copy_from_slice(b);
        t.len = u8::try_from(b.len()).ok()?;
        Some(t)
    }

    /// The token bytes (empty when absent).
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or_default()
    }

    /// The token bytes in a block of fixed size (the tail past the length is zero) and the
    /// length: an encoder copies the whole block, which compiles to a few moves, and keeps
    /// the first `len` bytes.
    pub fn padded(&self) -> (&[u8; MAX_PIT_TOKEN_LEN], usize) {
        (&self.bytes, usize::from(self.len))
    }

    /// True when there is no token.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Default for LpToken {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl core::fmt::Debug for LpToken {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("LpToken(")?;
        self.as_bytes()
            .iter()
            .try_for_each(|b| write!(f, "{b:02x}"))?;
        f.write_str(")")
    }
}

/// Which kind of network packet a received or outgoing packet is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PacketKind {
    /// An Interest.
    Interest,
    /// A Data.
    Data,
    /// A network Nack: the network packet is the Interest being Nacked; the link fields hold
    /// the reason.
    Nack,
}

/// Link-layer fields of a received packet, decoded by the face layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RxLp {
    /// PitToken (absent: [`LpToken::EMPTY`]): on an Interest the downstream's token (echoed
    /// back on Data and Nack); on Data and Nack ours, if the upstream echoed it.
    pub pit_token: LpToken,
    /// `Some(reason)` when the packet is a Nack (the Interest it carries is the network
    /// packet); the reason itself may be absent.
    pub nack: Option<Option<NackReason>>,
    /// CongestionMark (0 when absent).
    pub congestion_mark: u64,
    /// NextHopFaceId; only ever set on an Interest from a face with local fields enabled, and
    /// honoured only from local faces.
    pub next_hop_face_id: Option<FaceId>,
    /// CachePolicy NoCache on a Data from a face with local fields enabled: forward it but do
    /// not cache it.
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
    /// The face layer checks only the outer type and length; the forwarder's view constructor
    /// checks the rest.
    pub wire: Bytes,
    /// Its link-layer fields.
    pub lp: RxLp,
}

/// Link-layer fields the face layer must add to a [`TxPacket`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxLp {
    /// PitToken to attach (absent: [`LpToken::EMPTY`]): ours on an Interest, the downstream's
    /// own on Data and Nack (absent if the downstream sent none).
    pub pit_token: LpToken,
    /// Nack reason, for [`PacketKind::Nack`] (`None` there sends a Nack without a reason,
    /// which the engine never produces itself).
    pub nack: Option<NackReason>,
    /// CongestionMark to add (0: none).
    pub congestion_mark: u64,
    /// The face the packet came in on; sent as IncomingFaceId when the egress face has local
    /// fields enabled. `None` for Data answered from the CS and for Nacks the engine generates
    /// itself.
    pub incoming_face_id: Option<FaceId>,
}

/// One byte of an outgoing packet replaced on the way out: the packet sent is `wire` with
/// `wire[at]` replaced by `byte`. The face layer accepts it only inside the packet's TLV value
/// (past the outer type and length, which it checks), so a patch never changes the packet's
/// type or length.
///
/// The offset is 16 bits (network packets are at most 8800 bytes), so `Option<BytePatch>`
/// takes 6 bytes and fits the padding [`TxPacket`] has anyway: a patch costs the packet no
/// size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BytePatch {
    /// Offset of the replaced byte in the wire.
    pub at: u16,
    /// The byte sent there.
    pub byte: u8,
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
    /// The network packet, before `patch`.
    pub wire: Bytes,
    /// A byte of `wire` to replace as it is sent (the engine's HopLimit decrement on a
    /// forwarded Interest that changes nothing else); `None`: `wire` goes as it is.
    pub patch: Option<BytePatch>,
}

impl TxPacket {
    /// The network packet as sent: `wire` itself (a reference count) without a patch, else a
    /// patched copy (one allocation). For consumers that need the bytes contiguous; the face
    /// layer applies the patch while framing instead. A patch outside `wire` changes nothing
    /// (the face layer refuses such a packet).
    pub fn sent_wire(&self) -> Bytes {
        let Some(p) = self.patch else {
            return self.wire.clone();
        };
        let mut v = self.wire.to_vec();
        if let Some(b) = v.get_mut(usize::from(p.at)) {
            *b = p.byte;
        }
        Bytes::from(v)
    }

    /// Applies the patch to a copy of `wire` ([`TxPacket::sent_wire`]) and drops it, so
    /// `wire` alone holds the packet as sent.
    pub fn apply_patch(&mut self) {
        if self.patch.is_some() {
            self.wire = self.sent_wire();
            self.patch = None;
        }
    }
}

/// NFD's face scope: local faces (applications on this host) may carry `/localhost` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaceScope {
    /// A face to another host.
    NonLocal,
    /// A face to an application on this host: Unix sockets, loopback TCP and UDP, the
    /// internal face.
    Local,
}

/// NFD's link type: it decides loop handling (Nack Duplicate only on point-to-point) and
/// whether a packet may go back out of the face it came in on (ad hoc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkType {
    /// One peer on the other end.
    PointToPoint,
    /// A group that all hear each other (UDP and Ethernet multicast).
    MultiAccess,
    /// Many peers that may not hear each other (wireless ad hoc): sending back out of the
    /// incoming face can reach a different neighbour. The face layer makes no such faces
    /// itself.
    AdHoc,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_inline_bounds() {
        assert!(LpToken::EMPTY.is_empty());
        assert_eq!(LpToken::default(), LpToken::EMPTY);
        let t = LpToken::new(&[1, 2, 3]).unwrap();
        assert!(!t.is_empty());
        assert_eq!(t.as_bytes(), &[1, 2, 3]);
        assert_eq!(format!("{t:?}"), "LpToken(010203)");
        assert_eq!(LpToken::new(&[7; 32]).unwrap().as_bytes(), &[7; 32]);
        assert_eq!(LpToken::new(&[7; 32]).map(|t| t.as_bytes().len()), Some(32));
        assert_eq!(LpToken::new(&[7; 33]), None);
        assert_eq!(LpToken::new(&[]), Some(LpToken::EMPTY));
        assert!(LpToken::new(&[]).unwrap().is_empty());
        let (block, len) = t.padded();
        assert_eq!((&block[..len], len), (&[1u8, 2, 3][..], 3));
        assert!(block[len..].iter().all(|&b| b == 0));
    }

    #[test]
    fn sent_wire_applies_the_patch() {
        let mut p = TxPacket {
            face: 1,
            kind: PacketKind::Interest,
            lp: TxLp::default(),
            wire: Bytes::from_static(&[5, 3, 1, 2, 3]),
            patch: None,
        };
        assert_eq!(p.sent_wire().as_ptr(), p.wire.as_ptr(), "no patch: no copy");
        p.patch = Some(BytePatch { at: 4, byte: 9 });
        assert_eq!(&p.sent_wire()[..], &[5, 3, 1, 2, 9]);
        assert_eq!(
            &p.wire[..],
            &[5, 3, 1, 2, 3],
            "the shared buffer is untouched"
        );
        p.patch = Some(BytePatch { at: 5, byte: 9 });
        assert_eq!(&p.sent_wire()[..], &[5, 3, 1, 2, 3], "outside: unchanged");
        p.patch = Some(BytePatch { at: 2, byte: 7 });
        p.apply_patch();
        assert_eq!((&p.wire[..], p.patch), (&[5u8, 3, 7, 2, 3][..], None));
    }

    /// A patch takes no room in a packet (the rest of it is padded to 8 bytes anyway).
    #[test]
    fn patch_fits_the_padding() {
        assert_eq!(core::mem::size_of::<Option<BytePatch>>(), 6);
        assert_eq!(core::mem::size_of::<TxPacket>() % 8, 0);
        assert!(core::mem::size_of::<TxPacket>() <= 120);
    }

    /// Every length across the overlapping-copy boundaries: the bytes, the length and a zero
    /// tail (equality and hashing read the whole block), or `None` past 32 bytes.
    #[test]
    fn token_every_length() {
        let src: Vec<u8> = (1..=40).collect();
        for n in 0..=40 {
            let t = LpToken::new(&src[..n]);
            if n > MAX_PIT_TOKEN_LEN {
                assert_eq!(t, None, "length {n}");
                continue;
            }
            let t = t.unwrap();
            assert_eq!(t.as_bytes(), &src[..n], "length {n}");
            let (block, len) = t.padded();
            assert_eq!(len, n);
            assert!(block[n..].iter().all(|&b| b == 0), "length {n}");
        }
    }
}
