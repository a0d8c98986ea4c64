//! Every `unsafe` line of the crate: the memory mapping, the arena's slot storage, the
//! prefetch instruction and the bucket's SSE2 fingerprint compare. The rest of the crate is
//! safe code built on these four.

pub(crate) mod arena;
pub(crate) mod mem;
pub(crate) mod prefetch;
pub(crate) mod scan;
