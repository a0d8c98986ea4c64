//! TLV primitives of NDN packet format v0.3: VAR-NUMBER, NonNegativeInteger, a checked reader
//! over `&[u8]` that yields borrowed elements with their offsets, and encoding helpers.
//!
//! Offsets matter: the forwarder rewrites HopLimit, Nonce and InterestLifetime in place and
//! prepends NDNLPv2 headers, so every [`Element`] records where its header and value start in
//! the buffer it was read from.

use crate::DecodeError;

/// TLV-TYPE numbers of NDN packet format v0.3 and NDNLPv2.
#[allow(missing_docs)]
pub mod tt {
    pub const INTEREST: u32 = 5;
    pub const DATA: u32 = 6;
    pub const NAME: u32 = 7;
    pub const GENERIC_COMPONENT: u32 = 8;
    pub const IMPLICIT_SHA256_DIGEST_COMPONENT: u32 = 1;
    pub const PARAMETERS_SHA256_DIGEST_COMPONENT: u32 = 2;
    pub const KEYWORD_COMPONENT: u32 = 32;
    pub const SEGMENT_COMPONENT: u32 = 50;
    pub const BYTE_OFFSET_COMPONENT: u32 = 52;
    pub const VERSION_COMPONENT: u32 = 54;
    pub const TIMESTAMP_COMPONENT: u32 = 56;
    pub const SEQUENCE_NUM_COMPONENT: u32 = 58;

    pub const CAN_BE_PREFIX: u32 = 33;
    pub const MUST_BE_FRESH: u32 = 18;
    pub const FORWARDING_HINT: u32 = 30;
    pub const NONCE: u32 = 10;
    pub const INTEREST_LIFETIME: u32 = 12;
    pub const HOP_LIMIT: u32 = 34;
    pub const APPLICATION_PARAMETERS: u32 = 36;
    pub const INTEREST_SIGNATURE_INFO: u32 = 44;
    pub const INTEREST_SIGNATURE_VALUE: u32 = 46;

    pub const META_INFO: u32 = 20;
    pub const CONTENT: u32 = 21;
    pub const SIGNATURE_INFO: u32 = 22;
    pub const SIGNATURE_VALUE: u32 = 23;
    pub const CONTENT_TYPE: u32 = 24;
    pub const FRESHNESS_PERIOD: u32 = 25;
    pub const FINAL_BLOCK_ID: u32 = 26;
    pub const SIGNATURE_TYPE: u32 = 27;
    pub const KEY_LOCATOR: u32 = 28;
    pub const KEY_DIGEST: u32 = 29;
    pub const SIGNATURE_NONCE: u32 = 38;
    pub const SIGNATURE_TIME: u32 = 40;
    pub const SIGNATURE_SEQ_NUM: u32 = 42;

    pub const LP_PACKET: u32 = 100;
    pub const FRAGMENT: u32 = 80;
    pub const SEQUENCE: u32 = 81;
    pub const FRAG_INDEX: u32 = 82;
    pub const FRAG_COUNT: u32 = 83;
    pub const PIT_TOKEN: u32 = 98;
    pub const NACK: u32 = 800;
    pub const NACK_REASON: u32 = 801;
    pub const INCOMING_FACE_ID: u32 = 812;
    pub const NEXT_HOP_FACE_ID: u32 = 816;
    pub const CACHE_POLICY: u32 = 820;
    pub const CACHE_POLICY_TYPE: u32 = 821;
    pub const CONGESTION_MARK: u32 = 832;
    pub const ACK: u32 = 836;
    pub const TX_SEQUENCE: u32 = 840;
    pub const NON_DISCOVERY: u32 = 844;
    pub const PREFIX_ANNOUNCEMENT: u32 = 848;
}

/// The network-layer critical-type rule of packet format v0.3: an unrecognized element whose
/// TLV-TYPE is at most 31, or odd, must not be ignored.
pub const fn is_critical(typ: u32) -> bool {
    typ <= 31 || typ & 1 == 1
}

/// The NDNLPv2 rule: an unrecognized LP header field may be ignored only when its TLV-TYPE is in
/// 800..=959 and its two low bits are zero.
pub const fn lp_is_ignorable(typ: u32) -> bool {
    typ >= 800 && typ <= 959 && typ & 3 == 0
}

/// Reads a VAR-NUMBER at the start of `buf`, enforcing the shortest encoding.
/// Returns the number and how many bytes it took.
pub fn read_var_number(buf: &[u8]) -> Result<(u64, usize), DecodeError> {
    let (&first, rest) = buf.split_first().ok_or(DecodeError::Truncated)?;
    let (value, len, min) = match first {
        0..=252 => return Ok((u64::from(first), 1)),
        253 => (u64::from(u16::from_be_bytes(take::<2>(rest)?)), 3, 253),
        254 => (u64::from(u32::from_be_bytes(take::<4>(rest)?)), 5, 1 << 16),
        255 => (u64::from_be_bytes(take::<8>(rest)?), 9, 1 << 32),
    };
    if value < min {
        return Err(DecodeError::BadVarNumber);
    }
    Ok((value, len))
}

fn take<const N: usize>(buf: &[u8]) -> Result<[u8; N], DecodeError> {
    buf.get(..N)
        .and_then(|s| s.try_into().ok())
        .ok_or(DecodeError::Truncated)
}

/// Number of bytes [`write_var_number`] uses for `v`.
pub const fn var_number_len(v: u64) -> usize {
    if v < 253 {
        1
    } else if v <= 0xffff {
        3
    } else if v <= 0xffff_ffff {
        5
    } else {
        9
    }
}

/// Appends `v` as a shortest-form VAR-NUMBER.
#[inline]
pub fn write_var_number(out: &mut Vec<u8>, v: u64) {
    // The casts below are exact: each arm is guarded by the range that fits.
    match var_number_len(v) {
        1 => out.push(v as u8),
        3 => {
            out.push(253);
            out.extend_from_slice(&(v as u16).to_be_bytes());
        }
        5 => {
            out.push(254);
            out.extend_from_slice(&(v as u32).to_be_bytes());
        }
        _ => {
            out.push(255);
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
}

/// Decodes a NonNegativeInteger value (1, 2, 4 or 8 bytes, big-endian). Always inlined: the
/// call and its result through memory cost more than the few loads (a Data's FreshnessPeriod).
#[inline(always)]
pub fn read_nni(value: &[u8]) -> Result<u64, DecodeError> {
    Ok(match value.len() {
        1 => u64::from(value.first().copied().unwrap_or_default()),
        2 => u64::from(u16::from_be_bytes(take::<2>(value)?)),
        4 => u64::from(u32::from_be_bytes(take::<4>(value)?)),
        8 => u64::from_be_bytes(take::<8>(value)?),
        _ => return Err(DecodeError::BadNonNegativeInteger),
    })
}

/// Number of bytes [`write_nni`] uses for `v`.
pub const fn nni_len(v: u64) -> usize {
    if v <= 0xff {
        1
    } else if v <= 0xffff {
        2
    } else if v <= 0xffff_ffff {
        4
    } else {
        8
    }
}

/// Appends `v` as a shortest NonNegativeInteger (value bytes only, no TLV header).
pub fn write_nni(out: &mut Vec<u8>, v: u64) {
    let bytes = v.to_be_bytes();
    out.extend_from_slice(bytes.get(8 - nni_len(v)..).unwrap_or(&bytes));
}

/// Appends a TLV header (type and length).
#[inline]
pub fn write_header(out: &mut Vec<u8>, typ: u32, len: usize) {
    write_var_number(out, u64::from(typ));
    write_var_number(out, len as u64);
}

/// Appends a whole TLV element.
#[inline]
pub fn write_tlv(out: &mut Vec<u8>, typ: u32, value: &[u8]) {
    write_header(out, typ, value.len());
    out.extend_from_slice(value);
}

/// Appends a TLV whose value is a NonNegativeInteger.
pub fn write_nni_tlv(out: &mut Vec<u8>, typ: u32, v: u64) {
    write_header(out, typ, nni_len(v));
    write_nni(out, v);
}

/// Total encoded size of a TLV element with a value of `len` bytes.
pub const fn tlv_len(typ: u32, len: usize) -> usize {
    var_number_len(typ as u64) + var_number_len(len as u64) + len
}

/// Decodes the TLV-TYPE (non-zero, at most `u32::MAX`) and TLV-LENGTH at the start of `buf`:
/// returns the type, the value length and the header length. The value itself is not checked.
#[inline(always)]
pub fn header(buf: &[u8]) -> Result<(u32, usize, usize), DecodeError> {
    // Fast path: one-byte type and length, the case for nearly every element of a packet.
    if let [t @ 1..=252, l @ 0..=252, ..] = buf {
        return Ok((u32::from(*t), usize::from(*l), 2));
    }
    let (typ, tl) = read_var_number(buf)?;
    let typ = u32::try_from(typ).map_err(|_| DecodeError::BadVarNumber)?;
    if typ == 0 {
        return Err(DecodeError::BadVarNumber);
    }
    let (len, ll) = read_var_number(buf.get(tl..).ok_or(DecodeError::Truncated)?)?;
    let len = usize::try_from(len).map_err(|_| DecodeError::Truncated)?;
    Ok((typ, len, tl + ll))
}

/// The element starting at offset `pos` of `buf`: its TLV-TYPE, its TLV-VALUE and the offset
/// one past its end. The core of [`Reader::read`], for decoders that walk a buffer themselves
/// and need no [`Element`] offsets: a few registers instead of a seven-word struct per element.
#[inline(always)]
pub fn element_at(buf: &[u8], pos: usize) -> Result<(u32, &[u8], usize), DecodeError> {
    let rest = buf.get(pos..).ok_or(DecodeError::Truncated)?;
    let (typ, len, hdr) = header(rest)?;
    let value = rest
        .get(hdr..)
        .and_then(|v| v.get(..len))
        .ok_or(DecodeError::Truncated)?;
    // No overflow: the value lies inside `buf`, so `pos + hdr + len <= buf.len()`.
    Ok((typ, value, pos + hdr + len))
}

/// [`element_at`] when the element at `pos` has the one-byte TLV-TYPE `typ` (below 253):
/// `Some((value, end))`; `None` without reading further when it has another type or `pos` is
/// at the end. A decoder that expects its elements in spec order tries them one after the other.
#[inline(always)]
pub fn element_if(buf: &[u8], pos: usize, typ: u32) -> Result<Option<(&[u8], usize)>, DecodeError> {
    if buf.get(pos).map(|&b| u32::from(b)) != Some(typ) {
        return Ok(None);
    }
    let (_, value, end) = element_at(buf, pos)?;
    Ok(Some((value, end)))
}

/// One TLV element borrowed from a buffer, with its position in the buffer it was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element<'a> {
    /// TLV-TYPE.
    pub typ: u32,
    /// TLV-VALUE.
    pub value: &'a [u8],
    /// The whole element (header and value).
    pub wire: &'a [u8],
    /// Offset of the element's first header byte in the reader's buffer.
    pub start: usize,
    /// Offset of the first value byte in the reader's buffer.
    pub value_start: usize,
}

impl<'a> Element<'a> {
    /// Offset one past the element's last byte in the reader's buffer.
    pub fn end(&self) -> usize {
        self.value_start + self.value.len()
    }

    /// The value decoded as a NonNegativeInteger.
    pub fn nni(&self) -> Result<u64, DecodeError> {
        read_nni(self.value)
    }

    /// A reader over this element's value; offsets it reports are relative to the value.
    pub fn children(&self) -> Reader<'a> {
        Reader::new(self.value)
    }
}

/// Reads consecutive TLV elements from a buffer. Never panics; a malformed element ends the
/// iteration with an error.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader positioned at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// True when every byte has been consumed.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// Current offset in the buffer.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Reads the next element.
    #[inline]
    pub fn read(&mut self) -> Result<Element<'a>, DecodeError> {
        let start = self.pos;
        let (typ, value, end) = element_at(self.buf, start)?;
        let wire = self.buf.get(start..end).ok_or(DecodeError::Truncated)?;
        self.pos = end;
        Ok(Element {
            typ,
            value,
            wire,
            start,
            value_start: end - value.len(),
        })
    }

    /// Reads the next element only if it has type `typ`.
    pub fn read_if(&mut self, typ: u32) -> Result<Option<Element<'a>>, DecodeError> {
        if self.peek_type()? == Some(typ) {
            self.read().map(Some)
        } else {
            Ok(None)
        }
    }

    /// The TLV-TYPE of the next element, if any, without consuming it.
    pub fn peek_type(&self) -> Result<Option<u32>, DecodeError> {
        match self.buf.get(self.pos..) {
            None | Some([]) => Ok(None),
            Some(rest) => {
                let (typ, _) = read_var_number(rest)?;
                u32::try_from(typ)
                    .map(Some)
                    .map_err(|_| DecodeError::BadVarNumber)
            }
        }
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Element<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.is_empty() {
            return None;
        }
        let r = self.read();
        if r.is_err() {
            // Stop after the first error so a malformed buffer cannot loop.
            self.pos = self.buf.len();
        }
        Some(r)
    }
}

/// Reads exactly one element spanning all of `buf`.
pub fn read_single(buf: &[u8]) -> Result<Element<'_>, DecodeError> {
    let mut r = Reader::new(buf);
    let e = r.read()?;
    if r.is_empty() {
        Ok(e)
    } else {
        Err(DecodeError::TrailingBytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn var_number_forms() {
        for (v, wire) in [
            (0u64, &[0u8][..]),
            (252, &[252]),
            (253, &[253, 0, 253]),
            (0xffff, &[253, 0xff, 0xff]),
            (0x1_0000, &[254, 0, 1, 0, 0]),
            (0x1_0000_0000, &[255, 0, 0, 0, 1, 0, 0, 0, 0]),
        ] {
            let mut out = Vec::new();
            write_var_number(&mut out, v);
            assert_eq!(out, wire);
            assert_eq!(read_var_number(wire), Ok((v, wire.len())));
        }
    }

    #[test]
    fn var_number_rejects_long_forms_and_truncation() {
        assert_eq!(
            read_var_number(&[253, 0, 252]),
            Err(DecodeError::BadVarNumber)
        );
        assert_eq!(
            read_var_number(&[254, 0, 0, 0xff, 0xff]),
            Err(DecodeError::BadVarNumber)
        );
        assert_eq!(
            read_var_number(&[255, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]),
            Err(DecodeError::BadVarNumber)
        );
        assert_eq!(read_var_number(&[]), Err(DecodeError::Truncated));
        assert_eq!(read_var_number(&[254, 1, 2]), Err(DecodeError::Truncated));
    }

    #[test]
    fn nni_forms() {
        for v in [0u64, 1, 255, 256, 65535, 65536, u32::MAX.into(), u64::MAX] {
            let mut out = Vec::new();
            write_nni(&mut out, v);
            assert_eq!(out.len(), nni_len(v));
            assert_eq!(read_nni(&out), Ok(v));
        }
        assert_eq!(
            read_nni(&[0, 0, 1]),
            Err(DecodeError::BadNonNegativeInteger)
        );
        assert_eq!(read_nni(&[]), Err(DecodeError::BadNonNegativeInteger));
        assert_eq!(read_nni(&[0, 1]), Ok(1));
    }

    #[test]
    fn reader_offsets_and_errors() {
        let buf = [7u8, 3, 8, 1, b'a', 10, 0];
        let mut r = Reader::new(&buf);
        let e = r.read().unwrap();
        assert_eq!((e.typ, e.start, e.value_start, e.end()), (7, 0, 2, 5));
        let inner = e.children().read().unwrap();
        assert_eq!((inner.typ, inner.value), (8, &b"a"[..]));
        let e2 = r.read().unwrap();
        assert_eq!((e2.typ, e2.value.len(), e2.start), (10, 0, 5));
        assert!(r.is_empty());
        // Length past the end of the buffer.
        assert_eq!(
            Reader::new(&[7, 200, 1]).read(),
            Err(DecodeError::Truncated)
        );
        // Type zero and types above u32 are invalid.
        assert_eq!(Reader::new(&[0, 0]).read(), Err(DecodeError::BadVarNumber));
        assert_eq!(
            Reader::new(&[255, 0, 0, 0, 1, 0, 0, 0, 0, 0]).read(),
            Err(DecodeError::BadVarNumber)
        );
        // Length of 2^64-1 never overflows.
        let huge = [7u8, 255, 255, 255, 255, 255, 255, 255, 255, 255];
        assert_eq!(Reader::new(&huge).read(), Err(DecodeError::Truncated));
        assert_eq!(
            read_single(&[10, 0, 10, 0]),
            Err(DecodeError::TrailingBytes)
        );
    }

    #[test]
    fn element_if_is_element_at_of_the_expected_type() {
        // Every buffer of up to 4 bytes from a small alphabet (one-byte and three-byte lengths,
        // truncations, other types), at every position: `element_if` answers `None` exactly
        // when the byte at `pos` is not `typ` (or there is none), and otherwise what
        // `element_at` answers.
        let alphabet = [0u8, 1, 2, 10, 252, 253, 255];
        let mut bufs = vec![Vec::new()];
        for _ in 0..4 {
            let longer: Vec<Vec<u8>> = bufs
                .iter()
                .filter(|b| b.len() == bufs.last().map_or(0, Vec::len))
                .flat_map(|b| alphabet.iter().map(move |&x| [b.as_slice(), &[x]].concat()))
                .collect();
            bufs.extend(longer);
        }
        for buf in &bufs {
            for pos in 0..=buf.len() + 1 {
                for typ in [1u32, 10, 252] {
                    let want = match buf.get(pos) {
                        Some(&t) if u32::from(t) == typ => {
                            element_at(buf, pos).map(|(_, v, end)| Some((v, end)))
                        }
                        _ => Ok(None),
                    };
                    assert_eq!(
                        element_if(buf, pos, typ),
                        want,
                        "{buf:?} at {pos}, type {typ}"
                    );
                }
            }
        }
    }

    #[test]
    fn critical_rules() {
        assert!(is_critical(7) && is_critical(31) && is_critical(33));
        assert!(!is_critical(32) && !is_critical(252));
        assert!(lp_is_ignorable(800 + 12) && lp_is_ignorable(848) && lp_is_ignorable(956));
        assert!(!lp_is_ignorable(801) && !lp_is_ignorable(960) && !lp_is_ignorable(98));
    }
}
