//! Every byte layout of the data directory, in one place (see `FORMAT.md`).
//!
//! All integers are little-endian. A file starts with a 32-byte header; a
//! segment then holds transaction records, a sidecar holds the same records
//! with their values stripped, and the manifest lists the segments.

mod file_header;
#[cfg(test)]
mod fuzz_tests;
mod manifest;
mod record;
#[cfg(test)]
mod tests;

use crc32fast::Hasher;

// Callers name every layout as `codec::…`, whichever file defines it.
pub(crate) use file_header::{HeaderError, decode_file_header, encode_file_header};
pub(crate) use manifest::Manifest;
pub(crate) use record::{
    OpHeader, OpKind, RecordBuilder, RecordRead, TxnHeader, push_sidecar_entry, read_record,
    record_len, walk_body,
};

/// Version of every file this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
pub(crate) const SEGMENT_MAGIC: [u8; 8] = *b"CAIRNSEG";
pub(crate) const SIDECAR_MAGIC: [u8; 8] = *b"CAIRNIDX";
pub(crate) const MANIFEST_MAGIC: [u8; 8] = *b"CAIRNMAN";

/// magic(8) version(4) flags(4) id(8) reserved(4) crc(4)
pub(crate) const FILE_HEADER_LEN: usize = 32;
/// body_len(4) crc(4)
pub(crate) const RECORD_PREFIX_LEN: usize = 8;
/// revision(8) commit_time_micros(8) op_count(4)
pub(crate) const TXN_HEADER_LEN: usize = 20;
/// kind(1) reserved(3) key_len(4) value_len(4) create_revision(8) version(8) expires_at_micros(8)
pub(crate) const OP_HEADER_LEN: usize = 36;
/// record_offset(4) record_len(4) record_crc(4) stripped_len(4)
pub(crate) const SIDECAR_ENTRY_PREFIX_LEN: usize = 16;

pub(crate) fn u32_at(buf: &[u8], pos: usize) -> Option<u32> {
    let bytes = buf.get(pos..pos.checked_add(4)?)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

pub(crate) fn u64_at(buf: &[u8], pos: usize) -> Option<u64> {
    let bytes = buf.get(pos..pos.checked_add(8)?)?;
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

pub(crate) fn crc(bytes: &[u8]) -> u32 {
    let mut h = Hasher::new();
    h.update(bytes);
    h.finalize()
}
