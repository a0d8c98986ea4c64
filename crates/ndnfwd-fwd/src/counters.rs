//! Per-engine counters. Every drop has its own named counter, whose name is also its stable log
//! and metrics key; the PIT-CS keeps its own table counters (hits, evictions, ...) next to these.

macro_rules! counters {
    ($( $(#[$doc:meta])* $name:ident ),* $(,)?) => {
        /// Forwarding counters of one engine. Plain integers: an engine is owned by one thread;
        /// management reads a copy.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct Counters {
            $( $(#[$doc])* pub $name: u64, )*
        }

        impl Counters {
            /// Every counter with its stable key, in declaration order.
            pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> {
                [$( (stringify!($name), self.$name), )*].into_iter()
            }

            /// Adds every counter of `other` (to aggregate workers).
            pub fn add(&mut self, other: &Counters) {
                $( self.$name += other.$name; )*
            }
        }
    };
}

counters! {
    /// Interests received.
    rx_interest,
    /// Data received.
    rx_data,
    /// Nacks received.
    rx_nack,
    /// Interests sent.
    tx_interest,
    /// Data sent.
    tx_data,
    /// Nacks sent.
    tx_nack,
    /// Drop: the network packet did not decode (or was neither Interest nor Data).
    bad_packet,
    /// Drop: a packet from a face the engine does not know.
    unknown_face,
    /// Drop: Interest with HopLimit 0.
    hop_limit_zero,
    /// Drop: a `/localhost` Interest or Data received on a non-local face.
    localhost_violation_in,
    /// Drop: a `/localhost` Data that would go out of a non-local face.
    localhost_violation_out,
    /// Drop (or Nack Duplicate on point-to-point faces): Interest loop, duplicate Nonce.
    dup_nonce,
    /// Content store hits (answered from the CS).
    cs_hit,
    /// Content store misses (Interest goes to the PIT).
    cs_miss,
    /// Interests aggregated into an existing PIT entry.
    aggregated,
    /// Drop: retransmission inside the suppression interval.
    retx_suppressed,
    /// PIT full: answered with Nack Congestion.
    pit_full,
    /// The face holds its quota of PIT entries (`EngineConfig::pit_face_quota`): answered with
    /// Nack Congestion.
    pit_face_quota,
    /// No eligible nexthop: answered with Nack NoRoute.
    no_route,
    /// Drop: NextHopFaceId named an unknown face.
    next_hop_unknown,
    /// Drop (per upstream): an Interest whose HopLimit reached 0 would go to a non-local face.
    hop_limit_zero_out,
    /// Drop (per upstream): the PIT entry has no room for another out-record.
    out_records_full,
    /// PIT entries finalized after being satisfied.
    satisfied,
    /// PIT entries that expired unsatisfied (Interest finalize).
    unsatisfied,
    /// Drop (unless the unsolicited-Data policy caches it): Data matching no PIT entry.
    unsolicited_data,
    /// Drop: Nack matching no PIT entry, or no un-Nacked out-record toward its face with its
    /// Nonce.
    nack_unmatched,
    /// Drop: Nack received on, or toward, a multi-access or ad hoc face.
    nack_multi_access,
    /// Drop: a packet toward a face removed while its PIT entry was pending.
    face_gone,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iter_and_add() {
        let mut a = Counters {
            pit_full: 2,
            ..Counters::default()
        };
        let b = Counters {
            pit_full: 3,
            rx_data: 1,
            ..Counters::default()
        };
        a.add(&b);
        let m: std::collections::HashMap<_, _> = a.iter().collect();
        assert_eq!(m["pit_full"], 5);
        assert_eq!(m["rx_data"], 1);
        assert_eq!(m["dup_nonce"], 0);
        assert_eq!(a.iter().count(), m.len());
    }
}
