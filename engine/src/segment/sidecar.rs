//! Sidecar files: a sealed segment's records without their values, with one
//! checksum over the lot. Reopening reads these instead of the segments.

use std::fs::{self, File};
use std::io::Write;
use std::path::Path;

use crate::codec::{
    FILE_HEADER_LEN, SIDECAR_ENTRY_PREFIX_LEN, SIDECAR_MAGIC, crc, decode_file_header,
    encode_file_header, u32_at,
};
use crate::error::{Error, Result};
use crate::segment::recovery::RecordVisit;
use crate::segment::sidecar_path;
use crate::segment::writer::sync_dir;

/// Writes (and syncs) the sidecar of segment `id` from its encoded entries.
pub(crate) fn write(dir: &Path, id: u64, entries: &[u8]) -> Result<()> {
    let path = sidecar_path(dir, id);
    let tmp = path.with_extension("idx.tmp");
    let mut f = File::create(&tmp).map_err(|e| Error::io("create", &tmp, e))?;
    let header = encode_file_header(SIDECAR_MAGIC, id);
    let c = crc(entries);
    f.write_all(&header)
        .and_then(|()| f.write_all(entries))
        .and_then(|()| f.write_all(&c.to_le_bytes()))
        .map_err(|e| Error::io("write", &tmp, e))?;
    f.sync_all().map_err(|e| Error::io("fsync", &tmp, e))?;
    fs::rename(&tmp, &path).map_err(|e| Error::io("rename", &path, e))?;
    sync_dir(dir)
}

/// Why a sidecar could not be used (the segment is then scanned instead).
#[derive(Debug)]
pub(crate) struct Unusable(pub String);

/// Reads the sidecar of segment `id`, whose file is `segment_len` bytes long,
/// and visits each record it describes.
pub(crate) fn load(
    dir: &Path,
    id: u64,
    segment_len: u64,
    mut visit: impl FnMut(RecordVisit<'_>) -> Result<()>,
) -> Result<std::result::Result<(), Unusable>> {
    let path = sidecar_path(dir, id);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Err(Unusable("missing".into())));
        }
        Err(e) => return Err(Error::io("open", &path, e)),
    };
    let len = file
        .metadata()
        .map_err(|e| Error::io("stat", &path, e))?
        .len();
    if len < FILE_HEADER_LEN as u64 + 4 {
        return Ok(Err(Unusable("too short".into())));
    }
    // Mapped rather than read: sidecars of a large store add up to hundreds of
    // megabytes, which would otherwise linger in the allocator after open.
    // SAFETY: sidecars are written whole under a temporary name and renamed;
    // nothing modifies a sidecar file in place.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io("mmap", &path, e))?;
    let buf: &[u8] = &map;
    match decode_file_header(buf, SIDECAR_MAGIC) {
        Ok(found) if found == id => {}
        other => return Ok(Err(Unusable(format!("bad header: {other:?}")))),
    }
    let Some(end) = buf.len().checked_sub(4).filter(|&e| e >= FILE_HEADER_LEN) else {
        return Ok(Err(Unusable("too short".into())));
    };
    let entries = &buf[FILE_HEADER_LEN..end];
    if u32_at(buf, end) != Some(crc(entries)) {
        return Ok(Err(Unusable("checksum mismatch".into())));
    }
    // Validate the whole file before visiting anything, so a bad sidecar
    // never leaves half its records applied.
    let mut spans = Vec::new();
    let mut pos = 0usize;
    let mut expected_offset = FILE_HEADER_LEN as u64;
    while pos < entries.len() {
        let (Some(offset), Some(len), Some(_crc), Some(stripped)) = (
            u32_at(entries, pos),
            u32_at(entries, pos + 4),
            u32_at(entries, pos + 8),
            u32_at(entries, pos + 12),
        ) else {
            return Ok(Err(Unusable("truncated entry".into())));
        };
        let body_start = pos + SIDECAR_ENTRY_PREFIX_LEN;
        let body_end = body_start + stripped as usize;
        if body_end > entries.len() || u64::from(offset) != expected_offset {
            return Ok(Err(Unusable("entries do not tile the segment".into())));
        }
        spans.push((offset, len, body_start, body_end));
        expected_offset += u64::from(len);
        pos = body_end;
    }
    if expected_offset != segment_len {
        return Ok(Err(Unusable(format!(
            "sidecar covers {expected_offset} bytes but the segment has {segment_len}"
        ))));
    }
    for (offset, len, body_start, body_end) in spans {
        visit(RecordVisit {
            offset,
            len,
            body: &entries[body_start..body_end],
            with_values: false,
        })?;
    }
    Ok(Ok(()))
}

/// Builds a sealed segment's sidecar by scanning it (every record checksum is
/// verified on the way, so a segment is read back once after it is sealed).
pub(crate) fn build(seg: &crate::segment::Segment, max_body: usize) -> Result<Vec<u8>> {
    let bytes = seg.bytes();
    let mut entries = Vec::new();
    crate::segment::recovery::scan(&seg.path, bytes, FILE_HEADER_LEN, false, max_body, |v| {
        let from = v.offset as usize;
        crate::codec::push_sidecar_entry(
            &mut entries,
            v.offset,
            &bytes[from..from + v.len as usize],
        );
        Ok(())
    })?;
    Ok(entries)
}
