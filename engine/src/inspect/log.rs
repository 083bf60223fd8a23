//! Reading a data directory's log record by record, without opening an
//! engine: every transaction with its file, offset, revision, commit time
//! and ops, filtered to what the engine retains or to the state at one
//! revision.
//!
//! Files are opened once, when the [`Log`] is, and read with `pread`, so a
//! directory whose writer is running can be read: records are immutable,
//! and a file its compaction shrinks under the reader is an error to retry,
//! not a crash.

use std::collections::HashMap;
use std::fs::File;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use crate::codec::{
    FILE_HEADER_LEN, HeaderError, OP_HEADER_LEN, OpKind, RECORD_PREFIX_LEN, TxnHeader, walk_body,
};
use crate::error::{Error, Result};
use crate::inspect::dir::list_data_dir;
use crate::inspect::records::{LogFilter, LogOp, LogRecord, LogSummary, TornTail, View};
use crate::inspect::stream::Stream;
use crate::inspect::walk::{SegmentWalk, Step};
use crate::options::Options;
use crate::record::{EventKind, time_from_micros};
use crate::revision::Revision;
use crate::segment::segment_path;

struct LogSegment {
    id: u64,
    path: PathBuf,
    file: File,
    len: u64,
}

/// A data directory's segments, opened for reading.
pub struct Log {
    compacted: Revision,
    segments: Vec<LogSegment>,
    max_body: usize,
}

impl std::fmt::Debug for Log {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Log")
            .field("compacted", &self.compacted)
            .field("segments", &self.segments.len())
            .finish_non_exhaustive()
    }
}

/// Each key's newest op at or below a revision: (revision, is a put).
type Newest = HashMap<Box<[u8]>, (u64, bool)>;

impl Log {
    /// Reads the manifest and opens every segment it names. Takes no lock and
    /// changes nothing.
    pub fn open(dir: impl AsRef<Path>, options: &Options) -> Result<Log> {
        let dir = dir.as_ref();
        let listing = list_data_dir(dir)?;
        let manifest = listing.manifest?.ok_or_else(|| {
            Error::corrupt(
                crate::manifest::manifest_path(dir),
                0,
                "MANIFEST is missing but the directory holds segments",
            )
        })?;
        let mut segments = Vec::with_capacity(manifest.segments.len());
        for &id in &manifest.segments {
            let path = segment_path(dir, id);
            let file = File::open(&path).map_err(|e| Error::io("open", &path, e))?;
            let len = file
                .metadata()
                .map_err(|e| Error::io("stat", &path, e))?
                .len();
            segments.push(LogSegment {
                id,
                path,
                file,
                len,
            });
        }
        Ok(Log {
            compacted: Revision(manifest.compacted_revision),
            segments,
            max_body: usize::try_from(options.max_txn_bytes).unwrap_or(usize::MAX),
        })
    }

    /// Reads below this revision fail.
    #[must_use]
    pub fn compacted_revision(&self) -> Revision {
        self.compacted
    }

    /// Bytes of the segment files, as they were when opened.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.len).sum()
    }

    /// The newest committed revision: that of the last valid record, or the
    /// compaction point if that is newer. Reads only the last segments.
    pub fn current_revision(&self) -> Result<Revision> {
        for (i, seg) in self.segments.iter().enumerate().rev() {
            let mut newest = 0;
            let last = i + 1 == self.segments.len();
            let _end = self.walk(seg, last, &mut 0, &|_| {}, |_, _, _, h| {
                newest = h.revision;
                Ok(ControlFlow::Continue(()))
            })?;
            if newest != 0 {
                return Ok(Revision(newest.max(self.compacted.get())));
            }
        }
        Ok(self.compacted)
    }

    /// Visits, in revision order, every record in the filter's range that has
    /// ops in its view (a view at a revision below the compaction point is
    /// [`Error::Compacted`]; one past the newest record shows the latest state). Stops early when `visit` breaks. `progress` is told
    /// how many more bytes were read, now and then.
    pub fn read(
        &self,
        filter: &LogFilter,
        progress: &dyn Fn(u64),
        mut visit: impl FnMut(&LogRecord<'_>) -> ControlFlow<()>,
    ) -> Result<LogSummary> {
        let (to, pivot) = match filter.view {
            View::At(r) if r < self.compacted => {
                return Err(Error::Compacted {
                    requested: r,
                    compacted: self.compacted,
                });
            }
            View::At(r) => (filter.to.min(r), r.get()),
            View::Physical | View::Retained => (filter.to, self.compacted.get()),
        };
        let newest = self.newest_through(pivot, progress)?;
        let mut summary = LogSummary::default();
        let mut last_rev = 0;
        for (i, seg) in self.segments.iter().enumerate() {
            let last = i + 1 == self.segments.len();
            let (flow, torn) = self.walk(
                seg,
                last,
                &mut last_rev,
                progress,
                |offset, len, body, h| {
                    let rev = h.revision;
                    if rev > to.get() {
                        return Ok(ControlFlow::Break(()));
                    }
                    if rev < filter.from.get() {
                        return Ok(ControlFlow::Continue(()));
                    }
                    let ops = decode_ops(&seg.path, offset, body, |kind, key| {
                        rev > pivot
                            || (kind == OpKind::Put && newest.get(key) == Some(&(rev, true)))
                    })?;
                    let ops: Vec<LogOp<'_>> = match filter.view {
                        View::Physical => ops,
                        View::Retained | View::At(_) => {
                            ops.into_iter().filter(|o| o.retained).collect()
                        }
                    };
                    if ops.is_empty() {
                        return Ok(ControlFlow::Continue(()));
                    }
                    summary.records += 1;
                    summary.ops += ops.len() as u64;
                    Ok(visit(&LogRecord {
                        file: &seg.path,
                        offset,
                        len: len as u64,
                        revision: Revision(rev),
                        time: time_from_micros(h.time_micros),
                        stored_ops: h.op_count,
                        ops,
                    }))
                },
            )?;
            summary.torn_tail = torn;
            if flow.is_break() {
                break;
            }
        }
        Ok(summary)
    }

    /// Each key's newest op at or below `through` (empty for 0).
    fn newest_through(&self, through: u64, progress: &dyn Fn(u64)) -> Result<Newest> {
        let mut newest = Newest::new();
        if through == 0 {
            return Ok(newest);
        }
        let mut last_rev = 0;
        for (i, seg) in self.segments.iter().enumerate() {
            let last = i + 1 == self.segments.len();
            let (flow, _) =
                self.walk(seg, last, &mut last_rev, progress, |offset, _, body, h| {
                    if h.revision > through {
                        return Ok(ControlFlow::Break(()));
                    }
                    walk_body(body, true, |op| {
                        let put = op.header.kind == OpKind::Put;
                        match newest.get_mut(op.key) {
                            Some(v) => *v = (h.revision, put),
                            None => {
                                newest.insert(op.key.into(), (h.revision, put));
                            }
                        }
                    })
                    .map_err(|reason| Error::corrupt(&seg.path, offset, reason))?;
                    Ok(ControlFlow::Continue(()))
                })?;
            if flow.is_break() {
                break;
            }
        }
        Ok(newest)
    }

    /// Walks one segment's valid records, checking its header, each
    /// record's checksum and that revisions only grow. A bad record in the
    /// last segment followed by no valid one is a torn tail; anything else
    /// bad is `Corrupt`.
    fn walk(
        &self,
        seg: &LogSegment,
        last: bool,
        last_rev: &mut u64,
        progress: &dyn Fn(u64),
        mut f: impl FnMut(u64, usize, &[u8], &TxnHeader) -> Result<ControlFlow<()>>,
    ) -> Result<(ControlFlow<()>, Option<TornTail>)> {
        let file = seg
            .file
            .try_clone()
            .map_err(|e| Error::io("open", &seg.path, e))?;
        let mut walk = SegmentWalk::new(
            Stream::new(file, seg.path.clone())?,
            self.max_body,
            progress,
        );
        match walk.header()? {
            Ok(id) if id == seg.id => {}
            Ok(id) => {
                return Err(Error::corrupt(
                    &seg.path,
                    16,
                    format!("header names segment {id}, expected {}", seg.id),
                ));
            }
            Err(HeaderError::Version(found)) => {
                return Err(Error::UnsupportedFormat {
                    file: seg.path.clone(),
                    found,
                    supported: crate::codec::FORMAT_VERSION,
                });
            }
            Err(_) if last && seg.len <= FILE_HEADER_LEN as u64 => {
                return Ok((ControlFlow::Continue(()), None));
            }
            Err(e) => {
                return Err(Error::corrupt(
                    &seg.path,
                    0,
                    format!("bad segment header ({e:?})"),
                ));
            }
        }
        let failure = loop {
            match walk.step()? {
                Step::End => return Ok((ControlFlow::Continue(()), None)),
                Step::Record { offset, record } => {
                    let (len, body) = (record.len(), &record[RECORD_PREFIX_LEN..]);
                    let header = header_of(body);
                    if header.revision <= *last_rev {
                        return Err(Error::corrupt(
                            &seg.path,
                            offset,
                            format!(
                                "revision {} does not follow revision {}",
                                header.revision, *last_rev
                            ),
                        ));
                    }
                    *last_rev = header.revision;
                    if f(offset, len, body, &header)?.is_break() {
                        return Ok((ControlFlow::Break(()), None));
                    }
                }
                Step::Bad { reason, .. } => break reason,
            }
        };
        if !last || walk.resync(*last_rev)?.is_some() {
            return Err(Error::corrupt(&seg.path, walk.offset(), failure));
        }
        Ok((ControlFlow::Continue(()), Some(walk.torn_tail(failure))))
    }
}

/// The fixed part of a body that passed its checksum (at least
/// `TXN_HEADER_LEN` bytes long, as `next_record` guarantees).
fn header_of(body: &[u8]) -> TxnHeader {
    TxnHeader {
        revision: crate::codec::u64_at(body, 0).unwrap_or(0),
        time_micros: crate::codec::u64_at(body, 8).unwrap_or(0),
        op_count: crate::codec::u32_at(body, 16).unwrap_or(0),
    }
}

/// Decodes a record's ops; `retained` says which the engine still holds.
fn decode_ops<'a>(
    file: &Path,
    record_offset: u64,
    body: &'a [u8],
    retained: impl Fn(OpKind, &[u8]) -> bool,
) -> Result<Vec<LogOp<'a>>> {
    let mut ops = Vec::new();
    walk_body(body, true, |op| {
        let h = op.header;
        let value_start = op.segment_pos + OP_HEADER_LEN + h.key_len as usize;
        let value = &body[value_start..value_start + h.value_len as usize];
        ops.push(LogOp {
            kind: match h.kind {
                OpKind::Put => EventKind::Put,
                OpKind::Delete => EventKind::Delete,
            },
            key: op.key,
            value,
            create_revision: Revision(h.create_revision),
            version: h.version,
            expires_at: (h.expires_at != 0).then(|| time_from_micros(h.expires_at)),
            offset: record_offset + (RECORD_PREFIX_LEN + op.segment_pos) as u64,
            retained: retained(h.kind, op.key),
        });
    })
    .map_err(|reason| Error::corrupt(file, record_offset, reason))?;
    Ok(ops)
}
