//! Cheap scanning of what the servers send (watch lines, list metadata, object
//! names and keys) without parsing whole JSON documents.

use std::sync::LazyLock;

use memchr::memmem::{self, Finder};

/// The trailing decimal number of an object name or storage key:
/// `ev-123` and `/registry/events/ns-3/ev-123` both give 123.
pub fn trailing_index(s: &[u8]) -> Option<u64> {
    let digits = s.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 19 {
        return None;
    }
    std::str::from_utf8(&s[s.len() - digits..])
        .ok()?
        .parse()
        .ok()
}

/// Finds the string value of a `"key":"value"` pair with a prebuilt searcher.
struct Field(Finder<'static>);

impl Field {
    fn new(key: &str) -> Self {
        Self(Finder::new(format!("\"{key}\":\"").as_bytes()).into_owned())
    }

    fn find<'a>(&self, doc: &'a [u8]) -> Option<&'a [u8]> {
        let start = self.0.find(doc)? + self.0.needle().len();
        let len = memchr::memchr(b'"', &doc[start..])?;
        Some(&doc[start..start + len])
    }
}

/// The searchers of the per-event path, built once.
struct WatchFields {
    kind: Field,
    metadata: Finder<'static>,
    name: Field,
}

static WATCH: LazyLock<WatchFields> = LazyLock::new(|| WatchFields {
    kind: Field::new("type"),
    metadata: Finder::new(b"\"metadata\":{").into_owned(),
    name: Field::new("name"),
});

/// The string value of the first `"key":"value"` pair in `doc`.
pub fn string_field<'a>(doc: &'a [u8], key: &str) -> Option<&'a [u8]> {
    Field::new(key).find(doc)
}

/// The `metadata.name` of a watch line whose type is `ADDED`; `None` for other
/// types (bookmarks, errors) or a line cut short.
pub fn added_name(line: &[u8]) -> Option<&[u8]> {
    let w = &*WATCH;
    if w.kind.find(&line[..line.len().min(64)])? != b"ADDED" {
        return None;
    }
    let meta = w.metadata.find(line)?;
    w.name.find(&line[meta..])
}

/// A list response's `metadata.continue`, if there are more pages.
pub fn continue_token(body: &[u8]) -> Option<String> {
    let t = string_field(body, "continue")?;
    (!t.is_empty()).then(|| String::from_utf8_lossy(t).into_owned())
}

/// The first `resourceVersion` in a document: a list's own (it precedes the items).
pub fn resource_version(doc: &[u8]) -> Option<u64> {
    std::str::from_utf8(string_field(doc, "resourceVersion")?)
        .ok()?
        .parse()
        .ok()
}

/// Percent-encodes a query parameter value (RFC 3986 unreserved characters stay).
pub fn query_escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Splits a byte stream into lines and hands on the first `cap` bytes of
/// each, however the stream is chunked; the rest of a line is only scanned
/// for its end (memchr), never copied.
pub struct LineHeads {
    head: Vec<u8>,
    cap: usize,
    partial: bool,
}

impl LineHeads {
    pub fn new(cap: usize) -> Self {
        Self {
            head: Vec::with_capacity(cap),
            cap,
            partial: false,
        }
    }

    /// Feeds one chunk; `f` gets the head of every line completed in it.
    pub fn feed(&mut self, mut chunk: &[u8], mut f: impl FnMut(&[u8])) {
        while !chunk.is_empty() {
            match memchr::memchr(b'\n', chunk) {
                Some(i) => {
                    let line = &chunk[..i];
                    if self.partial {
                        self.push(line);
                        f(&self.head);
                        self.head.clear();
                        self.partial = false;
                    } else {
                        f(&line[..line.len().min(self.cap)]);
                    }
                    chunk = &chunk[i + 1..];
                }
                None => {
                    self.push(chunk);
                    self.partial = true;
                    return;
                }
            }
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        let room = self.cap - self.head.len();
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

/// Counts occurrences of a needle in a chunked byte stream, including those
/// that straddle two chunks.
pub struct StreamCounter {
    finder: memmem::Finder<'static>,
    tail: Vec<u8>,
    count: u64,
    bytes: u64,
}

impl StreamCounter {
    pub fn new(needle: &[u8]) -> Self {
        assert!(!needle.is_empty());
        Self {
            finder: memmem::Finder::new(needle).into_owned(),
            tail: Vec::new(),
            count: 0,
            bytes: 0,
        }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        let keep = self.finder.needle().len() - 1;
        self.bytes += chunk.len() as u64;
        if !self.tail.is_empty() {
            // Only matches that straddle the boundary: the tail is shorter
            // than the needle, and so is the part of the chunk added to it.
            let mut joint = self.tail.clone();
            joint.extend_from_slice(&chunk[..chunk.len().min(keep)]);
            self.count += self.finder.find_iter(&joint).count() as u64;
        }
        self.count += self.finder.find_iter(chunk).count() as u64;
        if chunk.len() >= keep {
            self.tail.clear();
            self.tail.extend_from_slice(&chunk[chunk.len() - keep..]);
        } else {
            self.tail.extend_from_slice(chunk);
            let excess = self.tail.len().saturating_sub(keep);
            self.tail.drain(..excess);
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &[u8] = br#"{"type":"ADDED","object":{"kind":"Event","apiVersion":"v1","metadata":{"name":"ev-4711","namespace":"ns-1","resourceVersion":"9"},"involvedObject":{"kind":"Pod","name":"pod-4711"},"message":"xx"}}"#;

    #[test]
    fn names_and_indexes() {
        assert_eq!(added_name(LINE), Some(&b"ev-4711"[..]));
        let modified = String::from_utf8_lossy(LINE).replace("ADDED", "MODIFIED");
        assert_eq!(added_name(modified.as_bytes()), None);
        assert_eq!(added_name(br#"{"type":"BOOKMARK","object":{}}"#), None);
        assert_eq!(
            added_name(br#"{"type":"ADDED","object":{"metadata":{"na"#),
            None
        );
        assert_eq!(trailing_index(b"ev-4711"), Some(4711));
        assert_eq!(trailing_index(b"/registry/events/ns-3/ev-0"), Some(0));
        assert_eq!(trailing_index(b"ev-"), None);
        assert_eq!(trailing_index(b"ev-99999999999999999999999"), None);
    }

    #[test]
    fn list_metadata() {
        let page = br#"{"kind":"EventList","apiVersion":"v1","metadata":{"resourceVersion":"1234","continue":"eyJydiI6MTIzNH0="},"items":[{"metadata":{"resourceVersion":"7"}}]}"#;
        assert_eq!(resource_version(page), Some(1234));
        assert_eq!(continue_token(page).as_deref(), Some("eyJydiI6MTIzNH0="));
        let last =
            br#"{"kind":"EventList","metadata":{"resourceVersion":"5","continue":""},"items":[]}"#;
        assert_eq!(continue_token(last), None);
        assert_eq!(
            continue_token(br#"{"metadata":{"resourceVersion":"5"}}"#),
            None
        );
        assert_eq!(query_escape("a+b/c=="), "a%2Bb%2Fc%3D%3D");
        assert_eq!(query_escape("ok-_.~9"), "ok-_.~9");
    }

    #[test]
    fn line_heads_survive_any_chunking() {
        let mut stream = Vec::new();
        for i in 0..50 {
            stream.extend_from_slice(&LINE[..LINE.len() - 2]);
            stream.extend_from_slice(format!("{}}}}}\n", "y".repeat(i * 7)).as_bytes());
        }
        for size in [1, 2, 3, 7, 64, 100, 1000, stream.len()] {
            let mut lines = LineHeads::new(128);
            let mut names = Vec::new();
            for chunk in stream.chunks(size) {
                lines.feed(chunk, |head| {
                    assert!(head.len() <= 128);
                    names.push(added_name(head).map(<[u8]>::to_vec));
                });
            }
            assert_eq!(names.len(), 50, "chunk size {size}");
            assert!(names.iter().all(|n| n.as_deref() == Some(&b"ev-4711"[..])));
        }
    }

    #[test]
    fn stream_counter_counts_straddling_matches_once() {
        let item = br#"{"kind":"Event","apiVersion":"v1"},"#;
        let mut body = br#"{"kind":"EventList","items":["#.to_vec();
        for _ in 0..1000 {
            body.extend_from_slice(item);
        }
        for size in [1, 2, 5, 13, 14, 15, 4096, body.len()] {
            let mut c = StreamCounter::new(br#""kind":"Event""#);
            for chunk in body.chunks(size) {
                c.feed(chunk);
            }
            assert_eq!(c.count(), 1000, "chunk size {size}");
            assert_eq!(c.bytes(), body.len() as u64);
        }
    }
}
