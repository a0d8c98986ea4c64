//! JSON-lines front end to the ndn-packet codec, used by the python-ndn interop test
//! (`tests/interop/`) and handy for looking at packets by hand.
//!
//! Each stdin line is one request; each gets one stdout line:
//!
//! ```text
//! {"op":"decode","hex":"0523..."}      -> {"ok":true,"packet":{...}} | {"ok":false,"error":"..."}
//! {"op":"encode","packet":{...}}       -> {"ok":true,"hex":"..."}    | {"ok":false,"error":"..."}
//! ```
//!
//! A packet is `{"lp": null | {header fields}, "interest": {...} | "data": {...} |
//! "fragment": hex}`. Names are hex of the whole Name TLV, byte strings are hex, numbers are
//! JSON integers, absent fields are `null`. Run: `cargo run -p ndn-packet --example ndn-codec-cli`.

use std::io::{self, BufRead, Write};

use ndn_packet::signature::SignatureInfo;
use ndn_packet::tlv::{self, tt};
use ndn_packet::{
    decode_link_packet, Component, Data, DataBuilder, DataSignature, Interest, InterestBuilder,
    InterestSignature, LpHeaders, LpPacketBuilder, NackReason, Name, Payload,
};
use serde_json::{json, Map, Value};

type Res<T> = Result<T, String>;

fn main() -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match handle(&line) {
            Ok(v) => v,
            Err(e) => json!({"ok": false, "error": e}),
        };
        writeln!(out, "{reply}")?;
        out.flush()?;
    }
    Ok(())
}

fn handle(line: &str) -> Res<Value> {
    let req: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
    match req.get("op").and_then(Value::as_str) {
        Some("decode") => {
            let wire = unhex(req.get("hex").and_then(Value::as_str).ok_or("no hex")?)?;
            let p = decode_link_packet(&wire).map_err(|e| format!("{e:?}"))?;
            let mut obj = Map::new();
            let lp = wire.first() == Some(&(tt::LP_PACKET as u8));
            obj.insert(
                "lp".into(),
                if lp { lp_json(&p.headers) } else { Value::Null },
            );
            match p.payload {
                Payload::Interest(i) => obj.insert("interest".into(), interest_json(&i)),
                Payload::Data(d) => obj.insert("data".into(), data_json(&d)),
                Payload::Fragment(f) => obj.insert("fragment".into(), hex(f).into()),
                Payload::Idle => None,
            };
            Ok(json!({"ok": true, "packet": obj}))
        }
        Some("encode") => {
            let wire = encode(req.get("packet").ok_or("no packet")?)?;
            Ok(json!({"ok": true, "hex": hex(&wire)}))
        }
        _ => Err("op must be decode or encode".into()),
    }
}

fn interest_json(i: &Interest<'_>) -> Value {
    let sig_type = i
        .signature_info()
        .and_then(|s| SignatureInfo::new_checked(s).ok())
        .map(|s| s.sig_type());
    json!({
        "name": hex(&i.name().to_name().to_wire()),
        "uri": i.name().to_string(),
        "can_be_prefix": i.can_be_prefix(),
        "must_be_fresh": i.must_be_fresh(),
        "forwarding_hint": i.has_forwarding_hint()
            .then(|| i.forwarding_hint().map(|n| hex(&n.to_name().to_wire())).collect::<Vec<_>>()),
        "nonce": i.nonce().map(u32::from_be_bytes),
        "lifetime": i.lifetime(),
        "hop_limit": i.hop_limit(),
        "app_params": i.app_params().map(hex),
        "signature_type": sig_type,
        "signature_info": i.signature_info().map(hex),
        "signature_value": i.signature_value().map(hex),
    })
}

fn data_json(d: &Data<'_>) -> Value {
    let si = d.signature_info();
    json!({
        "name": hex(&d.name().to_name().to_wire()),
        "uri": d.name().to_string(),
        "content_type": d.content_type(),
        "freshness_period": d.freshness_period(),
        "final_block_id": d.final_block_id().map(|c| hex(c.wire())),
        "content": d.content().map(hex),
        "signature_type": si.sig_type(),
        "key_locator": si.key_locator().map(hex),
        "signature_info": hex(si.value()),
        "signature_value": hex(d.signature_value()),
        "implicit_digest": hex(&d.implicit_digest()),
    })
}

fn lp_json(h: &LpHeaders<'_>) -> Value {
    json!({
        "sequence": h.sequence,
        "frag_index": h.frag_index,
        "frag_count": h.frag_count,
        "pit_token": h.pit_token.map(hex),
        "nack": h.nack.map(|r| json!({"reason": r.map(NackReason::code)})),
        "incoming_face_id": h.incoming_face_id,
        "next_hop_face_id": h.next_hop_face_id,
        "cache_policy": h.cache_policy,
        "congestion_mark": h.congestion_mark,
        "acks": h.acks.iter().collect::<Vec<_>>(),
        "tx_sequence": h.tx_sequence,
        "non_discovery": h.non_discovery,
        "prefix_announcement": h.prefix_announcement.map(hex),
    })
}

fn encode(p: &Value) -> Res<Vec<u8>> {
    let net = match (p.get("interest"), p.get("data"), p.get("fragment")) {
        (Some(i), _, _) if !i.is_null() => Some(encode_interest(i)?),
        (_, Some(d), _) if !d.is_null() => Some(encode_data(d)?),
        (_, _, Some(f)) if !f.is_null() => Some(unhex(f.as_str().ok_or("fragment: hex")?)?),
        _ => None,
    };
    let lp = match p.get("lp") {
        None | Some(Value::Null) => return net.ok_or_else(|| "nothing to encode".into()),
        Some(lp) => lp,
    };
    let token = opt_hex(lp, "pit_token")?;
    let announcement = opt_hex(lp, "prefix_announcement")?;
    let mut b = LpPacketBuilder::new();
    if let Some(t) = &token {
        b = b.pit_token(t);
    }
    if let Some(n) = lp.get("nack").filter(|n| !n.is_null()) {
        b = b.nack(opt_u64(n, "reason")?.map(NackReason::from_code));
    }
    for a in lp
        .get("acks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        b = b.ack(a.as_u64().ok_or("acks: integers")?);
    }
    let face = |key| {
        opt_u64(lp, key)?
            .map(u32::try_from)
            .transpose()
            .map_err(|e| e.to_string())
    };
    let h = b.headers_mut();
    h.sequence = opt_u64(lp, "sequence")?;
    h.frag_index = opt_u64(lp, "frag_index")?;
    h.frag_count = opt_u64(lp, "frag_count")?;
    h.incoming_face_id = face("incoming_face_id")?;
    h.next_hop_face_id = face("next_hop_face_id")?;
    h.cache_policy = opt_u64(lp, "cache_policy")?;
    h.congestion_mark = opt_u64(lp, "congestion_mark")?;
    h.tx_sequence = opt_u64(lp, "tx_sequence")?;
    h.non_discovery = lp
        .get("non_discovery")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    h.prefix_announcement = announcement.as_deref();
    b.encode(net.as_deref()).map_err(|e| format!("{e:?}"))
}

fn encode_interest(i: &Value) -> Res<Vec<u8>> {
    let mut b = InterestBuilder::new(name(i.get("name"))?)
        .can_be_prefix(flag(i, "can_be_prefix"))
        .must_be_fresh(flag(i, "must_be_fresh"));
    if let Some(hint) = i.get("forwarding_hint").and_then(Value::as_array) {
        b = b.forwarding_hint(hint.iter().map(|n| name(Some(n))).collect::<Res<_>>()?);
    }
    if let Some(n) = opt_u64(i, "nonce")? {
        b = b.nonce(u32::try_from(n).map_err(|e| e.to_string())?.to_be_bytes());
    }
    if let Some(l) = opt_u64(i, "lifetime")? {
        b = b.lifetime_ms(l);
    }
    if let Some(h) = opt_u64(i, "hop_limit")? {
        b = b.hop_limit(u8::try_from(h).map_err(|e| e.to_string())?);
    }
    if let Some(p) = opt_hex(i, "app_params")? {
        b = b.app_params(p);
    }
    if i.get("sign").and_then(Value::as_str) == Some("digest") {
        b = b.signature(InterestSignature::DigestSha256);
    } else if let Some(info) = opt_hex(i, "signature_info")? {
        let value = opt_hex(i, "signature_value")?;
        b = b.signature(InterestSignature::Raw { info, value });
    }
    b.encode().map_err(|e| format!("{e:?}"))
}

fn encode_data(d: &Value) -> Res<Vec<u8>> {
    let mut b = DataBuilder::new(name(d.get("name"))?);
    if let Some(t) = opt_u64(d, "content_type")? {
        b = b.content_type(t);
    }
    if let Some(f) = opt_u64(d, "freshness_period")? {
        b = b.freshness_period(f);
    }
    let fbi = opt_hex(d, "final_block_id")?;
    if let Some(f) = &fbi {
        let e = tlv::read_single(f).map_err(|e| format!("{e:?}"))?;
        b = b.final_block_id(Component::from_element(&e).map_err(|e| format!("{e:?}"))?);
    }
    if let Some(c) = opt_hex(d, "content")? {
        b = b.content(c);
    }
    if let Some(info) = opt_hex(d, "signature_info")? {
        let value = opt_hex(d, "signature_value")?.unwrap_or_default();
        b = b.signature(DataSignature::Raw { info, value });
    }
    b.encode().map_err(|e| format!("{e:?}"))
}

fn name(v: Option<&Value>) -> Res<Name> {
    let wire = unhex(v.and_then(Value::as_str).ok_or("name: hex of a Name TLV")?)?;
    let e = tlv::read_single(&wire).map_err(|e| format!("{e:?}"))?;
    if e.typ != tt::NAME {
        return Err("name: not a Name TLV".into());
    }
    Name::from_value(e.value.to_vec()).map_err(|e| format!("{e:?}"))
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn opt_u64(v: &Value, key: &str) -> Res<Option<u64>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(n) => n
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("{key}: not an integer")),
    }
}

fn opt_hex(v: &Value, key: &str) -> Res<Option<Vec<u8>>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(s) => unhex(s.as_str().ok_or_else(|| format!("{key}: not hex"))?).map(Some),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Res<Vec<u8>> {
    if s.len() % 2 != 0 {
        return Err("odd-length hex".into());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .ok_or_else(|| format!("bad hex at {i}"))
        })
        .collect()
}
