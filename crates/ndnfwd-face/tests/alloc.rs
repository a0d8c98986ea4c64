//! Steady-state allocation count of the UDP data path, with a counting global allocator: the
//! face layer allocates per batch (a receive region, an arena refill), not per packet.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{data, interest, tx};
use ndn_packet::link::PacketKind;
use ndnfwd_face::{FaceIdAllocator, FaceTable, FaceTableConfig, FaceUri, Persistency};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(p, l, n) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn udp_steady_state_allocates_per_batch_not_per_packet() {
    let mut a = FaceTable::new(FaceIdAllocator::default(), FaceTableConfig::default()).unwrap();
    let mut b = FaceTable::new(FaceIdAllocator::default(), FaceTableConfig::default()).unwrap();
    let FaceUri::Udp(addr) = a.listen_udp("127.0.0.1:0".parse().unwrap()).unwrap() else {
        panic!("listener URI is not UDP");
    };
    let fb = b.connect_udp(addr, Persistency::Persistent).unwrap();
    // Small Interests (copied into the compact arena) and 4 kB Data (zero-copy slots).
    let small: Vec<_> = (0..64u32)
        .map(|i| tx(fb, PacketKind::Interest, interest(i, 0)))
        .collect();
    let large: Vec<_> = (0..64u32)
        .map(|i| tx(fb, PacketKind::Data, data(i, 4000)))
        .collect();
    let mut out = Vec::with_capacity(256);
    let mut round = |burst: &[_], out: &mut Vec<_>| {
        b.send_burst(burst);
        let mut got = 0;
        for _ in 0..100 {
            out.clear();
            got += a.recv_burst(0, out, 256);
            if got >= burst.len() {
                break;
            }
        }
        assert_eq!(got, burst.len());
    };
    // Warm-up: the on-demand face, first buffers, vector capacities.
    for _ in 0..4 {
        round(&small, &mut out);
        round(&large, &mut out);
    }
    let before = ALLOCS.load(Ordering::Relaxed);
    let rounds = 50;
    for _ in 0..rounds {
        round(&small, &mut out);
    }
    let small_allocs = ALLOCS.load(Ordering::Relaxed) - before;
    let before = ALLOCS.load(Ordering::Relaxed);
    for _ in 0..rounds {
        round(&large, &mut out);
    }
    let large_allocs = ALLOCS.load(Ordering::Relaxed) - before;
    let packets = rounds * 64;
    eprintln!(
        "{packets} small packets: {small_allocs} allocations; {packets} large: {large_allocs}"
    );
    // Small packets: an arena refill every 64 KiB. Large ones: one receive region per batch.
    assert!(
        small_allocs * 32 <= packets,
        "{small_allocs} allocations for {packets} packets"
    );
    assert!(
        large_allocs <= 3 * rounds,
        "{large_allocs} allocations for {packets} packets"
    );
}
