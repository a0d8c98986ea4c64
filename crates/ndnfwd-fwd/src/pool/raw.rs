//! One chunk of outgoing-packet memory: a heap buffer owned by a `Bytes` handle that covers
//! all of it, written through a raw pointer only where no handed-out `Bytes` can see.
//!
//! Each packet is copied to the unused tail and handed out as a `slice` of the whole handle
//! (one reference-count increment), instead of `BytesMut::split_to` plus `freeze` per packet.
//! The whole handle's reference count tells when every slice is gone, so the chunk can be
//! rewound and written again.

use std::ptr::{self, NonNull};

use bytes::{Buf, Bytes};

/// A buffer carved front to back into packets.
#[derive(Debug)]
pub(super) struct Chunk {
    /// Covers the whole buffer; keeps it alive and counts the slices handed out.
    whole: Bytes,
    /// The buffer's start, with the same provenance as the pointer inside `whole`.
    base: NonNull<u8>,
    /// Buffer length.
    cap: usize,
    /// Bytes handed out so far: `[0, pos)` may be seen by slices, `[pos, cap)` is ours.
    pos: usize,
}

// SAFETY: `base` points into the buffer `whole` owns, and `Bytes` is `Send`; the raw pointer
// is only written through by `&mut self` methods, never shared, so moving the chunk to another
// thread moves its sole writer with it.
unsafe impl Send for Chunk {}

impl Chunk {
    /// A zeroed chunk of `size` bytes; `None` if `bytes` did not keep the vector's buffer in
    /// place (it does for a vector whose capacity exceeds its length: no copy, no shrink).
    pub(super) fn new(size: usize) -> Option<Self> {
        let mut v = Vec::with_capacity(size.checked_add(1)?);
        v.resize(size, 0u8);
        // `Vec::as_mut_ptr` makes no reference, so `base` shares the buffer's own provenance
        // with the pointer `Bytes::from` takes from the same vector.
        let base = NonNull::new(v.as_mut_ptr())?;
        let whole = Bytes::from(v);
        (whole.as_ptr() == base.as_ptr().cast_const() && whole.len() == size).then_some(Self {
            whole,
            base,
            cap: size,
            pos: 0,
        })
    }

    /// Bytes left after the packets handed out.
    #[inline(always)]
    pub(super) fn left(&self) -> usize {
        self.cap - self.pos
    }

    /// Rewinds to the start if no slice of the chunk is alive (one reference-count load).
    pub(super) fn rewind(&mut self) -> bool {
        let idle = self.whole.is_unique();
        if idle {
            self.pos = 0;
        }
        idle
    }

    /// Copies `src` into the chunk and returns it; `None` if fewer than `src.len()` bytes are
    /// left.
    #[inline(always)]
    pub(super) fn write(&mut self, src: &[u8]) -> Option<Bytes> {
        let n = src.len();
        if n > self.left() {
            return None;
        }
        let end = self.pos + n;
        // SAFETY: `pos + n <= cap`, so `[pos, pos + n)` is inside the buffer `whole` keeps
        // alive, and `base` may write it (same provenance as the buffer, see `new`). No slice
        // covers it: slices are only made of `[0, pos)` below, and `pos` goes back to 0 only in
        // `rewind`, when `whole` is the last handle. `src` does not overlap it: `src` is alive,
        // so if it lies in this chunk it is inside a live slice, hence inside `[0, pos)`.
        unsafe {
            let dst = self.base.as_ptr().add(self.pos);
            ptr::copy_nonoverlapping(src.as_ptr(), dst, n);
        }
        // `[pos, end)` of `whole` as `Bytes::slice` makes it (one reference-count increment,
        // then the view narrowed), without its range generics and checks: fewer instructions.
        let mut out = self.whole.clone();
        out.truncate(end);
        out.advance(self.pos);
        self.pos = end;
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_hold_what_was_written_and_block_rewind() {
        let mut c = Chunk::new(10).unwrap();
        let a = c.write(&[1, 2, 3, 4]).unwrap();
        let b = c.write(&[5, 6, 7, 8]).unwrap();
        assert_eq!(&a[..], &[1, 2, 3, 4]);
        assert_eq!(&b[..], &[5, 6, 7, 8]);
        assert_eq!(c.left(), 2);
        assert!(c.write(&[0; 3]).is_none(), "does not fit");
        assert!(!c.rewind(), "slices alive");
        drop(a);
        assert!(!c.rewind(), "one slice still alive");
        drop(b);
        assert!(c.rewind());
        assert_eq!(c.left(), 10);
        let d = c.write(&[7; 10]).unwrap();
        assert_eq!(&d[..], &[7; 10]);
    }

    #[test]
    fn a_slice_of_the_chunk_can_be_copied_back_into_it() {
        let mut c = Chunk::new(8).unwrap();
        let a = c.write(&[1, 2, 3, 4]).unwrap();
        let b = c.write(&a).unwrap();
        assert_eq!(&a[..], &[1, 2, 3, 4]);
        assert_eq!(&b[..], &[1, 2, 3, 4]);
    }
}
