//! The bulk loader builds the same FIB as the writer: answers and probe counts agree with a
//! writer-built FIB and the reference model on synthetic so-like and yuan7 sets.

mod common;

use common::{hasher, Model};
use ndn_packet::{Name, NameRef, PrefixHashes};
use ndnfwd_fib::bulk::{load, BulkConfig, PrefixSource};
use ndnfwd_fib::{FibConfig, FibWriter, LpmAlgorithm, LpmConfig, MHeuristic, NextHop, StrategyId};
use ndnfwd_workload::{NameSource, Popularity, So, Yuan};

struct Src<'a>(&'a dyn NameSource, u64);

impl PrefixSource for Src<'_> {
    fn count(&self) -> u64 {
        self.1
    }
    fn prefix(&self, i: u64, out: &mut Vec<u8>) {
        self.0.prefix_into(i, out);
    }
    fn route(&self, i: u64, out: &mut Vec<NextHop>) -> StrategyId {
        out.push(NextHop {
            face: 1 + (i % 8) as u32,
            cost: 1,
        });
        (i % 3) as u8
    }
}

fn check(source: &dyn NameSource, n: u64) {
    let h = hasher();
    let src = Src(source, n);
    let mut model = Model::default();
    let mut buf = Vec::new();
    for i in 0..n {
        buf.clear();
        src.prefix(i, &mut buf);
        // First one wins, as in the loader.
        model
            .prefixes
            .entry(Name::from_value(buf.clone()).unwrap())
            .or_insert(1 + (i % 8) as u32);
    }
    for algorithm in [
        LpmAlgorithm::LongestFirst,
        LpmAlgorithm::TwoStage,
        LpmAlgorithm::BinarySearch,
    ] {
        let cfg = BulkConfig {
            algorithm,
            m: None,
            heuristic: MHeuristic::MostLikely,
            load_factor: 4,
        };
        let (fib, report) = load(&cfg, &h, &src, &mut |_, _| {}).unwrap();
        assert_eq!(report.installed, model.prefixes.len() as u64);
        assert_eq!(report.duplicates, n - report.installed);
        // The same prefixes through the writer, same algorithm and M.
        let mut w = FibWriter::new(
            FibConfig {
                capacity: 4 * n as usize,
                load_factor: 4,
                lpm: LpmConfig {
                    algorithm,
                    m: report.m,
                },
                ..FibConfig::default()
            },
            hasher(),
        )
        .unwrap();
        for (p, &face) in &model.prefixes {
            w.set(p.as_ref(), &[NextHop { face, cost: 1 }], 0).unwrap();
        }
        let (rb, rw) = (fib.reader(), w.handle().reader());
        let mem_b = fib.memory();
        let mem_w = w.handle().memory();
        assert_eq!(
            (mem_b.prefixes, mem_b.markers, mem_b.virtuals),
            (mem_w.prefixes, mem_w.markers, mem_w.virtuals)
        );
        let mut hs = PrefixHashes::default();
        for j in 0..2000 {
            source.interest_into(j, &mut buf);
            let name = NameRef::new_checked(&buf).unwrap();
            h.hash_prefixes(name, &mut hs);
            let (a, ta) = rb.lookup_traced(&hs);
            let (b, tb) = rw.lookup_traced(&hs);
            let a = a.map(|m| (m.depth(), m.nexthops().next().map(|x| x.face)));
            let b = b.map(|m| (m.depth(), m.nexthops().next().map(|x| x.face)));
            assert_eq!(a, b, "{name}");
            assert_eq!(
                a.map(|(d, f)| (d, f.unwrap_or(0))),
                model.lpm(name),
                "{name}"
            );
            assert_eq!(ta.probes, tb.probes, "{name}");
        }
    }
}

#[test]
fn bulk_so_like_matches_writer_and_model() {
    check(&So::new(20_000, 5, Popularity::Uniform).unwrap(), 20_000);
}

#[test]
fn bulk_yuan7_matches_writer_and_model() {
    check(&Yuan::new(7, 6_000, 9).unwrap(), 6_000);
}
