//! The `bpf(2)` and `setns(2)` calls of the fast path: every `unsafe` of the crate is here.
//!
//! Attributes are built as zeroed 128-byte `union bpf_attr` images with fields written at the
//! offsets of `include/uapi/linux/bpf.h` (the kernel requires unused bytes to be zero).
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::insn::Insn;

const BPF_MAP_CREATE: libc::c_long = 0;
const BPF_MAP_LOOKUP_ELEM: libc::c_long = 1;
const BPF_MAP_UPDATE_ELEM: libc::c_long = 2;
const BPF_PROG_LOAD: libc::c_long = 5;
const BPF_PROG_TEST_RUN: libc::c_long = 10;
const BPF_LINK_CREATE: libc::c_long = 28;

/// `BPF_PROG_TYPE_XDP`.
const PROG_TYPE_XDP: u32 = 6;
/// `BPF_XDP` (enum bpf_attach_type).
const ATTACH_XDP: u32 = 37;

/// A zeroed `union bpf_attr` image.
#[derive(Clone, Copy)]
#[repr(C, align(8))]
struct Attr([u8; 128]);

impl Attr {
    fn new() -> Self {
        Self([0; 128])
    }

    fn u32(&mut self, off: usize, v: u32) -> &mut Self {
        if let Some(d) = self.0.get_mut(off..off + 4) {
            d.copy_from_slice(&v.to_ne_bytes());
        }
        self
    }

    fn u64(&mut self, off: usize, v: u64) -> &mut Self {
        if let Some(d) = self.0.get_mut(off..off + 8) {
            d.copy_from_slice(&v.to_ne_bytes());
        }
        self
    }

    fn get_u32(&self, off: usize) -> u32 {
        let mut b = [0; 4];
        if let Some(s) = self.0.get(off..off + 4) {
            b.copy_from_slice(s);
        }
        u32::from_ne_bytes(b)
    }

    fn name(&mut self, off: usize, name: &str) -> &mut Self {
        // BPF object names: at most 15 bytes of [A-Za-z0-9_.], NUL-terminated.
        for (d, s) in self.0.iter_mut().skip(off).zip(name.bytes().take(15)) {
            *d = s;
        }
        self
    }
}

/// `bpf(cmd, attr)`; the raw result.
fn bpf(cmd: libc::c_long, attr: &mut Attr) -> io::Result<libc::c_long> {
    // SAFETY: `attr` is a valid, writable 128-byte `union bpf_attr` image for the whole call;
    // every pointer written into it (by the callers below) points to memory alive across it.
    let r = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            cmd,
            attr as *mut Attr,
            core::mem::size_of::<Attr>(),
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn fd_of(r: libc::c_long) -> io::Result<OwnedFd> {
    let fd = RawFd::try_from(r).map_err(|_| io::Error::from(io::ErrorKind::InvalidData))?;
    // SAFETY: the kernel just returned `fd` as a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Creates a map (`BPF_MAP_CREATE`).
pub(crate) fn map_create(
    map_type: u32,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    name: &str,
) -> io::Result<OwnedFd> {
    let mut a = Attr::new();
    a.u32(0, map_type)
        .u32(4, key_size)
        .u32(8, value_size)
        .u32(12, max_entries)
        .name(28, name);
    fd_of(bpf(BPF_MAP_CREATE, &mut a)?)
}

/// Writes `value` at `key` (`BPF_MAP_UPDATE_ELEM`, `BPF_ANY`). The slices must have the map's
/// key and value sizes.
pub(crate) fn map_update(map: &OwnedFd, key: &[u8], value: &[u8]) -> io::Result<()> {
    let mut a = Attr::new();
    a.u32(0, map.as_raw_fd() as u32)
        .u64(8, key.as_ptr() as u64)
        .u64(16, value.as_ptr() as u64);
    bpf(BPF_MAP_UPDATE_ELEM, &mut a).map(drop)
}

/// Reads `key` into `value` (`BPF_MAP_LOOKUP_ELEM`). The slices must have the map's key and
/// value sizes.
pub(crate) fn map_lookup(map: &OwnedFd, key: &[u8], value: &mut [u8]) -> io::Result<()> {
    let mut a = Attr::new();
    a.u32(0, map.as_raw_fd() as u32)
        .u64(8, key.as_ptr() as u64)
        .u64(16, value.as_mut_ptr() as u64);
    bpf(BPF_MAP_LOOKUP_ELEM, &mut a).map(drop)
}

/// Loads an XDP program (`BPF_PROG_LOAD`); on failure the verifier's log is in the error.
pub(crate) fn prog_load_xdp(insns: &[Insn], name: &str) -> Result<OwnedFd, (io::Error, String)> {
    let license = b"GPL\0";
    let mut log = vec![0u8; 1 << 20];
    let mut a = Attr::new();
    a.u32(0, PROG_TYPE_XDP)
        .u32(4, insns.len() as u32)
        .u64(8, insns.as_ptr() as u64)
        .u64(16, license.as_ptr() as u64)
        .u32(24, 1)
        .u32(28, log.len() as u32)
        .u64(32, log.as_mut_ptr() as u64)
        .name(48, name)
        .u32(68, ATTACH_XDP);
    match bpf(BPF_PROG_LOAD, &mut a).and_then(fd_of) {
        Ok(fd) => Ok(fd),
        Err(e) => {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            log.truncate(end);
            Err((e, String::from_utf8_lossy(&log).into_owned()))
        }
    }
}

/// Attaches `prog` to interface `ifindex` (`BPF_LINK_CREATE`, `BPF_XDP`) with XDP `flags`
/// (`XDP_FLAGS_SKB_MODE` = 2, `XDP_FLAGS_DRV_MODE` = 4). Closing the link detaches.
pub(crate) fn link_create_xdp(prog: &OwnedFd, ifindex: u32, flags: u32) -> io::Result<OwnedFd> {
    let mut a = Attr::new();
    a.u32(0, prog.as_raw_fd() as u32)
        .u32(4, ifindex)
        .u32(8, ATTACH_XDP)
        .u32(12, flags);
    fd_of(bpf(BPF_LINK_CREATE, &mut a)?)
}

/// Runs `prog` `repeat` times on `frame` (`BPF_PROG_TEST_RUN`) with an `xdp_md` whose ingress
/// is `ifindex`; the last verdict, the frame as the last run left it, and the kernel's mean
/// time per run in nanoseconds.
pub(crate) fn prog_test_run(
    prog: &OwnedFd,
    frame: &[u8],
    ifindex: u32,
    repeat: u32,
) -> io::Result<(u32, Vec<u8>, u32)> {
    let mut out = vec![0u8; frame.len() + 256];
    // struct xdp_md: data, data_end, data_meta, ingress_ifindex, rx_queue_index, egress_ifindex.
    let mut ctx = [0u32; 6];
    ctx[1] = frame.len() as u32;
    ctx[3] = ifindex;
    let mut a = Attr::new();
    a.u32(0, prog.as_raw_fd() as u32)
        .u32(8, frame.len() as u32)
        .u32(12, out.len() as u32)
        .u64(16, frame.as_ptr() as u64)
        .u64(24, out.as_mut_ptr() as u64)
        .u32(32, repeat.max(1))
        .u32(40, core::mem::size_of_val(&ctx) as u32)
        .u64(48, ctx.as_ptr() as u64);
    bpf(BPF_PROG_TEST_RUN, &mut a)?;
    out.truncate(a.get_u32(12) as usize);
    Ok((a.get_u32(4), out, a.get_u32(36)))
}

/// Moves the calling thread into the network namespace at `path` (`/run/netns/<name>`).
pub(crate) fn enter_netns(path: &std::path::Path) -> io::Result<()> {
    let f = std::fs::File::open(path)?;
    // SAFETY: `f` is an open namespace file for the whole call; `setns` takes no pointers.
    let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Index of interface `name` in the calling thread's network namespace.
pub(crate) fn ifindex(name: &str) -> io::Result<u32> {
    let c =
        std::ffi::CString::new(name).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: `c` is a NUL-terminated string alive across the call.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(i)
    }
}

/// Hardware address of interface `name` (`SIOCGIFHWADDR`) in the calling thread's namespace.
pub(crate) fn mac_of(name: &str) -> io::Result<[u8; 6]> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() >= libc::IFNAMSIZ || bytes.contains(&0) {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    // SAFETY: `socket` takes no pointers; a non-negative result is a new descriptor.
    let s = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if s < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `s` is a fresh descriptor that nothing else owns.
    let sock = unsafe { OwnedFd::from_raw_fd(s) };
    // SAFETY: `ifreq` is a C struct of integers, arrays and a union of such; all-zero bytes
    // are a valid value.
    let mut req: libc::ifreq = unsafe { core::mem::zeroed() };
    for (d, s) in req.ifr_name.iter_mut().zip(bytes) {
        *d = *s as libc::c_char;
    }
    // SAFETY: `req` is a valid, writable `ifreq`, which is what SIOCGIFHWADDR expects.
    let r = unsafe {
        libc::ioctl(
            sock.as_raw_fd(),
            libc::SIOCGIFHWADDR,
            &mut req as *mut libc::ifreq,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: SIOCGIFHWADDR filled the `ifru_hwaddr` member.
    let sa = unsafe { req.ifr_ifru.ifru_hwaddr };
    let mut mac = [0u8; 6];
    for (d, s) in mac.iter_mut().zip(sa.sa_data.iter()) {
        *d = *s as u8;
    }
    Ok(mac)
}
