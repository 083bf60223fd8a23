//! Checking a snapshot file, and restoring it as a new data directory whose
//! segments hold its records at their original revisions.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crc32fast::Hasher;

use crate::codec::{
    FILE_HEADER_LEN, HeaderError, Manifest, OpKind, RECORD_PREFIX_LEN, SEGMENT_MAGIC,
    decode_file_header, encode_file_header, push_sidecar_entry, u32_at, walk_body,
};
use crate::error::{Error, Result};
use crate::inspect::stream::{Next, Stream, next_record};
use crate::lock::{DirLock, LOCK_FILE, lock_holder};
use crate::manifest;
use crate::options::Options;
use crate::record::time_from_micros;
use crate::revision::Revision;
use crate::segment::{segment_path, sidecar};
use crate::snapshot::format::{PREAMBLE_LEN, Preamble, SNAPSHOT_MAGIC, TRAILER_LEN, Trailer};
use crate::snapshot::{Contents, SnapshotInfo};

/// Walks a snapshot's records, checking its header, each record's checksum
/// and, at the end, the file's checksum and counts' framing.
fn walk(
    file: &Path,
    options: &Options,
    progress: &dyn Fn(u64),
    mut visit: impl FnMut(&Preamble, u64, &[u8]) -> Result<()>,
) -> Result<(Preamble, Trailer, u64)> {
    let max_body = usize::try_from(options.max_txn_bytes).unwrap_or(usize::MAX);
    let mut s = Stream::open(file)?;
    let len = s.len();
    if len < (PREAMBLE_LEN + TRAILER_LEN) as u64 {
        return Err(Error::corrupt(
            file,
            0,
            format!("{len} bytes: too short for a snapshot"),
        ));
    }
    let mut hasher = Hasher::new();
    let head = s.window(0, PREAMBLE_LEN)?;
    let id = match decode_file_header(head, SNAPSHOT_MAGIC) {
        Ok(id) => id,
        Err(HeaderError::Version(found)) => {
            return Err(Error::UnsupportedFormat {
                file: file.to_path_buf(),
                found,
                supported: crate::codec::FORMAT_VERSION,
            });
        }
        Err(HeaderError::Checksum) => {
            return Err(Error::corrupt(file, 28, "header checksum mismatch"));
        }
        Err(_) => return Err(Error::corrupt(file, 0, "not a cairn snapshot (bad magic)")),
    };
    let preamble = Preamble::decode(head)
        .ok_or_else(|| Error::corrupt(file, 56, "unknown snapshot contents"))?;
    if id != preamble.revision {
        return Err(Error::corrupt(
            file,
            16,
            format!(
                "header names revision {id}, the meta block {}",
                preamble.revision
            ),
        ));
    }
    hasher.update(head);
    let records_end = len - TRAILER_LEN as u64;
    let mut pos = PREAMBLE_LEN as u64;
    let mut reported = 0;
    while pos < records_end {
        let read = s.bytes_read();
        progress(read - reported);
        reported = read;
        match next_record(&mut s, pos, max_body)? {
            Next::Record(rec) if pos + rec.len() as u64 <= records_end => {
                hasher.update(rec);
                let n = rec.len() as u64;
                visit(&preamble, pos, rec)?;
                pos += n;
            }
            Next::Record(_) => {
                return Err(Error::corrupt(file, pos, "record runs into the trailer"));
            }
            Next::Bad(reason) => return Err(Error::corrupt(file, pos, reason)),
            Next::End => break,
        }
    }
    let tail = s.window(records_end, TRAILER_LEN)?;
    hasher.update(&tail[..TRAILER_LEN - 4]);
    if u32_at(tail, TRAILER_LEN - 4) != Some(hasher.finalize()) {
        return Err(Error::corrupt(file, len - 4, "snapshot checksum mismatch"));
    }
    let trailer =
        Trailer::decode(tail).ok_or_else(|| Error::corrupt(file, records_end, "short trailer"))?;
    if trailer.records_len != records_end - PREAMBLE_LEN as u64 {
        return Err(Error::corrupt(
            file,
            records_end,
            format!(
                "trailer counts {} bytes of records, the file holds {}",
                trailer.records_len,
                records_end - PREAMBLE_LEN as u64
            ),
        ));
    }
    progress(s.bytes_read() - reported);
    Ok((preamble, trailer, len))
}

/// Checks a snapshot file completely: its checksums, and that its records
/// describe a state (puts only, each key once) or, in a history snapshot,
/// a history (each key once at or below the compaction point it was saved
/// at, and as a put there), with revisions increasing up to the snapshot's,
/// per-op rules as in a segment, and counts as the trailer says.
pub fn verify(
    file: impl AsRef<Path>,
    options: &Options,
    progress: &dyn Fn(u64),
) -> Result<SnapshotInfo> {
    let file = file.as_ref();
    let mut keys: HashSet<Box<[u8]>> = HashSet::new();
    let (mut records, mut ops, mut last_rev) = (0u64, 0u64, 0u64);
    // Known once the preamble is read, before the first record.
    let mut state_through = u64::MAX;
    let (preamble, trailer, bytes) = walk(file, options, progress, |preamble, offset, rec| {
        if preamble.history {
            state_through = preamble.source_compacted;
        }
        let bad = |reason: String| Error::corrupt(file, offset, reason);
        let checked = crate::inspect::verify::check_record(rec, offset, None).map_err(&bad)?;
        if let Some(p) = checked.problem {
            return Err(bad(p));
        }
        let rev = checked.header.revision;
        if rev <= last_rev {
            return Err(bad(format!("revision {rev} out of order after {last_rev}")));
        }
        last_rev = rev;
        let mut problem = None;
        walk_body(&rec[RECORD_PREFIX_LEN..], true, |op| {
            ops += 1;
            if rev > state_through {
                return;
            }
            if op.header.kind != OpKind::Put {
                problem.get_or_insert_with(|| "a snapshot holds puts only".to_string());
            }
            if !keys.insert(op.key.into()) {
                problem
                    .get_or_insert_with(|| format!("key {} appears twice", op.key.escape_ascii()));
            }
        })
        .map_err(|r| bad(r.to_string()))?;
        records += 1;
        problem.map_or(Ok(()), |p| Err(bad(p)))
    })?;
    if last_rev > preamble.revision {
        return Err(Error::corrupt(
            file,
            PREAMBLE_LEN as u64,
            format!(
                "a record at revision {last_rev} is past the snapshot's {}",
                preamble.revision
            ),
        ));
    }
    if trailer.keys != ops || trailer.records != records {
        return Err(Error::corrupt(
            file,
            bytes - TRAILER_LEN as u64,
            format!(
                "trailer counts {} keys in {} records; the file holds {ops} in {records}",
                trailer.keys, trailer.records,
            ),
        ));
    }
    Ok(info(file, &preamble, &trailer, bytes))
}

fn info(file: &Path, p: &Preamble, t: &Trailer, bytes: u64) -> SnapshotInfo {
    SnapshotInfo {
        file: file.to_path_buf(),
        revision: Revision(p.revision),
        source_compacted: Revision(p.source_compacted),
        contents: if p.history {
            Contents::History
        } else {
            Contents::State
        },
        created: time_from_micros(p.created_micros),
        keys: t.keys,
        records: t.records,
        bytes,
    }
}

/// Refuses a restore target that another process holds or that has files.
fn check_target(dir: &Path) -> Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    if let Some(holder) = lock_holder(dir) {
        return Err(Error::Locked {
            lock_file: dir.join(LOCK_FILE),
            holder,
        });
    }
    ensure_empty(dir)
}

/// Refuses a directory holding anything but a lock file.
fn ensure_empty(dir: &Path) -> Result<()> {
    let entries = fs::read_dir(dir).map_err(|e| Error::io("read directory", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read directory", dir, e))?;
        if entry.file_name() != LOCK_FILE {
            return Err(Error::InvalidArgument(format!(
                "{} is not empty (it holds {}); a snapshot is restored into a new directory",
                dir.display(),
                entry.file_name().to_string_lossy()
            )));
        }
    }
    Ok(())
}

/// The segment being written.
struct Output {
    id: u64,
    path: PathBuf,
    out: BufWriter<File>,
    len: u64,
    entries: Vec<u8>,
}

impl Output {
    fn create(dir: &Path, id: u64) -> Result<Output> {
        let path = segment_path(dir, id);
        let f = File::create_new(&path).map_err(|e| Error::io("create", &path, e))?;
        let mut out = BufWriter::with_capacity(1 << 20, f);
        out.write_all(&encode_file_header(SEGMENT_MAGIC, id))
            .map_err(|e| Error::io("write", &path, e))?;
        Ok(Output {
            id,
            path,
            out,
            len: FILE_HEADER_LEN as u64,
            entries: Vec::new(),
        })
    }

    fn append(&mut self, rec: &[u8]) -> Result<()> {
        let offset = u32::try_from(self.len).expect("segments stay below 4 GiB");
        push_sidecar_entry(&mut self.entries, offset, rec);
        self.len += rec.len() as u64;
        self.out
            .write_all(rec)
            .map_err(|e| Error::io("write", &self.path, e))
    }

    /// Syncs the segment; a sealed one gets its sidecar.
    fn finish(self, dir: &Path, sealed: bool) -> Result<()> {
        let f = self
            .out
            .into_inner()
            .map_err(|e| Error::io("write", &self.path, e.into_error()))?;
        f.sync_all()
            .map_err(|e| Error::io("fsync", &self.path, e))?;
        if sealed {
            sidecar::write(dir, self.id, &self.entries)?;
        }
        Ok(())
    }
}

/// Restores `file` into `dir`, which must be absent or empty: verifies the
/// snapshot first, then writes its records at their original revisions into
/// segments of at most `options.segment_bytes` (sealed ones with sidecars)
/// and, last, a manifest whose compaction point is the snapshot's revision
/// (the source's compaction point, for a history snapshot). The result
/// opens at the snapshot's revision; reads below the compaction point are
/// `Compacted`.
pub fn restore(
    file: impl AsRef<Path>,
    dir: impl AsRef<Path>,
    options: &Options,
    progress: &dyn Fn(u64),
) -> Result<SnapshotInfo> {
    let (file, dir) = (file.as_ref(), dir.as_ref());
    check_target(dir)?;
    let info = verify(file, options, progress)?;
    fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
    let _lock = DirLock::acquire(dir)?;
    // Checked again under the lock: another restore may have raced us.
    ensure_empty(dir)?;
    let mut ids = Vec::new();
    let result = write_segments(file, dir, options, progress, &mut ids).and_then(|()| {
        let compacted = match info.contents {
            Contents::State => info.revision,
            Contents::History => info.source_compacted,
        };
        let m = Manifest {
            compacted_revision: compacted.get(),
            next_segment_id: ids.last().map_or(1, |id| id + 1),
            segments: ids.clone(),
        };
        manifest::write(dir, &m)
    });
    if let Err(e) = result {
        for &id in &ids {
            let _ = fs::remove_file(segment_path(dir, id));
            let _ = fs::remove_file(crate::segment::sidecar_path(dir, id));
        }
        return Err(e);
    }
    Ok(info)
}

fn write_segments(
    file: &Path,
    dir: &Path,
    options: &Options,
    progress: &dyn Fn(u64),
    ids: &mut Vec<u64>,
) -> Result<()> {
    ids.push(1);
    let mut out = Output::create(dir, 1)?;
    walk(file, options, progress, |_, _, rec| {
        if out.len > FILE_HEADER_LEN as u64 && out.len + rec.len() as u64 > options.segment_bytes {
            let next = Output::create(dir, out.id + 1)?;
            ids.push(next.id);
            std::mem::replace(&mut out, next).finish(dir, true)?;
        }
        out.append(rec)
    })?;
    out.finish(dir, false)?;
    crate::segment::writer::sync_dir(dir)
}
