//! Recycled buffers for outgoing Interests whose guiders changed.
//!
//! Every outgoing Interest is re-emitted with its new HopLimit, InterestLifetime (time left on
//! the PIT entry) and possibly a new Nonce, so it needs new bytes. They are carved from one
//! `BytesMut` chunk: each Interest is `split` off and frozen into a `Bytes` that shares the
//! chunk. When the chunk runs out, `try_reclaim` takes the whole chunk back for free if every
//! `Bytes` carved from it has been dropped (the usual case: the caller sends and clears its
//! output vector every burst); only if some are still held is a fresh chunk allocated, and the
//! old one is freed when its last `Bytes` goes. [`TxBuffers::recycle`] makes the same attempt at
//! the start of every burst, so a chunk is rewound while it is not in use and one burst's
//! Interests (which are all alive until the caller sends them) never straddle a chunk end in
//! steady state. Steady state therefore allocates nothing.

use bytes::{Bytes, BytesMut};

/// Default chunk size: a few hundred typical Interests.
pub const DEFAULT_CHUNK: usize = 64 * 1024;

/// The engine's outgoing-Interest buffer.
#[derive(Debug)]
pub(crate) struct TxBuffers {
    chunk: BytesMut,
    scratch: Vec<u8>,
    chunk_size: usize,
    fresh_chunks: u64,
}

impl TxBuffers {
    /// A buffer that carves Interests from chunks of `chunk_size` bytes.
    pub(crate) fn new(chunk_size: usize) -> Self {
        Self {
            chunk: BytesMut::with_capacity(chunk_size),
            scratch: Vec::with_capacity(MAX_PACKET),
            chunk_size,
            fresh_chunks: 1,
        }
    }

    /// Writes one packet with `write` and returns it as `Bytes` sharing the current chunk.
    pub(crate) fn write(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> Bytes {
        self.scratch.clear();
        write(&mut self.scratch);
        self.make_room(self.scratch.len());
        self.chunk.extend_from_slice(&self.scratch);
        self.chunk.split().freeze()
    }

    /// Copies `src` with byte `at` replaced by `byte` straight into the chunk (an in-place
    /// rewrite: same length, one byte changed, no scratch pass) and returns it; `None` when
    /// `at` is not inside `src`.
    #[inline(always)]
    pub(crate) fn write_patched(&mut self, src: &[u8], at: usize, byte: u8) -> Option<Bytes> {
        if at >= src.len() {
            return None;
        }
        self.make_room(src.len());
        self.chunk.extend_from_slice(src);
        // The chunk is empty before each packet (`split` takes everything written).
        let slot = self.chunk.get_mut(at)?;
        *slot = byte;
        Some(self.chunk.split().freeze())
    }

    /// Makes room for `n` more bytes: rewinds the chunk if every packet carved from it is gone,
    /// else starts a fresh one. The check is inlined; the refill, once per chunk, is not.
    #[inline(always)]
    fn make_room(&mut self, n: usize) {
        if self.chunk.capacity() < n {
            self.refill(n);
        }
    }

    /// The chunk has less than `n` bytes left: rewind it or start a fresh one.
    #[inline(never)]
    fn refill(&mut self, n: usize) {
        let want = self.chunk_size.max(n);
        if !self.chunk.try_reclaim(want) {
            self.chunk = BytesMut::with_capacity(want);
            self.fresh_chunks += 1;
        }
    }

    /// Rewinds the chunk to its start if no packet carved from it is alive any more (one
    /// reference-count load); called before each burst.
    pub(crate) fn recycle(&mut self) {
        if self.chunk.capacity() < self.chunk_size {
            // False means packets are still held: keep carving from what is left.
            let _ = self.chunk.try_reclaim(self.chunk_size);
        }
    }

    /// Chunks allocated so far (1 at creation); grows only while old packets are still held.
    pub(crate) fn fresh_chunks(&self) -> u64 {
        self.fresh_chunks
    }
}

/// Largest NDN packet the scratch buffer is sized for (the customary 8800-byte limit).
const MAX_PACKET: usize = 8800;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recycles_when_handles_are_dropped() {
        let mut p = TxBuffers::new(256);
        for round in 0..100u8 {
            let a = p.write(|v| v.extend_from_slice(&[round; 100]));
            let b = p.write(|v| v.extend_from_slice(&[round ^ 1; 100]));
            assert_eq!(&a[..], &[round; 100][..]);
            assert_eq!(&b[..], &[round ^ 1; 100][..]);
        }
        assert_eq!(p.fresh_chunks(), 1, "dropped handles give the chunk back");
    }

    #[test]
    fn recycle_rewinds_between_bursts() {
        let mut p = TxBuffers::new(1000);
        for round in 0..50u8 {
            p.recycle();
            // One burst of 9 packets of 100 bytes, all alive together, then dropped.
            let burst: Vec<Bytes> = (0..9)
                .map(|k| p.write(|v| v.resize(100, round ^ k)))
                .collect();
            for (k, b) in burst.iter().enumerate() {
                assert!(b.iter().all(|&x| x == round ^ k as u8));
            }
        }
        assert_eq!(
            p.fresh_chunks(),
            1,
            "each burst starts from a rewound chunk"
        );
    }

    #[test]
    fn patched_copies_share_the_chunk() {
        let mut p = TxBuffers::new(256);
        let src: Vec<u8> = (0..100).collect();
        for round in 0..100u8 {
            // Two 100-byte packets per round, dropped before the next: one chunk suffices.
            let a = p.write_patched(&src, 3, round).unwrap();
            let b = p.write(|v| v.extend_from_slice(&[round; 100]));
            let mut want = src.clone();
            want[3] = round;
            assert_eq!(&a[..], &want[..]);
            assert_eq!(&b[..], &[round; 100][..]);
        }
        assert!(
            p.write_patched(&src, 100, 0).is_none(),
            "offset past the end"
        );
        assert_eq!(p.fresh_chunks(), 1);
    }

    #[test]
    fn held_handles_stay_valid_and_force_a_fresh_chunk() {
        let mut p = TxBuffers::new(256);
        let held: Vec<Bytes> = (0..10u8)
            .map(|i| p.write(|v| v.extend_from_slice(&[i; 100])))
            .collect();
        for (i, b) in held.iter().enumerate() {
            assert_eq!(&b[..], &[i as u8; 100][..]);
        }
        assert!(p.fresh_chunks() > 1);
        let big = p.write(|v| v.resize(1000, 7));
        assert_eq!(big.len(), 1000);
    }
}
