//! The in- and out-records of one PIT entry as two logical arrays: the first
//! [`IN_HEAD`]/[`OUT_HEAD`] live in the entry, the next [`IN_TAIL`]/[`OUT_TAIL`] in its tail
//! block, the rest in its extension block (bounded pool); `Pcct::reserve_record` attaches
//! both before a push needs them. Records stay dense: removing an in-record swaps the last one
//! in (in-records are unordered); removing an out-record shifts the later ones down
//! (out-records stay in creation order).

use ndnfwd_table::Arena;

use crate::entry::{Ext, InRecord, OutRecord, PitEntry, Tail, IN_HEAD, OUT_HEAD};
use crate::list::NIL;

#[cfg(doc)]
use crate::entry::{IN_TAIL, OUT_TAIL};

/// Where the records past a PIT entry's own live: the tail blocks (one reserved per PIT slot)
/// and the bounded pool of extension blocks.
pub(crate) struct Pools {
    pub(crate) tails: Arena<Tail>,
    pub(crate) exts: Arena<Ext>,
}

impl Pools {
    /// Bytes of address space the two pools reserve.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.tails.memory_bytes() + self.exts.memory_bytes()
    }

    /// Frees tail block `t` and the extension block it holds, if any.
    pub(crate) fn free_tail(&mut self, t: u32) {
        if let Some(ext) = self.tails.free(t).map(|t| t.ext) {
            if ext != NIL {
                self.exts.free(ext);
            }
        }
    }
}

/// Read-only view of a PIT entry, its tail and its extension block.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pit: &'a PitEntry,
    tail: Option<&'a Tail>,
    ext: Option<&'a Ext>,
}

/// Mutable view of a PIT entry, its tail and its extension block.
pub(crate) struct Recs<'a> {
    pub(crate) pit: &'a mut PitEntry,
    tail: Option<&'a mut Tail>,
    ext: Option<&'a mut Ext>,
}

/// Record `i` (of `n`) of the logical array `head ++ tail ++ ext`.
fn at<'a, T>(
    head: &'a [T],
    tail: Option<&'a [T]>,
    ext: Option<&'a [T]>,
    n: usize,
    i: usize,
) -> Option<&'a T> {
    if i >= n {
        return None;
    }
    let Some(j) = i.checked_sub(head.len()) else {
        return head.get(i);
    };
    let tail = tail?;
    match j.checked_sub(tail.len()) {
        None => tail.get(j),
        Some(k) => ext?.get(k),
    }
}

/// [`at`], mutable.
fn at_mut<'a, T>(
    head: &'a mut [T],
    tail: Option<&'a mut [T]>,
    ext: Option<&'a mut [T]>,
    n: usize,
    i: usize,
) -> Option<&'a mut T> {
    if i >= n {
        return None;
    }
    let Some(j) = i.checked_sub(head.len()) else {
        return head.get_mut(i);
    };
    let tail = tail?;
    match j.checked_sub(tail.len()) {
        None => tail.get_mut(j),
        Some(k) => ext?.get_mut(k),
    }
}

impl<'a> View<'a> {
    /// The view of `pit` (its tail and extension block are looked up in `pools`).
    pub(crate) fn new(pit: &'a PitEntry, pools: &'a Pools) -> Self {
        let tail = pools.tails.get(pit.tail);
        Self {
            pit,
            tail,
            ext: tail.and_then(|t| pools.exts.get(t.ext)),
        }
    }

    pub(crate) fn n_in(&self) -> usize {
        usize::from(self.pit.n_in)
    }

    pub(crate) fn n_out(&self) -> usize {
        usize::from(self.pit.n_out)
    }

    pub(crate) fn in_at(&self, i: usize) -> Option<&'a InRecord> {
        at(
            &self.pit.ins,
            self.tail.map(|t| &t.ins[..]),
            self.ext.map(|x| &x.ins[..]),
            self.n_in(),
            i,
        )
    }

    pub(crate) fn out_at(&self, i: usize) -> Option<&'a OutRecord> {
        at(
            &self.pit.outs,
            self.tail.map(|t| &t.outs[..]),
            self.ext.map(|x| &x.outs[..]),
            self.n_out(),
            i,
        )
    }

    pub(crate) fn ins(self) -> impl Iterator<Item = &'a InRecord> {
        (0..self.n_in()).filter_map(move |i| self.in_at(i))
    }

    pub(crate) fn outs(self) -> impl Iterator<Item = &'a OutRecord> {
        (0..self.n_out()).filter_map(move |i| self.out_at(i))
    }

    pub(crate) fn in_position(self, face: u32) -> Option<usize> {
        self.ins().position(|r| r.face == face)
    }

    pub(crate) fn out_position(self, face: u32) -> Option<usize> {
        self.outs().position(|r| r.face == face)
    }

    /// Expiry of the entry: the latest in-record expiry.
    pub(crate) fn max_expiry(self) -> u64 {
        self.ins().map(|r| r.expiry).max().unwrap_or(0)
    }

    /// In-records with CanBePrefix.
    pub(crate) fn count_cbp(self) -> usize {
        self.ins().filter(|r| r.can_be_prefix()).count()
    }
}

impl<'a> Recs<'a> {
    /// The mutable view of `pit` (its tail and extension block are looked up in `pools`).
    pub(crate) fn new(pit: &'a mut PitEntry, pools: &'a mut Pools) -> Self {
        let tail = pools.tails.get_mut(pit.tail);
        let ext = pools.exts.get_mut(tail.as_ref().map_or(NIL, |t| t.ext));
        Self { pit, tail, ext }
    }

    pub(crate) fn view(&self) -> View<'_> {
        View {
            pit: self.pit,
            tail: self.tail.as_deref(),
            ext: self.ext.as_deref(),
        }
    }

    pub(crate) fn in_at_mut(&mut self, i: usize) -> Option<&mut InRecord> {
        let n = usize::from(self.pit.n_in);
        let tail = self.tail.as_deref_mut().map(|t| &mut t.ins[..]);
        let ext = self.ext.as_deref_mut().map(|x| &mut x.ins[..]);
        at_mut(&mut self.pit.ins, tail, ext, n, i)
    }

    pub(crate) fn out_at_mut(&mut self, i: usize) -> Option<&mut OutRecord> {
        let n = usize::from(self.pit.n_out);
        let tail = self.tail.as_deref_mut().map(|t| &mut t.outs[..]);
        let ext = self.ext.as_deref_mut().map(|x| &mut x.outs[..]);
        at_mut(&mut self.pit.outs, tail, ext, n, i)
    }

    /// Appends an in-record; false when there is no slot (no tail or extension block attached).
    pub(crate) fn push_in(&mut self, r: InRecord) -> bool {
        self.pit.n_in += 1;
        match self.in_at_mut(usize::from(self.pit.n_in) - 1) {
            Some(slot) => {
                *slot = r;
                true
            }
            None => {
                self.pit.n_in -= 1;
                false
            }
        }
    }

    /// Appends an out-record; false when there is no slot.
    pub(crate) fn push_out(&mut self, r: OutRecord) -> bool {
        self.pit.n_out += 1;
        match self.out_at_mut(usize::from(self.pit.n_out) - 1) {
            Some(slot) => {
                *slot = r;
                true
            }
            None => {
                self.pit.n_out -= 1;
                false
            }
        }
    }

    /// Removes in-record `i`, moving the last one into its place.
    pub(crate) fn swap_remove_in(&mut self, i: usize) -> Option<InRecord> {
        let last = usize::from(self.pit.n_in).checked_sub(1)?;
        let moved = *self.view().in_at(last)?;
        let slot = self.in_at_mut(i)?;
        let removed = core::mem::replace(slot, moved);
        self.pit.n_in -= 1;
        Some(removed)
    }

    /// Removes out-record `i`, shifting the later ones down: out-records keep the order they
    /// were created in (`Pcct::expire` breaks send-time ties by it).
    pub(crate) fn remove_out(&mut self, i: usize) -> Option<OutRecord> {
        let removed = *self.view().out_at(i)?;
        for j in i + 1..usize::from(self.pit.n_out) {
            let next = *self.view().out_at(j)?;
            *self.out_at_mut(j - 1)? = next;
        }
        self.pit.n_out -= 1;
        Some(removed)
    }
}

/// Writes out-record `r` into an entry without a tail block, as `Recs` would (renews the
/// first record toward `r.face`, else appends one): false, with nothing changed, when the
/// entry has a tail block or its own out-records are all used. Always inlined into
/// `record_out`, which runs for every forwarded Interest.
#[inline(always)]
pub(crate) fn put_out_inline(pit: &mut PitEntry, r: OutRecord) -> bool {
    if pit.tail != NIL {
        return false;
    }
    let n = usize::from(pit.n_out);
    let Some(used) = pit.outs.get_mut(..n) else {
        return false;
    };
    if let Some(old) = used.iter_mut().find(|o| o.face == r.face) {
        *old = r;
        return true;
    }
    match pit.outs.get_mut(n) {
        Some(slot) => {
            *slot = r;
            pit.n_out += 1;
            true
        }
        None => false,
    }
}

/// Whether a record of one more can be stored in the entry itself.
pub(crate) fn fits_head(n: u8, out: bool) -> bool {
    usize::from(n) < if out { OUT_HEAD } else { IN_HEAD }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::{IN_EXT, IN_INLINE, MAX_IN_RECORDS, OUT_INLINE};

    fn rec(face: u32) -> InRecord {
        InRecord {
            face,
            ..InRecord::EMPTY
        }
    }

    fn pools() -> Pools {
        Pools {
            tails: Arena::with_capacity(2),
            exts: Arena::with_capacity(2),
        }
    }

    fn attach_tail(pit: &mut PitEntry, pools: &mut Pools) {
        pit.tail = pools.tails.alloc(Tail::EMPTY).ok().unwrap();
    }

    fn attach_ext(pit: &PitEntry, pools: &mut Pools) {
        let x = pools.exts.alloc(Ext::EMPTY).ok().unwrap();
        pools.tails.get_mut(pit.tail).unwrap().ext = x;
    }

    #[test]
    fn head_then_tail_then_extension_then_full() {
        let mut pools = pools();
        let mut pit = PitEntry::new(0, false, 0);
        {
            let mut r = Recs::new(&mut pit, &mut pools);
            for f in 0..IN_HEAD as u32 {
                assert!(r.push_in(rec(f)));
            }
            assert!(!r.push_in(rec(99)), "no tail attached yet");
        }
        attach_tail(&mut pit, &mut pools);
        {
            let mut r = Recs::new(&mut pit, &mut pools);
            for f in IN_HEAD as u32..IN_INLINE as u32 {
                assert!(r.push_in(rec(f)));
            }
            assert!(!r.push_in(rec(99)), "no extension attached yet");
            assert_eq!(r.view().n_in(), IN_INLINE);
        }
        attach_ext(&pit, &mut pools);
        let mut r = Recs::new(&mut pit, &mut pools);
        for f in IN_INLINE as u32..MAX_IN_RECORDS as u32 {
            assert!(r.push_in(rec(f)));
        }
        assert!(!r.push_in(rec(99)), "inline + {IN_EXT} is the bound");
        assert_eq!(r.view().in_position(13), Some(13));
        assert_eq!(r.swap_remove_in(1).map(|x| x.face), Some(1));
        assert_eq!(
            r.view().in_position(15),
            Some(1),
            "last moved into the hole"
        );
        assert_eq!(r.view().n_in(), MAX_IN_RECORDS - 1);
        let mut faces: Vec<u32> = r.view().ins().map(|x| x.face).collect();
        faces.sort_unstable();
        assert_eq!(faces, (0..16).filter(|&f| f != 1).collect::<Vec<_>>());
        assert!(r.swap_remove_in(40).is_none());
        assert_eq!(r.swap_remove_in(0).map(|x| x.face), Some(0), "the head's");
        assert_eq!(r.view().in_at(0).map(|x| x.face), Some(14));
    }

    /// The head-only shortcut of `Pcct::record_out` leaves an entry exactly as the general
    /// path (find the face's record and overwrite it, else push), and declines once the
    /// entry's own out-records are used up or a tail block is attached.
    #[test]
    fn put_out_inline_agrees_with_recs() {
        let mut pools = pools();
        let mut fast = PitEntry::new(0, false, 0);
        let mut slow = PitEntry::new(0, false, 0);
        attach_tail(&mut slow, &mut pools);
        let show = |p: &PitEntry, pools: &Pools| {
            View::new(p, pools)
                .outs()
                .map(|o| (o.face, o.nonce, o.sent))
                .collect::<Vec<_>>()
        };
        let faces = [7, 7, 3, 7, 9, 3, 1, 9, 4];
        let mut declined = 0;
        for (t, face) in faces.into_iter().enumerate() {
            let r = OutRecord {
                sent: t as u64,
                face,
                nonce: 100 + t as u32,
                ..OutRecord::EMPTY
            };
            let mut general = Recs::new(&mut slow, &mut pools);
            let done = match general.view().out_position(face) {
                Some(i) => general.out_at_mut(i).map(|o| *o = r).is_some(),
                None => general.push_out(r),
            };
            assert_eq!(done, t < 8, "step {t}: faces 7, 3, 9, 1; 4 did not fit");
            let before = show(&fast, &pools);
            if put_out_inline(&mut fast, r) {
                let want: Vec<_> = show(&slow, &pools).into_iter().take(OUT_HEAD).collect();
                assert_eq!(show(&fast, &pools), want, "step {t}");
            } else {
                declined += 1;
                assert_eq!(show(&fast, &pools), before, "step {t}: unchanged");
                assert!(fast.outs.iter().all(|o| o.face != face), "step {t}");
            }
        }
        assert_eq!(usize::from(slow.n_out), OUT_INLINE);
        assert_eq!(declined, faces.iter().filter(|&&f| f != 7).count());
        attach_tail(&mut fast, &mut pools);
        let again = OutRecord {
            face: 7,
            ..OutRecord::EMPTY
        };
        assert!(
            !put_out_inline(&mut fast, again),
            "tail attached: general path"
        );
    }

    #[test]
    fn out_records_keep_their_order_across_the_tail_and_extension() {
        let mut pools = pools();
        let mut pit = PitEntry::new(0, false, 0);
        attach_tail(&mut pit, &mut pools);
        attach_ext(&pit, &mut pools);
        let mut r = Recs::new(&mut pit, &mut pools);
        for face in 0..7 {
            let out = OutRecord {
                face,
                ..OutRecord::EMPTY
            };
            assert!(r.push_out(out));
        }
        // Records 3..7 shift down, 4 from the extension block into the tail, 1 from the tail
        // into the entry.
        assert_eq!(r.remove_out(2).map(|x| x.face), Some(2));
        assert_eq!(r.remove_out(5).map(|x| x.face), Some(6), "the last itself");
        let faces: Vec<u32> = r.view().outs().map(|x| x.face).collect();
        assert_eq!(faces, vec![0, 1, 3, 4, 5]);
        assert_eq!(r.remove_out(0).map(|x| x.face), Some(0));
        assert_eq!(r.view().out_at(0).map(|x| x.face), Some(1));
        assert!(r.remove_out(4).is_none());
        for _ in 0..4 {
            assert!(r.remove_out(0).is_some());
        }
        assert!(r.remove_out(0).is_none(), "empty");
    }
}
