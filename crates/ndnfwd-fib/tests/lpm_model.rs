//! The three LPM algorithms against a plain reference model, on random FIBs and names, with
//! run-time algorithm and M changes and route removals in the operation sequence.

mod common;

use common::{answer, hasher, hop, writer, Model};
use ndn_packet::Name;
use ndnfwd_fib::{LpmAlgorithm, LpmConfig, MAX_DEPTH};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Set(Vec<u8>, u32),
    Remove(Vec<u8>),
    Switch(LpmAlgorithm, u8),
}

fn to_name(comps: &[u8]) -> Name {
    comps.iter().fold(Name::new(), |n, c| n.push([b'a' + c]))
}

fn algo() -> impl Strategy<Value = LpmAlgorithm> {
    prop_oneof![
        Just(LpmAlgorithm::LongestFirst),
        Just(LpmAlgorithm::TwoStage),
        Just(LpmAlgorithm::BinarySearch),
    ]
}

fn comps(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(0u8..3, 0..max)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (comps(9), 1u32..6).prop_map(|(c, f)| Op::Set(c, f)),
        1 => (comps(MAX_DEPTH + 1), 1u32..6).prop_map(|(c, f)| Op::Set(c, f)),
        4 => comps(9).prop_map(Op::Remove),
        1 => (algo(), 1u8..10).prop_map(|(a, m)| Op::Switch(a, m)),
    ]
}

/// Lookup names: every prefix in the model extended by a few components, plus random names,
/// plus names of 100+ components.
fn lookup_names(model: &Model, extra: &[Vec<u8>]) -> Vec<Name> {
    let mut v: Vec<Name> = Vec::new();
    for (i, p) in model.prefixes.keys().enumerate() {
        v.push(p.clone());
        let tail = [(i % 3) as u8, 1, 2, 0];
        v.push(p.clone().append(to_name(&tail[..1 + i % 4]).as_ref()));
        // A name diverging right after the prefix's parent.
        if !p.is_empty() {
            let parent = p.as_ref().prefix(p.len() - 1).to_name();
            v.push(parent.append(to_name(&[2, 2, 1]).as_ref()));
        }
    }
    for e in extra {
        v.push(to_name(e));
        let mut long = e.clone();
        long.extend((0..120).map(|i| (i % 3) as u8));
        v.push(to_name(&long));
    }
    v
}

fn check_all(
    fibs: &mut [(ndnfwd_fib::FibWriter, ndnfwd_fib::FibReader)],
    model: &Model,
    extra: &[Vec<u8>],
) -> Result<(), TestCaseError> {
    let h = hasher();
    let names = lookup_names(model, extra);
    for (w, r) in fibs.iter_mut() {
        for n in &names {
            let want = model.lpm(n.as_ref());
            let got = answer(r, &h, n.as_ref());
            prop_assert_eq!(got, want, "{} with {:?}", n, w.lpm());
        }
        r.quiescent();
        w.reclaim();
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn algorithms_agree_with_reference(
        ops in proptest::collection::vec(op(), 0..40),
        extra in proptest::collection::vec(comps(12), 1..6),
        m0 in 1u8..6,
    ) {
        let mut fibs: Vec<_> = [
            LpmAlgorithm::LongestFirst,
            LpmAlgorithm::TwoStage,
            LpmAlgorithm::BinarySearch,
        ]
        .into_iter()
        .map(|a| {
            let w = writer(a, m0);
            let r = w.handle().reader();
            (w, r)
        })
        .collect();
        let mut model = Model::default();
        // Empty FIB first.
        check_all(&mut fibs, &model, &extra)?;
        for (i, op) in ops.iter().enumerate() {
            match op {
                Op::Set(c, face) => {
                    let n = to_name(c);
                    for (w, _) in fibs.iter_mut() {
                        w.set(n.as_ref(), &hop(*face), 0).unwrap();
                    }
                    model.prefixes.insert(n, *face);
                }
                Op::Remove(c) => {
                    let n = to_name(c);
                    let had = model.prefixes.remove(&n).is_some();
                    for (w, _) in fibs.iter_mut() {
                        prop_assert_eq!(w.remove(n.as_ref()).unwrap(), had);
                    }
                }
                Op::Switch(a, m) => {
                    // Rotate which FIB switches, so all three keep covering every algorithm.
                    let k = i % fibs.len();
                    if let Some((w, _)) = fibs.get_mut(k) {
                        w.set_lpm(LpmConfig { algorithm: *a, m: *m }).unwrap();
                    }
                }
            }
            check_all(&mut fibs, &model, &extra)?;
        }
        // Remove everything: nothing may be left behind once readers quiesced.
        for n in model.prefixes.keys() {
            for (w, _) in fibs.iter_mut() {
                w.remove(n.as_ref()).unwrap();
            }
        }
        for (w, r) in fibs.iter_mut() {
            r.offline();
            w.synchronize();
            let mem = w.handle().memory();
            prop_assert_eq!((mem.prefixes, mem.markers, mem.virtuals), (0, 0, 0));
            prop_assert_eq!(mem.entries, 0, "every entry reclaimed");
            prop_assert_eq!(mem.slots, 0, "every slot removed");
            prop_assert_eq!(w.stats().shadow_names, 0);
        }
    }
}

#[test]
fn root_route_and_empty_fib() {
    let h = hasher();
    for a in [
        LpmAlgorithm::LongestFirst,
        LpmAlgorithm::TwoStage,
        LpmAlgorithm::BinarySearch,
    ] {
        let mut w = writer(a, 2);
        let r = w.handle().reader();
        let n = to_name(&[0, 1, 2]);
        assert_eq!(answer(&r, &h, n.as_ref()), None);
        w.set(Name::new().as_ref(), &hop(9), 0).unwrap();
        assert_eq!(answer(&r, &h, n.as_ref()), Some((0, 9)));
        w.set(to_name(&[0, 1]).as_ref(), &hop(3), 0).unwrap();
        assert_eq!(answer(&r, &h, n.as_ref()), Some((2, 3)));
        assert_eq!(answer(&r, &h, to_name(&[1]).as_ref()), Some((0, 9)));
        assert!(w.remove(Name::new().as_ref()).unwrap());
        assert_eq!(answer(&r, &h, to_name(&[1]).as_ref()), None);
    }
}

#[test]
fn too_deep_prefix_is_rejected() {
    let mut w = writer(LpmAlgorithm::BinarySearch, 4);
    let deep = to_name(&[1; MAX_DEPTH + 1]);
    assert_eq!(
        w.set(deep.as_ref(), &hop(1), 0),
        Err(ndnfwd_fib::FibError::TooDeep)
    );
    assert_eq!(
        w.set_lpm(LpmConfig {
            algorithm: LpmAlgorithm::TwoStage,
            m: 0
        }),
        Err(ndnfwd_fib::FibError::InvalidM)
    );
}
