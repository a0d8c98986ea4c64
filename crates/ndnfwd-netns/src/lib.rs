//! Network namespaces and veth pairs for the tests and benchmarks that build a small network on
//! this host (`bench e2e`, `bench offload --veth`, the two-host and scope daemon tests, the
//! Ethernet face and XDP tests), through iproute2's `ip` command.
//!
//! Contract: a [`Netns`] has a name no other live `Netns` of any process has (its tag, the
//! process id and a sequence number), its `lo` is up, and it is deleted when dropped, also when
//! a test panics; deleting it deletes every interface inside, and so each veth pair with an end
//! in it. Errors are `ip`'s own message with the command that failed. Building namespaces needs
//! root and `ip`: [`skip_reason`] says why a caller cannot, and callers skip only then (as root,
//! a failure to build is an error, not a skip).
#![deny(unsafe_code)]

use std::ffi::OsStr;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// Runs `ip ARGS`; on failure, the command and its trimmed stderr.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let o = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        ))
    }
}

/// Why this process cannot build network namespaces (not root, no working `ip`), or `None`
/// when it can.
pub fn skip_reason() -> Option<String> {
    if effective_uid() != Some(0) {
        return Some("needs root (network namespaces)".into());
    }
    match Command::new("ip").arg("-V").output() {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "needs iproute2: `ip -V` failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Some(format!("needs iproute2 (`ip`): {e}")),
    }
}

/// The effective uid: the second number of `/proc/self/status`'s `Uid:` line.
fn effective_uid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}

/// Sequence number of the namespaces this process made (part of their names).
static SEQ: AtomicU32 = AtomicU32::new(0);

/// A network namespace of this process, with `lo` up; deleted (with its interfaces) on drop.
#[derive(Debug)]
pub struct Netns {
    name: String,
}

impl Netns {
    /// Makes namespace `TAG-PID-SEQ` and sets its `lo` up. On error nothing is left behind.
    pub fn new(tag: &str) -> Result<Self, String> {
        let name = format!(
            "{tag}-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        ip(&["netns", "add", &name])?;
        // From here on, dropping `ns` deletes the namespace.
        let ns = Self { name };
        ns.ip(&["link", "set", "lo", "up"])?;
        Ok(ns)
    }

    /// The name, as `ip netns` and `/run/netns/` know it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs `ip -n NAME ARGS` (an `ip` command inside this namespace).
    pub fn ip(&self, args: &[&str]) -> Result<(), String> {
        let mut all = vec!["-n", self.name.as_str()];
        all.extend_from_slice(args);
        ip(&all)
    }

    /// A command running `program` inside this namespace (`ip netns exec NAME PROGRAM`); add
    /// its arguments, standard streams and so on as for any [`Command`].
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.name]).arg(program);
        c
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Nothing to report to from a drop; a namespace already gone is fine.
        let _ = ip(&["netns", "del", &self.name]);
    }
}

/// Makes a veth pair with end `a.1` in namespace `a.0` and end `b.1` in `b.0` (the same
/// namespace for both ends is allowed) and sets both ends up. Addresses, MTU and the like are
/// set afterwards with [`Netns::ip`].
pub fn veth(a: (&Netns, &str), b: (&Netns, &str)) -> Result<(), String> {
    let ((na, da), (nb, db)) = (a, b);
    let mut args = vec!["link", "add", da, "type", "veth", "peer", "name", db];
    if na.name != nb.name {
        args.extend_from_slice(&["netns", nb.name()]);
    }
    na.ip(&args)?;
    na.ip(&["link", "set", da, "up"])?;
    nb.ip(&["link", "set", db, "up"])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str) -> bool {
        let out = Command::new("ip").args(["netns", "list"]).output();
        let out = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        out.unwrap_or_default()
            .lines()
            .any(|l| l.split_whitespace().next() == Some(name))
    }

    /// `ip -n NS link show DEV`'s line, `None` when DEV is not in NS.
    fn link(ns: &Netns, dev: &str) -> Option<String> {
        let o = Command::new("ip")
            .args(["-n", ns.name(), "link", "show", dev])
            .output()
            .ok()?;
        o.status
            .success()
            .then(|| String::from_utf8_lossy(&o.stdout).into_owned())
    }

    /// Administratively up, and so is the peer (a veth has carrier only then).
    fn up_with_carrier(ns: &Netns, dev: &str) -> bool {
        link(ns, dev).is_some_and(|l| l.contains(",UP,LOWER_UP>"))
    }

    #[test]
    fn ip_reports_the_command_and_its_error() {
        let err = ip(&["link", "show", "ndnfwd-no-such-dev"]).unwrap_err();
        let head = "ip link show ndnfwd-no-such-dev: ";
        assert!(err.starts_with(head) && err.len() > head.len(), "{err}");
    }

    #[test]
    fn namespaces_and_veth_pairs_exist_until_dropped() {
        if let Some(why) = skip_reason() {
            eprintln!("skipping namespaces_and_veth_pairs_exist_until_dropped: {why}");
            return;
        }
        let a = Netns::new("ndnfwd-netns-t").unwrap();
        let b = Netns::new("ndnfwd-netns-t").unwrap();
        assert_ne!(a.name(), b.name());
        assert!(a.name().contains(&format!("-{}-", std::process::id())));
        assert!(listed(a.name()) && listed(b.name()));
        assert!(link(&a, "lo").is_some_and(|l| l.contains(",UP,LOWER_UP>")));

        // One end in each namespace, both up; each end only where it was put.
        veth((&a, "t0"), (&b, "t1")).unwrap();
        assert!(up_with_carrier(&a, "t0"), "{:?}", link(&a, "t0"));
        assert!(up_with_carrier(&b, "t1"), "{:?}", link(&b, "t1"));
        assert!(a.ip(&["link", "show", "t0"]).is_ok());
        assert!(a.ip(&["link", "show", "t1"]).is_err());
        assert!(b.ip(&["link", "show", "t0"]).is_err());

        // Both ends in one namespace.
        veth((&a, "s0"), (&a, "s1")).unwrap();
        assert!(up_with_carrier(&a, "s0") && up_with_carrier(&a, "s1"));

        // `command` runs inside: only there does `t0` exist.
        let inside = a.command("ip").args(["link", "show", "t0"]).output();
        assert!(inside.is_ok_and(|o| o.status.success()));
        let outside = Command::new("ip").args(["link", "show", "t0"]).output();
        assert!(outside.is_ok_and(|o| !o.status.success()));

        // A pair whose first name is taken fails, and makes no other end.
        let err = veth((&a, "t0"), (&b, "t2")).unwrap_err();
        assert!(err.contains("t0"), "{err}");
        assert!(link(&b, "t2").is_none());

        let (na, nb) = (a.name().to_owned(), b.name().to_owned());
        drop(a);
        assert!(!listed(&na), "{na} left behind");
        // `t1`'s peer went with `a`, so the pair leaves `b` too (once the kernel has cleaned
        // up the namespace, which it does in the background: wait up to 10 s).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while link(&b, "t1").is_some() {
            assert!(std::time::Instant::now() < deadline, "t1 outlived its peer");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        drop(b);
        assert!(!listed(&nb), "{nb} left behind");
    }
}
