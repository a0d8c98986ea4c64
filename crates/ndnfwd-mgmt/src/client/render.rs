//! Human-readable tables and JSON for `ndnfwd ctl` output.

use core::fmt::Write as _;

use serde::Serialize;

use crate::records::{
    cs_flags, route_flags, ChannelStatus, CsInfo, FaceStatus, FibEntry, GeneralStatus, RibEntry,
    StrategyChoice,
};
use crate::response::ControlResponse;

/// Left-aligned columns separated by two spaces, with a header row.
fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut l = String::new();
        for (i, (cell, w)) in cells.zip(&widths).enumerate() {
            if i > 0 {
                l.push_str("  ");
            }
            let _ = write!(l, "{cell:<w$}");
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(&mut headers.iter().copied());
    for row in rows {
        line(&mut row.iter().map(String::as_str));
    }
    out
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

/// `status/general` as `key=value` lines (nfdc's layout).
pub fn status_text(s: &GeneralStatus) -> String {
    let uptime_s = s.current_timestamp.saturating_sub(s.start_timestamp) / 1000;
    format!(
        "General forwarder status:\n\
         \x20 version={}\n  startTime={}\n  currentTime={}\n  uptime={uptime_s} seconds\n\
         \x20 nNameTreeEntries={}\n  nFibEntries={}\n  nPitEntries={}\n  nMeasurementsEntries={}\n\
         \x20 nCsEntries={}\n  nInInterests={}\n  nOutInterests={}\n  nInData={}\n  nOutData={}\n\
         \x20 nInNacks={}\n  nOutNacks={}\n  nSatisfiedInterests={}\n  nUnsatisfiedInterests={}\n",
        s.nfd_version,
        s.start_timestamp,
        s.current_timestamp,
        s.n_name_tree_entries,
        s.n_fib_entries,
        s.n_pit_entries,
        s.n_measurements_entries,
        s.n_cs_entries,
        s.n_in_interests,
        s.n_out_interests,
        s.n_in_data,
        s.n_out_data,
        s.n_in_nacks,
        s.n_out_nacks,
        s.n_satisfied_interests,
        s.n_unsatisfied_interests,
    )
}

/// `faces/list` as a table.
pub fn faces_table(faces: &[FaceStatus]) -> String {
    let rows: Vec<Vec<String>> = faces
        .iter()
        .map(|f| {
            let c = &f.counters;
            vec![
                f.face_id.to_string(),
                f.uri.clone(),
                f.local_uri.clone(),
                f.face_scope.to_string(),
                f.face_persistency.to_string(),
                f.link_type.to_string(),
                opt(f.mtu),
                format!("{}i {}d {}n", c.n_in_interests, c.n_in_data, c.n_in_nacks),
                format!(
                    "{}i {}d {}n",
                    c.n_out_interests, c.n_out_data, c.n_out_nacks
                ),
                format!("{}/{}", c.n_in_bytes, c.n_out_bytes),
            ]
        })
        .collect();
    table(
        &[
            "FACEID",
            "REMOTE",
            "LOCAL",
            "SCOPE",
            "PERSISTENCY",
            "LINK",
            "MTU",
            "IN",
            "OUT",
            "BYTES IN/OUT",
        ],
        &rows,
    )
}

/// `faces/channels` as a table.
pub fn channels_table(channels: &[ChannelStatus]) -> String {
    let rows: Vec<Vec<String>> = channels.iter().map(|c| vec![c.local_uri.clone()]).collect();
    table(&["CHANNEL"], &rows)
}

fn route_flags_text(flags: u64) -> String {
    let mut v = Vec::new();
    if flags & route_flags::CHILD_INHERIT != 0 {
        v.push("child-inherit");
    }
    if flags & route_flags::CAPTURE != 0 {
        v.push("capture");
    }
    if v.is_empty() {
        "-".into()
    } else {
        v.join(",")
    }
}

/// `rib/list` as a table, one row per route.
pub fn routes_table(rib: &[RibEntry]) -> String {
    let rows: Vec<Vec<String>> = rib
        .iter()
        .flat_map(|e| {
            e.routes.iter().map(move |r| {
                vec![
                    e.name.to_string(),
                    r.face_id.to_string(),
                    r.origin.to_string(),
                    r.cost.to_string(),
                    route_flags_text(r.flags),
                    r.expiration_period
                        .map_or_else(|| "never".into(), |ms| format!("{ms}ms")),
                ]
            })
        })
        .collect();
    table(
        &["PREFIX", "NEXTHOP", "ORIGIN", "COST", "FLAGS", "EXPIRES"],
        &rows,
    )
}

/// `fib/list` as a table, one row per entry.
pub fn fib_table(fib: &[FibEntry]) -> String {
    let rows: Vec<Vec<String>> = fib
        .iter()
        .map(|e| {
            let hops: Vec<String> = e
                .next_hops
                .iter()
                .map(|h| format!("{} ({})", h.face_id, h.cost))
                .collect();
            vec![e.name.to_string(), hops.join(", ")]
        })
        .collect();
    table(&["PREFIX", "NEXTHOPS (COST)"], &rows)
}

/// `strategy-choice/list` as a table.
pub fn strategies_table(choices: &[StrategyChoice]) -> String {
    let rows: Vec<Vec<String>> = choices
        .iter()
        .map(|c| vec![c.name.to_string(), c.strategy.to_string()])
        .collect();
    table(&["PREFIX", "STRATEGY"], &rows)
}

/// `cs/info` as `key=value` lines.
pub fn cs_text(cs: &CsInfo) -> String {
    let on = |bit: u32| {
        if cs.flags >> bit & 1 == 1 {
            "on"
        } else {
            "off"
        }
    };
    format!(
        "CS information:\n  capacity={}\n  admit={}\n  serve={}\n  nEntries={}\n  nHits={}\n  nMisses={}\n",
        cs.capacity,
        on(cs_flags::ENABLE_ADMIT),
        on(cs_flags::ENABLE_SERVE),
        cs.n_cs_entries,
        cs.n_hits,
        cs.n_misses
    )
}

/// A command's answer: the status, then the body's fields.
pub fn response_text(r: &ControlResponse) -> String {
    let mut out = format!("{} {}\n", r.code, r.text);
    if let Some(b) = &r.body {
        if let Ok(serde_json::Value::Object(m)) = serde_json::to_value(b) {
            for (k, v) in m {
                let v = match v {
                    serde_json::Value::String(s) => s,
                    v => v.to_string(),
                };
                let _ = writeln!(out, "  {k}={v}");
            }
        }
    }
    out
}

/// Any record, list or response as pretty JSON.
pub fn to_json<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into())
}
