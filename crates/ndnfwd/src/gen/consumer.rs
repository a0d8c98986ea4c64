//! One consumer thread: sends Interests in window (closed-loop) or fixed-rate (open-loop) mode
//! and accounts for every answer from the state in its PIT token ([`GenToken`]).
//!
//! Window mode keeps `window` slots; a slot holds the sequence number and send time of its
//! Interest, so an answer frees its slot by index and a slot older than the InterestLifetime is
//! counted as a timeout and reused. Fixed-rate mode keeps no per-Interest state at all: the RTT
//! comes from the send time in the token, and whatever is unanswered at the end is a loss.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use bytes::Bytes;
use ndn_packet::link::{LpToken, PacketKind, TxLp};
use ndn_packet::{InterestBuilder, Name};
use ndnfwd_workload::{GenToken, PatternMix};

use super::client::Client;
use super::stats::{Live, Tally};
use super::wire::{data_content, has_params_digest, lifetime_tlv, InterestFields, Packer};

/// How Interests are paced.
#[derive(Debug, Clone, Copy)]
pub enum Pace {
    /// At most this many outstanding (per thread).
    Window(u32),
    /// This many Interests per second (per thread).
    Rate(f64),
}

/// What one consumer thread does.
pub struct Plan<'a> {
    /// Thread index (in every token).
    pub thread: u8,
    /// Threads in the run (sequence numbers interleave: `i * threads + thread`).
    pub threads: u64,
    /// Patterns.
    pub mix: &'a PatternMix,
    /// Pacing.
    pub pace: Pace,
    /// Interests to send (this thread), `None` for until `deadline_ns` or stop.
    pub count: Option<u64>,
    /// Stop sending at this time (ns since `epoch`).
    pub deadline_ns: Option<u64>,
    /// InterestLifetime in ms.
    pub lifetime_ms: u64,
    /// Interests per burst.
    pub batch: usize,
    /// Common start of all threads.
    pub epoch: Instant,
    /// Set on SIGINT/SIGTERM.
    pub stop: &'a AtomicBool,
    /// Live counters.
    pub live: &'a Live,
    /// Keep the first Data's content (single fetch).
    pub sample_content: bool,
}

/// A window slot: the Interest in flight.
#[derive(Clone, Copy)]
struct Slot {
    seq: u64,
    sent_ns: u64,
}

fn nonce(seq: u64, salt: u32) -> [u8; 4] {
    ((seq as u32) ^ salt.rotate_left(seq as u32 & 31)).to_be_bytes()
}

/// Runs the thread to completion.
pub fn run(c: &mut Client, p: &Plan<'_>) -> Tally {
    let mut t = Tally::new(p.mix.patterns().len());
    let now_ns = || u64::try_from(p.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
    let lifetime_ns = p.lifetime_ms.saturating_mul(1_000_000);
    let window = match p.pace {
        Pace::Window(w) => w.max(1) as usize,
        Pace::Rate(_) => 0,
    };
    let mut slots: Vec<Option<Slot>> = vec![None; window];
    let mut free: Vec<u32> = (0..window as u32).rev().collect();
    let mut salt = [0u8; 4];
    let _ = getrandom::getrandom(&mut salt);
    let salt = u32::from_be_bytes(salt);
    let mut name_buf = Vec::with_capacity(256);
    let mut packer = Packer::new();
    let lifetime = lifetime_tlv(p.lifetime_ms);
    // Patterns whose names are written straight (the builder checks the others: names read
    // from a file, or a prefix with a digest component).
    let direct: Vec<bool> = p
        .mix
        .patterns()
        .iter()
        .map(|c| {
            !matches!(c.suffix, ndnfwd_workload::Suffix::Real(_))
                && !has_params_digest(c.prefix.as_ref())
        })
        .collect();
    let mut i = 0u64;
    let mut last_send_ns = 0u64;
    let mut last_scan_ns = 0u64;
    let (mut rep_sent, mut rep_data, mut rep_nacks) = (0u64, 0u64, 0u64);
    loop {
        let now = now_ns();
        let sending = !p.stop.load(Ordering::Relaxed)
            && p.count.is_none_or(|n| i < n)
            && p.deadline_ns.is_none_or(|d| now < d);
        let outstanding = match p.pace {
            Pace::Window(_) => (window - free.len()) as u64,
            Pace::Rate(_) => t.sent.saturating_sub(t.data + t.nack_total()),
        };
        if !sending {
            let drained = outstanding == 0 || now.saturating_sub(last_send_ns) > lifetime_ns;
            if drained || p.stop.load(Ordering::Relaxed) {
                break;
            }
        }
        // Send a burst.
        let budget = if !sending {
            0
        } else {
            match p.pace {
                Pace::Window(_) => free.len().min(p.batch),
                Pace::Rate(r) => {
                    let due = (r * now as f64 / 1e9) as u64;
                    (due.saturating_sub(i) as usize).min(p.batch)
                }
            }
        };
        let budget = p.count.map_or(budget, |n| budget.min((n - i) as usize));
        for _ in 0..budget {
            let seq = i * p.threads + u64::from(p.thread);
            let pick = p.mix.pick(seq);
            let slot = match p.pace {
                Pace::Window(_) => free.pop().unwrap_or(0),
                Pace::Rate(_) => 0,
            };
            p.mix.name_into(pick.pattern, seq, &mut name_buf);
            let fields = InterestFields {
                name: &name_buf,
                can_be_prefix: pick.can_be_prefix,
                must_be_fresh: pick.must_be_fresh,
                nonce: nonce(seq, salt),
                lifetime: &lifetime,
            };
            let wire = if direct.get(usize::from(pick.pattern)) == Some(&true) {
                packer.pack(|out| fields.write(out))
            } else {
                let Ok(name) = Name::from_value(name_buf.clone()) else {
                    continue;
                };
                let Ok(wire) = InterestBuilder::new(name)
                    .can_be_prefix(fields.can_be_prefix)
                    .must_be_fresh(fields.must_be_fresh)
                    .lifetime_ms(p.lifetime_ms)
                    .nonce(fields.nonce)
                    .encode()
                else {
                    continue;
                };
                Bytes::from(wire)
            };
            let tok = GenToken {
                thread: p.thread,
                pattern: pick.pattern,
                slot,
                seq,
                sent_ns: now,
            };
            if let Some(s) = slots.get_mut(slot as usize) {
                *s = Some(Slot { seq, sent_ns: now });
            }
            let lp = TxLp {
                pit_token: LpToken::new(&tok.encode()).unwrap_or(LpToken::EMPTY),
                ..TxLp::default()
            };
            c.queue(None, PacketKind::Interest, wire, lp);
            if let Some(pt) = t.patterns.get_mut(usize::from(pick.pattern)) {
                pt.sent += 1;
            }
            t.sent += 1;
            rep_sent += 1;
            i += 1;
            last_send_ns = now;
        }
        c.flush();
        // Receive: block briefly only when there is nothing to send now.
        let idle = budget == 0;
        if let Err(e) = c.poll(i32::from(idle)) {
            eprintln!("ndnfwd gen: thread {}: {e}", p.thread);
            break;
        }
        let now = now_ns();
        for pkt in c.rx.drain(..) {
            let Some(tok) = GenToken::decode(pkt.lp.pit_token.as_bytes()) else {
                t.unmatched += 1;
                continue;
            };
            if let Pace::Window(_) = p.pace {
                match slots.get_mut(tok.slot as usize) {
                    Some(s @ Some(_)) if s.is_some_and(|s| s.seq == tok.seq) => {
                        *s = None;
                        free.push(tok.slot);
                    }
                    _ => {
                        t.unmatched += 1;
                        continue;
                    }
                }
            }
            let pt = t.patterns.get_mut(usize::from(tok.pattern));
            match pkt.kind {
                PacketKind::Data => {
                    t.data += 1;
                    rep_data += 1;
                    t.rtt.record(now.saturating_sub(tok.sent_ns));
                    if let Some(pt) = pt {
                        pt.data += 1;
                    }
                    if let Some(content) = data_content(&pkt.wire) {
                        t.content_bytes += content.len() as u64;
                        if p.sample_content && t.content_sample.is_none() {
                            let cut = content.get(..256).unwrap_or(content);
                            t.content_sample = Some(String::from_utf8_lossy(cut).into_owned());
                        }
                    }
                }
                PacketKind::Nack => {
                    let reason = pkt
                        .lp
                        .nack
                        .flatten()
                        .map_or("none".into(), |r| format!("{r:?}"));
                    *t.nacks.entry(reason).or_default() += 1;
                    rep_nacks += 1;
                    if let Some(pt) = pt {
                        pt.nacks += 1;
                    }
                }
                PacketKind::Interest => {
                    t.unmatched += 1;
                    continue;
                }
            }
            t.last_answer_ns = now;
        }
        // Expire window slots (every 10 ms).
        if window > 0 && now.saturating_sub(last_scan_ns) > 10_000_000 {
            last_scan_ns = now;
            for (k, s) in slots.iter_mut().enumerate() {
                if s.is_some_and(|s| now.saturating_sub(s.sent_ns) > lifetime_ns) {
                    *s = None;
                    free.push(k as u32);
                    t.timeouts += 1;
                }
            }
        }
        if rep_sent + rep_data + rep_nacks >= 256 || idle {
            p.live.add(rep_sent, rep_data, rep_nacks);
            (rep_sent, rep_data, rep_nacks) = (0, 0, 0);
        }
    }
    p.live.add(rep_sent, rep_data, rep_nacks);
    if window == 0 {
        // Fixed rate: whatever is unanswered after the drain is lost.
        t.timeouts = t.sent.saturating_sub(t.data + t.nack_total());
    } else {
        t.timeouts += (window - free.len()) as u64;
    }
    t
}
