//! A small blocking HTTP/1.1 client: exact control over request bytes, and
//! chunked streams read one watch event at a time.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

/// A complete response.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// The body as JSON (panics with the body text if it is not).
    #[must_use]
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    #[must_use]
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// First value of a header (case-insensitive).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every value of a header.
    #[must_use]
    pub fn header_all(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

fn connect(port: u16) -> std::io::Result<TcpStream> {
    let s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    Ok(s)
}

pub(crate) fn write_request(
    s: &mut impl Write,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> std::io::Result<()> {
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("user-agent"))
    {
        req.push_str("User-Agent: cairn-tests/1.0\r\n");
    }
    req.push_str(&format!(
        "Content-Length: {}\r\n\r\n",
        body.map_or(0, <[u8]>::len)
    ));
    s.write_all(req.as_bytes())?;
    if let Some(b) = body {
        s.write_all(b)?;
    }
    s.flush()
}

fn read_head(r: &mut impl BufRead) -> std::io::Result<(u16, Vec<(String, String)>)> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line {line:?}")))?;
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    Ok((status, headers))
}

fn read_chunk(r: &mut impl BufRead) -> std::io::Result<Option<Vec<u8>>> {
    let mut size_line = String::new();
    if r.read_line(&mut size_line)? == 0 {
        return Ok(None);
    }
    let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap_or("0"), 16)
        .map_err(|_| std::io::Error::other(format!("bad chunk size {size_line:?}")))?;
    if size == 0 {
        let mut end = String::new();
        r.read_line(&mut end)?;
        return Ok(None);
    }
    let mut buf = vec![0u8; size + 2];
    r.read_exact(&mut buf)?;
    buf.truncate(size);
    Ok(Some(buf))
}

/// One request on a fresh connection.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> std::io::Result<Response> {
    request_on(connect(port)?, method, path, headers, body)
}

/// One request on a connection the caller opened (plain or TLS).
pub fn request_on(
    mut s: impl Read + Write,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> std::io::Result<Response> {
    write_request(&mut s, method, path, headers, body)?;
    let mut r = BufReader::new(s);
    let (status, headers) = read_head(&mut r)?;
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let mut body = Vec::new();
    if chunked {
        while let Some(c) = read_chunk(&mut r)? {
            body.extend_from_slice(&c);
        }
    } else if let Some(len) = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
    {
        body.resize(len, 0);
        r.read_exact(&mut body)?;
    } else {
        r.read_to_end(&mut body)?;
    }
    Ok(Response {
        status,
        headers,
        body,
    })
}

/// A watch response read event by event.
pub struct WatchStream {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    reader: BufReader<TcpStream>,
    pending: Vec<u8>,
    ended: bool,
}

impl WatchStream {
    pub fn open(port: u16, path: &str) -> std::io::Result<WatchStream> {
        let mut s = connect(port)?;
        write_request(&mut s, "GET", path, &[], None)?;
        let mut reader = BufReader::new(s);
        let (status, headers) = read_head(&mut reader)?;
        Ok(WatchStream {
            status,
            headers,
            reader,
            pending: Vec::new(),
            ended: false,
        })
    }

    /// Sets how long `next` waits for an event.
    pub fn set_timeout(&mut self, d: Duration) {
        let _ = self.reader.get_ref().set_read_timeout(Some(d));
    }

    /// The next event (`None` when the stream ended or the timeout passed).
    pub fn next_event(&mut self) -> Option<Value> {
        loop {
            if let Some(nl) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=nl).collect();
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return Some(serde_json::from_slice(&line).unwrap_or_else(|e| {
                    panic!("bad watch line ({e}): {}", String::from_utf8_lossy(&line))
                }));
            }
            if self.ended {
                return None;
            }
            match read_chunk(&mut self.reader) {
                Ok(Some(c)) => self.pending.extend_from_slice(&c),
                Ok(None) => self.ended = true,
                Err(_) => return None,
            }
        }
    }

    /// Whether the server ended the stream.
    #[must_use]
    pub fn ended(&self) -> bool {
        self.ended
    }
}
