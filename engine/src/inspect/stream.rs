//! Sequential reading of a data file in large chunks with `pread`.
//!
//! Offline tools read files another process may still own. A memory map of a
//! file that process shrinks (compaction retires segments a step at a time)
//! faults with SIGBUS; a `pread` merely comes back short, which is reported
//! as an error. Reading in chunks of a few MiB also keeps the bytes in the
//! CPU cache between the copy and the checksum.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::codec::{RECORD_PREFIX_LEN, TXN_HEADER_LEN, crc, u32_at, u64_at};
use crate::error::{Error, Result};
use crate::segment::recovery::next_valid_record;

/// Bytes read per `pread`. Small enough that the kernel's copy lands in L2
/// and the checksum reads it from there: on the `verify` benchmark's 1 GiB
/// directory (cairn-store's `benches/verify.rs`), CPU time of a one-thread
/// verify was 0.19-0.20 s with 128-256 KiB chunks against 0.21-0.26 s with
/// 1-4 MiB, and 0.33 s through a populated memory map.
pub(crate) const CHUNK: usize = 256 << 10;

/// A file read front to back through a window that only moves forward.
pub(crate) struct Stream {
    file: File,
    path: PathBuf,
    len: u64,
    buf: Vec<u8>,
    /// File offset of `buf[0]`.
    start: u64,
    /// Bytes of `buf` holding file data.
    filled: usize,
    /// Bytes read from the file so far.
    read: u64,
}

impl Stream {
    /// Opens `path`; its length is taken now and never re-read.
    pub(crate) fn open(path: &Path) -> Result<Stream> {
        let file = File::open(path).map_err(|e| Error::io("open", path, e))?;
        Stream::new(file, path.to_path_buf())
    }

    /// Reads an already open file (a tool keeps files open across passes).
    pub(crate) fn new(file: File, path: PathBuf) -> Result<Stream> {
        let len = file
            .metadata()
            .map_err(|e| Error::io("stat", &path, e))?
            .len();
        Ok(Stream {
            file,
            path,
            len,
            buf: Vec::new(),
            start: 0,
            filled: 0,
            read: 0,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Bytes read from the file so far (for progress reports).
    pub(crate) fn bytes_read(&self) -> u64 {
        self.read
    }

    /// Bytes `[off, off + n)` of the file, fewer where the file ends first.
    /// `off` must not be below the start of the previous window.
    pub(crate) fn window(&mut self, off: u64, n: usize) -> Result<&[u8]> {
        let end = off.saturating_add(n as u64).min(self.len);
        let want = usize::try_from(end.saturating_sub(off)).unwrap_or(usize::MAX);
        let have_end = self.start + self.filled as u64;
        if off >= self.start && end <= have_end {
            let s = usize::try_from(off - self.start).unwrap_or(usize::MAX);
            return Ok(&self.buf[s..s + want]);
        }
        debug_assert!(off >= self.start, "the window only moves forward");
        if off < have_end {
            let s = usize::try_from(off - self.start).unwrap_or(usize::MAX);
            self.buf.copy_within(s..self.filled, 0);
            self.filled -= s;
        } else {
            self.filled = 0;
        }
        self.start = off;
        let cap = want.max(CHUNK);
        if self.buf.len() < cap {
            self.buf.resize(cap, 0);
        }
        let readable = usize::try_from(self.len - self.start)
            .unwrap_or(usize::MAX)
            .min(self.buf.len());
        while self.filled < want {
            let at = self.start + self.filled as u64;
            let got = self
                .file
                .read_at(&mut self.buf[self.filled..readable], at)
                .map_err(|e| Error::io("read", &self.path, e))?;
            if got == 0 {
                return Err(Error::io(
                    "read",
                    &self.path,
                    std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!(
                            "the file ended at byte {at}, before its length of {} bytes when \
                             opened: another process changed it (compaction?); retry",
                            self.len
                        ),
                    ),
                ));
            }
            self.filled += got;
            self.read += got as u64;
        }
        Ok(&self.buf[..want])
    }
}

impl Stream {
    /// Whether the file holds only zeros from `off` to its end (the active
    /// segment's zero-filled space past its records). Reads past the window,
    /// leaving it where it is.
    pub(crate) fn zeros_from(&mut self, off: u64) -> Result<bool> {
        let mut chunk = vec![0u8; CHUNK];
        let mut at = off;
        while at < self.len {
            let want = usize::try_from(self.len - at).map_or(CHUNK, |left| left.min(CHUNK));
            let got = self
                .file
                .read_at(&mut chunk[..want], at)
                .map_err(|e| Error::io("read", &self.path, e))?;
            if got == 0 {
                break;
            }
            self.read += got as u64;
            if chunk[..got].iter().any(|&b| b != 0) {
                return Ok(false);
            }
            at += got as u64;
        }
        Ok(true)
    }
}

/// The outcome of reading the record at an offset.
pub(crate) enum Next<'a> {
    /// A whole record (length prefix included) whose checksum holds.
    Record(&'a [u8]),
    /// The file ends here, or only zeros follow (see `segment::zero_fill`).
    End,
    /// No valid record starts here.
    Bad(&'static str),
}

/// Reads the record at `pos` (see `codec::read_record`, whose checks this
/// repeats on a window instead of a whole file).
pub(crate) fn next_record(s: &mut Stream, pos: u64, max_body: usize) -> Result<Next<'_>> {
    if pos >= s.len() {
        return Ok(Next::End);
    }
    let prefix = s.window(pos, RECORD_PREFIX_LEN)?;
    // No record starts with a zero length: zeros there may be the fill.
    let starts_zero = prefix.iter().take(4).all(|&b| b == 0);
    if starts_zero && s.zeros_from(pos)? {
        return Ok(Next::End);
    }
    let prefix = s.window(pos, RECORD_PREFIX_LEN)?;
    let (Some(body_len), Some(want_crc)) = (u32_at(prefix, 0), u32_at(prefix, 4)) else {
        return Ok(Next::Bad("record runs past the end of the file"));
    };
    let body_len = body_len as usize;
    if body_len < TXN_HEADER_LEN || body_len > max_body {
        return Ok(Next::Bad("record length out of range"));
    }
    let len = RECORD_PREFIX_LEN + body_len;
    let rec = s.window(pos, len)?;
    if rec.len() < len {
        return Ok(Next::Bad("record runs past the end of the file"));
    }
    if crc(&rec[RECORD_PREFIX_LEN..]) != want_crc {
        return Ok(Next::Bad("record checksum mismatch"));
    }
    Ok(Next::Record(rec))
}

/// Where the next valid record newer than `after_rev` starts, at or after
/// `pos + 1`, if anywhere: first where the bad record's own length says it
/// ends (damage inside a record), else at any later byte.
pub(crate) fn resync(
    s: &mut Stream,
    pos: u64,
    max_body: usize,
    after_rev: u64,
) -> Result<Option<u64>> {
    let rest = usize::try_from(s.len() - pos).unwrap_or(usize::MAX);
    let buf = s.window(pos, rest)?;
    if let Some(len) = u32_at(buf, 0) {
        let end = RECORD_PREFIX_LEN + len as usize;
        let fits = len as usize >= TXN_HEADER_LEN && len as usize <= max_body;
        if fits
            && end < buf.len()
            && u64_at(buf, end + RECORD_PREFIX_LEN).is_some_and(|r| r > after_rev)
            && matches!(
                crate::codec::read_record(buf, end, max_body),
                crate::codec::RecordRead::Ok { .. }
            )
        {
            return Ok(Some(pos + end as u64));
        }
    }
    Ok(next_valid_record(buf, 1, max_body, after_rev).map(|p| pos + p as u64))
}
