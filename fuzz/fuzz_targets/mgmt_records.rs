//! Status datasets: the first byte picks a record type, the rest is a dataset. Whatever decodes
//! re-encodes to a dataset that decodes to equal records.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndnfwd_mgmt::records::{
    decode_records, ChannelStatus, CsInfo, FaceEventNotification, FaceStatus, FibEntry,
    FaceQueryFilter, Record, RibEntry, StrategyChoice,
};

fn round_trip<T: Record + PartialEq + core::fmt::Debug>(content: &[u8]) {
    let Ok(records) = decode_records::<T>(content) else {
        return;
    };
    let mut wire = Vec::new();
    for r in &records {
        r.encode_to(&mut wire);
    }
    let again = decode_records::<T>(&wire).expect("encoded records decode");
    assert_eq!(records, again);
}

fuzz_target!(|data: &[u8]| {
    let Some((&kind, content)) = data.split_first() else {
        return;
    };
    match kind % 8 {
        0 => round_trip::<FaceStatus>(content),
        1 => round_trip::<ChannelStatus>(content),
        2 => round_trip::<FibEntry>(content),
        3 => round_trip::<RibEntry>(content),
        4 => round_trip::<StrategyChoice>(content),
        5 => round_trip::<FaceQueryFilter>(content),
        6 => round_trip::<CsInfo>(content),
        _ => round_trip::<FaceEventNotification>(content),
    }
});
