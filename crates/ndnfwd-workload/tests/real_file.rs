//! `real:` name files: plain and gzip, bad lines counted and skipped, Interests from the file's
//! own vocabulary.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

use flate2::write::GzEncoder;
use flate2::Compression;
use ndn_packet::{Name, NameRef};
use ndnfwd_workload::{
    LoadReport, NameSource, Params, Popularity, Real, Workload, WorkloadError, WorkloadSpec,
};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/names-sample.ndn"
);

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// A file in the system temp dir, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8]) -> Self {
        let path =
            std::env::temp_dir().join(format!("ndnfwd-workload-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        Self(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn load(bytes: &[u8]) -> Result<Real, WorkloadError> {
    Real::from_reader(bytes, None, 5, Popularity::Uniform)
}

#[test]
fn fixture_loads_completely() {
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let real = Real::load(FIXTURE.as_ref(), None, 5, Popularity::Uniform).unwrap();
    let r = real.report();
    assert_eq!(r.lines, text.lines().count() as u64);
    assert!(r.lines >= 300);
    assert_eq!(
        r.lines,
        r.names + r.duplicates + r.bad_lines + r.blank_lines
    );
    // The shipped data writes query components raw (`package=Iso`): they load with the '='
    // escaped, and print back in canonical form.
    assert!(text.lines().any(|l| l.contains('=')));
    assert_eq!(r.bad_lines, 0);
    for (i, line) in text.lines().enumerate().take(200) {
        let want = Name::from_uri(&line.replace('=', "%3D")).unwrap();
        assert_eq!(real.prefix(i as u64), want, "{line}");
    }
}

#[test]
fn gzip_and_plain_give_the_same_workload_and_bad_lines_are_counted() {
    let mut text = std::fs::read(FIXTURE).unwrap();
    let clean = load(&text).unwrap();
    let first_line = text.split(|&b| b == b'\n').next().unwrap().to_vec();
    text.extend_from_slice(b"\nnot a uri\n/%G1/x\n\xc3\x28/bad-utf8\n/\n   \n");
    text.extend_from_slice(&first_line); // a duplicate, without a final newline
    let plain = load(&text).unwrap();
    let file = TempFile::new("names.ndn.gz", &gzip(&text));
    let gz = Real::load(&file.0, None, 5, Popularity::Uniform).unwrap();
    let expect = LoadReport {
        lines: clean.report().lines + 7,
        bad_lines: clean.report().bad_lines + 4,
        blank_lines: 2,
        duplicates: clean.report().duplicates + 1,
        ..clean.report()
    };
    assert_eq!(plain.report(), expect);
    assert_eq!(gz.report(), expect);
    for i in 0..plain.prefix_count() {
        assert_eq!(plain.prefix(i), gz.prefix(i));
        assert_eq!(plain.interest(i), gz.interest(i));
    }
    // Through a spec string, as the binary does.
    let spec: WorkloadSpec = format!("real:{}", file.0.display()).parse().unwrap();
    let w = spec
        .build(&Params {
            seed: 5,
            ..Params::default()
        })
        .unwrap();
    assert!(matches!(w, Workload::Real(_)));
    assert_eq!(w.load_report(), Some(expect));
    assert_eq!(w.interest(3), plain.interest(3));
}

#[test]
fn interests_append_one_to_three_vocabulary_components() {
    let real = Real::load(FIXTURE.as_ref(), None, 8, Popularity::Zipf).unwrap();
    let mut vocabulary = HashSet::new();
    for i in 0..real.prefix_count() {
        for c in real.prefix(i).as_ref().components() {
            vocabulary.insert(c.wire().to_vec());
        }
    }
    assert_eq!(vocabulary.len() as u64, real.report().vocabulary);
    let mut extra = [0u32; 4];
    for i in 0..3000 {
        let q = real.interest(i);
        let p = real.prefix(real.interest_prefix(i));
        assert!(p.as_ref().is_prefix_of(q.as_ref()));
        let suffix = NameRef::new_checked(&q.value()[p.value().len()..]).unwrap();
        extra[suffix.len()] += 1;
        assert!(suffix.components().all(|c| vocabulary.contains(c.wire())));
    }
    assert_eq!(extra[0], 0);
    assert!(extra[1..].iter().all(|&e| e > 800), "{extra:?}");
}

#[test]
fn limits_and_broken_files() {
    let text = std::fs::read(FIXTURE).unwrap();
    let ten = Real::from_reader(&text[..], Some(10), 0, Popularity::Uniform).unwrap();
    assert_eq!(
        (ten.prefix_count(), ten.report().names, ten.report().lines),
        (10, 10, 10)
    );
    assert_eq!(ten.prefix(10), ten.prefix(0), "indices wrap around");

    let gz = gzip(&text);
    let truncated = load(&gz[..gz.len() / 2]);
    assert!(
        matches!(truncated, Err(WorkloadError::Io(_))),
        "{truncated:?}"
    );
    let mut corrupt = gz.clone();
    corrupt[20] ^= 0xff;
    corrupt[21] ^= 0xff;
    assert!(load(&corrupt).is_err());
    assert_eq!(load(b"").err(), Some(WorkloadError::NoPrefixes));
    assert_eq!(
        load(&gzip(b"garbage\n\n")).err(),
        Some(WorkloadError::NoPrefixes)
    );
    assert_eq!(load(b"\x1f").unwrap_err(), WorkloadError::NoPrefixes);
}
