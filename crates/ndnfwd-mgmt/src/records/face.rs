//! Face management records: FaceStatus (128), ChannelStatus (130), FaceEventNotification (192),
//! FaceQueryFilter (150), and the FaceScope, FacePersistency, LinkType enumerations.

use core::fmt;

use ndn_packet::tlv;
use ndn_packet::DecodeError;
use serde::Serialize;

use super::{write_opt_nni, write_str_tlv, Fields, Record};
use crate::tt;

macro_rules! nfd_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $value:expr, $text:expr;)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            /// Decodes the NonNegativeInteger of a field of type `typ`; unknown values are errors.
            pub fn from_nni(typ: u32, v: u64) -> Result<Self, DecodeError> {
                match v {
                    $($value => Ok(Self::$variant),)*
                    _ => Err(DecodeError::Invalid(typ)),
                }
            }

            /// The wire value.
            pub fn to_nni(self) -> u64 {
                match self {
                    $(Self::$variant => $value,)*
                }
            }

            /// The word nfdc prints.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)*
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

nfd_enum!(
    /// NFD's FaceScope.
    FaceScope {
        /// Another host.
        NonLocal = 0, "non-local";
        /// An application on this host.
        Local = 1, "local";
    }
);

nfd_enum!(
    /// NFD's FacePersistency.
    FacePersistency {
        /// Made by a command; closed when the transport fails.
        Persistent = 0, "persistent";
        /// Made by a listener; closed when idle or when the peer leaves.
        OnDemand = 1, "on-demand";
        /// Kept even when the transport fails.
        Permanent = 2, "permanent";
    }
);

nfd_enum!(
    /// NFD's LinkType.
    LinkType {
        /// One peer.
        PointToPoint = 0, "point-to-point";
        /// A group that all hear each other.
        MultiAccess = 1, "multi-access";
        /// A group where not everybody hears everybody.
        AdHoc = 2, "adhoc";
    }
);

nfd_enum!(
    /// FaceEventKind of a FaceEventNotification.
    FaceEventKind {
        /// The face was created.
        Created = 1, "created";
        /// The face was destroyed.
        Destroyed = 2, "destroyed";
        /// The face came up.
        Up = 3, "up";
        /// The face went down.
        Down = 4, "down";
    }
);

/// Face flag bits (ControlParameters Flags/Mask and FaceStatus Flags).
pub mod face_flags {
    /// NDNLPv2 local fields (IncomingFaceId, NextHopFaceId, CachePolicy) enabled.
    pub const LOCAL_FIELDS_ENABLED: u32 = 0;
    /// NDNLPv2 reliability enabled.
    pub const LP_RELIABILITY_ENABLED: u32 = 1;
    /// Congestion marking enabled.
    pub const CONGESTION_MARKING_ENABLED: u32 = 2;
}

/// The eight counters of a FaceStatus.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[allow(missing_docs)]
pub struct FaceCounters {
    pub n_in_interests: u64,
    pub n_in_data: u64,
    pub n_in_nacks: u64,
    pub n_out_interests: u64,
    pub n_out_data: u64,
    pub n_out_nacks: u64,
    pub n_in_bytes: u64,
    pub n_out_bytes: u64,
}

/// One face in `faces/list` and `faces/query`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FaceStatus {
    /// FaceId.
    pub face_id: u64,
    /// Remote FaceUri.
    pub uri: String,
    /// Local FaceUri.
    pub local_uri: String,
    /// Milliseconds until an on-demand face expires, if it does.
    pub expiration_period: Option<u64>,
    /// Local or non-local.
    pub face_scope: FaceScope,
    /// Persistency.
    pub face_persistency: FacePersistency,
    /// Link type.
    pub link_type: LinkType,
    /// Congestion marking base interval in nanoseconds.
    pub base_congestion_marking_interval: Option<u64>,
    /// Congestion threshold in bytes.
    pub default_congestion_threshold: Option<u64>,
    /// Effective MTU in bytes (absent for unlimited, as on stream faces).
    pub mtu: Option<u64>,
    /// Packet and byte counters.
    pub counters: FaceCounters,
    /// Face flags (see [`face_flags`]).
    pub flags: u64,
}

impl Record for FaceStatus {
    const TLV_TYPE: u32 = tt::FACE_STATUS;

    fn encode_value(&self, out: &mut Vec<u8>) {
        tlv::write_nni_tlv(out, tt::FACE_ID, self.face_id);
        write_str_tlv(out, tt::URI, &self.uri);
        write_str_tlv(out, tt::LOCAL_URI, &self.local_uri);
        write_opt_nni(out, tt::EXPIRATION_PERIOD, self.expiration_period);
        tlv::write_nni_tlv(out, tt::FACE_SCOPE, self.face_scope.to_nni());
        tlv::write_nni_tlv(out, tt::FACE_PERSISTENCY, self.face_persistency.to_nni());
        tlv::write_nni_tlv(out, tt::LINK_TYPE, self.link_type.to_nni());
        write_opt_nni(
            out,
            tt::BASE_CONGESTION_MARKING_INTERVAL,
            self.base_congestion_marking_interval,
        );
        write_opt_nni(
            out,
            tt::DEFAULT_CONGESTION_THRESHOLD,
            self.default_congestion_threshold,
        );
        write_opt_nni(out, tt::MTU, self.mtu);
        let c = &self.counters;
        for (typ, v) in [
            (tt::N_IN_INTERESTS, c.n_in_interests),
            (tt::N_IN_DATA, c.n_in_data),
            (tt::N_IN_NACKS, c.n_in_nacks),
            (tt::N_OUT_INTERESTS, c.n_out_interests),
            (tt::N_OUT_DATA, c.n_out_data),
            (tt::N_OUT_NACKS, c.n_out_nacks),
            (tt::N_IN_BYTES, c.n_in_bytes),
            (tt::N_OUT_BYTES, c.n_out_bytes),
        ] {
            tlv::write_nni_tlv(out, typ, v);
        }
        tlv::write_nni_tlv(out, tt::FLAGS, self.flags);
    }

    fn decode_value(value: &[u8]) -> Result<Self, DecodeError> {
        let mut f = Fields::new(value)?;
        Ok(Self {
            face_id: f.req_nni(tt::FACE_ID)?,
            uri: f.req_str(tt::URI)?,
            local_uri: f.req_str(tt::LOCAL_URI)?,
            expiration_period: f.opt_nni(tt::EXPIRATION_PERIOD)?,
            face_scope: FaceScope::from_nni(tt::FACE_SCOPE, f.req_nni(tt::FACE_SCOPE)?)?,
            face_persistency: FacePersistency::from_nni(
                tt::FACE_PERSISTENCY,
                f.req_nni(tt::FACE_PERSISTENCY)?,
            )?,
            link_type: LinkType::from_nni(tt::LINK_TYPE, f.req_nni(tt::LINK_TYPE)?)?,
            base_congestion_marking_interval: f.opt_nni(tt::BASE_CONGESTION_MARKING_INTERVAL)?,
            default_congestion_threshold: f.opt_nni(tt::DEFAULT_CONGESTION_THRESHOLD)?,
            mtu: f.opt_nni(tt::MTU)?,
            counters: FaceCounters {
                n_in_interests: f.req_nni(tt::N_IN_INTERESTS)?,
                n_in_data: f.req_nni(tt::N_IN_DATA)?,
                n_in_nacks: f.req_nni(tt::N_IN_NACKS)?,
                n_out_interests: f.req_nni(tt::N_OUT_INTERESTS)?,
                n_out_data: f.req_nni(tt::N_OUT_DATA)?,
                n_out_nacks: f.req_nni(tt::N_OUT_NACKS)?,
                n_in_bytes: f.req_nni(tt::N_IN_BYTES)?,
                n_out_bytes: f.req_nni(tt::N_OUT_BYTES)?,
            },
            flags: f.req_nni(tt::FLAGS)?,
        })
    }
}

/// One listening channel in `faces/channels`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChannelStatus {
    /// The channel's local FaceUri (`udp4://0.0.0.0:6363`, `unix:///run/nfd/nfd.sock`...).
    pub local_uri: String,
}

impl Record for ChannelStatus {
    const TLV_TYPE: u32 = tt::CHANNEL_STATUS;

    fn encode_value(&self, out: &mut Vec<u8>) {
        write_str_tlv(out, tt::LOCAL_URI, &self.local_uri);
    }

    fn decode_value(value: &[u8]) -> Result<Self, DecodeError> {
        Ok(Self {
            local_uri: Fields::new(value)?.req_str(tt::LOCAL_URI)?,
        })
    }
}

/// One item of the `faces/events` notification stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[allow(missing_docs)]
pub struct FaceEventNotification {
    pub kind: FaceEventKind,
    pub face_id: u64,
    pub uri: String,
    pub local_uri: String,
    pub face_scope: FaceScope,
    pub face_persistency: FacePersistency,
    pub link_type: LinkType,
    pub flags: u64,
}

impl FaceEventNotification {
    /// The notification describing `face`.
    pub fn from_status(kind: FaceEventKind, face: &FaceStatus) -> Self {
        Self {
            kind,
            face_id: face.face_id,
            uri: face.uri.clone(),
            local_uri: face.local_uri.clone(),
            face_scope: face.face_scope,
            face_persistency: face.face_persistency,
            link_type: face.link_type,
            flags: face.flags,
        }
    }
}

impl Record for FaceEventNotification {
    const TLV_TYPE: u32 = tt::FACE_EVENT_NOTIFICATION;

    fn encode_value(&self, out: &mut Vec<u8>) {
        tlv::write_nni_tlv(out, tt::FACE_EVENT_KIND, self.kind.to_nni());
        tlv::write_nni_tlv(out, tt::FACE_ID, self.face_id);
        write_str_tlv(out, tt::URI, &self.uri);
        write_str_tlv(out, tt::LOCAL_URI, &self.local_uri);
        tlv::write_nni_tlv(out, tt::FACE_SCOPE, self.face_scope.to_nni());
        tlv::write_nni_tlv(out, tt::FACE_PERSISTENCY, self.face_persistency.to_nni());
        tlv::write_nni_tlv(out, tt::LINK_TYPE, self.link_type.to_nni());
        tlv::write_nni_tlv(out, tt::FLAGS, self.flags);
    }

    fn decode_value(value: &[u8]) -> Result<Self, DecodeError> {
        let mut f = Fields::new(value)?;
        Ok(Self {
            kind: FaceEventKind::from_nni(tt::FACE_EVENT_KIND, f.req_nni(tt::FACE_EVENT_KIND)?)?,
            face_id: f.req_nni(tt::FACE_ID)?,
            uri: f.req_str(tt::URI)?,
            local_uri: f.req_str(tt::LOCAL_URI)?,
            face_scope: FaceScope::from_nni(tt::FACE_SCOPE, f.req_nni(tt::FACE_SCOPE)?)?,
            face_persistency: FacePersistency::from_nni(
                tt::FACE_PERSISTENCY,
                f.req_nni(tt::FACE_PERSISTENCY)?,
            )?,
            link_type: LinkType::from_nni(tt::LINK_TYPE, f.req_nni(tt::LINK_TYPE)?)?,
            flags: f.req_nni(tt::FLAGS)?,
        })
    }
}

/// The filter of a `faces/query` dataset request: every present field must match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[allow(missing_docs)]
pub struct FaceQueryFilter {
    pub face_id: Option<u64>,
    /// Matches the scheme of either the remote or the local FaceUri.
    pub uri_scheme: Option<String>,
    pub uri: Option<String>,
    pub local_uri: Option<String>,
    pub face_scope: Option<FaceScope>,
    pub face_persistency: Option<FacePersistency>,
    pub link_type: Option<LinkType>,
}

impl FaceQueryFilter {
    /// NFD's `doesMatchFilter`.
    pub fn matches(&self, face: &FaceStatus) -> bool {
        let scheme = |uri: &str| uri.split("://").next().map(str::to_owned);
        self.face_id.is_none_or(|id| id == face.face_id)
            && self.uri_scheme.as_ref().is_none_or(|s| {
                scheme(&face.uri).as_ref() == Some(s) || scheme(&face.local_uri).as_ref() == Some(s)
            })
            && self.uri.as_ref().is_none_or(|u| *u == face.uri)
            && self.local_uri.as_ref().is_none_or(|u| *u == face.local_uri)
            && self.face_scope.is_none_or(|s| s == face.face_scope)
            && self
                .face_persistency
                .is_none_or(|p| p == face.face_persistency)
            && self.link_type.is_none_or(|l| l == face.link_type)
    }
}

impl Record for FaceQueryFilter {
    const TLV_TYPE: u32 = tt::FACE_QUERY_FILTER;

    fn encode_value(&self, out: &mut Vec<u8>) {
        write_opt_nni(out, tt::FACE_ID, self.face_id);
        for (typ, s) in [
            (tt::URI_SCHEME, &self.uri_scheme),
            (tt::URI, &self.uri),
            (tt::LOCAL_URI, &self.local_uri),
        ] {
            if let Some(s) = s {
                write_str_tlv(out, typ, s);
            }
        }
        write_opt_nni(out, tt::FACE_SCOPE, self.face_scope.map(FaceScope::to_nni));
        write_opt_nni(
            out,
            tt::FACE_PERSISTENCY,
            self.face_persistency.map(FacePersistency::to_nni),
        );
        write_opt_nni(out, tt::LINK_TYPE, self.link_type.map(LinkType::to_nni));
    }

    fn decode_value(value: &[u8]) -> Result<Self, DecodeError> {
        let mut f = Fields::new(value)?;
        Ok(Self {
            face_id: f.opt_nni(tt::FACE_ID)?,
            uri_scheme: f.opt_str(tt::URI_SCHEME)?,
            uri: f.opt_str(tt::URI)?,
            local_uri: f.opt_str(tt::LOCAL_URI)?,
            face_scope: f
                .opt_nni(tt::FACE_SCOPE)?
                .map(|v| FaceScope::from_nni(tt::FACE_SCOPE, v))
                .transpose()?,
            face_persistency: f
                .opt_nni(tt::FACE_PERSISTENCY)?
                .map(|v| FacePersistency::from_nni(tt::FACE_PERSISTENCY, v))
                .transpose()?,
            link_type: f
                .opt_nni(tt::LINK_TYPE)?
                .map(|v| LinkType::from_nni(tt::LINK_TYPE, v))
                .transpose()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use crate::records::{decode_records, encode_records};

    pub(crate) fn udp_face() -> FaceStatus {
        FaceStatus {
            face_id: 300,
            uri: "udp4://192.0.2.1:6363".into(),
            local_uri: "udp4://192.0.2.2:6363".into(),
            expiration_period: None,
            face_scope: FaceScope::NonLocal,
            face_persistency: FacePersistency::Persistent,
            link_type: LinkType::PointToPoint,
            base_congestion_marking_interval: None,
            default_congestion_threshold: None,
            mtu: Some(1400),
            counters: FaceCounters {
                n_in_interests: 1,
                n_in_data: 2,
                n_in_nacks: 3,
                n_out_interests: 4,
                n_out_data: 5,
                n_out_nacks: 6,
                n_in_bytes: 700,
                n_out_bytes: 80000,
            },
            flags: 0,
        }
    }

    #[test]
    fn face_status_matches_python_ndn() {
        let f = udp_face();
        assert_eq!(
            encode_records(std::slice::from_ref(&f)),
            fixtures::FACE_STATUS
        );
        assert_eq!(decode_records(&fixtures::FACE_STATUS), Ok(vec![f]));
        // Missing Flags (the last required field).
        let cut = &fixtures::FACE_STATUS[2..fixtures::FACE_STATUS.len() - 3];
        assert_eq!(
            FaceStatus::decode_value(cut),
            Err(DecodeError::Missing(tt::FLAGS))
        );
    }

    #[test]
    fn face_event_and_filter_match_python_ndn() {
        let ev = FaceEventNotification {
            kind: FaceEventKind::Created,
            face_id: 300,
            uri: "fd://12".into(),
            local_uri: "unix:///run/nfd/nfd.sock".into(),
            face_scope: FaceScope::Local,
            face_persistency: FacePersistency::OnDemand,
            link_type: LinkType::PointToPoint,
            flags: 1,
        };
        assert_eq!(
            encode_records(std::slice::from_ref(&ev)),
            fixtures::FACE_EVENT
        );
        assert_eq!(decode_records(&fixtures::FACE_EVENT), Ok(vec![ev]));
        let filter = FaceQueryFilter {
            uri_scheme: Some("udp4".into()),
            face_scope: Some(FaceScope::NonLocal),
            ..Default::default()
        };
        assert_eq!(
            encode_records(std::slice::from_ref(&filter)),
            fixtures::FACE_QUERY_FILTER
        );
        assert_eq!(
            decode_records(&fixtures::FACE_QUERY_FILTER),
            Ok(vec![filter.clone()])
        );
        let mut face = udp_face();
        assert!(filter.matches(&face));
        face.face_scope = FaceScope::Local;
        assert!(!filter.matches(&face));
        face.face_scope = FaceScope::NonLocal;
        face.uri = "tcp4://192.0.2.1:6363".into();
        assert!(filter.matches(&face), "local uri scheme still udp4");
        face.local_uri = "tcp4://192.0.2.2:6363".into();
        assert!(!filter.matches(&face));
        assert!(FaceQueryFilter::default().matches(&face));
    }

    #[test]
    fn enums_reject_unknown_values_and_channels_round_trip() {
        assert_eq!(
            LinkType::from_nni(tt::LINK_TYPE, 3),
            Err(DecodeError::Invalid(tt::LINK_TYPE))
        );
        assert_eq!(FacePersistency::OnDemand.to_string(), "on-demand");
        let ch = vec![
            ChannelStatus {
                local_uri: "udp4://0.0.0.0:6363".into(),
            },
            ChannelStatus {
                local_uri: "unix:///run/nfd/nfd.sock".into(),
            },
        ];
        assert_eq!(decode_records(&encode_records(&ch)), Ok(ch));
        assert!(decode_records::<ChannelStatus>(&fixtures::FACE_STATUS).is_err());
    }
}
