//! Hash flooding: an attacker who knows the hash key crafts prefixes that all land in one home
//! bucket, so lookups walk one long overflow chain. The forwarder's SipHash key is secret (drawn
//! from the OS at start-up), so the same names spread over the table.
//!
//! Pass criterion: with the attacker's key the crafted names do collide (the test has teeth:
//! the longest lookup walks at least `COLLIDERS / 7 / 2` buckets), and with any other key every
//! lookup of the same names visits at most 3 buckets. Assertions are on bucket visits, not time.

mod common;

use common::hop;
use ndn_packet::{Name, NameHasher, PrefixHashes, SipVariant};
use ndnfwd_fib::{FibConfig, FibWriter, LpmAlgorithm, LpmConfig};

/// The key the attacker assumes (as if the forwarder used a fixed, published key).
const ATTACKER_KEY: [u8; 16] = *b"published-key-00";
/// A key the attacker does not know.
const SECRET_KEY: [u8; 16] = *b"\x9c\x11secret-key\x07\x42\xe0\x05";
/// Crafted names.
const COLLIDERS: usize = 64;
/// Low hash bits the crafted names share (covers every home-bucket mask of the test FIB).
const COLLIDE_BITS: u32 = 12;

fn fib(key: [u8; 16]) -> FibWriter {
    let cfg = FibConfig {
        capacity: 1 << 12,
        load_factor: 4,
        max_entries: 1 << 16,
        max_nexthop_sets: 1 << 8,
        lpm: LpmConfig {
            algorithm: LpmAlgorithm::LongestFirst,
            m: 4,
        },
    };
    FibWriter::new(cfg, NameHasher::new(key, SipVariant::Sip13)).unwrap()
}

/// One-component names whose hash under `key` has the same low `COLLIDE_BITS` bits.
fn craft(key: [u8; 16]) -> Vec<Name> {
    let h = NameHasher::new(key, SipVariant::Sip13);
    let mask = (1u64 << COLLIDE_BITS) - 1;
    let mut out = Vec::new();
    let mut i = 0u64;
    while out.len() < COLLIDERS {
        let n = Name::new().push(format!("x{i}").as_bytes());
        if h.hash_name(n.as_ref()) & mask == 0x5a5 {
            out.push(n);
        }
        i += 1;
    }
    out
}

/// The most buckets (cache lines) one lookup of the `names` visits in a FIB keyed with `key`.
fn max_lines(key: [u8; 16], names: &[Name]) -> u32 {
    let mut w = fib(key);
    for n in names {
        w.set(n.as_ref(), &hop(1), 0).unwrap();
    }
    let r = w.handle().reader();
    let h = NameHasher::new(key, SipVariant::Sip13);
    let mut hs = PrefixHashes::default();
    names
        .iter()
        .map(|n| {
            h.hash_prefixes(n.as_ref(), &mut hs);
            let (m, tr) = r.lookup_traced(&hs);
            assert_eq!(m.map(|m| m.depth()), Some(1), "{n} is found");
            tr.lines
        })
        .max()
        .unwrap()
}

#[test]
fn crafted_collisions_only_hurt_a_known_key() {
    let names = craft(ATTACKER_KEY);
    let attacked = max_lines(ATTACKER_KEY, &names);
    assert!(
        attacked as usize >= COLLIDERS / 7 / 2,
        "crafted names should share a chain under the known key: {attacked} buckets"
    );
    let keyed = max_lines(SECRET_KEY, &names);
    assert!(
        keyed <= 3,
        "secret key: {keyed} buckets (attacked: {attacked})"
    );
    println!("{{\"colliders\":{COLLIDERS},\"max_lines_known_key\":{attacked},\"max_lines_secret_key\":{keyed}}}");
}
