//! `real:PATH`: FIB prefixes from a name file (one NDN URI per line, plain or gzip), Interests
//! made by appending 1 to 3 components from the file's own component vocabulary.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use flate2::bufread::MultiGzDecoder;
use ndn_packet::Name;
use serde::Serialize;

use crate::popularity::{Picker, Popularity};
use crate::rng::{Stream, Tag};
use crate::{NameSource, WorkloadError};

/// The two bytes that open every gzip member.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// What loading a name file found. Every line is counted exactly once as a name, a duplicate, a
/// bad line or a blank line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct LoadReport {
    /// Lines read.
    pub lines: u64,
    /// Distinct names kept as prefixes.
    pub names: u64,
    /// Lines repeating an earlier name (skipped).
    pub duplicates: u64,
    /// Lines that are not valid UTF-8, not an NDN URI, or the root name `/` (skipped).
    pub bad_lines: u64,
    /// Empty or whitespace-only lines (skipped).
    pub blank_lines: u64,
    /// Distinct components (type and value) of the kept names.
    pub vocabulary: u64,
}

/// Many byte strings in one buffer, addressed by 32-bit end offsets.
#[derive(Debug, Clone, Default)]
struct Packed {
    bytes: Vec<u8>,
    ends: Vec<u32>,
}

impl Packed {
    fn push(&mut self, item: &[u8]) -> Result<(), WorkloadError> {
        self.bytes.extend_from_slice(item);
        let end = u32::try_from(self.bytes.len()).map_err(|_| WorkloadError::TooLarge)?;
        self.ends.push(end);
        Ok(())
    }

    fn len(&self) -> u64 {
        self.ends.len() as u64
    }

    /// Item `i mod len` (empty when there are no items).
    fn get(&self, i: u64) -> &[u8] {
        let Some(i) = i.checked_rem(self.len()).map(|i| i as usize) else {
            return &[];
        };
        let start = i
            .checked_sub(1)
            .and_then(|p| self.ends.get(p))
            .map_or(0, |&e| e as usize);
        let end = self.ends.get(i).map_or(start, |&e| e as usize);
        self.bytes.get(start..end).unwrap_or_default()
    }
}

/// The `real` workload: names loaded once into two packed buffers (prefixes and the component
/// vocabulary), so a few hundred thousand names cost one allocation each, not one per name.
#[derive(Debug, Clone)]
pub struct Real {
    names: Packed,
    vocabulary: Packed,
    seed: u64,
    picker: Picker,
    report: LoadReport,
}

impl Real {
    /// Loads `path` (gzip when it starts with the gzip magic, whatever its extension), keeping at
    /// most `limit` distinct names.
    pub fn load(
        path: &Path,
        limit: Option<u64>,
        seed: u64,
        popularity: Popularity,
    ) -> Result<Self, WorkloadError> {
        Self::from_reader(File::open(path)?, limit, seed, popularity)
    }

    /// Like [`Real::load`], from any reader.
    pub fn from_reader(
        reader: impl Read,
        limit: Option<u64>,
        seed: u64,
        popularity: Popularity,
    ) -> Result<Self, WorkloadError> {
        let mut input = BufReader::new(reader);
        let (names, vocabulary, report) = if input.fill_buf()?.starts_with(&GZIP_MAGIC) {
            parse(BufReader::new(MultiGzDecoder::new(input)), limit)?
        } else {
            parse(input, limit)?
        };
        if names.len() == 0 {
            return Err(WorkloadError::NoPrefixes);
        }
        Ok(Self {
            picker: Picker::new(names.len(), popularity, seed),
            names,
            vocabulary,
            seed,
            report,
        })
    }

    /// What the loader kept and skipped.
    pub fn report(&self) -> LoadReport {
        self.report
    }
}

fn parse(
    mut input: impl BufRead,
    limit: Option<u64>,
) -> Result<(Packed, Packed, LoadReport), WorkloadError> {
    let limit = limit.unwrap_or(u64::MAX);
    let (mut names, mut vocabulary) = (Packed::default(), Packed::default());
    let (mut seen_names, mut seen_components) = (HashSet::new(), HashSet::new());
    let mut report = LoadReport::default();
    let mut line = Vec::new();
    while report.names < limit {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        report.lines += 1;
        let Ok(text) = std::str::from_utf8(&line) else {
            report.bad_lines += 1;
            continue;
        };
        let text = text.trim();
        if text.is_empty() {
            report.blank_lines += 1;
            continue;
        }
        // The name files come from URLs, whose components may hold a raw '=' (`package=Iso`).
        // The NDN URI scheme reads `label=` as a typed component, so such a line is retried
        // with '=' escaped; the URI parser itself stays strict.
        let parsed = Name::from_uri(text).or_else(|e| {
            if text.contains('=') {
                Name::from_uri(&text.replace('=', "%3D"))
            } else {
                Err(e)
            }
        });
        let name = match parsed {
            Ok(name) if !name.is_empty() => name,
            _ => {
                report.bad_lines += 1;
                continue;
            }
        };
        if !seen_names.insert(name.value().to_vec()) {
            report.duplicates += 1;
            continue;
        }
        names.push(name.value())?;
        report.names += 1;
        for c in name.as_ref().components() {
            if seen_components.insert(c.wire().to_vec()) {
                vocabulary.push(c.wire())?;
            }
        }
    }
    report.vocabulary = vocabulary.len();
    Ok((names, vocabulary, report))
}

impl NameSource for Real {
    fn prefix_count(&self) -> u64 {
        self.names.len()
    }

    /// Indices wrap around modulo the number of names.
    fn prefix_into(&self, i: u64, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(self.names.get(i));
    }

    fn interest_into(&self, i: u64, out: &mut Vec<u8>) {
        let mut s = Stream::new(self.seed, Tag::RealInterest, i);
        self.prefix_into(self.picker.pick(&mut s), out);
        for _ in 0..1 + s.below(3) {
            out.extend_from_slice(self.vocabulary.get(s.below(self.vocabulary.len())));
        }
    }

    fn interest_prefix(&self, i: u64) -> u64 {
        self.picker
            .pick(&mut Stream::new(self.seed, Tag::RealInterest, i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_addresses_items_and_wraps() {
        let mut p = Packed::default();
        assert_eq!(p.get(3), b"");
        for item in [&b"ab"[..], b"", b"cde"] {
            p.push(item).unwrap();
        }
        assert_eq!(
            (p.get(0), p.get(1), p.get(2), p.get(3)),
            (&b"ab"[..], &b""[..], &b"cde"[..], &b"ab"[..])
        );
    }

    #[test]
    fn counts_every_line_once() {
        let text = "/a/b\n\n/a/b\nnot-a-uri\n/\n/%zz\n  /c  \r\n\u{ff}\n/a/seg=3";
        let r = Real::from_reader(text.as_bytes(), None, 0, Popularity::Uniform);
        // U+00FF, valid UTF-8 but not a URI: still a bad line.
        let report = r.unwrap().report();
        assert_eq!(
            report,
            LoadReport {
                lines: 9,
                names: 3,
                duplicates: 1,
                bad_lines: 4,
                blank_lines: 1,
                vocabulary: 4
            }
        );
        let bytes: &[u8] = b"/x\n\xff\xfe\n";
        let report = Real::from_reader(bytes, None, 0, Popularity::Uniform)
            .unwrap()
            .report();
        assert_eq!((report.names, report.bad_lines), (1, 1));
        assert_eq!(
            Real::from_reader(&b"\n#x\n"[..], None, 0, Popularity::Uniform).err(),
            Some(WorkloadError::NoPrefixes)
        );
    }
}
