//! `BucketTable`: hash -> u32 index multimap in 64-byte buckets, one writer, lock-free readers.
//!
//! # Concurrency protocol
//! Readers (`lookup`, `lookup_probes`, `candidates`) take `&self` and never block or write.
//! The one writer holds the table's [`TableWriter`] and calls `insert` / `remove` with it.
//!
//! - insert: the slot word (fingerprint and index together) is published with ONE `Release`
//!   store, so a reader sees either 0 or the whole pair. A new overflow bucket is fully written
//!   before the `Release` store of the link that makes it reachable.
//! - remove: the slot is cleared with one store. An overflow bucket left empty is unlinked
//!   (`prev.next = bucket.next`), then the home bucket's chain version is bumped, and only then
//!   is the bucket put on the free list (its `next` becomes the free-list link).
//! - lookup: reads the home chain version (acquire), walks at most `1 + overflow pool` buckets,
//!   and on a miss re-reads the version: if it changed, an overflow bucket it may have been
//!   standing in was recycled, so it walks again (at most [`MAX_RETRIES`] extra walks). Hence a
//!   key that stays in the table is always found, even while other keys come and go.
//!
//! Entries are never moved, so a lookup can return an index whose slot is being removed at that
//! very moment. Reclaiming what lies behind an index is the caller's job once readers have
//! quiesced (the FIB does QSBR); the PIT-CS has a single thread and frees at once.

use core::sync::atomic::{fence, AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use crate::bucket::{
    encode, fingerprint, slot_fp, slot_index, Bucket, SlotRef, BUCKET_BYTES, OCC_MASK, SLOTS,
    VERSION_ONE,
};
use crate::raw::mem::{lines_as, MaskedSlice, ZeroValid, ZeroedSlice};
use crate::raw::prefetch::prefetch_read;
use crate::raw::scan::fp_match_bits;
use crate::AllocError;

/// Entries per home bucket used when the caller has no better idea (seed 000 §4.2, seed 001 §3.2).
pub const DEFAULT_LOAD_FACTOR: usize = 4;
/// Largest accepted load factor; larger requests are clamped.
pub const MAX_LOAD_FACTOR: usize = 64;
/// Extra walks a missing lookup makes when the writer recycles overflow buckets of its chain
/// during the walk. Exceeding it (a reported miss for a present key) needs that many unlinks
/// in the same chain within one walk each, i.e. a writer far faster than any real control plane.
pub const MAX_RETRIES: u32 = 16;
/// Bucket lines in a 4 KiB page (a paged table's unit, [`BucketTable::try_with_pages`]).
const PAGE_LINES: usize = 4096 / BUCKET_BYTES;

/// `insert` found no free slot in the chain and the overflow pool is exhausted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableFull;

impl core::fmt::Display for TableFull {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("bucket table full: overflow pool exhausted")
    }
}

impl std::error::Error for TableFull {}

static NEXT_TABLE_ID: AtomicU64 = AtomicU64::new(1);

/// A hash's home bucket and fingerprint in one table ([`BucketTable::place`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    home: u32,
    fp: u32,
}

impl Place {
    /// The home bucket's number (`0..bucket_count()`), for a caller that keeps per-bucket
    /// state beside the table (the retired slots of [`BucketTable::insert_at_clearing`]).
    #[inline(always)]
    pub fn home(self) -> usize {
        self.home as usize
    }
}

/// Keeps [`Layout`] to this crate's two layouts: the table's hot paths trust `FLAT` and `line`.
mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Flat {}
    impl Sealed for super::Paged {}
}

/// Where a [`BucketTable`]'s home buckets sit in its mapping: [`Flat`] or [`Paged`] (sealed).
pub trait Layout: Send + Sync + core::fmt::Debug + sealed::Sealed {
    /// Home bucket `b` is line `b` (known at compile time: no arithmetic on the hot paths).
    const FLAT: bool;
    /// The line of home bucket `b`.
    fn line(&self, b: usize) -> usize;
}

/// Home bucket `b` is line `b`; the overflow pool follows the home buckets.
#[derive(Debug, Clone, Copy)]
pub struct Flat;

impl Layout for Flat {
    const FLAT: bool = true;

    #[inline(always)]
    fn line(&self, b: usize) -> usize {
        b
    }
}

/// Home buckets in 4 KiB pages of 64 lines, `64 - gap` of them a page, each page ending in
/// `gap` lines of the caller's payload ([`BucketTable::try_with_pages`]).
#[derive(Debug, Clone, Copy)]
pub struct Paged {
    /// Payload lines a page.
    gap: usize,
    /// `ceil(2^64 / home buckets a page)`: the page of home bucket `b` is `mulhi(b, recip)`,
    /// exact for every `b < 2^32`, one multiply instead of a division.
    recip: u64,
    /// Pages.
    pages: usize,
}

impl Paged {
    /// The page of home bucket `b`.
    #[inline(always)]
    fn page(&self, b: usize) -> usize {
        ((b as u128 * u128::from(self.recip)) >> 64) as usize
    }
}

impl Layout for Paged {
    const FLAT: bool = false;

    /// Line `b % per_page` of page `b / per_page`: `b + page(b) * gap`.
    #[inline(always)]
    fn line(&self, b: usize) -> usize {
        b + self.page(b) * self.gap
    }
}

/// Cache-line bucket hash table mapping caller-computed 64-bit hashes to `u32` entry indices.
///
/// Bucket numbers `0..bucket_count()` are home buckets; the overflow pool follows them in the
/// same mapping. A paged table ([`BucketTable::try_with_pages`]) lays its home buckets out in
/// 4 KiB pages, each ending in lines of the caller's payload, so that a value the caller reads
/// after a home bucket can share its page, hence its TLB entry (the layout is the type's
/// parameter, so a flat table's hot paths stay as they were). `Send + Sync`: share it (e.g. in
/// an `Arc`) with reader threads.
pub struct BucketTable<L: Layout = Flat> {
    /// Home buckets (in pages, when paged) then the overflow pool; the mask picks a home
    /// bucket.
    buckets: MaskedSlice<Bucket>,
    home: u32,
    pool: u32,
    /// Where home bucket `b` is.
    layout: L,
    /// Line of overflow bucket 0: bucket numbers of the pool are `pool_line..pool_line + pool`.
    pool_line: u32,
    len: AtomicUsize,
    overflow_used: AtomicU32,
    id: u64,
    writer_taken: AtomicBool,
}

/// The right to modify one [`BucketTable`]: obtained once with [`BucketTable::take_writer`],
/// not `Clone`, passed as `&mut` to `insert` / `remove`. It also holds the writer-private
/// overflow free-list head, so a table has exactly one writer by construction.
#[derive(Debug)]
pub struct TableWriter {
    table_id: u64,
    /// Head of the free overflow buckets (linked through their `next`), 0 = empty.
    free_head: u32,
    /// Overflow buckets `0..bump` of the pool have been handed out at least once.
    bump: u32,
}

/// Expected number of overflow buckets for `entries` spread over `home` buckets, times 2 for
/// variance and churn, plus `home / 16 + 64` (see [`BucketTable::with_capacity`]).
pub fn default_overflow_buckets(entries: usize, home: usize) -> usize {
    let home = home.max(1);
    let lambda = entries as f64 / home as f64;
    // E[ceil(max(0, X - 7) / 7)] for bucket occupancy X ~ Poisson(lambda), summed in log space.
    let mut expect = 0.0;
    if lambda > 0.0 {
        let kmax = (lambda + 12.0 * lambda.sqrt() + 40.0) as usize;
        let mut log_p = -lambda;
        for k in 0..=kmax {
            if k > SLOTS {
                expect += log_p.exp() * (k - SLOTS).div_ceil(SLOTS) as f64;
            }
            log_p += lambda.ln() - ((k + 1) as f64).ln();
        }
    }
    (2.0 * expect * home as f64).ceil() as usize + home / 16 + 64
}

impl BucketTable<Flat> {
    /// Sizes the table for `entries` at `load_factor` entries per home bucket (0 means
    /// [`DEFAULT_LOAD_FACTOR`], clamped to [`MAX_LOAD_FACTOR`]).
    ///
    /// Home buckets: `next_power_of_two(ceil(entries / load_factor))`. Overflow pool:
    /// [`default_overflow_buckets`] = twice the Poisson expectation of overflow buckets at the
    /// resulting load, plus `home / 16 + 64` (about 0.17 x home at load 4, 1.2 x home at load 8).
    /// Panics if the memory cannot be mapped; see [`BucketTable::try_with_capacity`].
    pub fn with_capacity(entries: usize, load_factor: usize) -> Self {
        match Self::try_with_capacity(entries, load_factor) {
            Ok(t) => t,
            Err(e) => panic!("ndnfwd-table: cannot map bucket table: {e}"),
        }
    }

    /// Like [`BucketTable::with_capacity`] but reports a mapping failure.
    pub fn try_with_capacity(entries: usize, load_factor: usize) -> Result<Self, AllocError> {
        let lf = match load_factor {
            0 => DEFAULT_LOAD_FACTOR,
            n => n.min(MAX_LOAD_FACTOR),
        };
        let home = entries.div_ceil(lf).max(1).checked_next_power_of_two();
        let home = home.ok_or(AllocError { bytes: usize::MAX })?;
        Self::try_with_buckets(home, default_overflow_buckets(entries, home))
    }

    /// Exact layout: `home_buckets` (rounded up to a power of two, at least 1) and an overflow
    /// pool of `overflow_buckets`. The total must fit in `u32` bucket numbers.
    pub fn try_with_buckets(
        home_buckets: usize,
        overflow_buckets: usize,
    ) -> Result<Self, AllocError> {
        let home = home_count(home_buckets)?;
        Self::try_with_layout(home, overflow_buckets, Flat, home)
    }
}

impl BucketTable<Paged> {
    /// [`BucketTable::try_with_buckets`] in 4 KiB pages that each hold `home_per_page` home
    /// buckets (`2..=63`, clamped) followed by `64 - home_per_page` lines of payload the table
    /// never touches: the caller's, [`BucketTable::page_payload`], for values it wants in the
    /// same page (the same TLB entry) as the home buckets of their hashes. The overflow pool
    /// follows the pages.
    pub fn try_with_pages(
        home_buckets: usize,
        overflow_buckets: usize,
        home_per_page: usize,
    ) -> Result<Self, AllocError> {
        let home = home_count(home_buckets)?;
        // At least 2, so that `recip` fits in 64 bits.
        let per_page = home_per_page.clamp(2, PAGE_LINES - 1);
        let layout = Paged {
            gap: PAGE_LINES - per_page,
            recip: u64::MAX / per_page as u64 + 1,
            pages: home.div_ceil(per_page),
        };
        Self::try_with_layout(home, overflow_buckets, layout, layout.pages * PAGE_LINES)
    }

    /// Pages.
    pub fn pages(&self) -> usize {
        self.layout.pages
    }

    /// The page holding the home bucket of `hash`.
    #[inline(always)]
    pub fn home_page(&self, hash: u64) -> usize {
        self.layout.page(self.home_index(hash))
    }

    /// The payload of page `page` (its lines after the home buckets) as values of `T`, as many
    /// as fit; empty beyond the pages. Zero until the caller writes them; the table never
    /// reads or writes these lines.
    #[inline(always)]
    pub fn page_payload<T: ZeroValid>(&self, page: usize) -> &[T] {
        let start = page * PAGE_LINES + PAGE_LINES - self.layout.gap;
        match self.buckets.get(start..start + self.layout.gap) {
            Some(lines) if page < self.layout.pages => lines_as(lines),
            _ => &[],
        }
    }

    /// Bytes of page payload (the caller's, [`BucketTable::page_payload`]).
    pub fn payload_bytes(&self) -> usize {
        self.layout.pages * self.layout.gap * BUCKET_BYTES
    }
}

/// `home_buckets` rounded up to a power of two, at least 1.
fn home_count(home_buckets: usize) -> Result<usize, AllocError> {
    home_buckets
        .max(1)
        .checked_next_power_of_two()
        .ok_or(AllocError { bytes: usize::MAX })
}

impl<L: Layout> BucketTable<L> {
    /// `home` home buckets (a power of two) laid out by `layout` in `home_lines` lines, then a
    /// pool of `pool` overflow buckets.
    fn try_with_layout(
        home: usize,
        pool: usize,
        layout: L,
        home_lines: usize,
    ) -> Result<Self, AllocError> {
        let too_big = AllocError { bytes: usize::MAX };
        let total = home_lines.checked_add(pool).ok_or(too_big)?;
        if u32::try_from(total).is_err() {
            return Err(AllocError {
                bytes: total.saturating_mul(BUCKET_BYTES),
            });
        }
        let buckets = MaskedSlice::new(ZeroedSlice::new(total)?, home - 1).ok_or(too_big)?;
        Ok(Self {
            buckets,
            home: home as u32,
            pool: pool as u32,
            layout,
            pool_line: home_lines as u32,
            len: AtomicUsize::new(0),
            overflow_used: AtomicU32::new(0),
            id: NEXT_TABLE_ID.fetch_add(1, Ordering::Relaxed),
            writer_taken: AtomicBool::new(false),
        })
    }

    /// Hands out the table's only [`TableWriter`]; `None` if it was already taken.
    pub fn take_writer(&self) -> Option<TableWriter> {
        if self.writer_taken.swap(true, Ordering::AcqRel) {
            return None;
        }
        Some(TableWriter {
            table_id: self.id,
            free_head: 0,
            bump: 0,
        })
    }

    #[inline(always)]
    fn home_index(&self, hash: u64) -> usize {
        hash as usize & self.buckets.mask()
    }

    /// The line of home bucket `b`.
    #[inline(always)]
    fn home_line(&self, b: usize) -> usize {
        self.layout.line(b)
    }

    #[inline(always)]
    fn home_bucket(&self, hash: u64) -> &Bucket {
        if L::FLAT {
            self.buckets.at_masked(hash as usize)
        } else {
            &self.buckets[self.home_line(self.home_index(hash))]
        }
    }

    /// Prefetches the home bucket of `hash` (one cache line); see [`crate::prefetch_read`].
    #[inline(always)]
    pub fn prefetch(&self, hash: u64) {
        let line = self.home_line(self.home_index(hash));
        prefetch_read(self.buckets.as_ptr().wrapping_add(line));
    }

    /// Finds an index whose fingerprint matches `hash` and for which `eq(index)` is true.
    ///
    /// `eq` is the caller's confirmation (compare the full name or hash of the entry behind the
    /// index); it is called only for fingerprint matches, in chain order. Lock-free; may run
    /// concurrently with the writer (see the module docs for what a reader can observe).
    #[inline]
    pub fn lookup(&self, hash: u64, eq: impl FnMut(u32) -> bool) -> Option<u32> {
        self.lookup_probes(hash, eq).0
    }

    /// [`BucketTable::lookup`] that also returns the number of buckets (cache lines) visited.
    #[inline]
    pub fn lookup_probes(&self, hash: u64, eq: impl FnMut(u32) -> bool) -> (Option<u32>, u32) {
        self.walk(hash, eq)
    }

    /// [`BucketTable::lookup`] by the table's writer: one walk of the chain, without the
    /// chain-version re-validation of a miss. Holding `&TableWriter` means no `insert` or
    /// `remove` (both take `&mut TableWriter`) can run during the walk, so the first walk's
    /// answer is final; the same result as `lookup`, with `eq` offered the same candidates in
    /// the same order. For a single-threaded owner (the PIT-CS) that looks up and then inserts
    /// or removes. Panics if `w` belongs to another table. Always inlined: its one caller per
    /// Interest would otherwise pay a call's prologue and epilogue.
    #[inline(always)]
    pub fn lookup_writer(
        &self,
        w: &TableWriter,
        hash: u64,
        mut eq: impl FnMut(u32) -> bool,
    ) -> Option<u32> {
        self.check_writer(w);
        let fp = fingerprint(hash);
        let mut bucket = self.home_bucket(hash);
        // At most `1 + pool` buckets, as in `walk`.
        for _ in 0..=self.pool {
            if let Some(i) = scan(bucket, fp, &mut eq) {
                return Some(i);
            }
            match bucket.next.load(Ordering::Relaxed) {
                0 => return None,
                next => bucket = self.buckets.get(next as usize)?,
            }
        }
        None
    }

    /// The lookup walk.
    #[inline(always)]
    fn walk(&self, hash: u64, mut eq: impl FnMut(u32) -> bool) -> (Option<u32>, u32) {
        let fp = fingerprint(hash);
        let home = self.home_bucket(hash);
        let mut probes = 0u32;
        for _ in 0..=MAX_RETRIES {
            let version = home.meta.load(Ordering::Acquire) & !OCC_MASK;
            let mut bucket = home;
            let mut walked = 0u32;
            loop {
                probes += 1;
                if let Some(i) = scan(bucket, fp, &mut eq) {
                    return (Some(i), probes);
                }
                let next = bucket.next.load(Ordering::Acquire);
                walked += 1;
                if next == 0 || walked > self.pool {
                    break;
                }
                match self.buckets.get(next as usize) {
                    Some(b) => bucket = b,
                    None => break,
                }
            }
            // Seqlock-style validation: order the loads above before re-reading the version.
            fence(Ordering::Acquire);
            if home.meta.load(Ordering::Relaxed) & !OCC_MASK == version {
                break;
            }
        }
        (None, probes)
    }

    /// Calls `f` with every index in the home chain of `hash` whose fingerprint matches, for
    /// speculative prefetch of entries (seed 002's Speculative HT Lookup). Under concurrent
    /// writes it is a hint only: it does not re-validate, may miss entries and may offer the
    /// index of a slot rewritten after its fingerprint was compared.
    #[inline]
    pub fn candidates(&self, hash: u64, mut f: impl FnMut(u32)) {
        let fp = fingerprint(hash);
        let mut bucket = self.home_bucket(hash);
        // At most `1 + pool` buckets, as in `walk` (a plain count: no range iterator state).
        let mut left = self.pool;
        loop {
            bucket_candidates(bucket, fp, &mut f);
            let next = bucket.next.load(Ordering::Acquire);
            if next == 0 || left == 0 {
                return;
            }
            left -= 1;
            match self.buckets.get(next as usize) {
                Some(b) => bucket = b,
                None => return,
            }
        }
    }

    /// [`BucketTable::candidates`] of the home bucket only: calls `f` with the index behind
    /// each fingerprint match of the home bucket of `hash`, in slot order, and, when the home
    /// chain goes on, prefetches its first overflow bucket (without reading it) and returns
    /// true. For a speculative scan that would otherwise follow the chain with a demand load
    /// of a line it has not fetched: its caller scans the whole chain
    /// ([`BucketTable::candidates`]) a step later, once that bucket is in cache. A hint only,
    /// as `candidates`.
    #[inline(always)]
    pub fn home_candidates(&self, hash: u64, mut f: impl FnMut(u32)) -> bool {
        let bucket = self.home_bucket(hash);
        bucket_candidates(bucket, fingerprint(hash), &mut f);
        let next = bucket.next.load(Ordering::Acquire);
        match self.buckets.get(next as usize) {
            Some(b) if next != 0 => {
                prefetch_read(core::ptr::from_ref(b));
                true
            }
            _ => false,
        }
    }

    fn check_writer(&self, w: &TableWriter) {
        assert_eq!(
            w.table_id, self.id,
            "TableWriter belongs to another BucketTable"
        );
    }

    fn add_len(&self, delta: isize) {
        // Single writer: a plain load/store pair, no read-modify-write needed.
        let n = self.len.load(Ordering::Relaxed);
        self.len
            .store(n.wrapping_add_signed(delta), Ordering::Relaxed);
    }

    /// Adds `(hash, index)`. Takes the first free slot of the home chain, chaining a bucket from
    /// the overflow pool when the chain is full. Duplicates are not detected.
    #[inline(always)]
    pub fn insert(&self, w: &mut TableWriter, hash: u64, index: u32) -> Result<(), TableFull> {
        self.insert_at(w, self.place(hash), index).map(|_| ())
    }

    /// Where `hash` goes: its home bucket and fingerprint, for [`BucketTable::insert_at`]. A
    /// writer that looked the hash up and missed keeps this instead of the hash, so the insert
    /// that follows does not derive both again.
    #[inline(always)]
    pub fn place(&self, hash: u64) -> Place {
        Place {
            home: self.home_index(hash) as u32,
            fp: fingerprint(hash),
        }
    }

    /// [`BucketTable::insert`] of the hash `place` was made from (by this table's
    /// [`BucketTable::place`]; home buckets never move, so a place stays valid across other
    /// inserts and removes). Same slot choice and result as `insert`; on success, the slot it
    /// took, for [`BucketTable::remove_at`].
    #[inline(always)]
    pub fn insert_at(
        &self,
        w: &mut TableWriter,
        place: Place,
        index: u32,
    ) -> Result<SlotRef, TableFull> {
        self.insert_at_clearing(w, place, index, || 0)
    }

    /// [`BucketTable::insert_at`] that, when the home bucket of `place` has no free slot,
    /// first empties the slots `retired()` returns (bit `s` for slot `s`:
    /// [`SlotRef::home_slot`]), so the insert may take one of them before it goes down the
    /// chain. For a writer that retires pairs lazily: it leaves a retired pair's home slot as
    /// it was (not reading its bucket: a random line, often a random page, of a large table),
    /// remembers the slot beside the table, makes sure no lookup's `eq` accepts the index in it
    /// any more, and hands the remembered slots in here, when an insert finds the bucket full
    /// (it reads the bucket anyway). So a retired slot never makes a chain longer. Every pair
    /// of the home bucket that is not in the mask stays; a slot in it that is empty stays so.
    #[inline(always)]
    pub fn insert_at_clearing(
        &self,
        w: &mut TableWriter,
        place: Place,
        index: u32,
        retired: impl FnOnce() -> u8,
    ) -> Result<SlotRef, TableFull> {
        self.check_writer(w);
        let word = encode(place.fp, index);
        let mut at = self.home_line(place.home as usize);
        let home = &self.buckets[at];
        if home.meta.load(Ordering::Relaxed) & OCC_MASK == OCC_MASK {
            self.clear_slots(home, u32::from(retired()));
        }
        loop {
            let bucket = &self.buckets[at];
            let meta = bucket.meta.load(Ordering::Relaxed);
            let free = !meta & OCC_MASK;
            if free != 0 {
                let s = free.trailing_zeros() as usize;
                bucket.slots[s].store(word, Ordering::Release);
                bucket.meta.store(meta | 1 << s, Ordering::Release);
                self.add_len(1);
                return Ok(SlotRef(s as u8));
            }
            match bucket.next.load(Ordering::Relaxed) {
                0 => break,
                next => at = next as usize,
            }
        }
        // Chain full: take an overflow bucket. It is empty (buckets are freed only when empty);
        // write it completely, then publish it with the link store.
        let new = self.alloc_overflow(w)?;
        let ob = &self.buckets[new as usize];
        ob.next.store(0, Ordering::Release);
        ob.slots[0].store(word, Ordering::Release);
        ob.meta.store(1, Ordering::Release);
        self.buckets[at].next.store(new, Ordering::Release);
        self.add_len(1);
        Ok(SlotRef::OVERFLOW)
    }

    /// Empties the occupied slots of `bucket` in `mask` (the same stores as `remove`'s:
    /// the slots, then their occupancy bits). Out of line: few inserts find their bucket full.
    #[inline(never)]
    fn clear_slots(&self, bucket: &Bucket, mask: u32) {
        let meta = bucket.meta.load(Ordering::Relaxed);
        let mut m = mask & meta & OCC_MASK;
        let n = m.count_ones();
        while m != 0 {
            let s = m.trailing_zeros() as usize;
            m &= m - 1;
            if let Some(slot) = bucket.slots.get(s) {
                slot.store(0, Ordering::Release);
            }
        }
        bucket
            .meta
            .store(meta & !(mask & OCC_MASK), Ordering::Release);
        self.add_len(-(n as isize));
    }

    fn alloc_overflow(&self, w: &mut TableWriter) -> Result<u32, TableFull> {
        let b = if w.free_head != 0 {
            let b = w.free_head;
            w.free_head = self.buckets[b as usize].next.load(Ordering::Relaxed);
            b
        } else if w.bump < self.pool {
            w.bump += 1;
            self.pool_line + w.bump - 1
        } else {
            return Err(TableFull);
        };
        let used = self.overflow_used.load(Ordering::Relaxed);
        self.overflow_used.store(used + 1, Ordering::Relaxed);
        Ok(b)
    }

    /// Removes the slot holding exactly `(fingerprint(hash), index)`; false if there is none.
    /// An overflow bucket left empty goes back to the pool.
    #[inline]
    pub fn remove(&self, w: &mut TableWriter, hash: u64, index: u32) -> bool {
        self.check_writer(w);
        let word = encode(fingerprint(hash), index);
        let home = self.home_line(self.home_index(hash));
        let mut prev = None;
        let mut at = home;
        loop {
            let bucket = &self.buckets[at];
            let meta = bucket.meta.load(Ordering::Relaxed);
            for (s, slot) in bucket.slots.iter().enumerate() {
                if meta & (1 << s) != 0 && slot.load(Ordering::Relaxed) == word {
                    slot.store(0, Ordering::Release);
                    let meta = meta & !(1 << s);
                    bucket.meta.store(meta, Ordering::Release);
                    self.add_len(-1);
                    if let Some(prev) = prev.filter(|_| meta & OCC_MASK == 0) {
                        self.unlink(w, home, prev, at);
                    }
                    return true;
                }
            }
            match bucket.next.load(Ordering::Relaxed) {
                0 => return false,
                next => {
                    prev = Some(at);
                    at = next as usize;
                }
            }
        }
    }

    /// [`BucketTable::remove`] of a pair stored at `at` (what [`BucketTable::insert_at`]
    /// returned for it), without the slot scan: when slot `at` of the home bucket of `hash`
    /// holds exactly `(fingerprint(hash), index)`, that slot is cleared (a home bucket is never
    /// unlinked, so nothing else changes). Otherwise (the pair went to an overflow bucket,
    /// which may need unlinking: [`SlotRef::home_slot`] is `None`, or `at` is stale) it is
    /// `remove`. Same result and the same
    /// table afterwards as `remove`, except that a pair held more than once in the chain may
    /// lose another of its identical slots.
    #[inline(always)]
    pub fn remove_at(&self, w: &mut TableWriter, hash: u64, at: SlotRef, index: u32) -> bool {
        self.check_writer(w);
        let word = encode(fingerprint(hash), index);
        let bucket = self.home_bucket(hash);
        // An occupied slot's word is never 0 and its occupancy bit is set (bucket.rs).
        let slot = bucket
            .slots
            .get(usize::from(at.0))
            .filter(|slot| slot.load(Ordering::Relaxed) == word);
        let Some(slot) = slot else {
            return self.remove_cold(w, hash, index);
        };
        slot.store(0, Ordering::Release);
        let meta = bucket.meta.load(Ordering::Relaxed);
        bucket.meta.store(meta & !(1 << at.0), Ordering::Release);
        self.add_len(-1);
        true
    }

    /// [`BucketTable::remove`] out of line, for [`BucketTable::remove_at`]'s rare fallback.
    #[cold]
    #[inline(never)]
    fn remove_cold(&self, w: &mut TableWriter, hash: u64, index: u32) -> bool {
        self.remove(w, hash, index)
    }

    /// Unlinks empty overflow bucket `at` (preceded by `prev`) from the chain of `home`.
    fn unlink(&self, w: &mut TableWriter, home: usize, prev: usize, at: usize) {
        let bucket = &self.buckets[at];
        // 1. Make it unreachable for new walks; walkers inside it still follow its old `next`.
        self.buckets[prev]
            .next
            .store(bucket.next.load(Ordering::Relaxed), Ordering::Release);
        // 2. Bump the chain version, so walkers that started earlier re-validate their miss.
        let h = &self.buckets[home].meta;
        h.store(
            h.load(Ordering::Relaxed).wrapping_add(VERSION_ONE),
            Ordering::Release,
        );
        // 3. Only now recycle it (Release: a reader seeing the new link also sees step 2).
        bucket.next.store(w.free_head, Ordering::Release);
        w.free_head = at as u32;
        let used = self.overflow_used.load(Ordering::Relaxed);
        self.overflow_used.store(used - 1, Ordering::Relaxed);
    }

    /// Number of stored (fingerprint, index) slots.
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    /// True when no slot is occupied.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of home buckets (a power of two).
    pub fn bucket_count(&self) -> usize {
        self.home as usize
    }

    /// Size of the overflow pool in buckets.
    pub fn overflow_capacity(&self) -> usize {
        self.pool as usize
    }

    /// Overflow buckets currently linked into chains.
    pub fn overflow_in_use(&self) -> usize {
        self.overflow_used.load(Ordering::Relaxed) as usize
    }

    /// Bytes of home buckets plus overflow pool (64 per bucket), for bytes-per-entry reports.
    /// The mapping behind it is rounded up to whole (huge) pages, and untouched pool pages are
    /// not resident. A paged table's payload lines are not counted here: they are the
    /// caller's ([`BucketTable::payload_bytes`]).
    pub fn memory_bytes(&self) -> usize {
        (self.home as usize + self.pool as usize) * BUCKET_BYTES
    }
}

/// Calls `eq` with the index of every slot of `bucket` whose fingerprint is `fp`, in slot
/// order, until it returns true; returns that index. One SSE2 compare of the whole bucket
/// ([`fp_match_bits`]) picks the slots to visit; each is re-loaded (Relaxed) and re-checked,
/// since the writer may have changed it since.
#[inline(always)]
fn scan(bucket: &Bucket, fp: u32, eq: &mut impl FnMut(u32) -> bool) -> Option<u32> {
    let mut matches = fp_match_bits(bucket, fp);
    while matches != 0 {
        let s = (matches.trailing_zeros() / 2) as usize;
        matches &= matches - 1;
        let Some(slot) = bucket.slots.get(s) else {
            continue;
        };
        let word = slot.load(Ordering::Relaxed);
        if slot_fp(word) != fp {
            continue;
        }
        // Pairs with the writer's Release store of this slot: the entry behind the index is
        // initialized before `eq` looks at it.
        fence(Ordering::Acquire);
        if eq(slot_index(word)) {
            return Some(slot_index(word));
        }
    }
    None
}

/// Calls `f` with the index in every slot of `bucket` that the SIMD filter says has
/// fingerprint `fp`, in slot order: [`scan`] without its re-check before the caller reads an
/// entry, since a candidate is only prefetched, and a slot changed since the filter is a write
/// the caller's hint must not outlive anyway.
#[inline(always)]
fn bucket_candidates(bucket: &Bucket, fp: u32, f: &mut impl FnMut(u32)) {
    let mut matches = fp_match_bits(bucket, fp);
    while matches != 0 {
        let s = (matches.trailing_zeros() / 2) as usize;
        matches &= matches - 1;
        if let Some(slot) = bucket.slots.get(s) {
            f(slot_index(slot.load(Ordering::Relaxed)));
        }
    }
}

impl<L: Layout> core::fmt::Debug for BucketTable<L> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BucketTable")
            .field("len", &self.len())
            .field("buckets", &self.home)
            .field("overflow_in_use", &self.overflow_in_use())
            .field("overflow_capacity", &self.pool)
            .finish()
    }
}

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
