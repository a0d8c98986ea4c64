//! The XDP fast path: seed 003's switch tier on the interfaces in front of ndnfwd.
//!
//! [`XdpPit`] creates the BPF maps (the hashed PIT, its key, the interfaces' MACs, counters),
//! assembles the program of [`prog`] against them, loads it with `bpf(2)` (the verifier's log is
//! returned on failure) and attaches it to interfaces with `BPF_LINK_CREATE`; dropping the
//! value detaches and frees everything. Interests are recorded by the program itself as they
//! arrive (the switch records in-faces, D1) and go up to ndnfwd, which does the FIB work and
//! forwards them with its own PIT token; Data with a single pending Interest is sent back
//! down by the program with the downstream's token, without entering user space. ndnfwd keeps
//! a PIT entry for each Interest whose Data went this way; it expires after the Interest
//! lifetime (ndnfwd's expiry counter counts it).
//!
//! All `unsafe` is in the `sys` module.

mod insn;
pub mod prog;
mod sys;

use std::io;
use std::os::fd::OwnedFd;

pub use insn::{Alu, Asm, AsmError, Cond, Helper, Insn, Label, Reg, Size};
use prog::{Maps, CFG_SIZE, IFMAC_ENTRIES, SCRATCH_SIZE, SLOT_SIZE, STATS};

/// `BPF_MAP_TYPE_ARRAY`.
const MAP_ARRAY: u32 = 2;
/// `BPF_MAP_TYPE_PERCPU_ARRAY`.
const MAP_PERCPU_ARRAY: u32 = 6;
/// `XDP_FLAGS_SKB_MODE`.
const XDP_FLAGS_SKB_MODE: u32 = 2;
/// `XDP_FLAGS_DRV_MODE`.
const XDP_FLAGS_DRV_MODE: u32 = 4;

/// XDP verdict `XDP_PASS`.
pub const XDP_PASS: u32 = 2;
/// XDP verdict `XDP_REDIRECT`.
pub const XDP_REDIRECT: u32 = 4;

/// How the program is attached to an interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttachMode {
    /// In the driver (veth supports it, but redirecting to another veth then needs XDP on
    /// the target's peer too).
    Native,
    /// Generic XDP on the socket buffer path: works on every interface.
    Skb,
}

/// Parameters of [`XdpPit::load`].
#[derive(Debug, Clone, Copy)]
pub struct XdpConfig {
    /// Width of the name hash: `2^bits` slots (clamped to 1..=24).
    pub bits: u32,
    /// How long a slot counts its Interests (the longest Interest lifetime expected), in ms.
    pub lifetime_ms: u64,
    /// The hash key (draw it from the OS: [`XdpConfig::random_key`]).
    pub key: [u64; 2],
}

impl XdpConfig {
    /// A key from the OS random source.
    pub fn random_key() -> Result<[u64; 2], getrandom::Error> {
        let mut b = [0u8; 16];
        getrandom::getrandom(&mut b)?;
        let mut k0 = [0u8; 8];
        let mut k1 = [0u8; 8];
        k0.copy_from_slice(&b[..8]);
        k1.copy_from_slice(&b[8..]);
        Ok([u64::from_ne_bytes(k0), u64::from_ne_bytes(k1)])
    }
}

/// Why the fast path could not be set up.
#[derive(Debug)]
pub enum XdpError {
    /// A map could not be created or written (needs root or CAP_BPF).
    Map(io::Error),
    /// The program did not assemble (a bug).
    Assemble(AsmError),
    /// The verifier refused the program: the error and its log.
    Verifier(io::Error, String),
    /// The interface is unknown or the program could not be attached to it.
    Attach(String, io::Error),
}

impl std::fmt::Display for XdpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            XdpError::Map(e) => write!(f, "BPF map: {e}"),
            XdpError::Assemble(e) => write!(f, "assembling the XDP program: {e:?}"),
            XdpError::Verifier(e, log) => write!(f, "verifier refused the XDP program: {e}\n{log}"),
            XdpError::Attach(dev, e) => write!(f, "attaching XDP to {dev}: {e}"),
        }
    }
}

impl std::error::Error for XdpError {}

/// Counters of the program (one per entry of [`prog::STATS`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct XdpCounters {
    /// Interests whose in-face the program recorded (slot was free).
    pub interests_recorded: u64,
    /// Interests that found their slot in use (recorded by ndnfwd only).
    pub interests_collided: u64,
    /// Data the program redirected to the recorded interface (never reached ndnfwd).
    pub data_redirected: u64,
    /// Data passed up to ndnfwd (collided, expired, unknown, or no token).
    pub data_passed: u64,
    /// NDN frames the program does not parse (fragments, long names, odd encodings): passed.
    pub unparsed: u64,
}

/// The hashed PIT as BPF maps, the loaded program, and its attachments.
pub struct XdpPit {
    key: [u64; 2],
    mask: u64,
    pit: OwnedFd,
    ifmac: OwnedFd,
    stats: OwnedFd,
    prog: OwnedFd,
    links: Vec<(String, AttachMode, OwnedFd)>,
    // Kept open for the program's lifetime (the program holds its own reference too).
    _cfg: OwnedFd,
    _scratch: OwnedFd,
}

impl std::fmt::Debug for XdpPit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XdpPit")
            .field("slots", &(self.mask + 1))
            .field(
                "links",
                &self.links.iter().map(|l| (&l.0, l.1)).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

fn key(i: u32) -> [u8; 4] {
    i.to_ne_bytes()
}

impl XdpPit {
    /// Creates the maps and loads the program (not attached yet). Needs root (or CAP_BPF and
    /// CAP_NET_ADMIN).
    pub fn load(cfg: &XdpConfig) -> Result<Self, XdpError> {
        let bits = cfg.bits.clamp(1, 24);
        let mask = (1u64 << bits) - 1;
        let cfg_map =
            sys::map_create(MAP_ARRAY, 4, CFG_SIZE, 1, "ndn_cfg").map_err(XdpError::Map)?;
        let pit = sys::map_create(MAP_ARRAY, 4, SLOT_SIZE, 1 << bits, "ndn_pit")
            .map_err(XdpError::Map)?;
        let ifmac =
            sys::map_create(MAP_ARRAY, 4, 8, IFMAC_ENTRIES, "ndn_ifmac").map_err(XdpError::Map)?;
        let stats = sys::map_create(MAP_ARRAY, 4, 8, STATS.len() as u32, "ndn_stats")
            .map_err(XdpError::Map)?;
        let scratch = sys::map_create(MAP_PERCPU_ARRAY, 4, SCRATCH_SIZE, 1, "ndn_scratch")
            .map_err(XdpError::Map)?;
        let mut v = Vec::with_capacity(CFG_SIZE as usize);
        let lifetime_ns = cfg.lifetime_ms.saturating_mul(1_000_000);
        for x in [cfg.key[0], cfg.key[1], mask, lifetime_ns] {
            v.extend_from_slice(&x.to_ne_bytes());
        }
        sys::map_update(&cfg_map, &key(0), &v).map_err(XdpError::Map)?;
        let insns = prog::build(&Maps {
            cfg: &cfg_map,
            pit: &pit,
            ifmac: &ifmac,
            stats: &stats,
            scratch: &scratch,
        })
        .map_err(XdpError::Assemble)?;
        let prog = sys::prog_load_xdp(&insns, "ndn_offload")
            .map_err(|(e, log)| XdpError::Verifier(e, log))?;
        Ok(Self {
            key: cfg.key,
            mask,
            pit,
            ifmac,
            stats,
            prog,
            links: Vec::new(),
            _cfg: cfg_map,
            _scratch: scratch,
        })
    }

    /// Attaches the program to `dev` (in the calling thread's network namespace): natively
    /// when `mode` is `Native` and the driver accepts it, otherwise in SKB mode. Records the
    /// interface's MAC for Data the program sends out of it. Returns the mode used.
    pub fn attach(&mut self, dev: &str, mode: AttachMode) -> Result<AttachMode, XdpError> {
        let err = |e| XdpError::Attach(dev.to_owned(), e);
        let ifindex = sys::ifindex(dev).map_err(err)?;
        self.set_ifmac(ifindex, sys::mac_of(dev).map_err(err)?)?;
        let native = match mode {
            AttachMode::Native => {
                sys::link_create_xdp(&self.prog, ifindex, XDP_FLAGS_DRV_MODE).ok()
            }
            AttachMode::Skb => None,
        };
        let (used, link) = match native {
            Some(l) => (AttachMode::Native, l),
            None => (
                AttachMode::Skb,
                sys::link_create_xdp(&self.prog, ifindex, XDP_FLAGS_SKB_MODE).map_err(err)?,
            ),
        };
        self.links.push((dev.to_owned(), used, link));
        Ok(used)
    }

    /// Records `mac` as the source address of Data sent out of interface `ifindex`.
    pub fn set_ifmac(&self, ifindex: u32, mac: [u8; 6]) -> Result<(), XdpError> {
        if ifindex >= IFMAC_ENTRIES {
            return Err(XdpError::Map(io::Error::from(io::ErrorKind::InvalidInput)));
        }
        let mut v = [0u8; 8];
        v[..6].copy_from_slice(&mac);
        sys::map_update(&self.ifmac, &key(ifindex), &v).map_err(XdpError::Map)
    }

    /// The slot and fingerprint the program computes for a Name TLV value.
    pub fn slot_of(&self, name_value: &[u8]) -> (u32, u32) {
        let h = prog::name_hash(self.key[0], self.key[1], name_value);
        ((h & self.mask) as u32, (h >> 32) as u32)
    }

    /// The pending counter of `slot` as stored (a slot past its deadline still shows its count
    /// until the program next touches it).
    pub fn pending(&self, slot: u32) -> io::Result<u32> {
        let mut v = [0u8; SLOT_SIZE as usize];
        sys::map_lookup(&self.pit, &key(slot), &mut v)?;
        Ok(u32::from_ne_bytes([v[0], v[1], v[2], v[3]]))
    }

    /// The program's counters.
    pub fn counters(&self) -> io::Result<XdpCounters> {
        let mut c = [0u64; STATS.len()];
        for (i, x) in c.iter_mut().enumerate() {
            let mut v = [0u8; 8];
            sys::map_lookup(&self.stats, &key(i as u32), &mut v)?;
            *x = u64::from_ne_bytes(v);
        }
        let [interests_recorded, interests_collided, data_redirected, data_passed, unparsed] = c;
        Ok(XdpCounters {
            interests_recorded,
            interests_collided,
            data_redirected,
            data_passed,
            unparsed,
        })
    }

    /// Runs the program once on `frame` as if it arrived on `ifindex` (`BPF_PROG_TEST_RUN`):
    /// the verdict and the frame as the program left it. Maps are updated as for real traffic.
    pub fn test_run(&self, frame: &[u8], ifindex: u32) -> io::Result<(u32, Vec<u8>)> {
        sys::prog_test_run(&self.prog, frame, ifindex, 1).map(|(v, f, _)| (v, f))
    }

    /// Runs the program `repeat` times on `frame` as if it arrived on `ifindex`; the last
    /// verdict and the kernel's mean time per run in nanoseconds. Maps are updated each time
    /// (a Data redirects at most once, then finds its slot free and is passed).
    pub fn time_run(&self, frame: &[u8], ifindex: u32, repeat: u32) -> io::Result<(u32, u32)> {
        sys::prog_test_run(&self.prog, frame, ifindex, repeat).map(|(v, _, ns)| (v, ns))
    }

    /// The interfaces the program is attached to, and how.
    pub fn attachments(&self) -> impl Iterator<Item = (&str, AttachMode)> + '_ {
        self.links.iter().map(|(d, m, _)| (d.as_str(), *m))
    }
}

/// Moves the calling thread into network namespace `name` (`/run/netns/<name>`, as made by
/// `ip netns add`). Other threads stay where they are.
pub fn enter_netns(name: &str) -> io::Result<()> {
    sys::enter_netns(&std::path::Path::new("/run/netns").join(name))
}

/// Index of interface `dev` in the calling thread's namespace.
pub fn ifindex(dev: &str) -> io::Result<u32> {
    sys::ifindex(dev)
}
