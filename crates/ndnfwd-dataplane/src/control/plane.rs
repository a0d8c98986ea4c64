//! How the control stage reaches state owned by other stages: face tables (owned by I/O
//! threads) and engines (owned by workers). Work is sent as a job and the answer comes back on
//! a channel the job captured, so the same control code runs whether the job executes at once
//! (run-to-completion: [`Direct`], the stages are borrowed by the one thread) or on another
//! thread ([`Remote`], the job travels in a ring and the control thread waits for the answer;
//! workers and I/O threads never wait for the control thread, so this cannot deadlock).

use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ndnfwd_face::FaceTable;
use ndnfwd_fwd::Engine;

use crate::io::IoStage;
use crate::msg::{EngineJob, Inputs, IoJob, WorkerMsg};
use crate::worker::WorkerStage;

/// Longest wait for a job's answer (a TCP connect may take up to its own 3 s timeout).
pub(crate) const REPLY_TIMEOUT: Duration = Duration::from_secs(5);

/// Where control jobs run.
pub trait Plane {
    /// Number of I/O stages.
    fn io_count(&self) -> usize;
    /// Number of workers.
    fn worker_count(&self) -> usize;
    /// Runs `job` on I/O stage `io`'s face table.
    fn on_io(&mut self, io: u8, job: IoJob);
    /// Runs `job` on worker `w`'s engine.
    fn on_worker(&mut self, w: u8, job: EngineJob);
}

/// Runs `f` on I/O stage `io` and returns its result (`None`: no answer in time).
pub(crate) fn io_call<R: Send + 'static>(
    plane: &mut dyn Plane,
    io: u8,
    f: impl FnOnce(&mut FaceTable) -> R + Send + 'static,
) -> Option<R> {
    let (tx, rx) = mpsc::channel();
    plane.on_io(
        io,
        Box::new(move |t| {
            let _ = tx.send(f(t));
        }),
    );
    rx.recv_timeout(REPLY_TIMEOUT).ok()
}

/// Runs `f` on every worker's engine and returns the results that came back in time.
pub(crate) fn engines_call<R: Send + 'static>(
    plane: &mut dyn Plane,
    f: impl Fn(&mut Engine) -> R + Send + Sync + 'static,
) -> Vec<R> {
    let f = Arc::new(f);
    let (tx, rx) = mpsc::channel();
    let n = plane.worker_count();
    for w in 0..n {
        let (f, tx): (_, Sender<R>) = (Arc::clone(&f), tx.clone());
        plane.on_worker(
            u8::try_from(w).unwrap_or(u8::MAX),
            Box::new(move |e| {
                let _ = tx.send(f(e));
            }),
        );
    }
    drop(tx);
    let deadline = Instant::now() + REPLY_TIMEOUT;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(r) => out.push(r),
            Err(_) => break,
        }
    }
    out
}

/// The stages of a run-to-completion thread, borrowed while the control stage runs.
#[derive(Debug)]
pub struct Direct<'a> {
    /// The I/O stages.
    pub io: &'a mut [IoStage],
    /// The workers.
    pub workers: &'a mut [WorkerStage],
}

impl Plane for Direct<'_> {
    fn io_count(&self) -> usize {
        self.io.len()
    }

    fn worker_count(&self) -> usize {
        self.workers.len()
    }

    fn on_io(&mut self, io: u8, job: IoJob) {
        if let Some(s) = self.io.get_mut(usize::from(io)) {
            job(s.faces_mut());
        }
    }

    fn on_worker(&mut self, w: u8, job: EngineJob) {
        if let Some(s) = self.workers.get_mut(usize::from(w)) {
            job(s.engine_mut());
        }
    }
}

/// Stages running on their own threads.
#[derive(Debug, Clone)]
pub struct Remote {
    /// Job queue of each I/O thread.
    pub io_jobs: Vec<Sender<IoJob>>,
    /// Worker input rings.
    pub inputs: Inputs,
}

impl Plane for Remote {
    fn io_count(&self) -> usize {
        self.io_jobs.len()
    }

    fn worker_count(&self) -> usize {
        self.inputs.len()
    }

    fn on_io(&mut self, io: u8, job: IoJob) {
        if let Some(q) = self.io_jobs.get(usize::from(io)) {
            let _ = q.send(job);
        }
    }

    fn on_worker(&mut self, w: u8, job: EngineJob) {
        let Some(input) = self.inputs.get(usize::from(w)) else {
            return;
        };
        // The worker drains its ring without ever waiting for us, so room appears; give up
        // (the caller then times out) only if the worker is gone.
        let deadline = Instant::now() + REPLY_TIMEOUT;
        let mut msg = WorkerMsg::Job(job);
        loop {
            match input.ring.push(msg) {
                Ok(()) => {
                    input.waker.wake();
                    return;
                }
                Err(m) if Instant::now() < deadline => {
                    msg = m;
                    input.waker.wake();
                    std::thread::yield_now();
                }
                Err(_) => return,
            }
        }
    }
}
