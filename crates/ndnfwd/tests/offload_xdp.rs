//! The XDP fast path of seed 003 in a real topology: `ndnfwd bench offload --veth` builds
//! consumer, router and producer namespaces joined by veth pairs, runs three daemons with
//! Ethernet faces, fetches Data without and then with the XDP program on the router's
//! interfaces, and removes everything. Checked here: every Data arrived both times, the
//! program forwarded the Data itself (its counters, and the router daemon never saw them),
//! the router's PIT entries for those Data expired, and no namespace is left behind.
//!
//! Needs root and iproute2; otherwise the command reports why it skipped, printed here.

mod common;

use std::process::Command;

use common::BIN;

const COUNT: u64 = 300;

#[test]
fn xdp_forwards_the_data_and_everything_is_cleaned_up() {
    let child = Command::new(BIN)
        .args([
            "bench",
            "offload",
            "--veth",
            "--json",
            "--interests",
            "20000",
        ])
        .args(["--count", &COUNT.to_string(), "--window", "8"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn bench offload");
    let pid = child.id();
    let out = child.wait_with_output().expect("bench offload");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let veth = &v["veth"];
    if let Some(why) = veth["skipped"].as_str() {
        // Skipped only for the reasons a namespace test skips (not root, no `ip`).
        assert!(
            ndnfwd_netns::skip_reason().is_some(),
            "as root the veth runs must not be skipped: {why}"
        );
        eprintln!("skipping XDP veth test: {why}");
        return;
    }
    let plain = &veth["without_xdp"];
    let xdp = &veth["with_xdp"];
    assert_eq!(plain["received"], COUNT, "{plain}");
    assert_eq!(xdp["received"], COUNT, "{xdp}");
    let c = &xdp["xdp"];
    let redirected = c["data_redirected"].as_u64().expect("counter");
    // Every Data of the XDP run is either redirected or passed; with 2^21 slots and one
    // consumer, practically all of them are redirected.
    assert!(redirected >= COUNT / 2, "{c}");
    assert!(
        c["interests_recorded"].as_u64().expect("counter") >= COUNT,
        "{c}"
    );
    let r = &veth["router"];
    let data_in = |k: &str| r[k]["n_in_data"].as_u64().expect("n_in_data");
    // Data the program redirected never reached the router daemon ...
    assert!(
        data_in("after_xdp_run") + redirected <= data_in("after_plain_run") + COUNT,
        "{r}"
    );
    // ... whose PIT entries for them expired unsatisfied one lifetime later.
    let unsat = |k: &str| r[k]["n_unsatisfied_interests"].as_u64().expect("counter");
    assert!(
        unsat("one_lifetime_later") - unsat("after_xdp_run") >= redirected,
        "{r}"
    );
    // The timing copy of the program redirected the Data of every Interest it recorded.
    let cost = &veth["xdp_program_ns"];
    assert_eq!(cost["data_redirected"], cost["pairs"], "{cost}");
    // The command removed its namespaces.
    let list = Command::new("ip")
        .args(["netns", "list"])
        .output()
        .expect("ip");
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(
        !list.contains(&format!("-{pid}-")),
        "namespaces left: {list}"
    );
}
