//! Status dataset records: the TLV blocks NFD concatenates into `faces/list`, `faces/channels`,
//! `fib/list`, `rib/list`, `strategy-choice/list`, `cs/info` and `status/general`, plus the
//! face event notification and the face query filter.
//!
//! Each record is a plain owned struct (the daemon fills them from its tables; the client decodes
//! them from fetched segments) with an encoder writing ndn-cxx's field order and a checked decoder
//! that reads the fields in that order, as ndn-cxx does: a missing required field or a bad value
//! is an error; elements after the last known field are ignored. Records serialize to JSON with
//! names as NDN URIs.

mod face;
mod tables;

pub use face::{
    face_flags, ChannelStatus, FaceCounters, FaceEventKind, FaceEventNotification, FacePersistency,
    FaceQueryFilter, FaceScope, FaceStatus, LinkType,
};
pub use tables::{
    cs_flags, route_flags, CsInfo, FibEntry, GeneralStatus, NextHopRecord, RibEntry, Route,
    StrategyChoice,
};

use ndn_packet::tlv::{self, Element, Reader};
use ndn_packet::{DecodeError, Name};

/// A dataset record: one TLV element of a known type.
pub trait Record: Sized {
    /// TLV-TYPE of the record element.
    const TLV_TYPE: u32;

    /// Appends the record's TLV-VALUE.
    fn encode_value(&self, out: &mut Vec<u8>);

    /// Decodes a record from its TLV-VALUE.
    fn decode_value(value: &[u8]) -> Result<Self, DecodeError>;

    /// Appends the whole record element.
    fn encode_to(&self, out: &mut Vec<u8>) {
        let mut v = Vec::with_capacity(64);
        self.encode_value(&mut v);
        tlv::write_tlv(out, Self::TLV_TYPE, &v);
    }
}

/// Decodes a dataset (the concatenated content of all segments) as a list of records. Any
/// element that is not a `T` is an error, as in ndn-cxx's dataset parsers.
pub fn decode_records<T: Record>(content: &[u8]) -> Result<Vec<T>, DecodeError> {
    Reader::new(content)
        .map(|e| {
            let e = e?;
            if e.typ != T::TLV_TYPE {
                return Err(DecodeError::UnexpectedType(e.typ));
            }
            T::decode_value(e.value)
        })
        .collect()
}

/// Encodes a list of records as dataset content.
pub fn encode_records<T: Record>(records: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(records.len() * 64);
    for r in records {
        r.encode_to(&mut out);
    }
    out
}

/// A UTF-8 string value (Uri, LocalUri, StatusText...). ndn-cxx keeps raw bytes; we require
/// UTF-8 so that decode and encode are inverse.
pub(crate) fn read_string(typ: u32, value: &[u8]) -> Result<String, DecodeError> {
    core::str::from_utf8(value)
        .map(str::to_owned)
        .map_err(|_| DecodeError::Invalid(typ))
}

/// Appends a TLV whose value is a string.
pub(crate) fn write_str_tlv(out: &mut Vec<u8>, typ: u32, s: &str) {
    tlv::write_tlv(out, typ, s.as_bytes());
}

/// A checked Name from a Name element's TLV-VALUE.
pub(crate) fn read_name(value: &[u8]) -> Result<Name, DecodeError> {
    Name::from_value(value.to_vec())
}

/// Serializes a [`Name`] as its NDN URI.
pub(crate) fn ser_name<S: serde::Serializer>(n: &Name, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(n)
}

/// Serializes an optional [`Name`] as its NDN URI or null.
pub(crate) fn ser_opt_name<S: serde::Serializer>(
    n: &Option<Name>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match n {
        Some(n) => s.collect_str(n),
        None => s.serialize_none(),
    }
}

/// Reads a record's fields in their fixed order, ndn-cxx style.
pub(crate) struct Fields<'a> {
    reader: Reader<'a>,
    next: Option<Element<'a>>,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(value: &'a [u8]) -> Result<Self, DecodeError> {
        let mut reader = Reader::new(value);
        let next = reader.next().transpose()?;
        Ok(Self { reader, next })
    }

    /// The next element if it has type `typ`.
    pub(crate) fn opt(&mut self, typ: u32) -> Result<Option<Element<'a>>, DecodeError> {
        match self.next {
            Some(e) if e.typ == typ => {
                self.next = self.reader.next().transpose()?;
                Ok(Some(e))
            }
            _ => Ok(None),
        }
    }

    /// The next element, which must have type `typ`.
    pub(crate) fn req(&mut self, typ: u32) -> Result<Element<'a>, DecodeError> {
        self.opt(typ)?.ok_or(DecodeError::Missing(typ))
    }

    pub(crate) fn req_nni(&mut self, typ: u32) -> Result<u64, DecodeError> {
        self.req(typ)?.nni()
    }

    pub(crate) fn opt_nni(&mut self, typ: u32) -> Result<Option<u64>, DecodeError> {
        self.opt(typ)?.map(|e| e.nni()).transpose()
    }

    pub(crate) fn req_str(&mut self, typ: u32) -> Result<String, DecodeError> {
        let e = self.req(typ)?;
        read_string(typ, e.value)
    }

    pub(crate) fn opt_str(&mut self, typ: u32) -> Result<Option<String>, DecodeError> {
        self.opt(typ)?
            .map(|e| read_string(typ, e.value))
            .transpose()
    }

    pub(crate) fn req_name(&mut self) -> Result<Name, DecodeError> {
        read_name(self.req(tlv::tt::NAME)?.value)
    }

    /// Every remaining element of type `typ`, decoded with `f` (stops at the first other type).
    pub(crate) fn repeated<T>(
        &mut self,
        typ: u32,
        f: impl Fn(&[u8]) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let mut v = Vec::new();
        while let Some(e) = self.opt(typ)? {
            v.push(f(e.value)?);
        }
        Ok(v)
    }
}

/// Appends `typ` with a NonNegativeInteger value when `v` is present.
pub(crate) fn write_opt_nni(out: &mut Vec<u8>, typ: u32, v: Option<u64>) {
    if let Some(v) = v {
        tlv::write_nni_tlv(out, typ, v);
    }
}
