//! PIT tokens: ours, on every Interest we send upstream. (A downstream's token, echoed back, is
//! kept as the link layer's inline [`ndn_packet::LpToken`].)
//!
//! Our token is exactly [`PIT_TOKEN_LEN`] = 8 bytes, big-endian:
//!
//! ```text
//! byte  0      1  2  3      4  5  6  7
//!       worker generation   PCC entry index
//!       (u8)   (u24)        (u32)
//! ```
//!
//! The worker byte lets the input thread dispatch a Data or Nack to the worker that owns the
//! entry ([`worker_of`]) without touching any table. The index gives the entry in O(1). The
//! generation is bumped every time the entry slot is freed, so a token held by a late Data, a
//! replayed Data or a forger names a slot *and* an allocation of it: a stale token stops matching
//! as soon as the slot is reused, and even a matching one is followed by a name check. Any other
//! length is not ours ([`TokenError::WrongLength`]).

use core::fmt;

use ndn_packet::LpToken;

use crate::api::PitHandle;
use crate::list::NIL;

/// Length of the PIT token we put on outgoing Interests.
pub const PIT_TOKEN_LEN: usize = 8;
/// Generations are 24 bits wide and wrap.
pub const GENERATION_MASK: u32 = 0x00FF_FFFF;

/// Why a token was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenError {
    /// Our tokens are exactly [`PIT_TOKEN_LEN`] bytes.
    WrongLength,
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::WrongLength => write!(f, "PIT token is not {PIT_TOKEN_LEN} bytes"),
        }
    }
}

impl std::error::Error for TokenError {}

/// Our PIT token: worker id, generation and PCC entry index (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PitToken(u64);

impl PitToken {
    /// Packs the three fields; `generation` is truncated to 24 bits.
    pub const fn new(worker: u8, generation: u32, index: u32) -> Self {
        Self((worker as u64) << 56 | ((generation & GENERATION_MASK) as u64) << 32 | index as u64)
    }

    /// The worker (PCCT owner) the token belongs to.
    pub const fn worker(self) -> u8 {
        (self.0 >> 56) as u8
    }

    /// The 24-bit generation of the entry slot when the token was issued.
    pub const fn generation(self) -> u32 {
        (self.0 >> 32) as u32 & GENERATION_MASK
    }

    /// The PCC entry index.
    pub const fn index(self) -> u32 {
        self.0 as u32
    }

    /// The token as one number (same bit layout as the wire bytes).
    pub const fn to_u64(self) -> u64 {
        self.0
    }

    /// The inverse of [`PitToken::to_u64`].
    pub const fn from_u64(v: u64) -> Self {
        Self(v)
    }

    /// The 8 wire bytes (NDNLPv2 PitToken TLV-VALUE).
    pub const fn to_bytes(self) -> [u8; PIT_TOKEN_LEN] {
        self.0.to_be_bytes()
    }

    /// Parses wire bytes; anything but exactly 8 bytes is [`TokenError::WrongLength`].
    pub fn from_bytes(b: &[u8]) -> Result<Self, TokenError> {
        let a: [u8; PIT_TOKEN_LEN] = b.try_into().map_err(|_| TokenError::WrongLength)?;
        Ok(Self(u64::from_be_bytes(a)))
    }
}

/// The PIT token a received Data carries, read from the link layer's fixed token block
/// ([`RxToken::from_lp`]: a length compare and one load) by each PIT-CS step of that Data:
/// its prefetches ([`Pcct::prefetch_data_name`](crate::Pcct::prefetch_data_name)) and
/// [`Pcct::on_data_parsed`](crate::Pcct::on_data_parsed). Reading it at each step measured
/// cheaper than carrying it in the engine's packet view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RxToken {
    /// No token.
    #[default]
    Absent,
    /// A token of our length, not yet checked (worker, generation, name).
    Parsed(PitToken),
    /// A token of any other length: never ours, a token miss.
    Foreign,
}

impl RxToken {
    /// Parses token bytes as received (an empty slice is a token of length 0, not ours).
    pub fn parse(b: &[u8]) -> Self {
        PitToken::from_bytes(b).map_or(Self::Foreign, Self::Parsed)
    }

    /// Parses the link layer's token: an empty one is [`RxToken::Absent`]. Reads the fixed
    /// block, not a slice of the token's length: a length compare and one load.
    #[inline]
    pub fn from_lp(t: &LpToken) -> Self {
        let (bytes, len) = t.padded();
        match (len, bytes.first_chunk::<PIT_TOKEN_LEN>()) {
            (0, _) => Self::Absent,
            (PIT_TOKEN_LEN, Some(b)) => Self::Parsed(PitToken(u64::from_be_bytes(*b))),
            _ => Self::Foreign,
        }
    }

    /// The token, if it has our length.
    #[inline]
    pub fn pit_token(self) -> Option<PitToken> {
        match self {
            Self::Parsed(t) => Some(t),
            Self::Absent | Self::Foreign => None,
        }
    }
}

impl From<Option<&[u8]>> for RxToken {
    /// `None` is [`RxToken::Absent`]; bytes are parsed with [`RxToken::parse`].
    fn from(t: Option<&[u8]>) -> Self {
        t.map_or(Self::Absent, Self::parse)
    }
}

/// The worker a received token is addressed to, for Data/Nack dispatch; `None` when the token
/// does not have our length (then dispatch by name instead).
pub fn worker_of(token: &[u8]) -> Option<u8> {
    PitToken::from_bytes(token).ok().map(PitToken::worker)
}

/// The handle [`Pcct::on_interest`](crate::Pcct::on_interest) last returned for a new PIT part, and that part (or
/// [`NIL`] once freed): the pipeline forwards a new Interest at once, and
/// [`Pcct::record_out`](crate::Pcct::record_out) for that handle then needs no token check to find the part. Parts are
/// created only under a new handle (which replaces this one) and freed only by
/// `Pcct::free_part_inline` (which forgets it), so a part found here is the handle's, and
/// `NIL` (which no slot lookup accepts) means the handle names no part.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Issued {
    pub(crate) handle: PitHandle,
    pub(crate) part: u32,
}

impl Issued {
    pub(crate) const NONE: Self = Self {
        handle: PitHandle {
            token: PitToken::from_u64(0),
            must_be_fresh: false,
        },
        part: NIL,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pit_token_layout_round_trips() {
        let t = PitToken::new(0xAB, 0x0123_4567, 0x89AB_CDEF);
        assert_eq!(t.worker(), 0xAB);
        assert_eq!(t.generation(), 0x23_4567, "generation keeps 24 bits");
        assert_eq!(t.index(), 0x89AB_CDEF);
        assert_eq!(
            t.to_bytes(),
            [0xAB, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
        );
        assert_eq!(PitToken::from_bytes(&t.to_bytes()), Ok(t));
        assert_eq!(PitToken::from_u64(t.to_u64()), t);
        assert_eq!(worker_of(&t.to_bytes()), Some(0xAB));
    }

    #[test]
    fn rx_tokens_parse_like_the_bytes() {
        let t = PitToken::new(3, 0x0001_0203, 0x0405_0607);
        let mut many: Vec<Vec<u8>> = [0usize, 1, 7, 9, 32]
            .iter()
            .map(|&n| vec![5u8; n])
            .collect();
        many.push(t.to_bytes().to_vec());
        for b in &many {
            let lp = LpToken::new(b).unwrap();
            let want = match PitToken::from_bytes(b) {
                _ if b.is_empty() => RxToken::Absent,
                Ok(t) => RxToken::Parsed(t),
                Err(_) => RxToken::Foreign,
            };
            assert_eq!(RxToken::from_lp(&lp), want, "{b:?}");
            assert_eq!(
                RxToken::from(Some(lp.as_bytes()).filter(|b| !b.is_empty())),
                want
            );
            assert_eq!(want.pit_token(), PitToken::from_bytes(b).ok());
        }
        assert_eq!(RxToken::from(None), RxToken::Absent);
        assert_eq!(RxToken::from(Some(&[][..])), RxToken::Foreign);
    }

    #[test]
    fn wrong_length_tokens_are_rejected() {
        for len in [0usize, 1, 7, 9, 32] {
            let b = vec![1u8; len];
            assert_eq!(
                PitToken::from_bytes(&b),
                Err(TokenError::WrongLength),
                "{len}"
            );
            assert_eq!(worker_of(&b), None);
        }
    }
}
