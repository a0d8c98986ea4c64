//! The worker side of the benchmark: packet encoding and the per-thread phase loop.

use bytes::BytesMut;
use ndn_packet::tlv::tt;
use ndn_packet::{DataBuilder, InterestBuilder, Name, NameHasher};
use ndnfwd_fib::FibHandle;
use ndnfwd_pcct::{PcctConfig, MS};
use ndnfwd_workload::{NameSource, Workload};
use std::collections::VecDeque;
use std::sync::Barrier;

use super::{BenchConfig, BenchError, Schedule, CONSUMER, CONTENT, UPSTREAMS};
use crate::cycles::{cycle_counter, thread_cpu_ns, StageCycles};
use crate::face::FaceInfo;
use crate::{Engine, EngineConfig, PrefetchMode, TxBurst};
use ndn_packet::link::{LpToken, PacketKind, RxLp, RxPacket};

/// Interest name `i`: the workload's, plus a sequence number for workloads whose Interest
/// names can repeat (`yuan` looks up its own prefixes; `real` draws from a vocabulary).
pub(super) fn interest_name(w: &Workload, i: u64, buf: &mut Vec<u8>) -> Option<Name> {
    w.interest_into(i, buf);
    if !matches!(w, Workload::So(_)) {
        ndn_packet::name::push_number_component(buf, tt::SEQUENCE_NUM_COMPONENT, i);
    }
    Name::from_value(buf.clone()).ok()
}

/// One measured phase of one worker.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sample {
    pub(super) cycles: u64,
    /// Thread CPU time of the phase (0 where unknown).
    pub(super) cpu_ns: u64,
    pub(super) packets: u64,
    pub(super) unmatched: u64,
}

/// Shared, read-only context of the workers.
pub(super) struct Ctx<'a> {
    pub(super) cfg: &'a BenchConfig,
    /// Workers started (the largest worker count); names are carved per started worker.
    pub(super) workers: usize,
    pub(super) workload: &'a Workload,
    pub(super) fib: &'a FibHandle,
    pub(super) hasher: &'a NameHasher,
    pub(super) modes: &'a [PrefetchMode],
    pub(super) schedule: Schedule,
    pub(super) barrier: &'a Barrier,
}

/// What a worker hands back: per slot and phase its sample (zero in slots it sat out); per
/// combination and phase the accounting run's stage cycles.
pub(super) struct WorkerOut {
    pub(super) samples: Vec<[Sample; 2]>,
    pub(super) stages: Vec<[StageCycles; 2]>,
}

/// One worker's receive buffers for one packet kind, reused run after run as a forwarder
/// reuses its receive rings. A phase's packets are carved from one buffer, and the buffer is
/// freed when its last packet goes: for 1M Data that was a 256 MB munmap inside whichever
/// timed phase evicted the packet, holding the address-space lock the other worker's page
/// faults wait on (measured: one of two workers stalled 8-15 ms a Data phase), and after it the
/// kernel's work on the freed pages and the next buffer's page faults. Kept here instead, a
/// buffer is refilled once no packet refers to it.
#[derive(Default)]
struct Rings(VecDeque<BytesMut>);

impl Rings {
    /// An empty buffer with room for `bytes`: the oldest one that no packet refers to any
    /// more, else a new one.
    fn take(&mut self, bytes: usize) -> BytesMut {
        if self.0.front_mut().is_some_and(|b| b.try_reclaim(bytes)) {
            if let Some(b) = self.0.pop_front() {
                return b;
            }
        }
        BytesMut::with_capacity(bytes)
    }

    /// Keeps `tail`, the rest of a buffer packets were split from (it holds the buffer).
    fn keep(&mut self, tail: BytesMut) {
        self.0.push_back(tail);
    }
}

/// Packets of one phase, carved from one buffer of `rings` like a receive ring's.
fn encode_interests(ctx: &Ctx<'_>, base: u64, rings: &mut Rings, out: &mut Vec<RxPacket>) {
    out.clear();
    let n = ctx.cfg.pit_capacity as usize;
    let mut pool = rings.take(n * 96);
    let mut buf = Vec::with_capacity(256);
    for k in 0..n as u64 {
        let i = base + k;
        let Some(name) = interest_name(ctx.workload, i, &mut buf) else {
            continue;
        };
        let wire = InterestBuilder::new(name)
            .nonce((i as u32).to_be_bytes())
            .hop_limit(64)
            .encode();
        if let Ok(wire) = wire {
            pool.extend_from_slice(&wire);
            out.push(RxPacket {
                face: CONSUMER,
                kind: PacketKind::Interest,
                wire: pool.split().freeze(),
                lp: RxLp::default(),
            });
        }
    }
    rings.keep(pool);
}

/// The Data of one phase, as [`encode_interests`] does the Interests.
fn encode_data(
    ctx: &Ctx<'_>,
    base: u64,
    tokens: &[LpToken],
    rings: &mut Rings,
    out: &mut Vec<RxPacket>,
) {
    out.clear();
    let n = ctx.cfg.pit_capacity as usize;
    let mut pool = rings.take(n * 256);
    let mut buf = Vec::with_capacity(256);
    for k in 0..n {
        let i = base + k as u64;
        let Some(name) = interest_name(ctx.workload, i, &mut buf) else {
            continue;
        };
        let wire = DataBuilder::new(name)
            .freshness_period(10_000)
            .content(vec![0x5a; CONTENT])
            .encode();
        if let Ok(wire) = wire {
            pool.extend_from_slice(&wire);
            out.push(RxPacket {
                face: 2 + (k as u32 % UPSTREAMS),
                kind: PacketKind::Data,
                wire: pool.split().freeze(),
                lp: RxLp {
                    pit_token: tokens.get(k).copied().unwrap_or_default(),
                    ..RxLp::default()
                },
            });
        }
    }
    rings.keep(pool);
}

/// Thread CPU ns since `t0` (0 where the OS does not tell).
fn elapsed_cpu(t0: Option<u64>) -> u64 {
    match (t0, thread_cpu_ns()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => 0,
    }
}

/// One worker: its own engine, the same (run, mode, phase) schedule as the main thread.
pub(super) fn worker(ctx: &Ctx<'_>, w: usize) -> Result<WorkerOut, BenchError> {
    let cfg = ctx.cfg;
    let ecfg = EngineConfig {
        pcct: PcctConfig {
            worker_id: w as u8,
            pit_capacity: cfg.pit_capacity,
            cs_capacity_packets: cfg.cs_capacity,
            cs_capacity_bytes: u64::from(cfg.cs_capacity) * 1024,
            ..PcctConfig::default()
        },
        ..EngineConfig::default()
    };
    let n_slots = ctx.schedule.slots();
    let mut out = WorkerOut {
        samples: vec![[Sample::default(); 2]; n_slots],
        stages: vec![[StageCycles::default(); 2]; ctx.modes.len() * ctx.cfg.workers.len()],
    };
    let mut engine = match Engine::new(ecfg, ctx.hasher.clone(), ctx.fib.reader()) {
        Ok(e) => e,
        Err(e) => {
            // Still walk the barriers (4 per phase) so the main thread is not left waiting.
            for _ in 0..n_slots * 2 * 4 {
                ctx.barrier.wait();
            }
            return Err(BenchError::Engine(e));
        }
    };
    for f in 0..=UPSTREAMS {
        engine.add_face(CONSUMER + f, FaceInfo::network());
    }
    let packets = cfg.pit_capacity as usize;
    let mut rx = Vec::with_capacity(packets);
    let mut tx = TxBurst::with_capacity(cfg.batch * 4);
    let mut tokens = vec![LpToken::default(); packets];
    let mut now = 0u64;
    let (mut interest_rings, mut data_rings) = (Rings::default(), Rings::default());
    for slot in 0..n_slots {
        let combo = ctx.schedule.combo_of(slot);
        let (wi, mi) = Schedule::split(combo, ctx.modes.len());
        if w >= cfg.workers.get(wi).copied().unwrap_or(1) {
            // Not one of this slot's workers: pass the 4 barriers of each phase, idle.
            for _ in 0..2 * 4 {
                ctx.barrier.wait();
            }
            continue;
        }
        let mode = ctx.modes.get(mi).copied().unwrap_or_default();
        engine.set_prefetch(mode);
        let accounting = ctx.schedule.is_accounting(slot);
        engine.set_accounting(accounting);
        let base = ((slot * ctx.workers + w) * packets) as u64;

        // Interest phase.
        encode_interests(ctx, base, &mut interest_rings, &mut rx);
        tokens.iter_mut().for_each(|t| *t = LpToken::default());
        engine.reset_stage_cycles();
        ctx.barrier.wait();
        ctx.barrier.wait();
        let (c0, t0) = (cycle_counter(), thread_cpu_ns());
        let mut unmatched = 0;
        for (b, burst) in rx.chunks_mut(cfg.batch).enumerate() {
            tx.clear();
            engine.process(now, burst, &mut tx);
            if tx.len() == burst.len() {
                for (k, t) in tx.iter().enumerate() {
                    if let Some(slot) = tokens.get_mut(b * cfg.batch + k) {
                        *slot = t.lp.pit_token;
                    }
                }
            } else {
                unmatched += burst.len() as u64;
            }
            now += 1_000;
        }
        tx.clear();
        let cycles = cycle_counter().wrapping_sub(c0);
        let cpu_ns = elapsed_cpu(t0);
        ctx.barrier.wait();
        ctx.barrier.wait();
        if let Some(s) = out.samples.get_mut(slot) {
            s[0] = Sample {
                cycles,
                cpu_ns,
                packets: rx.len() as u64,
                unmatched,
            };
        }
        if let Some(st) = out.stages.get_mut(combo).filter(|_| accounting) {
            st[0] = *engine.stage_cycles();
        }

        // Data phase.
        encode_data(ctx, base, &tokens, &mut data_rings, &mut rx);
        engine.reset_stage_cycles();
        ctx.barrier.wait();
        ctx.barrier.wait();
        let (c0, t0) = (cycle_counter(), thread_cpu_ns());
        for burst in rx.chunks_mut(cfg.batch) {
            tx.clear();
            engine.process(now, burst, &mut tx);
            now += 1_000;
        }
        tx.clear();
        let cycles = cycle_counter().wrapping_sub(c0);
        let cpu_ns = elapsed_cpu(t0);
        ctx.barrier.wait();
        ctx.barrier.wait();
        if let Some(s) = out.samples.get_mut(slot) {
            s[1] = Sample {
                cycles,
                cpu_ns,
                packets: rx.len() as u64,
                unmatched: 0,
            };
        }
        if let Some(st) = out.stages.get_mut(combo).filter(|_| accounting) {
            st[1] = *engine.stage_cycles();
        }
        rx.clear();
        now += 10 * MS;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::Rings;

    #[test]
    fn a_ring_is_refilled_once_no_packet_refers_to_it() {
        let mut rings = Rings::default();
        let mut ring = rings.take(1000);
        let start = ring.as_ptr();
        ring.extend_from_slice(&[7; 600]);
        let packet = ring.split().freeze();
        rings.keep(ring);

        // A packet still refers to the only buffer: a new one.
        let mut other = rings.take(1000);
        assert_ne!(other.as_ptr(), start);
        other.extend_from_slice(&[8; 600]);
        let other_packet = other.split().freeze();
        rings.keep(other);

        // Once it has gone, the oldest buffer is refilled from its start, with its room.
        drop(packet);
        let again = rings.take(1000);
        assert_eq!(again.as_ptr(), start);
        assert!(again.is_empty() && again.capacity() >= 1000);
        assert_eq!(&other_packet[..], &[8; 600][..]);
    }
}
