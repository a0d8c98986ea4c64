//! Model-based test: random sequences of Interest, Data, Nack, out-record, reject, erase,
//! face-removal and time-advance events run against the PCCT and against a plain reference (maps
//! and vectors implementing the documented rules directly); every outcome (downstream nonces
//! included) and the table sizes must agree, for each CS policy. Every Interest and Data is
//! preceded by the prefetch calls the engine makes, which must change nothing. LRU and FIFO run with a small CS (evictions are modelled exactly); ARC
//! runs with a CS large enough never to evict (its order is then unobservable).

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use bytes::Bytes;
use common::*;
use ndn_packet::tlv::tt;
use ndn_packet::{LpToken, Name, NameRef};
use ndnfwd_pcct::*;
use proptest::prelude::*;

const FACES: u32 = 6;
const PIT_CAP: u32 = 6;
const EXT_CAP: u32 = 1;
const SUPPRESS0: u64 = 10 * MS;
const SUPPRESS_MAX: u64 = 100 * MS;
const LIFETIME_CAP: u64 = 3_000 * MS;
const DEFAULT_LIFETIME: u64 = 4_000 * MS;

/// The name universe: `/`, `/a`, `/b`, `/a/a`, ... up to two components from {a, b}.
fn universe() -> Vec<Name> {
    let mut v = vec![Name::new()];
    let mut i = 0;
    while i < v.len() {
        if v[i].len() < 2 {
            for c in ["a", "b"] {
                v.push(v[i].clone().push(c));
            }
        }
        i += 1;
    }
    v
}

fn hint_hash() -> u64 {
    hasher().hash_name(name("/hint").as_ref())
}

#[derive(Debug, Clone)]
enum Tok {
    None,
    /// One of the last 8 tokens the PCCT handed out.
    Issued(usize),
    Forged(u64),
    WrongLen(usize),
}

#[derive(Debug, Clone)]
enum Ev {
    Interest {
        name: usize,
        digest_of: Option<u8>,
        cbp: bool,
        mbf: bool,
        fh: bool,
        face: u32,
        nonce: u32,
        lifetime: Option<u64>,
    },
    Out {
        handle: usize,
        face: u32,
        /// `None`: the nonce of the entry's latest in-record (what a forwarder sends).
        nonce: Option<u32>,
    },
    Data {
        name: usize,
        variant: u8,
        freshness: u64,
        face: u32,
        tok: Tok,
        local: bool,
        no_cache: bool,
    },
    Nack {
        handle: usize,
        /// Which out-record the Nack answers, or a random (face, nonce).
        out: Result<usize, (u32, u32)>,
        reason: u8,
        tok: Tok,
    },
    Reject {
        handle: usize,
    },
    /// The same Interest from every face (aggregation, extension blocks, records full).
    Flood {
        name: usize,
        mbf: bool,
        nonce: u32,
    },
    Erase {
        prefix: usize,
        limit: usize,
    },
    Advance {
        ms: u64,
    },
    /// The face is removed: `purge_face`.
    FaceDown {
        face: u32,
    },
}

fn tok() -> impl Strategy<Value = Tok> {
    prop_oneof![
        3 => Just(Tok::None),
        6 => (0usize..8).prop_map(Tok::Issued),
        1 => any::<u64>().prop_map(Tok::Forged),
        1 => (0usize..12).prop_filter("ours", |&l| l != 8).prop_map(Tok::WrongLen),
    ]
}

fn ev(names: usize) -> impl Strategy<Value = Ev> {
    prop_oneof![
        8 => (0..names, prop::option::weighted(0.1, 0u8..2), any::<bool>(),
              prop::bool::weighted(0.3), prop::bool::weighted(0.15), 1..=FACES, 0u32..8,
              prop::option::of(prop_oneof![Just(0u64), Just(5), Just(50), Just(4_000)]))
            .prop_map(|(name, digest_of, cbp, mbf, fh, face, nonce, lifetime)| Ev::Interest {
                name, digest_of, cbp, mbf, fh, face, nonce,
                lifetime: lifetime.map(|l| l * MS),
            }),
        5 => (0usize..8, 1..=FACES, prop::option::weighted(0.3, 0u32..8))
            .prop_map(|(handle, face, nonce)| Ev::Out { handle, face, nonce }),
        6 => (0..names, 0u8..2, prop_oneof![Just(0u64), Just(10), Just(1_000)], 1..=FACES,
              tok(), any::<bool>(), prop::bool::weighted(0.1))
            .prop_map(|(name, variant, f, face, tok, local, no_cache)| Ev::Data {
                name, variant, freshness: f * MS, face, tok, local, no_cache,
            }),
        3 => (0usize..8, prop_oneof![4 => (0usize..4).prop_map(Ok),
                                     1 => (1..=FACES, 0u32..8).prop_map(Err)],
              0u8..5, tok())
            .prop_map(|(handle, out, reason, tok)| Ev::Nack { handle, out, reason, tok }),
        1 => (0usize..8).prop_map(|handle| Ev::Reject { handle }),
        1 => (0..names, any::<bool>(), 0u32..1000)
            .prop_map(|(name, mbf, nonce)| Ev::Flood { name, mbf, nonce }),
        1 => (0..names, prop_oneof![Just(1usize), Just(2), Just(100)])
            .prop_map(|(prefix, limit)| Ev::Erase { prefix, limit }),
        3 => prop_oneof![4 => Just(1u64), 4 => Just(4), 4 => Just(9), 2 => Just(30),
                         1 => Just(200), 1 => Just(3_500)]
            .prop_map(|ms| Ev::Advance { ms }),
        1 => (1..=FACES).prop_map(|face| Ev::FaceDown { face }),
    ]
}

// ---------------------------------------------------------------- reference model

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Key {
    name: Name,
    fh: Option<u64>,
}

#[derive(Debug, Clone)]
struct In {
    face: u32,
    nonce: u32,
    expiry: u64,
    cbp: bool,
}

#[derive(Debug, Clone)]
struct Out {
    face: u32,
    nonce: u32,
    sent: u64,
    nack: Option<NackReason>,
}

#[derive(Debug, Clone)]
struct Part {
    ins: Vec<In>,
    outs: Vec<Out>,
    last_tx: u64,
    suppress: u64,
    has_ext: bool,
}

impl Part {
    fn expiry(&self) -> u64 {
        self.ins.iter().map(|r| r.expiry).max().unwrap_or(0)
    }
}

#[derive(Debug, Clone)]
struct Cached {
    wire: Bytes,
    fresh_until: u64,
}

#[derive(Default)]
struct Model {
    pits: BTreeMap<(Key, bool), Part>,
    cs: BTreeMap<Key, Cached>,
    /// Indirect key -> direct key.
    ind: BTreeMap<Key, Key>,
    /// CS order, front = next victim (LRU / FIFO).
    order: Vec<Key>,
    cs_cap: usize,
    cs_bytes_cap: u64,
    policy: Option<CsPolicy>,
    unsolicited: Option<UnsolicitedPolicy>,
}

/// What the harness compares (tokens replaced by the key they name).
#[derive(Debug, Clone, PartialEq, Eq)]
enum IOut {
    Hit(Bytes),
    New(Key, bool),
    Agg(Key, bool, bool),
    Retx(Key, bool, bool),
    Dup,
    Full,
}

/// Downstreams (face, token), the (face, nonce) pairs of every satisfied in-record, matched
/// parts, cached, unsolicited, via token.
type DataResult = (
    Vec<(u32, Vec<u8>)>,
    BTreeSet<(u32, u32)>,
    u32,
    bool,
    bool,
    bool,
);

/// What `purge_face` did: in-records, out-records and entries removed, orphaned entries.
type PurgeResult = (u32, u32, u32, BTreeSet<(Key, bool)>);

fn is_prefix(p: &Name, n: &Name) -> bool {
    p.len() < n.len() && p.as_ref().is_prefix_of(n.as_ref())
}

fn down_set(v: &[(u32, Vec<u8>)]) -> BTreeSet<u32> {
    v.iter().map(|d| d.0).collect()
}

impl Model {
    fn exists(&self, k: &Key) -> bool {
        self.pits.contains_key(&(k.clone(), false))
            || self.pits.contains_key(&(k.clone(), true))
            || self.cs.contains_key(k)
            || self.ind.contains_key(k)
    }

    fn ext_used(&self) -> usize {
        self.pits.values().filter(|p| p.has_ext).count()
    }

    fn touch(&mut self, k: &Key) {
        if self.policy == Some(CsPolicy::Lru) {
            self.order.retain(|x| x != k);
            self.order.push(k.clone());
        }
    }

    fn use_cs(&mut self, now: u64, k: &Key, mbf: bool) -> Option<Bytes> {
        let c = self.cs.get(k)?;
        if mbf && now >= c.fresh_until {
            return None;
        }
        let w = c.wire.clone();
        self.touch(k);
        Some(w)
    }

    /// Makes room for one more record in `p` (in- or out-); false if impossible.
    fn reserve(&self, p: &Part, n: usize, key: &(Key, bool)) -> bool {
        let used = self.ext_used() - usize::from(self.pits.get(key).is_some_and(|x| x.has_ext));
        n < 4 || (n < MAX_IN_RECORDS && (p.has_ext || used < EXT_CAP as usize))
    }

    #[allow(clippy::too_many_arguments)]
    fn interest(
        &mut self,
        now: u64,
        k: Key,
        digest: Option<[u8; 32]>,
        cbp: bool,
        mbf: bool,
        face: u32,
        nonce: u32,
        lifetime: Option<u64>,
    ) -> IOut {
        let pk = (k.clone(), mbf);
        if let Some(p) = self.pits.get(&pk) {
            let same = p.ins.iter().any(|r| r.face == face && r.nonce == nonce);
            let other = p.ins.iter().any(|r| r.face != face && r.nonce == nonce)
                || p.outs.iter().any(|r| r.nonce == nonce);
            if other && !same {
                return IOut::Dup;
            }
        }
        if self.cs.contains_key(&k) {
            if let Some(w) = self.use_cs(now, &k, mbf) {
                return IOut::Hit(w);
            }
        } else if let Some(d) = self.ind.get(&k).cloned() {
            if cbp {
                if let Some(w) = self.use_cs(now, &d, mbf) {
                    return IOut::Hit(w);
                }
            }
        }
        if let Some(dg) = digest {
            let parent = Key {
                name: k.name.as_ref().prefix(k.name.len() - 1).to_name(),
                fh: k.fh,
            };
            if self
                .cs
                .get(&parent)
                .is_some_and(|c| common::digest(&c.wire) == dg)
            {
                if let Some(w) = self.use_cs(now, &parent, mbf) {
                    return IOut::Hit(w);
                }
            }
        }
        let rec = In {
            face,
            nonce,
            expiry: now + lifetime.unwrap_or(DEFAULT_LIFETIME).min(LIFETIME_CAP),
            cbp,
        };
        let Some(mut p) = self.pits.remove(&pk) else {
            if self.pits.len() >= PIT_CAP as usize {
                return IOut::Full;
            }
            let part = Part {
                ins: vec![rec],
                outs: vec![],
                last_tx: 0,
                suppress: SUPPRESS0,
                has_ext: false,
            };
            self.pits.insert(pk, part);
            return IOut::New(k, mbf);
        };
        let retx = if let Some(r) = p.ins.iter_mut().find(|r| r.face == face) {
            *r = rec;
            true
        } else {
            if !self.reserve(&p, p.ins.len(), &pk) {
                p.ins.retain(|r| r.expiry > now);
                if !self.reserve(&p, p.ins.len(), &pk) {
                    self.pits.insert(pk, p);
                    return IOut::Full;
                }
            }
            p.has_ext |= p.ins.len() >= 4;
            p.ins.push(rec);
            false
        };
        let forward = if p.outs.is_empty() {
            true
        } else if now.saturating_sub(p.last_tx) < p.suppress {
            false
        } else {
            p.suppress = (p.suppress * 2).min(SUPPRESS_MAX);
            true
        };
        self.pits.insert(pk, p);
        if retx {
            IOut::Retx(k, mbf, forward)
        } else {
            IOut::Agg(k, mbf, forward)
        }
    }

    fn record_out(
        &mut self,
        now: u64,
        pk: &(Key, bool),
        face: u32,
        nonce: u32,
    ) -> Result<(), RecordError> {
        let mut p = self.pits.remove(pk).ok_or(RecordError::NoEntry)?;
        p.last_tx = p.last_tx.max(now);
        let rec = Out {
            face,
            nonce,
            sent: now,
            nack: None,
        };
        let r = if let Some(o) = p.outs.iter_mut().find(|o| o.face == face) {
            *o = rec;
            Ok(())
        } else if self.reserve(&p, p.outs.len(), pk) {
            p.has_ext |= p.outs.len() >= 4;
            p.outs.push(rec);
            Ok(())
        } else {
            Err(RecordError::RecordsFull)
        };
        self.pits.insert(pk.clone(), p);
        r
    }

    fn has_cbp(&self, k: &Key) -> bool {
        [false, true].iter().any(|&m| {
            self.pits
                .get(&(k.clone(), m))
                .is_some_and(|p| p.ins.iter().any(|r| r.cbp))
        })
    }

    fn has_pit(&self, k: &Key) -> bool {
        self.pits.contains_key(&(k.clone(), false)) || self.pits.contains_key(&(k.clone(), true))
    }

    /// The relation checked behind a valid token.
    fn relation(&self, k: &Key, dname: &Name, full: &Name) -> Option<u8> {
        if !self.has_pit(k) {
            None
        } else if k.name == *dname {
            Some(0)
        } else if is_digest_name(&k.name) && k.name == *full {
            Some(2)
        } else if is_prefix(&k.name, dname) && self.has_cbp(k) {
            Some(1)
        } else {
            None
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn data(
        &mut self,
        now: u64,
        dname: &Name,
        wire: &Bytes,
        freshness: u64,
        face: u32,
        token_key: Option<Key>,
        local: bool,
        no_cache: bool,
    ) -> DataResult {
        let full = full_name(dname, wire);
        let mut matched: Vec<(Key, u8)> = vec![];
        let mut fh = None;
        if let Some(k) = token_key {
            if let Some(rel) = self.relation(&k, dname, &full) {
                fh = k.fh;
                matched.push((k, rel));
            }
        }
        let via_token = !matched.is_empty();
        let e = Key {
            name: dname.clone(),
            fh,
        };
        if self.has_pit(&e) && !matched.iter().any(|(k, _)| *k == e) {
            matched.push((e.clone(), 0));
        }
        if !via_token {
            for i in 0..dname.len() {
                let k = Key {
                    name: dname.as_ref().prefix(i).to_name(),
                    fh: None,
                };
                if self.has_cbp(&k) {
                    matched.push((k, 1));
                }
            }
            let k = Key {
                name: full.clone(),
                fh: None,
            };
            if self.has_pit(&k) {
                matched.push((k, 2));
            }
        }
        let mut down: Vec<(u32, Vec<u8>)> = vec![];
        let mut nonces = BTreeSet::new();
        let mut parts = 0;
        for (k, rel) in &matched {
            for m in [false, true] {
                let pk = (k.clone(), m);
                let Some(mut p) = self.pits.remove(&pk) else {
                    continue;
                };
                let (sat, keep): (Vec<In>, Vec<In>) =
                    p.ins.drain(..).partition(|r| *rel != 1 || r.cbp);
                for r in &sat {
                    nonces.insert((r.face, r.nonce));
                    if r.expiry > now && r.face != face && !down.iter().any(|d| d.0 == r.face) {
                        down.push((r.face, vec![r.face as u8]));
                    }
                }
                parts += u32::from(!sat.is_empty());
                if !keep.is_empty() {
                    p.ins = keep;
                    self.pits.insert(pk, p);
                }
            }
        }
        let solicited = parts > 0;
        let admit = solicited || self.unsolicited.is_some_and(|u| u.admits(local));
        let mut cached = false;
        if admit && !no_cache && self.cs_cap > 0 {
            let e = Key {
                name: dname.clone(),
                fh,
            };
            self.ind.remove(&e);
            self.cs.insert(
                e.clone(),
                Cached {
                    wire: wire.clone(),
                    fresh_until: now + freshness,
                },
            );
            self.order.retain(|x| *x != e);
            self.order.push(e.clone());
            cached = true;
            for (p, rel) in &matched {
                if *rel != 1 || self.cs.contains_key(p) || self.ind.get(p) == Some(&e) {
                    continue;
                }
                if self.ind.values().filter(|d| **d == e).count() >= MAX_INDIRECT {
                    continue;
                }
                self.ind.insert(p.clone(), e.clone());
            }
        }
        self.evict();
        (down, nonces, parts, cached, !solicited, via_token)
    }

    fn bytes(&self) -> u64 {
        self.cs.values().map(|c| c.wire.len() as u64).sum()
    }

    fn remove_cs(&mut self, k: &Key) {
        self.cs.remove(k);
        self.order.retain(|x| x != k);
        self.ind.retain(|_, d| d != k);
    }

    fn evict(&mut self) {
        while self.cs.len() > self.cs_cap || self.bytes() > self.cs_bytes_cap {
            let v = self.order[0].clone();
            self.remove_cs(&v);
        }
    }

    fn nack(
        &mut self,
        now: u64,
        k: Key,
        mbf: bool,
        face: u32,
        nonce: u32,
        reason: NackReason,
    ) -> (u8, Option<NackReason>, BTreeSet<(u32, u32)>) {
        let pk = (k, mbf);
        let Some(p) = self.pits.get_mut(&pk) else {
            return (0, None, BTreeSet::new());
        };
        let Some(o) = p
            .outs
            .iter_mut()
            .find(|o| o.face == face && o.nonce == nonce && o.nack.is_none())
        else {
            return (1, None, BTreeSet::new());
        };
        o.nack = Some(reason);
        if p.outs.iter().any(|o| o.nack.is_none()) {
            return (2, None, BTreeSet::new());
        }
        let rank = |r: &NackReason| match r {
            NackReason::Congestion => 0,
            NackReason::Duplicate => 1,
            NackReason::NoRoute => 2,
            NackReason::Other(_) => 3,
        };
        let least = p.outs.iter().filter_map(|o| o.nack).min_by_key(rank);
        let down = p
            .ins
            .iter()
            .filter(|r| r.expiry > now && r.face != face)
            .map(|r| (r.face, r.nonce))
            .collect();
        self.pits.remove(&pk);
        (3, least, down)
    }

    /// NFD `cleanupOnFaceRemoval`, plus the orphan report of `purge_face`.
    fn face_down(&mut self, now: u64, face: u32) -> PurgeResult {
        let (mut ins, mut outs, mut erased) = (0, 0, 0);
        let mut orphans = BTreeSet::new();
        let keys: Vec<(Key, bool)> = self.pits.keys().cloned().collect();
        for pk in keys {
            let Some(p) = self.pits.get_mut(&pk) else {
                continue;
            };
            let n = p.ins.len();
            p.ins.retain(|r| r.face != face);
            ins += (n - p.ins.len()) as u32;
            if p.ins.is_empty() {
                self.pits.remove(&pk);
                erased += 1;
                continue;
            }
            let pending = p.outs.iter().any(|o| o.face == face && o.nack.is_none());
            let n = p.outs.len();
            p.outs.retain(|o| o.face != face);
            outs += (n - p.outs.len()) as u32;
            let none_pending = p.outs.iter().all(|o| o.nack.is_some());
            if pending && none_pending && p.ins.iter().any(|r| r.expiry > now) {
                orphans.insert(pk);
            }
        }
        (ins, outs, erased, orphans)
    }
}

fn is_digest_name(n: &Name) -> bool {
    n.as_ref()
        .last()
        .is_some_and(|c| c.typ() == tt::IMPLICIT_SHA256_DIGEST_COMPONENT)
}

// ---------------------------------------------------------------- harness

struct Harness {
    pcct: Pcct,
    model: Model,
    /// Token value -> (key, still valid).
    tokens: HashMap<u64, (Key, bool)>,
    issued: Vec<PitToken>,
    handles: Vec<PitHandle>,
    now: u64,
}

impl Harness {
    fn new(policy: CsPolicy) -> Self {
        let (cs_cap, bytes) = match policy {
            CsPolicy::Arc => (10_000, u64::MAX),
            _ => (4, 4 * 40),
        };
        let cfg = PcctConfig {
            worker_id: 3,
            pit_capacity: PIT_CAP,
            cs_capacity_packets: cs_cap,
            cs_capacity_bytes: bytes,
            cs_policy: policy,
            unsolicited: UnsolicitedPolicy::AdmitLocal,
            default_lifetime_ns: DEFAULT_LIFETIME,
            lifetime_cap_ns: LIFETIME_CAP,
            suppress_initial_ns: SUPPRESS0,
            suppress_max_ns: SUPPRESS_MAX,
            record_ext_capacity: EXT_CAP,
        };
        Self {
            pcct: pcct(cfg),
            model: Model {
                cs_cap: cs_cap as usize,
                cs_bytes_cap: bytes,
                policy: Some(policy),
                unsolicited: Some(UnsolicitedPolicy::AdmitLocal),
                ..Model::default()
            },
            tokens: HashMap::new(),
            issued: vec![],
            handles: vec![],
            now: 1_000 * MS,
        }
    }

    /// Registers a token the PCCT returned for `key`; it must agree with what we know.
    fn learn(&mut self, t: PitToken, key: &Key) {
        match self.tokens.get(&t.to_u64()) {
            Some((k, valid)) => {
                assert!(
                    *valid && k == key,
                    "token {t:?} reused for {key:?} (was {k:?}, {valid})"
                );
            }
            None => {
                for (k, valid) in self.tokens.values() {
                    assert!(!(*valid && k == key), "two live tokens for {key:?}");
                }
                self.tokens.insert(t.to_u64(), (key.clone(), true));
                self.issued.push(t);
            }
        }
    }

    /// Invalidates tokens of keys that ceased to exist.
    fn settle(&mut self) {
        let model = &self.model;
        for (k, valid) in self.tokens.values_mut() {
            if *valid && !model.exists(k) {
                *valid = false;
            }
        }
        assert_eq!(self.pcct.len_pit(), self.model.pits.len(), "PIT size");
        assert_eq!(self.pcct.len_cs(), self.model.cs.len(), "CS size");
        assert_eq!(self.pcct.cs_bytes(), self.model.bytes(), "CS bytes");
        let keys: BTreeSet<&Key> = self
            .model
            .pits
            .keys()
            .map(|(k, _)| k)
            .chain(self.model.cs.keys())
            .chain(self.model.ind.keys())
            .collect();
        assert_eq!(self.pcct.len_keys(), keys.len(), "keys");
    }

    fn token_bytes(&self, t: &Tok) -> Option<Vec<u8>> {
        match t {
            Tok::None => None,
            Tok::Issued(i) if self.issued.is_empty() => Some(vec![0; 8]),
            Tok::Issued(i) => {
                let j = self.issued.len() - 1 - i % self.issued.len().min(8);
                Some(self.issued[j].to_bytes().to_vec())
            }
            Tok::Forged(v) => Some(v.to_be_bytes().to_vec()),
            Tok::WrongLen(l) => Some(vec![0x03; *l]),
        }
    }

    /// The key a received token leads to in the model (valid tokens only).
    fn token_key(&self, b: &Option<Vec<u8>>) -> Option<Key> {
        let t = PitToken::from_bytes(b.as_deref()?).ok()?;
        match self.tokens.get(&t.to_u64()) {
            Some((k, true)) => Some(k.clone()),
            _ => None,
        }
    }

    fn handle(&self, i: usize) -> Option<(PitHandle, Key)> {
        let j = self
            .handles
            .len()
            .checked_sub(1 + i % self.handles.len().clamp(1, 8))?;
        let h = *self.handles.get(j)?;
        let (k, _) = self.tokens.get(&h.token.to_u64())?;
        Some((h, k.clone()))
    }

    fn handle_live(&self, h: &PitHandle) -> Option<Key> {
        match self.tokens.get(&h.token.to_u64()) {
            Some((k, true)) if self.model.pits.contains_key(&(k.clone(), h.must_be_fresh)) => {
                Some(k.clone())
            }
            _ => None,
        }
    }

    fn step(&mut self, names: &[Name], e: &Ev) {
        let now = self.now;
        match e {
            &Ev::Interest {
                name,
                digest_of,
                cbp,
                mbf,
                fh,
                face,
                nonce,
                lifetime,
            } => {
                let base = &names[name];
                let n = match digest_of {
                    Some(v) => full_name(base, &data_wire(base, &[v])),
                    None => base.clone(),
                };
                let h = hashes(&n);
                let key = Key {
                    name: n.clone(),
                    fh: fh.then(hint_hash),
                };
                let info = InterestInfo {
                    name: n.as_ref(),
                    hashes: &h,
                    can_be_prefix: cbp,
                    must_be_fresh: mbf,
                    forwarding_hint_hash: key.fh,
                    nonce,
                    lifetime_ns: lifetime,
                    hop_limit: None,
                    token: &LpToken::new(&[face as u8]).unwrap(),
                    congestion_mark: 0,
                };
                self.pcct.prefetch_interest(&info);
                self.pcct.prefetch_interest_entries(&info);
                let got = self.pcct.on_interest(now, &info, face);
                let dg = digest_of.map(|v| common::digest(&data_wire(base, &[v])));
                let want =
                    self.model
                        .interest(now, key.clone(), dg, cbp, mbf, face, nonce, lifetime);
                let mapped = match got {
                    InterestOutcome::CsHit { data } => IOut::Hit(data),
                    InterestOutcome::NewPit { pit } => {
                        self.learn(pit.token, &key);
                        self.handles.push(pit);
                        IOut::New(key.clone(), pit.must_be_fresh)
                    }
                    InterestOutcome::Aggregated { pit, forward } => {
                        self.learn(pit.token, &key);
                        self.handles.push(pit);
                        IOut::Agg(key.clone(), pit.must_be_fresh, forward)
                    }
                    InterestOutcome::Retransmission { pit, forward } => {
                        self.learn(pit.token, &key);
                        IOut::Retx(key.clone(), pit.must_be_fresh, forward)
                    }
                    InterestOutcome::DuplicateNonce => IOut::Dup,
                    InterestOutcome::PitFull => IOut::Full,
                };
                assert_eq!(mapped, want, "{e:?}");
            }
            &Ev::Out {
                handle,
                face,
                nonce,
            } => {
                let Some((h, key)) = self.handle(handle) else {
                    return;
                };
                let part = self.model.pits.get(&(key, h.must_be_fresh));
                let latest = part.and_then(|p| p.ins.last()).map_or(0, |r| r.nonce);
                let nonce = nonce.unwrap_or(latest);
                let got = self.pcct.record_out(now, h, face, nonce);
                let want = match self.handle_live(&h) {
                    Some(k) => self
                        .model
                        .record_out(now, &(k, h.must_be_fresh), face, nonce),
                    None => Err(RecordError::NoEntry),
                };
                assert_eq!(got, want, "{e:?}");
            }
            Ev::Data {
                name,
                variant,
                freshness,
                face,
                tok,
                local,
                no_cache,
            } => {
                let n = &names[*name];
                let h = hashes(n);
                let wire = data_wire(n, &[*variant]);
                let tb = self.token_bytes(tok);
                let mut d = data(n, &h, &wire, *freshness);
                d.no_cache = *no_cache;
                let mut out = vec![];
                self.pcct
                    .prefetch_data_name(&h.name_id(), tb.as_deref().into());
                self.pcct.prefetch_data_entries(tb.as_deref().into());
                let got = self
                    .pcct
                    .on_data(now, &d, *face, tb.as_deref(), *local, &mut out);
                let tk = self.token_key(&tb);
                let (down, nonces, parts, cached, unsolicited, via_token) = self
                    .model
                    .data(now, n, &wire, *freshness, *face, tk, *local, *no_cache);
                let got_down: Vec<(u32, Vec<u8>)> = out[got.downstreams.clone()]
                    .iter()
                    .map(|d| (d.face, d.token.as_bytes().to_vec()))
                    .collect();
                assert_eq!(got_down.len(), down.len(), "one per face {e:?}");
                assert_eq!(down_set(&got_down), down_set(&down), "{e:?}");
                assert!(got_down.iter().all(|(f, t)| t == &vec![*f as u8]));
                let got_nonces = out[got.downstreams.clone()].iter();
                assert!(
                    got_nonces
                        .clone()
                        .all(|d| nonces.contains(&(d.face, d.nonce))),
                    "nonces {e:?}"
                );
                assert_eq!(
                    (got.matched, got.cached, got.unsolicited, got.via_token),
                    (parts, cached, unsolicited, via_token),
                    "{e:?}"
                );
            }
            Ev::Nack {
                handle,
                out: which,
                reason,
                tok,
            } => {
                let Some((h, key)) = self.handle(*handle) else {
                    return;
                };
                let reason = [
                    NackReason::Congestion,
                    NackReason::Duplicate,
                    NackReason::NoRoute,
                    NackReason::Other(7),
                    NackReason::Other(9),
                ][usize::from(*reason)];
                let part = self.model.pits.get(&(key.clone(), h.must_be_fresh));
                let picked = which.ok().and_then(|i| {
                    let outs = &part?.outs;
                    outs.get(i % outs.len().max(1)).map(|o| (o.face, o.nonce))
                });
                let (face, nonce) = picked.unwrap_or(*which.as_ref().err().unwrap_or(&(1, 0)));
                let face = &face;
                let hs = hashes(&key.name);
                let info = NackInfo {
                    name: key.name.as_ref(),
                    hashes: &hs,
                    must_be_fresh: h.must_be_fresh,
                    forwarding_hint_hash: key.fh,
                    nonce,
                    reason,
                };
                let tb = match tok {
                    Tok::Issued(_) => Some(h.token.to_bytes().to_vec()),
                    other => self.token_bytes(other),
                };
                let mut out = vec![];
                let got = self
                    .pcct
                    .on_nack(now, &info, *face, tb.as_deref(), &mut out);
                // A valid token with the same name leads to the same key as the name lookup.
                let want = self
                    .model
                    .nack(now, key, h.must_be_fresh, *face, nonce, reason);
                let mapped = match got {
                    NackOutcome::NoEntry => (0, None, BTreeSet::new()),
                    NackOutcome::Stale => (1, None, BTreeSet::new()),
                    NackOutcome::Pending => (2, None, BTreeSet::new()),
                    NackOutcome::Nacked {
                        reason,
                        downstreams,
                    } => (
                        3,
                        Some(reason),
                        out[downstreams].iter().map(|d| (d.face, d.nonce)).collect(),
                    ),
                };
                assert_eq!(mapped, want, "{e:?}");
            }
            &Ev::Flood { name, mbf, nonce } => {
                for face in 1..=FACES {
                    let i = Ev::Interest {
                        name,
                        digest_of: None,
                        cbp: face % 2 == 0,
                        mbf,
                        fh: false,
                        face,
                        nonce: nonce + face,
                        lifetime: Some(face as u64 * 3 * MS),
                    };
                    self.step(names, &i);
                }
            }
            Ev::Reject { handle } => {
                let Some((h, _)) = self.handle(*handle) else {
                    return;
                };
                let mut out = vec![];
                let got = self.pcct.reject(now, h, &mut out).map(|r| {
                    out[r]
                        .iter()
                        .map(|d| (d.face, d.nonce))
                        .collect::<BTreeSet<_>>()
                });
                let want = self.handle_live(&h).map(|k| {
                    let p = self.model.pits.remove(&(k, h.must_be_fresh)).unwrap();
                    p.ins
                        .iter()
                        .filter(|r| r.expiry > now)
                        .map(|r| (r.face, r.nonce))
                        .collect()
                });
                assert_eq!(got, want, "{e:?}");
            }
            Ev::Erase { prefix, limit } => {
                // ARC erases T1 then T2 in list order, which the model does not track.
                let limit = if self.model.policy == Some(CsPolicy::Arc) {
                    &usize::MAX
                } else {
                    limit
                };
                let p: NameRef<'_> = names[*prefix].as_ref();
                let got = self.pcct.cs_erase(p, *limit);
                let victims: Vec<Key> = self
                    .model
                    .order
                    .iter()
                    .filter(|k| p.is_prefix_of(k.name.as_ref()))
                    .take(*limit)
                    .cloned()
                    .collect();
                for v in &victims {
                    self.model.remove_cs(v);
                }
                assert_eq!(got, victims.len(), "{e:?}");
            }
            &Ev::FaceDown { face } => {
                let mut orphans = vec![];
                let got = self.pcct.purge_face(now, face, &mut orphans);
                let got_orphans: BTreeSet<(Key, bool)> = orphans
                    .iter()
                    .map(|h| {
                        let (k, valid) = self.tokens[&h.token.to_u64()].clone();
                        assert!(valid, "orphan with a dead token");
                        (k, h.must_be_fresh)
                    })
                    .collect();
                assert_eq!(got_orphans.len(), orphans.len(), "orphans listed once");
                let (ins, outs, erased, want_orphans) = self.model.face_down(now, face);
                assert_eq!(
                    (got.in_records, got.out_records, got.erased),
                    (ins, outs, erased),
                    "{e:?}"
                );
                assert_eq!(got_orphans, want_orphans, "{e:?}");
                for h in &self.handles {
                    assert!(self.pcct.in_records(*h).all(|r| r.face != face));
                    assert!(self.pcct.out_records(*h).all(|r| r.face != face));
                }
            }
            Ev::Advance { ms } => {
                self.now += ms * MS;
                let now = self.now;
                let mut out = vec![];
                self.pcct.expire(now, &mut out);
                let mut got: Vec<(Key, bool, bool, Option<u32>)> = out
                    .iter()
                    .map(|x| {
                        let (k, valid) = self.tokens[&x.pit.token.to_u64()].clone();
                        assert!(valid);
                        assert_eq!(x.name_id, hashes(&k.name).id128(k.name.len()).unwrap());
                        (k, x.pit.must_be_fresh, x.forwarded, x.last_out_nonce)
                    })
                    .collect();
                let due: Vec<(Key, bool)> = self
                    .model
                    .pits
                    .iter()
                    .filter(|(_, p)| p.expiry() <= now)
                    .map(|(k, _)| k.clone())
                    .collect();
                let mut want = vec![];
                for pk in due {
                    let p = self.model.pits.remove(&pk).unwrap();
                    let last = p.outs.iter().max_by_key(|o| o.sent).map(|o| o.nonce);
                    want.push((pk.0, pk.1, !p.outs.is_empty(), last));
                }
                got.sort();
                want.sort();
                assert_eq!(got, want, "{e:?}");
            }
        }
        self.settle();
    }
}

fn run(policy: CsPolicy, events: &[Ev]) {
    let names = universe();
    let mut h = Harness::new(policy);
    for e in events {
        h.step(&names, e);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn model_lru(events in prop::collection::vec(ev(7), 1..160)) {
        run(CsPolicy::Lru, &events);
    }

    #[test]
    fn model_fifo(events in prop::collection::vec(ev(7), 1..160)) {
        run(CsPolicy::Fifo, &events);
    }

    #[test]
    fn model_arc(events in prop::collection::vec(ev(7), 1..160)) {
        run(CsPolicy::Arc, &events);
    }
}

#[test]
fn universe_has_seven_names() {
    assert_eq!(universe().len(), 7);
    assert!(is_prefix(&name("/a"), &name("/a/b")));
    assert!(!is_prefix(&name("/a"), &name("/a")));
}
