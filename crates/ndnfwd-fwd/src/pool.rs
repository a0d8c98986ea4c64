//! Recycled buffers for outgoing Interests whose guiders changed.
//!
//! An outgoing Interest whose InterestLifetime (time left on the PIT entry) or Nonce changes
//! needs new bytes (one whose HopLimit alone changes does not: it goes out as the received
//! buffer plus a one-byte patch the face layer applies). They are carved from one
//! chunk ([`raw::Chunk`]): each Interest is copied to the chunk's unused tail and handed out as
//! a `Bytes` slice that shares the chunk. When the chunk runs out, it is rewound for free if
//! every `Bytes` carved from it has been dropped (the usual case: the caller sends and clears
//! its output vector every burst); only if some are still held is a fresh chunk allocated, and
//! the old one is freed when its last `Bytes` goes. [`TxBuffers::recycle`] makes the same
//! attempt at the start of every burst, so a chunk is rewound while it is not in use and one
//! burst's Interests (which are all alive until the caller sends them) never straddle a chunk
//! end in steady state. Steady state therefore allocates nothing.

#[allow(unsafe_code)]
mod raw;

use bytes::Bytes;

use raw::Chunk;

/// Default chunk size: a few hundred typical Interests.
pub const DEFAULT_CHUNK: usize = 64 * 1024;

/// The engine's outgoing-Interest buffer.
#[derive(Debug)]
pub(crate) struct TxBuffers {
    /// `None` only if a chunk could not be set up (see [`Chunk::new`]): packets are then copied
    /// into their own allocations.
    chunk: Option<Chunk>,
    scratch: Vec<u8>,
    chunk_size: usize,
    fresh_chunks: u64,
}

impl TxBuffers {
    /// A buffer that carves Interests from chunks of `chunk_size` bytes.
    pub(crate) fn new(chunk_size: usize) -> Self {
        Self {
            chunk: Chunk::new(chunk_size),
            scratch: Vec::with_capacity(MAX_PACKET),
            chunk_size,
            fresh_chunks: 1,
        }
    }

    /// Writes one packet with `write` and returns it as `Bytes` sharing the current chunk.
    pub(crate) fn write(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> Bytes {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        write(&mut scratch);
        let out = self.place(&scratch);
        self.scratch = scratch;
        out
    }

    /// `src` as a slice of the chunk. The fitting write is inlined; the refill, once per
    /// chunk, is not.
    #[inline(always)]
    fn place(&mut self, src: &[u8]) -> Bytes {
        if let Some(out) = self.chunk.as_mut().and_then(|c| c.write(src)) {
            return out;
        }
        self.refill_and_place(src)
    }

    /// The chunk has less than `src.len()` bytes left: rewind it or start a fresh one, then
    /// place `src`.
    #[inline(never)]
    fn refill_and_place(&mut self, src: &[u8]) -> Bytes {
        let n = src.len();
        let rewound = self
            .chunk
            .as_mut()
            .is_some_and(|c| c.rewind() && c.left() >= n);
        if !rewound {
            self.chunk = Chunk::new(self.chunk_size.max(n));
            self.fresh_chunks += 1;
        }
        if let Some(out) = self.chunk.as_mut().and_then(|c| c.write(src)) {
            return out;
        }
        Bytes::copy_from_slice(src)
    }

    /// Rewinds the chunk to its start if no packet carved from it is alive any more (one
    /// reference-count load); called before each burst.
    pub(crate) fn recycle(&mut self) {
        if let Some(c) = self.chunk.as_mut().filter(|c| c.left() < self.chunk_size) {
            // False means packets are still held: keep carving from what is left.
            let _ = c.rewind();
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
