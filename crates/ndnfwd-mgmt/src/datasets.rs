//! Status datasets and the face event stream, as ndn-cxx's dispatcher publishes them.
//!
//! A dataset request `<prefix>` is answered with segment 0 of a fresh version: the records are
//! concatenated, cut into [`MgmtConfig::segment_size`](crate::MgmtConfig) pieces without regard
//! to record boundaries, and each piece becomes a Data named `<prefix>/v=<version>/seg=<n>` with
//! a one-second FreshnessPeriod and, on the last one, FinalBlockId. All segments are kept in a
//! small bounded cache so that the Interests for `<prefix>/v=<version>/seg=<n>` that follow are
//! answered from the same content; an Interest ending in a version or segment that is not cached
//! is dropped, as NFD does. The version is the Unix time in milliseconds, forced to increase.

use std::collections::VecDeque;

use bytes::Bytes;
use ndn_packet::data::DataBuilder;
use ndn_packet::interest::Interest;
use ndn_packet::name::Component;
use ndn_packet::tlv::{self, tt};
use ndn_packet::{DecodeError, Name, NameRef};

use crate::backend::MgmtBackend;
use crate::records::{encode_records, FaceQueryFilter, Record};

/// FreshnessPeriod of every management Data, in milliseconds (ndn-cxx's dispatcher).
pub(crate) const FRESHNESS_MS: u64 = 1000;

/// A `faces/query` request whose last component is not a FaceQueryFilter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MalformedFilter;

/// The datasets NFD publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dataset {
    FaceList,
    FaceChannels,
    FaceQuery,
    FibList,
    RibList,
    StrategyList,
    CsInfo,
    GeneralStatus,
}

/// The dataset `module`/`verb`, if there is one.
pub(crate) fn lookup(module: &[u8], verb: &[u8]) -> Option<Dataset> {
    Some(match (module, verb) {
        (b"faces", b"list") => Dataset::FaceList,
        (b"faces", b"channels") => Dataset::FaceChannels,
        (b"faces", b"query") => Dataset::FaceQuery,
        (b"fib", b"list") => Dataset::FibList,
        (b"rib", b"list") => Dataset::RibList,
        (b"strategy-choice", b"list") => Dataset::StrategyList,
        (b"cs", b"info") => Dataset::CsInfo,
        (b"status", b"general") => Dataset::GeneralStatus,
        _ => return None,
    })
}

impl Dataset {
    /// The dataset content; `Err` when the request is malformed (NFD rejects it with
    /// ControlResponse 400 "malformed filter").
    pub(crate) fn content(
        self,
        backend: &dyn MgmtBackend,
        name: NameRef<'_>,
        unix_ms: u64,
    ) -> Result<Vec<u8>, MalformedFilter> {
        Ok(match self {
            Dataset::FaceList => encode_records(&backend.faces()),
            Dataset::FaceChannels => encode_records(&backend.channels()),
            Dataset::FaceQuery => {
                // The filter is the last name component, as in NFD, or the one before the
                // ParametersSha256Digest of a signed request (python-ndn's `nfdc face ID`
                // signs its dataset Interests; NFD answers those 400).
                let n = name.len();
                let last = name
                    .last()
                    .filter(|c| c.typ() != tt::PARAMETERS_SHA256_DIGEST_COMPONENT);
                let filter = last
                    .or_else(|| name.get(n.checked_sub(2)?))
                    .and_then(|c| tlv::read_single(c.value()).ok())
                    .filter(|e| e.typ == FaceQueryFilter::TLV_TYPE)
                    .ok_or(MalformedFilter)?;
                let filter =
                    FaceQueryFilter::decode_value(filter.value).map_err(|_| MalformedFilter)?;
                let faces: Vec<_> = backend
                    .faces()
                    .into_iter()
                    .filter(|f| filter.matches(f))
                    .collect();
                encode_records(&faces)
            }
            Dataset::FibList => encode_records(&backend.fib()),
            Dataset::RibList => encode_records(&backend.rib()),
            Dataset::StrategyList => encode_records(&backend.strategy_choices()),
            Dataset::CsInfo => encode_records(&[backend.cs_info()]),
            Dataset::GeneralStatus => {
                let mut s = backend.general_status();
                s.current_timestamp = unix_ms;
                s.encode_content()
            }
        })
    }
}

/// Cuts `content` into signed segments named `<prefix>/v=<version>/seg=<n>`.
pub(crate) fn segment(
    prefix: &Name,
    version: u64,
    content: &[u8],
    segment_size: usize,
) -> Result<Vec<Bytes>, DecodeError> {
    let size = segment_size.max(1);
    let count = content.len().div_ceil(size).max(1);
    let base = prefix.clone().push_number(tt::VERSION_COMPONENT, version);
    let last = Name::new().push_number(tt::SEGMENT_COMPONENT, (count - 1) as u64);
    let mut chunks = content.chunks(size);
    (0..count)
        .map(|i| {
            let chunk = chunks.next().unwrap_or_default();
            let mut d = DataBuilder::new(base.clone().push_number(tt::SEGMENT_COMPONENT, i as u64))
                .freshness_period(FRESHNESS_MS)
                .content(chunk.to_vec());
            if i + 1 == count {
                if let Some(c) = last.as_ref().get(0) {
                    d = d.final_block_id(c);
                }
            }
            d.encode().map(Bytes::from)
        })
        .collect()
}

/// Where a versioned dataset Interest points: the dataset prefix, its version and a segment.
fn versioned(name: NameRef<'_>) -> Option<(NameRef<'_>, u64, u64)> {
    let n = name.len();
    let comp = |i: usize| name.get(i);
    let number = |c: Component<'_>, typ| (c.typ() == typ).then(|| c.as_number()).flatten();
    let last = comp(n.checked_sub(1)?)?;
    if let Some(seg) = number(last, tt::SEGMENT_COMPONENT) {
        let v = number(comp(n.checked_sub(2)?)?, tt::VERSION_COMPONENT)?;
        return Some((name.prefix(n - 2), v, seg));
    }
    let v = number(last, tt::VERSION_COMPONENT)?;
    Some((name.prefix(n - 1), v, 0))
}

/// True when the Interest names a version or segment (such requests are served from the cache
/// only).
pub(crate) fn is_versioned(name: NameRef<'_>) -> bool {
    name.last()
        .is_some_and(|c| matches!(c.typ(), tt::SEGMENT_COMPONENT | tt::VERSION_COMPONENT))
}

#[derive(Debug)]
struct Cached {
    prefix: Name,
    /// Whether a bare request may still be answered with this version (false once a command
    /// changed the forwarder's state).
    reusable: bool,
    version: u64,
    created_ns: u64,
    segments: Vec<Bytes>,
}

/// The last datasets produced, bounded in count and age.
#[derive(Debug)]
pub(crate) struct DatasetCache {
    entries: VecDeque<Cached>,
    max: usize,
    lifetime_ns: u64,
    last_version: u64,
}

impl DatasetCache {
    pub(crate) fn new(max: usize, lifetime_ns: u64) -> Self {
        Self {
            entries: VecDeque::new(),
            max: max.max(1),
            lifetime_ns,
            last_version: 0,
        }
    }

    fn expire(&mut self, now_ns: u64) {
        let lifetime = self.lifetime_ns;
        self.entries
            .retain(|e| now_ns.saturating_sub(e.created_ns) <= lifetime);
    }

    /// Segment 0 of a dataset generated for `prefix` less than a FreshnessPeriod ago (ndn-cxx
    /// answers a repeated request from its in-memory storage the same way).
    pub(crate) fn fresh_first(&mut self, prefix: NameRef<'_>, now_ns: u64) -> Option<Bytes> {
        self.expire(now_ns);
        self.entries
            .iter()
            .rev()
            .find(|e| {
                e.reusable
                    && e.prefix.as_ref() == prefix
                    && now_ns.saturating_sub(e.created_ns) < FRESHNESS_MS * 1_000_000
            })
            .and_then(|e| e.segments.first().cloned())
    }

    /// After a state change: bare requests get a new version; versions already handed out keep
    /// answering their segment requests.
    pub(crate) fn state_changed(&mut self) {
        for e in &mut self.entries {
            e.reusable = false;
        }
    }

    /// The segment a versioned Interest asks for, if cached.
    pub(crate) fn find(&mut self, i: &Interest<'_>, now_ns: u64) -> Option<Bytes> {
        self.expire(now_ns);
        let (prefix, version, seg) = versioned(i.name())?;
        let e = self
            .entries
            .iter()
            .find(|e| e.version == version && e.prefix.as_ref() == prefix)?;
        e.segments.get(usize::try_from(seg).ok()?).cloned()
    }

    /// A new version number: the Unix time in ms, above every earlier one.
    pub(crate) fn next_version(&mut self, unix_ms: u64) -> u64 {
        self.last_version = unix_ms.max(self.last_version.saturating_add(1));
        self.last_version
    }

    /// Keeps a produced dataset, evicting the oldest beyond the bound.
    pub(crate) fn insert(&mut self, prefix: Name, version: u64, now_ns: u64, segments: Vec<Bytes>) {
        if self.entries.len() >= self.max {
            self.entries.pop_front();
        }
        self.entries.push_back(Cached {
            prefix,
            reusable: true,
            version,
            created_ns: now_ns,
            segments,
        });
    }

    /// Number of cached datasets.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// The `faces/events` notification stream: `<prefix>/faces/events/seq=<n>`, n from 0.
#[derive(Debug)]
pub(crate) struct EventStream {
    next_seq: u64,
    /// (sequence number, monotonic time posted, Data).
    recent: VecDeque<(u64, u64, Bytes)>,
    max: usize,
}

/// What the stream has for an Interest.
pub(crate) enum StreamAnswer {
    Data(Bytes),
    Wait,
}

impl EventStream {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            next_seq: 0,
            recent: VecDeque::new(),
            max: max.max(1),
        }
    }

    /// Wraps one notification as the next Data of the stream `stream` and keeps it.
    pub(crate) fn post(
        &mut self,
        stream: &Name,
        record: Vec<u8>,
        now_ns: u64,
    ) -> Result<Bytes, DecodeError> {
        let seq = self.next_seq;
        let name = stream.clone().push_number(tt::SEQUENCE_NUM_COMPONENT, seq);
        let data = Bytes::from(
            DataBuilder::new(name)
                .freshness_period(FRESHNESS_MS)
                .content(record)
                .encode()?,
        );
        self.next_seq += 1;
        if self.recent.len() >= self.max {
            self.recent.pop_front();
        }
        self.recent.push_back((seq, now_ns, data.clone()));
        Ok(data)
    }

    /// Answers an Interest under the stream prefix (`stream_len` components long): a kept
    /// notification with the exact sequence number asked for, or, for the bare prefix with
    /// CanBePrefix, the newest one still fresh; otherwise the Interest waits for the next post.
    pub(crate) fn answer(&self, i: &Interest<'_>, stream_len: usize, now_ns: u64) -> StreamAnswer {
        let name = i.name();
        if name.len() == stream_len + 1 {
            let seq = name
                .last()
                .filter(|c| c.typ() == tt::SEQUENCE_NUM_COMPONENT)
                .and_then(|c| c.as_number());
            if let Some((_, _, d)) = seq.and_then(|s| self.recent.iter().find(|(n, _, _)| *n == s))
            {
                return StreamAnswer::Data(d.clone());
            }
        } else if name.len() == stream_len && i.can_be_prefix() {
            let fresh = self
                .recent
                .back()
                .filter(|(_, t, _)| now_ns.saturating_sub(*t) < FRESHNESS_MS * 1_000_000);
            if let Some((_, _, d)) = fresh {
                return StreamAnswer::Data(d.clone());
            }
        }
        StreamAnswer::Wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndn_packet::data::Data;

    #[test]
    fn segments_are_named_sized_and_final_marked() {
        let prefix = Name::from_uri("/localhost/nfd/faces/list").unwrap();
        let content: Vec<u8> = (0..20u8).collect();
        let segs = segment(&prefix, 77, &content, 8).unwrap();
        assert_eq!(segs.len(), 3);
        let mut joined = Vec::new();
        for (i, s) in segs.iter().enumerate() {
            let d = Data::new_checked(s).unwrap();
            assert_eq!(
                d.name().to_string(),
                format!("/localhost/nfd/faces/list/v=77/seg={i}")
            );
            assert_eq!(d.freshness_period(), Some(1000));
            assert_eq!(
                d.final_block_id().map(|c| c.to_string()),
                (i == 2).then(|| "seg=2".to_string())
            );
            joined.extend_from_slice(d.content().unwrap());
        }
        assert_eq!(joined, content);
        // An empty dataset is one empty segment that is also the last.
        let segs = segment(&prefix, 1, &[], 8).unwrap();
        let d = Data::new_checked(&segs[0]).unwrap();
        assert_eq!(
            (d.content(), d.final_block_id().map(|c| c.to_string())),
            (Some(&[][..]), Some("seg=0".into()))
        );
    }

    #[test]
    fn versioned_names() {
        let n = |s: &str| Name::from_uri(s).unwrap();
        let a = n("/localhost/nfd/fib/list/v=5/seg=2");
        assert_eq!(
            versioned(a.as_ref()).map(|(p, v, s)| (p.to_string(), v, s)),
            Some(("/localhost/nfd/fib/list".into(), 5, 2))
        );
        let b = n("/localhost/nfd/fib/list/v=5");
        assert_eq!(versioned(b.as_ref()).map(|(_, v, s)| (v, s)), Some((5, 0)));
        assert!(versioned(n("/localhost/nfd/fib/list/seg=1").as_ref()).is_none());
        assert!(versioned(n("/localhost/nfd/fib/list").as_ref()).is_none());
        assert!(is_versioned(b.as_ref()) && !is_versioned(n("/a").as_ref()));
        let mut c = DatasetCache::new(2, 10);
        assert_eq!(c.next_version(100), 100);
        assert_eq!(c.next_version(100), 101);
        assert_eq!(c.next_version(50), 102);
        for v in 0..3 {
            c.insert(n("/p"), v, 0, Vec::new());
        }
        assert_eq!(c.len(), 2);
        c.expire(11);
        assert_eq!(c.len(), 0);
    }
}
