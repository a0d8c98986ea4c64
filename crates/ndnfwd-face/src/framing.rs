//! TLV framing on byte streams: partial reads are buffered until a whole top-level TLV is in,
//! which is then split off as a zero-copy `Bytes`. An element whose declared length exceeds
//! the maximum frame is a protocol error: the caller closes the stream.

use std::io;

use bytes::{Bytes, BytesMut};
use ndn_packet::tlv;

/// Bytes requested from the kernel per read.
pub(crate) const READ_CHUNK: usize = 64 * 1024;

/// Why a stream cannot be framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FramingError {
    /// The next element declares more than the maximum frame.
    TooLarge,
    /// The next element's TLV-TYPE or TLV-LENGTH is not a valid VAR-NUMBER (or the type is 0).
    BadHeader,
}

/// Receive buffer of one stream face.
#[derive(Debug)]
pub(crate) struct StreamFramer {
    buf: BytesMut,
    max_frame: usize,
}

impl StreamFramer {
    pub(crate) fn new(max_frame: usize) -> Self {
        Self {
            buf: BytesMut::new(),
            max_frame,
        }
    }

    /// Appends bytes with `read`, which gets the buffer and a size hint and returns the count
    /// it appended (0: end of stream).
    pub(crate) fn fill(
        &mut self,
        read: impl FnOnce(&mut BytesMut, usize) -> io::Result<usize>,
    ) -> io::Result<usize> {
        read(&mut self.buf, READ_CHUNK)
    }

    /// Bytes buffered that do not form a whole element yet (or were not taken yet).
    pub(crate) fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Splits off the next whole element, if it is all in.
    pub(crate) fn next_frame(&mut self) -> Result<Option<Bytes>, FramingError> {
        // Fast path: a one-byte TLV-TYPE and TLV-LENGTH (frames up to 254 bytes), all in and
        // within the maximum; anything else takes the general path below.
        if let [1..=252, l @ 0..=252, ..] = self.buf[..] {
            let total = usize::from(l) + 2;
            if self.buf.len() >= total && total <= self.max_frame {
                return Ok(Some(self.buf.split_to(total).freeze()));
            }
        }
        let header = match tlv::read_var_number(&self.buf) {
            Ok((0, _)) => return Err(FramingError::BadHeader),
            Ok((_, tl)) => self
                .buf
                .get(tl..)
                .map(|rest| (tl, tlv::read_var_number(rest))),
            Err(ndn_packet::DecodeError::Truncated) => return Ok(None),
            Err(_) => return Err(FramingError::BadHeader),
        };
        let (tl, (len, ll)) = match header {
            Some((tl, Ok(l))) => (tl, l),
            None | Some((_, Err(ndn_packet::DecodeError::Truncated))) => return Ok(None),
            Some((_, Err(_))) => return Err(FramingError::BadHeader),
        };
        let total = usize::try_from(len)
            .ok()
            .and_then(|l| l.checked_add(tl + ll))
            .filter(|&t| t <= self.max_frame)
            .ok_or(FramingError::TooLarge)?;
        if self.buf.len() < total {
            self.buf.reserve(total - self.buf.len());
            return Ok(None);
        }
        Ok(Some(self.buf.split_to(total).freeze()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(f: &mut StreamFramer, chunk: &[u8]) {
        f.fill(|b, _| {
            b.extend_from_slice(chunk);
            Ok(chunk.len())
        })
        .unwrap();
    }

    fn tlv_of(typ: u32, len: usize) -> Vec<u8> {
        let mut v = Vec::new();
        tlv::write_tlv(&mut v, typ, &vec![0xab; len]);
        v
    }

    #[test]
    fn whole_elements_from_any_split() {
        let mut stream = Vec::new();
        let elems = [
            tlv_of(5, 3),
            tlv_of(6, 300),
            tlv_of(100, 70000 - 10),
            tlv_of(5, 0),
        ];
        for e in &elems {
            stream.extend_from_slice(e);
        }
        for chunk in [1usize, 2, 3, 7, 253, 4096, stream.len()] {
            let mut f = StreamFramer::new(80_000);
            let mut got = Vec::new();
            for c in stream.chunks(chunk) {
                feed(&mut f, c);
                while let Some(fr) = f.next_frame().unwrap() {
                    got.push(fr.to_vec());
                }
            }
            assert_eq!(got, elems.to_vec(), "chunk size {chunk}");
            assert_eq!(f.buffered(), 0);
        }
    }

    #[test]
    fn oversized_and_bad_headers_are_errors() {
        let mut f = StreamFramer::new(8800);
        // Type 6, length 8798 + 4 header bytes = 8802 > 8800: rejected before the body arrives.
        feed(&mut f, &[6, 253, 0x22, 0x5e]);
        assert_eq!(f.next_frame(), Err(FramingError::TooLarge));
        let mut f = StreamFramer::new(8800);
        feed(
            &mut f,
            &[6, 255, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        );
        assert_eq!(f.next_frame(), Err(FramingError::TooLarge));
        let mut f = StreamFramer::new(8800);
        feed(&mut f, &[6, 253, 0, 10]);
        assert_eq!(f.next_frame(), Err(FramingError::BadHeader));
        let mut f = StreamFramer::new(8800);
        feed(&mut f, &[0, 1, 0]);
        assert_eq!(f.next_frame(), Err(FramingError::BadHeader));
        // One-byte headers too: a small element over a small maximum, a zero type.
        let mut f = StreamFramer::new(4);
        feed(&mut f, &[5, 3, 1, 2, 3]);
        assert_eq!(f.next_frame(), Err(FramingError::TooLarge));
        let mut f = StreamFramer::new(8800);
        feed(&mut f, &[0, 0]);
        assert_eq!(f.next_frame(), Err(FramingError::BadHeader));
        // A header cut anywhere is just incomplete.
        let mut f = StreamFramer::new(8800);
        feed(&mut f, &[6, 253, 0x01]);
        assert_eq!(f.next_frame(), Ok(None));
        feed(&mut f, &[0x00]);
        assert_eq!(f.next_frame(), Ok(None));
        feed(&mut f, &vec![1u8; 256]);
        assert_eq!(f.next_frame().unwrap().map(|b| b.len()), Some(260));
    }
}
