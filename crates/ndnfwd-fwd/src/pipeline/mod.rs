//! The forwarding pipelines, named after NFD's (`daemon/fw/forwarder.cpp`), as `impl` blocks on
//! the engine core: incoming Interest and its CS hit / CS miss / loop branches, outgoing
//! Interest, Interest finalize, incoming and outgoing Data, unsolicited Data, incoming and
//! outgoing Nack. Every early return is a drop with its own counter.

mod data;
mod interest;
mod nack;

pub(crate) use interest::interest_info;

use bytes::Bytes;
use ndn_packet::interest::{Guiders, Interest};

use crate::engine::Core;

impl Core {
    /// The Interest `wire` (whose view is `interest`) as a Nack to a downstream must carry it:
    /// with that downstream's own `nonce` (aggregated downstreams sent different ones, and a
    /// Nack whose Nonce is not the one sent is dropped). The same buffer when it already has it.
    pub(crate) fn nack_wire(&mut self, interest: &Interest<'_>, wire: &Bytes, nonce: u32) -> Bytes {
        let nonce = nonce.to_be_bytes();
        if interest.nonce() == Some(nonce) {
            return wire.clone();
        }
        let g = Guiders {
            nonce: Some(nonce),
            ..Guiders::default()
        };
        self.tx.write(|v| interest.write_with_guiders(&g, v))
    }
}
