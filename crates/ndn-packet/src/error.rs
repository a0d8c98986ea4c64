//! The codec's error type: small, `Copy`, never a string.

use core::fmt;

/// Why a buffer could not be decoded. Each variant maps to one drop counter in the forwarder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecodeError {
    /// The buffer ended inside a TLV-TYPE, TLV-LENGTH or TLV-VALUE.
    Truncated,
    /// A VAR-NUMBER was not in its shortest form, or a TLV-TYPE was 0 or above `u32::MAX`.
    BadVarNumber,
    /// A NonNegativeInteger whose length is not 1, 2, 4 or 8.
    BadNonNegativeInteger,
    /// The outer TLV had an unexpected type (for example not an Interest where one was required).
    UnexpectedType(u32),
    /// An unrecognized element that the critical-type rule says must not be ignored.
    UnknownCritical(u32),
    /// A required element is absent (for example the Name of an Interest).
    Missing(u32),
    /// A recognized element appeared out of order or more than once.
    OutOfOrder(u32),
    /// A field has an invalid value (wrong length nonce, empty digest component, bad URI...).
    Invalid(u32),
    /// Trailing bytes after the outer TLV.
    TrailingBytes,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated => f.write_str("truncated TLV"),
            Self::BadVarNumber => f.write_str("bad VAR-NUMBER"),
            Self::BadNonNegativeInteger => f.write_str("bad NonNegativeInteger length"),
            Self::UnexpectedType(t) => write!(f, "unexpected TLV type {t}"),
            Self::UnknownCritical(t) => write!(f, "unknown critical TLV type {t}"),
            Self::Missing(t) => write!(f, "missing required TLV type {t}"),
            Self::OutOfOrder(t) => write!(f, "TLV type {t} out of order or repeated"),
            Self::Invalid(t) => write!(f, "invalid value in TLV type {t}"),
            Self::TrailingBytes => f.write_str("trailing bytes after packet"),
        }
    }
}

impl std::error::Error for DecodeError {}
