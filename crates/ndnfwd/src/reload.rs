//! SIGHUP: re-read the configuration file given with `--config`.
//!
//! The whole file is checked exactly as at start-up. An invalid file is rejected with the
//! message that names its key (`event=reload_rejected`) and the running configuration stays.
//! A valid one applies what a running forwarder can change safely, the log level
//! (`event=reloaded`); sections whose other keys changed are listed as needing a restart
//! (`event=reload_needs_restart`), never half-applied.

use std::path::PathBuf;

use crate::config;

/// The configuration file and the text the running configuration came from.
#[derive(Debug)]
pub struct Reloader {
    path: Option<PathBuf>,
    running: toml::Table,
}

/// The top-level sections of `text` (an unparsable text has none: it was checked before).
fn sections(text: &str) -> toml::Table {
    text.parse::<toml::Table>().unwrap_or_default()
}

impl Reloader {
    /// A reloader for `path`, whose running configuration came from `text`.
    pub fn new(path: Option<PathBuf>, text: &str) -> Self {
        Self {
            path,
            running: sections(text),
        }
    }

    /// Re-reads the file and applies it; every outcome is logged. Returns whether the new
    /// file was accepted.
    pub fn reload(&mut self) -> bool {
        let Some(path) = &self.path else {
            log::warn!("event=reload_skipped reason=no_config_file");
            return false;
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                log::error!(
                    "event=reload_rejected file={} error=\"cannot read: {e}\"",
                    path.display()
                );
                return false;
            }
        };
        let cfg = match config::parse(&text) {
            Ok(c) => c,
            Err(e) => {
                log::error!(
                    "event=reload_rejected file={} key={} error=\"{e}\" running=unchanged",
                    path.display(),
                    e.key
                );
                return false;
            }
        };
        let new = sections(&text);
        let mut restart: Vec<&str> = new
            .iter()
            .filter(|(k, v)| k.as_str() != "log" && self.running.get(k.as_str()) != Some(v))
            .map(|(k, _)| k.as_str())
            .chain(
                self.running
                    .keys()
                    .filter(|k| k.as_str() != "log" && !new.contains_key(k.as_str()))
                    .map(String::as_str),
            )
            .collect();
        restart.sort_unstable();
        restart.dedup();
        if !restart.is_empty() {
            log::warn!(
                "event=reload_needs_restart sections={} applied=log",
                restart.join(",")
            );
        }
        log::set_max_level(cfg.log_level);
        log::warn!(
            "event=reloaded file={} log_level={}",
            path.display(),
            cfg.log_level
        );
        // Only the log section is live; the rest keeps running as started.
        match new.get("log") {
            Some(l) => self.running.insert("log".into(), l.clone()),
            None => self.running.remove("log"),
        };
        true
    }
}
