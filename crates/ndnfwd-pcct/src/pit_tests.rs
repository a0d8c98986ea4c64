use super::*;
use crate::config::PcctConfig;
use ndn_packet::{LpToken, Name, NameHasher, PrefixHashes, SipVariant};

/// `record_out`'s first-record shortcut leaves a new entry as the general rule would (renew
/// the face's out-record, else append one), and later records (same face again, other
/// faces, into the tail block) still go the general way.
#[test]
fn first_out_record_matches_the_general_write() {
    let hasher = NameHasher::new([3; 16], SipVariant::Sip13);
    let mut pcct = Pcct::new(PcctConfig::default(), hasher.clone()).unwrap();
    let name = Name::from_uri("/a/b").unwrap();
    let mut h = PrefixHashes::default();
    hasher.hash_prefixes(name.as_ref(), &mut h);
    let it = InterestInfo {
        name: name.as_ref(),
        hashes: &h,
        can_be_prefix: false,
        must_be_fresh: false,
        forwarding_hint_hash: None,
        nonce: 7,
        lifetime_ns: None,
        hop_limit: Some(9),
        token: &LpToken::EMPTY,
        congestion_mark: 0,
    };
    let InterestOutcome::NewPit { pit } = pcct.on_interest(100, &it, 1) else {
        panic!("new entry expected");
    };
    let p = pcct.handle_part(pit).unwrap();
    let mut want: Vec<(u64, u32, u32)> = Vec::new();
    let mut last_tx = 0;
    let steps = [
        (150, 4, 11),
        (160, 4, 12),
        (170, 5, 13),
        (180, 6, 14),
        (190, 5, 15),
    ];
    for (now, face, nonce) in steps {
        last_tx = last_tx.max(now);
        match want.iter_mut().find(|o| o.1 == face) {
            Some(o) => *o = (now, face, nonce),
            None => want.push((now, face, nonce)),
        }
        pcct.record_out(now, pit, face, nonce).unwrap();
        let got = pcct.pits.get_live(p).unwrap();
        let outs: Vec<_> = View::new(got, &pcct.pools)
            .outs()
            .map(|o| {
                assert!(o.nack == 0 && !o.nacked);
                (o.sent, o.face, o.nonce)
            })
            .collect();
        assert_eq!(outs, want, "after face {face} at {now}");
        assert_eq!((usize::from(got.n_out), got.last_tx), (want.len(), last_tx));
    }
}

/// The byte-pattern shortcut agrees with the component walk, including names whose last
/// component merely contains the digest header bytes.
#[test]
fn last_digest_matches_the_component_walk() {
    let dg = [0xA5u8; 32];
    let mut tail = DIGEST_HEADER.to_vec();
    tail.extend_from_slice(&dg);
    let digest_name = Name::from_uri("/a/b")
        .unwrap()
        .push_typed(tt::IMPLICIT_SHA256_DIGEST_COMPONENT, &dg)
        .unwrap();
    let only_digest = Name::new()
        .push_typed(tt::IMPLICIT_SHA256_DIGEST_COMPONENT, &dg)
        .unwrap();
    let cases = [
        (Name::from_uri("/a/b").unwrap(), None),
        (Name::new(), None),
        (digest_name, Some(dg)),
        (only_digest, Some(dg)),
        // A generic component ending in `01 20` + 32 bytes, with and without a prefix.
        (Name::new().push(&tail), None),
        (
            Name::from_uri("/x")
                .unwrap()
                .push([&[7u8][..], &tail].concat()),
            None,
        ),
        // The header bytes without the 32 that must follow.
        (Name::new().push(&tail[..20]), None),
    ];
    for (name, want) in cases {
        let n = name.as_ref();
        assert_eq!(last_digest(n), want, "{n:?}");
        let walk = n
            .last()
            .filter(|c| c.typ() == tt::IMPLICIT_SHA256_DIGEST_COMPONENT)
            .and_then(|c| <[u8; 32]>::try_from(c.value()).ok());
        assert_eq!(last_digest(n), walk, "{n:?}");
    }
}
