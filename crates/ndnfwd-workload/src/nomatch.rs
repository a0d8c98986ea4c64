//! Interest names that match no FIB prefix: for miss paths and for the long-name DoS test of
//! seed 000 §2.3 (garbage names whose cost must be bounded by the FIB, not by the Interest).

use crate::rng::{Stream, Tag};
use crate::text::{
    push_chars, push_header, push_random, EXTRA_COMPONENTS, FIB_COMPONENTS, LEAF_LEN, LOWER_ALNUM,
    UPPER_ALNUM,
};

/// First byte of every no-match first component. No generated workload emits `~`, and a real
/// name file would need a first component of `~` plus uppercase/digit noise to collide.
pub const NO_MATCH_MARK: u8 = b'~';

/// Components in a [`NoMatch::long_into`] name by default, as in the DoS discussion of seed 000.
pub const LONG_COMPONENTS: usize = 200;

/// Generator of names whose first component is `~` followed by random uppercase letters and
/// digits, so they share no prefix with any `so` or `yuan` name (`so` is lowercase and never uses
/// `~`; `yuan` never uses `~`). Name `i` is a pure function of `(seed, i)`.
#[derive(Debug, Clone, Copy)]
pub struct NoMatch {
    seed: u64,
}

impl NoMatch {
    /// The generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Self { seed }
    }

    /// Clears `out` and writes an Interest-shaped name (the component-count and length
    /// distributions of `so` Interests, mean 6.67 components) that matches nothing.
    pub fn name_into(&self, i: u64, out: &mut Vec<u8>) {
        let mut s = self.start(i, out);
        let k = FIB_COMPONENTS.draw(&mut s) + EXTRA_COMPONENTS.draw(&mut s);
        for _ in 1..k {
            let len = LEAF_LEN.draw(&mut s);
            push_random(out, &mut s, len, &LOWER_ALNUM);
        }
    }

    /// Clears `out` and writes a non-matching name of `components` components (at least 1).
    /// Components after the first are 1 to 4 random characters, so a 200-component name stays
    /// around 900 bytes and fits, as an Interest, in one Ethernet frame.
    pub fn long_into(&self, i: u64, components: usize, out: &mut Vec<u8>) {
        let mut s = self.start(i, out);
        for _ in 1..components {
            let len = 1 + s.below(4) as usize;
            push_random(out, &mut s, len, &LOWER_ALNUM);
        }
    }

    /// Writes the first component, `~` + 5..=19 uppercase/digit characters, and returns the
    /// stream positioned after it.
    fn start(&self, i: u64, out: &mut Vec<u8>) -> Stream {
        out.clear();
        let mut s = Stream::new(self.seed, Tag::NoMatch, i);
        let len = 5 + s.below(15) as usize;
        push_header(out, len + 1);
        out.push(NO_MATCH_MARK);
        push_chars(out, &mut s, len, &UPPER_ALNUM);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndn_packet::NameRef;

    #[test]
    fn shapes() {
        let g = NoMatch::new(4);
        let mut buf = Vec::new();
        let mut total = 0;
        for i in 0..10_000 {
            g.name_into(i, &mut buf);
            let n = NameRef::new_checked(&buf).unwrap();
            let first = n.get(0).unwrap().value();
            assert_eq!(first[0], NO_MATCH_MARK);
            assert!(first[1..]
                .iter()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()));
            total += n.len();
        }
        let mean = total as f64 / 10_000.0;
        assert!((mean - 6.67).abs() < 0.1, "{mean}");
        g.long_into(9, LONG_COMPONENTS, &mut buf);
        let n = NameRef::new_checked(&buf).unwrap();
        assert_eq!(n.len(), LONG_COMPONENTS);
        assert!(buf.len() < 1400, "{}", buf.len());
        g.long_into(9, 0, &mut buf);
        assert_eq!(NameRef::new_checked(&buf).unwrap().len(), 1);
    }
}
