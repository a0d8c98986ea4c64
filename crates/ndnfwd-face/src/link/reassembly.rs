//! NDNLPv2 reassembly with bounded memory.
//!
//! A partial packet is keyed, as in NFD, by the sender on the link and the message identifier
//! `Sequence - FragIndex`. Limits, all per face: at most `max_partials` partial packets, at
//! most `max_bytes` buffered fragment bytes in total, at most `max_fragments` fragments and
//! `max_packet` bytes per packet. A new partial packet that does not fit evicts the oldest
//! ones (counted `reassembly_full`): a flood of incomplete fragments then only hurts packets
//! whose fragments are further apart than `max_partials` flood packets, instead of blocking
//! every fragmented packet for a whole timeout. A partial packet expires `timeout` ns after
//! its last fragment arrived (`reassembly_timeout`). Fragment bytes are copied into the
//! partial packet's own buffer, so fragments never pin the receive buffers they arrived in;
//! the buffers are recycled, and the only per-packet allocation is the reassembled packet.

use bytes::{Bytes, BytesMut};

use super::RxFields;
use crate::counters::DropReason;

/// Reassembly limits of one face.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReassemblyLimits {
    /// Partial packets held at once.
    pub max_partials: usize,
    /// Fragment bytes buffered across all partial packets.
    pub max_bytes: usize,
    /// Largest FragCount accepted (NFD: 400).
    pub max_fragments: u64,
    /// Largest reassembled packet.
    pub max_packet: usize,
    /// Nanoseconds a partial packet waits for its next fragment (NFD: 500 ms).
    pub timeout: u64,
}

impl Default for ReassemblyLimits {
    fn default() -> Self {
        Self {
            max_partials: 16,
            max_bytes: 128 * 1024,
            max_fragments: 400,
            max_packet: crate::MAX_FRAME_LEN,
            timeout: 500_000_000,
        }
    }
}

/// Where fragment `i` sits in a partial packet's buffer.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    len: u32,
}

const MISSING: Span = Span {
    start: 0,
    len: u32::MAX,
};

/// One packet being reassembled. Slots are reused, keeping their buffers' capacity.
#[derive(Debug, Default)]
struct Partial {
    active: bool,
    peer: u64,
    msg: u64,
    count: u64,
    received: u64,
    started: u64,
    deadline: u64,
    data: Vec<u8>,
    spans: Vec<Span>,
    fields: RxFields,
}

/// What became of a fragment.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Held; the packet is not complete yet.
    Pending,
    /// The last fragment: the network packet and the fields of its first fragment.
    Complete(Bytes, RxFields),
}

/// Per-face reassembly state.
#[derive(Debug)]
pub(crate) struct Reassembler {
    limits: ReassemblyLimits,
    partials: Vec<Partial>,
    bytes: usize,
}

/// One received fragment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fragment<'a> {
    pub(crate) peer: u64,
    pub(crate) seq: u64,
    pub(crate) index: u64,
    pub(crate) count: u64,
    pub(crate) payload: &'a [u8],
    /// Header fields of this fragment (kept from fragment 0 only).
    pub(crate) fields: RxFields,
}

impl Reassembler {
    pub(crate) fn new(limits: ReassemblyLimits) -> Self {
        Self {
            limits,
            partials: Vec::new(),
            bytes: 0,
        }
    }

    /// Partial packets held now.
    pub(crate) fn pending(&self) -> usize {
        self.partials.iter().filter(|p| p.active).count()
    }

    /// Fragment bytes buffered now.
    pub(crate) fn buffered_bytes(&self) -> usize {
        self.bytes
    }

    fn free(&mut self, i: usize) {
        if let Some(p) = self.partials.get_mut(i) {
            self.bytes -= p.data.len();
            p.active = false;
            p.data.clear();
            p.spans.clear();
        }
    }

    /// Drops partial packets whose deadline passed; `drop` is called once per dropped packet.
    pub(crate) fn expire(&mut self, now: u64, mut drop: impl FnMut(DropReason)) {
        for i in 0..self.partials.len() {
            if self
                .partials
                .get(i)
                .is_some_and(|p| p.active && p.deadline <= now)
            {
                self.free(i);
                drop(DropReason::ReassemblyTimeout);
            }
        }
    }

    fn oldest_except(&self, keep: Option<usize>) -> Option<usize> {
        (0..self.partials.len())
            .filter(|&i| Some(i) != keep)
            .filter_map(|i| {
                self.partials
                    .get(i)
                    .filter(|p| p.active)
                    .map(|p| (p.started, i))
            })
            .min()
            .map(|(_, i)| i)
    }

    /// Adds one fragment (FragCount > 1). Errors name the drop counter for this fragment;
    /// evictions and expirations it causes are reported to `drop`.
    pub(crate) fn add(
        &mut self,
        now: u64,
        f: &Fragment<'_>,
        mut drop: impl FnMut(DropReason),
    ) -> Result<Outcome, DropReason> {
        self.expire(now, &mut drop);
        let lim = self.limits;
        if f.count > lim.max_fragments || f.index >= f.count || f.payload.is_empty() {
            return Err(DropReason::BadFragment);
        }
        if f.payload.len() > lim.max_packet || f.payload.len() > lim.max_bytes {
            return Err(DropReason::BadFragment);
        }
        let msg = f.seq.wrapping_sub(f.index);
        let found = self
            .partials
            .iter()
            .position(|p| p.active && p.peer == f.peer && p.msg == msg);
        let slot = match found {
            Some(i) => {
                let p = self.partials.get(i).ok_or(DropReason::BadFragment)?;
                let dup = p
                    .spans
                    .get(f.index as usize)
                    .is_none_or(|s| s.len != MISSING.len);
                if p.count != f.count || dup {
                    return Err(DropReason::BadFragment);
                }
                if p.data.len() + f.payload.len() > lim.max_packet {
                    self.free(i);
                    return Err(DropReason::BadFragment);
                }
                i
            }
            None => self.open(now, f, msg, &mut drop)?,
        };
        // Make room in the byte budget, oldest first, never evicting the packet itself.
        while self.bytes + f.payload.len() > lim.max_bytes {
            let Some(victim) = self.oldest_except(Some(slot)) else {
                self.free(slot);
                return Err(DropReason::BadFragment);
            };
            self.free(victim);
            drop(DropReason::ReassemblyFull);
        }
        let p = self.partials.get_mut(slot).ok_or(DropReason::BadFragment)?;
        let span = Span {
            start: p.data.len() as u32,
            len: f.payload.len() as u32,
        };
        if let Some(s) = p.spans.get_mut(f.index as usize) {
            *s = span;
        }
        p.data.extend_from_slice(f.payload);
        self.bytes += f.payload.len();
        if f.index == 0 {
            p.fields = f.fields;
        }
        p.received += 1;
        p.deadline = now.saturating_add(lim.timeout);
        if p.received < p.count {
            return Ok(Outcome::Pending);
        }
        let mut out = BytesMut::with_capacity(p.data.len());
        for s in &p.spans {
            let part = p.data.get(s.start as usize..(s.start + s.len) as usize);
            out.extend_from_slice(part.unwrap_or_default());
        }
        let fields = p.fields;
        self.free(slot);
        Ok(Outcome::Complete(out.freeze(), fields))
    }

    /// Takes a slot for a new partial packet, evicting the oldest when all are busy.
    fn open(
        &mut self,
        now: u64,
        f: &Fragment<'_>,
        msg: u64,
        drop: &mut impl FnMut(DropReason),
    ) -> Result<usize, DropReason> {
        let slot = match self.partials.iter().position(|p| !p.active) {
            Some(i) => i,
            None if self.partials.len() < self.limits.max_partials => {
                self.partials.push(Partial::default());
                self.partials.len() - 1
            }
            None => {
                let victim = self.oldest_except(None).ok_or(DropReason::ReassemblyFull)?;
                self.free(victim);
                drop(DropReason::ReassemblyFull);
                victim
            }
        };
        let p = self.partials.get_mut(slot).ok_or(DropReason::BadFragment)?;
        p.active = true;
        p.peer = f.peer;
        p.msg = msg;
        p.count = f.count;
        p.received = 0;
        p.started = now;
        p.fields = RxFields::default();
        p.spans.clear();
        p.spans.resize(f.count as usize, MISSING);
        Ok(slot)
    }
}
