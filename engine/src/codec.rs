//! Every byte layout of the data directory, in one place (see `FORMAT.md`).
//!
//! All integers are little-endian. A file starts with a 32-byte header; a
//! segment then holds transaction records, a sidecar holds the same records
//! with their values stripped, and the manifest lists the segments.

use crc32fast::Hasher;

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

/// Put or delete, as stored in an op header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpKind {
    Put = 1,
    Delete = 2,
}

/// A decoded op header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpHeader {
    pub kind: OpKind,
    pub key_len: u32,
    pub value_len: u32,
    pub create_revision: u64,
    pub version: u64,
    /// Microseconds since the Unix epoch; 0 when the key never expires.
    pub expires_at: u64,
}

impl OpHeader {
    /// Bytes this op occupies in a segment (header, key, value).
    pub(crate) fn stored_len(&self) -> usize {
        OP_HEADER_LEN + self.key_len as usize + self.value_len as usize
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.push(self.kind as u8);
        out.extend_from_slice(&[0, 0, 0]);
        out.extend_from_slice(&self.key_len.to_le_bytes());
        out.extend_from_slice(&self.value_len.to_le_bytes());
        out.extend_from_slice(&self.create_revision.to_le_bytes());
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&self.expires_at.to_le_bytes());
    }

    pub(crate) fn decode(buf: &[u8]) -> Option<OpHeader> {
        let h = buf.get(..OP_HEADER_LEN)?;
        let kind = match h[0] {
            1 => OpKind::Put,
            2 => OpKind::Delete,
            _ => return None,
        };
        if h[1..4] != [0, 0, 0] {
            return None;
        }
        Some(OpHeader {
            kind,
            key_len: u32_at(h, 4)?,
            value_len: u32_at(h, 8)?,
            create_revision: u64_at(h, 12)?,
            version: u64_at(h, 20)?,
            expires_at: u64_at(h, 28)?,
        })
    }
}

/// Builds one transaction record in a buffer: `begin`, `push_op`..., `finish`.
pub(crate) struct RecordBuilder {
    start: usize,
    ops: u32,
}

impl RecordBuilder {
    pub(crate) fn begin(out: &mut Vec<u8>, revision: u64, time_micros: u64) -> RecordBuilder {
        let start = out.len();
        out.extend_from_slice(&[0u8; RECORD_PREFIX_LEN]);
        out.extend_from_slice(&revision.to_le_bytes());
        out.extend_from_slice(&time_micros.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        RecordBuilder { start, ops: 0 }
    }

    /// Appends an op; returns its header's position relative to the record start.
    pub(crate) fn push_op(
        &mut self,
        out: &mut Vec<u8>,
        header: &OpHeader,
        key: &[u8],
        value: &[u8],
    ) -> usize {
        let pos = out.len() - self.start;
        header.encode(out);
        out.extend_from_slice(key);
        out.extend_from_slice(value);
        self.ops += 1;
        pos
    }

    /// Fills in length, op count and checksum; returns the record's total length.
    pub(crate) fn finish(self, out: &mut [u8]) -> usize {
        let body_start = self.start + RECORD_PREFIX_LEN;
        let count_pos = body_start + 16;
        out[count_pos..count_pos + 4].copy_from_slice(&self.ops.to_le_bytes());
        let body_len =
            u32::try_from(out.len() - body_start).expect("record size is bounded by max_txn_bytes");
        let c = crc(&out[body_start..]);
        out[self.start..self.start + 4].copy_from_slice(&body_len.to_le_bytes());
        out[self.start + 4..self.start + 8].copy_from_slice(&c.to_le_bytes());
        out.len() - self.start
    }
}

/// Encoded size of a record holding ops of the given key and value lengths.
pub(crate) fn record_len(ops: impl Iterator<Item = (usize, usize)>) -> usize {
    RECORD_PREFIX_LEN + TXN_HEADER_LEN + ops.map(|(k, v)| OP_HEADER_LEN + k + v).sum::<usize>()
}

/// The fixed part of a record body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TxnHeader {
    pub revision: u64,
    pub time_micros: u64,
    pub op_count: u32,
}

/// One op found while walking a record body.
pub(crate) struct WalkedOp<'a> {
    pub header: OpHeader,
    pub key: &'a [u8],
    /// Position of the op header relative to the body start *as laid out in
    /// the segment* (values counted even when walking a stripped body).
    pub segment_pos: usize,
}

/// Walks a record body (values present, or stripped as in a sidecar) and
/// checks that its ops exactly fill it.
pub(crate) fn walk_body<'a>(
    body: &'a [u8],
    with_values: bool,
    mut f: impl FnMut(WalkedOp<'a>),
) -> Result<TxnHeader, &'static str> {
    let header = TxnHeader {
        revision: u64_at(body, 0).ok_or("record body shorter than its header")?,
        time_micros: u64_at(body, 8).ok_or("record body shorter than its header")?,
        op_count: u32_at(body, 16).ok_or("record body shorter than its header")?,
    };
    let mut pos = TXN_HEADER_LEN;
    let mut segment_pos = TXN_HEADER_LEN;
    for _ in 0..header.op_count {
        let op = OpHeader::decode(body.get(pos..).unwrap_or_default()).ok_or("bad op header")?;
        let key_start = pos + OP_HEADER_LEN;
        let key_end = key_start + op.key_len as usize;
        let key = body
            .get(key_start..key_end)
            .ok_or("op key runs past the record")?;
        let stored_value = if with_values {
            op.value_len as usize
        } else {
            0
        };
        if body.len() < key_end + stored_value {
            return Err("op value runs past the record");
        }
        if op.kind == OpKind::Delete && op.value_len != 0 {
            return Err("delete op carries a value");
        }
        f(WalkedOp {
            header: op,
            key,
            segment_pos,
        });
        pos = key_end + stored_value;
        segment_pos += op.stored_len();
    }
    if pos != body.len() {
        return Err("record body has trailing bytes");
    }
    Ok(header)
}

/// Outcome of reading one record at an offset of a segment.
pub(crate) enum RecordRead<'a> {
    /// A whole, checksummed record: its body and total length.
    Ok { body: &'a [u8], len: usize },
    /// The bytes end before the record does.
    Incomplete,
    /// The length field is impossible or the checksum does not match.
    Bad(&'static str),
}

/// Reads the record starting at `buf[pos..]`.
pub(crate) fn read_record(buf: &[u8], pos: usize, max_body: usize) -> RecordRead<'_> {
    let (Some(body_len), Some(want_crc)) = (u32_at(buf, pos), u32_at(buf, pos + 4)) else {
        return RecordRead::Incomplete;
    };
    let body_len = body_len as usize;
    if body_len < TXN_HEADER_LEN || body_len > max_body {
        return RecordRead::Bad("record length out of range");
    }
    let start = pos + RECORD_PREFIX_LEN;
    let Some(body) = buf.get(start..start + body_len) else {
        return RecordRead::Incomplete;
    };
    if crc(body) != want_crc {
        return RecordRead::Bad("record checksum mismatch");
    }
    RecordRead::Ok {
        body,
        len: RECORD_PREFIX_LEN + body_len,
    }
}

/// Appends a record's sidecar entry: where it is, its checksum, and its body
/// without values.
pub(crate) fn push_sidecar_entry(out: &mut Vec<u8>, record_offset: u32, record: &[u8]) {
    let body = &record[RECORD_PREFIX_LEN..];
    out.extend_from_slice(&record_offset.to_le_bytes());
    out.extend_from_slice(
        &u32::try_from(record.len())
            .expect("record fits u32")
            .to_le_bytes(),
    );
    out.extend_from_slice(&record[4..8]);
    let len_pos = out.len();
    out.extend_from_slice(&[0u8; 4]);
    let stripped_start = out.len();
    out.extend_from_slice(&body[..TXN_HEADER_LEN]);
    let _ = walk_body(body, true, |op| {
        op.header.encode(out);
        out.extend_from_slice(op.key);
    });
    let stripped = u32::try_from(out.len() - stripped_start).expect("stripped body fits u32");
    out[len_pos..len_pos + 4].copy_from_slice(&stripped.to_le_bytes());
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_record() -> Vec<u8> {
        let mut out = vec![0xAA; 3];
        let mut b = RecordBuilder::begin(&mut out, 7, 1234);
        let put = OpHeader {
            kind: OpKind::Put,
            key_len: 3,
            value_len: 5,
            create_revision: 7,
            version: 1,
            expires_at: 0,
        };
        b.push_op(&mut out, &put, b"abc", b"hello");
        let del = OpHeader {
            kind: OpKind::Delete,
            key_len: 1,
            value_len: 0,
            create_revision: 0,
            version: 0,
            expires_at: 0,
        };
        b.push_op(&mut out, &del, b"z", b"");
        let len = b.finish(&mut out);
        assert_eq!(len, out.len() - 3);
        assert_eq!(len, record_len([(3, 5), (1, 0)].into_iter()));
        out.split_off(3)
    }

    #[test]
    fn record_round_trips_and_detects_every_flipped_byte() {
        let rec = sample_record();
        let RecordRead::Ok { body, len, .. } = read_record(&rec, 0, 1 << 20) else {
            panic!("record must read back")
        };
        assert_eq!(len, rec.len());
        let mut keys = Vec::new();
        let h = walk_body(body, true, |op| {
            keys.push((op.key.to_vec(), op.segment_pos))
        })
        .expect("walk");
        assert_eq!((h.revision, h.time_micros, h.op_count), (7, 1234, 2));
        assert_eq!(
            keys,
            vec![(b"abc".to_vec(), 20), (b"z".to_vec(), 20 + 36 + 8)]
        );
        for i in 0..rec.len() {
            let mut bad = rec.clone();
            bad[i] ^= 0x40;
            assert!(
                !matches!(read_record(&bad, 0, 1 << 20), RecordRead::Ok { .. }),
                "flip at {i} undetected"
            );
        }
        for cut in 0..rec.len() {
            assert!(
                matches!(read_record(&rec[..cut], 0, 1 << 20), RecordRead::Incomplete),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn sidecar_entry_walks_like_the_record() {
        let rec = sample_record();
        let mut side = Vec::new();
        push_sidecar_entry(&mut side, 32, &rec);
        assert_eq!(u32_at(&side, 0), Some(32));
        assert_eq!(u32_at(&side, 4), Some(rec.len() as u32));
        let stripped = &side[SIDECAR_ENTRY_PREFIX_LEN..];
        assert_eq!(u32_at(&side, 12), Some(stripped.len() as u32));
        let mut seen = Vec::new();
        walk_body(stripped, false, |op| {
            seen.push((op.key.to_vec(), op.segment_pos))
        })
        .expect("walk stripped");
        assert_eq!(
            seen,
            vec![(b"abc".to_vec(), 20), (b"z".to_vec(), 20 + 36 + 8)]
        );
    }

    #[test]
    fn manifest_round_trips_and_rejects_damage() {
        let m = Manifest {
            compacted_revision: 42,
            next_segment_id: 9,
            segments: vec![3, 5, 8],
        };
        let enc = m.encode();
        assert_eq!(Manifest::decode(&enc), Ok(m));
        for i in 0..enc.len() {
            let mut bad = enc.clone();
            bad[i] ^= 1;
            assert!(Manifest::decode(&bad).is_err(), "flip at {i} undetected");
        }
    }

    #[test]
    fn file_header_checks() {
        let h = encode_file_header(SEGMENT_MAGIC, 77);
        assert_eq!(decode_file_header(&h, SEGMENT_MAGIC), Ok(77));
        assert_eq!(
            decode_file_header(&h, SIDECAR_MAGIC),
            Err(HeaderError::Magic)
        );
        assert_eq!(
            decode_file_header(&h[..10], SEGMENT_MAGIC),
            Err(HeaderError::Short)
        );
        let mut bad = h;
        bad[20] ^= 1;
        assert_eq!(
            decode_file_header(&bad, SEGMENT_MAGIC),
            Err(HeaderError::Checksum)
        );
    }
}
