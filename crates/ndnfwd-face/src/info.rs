//! What the face table tells its user about a face: identity, endpoints, NFD's scope,
//! persistency and link type, and the events that announce faces coming and going.

use core::sync::atomic::{AtomicU32, Ordering};
use std::io;
use std::sync::Arc;

use ndn_packet::{FaceId, FaceScope, LinkType};

use crate::uri::FaceUri;

/// NFD's reserved face ids: 0 is invalid, 1 the internal (management) face, 254 the content
/// store, 255 the null face. Faces made by the face table start right after.
pub const FACEID_RESERVED_MAX: FaceId = 255;
/// NFD's internal face (management).
pub const FACEID_INTERNAL: FaceId = 1;
/// NFD's content-store pseudo face.
pub const FACEID_CONTENT_STORE: FaceId = 254;
/// NFD's null face (drops everything).
pub const FACEID_NULL: FaceId = 255;

/// Hands out face ids, shared by every face table of a forwarder (one per I/O thread), so ids
/// are unique across threads. Like NFD, ids start at 256 and are never reused.
#[derive(Debug, Clone)]
pub struct FaceIdAllocator(Arc<AtomicU32>);

impl Default for FaceIdAllocator {
    fn default() -> Self {
        Self(Arc::new(AtomicU32::new(FACEID_RESERVED_MAX + 1)))
    }
}

impl FaceIdAllocator {
    /// The next id; `None` once all 2^32 - 256 ids have been used.
    pub fn next(&self) -> Option<FaceId> {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| v.checked_add(1))
            .ok()
            .filter(|&id| id > FACEID_RESERVED_MAX)
    }
}

/// NFD's face persistency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Persistency {
    /// Made by a listener for a peer that reached us; closed when idle (datagram faces) or
    /// when the peer goes away.
    OnDemand,
    /// Made by a command; closed when the transport fails.
    Persistent,
    /// Made by a command; kept when sending fails (datagram and Ethernet faces).
    Permanent,
}

/// Description of one face.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaceInfo {
    /// Face id.
    pub id: FaceId,
    /// Remote endpoint (`fd://N` for an accepted Unix stream, as NFD shows it).
    pub remote: FaceUri,
    /// Local endpoint.
    pub local: FaceUri,
    /// Local or non-local.
    pub scope: FaceScope,
    /// On-demand, persistent or permanent.
    pub persistency: Persistency,
    /// Point-to-point or multi-access (the face layer makes no ad hoc faces).
    pub link_type: LinkType,
    /// Largest frame sent; `None` for streams (never fragmented).
    pub mtu: Option<usize>,
    /// Whether NDNLPv2 local fields are enabled.
    pub local_fields: bool,
}

/// Why a face went away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DownReason {
    /// The peer closed the stream.
    Closed,
    /// The transport failed with this error.
    Error(io::ErrorKind),
    /// The peer sent an element larger than the maximum frame, or a broken TLV header.
    BadFraming,
    /// An on-demand face saw no traffic for the idle timeout.
    Idle,
    /// The user removed it.
    Removed,
}

/// A change in the face table, for the user to act on (a removed face's PIT records and
/// routes must be purged).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaceEvent {
    /// A face was created, by a command or by a listener; see `FaceTable::info`.
    Added(FaceId),
    /// A face is gone; its id will not come back.
    Removed(FaceId, DownReason),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_start_after_reserved_and_exhaust() {
        let a = FaceIdAllocator::default();
        let b = a.clone();
        assert_eq!(a.next(), Some(256));
        assert_eq!(b.next(), Some(257));
        let c = FaceIdAllocator(Arc::new(AtomicU32::new(u32::MAX)));
        assert_eq!(c.next(), None);
        assert_eq!(c.next(), None);
    }
}
