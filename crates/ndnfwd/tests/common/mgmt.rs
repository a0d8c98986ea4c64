//! NFD management for the fault and churn tests: a [`Client`] whose exchange writes one
//! command Interest to the daemon's Unix socket and reads frames until the Data (or Nack) that
//! answers it. Included with `#[path]` by the tests that need it.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use ndn_packet::tlv::{read_var_number, tt};
use ndn_packet::{decode_link_packet, Name};
use ndnfwd_mgmt::client::{Client, ExchangeError, Signing};

/// One TLV frame from a stream (wrap a socket in a `BufReader` when reading many: the header
/// is read byte by byte).
pub fn read_frame(s: &mut impl Read) -> Result<Vec<u8>, ExchangeError> {
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => ExchangeError::Timeout,
        k => ExchangeError::Io(k),
    };
    let mut head = Vec::with_capacity(18);
    // Type and length: each 1, 3, 5 or 9 bytes; read byte by byte until both parse.
    loop {
        let mut b = [0u8];
        s.read_exact(&mut b).map_err(io)?;
        head.push(b[0]);
        if let Ok((_, n)) = read_var_number(&head) {
            if let Ok((len, m)) = read_var_number(head.get(n..).unwrap_or_default()) {
                let mut frame = head.clone();
                frame.resize(n + m + len as usize, 0);
                s.read_exact(&mut frame[n + m..]).map_err(io)?;
                return Ok(frame);
            }
        }
    }
}

/// A management client over a new Unix-socket face to the daemon at `sock` (unsigned
/// commands: accepted from local faces).
pub fn client(sock: &Path) -> Client<impl FnMut(&[u8]) -> Result<Vec<u8>, ExchangeError>> {
    let mut s = UnixStream::connect(sock).expect("connect to the daemon");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let exchange = move |interest: &[u8]| -> Result<Vec<u8>, ExchangeError> {
        s.write_all(interest)
            .map_err(|e| ExchangeError::Io(e.kind()))?;
        loop {
            let frame = read_frame(&mut s)?;
            let Ok(lp) = decode_link_packet(&frame) else {
                continue;
            };
            if lp.nack().is_some() {
                return Err(ExchangeError::Nack);
            }
            let payload = frame.get(lp.payload_range).unwrap_or_default();
            if payload.first().map(|&t| u32::from(t)) == Some(tt::DATA) {
                return Ok(payload.to_vec());
            }
        }
    };
    Client::new(exchange, Signing::Unsigned)
}

/// `/prefix` as a Name.
pub fn name(uri: &str) -> Name {
    Name::from_uri(uri).unwrap()
}
