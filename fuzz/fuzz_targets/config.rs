//! `ndnfwd run`'s configuration parser on arbitrary text: it never panics, and every rejection
//! says what is wrong (a syntax error has no key; every other error names its key).
#![no_main]

use libfuzzer_sys::fuzz_target;

// The parser lives in the binary crate; compiling its one file here reaches it without making
// the binary a library.
#[allow(dead_code)]
#[path = "../../crates/ndnfwd/src/config.rs"]
mod config;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match config::parse(text) {
        Ok(c) => assert!(c.dataplane.listeners.len() <= 1 << 16),
        Err(e) => {
            assert!(!e.problem.is_empty(), "{e:?}");
            assert!(!e.to_string().is_empty());
        }
    }
});
