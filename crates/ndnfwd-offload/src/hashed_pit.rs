//! The switch-tier PIT of seed 003 (its D1 and D2), with no I/O and no clock.
//!
//! # Layout (D2)
//!
//! A switch ASIC cannot update both fields of an entry in one pipeline stage, and one stage's
//! SRAM is too small for `2^21` entries; so the entry is split by field across two stage arrays
//! (`records`: the in-face record; `cells`: the pending counter with its collision flag and
//! deadline) and the slots are spread over `stages` such pairs. A slot is addressed by the low
//! `bits` bits of the keyed name hash; its pair is `slot % stages`.
//!
//! # Rules (D1)
//!
//! - Interest: when the slot has nothing pending its in-face is recorded at the switch; when
//!   something is pending (same name or a colliding one) the Interest is recorded only at the
//!   computer (with its full name) and the slot is marked *collided*. Either way the pending
//!   counter goes up by one.
//! - Data: the switch forwards it alone, to the recorded in-face, only when exactly one Interest
//!   is pending and the slot never saw a second one since it was recorded (a slot once at 2
//!   cannot tell, back at 1, whose record it holds: the seed's "collision detection based on the
//!   number of pending Interests"). Otherwise the computer's name-based PIT resolves it.
//! - Every Data or Nack the computer sends downstream takes one off the counter; at zero the slot
//!   is free again (and loses its collided mark).
//! - A slot whose deadline (the latest lifetime of the Interests it counts) has passed is reset
//!   before use, so Interests that never get an answer do not hold slots forever.

use ndn_packet::link::LpToken;
use ndn_packet::FaceId;

/// The seed's sizing: `2^21` hashes of PIT in the switch's SRAM (its ref. \[1\], Carofiglio et al.).
pub const SEED_HASH_BITS: u32 = 21;

/// The in-face record of a slot: where the Data goes and the PIT token to give it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotRecord {
    /// The downstream face the Interest came in on.
    pub face: FaceId,
    /// The downstream's PIT token (echoed on the Data).
    pub token: LpToken,
}

impl SlotRecord {
    const EMPTY: Self = Self {
        face: FaceId::MAX,
        token: LpToken::EMPTY,
    };
}

/// The pending-counter stage of a slot.
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    pending: u32,
    collided: bool,
    deadline: u64,
}

/// What the switch does with an arriving Data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataVerdict {
    /// Forward it from the switch alone to this record.
    Switch(SlotRecord),
    /// Hand it to the computer (name-based PIT).
    Computer,
}

/// Counters of the hashed PIT (every decision and every anomaly has one).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PitCounters {
    /// Interests whose in-face was recorded at the switch (hash new).
    pub interests_at_switch: u64,
    /// Interests recorded only at the computer (hash already pending).
    pub interests_at_computer: u64,
    /// Data forwarded by the switch alone.
    pub data_at_switch: u64,
    /// Data handed to the computer.
    pub data_at_computer: u64,
    /// Data or Nacks sent downstream by the computer (counter decrements).
    pub computer_downstream: u64,
    /// Decrements on a slot with nothing pending (ignored).
    pub pending_underflow: u64,
    /// Slots reset because their deadline passed with Interests still counted.
    pub slots_expired: u64,
    /// Data that would have gone back out of the face it came from (handed to the computer).
    pub data_same_face: u64,
}

/// The switch-tier hashed PIT.
#[derive(Debug)]
pub struct HashedPit {
    bits: u32,
    stages: usize,
    records: Vec<Vec<SlotRecord>>,
    cells: Vec<Vec<Cell>>,
    counters: PitCounters,
}

impl HashedPit {
    /// A PIT of `2^bits` slots (`bits` clamped to 1..=28) spread over `stages` stage pairs
    /// (at least 1).
    pub fn new(bits: u32, stages: usize) -> Self {
        let bits = bits.clamp(1, 28);
        let stages = stages.max(1);
        let slots = 1usize << bits;
        let per = slots.div_ceil(stages);
        Self {
            bits,
            stages,
            records: (0..stages).map(|_| vec![SlotRecord::EMPTY; per]).collect(),
            cells: (0..stages).map(|_| vec![Cell::default(); per]).collect(),
            counters: PitCounters::default(),
        }
    }

    /// Width of the name hash in bits.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The slot of a 64-bit keyed name hash: its low `bits` bits.
    pub fn slot_of(&self, name_hash: u64) -> u32 {
        (name_hash & ((1u64 << self.bits) - 1)) as u32
    }

    /// The counters.
    pub fn counters(&self) -> &PitCounters {
        &self.counters
    }

    fn locate(&self, slot: u32) -> (usize, usize) {
        let s = slot as usize;
        (s % self.stages, s / self.stages)
    }

    /// The pending cell of `slot`, reset first if its deadline passed.
    fn cell(&mut self, now: u64, slot: u32) -> Option<&mut Cell> {
        let (st, i) = self.locate(slot);
        let cell = self.cells.get_mut(st)?.get_mut(i)?;
        if cell.pending > 0 && now >= cell.deadline {
            *cell = Cell::default();
            self.counters.slots_expired += 1;
        }
        Some(cell)
    }

    /// An Interest with `record` and lifetime ending at `deadline` enters `slot`. Returns true
    /// when its in-face was recorded at the switch (the hash was new).
    pub fn on_interest(&mut self, now: u64, slot: u32, record: SlotRecord, deadline: u64) -> bool {
        let (st, i) = self.locate(slot);
        let Some(cell) = self.cell(now, slot) else {
            return false;
        };
        let fresh = cell.pending == 0;
        cell.pending = cell.pending.saturating_add(1);
        cell.deadline = cell.deadline.max(deadline);
        if fresh {
            cell.collided = false;
            if let Some(r) = self.records.get_mut(st).and_then(|v| v.get_mut(i)) {
                *r = record;
            }
            self.counters.interests_at_switch += 1;
        } else {
            cell.collided = true;
            self.counters.interests_at_computer += 1;
        }
        fresh
    }

    /// A Data hashed to `slot` arrives on `from`: forward it from the switch (the slot is freed)
    /// or hand it to the computer.
    pub fn on_data(&mut self, now: u64, slot: u32, from: FaceId) -> DataVerdict {
        let (st, i) = self.locate(slot);
        let alone = match self.cell(now, slot) {
            Some(c) => c.pending == 1 && !c.collided,
            None => false,
        };
        let record = self.records.get(st).and_then(|v| v.get(i)).copied();
        match record {
            Some(r) if alone && r.face != from => {
                if let Some(c) = self.cell(now, slot) {
                    *c = Cell::default();
                }
                self.counters.data_at_switch += 1;
                DataVerdict::Switch(r)
            }
            _ => {
                if alone {
                    self.counters.data_same_face += 1;
                }
                self.counters.data_at_computer += 1;
                DataVerdict::Computer
            }
        }
    }

    /// The computer sent a Data or Nack hashed to `slot` downstream: one fewer pending.
    pub fn on_computer_downstream(&mut self, now: u64, slot: u32) {
        self.counters.computer_downstream += 1;
        let Some(cell) = self.cell(now, slot) else {
            return;
        };
        if cell.pending == 0 {
            self.counters.pending_underflow += 1;
            return;
        }
        cell.pending -= 1;
        if cell.pending == 0 {
            *cell = Cell::default();
        }
    }

    /// Interests counted in `slot` right now (0 once its deadline passed).
    pub fn pending(&mut self, now: u64, slot: u32) -> u32 {
        self.cell(now, slot).map_or(0, |c| c.pending)
    }

    /// Share of Data forwarded by the switch alone so far (0 before any Data).
    pub fn switch_share(&self) -> f64 {
        let c = &self.counters;
        let all = c.data_at_switch + c.data_at_computer;
        if all == 0 {
            0.0
        } else {
            c.data_at_switch as f64 / all as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(face: FaceId) -> SlotRecord {
        SlotRecord {
            face,
            token: LpToken::new(&face.to_be_bytes()).unwrap_or(LpToken::EMPTY),
        }
    }

    #[test]
    fn single_pending_goes_from_switch_and_frees_the_slot() {
        let mut p = HashedPit::new(4, 2);
        assert!(p.on_interest(0, 3, rec(7), 100));
        assert_eq!(p.on_data(1, 3, 9), DataVerdict::Switch(rec(7)));
        assert_eq!(p.pending(1, 3), 0);
        // A second Data for the slot is not for anyone the switch knows.
        assert_eq!(p.on_data(2, 3, 9), DataVerdict::Computer);
    }

    #[test]
    fn a_slot_that_reached_two_stays_with_the_computer_until_empty() {
        let mut p = HashedPit::new(4, 1);
        assert!(p.on_interest(0, 5, rec(1), 100));
        assert!(!p.on_interest(0, 5, rec(2), 100));
        assert_eq!(p.on_data(1, 5, 9), DataVerdict::Computer);
        p.on_computer_downstream(1, 5);
        // One pending, but it may be the computer-recorded one: still the computer's.
        assert_eq!(p.pending(1, 5), 1);
        assert_eq!(p.on_data(2, 5, 9), DataVerdict::Computer);
        p.on_computer_downstream(2, 5);
        assert_eq!(p.pending(2, 5), 0);
        assert!(p.on_interest(3, 5, rec(3), 100));
        assert_eq!(p.on_data(4, 5, 9), DataVerdict::Switch(rec(3)));
    }

    #[test]
    fn deadline_resets_a_slot_and_counts_it() {
        let mut p = HashedPit::new(4, 3);
        p.on_interest(0, 2, rec(1), 10);
        p.on_interest(0, 2, rec(1), 10);
        assert_eq!(p.pending(9, 2), 2);
        assert_eq!(p.pending(10, 2), 0);
        assert_eq!(p.counters().slots_expired, 1);
        assert!(p.on_interest(11, 2, rec(4), 20));
    }

    #[test]
    fn underflow_and_same_face_are_counted_not_acted_on() {
        let mut p = HashedPit::new(3, 1);
        p.on_computer_downstream(0, 1);
        assert_eq!(p.counters().pending_underflow, 1);
        p.on_interest(0, 1, rec(4), 10);
        assert_eq!(p.on_data(0, 1, 4), DataVerdict::Computer);
        assert_eq!(p.counters().data_same_face, 1);
    }

    #[test]
    fn slot_is_the_low_bits() {
        let p = HashedPit::new(SEED_HASH_BITS, 4);
        assert_eq!(p.slot_of(u64::MAX), (1 << 21) - 1);
        assert_eq!(p.slot_of(0x1234_5678_9abc), 0x18_9abc);
    }
}
