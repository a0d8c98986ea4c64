//! The RIB: a name tree of routes that computes every FIB prefix's nexthops (NFD semantics)
//! and pushes changes to a [`FibWriter`].
//!
//! A route is identified by (face, origin) under a name and carries a cost, flags and an
//! optional expiry time (nanoseconds, passed in). A RIB name with at least one route is a FIB
//! prefix. Its nexthops are its own routes plus the `CHILD_INHERIT` routes of its ancestors,
//! walking up from the parent and stopping after the first ancestor that has a `CAPTURE` route;
//! a name with a `CAPTURE` route of its own inherits nothing. Per face the lowest cost wins.
//! Since inheritance reaches down, a change at a name recomputes that name and every RIB name
//! below it. The strategy id of a FIB prefix is the strategy choice of its longest prefix that
//! has one (default 0).

use std::collections::BTreeMap;
use std::ops::Bound;

use ndn_packet::{FaceId, NameRef};

use crate::nexthop::{NextHop, StrategyId};
use crate::writer::FibWriter;
use crate::FibError;

/// Route flags (NFD's RouteFlags bit values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct RouteFlags(pub u8);

impl RouteFlags {
    /// No flag.
    pub const NONE: Self = Self(0);
    /// Descendants inherit this route.
    pub const CHILD_INHERIT: Self = Self(1);
    /// Ancestors' routes are not inherited at or below this name.
    pub const CAPTURE: Self = Self(2);

    /// True when every bit of `other` is set.
    pub fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
}

impl core::ops::BitOr for RouteFlags {
    type Output = Self;

    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

/// One route of a RIB name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// Outgoing face.
    pub face: FaceId,
    /// Who installed it (NFD origin: app 0, static 255, ...).
    pub origin: u64,
    /// Cost.
    pub cost: u32,
    /// `CHILD_INHERIT`, `CAPTURE`.
    pub flags: RouteFlags,
    /// Expiry time in nanoseconds of the caller's monotonic clock; `None` never expires.
    pub expires: Option<u64>,
}

/// The routing information base, owning the FIB's writer.
#[derive(Debug)]
pub struct Rib {
    fib: FibWriter,
    routes: BTreeMap<Vec<u8>, Vec<Route>>,
    strategies: BTreeMap<Vec<u8>, StrategyId>,
}

fn prefix_of(name: NameRef<'_>, depth: usize) -> &[u8] {
    name.prefix(depth).value()
}

impl Rib {
    /// An empty RIB in front of `fib` (which should be empty too).
    pub fn new(fib: FibWriter) -> Self {
        Self {
            fib,
            routes: BTreeMap::new(),
            strategies: BTreeMap::new(),
        }
    }

    /// The FIB writer (statistics, LPM switching, reclamation).
    pub fn fib(&self) -> &FibWriter {
        &self.fib
    }

    /// Mutable access to the FIB writer, for LPM switching and reclamation. Prefixes set
    /// directly are overwritten by the next RIB change that covers them.
    pub fn fib_mut(&mut self) -> &mut FibWriter {
        &mut self.fib
    }

    /// Adds a route, replacing the one with the same (face, origin).
    pub fn register(&mut self, name: NameRef<'_>, route: Route) -> Result<(), FibError> {
        match self.routes.get_mut(name.value()) {
            Some(routes) => {
                routes.retain(|r| (r.face, r.origin) != (route.face, route.origin));
                routes.push(route);
            }
            None => {
                self.routes.insert(name.value().to_vec(), vec![route]);
            }
        }
        self.refresh_below(name)
    }

    /// Removes the route (face, origin) of `name`; false if there was none.
    pub fn unregister(
        &mut self,
        name: NameRef<'_>,
        face: FaceId,
        origin: u64,
    ) -> Result<bool, FibError> {
        let Some(routes) = self.routes.get_mut(name.value()) else {
            return Ok(false);
        };
        let before = routes.len();
        routes.retain(|r| (r.face, r.origin) != (face, origin));
        let removed = routes.len() != before;
        if routes.is_empty() {
            self.routes.remove(name.value());
        }
        if removed {
            self.refresh_below(name)?;
        }
        Ok(removed)
    }

    /// Removes every route through `face` (the face went down); returns how many.
    pub fn remove_face(&mut self, face: FaceId) -> Result<usize, FibError> {
        self.remove_where(|r| r.face == face)
    }

    /// Removes every route whose expiry time is `<= now`; returns how many.
    pub fn expire(&mut self, now: u64) -> Result<usize, FibError> {
        self.remove_where(|r| r.expires.is_some_and(|t| t <= now))
    }

    fn remove_where(&mut self, dead: impl Fn(&Route) -> bool) -> Result<usize, FibError> {
        let mut touched = Vec::new();
        let mut n = 0;
        for (k, routes) in &mut self.routes {
            let before = routes.len();
            routes.retain(|r| !dead(r));
            if routes.len() != before {
                n += before - routes.len();
                touched.push(k.clone());
            }
        }
        self.routes.retain(|_, r| !r.is_empty());
        for k in touched {
            if let Ok(name) = NameRef::new_checked(&k) {
                self.refresh_below(name)?;
            }
        }
        Ok(n)
    }

    /// Sets the strategy choice of `name` (inherited by longer FIB prefixes).
    pub fn set_strategy(&mut self, name: NameRef<'_>, id: StrategyId) -> Result<(), FibError> {
        self.strategies.insert(name.value().to_vec(), id);
        self.refresh_below(name)
    }

    /// Routes of exactly `name`.
    pub fn routes(&self, name: NameRef<'_>) -> &[Route] {
        self.routes.get(name.value()).map_or(&[], Vec::as_slice)
    }

    /// Number of names with routes (= FIB prefixes).
    pub fn len(&self) -> usize {
        self.routes.len()
    }

    /// True when no route is registered.
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    /// Approximate bytes held by the RIB's name tree and routes (control plane).
    pub fn memory_bytes(&self) -> usize {
        let node = core::mem::size_of::<(Vec<u8>, Vec<Route>)>() + 16;
        self.routes
            .iter()
            .map(|(k, r)| node + k.len() + r.capacity() * core::mem::size_of::<Route>())
            .sum()
    }

    /// The nexthops `name` gets from its own and inherited routes (empty if it has no route).
    pub fn nexthops(&self, name: NameRef<'_>) -> Vec<NextHop> {
        let Some(own) = self.routes.get(name.value()) else {
            return Vec::new();
        };
        // Lowest cost per face; a name has few faces, so a vector beats a map.
        let mut best: Vec<NextHop> = Vec::with_capacity(own.len());
        let mut add = |r: &Route| match best.iter_mut().find(|h| h.face == r.face) {
            Some(h) => h.cost = h.cost.min(r.cost),
            None => best.push(NextHop {
                face: r.face,
                cost: r.cost,
            }),
        };
        own.iter().for_each(&mut add);
        if !own.iter().any(|r| r.flags.contains(RouteFlags::CAPTURE)) {
            for depth in (0..name.len()).rev() {
                let Some(anc) = self.routes.get(prefix_of(name, depth)) else {
                    continue;
                };
                anc.iter()
                    .filter(|r| r.flags.contains(RouteFlags::CHILD_INHERIT))
                    .for_each(&mut add);
                if anc.iter().any(|r| r.flags.contains(RouteFlags::CAPTURE)) {
                    break;
                }
            }
        }
        best.sort_unstable_by_key(|h| h.face);
        best
    }

    fn strategy_of(&self, name: NameRef<'_>) -> StrategyId {
        (0..=name.len())
            .rev()
            .find_map(|d| self.strategies.get(prefix_of(name, d)).copied())
            .unwrap_or(0)
    }

    /// Recomputes `name` and every RIB name below it, pushing the result to the FIB.
    fn refresh_below(&mut self, name: NameRef<'_>) -> Result<(), FibError> {
        let key = name.value();
        let below = self
            .routes
            .range::<[u8], _>((Bound::Excluded(key), Bound::Unbounded))
            .next()
            .is_some_and(|(k, _)| k.starts_with(key));
        if !below {
            // The usual case (a leaf prefix): no list of names to copy.
            return self.refresh(name);
        }
        let mut names: Vec<Vec<u8>> = self
            .routes
            .range::<[u8], _>((Bound::Included(key), Bound::Unbounded))
            .take_while(|(k, _)| k.starts_with(key))
            .map(|(k, _)| k.clone())
            .collect();
        if !self.routes.contains_key(key) {
            names.push(key.to_vec());
        }
        for k in names {
            if let Ok(n) = NameRef::new_checked(&k) {
                self.refresh(n)?;
            }
        }
        Ok(())
    }

    /// Pushes the nexthops and strategy of `name` alone to the FIB (removes it without routes).
    fn refresh(&mut self, name: NameRef<'_>) -> Result<(), FibError> {
        if self.routes.contains_key(name.value()) {
            let hops = self.nexthops(name);
            let strategy = self.strategy_of(name);
            self.fib.set(name, &hops, strategy)
        } else {
            self.fib.remove(name).map(|_| ())
        }
    }
}
