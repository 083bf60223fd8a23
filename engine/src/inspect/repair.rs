//! Explicit repair of a data directory, reporting exactly what it changes.
//!
//! Repair does what a writable open would do silently, and nothing more:
//! it truncates a torn tail of the last segment (an interrupted write that
//! was never acknowledged), rewrites the header of a last segment that was
//! being created, rewrites sidecars that are missing or do not match their
//! segment, and deletes files no manifest names. Damage anywhere else (a
//! bad record followed by valid ones, a damaged sealed segment or manifest)
//! would lose acknowledged writes if cut away: repair refuses, naming the
//! file and offset, and changes nothing. It plans everything first and
//! acts only if the whole plan is possible, holding the directory's lock.

use std::fs::{self, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::codec::{
    FILE_HEADER_LEN, HeaderError, SEGMENT_MAGIC, SIDECAR_MAGIC, crc, decode_file_header,
    encode_file_header, push_sidecar_entry,
};
use crate::error::{Error, Result};
use crate::inspect::dir::list_data_dir;
use crate::inspect::records::TornTail;
use crate::lock::DirLock;
use crate::manifest;
use crate::options::Options;
use crate::segment::recovery::scan;
use crate::segment::writer::sync_dir;
use crate::segment::{segment_path, sidecar, sidecar_path};

/// One change repair makes (or, in a dry run, would make).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RepairAction {
    /// Cut the last segment at `offset`, dropping `bytes` bytes.
    TruncateTail(TornTail),
    /// Rewrote the header of a last segment shorter than it (it was being
    /// created; it held no record).
    RewriteHeader {
        /// The segment.
        file: PathBuf,
        /// Its length before.
        bytes: u64,
    },
    /// Wrote a sealed segment's sidecar anew from the segment.
    RewriteSidecar {
        /// The sidecar.
        file: PathBuf,
        /// What was wrong with the old one.
        reason: String,
    },
    /// Deleted a file the manifest does not name.
    RemoveFile {
        /// The file.
        file: PathBuf,
        /// Its size.
        bytes: u64,
    },
}

/// What [`repair`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepairReport {
    /// Every change, in the order made.
    pub actions: Vec<RepairAction>,
    /// False for a dry run.
    pub applied: bool,
}

/// Repairs `dir` (see the module docs); with `dry_run`, only reports.
/// Fails with [`Error::Locked`] while another process holds the directory,
/// and with [`Error::Corrupt`] for damage repair must not cut away.
pub fn repair(dir: impl AsRef<Path>, options: &Options, dry_run: bool) -> Result<RepairReport> {
    let dir = dir.as_ref();
    // Refuse a path that is not a data directory before the lock creates a file in it.
    list_data_dir(dir)?;
    let _lock = DirLock::acquire(dir)?;
    let listing = crate::inspect::dir::list(dir)?;
    let mpath = manifest::manifest_path(dir);
    let m = listing.manifest?.ok_or_else(|| {
        Error::corrupt(&mpath, 0, "MANIFEST is missing; repair cannot rebuild it")
    })?;
    let max_body = usize::try_from(options.max_txn_bytes).unwrap_or(usize::MAX);
    let mut actions = Vec::new();
    let named: std::collections::HashSet<u64> = m.segments.iter().copied().collect();
    let mut orphans: Vec<PathBuf> = listing
        .segments
        .iter()
        .chain(&listing.sidecars)
        .filter(|(id, _)| !named.contains(id))
        .map(|(_, p)| p.clone())
        .collect();
    orphans.extend(listing.temporary);
    for file in orphans {
        let bytes = fs::metadata(&file).map_or(0, |m| m.len());
        actions.push(RepairAction::RemoveFile { file, bytes });
    }
    let mut sidecars = Vec::new();
    for (i, &id) in m.segments.iter().enumerate() {
        let path = segment_path(dir, id);
        let buf = fs::read(&path).map_err(|e| Error::io("read", &path, e))?;
        let last = i + 1 == m.segments.len();
        match decode_file_header(&buf, SEGMENT_MAGIC) {
            Ok(found) if found == id => {}
            Err(_) if last && buf.len() <= FILE_HEADER_LEN => {
                actions.push(RepairAction::RewriteHeader {
                    file: path,
                    bytes: buf.len() as u64,
                });
                continue;
            }
            Err(HeaderError::Version(found)) => {
                return Err(Error::UnsupportedFormat {
                    file: path,
                    found,
                    supported: crate::codec::FORMAT_VERSION,
                });
            }
            other => {
                return Err(Error::corrupt(
                    &path,
                    0,
                    format!("bad segment header ({other:?}); repair cannot rebuild it"),
                ));
            }
        }
        let mut entries = Vec::new();
        let end = scan(&path, &buf, FILE_HEADER_LEN, last, max_body, |v| {
            if !last {
                let from = v.offset as usize;
                push_sidecar_entry(&mut entries, v.offset, &buf[from..from + v.len as usize]);
            }
            Ok(())
        })?;
        if let Some(reason) = end.torn {
            actions.push(RepairAction::TruncateTail(TornTail {
                file: path.clone(),
                offset: end.valid_len,
                bytes: buf.len() as u64 - end.valid_len,
                reason: reason.to_string(),
            }));
        }
        if !last && let Some(reason) = sidecar_fault(dir, id, &entries) {
            actions.push(RepairAction::RewriteSidecar {
                file: sidecar_path(dir, id),
                reason,
            });
            sidecars.push((id, entries));
        }
    }
    if !dry_run {
        apply(dir, &actions, &sidecars)?;
    }
    Ok(RepairReport {
        actions,
        applied: !dry_run,
    })
}

/// Why the sidecar of segment `id` is not exactly the one its `entries`
/// call for; `None` when it is.
fn sidecar_fault(dir: &Path, id: u64, entries: &[u8]) -> Option<String> {
    let path = sidecar_path(dir, id);
    let have = match fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some("missing".into()),
        Err(e) => return Some(format!("unreadable: {e}")),
    };
    let mut want = encode_file_header(SIDECAR_MAGIC, id).to_vec();
    want.extend_from_slice(entries);
    want.extend_from_slice(&crc(entries).to_le_bytes());
    if have == want {
        return None;
    }
    let at = have
        .iter()
        .zip(&want)
        .position(|(a, b)| a != b)
        .unwrap_or(have.len().min(want.len()));
    Some(format!(
        "differs from the segment's records at byte {at} ({} bytes, {} expected)",
        have.len(),
        want.len()
    ))
}

fn apply(dir: &Path, actions: &[RepairAction], sidecars: &[(u64, Vec<u8>)]) -> Result<()> {
    for action in actions {
        match action {
            RepairAction::RemoveFile { file, .. } => {
                fs::remove_file(file).map_err(|e| Error::io("remove", file, e))?;
            }
            RepairAction::RewriteHeader { file, .. } => {
                let f = OpenOptions::new()
                    .write(true)
                    .open(file)
                    .map_err(|e| Error::io("open", file, e))?;
                let id = crate::inspect::dir::id_of(
                    &file.file_name().unwrap_or_default().to_string_lossy(),
                    ".seg",
                )
                .unwrap_or_default();
                f.set_len(0)
                    .and_then(|()| f.write_all_at(&encode_file_header(SEGMENT_MAGIC, id), 0))
                    .and_then(|()| f.sync_all())
                    .map_err(|e| Error::io("write", file, e))?;
            }
            RepairAction::TruncateTail(t) => {
                let f = OpenOptions::new()
                    .write(true)
                    .open(&t.file)
                    .map_err(|e| Error::io("open", &t.file, e))?;
                f.set_len(t.offset)
                    .and_then(|()| f.sync_all())
                    .map_err(|e| Error::io("truncate", &t.file, e))?;
            }
            RepairAction::RewriteSidecar { .. } => {}
        }
    }
    for (id, entries) in sidecars {
        sidecar::write(dir, *id, entries)?;
    }
    sync_dir(dir)
}

/// The torn tail of `dir`'s last segment, if it has one (read-only; used to
/// refuse writes that would otherwise truncate it silently).
pub fn torn_tail(dir: impl AsRef<Path>, options: &Options) -> Result<Option<TornTail>> {
    let dir = dir.as_ref();
    let listing = list_data_dir(dir)?;
    let Some(m) = listing.manifest? else {
        return Ok(None);
    };
    let Some(&id) = m.segments.last() else {
        return Ok(None);
    };
    let path = segment_path(dir, id);
    let buf = fs::read(&path).map_err(|e| Error::io("read", &path, e))?;
    if buf.len() <= FILE_HEADER_LEN {
        return Ok(None);
    }
    let max_body = usize::try_from(options.max_txn_bytes).unwrap_or(usize::MAX);
    let end = scan(&path, &buf, FILE_HEADER_LEN, true, max_body, |_| Ok(()))?;
    Ok(end.torn.map(|reason| TornTail {
        file: path,
        offset: end.valid_len,
        bytes: buf.len() as u64 - end.valid_len,
        reason: reason.to_string(),
    }))
}
