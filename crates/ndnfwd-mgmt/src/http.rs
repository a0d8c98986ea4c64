//! A minimal blocking HTTP/1.1 responder for `GET /metrics` and `GET /status` (also
//! `/status.json`), bound to 127.0.0.1 and run by the daemon on its own thread.
//!
//! One connection at a time, one request per connection (`Connection: close`). The request head
//! is bounded (431 beyond [`HttpConfig::max_request_bytes`]), reads and writes time out, and
//! anything that is not a well-formed `GET`/`HEAD` request line gets 400 or 405 without panicking.
//! Every request is counted by outcome in [`HttpStats`].

use std::io::{self, ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;

/// Limits of the responder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpConfig {
    /// Largest request head accepted, in bytes.
    pub max_request_bytes: usize,
    /// Read timeout per connection.
    pub read_timeout: Duration,
    /// Write timeout per connection.
    pub write_timeout: Duration,
    /// Sleep between polls for a new connection in [`HttpServer::run`].
    pub poll_interval: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            max_request_bytes: 8192,
            read_timeout: Duration::from_secs(2),
            write_timeout: Duration::from_secs(2),
            poll_interval: Duration::from_millis(50),
        }
    }
}

/// What a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `/metrics`: Prometheus text.
    Metrics,
    /// `/status` or `/status.json`: the JSON status document.
    Status,
}

/// Requests by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct HttpStats {
    /// Answered 200.
    pub ok: u64,
    /// Answered 400 (unparsable request line).
    pub bad_request: u64,
    /// Answered 404.
    pub not_found: u64,
    /// Answered 405 (not GET or HEAD).
    pub bad_method: u64,
    /// Answered 431 (request head too large).
    pub too_large: u64,
    /// Answered 503 (the renderer had nothing: the forwarder did not answer in time).
    pub unavailable: u64,
    /// Closed without an answer: the client was too slow or went away.
    pub aborted: u64,
}

/// The responder.
#[derive(Debug)]
pub struct HttpServer {
    listener: TcpListener,
    config: HttpConfig,
    stats: HttpStats,
}

/// A parsed request line, or the status to answer it with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Request {
    Get { endpoint: Endpoint, head_only: bool },
    Error(u16),
}

fn parse_request(head: &[u8]) -> Request {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let Ok(line) = core::str::from_utf8(line) else {
        return Request::Error(400);
    };
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Request::Error(400);
    };
    if !version.starts_with("HTTP/1.") || !target.starts_with('/') || method.is_empty() {
        return Request::Error(400);
    }
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => return Request::Error(405),
    };
    let path = target.split('?').next().unwrap_or(target);
    let endpoint = match path {
        "/metrics" => Endpoint::Metrics,
        "/status" | "/status.json" => Endpoint::Status,
        _ => return Request::Error(404),
    };
    Request::Get {
        endpoint,
        head_only,
    }
}

/// Reads a request head: up to the blank line, at most `max` bytes. `Ok(None)` when too large.
fn read_head(stream: &mut impl Read, max: usize) -> io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::with_capacity(512);
    let mut chunk = [0u8; 512];
    loop {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(chunk.get(..n).unwrap_or_default());
        if buf.windows(4).any(|w| w == b"\r\n\r\n") || buf.windows(2).any(|w| w == b"\n\n") {
            return Ok(Some(buf));
        }
        if buf.len() >= max {
            return Ok(None);
        }
    }
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

fn write_response(
    stream: &mut impl Write,
    code: u16,
    content_type: &str,
    body: &str,
    head_only: bool,
) -> io::Result<()> {
    let mut out = format!(
        "HTTP/1.1 {code} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
        reason(code),
        body.len()
    );
    if code == 405 {
        out.push_str("Allow: GET, HEAD\r\n");
    }
    out.push_str("\r\n");
    if !head_only {
        out.push_str(body);
    }
    stream.write_all(out.as_bytes())?;
    stream.flush()
}

/// Serves one request read from `stream`; `render` produces the body of an endpoint (`None`:
/// answered 503). Updates
/// `stats`; an I/O error (timeout, reset) is counted as aborted and returned.
pub fn serve_connection(
    stream: &mut (impl Read + Write),
    config: &HttpConfig,
    stats: &mut HttpStats,
    render: &mut dyn FnMut(Endpoint) -> Option<String>,
) -> io::Result<()> {
    let result = (|| {
        let request = match read_head(stream, config.max_request_bytes)? {
            Some(head) => parse_request(&head),
            None => Request::Error(431),
        };
        match request {
            Request::Get {
                endpoint,
                head_only,
            } => {
                let Some(body) = render(endpoint) else {
                    let body = format!("{}\n", reason(503));
                    write_response(stream, 503, "text/plain; charset=utf-8", &body, head_only)?;
                    return Ok(503);
                };
                let ct = match endpoint {
                    Endpoint::Metrics => "text/plain; version=0.0.4; charset=utf-8",
                    Endpoint::Status => "application/json",
                };
                write_response(stream, 200, ct, &body, head_only)?;
                Ok(200)
            }
            Request::Error(code) => {
                let body = format!("{}\n", reason(code));
                write_response(stream, code, "text/plain; charset=utf-8", &body, false)?;
                Ok(code)
            }
        }
    })();
    match result {
        Ok(code) => {
            match code {
                200 => stats.ok += 1,
                400 => stats.bad_request += 1,
                404 => stats.not_found += 1,
                405 => stats.bad_method += 1,
                503 => stats.unavailable += 1,
                _ => stats.too_large += 1,
            }
            Ok(())
        }
        Err(e) => {
            stats.aborted += 1;
            Err(e)
        }
    }
}

impl HttpServer {
    /// Binds 127.0.0.1:`port` (0 picks a free port).
    pub fn bind(port: u16, config: HttpConfig) -> io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))?;
        Ok(Self {
            listener,
            config,
            stats: HttpStats::default(),
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Requests served so far, by outcome.
    pub fn stats(&self) -> HttpStats {
        self.stats
    }

    /// Waits for one connection and serves it. Errors of that connection are counted, not
    /// returned; only a failing listener is an error.
    pub fn serve_one(
        &mut self,
        render: &mut dyn FnMut(Endpoint) -> Option<String>,
    ) -> io::Result<()> {
        self.listener.set_nonblocking(false)?;
        let (stream, _) = self.listener.accept()?;
        self.serve_stream(stream, render);
        Ok(())
    }

    fn serve_stream(
        &mut self,
        mut stream: std::net::TcpStream,
        render: &mut dyn FnMut(Endpoint) -> Option<String>,
    ) {
        let setup = stream
            .set_nonblocking(false)
            .and_then(|()| stream.set_read_timeout(Some(self.config.read_timeout)))
            .and_then(|()| stream.set_write_timeout(Some(self.config.write_timeout)));
        if setup.is_err() {
            self.stats.aborted += 1;
            return;
        }
        // The error is already counted; the connection is simply closed.
        let _ = serve_connection(&mut stream, &self.config, &mut self.stats, render);
    }

    /// Serves connections until `stop` is set (checked every poll interval).
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        render: &mut dyn FnMut(Endpoint) -> Option<String>,
    ) -> io::Result<()> {
        self.listener.set_nonblocking(true)?;
        while !stop.load(Ordering::Relaxed) {
            match self.listener.accept() {
                Ok((stream, _)) => self.serve_stream(stream, render),
                Err(e)
                    if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted =>
                {
                    std::thread::sleep(self.config.poll_interval)
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use std::net::TcpStream;

    /// An in-memory connection: reads from `input`, collects what is written.
    struct Conn {
        input: Cursor<Vec<u8>>,
        output: Vec<u8>,
    }

    impl Read for Conn {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.input.read(buf)
        }
    }

    impl Write for Conn {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.output.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn exchange(request: &[u8], stats: &mut HttpStats) -> String {
        let mut c = Conn {
            input: Cursor::new(request.to_vec()),
            output: Vec::new(),
        };
        let mut render = |e: Endpoint| match e {
            Endpoint::Metrics => Some("m 1\n".to_string()),
            Endpoint::Status => Some("{}".to_string()),
        };
        let _ = serve_connection(&mut c, &HttpConfig::default(), stats, &mut render);
        String::from_utf8_lossy(&c.output).into_owned()
    }

    #[test]
    fn serves_endpoints_and_rejects_garbage() {
        let mut s = HttpStats::default();
        let r = exchange(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &mut s);
        assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
        assert!(r.contains("Content-Length: 4\r\n") && r.ends_with("\r\n\r\nm 1\n"));
        let r = exchange(b"GET /status.json?x=1 HTTP/1.0\n\n", &mut s);
        assert!(r.contains("application/json") && r.ends_with("{}"));
        let r = exchange(b"GET /status HTTP/1.1\r\n\r\n", &mut s);
        assert!(r.starts_with("HTTP/1.1 200") && r.ends_with("{}"), "{r}");
        let r = exchange(b"HEAD /metrics HTTP/1.1\r\n\r\n", &mut s);
        assert!(r.ends_with("\r\n\r\n") && r.contains("Content-Length: 4"));
        assert!(exchange(b"POST /metrics HTTP/1.1\r\n\r\n", &mut s).starts_with("HTTP/1.1 405"));
        assert!(exchange(b"GET /nope HTTP/1.1\r\n\r\n", &mut s).starts_with("HTTP/1.1 404"));
        for garbage in [
            &b"\xff\xfe\x00garbage\r\n\r\n"[..],
            b"GET\r\n\r\n",
            b"GET /metrics\r\n\r\n",
            b"GET metrics HTTP/1.1\r\n\r\n",
            b"GET /metrics SPDY/3 extra\r\n\r\n",
            b"\r\n\r\n",
        ] {
            assert!(
                exchange(garbage, &mut s).starts_with("HTTP/1.1 400"),
                "{garbage:?}"
            );
        }
        let big = [b'a'; 10_000];
        assert!(exchange(&big, &mut s).starts_with("HTTP/1.1 431"));
        // A client that sends half a request and hangs up gets nothing.
        assert_eq!(exchange(b"GET /metr", &mut s), "");
        // Nothing to render (the forwarder did not answer): 503.
        let mut c = Conn {
            input: Cursor::new(b"GET /metrics HTTP/1.1\r\n\r\n".to_vec()),
            output: Vec::new(),
        };
        serve_connection(&mut c, &HttpConfig::default(), &mut s, &mut |_| None).unwrap();
        assert!(c
            .output
            .starts_with(b"HTTP/1.1 503 Service Unavailable\r\n"));
        assert_eq!(
            s,
            HttpStats {
                ok: 4,
                unavailable: 1,
                bad_request: 6,
                not_found: 1,
                bad_method: 1,
                too_large: 1,
                aborted: 1,
            }
        );
    }

    #[test]
    fn answers_over_loopback_and_times_out_slow_clients() {
        let config = HttpConfig {
            read_timeout: Duration::from_millis(200),
            ..HttpConfig::default()
        };
        let mut server = HttpServer::bind(0, config).unwrap();
        let addr = server.local_addr().unwrap();
        let client = std::thread::spawn(move || {
            let mut slow = TcpStream::connect(addr).unwrap();
            slow.write_all(b"GET /met").unwrap();
            let mut sink = Vec::new();
            let _ = slow.read_to_end(&mut sink);
            let mut c = TcpStream::connect(addr).unwrap();
            c.write_all(b"GET /metrics HTTP/1.1\r\n\r\n").unwrap();
            let mut out = String::new();
            c.read_to_string(&mut out).unwrap();
            (sink, out)
        });
        let mut render = |_| Some("ndnfwd_up 1\n".to_string());
        server.serve_one(&mut render).unwrap();
        server.serve_one(&mut render).unwrap();
        let (sink, out) = client.join().unwrap();
        assert!(sink.is_empty());
        assert!(out.ends_with("ndnfwd_up 1\n"), "{out}");
        assert_eq!((server.stats().ok, server.stats().aborted), (1, 1));
    }
}
