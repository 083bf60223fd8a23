//! The active segment: appends, syncs, and sealing.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::codec::{FILE_HEADER_LEN, SEGMENT_MAGIC, encode_file_header};
use crate::error::{Error, Result};
use crate::segment::{Segment, segment_path};

/// The segment the writer appends to.
pub(crate) struct ActiveSegment {
    pub seg: Arc<Segment>,
    file: File,
    /// Bytes written to the file (durable once synced and published).
    pub written: u64,
    /// Mapped capacity; a record that would end past it starts a new segment.
    pub capacity: u64,
}

impl ActiveSegment {
    /// Creates a new, empty segment file (header written and synced).
    pub(crate) fn create(dir: &Path, id: u64, capacity: u64) -> Result<ActiveSegment> {
        let path = segment_path(dir, id);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io("create", &path, e))?;
        let header = encode_file_header(SEGMENT_MAGIC, id);
        file.write_all_at(&header, 0)
            .map_err(|e| Error::io("write", &path, e))?;
        file.sync_all().map_err(|e| Error::io("fsync", &path, e))?;
        sync_dir(dir)?;
        let seg_id = u32::try_from(id)
            .map_err(|_| Error::InvalidArgument("segment id space exhausted".into()))?;
        let seg = Segment::map(seg_id, path, &file, capacity, FILE_HEADER_LEN as u64)?;
        Ok(ActiveSegment {
            seg: Arc::new(seg),
            file,
            written: FILE_HEADER_LEN as u64,
            capacity,
        })
    }

    /// Resumes appending to a recovered segment of `len` valid bytes.
    pub(crate) fn resume(seg: Arc<Segment>, file: File, len: u64, capacity: u64) -> ActiveSegment {
        ActiveSegment {
            seg,
            file,
            written: len,
            capacity,
        }
    }

    /// Whether `len` more bytes fit in the mapping.
    pub(crate) fn has_room(&self, len: u64) -> bool {
        self.written + len <= self.capacity
    }

    /// Appends bytes at the end of the file (not yet durable).
    pub(crate) fn append(&mut self, bytes: &[u8]) -> Result<()> {
        self.file
            .write_all_at(bytes, self.written)
            .map_err(|e| Error::io("write", &self.seg.path, e))?;
        self.written += bytes.len() as u64;
        Ok(())
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
        self.sync()?;
        self.publish();
        self.seg.sealed.store(true, Ordering::Release);
        Ok(())
    }
}

/// fsync of a directory, so created, renamed and removed entries are durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io("fsync directory", dir, e))
}
