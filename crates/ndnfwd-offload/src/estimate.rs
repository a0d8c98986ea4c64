//! Seed 003's throughput model: how many computers a switch needs, and what the router forwards.
//!
//! Data is forwarded by the switch alone, so the router's Data throughput with `n` computers is
//! the smaller of two limits:
//!
//! - the switch bandwidth left for Data, `B^D(n) = B_switch - n * b_computer` (every computer
//!   occupies switch ports: many computers waste bandwidth), and
//! - the Data the computers' Interest forwarding can pull, `n * λ^I * S` (too few computers lack
//!   computing capacity).
//!
//! The ideal `n` balances them, `B^D ≈ n * λ^I * S`, that is
//! `n* = B_switch / (b_computer + λ^I * S)`; the estimator evaluates the integers around `n*` and
//! keeps the best.

/// Inputs of the model, in bits per second, packets per second and bytes.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Inputs {
    /// Total switching bandwidth of the switch (bit/s).
    pub switch_bps: f64,
    /// Switch bandwidth occupied by the ports of one computer (bit/s).
    pub computer_port_bps: f64,
    /// Interests one computer forwards per second, `λ^I`.
    pub interest_pps: f64,
    /// Data packet size `S` in bytes.
    pub data_bytes: f64,
}

/// The seed's example: a 12.8-Tbps switch, 1 Tbps of switch ports per computer, 600 M
/// Interests per second per computer, and the seed's 1135-byte Data. The slides give `S`
/// (their measurement condition) and the result (10.8 Tbps with 2 computers); the other three
/// inputs are not in the slides and are reconstructed (see the crate README).
pub const SEED_EXAMPLE: Inputs = Inputs {
    switch_bps: 12.8e12,
    computer_port_bps: 1.0e12,
    interest_pps: 600.0e6,
    data_bytes: 1135.0,
};

/// Which limit binds at the chosen number of computers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bottleneck {
    /// The switch bandwidth left for Data.
    SwitchBandwidth,
    /// The computers' Interest forwarding.
    ComputerCapacity,
}

/// What the model gives for some [`Inputs`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// The balance point `n*` (real).
    pub ideal_computers: f64,
    /// The integer number of computers with the highest throughput (the smaller on a tie).
    pub computers: u32,
    /// `B^D` at that number of computers (bit/s).
    pub data_bandwidth_bps: f64,
    /// Data the computers can pull at that number, `n * λ^I * S` (bit/s).
    pub computer_limit_bps: f64,
    /// Router Data throughput: the smaller of the two (bit/s).
    pub throughput_bps: f64,
    /// Which one it is.
    pub bottleneck: Bottleneck,
}

/// Data throughput (bit/s) with `n` computers.
pub fn throughput_with(i: &Inputs, n: u32) -> f64 {
    let n = f64::from(n);
    let bd = (i.switch_bps - n * i.computer_port_bps).max(0.0);
    bd.min(n * i.interest_pps * i.data_bytes * 8.0)
}

/// Runs the model; `None` when an input is not a positive finite number.
pub fn estimate(i: &Inputs) -> Option<Estimate> {
    let ok = |x: f64| x.is_finite() && x > 0.0;
    if !(ok(i.switch_bps) && ok(i.interest_pps) && ok(i.data_bytes)) {
        return None;
    }
    if !(i.computer_port_bps.is_finite() && i.computer_port_bps >= 0.0) {
        return None;
    }
    let per = i.interest_pps * i.data_bytes * 8.0;
    let ideal = i.switch_bps / (i.computer_port_bps + per);
    let lo = ideal.floor().max(1.0).min(f64::from(u32::MAX - 1)) as u32;
    let mut best = lo;
    for n in [lo, lo + 1] {
        if throughput_with(i, n) > throughput_with(i, best) {
            best = n;
        }
    }
    let nf = f64::from(best);
    let bd = (i.switch_bps - nf * i.computer_port_bps).max(0.0);
    let cl = nf * per;
    Some(Estimate {
        ideal_computers: ideal,
        computers: best,
        data_bandwidth_bps: bd,
        computer_limit_bps: cl,
        throughput_bps: bd.min(cl),
        bottleneck: if bd <= cl {
            Bottleneck::SwitchBandwidth
        } else {
            Bottleneck::ComputerCapacity
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_example_is_10_8_tbps_with_2_computers() {
        let e = estimate(&SEED_EXAMPLE).expect("valid inputs");
        assert_eq!(e.computers, 2);
        assert!((e.throughput_bps - 10.8e12).abs() < 1e6, "{e:?}");
        assert_eq!(e.bottleneck, Bottleneck::SwitchBandwidth);
        // One computer fewer or more is worse: 2 is the ideal number.
        assert!(throughput_with(&SEED_EXAMPLE, 1) < e.throughput_bps);
        assert!(throughput_with(&SEED_EXAMPLE, 3) < e.throughput_bps);
    }

    #[test]
    fn slow_computers_need_many_and_bind_on_capacity_or_bandwidth() {
        let slow = Inputs {
            interest_pps: 5.0e6,
            ..SEED_EXAMPLE
        };
        let e = estimate(&slow).expect("valid inputs");
        // 5 Mpps x 1135 B = 45.4 Gbit/s per computer; 1 Tbit/s of ports each: n* = 12.8/1.0454.
        assert_eq!(e.computers, 12);
        assert!((e.ideal_computers - 12.8e12 / 1.0454e12).abs() < 1e-9);
        assert_eq!(e.bottleneck, Bottleneck::ComputerCapacity);
        assert!((e.throughput_bps - 12.0 * 45.4e9).abs() < 1e3);
    }

    #[test]
    fn bad_inputs_are_refused() {
        assert!(estimate(&Inputs {
            interest_pps: 0.0,
            ..SEED_EXAMPLE
        })
        .is_none());
        assert!(estimate(&Inputs {
            switch_bps: f64::NAN,
            ..SEED_EXAMPLE
        })
        .is_none());
    }
}
