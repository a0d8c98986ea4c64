//! Cache-line bucket hash table and index arena shared by the FIB and the PIT-CS.
//!
//! Contract: [`BucketTable`] maps a caller-computed 64-bit keyed hash to `u32` indices; it never
//! hashes and never sees keys. Each 64-byte bucket holds seven (32-bit fingerprint, 32-bit index)
//! slots, so a lookup costs one cache line unless the bucket overflowed (seed 000 §2.2, seed 001
//! §3.2); a fingerprint match is only a candidate, confirmed by the caller's `eq(index)` closure
//! against its own entry, which lives in an [`Arena`] (fixed capacity, `u32` indices, handed back
//! when full). Readers are lock-free and may run on many threads while the single holder of the
//! table's [`TableWriter`] inserts and removes; a key that stays in the table is always found.
//! A reader may still return an index that is being removed: the caller reclaims the entry behind
//! an index only after readers have quiesced. Memory is mapped once (huge pages where the OS
//! allows) and never grows; a full overflow pool is reported as [`TableFull`]. All `unsafe` lives
//! in `src/raw/`. [`prefetch_read`] is the project's one prefetch helper.
//!
//! ```
//! use ndnfwd_table::{Arena, BucketTable};
//!
//! let mut names: Arena<&str> = Arena::with_capacity(1024);
//! let table = BucketTable::with_capacity(1024, 4);
//! let mut writer = table.take_writer().expect("first and only writer");
//!
//! let hash = 0x1234_5678_9abc_def0; // from the keyed name hasher in real code
//! let i = names.alloc("/ndn/edu").unwrap();
//! table.insert(&mut writer, hash, i).unwrap();
//!
//! table.prefetch(hash); // early, e.g. one burst group ahead
//! let found = table.lookup(hash, |i| names.get(i) == Some(&"/ndn/edu"));
//! assert_eq!(found, Some(i));
//! assert!(table.remove(&mut writer, hash, i));
//! assert_eq!(table.lookup(hash, |_| true), None);
//! ```
#![deny(unsafe_code)]

mod bucket;
#[allow(unsafe_code)]
mod raw;
mod table;

pub use bucket::{fingerprint, SlotRef, BUCKET_BYTES};
pub use raw::arena::Arena;
pub use raw::mem::{MaskedSlice, ZeroValid, ZeroedSlice};
pub use raw::prefetch::prefetch_read;
pub use table::{
    default_overflow_buckets, BucketTable, Flat, Layout, Paged, Place, TableFull, TableWriter,
    DEFAULT_LOAD_FACTOR, MAX_LOAD_FACTOR, MAX_RETRIES,
};

/// Memory for a table or arena could not be mapped (or its size overflows `usize`/`u32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocError {
    /// Bytes requested (`usize::MAX` when the size computation itself overflowed).
    pub bytes: usize,
}

impl core::fmt::Display for AllocError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "cannot map {} bytes", self.bytes)
    }
}

impl std::error::Error for AllocError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn public_types_are_send_sync() {
        assert_send_sync::<BucketTable>();
        assert_send_sync::<TableWriter>();
        assert_send_sync::<Arena<u64>>();
    }
}
