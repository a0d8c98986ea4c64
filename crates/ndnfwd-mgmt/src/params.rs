//! ControlParameters (TLV-TYPE 104): the arguments of every NFD control command and the body of
//! a successful ControlResponse.
//!
//! ```text
//! ControlParameters = CONTROL-PARAMETERS-TYPE TLV-LENGTH
//!                       [Name] [FaceId] [Uri] [LocalUri] [Origin] [Cost] [Capacity] [Count]
//!                       [Flags] [Mask] [Strategy] [ExpirationPeriod] [FacePersistency]
//!                       [BaseCongestionMarkingInterval] [DefaultCongestionThreshold] [Mtu]
//! Strategy = STRATEGY-TYPE TLV-LENGTH Name
//! ```
//!
//! The encoder writes fields in the order above (ndn-cxx's). The decoder, like ndn-cxx's,
//! accepts them in any order (python-ndn writes the congestion fields before Flags), takes the
//! first occurrence of a repeated field and ignores unrecognized elements; a recognized field
//! with a bad value (a NonNegativeInteger of 3 bytes, a Uri that is not UTF-8, an unknown
//! FacePersistency, a Strategy without a Name) is an error.

use ndn_packet::tlv::{self, Reader};
use ndn_packet::{DecodeError, Name};

use serde::Serialize;

use crate::records::{read_name, read_string, ser_opt_name, write_str_tlv, FacePersistency};
use crate::tt;

/// One ControlParameters field, for the per-command required/optional rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Field {
    Name,
    FaceId,
    Uri,
    LocalUri,
    Origin,
    Cost,
    Capacity,
    Count,
    Flags,
    Mask,
    Strategy,
    ExpirationPeriod,
    FacePersistency,
    BaseCongestionMarkingInterval,
    DefaultCongestionThreshold,
    Mtu,
}

impl Field {
    /// Every field, in encoding order.
    pub const ALL: [Field; 16] = [
        Field::Name,
        Field::FaceId,
        Field::Uri,
        Field::LocalUri,
        Field::Origin,
        Field::Cost,
        Field::Capacity,
        Field::Count,
        Field::Flags,
        Field::Mask,
        Field::Strategy,
        Field::ExpirationPeriod,
        Field::FacePersistency,
        Field::BaseCongestionMarkingInterval,
        Field::DefaultCongestionThreshold,
        Field::Mtu,
    ];

    /// The field's name as NFD spells it in error texts.
    pub const fn as_str(self) -> &'static str {
        match self {
            Field::Name => "Name",
            Field::FaceId => "FaceId",
            Field::Uri => "Uri",
            Field::LocalUri => "LocalUri",
            Field::Origin => "Origin",
            Field::Cost => "Cost",
            Field::Capacity => "Capacity",
            Field::Count => "Count",
            Field::Flags => "Flags",
            Field::Mask => "Mask",
            Field::Strategy => "Strategy",
            Field::ExpirationPeriod => "ExpirationPeriod",
            Field::FacePersistency => "FacePersistency",
            Field::BaseCongestionMarkingInterval => "BaseCongestionMarkingInterval",
            Field::DefaultCongestionThreshold => "DefaultCongestionThreshold",
            Field::Mtu => "Mtu",
        }
    }

    /// A one-bit mask for [`FieldSet`].
    pub const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A set of [`Field`]s as a bit mask.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct FieldSet(pub u16);

impl FieldSet {
    /// The set holding `fields`.
    pub const fn of(fields: &[Field]) -> Self {
        let mut bits = 0;
        let mut i = 0;
        while i < fields.len() {
            // Const context: plain indexing is the only loop form available; `i < len` holds.
            #[allow(clippy::indexing_slicing)]
            {
                bits |= fields[i].bit();
            }
            i += 1;
        }
        Self(bits)
    }

    /// True when `f` is in the set.
    pub const fn contains(self, f: Field) -> bool {
        self.0 & f.bit() != 0
    }
}

/// Decoded ControlParameters: every field NFD defines, each optional. Serializes to JSON with
/// names as URIs and absent fields left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ControlParameters {
    /// Name (a prefix for FIB, RIB, strategy and CS commands).
    #[serde(serialize_with = "ser_opt_name")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Name>,
    /// FaceId; 0 means "the face this command came from" for commands that allow it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub face_id: Option<u64>,
    /// Uri: a remote FaceUri.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// LocalUri: a local FaceUri.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_uri: Option<String>,
    /// Origin of a route (0 app, 64 autoreg, 65 client, 66 autoconf, 128 NLSR, 129 prefix
    /// announcement, 255 static).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<u64>,
    /// Cost of a route or next hop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<u64>,
    /// Capacity (CS entries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<u64>,
    /// Count (CS entries to erase, or erased).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Flags (route, face or CS flags, depending on the command).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<u64>,
    /// Mask: which bits of Flags the command changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mask: Option<u64>,
    /// Strategy name.
    #[serde(serialize_with = "ser_opt_name")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Name>,
    /// ExpirationPeriod in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expiration_period: Option<u64>,
    /// FacePersistency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub face_persistency: Option<FacePersistency>,
    /// BaseCongestionMarkingInterval in nanoseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_congestion_marking_interval: Option<u64>,
    /// DefaultCongestionThreshold in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_congestion_threshold: Option<u64>,
    /// Mtu in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u64>,
}

impl ControlParameters {
    /// Decodes one whole ControlParameters TLV (type 104), never panicking. This is the fuzzing
    /// entry point: whatever it accepts, [`ControlParameters::encode`] turns back into bytes that
    /// decode to an equal value.
    pub fn new_checked(wire: &[u8]) -> Result<Self, DecodeError> {
        let outer = tlv::read_single(wire)?;
        if outer.typ != tt::CONTROL_PARAMETERS {
            return Err(DecodeError::UnexpectedType(outer.typ));
        }
        Self::from_value(outer.value)
    }

    /// Decodes the TLV-VALUE of a ControlParameters element.
    pub fn from_value(value: &[u8]) -> Result<Self, DecodeError> {
        let mut p = Self::default();
        for e in Reader::new(value) {
            let e = e?;
            let nni = |slot: &mut Option<u64>| -> Result<(), DecodeError> {
                if slot.is_none() {
                    *slot = Some(e.nni()?);
                }
                Ok(())
            };
            let string = |slot: &mut Option<String>| -> Result<(), DecodeError> {
                if slot.is_none() {
                    *slot = Some(read_string(e.typ, e.value)?);
                }
                Ok(())
            };
            match e.typ {
                ndn_packet::tlv::tt::NAME if p.name.is_none() => {
                    p.name = Some(read_name(e.value)?);
                }
                tt::FACE_ID => nni(&mut p.face_id)?,
                tt::URI => string(&mut p.uri)?,
                tt::LOCAL_URI => string(&mut p.local_uri)?,
                tt::ORIGIN => nni(&mut p.origin)?,
                tt::COST => nni(&mut p.cost)?,
                tt::CAPACITY => nni(&mut p.capacity)?,
                tt::COUNT => nni(&mut p.count)?,
                tt::FLAGS => nni(&mut p.flags)?,
                tt::MASK => nni(&mut p.mask)?,
                tt::STRATEGY if p.strategy.is_none() => {
                    let inner = Reader::new(e.value)
                        .next()
                        .ok_or(DecodeError::Missing(ndn_packet::tlv::tt::NAME))??;
                    if inner.typ != ndn_packet::tlv::tt::NAME {
                        return Err(DecodeError::Missing(ndn_packet::tlv::tt::NAME));
                    }
                    p.strategy = Some(read_name(inner.value)?);
                }
                tt::EXPIRATION_PERIOD => nni(&mut p.expiration_period)?,
                tt::FACE_PERSISTENCY if p.face_persistency.is_none() => {
                    p.face_persistency = Some(FacePersistency::from_nni(e.typ, e.nni()?)?);
                }
                tt::BASE_CONGESTION_MARKING_INTERVAL => {
                    nni(&mut p.base_congestion_marking_interval)?
                }
                tt::DEFAULT_CONGESTION_THRESHOLD => nni(&mut p.default_congestion_threshold)?,
                tt::MTU => nni(&mut p.mtu)?,
                _ => {}
            }
        }
        Ok(p)
    }

    /// The set of present fields.
    pub fn present(&self) -> FieldSet {
        let mut s = 0;
        for f in Field::ALL {
            if self.has(f) {
                s |= f.bit();
            }
        }
        FieldSet(s)
    }

    /// Whether field `f` is present.
    pub fn has(&self, f: Field) -> bool {
        match f {
            Field::Name => self.name.is_some(),
            Field::FaceId => self.face_id.is_some(),
            Field::Uri => self.uri.is_some(),
            Field::LocalUri => self.local_uri.is_some(),
            Field::Origin => self.origin.is_some(),
            Field::Cost => self.cost.is_some(),
            Field::Capacity => self.capacity.is_some(),
            Field::Count => self.count.is_some(),
            Field::Flags => self.flags.is_some(),
            Field::Mask => self.mask.is_some(),
            Field::Strategy => self.strategy.is_some(),
            Field::ExpirationPeriod => self.expiration_period.is_some(),
            Field::FacePersistency => self.face_persistency.is_some(),
            Field::BaseCongestionMarkingInterval => self.base_congestion_marking_interval.is_some(),
            Field::DefaultCongestionThreshold => self.default_congestion_threshold.is_some(),
            Field::Mtu => self.mtu.is_some(),
        }
    }

    /// Whether bit `bit` of Flags is selected by Mask (NFD's `hasFlagBit`).
    pub fn has_flag_bit(&self, bit: u32) -> bool {
        self.mask
            .is_some_and(|m| m.checked_shr(bit).unwrap_or(0) & 1 == 1)
    }

    /// Bit `bit` of Flags (false when Flags is absent).
    pub fn flag_bit(&self, bit: u32) -> bool {
        self.flags
            .is_some_and(|f| f.checked_shr(bit).unwrap_or(0) & 1 == 1)
    }

    /// The masked value of bit `bit`: `Some(value)` when Mask selects it.
    pub fn masked_bit(&self, bit: u32) -> Option<bool> {
        self.has_flag_bit(bit).then(|| self.flag_bit(bit))
    }

    /// Appends the TLV-VALUE (fields in ndn-cxx's order).
    pub fn encode_value(&self, out: &mut Vec<u8>) {
        if let Some(n) = &self.name {
            n.as_ref().encode_to(out);
        }
        let nni = |out: &mut Vec<u8>, typ, v: Option<u64>| {
            if let Some(v) = v {
                tlv::write_nni_tlv(out, typ, v);
            }
        };
        nni(out, tt::FACE_ID, self.face_id);
        if let Some(u) = &self.uri {
            write_str_tlv(out, tt::URI, u);
        }
        if let Some(u) = &self.local_uri {
            write_str_tlv(out, tt::LOCAL_URI, u);
        }
        nni(out, tt::ORIGIN, self.origin);
        nni(out, tt::COST, self.cost);
        nni(out, tt::CAPACITY, self.capacity);
        nni(out, tt::COUNT, self.count);
        nni(out, tt::FLAGS, self.flags);
        nni(out, tt::MASK, self.mask);
        if let Some(s) = &self.strategy {
            let n = s.as_ref();
            tlv::write_header(out, tt::STRATEGY, n.encoded_len());
            n.encode_to(out);
        }
        nni(out, tt::EXPIRATION_PERIOD, self.expiration_period);
        nni(
            out,
            tt::FACE_PERSISTENCY,
            self.face_persistency.map(FacePersistency::to_nni),
        );
        nni(
            out,
            tt::BASE_CONGESTION_MARKING_INTERVAL,
            self.base_congestion_marking_interval,
        );
        nni(
            out,
            tt::DEFAULT_CONGESTION_THRESHOLD,
            self.default_congestion_threshold,
        );
        nni(out, tt::MTU, self.mtu);
    }

    /// The whole ControlParameters TLV.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(64);
        self.encode_value(&mut v);
        let mut out = Vec::with_capacity(v.len() + 4);
        tlv::write_tlv(&mut out, tt::CONTROL_PARAMETERS, &v);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use proptest::prelude::*;

    fn n(uri: &str) -> Name {
        Name::from_uri(uri).unwrap()
    }

    #[test]
    fn matches_python_ndn_bytes() {
        // python-ndn ControlParameters(name='/a/b', face_id=300, cost=10, origin=0, flags=1,
        // expiration_period=60000).
        let p = ControlParameters {
            name: Some(n("/a/b")),
            face_id: Some(300),
            origin: Some(0),
            cost: Some(10),
            flags: Some(1),
            expiration_period: Some(60000),
            ..Default::default()
        };
        assert_eq!(p.encode(), fixtures::CP_ROUTE);
        assert_eq!(ControlParameters::new_checked(&fixtures::CP_ROUTE), Ok(p));
    }

    #[test]
    fn every_field_round_trips_in_ndn_cxx_order() {
        let p = ControlParameters {
            name: Some(n("/x")),
            face_id: Some(1),
            uri: Some("udp4://192.0.2.1:6363".into()),
            local_uri: Some("udp4://0.0.0.0:6363".into()),
            origin: Some(255),
            cost: Some(70000),
            capacity: Some(2),
            count: Some(3),
            flags: Some(4),
            mask: Some(5),
            strategy: Some(n("/localhost/nfd/strategy/best-route")),
            expiration_period: Some(6),
            face_persistency: Some(FacePersistency::Permanent),
            base_congestion_marking_interval: Some(7),
            default_congestion_threshold: Some(8),
            mtu: Some(9),
        };
        let wire = p.encode();
        assert_eq!(p.present(), FieldSet(0xffff));
        let types: Vec<u32> = Reader::new(&wire[2..]).map(|e| e.unwrap().typ).collect();
        assert_eq!(
            types,
            [7, 105, 114, 129, 111, 106, 131, 132, 108, 112, 107, 109, 133, 135, 136, 137]
        );
        assert_eq!(ControlParameters::new_checked(&wire), Ok(p));
    }

    #[test]
    fn decoder_is_lenient_like_ndn_cxx_but_checks_values() {
        // Any order, first occurrence wins, unknown elements (even critical) ignored.
        let wire = [104, 12, 106, 1, 5, 105, 1, 9, 106, 1, 6, 253, 0, 0];
        // The last element is a truncated header: error.
        assert!(ControlParameters::new_checked(&wire).is_err());
        let wire = [104, 11, 106, 1, 5, 105, 1, 9, 106, 1, 6, 31, 0];
        let p = ControlParameters::new_checked(&wire).unwrap();
        assert_eq!((p.cost, p.face_id), (Some(5), Some(9)));
        for bad in [
            &[104, 5, 105, 3, 0, 0, 1][..], // 3-byte NonNegativeInteger
            &[104, 3, 114, 1, 0xff],        // Uri not UTF-8
            &[104, 3, 133, 1, 9],           // unknown persistency
            &[104, 2, 107, 0],              // Strategy without Name
            &[104, 5, 107, 3, 8, 1, b'a'],  // Strategy holding a component, not a Name
            &[104, 4, 7, 2, 8, 5],          // broken Name
            &[101, 0],                      // not ControlParameters
            &[104, 0, 0],                   // trailing byte
        ] {
            assert!(ControlParameters::new_checked(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            ControlParameters::new_checked(&[104, 0]),
            Ok(ControlParameters::default())
        );
    }

    #[test]
    fn flag_bits() {
        let p = ControlParameters {
            flags: Some(0b01),
            mask: Some(0b11),
            ..Default::default()
        };
        assert_eq!(
            (p.masked_bit(0), p.masked_bit(1), p.masked_bit(2)),
            (Some(true), Some(false), None)
        );
        assert!(!p.has_flag_bit(64) && !p.flag_bit(99));
    }

    proptest! {
        #[test]
        fn decode_never_panics_and_round_trips(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut wire = Vec::new();
            tlv::write_tlv(&mut wire, tt::CONTROL_PARAMETERS, &bytes);
            if let Ok(p) = ControlParameters::new_checked(&wire) {
                prop_assert_eq!(ControlParameters::new_checked(&p.encode()), Ok(p));
            }
            let _ = ControlParameters::new_checked(&bytes);
        }
    }
}
