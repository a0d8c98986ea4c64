//! `/localhost/nfd/strategy/multicast`.

use super::{Actions, InterestCtx, Strategy};
use ndn_packet::lp::NackReason;

/// Multicast: every eligible nexthop (all but the incoming face, scope permitting) gets the
/// Interest, new or retransmitted. With no eligible nexthop a new Interest is answered with
/// Nack NoRoute, like best-route (NFD's multicast silently rejects it; a Nack tells the
/// consumer at once instead of after the lifetime).
#[derive(Debug, Default, Clone)]
pub struct Multicast {}

impl Multicast {
    /// A multicast instance.
    pub fn new() -> Self {
        Self {}
    }
}

impl Strategy for Multicast {
    fn name(&self) -> &'static str {
        "/localhost/nfd/strategy/multicast"
    }

    fn version(&self) -> u64 {
        4
    }

    fn after_receive_interest(&mut self, ctx: &InterestCtx<'_>, act: &mut Actions) {
        for nh in ctx.nexthops.iter().filter(|nh| ctx.is_eligible(nh, false)) {
            if !act.send_interest(nh.face) {
                break;
            }
        }
        if act.sends().is_empty() && !ctx.retransmission {
            act.nack_downstreams(NackReason::NoRoute);
        }
    }
}
