//! Saving the state of a data directory at one revision into a snapshot file.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crc32fast::Hasher;

use crate::codec::{OpHeader, OpKind, RecordBuilder};
use crate::error::{Error, Result};
use crate::inspect::{Log, LogFilter, View};
use crate::options::Options;
use crate::record::EventKind;
use crate::record::{micros_since_epoch, time_from_micros};
use crate::revision::Revision;
use crate::segment::writer::sync_dir;
use crate::snapshot::format::{Preamble, Trailer};
use crate::snapshot::{Contents, SnapshotInfo};

/// A file written through a running CRC-32.
struct Hashed {
    out: BufWriter<File>,
    path: PathBuf,
    hasher: Hasher,
    written: u64,
}

impl Hashed {
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.hasher.update(bytes);
        self.written += bytes.len() as u64;
        self.out
            .write_all(bytes)
            .map_err(|e| Error::io("write", &self.path, e))
    }
}

/// `file` with `.tmp` appended to its name.
fn tmp_path(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    file.with_file_name(name)
}

/// Writes the state of `dir` at `at` (default: the current revision), or
/// its retained history up to `at`, as `contents` says, to `file`,
/// atomically (a temporary file renamed into place, then synced).
/// Reads the directory without its lock, so it works beside a running
/// writer: records at or below `at` never change, and a file compaction
/// removes mid-read makes it fail rather than save a mix.
pub fn save(
    dir: impl AsRef<Path>,
    file: impl AsRef<Path>,
    at: Option<Revision>,
    contents: Contents,
    options: &Options,
    progress: &dyn Fn(u64),
) -> Result<SnapshotInfo> {
    let file = file.as_ref();
    let log = Log::open(dir, options)?;
    let compacted = log.compacted_revision();
    let current = log.current_revision()?;
    let revision = at.unwrap_or(current);
    if revision < compacted {
        return Err(Error::Compacted {
            requested: revision,
            compacted,
        });
    }
    if revision > current {
        return Err(Error::FutureRevision {
            requested: revision,
            current,
        });
    }
    let tmp = tmp_path(file);
    let written = write(&log, &tmp, revision, contents, progress);
    let result = written.and_then(|info| {
        crate::failpoint::hit("snapshot:before-rename");
        fs::rename(&tmp, file).map_err(|e| Error::io("rename", file, e))?;
        let parent = file
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        sync_dir(parent)?;
        Ok(SnapshotInfo {
            file: file.to_path_buf(),
            ..info
        })
    });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn write(
    log: &Log,
    tmp: &Path,
    revision: Revision,
    contents: Contents,
    progress: &dyn Fn(u64),
) -> Result<SnapshotInfo> {
    let f = File::create(tmp).map_err(|e| Error::io("create", tmp, e))?;
    let mut w = Hashed {
        out: BufWriter::with_capacity(1 << 20, f),
        path: tmp.to_path_buf(),
        hasher: Hasher::new(),
        written: 0,
    };
    let preamble = Preamble {
        revision: revision.get(),
        source_compacted: log.compacted_revision().get(),
        created_micros: micros_since_epoch(SystemTime::now()),
        history: contents == Contents::History,
    };
    w.write(&preamble.encode())?;
    let mut trailer = Trailer::default();
    let mut buf = Vec::new();
    let mut failed = None;
    let filter = LogFilter {
        from: Revision::ZERO,
        to: revision,
        view: match contents {
            Contents::State => View::At(revision),
            Contents::History => View::Retained,
        },
    };
    log.read(&filter, progress, |rec| {
        buf.clear();
        let mut b =
            RecordBuilder::begin(&mut buf, rec.revision.get(), micros_since_epoch(rec.time));
        for op in &rec.ops {
            let header = OpHeader {
                kind: match op.kind {
                    EventKind::Put => OpKind::Put,
                    EventKind::Delete => OpKind::Delete,
                },
                key_len: u32::try_from(op.key.len()).expect("keys of a record fit u32"),
                value_len: u32::try_from(op.value.len()).expect("values of a record fit u32"),
                create_revision: op.create_revision.get(),
                version: op.version,
                expires_at: op.expires_at.map_or(0, micros_since_epoch),
            };
            b.push_op(&mut buf, &header, op.key, op.value);
        }
        b.finish(&mut buf);
        if let Err(e) = w.write(&buf) {
            failed = Some(e);
            return std::ops::ControlFlow::Break(());
        }
        trailer.records += 1;
        trailer.keys += rec.ops.len() as u64;
        trailer.records_len += buf.len() as u64;
        std::ops::ControlFlow::Continue(())
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    w.write(&trailer.encode_counts())?;
    let sum = w.hasher.clone().finalize();
    w.write(&sum.to_le_bytes())?;
    let f = w
        .out
        .into_inner()
        .map_err(|e| Error::io("write", tmp, e.into_error()))?;
    f.sync_all().map_err(|e| Error::io("fsync", tmp, e))?;
    Ok(SnapshotInfo {
        file: tmp.to_path_buf(),
        revision,
        source_compacted: log.compacted_revision(),
        contents,
        created: time_from_micros(preamble.created_micros),
        keys: trailer.keys,
        records: trailer.records,
        bytes: w.written,
    })
}
