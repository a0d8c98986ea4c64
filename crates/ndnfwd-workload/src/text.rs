//! Writing generated components straight into a name buffer, and the small distribution tables
//! the generators draw from. Everything here is `const` data built at compile time.

use ndn_packet::tlv::{tt, write_var_number};

use crate::rng::Stream;

/// Maps a random byte to a character of an alphabet (`byte * len / 256`); the bias is at most one
/// part in `256 / len`, irrelevant for name shapes.
pub(crate) struct Alphabet([u8; 256]);

impl Alphabet {
    const fn spread(chars: &[u8]) -> Self {
        let mut table = [0u8; 256];
        let mut b = 0;
        while b < 256 {
            table[b] = chars[b * chars.len() / 256];
            b += 1;
        }
        Self(table)
    }

    /// Character for one random byte.
    fn char(&self, byte: u8) -> u8 {
        self.0[usize::from(byte)]
    }
}

/// URL-like lowercase letters and digits (`so` names).
pub(crate) const LOWER_ALNUM: Alphabet = Alphabet::spread(b"abcdefghijklmnopqrstuvwxyz0123456789");
/// ASCII letters and digits (`yuan` names, seed 001 §3.3.1).
pub(crate) const ALNUM: Alphabet =
    Alphabet::spread(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
/// Uppercase letters and digits: the body of a no-match first component.
pub(crate) const UPPER_ALNUM: Alphabet = Alphabet::spread(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");

/// Appends a GenericNameComponent of `len` random characters drawn from `alphabet`.
pub(crate) fn push_random(out: &mut Vec<u8>, s: &mut Stream, len: usize, alphabet: &Alphabet) {
    push_header(out, len);
    push_chars(out, s, len, alphabet);
}

/// Appends a GenericNameComponent header (type and length) for a `len`-byte value.
pub(crate) fn push_header(out: &mut Vec<u8>, len: usize) {
    out.reserve(len + 24); // header (at most 10 bytes) and the last group's overshoot (7)
    out.push(tt::GENERIC_COMPONENT as u8);
    // Generated components are almost always shorter than 253 bytes, whose VAR-NUMBER is the
    // byte itself; this inline case keeps the per-component call out of the hot loop.
    match u8::try_from(len) {
        Ok(short) if short < 253 => out.push(short),
        _ => write_var_number(out, len as u64),
    }
}

/// Appends `len` random characters (component value bytes, no header), eight per 64-bit draw.
/// Whole 8-byte groups are appended (fixed-size copies, no `memmove` call) and the excess of
/// the last one is truncated.
pub(crate) fn push_chars(out: &mut Vec<u8>, s: &mut Stream, len: usize, alphabet: &Alphabet) {
    let end = out.len() + len;
    while out.len() < end {
        out.extend_from_slice(&s.next_u64().to_le_bytes().map(|b| alphabet.char(b)));
    }
    out.truncate(end);
}

/// A discrete distribution given in per-mille weights, expanded at compile time into a
/// 1000-entry lookup table so a draw is one multiply-shift and one load.
pub(crate) struct PerMille([u8; 1000]);

impl PerMille {
    /// Builds the table from `(value, weight)` pairs; fails to compile unless weights sum to 1000.
    const fn new(spec: &[(u8, u16)]) -> Self {
        let mut table = [0u8; 1000];
        let mut at = 0;
        let mut i = 0;
        while i < spec.len() {
            let (value, weight) = spec[i];
            let mut w = 0;
            while w < weight {
                table[at] = value;
                at += 1;
                w += 1;
            }
            i += 1;
        }
        assert!(at == 1000, "per-mille weights must sum to 1000");
        Self(table)
    }

    /// One draw.
    pub(crate) fn draw(&self, s: &mut Stream) -> u8 {
        self.0.get(s.below(1000) as usize).copied().unwrap_or(0)
    }

    /// Mean of the distribution (for documentation tests and `describe` comparisons).
    #[cfg(test)]
    pub(crate) fn mean(&self) -> f64 {
        self.0.iter().map(|&v| f64::from(v)).sum::<f64>() / 1000.0
    }
}

/// A length distribution given by 64 equiprobable quantiles: a draw is six random bits.
pub(crate) struct Quantiles(pub(crate) [u8; 64]);

impl Quantiles {
    /// One draw.
    pub(crate) fn draw(&self, s: &mut Stream) -> usize {
        self.0.get(s.six_bits()).map_or(1, |&l| usize::from(l))
    }

    /// Mean length.
    #[cfg(test)]
    pub(crate) fn mean(&self) -> f64 {
        self.0.iter().map(|&v| f64::from(v)).sum::<f64>() / 64.0
    }
}

/// FIB prefix component counts: seed 000 Table 5, "FIB component distribution" row (synthetic
/// URLBlacklist-shaped FIB): 3 components 28.5%, 4 36.9%, 5 19.1%, 6 6.9%, 7 3.3%, 8 or more 3.4%;
/// the cumulative row starts at 30.3% at 3, so 1.8% have 1-2 components. The "8 or more" mass is
/// spread as a short tail (8: 1.9%, 9: 0.9%, 10: 0.4%, 11: 0.2%) and 5 gets 19.2% so the weights sum
/// to 1000 and the mean is 4.264, the paper's 4.26 (§4.1).
pub(crate) const FIB_COMPONENTS: PerMille = PerMille::new(&[
    (1, 3),
    (2, 15),
    (3, 285),
    (4, 369),
    (5, 192),
    (6, 69),
    (7, 33),
    (8, 19),
    (9, 9),
    (10, 4),
    (11, 2),
]);

/// Components an Interest adds below its FIB prefix. Mean 2.41: seed 000 §4.1 reports a mean
/// distance of 2.40 components between Interest and FIB names, and 4.26 + 2.40 = 6.66, the mean
/// IRCache name length of Table 3.
pub(crate) const EXTRA_COMPONENTS: PerMille =
    PerMille::new(&[(1, 280), (2, 300), (3, 240), (4, 110), (5, 50), (6, 20)]);

/// Interest-level component lengths: quantiles of a log-normal (sigma 0.5) whose rounded mean is
/// 8.80, the IRCache chars/component average of seed 000 Table 3.
pub(crate) const LEAF_LEN: Quantiles = Quantiles([
    2, 3, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 8, 8,
    8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 13, 13, 14, 14, 15,
    15, 16, 17, 19, 21, 26,
]);

/// Second-level ("domain") component lengths: log-normal quantiles (sigma 0.35), mean 9.0.
pub(crate) const DOMAIN_LEN: Quantiles = Quantiles([
    4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 8, 8,
    9, 9, 9, 9, 9, 9, 9, 9, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 12, 12, 12, 12, 13, 13,
    14, 14, 15, 16, 17, 20,
]);

/// FIB components below the domain: log-normal quantiles (sigma 0.5), mean 11.41. Top-level
/// labels are short (mean 2.6), so the deeper FIB components are longer to bring the FIB's
/// chars/component to 8.8 as well; with [`LEAF_LEN`] for the Interest suffix both FIB prefixes
/// and Interests then average 8.8 characters per component.
pub(crate) const PATH_LEN: Quantiles = Quantiles([
    3, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 10, 10,
    10, 10, 10, 11, 11, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 16, 16, 16, 17,
    18, 18, 19, 20, 21, 23, 24, 27, 34,
]);

/// Top-level labels and their per-mille popularity, roughly the share of registered web names.
const TLDS: [(&str, u16); 46] = [
    ("com", 420),
    ("org", 60),
    ("net", 55),
    ("de", 45),
    ("ru", 30),
    ("uk", 28),
    ("jp", 25),
    ("br", 22),
    ("fr", 20),
    ("it", 18),
    ("nl", 16),
    ("pl", 16),
    ("in", 15),
    ("au", 15),
    ("info", 14),
    ("cn", 14),
    ("es", 12),
    ("ca", 12),
    ("edu", 12),
    ("io", 11),
    ("gov", 10),
    ("ch", 9),
    ("se", 9),
    ("be", 8),
    ("kr", 8),
    ("mx", 8),
    ("cz", 8),
    ("us", 8),
    ("tv", 6),
    ("me", 6),
    ("co", 6),
    ("eu", 6),
    ("xyz", 5),
    ("biz", 5),
    ("online", 4),
    ("site", 4),
    ("app", 4),
    ("dev", 4),
    ("tk", 3),
    ("ar", 3),
    ("vn", 3),
    ("gr", 3),
    ("at", 3),
    ("dk", 3),
    ("no", 2),
    ("fi", 2),
];

const TLD_PICK: PerMille = PerMille::new(&{
    let mut spec = [(0u8, 0u16); TLDS.len()];
    let mut i = 0;
    while i < TLDS.len() {
        spec[i] = (i as u8, TLDS[i].1);
        i += 1;
    }
    spec
});

/// Draws a top-level label by popularity.
pub(crate) fn draw_tld(s: &mut Stream) -> &'static [u8] {
    TLDS.get(usize::from(TLD_PICK.draw(s)))
        .map_or(b"com", |(label, _)| label.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Tag;

    #[test]
    fn tables_have_the_published_means() {
        assert!((FIB_COMPONENTS.mean() - 4.26).abs() < 0.01);
        assert!((EXTRA_COMPONENTS.mean() - 2.40).abs() < 0.02);
        assert!((LEAF_LEN.mean() - 8.8).abs() < 0.01);
        assert!((DOMAIN_LEN.mean() - 9.0).abs() < 0.01);
        assert!((PATH_LEN.mean() - 11.41).abs() < 0.01);
        for q in [&LEAF_LEN, &DOMAIN_LEN, &PATH_LEN] {
            assert!(q.0.windows(2).all(|w| w[0] <= w[1]) && q.0[0] >= 2);
        }
    }

    #[test]
    fn components_are_well_formed() {
        let mut s = Stream::new(0, Tag::SoPrefix, 0);
        let mut out = Vec::new();
        push_random(&mut out, &mut s, 0, &LOWER_ALNUM);
        push_random(&mut out, &mut s, 13, &LOWER_ALNUM);
        push_random(&mut out, &mut s, 300, &ALNUM);
        assert_eq!(&out[..2], &[8, 0]);
        assert_eq!(&out[2..4], &[8, 13]);
        assert!(out[4..17]
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
        assert_eq!(&out[17..21], &[8, 253, 1, 44]); // 300 = 0x012C
        assert_eq!(out.len(), 21 + 300);
        assert!(out[21..].iter().all(u8::is_ascii_alphanumeric));
    }

    #[test]
    fn alphabets_cover_all_characters() {
        let mut seen = [false; 256];
        for b in 0..=255u8 {
            seen[usize::from(ALNUM.char(b))] = true;
        }
        assert_eq!(seen.iter().filter(|&&x| x).count(), 62);
        assert!((0..=255u8)
            .all(|b| UPPER_ALNUM.char(b).is_ascii_uppercase()
                || UPPER_ALNUM.char(b).is_ascii_digit()));
    }

    #[test]
    fn tld_draws_follow_popularity() {
        let mut s = Stream::new(3, Tag::SoPrefix, 0);
        let com = (0..10_000).filter(|_| draw_tld(&mut s) == b"com").count();
        assert!((3_900..4_500).contains(&com), "{com}");
    }
}
