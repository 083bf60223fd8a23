//! The active segment: appends, syncs, and sealing.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::codec::{FILE_HEADER_LEN, SEGMENT_MAGIC, encode_file_header};
use crate::error::{Error, Result};
use crate::segment::zero_fill::ZeroFill;
use crate::segment::{Segment, segment_path};

/// The segment the writer appends to.
pub(crate) struct ActiveSegment {
    pub seg: Arc<Segment>,
    file: Arc<File>,
    /// Bytes written to the file (durable once synced and published).
    pub written: u64,
    /// Mapped capacity; a record that would end past it starts a new segment.
    pub capacity: u64,
    /// Zeros kept ahead of the appends (commit segments only).
    fill: Option<Arc<ZeroFill>>,
    /// How far `fill` last said the file was ready.
    zero_ready: u64,
}

impl ActiveSegment {
    /// Creates a new, empty segment file (header written and synced). On
    /// failure no file is left behind (as far as the disk lets it be
    /// removed), so a later attempt can create the same id once space returns.
    pub(crate) fn create(dir: &Path, id: u64, capacity: u64) -> Result<ActiveSegment> {
        let path = segment_path(dir, id);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io("create", &path, e))?;
        Self::start(dir, id, path.clone(), file, capacity).inspect_err(|_| {
            if std::fs::remove_file(&path).is_ok() {
                let _ = sync_dir(dir);
            }
        })
    }

    fn start(
        dir: &Path,
        id: u64,
        path: std::path::PathBuf,
        file: File,
        capacity: u64,
    ) -> Result<ActiveSegment> {
        let header = encode_file_header(SEGMENT_MAGIC, id);
        crate::failpoint::io("segment:create-write")
            .and_then(|()| file.write_all_at(&header, 0))
            .map_err(|e| Error::io("write", &path, e))?;
        crate::failpoint::io("segment:create-sync")
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io("fsync", &path, e))?;
        crate::failpoint::io("segment:create-dir-sync")
            .map_err(|e| Error::io("fsync directory", dir, e))?;
        sync_dir(dir)?;
        let seg_id = u32::try_from(id)
            .map_err(|_| Error::InvalidArgument("segment id space exhausted".into()))?;
        let seg = Segment::map(seg_id, path, &file, capacity, FILE_HEADER_LEN as u64)?;
        Ok(ActiveSegment {
            seg: Arc::new(seg),
            file: Arc::new(file),
            written: FILE_HEADER_LEN as u64,
            capacity,
            fill: None,
            zero_ready: 0,
        })
    }

    /// Resumes appending to a recovered segment of `len` valid bytes.
    pub(crate) fn resume(seg: Arc<Segment>, file: File, len: u64, capacity: u64) -> ActiveSegment {
        ActiveSegment {
            seg,
            file: Arc::new(file),
            written: len,
            capacity,
            fill: None,
            zero_ready: 0,
        }
    }

    /// Keeps `ahead` bytes of zeros written past the appends from now on
    /// (see `zero_fill`; 0: never); the file holds zeros from `written` to
    /// `zeroed`.
    pub(crate) fn zero_fill_ahead(&mut self, ahead: u64, zeroed: u64) {
        if ahead == 0 {
            return;
        }
        let fill = ZeroFill::start(
            Arc::clone(&self.file),
            self.seg.path.clone(),
            self.written,
            zeroed,
            self.capacity,
            ahead,
        );
        self.zero_ready = fill.before_append(self.written);
        self.fill = Some(fill);
    }

    /// Whether `len` more bytes fit in the mapping.
    pub(crate) fn has_room(&self, len: u64) -> bool {
        self.written + len <= self.capacity
    }

    /// Appends bytes at the end of the file (not yet durable).
    pub(crate) fn append(&mut self, bytes: &[u8]) -> Result<()> {
        let end = self.written + bytes.len() as u64;
        if let Some(fill) = &self.fill
            && end > self.zero_ready
        {
            self.zero_ready = fill.before_append(end);
        }
        self.file
            .write_all_at(bytes, self.written)
            .map_err(|e| Error::io("write", &self.seg.path, e))?;
        self.written = end;
        if let Some(fill) = &self.fill {
            self.zero_ready = fill.after_append(end, self.zero_ready);
        }
        Ok(())
    }

    /// After a failed append: drops the zero fill and cuts the file back to
    /// its last append, durably, so the bytes a failed write left behind are
    /// gone. The fill is dropped because its zeros are cut too; it can be
    /// started again with `zero_fill_ahead`.
    pub(crate) fn cut_unwritten(&mut self) -> Result<()> {
        if let Some(fill) = self.fill.take() {
            fill.stop();
        }
        self.zero_ready = 0;
        self.file
            .set_len(self.written)
            .map_err(|e| Error::io("truncate", &self.seg.path, e))?;
        self.file
            .sync_all()
            .map_err(|e| Error::io("fsync", &self.seg.path, e))
    }

    /// fdatasync of the segment file.
    pub(crate) fn sync(&self) -> Result<()> {
        self.file
            .sync_data()
            .map_err(|e| Error::io("fdatasync", &self.seg.path, e))
    }

    /// Makes everything written visible to readers.
    pub(crate) fn publish(&self) {
        self.seg.set_committed(self.written);
    }

    /// Syncs the segment; it takes no more appends. Its sidecar is written
    /// afterwards, off the commit path (see `housekeeping`).
    pub(crate) fn seal(&mut self) -> Result<()> {
        crate::failpoint::io("segment:seal-sync")
            .map_err(|e| Error::io("fsync", &self.seg.path, e))?;
        match self.fill.take() {
            Some(fill) => {
                // Cut the zeros off: only the active segment may end in them.
                fill.stop();
                self.file
                    .set_len(self.written)
                    .map_err(|e| Error::io("truncate", &self.seg.path, e))?;
                self.file
                    .sync_all()
                    .map_err(|e| Error::io("fsync", &self.seg.path, e))?;
            }
            None => self.sync()?,
        }
        self.publish();
        self.seg.sealed.store(true, Ordering::Release);
        Ok(())
    }
}

impl Drop for ActiveSegment {
    /// A fill must not outlive the engine: a later open appends where it
    /// would be writing zeros.
    fn drop(&mut self) {
        if let Some(fill) = &self.fill {
            fill.stop();
        }
    }
}

/// fsync of a directory, so created, renamed and removed entries are durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io("fsync directory", dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutting_unwritten_bytes_leaves_the_file_at_its_last_append() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut active = ActiveSegment::create(dir.path(), 1, 8 << 20).expect("create");
        active.zero_fill_ahead(1 << 20, FILE_HEADER_LEN as u64);
        active.append(&[7u8; 100]).expect("append");
        let end = active.written;
        // What a write cut short by a full disk leaves past the last append.
        active
            .file
            .write_all_at(&[9u8; 300], end)
            .expect("partial write");
        active.cut_unwritten().expect("cut");
        let len = std::fs::metadata(&active.seg.path).expect("stat").len();
        assert_eq!(len, end, "the file ends at the last append");
        // Appends go on where the cut left the file, without a fill.
        active.append(&[8u8; 50]).expect("append after the cut");
        let bytes = std::fs::read(&active.seg.path).expect("read");
        assert_eq!(bytes.len() as u64, end + 50);
        assert!(
            bytes[usize::try_from(end).expect("small")..]
                .iter()
                .all(|&b| b == 8)
        );
        // A fill started again keeps zeros ahead of the appends.
        let written = active.written;
        active.zero_fill_ahead(1 << 20, written);
        let len = std::fs::metadata(&active.seg.path).expect("stat").len();
        assert!(len > written, "zeros ahead again");
    }
}
