//! Workload specs (`so`, `yuan7`, `yuan15`, `real:PATH`) and the [`Workload`] they build.

use core::fmt;
use core::str::FromStr;
use std::path::PathBuf;

use crate::{LoadReport, NameSource, Popularity, Real, So, WorkloadError, Yuan};

/// Prefix count used when [`Params::prefixes`] is `None` for a synthetic workload.
pub const DEFAULT_PREFIXES: u64 = 1 << 20;

/// A parsed workload spec.
///
/// ```
/// use ndnfwd_workload::{NameSource, Params, WorkloadSpec};
///
/// let spec: WorkloadSpec = "yuan7".parse().unwrap();
/// let w = spec.build(&Params { prefixes: Some(3000), ..Params::default() }).unwrap();
/// assert_eq!(w.as_yuan().map(|y| y.phase_two_count()), Some(1000));
/// assert_eq!(w.prefix(0).len(), 7);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkloadSpec {
    /// `so`: seed 000 shapes ([`So`]).
    So,
    /// `yuan<k>`, normally `yuan7` or `yuan15`: seed 001 worst-case datasets ([`Yuan`]).
    Yuan {
        /// Components per name.
        components: u8,
    },
    /// `real:PATH`: a name file ([`Real`]).
    Real(PathBuf),
}

impl FromStr for WorkloadSpec {
    type Err = WorkloadError;

    fn from_str(s: &str) -> Result<Self, WorkloadError> {
        if s == "so" {
            return Ok(Self::So);
        }
        if let Some(path) = s.strip_prefix("real:") {
            if path.is_empty() {
                return Err(WorkloadError::EmptyPath);
            }
            return Ok(Self::Real(PathBuf::from(path)));
        }
        match s.strip_prefix("yuan").map(str::parse::<u8>) {
            Some(Ok(components)) if components > 0 => Ok(Self::Yuan { components }),
            _ => Err(WorkloadError::UnknownSpec),
        }
    }
}

impl fmt::Display for WorkloadSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::So => f.write_str("so"),
            Self::Yuan { components } => write!(f, "yuan{components}"),
            Self::Real(path) => write!(f, "real:{}", path.display()),
        }
    }
}

/// Size, seed and popularity of a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Number of prefixes (`yuan`: dataset names, both phases). `None`: [`DEFAULT_PREFIXES`] for
    /// synthetic workloads, the whole file for `real`. For `real`, at most this many names are read.
    pub prefixes: Option<u64>,
    /// Seed: equal seeds give equal names.
    pub seed: u64,
    /// How Interests choose prefixes (`so` and `real`; `yuan` lookups are a permutation).
    pub popularity: Popularity,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            prefixes: None,
            seed: 1,
            popularity: Popularity::Uniform,
        }
    }
}

impl WorkloadSpec {
    /// Builds the generator. Only `real` does I/O (it loads the file).
    pub fn build(&self, params: &Params) -> Result<Workload, WorkloadError> {
        let n = params.prefixes.unwrap_or(DEFAULT_PREFIXES);
        Ok(match self {
            Self::So => Workload::So(So::new(n, params.seed, params.popularity)?),
            Self::Yuan { components } => Workload::Yuan(Yuan::new(*components, n, params.seed)?),
            Self::Real(path) => Workload::Real(Real::load(
                path,
                params.prefixes,
                params.seed,
                params.popularity,
            )?),
        })
    }
}

/// Any workload, behind one [`NameSource`].
#[derive(Debug, Clone)]
pub enum Workload {
    /// Seed 000 shapes.
    So(So),
    /// Seed 001 worst-case datasets.
    Yuan(Yuan),
    /// Names from a file.
    Real(Real),
}

impl Workload {
    /// The `yuan` generator, for its phase split (`phase_one_*`, `phase_two_*`, lookups).
    pub fn as_yuan(&self) -> Option<&Yuan> {
        match self {
            Self::Yuan(y) => Some(y),
            _ => None,
        }
    }

    /// What loading the name file kept and skipped (`real` only).
    pub fn load_report(&self) -> Option<LoadReport> {
        match self {
            Self::Real(r) => Some(r.report()),
            _ => None,
        }
    }
}

macro_rules! delegate {
    ($self:ident, $w:ident => $e:expr) => {
        match $self {
            Workload::So($w) => $e,
            Workload::Yuan($w) => $e,
            Workload::Real($w) => $e,
        }
    };
}

impl NameSource for Workload {
    fn prefix_count(&self) -> u64 {
        delegate!(self, w => w.prefix_count())
    }

    fn prefix_into(&self, i: u64, out: &mut Vec<u8>) {
        delegate!(self, w => w.prefix_into(i, out))
    }

    fn interest_into(&self, i: u64, out: &mut Vec<u8>) {
        delegate!(self, w => w.interest_into(i, out))
    }

    fn interest_prefix(&self, i: u64) -> u64 {
        delegate!(self, w => w.interest_prefix(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print() {
        for s in ["so", "yuan7", "yuan15", "real:/tmp/a:b.ndn.gz"] {
            let spec: WorkloadSpec = s.parse().unwrap();
            assert_eq!(spec.to_string(), s);
        }
        assert_eq!("yuan15".parse(), Ok(WorkloadSpec::Yuan { components: 15 }));
        for (s, e) in [
            ("", WorkloadError::UnknownSpec),
            ("SO", WorkloadError::UnknownSpec),
            ("yuan", WorkloadError::UnknownSpec),
            ("yuan0", WorkloadError::UnknownSpec),
            ("yuan256", WorkloadError::UnknownSpec),
            ("real:", WorkloadError::EmptyPath),
        ] {
            assert_eq!(s.parse::<WorkloadSpec>(), Err(e), "{s:?}");
        }
    }

    #[test]
    fn build_reports_missing_files() {
        let spec: WorkloadSpec = "real:/nonexistent/names.ndn".parse().unwrap();
        assert_eq!(
            spec.build(&Params::default()).err(),
            Some(WorkloadError::Io(std::io::ErrorKind::NotFound))
        );
        let so = WorkloadSpec::So.build(&Params::default()).unwrap();
        assert_eq!(so.prefix_count(), DEFAULT_PREFIXES);
        assert!(so.as_yuan().is_none() && so.load_report().is_none());
    }
}
