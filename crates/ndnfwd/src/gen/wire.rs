//! The generator's per-packet wire work, cut to what it needs: Interests written straight from
//! their fields (byte for byte what `InterestBuilder` encodes), only the Content of a Data and
//! only the Name of an Interest decoded, and every packet of a burst packed into one shared
//! buffer, so a packet costs no allocation of its own and its `Bytes` clones by reference count.

use bytes::{Bytes, BytesMut};
use ndn_packet::tlv::{self, tt};
use ndn_packet::NameRef;

/// Packets longer than this get a buffer of their own instead of a slice of a shared block.
const OWN_BUFFER: usize = 4096;

/// Packs the packets of a burst into one growing buffer and hands each out as a `Bytes` view.
pub struct Packer {
    buf: BytesMut,
    /// Scratch for the `tlv` writers, which write to a `Vec`.
    scratch: Vec<u8>,
}

impl Packer {
    /// An empty packer.
    pub fn new() -> Self {
        Self {
            buf: BytesMut::with_capacity(64 * 1024),
            scratch: Vec::with_capacity(1024),
        }
    }

    /// Appends what `write` writes (to a cleared scratch vector) and returns it as one packet
    /// (a packet over [`OWN_BUFFER`] bytes is returned in the scratch vector itself).
    pub fn pack(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> Bytes {
        self.scratch.clear();
        write(&mut self.scratch);
        if self.scratch.len() > OWN_BUFFER {
            // A large packet keeps the buffer it was written in, as before the packer: packing
            // it would copy it once more, and a few of them fill a block. (With 8 KB Data in
            // shared blocks, the producer's CPU per Data was up to 2.8x in 4 of 6 `bench e2e`
            // runs.) The next scratch vector starts at the same capacity, so it never regrows.
            let cap = self.scratch.capacity();
            return Bytes::from(core::mem::replace(
                &mut self.scratch,
                Vec::with_capacity(cap),
            ));
        }
        if self.buf.capacity() < self.scratch.len() {
            // A fresh block (or the old one, once every packet cut from it is gone).
            self.buf.reserve(self.scratch.len().max(64 * 1024));
        }
        self.buf.extend_from_slice(&self.scratch);
        self.buf.split().freeze()
    }
}

/// The fields of one generated Interest.
pub struct InterestFields<'a> {
    /// Name TLV-VALUE (no digest component: the caller checks).
    pub name: &'a [u8],
    /// CanBePrefix.
    pub can_be_prefix: bool,
    /// MustBeFresh.
    pub must_be_fresh: bool,
    /// Nonce.
    pub nonce: [u8; 4],
    /// The InterestLifetime TLV, from [`lifetime_tlv`] (the same for every Interest of a run).
    pub lifetime: &'a [u8],
}

/// The InterestLifetime TLV of `ms`, encoded once per run.
pub fn lifetime_tlv(ms: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(10);
    tlv::write_nni_tlv(&mut v, tt::INTEREST_LIFETIME, ms);
    v
}

impl InterestFields<'_> {
    /// Writes the Interest TLV in `InterestBuilder`'s element order.
    pub fn write(&self, out: &mut Vec<u8>) {
        let flags = 2 * (usize::from(self.can_be_prefix) + usize::from(self.must_be_fresh));
        let len = tlv::tlv_len(tt::NAME, self.name.len()) + flags + 6 + self.lifetime.len();
        tlv::write_header(out, tt::INTEREST, len);
        tlv::write_tlv(out, tt::NAME, self.name);
        if self.can_be_prefix {
            tlv::write_tlv(out, tt::CAN_BE_PREFIX, &[]);
        }
        if self.must_be_fresh {
            tlv::write_tlv(out, tt::MUST_BE_FRESH, &[]);
        }
        tlv::write_tlv(out, tt::NONCE, &self.nonce);
        out.extend_from_slice(self.lifetime);
    }
}

/// True when `name` (a Name TLV-VALUE) has a ParametersSha256DigestComponent, which an Interest
/// may carry only with ApplicationParameters (so it goes through the builder, which checks).
pub fn has_params_digest(name: NameRef<'_>) -> bool {
    name.components()
        .any(|c| c.typ() == tt::PARAMETERS_SHA256_DIGEST_COMPONENT)
}

/// The Content TLV-VALUE of a Data (empty when it has none); `None` when `wire` is not a Data
/// or its elements up to the Content are malformed. Nothing after the Content is decoded.
pub fn data_content(wire: &[u8]) -> Option<&[u8]> {
    let (typ, value, _) = tlv::element_at(wire, 0).ok()?;
    if typ != tt::DATA {
        return None;
    }
    let mut pos = 0;
    while pos < value.len() {
        let (typ, v, end) = tlv::element_at(value, pos).ok()?;
        match typ {
            tt::CONTENT => return Some(v),
            tt::NAME | tt::META_INFO => pos = end,
            _ => break,
        }
    }
    Some(&[])
}

/// The Name TLV (whole) and checked Name of an Interest; nothing after the Name is decoded.
pub fn interest_name(wire: &[u8]) -> Option<(&[u8], NameRef<'_>)> {
    let (typ, value, _) = tlv::element_at(wire, 0).ok()?;
    if typ != tt::INTEREST {
        return None;
    }
    let (typ, name, end) = tlv::element_at(value, 0).ok()?;
    if typ != tt::NAME {
        return None;
    }
    Some((value.get(..end)?, NameRef::new_checked(name).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndn_packet::{Data, DataBuilder, Interest, InterestBuilder, Name};

    /// Small packets are views of one shared block, large ones keep their own buffer; either
    /// way each packet holds exactly what was written, whatever came before it.
    #[test]
    fn packer_hands_out_exactly_what_was_written() {
        let mut p = Packer::new();
        let sizes = [
            10,
            OWN_BUFFER,
            OWN_BUFFER + 1,
            8000,
            3,
            60_000,
            100,
            8000,
            1,
        ];
        let packets: Vec<(Bytes, u8)> = sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let b = i as u8;
                (p.pack(|w| w.resize(n, b)), b)
            })
            .collect();
        for ((pkt, b), n) in packets.iter().zip(sizes) {
            assert_eq!(pkt.len(), n);
            assert!(pkt.iter().all(|x| x == b));
        }
        let a = p.pack(|w| w.extend_from_slice(b"ab"));
        let c = p.pack(|w| w.extend_from_slice(b"cd"));
        assert_eq!((&a[..], &c[..]), (&b"ab"[..], &b"cd"[..]));
    }

    #[test]
    fn interest_fields_equal_builder_bytes() {
        let names = [
            "/a",
            "/e2e/x/seq=7",
            "/long/name/with/several/components/0123456789",
        ];
        let mut p = Packer::new();
        for uri in names {
            let name = Name::from_uri(uri).unwrap();
            for (cbp, mbf) in [(false, false), (true, false), (false, true), (true, true)] {
                for ms in [0, 1, 255, 256, 4000, 70_000, 5_000_000_000] {
                    let nonce = [1, 2, 3, 4];
                    let lifetime = lifetime_tlv(ms);
                    let f = InterestFields {
                        name: name.value(),
                        can_be_prefix: cbp,
                        must_be_fresh: mbf,
                        nonce,
                        lifetime: &lifetime,
                    };
                    let got = p.pack(|out| f.write(out));
                    let want = InterestBuilder::new(name.clone())
                        .can_be_prefix(cbp)
                        .must_be_fresh(mbf)
                        .lifetime_ms(ms)
                        .nonce(nonce)
                        .encode()
                        .unwrap();
                    assert_eq!(got, want, "{uri} {cbp} {mbf} {ms}");
                    let (name_wire, n) = interest_name(&got).unwrap();
                    assert_eq!(n, name.as_ref());
                    assert_eq!(name_wire, Interest::new_checked(&got).unwrap().name_wire());
                }
            }
        }
        let digest = Name::from_uri(&format!("/a/params-sha256={}", "00".repeat(32))).unwrap();
        assert!(has_params_digest(digest.as_ref()));
        assert!(!has_params_digest(Name::from_uri("/a/b").unwrap().as_ref()));
    }

    #[test]
    fn data_content_matches_full_decode() {
        let name = Name::from_uri("/e/x").unwrap();
        for (payload, fresh) in [(0usize, 0u64), (100, 0), (8000, 4000)] {
            let mut b = DataBuilder::new(name.clone()).content(vec![7; payload]);
            if fresh > 0 {
                b = b.freshness_period(fresh);
            }
            let wire = b.encode().unwrap();
            let full = Data::new_checked(&wire).unwrap();
            assert_eq!(
                data_content(&wire),
                Some(full.content().unwrap_or_default())
            );
        }
        assert_eq!(data_content(&[5, 0]), None);
        assert_eq!(interest_name(&[6, 0]), None);
        assert_eq!(data_content(&[6, 3, 7, 9]), None);
    }
}
