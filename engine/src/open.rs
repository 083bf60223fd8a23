//! Opening a data directory: read the manifest, drop orphans of interrupted
//! work, load sealed segments from their sidecars, scan the active segment
//! (truncating a torn tail), and rebuild the index.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use crate::codec::{
    FILE_HEADER_LEN, HeaderError, Manifest, OpKind, SEGMENT_MAGIC, decode_file_header,
    encode_file_header, push_sidecar_entry, u64_at, walk_body,
};
use crate::error::{Error, Result};
use crate::index::builder::{Expiring, IndexBuilder};
use crate::index::revlog::TxnRef;
use crate::index::{Index, Loc, Version};
use crate::manifest;
use crate::options::Options;
use crate::segment::recovery::{RecordVisit, scan};
use crate::segment::writer::{ActiveSegment, sync_dir};
use crate::segment::{Segment, segment_path, sidecar, sidecar_path};
use crate::shared::{SegmentTable, Shared};

/// Everything recovered from disk.
pub(crate) struct Recovered {
    pub manifest: Manifest,
    pub segments: SegmentTable,
    pub index: Index,
    pub current: u64,
    pub last_time: u64,
    /// The segment to append to (write mode only).
    pub active: Option<ActiveSegment>,
    /// Keys whose newest version expires, by time.
    pub expiring: Expiring,
}

/// Rebuilds index state record by record, checking that revisions only grow.
struct Replayer {
    index: IndexBuilder,
    compacted: u64,
    last_rev: u64,
    last_time: u64,
}

impl Replayer {
    fn apply(&mut self, seg: &Segment, v: &RecordVisit<'_>, source: &Path) -> Result<()> {
        let rev = u64_at(v.body, 0)
            .ok_or_else(|| Error::corrupt(source, u64::from(v.offset), "short record"))?;
        if rev <= self.last_rev {
            return Err(Error::corrupt(
                source,
                u64::from(v.offset),
                format!("revision {rev} does not follow revision {}", self.last_rev),
            ));
        }
        let index = &mut self.index;
        let header = walk_body(v.body, v.with_values, |op| {
            let offset = v.offset
                + u32::try_from(crate::codec::RECORD_PREFIX_LEN + op.segment_pos)
                    .unwrap_or(u32::MAX);
            match op.header.kind {
                OpKind::Put => {
                    let v = Version {
                        rev,
                        loc: Loc::put(seg.id, offset),
                    };
                    index.push(op.key, v, op.header.expires_at);
                }
                OpKind::Delete => {
                    let v = Version {
                        rev,
                        loc: Loc::delete(seg.id, offset),
                    };
                    index.push(op.key, v, 0);
                }
            }
        })
        .map_err(|reason| Error::corrupt(source, u64::from(v.offset), reason))?;
        self.last_rev = rev;
        self.last_time = self.last_time.max(header.time_micros);
        seg.note_record(rev, u64::from(header.op_count));
        if rev > self.compacted {
            let pushed = self.index.revlog.push(TxnRef {
                rev,
                time_micros: header.time_micros,
                loc: Loc::put(seg.id, v.offset),
            });
            if !pushed {
                return Err(Error::corrupt(
                    source,
                    u64::from(v.offset),
                    format!("revision {rev} leaves a gap after the compaction point"),
                ));
            }
        }
        Ok(())
    }
}

fn open_segment_file(path: &Path, writable: bool) -> Result<(File, u64)> {
    let file = OpenOptions::new()
        .read(true)
        .write(writable)
        .open(path)
        .map_err(|e| Error::io("open", path, e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::io("stat", path, e))?
        .len();
    Ok((file, len))
}

fn id_of(name: &str, ext: &str) -> Option<u64> {
    let stem = name.strip_suffix(ext)?;
    (stem.len() == 16)
        .then(|| u64::from_str_radix(stem, 16).ok())
        .flatten()
}

/// Removes files no manifest names: outputs of an interrupted compaction or
/// segment roll, inputs of a finished one, temporary files.
fn remove_orphans(dir: &Path, keep: &HashSet<u64>) -> Result<()> {
    let entries = fs::read_dir(dir).map_err(|e| Error::io("read directory", dir, e))?;
    let mut removed = false;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read directory", dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let orphan = id_of(&name, ".seg")
            .or_else(|| id_of(&name, ".idx"))
            .is_some_and(|id| !keep.contains(&id))
            || name.ends_with(".tmp");
        if orphan {
            tracing::info!(file = %entry.path().display(), "removing file left by interrupted work");
            fs::remove_file(entry.path()).map_err(|e| Error::io("remove", entry.path(), e))?;
            removed = true;
        }
    }
    if removed {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Creates the first segment and manifest of a new data directory.
fn initialise(dir: &Path, options: &Options) -> Result<Manifest> {
    let entries = fs::read_dir(dir).map_err(|e| Error::io("read directory", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read directory", dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if id_of(&name, ".seg").is_some() {
            let len = entry
                .metadata()
                .map_err(|e| Error::io("stat", entry.path(), e))?
                .len();
            if len > FILE_HEADER_LEN as u64 {
                return Err(Error::corrupt(
                    manifest::manifest_path(dir),
                    0,
                    "MANIFEST is missing but the directory holds segments with data",
                ));
            }
        }
    }
    remove_orphans(dir, &HashSet::new())?;
    drop(ActiveSegment::create(dir, 1, options.segment_bytes)?);
    let m = Manifest {
        compacted_revision: 0,
        next_segment_id: 2,
        segments: vec![1],
    };
    manifest::write(dir, &m)?;
    Ok(m)
}

fn seg_id(id: u64, path: &Path) -> Result<u32> {
    u32::try_from(id)
        .ok()
        .filter(|&i| i <= Loc::MAX_SEGMENT)
        .ok_or_else(|| Error::corrupt(path, 0, "segment id out of range"))
}

pub(crate) fn recover(dir: &Path, options: &Options, read_only: bool) -> Result<Recovered> {
    let max_body = usize::try_from(options.max_txn_bytes).unwrap_or(usize::MAX);
    let manifest = match manifest::read(dir)? {
        Some(m) => m,
        None if read_only => {
            return Err(Error::InvalidArgument(format!(
                "{} is not a cairn data directory (no MANIFEST)",
                dir.display()
            )));
        }
        None => initialise(dir, options)?,
    };
    if !read_only {
        remove_orphans(dir, &manifest.segments.iter().copied().collect())?;
    }
    let mut replay = Replayer {
        index: IndexBuilder::default(),
        compacted: manifest.compacted_revision,
        last_rev: 0,
        last_time: 0,
    };
    let mut segments = SegmentTable::default();
    let mut active = None;
    let count = manifest.segments.len();
    for (i, &id) in manifest.segments.iter().enumerate() {
        let path = segment_path(dir, id);
        let last = i + 1 == count;
        let (file, mut len) = open_segment_file(&path, last && !read_only)?;
        let sid = seg_id(id, &path)?;
        let mut head = [0u8; FILE_HEADER_LEN];
        let got = file
            .read_at(&mut head, 0)
            .map_err(|e| Error::io("read", &path, e))?;
        match decode_file_header(&head[..got], SEGMENT_MAGIC) {
            Ok(found) if found == id => {}
            Ok(found) => {
                return Err(Error::corrupt(
                    &path,
                    16,
                    format!("header names segment {found}, expected {id}"),
                ));
            }
            Err(HeaderError::Version(v)) => {
                return Err(Error::UnsupportedFormat {
                    file: path,
                    found: v,
                    supported: crate::codec::FORMAT_VERSION,
                });
            }
            Err(_) if last && len <= FILE_HEADER_LEN as u64 => {
                // The segment was being created when the process stopped.
                if !read_only {
                    file.set_len(0)
                        .map_err(|e| Error::io("truncate", &path, e))?;
                    file.write_all_at(&encode_file_header(SEGMENT_MAGIC, id), 0)
                        .map_err(|e| Error::io("write", &path, e))?;
                    file.sync_all().map_err(|e| Error::io("fsync", &path, e))?;
                    len = FILE_HEADER_LEN as u64;
                } else {
                    len = 0;
                }
            }
            Err(e) => {
                return Err(Error::corrupt(
                    &path,
                    0,
                    format!("bad segment header ({e:?})"),
                ));
            }
        }
        let capacity = if last && !read_only {
            len.max(options.segment_bytes)
        } else {
            len
        };
        let seg = Arc::new(Segment::map(
            sid,
            path.clone(),
            &file,
            capacity.max(1),
            len,
        )?);
        let start = FILE_HEADER_LEN.min(usize::try_from(len).unwrap_or(0));
        if last {
            let end = scan(&path, seg.bytes(), start, true, max_body, |v| {
                replay.apply(&seg, &v, &path)
            })?;
            if let Some(reason) = end.torn {
                tracing::warn!(file = %path.display(), offset = end.valid_len, reason, dropped = len - end.valid_len,
                    "dropping the torn tail of the last segment (an unacknowledged write)");
                if !read_only {
                    file.set_len(end.valid_len)
                        .map_err(|e| Error::io("truncate", &path, e))?;
                    file.sync_all().map_err(|e| Error::io("fsync", &path, e))?;
                }
            }
            seg.set_committed(end.valid_len.min(len));
            if !read_only {
                let mut resumed =
                    ActiveSegment::resume(Arc::clone(&seg), file, end.valid_len, capacity);
                let zeroed = if end.torn.is_some() {
                    end.valid_len
                } else {
                    len
                };
                resumed.zero_fill_ahead(options.fill_ahead(), zeroed);
                active = Some(resumed);
            }
        } else {
            seg.sealed.store(true, std::sync::atomic::Ordering::Release);
            let side_path = sidecar_path(dir, id);
            let side = sidecar::load(dir, id, len, |v| replay.apply(&seg, &v, &side_path))?;
            if let Err(why) = side {
                tracing::warn!(segment = %path.display(), reason = why.0, "sidecar unusable; scanning the segment");
                let mut entries = Vec::new();
                scan(&path, seg.bytes(), start, false, max_body, |v| {
                    replay.apply(&seg, &v, &path)?;
                    let from = v.offset as usize;
                    push_sidecar_entry(
                        &mut entries,
                        v.offset,
                        &seg.bytes()[from..from + v.len as usize],
                    );
                    Ok(())
                })?;
                if !read_only {
                    sidecar::write(dir, id, &entries)?;
                }
            }
        }
        segments.insert(sid, seg);
        if i == 0 && count > 2 {
            replay.index.expect(1, count);
        }
    }
    let (mut index, expiring) = replay.index.finish();
    let mut dead = Vec::new();
    index.compact_some(manifest.compacted_revision, b"", usize::MAX, |v| {
        dead.push(v.loc)
    });
    Shared::note_dead(&segments, &dead);
    Ok(Recovered {
        current: replay.last_rev.max(manifest.compacted_revision),
        last_time: replay.last_time,
        manifest,
        segments,
        index,
        active,
        expiring,
    })
}
