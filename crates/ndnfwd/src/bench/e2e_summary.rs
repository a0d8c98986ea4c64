//! How `bench e2e` sums up its rounds: each case's median round, and the generator's margin
//! over the forwarder from runs of the same round.

use serde_json::{json, Value};

use super::Case;

/// The row of the round with the median rate (the lower one of an even count), with every
/// round's rate and host steal in `rounds_data_per_sec` and `rounds_host_steal_pct`.
pub(super) fn median_row(runs: &[Value]) -> Option<Value> {
    let rate = |r: &Value| r["data_per_sec"].as_f64().unwrap_or(0.0);
    let mut sorted: Vec<&Value> = runs.iter().collect();
    sorted.sort_by(|x, y| rate(x).total_cmp(&rate(y)));
    let mut row = (*sorted.get(sorted.len().checked_sub(1)? / 2)?).clone();
    row["rounds_data_per_sec"] = runs.iter().map(rate).collect();
    row["rounds_host_steal_pct"] = runs.iter().map(|r| r["host_steal_pct"].clone()).collect();
    Some(row)
}

/// The lower median of `xs` (`None` when empty).
fn lower_median(mut xs: Vec<f64>) -> Option<f64> {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len().checked_sub(1)? / 2).copied()
}

/// How far the generator is from limiting a case: the self-test's rate over the forwarder's,
/// and the forwarder's CPU per exchange over the busier generator process's, each taken
/// within one round (the two runs a minute apart) and then the median over the rounds.
pub(super) fn self_test_ratio(case: &Case<'_>, fwd: &[Value], own: &[Value]) -> Option<Value> {
    let num = |r: &Value, k: &str| r[k].as_f64().unwrap_or(0.0);
    let pairs: Vec<(&Value, &Value)> = fwd
        .iter()
        .filter_map(|f| Some((f, own.iter().find(|s| s["round"] == f["round"])?)))
        .collect();
    let rate = pairs
        .iter()
        .map(|(f, s)| num(s, "data_per_sec") / num(f, "data_per_sec").max(1e-9));
    let cpu = pairs.iter().map(|(f, _)| {
        let generator = num(f, "consumer_us_per_exchange").max(num(f, "producer_us_per_exchange"));
        num(f, "forwarder_us_per_exchange") / generator.max(1e-9)
    });
    Some(json!({
        "face": case.face,
        "payload": case.payload,
        "rounds": pairs.len(),
        "self_test_over_forwarder": lower_median(rate.collect())?,
        "forwarder_cpu_over_busiest_generator_cpu": lower_median(cpu.collect())?,
    }))
}

#[cfg(test)]
#[path = "e2e_tests.rs"]
mod tests;
