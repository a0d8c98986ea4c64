//! `ndnfwd`: the command-line entry point of the forwarder. Each subcommand is a thin shell over
//! a library crate: the binary parses arguments, prints, and sets exit codes; it holds no
//! forwarding logic of its own.
#![deny(unsafe_code)]

use clap::Parser;

/// A fast, DoS-resistant Named Data Networking forwarder.
#[derive(Parser, Debug)]
#[command(name = "ndnfwd", version, about, long_about = None)]
struct Cli {}

fn main() {
    let _cli = Cli::parse();
}
