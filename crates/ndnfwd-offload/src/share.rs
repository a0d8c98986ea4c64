//! The share of Data the switch tier forwards alone, on a seed-like workload.
//!
//! The seed measured 98% with `2^21` hashes, 1135-byte Data and a traffic generator keeping the
//! router full. The workload here: a stream of Interests for distinct names with a fixed number
//! outstanding; each Data comes back after `outstanding` further Interests were sent (first in,
//! first out); Data the tier hands to the computer is resolved there (one decrement each, as the
//! computer sends it to its one downstream). What the share depends on is the ratio of pending
//! Interests to slots.

use ndn_packet::{FaceId, LpToken, Name, NameHasher};

use crate::hashed_pit::{DataVerdict, HashedPit, PitCounters, SlotRecord};

/// Parameters of [`run_share`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ShareConfig {
    /// Width of the switch's name hash (`2^bits` slots).
    pub bits: u32,
    /// Stage pairs the slots are spread over.
    pub stages: usize,
    /// Interests outstanding at any time.
    pub outstanding: usize,
    /// Interests (and Data) in the run.
    pub interests: u64,
    /// Downstream faces the Interests come from (round robin).
    pub faces: u32,
}

impl ShareConfig {
    /// The sizing used for the seed comparison: `2^21` slots over 4 stages, 20000 Interests
    /// outstanding (about 1% of the slots), 10^6 Interests from 8 faces.
    pub const SEED_LIKE: Self = Self {
        bits: crate::SEED_HASH_BITS,
        stages: 4,
        outstanding: 20_000,
        interests: 1_000_000,
        faces: 8,
    };
}

/// Result of [`run_share`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ShareReport {
    /// The parameters.
    pub config: ShareConfig,
    /// Data forwarded by the switch alone / all Data.
    pub switch_share: f64,
    /// The PIT's counters at the end.
    pub counters: PitCounters,
    /// Data that went to a face other than the one whose Interest it answers (must be 0).
    pub misdelivered: u64,
}

/// Runs the workload through a [`HashedPit`] keyed by `hasher`.
pub fn run_share(cfg: ShareConfig, hasher: &NameHasher) -> ShareReport {
    let mut pit = HashedPit::new(cfg.bits, cfg.stages);
    let faces = cfg.faces.max(1);
    let mut window: std::collections::VecDeque<(u32, FaceId)> =
        std::collections::VecDeque::with_capacity(cfg.outstanding + 1);
    let mut misdelivered = 0;
    // Time does not advance: no slot expires in this workload.
    let now = 0;
    let deadline = u64::MAX;
    let upstream = FaceId::MAX - 1;
    for i in 0..cfg.interests {
        let name = Name::from_uri(&format!("/seed003/{:x}/{i}", i % 97)).unwrap_or_default();
        let slot = pit.slot_of(hasher.hash_name(name.as_ref()));
        let face = (i % u64::from(faces)) as FaceId;
        let token = LpToken::new(&i.to_be_bytes()).unwrap_or(LpToken::EMPTY);
        pit.on_interest(now, slot, SlotRecord { face, token }, deadline);
        window.push_back((slot, face));
        if window.len() > cfg.outstanding {
            if let Some((slot, face)) = window.pop_front() {
                answer(&mut pit, slot, face, upstream, &mut misdelivered);
            }
        }
    }
    while let Some((slot, face)) = window.pop_front() {
        answer(&mut pit, slot, face, upstream, &mut misdelivered);
    }
    ShareReport {
        config: cfg,
        switch_share: pit.switch_share(),
        counters: *pit.counters(),
        misdelivered,
    }
}

fn answer(pit: &mut HashedPit, slot: u32, face: FaceId, upstream: FaceId, bad: &mut u64) {
    match pit.on_data(0, slot, upstream) {
        DataVerdict::Switch(r) => {
            if r.face != face {
                *bad += 1;
            }
        }
        DataVerdict::Computer => pit.on_computer_downstream(0, slot),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndn_packet::SipVariant;

    fn hasher() -> NameHasher {
        NameHasher::new(*b"offload-share-k!", SipVariant::Sip13)
    }

    #[test]
    fn seed_sizing_forwards_about_98_percent_from_the_switch() {
        let r = run_share(ShareConfig::SEED_LIKE, &hasher());
        assert!(
            (0.95..=0.995).contains(&r.switch_share),
            "share {}",
            r.switch_share
        );
        assert_eq!(r.misdelivered, 0);
        let c = r.counters;
        assert_eq!(c.data_at_switch + c.data_at_computer, 1_000_000);
        assert_eq!(c.pending_underflow, 0);
    }

    #[test]
    fn a_tiny_hash_sends_almost_everything_to_the_computer() {
        let cfg = ShareConfig {
            bits: 4,
            interests: 20_000,
            outstanding: 64,
            ..ShareConfig::SEED_LIKE
        };
        let r = run_share(cfg, &hasher());
        assert!(r.switch_share < 0.2, "share {}", r.switch_share);
        assert_eq!(r.misdelivered, 0);
    }
}
