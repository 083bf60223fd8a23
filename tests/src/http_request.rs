//! The one HTTP/1.1 request reading the test webhooks need: headers up to
//! the blank line, then a `Content-Length` body (webhook clients send no
//! chunked bodies).

use std::io::BufRead;

/// The next request's body on a keep-alive connection, or `None` once the
/// peer closed it (or sent less than it announced).
pub fn read_body(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    read_request(reader).map(|(_, body)| body)
}

/// A request's headers, names lower-cased, in order.
pub type Headers = Vec<(String, String)>;

/// The next request's headers and body, as `read_body`.
pub fn read_request(reader: &mut impl BufRead) -> Option<(Headers, Vec<u8>)> {
    let mut headers = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0usize);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((headers, body))
}
