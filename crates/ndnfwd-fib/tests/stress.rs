//! One writer churning routes (and switching the LPM algorithm) while two readers look up names
//! under a fixed set of prefixes: every answer must be right, and removed entries must be
//! reclaimed.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use common::{answer, answer_prefetched, hasher, hop, Model};
use ndn_packet::Name;
use ndnfwd_fib::{FibConfig, FibWriter, LpmAlgorithm, LpmConfig};

fn comp(x: u64) -> [u8; 2] {
    [b'a' + (x % 4) as u8, b'0' + (x / 4 % 3) as u8]
}

/// Face of a churned prefix: a function of its name, so any answer can be checked.
fn churn_face(n: &Name) -> u32 {
    100 + n
        .value()
        .iter()
        .fold(7u32, |h, &b| h.wrapping_mul(31).wrapping_add(u32::from(b)))
        % 100_000
}

fn churn_name(round: u64) -> Name {
    let base = fixed_prefix(round % 150);
    let cut = (round as usize) % (base.len() + 1);
    let mut p = base
        .as_ref()
        .prefix(cut)
        .to_name()
        .push(format!("z{}", round % 40));
    for k in 0..(round % 11) {
        p = p.push(comp(round + k));
    }
    p
}

const ROUNDS: u64 = 15_000;

fn fixed_prefix(i: u64) -> Name {
    let depth = 1 + (i * 5 % 7) as usize;
    (0..depth).fold(Name::new(), |n, l| {
        n.push(comp(
            i.wrapping_mul(31).wrapping_add(l as u64 * 7) % (3 + l as u64),
        ))
    })
}

#[test]
fn churn_with_concurrent_readers() {
    let cfg = FibConfig {
        capacity: 1 << 14,
        load_factor: 4,
        lpm: LpmConfig {
            algorithm: LpmAlgorithm::BinarySearch,
            m: 3,
        },
        ..FibConfig::default()
    };
    let mut w = FibWriter::new(cfg, hasher()).unwrap();
    let mut model = Model::default();
    for i in 0..150u64 {
        let p = fixed_prefix(i);
        w.set(p.as_ref(), &hop(1 + (i % 5) as u32), 0).unwrap();
        model.prefixes.insert(p, 1 + (i % 5) as u32);
    }
    // Lookup names: fixed prefixes extended with components that churn never uses ('s').
    let names: Vec<(Name, Option<(usize, u32)>)> = model
        .prefixes
        .keys()
        .enumerate()
        .map(|(i, p)| {
            let n = (0..1 + i % 4).fold(p.clone(), |n, k| n.push(format!("s{k}")));
            let want = model.lpm(n.as_ref());
            (n, want)
        })
        .collect();
    let names = Arc::new(names);
    let churn: Arc<Vec<Name>> = Arc::new((0..ROUNDS).map(churn_name).collect());
    let fixed = Arc::new(model.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let wrong = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicU64::new(0));
    let handle = w.handle();
    let readers: Vec<_> = (0..2)
        .map(|t| {
            let mut r = handle.reader();
            let (names, stop, wrong, done) =
                (names.clone(), stop.clone(), wrong.clone(), done.clone());
            let (churn, fixed) = (churn.clone(), fixed.clone());
            std::thread::spawn(move || {
                let h = hasher();
                let mut i = t * 7;
                while !stop.load(Ordering::Relaxed) {
                    for _ in 0..32 {
                        let (n, want) = &names[i % names.len()];
                        if answer(&r, &h, n.as_ref()) != *want {
                            wrong.fetch_add(1, Ordering::Relaxed);
                        }
                        // A churned name: the answer is any installed prefix of it, whose face
                        // must be that prefix's own (catches entries or nexthop sets reused
                        // before readers quiesced). Speculative prefetch runs under churn too.
                        let c = &churn[(i * 7919) % churn.len()];
                        let floor = fixed.lpm(c.as_ref());
                        match answer_prefetched(&r, &h, c.as_ref()) {
                            Some((d, f)) => {
                                let p = c.as_ref().prefix(d).to_name();
                                let want = fixed
                                    .prefixes
                                    .get(&p)
                                    .copied()
                                    .unwrap_or_else(|| churn_face(&p));
                                if f != want || floor.is_some_and(|(fd, _)| d < fd) {
                                    wrong.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                            None => {
                                if floor.is_some() {
                                    wrong.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                        }
                        i += 1;
                    }
                    done.fetch_add(32, Ordering::Relaxed);
                    r.quiescent();
                    if i % 4096 < 32 {
                        // Go idle now and then: offline readers must not hold reclamation back.
                        r.offline();
                        std::thread::yield_now();
                        r.online();
                    }
                }
            })
        })
        .collect();

    // Churn: siblings and cousins of the fixed prefixes (sharing their ancestors and markers),
    // never a prefix of a lookup name because they contain a 'z' component; some are deep enough
    // to change the binary-search tree height.
    let algos = [
        LpmAlgorithm::BinarySearch,
        LpmAlgorithm::TwoStage,
        LpmAlgorithm::LongestFirst,
    ];
    let mut live: Vec<Name> = Vec::new();
    for round in 0..ROUNDS {
        let p = churn_name(round);
        w.set(p.as_ref(), &hop(churn_face(&p)), 0).unwrap();
        live.push(p);
        if live.len() > 60 {
            let old = live.remove((round as usize * 13) % live.len());
            // The same name may have been set again by a later round: keep it then.
            if !live.contains(&old) {
                w.remove(old.as_ref()).unwrap();
            }
        }
        if round % 250 == 249 {
            let a = algos[(round / 250) as usize % 3];
            w.set_lpm(LpmConfig {
                algorithm: a,
                m: 2 + (round / 250 % 3) as u8,
            })
            .unwrap();
        }
        w.reclaim();
        if round % 64 == 0 {
            std::thread::yield_now();
        }
    }
    for p in live.drain(..) {
        w.remove(p.as_ref()).unwrap();
    }
    // Let the readers run a little more, then stop them.
    let seen = done.load(Ordering::Relaxed);
    while done.load(Ordering::Relaxed) < seen + 20_000 {
        std::thread::yield_now();
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    w.synchronize();
    assert_eq!(wrong.load(Ordering::Relaxed), 0, "wrong answers");
    assert!(done.load(Ordering::Relaxed) > 20_000);
    assert!(handle.reclaimed_entries() > 0, "entries were reclaimed");
    let mem = handle.memory();
    assert_eq!(
        mem.prefixes,
        model.prefixes.len() as u64,
        "only the fixed set is left"
    );
}
