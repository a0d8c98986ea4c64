//! What a data plane is started with. Plain values: the binary maps its TOML file onto these
//! and validates it; tests build them directly.

use std::net::SocketAddr;
use std::path::PathBuf;

use ndn_packet::Name;
use ndnfwd_face::{FaceTableConfig, FaceUri};
use ndnfwd_fib::FibConfig;
use ndnfwd_fwd::EngineConfig;
use ndnfwd_mgmt::MgmtConfig;

/// Thread layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {
    /// Run-to-completion: one thread does I/O, forwarding, output and control (small
    /// machines, tests). Same stages, polled in turn.
    Single,
    /// `io` I/O threads, `workers` forwarding workers (each with its own PIT-CS) and one
    /// control thread.
    Multi {
        /// I/O threads (1..=255).
        io: usize,
        /// Workers (1..=255).
        workers: usize,
    },
}

impl Threads {
    /// (I/O stages, workers).
    pub fn counts(self) -> (usize, usize) {
        match self {
            Threads::Single => (1, 1),
            Threads::Multi { io, workers } => (io.clamp(1, 255), workers.clamp(1, 255)),
        }
    }
}

/// A listener (NFD channel).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListenerSpec {
    /// Unix stream socket at this path.
    Unix(PathBuf),
    /// Shared-memory faces, handed out on a Unix socket at this path.
    Shm(PathBuf),
    /// TCP on this address.
    Tcp(SocketAddr),
    /// UDP on this address (on-demand faces for new peers).
    Udp(SocketAddr),
}

/// A face made at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaceSpec {
    /// Remote endpoint: `udp4://`, `tcp4://`, `unix://`, `ether://[mac]`, or a UDP multicast
    /// group.
    pub remote: FaceUri,
    /// Local endpoint: `dev://<ifname>` for Ethernet, `udp4://<interface address>` for UDP
    /// multicast; otherwise absent.
    pub local: Option<FaceUri>,
}

/// A static route: `prefix` through the face to `face` (made if needed), with `cost`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteSpec {
    /// Name prefix.
    pub prefix: Name,
    /// The face.
    pub face: FaceSpec,
    /// Route cost.
    pub cost: u32,
}

/// Everything a data plane is started with.
#[derive(Debug, Clone)]
pub struct DataplaneConfig {
    /// Thread layout.
    pub threads: Threads,
    /// CPUs to pin threads to, in order: I/O threads, then workers (empty: no pinning).
    pub pin_cpus: Vec<usize>,
    /// Packets per burst (receive, process, send).
    pub burst: usize,
    /// Capacity of each worker's input ring and each I/O thread's output ring (messages).
    pub ring_capacity: usize,
    /// Components of an Interest name hashed for worker dispatch (NDN-DPDK's NDT prefix length).
    pub dispatch_prefix_len: usize,
    /// log2 of the name dispatch table size.
    pub ndt_bits: u8,
    /// Busy-poll window after the last work, in microseconds.
    pub idle_spin_us: u64,
    /// Longest idle sleep of a worker or of the run-to-completion thread, in ms.
    pub idle_max_sleep_ms: u32,
    /// Longest idle sleep of an I/O thread in threaded mode while any I/O stage received a
    /// packet in the last 100 ms, in ms. Workers cannot wake an I/O thread blocked on epoll,
    /// so this bounds the extra latency of an output produced right after the I/O thread fell
    /// asleep; after 100 ms of silence the I/O thread sleeps up to `idle_max_sleep_ms`.
    pub io_max_sleep_ms: u32,
    /// Engine settings; the PIT-CS sizes are per worker, its `worker_id` is set per worker.
    pub engine: EngineConfig,
    /// FIB settings (capacity, LPM algorithm and M).
    pub fib: FibConfig,
    /// Face-table settings (UDP MTU, batch, idle timeout...).
    pub faces: FaceTableConfig,
    /// Listeners.
    pub listeners: Vec<ListenerSpec>,
    /// Faces made at start-up.
    pub static_faces: Vec<FaceSpec>,
    /// Routes installed at start-up (origin 255, child-inherit).
    pub routes: Vec<RouteSpec>,
    /// Management.
    pub mgmt: MgmtConfig,
    /// Where the status JSON is written (on request and every `status_interval_ms`).
    pub status_file: Option<PathBuf>,
    /// Period of status-file writes in ms (0: only on request and at shutdown).
    pub status_interval_ms: u64,
}

impl Default for DataplaneConfig {
    fn default() -> Self {
        Self {
            threads: Threads::Single,
            pin_cpus: Vec::new(),
            burst: 64,
            ring_capacity: 4096,
            dispatch_prefix_len: 2,
            ndt_bits: 8,
            idle_spin_us: 200,
            idle_max_sleep_ms: 10,
            io_max_sleep_ms: 1,
            engine: EngineConfig::default(),
            fib: FibConfig::default(),
            faces: FaceTableConfig::default(),
            listeners: Vec::new(),
            static_faces: Vec::new(),
            routes: Vec::new(),
            mgmt: MgmtConfig::default(),
            status_file: None,
            status_interval_ms: 0,
        }
    }
}
