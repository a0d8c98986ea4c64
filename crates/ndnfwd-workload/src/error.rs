//! The crate's error type: small and `Copy`.

use core::fmt;

/// Why a workload could not be parsed or built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkloadError {
    /// The spec is not one of `so`, `yuan7`, `yuan15`, `real:PATH`.
    UnknownSpec,
    /// A `real:` spec without a path.
    EmptyPath,
    /// A workload needs at least one prefix (for `yuan`, at least one phase-two name).
    NoPrefixes,
    /// Reading or decompressing a name file failed.
    Io(std::io::ErrorKind),
    /// A name file held more name bytes than 32-bit offsets address (4 GiB).
    TooLarge,
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownSpec => {
                f.write_str("unknown workload (expected so, yuan7, yuan15 or real:PATH)")
            }
            Self::EmptyPath => f.write_str("real: workload without a file path"),
            Self::NoPrefixes => f.write_str("workload has no prefixes"),
            Self::Io(kind) => write!(f, "name file: {kind}"),
            Self::TooLarge => f.write_str("name file larger than 4 GiB of names"),
        }
    }
}

impl std::error::Error for WorkloadError {}

impl From<std::io::Error> for WorkloadError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e.kind())
    }
}
