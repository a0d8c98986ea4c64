//! The in- and out-records of one PIT entry as two logical arrays: the first
//! [`IN_INLINE`]/[`OUT_INLINE`] live in the entry, the rest in its extension block (bounded
//! pool, attached by `Pcct::reserve_record` before a push). Records stay dense: removing an
//! in-record swaps the last one in (in-records are unordered); removing an out-record shifts
//! the later ones down (out-records stay in creation order).

use ndnfwd_table::Arena;

use crate::entry::{Ext, InRecord, OutRecord, PitEntry, IN_INLINE, OUT_INLINE};
use crate::list::NIL;

/// Read-only view of a PIT entry and its extension block.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pit: &'a PitEntry,
    ext: Option<&'a Ext>,
}

/// Mutable view of a PIT entry and its extension block.
pub(crate) struct Recs<'a> {
    pub(crate) pit: &'a mut PitEntry,
    ext: Option<&'a mut Ext>,
}

fn at<'a, T>(inline: &'a [T], ext: Option<&'a [T]>, n: usize, i: usize) -> Option<&'a T> {
    if i >= n {
        return None;
    }
    match i.checked_sub(inline.len()) {
        None => inline.get(i),
        Some(j) => ext?.get(j),
    }
}

fn at_mut<'a, T>(
    inline: &'a mut [T],
    ext: Option<&'a mut [T]>,
    n: usize,
    i: usize,
) -> Option<&'a mut T> {
    if i >= n {
        return None;
    }
    match i.checked_sub(inline.len()) {
        None => inline.get_mut(i),
        Some(j) => ext?.get_mut(j),
    }
}

impl<'a> View<'a> {
    /// The view of `pit` (its extension block is looked up in `exts`).
    pub(crate) fn new(pit: &'a PitEntry, exts: &'a Arena<Ext>) -> Self {
        Self {
            pit,
            ext: exts.get(pit.ext),
        }
    }

    pub(crate) fn n_in(&self) -> usize {
        usize::from(self.pit.n_in)
    }

    pub(crate) fn n_out(&self) -> usize {
        usize::from(self.pit.n_out)
    }

    pub(crate) fn in_at(&self, i: usize) -> Option<&'a InRecord> {
        at(&self.pit.ins, self.ext.map(|x| &x.ins[..]), self.n_in(), i)
    }

    pub(crate) fn out_at(&self, i: usize) -> Option<&'a OutRecord> {
        at(
            &self.pit.outs,
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
    /// The mutable view of `pit` (its extension block is looked up in `exts`).
    pub(crate) fn new(pit: &'a mut PitEntry, exts: &'a mut Arena<Ext>) -> Self {
        let ext = exts.get_mut(pit.ext);
        Self { pit, ext }
    }

    pub(crate) fn view(&self) -> View<'_> {
        View {
            pit: self.pit,
            ext: self.ext.as_deref(),
        }
    }

    pub(crate) fn in_at_mut(&mut self, i: usize) -> Option<&mut InRecord> {
        let n = usize::from(self.pit.n_in);
        let ext = self.ext.as_deref_mut().map(|x| &mut x.ins[..]);
        at_mut(&mut self.pit.ins, ext, n, i)
    }

    pub(crate) fn out_at_mut(&mut self, i: usize) -> Option<&mut OutRecord> {
        let n = usize::from(self.pit.n_out);
        let ext = self.ext.as_deref_mut().map(|x| &mut x.outs[..]);
        at_mut(&mut self.pit.outs, ext, n, i)
    }

    /// Appends an in-record; false when there is no slot (no extension block attached).
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

/// Writes out-record `r` into an entry without an extension block, as `Recs` would (renews
/// the first record toward `r.face`, else appends one): false, with nothing changed, when the
/// entry has an extension block or its inline out-records are all used. Always inlined
/// into `record_out`, which runs for every forwarded Interest.
#[inline(always)]
pub(crate) fn put_out_inline(pit: &mut PitEntry, r: OutRecord) -> bool {
    if pit.ext != NIL {
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

/// Whether a record of one more can be stored without an extension block.
pub(crate) fn fits_inline(n: u8, out: bool) -> bool {
    usize::from(n) < if out { OUT_INLINE } else { IN_INLINE }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::{IN_EXT, MAX_IN_RECORDS};

    fn rec(face: u32) -> InRecord {
        InRecord {
            face,
            ..InRecord::EMPTY
        }
    }

    #[test]
    fn inline_then_extension_then_full() {
        let mut exts: Arena<Ext> = Arena::with_capacity(1);
        let mut pit = PitEntry::new(0, false, 0);
        {
            let mut r = Recs::new(&mut pit, &mut exts);
            for f in 0..IN_INLINE as u32 {
                assert!(r.push_in(rec(f)));
            }
            assert!(!r.push_in(rec(99)), "no extension attached yet");
            assert_eq!(r.view().n_in(), IN_INLINE);
        }
        pit.ext = exts.alloc(Ext::EMPTY).ok().unwrap();
        let mut r = Recs::new(&mut pit, &mut exts);
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
    }

    /// The inline shortcut of `Pcct::record_out` leaves an entry exactly as the general path
    /// (find the face's record and overwrite it, else push), and declines once the inline
    /// records are used up or an extension block is attached.
    #[test]
    fn put_out_inline_agrees_with_recs() {
        let mut exts: Arena<Ext> = Arena::with_capacity(1);
        let mut fast = PitEntry::new(0, false, 0);
        let mut slow = PitEntry::new(0, false, 0);
        let faces = [7, 3, 7, 9, 3, 1, 9, 4];
        for (t, face) in faces.into_iter().enumerate() {
            let r = OutRecord {
                sent: t as u64,
                face,
                nonce: 100 + t as u32,
                ..OutRecord::EMPTY
            };
            let mut general = Recs::new(&mut slow, &mut exts);
            let done = match general.view().out_position(face) {
                Some(i) => general.out_at_mut(i).map(|o| *o = r).is_some(),
                None => general.push_out(r),
            };
            assert_eq!(put_out_inline(&mut fast, r), done, "step {t}");
            let show = |p: &PitEntry| {
                let v = View { pit: p, ext: None };
                v.outs()
                    .map(|o| (o.face, o.nonce, o.sent))
                    .collect::<Vec<_>>()
            };
            assert_eq!(show(&fast), show(&slow), "step {t}");
        }
        assert_eq!(
            usize::from(fast.n_out),
            OUT_INLINE,
            "faces 7, 3, 9, 1; 4 did not fit"
        );
        fast.ext = exts.alloc(Ext::EMPTY).ok().unwrap();
        let again = OutRecord {
            face: 7,
            ..OutRecord::EMPTY
        };
        assert!(
            !put_out_inline(&mut fast, again),
            "extension attached: general path"
        );
    }

    #[test]
    fn out_records_keep_their_order_across_the_extension() {
        let mut exts: Arena<Ext> = Arena::with_capacity(1);
        let mut pit = PitEntry::new(0, false, 0);
        pit.ext = exts.alloc(Ext::EMPTY).ok().unwrap();
        let mut r = Recs::new(&mut pit, &mut exts);
        for face in 0..7 {
            let out = OutRecord {
                face,
                ..OutRecord::EMPTY
            };
            assert!(r.push_out(out));
        }
        // Records 3..7 shift down, 4 from the extension block into the inline array.
        assert_eq!(r.remove_out(2).map(|x| x.face), Some(2));
        assert_eq!(r.remove_out(5).map(|x| x.face), Some(6), "the last itself");
        let faces: Vec<u32> = r.view().outs().map(|x| x.face).collect();
        assert_eq!(faces, vec![0, 1, 3, 4, 5]);
        assert!(r.remove_out(5).is_none());
        for _ in 0..5 {
            assert!(r.remove_out(0).is_some());
        }
        assert!(r.remove_out(0).is_none(), "empty");
    }
}
