//! Every `unsafe` line of the crate: the memory mapping, the arena's slot storage and the
//! prefetch instruction. The rest of the crate is safe code built on these three.

pub(crate) mod arena;
pub(crate) mod mem;
pub(crate) mod prefetch;
