//! Tests of the shared-memory rings: traffic both ways, a full ring, wake-ups, and a hostile
//! peer's scribbles.

use super::*;

fn pair() -> (ShmRings, ShmRings) {
    let (fwd, fd) = ShmRings::create(MIN_RING).unwrap();
    let app = ShmRings::open(&fd).unwrap();
    (fwd, app)
}

#[test]
fn frames_cross_both_ways_and_wrap() {
    let (mut fwd, mut app) = pair();
    let mut out = BytesMut::new();
    assert_eq!(fwd.recv(&mut out), Ok(false));
    // Enough traffic to wrap the 64 KiB ring many times, with odd sizes.
    for i in 0..5000usize {
        let body = vec![(i % 251) as u8; 1 + (i * 37) % 3000];
        assert_eq!(app.push([b"hd", &body]), Ok(true));
        app.publish();
        out.clear();
        assert_eq!(fwd.recv(&mut out), Ok(true));
        assert_eq!(&out[..2], b"hd");
        assert_eq!(&out[2..], &body[..]);
        fwd.release();
        assert_eq!(fwd.push([&body, b""]), Ok(true));
        fwd.publish();
        out.clear();
        assert_eq!(app.recv(&mut out), Ok(true));
        assert_eq!(&out[..], &body[..]);
        app.release();
    }
}

/// Runs of frames read in one `recv_run` call, wrap markers among them: every length slot
/// holds a frame (a wrap marker takes none), in order, and the run stops at the slots' end,
/// at the arena's spare room and at an empty ring.
#[test]
fn runs_across_the_wrap_fill_every_slot_in_order() {
    let (mut fwd, mut app) = pair();
    let mut next = 0usize;
    let mut expect = 0usize;
    let body = |i: usize| vec![(i % 253) as u8; 500 + (i * 131) % 2500];
    for _ in 0..40 {
        // 5-15 frames per round: several rounds cross the end of the 64 KiB ring.
        for _ in 0..5 + next % 11 {
            assert_eq!(app.push([b"h", &body(next)]), Ok(true));
            next += 1;
        }
        app.publish();
        let mut lens = [usize::MAX; 8];
        loop {
            let mut out = BytesMut::with_capacity(3 * crate::MAX_FRAME_LEN);
            let (n, got) = fwd.recv_run(&mut out, &mut lens);
            let mut at = 0;
            for &len in &lens[..n] {
                let b = body(expect);
                assert_eq!(len, 1 + b.len(), "frame {expect}");
                assert_eq!(&out[at..at + 1], b"h");
                assert_eq!(&out[at + 1..at + len], &b[..]);
                at += len;
                expect += 1;
            }
            assert_eq!(at, out.len());
            // It stopped for a reason: the slots, the arena's spare room or an empty ring.
            let full = out.capacity() - out.len() < crate::MAX_FRAME_LEN;
            assert!(
                n == lens.len() || full || got == Ok(false),
                "stopped after {n}"
            );
            if got == Ok(false) {
                break;
            }
            assert_eq!(got, Ok(true));
        }
        fwd.release();
        assert_eq!(expect, next);
    }
    let bytes: usize = (0..next).map(|i| body(i).len()).sum();
    assert!(bytes > 4 * MIN_RING, "the ring wrapped several times");
}

#[test]
fn full_ring_refuses_until_released() {
    let (mut fwd, mut app) = pair();
    let body = [7u8; 1000];
    let mut sent = 0;
    while app.push([&body, b""]) == Ok(true) {
        sent += 1;
    }
    assert!(sent > 50 && sent <= MIN_RING / 1000);
    app.publish();
    let mut out = BytesMut::new();
    assert_eq!(fwd.recv(&mut out), Ok(true));
    // Not released yet: still full.
    assert_eq!(app.push([&body, b""]), Ok(false));
    fwd.release();
    assert_eq!(app.push([&body, b""]), Ok(true));
    let too_big = vec![0u8; crate::MAX_FRAME_LEN + 1];
    assert_eq!(app.push([&too_big, b""]), Ok(false));
}

#[test]
fn sleeping_flag_asks_for_one_wake_up() {
    let (mut fwd, mut app) = pair();
    assert!(!fwd.arm());
    assert_eq!(app.push([b"x", b""]), Ok(true));
    assert!(app.publish(), "the sleeping reader must be woken");
    assert!(!app.publish(), "only once");
    assert!(fwd.arm(), "a frame is waiting");
    fwd.awake();
    assert_eq!(app.push([b"y", b""]), Ok(true));
    assert!(!app.publish(), "an awake reader needs no wake-up");
    let mut out = BytesMut::new();
    assert_eq!(fwd.recv(&mut out), Ok(true));
}

#[test]
fn scribbled_control_words_and_lengths_are_corrupt() {
    let (mut fwd, app) = pair();
    // A head further than a ring ahead.
    app.map
        .word(app.tx.head)
        .store(MIN_RING as u64 + 8, Ordering::Release);
    assert_eq!(fwd.recv(&mut BytesMut::new()), Err(Corrupt));
    // A record longer than a frame.
    let (mut fwd, app) = pair();
    app.map.write(app.tx.data, &(u32::MAX - 1).to_le_bytes());
    app.map.word(app.tx.head).store(64, Ordering::Release);
    assert_eq!(fwd.recv(&mut BytesMut::new()), Err(Corrupt));
    // A record longer than what was published.
    let (mut fwd, app) = pair();
    app.map.write(app.tx.data, &100u32.to_le_bytes());
    app.map.word(app.tx.head).store(16, Ordering::Release);
    assert_eq!(fwd.recv(&mut BytesMut::new()), Err(Corrupt));
    // A wrap marker with less than the rest of the ring published.
    let (mut fwd, app) = pair();
    app.map.write(app.tx.data, &WRAP.to_le_bytes());
    app.map.word(app.tx.head).store(8, Ordering::Release);
    assert_eq!(fwd.recv(&mut BytesMut::new()), Err(Corrupt));
    // A tail ahead of our head.
    let (mut fwd, app) = pair();
    app.map.word(app.rx.tail).store(1 << 40, Ordering::Release);
    let big = vec![0u8; 8000];
    let mut r = Ok(true);
    for _ in 0..20 {
        r = fwd.push([&big, b""]);
    }
    assert_eq!(r, Err(Corrupt));
}

#[test]
fn open_rejects_unsealed_or_foreign_memory() {
    // SAFETY: the name is a NUL-terminated literal; the result is a fresh memfd, unsealed.
    let raw = unsafe { libc::memfd_create(c"t".as_ptr(), libc::MFD_CLOEXEC) };
    assert!(raw >= 0);
    // SAFETY: fresh descriptor.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let len = (DATA_START + 2 * MIN_RING) as libc::off_t;
    // SAFETY: plain descriptor call.
    let r = unsafe { libc::ftruncate(raw, len) };
    assert_eq!(r, 0);
    assert!(ShmRings::open(&fd).is_err());
    assert!(ShmRings::create(1000).is_err());
}

proptest::proptest! {
    /// Whatever a hostile peer writes into the ring and its head, reading never panics,
    /// never returns a frame over the limit, and stops at the first inconsistency.
    #[test]
    fn hostile_ring_contents_never_panic(
        words in proptest::collection::vec((0usize..MIN_RING / 4, proptest::num::u32::ANY), 0..64),
        head in 0u64..(3 * MIN_RING as u64),
        start in 0u64..(2 * MIN_RING as u64),
    ) {
        let (mut fwd, app) = pair();
        for (at, w) in words {
            app.map.write(app.tx.data + 4 * at, &w.to_le_bytes());
        }
        // Our reader may be anywhere in its lap (8-aligned, as its own steps keep it).
        fwd.rx.pos = start & !7;
        fwd.rx.seen = fwd.rx.pos;
        app.map.word(app.tx.head).store(head, Ordering::Release);
        let mut out = BytesMut::new();
        for _ in 0..MIN_RING {
            let before = out.len();
            match fwd.recv(&mut out) {
                Ok(true) => proptest::prop_assert!(out.len() - before <= crate::MAX_FRAME_LEN),
                Ok(false) | Err(Corrupt) => break,
            }
        }
    }
}
