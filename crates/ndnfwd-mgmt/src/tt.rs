//! TLV-TYPE numbers of NFD's management protocol (ndn-cxx `tlv-nfd.hpp`, python-ndn
//! `nfd_mgmt.py`). Dataset record fields reuse numbers across records: a number means something
//! only inside its enclosing element.
#![allow(missing_docs)]

// ControlCommand.
pub const CONTROL_RESPONSE: u32 = 101;
pub const STATUS_CODE: u32 = 102;
pub const STATUS_TEXT: u32 = 103;
pub const CONTROL_PARAMETERS: u32 = 104;
pub const FACE_ID: u32 = 105;
pub const COST: u32 = 106;
pub const STRATEGY: u32 = 107;
pub const FLAGS: u32 = 108;
pub const EXPIRATION_PERIOD: u32 = 109;
pub const ORIGIN: u32 = 111;
pub const MASK: u32 = 112;
pub const URI: u32 = 114;
pub const LOCAL_URI: u32 = 129;
pub const CAPACITY: u32 = 131;
pub const COUNT: u32 = 132;
pub const FACE_PERSISTENCY: u32 = 133;
pub const BASE_CONGESTION_MARKING_INTERVAL: u32 = 135;
pub const DEFAULT_CONGESTION_THRESHOLD: u32 = 136;
pub const MTU: u32 = 137;

// Face management.
pub const FACE_STATUS: u32 = 128;
pub const CHANNEL_STATUS: u32 = 130;
pub const URI_SCHEME: u32 = 131;
pub const FACE_SCOPE: u32 = 132;
pub const LINK_TYPE: u32 = 134;
pub const N_IN_INTERESTS: u32 = 144;
pub const N_IN_DATA: u32 = 145;
pub const N_OUT_INTERESTS: u32 = 146;
pub const N_OUT_DATA: u32 = 147;
pub const N_IN_BYTES: u32 = 148;
pub const N_OUT_BYTES: u32 = 149;
pub const FACE_QUERY_FILTER: u32 = 150;
pub const N_IN_NACKS: u32 = 151;
pub const N_OUT_NACKS: u32 = 152;
pub const FACE_EVENT_NOTIFICATION: u32 = 192;
pub const FACE_EVENT_KIND: u32 = 193;

// FIB, RIB, strategy choice (one record type each, all 128).
pub const FIB_ENTRY: u32 = 128;
pub const NEXT_HOP_RECORD: u32 = 129;
pub const RIB_ENTRY: u32 = 128;
pub const ROUTE: u32 = 129;
pub const STRATEGY_CHOICE: u32 = 128;

// Content store.
pub const CS_INFO: u32 = 128;
pub const N_HITS: u32 = 129;
pub const N_MISSES: u32 = 130;
pub const N_CS_ENTRIES: u32 = 135;

// Forwarder general status.
pub const NFD_VERSION: u32 = 128;
pub const START_TIMESTAMP: u32 = 129;
pub const CURRENT_TIMESTAMP: u32 = 130;
pub const N_NAME_TREE_ENTRIES: u32 = 131;
pub const N_FIB_ENTRIES: u32 = 132;
pub const N_PIT_ENTRIES: u32 = 133;
pub const N_MEASUREMENTS_ENTRIES: u32 = 134;
pub const N_SATISFIED_INTERESTS: u32 = 153;
pub const N_UNSATISFIED_INTERESTS: u32 = 154;
