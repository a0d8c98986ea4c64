//! The usual Data's straight line: Name, an optional MetaInfo holding at most ContentType then
//! FreshnessPeriod, an optional Content, SignatureInfo and SignatureValue, in that order and
//! nothing else, every header of the [`usual_at`] shape. The commonest forms of three parts
//! are matched as byte patterns, several header bytes read as one word: the Data's and the
//! Name's headers with one-byte lengths, a MetaInfo holding FreshnessPeriod alone, and a
//! SignatureInfo holding a one-byte SignatureType alone followed by a SignatureValue with a
//! one-byte length that ends the Data. A part of another form is read header by header
//! ([`usual_at`]); anything else, and every error, is left to the general decoder, which
//! decides from the start (the tests pin both to the same views).

use super::{Count, Data};
use crate::name::NameRef;
use crate::signature::SignatureInfo;
use crate::tlv::tt;

// Each type matched below is a one-byte TLV-TYPE (below 253), so the `as u8` casts keep it.
const _: () = assert!(
    tt::DATA < 253
        && tt::NAME < 253
        && tt::META_INFO < 253
        && tt::FRESHNESS_PERIOD < 253
        && tt::SIGNATURE_INFO < 253
        && tt::SIGNATURE_TYPE < 253
        && tt::SIGNATURE_VALUE < 253
);

/// The first four bytes of a Data whose header and Name header both have one-byte lengths,
/// read little-endian, with the two length bytes (bytes 1 and 3) cleared ([`DATA_NAME_MASK`]).
const DATA_NAME: u32 = u32::from_le_bytes([tt::DATA as u8, 0, tt::NAME as u8, 0]);
const DATA_NAME_MASK: u32 = u32::from_le_bytes([0xff, 0, 0xff, 0]);

/// The four header bytes of a MetaInfo holding FreshnessPeriod alone, both with one-byte
/// lengths, read little-endian, the lengths (bytes 1 and 3) cleared.
const FRESHNESS_ONLY: u32 =
    u32::from_le_bytes([tt::META_INFO as u8, 0, tt::FRESHNESS_PERIOD as u8, 0]);

/// The header of a SignatureInfo of length 3 and of its SignatureType of length 1, as its first
/// four bytes read in native order.
const ONE_BYTE_SIG_INFO: u32 =
    u32::from_ne_bytes([tt::SIGNATURE_INFO as u8, 3, tt::SIGNATURE_TYPE as u8, 1]);

/// A SignatureInfo holding a one-byte SignatureType alone, then a SignatureValue header with a
/// one-byte length: eight bytes read little-endian, the SignatureType value (byte 4), the
/// SignatureValue's length (byte 6) and its first value byte (byte 7) cleared
/// ([`DIGEST_SIG_MASK`]).
const DIGEST_SIG: u64 = u64::from_le_bytes([
    tt::SIGNATURE_INFO as u8,
    3,
    tt::SIGNATURE_TYPE as u8,
    1,
    0,
    tt::SIGNATURE_VALUE as u8,
    0,
    0,
]);
const DIGEST_SIG_MASK: u64 = u64::from_le_bytes([0xff, 0xff, 0xff, 0xff, 0, 0xff, 0, 0]);

impl<'a> Data<'a> {
    /// The usual Data (see the module's documentation), checked in one straight line. Offsets
    /// are taken in the wire itself (no slice arithmetic for the spans). `None` for any other
    /// layout and for every error: the general decoder then decides, so this path accepts only
    /// what the general one accepts, with the same view.
    #[inline(always)]
    pub(super) fn usual(wire: &'a [u8]) -> Option<(Self, usize)> {
        // The outer length is at most 0xffff: the offsets below fit a `u32`.
        let end = wire.len();
        // Both headers with one-byte lengths, the Data's covering exactly the wire: the four
        // bytes at once; else header by header. The Name's length byte needs no check of its
        // own: one of 253 or more (a longer form) would end the name past the Data (at 257 or
        // more, the Data's end below 255), which the name's walk below rejects.
        let head = word::<4>(wire, 0).map_or(0, u32::from_le_bytes);
        let (outer, name) = (((head >> 8) & 0xff) as usize, (head >> 24) as usize);
        let (ns, ne) = if head & DATA_NAME_MASK == DATA_NAME && outer < 253 && outer + 2 == end {
            (4, 4 + name)
        } else {
            let (outer, data_end) = usual_at(wire, 0, tt::DATA)?;
            if data_end != end {
                return None;
            }
            usual_at(wire, outer, tt::NAME)?
        };
        let (name, count) = match NameRef::scan_generic(wire, ns, ne) {
            Some(generic) => generic,
            None => {
                let mut count = Count(0);
                (
                    NameRef::scan(wire.get(ns..ne)?, &mut count).ok()?.0,
                    count.0,
                )
            }
        };
        let mut pos = ne;
        let (mut content_type, mut freshness_period) = (None, None);
        // A MetaInfo holding FreshnessPeriod alone: its four header bytes at once, the
        // MetaInfo's length the FreshnessPeriod's element's (`usual_nni` takes only lengths up
        // to 8, so neither length byte is a longer form's first byte).
        let meta = word::<4>(wire, pos).map_or(0, u32::from_le_bytes);
        if meta & DATA_NAME_MASK == FRESHNESS_ONLY && (meta >> 8) & 0xff == (meta >> 24) + 2 {
            let s = pos + 4;
            let e = s + (meta >> 24) as usize;
            freshness_period = Some(usual_nni(wire, s, e)?);
            pos = e;
        } else if let Some((ms, me)) = usual_at(wire, pos, tt::META_INFO) {
            // Read in the wire: positions only grow, so ending exactly at `me` below puts
            // both fields inside the MetaInfo.
            // ContentType is rare: its header is read only when the type byte is its.
            let mut at = ms;
            if wire.get(at) == Some(&(tt::CONTENT_TYPE as u8)) {
                if let Some((s, e)) = usual_at(wire, at, tt::CONTENT_TYPE) {
                    content_type = Some(usual_nni(wire, s, e)?);
                    at = e;
                }
            }
            if let Some((s, e)) = usual_at(wire, at, tt::FRESHNESS_PERIOD) {
                freshness_period = Some(usual_nni(wire, s, e)?);
                at = e;
            }
            if at != me {
                return None;
            }
            pos = me;
        }
        let content = match usual_at(wire, pos, tt::CONTENT) {
            Some((s, e)) => {
                pos = e;
                (s as u32, e as u32)
            }
            None => (0, 0),
        };
        // A SignatureInfo holding a one-byte SignatureType alone (DigestSha256's) then a
        // SignatureValue with a one-byte length that ends the Data: eight bytes at once, the
        // SignatureType read in place the way `SignatureInfo::new_checked` reads it. Else a
        // lone one-byte SignatureType by its four header bytes, else `new_checked` decides.
        let sig = word::<8>(wire, pos).map_or(0, u64::from_le_bytes);
        let value_len = ((sig >> 48) & 0xff) as usize;
        let (is, ie, sig_type, key_locator, vs) =
            if sig & DIGEST_SIG_MASK == DIGEST_SIG && value_len < 253 && pos + 7 + value_len == end
            {
                (pos + 2, pos + 5, (sig >> 32) & 0xff, (0, 0), pos + 7)
            } else {
                let (is, ie, sig_type, key_locator) = match wire.get(pos..pos + 5) {
                    Some(&[a, b, c, d, st])
                        if u32::from_ne_bytes([a, b, c, d]) == ONE_BYTE_SIG_INFO =>
                    {
                        (pos + 2, pos + 5, u64::from(st), (0, 0))
                    }
                    _ => {
                        let (is, ie) = usual_at(wire, pos, tt::SIGNATURE_INFO)?;
                        let info = SignatureInfo::new_checked(wire.get(is..ie)?).ok()?;
                        (
                            is,
                            ie,
                            info.sig_type(),
                            super::opt_span_in(wire, info.key_locator()),
                        )
                    }
                };
                let (vs, ve) = usual_at(wire, ie, tt::SIGNATURE_VALUE)?;
                if ve != end {
                    return None;
                }
                (is, ie, sig_type, key_locator, vs)
            };
        let d = Data {
            wire,
            name,
            content_type: content_type.unwrap_or(0),
            freshness_period: freshness_period.unwrap_or(0),
            sig_type,
            final_block_id: (0, 0),
            content,
            signature_info: (is as u32, ie as u32),
            key_locator,
            signature_value: (vs as u32, end as u32),
            has_content_type: content_type.is_some(),
            has_freshness_period: freshness_period.is_some(),
        };
        Some((d, count))
    }
}

/// The `N` bytes of `buf` at `pos`, `None` past its end.
#[inline(always)]
fn word<const N: usize>(buf: &[u8], pos: usize) -> Option<[u8; N]> {
    buf.get(pos..)?.first_chunk::<N>().copied()
}

/// The element at `buf[pos..]` when it has the one-byte TLV-TYPE `typ` and a length of one
/// byte, or of three (253 and a big-endian `u16` of at least 253, the shortest form): its
/// value's range `(start, end)` in `buf`. `None` for any other header, which is left to the
/// general decoder (longer lengths, errors). `end` is not checked against `buf.len()`: the
/// caller reads every value through `get` and requires the last element to end exactly at the
/// Data's end, so a value that overruns never yields a view.
///
/// The type and a one-byte length are checked together: the header read as a big-endian
/// pair, minus `typ` in the high byte, is the length when below 253 (another type leaves at
/// least 256), and exactly 253 for `typ` with the three-byte form.
#[inline(always)]
fn usual_at(buf: &[u8], pos: usize, typ: u32) -> Option<(usize, usize)> {
    let &[t, l] = buf.get(pos..pos + 2)? else {
        return None;
    };
    let len = u32::from(u16::from_be_bytes([t, l])).wrapping_sub(typ << 8);
    if len < 253 {
        let start = pos + 2;
        return Some((start, start + len as usize));
    }
    if len != 253 {
        return None;
    }
    let &[hi, lo] = buf.get(pos + 2..pos + 4)? else {
        return None;
    };
    let len = usize::from(u16::from_be_bytes([hi, lo]));
    (len >= 253).then_some((pos + 4, pos + 4 + len))
}

/// The NonNegativeInteger in `wire[s..e]` when it has 1, 2, 4 or 8 bytes (else `None`, the
/// general decoder's error), as [`tlv::read_nni`] reads it but with one 8-byte load ending at
/// `e` and a mask of its last `e - s` bytes instead of a branch per length: in a Data a value
/// starts after at least 8 header bytes (Data, Name, MetaInfo, its field), so the load starts
/// inside the wire.
#[inline(always)]
fn usual_nni(wire: &[u8], s: usize, e: usize) -> Option<u64> {
    let len = e.wrapping_sub(s);
    // Lengths 1, 2, 4 and 8: one bound and one bit of a constant (bits 1, 2, 4 and 8 set).
    if len > 8 || (0b1_0001_0110 >> len) & 1 == 0 {
        return None;
    }
    let word = wire.get(e.checked_sub(8)?..e)?.first_chunk::<8>()?;
    Some(u64::from_be_bytes(*word) & (u64::MAX >> (64 - 8 * len)))
}
