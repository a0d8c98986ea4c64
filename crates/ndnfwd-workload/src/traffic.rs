//! Traffic-generator logic without I/O: weighted consumer name patterns, producer reply rules and
//! the generator's PIT token, so `ndnfwd gen` only moves packets.
//!
//! - [`ConsumerPattern`] (`prefix=/a,weight=3,suffix=seq,cbp=0.1,mbf=0.5`) and [`PatternMix`]:
//!   Interest `i` of a run picks its pattern by weight and its CanBePrefix / MustBeFresh flags by
//!   the pattern's ratios, each a pure function of `(seed, i)` like every workload here.
//! - [`ProducerPattern`] (`prefix=/a,reply=nack:NoRoute,payload=100,freshness=0`): what a producer
//!   answers under a prefix (Data, a Nack, or silence); the longest matching prefix wins.
//! - [`GenToken`]: all per-Interest state of the consumer travels in the PIT token (thread, pattern,
//!   window slot, sequence number, send time), as in NDN-DPDK's traffic generator, so an answer is
//!   accounted for without a table lookup.

use core::fmt;
use core::str::FromStr;
use std::path::PathBuf;

use ndn_packet::name::{push_component, push_number_component};
use ndn_packet::tlv::tt;
use ndn_packet::{Name, NameRef};

use crate::rng::{Stream, Tag};
use crate::{NameSource, Popularity, Real, WorkloadError};

/// How a consumer pattern extends its prefix for Interest `i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Suffix {
    /// `seq`: a SequenceNum component holding the pattern's own counter.
    Seq,
    /// `random`: one 8-byte GenericNameComponent of random letters (never repeats in practice,
    /// so every Interest misses the CS).
    Random,
    /// `none`: the prefix itself (every Interest names the same Data).
    None,
    /// `real:PATH`: the components of a name from a name file (see [`Real`]).
    Real(PathBuf),
}

/// Why a pattern string was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError(pub String);

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatternError {}

fn err(s: impl Into<String>) -> PatternError {
    PatternError(s.into())
}

/// Splits `k=v,k=v` into pairs; every item must have a `=`.
fn pairs(s: &str) -> Result<Vec<(&str, &str)>, PatternError> {
    s.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.split_once('=')
                .ok_or_else(|| err(format!("{p:?}: expected key=value")))
        })
        .collect()
}

fn ratio(k: &str, v: &str) -> Result<f64, PatternError> {
    match v.parse::<f64>() {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err(err(format!("{k}={v}: expected a ratio in 0..=1"))),
    }
}

fn number(k: &str, v: &str) -> Result<u64, PatternError> {
    v.parse()
        .map_err(|_| err(format!("{k}={v}: expected a number")))
}

fn prefix(v: &str) -> Result<Name, PatternError> {
    Name::from_uri(v).map_err(|e| err(format!("prefix={v}: {e}")))
}

/// One weighted Interest pattern of a consumer.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerPattern {
    /// Name prefix.
    pub prefix: Name,
    /// Relative weight (> 0).
    pub weight: u32,
    /// How names extend the prefix.
    pub suffix: Suffix,
    /// Fraction of Interests with CanBePrefix.
    pub can_be_prefix: f64,
    /// Fraction of Interests with MustBeFresh.
    pub must_be_fresh: f64,
}

impl ConsumerPattern {
    /// A weight-1 pattern with no flags.
    pub fn new(prefix: Name, suffix: Suffix) -> Self {
        Self {
            prefix,
            weight: 1,
            suffix,
            can_be_prefix: 0.0,
            must_be_fresh: 0.0,
        }
    }
}

impl FromStr for ConsumerPattern {
    type Err = PatternError;

    /// `prefix=/a[,weight=N][,suffix=seq|random|none|real:PATH][,cbp=R][,mbf=R]`.
    fn from_str(s: &str) -> Result<Self, PatternError> {
        let mut p = Self::new(Name::new(), Suffix::Seq);
        let mut has_prefix = false;
        for (k, v) in pairs(s)? {
            match k {
                "prefix" => {
                    p.prefix = prefix(v)?;
                    has_prefix = true;
                }
                "weight" => {
                    p.weight = match v.parse() {
                        Ok(w) if w > 0 => w,
                        _ => return Err(err(format!("weight={v}: expected 1 or more"))),
                    }
                }
                "suffix" => {
                    p.suffix = match v {
                        "seq" => Suffix::Seq,
                        "random" => Suffix::Random,
                        "none" => Suffix::None,
                        _ => match v.strip_prefix("real:") {
                            Some(path) if !path.is_empty() => Suffix::Real(path.into()),
                            _ => {
                                return Err(err(format!(
                                    "suffix={v}: seq, random, none or real:PATH"
                                )))
                            }
                        },
                    }
                }
                "cbp" => p.can_be_prefix = ratio(k, v)?,
                "mbf" => p.must_be_fresh = ratio(k, v)?,
                _ => return Err(err(format!("unknown pattern key {k:?}"))),
            }
        }
        if !has_prefix {
            return Err(err(format!("{s:?}: a pattern needs prefix=")));
        }
        Ok(p)
    }
}

/// The next Interest of a [`PatternMix`]: which pattern, and its flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    /// Index of the pattern.
    pub pattern: u16,
    /// CanBePrefix.
    pub can_be_prefix: bool,
    /// MustBeFresh.
    pub must_be_fresh: bool,
}

/// A set of weighted patterns, with the name files of `real:` suffixes loaded once.
#[derive(Debug)]
pub struct PatternMix {
    patterns: Vec<ConsumerPattern>,
    /// Running sums of the weights, for the weighted pick.
    cumulative: Vec<u64>,
    real: Vec<Option<Real>>,
    seed: u64,
}

/// Most patterns a mix holds (the pattern index travels as a u16 in [`GenToken`]).
pub const MAX_PATTERNS: usize = 1024;

impl PatternMix {
    /// Builds a mix; loads the name file of every `real:` suffix.
    pub fn new(patterns: Vec<ConsumerPattern>, seed: u64) -> Result<Self, WorkloadError> {
        if patterns.is_empty() || patterns.len() > MAX_PATTERNS {
            return Err(WorkloadError::NoPrefixes);
        }
        let mut total = 0u64;
        let cumulative = patterns
            .iter()
            .map(|p| {
                total += u64::from(p.weight);
                total
            })
            .collect();
        let real = patterns
            .iter()
            .map(|p| match &p.suffix {
                Suffix::Real(path) => Real::load(path, None, seed, Popularity::Uniform).map(Some),
                _ => Ok(None),
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            patterns,
            cumulative,
            real,
            seed,
        })
    }

    /// The patterns.
    pub fn patterns(&self) -> &[ConsumerPattern] {
        &self.patterns
    }

    /// Pattern and flags of Interest `i`: a pure function of the seed and `i`.
    pub fn pick(&self, i: u64) -> Pick {
        let mut s = Stream::new(self.seed, Tag::Traffic, i);
        let total = self.cumulative.last().copied().unwrap_or(1);
        let draw = s.below(total);
        let k = self.cumulative.partition_point(|&c| c <= draw);
        let p = self.patterns.get(k);
        let flag = |s: &mut Stream, r: f64| ((s.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < r;
        Pick {
            pattern: u16::try_from(k).unwrap_or(0),
            can_be_prefix: p.is_some_and(|p| flag(&mut s, p.can_be_prefix)),
            must_be_fresh: p.is_some_and(|p| flag(&mut s, p.must_be_fresh)),
        }
    }

    /// Clears `out`, then writes the Name TLV-VALUE of the `seq`-th Interest of `pattern`.
    pub fn name_into(&self, pattern: u16, seq: u64, out: &mut Vec<u8>) {
        out.clear();
        let k = usize::from(pattern);
        let Some(p) = self.patterns.get(k) else {
            return;
        };
        out.extend_from_slice(p.prefix.value());
        match &p.suffix {
            Suffix::Seq => push_number_component(out, tt::SEQUENCE_NUM_COMPONENT, seq),
            Suffix::Random => {
                let mut s = Stream::new(self.seed ^ u64::from(pattern), Tag::Traffic, !seq);
                let letters: [u8; 8] = core::array::from_fn(|_| b'a' + s.below(26) as u8);
                push_component(out, tt::GENERIC_COMPONENT, &letters);
            }
            Suffix::None => {}
            Suffix::Real(_) => {
                if let Some(Some(r)) = self.real.get(k) {
                    let mut tail = Vec::new();
                    r.prefix_into(seq % r.prefix_count().max(1), &mut tail);
                    out.extend_from_slice(&tail);
                }
            }
        }
    }
}

/// What a producer does with Interests under a prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Answer with a Data.
    Data,
    /// Answer with a network Nack of this reason code (150 NoRoute, 50 Congestion, ...).
    Nack(u64),
    /// Do not answer (the consumer sees a timeout).
    Silence,
}

/// How a producer signs its Data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signing {
    /// DigestSha256 (SignatureType 0): SHA-256 over the signed portion (the default).
    Digest,
    /// SignatureType 200 ("null", as NDNts and NDN-DPDK's generator use) with an empty value:
    /// no hashing, for measuring forwarders with large payloads without the producer's SHA-256
    /// becoming the limit. Forwarders do not verify signatures.
    Null,
}

/// SignatureType of [`Signing::Null`].
pub const NULL_SIGNATURE_TYPE: u8 = 200;

/// One producer rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerPattern {
    /// Name prefix the rule covers (and the producer registers).
    pub prefix: Name,
    /// What to answer.
    pub reply: Reply,
    /// Content bytes of each Data.
    pub payload: usize,
    /// FreshnessPeriod in ms (0: none).
    pub freshness_ms: u64,
    /// Signature of each Data.
    pub signing: Signing,
}

impl FromStr for ProducerPattern {
    type Err = PatternError;

    /// `prefix=/a[,reply=data|silence|nack|nack:REASON][,payload=N][,freshness=MS]`
    /// `[,sign=digest|null]`; REASON is NoRoute, Congestion, Duplicate or a number.
    fn from_str(s: &str) -> Result<Self, PatternError> {
        let mut p = Self {
            prefix: Name::new(),
            reply: Reply::Data,
            payload: 100,
            freshness_ms: 0,
            signing: Signing::Digest,
        };
        let mut has_prefix = false;
        for (k, v) in pairs(s)? {
            match k {
                "prefix" => {
                    p.prefix = prefix(v)?;
                    has_prefix = true;
                }
                "reply" => {
                    p.reply = match v {
                        "data" => Reply::Data,
                        "silence" => Reply::Silence,
                        "nack" => Reply::Nack(150),
                        _ => match v.strip_prefix("nack:") {
                            Some("NoRoute") => Reply::Nack(150),
                            Some("Congestion") => Reply::Nack(50),
                            Some("Duplicate") => Reply::Nack(100),
                            Some(n) => Reply::Nack(number(k, n)?),
                            None => {
                                return Err(err(format!(
                                    "reply={v}: data, silence or nack[:REASON]"
                                )))
                            }
                        },
                    }
                }
                "payload" => {
                    p.payload =
                        usize::try_from(number(k, v)?).map_err(|_| err("payload too large"))?
                }
                "freshness" => p.freshness_ms = number(k, v)?,
                "sign" => {
                    p.signing = match v {
                        "digest" => Signing::Digest,
                        "null" => Signing::Null,
                        _ => return Err(err(format!("sign={v}: digest or null"))),
                    }
                }
                _ => return Err(err(format!("unknown pattern key {k:?}"))),
            }
        }
        if !has_prefix {
            return Err(err(format!("{s:?}: a pattern needs prefix=")));
        }
        Ok(p)
    }
}

/// Index of the rule for `name`: the pattern with the longest prefix of it.
pub fn producer_rule(rules: &[ProducerPattern], name: NameRef<'_>) -> Option<usize> {
    rules
        .iter()
        .enumerate()
        .filter(|(_, r)| r.prefix.as_ref().is_prefix_of(name))
        .max_by_key(|(_, r)| r.prefix.len())
        .map(|(k, _)| k)
}

/// The consumer's per-Interest state, carried in the NDNLPv2 PitToken (24 bytes) and echoed by
/// the forwarder on the Data or Nack.
///
/// Layout: `0x47 ('G') | thread u8 | pattern u16 | slot u32 | seq u64 | sent_ns u64`, big endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenToken {
    /// Consumer thread.
    pub thread: u8,
    /// Pattern index in the [`PatternMix`].
    pub pattern: u16,
    /// Window slot (window mode) or 0.
    pub slot: u32,
    /// The Interest's run-wide sequence number.
    pub seq: u64,
    /// Send time, in ns since the consumer's epoch.
    pub sent_ns: u64,
}

/// Encoded size of a [`GenToken`].
pub const GEN_TOKEN_LEN: usize = 24;
const GEN_TOKEN_MAGIC: u8 = b'G';

impl GenToken {
    /// The token bytes.
    pub fn encode(&self) -> [u8; GEN_TOKEN_LEN] {
        let mut b = [0u8; GEN_TOKEN_LEN];
        b[0] = GEN_TOKEN_MAGIC;
        b[1] = self.thread;
        b[2..4].copy_from_slice(&self.pattern.to_be_bytes());
        b[4..8].copy_from_slice(&self.slot.to_be_bytes());
        b[8..16].copy_from_slice(&self.seq.to_be_bytes());
        b[16..24].copy_from_slice(&self.sent_ns.to_be_bytes());
        b
    }

    /// Parses token bytes; `None` for anything that is not a generator token.
    pub fn decode(b: &[u8]) -> Option<Self> {
        let b: &[u8; GEN_TOKEN_LEN] = b.try_into().ok()?;
        if b[0] != GEN_TOKEN_MAGIC {
            return None;
        }
        let u64_at = |i: usize| {
            b.get(i..i + 8)
                .and_then(|s| s.try_into().ok())
                .map(u64::from_be_bytes)
        };
        Some(Self {
            thread: b[1],
            pattern: u16::from_be_bytes([b[2], b[3]]),
            slot: u32::from_be_bytes([b[4], b[5], b[6], b[7]]),
            seq: u64_at(8)?,
            sent_ns: u64_at(16)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix(specs: &[&str]) -> PatternMix {
        PatternMix::new(specs.iter().map(|s| s.parse().unwrap()).collect(), 7).unwrap()
    }

    #[test]
    fn weights_decide_the_share_of_each_pattern() {
        let m = mix(&[
            "prefix=/a,weight=1",
            "prefix=/b,weight=3",
            "prefix=/c,weight=6",
        ]);
        let n = 100_000u64;
        let mut counts = [0u64; 3];
        for i in 0..n {
            counts[usize::from(m.pick(i).pattern)] += 1;
        }
        for (c, w) in counts.iter().zip([0.1, 0.3, 0.6]) {
            let share = *c as f64 / n as f64;
            assert!((share - w).abs() < 0.01, "{counts:?}");
        }
        // A pure function of the index.
        assert_eq!(m.pick(12345), m.pick(12345));
    }

    #[test]
    fn flag_ratios_are_respected() {
        let m = mix(&["prefix=/a,cbp=0.25,mbf=1", "prefix=/b,weight=1"]);
        let (mut cbp, mut mbf, mut a) = (0u64, 0u64, 0u64);
        for i in 0..40_000 {
            let p = m.pick(i);
            if p.pattern == 0 {
                a += 1;
                cbp += u64::from(p.can_be_prefix);
                mbf += u64::from(p.must_be_fresh);
            } else {
                assert!(!p.can_be_prefix && !p.must_be_fresh);
            }
        }
        assert_eq!(mbf, a);
        let r = cbp as f64 / a as f64;
        assert!((r - 0.25).abs() < 0.02, "{r}");
    }

    #[test]
    fn names_extend_the_prefix() {
        let m = mix(&[
            "prefix=/a/b,suffix=seq",
            "prefix=/r,suffix=random",
            "prefix=/n,suffix=none",
        ]);
        let mut out = Vec::new();
        m.name_into(0, 42, &mut out);
        assert_eq!(
            Name::from_value(out.clone()).unwrap().to_string(),
            "/a/b/seq=42"
        );
        m.name_into(1, 1, &mut out);
        let r1 = out.clone();
        m.name_into(1, 2, &mut out);
        assert_ne!(r1, out);
        assert_eq!(Name::from_value(out.clone()).unwrap().len(), 2);
        m.name_into(2, 9, &mut out);
        assert_eq!(Name::from_value(out.clone()).unwrap().to_string(), "/n");
    }

    #[test]
    fn bad_patterns_are_rejected_with_the_key() {
        for (s, key) in [
            ("weight=2", "prefix="),
            ("prefix=/a,weight=0", "weight"),
            ("prefix=/a,cbp=2", "cbp"),
            ("prefix=/a,suffix=zzz", "suffix"),
            ("prefix=/a,color=red", "color"),
            ("prefix=/a,bare", "bare"),
        ] {
            let e = s.parse::<ConsumerPattern>().unwrap_err();
            assert!(e.0.contains(key), "{s}: {e}");
        }
        for (s, key) in [
            ("prefix=/a,reply=echo", "reply"),
            ("prefix=/a,payload=x", "payload"),
            ("prefix=/a,sign=rsa", "sign"),
        ] {
            let e = s.parse::<ProducerPattern>().unwrap_err();
            assert!(e.0.contains(key), "{s}: {e}");
        }
    }

    #[test]
    fn producer_rules_pick_the_longest_prefix() {
        let rules: Vec<ProducerPattern> = [
            "prefix=/a,payload=10",
            "prefix=/a/nack,reply=nack:Congestion",
            "prefix=/a/quiet,reply=silence,freshness=5,sign=null",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
        let at = |u: &str| {
            producer_rule(&rules, Name::from_uri(u).unwrap().as_ref()).map(|k| rules[k].reply)
        };
        assert_eq!(at("/a/x"), Some(Reply::Data));
        assert_eq!(at("/a/nack/1"), Some(Reply::Nack(50)));
        assert_eq!(at("/a/quiet/1"), Some(Reply::Silence));
        assert_eq!(at("/b"), None);
        assert_eq!(rules[0].payload, 10);
        assert_eq!(rules[2].freshness_ms, 5);
        assert_eq!(
            (rules[0].signing, rules[2].signing),
            (Signing::Digest, Signing::Null)
        );
    }

    #[test]
    fn token_round_trips_and_rejects_foreign_tokens() {
        let t = GenToken {
            thread: 3,
            pattern: 513,
            slot: 70_000,
            seq: u64::MAX - 5,
            sent_ns: 123_456_789_012,
        };
        let b = t.encode();
        assert_eq!(b.len(), GEN_TOKEN_LEN);
        assert!(b.len() <= ndn_packet::lp::MAX_PIT_TOKEN_LEN);
        assert_eq!(GenToken::decode(&b), Some(t));
        assert_eq!(GenToken::decode(&b[..23]), None);
        let mut bad = b;
        bad[0] = 0;
        assert_eq!(GenToken::decode(&bad), None);
        assert_eq!(GenToken::decode(&u64::MAX.to_be_bytes()), None);
    }
}
