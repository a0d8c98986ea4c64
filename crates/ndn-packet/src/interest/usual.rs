//! The usual Interest's straight line: an Interest and a Name with one-byte lengths, then the
//! guiders a consumer sends (CanBePrefix, MustBeFresh, Nonce, InterestLifetime, HopLimit, each
//! optional, in spec order, with their usual sizes) and nothing else. The header is read as one
//! word and each guider by its two header bytes read as one `u16`, with no per-element order
//! bookkeeping, no span arithmetic and one size check for all of them. Anything else leaves the straight line for the
//! general decoder at the same point (the header: before anything is read; the guiders: right
//! after the name's walk, which is not run again), so the answers, errors included, are the
//! general decoder's.

use super::Interest;
use crate::hash::{NameHasher, PrefixHashes};
use crate::name::{NameRef, NameScan};
use crate::tlv::{self, tt};
use crate::DecodeError;

/// The one-byte TLV-TYPEs the straight line matches.
const INTEREST: u8 = tt::INTEREST as u8;
const NAME: u8 = tt::NAME as u8;
const CAN_BE_PREFIX: u8 = tt::CAN_BE_PREFIX as u8;
const MUST_BE_FRESH: u8 = tt::MUST_BE_FRESH as u8;
const NONCE: u8 = tt::NONCE as u8;
const INTEREST_LIFETIME: u8 = tt::INTEREST_LIFETIME as u8;
const HOP_LIMIT: u8 = tt::HOP_LIMIT as u8;

// Each is a one-byte TLV-TYPE (below 253), so the casts above keep it.
const _: () = assert!(
    tt::INTEREST < 253
        && tt::NAME < 253
        && tt::CAN_BE_PREFIX < 253
        && tt::MUST_BE_FRESH < 253
        && tt::NONCE < 253
        && tt::INTEREST_LIFETIME < 253
        && tt::HOP_LIMIT < 253
);

/// Offset in the wire of the Name's TLV-VALUE in an Interest with the usual header.
const NAME_VALUE: usize = 4;

/// The Name's TLV-LENGTH when `wire` starts with the usual header: the Interest's TLV-TYPE and
/// a one-byte TLV-LENGTH that covers exactly the rest of `wire`, then the Name's TLV-TYPE and a
/// one-byte TLV-LENGTH whose value fits in the Interest's. The general decoder reads such a
/// header the same way (`tlv::header`'s one-byte fast path, twice) and walks the same bytes.
#[inline(always)]
pub(super) fn header(wire: &[u8]) -> Option<usize> {
    let h = u32::from_le_bytes(*wire.first_chunk::<4>()?);
    if h & 0x00ff_00ff != u32::from(NAME) << 16 | u32::from(INTEREST) {
        return None;
    }
    let (outer, name) = ((h >> 8 & 0xff) as usize, (h >> 24) as usize);
    // A one-byte length is below 253; the name's header and value are inside the Interest's.
    (outer < 253 && outer + 2 == wire.len() && name + 2 <= outer).then_some(name)
}

impl<'a> Interest<'a> {
    /// [`Interest::new_checked_hashed`] of an Interest with the usual header ([`header`]: `len`
    /// is its name's length): the name's walk, then the guiders' straight line when the name
    /// is not empty and has no digest component; anything else after the walk takes the
    /// general decoder's part after the name. The view goes to `ok` (`Interest::hashed_then`).
    #[inline(always)]
    pub(super) fn usual_hashed<R>(
        wire: &'a [u8],
        len: usize,
        hasher: &NameHasher,
        out: &mut PrefixHashes,
        ok: impl FnOnce(Self) -> R,
    ) -> Result<R, DecodeError> {
        let room = wire.get(NAME_VALUE..).unwrap_or_default();
        let Some(name) = hasher.scan_hashed_common(room, len, out) else {
            return Self::usual_general(wire, len, hasher, out).map(ok);
        };
        let name_end = NAME_VALUE + len;
        if len != 0 {
            if let Some(it) = Self::usual_guiders(wire, name, name_end) {
                return Ok(ok(it));
            }
        }
        Self::usual_rest(wire, name, NameScan::default(), name_end).map(ok)
    }

    /// [`Self::usual_hashed`] of a name the whole-word walk left to the general walk (another
    /// component type, a digest, fewer than 8 bytes after the name): the same steps after it.
    /// Out of line, so that the usual path keeps no [`NameScan`] in its frame.
    #[cold]
    #[inline(never)]
    fn usual_general(
        wire: &'a [u8],
        len: usize,
        hasher: &NameHasher,
        out: &mut PrefixHashes,
    ) -> Result<Self, DecodeError> {
        let room = wire.get(NAME_VALUE..).unwrap_or_default();
        let (name, scan) = hasher.scan_hashed_general(room, len, out)?;
        let name_end = NAME_VALUE + len;
        if len != 0 && scan.params_digests == 0 {
            if let Some(it) = Self::usual_guiders(wire, name, name_end) {
                return Ok(it);
            }
        }
        Self::usual_rest(wire, name, scan, name_end)
    }

    /// The general decoder's part after the name of an Interest with the usual header, whose
    /// name (walked: `scan`) ends at `name_end` in `wire`. Out of the straight line's way.
    #[cold]
    #[inline(never)]
    fn usual_rest(
        wire: &'a [u8],
        name: NameRef<'a>,
        scan: NameScan,
        name_end: usize,
    ) -> Result<Self, DecodeError> {
        // The Interest's TLV-VALUE starts after its two header bytes.
        let outer = wire.get(2..).unwrap_or_default();
        Self::after_name(wire, 2, outer, name, scan, name_end - 2)
    }

    /// The Interest when everything after its (non-empty, digest-free) name, from `name_end`
    /// to the end of `wire`, is the usual guiders: each optional, in spec order, a Nonce of 4
    /// bytes, an InterestLifetime of 1, 2, 4 or 8, a HopLimit of 1. `None` otherwise.
    ///
    /// Each element is matched by its two header bytes read as one `u16` (0 past the wire: no
    /// guider's), and the sizes of all of them are checked at once at the end: the elements
    /// matched must end exactly at the wire's end (one of them cut short, or anything after
    /// them, makes the offset differ).
    #[inline(always)]
    pub(super) fn usual_guiders(
        wire: &'a [u8],
        name: NameRef<'a>,
        name_end: usize,
    ) -> Option<Self> {
        // The last offset with two bytes from it: one compare per header read.
        let last = wire.len().saturating_sub(2);
        let head = |pos: usize| {
            if pos > last {
                return 0;
            }
            wire.get(pos..pos + 2)
                .and_then(|h| <[u8; 2]>::try_from(h).ok())
                .map_or(0, u16::from_le_bytes)
        };
        let mut it = Interest {
            wire,
            name,
            lifetime_ms: 0,
            name_end: name_end as u32,
            forwarding_hint: (0, 0),
            nonce_end: 0,
            lifetime_end: 0,
            hop_limit_end: 0,
            params_start: 0,
            params: (0, 0),
            signature_info: (0, 0),
            signature_value: (0, 0),
            lifetime_len: 0,
            can_be_prefix: false,
            must_be_fresh: false,
        };
        let mut pos = name_end;
        let mut h = head(pos);
        if h == header16(CAN_BE_PREFIX, 0) {
            (it.can_be_prefix, pos) = (true, pos + 2);
            h = head(pos);
        }
        if h == header16(MUST_BE_FRESH, 0) {
            (it.must_be_fresh, pos) = (true, pos + 2);
            h = head(pos);
        }
        if h == header16(NONCE, 4) {
            pos += 6;
            (it.nonce_end, h) = (pos as u32, head(pos));
        }
        if let [INTEREST_LIFETIME, len @ (1 | 2 | 4 | 8)] = h.to_le_bytes() {
            let value = wire.get(pos + 2..pos + 2 + usize::from(len))?;
            it.lifetime_ms = tlv::read_nni(value).ok()?;
            pos += 2 + usize::from(len);
            (it.lifetime_end, it.lifetime_len, h) = (pos as u32, len, head(pos));
        }
        if h == header16(HOP_LIMIT, 1) {
            pos += 3;
            it.hop_limit_end = pos as u32;
        }
        (pos == wire.len()).then_some(it)
    }
}

/// A one-byte TLV-TYPE and TLV-LENGTH as `usual_guiders` reads them: one little-endian `u16`.
const fn header16(typ: u8, len: u8) -> u16 {
    u16::from_le_bytes([typ, len])
}
