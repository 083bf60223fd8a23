//! The manifest file: the segments that make up the store, in replay order,
//! the next segment id and the compaction point, checksummed.

use super::{
    FILE_HEADER_LEN, MANIFEST_MAGIC, crc, decode_file_header, encode_file_header, u32_at, u64_at,
};

/// The manifest: which segments make up the store, in replay order, and the
/// compaction point.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct Manifest {
    pub compacted_revision: u64,
    pub next_segment_id: u64,
    pub segments: Vec<u64>,
}

impl Manifest {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FILE_HEADER_LEN + 24 + 8 * self.segments.len());
        out.extend_from_slice(&encode_file_header(MANIFEST_MAGIC, 0));
        out.extend_from_slice(&self.compacted_revision.to_le_bytes());
        out.extend_from_slice(&self.next_segment_id.to_le_bytes());
        out.extend_from_slice(
            &u32::try_from(self.segments.len())
                .expect("segment count fits u32")
                .to_le_bytes(),
        );
        for id in &self.segments {
            out.extend_from_slice(&id.to_le_bytes());
        }
        let c = crc(&out[FILE_HEADER_LEN..]);
        out.extend_from_slice(&c.to_le_bytes());
        out
    }

    pub(crate) fn decode(buf: &[u8]) -> Result<Manifest, (u64, String)> {
        decode_file_header(buf, MANIFEST_MAGIC)
            .map_err(|e| (0, format!("bad manifest header: {e:?}")))?;
        let body_end = buf
            .len()
            .checked_sub(4)
            .ok_or((0, "manifest too short".to_string()))?;
        if body_end < FILE_HEADER_LEN + 20 {
            return Err((0, "manifest too short".into()));
        }
        if u32_at(buf, body_end) != Some(crc(&buf[FILE_HEADER_LEN..body_end])) {
            return Err((body_end as u64, "manifest checksum mismatch".into()));
        }
        let short = || (FILE_HEADER_LEN as u64, "manifest truncated".to_string());
        let compacted_revision = u64_at(buf, 32).ok_or_else(short)?;
        let next_segment_id = u64_at(buf, 40).ok_or_else(short)?;
        let count = u32_at(buf, 48).ok_or_else(short)? as usize;
        if 52 + count * 8 != body_end {
            return Err((
                48,
                "manifest segment count does not match its length".into(),
            ));
        }
        let segments = (0..count)
            .map(|i| u64_at(buf, 52 + i * 8).ok_or_else(short))
            .collect::<Result<_, _>>()?;
        Ok(Manifest {
            compacted_revision,
            next_segment_id,
            segments,
        })
    }
}
