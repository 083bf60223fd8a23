//! The 32-byte header every engine file starts with: magic, format version,
//! the file's id, and a checksum over the rest.

use super::{FILE_HEADER_LEN, FORMAT_VERSION, crc, u32_at, u64_at};

/// The 32-byte header every engine file starts with.
pub(crate) fn encode_file_header(magic: [u8; 8], id: u64) -> [u8; FILE_HEADER_LEN] {
    let mut h = [0u8; FILE_HEADER_LEN];
    h[..8].copy_from_slice(&magic);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[16..24].copy_from_slice(&id.to_le_bytes());
    let c = crc(&h[..28]);
    h[28..32].copy_from_slice(&c.to_le_bytes());
    h
}

/// Why a file header was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum HeaderError {
    Short,
    Magic,
    Checksum,
    Version(u32),
}

/// Checks a file header and returns the id it names.
pub(crate) fn decode_file_header(buf: &[u8], magic: [u8; 8]) -> Result<u64, HeaderError> {
    let h = buf.get(..FILE_HEADER_LEN).ok_or(HeaderError::Short)?;
    if h[..8] != magic {
        return Err(HeaderError::Magic);
    }
    if u32_at(h, 28) != Some(crc(&h[..28])) {
        return Err(HeaderError::Checksum);
    }
    let version = u32_at(h, 8).ok_or(HeaderError::Short)?;
    if version != FORMAT_VERSION {
        return Err(HeaderError::Version(version));
    }
    u64_at(h, 16).ok_or(HeaderError::Short)
}
