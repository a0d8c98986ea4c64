use super::*;
use crate::Name;
use core::hash::Hasher;
use proptest::prelude::*;
use siphasher::sip128::{Hasher128, SipHasher13, SipHasher24};

const KEY: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

fn reference(variant: SipVariant, bytes: &[u8]) -> u128 {
    let (k0, k1) = (0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908);
    let h = match variant {
        SipVariant::Sip13 => {
            let mut h = SipHasher13::new_with_keys(k0, k1);
            h.write(bytes);
            h.finish128()
        }
        SipVariant::Sip24 => {
            let mut h = SipHasher24::new_with_keys(k0, k1);
            h.write(bytes);
            h.finish128()
        }
    };
    u128::from(h.h2) << 64 | u128::from(h.h1)
}

/// The lanes' paths this CPU runs, each compared with the scalar one by the tests; a message
/// names those it lacks.
fn runnable() -> impl Iterator<Item = simd::Simd> {
    simd::Simd::ALL.into_iter().filter(|s| {
        let runs = s.runs();
        if !runs {
            eprintln!("this CPU lacks {s:?}: its lanes are not compared");
        }
        runs
    })
}

#[test]
fn published_siphash24_128_vector() {
    // First vector of the SipHash reference implementation's vectors_sip128 (empty message).
    let h = NameHasher::new(KEY, SipVariant::Sip24);
    let mut out = PrefixHashes::default();
    h.hash_prefixes(NameRef::root(), &mut out);
    let expect: [u8; 16] = [
        0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6, 0x6d, 0xf6, 0x72, 0x14, 0xc7, 0x55, 0x02,
        0x93,
    ];
    assert_eq!(out.id128(0).map(u128::to_le_bytes), Some(expect));
}

proptest! {
    #[test]
    fn one_pass_equals_reference_per_prefix(comps in proptest::collection::vec(
        proptest::collection::vec(any::<u8>(), 0..300), 0..12)) {
        let name = comps.iter().fold(Name::new(), |n, c| n.push(c));
        for variant in [SipVariant::Sip13, SipVariant::Sip24] {
            let h = NameHasher::new(KEY, variant);
            let mut out = PrefixHashes::default();
            // A stale cache would show on the second name: hash another name first and
            // read its odd prefixes' table hashes, then the even ones' identities.
            h.hash_prefixes(Name::from_uri("/other/name/x/y").unwrap().as_ref(), &mut out);
            (0..out.len()).step_by(2).for_each(|i| { out.id128(i); });
            (1..out.len()).step_by(2).for_each(|i| { out.get(i); });
            h.hash_prefixes(name.as_ref(), &mut out);
            prop_assert_eq!(out.len(), comps.len() + 1);
            for i in 0..out.len() {
                let prefix = name.as_ref().prefix(i);
                let want = reference(variant, prefix.value());
                // Table hash first on odd prefixes, identity first on even ones.
                if i % 2 == 1 {
                    prop_assert_eq!(out.get(i), Some(want as u64));
                }
                prop_assert_eq!(out.id128(i), Some(want));
                prop_assert_eq!(out.get(i), Some(want as u64));
                prop_assert_eq!(h.hash_value(prefix.value()), want as u64);
            }
            prop_assert_eq!(out.full(), reference(variant, name.as_ref().value()) as u64);
        }
    }
}

#[test]
fn full_of_nothing_hashed_is_zero() {
    assert_eq!(PrefixHashes::default().full(), 0);
}

#[test]
fn cached_rev_reads_a_finalized_run_deepest_first() {
    let h = NameHasher::new(KEY, SipVariant::Sip13);
    let mut out = PrefixHashes::default();
    h.hash_prefixes(Name::from_uri("/a/b/c/d/e").unwrap().as_ref(), &mut out);
    // Nothing cached yet, then only part of the run.
    assert!(out.cached_rev(2..=4).is_none());
    out.get(3);
    assert!(out.cached_rev(2..=4).is_none());
    out.finalize(2..=4);
    let got: Vec<u64> = out.cached_rev(2..=4).unwrap().collect();
    let want: Vec<u64> = (2..=4).rev().map(|i| out.get(i).unwrap()).collect();
    assert_eq!(got, want);
    // Past the name, past the head, or an empty run: never cached.
    assert!(out.cached_rev(4..=6).is_none());
    assert!(out.cached_rev(60..=64).is_none());
    #[allow(clippy::reversed_empty_ranges)]
    let empty = out.cached_rev(4..=3);
    assert!(empty.is_none());
}

#[test]
fn cached_rev_answers_exactly_when_every_bit_of_the_run_is_set() {
    // The cache bits set directly: every run `lo..=hi` (empty ones and those past the head
    // included) against the bits one by one, at both ends of the word.
    let out = PrefixHashes::default();
    for mask in [
        0,
        u64::MAX,
        u64::MAX << 1,
        u64::MAX >> 1,
        !(1 << 31),
        0x0f0f,
        1 << 63,
        1,
    ] {
        out.h1s.set(mask);
        for lo in 0..66 {
            for hi in 0..66 {
                let want = lo <= hi && hi < 64 && (lo..=hi).all(|i| mask >> i & 1 != 0);
                assert_eq!(
                    out.cached_rev(lo..=hi).is_some(),
                    want,
                    "{mask:#x} {lo} {hi}"
                );
            }
        }
    }
}

/// Every prefix's absorbing state, last block and cached output words, to compare two walks or
/// two finalization paths exactly.
#[allow(clippy::type_complexity)]
fn cells(out: &PrefixHashes) -> Vec<([u64; 4], u64, Option<u64>, Option<u64>)> {
    let s = &out.slots;
    let cached = |mask: &Cell<u64>, a: usize, i: usize| bit(mask.get(), i).then(|| s.word(a, i));
    (0..s.len())
        .map(|i| {
            (
                s.prefix(i).0.v,
                s.prefix(i).1,
                cached(&out.h1s, slots::H1, i),
                cached(&out.h2s, slots::H2, i),
            )
        })
        .collect()
}

proptest! {
    #[test]
    fn batch_finalization_equals_one_by_one(
        comps in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..20), 0..14),
        // Often none cached: whole groups of four.
        cached in prop_oneof![
            Just(vec![false; 14]),
            proptest::collection::vec(any::<bool>(), 14),
        ],
        lo in 0usize..4,
        hi in 0usize..16,
    ) {
        let name = comps.iter().fold(Name::new(), |n, c| n.push(c));
        for variant in [SipVariant::Sip13, SipVariant::Sip24] {
            let h = NameHasher::new(KEY, variant);
            // Some prefixes already finalized (h1 read, or the identity too) one by one.
            let fresh = || {
                let mut out = PrefixHashes::default();
                h.hash_prefixes(name.as_ref(), &mut out);
                for (i, _) in cached.iter().enumerate().filter(|(_, c)| **c) {
                    if i % 3 == 0 { out.id128(i); } else { out.get(i); }
                }
                out
            };
            let (one, scalar, best) = (fresh(), fresh(), fresh());
            for i in lo..=hi.min(one.components()) {
                one.id128(i);
            }
            let want = |o: &PrefixHashes| {
                let hi = hi.min(o.components());
                (lo..=hi).fold(0u64, |m, i| m | 1 << i) & !o.h2s.get()
            };
            lanes::finalize_scalar(&scalar, want(&scalar));
            best.finalize(lo..=hi);
            prop_assert_eq!(cells(&scalar), cells(&one));
            // The lanes may cache the group's prefixes past the range too: equal values.
            let agree = |a: &PrefixHashes| {
                cells(a).iter().zip(cells(&one)).all(|(x, y)| {
                    x.0 == y.0 && x.1 == y.1
                        && (x.2.is_none() || y.2.is_none() || x.2 == y.2)
                        && (x.3.is_none() || y.3.is_none() || x.3 == y.3)
                        && (y.3.is_none() || x.3.is_some())
                })
            };
            prop_assert!(agree(&best));
            for simd in runnable() {
                let lanes = fresh();
                // SAFETY: the CPU runs `simd` (`runnable`).
                #[allow(unsafe_code)]
                let finalizer = unsafe { lanes::Finalizer::new(simd) };
                finalizer.call(&lanes, want(&lanes));
                prop_assert!(agree(&lanes), "{:?}", simd);
            }
            for o in [&best, &scalar] {
                for i in 0..o.len() {
                    let want = reference(variant, name.as_ref().prefix(i).value());
                    prop_assert_eq!(o.get(i), Some(want as u64));
                    prop_assert_eq!(o.id128(i), Some(want));
                }
                // Every cached word is the reference's.
                for (i, c) in cells(o).iter().enumerate() {
                    let want = reference(variant, name.as_ref().prefix(i).value());
                    prop_assert!(c.2.is_none_or(|h| h == want as u64));
                    prop_assert!(c.3.is_none_or(|h| h == (want >> 64) as u64));
                }
            }
        }
    }
}

#[test]
fn long_names_cache_every_prefix_and_reads_repeat() {
    // 70 components (past any 64-bit bookkeeping): reading a prefix twice, in either order,
    // must give the reference hashes from the cache or from the absorbing state.
    let name = (0..70u8).fold(Name::new(), |n, c| n.push([c; 3]));
    let h = NameHasher::new(KEY, SipVariant::Sip13);
    let mut out = PrefixHashes::default();
    h.hash_prefixes(name.as_ref(), &mut out);
    // A batch across the 64th prefix: those past it are left to each read.
    out.finalize(58..=70);
    for i in [65, 70, 3, 60, 63, 64, 65, 70, 3] {
        let want = reference(SipVariant::Sip13, name.as_ref().prefix(i).value());
        assert_eq!(out.get(i), Some(want as u64));
        assert_eq!(out.id128(i), Some(want));
        assert_eq!(out.get(i), Some(want as u64));
        assert_eq!(out.id128(i), Some(want));
    }
}

#[test]
fn names_longer_than_the_head_grow_the_tail() {
    // The walk writes the first 64 prefixes word-major and the others into a vector: every
    // length, from below to past the head, longer then shorter, hashes every prefix.
    let h = NameHasher::new(KEY, SipVariant::Sip13);
    let mut out = PrefixHashes::with_capacity(1);
    for n in [0, 1, 2, 3, 40, 2, 0, 41, 63, 64, 70, 2, 100, 65] {
        let name = (0..n).fold(Name::new(), |name, c| name.push([c as u8; 9]));
        h.hash_prefixes(name.as_ref(), &mut out);
        assert_eq!(out.len(), n + 1);
        for i in 0..=n {
            let want = reference(SipVariant::Sip13, name.as_ref().prefix(i).value());
            assert_eq!(out.id128(i), Some(want));
        }
        assert_eq!(out.get(n + 1), None);
    }
}

#[test]
fn key_changes_every_hash() {
    let name = Name::from_uri("/a/b/c").unwrap();
    let mut a = PrefixHashes::default();
    let mut b = PrefixHashes::default();
    NameHasher::new(KEY, SipVariant::Sip13).hash_prefixes(name.as_ref(), &mut a);
    NameHasher::new([9; 16], SipVariant::Sip13).hash_prefixes(name.as_ref(), &mut b);
    for i in 0..4 {
        assert_ne!(a.get(i), b.get(i));
    }
    assert_ne!(
        NameHasher::from_os(SipVariant::Sip13)
            .unwrap()
            .hash_name(name.as_ref()),
        NameHasher::from_os(SipVariant::Sip13)
            .unwrap()
            .hash_name(name.as_ref())
    );
}

/// Name values of every shape: random bytes, and component TLVs of chosen and random types
/// (digest types, type 0, multi-byte markers) with one-byte lengths that may overrun.
fn raw_names() -> impl Strategy<Value = Vec<u8>> {
    // Mostly the common name, so that whole names of it are frequent.
    let typ = prop_oneof![
        16 => Just(8u8),
        1 => Just(0u8),
        1 => Just(1u8),
        1 => Just(2u8),
        1 => Just(3u8),
        1 => Just(252u8),
        1 => Just(253u8),
        2 => any::<u8>(),
    ];
    let component = (typ, proptest::collection::vec(any::<u8>(), 0..40), 0u8..32);
    prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..80),
        4 => proptest::collection::vec(component, 0..12).prop_map(|cs| {
            let mut out = Vec::new();
            for (t, v, skew) in cs {
                // Mostly the true length; sometimes one that overruns or is too short.
                let len = match skew {
                    0 => v.len() as u8 + 1,
                    _ => v.len() as u8,
                };
                out.extend([t, len]);
                out.extend(v);
            }
            out
        }),
    ]
}

/// The whole-word walk over `value` followed by `after` (when `after` has 8 bytes or more; the
/// general walk with fewer) gives the general walk's result, prefixes and identities.
fn walks_agree(value: &[u8], after: &[u8]) -> Result<(), TestCaseError> {
    for variant in [SipVariant::Sip13, SipVariant::Sip24] {
        let h = NameHasher::new(KEY, variant);
        let mut room = value.to_vec();
        room.extend(after);
        let (mut fast, mut general) = (PrefixHashes::default(), PrefixHashes::default());
        // The first walk grows the slots (a name longer than the slots takes the general
        // walk); the second is compared.
        let _ = h.scan_hashed(&room, value.len(), &mut fast);
        let a = h.scan_hashed(&room, value.len(), &mut fast);
        let b = h.scan_hashed(value, value.len(), &mut general);
        match (a, b) {
            (Ok((na, sa)), Ok((nb, sb))) => {
                prop_assert_eq!(na, nb);
                prop_assert_eq!(sa.params_digests, sb.params_digests);
                prop_assert_eq!(sa.params_digest_at, sb.params_digest_at);
                prop_assert_eq!(cells(&fast), cells(&general));
                for i in 0..fast.len() {
                    prop_assert_eq!(fast.id128(i), general.id128(i));
                }
            }
            (Err(x), Err(y)) => prop_assert_eq!(x, y),
            (a, b) => prop_assert!(false, "{:?} vs {:?}", a.map(|r| r.0), b.map(|r| r.0)),
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn whole_word_walk_equals_general_walk(
        value in raw_names(),
        after in proptest::collection::vec(any::<u8>(), 0..12),
    ) {
        walks_agree(&value, &after)?;
    }
}

proptest! {
    /// Names of many short components, around the longest whose prefixes all fit in the head
    /// of the slots (`FITS_BYTES`, written with no check per prefix) and past it.
    #[test]
    fn head_walk_equals_general_walk_near_the_head_size(
        comps in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..3), 40..70),
        after in proptest::collection::vec(any::<u8>(), 8..12),
    ) {
        let mut value = Vec::new();
        for c in comps {
            value.extend([8, c.len() as u8]);
            value.extend(c);
        }
        walks_agree(&value, &after)?;
    }
}

#[test]
fn head_walk_edges() {
    // `FITS_BYTES` of empty components: the head's 64 prefixes exactly; one more component
    // and the 65th prefix goes to the tail.
    for n in [62, 63, 64, 65] {
        let value = [8u8, 0].repeat(n);
        assert_eq!(value.len() <= room::FITS_BYTES, n <= 63);
        walks_agree(&value, &[0x5a; 8]).unwrap_or_else(|e| panic!("{n}: {e}"));
        let h = NameHasher::new(KEY, SipVariant::Sip13);
        let mut room = value.clone();
        room.extend([0x5a; 8]);
        let mut out = PrefixHashes::default();
        assert!(h.scan_hashed(&room, value.len(), &mut out).is_ok());
        assert_eq!(out.len(), n + 1);
        for i in 0..=n {
            let id = reference(SipVariant::Sip13, &value[..2 * i]);
            assert_eq!(out.id128(i), Some(id), "{n} {i}");
        }
    }
}

#[test]
fn whole_word_walk_header_edges() {
    // Every one-byte type with the lengths at the edges of the one-compare check, as a whole
    // component after a generic one, and as a name's last byte (its length byte is then read
    // from the bytes after the name).
    for t in 0..=255u8 {
        for l in [0u8, 1, 7, 8, 251, 252, 253, 254, 255] {
            let mut value = vec![8, 3, b'a', b'b', b'c', t, l];
            value.resize(value.len() + usize::from(l), 0x5a);
            for after in [[l; 8], [0; 8], [0xff; 8]] {
                walks_agree(&value, &after).unwrap_or_else(|e| panic!("{t} {l}: {e}"));
                walks_agree(&value[..6], &after).unwrap_or_else(|e| panic!("{t}: {e}"));
            }
        }
    }
}

proptest! {
    #[test]
    fn name_ids_in_lanes_equal_one_at_a_time(names in proptest::collection::vec(
        proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..9), 0..11)) {
        // Groups of 1 to 4 names of mixed lengths (including the root), and a last partial
        // group: every identity equals `name_id`'s.
        let names: Vec<Name> = names
            .iter()
            .map(|comps| comps.iter().fold(Name::new(), |n, c| n.push(c)))
            .collect();
        for variant in [SipVariant::Sip13, SipVariant::Sip24] {
            let h = NameHasher::new(KEY, variant);
            let want: Vec<NameId> = names.iter().map(|n| h.name_id(n.as_ref())).collect();
            let pairs: Vec<(NameRef<'_>, usize)> =
                names.iter().map(|n| (n.as_ref(), n.len())).collect();
            for group in 1..=ID_LANES {
                for (pairs, want) in pairs.chunks(group).zip(want.chunks(group)) {
                    let mut out = vec![NameId::default(); pairs.len()];
                    h.name_ids(pairs, |i, id| out[i] = id);
                    prop_assert_eq!(&out, want);
                    for simd in runnable() {
                        let mut out = vec![NameId::default(); pairs.len()];
                        // SAFETY: the CPU runs `simd` (`runnable`).
                        #[allow(unsafe_code)]
                        unsafe { h.name_ids_with(simd, pairs, |i, id| out[i] = id) };
                        prop_assert_eq!(&out, want, "{:?}", simd);
                    }
                }
            }
            let mut out = vec![NameId::default(); pairs.len()];
            h.name_ids(&pairs, |i, id| out[i] = id);
            prop_assert_eq!(&out, &want);
            for (id, n) in out.iter().zip(&names) {
                prop_assert_eq!(id.id128(), reference(variant, n.value()));
            }
        }
    }
}
