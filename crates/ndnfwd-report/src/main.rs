//! `ndnfwd-report [BENCH_DIR [OUT_MD]]`: renders the benchmark report (defaults: `docs/bench`
//! and `docs/BENCHMARKS.md`).
#![deny(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let dir = args
        .next()
        .map_or_else(|| PathBuf::from("docs/bench"), PathBuf::from);
    let out = args
        .next()
        .map_or_else(|| PathBuf::from("docs/BENCHMARKS.md"), PathBuf::from);
    match ndnfwd_report::render(&dir, &out) {
        Ok(files) => {
            for f in files {
                println!("wrote {}", f.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ndnfwd-report: {e}");
            ExitCode::FAILURE
        }
    }
}
