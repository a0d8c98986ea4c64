//! Data packets (packet format v0.3): a checked borrowed view, Interest matching with implicit
//! digests, and an owned builder that signs with DigestSha256 by default.
//!
//! ```text
//! Data = DATA-TYPE TLV-LENGTH
//!          Name [MetaInfo] [Content] SignatureInfo SignatureValue
//! MetaInfo = META-INFO-TYPE TLV-LENGTH [ContentType] [FreshnessPeriod] [FinalBlockId]
//! ```
//!
//! The same evolvability rules as for Interests apply (critical out-of-order or unrecognized
//! elements are errors, non-critical ones are skipped), inside MetaInfo too. SignatureInfo and
//! SignatureValue are required; the signature itself is not verified (a forwarder does not).

use crate::hash::{NameHasher, NameId};
use crate::interest::Interest;
use crate::name::{packet_value, Component, Name, NameRef, NameVisitor};
use crate::signature::{digest_sha256_info, sha256, SignatureInfo};
use crate::tlv::{self, is_critical, tt};
use crate::DecodeError;

mod usual;

/// ContentType values.
pub mod content_type {
    /// Payload identified by the Data name (the default).
    pub const BLOB: u64 = 0;
    /// A list of delegations.
    pub const LINK: u64 = 1;
    /// A public key.
    pub const KEY: u64 = 2;
    /// Application-level Nack.
    pub const NACK: u64 = 3;
}

/// A checked, borrowed Data packet. All offsets are relative to [`Data::wire`].
///
/// The view is kept small (104 bytes on 64-bit targets) because the forwarder decodes it into
/// its burst ring: element values are `u32` ranges (a Data longer than 4 GiB is rejected), start
/// 0 standing for an absent element (every element follows the Data's own header, so no value
/// starts at 0); the accessors rebuild the slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Data<'a> {
    wire: &'a [u8],
    name: NameRef<'a>,
    /// ContentType value; meaningful when `has_content_type`.
    content_type: u64,
    /// FreshnessPeriod value; meaningful when `has_freshness_period`.
    freshness_period: u64,
    /// SignatureType of the SignatureInfo.
    sig_type: u64,
    /// FinalBlockId TLV-VALUE (one name component element).
    final_block_id: Span,
    content: Span,
    signature_info: Span,
    /// KeyLocator TLV-VALUE inside the SignatureInfo.
    key_locator: Span,
    signature_value: Span,
    has_content_type: bool,
    has_freshness_period: bool,
}

/// A TLV-VALUE's byte range in the wire, `(start, end)`; start 0 means absent.
type Span = (u32, u32);

// The size the docs above promise (the burst ring's copy of a view is inline, not a call).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(core::mem::size_of::<Data<'static>>() == 104);

/// The range of `sub`, a sub-slice of `wire` no longer than 4 GiB, in `wire`.
#[inline(always)]
fn span_in(wire: &[u8], sub: &[u8]) -> Span {
    let start = (sub.as_ptr() as usize).wrapping_sub(wire.as_ptr() as usize) as u32;
    (start, start.wrapping_add(sub.len() as u32))
}

/// [`span_in`] for an optional element ((0, 0) when absent).
#[inline(always)]
fn opt_span_in(wire: &[u8], sub: Option<&[u8]>) -> Span {
    sub.map_or((0, 0), |sub| span_in(wire, sub))
}

impl<'a> Data<'a> {
    /// Checks that `wire` is exactly one valid Data TLV.
    ///
    /// The usual layout is taken by a straight-line check (`Data::usual`, in `data/usual.rs`); anything else
    /// goes through one walk over the top-level elements (the name's components are checked by
    /// the same walk that [`NameRef::new_checked`] does, MetaInfo's elements afterwards), so a
    /// Data costs one header decode per element.
    pub fn new_checked(wire: &'a [u8]) -> Result<Self, DecodeError> {
        Self::new_checked_counted(wire).map(|(d, _)| d)
    }

    /// [`Self::new_checked`] that also returns the keyed identity of the Data name
    /// ([`NameHasher::name_id`]): the decoder's walk counts the components, then one run over
    /// the name's words hashes the whole name. No per-prefix state is kept: a Data needs it
    /// only for rare matches (CanBePrefix entries, a token naming a prefix), where the PIT-CS
    /// hashes the prefixes of the checked name itself.
    #[inline(always)]
    pub fn new_checked_id(
        wire: &'a [u8],
        hasher: &NameHasher,
    ) -> Result<(Self, NameId), DecodeError> {
        let (d, n) = Self::new_checked_counted(wire)?;
        Ok((d, hasher.id_of_value(d.name.value(), n)))
    }

    /// [`Self::new_checked`] that also returns the name's component count, counted by the
    /// decoder's walk: for a caller that decodes several Data and then computes their
    /// identities together ([`NameHasher::name_ids`], four names side by side); the result
    /// is [`Self::new_checked_id`]'s. The usual layout's straight-line check, else the
    /// general decoder (which also reports every error).
    #[inline(always)]
    pub fn new_checked_counted(wire: &'a [u8]) -> Result<(Self, usize), DecodeError> {
        if let Some(usual) = Self::usual(wire) {
            return Ok(usual);
        }
        let mut count = Count(0);
        let d = Self::general(wire, &mut count)?;
        Ok((d, count.0))
    }

    /// The general decoder, for any layout (and every error); `count` counts the name's
    /// components as the walk checks them. Out of line: the usual Data never gets here.
    #[inline(never)]
    fn general(wire: &'a [u8], count: &mut Count) -> Result<Self, DecodeError> {
        let outer = packet_value(wire, tt::DATA)?;
        if u32::try_from(wire.len()).is_err() {
            return Err(DecodeError::Invalid(tt::DATA));
        }
        let (name, mut pos) = {
            let (_, value, pos) = tlv::element_at(outer, 0)?;
            (NameRef::scan(value, count)?.0, pos)
        };
        let (mut meta, mut sig_info) = (None, None);
        // Spans are taken where each element is found (start 0: not found).
        let (mut content, mut sig_value): (Span, Span) = ((0, 0), (0, 0));
        let mut last = position(tt::NAME);
        // Straight-line fast path: the elements that follow in spec order are taken without the
        // loop's order bookkeeping; it stops at the first other element, which the loop below
        // then handles as it would have at that position (same checks, same errors).
        if let Some((v, end)) = tlv::element_if(outer, pos, tt::META_INFO)? {
            (meta, pos, last) = (Some(v), end, position(tt::META_INFO));
        }
        if let Some((v, end)) = tlv::element_if(outer, pos, tt::CONTENT)? {
            (content, pos, last) = (span_in(wire, v), end, position(tt::CONTENT));
        }
        if let Some((v, end)) = tlv::element_if(outer, pos, tt::SIGNATURE_INFO)? {
            sig_info = Some(SignatureInfo::new_checked(v)?);
            (pos, last) = (end, position(tt::SIGNATURE_INFO));
        }
        if let Some((v, end)) = tlv::element_if(outer, pos, tt::SIGNATURE_VALUE)? {
            (sig_value, pos, last) = (span_in(wire, v), end, position(tt::SIGNATURE_VALUE));
        }
        while pos < outer.len() {
            let (typ, value, end) = tlv::element_at(outer, pos)?;
            pos = end;
            let at = position(typ);
            if !admit(typ, at, last)? {
                continue;
            }
            last = at;
            match typ {
                tt::META_INFO => meta = Some(value),
                tt::CONTENT => content = span_in(wire, value),
                tt::SIGNATURE_INFO => sig_info = Some(SignatureInfo::new_checked(value)?),
                _ => sig_value = span_in(wire, value),
            }
        }
        let (content_type, freshness_period, final_block_id) = match meta {
            Some(meta) => meta_info(meta)?,
            None => (None, None, None),
        };
        let signature_info = sig_info.ok_or(DecodeError::Missing(tt::SIGNATURE_INFO))?;
        if sig_value.0 == 0 {
            return Err(DecodeError::Missing(tt::SIGNATURE_VALUE));
        }
        Ok(Data {
            wire,
            name,
            content_type: content_type.unwrap_or(0),
            freshness_period: freshness_period.unwrap_or(0),
            sig_type: signature_info.sig_type(),
            final_block_id: opt_span_in(wire, final_block_id.map(|c| c.wire())),
            content,
            signature_info: span_in(wire, signature_info.value()),
            key_locator: opt_span_in(wire, signature_info.key_locator()),
            signature_value: sig_value,
            has_content_type: content_type.is_some(),
            has_freshness_period: freshness_period.is_some(),
        })
    }

    /// The TLV-VALUE at `span`, `None` when absent.
    fn value(&self, (start, end): Span) -> Option<&'a [u8]> {
        if start == 0 {
            return None;
        }
        self.wire.get(start as usize..end as usize)
    }

    /// The whole Data TLV.
    pub fn wire(&self) -> &'a [u8] {
        self.wire
    }

    /// The Name.
    pub fn name(&self) -> NameRef<'a> {
        self.name
    }

    /// ContentType as encoded.
    pub fn content_type(&self) -> Option<u64> {
        self.has_content_type.then_some(self.content_type)
    }

    /// FreshnessPeriod in milliseconds as encoded; absent means the Data is never fresh.
    pub fn freshness_period(&self) -> Option<u64> {
        self.has_freshness_period.then_some(self.freshness_period)
    }

    /// FinalBlockId.
    pub fn final_block_id(&self) -> Option<Component<'a>> {
        // Checked by the decoder: the value is one valid component element.
        let v = self.value(self.final_block_id)?;
        Component::from_element(&tlv::read_single(v).ok()?).ok()
    }

    /// TLV-VALUE of Content.
    pub fn content(&self) -> Option<&'a [u8]> {
        self.value(self.content)
    }

    /// SignatureInfo.
    pub fn signature_info(&self) -> SignatureInfo<'a> {
        SignatureInfo::from_parts(
            self.value(self.signature_info).unwrap_or_default(),
            self.sig_type,
            self.value(self.key_locator),
        )
    }

    /// TLV-VALUE of SignatureValue.
    pub fn signature_value(&self) -> &'a [u8] {
        self.value(self.signature_value).unwrap_or_default()
    }

    /// SHA-256 of the whole Data TLV: the value of the ImplicitSha256DigestComponent that makes
    /// the Data's full name.
    pub fn implicit_digest(&self) -> [u8; 32] {
        sha256(&[self.wire])
    }

    /// Whether this Data satisfies `interest` by name: the names are equal, or the Interest
    /// has CanBePrefix and its name is a prefix of the Data name, or the Interest name is the
    /// Data's full name (ending in the implicit digest). MustBeFresh is not checked: it
    /// depends on when the Data arrived, which the caller knows.
    pub fn satisfies(&self, interest: &Interest<'_>) -> bool {
        let iname = interest.name();
        if let Some(last) = iname.last() {
            let n = iname.len();
            if last.typ() == tt::IMPLICIT_SHA256_DIGEST_COMPONENT && n == self.name.len() + 1 {
                return iname.prefix(n - 1) == self.name
                    && last.value() == self.implicit_digest().as_slice();
            }
        }
        if interest.can_be_prefix() {
            iname.is_prefix_of(self.name)
        } else {
            iname == self.name
        }
    }
}

/// Counts the components of the name the decoder's walk checks.
struct Count(usize);

impl NameVisitor for Count {
    #[inline(always)]
    fn component(&mut self, _: &[u8], _: usize) {
        self.0 += 1;
    }
}

/// Spec position of a recognized Data element (0: not recognized).
const fn position(typ: u32) -> u8 {
    match typ {
        tt::NAME => 1,
        tt::META_INFO => 2,
        tt::CONTENT => 3,
        tt::SIGNATURE_INFO => 4,
        tt::SIGNATURE_VALUE => 5,
        _ => 0,
    }
}

/// Spec position of a recognized MetaInfo element (0: not recognized).
const fn meta_position(typ: u32) -> u8 {
    match typ {
        tt::CONTENT_TYPE => 1,
        tt::FRESHNESS_PERIOD => 2,
        tt::FINAL_BLOCK_ID => 3,
        _ => 0,
    }
}

/// The order rules for an element of type `typ` at spec position `pos` (0: unrecognized) after
/// a recognized element at position `last`: `true` to take it; an element at or before `last`
/// (out of order or repeated) or an unrecognized one is an error when critical and skipped
/// (`false`) otherwise.
#[inline(always)]
fn admit(typ: u32, pos: u8, last: u8) -> Result<bool, DecodeError> {
    if pos > last {
        return Ok(true);
    }
    match (pos, is_critical(typ)) {
        (_, false) => Ok(false),
        (0, true) => Err(DecodeError::UnknownCritical(typ)),
        (_, true) => Err(DecodeError::OutOfOrder(typ)),
    }
}

/// MetaInfo fields found in its TLV-VALUE: ContentType, FreshnessPeriod, FinalBlockId.
type MetaFields<'a> = (Option<u64>, Option<u64>, Option<Component<'a>>);

/// Decodes a MetaInfo TLV-VALUE under the same order rules as the Data's top level.
/// The same straight-line fast path as the top level comes first.
#[inline(always)]
fn meta_info(value: &[u8]) -> Result<MetaFields<'_>, DecodeError> {
    let mut fields: MetaFields<'_> = (None, None, None);
    let (mut pos, mut last) = (0, 0);
    if let Some((v, end)) = tlv::element_if(value, pos, tt::CONTENT_TYPE)? {
        fields.0 = Some(tlv::read_nni(v)?);
        (pos, last) = (end, meta_position(tt::CONTENT_TYPE));
    }
    if let Some((v, end)) = tlv::element_if(value, pos, tt::FRESHNESS_PERIOD)? {
        fields.1 = Some(tlv::read_nni(v)?);
        (pos, last) = (end, meta_position(tt::FRESHNESS_PERIOD));
    }
    while pos < value.len() {
        let (typ, v, end) = tlv::element_at(value, pos)?;
        pos = end;
        let at = meta_position(typ);
        if !admit(typ, at, last)? {
            continue;
        }
        last = at;
        match typ {
            tt::CONTENT_TYPE => fields.0 = Some(tlv::read_nni(v)?),
            tt::FRESHNESS_PERIOD => fields.1 = Some(tlv::read_nni(v)?),
            _ => {
                let c = tlv::read_single(v)?;
                fields.2 = Some(Component::from_element(&c)?);
            }
        }
    }
    Ok(fields)
}

/// How a [`DataBuilder`] signs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataSignature {
    /// DigestSha256: SignatureInfo `SignatureType=0`, value the SHA-256 of Name through
    /// SignatureInfo.
    DigestSha256,
    /// Given SignatureInfo and SignatureValue TLV-VALUEs (the info must start with a
    /// SignatureType).
    Raw {
        /// TLV-VALUE of SignatureInfo.
        info: Vec<u8>,
        /// TLV-VALUE of SignatureValue.
        value: Vec<u8>,
    },
}

/// Owned Data encoder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataBuilder {
    name: Name,
    content_type: Option<u64>,
    freshness_period: Option<u64>,
    final_block_id: Option<Vec<u8>>,
    content: Option<Vec<u8>>,
    signature: DataSignature,
}

impl DataBuilder {
    /// A Data named `name`, without MetaInfo or Content, signed with DigestSha256.
    pub fn new(name: Name) -> Self {
        Self {
            name,
            content_type: None,
            freshness_period: None,
            final_block_id: None,
            content: None,
            signature: DataSignature::DigestSha256,
        }
    }

    /// A builder holding every field of `d`, including its signature bytes.
    pub fn from_view(d: &Data<'_>) -> Self {
        Self {
            name: d.name().to_name(),
            content_type: d.content_type(),
            freshness_period: d.freshness_period(),
            final_block_id: d.final_block_id().map(|c| c.wire().to_vec()),
            content: d.content().map(<[u8]>::to_vec),
            signature: DataSignature::Raw {
                info: d.signature_info().value().to_vec(),
                value: d.signature_value().to_vec(),
            },
        }
    }

    /// Sets ContentType (written even when it is BLOB).
    pub fn content_type(mut self, t: u64) -> Self {
        self.content_type = Some(t);
        self
    }

    /// Sets FreshnessPeriod in milliseconds.
    pub fn freshness_period(mut self, ms: u64) -> Self {
        self.freshness_period = Some(ms);
        self
    }

    /// Sets FinalBlockId.
    pub fn final_block_id(mut self, c: Component<'_>) -> Self {
        self.final_block_id = Some(c.wire().to_vec());
        self
    }

    /// Sets Content.
    pub fn content(mut self, v: Vec<u8>) -> Self {
        self.content = Some(v);
        self
    }

    /// Sets the signature.
    pub fn signature(mut self, s: DataSignature) -> Self {
        self.signature = s;
        self
    }

    /// Encodes the Data. The result always passes [`Data::new_checked`]; the error is the one
    /// the decoder would report (for example a Raw SignatureInfo without SignatureType).
    pub fn encode(&self) -> Result<Vec<u8>, DecodeError> {
        let mut v = Vec::with_capacity(self.content.as_ref().map_or(0, Vec::len) + 128);
        self.name.as_ref().encode_to(&mut v);
        let mut meta = Vec::new();
        if let Some(t) = self.content_type {
            tlv::write_nni_tlv(&mut meta, tt::CONTENT_TYPE, t);
        }
        if let Some(f) = self.freshness_period {
            tlv::write_nni_tlv(&mut meta, tt::FRESHNESS_PERIOD, f);
        }
        if let Some(c) = &self.final_block_id {
            tlv::write_tlv(&mut meta, tt::FINAL_BLOCK_ID, c);
        }
        if !meta.is_empty() {
            tlv::write_tlv(&mut v, tt::META_INFO, &meta);
        }
        if let Some(c) = &self.content {
            tlv::write_tlv(&mut v, tt::CONTENT, c);
        }
        match &self.signature {
            DataSignature::DigestSha256 => {
                tlv::write_tlv(&mut v, tt::SIGNATURE_INFO, &digest_sha256_info());
                let sig = sha256(&[v.as_slice()]);
                tlv::write_tlv(&mut v, tt::SIGNATURE_VALUE, &sig);
            }
            DataSignature::Raw { info, value } => {
                tlv::write_tlv(&mut v, tt::SIGNATURE_INFO, info);
                tlv::write_tlv(&mut v, tt::SIGNATURE_VALUE, value);
            }
        }
        let mut out = Vec::with_capacity(tlv::tlv_len(tt::DATA, v.len()));
        tlv::write_tlv(&mut out, tt::DATA, &v);
        Data::new_checked(&out)?;
        Ok(out)
    }
}

#[cfg(test)]
#[path = "data_tests.rs"]
mod tests;
