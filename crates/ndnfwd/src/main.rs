//! `ndnfwd`: the command-line entry point of the forwarder. Each subcommand is a thin shell over
//! a library crate: the binary parses arguments, prints, and sets exit codes; it holds no
//! forwarding logic of its own.
#![deny(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod alloc;
mod bench;
mod config;
mod ctl;
mod ctl_face;
mod gen;
mod reload;
mod run;

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

/// A fast, DoS-resistant Named Data Networking forwarder.
#[derive(Parser, Debug)]
#[command(name = "ndnfwd", version, about, long_about = None, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Benchmarks that print a summary, or one JSON object with --json.
    #[command(subcommand)]
    Bench(bench::Bench),
    /// Run the forwarder (exit code 2 for a bad configuration).
    Run(run::RunArgs),
    /// NFD management: status, faces, routes, FIB, strategies, content store (tables, or JSON
    /// with --json; exit 1 when the forwarder refuses, 3 when it cannot be reached).
    Ctl(ctl::CtlArgs),
    /// Traffic generator: consumers and producers that talk to a forwarder over any face.
    #[command(subcommand)]
    Gen(gen::Gen),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Bench(b) => bench::run(b),
        Command::Run(r) => return run::main(r),
        Command::Ctl(c) => return ctl::main(c),
        Command::Gen(g) => return gen::main(g),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ndnfwd: {e}");
            ExitCode::FAILURE
        }
    }
}
