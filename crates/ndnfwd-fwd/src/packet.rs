//! What goes in and out of the engine: received network packets with the link-layer fields the
//! face layer already decoded, and packets to send with the link fields to add.
//!
//! Both carry the network packet as `bytes::Bytes`: a received Data goes to the CS and out to
//! every downstream as clones of the same buffer (a reference count, no copy); a Nack reuses the
//! received Interest's buffer; only an outgoing Interest whose guiders changed is written anew,
//! into the engine's recycled buffer.

use bytes::Bytes;
use ndn_packet::lp::NackReason;
use ndn_packet::FaceId;

/// An NDNLPv2 PitToken of 1 to 32 bytes held inline (copying one never allocates); empty means
/// absent. The PIT-CS's downstream-token type, used here for every token in and out.
pub use ndnfwd_pcct::DownstreamToken as Token;

/// Link-layer fields of a received packet, decoded by the face layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RxLp {
    /// PitToken: on an Interest the downstream's token (echoed back on Data and Nack); on Data
    /// and Nack ours, if the upstream echoed it.
    pub pit_token: Token,
    /// `Some(reason)` when the packet is a Nack (the Interest it carries is the network
    /// packet); the reason itself may be absent.
    pub nack: Option<Option<NackReason>>,
    /// CongestionMark (0 when absent).
    pub congestion_mark: u64,
    /// NextHopFaceId, honoured only from local faces.
    pub next_hop_face_id: Option<FaceId>,
    /// CachePolicy NoCache on a Data: forward it but do not cache it.
    pub no_cache: bool,
}

/// One received network packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxPacket {
    /// The face it arrived on.
    pub face: FaceId,
    /// The network packet (Interest or Data TLV), after LP decoding and reassembly.
    pub wire: Bytes,
    /// Its link-layer fields.
    pub lp: RxLp,
}

/// Which kind of network packet a [`TxPacket`] carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TxKind {
    /// An Interest.
    Interest,
    /// A Data.
    Data,
    /// A Nack: the wire is the Interest being Nacked; [`TxLp::nack`] holds the reason.
    Nack,
}

/// Link-layer fields the face layer must add to a [`TxPacket`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxLp {
    /// PitToken: ours on an Interest, the downstream's own on Data and Nack (absent if the
    /// downstream sent none).
    pub pit_token: Token,
    /// Nack reason, for [`TxKind::Nack`] (`None` there means a Nack without a reason, which
    /// the engine never produces itself).
    pub nack: Option<NackReason>,
    /// CongestionMark to add (0: none).
    pub congestion_mark: u64,
    /// The face the packet came from (for IncomingFaceId on faces with local fields); `None`
    /// for Data answered from the CS and for Nacks the engine generates itself.
    pub incoming_face_id: Option<FaceId>,
}

/// One packet to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxPacket {
    /// Egress face.
    pub face: FaceId,
    /// Interest, Data or Nack.
    pub kind: TxKind,
    /// Link fields to add.
    pub lp: TxLp,
    /// The network packet.
    pub wire: Bytes,
}
