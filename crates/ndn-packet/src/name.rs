//! Names and name components: checked borrowed views ([`NameRef`], [`Component`]), an owned
//! [`Name`], canonical ordering, and the NDN URI scheme with percent-encoding and typed forms
//! (`seg=`, `v=`, `sha256digest=`, `params-sha256=`, `32=`...).
//!
//! A name is stored as its TLV-VALUE: the concatenated component TLVs. Because VAR-NUMBERs are
//! big-endian and shortest-form, comparing two such buffers byte by byte gives exactly the
//! canonical order (component type, then length, then bytes; a prefix sorts first), so `Ord` and
//! `Hash` work on the bytes.

use core::fmt;
use core::str::FromStr;

use crate::tlv::{self, tt, Reader};
use crate::DecodeError;

/// Largest component TLV-TYPE allowed by the packet format.
pub const MAX_COMPONENT_TYPE: u32 = 65535;

/// One name component, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Component<'a> {
    wire: &'a [u8],
    typ: u32,
    value_start: u8,
}

impl<'a> Component<'a> {
    /// Checks one element as a name component: type 1..=65535, digest components 32 bytes.
    pub fn from_element(e: &tlv::Element<'a>) -> Result<Self, DecodeError> {
        check_component(e.typ, e.value.len())?;
        Ok(Self {
            wire: e.wire,
            typ: e.typ,
            // A component header is at most 3 (type <= 65535) + 9 bytes.
            value_start: (e.value_start - e.start) as u8,
        })
    }

    /// TLV-TYPE of the component.
    pub fn typ(&self) -> u32 {
        self.typ
    }

    /// TLV-VALUE of the component.
    pub fn value(&self) -> &'a [u8] {
        self.wire
            .get(usize::from(self.value_start)..)
            .unwrap_or_default()
    }

    /// The whole component TLV.
    pub fn wire(&self) -> &'a [u8] {
        self.wire
    }

    /// The value as a NonNegativeInteger, for segment, version and similar components.
    pub fn as_number(&self) -> Option<u64> {
        tlv::read_nni(self.value()).ok()
    }
}

/// The component rules: TLV-TYPE 1..=65535 (the caller's header decoding rejects 0), digest
/// components exactly 32 bytes.
#[inline(always)]
fn check_component(typ: u32, len: usize) -> Result<(), DecodeError> {
    if typ > MAX_COMPONENT_TYPE {
        return Err(DecodeError::Invalid(tt::NAME));
    }
    if matches!(
        typ,
        tt::IMPLICIT_SHA256_DIGEST_COMPONENT | tt::PARAMETERS_SHA256_DIGEST_COMPONENT
    ) && len != 32
    {
        return Err(DecodeError::Invalid(typ));
    }
    Ok(())
}

/// The one-byte TLV-TYPE of a GenericNameComponent.
const GENERIC: u8 = tt::GENERIC_COMPONENT as u8;

/// What the one checking walk over a name's components found besides validity.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NameScan {
    /// Number of ParametersSha256DigestComponents.
    pub params_digests: usize,
    /// Offset in the name value of the last ParametersSha256DigestComponent's TLV-VALUE.
    pub params_digest_at: usize,
}

/// Told, in order, where each component of a name ends, by the checking walk over the name
/// ([`NameRef::scan`]): the prefix hasher rides along this walk, so a decoder that also hashes
/// reads the name once. `()` is the visitor of a plain check.
pub(crate) trait NameVisitor {
    /// The component ending at `end` (exclusive offset in the name value) passed the checks.
    fn component(&mut self, value: &[u8], end: usize);
}

impl NameVisitor for () {
    #[inline(always)]
    fn component(&mut self, _: &[u8], _: usize) {}
}

/// The TLV-VALUE of a packet: `wire` must be exactly one `packet_type` TLV whose first element
/// is a Name (checked by the caller's scan of it). Shared by the Interest and Data decoders.
#[inline(always)]
pub(crate) fn packet_value(wire: &[u8], packet_type: u32) -> Result<&[u8], DecodeError> {
    let (typ, outer, end) = tlv::element_at(wire, 0)?;
    if end != wire.len() {
        return Err(DecodeError::TrailingBytes);
    }
    if typ != packet_type {
        return Err(DecodeError::UnexpectedType(typ));
    }
    if outer.first() != Some(&(tt::NAME as u8)) {
        // The Name must come first; report a malformed first TLV-TYPE as such.
        tlv::Reader::new(outer).peek_type()?;
        return Err(DecodeError::Missing(tt::NAME));
    }
    Ok(outer)
}

/// Appends a component TLV to a name value buffer.
pub fn push_component(out: &mut Vec<u8>, typ: u32, value: &[u8]) {
    tlv::write_tlv(out, typ, value);
}

/// Appends a component whose value is a NonNegativeInteger (segment, version, ...).
pub fn push_number_component(out: &mut Vec<u8>, typ: u32, n: u64) {
    tlv::write_nni_tlv(out, typ, n);
}

/// A checked, borrowed name: the TLV-VALUE of a Name element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NameRef<'a> {
    value: &'a [u8],
}

impl<'a> NameRef<'a> {
    /// Validates every component of a Name's TLV-VALUE.
    pub fn new_checked(value: &'a [u8]) -> Result<Self, DecodeError> {
        Self::scan(value, &mut ()).map(|(name, _)| name)
    }

    /// The name whose value is `buf[start..end]` and its component count when every component
    /// is a GenericNameComponent with a one-byte length (the usual Data name); `None` when some
    /// other component is there, when the last one overruns the value, or when `buf` has no
    /// byte after the value, where the caller runs [`Self::scan`], which decides. A name this
    /// accepts is one `scan` accepts (its fastest path takes exactly these components), and no
    /// state but the offset, the count and one word of flags is kept, so all stay in registers.
    ///
    /// The walk steps over each component as if it were a usual one and checks them all at the
    /// end: each header, read as a little-endian `u16` plus `0x300 - 8`, has a zero low byte
    /// and bit 16 clear exactly when its type is 8 and its length below 253 (another type
    /// leaves a non-zero low byte, a length of 253 or more carries into bit 16), so the OR of
    /// them all tells whether every component was a usual one. A walk over another component
    /// may take wrong steps, but only steps of at least 2 inside the value, and its answer is
    /// then `None` whatever they were.
    ///
    /// One bound per component, the loop's own: the byte after the value (in a packet, the
    /// next element's) makes a two-byte header read at any offset before `end` fall inside
    /// `buf`, so the read needs no check of its own.
    #[inline(always)]
    pub(crate) fn scan_generic(buf: &'a [u8], start: usize, end: usize) -> Option<(Self, usize)> {
        let padded = buf.get(..end.checked_add(1)?)?;
        let value = padded.get(start..end)?;
        let (mut pos, mut n, mut flags) = (start, 0, 0u32);
        while pos < end {
            let &[t, l] = padded.get(pos..pos + 2)? else {
                return None;
            };
            flags |= u32::from(u16::from_le_bytes([t, l])) + (3 << 8) - u32::from(GENERIC);
            pos += 2 + usize::from(l);
            n += 1;
        }
        (pos == end && flags & 0x1_00ff == 0).then_some((Self { value }, n))
    }

    /// The name whose TLV-VALUE is the first `len` bytes of `room`, when every component has a
    /// one-byte TLV-TYPE in 3..=252 (no value rule: not a digest type) and a one-byte
    /// TLV-LENGTH, the common name, telling `visitor` each component's end as [`Self::scan`]
    /// does; `None` at the first other component, when one overruns the value, or when `room`
    /// has fewer than 8 bytes after the name, where the caller runs [`Self::scan`], which decides
    /// (the visitor has then seen some of the components). A name this accepts is one `scan`
    /// accepts, with no digest component (its [`NameScan`] is the default). The bytes after the
    /// name let a header be read without checking that its second byte is inside the name (a
    /// length byte read past it makes the component overrun, which is caught), and the usual
    /// component, a GenericNameComponent with a one-byte length, costs one compare of the
    /// header turned so that it reads as the component's size. Each end told to `visitor` is
    /// at least 2 past the one before (0 before the first): the prefix hasher's head walk
    /// relies on it.
    #[inline(always)]
    pub(crate) fn scan_common<V: NameVisitor>(
        room: &'a [u8],
        len: usize,
        visitor: &mut V,
    ) -> Option<Self> {
        let value = room.get(..len)?;
        // The bytes after the name (`len <= room.len()` from the line above): the same test as
        // the hasher's `Room::new`, so that after it this one compiles away.
        if room.len() - len < 8 {
            return None;
        }
        if len == 0 {
            return Some(Self { value });
        }
        let mut pos = 0;
        // Each header is read where the walk knows `pos < len`: after the first (`len > 0`), at
        // the end of the step before, below the check that the component ends inside the name,
        // so that with `len + 8 <= room.len()` the read's bound compiles away.
        let mut header = u16::from_le_bytes(*room.first_chunk::<2>()?);
        loop {
            // The header read little-endian, plus 2 in the length byte, less 8, turned right
            // by a byte: the component's size (2 + its length) alone when the type is 8 (no
            // borrow from the length byte, a zero low byte), 254 or less exactly when the
            // length is below 253 (253 gives 255, a length of 254 or more carries into the next
            // byte); at least 2^56 for any other type (a non-zero low byte turns to the top).
            // The step is then one add, the `2 +` folded into the header's constant.
            let size = (u64::from(header) + (2 << 8) - u64::from(GENERIC)).rotate_right(8);
            // Other types than 8 take a step of their own: types 1 and 2 (the digest
            // components), 0 and the multi-byte ones go to the general walk.
            pos += if size <= 2 + 252 {
                size as usize
            } else {
                let [t, l] = header.to_le_bytes();
                if t.wrapping_sub(3) > 252 - 3 || l > 252 {
                    return None;
                }
                2 + usize::from(l)
            };
            // One compare for a component that ends inside the name, not the loop's bound and
            // the overrun's: the last one takes this branch, the one past the name fails it.
            if pos >= len {
                if pos > len {
                    return None;
                }
                visitor.component(value, pos);
                return Some(Self { value });
            }
            visitor.component(value, pos);
            header = u16::from_le_bytes(*room.get(pos..)?.first_chunk::<2>()?);
        }
    }

    /// [`Self::new_checked`] that also reports where the ParametersSha256DigestComponents are,
    /// so an Interest decoder walks its name once, and tells `visitor` each checked component's
    /// end, so a decoder that hashes the prefixes too still walks the name once.
    #[inline(always)]
    pub(crate) fn scan<V: NameVisitor>(
        value: &'a [u8],
        visitor: &mut V,
    ) -> Result<(Self, NameScan), DecodeError> {
        let mut scan = NameScan::default();
        let mut pos = 0;
        while pos < value.len() {
            // Fastest path: a GenericNameComponent (type 8, no value rule) with a one-byte
            // length, nearly every component: two byte compares, one bound.
            if let (Some(&GENERIC), Some(&len @ 0..=252)) = (value.get(pos), value.get(pos + 1)) {
                pos += 2 + usize::from(len);
                if pos > value.len() {
                    return Err(DecodeError::Truncated);
                }
                visitor.component(value, pos);
                continue;
            }
            let rest = value.get(pos..).unwrap_or_default();
            // Fast path: a one-byte type (never above MAX_COMPONENT_TYPE) and length, the case
            // for nearly every other component; only the digest types need a value check.
            if let [t @ 1..=252, l @ 0..=252, ..] = rest {
                let (typ, len) = (u32::from(*t), usize::from(*l));
                if len > rest.len() - 2 {
                    return Err(DecodeError::Truncated);
                }
                if typ <= tt::PARAMETERS_SHA256_DIGEST_COMPONENT {
                    check_component(typ, len)?;
                    if typ == tt::PARAMETERS_SHA256_DIGEST_COMPONENT {
                        scan.params_digests += 1;
                        scan.params_digest_at = pos + 2;
                    }
                }
                pos += 2 + len;
                visitor.component(value, pos);
                continue;
            }
            let (typ, len, hdr) = tlv::header(rest)?;
            let total = hdr
                .checked_add(len)
                .filter(|&t| t <= rest.len())
                .ok_or(DecodeError::Truncated)?;
            check_component(typ, len)?;
            if typ == tt::PARAMETERS_SHA256_DIGEST_COMPONENT {
                scan.params_digests += 1;
                scan.params_digest_at = pos + hdr;
            }
            pos += total;
            visitor.component(value, pos);
        }
        Ok((Self { value }, scan))
    }

    /// The root name `/`.
    pub const fn root() -> Self {
        Self { value: &[] }
    }

    /// The TLV-VALUE (concatenated components).
    pub fn value(&self) -> &'a [u8] {
        self.value
    }

    /// The components in order.
    pub fn components(&self) -> Components<'a> {
        Components {
            reader: Reader::new(self.value),
        }
    }

    /// Number of components.
    pub fn len(&self) -> usize {
        self.components().count()
    }

    /// True for the root name.
    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }

    /// The `i`-th component.
    pub fn get(&self, i: usize) -> Option<Component<'a>> {
        self.components().nth(i)
    }

    /// The last component.
    pub fn last(&self) -> Option<Component<'a>> {
        self.components().last()
    }

    /// The first `n` components (all of them when `n` is larger).
    pub fn prefix(&self, n: usize) -> NameRef<'a> {
        let end = self
            .components()
            .take(n)
            .last()
            .map(|c| c.wire.as_ptr() as usize + c.wire.len() - self.value.as_ptr() as usize)
            .unwrap_or(0);
        NameRef {
            value: self.value.get(..end).unwrap_or(self.value),
        }
    }

    /// True when `self` is a (not necessarily proper) prefix of `other`.
    pub fn is_prefix_of(&self, other: NameRef<'_>) -> bool {
        // Component boundaries line up because both buffers are sequences of whole TLVs and
        // `self` is fully contained: a byte prefix of whole components is a component prefix.
        other.value.starts_with(self.value)
            && other.value.len() >= self.value.len()
            && (other.value.len() == self.value.len()
                || NameRef::new_checked(other.value.get(self.value.len()..).unwrap_or_default())
                    .is_ok())
    }

    /// Copies into an owned [`Name`].
    pub fn to_name(&self) -> Name {
        Name {
            value: self.value.to_vec(),
        }
    }

    /// Appends the whole Name TLV.
    pub fn encode_to(&self, out: &mut Vec<u8>) {
        tlv::write_tlv(out, tt::NAME, self.value);
    }

    /// Size of the whole Name TLV.
    pub fn encoded_len(&self) -> usize {
        tlv::tlv_len(tt::NAME, self.value.len())
    }
}

/// Iterator over the components of a checked name.
#[derive(Debug, Clone)]
pub struct Components<'a> {
    reader: Reader<'a>,
}

impl<'a> Iterator for Components<'a> {
    type Item = Component<'a>;

    fn next(&mut self) -> Option<Component<'a>> {
        // The name was checked on construction, so neither step fails; `ok()` keeps it panic-free.
        let e = self.reader.next()?.ok()?;
        Component::from_element(&e).ok()
    }
}

/// An owned name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Name {
    value: Vec<u8>,
}

impl Name {
    /// The root name `/`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Validates and takes a Name's TLV-VALUE.
    pub fn from_value(value: Vec<u8>) -> Result<Self, DecodeError> {
        NameRef::new_checked(&value)?;
        Ok(Self { value })
    }

    /// Parses an NDN URI such as `/ndn/edu/v=3/seg=0`.
    pub fn from_uri(uri: &str) -> Result<Self, DecodeError> {
        parse_uri(uri)
    }

    /// Borrowed view.
    pub fn as_ref(&self) -> NameRef<'_> {
        NameRef { value: &self.value }
    }

    /// The TLV-VALUE.
    pub fn value(&self) -> &[u8] {
        &self.value
    }

    /// Number of components.
    pub fn len(&self) -> usize {
        self.as_ref().len()
    }

    /// True for the root name.
    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }

    /// Appends a generic component.
    pub fn push(mut self, value: impl AsRef<[u8]>) -> Self {
        push_component(&mut self.value, tt::GENERIC_COMPONENT, value.as_ref());
        self
    }

    /// Appends a component of any valid type; digest components must be 32 bytes.
    pub fn push_typed(mut self, typ: u32, value: &[u8]) -> Result<Self, DecodeError> {
        let start = self.value.len();
        push_component(&mut self.value, typ, value);
        let check = tlv::Reader::new(self.value.get(start..).unwrap_or_default())
            .read()
            .and_then(|e| Component::from_element(&e).map(|_| ()));
        if let Err(e) = check {
            self.value.truncate(start);
            return Err(e);
        }
        Ok(self)
    }

    /// Appends a NonNegativeInteger component (segment, version, timestamp, ...).
    pub fn push_number(mut self, typ: u32, n: u64) -> Self {
        debug_assert!(typ > 0 && typ <= MAX_COMPONENT_TYPE);
        push_number_component(&mut self.value, typ, n);
        self
    }

    /// Appends all components of `other`.
    pub fn append(mut self, other: NameRef<'_>) -> Self {
        self.value.extend_from_slice(other.value());
        self
    }

    /// The whole Name TLV.
    pub fn to_wire(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.as_ref().encoded_len());
        self.as_ref().encode_to(&mut out);
        out
    }
}

impl<'a> From<NameRef<'a>> for Name {
    fn from(n: NameRef<'a>) -> Self {
        n.to_name()
    }
}

impl FromStr for Name {
    type Err = DecodeError;

    fn from_str(s: &str) -> Result<Self, DecodeError> {
        parse_uri(s)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_ref().fmt(f)
    }
}

impl fmt::Display for NameRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("/");
        }
        for c in self.components() {
            f.write_str("/")?;
            c.fmt(f)?;
        }
        Ok(())
    }
}

/// URI labels of the typed components that python-ndn and ndn-cxx print in symbolic form.
const NUMBER_LABELS: [(u32, &str); 5] = [
    (tt::SEGMENT_COMPONENT, "seg"),
    (tt::BYTE_OFFSET_COMPONENT, "off"),
    (tt::VERSION_COMPONENT, "v"),
    (tt::TIMESTAMP_COMPONENT, "t"),
    (tt::SEQUENCE_NUM_COMPONENT, "seq"),
];
const DIGEST_LABELS: [(u32, &str); 2] = [
    (tt::IMPLICIT_SHA256_DIGEST_COMPONENT, "sha256digest"),
    (tt::PARAMETERS_SHA256_DIGEST_COMPONENT, "params-sha256"),
];

impl fmt::Display for Component<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.value();
        if let Some((_, label)) = DIGEST_LABELS.iter().find(|(t, _)| *t == self.typ) {
            write!(f, "{label}=")?;
            return v.iter().try_for_each(|b| write!(f, "{b:02x}"));
        }
        if let Some((_, label)) = NUMBER_LABELS.iter().find(|(t, _)| *t == self.typ) {
            // Only a shortest-form number prints symbolically: `seg=50` parses back to one byte,
            // so a padded value such as 00 32 must print as `50=%002` to round-trip.
            if let Some(n) = self.as_number().filter(|&n| tlv::nni_len(n) == v.len()) {
                return write!(f, "{label}={n}");
            }
        }
        if self.typ != tt::GENERIC_COMPONENT {
            write!(f, "{}=", self.typ)?;
        }
        if v.iter().all(|&b| b == b'.') {
            f.write_str("...")?;
        }
        for &b in v {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                write!(f, "{}", char::from(b))?;
            } else {
                write!(f, "%{b:02X}")?;
            }
        }
        Ok(())
    }
}

fn parse_uri(uri: &str) -> Result<Name, DecodeError> {
    let bad = DecodeError::Invalid(tt::NAME);
    let path = uri.strip_prefix("ndn:").unwrap_or(uri);
    let path = path.strip_prefix('/').ok_or(bad)?;
    let mut value = Vec::with_capacity(path.len() + 8);
    for part in path.split('/').filter(|p| !p.is_empty()) {
        parse_component(part, &mut value)?;
    }
    Name::from_value(value)
}

fn parse_component(part: &str, out: &mut Vec<u8>) -> Result<(), DecodeError> {
    let bad = DecodeError::Invalid(tt::NAME);
    if let Some((label, rest)) = part.split_once('=') {
        if let Some((typ, _)) = NUMBER_LABELS.iter().find(|(_, l)| *l == label) {
            let n: u64 = rest.parse().map_err(|_| bad)?;
            push_number_component(out, *typ, n);
            return Ok(());
        }
        if let Some((typ, _)) = DIGEST_LABELS.iter().find(|(_, l)| *l == label) {
            let bytes = parse_hex(rest).ok_or(bad)?;
            if bytes.len() != 32 {
                return Err(bad);
            }
            push_component(out, *typ, &bytes);
            return Ok(());
        }
        if label.bytes().all(|b| b.is_ascii_digit()) {
            let typ: u32 = label.parse().map_err(|_| bad)?;
            if typ == 0 || typ > MAX_COMPONENT_TYPE {
                return Err(bad);
            }
            push_component(out, typ, &unescape(rest)?);
            return Ok(());
        }
        return Err(bad);
    }
    push_component(out, tt::GENERIC_COMPONENT, &unescape(part)?);
    Ok(())
}

/// Percent-decodes a component; a run of only periods loses three of them ("..." is empty).
fn unescape(s: &str) -> Result<Vec<u8>, DecodeError> {
    let bad = DecodeError::Invalid(tt::NAME);
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hi = bytes.next().and_then(hex_val).ok_or(bad)?;
            let lo = bytes.next().and_then(hex_val).ok_or(bad)?;
            out.push(hi << 4 | lo);
        } else {
            out.push(b);
        }
    }
    if !out.is_empty() && out.iter().all(|&b| b == b'.') && s.bytes().all(|b| b == b'.') {
        if out.len() < 3 {
            return Err(bad);
        }
        out.truncate(out.len() - 3);
    }
    Ok(out)
}

fn hex_val(c: u8) -> Option<u8> {
    char::from(c)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

fn parse_hex(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.len() % 2 != 0 {
        return None;
    }
    b.chunks(2)
        .map(|p| Some(hex_val(*p.first()?)? << 4 | hex_val(*p.get(1)?)?))
        .collect()
}

#[cfg(test)]
#[path = "name_tests.rs"]
mod tests;
