//! Table records: FibEntry/NextHopRecord, RibEntry/Route, StrategyChoice, CsInfo, and the
//! forwarder's general status.

use ndn_packet::tlv;
use ndn_packet::{DecodeError, Name};
use serde::Serialize;

use super::{ser_name, write_opt_nni, write_str_tlv, Fields, Record};
use crate::tt;

/// One next hop of a FIB entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NextHopRecord {
    /// Outgoing face.
    pub face_id: u64,
    /// Cost.
    pub cost: u64,
}

/// One FIB entry in `fib/list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FibEntry {
    /// Prefix.
    #[serde(serialize_with = "ser_name")]
    pub name: Name,
    /// Next hops.
    pub next_hops: Vec<NextHopRecord>,
}

impl Record for FibEntry {
    const TLV_TYPE: u32 = tt::FIB_ENTRY;

    fn encode_value(&self, out: &mut Vec<u8>) {
        self.name.as_ref().encode_to(out);
        for nh in &self.next_hops {
            let mut v = Vec::with_capacity(12);
            tlv::write_nni_tlv(&mut v, tt::FACE_ID, nh.face_id);
            tlv::write_nni_tlv(&mut v, tt::COST, nh.cost);
            tlv::write_tlv(out, tt::NEXT_HOP_RECORD, &v);
        }
    }

    fn decode_value(value: &[u8]) -> Result<Self, DecodeError> {
        let mut f = Fields::new(value)?;
        Ok(Self {
            name: f.req_name()?,
            next_hops: f.repeated(tt::NEXT_HOP_RECORD, |v| {
                let mut f = Fields::new(v)?;
                Ok(NextHopRecord {
                    face_id: f.req_nni(tt::FACE_ID)?,
                    cost: f.req_nni(tt::COST)?,
                })
            })?,
        })
    }
}

/// Route flag bits.
pub mod route_flags {
    /// The route also applies to longer prefixes.
    pub const CHILD_INHERIT: u64 = 1;
    /// Routes of shorter prefixes do not apply below this one.
    pub const CAPTURE: u64 = 2;
}

/// One route of a RIB entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Route {
    /// Next-hop face.
    pub face_id: u64,
    /// Who installed the route (0 app, 255 static...).
    pub origin: u64,
    /// Cost.
    pub cost: u64,
    /// Route flags (see [`route_flags`]).
    pub flags: u64,
    /// Milliseconds until the route expires; `None` for never.
    pub expiration_period: Option<u64>,
}

impl Route {
    fn encode_value(&self, out: &mut Vec<u8>) {
        tlv::write_nni_tlv(out, tt::FACE_ID, self.face_id);
        tlv::write_nni_tlv(out, tt::ORIGIN, self.origin);
        tlv::write_nni_tlv(out, tt::COST, self.cost);
        tlv::write_nni_tlv(out, tt::FLAGS, self.flags);
        write_opt_nni(out, tt::EXPIRATION_PERIOD, self.expiration_period);
    }

    fn decode_value(value: &[u8]) -> Result<Self, DecodeError> {
        let mut f = Fields::new(value)?;
        Ok(Self {
            face_id: f.req_nni(tt::FACE_ID)?,
            origin: f.req_nni(tt::ORIGIN)?,
            cost: f.req_nni(tt::COST)?,
            flags: f.req_nni(tt::FLAGS)?,
            expiration_period: f.opt_nni(tt::EXPIRATION_PERIOD)?,
        })
    }
}

/// One RIB entry in `rib/list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RibEntry {
    /// Prefix.
    #[serde(serialize_with = "ser_name")]
    pub name: Name,
    /// Routes.
    pub routes: Vec<Route>,
}

impl Record for RibEntry {
    const TLV_TYPE: u32 = tt::RIB_ENTRY;

    fn encode_value(&self, out: &mut Vec<u8>) {
        self.name.as_ref().encode_to(out);
        for r in &self.routes {
            let mut v = Vec::with_capacity(24);
            r.encode_value(&mut v);
            tlv::write_tlv(out, tt::ROUTE, &v);
        }
    }

    fn decode_value(value: &[u8]) -> Result<Self, DecodeError> {
        let mut f = Fields::new(value)?;
        Ok(Self {
            name: f.req_name()?,
            routes: f.repeated(tt::ROUTE, Route::decode_value)?,
        })
    }
}

/// One entry of `strategy-choice/list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StrategyChoice {
    /// Namespace.
    #[serde(serialize_with = "ser_name")]
    pub name: Name,
    /// Strategy instance name (with its version).
    #[serde(serialize_with = "ser_name")]
    pub strategy: Name,
}

impl Record for StrategyChoice {
    const TLV_TYPE: u32 = tt::STRATEGY_CHOICE;

    fn encode_value(&self, out: &mut Vec<u8>) {
        self.name.as_ref().encode_to(out);
        let s = self.strategy.as_ref();
        tlv::write_header(out, tt::STRATEGY, s.encoded_len());
        s.encode_to(out);
    }

    fn decode_value(value: &[u8]) -> Result<Self, DecodeError> {
        let mut f = Fields::new(value)?;
        let name = f.req_name()?;
        let strategy = f.req(tt::STRATEGY)?;
        Ok(Self {
            name,
            strategy: Fields::new(strategy.value)?.req_name()?,
        })
    }
}

/// CS flag bits (cs/config Flags/Mask, CsInfo Flags).
pub mod cs_flags {
    /// Data may be admitted into the CS.
    pub const ENABLE_ADMIT: u32 = 0;
    /// The CS may answer Interests.
    pub const ENABLE_SERVE: u32 = 1;
}

/// The single record of `cs/info`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CsInfo {
    /// Maximum number of entries.
    pub capacity: u64,
    /// CS flags (see [`cs_flags`]).
    pub flags: u64,
    /// Current number of entries.
    pub n_cs_entries: u64,
    /// Lookups answered from the CS.
    pub n_hits: u64,
    /// Lookups not answered from the CS.
    pub n_misses: u64,
}

impl Record for CsInfo {
    const TLV_TYPE: u32 = tt::CS_INFO;

    fn encode_value(&self, out: &mut Vec<u8>) {
        tlv::write_nni_tlv(out, tt::CAPACITY, self.capacity);
        tlv::write_nni_tlv(out, tt::FLAGS, self.flags);
        tlv::write_nni_tlv(out, tt::N_CS_ENTRIES, self.n_cs_entries);
        tlv::write_nni_tlv(out, tt::N_HITS, self.n_hits);
        tlv::write_nni_tlv(out, tt::N_MISSES, self.n_misses);
    }

    fn decode_value(value: &[u8]) -> Result<Self, DecodeError> {
        let mut f = Fields::new(value)?;
        Ok(Self {
            capacity: f.req_nni(tt::CAPACITY)?,
            flags: f.req_nni(tt::FLAGS)?,
            n_cs_entries: f.req_nni(tt::N_CS_ENTRIES)?,
            n_hits: f.req_nni(tt::N_HITS)?,
            n_misses: f.req_nni(tt::N_MISSES)?,
        })
    }
}

/// The forwarder's general status (NFD's ForwarderStatus), the content of `status/general`.
/// Unlike the other records it is not wrapped in an element: the dataset content is its fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[allow(missing_docs)]
pub struct GeneralStatus {
    pub nfd_version: String,
    /// Unix time in milliseconds when the forwarder started.
    pub start_timestamp: u64,
    /// Unix time in milliseconds of this report.
    pub current_timestamp: u64,
    pub n_name_tree_entries: u64,
    pub n_fib_entries: u64,
    pub n_pit_entries: u64,
    pub n_measurements_entries: u64,
    pub n_cs_entries: u64,
    pub n_in_interests: u64,
    pub n_in_data: u64,
    pub n_in_nacks: u64,
    pub n_out_interests: u64,
    pub n_out_data: u64,
    pub n_out_nacks: u64,
    pub n_satisfied_interests: u64,
    pub n_unsatisfied_interests: u64,
}

impl GeneralStatus {
    fn counters(&self) -> [(u32, u64); 15] {
        [
            (tt::START_TIMESTAMP, self.start_timestamp),
            (tt::CURRENT_TIMESTAMP, self.current_timestamp),
            (tt::N_NAME_TREE_ENTRIES, self.n_name_tree_entries),
            (tt::N_FIB_ENTRIES, self.n_fib_entries),
            (tt::N_PIT_ENTRIES, self.n_pit_entries),
            (tt::N_MEASUREMENTS_ENTRIES, self.n_measurements_entries),
            (tt::N_CS_ENTRIES, self.n_cs_entries),
            (tt::N_IN_INTERESTS, self.n_in_interests),
            (tt::N_IN_DATA, self.n_in_data),
            (tt::N_IN_NACKS, self.n_in_nacks),
            (tt::N_OUT_INTERESTS, self.n_out_interests),
            (tt::N_OUT_DATA, self.n_out_data),
            (tt::N_OUT_NACKS, self.n_out_nacks),
            (tt::N_SATISFIED_INTERESTS, self.n_satisfied_interests),
            (tt::N_UNSATISFIED_INTERESTS, self.n_unsatisfied_interests),
        ]
    }

    /// The dataset content: the fields in ndn-cxx's order.
    pub fn encode_content(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(96);
        write_str_tlv(&mut out, tt::NFD_VERSION, &self.nfd_version);
        for (typ, v) in self.counters() {
            tlv::write_nni_tlv(&mut out, typ, v);
        }
        out
    }

    /// Decodes the dataset content.
    pub fn decode_content(content: &[u8]) -> Result<Self, DecodeError> {
        let mut f = Fields::new(content)?;
        let mut s = Self {
            nfd_version: f.req_str(tt::NFD_VERSION)?,
            ..Self::default()
        };
        let mut values = [0u64; 15];
        for (slot, (typ, _)) in values.iter_mut().zip(s.counters()) {
            *slot = f.req_nni(typ)?;
        }
        let [start, current, nt, fib, pit, meas, cs, ii, id, inn, oi, od, on, sat, unsat] = values;
        s.start_timestamp = start;
        s.current_timestamp = current;
        s.n_name_tree_entries = nt;
        s.n_fib_entries = fib;
        s.n_pit_entries = pit;
        s.n_measurements_entries = meas;
        s.n_cs_entries = cs;
        s.n_in_interests = ii;
        s.n_in_data = id;
        s.n_in_nacks = inn;
        s.n_out_interests = oi;
        s.n_out_data = od;
        s.n_out_nacks = on;
        s.n_satisfied_interests = sat;
        s.n_unsatisfied_interests = unsat;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use crate::records::{decode_records, encode_records};

    fn n(uri: &str) -> Name {
        Name::from_uri(uri).unwrap()
    }

    #[test]
    fn rib_fib_strategy_cs_match_python_ndn() {
        let rib = vec![RibEntry {
            name: n("/a/b"),
            routes: vec![
                Route {
                    face_id: 300,
                    origin: 0,
                    cost: 10,
                    flags: route_flags::CHILD_INHERIT,
                    expiration_period: Some(5000),
                },
                Route {
                    face_id: 301,
                    origin: 255,
                    cost: 0,
                    flags: route_flags::CAPTURE,
                    expiration_period: None,
                },
            ],
        }];
        assert_eq!(encode_records(&rib), fixtures::RIB_LIST);
        assert_eq!(decode_records(&fixtures::RIB_LIST), Ok(rib));

        let fib = vec![FibEntry {
            name: n("/a"),
            next_hops: vec![NextHopRecord {
                face_id: 300,
                cost: 10,
            }],
        }];
        assert_eq!(encode_records(&fib), fixtures::FIB_LIST);
        assert_eq!(decode_records(&fixtures::FIB_LIST), Ok(fib));

        let sc = vec![StrategyChoice {
            name: Name::new(),
            strategy: n("/localhost/nfd/strategy/best-route/v=5"),
        }];
        assert_eq!(encode_records(&sc), fixtures::STRATEGY_LIST);
        assert_eq!(decode_records(&fixtures::STRATEGY_LIST), Ok(sc));

        let cs = CsInfo {
            capacity: 65536,
            flags: 3,
            n_cs_entries: 10,
            n_hits: 20,
            n_misses: 30,
        };
        assert_eq!(encode_records(&[cs]), fixtures::CS_INFO);
        assert_eq!(decode_records(&fixtures::CS_INFO), Ok(vec![cs]));
    }

    #[test]
    fn general_status_matches_python_ndn() {
        let s = GeneralStatus {
            nfd_version: "0.1.0".into(),
            start_timestamp: 1_700_000_000_000,
            current_timestamp: 1_700_000_001_000,
            n_name_tree_entries: 1,
            n_fib_entries: 2,
            n_pit_entries: 3,
            n_measurements_entries: 4,
            n_cs_entries: 5,
            n_in_interests: 6,
            n_in_data: 7,
            n_in_nacks: 8,
            n_out_interests: 9,
            n_out_data: 10,
            n_out_nacks: 11,
            n_satisfied_interests: 12,
            n_unsatisfied_interests: 13,
        };
        assert_eq!(s.encode_content(), fixtures::GENERAL_STATUS);
        assert_eq!(
            GeneralStatus::decode_content(&fixtures::GENERAL_STATUS),
            Ok(s)
        );
        let cut = &fixtures::GENERAL_STATUS[..fixtures::GENERAL_STATUS.len() - 3];
        assert_eq!(
            GeneralStatus::decode_content(cut),
            Err(DecodeError::Missing(tt::N_UNSATISFIED_INTERESTS))
        );
    }

    #[test]
    fn malformed_records_are_errors() {
        // RibEntry whose Route lacks Origin.
        let bad = [128, 8, 7, 0, 129, 4, 105, 1, 1, 106];
        assert!(decode_records::<RibEntry>(&bad).is_err());
        let bad = [128, 7, 7, 0, 129, 3, 105, 1, 1];
        assert_eq!(
            decode_records::<RibEntry>(&bad),
            Err(DecodeError::Missing(tt::ORIGIN))
        );
        // StrategyChoice without Strategy.
        assert_eq!(
            decode_records::<StrategyChoice>(&[128, 2, 7, 0]),
            Err(DecodeError::Missing(tt::STRATEGY))
        );
    }
}
