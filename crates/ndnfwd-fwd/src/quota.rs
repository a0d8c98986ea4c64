//! Per-face PIT quota: fairness against a PIT flood from one face.
//!
//! Without it, one face sending unique, never-answered Interests fills the whole PIT and every
//! other face gets Nack Congestion until the flood's entries expire. With a quota of `limit`,
//! a face may hold at most `limit` PIT entries it created; past that its new Interests are
//! answered with Nack Congestion (counter `pit_face_quota`) while the rest of the PIT stays
//! open to other faces.
//!
//! The PIT-CS is not told who created an entry, so the quota keeps, per face, the handles of
//! the entries the face created. A handle is dropped once the entry no longer holds an
//! in-record of that face (satisfied, Nacked, expired, or the slot reused: PIT handles carry a
//! generation). Those checks run only when the face is at its limit, and at most once per
//! `limit / 4` refused Interests, so a flooder at its limit costs O(1) amortized per packet.

use std::collections::HashMap;

use ndn_packet::FaceId;
use ndnfwd_pcct::{Pcct, PitHandle};

/// The entries one face created, as far as the quota knows.
#[derive(Debug, Default)]
struct Held {
    handles: Vec<PitHandle>,
    /// Interests refused since the last pruning pass.
    refused: u32,
}

/// Per-face PIT entry limit (0: off).
#[derive(Debug, Default)]
pub(crate) struct FaceQuota {
    limit: u32,
    faces: HashMap<FaceId, Held>,
}

impl FaceQuota {
    /// A quota of `limit` PIT entries per face; 0 turns it off.
    pub(crate) fn new(limit: u32) -> Self {
        Self {
            limit,
            faces: HashMap::new(),
        }
    }

    /// Whether `face` may create another PIT entry now.
    #[inline(always)]
    pub(crate) fn admit(&mut self, pcct: &Pcct, face: FaceId) -> bool {
        self.limit == 0 || self.admit_limited(pcct, face)
    }

    /// [`FaceQuota::admit`] with a limit set (out of line: off is the common case).
    #[inline(never)]
    fn admit_limited(&mut self, pcct: &Pcct, face: FaceId) -> bool {
        let limit = self.limit as usize;
        let Some(h) = self.faces.get_mut(&face) else {
            return true;
        };
        if h.handles.len() < limit {
            return true;
        }
        if h.refused == 0 || h.refused >= self.limit / 4 {
            h.handles
                .retain(|&p| pcct.in_records(p).any(|r| r.face == face));
            h.refused = 0;
            if h.handles.len() < limit {
                return true;
            }
        }
        h.refused += 1;
        false
    }

    /// `face` created the PIT entry `pit`.
    #[inline(always)]
    pub(crate) fn created(&mut self, face: FaceId, pit: PitHandle) {
        if self.limit > 0 {
            self.record(face, pit);
        }
    }

    /// Files `pit` under `face` (out of line: only with a limit set).
    #[inline(never)]
    fn record(&mut self, face: FaceId, pit: PitHandle) {
        self.faces.entry(face).or_default().handles.push(pit);
    }

    /// The face is gone (its in-records were purged).
    pub(crate) fn remove_face(&mut self, face: FaceId) {
        self.faces.remove(&face);
    }
}
