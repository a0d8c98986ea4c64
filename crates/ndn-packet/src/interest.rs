//! Interest packets (packet format v0.3): a checked borrowed view with field offsets, a cheap
//! re-emit with new guiders (Nonce, InterestLifetime, HopLimit), and an owned builder.
//!
//! ```text
//! Interest = INTEREST-TYPE TLV-LENGTH
//!              Name                      ; at least one component
//!              [CanBePrefix] [MustBeFresh] [ForwardingHint]
//!              [Nonce] [InterestLifetime] [HopLimit]
//!              [ApplicationParameters [InterestSignatureInfo InterestSignatureValue]]
//! ```
//!
//! Decoding follows the spec's evolvability rules as ndn-cxx applies them: a recognized element
//! out of order is an error when its type is critical and is ignored otherwise (HopLimit,
//! ApplicationParameters and the signature elements are non-critical); an unrecognized element
//! is an error when critical and skipped otherwise. With ApplicationParameters present the name
//! must hold exactly one ParametersSha256DigestComponent equal to the SHA-256 of the bytes from
//! ApplicationParameters to the end of the Interest; without them it must hold none.

use core::ops::Range;

use crate::hash::{NameHasher, PrefixHashes};
use crate::name::{packet_value, NameRef, NameScan};
use crate::signature::sha256;
use crate::tlv::{self, is_critical, tt, Reader};
use crate::DecodeError;

mod builder;
mod usual;
pub use builder::{InterestBuilder, InterestSignature};

/// InterestLifetime assumed when the element is absent, in milliseconds.
pub const DEFAULT_LIFETIME_MS: u64 = 4000;

/// TLV-TYPE of the pre-v0.3 ForwardingHint Delegation (`Preference Name`), still accepted.
const DELEGATION: u32 = 31;

/// Spec position of a recognized Interest element (0: not recognized).
const fn position(typ: u32) -> u8 {
    match typ {
        tt::NAME => 1,
        tt::CAN_BE_PREFIX => 2,
        tt::MUST_BE_FRESH => 3,
        tt::FORWARDING_HINT => 4,
        tt::NONCE => 5,
        tt::INTEREST_LIFETIME => 6,
        tt::HOP_LIMIT => 7,
        tt::APPLICATION_PARAMETERS => 8,
        tt::INTEREST_SIGNATURE_INFO => 9,
        tt::INTEREST_SIGNATURE_VALUE => 10,
        _ => 0,
    }
}

/// A checked, borrowed Interest. All offsets are relative to [`Interest::wire`].
///
/// The view is kept small (96 bytes on 64-bit targets) because the forwarder decodes it into
/// its burst ring and copies it once: offsets are `u32` (an Interest longer than 4 GiB is
/// rejected), 0 stands for an absent element (every element follows the Name, so no element
/// starts or ends at 0), and the guiders keep only their end: VAR-NUMBERs are in shortest form
/// (`tlv::header` rejects any other), so a Nonce element is 6 bytes, a HopLimit 3 and an
/// InterestLifetime 2 plus its value's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interest<'a> {
    wire: &'a [u8],
    name: NameRef<'a>,
    /// InterestLifetime value; meaningful when `lifetime_end != 0`.
    lifetime_ms: u64,
    name_end: u32,
    /// ForwardingHint TLV-VALUE range; start 0 when absent.
    forwarding_hint: Span,
    /// End of the Nonce element; 0 when absent.
    nonce_end: u32,
    /// End of the InterestLifetime element; 0 when absent.
    lifetime_end: u32,
    /// End of the HopLimit element; 0 when absent.
    hop_limit_end: u32,
    /// Start of the ApplicationParameters element; 0 when absent.
    params_start: u32,
    /// ApplicationParameters TLV-VALUE range.
    params: Span,
    signature_info: Span,
    signature_value: Span,
    /// Length of the InterestLifetime value (1, 2, 4 or 8).
    lifetime_len: u8,
    can_be_prefix: bool,
    must_be_fresh: bool,
}

/// A TLV-VALUE's byte range in the wire, `(start, end)`; start 0 means absent.
type Span = (u32, u32);

// The size the docs above promise (the burst ring's copy of a view is inline, not a call).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(core::mem::size_of::<Interest<'static>>() == 96);

/// Size of a Nonce element (one-byte TLV-TYPE and TLV-LENGTH, four-byte value).
const NONCE_TLV: u32 = 6;
/// Size of a HopLimit element.
const HOP_LIMIT_TLV: u32 = 3;

impl<'a> Interest<'a> {
    /// Checks that `wire` is exactly one valid Interest TLV.
    pub fn new_checked(wire: &'a [u8]) -> Result<Self, DecodeError> {
        Self::decode(wire, |room, len| {
            NameRef::scan(room.get(..len).unwrap_or_default(), &mut ())
        })
    }

    /// [`Self::new_checked`] that also hashes every prefix of the name into `out`, as
    /// [`NameHasher::hash_prefixes`] does, during the walk that checks the name: the name is
    /// read once. On error `out` holds the prefixes hashed before the error; do not use it.
    pub fn new_checked_hashed(
        wire: &'a [u8],
        hasher: &NameHasher,
        out: &mut PrefixHashes,
    ) -> Result<Self, DecodeError> {
        Self::hashed_then(wire, hasher, out, |it| it)
    }

    /// [`Self::new_checked_hashed`] into an existing view, as `clone_from` is to `clone`: on
    /// success this view becomes `wire`'s, on error it is left as it was. For a caller that
    /// keeps its views in place (a burst ring's slot): the decoder stores the fields there
    /// instead of returning a view that the caller then copies.
    pub fn check_hashed_into(
        &mut self,
        wire: &'a [u8],
        hasher: &NameHasher,
        out: &mut PrefixHashes,
    ) -> Result<(), DecodeError> {
        Self::hashed_then(wire, hasher, out, |it| *self = it)
    }

    /// The decoder of [`Self::new_checked_hashed`], handing the view to `ok` where it is made
    /// (the usual Interest's fields are then stored straight where `ok` puts them).
    #[inline(always)]
    fn hashed_then<R>(
        wire: &'a [u8],
        hasher: &NameHasher,
        out: &mut PrefixHashes,
        ok: impl FnOnce(Self) -> R,
    ) -> Result<R, DecodeError> {
        match usual::header(wire) {
            Some(len) => Self::usual_hashed(wire, len, hasher, out, ok),
            None => Self::decode_hashed(wire, hasher, out).map(ok),
        }
    }

    /// [`Self::new_checked_hashed`] by the general decoder, for an Interest whose header is
    /// not the usual one (`usual::header`): out of the usual path's way.
    #[cold]
    #[inline(never)]
    fn decode_hashed(
        wire: &'a [u8],
        hasher: &NameHasher,
        out: &mut PrefixHashes,
    ) -> Result<Self, DecodeError> {
        Self::decode(wire, |room, len| hasher.scan_hashed(room, len, out))
    }

    /// The decoder; `walk` is the checking walk over the name's TLV-VALUE, given as the bytes
    /// from it to the end of the Interest's TLV-VALUE and its length.
    #[inline(always)]
    fn decode(
        wire: &'a [u8],
        walk: impl FnOnce(&'a [u8], usize) -> Result<(NameRef<'a>, NameScan), DecodeError>,
    ) -> Result<Self, DecodeError> {
        let outer = packet_value(wire, tt::INTEREST)?;
        if u32::try_from(wire.len()).is_err() {
            return Err(DecodeError::Invalid(tt::INTEREST));
        }
        // Offsets below are relative to `outer`; `base` turns them into offsets in `wire`
        // (all below 2^32, checked above).
        let base = (wire.len() - outer.len()) as u32;
        let (name, scan, pos) = {
            let (_, value, pos) = tlv::element_at(outer, 0)?;
            let room = outer.get(pos - value.len()..).unwrap_or_default();
            let (value, scan) = walk(room, value.len())?;
            (value, scan, pos)
        };
        Self::after_name(wire, base, outer, name, scan, pos)
    }

    /// The decoder's part after the name's walk: `outer` is the Interest's TLV-VALUE, at
    /// offset `base` in `wire` (below 2^32), and the name (walked: `scan`) ends at `pos` in it.
    #[inline(always)]
    fn after_name(
        wire: &'a [u8],
        base: u32,
        outer: &'a [u8],
        name: NameRef<'a>,
        scan: NameScan,
        mut pos: usize,
    ) -> Result<Self, DecodeError> {
        let at = |pos: usize| base + pos as u32;
        let span = |value: &[u8], end: usize| (at(end - value.len()), at(end));
        if name.is_empty() {
            return Err(DecodeError::Invalid(tt::NAME));
        }
        let name_end = at(pos);
        let (mut can_be_prefix, mut must_be_fresh) = (false, false);
        let (mut nonce_end, mut hop_limit_end) = (0, 0);
        let (mut lifetime_ms, mut lifetime_end, mut lifetime_len) = (0, 0, 0);
        let mut last = position(tt::NAME);
        // Straight-line fast path: the guiders that follow the name in spec order are taken
        // without the loop's order bookkeeping; it stops at the first other element, which the
        // loop below then handles as it would have at that position (same checks, same errors).
        if let Some((value, next)) = tlv::element_if(outer, pos, tt::CAN_BE_PREFIX)? {
            if !value.is_empty() {
                return Err(DecodeError::Invalid(tt::CAN_BE_PREFIX));
            }
            (can_be_prefix, pos, last) = (true, next, position(tt::CAN_BE_PREFIX));
        }
        if let Some((value, next)) = tlv::element_if(outer, pos, tt::MUST_BE_FRESH)? {
            if !value.is_empty() {
                return Err(DecodeError::Invalid(tt::MUST_BE_FRESH));
            }
            (must_be_fresh, pos, last) = (true, next, position(tt::MUST_BE_FRESH));
        }
        // The guiders of fixed size are matched whole (type, length and room for the value in
        // one slice pattern); any other shape takes `element_if`, which checks and reports it.
        let whole = |pos: usize, len: u32| outer.get(pos..pos + len as usize);
        match whole(pos, NONCE_TLV) {
            Some(&[t, 4, _, _, _, _]) if u32::from(t) == tt::NONCE => {
                let next = pos + NONCE_TLV as usize;
                (nonce_end, pos, last) = (at(next), next, position(tt::NONCE));
            }
            _ => {
                if let Some((value, next)) = tlv::element_if(outer, pos, tt::NONCE)? {
                    if value.len() != 4 {
                        return Err(DecodeError::Invalid(tt::NONCE));
                    }
                    (nonce_end, pos, last) = (at(next), next, position(tt::NONCE));
                }
            }
        }
        if let Some((value, next)) = tlv::element_if(outer, pos, tt::INTEREST_LIFETIME)? {
            lifetime_ms = tlv::read_nni(value)?;
            (lifetime_end, lifetime_len) = (at(next), value.len() as u8);
            (pos, last) = (next, position(tt::INTEREST_LIFETIME));
        }
        match whole(pos, HOP_LIMIT_TLV) {
            Some(&[t, 1, _]) if u32::from(t) == tt::HOP_LIMIT => {
                let next = pos + HOP_LIMIT_TLV as usize;
                (hop_limit_end, pos, last) = (at(next), next, position(tt::HOP_LIMIT));
            }
            _ => {
                if let Some((value, next)) = tlv::element_if(outer, pos, tt::HOP_LIMIT)? {
                    if value.len() != 1 {
                        return Err(DecodeError::Invalid(tt::HOP_LIMIT));
                    }
                    (hop_limit_end, pos, last) = (at(next), next, position(tt::HOP_LIMIT));
                }
            }
        }
        let mut it = Interest {
            wire,
            name,
            lifetime_ms,
            name_end,
            forwarding_hint: (0, 0),
            nonce_end,
            lifetime_end,
            hop_limit_end,
            params_start: 0,
            params: (0, 0),
            signature_info: (0, 0),
            signature_value: (0, 0),
            lifetime_len,
            can_be_prefix,
            must_be_fresh,
        };
        // The usual Interest ends after its guiders, with no digest component: done.
        if pos == outer.len() && scan.params_digests == 0 {
            return Ok(it);
        }
        while pos < outer.len() {
            let start = at(pos);
            let (typ, value, next) = tlv::element_at(outer, pos)?;
            pos = next;
            let at = position(typ);
            if at == 0 {
                if is_critical(typ) {
                    return Err(DecodeError::UnknownCritical(typ));
                }
                continue;
            }
            // Out of order, or a signature element not right after its predecessor.
            if at <= last || (at >= 9 && last != at - 1) {
                if is_critical(typ) {
                    return Err(DecodeError::OutOfOrder(typ));
                }
                continue;
            }
            last = at;
            match typ {
                tt::CAN_BE_PREFIX | tt::MUST_BE_FRESH if !value.is_empty() => {
                    return Err(DecodeError::Invalid(typ))
                }
                tt::CAN_BE_PREFIX => it.can_be_prefix = true,
                tt::MUST_BE_FRESH => it.must_be_fresh = true,
                tt::FORWARDING_HINT => {
                    check_forwarding_hint(value)?;
                    it.forwarding_hint = span(value, next);
                }
                tt::NONCE if value.len() != 4 => return Err(DecodeError::Invalid(tt::NONCE)),
                tt::NONCE => it.nonce_end = span(value, next).1,
                tt::INTEREST_LIFETIME => {
                    it.lifetime_ms = tlv::read_nni(value)?;
                    (it.lifetime_end, it.lifetime_len) = (span(value, next).1, value.len() as u8);
                }
                tt::HOP_LIMIT if value.len() != 1 => {
                    return Err(DecodeError::Invalid(tt::HOP_LIMIT))
                }
                tt::HOP_LIMIT => it.hop_limit_end = span(value, next).1,
                tt::APPLICATION_PARAMETERS => {
                    (it.params_start, it.params) = (start, span(value, next));
                }
                tt::INTEREST_SIGNATURE_INFO => it.signature_info = span(value, next),
                _ => it.signature_value = span(value, next),
            }
        }
        if it.params_start != 0 || scan.params_digests != 0 {
            let params = (it.params_start != 0).then_some(it.params_start as usize);
            check_parameters_digest(wire, name, params, scan)?;
        }
        Ok(it)
    }

    /// The TLV-VALUE at `span`, `None` when absent.
    fn value(&self, (start, end): Span) -> Option<&'a [u8]> {
        if start == 0 {
            return None;
        }
        self.wire.get(start as usize..end as usize)
    }

    /// Element range of the Nonce, if present.
    fn nonce_span(&self) -> Option<(usize, usize)> {
        let end = self.nonce_end;
        (end != 0).then(|| ((end - NONCE_TLV) as usize, end as usize))
    }

    /// Element range of the InterestLifetime, if present.
    fn lifetime_span(&self) -> Option<(usize, usize)> {
        let end = self.lifetime_end;
        let len = 2 + u32::from(self.lifetime_len);
        (end != 0).then(|| ((end - len) as usize, end as usize))
    }

    /// Element range of the HopLimit, if present.
    fn hop_limit_span(&self) -> Option<(usize, usize)> {
        let end = self.hop_limit_end;
        (end != 0).then(|| ((end - HOP_LIMIT_TLV) as usize, end as usize))
    }

    /// The whole Interest TLV.
    pub fn wire(&self) -> &'a [u8] {
        self.wire
    }

    /// The Name (at least one component).
    pub fn name(&self) -> NameRef<'a> {
        self.name
    }

    /// The whole Name TLV, for copying without re-encoding.
    pub fn name_wire(&self) -> &'a [u8] {
        let end = self.name_end as usize;
        self.wire
            .get(end - self.name.encoded_len()..end)
            .unwrap_or_default()
    }

    /// CanBePrefix.
    pub fn can_be_prefix(&self) -> bool {
        self.can_be_prefix
    }

    /// MustBeFresh.
    pub fn must_be_fresh(&self) -> bool {
        self.must_be_fresh
    }

    /// True when a ForwardingHint element is present (possibly with no names).
    pub fn has_forwarding_hint(&self) -> bool {
        self.forwarding_hint.0 != 0
    }

    /// The ForwardingHint names, in order (empty when absent).
    pub fn forwarding_hint(&self) -> ForwardingHint<'a> {
        ForwardingHint {
            reader: Reader::new(self.value(self.forwarding_hint).unwrap_or_default()),
        }
    }

    /// Nonce, as the four bytes on the wire (python-ndn shows them as a big-endian integer).
    pub fn nonce(&self) -> Option<[u8; 4]> {
        let v = self.nonce_offset()?;
        self.wire.get(v..v + 4)?.try_into().ok()
    }

    /// Offset of the Nonce TLV-VALUE (4 bytes), for rewriting in place.
    pub fn nonce_offset(&self) -> Option<usize> {
        self.nonce_span().map(|(_, end)| end - 4)
    }

    /// InterestLifetime as encoded, in milliseconds.
    pub fn lifetime(&self) -> Option<u64> {
        (self.lifetime_end != 0).then_some(self.lifetime_ms)
    }

    /// InterestLifetime in milliseconds, [`DEFAULT_LIFETIME_MS`] when absent.
    pub fn lifetime_ms(&self) -> u64 {
        self.lifetime().unwrap_or(DEFAULT_LIFETIME_MS)
    }

    /// Byte range of the whole InterestLifetime element (its value is a NonNegativeInteger of
    /// 1, 2, 4 or 8 bytes: an in-place rewrite must keep that length).
    pub fn lifetime_range(&self) -> Option<Range<usize>> {
        self.lifetime_span().map(|(s, e)| s..e)
    }

    /// HopLimit.
    pub fn hop_limit(&self) -> Option<u8> {
        self.wire.get(self.hop_limit_offset()?).copied()
    }

    /// Offset of the one-byte HopLimit value, for decrementing in place.
    pub fn hop_limit_offset(&self) -> Option<usize> {
        self.hop_limit_span().map(|(_, end)| end - 1)
    }

    /// TLV-VALUE of ApplicationParameters.
    pub fn app_params(&self) -> Option<&'a [u8]> {
        self.value(self.params)
    }

    /// The bytes covered by the ParametersSha256DigestComponent: from the ApplicationParameters
    /// element to the end of the Interest.
    pub fn params_range(&self) -> Option<Range<usize>> {
        (self.params_start != 0).then_some(self.params_start as usize..self.wire.len())
    }

    /// TLV-VALUE of InterestSignatureInfo, byte for byte (see
    /// [`SignatureInfo`](crate::signature::SignatureInfo) to read it).
    pub fn signature_info(&self) -> Option<&'a [u8]> {
        self.value(self.signature_info)
    }

    /// TLV-VALUE of InterestSignatureValue.
    pub fn signature_value(&self) -> Option<&'a [u8]> {
        self.value(self.signature_value)
    }

    /// Appends a copy of this Interest with new guiders. The Name, ForwardingHint, parameters and
    /// any unrecognized elements are copied verbatim; a guider set in `g` replaces the present
    /// element or is inserted at its spec position; a guider left `None` is kept as it is.
    pub fn write_with_guiders(&self, g: &Guiders, out: &mut Vec<u8>) {
        let end = self.wire.len();
        let params = (self.params_start != 0).then_some(self.params_start as usize);
        let (nonce, lifetime, hop_limit) = (
            self.nonce_span(),
            self.lifetime_span(),
            self.hop_limit_span(),
        );
        let hop_at = hop_limit.map(|(s, _)| s).or(params).unwrap_or(end);
        let life_at = lifetime.map(|(s, _)| s).unwrap_or(hop_at);
        let span = |present: Option<(usize, usize)>, at: usize| present.unwrap_or((at, at));
        let edits = [
            (span(nonce, life_at), g.nonce.map(Guider::Nonce)),
            (span(lifetime, hop_at), g.lifetime_ms.map(Guider::Lifetime)),
            (span(hop_limit, hop_at), g.hop_limit.map(Guider::HopLimit)),
        ];
        let value_start = self.name_end as usize - self.name.encoded_len();
        let mut len = end - value_start;
        for ((s, e), new) in &edits {
            if let Some(new) = new {
                len = len + new.encoded_len() - (e - s);
            }
        }
        tlv::write_header(out, tt::INTEREST, len);
        let mut copied = value_start;
        for ((s, e), new) in &edits {
            if let Some(new) = new {
                out.extend_from_slice(self.wire.get(copied..*s).unwrap_or_default());
                new.write(out);
                copied = *e;
            }
        }
        out.extend_from_slice(self.wire.get(copied..).unwrap_or_default());
    }
}

/// New guider values for [`Interest::write_with_guiders`]; `None` keeps the packet's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Guiders {
    /// New Nonce.
    pub nonce: Option<[u8; 4]>,
    /// New InterestLifetime in milliseconds.
    pub lifetime_ms: Option<u64>,
    /// New HopLimit.
    pub hop_limit: Option<u8>,
}

#[derive(Debug, Clone, Copy)]
enum Guider {
    Nonce([u8; 4]),
    Lifetime(u64),
    HopLimit(u8),
}

impl Guider {
    fn encoded_len(&self) -> usize {
        match self {
            Self::Nonce(_) => 6,
            Self::Lifetime(v) => tlv::tlv_len(tt::INTEREST_LIFETIME, tlv::nni_len(*v)),
            Self::HopLimit(_) => 3,
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Self::Nonce(n) => tlv::write_tlv(out, tt::NONCE, n),
            Self::Lifetime(v) => tlv::write_nni_tlv(out, tt::INTEREST_LIFETIME, *v),
            Self::HopLimit(h) => tlv::write_tlv(out, tt::HOP_LIMIT, &[*h]),
        }
    }
}

/// ApplicationParameters (starting at `params` in `wire`) and a ParametersSha256DigestComponent
/// come together, the digest covering everything from the parameters to the end of the Interest.
fn check_parameters_digest(
    wire: &[u8],
    name: NameRef<'_>,
    params: Option<usize>,
    scan: NameScan,
) -> Result<(), DecodeError> {
    let bad = DecodeError::Invalid(tt::PARAMETERS_SHA256_DIGEST_COMPONENT);
    match (params, scan.params_digests) {
        (None, 0) => Ok(()),
        (Some(start), 1) => {
            let covered = wire.get(start..).ok_or(bad)?;
            let at = scan.params_digest_at;
            let digest = name.value().get(at..at + 32).ok_or(bad)?;
            if sha256(&[covered]) == digest {
                Ok(())
            } else {
                Err(bad)
            }
        }
        _ => Err(bad),
    }
}

fn check_forwarding_hint(value: &[u8]) -> Result<(), DecodeError> {
    for e in Reader::new(value) {
        let e = e?;
        match e.typ {
            tt::NAME => {
                NameRef::new_checked(e.value)?;
            }
            DELEGATION => {
                let name = e
                    .children()
                    .find(|c| c.as_ref().map_or(true, |c| c.typ == tt::NAME))
                    .ok_or(DecodeError::Missing(tt::NAME))??;
                NameRef::new_checked(name.value)?;
            }
            t if is_critical(t) => return Err(DecodeError::UnknownCritical(t)),
            _ => {}
        }
    }
    Ok(())
}

/// Iterator over the names of a checked ForwardingHint (v0.3 Names, or the Name inside each
/// pre-v0.3 Delegation).
#[derive(Debug, Clone)]
pub struct ForwardingHint<'a> {
    reader: Reader<'a>,
}

impl<'a> Iterator for ForwardingHint<'a> {
    type Item = NameRef<'a>;

    fn next(&mut self) -> Option<NameRef<'a>> {
        // The hint was checked on construction; `ok()` keeps this panic-free.
        loop {
            let e = self.reader.next()?.ok()?;
            let name = match e.typ {
                tt::NAME => e,
                DELEGATION => e.children().flatten().find(|c| c.typ == tt::NAME)?,
                _ => continue,
            };
            return NameRef::new_checked(name.value).ok();
        }
    }
}

#[cfg(test)]
#[path = "interest_tests.rs"]
mod tests;
