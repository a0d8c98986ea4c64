//! The receive half of the face table: `recv_burst` over ready sockets and every
//! shared-memory ring, and `wait` for an idle I/O thread.

use std::io;

use ndn_packet::RxPacket;

use super::FaceTable;
use crate::transport::{Endpoint, ShmEndpoint, Status};

/// While shared-memory rings keep delivering, `recv_burst` asks epoll about the sockets only on
/// every this-many-th call: the check is a system call, which would otherwise cost more than
/// the packets a busy ring hands over in one burst. Other faces then wait a few bursts at most.
const SKIP_EPOLL: u32 = 8;

impl FaceTable {
    /// Waits until a socket is readable or `timeout_ms` passes (0: just check, negative:
    /// forever); for an idle I/O thread. True when something is ready.
    pub fn wait(&mut self, timeout_ms: i32) -> io::Result<bool> {
        if !self.rx_backlog.is_empty() {
            return Ok(true);
        }
        // Shared-memory peers write a doorbell byte only to a side that said it sleeps.
        let mut pending = false;
        for s in self.shm_endpoints() {
            pending |= s.arm();
        }
        let waited = if pending {
            Ok(0)
        } else {
            self.ready.clear();
            let r = self.poller.wait(&mut self.ready, timeout_ms);
            self.ready_valid = r.is_ok();
            r
        };
        for s in self.shm_endpoints() {
            s.awake();
        }
        waited?;
        Ok(pending || !self.ready.is_empty())
    }

    fn shm_endpoints(&self) -> impl Iterator<Item = &ShmEndpoint> + '_ {
        self.shm
            .iter()
            .filter_map(|&slot| match self.endpoints.get(slot) {
                Some(Some(Endpoint::Shm(s))) => Some(s),
                _ => None,
            })
    }

    /// Receives up to `max` network packets from every ready socket, appending them to `out`;
    /// never blocks. Accepts pending connections and creates on-demand faces on the way
    /// (see [`FaceTable::drain_events`]). Returns how many packets were appended.
    pub fn recv_burst(&mut self, now: u64, out: &mut Vec<RxPacket>, max: usize) -> usize {
        let start = out.len();
        let limit = start.saturating_add(max);
        let backlog = core::mem::take(&mut self.rx_backlog);
        for slot in backlog {
            self.recv_endpoint(slot, now, out, limit);
        }
        if !self.ready_valid {
            self.ready.clear();
            if self.shm_busy && self.epoll_skipped + 1 < SKIP_EPOLL {
                self.epoll_skipped += 1;
            } else {
                self.epoll_skipped = 0;
                if self.poller.wait(&mut self.ready, 0).is_err() {
                    return out.len() - start;
                }
            }
        }
        self.ready_valid = false;
        let ready = core::mem::take(&mut self.ready);
        let n = ready.len();
        self.rr = self.rr.wrapping_add(1);
        for k in 0..n {
            if out.len() >= limit {
                break;
            }
            if let Some(&token) = ready.get((k + self.rr) % n) {
                self.recv_endpoint(token as usize, now, out, limit);
            }
        }
        self.ready = ready;
        // Rings in turn from a rotating start, so a busy one cannot starve the others.
        let before = out.len();
        let n = self.shm.len();
        for k in 0..n {
            if let Some(&slot) = self.shm.get((k + self.rr) % n) {
                self.recv_ring(slot, now, out, limit);
            }
        }
        self.shm_busy = out.len() > before;
        out.len() - start
    }

    /// Takes what a shared-memory face's ring holds (no system call).
    fn recv_ring(&mut self, slot: usize, now: u64, out: &mut Vec<RxPacket>, limit: usize) {
        if let Some(Some(Endpoint::Shm(s))) = self.endpoints.get_mut(slot) {
            if let (Status::Down(reason), _) = s.recv(now, &mut self.faces, out, limit) {
                self.close_endpoint(slot, reason);
            }
        }
    }

    fn recv_endpoint(&mut self, slot: usize, now: u64, out: &mut Vec<RxPacket>, limit: usize) {
        let status = match self.endpoints.get_mut(slot).and_then(Option::as_mut) {
            None => return,
            Some(Endpoint::Listener(_)) => return self.accept(slot, now),
            Some(Endpoint::Stream(s)) => {
                let mut status = s.write_backlog();
                if status == Status::Open {
                    let (st, more) = s.recv(now, &mut self.faces, out, limit);
                    if more && st == Status::Open {
                        self.rx_backlog.push(slot);
                    }
                    status = st;
                }
                status
            }
            Some(Endpoint::Datagram(d)) => d.recv(slot, now, &mut self.faces, out, limit),
            // The ring itself is read by `recv_ring` on every burst.
            Some(Endpoint::Shm(s)) => s.doorbell(),
        };
        match status {
            Status::Down(reason) => self.close_endpoint(slot, reason),
            Status::Open => self.watch_output(slot),
        }
    }

    /// Keeps a stream watched for writability exactly while its backlog holds bytes.
    pub(super) fn watch_output(&mut self, slot: usize) {
        if let Some(Some(Endpoint::Stream(s))) = self.endpoints.get_mut(slot) {
            let want = s.backlog_bytes() > 0;
            if want != s.watching_out && self.poller.modify(s.fd(), slot as u64, want).is_ok() {
                s.watching_out = want;
            }
        }
    }
}
