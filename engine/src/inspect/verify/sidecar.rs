//! Comparing a sealed segment's sidecar with the segment, entry by entry, as
//! the segment is scanned: a difference is reported at the exact byte. The
//! sidecar is streamed like the segment, and its checksum computed on the way.

use std::path::Path;

use crc32fast::Hasher;

use crate::codec::{
    FILE_HEADER_LEN, HeaderError, SIDECAR_ENTRY_PREFIX_LEN, SIDECAR_MAGIC, decode_file_header,
    u32_at,
};
use crate::inspect::stream::{CHUNK, Stream};
use crate::inspect::verify::Problem;

/// More differences than this in one sidecar are summed up in one problem.
const MAX_REPORTED: usize = 16;

pub(super) struct SidecarCheck {
    s: Stream,
    /// Offset of the next entry to compare.
    pos: u64,
    /// Where the entries end (the trailer's checksum starts).
    end: u64,
    /// CRC of the entry bytes before `pos`.
    hasher: Hasher,
    /// Entries still line up with the segment's records.
    in_step: bool,
    differences: usize,
    problems: Vec<Problem>,
}

fn field(i: usize) -> &'static str {
    match i {
        0..4 => "record offset",
        4..8 => "record length",
        8..12 => "record checksum",
        12..16 => "stripped length",
        _ => "record body",
    }
}

fn cannot_read(path: &Path, offset: u64, e: &crate::Error) -> Problem {
    Problem::error(path, offset, format!("cannot read: {e}"))
}

impl SidecarCheck {
    /// Opens the sidecar of segment `id`; `None` (with the problem) when it
    /// cannot be compared at all.
    pub(super) fn open(path: &Path, id: u64, problems: &mut Vec<Problem>) -> Option<SidecarCheck> {
        let mut s = match Stream::open(path) {
            Ok(s) => s,
            Err(e) => {
                problems.push(cannot_read(path, 0, &e));
                return None;
            }
        };
        let len = s.len();
        if len < (FILE_HEADER_LEN + 4) as u64 {
            problems.push(Problem::error(
                path,
                0,
                format!("sidecar of {len} bytes is shorter than its header and checksum"),
            ));
            return None;
        }
        let header = match s.window(0, FILE_HEADER_LEN) {
            Ok(h) => decode_file_header(h, SIDECAR_MAGIC),
            Err(e) => {
                problems.push(cannot_read(path, 0, &e));
                return None;
            }
        };
        let header_problem = match header {
            Ok(found) if found == id => None,
            Ok(found) => Some((16, format!("header names segment {found}, expected {id}"))),
            Err(HeaderError::Magic) => Some((0, "bad magic (not a cairn sidecar)".into())),
            Err(HeaderError::Checksum) => Some((28, "header checksum mismatch".into())),
            Err(HeaderError::Version(v)) => Some((8, format!("format version {v}"))),
            Err(HeaderError::Short) => Some((0, "header too short".into())),
        };
        if let Some((offset, what)) = header_problem {
            problems.push(Problem::error(
                path,
                offset,
                format!("{what}; the engine ignores this sidecar and rescans the segment"),
            ));
            return None;
        }
        Some(SidecarCheck {
            s,
            pos: FILE_HEADER_LEN as u64,
            end: len - 4,
            hasher: Hasher::new(),
            in_step: true,
            differences: 0,
            problems: Vec::new(),
        })
    }

    fn problem(&mut self, offset: u64, what: String) {
        let p = Problem::error(self.s.path(), offset, what);
        self.problems.push(p);
    }

    /// Compares the next entry with `expected`, the entry of the record at
    /// `record_offset` of the segment.
    pub(super) fn compare(&mut self, expected: &[u8], record_offset: u64) {
        if !self.in_step {
            return;
        }
        let want = usize::try_from(self.end - self.pos)
            .unwrap_or(usize::MAX)
            .min(expected.len());
        let actual = match self.s.window(self.pos, want) {
            Ok(a) => a,
            Err(e) => {
                let p = cannot_read(self.s.path(), self.pos, &e);
                self.problems.push(p);
                self.in_step = false;
                return;
            }
        };
        if actual == expected {
            self.hasher.update(actual);
            self.pos += expected.len() as u64;
            return;
        }
        let Some(i) = actual.iter().zip(expected).position(|(a, b)| a != b) else {
            self.in_step = false;
            self.problem(
                self.end,
                format!(
                    "the sidecar's entries end before the record at segment offset {record_offset}"
                ),
            );
            return;
        };
        let own_len = u32_at(actual, 12).map(|s| SIDECAR_ENTRY_PREFIX_LEN + s as usize);
        let keeps_step = own_len == Some(expected.len());
        if keeps_step {
            self.hasher.update(actual);
        }
        self.differences += 1;
        if self.differences <= MAX_REPORTED {
            self.problem(
                self.pos + i as u64,
                format!(
                    "sidecar entry of the record at segment offset {record_offset} differs from \
                     the segment ({})",
                    field(i)
                ),
            );
        }
        if keeps_step {
            self.pos += expected.len() as u64;
        } else {
            self.in_step = false;
        }
    }

    /// Stops comparing (the segment is damaged from here on).
    pub(super) fn abandon(&mut self) {
        self.in_step = false;
    }

    /// The problems found, each saying what the engine makes of the sidecar;
    /// `progress` is told the bytes read from the sidecar.
    pub(super) fn finish(mut self, progress: &dyn Fn(u64)) -> Vec<Problem> {
        let problems = self.conclude();
        progress(self.s.bytes_read());
        problems
    }

    fn conclude(&mut self) -> Vec<Problem> {
        let path = self.s.path().to_path_buf();
        if self.differences > MAX_REPORTED {
            let more = self.differences - MAX_REPORTED;
            self.problem(
                self.pos,
                format!("{more} more sidecar entries differ from the segment"),
            );
        }
        if self.in_step && self.pos != self.end {
            self.problem(
                self.pos,
                format!(
                    "the sidecar describes {} bytes of entries beyond the segment's last record",
                    self.end - self.pos
                ),
            );
        }
        // Checksum whatever was not compared.
        while self.pos < self.end {
            let n = usize::try_from(self.end - self.pos)
                .unwrap_or(usize::MAX)
                .min(CHUNK);
            match self.s.window(self.pos, n) {
                Ok(b) => self.hasher.update(b),
                Err(e) => {
                    self.problems.push(cannot_read(&path, self.pos, &e));
                    return std::mem::take(&mut self.problems);
                }
            }
            self.pos += n as u64;
        }
        let stored = self.s.window(self.end, 4).ok().and_then(|b| u32_at(b, 0));
        let trusted = stored == Some(self.hasher.clone().finalize());
        let consequence = if trusted {
            "its checksum holds, so the engine trusts it: reads can return wrong records"
        } else {
            "its checksum fails, so the engine ignores it and rescans the segment"
        };
        for p in &mut self.problems {
            p.reason = format!(
                "{}; {consequence} (`cairn-store repair` rewrites it)",
                p.reason
            );
        }
        if !trusted && self.problems.is_empty() {
            self.problems.push(Problem::error(
                &path,
                self.end,
                "sidecar checksum mismatch; the engine ignores it and rescans the segment \
                 (`cairn-store repair` rewrites it)",
            ));
        }
        std::mem::take(&mut self.problems)
    }
}
