//! The one HTTP/1.1 request reading the test webhooks need: headers up to
//! the blank line, then a `Content-Length` body (webhook clients send no
//! chunked bodies).

use std::io::BufRead;

/// The next request's body on a keep-alive connection, or `None` once the
/// peer closed it (or sent less than it announced).
pub fn read_body(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut length = 0usize;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}
