//! The byte layout of a snapshot file (see `FORMAT.md`, "Snapshot file").
//!
//! ```text
//! 0       32  file header: magic "CAIRNSNP", version, flags, id = revision, CRC
//! 32      8   revision R
//! 40      8   the source's compaction point when saved (informational)
//! 48      8   creation time, µs since the Unix epoch (informational)
//! 56      8   contents: 0 = the state at R, 1 = the retained history up to R
//! 64      ..  records, encoded exactly as in a segment
//! end-28  8   bytes of records
//! end-20  8   keys (ops in all records)
//! end-12  8   records
//! end-4   4   CRC-32 of every byte before it
//! ```

use crate::codec::{FILE_HEADER_LEN, encode_file_header, u64_at};

pub(crate) const SNAPSHOT_MAGIC: [u8; 8] = *b"CAIRNSNP";
/// Header and the meta block after it.
pub(crate) const PREAMBLE_LEN: usize = FILE_HEADER_LEN + 32;
/// records_len(8) keys(8) records(8) crc(4)
pub(crate) const TRAILER_LEN: usize = 28;

/// The `contents` word of a snapshot holding the state at its revision.
const CONTENTS_STATE: u64 = 0;
/// The `contents` word of a snapshot holding the retained history.
const CONTENTS_HISTORY: u64 = 1;

/// The fixed fields of a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Preamble {
    pub revision: u64,
    pub source_compacted: u64,
    pub created_micros: u64,
    /// Whether the records are the source's retained history (deletes and
    /// superseded versions after its compaction point included) rather than
    /// the state at `revision`.
    pub history: bool,
}

impl Preamble {
    pub(crate) fn encode(&self) -> [u8; PREAMBLE_LEN] {
        let mut out = [0u8; PREAMBLE_LEN];
        out[..FILE_HEADER_LEN].copy_from_slice(&encode_file_header(SNAPSHOT_MAGIC, self.revision));
        out[32..40].copy_from_slice(&self.revision.to_le_bytes());
        out[40..48].copy_from_slice(&self.source_compacted.to_le_bytes());
        out[48..56].copy_from_slice(&self.created_micros.to_le_bytes());
        let contents = if self.history {
            CONTENTS_HISTORY
        } else {
            CONTENTS_STATE
        };
        out[56..64].copy_from_slice(&contents.to_le_bytes());
        out
    }

    /// Decodes the meta block (the header is checked separately); `None`
    /// when it is short or names contents this version does not know.
    pub(crate) fn decode(buf: &[u8]) -> Option<Preamble> {
        let history = match u64_at(buf, 56)? {
            CONTENTS_STATE => false,
            CONTENTS_HISTORY => true,
            _ => return None,
        };
        Some(Preamble {
            revision: u64_at(buf, 32)?,
            source_compacted: u64_at(buf, 40)?,
            created_micros: u64_at(buf, 48)?,
            history,
        })
    }
}

/// The counts closing a snapshot (before its checksum).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Trailer {
    pub records_len: u64,
    pub keys: u64,
    pub records: u64,
}

impl Trailer {
    /// The trailer without its checksum (which covers these bytes too).
    pub(crate) fn encode_counts(&self) -> [u8; TRAILER_LEN - 4] {
        let mut out = [0u8; TRAILER_LEN - 4];
        out[..8].copy_from_slice(&self.records_len.to_le_bytes());
        out[8..16].copy_from_slice(&self.keys.to_le_bytes());
        out[16..24].copy_from_slice(&self.records.to_le_bytes());
        out
    }

    pub(crate) fn decode(buf: &[u8]) -> Option<Trailer> {
        Some(Trailer {
            records_len: u64_at(buf, 0)?,
            keys: u64_at(buf, 8)?,
            records: u64_at(buf, 16)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::decode_file_header;

    #[test]
    fn preamble_and_trailer_round_trip() {
        let p = Preamble {
            revision: 42,
            source_compacted: 7,
            created_micros: 1_700_000_000_000_000,
            history: false,
        };
        let bytes = p.encode();
        assert_eq!(decode_file_header(&bytes, SNAPSHOT_MAGIC), Ok(42));
        assert_eq!(Preamble::decode(&bytes), Some(p));
        assert_eq!(&bytes[56..64], &[0; 8]);
        let h = Preamble { history: true, ..p };
        let mut bytes = h.encode();
        assert_eq!(Preamble::decode(&bytes), Some(h));
        bytes[56] = 2;
        assert_eq!(Preamble::decode(&bytes), None, "unknown contents");
        let t = Trailer {
            records_len: 1000,
            keys: 12,
            records: 5,
        };
        assert_eq!(Trailer::decode(&t.encode_counts()), Some(t));
    }
}
