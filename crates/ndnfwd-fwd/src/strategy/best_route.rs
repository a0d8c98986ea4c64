//! `/localhost/nfd/strategy/best-route` (NFD best-route v5 semantics).

use super::{Actions, InterestCtx, Strategy};
use ndn_packet::lp::NackReason;

/// Best-route: a new Interest goes to the lowest-cost eligible nexthop (Nack NoRoute when there
/// is none); a retransmission goes to the lowest-cost eligible nexthop not yet tried (no
/// unexpired out-record), else to the eligible one tried longest ago. Never back to the
/// downstream face (unless ad hoc).
#[derive(Debug, Default, Clone)]
pub struct BestRoute {}

impl BestRoute {
    /// A best-route instance.
    pub fn new() -> Self {
        Self {}
    }
}

impl Strategy for BestRoute {
    fn name(&self) -> &'static str {
        "/localhost/nfd/strategy/best-route"
    }

    fn version(&self) -> u64 {
        5
    }

    fn new_interest_to_first_eligible(&self) -> bool {
        true
    }

    fn after_receive_interest(&mut self, ctx: &InterestCtx<'_>, act: &mut Actions) {
        if !ctx.retransmission {
            match ctx.nexthops.iter().find(|nh| ctx.is_eligible(nh, false)) {
                Some(nh) => {
                    act.send_interest(nh.face);
                }
                None => act.nack_downstreams(NackReason::NoRoute),
            }
            return;
        }
        if let Some(nh) = ctx.nexthops.iter().find(|nh| ctx.is_eligible(nh, true)) {
            act.send_interest(nh.face);
            return;
        }
        // Every eligible upstream was tried and is still pending: retry the one used earliest.
        let earliest = ctx
            .nexthops
            .iter()
            .filter(|nh| ctx.is_eligible(nh, false))
            .min_by_key(|nh| ctx.out_record(nh.face).map_or(0, |o| o.sent));
        if let Some(nh) = earliest {
            act.send_interest(nh.face);
        }
        // No eligible nexthop at all for a retransmission: the entry keeps waiting (NFD logs
        // "retransmit-no-nexthop" and does nothing).
    }
}
