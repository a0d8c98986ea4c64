//! Quiescent-state-based reclamation (QSBR) for one writer and many lock-free readers.
//!
//! Readers never block and never write shared state on the lookup path. Each registered reader
//! owns one cache-padded epoch word; between bursts it calls [`QsbrReader::quiescent`], which
//! copies the global epoch into that word, announcing "I hold no reference obtained before this
//! point". The writer makes an object unreachable, then [`Limbo::retire`]s it: that bumps the
//! global epoch to `g` and tags the object with `g`. The object may be reused once every *online*
//! reader's word is `>= g` ([`Qsbr::safe_epoch`]); [`Limbo::collect`] hands such objects back.
//!
//! A reader that goes idle calls [`QsbrReader::offline`] (its word becomes [`OFFLINE`]) so it
//! never holds reclamation back, and [`QsbrReader::online`] before its next lookup. Dropping a
//! reader takes it offline and unregisters it.
//!
//! Ordering: the writer's unlink happens before its `SeqCst` epoch increment; a reader's
//! quiescent store is `SeqCst` and so is its load of the global epoch, so a reader whose word is
//! `>= g` has finished every access it started before the unlink, and any later access sees the
//! unlink. `online` is followed by a `SeqCst` fence for the classic "went online while the writer
//! was scanning" race.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Epoch word value of a reader that holds no references.
pub const OFFLINE: u64 = u64::MAX;

/// One reader's announced epoch, alone on its cache lines (128 bytes covers adjacent-line
/// prefetch) so readers do not false-share with each other or with the writer.
#[repr(align(128))]
#[derive(Debug)]
struct ReaderEpoch {
    epoch: AtomicU64,
    dead: AtomicBool,
}

const _: () = assert!(core::mem::size_of::<ReaderEpoch>() == 128);

#[derive(Debug)]
struct Inner {
    epoch: AtomicU64,
    readers: Mutex<Vec<Arc<ReaderEpoch>>>,
}

/// The reclamation domain: a global epoch and the registry of reader epochs. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Qsbr {
    inner: Arc<Inner>,
}

impl Default for Qsbr {
    fn default() -> Self {
        Self::new()
    }
}

impl Qsbr {
    /// A domain with no readers, at epoch 1.
    pub fn new() -> Self {
        Self {
            inner: Arc::new(Inner {
                epoch: AtomicU64::new(1),
                readers: Mutex::new(Vec::new()),
            }),
        }
    }

    fn registry(&self) -> MutexGuard<'_, Vec<Arc<ReaderEpoch>>> {
        // A poisoned registry only means a thread panicked while pushing or pruning: the
        // vector itself is still valid.
        self.inner
            .readers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Registers a new reader, online at the current epoch.
    pub fn register(&self) -> QsbrReader {
        let slot = Arc::new(ReaderEpoch {
            epoch: AtomicU64::new(self.inner.epoch.load(Ordering::SeqCst)),
            dead: AtomicBool::new(false),
        });
        self.registry().push(slot.clone());
        fence(Ordering::SeqCst);
        QsbrReader {
            slot,
            qsbr: self.clone(),
            _not_sync: PhantomData,
        }
    }

    /// The current global epoch.
    pub fn epoch(&self) -> u64 {
        self.inner.epoch.load(Ordering::SeqCst)
    }

    /// Starts a new epoch and returns it; everything unlinked before this call is retired at
    /// the returned epoch.
    pub fn advance(&self) -> u64 {
        self.inner.epoch.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The largest epoch `g` such that every online reader has passed a quiescent point at or
    /// after `g`; objects retired at epochs `<= safe_epoch()` may be reused. With no online
    /// reader it is the current epoch.
    pub fn safe_epoch(&self) -> u64 {
        let now = self.inner.epoch.load(Ordering::SeqCst);
        let mut regs = self.registry();
        regs.retain(|r| !r.dead.load(Ordering::Acquire));
        regs.iter()
            .map(|r| r.epoch.load(Ordering::SeqCst))
            .fold(now, u64::min)
    }

    /// Number of registered (live) readers.
    pub fn readers(&self) -> usize {
        let mut regs = self.registry();
        regs.retain(|r| !r.dead.load(Ordering::Acquire));
        regs.len()
    }

    /// Waits until every reader online now has passed a quiescent point (or gone offline).
    /// Blocks for as long as an online reader does not call `quiescent`; see the module docs.
    pub fn synchronize(&self) {
        let target = self.advance();
        while self.safe_epoch() < target {
            std::thread::yield_now();
        }
    }
}

/// A reader's registration. `Send` (move it into its worker thread) but not `Sync`: one thread
/// owns each epoch word.
#[derive(Debug)]
pub struct QsbrReader {
    slot: Arc<ReaderEpoch>,
    qsbr: Qsbr,
    _not_sync: PhantomData<Cell<()>>,
}

impl QsbrReader {
    /// Announces that this reader holds no reference obtained before this call.
    #[inline]
    pub fn quiescent(&mut self) {
        let e = self.qsbr.inner.epoch.load(Ordering::SeqCst);
        self.slot.epoch.store(e, Ordering::SeqCst);
    }

    /// Leaves the read side: the writer no longer waits for this reader.
    pub fn offline(&mut self) {
        self.slot.epoch.store(OFFLINE, Ordering::SeqCst);
    }

    /// Re-enters the read side after [`QsbrReader::offline`].
    pub fn online(&mut self) {
        let e = self.qsbr.inner.epoch.load(Ordering::SeqCst);
        self.slot.epoch.store(e, Ordering::SeqCst);
        fence(Ordering::SeqCst);
    }

    /// True unless the reader is offline.
    pub fn is_online(&self) -> bool {
        self.slot.epoch.load(Ordering::Relaxed) != OFFLINE
    }
}

impl Drop for QsbrReader {
    fn drop(&mut self) {
        self.slot.epoch.store(OFFLINE, Ordering::SeqCst);
        self.slot.dead.store(true, Ordering::Release);
    }
}

/// The writer's list of retired objects, each tagged with its retirement epoch (in order).
#[derive(Debug)]
pub struct Limbo<T> {
    items: std::collections::VecDeque<(u64, T)>,
}

impl<T> Default for Limbo<T> {
    fn default() -> Self {
        Self {
            items: std::collections::VecDeque::new(),
        }
    }
}

impl<T> Limbo<T> {
    /// Retires `item`, which the caller has already made unreachable for new readers.
    pub fn retire(&mut self, qsbr: &Qsbr, item: T) {
        let g = qsbr.advance();
        self.items.push_back((g, item));
    }

    /// Hands every object that no reader can still reference to `reuse`; returns how many.
    pub fn collect(&mut self, qsbr: &Qsbr, mut reuse: impl FnMut(T)) -> usize {
        if self.items.is_empty() {
            return 0;
        }
        let safe = qsbr.safe_epoch();
        let mut n = 0;
        while self.items.front().is_some_and(|(g, _)| *g <= safe) {
            if let Some((_, item)) = self.items.pop_front() {
                reuse(item);
                n += 1;
            }
        }
        n
    }

    /// Objects waiting for a grace period.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_holds_back_until_quiescent() {
        let q = Qsbr::new();
        let mut r = q.register();
        let mut limbo = Limbo::default();
        limbo.retire(&q, 7u32);
        let mut got = Vec::new();
        assert_eq!(
            limbo.collect(&q, |x| got.push(x)),
            0,
            "reader has not passed a QS"
        );
        r.quiescent();
        assert_eq!(limbo.collect(&q, |x| got.push(x)), 1);
        assert_eq!(got, vec![7]);
    }

    #[test]
    fn offline_reader_does_not_block_and_online_does() {
        let q = Qsbr::new();
        let mut r = q.register();
        r.offline();
        assert!(!r.is_online());
        let mut limbo = Limbo::default();
        limbo.retire(&q, 1u8);
        assert_eq!(limbo.collect(&q, drop), 1);
        r.online();
        limbo.retire(&q, 2u8);
        assert_eq!(limbo.collect(&q, drop), 0);
        drop(r);
        assert_eq!(limbo.collect(&q, drop), 1, "dropped reader is unregistered");
        assert_eq!(q.readers(), 0);
    }

    #[test]
    fn synchronize_waits_for_other_thread() {
        let q = Qsbr::new();
        let mut r = q.register();
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let t = std::thread::spawn(move || {
            while !s2.load(Ordering::Relaxed) {
                r.quiescent();
                std::thread::yield_now();
            }
        });
        q.synchronize();
        q.synchronize();
        stop.store(true, Ordering::Relaxed);
        t.join().unwrap();
    }

    #[test]
    fn items_reclaimed_in_order_only_up_to_safe_epoch() {
        let q = Qsbr::new();
        let mut a = q.register();
        let mut limbo = Limbo::default();
        limbo.retire(&q, 'a');
        a.quiescent();
        limbo.retire(&q, 'b');
        let mut got = Vec::new();
        limbo.collect(&q, |x| got.push(x));
        assert_eq!(got, vec!['a']);
        assert_eq!(limbo.len(), 1);
    }
}
