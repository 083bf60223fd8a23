//! Incremental decoding of an HTTP/1.1 response head and chunked body, handing
//! out slices of the input (no copies), for the lean watch reader and writer.

/// Where the decoder is in the chunked framing.
#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// Reading the hex size; `digits` seen so far.
    Size {
        value: u64,
        digits: u8,
    },
    /// Skipping a chunk extension up to the end of the size line.
    Extension {
        value: u64,
    },
    /// Saw '\r' after the size line.
    SizeLf {
        value: u64,
    },
    Data {
        left: u64,
    },
    DataCr,
    DataLf,
    /// After the last chunk: at the start of a trailer line or the final CRLF.
    TrailerStart,
    TrailerLine,
    EndLf,
    Done,
}

/// A chunked-body decoder fed arbitrary pieces of the byte stream.
#[derive(Debug)]
pub struct Chunked {
    state: State,
}

impl Default for Chunked {
    fn default() -> Self {
        Self {
            state: State::Size {
                value: 0,
                digits: 0,
            },
        }
    }
}

impl Chunked {
    /// Decodes `input`, passing every piece of chunk data to `data`. Returns
    /// `Ok(true)` once the terminating chunk (and trailers) ended the body.
    pub fn feed(&mut self, mut input: &[u8], mut data: impl FnMut(&[u8])) -> Result<bool, String> {
        while let Some((&b, rest)) = input.split_first() {
            self.state = match self.state {
                State::Data { left } => {
                    let n = input.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                    data(&input[..n]);
                    input = &input[n..];
                    let left = left - n as u64;
                    self.state = if left == 0 {
                        State::DataCr
                    } else {
                        State::Data { left }
                    };
                    continue;
                }
                State::Size { value, digits } => match b {
                    b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F' if digits < 15 => State::Size {
                        value: value * 16 + u64::from((b as char).to_digit(16).unwrap_or(0)),
                        digits: digits + 1,
                    },
                    b';' | b' ' | b'\t' if digits > 0 => State::Extension { value },
                    b'\r' if digits > 0 => State::SizeLf { value },
                    b'\n' if digits > 0 => Self::after_size(value),
                    _ => return Err(format!("bad chunk size byte {b:#04x}")),
                },
                State::Extension { value } => match b {
                    b'\n' => Self::after_size(value),
                    _ => State::Extension { value },
                },
                State::SizeLf { value } => match b {
                    b'\n' => Self::after_size(value),
                    _ => return Err("chunk size line without LF".into()),
                },
                State::DataCr => match b {
                    b'\r' => State::DataLf,
                    b'\n' => State::Size {
                        value: 0,
                        digits: 0,
                    },
                    _ => return Err("chunk data longer than its size".into()),
                },
                State::DataLf => match b {
                    b'\n' => State::Size {
                        value: 0,
                        digits: 0,
                    },
                    _ => return Err("chunk data without CRLF".into()),
                },
                State::TrailerStart => match b {
                    b'\r' => State::EndLf,
                    b'\n' => State::Done,
                    _ => State::TrailerLine,
                },
                State::TrailerLine => match b {
                    b'\n' => State::TrailerStart,
                    _ => State::TrailerLine,
                },
                State::EndLf => match b {
                    b'\n' => State::Done,
                    _ => return Err("bad end of chunked body".into()),
                },
                State::Done => return Ok(true),
            };
            input = rest;
        }
        Ok(self.state == State::Done)
    }

    fn after_size(value: u64) -> State {
        if value == 0 {
            State::TrailerStart
        } else {
            State::Data { left: value }
        }
    }
}

/// A parsed response head.
#[derive(Debug, PartialEq)]
pub struct Head {
    pub status: u16,
    pub chunked: bool,
    /// The `Content-Length` header's value, when sent.
    pub content_length: Option<usize>,
    /// Bytes the head took, including its final CRLF CRLF.
    pub len: usize,
}

/// Parses a response head from the start of `buf`; `Ok(None)` while incomplete.
pub fn parse_head(buf: &[u8]) -> Result<Option<Head>, String> {
    let Some(end) = memchr::memmem::find(buf, b"\r\n\r\n") else {
        return Ok(None);
    };
    let text = std::str::from_utf8(&buf[..end]).map_err(|_| "response head is not UTF-8")?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .strip_prefix("HTTP/1.1 ")
        .or_else(|| status_line.strip_prefix("HTTP/1.0 "))
        .and_then(|s| s.get(..3))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let (mut chunked, mut content_length) = (false, None);
    for (name, value) in lines.filter_map(|l| l.split_once(':')) {
        let name = name.trim();
        if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked |= value.to_ascii_lowercase().contains("chunked");
        } else if name.eq_ignore_ascii_case("content-length") {
            let n = value
                .trim()
                .parse()
                .map_err(|_| format!("bad content-length {value:?}"))?;
            content_length = Some(n);
        }
    }
    Ok(Some(Head {
        status,
        chunked,
        content_length,
        len: end + 4,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(pieces: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        for p in pieces {
            out.extend_from_slice(format!("{:x}\r\n{p}\r\n", p.len()).as_bytes());
        }
        out.extend_from_slice(b"0\r\n\r\n");
        out
    }

    #[test]
    fn decodes_any_split_of_the_stream() {
        let pieces = ["{\"a\":1}\n", &"x".repeat(300), "{\"b\":2}\n{\"c\":3}\n"];
        let want: String = pieces.concat();
        let wire = encode(&pieces);
        for size in [1, 2, 3, 5, 17, 64, wire.len()] {
            let mut d = Chunked::default();
            let mut got = Vec::new();
            let mut done = false;
            for piece in wire.chunks(size) {
                assert!(!done, "data after the end");
                done = d.feed(piece, |b| got.extend_from_slice(b)).unwrap();
            }
            assert!(done, "split {size}");
            assert_eq!(String::from_utf8(got).unwrap(), want, "split {size}");
        }
    }

    #[test]
    fn extensions_trailers_and_errors() {
        let mut d = Chunked::default();
        let mut got = Vec::new();
        let wire = b"3;ext=1\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n";
        assert!(d.feed(wire, |b| got.extend_from_slice(b)).unwrap());
        assert_eq!(got, b"abc");
        assert!(Chunked::default().feed(b"zz\r\n", |_| {}).is_err());
        assert!(Chunked::default().feed(b"2\r\nabc\r\n", |_| {}).is_err());
        assert!(!Chunked::default().feed(b"5\r\nab", |_| {}).unwrap());
    }

    #[test]
    fn response_heads() {
        let head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n";
        let h = parse_head(head).unwrap().unwrap();
        assert_eq!(
            h,
            Head {
                status: 200,
                chunked: true,
                content_length: None,
                len: head.len() - 3
            }
        );
        assert_eq!(parse_head(b"HTTP/1.1 200 OK\r\nx: y\r\n").unwrap(), None);
        let gone = parse_head(b"HTTP/1.1 410 Gone\r\ncontent-length: 2\r\n\r\n{}")
            .unwrap()
            .unwrap();
        assert_eq!(
            (gone.status, gone.chunked, gone.content_length),
            (410, false, Some(2))
        );
        assert!(parse_head(b"HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n").is_err());
        assert!(parse_head(b"SMTP 220\r\n\r\n").is_err());
    }
}
