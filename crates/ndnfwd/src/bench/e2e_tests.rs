//! Tests of `bench e2e`'s own logic (the runs themselves are exercised by `scripts/bench-report`).
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
