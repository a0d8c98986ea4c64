//! The `_into` API does not allocate per name once the buffer has grown: checked with a counting
//! global allocator (the only `unsafe` in this crate's tests; the library itself has none).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ndnfwd_workload::{NameSource, NoMatch, Popularity, Real, So, Yuan, LONG_COMPONENTS};

thread_local! {
    /// Allocations made by the current thread, so the test harness's own threads do not count.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s
// guarantees hold; the thread-local counter is a const-initialized `Cell` that never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this `layout` (via `Counting::alloc`).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn into_apis_do_not_allocate_per_name() {
    let so = So::new(1 << 30, 1, Popularity::Zipf).unwrap();
    let yuan = Yuan::new(15, 1 << 30, 1).unwrap();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/names-sample.ndn"
    );
    let real = Real::load(path.as_ref(), None, 1, Popularity::Zipf).unwrap();
    let miss = NoMatch::new(1);
    let mut buf = Vec::with_capacity(4096);
    let n = allocations_during(|| {
        for i in 0..20_000 {
            so.prefix_into(i, &mut buf);
            so.interest_into(i, &mut buf);
            yuan.phase_one_into(i, &mut buf);
            yuan.lookup_into(i, &mut buf);
            real.interest_into(i, &mut buf);
            miss.name_into(i, &mut buf);
            miss.long_into(i, LONG_COMPONENTS, &mut buf);
        }
    });
    assert_eq!(n, 0);
    // The counter works: the owned API allocates.
    assert!(allocations_during(|| drop(so.prefix(0))) > 0);
}
