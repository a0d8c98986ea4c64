//! Tests of how `bench e2e` sums up its rounds (the runs themselves: `tests/gen.rs`, `bench_e2e_in_rounds`).
use super::*;

fn runs(rates: &[f64]) -> Vec<Value> {
    rates
        .iter()
        .enumerate()
        .map(|(k, r)| json!({"round": k, "data_per_sec": r, "host_steal_pct": k as f64}))
        .collect()
}

/// The median round's own row (not a blend of rounds), every rate in round order.
#[test]
fn median_row_keeps_the_median_round_and_lists_all() {
    let m = median_row(&runs(&[900.0, 300.0, 600.0])).unwrap();
    assert_eq!(m["round"], 2);
    assert_eq!(m["rounds_data_per_sec"], json!([900.0, 300.0, 600.0]));
    assert_eq!(m["rounds_host_steal_pct"], json!([0.0, 1.0, 2.0]));
    // Even count: the lower of the middle two.
    let m = median_row(&runs(&[800.0, 100.0, 400.0, 500.0])).unwrap();
    assert_eq!(m["round"], 2);
    let one = median_row(&runs(&[5.0])).unwrap();
    assert_eq!(one["round"], 0);
    assert!(median_row(&[]).is_none());
}

/// Each round's self-test is divided by the same round's forwarder run (a round missing on
/// one side is left out), and the median over rounds is reported.
#[test]
fn self_test_ratio_pairs_runs_of_one_round() {
    let row = |round: u32, rate: f64, fwd_us: f64| {
        json!({"round": round, "data_per_sec": rate, "forwarder_us_per_exchange": fwd_us,
               "consumer_us_per_exchange": 0.5, "producer_us_per_exchange": 0.25})
    };
    let fwd = [row(1, 100.0, 2.0), row(2, 1000.0, 1.0), row(3, 500.0, 1.5)];
    // Round 2's self-test failed; round 4 has no forwarder run.
    let own = [row(1, 300.0, 0.0), row(3, 2000.0, 0.0), row(4, 1.0, 0.0)];
    let case = Case {
        face: "shm",
        payload: 100,
    };
    let r = self_test_ratio(&case, &fwd, &own).unwrap();
    assert_eq!(r["rounds"], 2);
    // Round ratios 3.0 and 4.0: the lower median. Against the medians of the rates
    // (500 and 300) it would read 0.6.
    assert_eq!(r["self_test_over_forwarder"], 3.0);
    // Forwarder CPU over the consumer's (the busier): 4.0 and 3.0.
    assert_eq!(r["forwarder_cpu_over_busiest_generator_cpu"], 3.0);
    assert!(self_test_ratio(&case, &fwd, &[]).is_none());
}
