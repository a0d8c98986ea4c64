//! The strategy-choice table: name prefix -> strategy, longest prefix match (NFD semantics).
//!
//! It is kept here, not in the FIB: NFD's strategy choice is independent of routes (a choice at
//! `/a` applies under `/a` whether the FIB has `/a`, `/a/b` or only `/`), and FIB entries are
//! shared by all workers while strategy instances are per worker. The table is tiny (a handful
//! of prefixes), keyed by the same keyed 128-bit prefix identities the engine already computed
//! for the PIT and FIB ([`PrefixHashes::id128`]), so a lookup hashes nothing. With only the
//! root entry (the common case) a lookup is one branch.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use ndn_packet::{Name, NameHasher, NameRef, PrefixHashes};

use super::StrategyError;

pub use ndnfwd_fib::StrategyId;

/// Most prefixes (besides the root) the table holds.
pub const MAX_CHOICES: usize = 4096;

/// The keys are keyed SipHash identities already: use their low word as the map hash.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, v: u128) {
        self.0 = v as u64;
    }
}

#[derive(Debug, Clone)]
struct Choice {
    name: Name,
    strategy: StrategyId,
}

/// Longest-prefix-match table from name prefixes to [`StrategyId`]s. The root `/` always has
/// an entry.
#[derive(Clone)]
pub struct StrategyChoice {
    hasher: NameHasher,
    scratch: PrefixHashes,
    map: HashMap<u128, Choice, BuildHasherDefault<PassThrough>>,
    max_depth: usize,
    root: StrategyId,
}

impl core::fmt::Debug for StrategyChoice {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StrategyChoice")
            .field("root", &self.root)
            .field("entries", &self.map.len())
            .finish()
    }
}

impl StrategyChoice {
    /// A table whose root entry is `root`. `hasher` must be the engine's, so that lookups can
    /// use the prefix hashes the engine computed.
    pub fn new(hasher: NameHasher, root: StrategyId) -> Self {
        Self {
            hasher,
            scratch: PrefixHashes::with_capacity(8),
            map: HashMap::default(),
            max_depth: 0,
            root,
        }
    }

    /// Sets the strategy of `prefix` (the root included).
    pub fn insert(
        &mut self,
        prefix: NameRef<'_>,
        strategy: StrategyId,
    ) -> Result<(), StrategyError> {
        if prefix.is_empty() {
            self.root = strategy;
            return Ok(());
        }
        let id = self.identity(prefix);
        if !self.map.contains_key(&id) && self.map.len() >= MAX_CHOICES {
            return Err(StrategyError::TableFull);
        }
        let name = prefix.to_name();
        self.max_depth = self.max_depth.max(name.len());
        self.map.insert(id, Choice { name, strategy });
        Ok(())
    }

    /// Removes the choice of `prefix`; false if it had none. The root cannot be removed.
    pub fn remove(&mut self, prefix: NameRef<'_>) -> Result<bool, StrategyError> {
        if prefix.is_empty() {
            return Err(StrategyError::RootUnset);
        }
        let id = self.identity(prefix);
        let found = self.map.remove(&id).is_some();
        self.max_depth = self.map.values().map(|c| c.name.len()).max().unwrap_or(0);
        Ok(found)
    }

    fn identity(&mut self, prefix: NameRef<'_>) -> u128 {
        self.hasher.hash_prefixes(prefix, &mut self.scratch);
        let n = self.scratch.components();
        self.scratch.id128(n).unwrap_or_default()
    }

    /// The strategy for a name whose prefix hashes (from the engine's hasher) are `hashes`.
    #[inline(always)]
    pub fn find(&self, hashes: &PrefixHashes) -> StrategyId {
        if self.map.is_empty() {
            return self.root;
        }
        self.find_deep(hashes)
    }

    /// [`StrategyChoice::find`] when there are choices besides the root: out of line, so the
    /// common root-only case is a branch inlined into the Interest pipeline.
    #[inline(never)]
    fn find_deep(&self, hashes: &PrefixHashes) -> StrategyId {
        let deepest = hashes.components().min(self.max_depth);
        (1..=deepest)
            .rev()
            .find_map(|i| self.map.get(&hashes.id128(i)?).map(|c| c.strategy))
            .unwrap_or(self.root)
    }

    /// The strategy for `name` (hashes it; for management and tests).
    pub fn find_name(&mut self, name: NameRef<'_>) -> StrategyId {
        let mut h = core::mem::take(&mut self.scratch);
        self.hasher.hash_prefixes(name, &mut h);
        let s = self.find(&h);
        self.scratch = h;
        s
    }

    /// Every choice, root first, then the others in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (NameRef<'_>, StrategyId)> + '_ {
        core::iter::once((NameRef::root(), self.root))
            .chain(self.map.values().map(|c| (c.name.as_ref(), c.strategy)))
    }

    /// Number of choices, the root included.
    pub fn len(&self) -> usize {
        self.map.len() + 1
    }

    /// Always false: the root entry exists.
    pub fn is_empty(&self) -> bool {
        false
    }
}
