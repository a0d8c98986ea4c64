//! Run-time reconfiguration (algorithm, M, binary-search tree height) and reclamation of the
//! [`FibWriter`].

use std::collections::BTreeMap;

use ndn_packet::NameRef;

use super::{check_m, h1_of, prefix_bytes, FibWriter, Node};
use crate::entry::h2_of;
use crate::entry::RecKind;
use crate::lpm::{marker_levels, tree_height, LpmAlgorithm, LpmConfig, Published};
use crate::FibError;

impl FibWriter {
    /// Switches the LPM algorithm or M at run time: the new configuration's records are added
    /// first, then it is published, and the old records are removed after readers quiesce (by
    /// a later [`FibWriter::reclaim`]).
    pub fn set_lpm(&mut self, lpm: LpmConfig) -> Result<(), FibError> {
        check_m(lpm.m)?;
        let d = match lpm.algorithm {
            LpmAlgorithm::BinarySearch => tree_height(self.depth()),
            _ => self.published().d,
        };
        self.transition(lpm, d)
    }

    pub(super) fn transition(&mut self, lpm: LpmConfig, d: u8) -> Result<(), FibError> {
        let m = usize::from(lpm.m);
        // 1. What the new configuration needs: (marker refs, virtual refs, MD) per name.
        let mut need: BTreeMap<Vec<u8>, (u32, u32, u8)> = BTreeMap::new();
        for (k, n) in &self.nodes {
            if n.real.is_none() {
                continue;
            }
            let p = usize::from(n.depth);
            match lpm.algorithm {
                LpmAlgorithm::BinarySearch => marker_levels(p, d, |l| {
                    need.entry(prefix_bytes(k, l).to_vec()).or_default().0 += 1;
                }),
                LpmAlgorithm::TwoStage if p >= m => {
                    let e = need.entry(prefix_bytes(k, m).to_vec()).or_default();
                    if p > m {
                        e.1 += 1;
                    }
                    e.2 = e.2.max(p as u8);
                }
                _ => {}
            }
        }
        // 2. Reset the counts, then add or refresh every record the new configuration needs.
        for n in self.nodes.values_mut() {
            n.marker_refs = 0;
            n.virt_refs = 0;
        }
        for (x, (mrefs, vrefs, md)) in need {
            let depth = match lpm.algorithm {
                LpmAlgorithm::TwoStage => m,
                _ => NameRef::new_checked(&x).map_or(0, |n| n.len()),
            };
            let bmp = self.bmp_of(&x, depth) as u8;
            let n = self.node_mut(&x, depth);
            n.marker_refs = mrefs;
            n.virt_refs = vrefs;
            n.md = md;
            let (real, marker, virt) = (n.real, n.marker, n.virt);
            if let Some(e) = real.and_then(|e| self.core.entry(e)) {
                e.set_real_md(md.max(depth as u8));
                continue;
            }
            let (kind, value, host) = if mrefs > 0 {
                (RecKind::Marker, bmp, marker)
            } else if vrefs > 0 {
                (RecKind::Virtual, md, virt)
            } else {
                continue;
            };
            match host.and_then(|h| self.core.entry(h.entry).map(|e| (h, e))) {
                Some((h, e)) => e.set_record_value(h.pos, value),
                None => {
                    self.hash(&x);
                    let h = self.core.add_record(
                        h1_of(&self.hashes, depth),
                        h2_of(&self.hashes, depth),
                        kind,
                        value,
                    )?;
                    let n = self.node_mut(&x, depth);
                    match kind {
                        RecKind::Marker => n.marker = Some(h),
                        RecKind::Virtual => n.virt = Some(h),
                    }
                }
            }
        }
        // 3. Publish.
        self.lpm = lpm;
        self.core.publish_config(Published {
            algorithm: lpm.algorithm,
            m: lpm.m,
            d,
            k: self.depth() as u8,
        });
        // 4. Retire what only the old configuration used.
        let mut old = Vec::new();
        for (k, n) in &self.nodes {
            if n.marker.is_some() && !self.needs(n, RecKind::Marker) {
                old.push((k.clone(), RecKind::Marker));
            }
            if n.virt.is_some() && !self.needs(n, RecKind::Virtual) {
                old.push((k.clone(), RecKind::Virtual));
            }
        }
        for (k, kind) in old {
            if let Ok(name) = NameRef::new_checked(&k) {
                self.core.defer_aux(name.to_name(), kind);
            }
        }
        Ok(())
    }

    fn needs(&self, n: &Node, kind: RecKind) -> bool {
        n.real.is_none()
            && match kind {
                RecKind::Marker => {
                    self.lpm.algorithm == LpmAlgorithm::BinarySearch && n.marker_refs > 0
                }
                RecKind::Virtual => {
                    self.lpm.algorithm == LpmAlgorithm::TwoStage
                        && usize::from(n.depth) == usize::from(self.lpm.m)
                        && n.virt_refs > 0
                }
            }
    }

    /// Reuses entries, nexthop sets and old-configuration records whose grace period has
    /// passed, and shrinks a binary-search tree that has been taller than the FIB depth needs
    /// at [`SHRINK_AFTER`](super::SHRINK_AFTER) calls in a row. Never blocks. Returns how many
    /// objects were reclaimed.
    pub fn reclaim(&mut self) -> usize {
        self.shrink_tree();
        let (n, aux) = self.core.reclaim();
        for (name, kind) in aux {
            let key = name.value();
            let Some(node) = self.nodes.get(key) else {
                continue;
            };
            let host = match kind {
                RecKind::Marker => node.marker,
                RecKind::Virtual => node.virt,
            };
            let Some(h) = host.filter(|_| !self.needs(node, kind)) else {
                continue;
            };
            let depth = usize::from(node.depth);
            self.hash(key);
            let n = self.node_mut(key, depth);
            match kind {
                RecKind::Marker => n.marker = None,
                RecKind::Virtual => n.virt = None,
            }
            self.core.remove_record(h, h1_of(&self.hashes, depth), kind);
            self.cleanup(key);
        }
        n
    }

    fn shrink_tree(&mut self) {
        if self.lpm.algorithm != LpmAlgorithm::BinarySearch {
            self.too_tall = 0;
            return;
        }
        let d = tree_height(self.depth());
        if d >= self.published().d {
            self.too_tall = 0;
            return;
        }
        self.too_tall += 1;
        if self.too_tall >= super::SHRINK_AFTER {
            self.too_tall = 0;
            // It fails only when the table has no room for the shorter tree's markers; the
            // taller tree then stays published, which is correct, and the next reclaims retry.
            if self.transition(self.lpm, d).is_ok() {
                self.tree_resizes += 1;
            }
        }
    }

    /// Waits for every online reader to pass a quiescent point, then reclaims (twice, so records
    /// retired by the first pass are reclaimed too). Blocks while an online reader never calls
    /// `quiescent`.
    pub fn synchronize(&mut self) -> usize {
        self.core.shared.qsbr.synchronize();
        let a = self.reclaim();
        self.core.shared.qsbr.synchronize();
        a + self.reclaim()
    }
}
