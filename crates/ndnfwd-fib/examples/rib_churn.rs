//! Control-plane cost of FIB churn: route additions and removals through the [`Rib`] (and so
//! the [`FibWriter`] under binary search) per second, on one thread, with no management in
//! front. The churned prefixes are those of the daemon's churn test (`/stable/c<i>`,
//! `/stable/c<i>/x`, `/stable/c<i>/x/y`, each registered and then unregistered), beside
//! `/stable` and a background FIB of `--fib N` depth-3 prefixes (default 10 000) that the
//! churn must not disturb.
//!
//! ```sh
//! cargo run --release -p ndnfwd-fib --example rib_churn -- [--fib N] [--ops N]
//! ```
//!
//! Prints one JSON object: commands, nanoseconds per command (median of 5 passes), commands
//! per second.

use std::time::Instant;

use ndn_packet::{Name, NameHasher, SipVariant};
use ndnfwd_fib::{FibConfig, FibWriter, Rib, Route, RouteFlags};

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn churn_name(i: u64) -> Name {
    let n = Name::new()
        .push(b"stable".as_slice())
        .push(format!("c{i}").into_bytes());
    match i % 3 {
        0 => n,
        1 => n.push(b"x".as_slice()),
        _ => n.push(b"x".as_slice()).push(b"y".as_slice()),
    }
}

fn main() {
    let fib = arg("--fib", 10_000);
    let ops = arg("--ops", 200_000);
    let cfg = FibConfig {
        capacity: (fib as usize * 2).max(1 << 12),
        ..FibConfig::default()
    };
    let writer = match FibWriter::new(cfg, NameHasher::new([7; 16], SipVariant::Sip13)) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("cannot build the FIB: {e}");
            std::process::exit(1);
        }
    };
    let mut rib = Rib::new(writer);
    let route = Route {
        face: 300,
        origin: 0,
        cost: 0,
        flags: RouteFlags::CHILD_INHERIT,
        expires: None,
    };
    let base = |s: &str| Name::from_uri(s).unwrap_or_default();
    let mut setup = vec![base("/stable"), base("/localhost/nfd")];
    setup.extend((0..fib).map(|i| {
        Name::new()
            .push(format!("bg{}", i % 97).into_bytes())
            .push(format!("p{i}").into_bytes())
            .push(b"z".as_slice())
    }));
    for n in &setup {
        if let Err(e) = rib.register(n.as_ref(), route) {
            eprintln!("setup failed: {e}");
            std::process::exit(1);
        }
    }
    let names: Vec<Name> = (0..ops / 2).map(churn_name).collect();
    let mut passes = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        for n in &names {
            let ok = rib.register(n.as_ref(), route).is_ok()
                && rib.unregister(n.as_ref(), route.face, route.origin).is_ok();
            if !ok {
                eprintln!("churn failed at {n}");
                std::process::exit(1);
            }
        }
        passes.push(start.elapsed().as_nanos() as f64 / (2 * names.len()) as f64);
        rib.fib_mut().reclaim();
    }
    passes.sort_by(f64::total_cmp);
    let ns = passes.get(2).copied().unwrap_or(0.0);
    println!(
        "{{\"fib_prefixes\":{},\"commands\":{},\"ns_per_command\":{ns:.0},\
         \"commands_per_s\":{:.0},\"fib_prefixes_after\":{}}}",
        setup.len(),
        2 * names.len(),
        1e9 / ns.max(1.0),
        rib.len()
    );
}
