//! Metrics text (Prometheus exposition format 0.0.4) and the JSON status document, both built
//! from what the backend reports.
//!
//! The backend hands over generic samples (name, labels, value): per-face and per-worker
//! counters, PIT and CS sizes, drops by reason. Rendering groups samples by metric name in
//! first-seen order with one `# HELP` and `# TYPE` line each, replaces characters that are not
//! allowed in metric and label names with `_`, and escapes label values.

use core::fmt::Write as _;

use serde::Serialize;

use crate::backend::MgmtBackend;
use crate::dispatch::MgmtCounters;
use crate::records::{
    ChannelStatus, CsInfo, FaceStatus, FibEntry, GeneralStatus, RibEntry, StrategyChoice,
};

/// Prometheus metric type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// Monotonic count.
    Counter,
    /// Value that goes up and down (table sizes).
    Gauge,
}

/// One sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// Metric name (`ndnfwd_face_in_interests_total`).
    pub name: String,
    /// One-line description.
    pub help: &'static str,
    /// Counter or gauge.
    pub kind: MetricKind,
    /// Label pairs (`face="300"`, `reason="no_route"`).
    pub labels: Vec<(String, String)>,
    /// Value.
    pub value: u64,
}

impl Sample {
    /// A sample without labels.
    pub fn new(name: impl Into<String>, help: &'static str, kind: MetricKind, value: u64) -> Self {
        Self {
            name: name.into(),
            help,
            kind,
            labels: Vec::new(),
            value,
        }
    }

    /// The same sample with one more label.
    pub fn label(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.labels.push((key.into(), value.into()));
        self
    }
}

/// A metric or label name with disallowed characters replaced (`[a-zA-Z_:][a-zA-Z0-9_:]*`;
/// colons are not allowed in label names).
fn sanitize(name: &str, allow_colon: bool) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || (allow_colon && c == ':') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn escape_label_value(v: &str, out: &mut String) {
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

/// Renders samples as Prometheus text exposition.
pub fn render_prometheus(samples: &[Sample]) -> String {
    let mut names: Vec<String> = Vec::new();
    let mut groups: Vec<Vec<&Sample>> = Vec::new();
    for s in samples {
        let name = sanitize(&s.name, true);
        match names.iter().position(|n| *n == name) {
            Some(i) => {
                if let Some(g) = groups.get_mut(i) {
                    g.push(s);
                }
            }
            None => {
                names.push(name);
                groups.push(vec![s]);
            }
        }
    }
    let mut out = String::with_capacity(samples.len() * 64);
    for (name, group) in names.iter().zip(&groups) {
        let Some(first) = group.first() else { continue };
        let kind = match first.kind {
            MetricKind::Counter => "counter",
            MetricKind::Gauge => "gauge",
        };
        let help = first.help.replace('\\', "\\\\").replace('\n', "\\n");
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} {kind}");
        for s in group {
            out.push_str(name);
            if !s.labels.is_empty() {
                out.push('{');
                for (i, (k, v)) in s.labels.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&sanitize(k, false));
                    out.push_str("=\"");
                    escape_label_value(v, &mut out);
                    out.push('"');
                }
                out.push('}');
            }
            let _ = writeln!(out, " {}", s.value);
        }
    }
    out
}

/// All metrics: the backend's samples followed by management's own counters.
pub fn render_metrics(backend: &dyn MgmtBackend, counters: &MgmtCounters) -> String {
    let mut samples = Vec::with_capacity(256);
    backend.metrics(&mut samples);
    counters.samples(&mut samples);
    render_prometheus(&samples)
}

/// The JSON status document served at `/status`.
#[derive(Debug, Clone, Serialize)]
pub struct StatusDocument {
    /// Version, uptime and global counters.
    pub general: GeneralStatus,
    /// Faces with their counters.
    pub faces: Vec<FaceStatus>,
    /// Listening channels.
    pub channels: Vec<ChannelStatus>,
    /// FIB entries.
    pub fib: Vec<FibEntry>,
    /// RIB entries.
    pub rib: Vec<RibEntry>,
    /// Strategy choices.
    pub strategy_choices: Vec<StrategyChoice>,
    /// Content store.
    pub cs: CsInfo,
    /// Management counters.
    pub mgmt: MgmtCounters,
}

impl StatusDocument {
    /// Collects the document from the backend at Unix time `unix_ms`.
    pub fn collect(backend: &dyn MgmtBackend, counters: &MgmtCounters, unix_ms: u64) -> Self {
        let mut general = backend.general_status();
        general.current_timestamp = unix_ms;
        Self {
            general,
            faces: backend.faces(),
            channels: backend.channels(),
            fib: backend.fib(),
            rib: backend.rib(),
            strategy_choices: backend.strategy_choices(),
            cs: backend.cs_info(),
            mgmt: counters.clone(),
        }
    }

    /// Pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_escapes_and_sanitizes() {
        let samples = vec![
            Sample::new(
                "ndnfwd_face_in_interests_total",
                "Interests received",
                MetricKind::Counter,
                5,
            )
            .label("face", "300"),
            Sample::new("ndnfwd_pit_entries", "PIT size", MetricKind::Gauge, 7)
                .label("worker", "0"),
            Sample::new(
                "ndnfwd_face_in_interests_total",
                "Interests received",
                MetricKind::Counter,
                6,
            )
            .label("face", "301")
            .label("uri", "udp4://a\"b\\c\nd"),
            Sample::new("9bad-name", "x", MetricKind::Gauge, 1).label("bad key", "v"),
        ];
        let text = render_prometheus(&samples);
        let expected = "\
# HELP ndnfwd_face_in_interests_total Interests received
# TYPE ndnfwd_face_in_interests_total counter
ndnfwd_face_in_interests_total{face=\"300\"} 5
ndnfwd_face_in_interests_total{face=\"301\",uri=\"udp4://a\\\"b\\\\c\\nd\"} 6
# HELP ndnfwd_pit_entries PIT size
# TYPE ndnfwd_pit_entries gauge
ndnfwd_pit_entries{worker=\"0\"} 7
# HELP _9bad_name x
# TYPE _9bad_name gauge
_9bad_name{bad_key=\"v\"} 1
";
        assert_eq!(text, expected);
        assert_eq!(render_prometheus(&[]), "");
    }
}
