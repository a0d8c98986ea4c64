//! Writer-side primitives on the shared state: entries, slots, records, nexthop sets and
//! deferred reclamation. Used by the name-level [`crate::FibWriter`] and by the bulk loader.
//!
//! Ordering discipline (see `entry.rs` for the entry rules): a new entry is fully written before
//! the first slot pointing to it is inserted (the table publishes slots with Release); a slot is
//! removed before the entry part it pointed to is invalidated; an entry or nexthop set becomes
//! reusable only through [`Limbo`] after a grace period.

use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::sync::Arc;

use ndn_packet::Name;
use ndnfwd_table::{BucketTable, TableWriter};

use crate::entry::{Entry, RecKind};
use crate::lpm::{LpmConfig, Published};
use crate::nexthop::{canonical, FwdInterner, NextHop, StrategyId};
use crate::qsbr::{Limbo, Qsbr};
use crate::reader::{bump, Counters, Shared, ROOT_VALID};
use crate::store::{Entries, Segmented, PAGE_SLOT_BITS};
use crate::FibError;

/// Where a record lives: entry index and record position (0 or 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Host {
    pub entry: u32,
    pub pos: u8,
}

/// Something waiting for a grace period.
#[derive(Debug)]
pub(crate) enum Garbage {
    Entry(u32),
    Set(u32),
    /// An auxiliary record the previous LPM configuration needed; removed after the grace
    /// period unless the configuration needs it again by then.
    Aux(Name, RecKind),
}

/// Runs `f`, a change of bucket slots or of the configuration word, with the write generation
/// `gen` odd (the seqlock write side; readers use it in `spec.rs`). Single writer.
fn write<R>(gen: &AtomicU64, f: impl FnOnce() -> R) -> R {
    gen.store(
        gen.load(Ordering::Relaxed).wrapping_add(1),
        Ordering::Relaxed,
    );
    // Orders the odd store before the slot stores of `f`.
    fence(Ordering::Release);
    let r = f();
    gen.store(
        gen.load(Ordering::Relaxed).wrapping_add(1),
        Ordering::Release,
    );
    r
}

/// Sizing of a new FIB.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sizing {
    pub slots: usize,
    /// `slots` is exact and final (bulk load): size the overflow pool at 1.15 x its expectation
    /// instead of the table's default 2 x (no churn to absorb; at 10^8 slots the spread is tiny).
    pub exact: bool,
    pub load_factor: usize,
    pub max_entries: u64,
    pub max_sets: u64,
    /// Entries expected in the pages of their prefixes' home buckets (one per real prefix),
    /// which sizes the pages' split between home buckets and entries ([`Entries`]).
    pub colocated: u64,
}

/// Home buckets a page holds when `per_bucket` entries are expected in its payload for each:
/// the most whose payload holds their expectation plus one standard deviation (Poisson), so
/// that about 1 % of entries spill at 4 a bucket.
fn home_per_page(per_bucket: f64) -> usize {
    let lines = 4096 / ndnfwd_table::BUCKET_BYTES;
    let fits = |l: usize| {
        let slots = ((lines - l) * ndnfwd_table::BUCKET_BYTES / size_of::<Entry>())
            .min(1 << PAGE_SLOT_BITS);
        let mean = l as f64 * per_bucket;
        slots as f64 >= mean + mean.sqrt()
    };
    (2..lines).rev().find(|&l| fits(l)).unwrap_or(2)
}

pub(crate) struct Core {
    pub shared: Arc<Shared>,
    tw: TableWriter,
    /// Free spill entries (ids from `Entries::paged` on) that were used before.
    free_entries: Vec<u32>,
    /// Spill entries `0..next_entry` have been handed out at least once.
    next_entry: u32,
    /// Free slots of each page of the table: bit `s` of `page_free[p]` <=> entry
    /// `p << PAGE_SLOT_BITS | s` is free.
    page_free: Vec<u128>,
    pub fwd: FwdInterner,
    limbo: Limbo<Garbage>,
    /// An entry with record position 1 never used yet (closed when it empties).
    open_aux: Option<u32>,
}

impl Core {
    pub(crate) fn new(size: Sizing, lpm: LpmConfig, d: u8) -> Result<Self, FibError> {
        // Same home count and pool as `BucketTable::try_with_capacity`, except that an exact
        // (bulk) sizing derives the pool from the table's own estimate, `2 x expectation +
        // home / 16 + 64`, at 1.15 x the expectation.
        let lf = match size.load_factor {
            0 => ndnfwd_table::DEFAULT_LOAD_FACTOR,
            n => n.min(ndnfwd_table::MAX_LOAD_FACTOR),
        };
        let slots = size.slots.max(1);
        let home = slots.div_ceil(lf).next_power_of_two();
        let default = ndnfwd_table::default_overflow_buckets(slots, home);
        let pool = if size.exact {
            let expected = default.saturating_sub(home / 16 + 64) / 2;
            expected + expected * 3 / 20 + home / 64 + 64
        } else {
            default
        };
        let per_page = home_per_page(size.colocated as f64 / home as f64);
        let table =
            BucketTable::try_with_pages(home, pool, per_page).map_err(|_| FibError::OutOfMemory)?;
        let tw = table.take_writer().ok_or(FibError::OutOfMemory)?;
        let config = Published {
            algorithm: lpm.algorithm,
            m: lpm.m,
            d,
            k: 0,
        };
        let pages = table.pages();
        let page_slots = table
            .page_payload::<Entry>(0)
            .len()
            .min(1 << PAGE_SLOT_BITS);
        let page_free = u128::MAX.checked_shr(128 - page_slots as u32).unwrap_or(0);
        let paged = u32::try_from(pages << PAGE_SLOT_BITS).map_err(|_| FibError::OutOfMemory)?;
        let shared = Arc::new(Shared {
            table,
            entries: Entries {
                paged,
                spill: Segmented::with_capacity(size.max_entries),
            },
            sets: Segmented::with_capacity(size.max_sets),
            config: config.pack().into(),
            root: 0.into(),
            gen: 0.into(),
            qsbr: Qsbr::new(),
            counters: Counters::default(),
        });
        Ok(Self {
            shared,
            tw,
            free_entries: Vec::new(),
            next_entry: 0,
            page_free: vec![page_free; pages],
            fwd: FwdInterner::new(),
            limbo: Limbo::default(),
            open_aux: None,
        })
    }

    pub(crate) fn entry(&self, i: u32) -> Option<&Entry> {
        self.shared.entry(i)
    }

    pub(crate) fn published(&self) -> Published {
        Published::unpack(self.shared.config.load(Ordering::Relaxed))
    }

    pub(crate) fn publish_config(&self, p: Published) {
        let s = &self.shared;
        write(&s.gen, || s.config.store(p.pack(), Ordering::Release));
    }

    /// Interns a nexthop set (taking a reference).
    pub(crate) fn acquire_fwd(
        &mut self,
        strategy: StrategyId,
        hops: &[NextHop],
    ) -> Result<u32, FibError> {
        let (hops, dropped) = canonical(hops);
        bump(&self.shared.counters.nexthops_dropped, dropped as i64);
        let before = self.fwd.live();
        let i = self
            .fwd
            .acquire(&self.shared.sets, strategy, hops)
            .map_err(|_| FibError::SetsFull)?;
        bump(
            &self.shared.counters.sets,
            (self.fwd.live() - before) as i64,
        );
        Ok(i)
    }

    /// Drops a reference on a nexthop set; an unused set is retired.
    pub(crate) fn release_fwd(&mut self, i: u32) {
        if self.fwd.release(&self.shared.sets, i) {
            bump(&self.shared.counters.sets, -1);
            self.limbo.retire(&self.shared.qsbr, Garbage::Set(i));
        }
    }

    /// [`Core::alloc_entry`] in the page of the home bucket of `h1` when that page has a free
    /// slot (a paged table, [`Entries`]).
    pub(crate) fn alloc_entry_near(
        &mut self,
        h1: u64,
        real: Option<(u64, u32, u8)>,
    ) -> Result<u32, FibError> {
        let page = self.shared.table.home_page(h1);
        match self.page_free.get_mut(page) {
            Some(free) if *free != 0 => {
                let i = (page << PAGE_SLOT_BITS) as u32 | free.trailing_zeros();
                *free &= *free - 1;
                self.init_entry(i, real)
            }
            _ => self.alloc_entry(real),
        }
    }

    /// A fresh, unreachable entry with an optional real part `(h2, fwd, real_md)`, outside
    /// the pages (for a record host, or a prefix whose page is full).
    pub(crate) fn alloc_entry(&mut self, real: Option<(u64, u32, u8)>) -> Result<u32, FibError> {
        let i = match self.free_entries.pop() {
            Some(i) => i,
            None => {
                let i = self.next_entry;
                let id = self.shared.entries.paged.checked_add(i);
                let id = id.filter(|_| u64::from(i) < self.shared.entries.spill.capacity());
                let id = id.ok_or(FibError::EntriesFull)?;
                self.next_entry += 1;
                id
            }
        };
        self.init_entry(i, real)
    }

    fn init_entry(&mut self, i: u32, real: Option<(u64, u32, u8)>) -> Result<u32, FibError> {
        let Some(e) = self.shared.entry_or_grow(i) else {
            self.free_entry(i);
            return Err(FibError::EntriesFull);
        };
        e.init(real);
        bump(&self.shared.counters.entries, 1);
        if real.is_some() {
            bump(&self.shared.counters.reals, 1);
        }
        Ok(i)
    }

    /// Makes entry `i` free for reuse: a page slot goes back to its page.
    fn free_entry(&mut self, i: u32) {
        let page = (i >> PAGE_SLOT_BITS) as usize;
        match self.page_free.get_mut(page) {
            Some(free) if i < self.shared.entries.paged => {
                *free |= 1 << (i & ((1 << PAGE_SLOT_BITS) - 1));
            }
            _ => self.free_entries.push(i),
        }
    }

    /// Writes record `pos` of an entry the writer is still building (or the open aux entry).
    pub(crate) fn fill_record(&self, host: Host, kind: RecKind, h2: u64, value: u8) {
        if let Some(e) = self.entry(host.entry) {
            e.set_record(host.pos, kind, h2, value);
            bump(self.kind_counter(kind), 1);
        }
    }

    fn kind_counter(&self, kind: RecKind) -> &std::sync::atomic::AtomicU64 {
        match kind {
            RecKind::Marker => &self.shared.counters.markers,
            RecKind::Virtual => &self.shared.counters.virtuals,
        }
    }

    /// Makes the prefix with table hash `h1` resolve to entry `i`.
    pub(crate) fn publish(&mut self, h1: u64, i: u32) -> Result<(), FibError> {
        let s = &self.shared;
        write(&s.gen, || s.table.insert(&mut self.tw, h1, i)).map_err(|_| FibError::TableFull)
    }

    /// Publishes the root prefix's entry (or withdraws it).
    pub(crate) fn set_root(&self, entry: Option<u32>) {
        let w = entry.map_or(0, |i| ROOT_VALID | u64::from(i));
        self.shared.root.store(w, Ordering::Release);
    }

    /// Adds a record in a shared aux entry and publishes its slot.
    pub(crate) fn add_record(
        &mut self,
        h1: u64,
        h2: u64,
        kind: RecKind,
        value: u8,
    ) -> Result<Host, FibError> {
        let host = match self.open_aux.take() {
            Some(entry) => Host { entry, pos: 1 },
            None => {
                let entry = self.alloc_entry(None)?;
                self.open_aux = Some(entry);
                Host { entry, pos: 0 }
            }
        };
        self.fill_record(host, kind, h2, value);
        if let Err(e) = self.publish(h1, host.entry) {
            self.drop_record(host);
            bump(self.kind_counter(kind), -1);
            return Err(e);
        }
        Ok(host)
    }

    /// Removes a record's slot, then invalidates it.
    pub(crate) fn remove_record(&mut self, host: Host, h1: u64, kind: RecKind) {
        let s = &self.shared;
        write(&s.gen, || s.table.remove(&mut self.tw, h1, host.entry));
        self.drop_record(host);
        bump(self.kind_counter(kind), -1);
    }

    fn drop_record(&mut self, host: Host) {
        if let Some(e) = self.entry(host.entry) {
            e.clear_record(host.pos);
        }
        self.maybe_retire(host.entry);
    }

    /// Removes a real prefix's slot (none for the root), invalidates its real part and
    /// releases its set.
    pub(crate) fn remove_real(&mut self, entry: u32, h1: Option<u64>) {
        if let Some(h1) = h1 {
            let s = &self.shared;
            write(&s.gen, || s.table.remove(&mut self.tw, h1, entry));
        }
        let fwd = self.entry(entry).map(|e| {
            e.clear_real();
            e.fwd()
        });
        if let Some(fwd) = fwd {
            self.release_fwd(fwd);
            bump(&self.shared.counters.reals, -1);
        }
        self.maybe_retire(entry);
    }

    fn maybe_retire(&mut self, entry: u32) {
        let empty = self.entry(entry).is_some_and(Entry::is_empty);
        if empty {
            if self.open_aux == Some(entry) {
                self.open_aux = None;
            }
            bump(&self.shared.counters.entries, -1);
            self.limbo.retire(&self.shared.qsbr, Garbage::Entry(entry));
        }
    }

    /// Retires a deferred auxiliary-record removal.
    pub(crate) fn defer_aux(&mut self, name: Name, kind: RecKind) {
        self.limbo
            .retire(&self.shared.qsbr, Garbage::Aux(name, kind));
    }

    /// Reuses everything whose grace period has passed; returns how many objects that was and
    /// the aux removals due, for the name-level writer to re-check.
    pub(crate) fn reclaim(&mut self) -> (usize, Vec<(Name, RecKind)>) {
        let mut done = Vec::new();
        let n = self.limbo.collect(&self.shared.qsbr, |g| done.push(g));
        let mut aux = Vec::new();
        for g in done {
            match g {
                Garbage::Entry(i) => {
                    self.free_entry(i);
                    bump(&self.shared.counters.reclaimed_entries, 1);
                }
                Garbage::Set(i) => self.fwd.reuse(i),
                Garbage::Aux(name, kind) => aux.push((name, kind)),
            }
        }
        (n, aux)
    }

    /// Objects still waiting for a grace period.
    pub(crate) fn pending(&self) -> usize {
        self.limbo.len()
    }

    /// Free overflow buckets left in the table: a guard taken before multi-slot updates.
    pub(crate) fn overflow_room(&self) -> usize {
        let t = &self.shared.table;
        t.overflow_capacity().saturating_sub(t.overflow_in_use())
    }
}
