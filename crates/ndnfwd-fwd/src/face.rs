//! The engine's face-info table: what the pipelines need to know about a face (scope and link
//! type), nothing about how it sends. Faces are added and removed through the engine, which also
//! purges a removed face from the PIT.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use ndn_packet::{FaceId, FaceScope, LinkType};

/// What the pipelines know about one face.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FaceInfo {
    /// Local or non-local.
    pub scope: FaceScope,
    /// Point-to-point, multi-access or ad hoc.
    pub link: LinkType,
}

impl FaceInfo {
    /// A point-to-point face to another host.
    pub const fn network() -> Self {
        Self {
            scope: FaceScope::NonLocal,
            link: LinkType::PointToPoint,
        }
    }

    /// A point-to-point face to a local application.
    pub const fn local() -> Self {
        Self {
            scope: FaceScope::Local,
            link: LinkType::PointToPoint,
        }
    }

    /// True for [`FaceScope::Local`].
    pub fn is_local(&self) -> bool {
        self.scope == FaceScope::Local
    }
}

/// Face ids are assigned by the forwarder itself, never chosen by a peer, so a plain
/// multiplicative hash is enough for the rare large ids (no keyed hashing needed against
/// collision flooding).
#[derive(Default)]
pub(crate) struct FaceIdHasher(u64);

impl Hasher for FaceIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, v: u32) {
        self.0 = u64::from(v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Ids below this are looked up by direct indexing (2 bytes per id up to the largest one in
/// use); larger ids go to a hash map.
pub const DENSE_IDS: FaceId = 1 << 20;

/// The faces an engine knows, by id. Looked up several times per packet, so ids below
/// [`DENSE_IDS`] (the face layer hands out small increasing ids, as NFD does) are an array
/// index.
#[derive(Debug, Default, Clone)]
pub struct FaceTable {
    /// Slot `i`: face `i`, for ids below [`DENSE_IDS`] only (so never longer than that).
    dense: Vec<Option<FaceInfo>>,
    sparse: HashMap<FaceId, FaceInfo, BuildHasherDefault<FaceIdHasher>>,
    len: usize,
}

impl FaceTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces a face.
    pub fn insert(&mut self, id: FaceId, info: FaceInfo) {
        let old = if id < DENSE_IDS {
            let i = id as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, None);
            }
            self.dense.get_mut(i).and_then(|slot| slot.replace(info))
        } else {
            self.sparse.insert(id, info)
        };
        self.len += usize::from(old.is_none());
    }

    /// Removes a face; returns its info if it was known.
    pub fn remove(&mut self, id: FaceId) -> Option<FaceInfo> {
        let old = if id < DENSE_IDS {
            self.dense.get_mut(id as usize).and_then(Option::take)
        } else {
            self.sparse.remove(&id)
        };
        self.len -= usize::from(old.is_some());
        old
    }

    /// The info of a face, if known. Always inlined: the Interest pipeline reads the ingress
    /// and the chosen egress face of every Interest, and a call costs more than the read.
    /// `dense` never reaches past [`DENSE_IDS`], so an id within it is a dense id: the usual
    /// lookup is one bounds test; any other id is settled out of line.
    #[inline(always)]
    pub fn get(&self, id: FaceId) -> Option<FaceInfo> {
        match self.dense.get(id as usize) {
            Some(&slot) => slot,
            None => self.get_past_dense(id),
        }
    }

    /// [`FaceTable::get`] of an id past `dense`: unknown if below [`DENSE_IDS`], else in the
    /// hash map. Out of line, so the pipelines that inline `get` carry no hash map lookup.
    #[cold]
    #[inline(never)]
    fn get_past_dense(&self, id: FaceId) -> Option<FaceInfo> {
        if id < DENSE_IDS {
            return None;
        }
        self.sparse.get(&id).copied()
    }

    /// Number of faces.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no face is known.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_get_remove() {
        let mut t = FaceTable::new();
        assert!(t.is_empty());
        t.insert(300, FaceInfo::local());
        t.insert(
            301,
            FaceInfo {
                scope: FaceScope::NonLocal,
                link: LinkType::AdHoc,
            },
        );
        assert_eq!(t.len(), 2);
        assert!(t.get(300).is_some_and(|f| f.is_local()));
        assert_eq!(t.get(301).map(|f| f.link), Some(LinkType::AdHoc));
        assert_eq!(t.get(302), None);
        assert_eq!(t.remove(300), Some(FaceInfo::local()));
        assert_eq!(t.get(300), None);
        assert_eq!(t.remove(300), None);
        assert_eq!(t.len(), 1);
        // Large ids take the hash map.
        for id in [DENSE_IDS, u32::MAX] {
            t.insert(id, FaceInfo::network());
            t.insert(id, FaceInfo::local());
            assert_eq!(t.get(id), Some(FaceInfo::local()));
        }
        assert_eq!(t.len(), 3);
        assert_eq!(t.remove(u32::MAX), Some(FaceInfo::local()));
        assert_eq!(t.get(u32::MAX), None);
        assert_eq!(t.len(), 2);
    }
}
