//! Transaction records: the op header, building a record op by op, walking
//! a record body (values present or stripped), reading a checksummed record
//! from a segment, and a record's sidecar entry.

use super::{OP_HEADER_LEN, RECORD_PREFIX_LEN, TXN_HEADER_LEN, crc, u32_at, u64_at};

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
