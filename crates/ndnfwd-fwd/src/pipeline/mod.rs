//! The forwarding pipelines, named after NFD's (`daemon/fw/forwarder.cpp`), as `impl` blocks on
//! the engine core: incoming Interest and its CS hit / CS miss / loop branches, outgoing
//! Interest, Interest finalize, incoming and outgoing Data, unsolicited Data, incoming and
//! outgoing Nack. Every early return is a drop with its own counter.

mod data;
mod interest;
mod nack;

pub(crate) use interest::interest_info;

use ndn_packet::interest::{Guiders, Interest};
use ndn_packet::link::RxPacket;

use crate::engine::Core;
use crate::out::Wire;

impl Core {
    /// The Interest `rx` (whose view is `interest`; the packet in the pipelines) as a Nack to a
    /// downstream must carry it: with that downstream's own `nonce` (aggregated downstreams
    /// sent different ones, and a Nack whose Nonce is not the one sent is dropped). The
    /// received buffer when it already has it: moved into the first such Nack (`taken` then
    /// set), cloned for the others.
    pub(crate) fn nack_wire(
        &mut self,
        interest: &Interest<'_>,
        rx: &RxPacket,
        nonce: u32,
        taken: &mut bool,
    ) -> Wire {
        let nonce = nonce.to_be_bytes();
        if interest.nonce() == Some(nonce) {
            if core::mem::replace(taken, true) {
                return Wire::Own(rx.wire.clone());
            }
            return Wire::Received(self.at);
        }
        let g = Guiders {
            nonce: Some(nonce),
            ..Guiders::default()
        };
        Wire::Own(self.tx.write(|v| interest.write_with_guiders(&g, v)))
    }
}
