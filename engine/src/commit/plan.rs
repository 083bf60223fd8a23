//! Planning one transaction of a batch: its shape, its guards against the
//! live state (the batch so far, over the index), and, when it changes
//! anything, its record appended to the batch's buffer with each key's
//! create_revision and version.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::time::SystemTime;

use tokio::sync::oneshot;

use crate::codec::{OpHeader, OpKind, RecordBuilder, record_len};
use crate::commit::writer::Writer;
use crate::error::{Error, Result};
use crate::index::{Index, Loc};
use crate::record::micros_since_epoch;
use crate::shared::SegmentTable;
use crate::txn::{Committed, Op, Txn};

/// The live state of a key as the batch sees it.
#[derive(Clone, Copy)]
pub(super) struct KeyState {
    pub loc: Loc,
    pub rev: u64,
    pub create: u64,
    pub version: u64,
}

/// Keys the batch has written so far and their state after it (`None`:
/// deleted), which later transactions of the batch see instead of the index.
pub(super) type Overlay = HashMap<Vec<u8>, Option<KeyState>>;

/// What one op of a planned transaction does.
pub(super) struct OpPlan {
    /// Where the op was written; `None` for a delete of an absent key.
    pub loc: Option<Loc>,
    /// The live record it replaces.
    pub prev: Option<KeyState>,
    pub expires_at: u64,
}

pub(super) enum Outcome {
    Write {
        rev: u64,
        time: u64,
        record: Loc,
        ops: Vec<OpPlan>,
    },
    NoChange {
        rev: u64,
        ops: usize,
    },
    GuardFailed {
        index: usize,
        current: Option<KeyState>,
    },
    Refused(Error),
}

pub(super) struct Plan {
    pub txn: Txn,
    pub reply: oneshot::Sender<Result<Committed>>,
    pub outcome: Outcome,
}

/// The first guard that fails, with the state of its key.
type GuardFailure = Option<(usize, Option<KeyState>)>;

impl Writer {
    /// Plans `txn` after the batch so far; a transaction that changes
    /// anything gets the next revision and its record in the batch's buffer.
    pub(super) fn plan(&mut self, txn: &Txn, overlay: &mut Overlay) -> Result<Outcome> {
        let len = self.record_len_if_valid(txn)?;
        let (states, guard_failure) = self.read_keys(txn, overlay);
        if let Some((index, current)) = guard_failure {
            return Ok(Outcome::GuardFailed { index, current });
        }
        let changes = txn
            .ops
            .iter()
            .zip(&states)
            .any(|(op, s)| matches!(op, Op::Put { .. }) || s.is_some());
        if !changes {
            return Ok(Outcome::NoChange {
                rev: self.next_rev - 1,
                ops: txn.ops.len(),
            });
        }
        if !self.active.has_room((self.buf.len() + len) as u64) {
            self.roll(len as u64)?;
        }
        let rev = self.next_rev;
        self.next_rev += 1;
        let time = micros_since_epoch(SystemTime::now()).max(self.last_time);
        self.last_time = time;
        Ok(self.append_record(txn, states, overlay, rev, time))
    }

    /// The size of `txn`'s record, once its shape is valid: no empty key,
    /// within the size limit, no key twice.
    fn record_len_if_valid(&self, txn: &Txn) -> Result<usize> {
        if txn.ops.iter().any(|op| op.key().is_empty()) {
            return Err(Error::InvalidArgument("empty key".into()));
        }
        let len = record_len(txn.ops.iter().map(|op| match op {
            Op::Put { key, value, .. } => (key.len(), value.len()),
            Op::Delete { key } => (key.len(), 0),
        }));
        if len as u64 > self.shared.options.max_txn_bytes {
            return Err(Error::InvalidArgument(format!(
                "transaction of {len} bytes exceeds the limit of {} bytes",
                self.shared.options.max_txn_bytes
            )));
        }
        let mut keys = HashSet::with_capacity(txn.ops.len());
        if !txn.ops.iter().all(|op| keys.insert(op.key())) {
            return Err(Error::InvalidArgument(
                "a key appears twice in one transaction".into(),
            ));
        }
        Ok(len)
    }

    /// The live state of every op's key, and the first guard that fails,
    /// read under one hold of the segment table and the index.
    fn read_keys(&self, txn: &Txn, overlay: &Overlay) -> (Vec<Option<KeyState>>, GuardFailure) {
        let segments = self.shared.segments.read();
        let index = self.shared.index.read();
        let guard_failure = txn.guards.iter().enumerate().find_map(|(i, g)| {
            let cur = key_state(overlay, &segments, &index, g.key());
            (!g.holds(cur.map(|s| s.rev))).then_some((i, cur))
        });
        let states: Vec<Option<KeyState>> = txn
            .ops
            .iter()
            .map(|op| key_state(overlay, &segments, &index, op.key()))
            .collect();
        (states, guard_failure)
    }

    /// Appends `txn`'s record at revision `rev` to the batch's buffer and
    /// records each written key's new state in `overlay`.
    fn append_record(
        &mut self,
        txn: &Txn,
        states: Vec<Option<KeyState>>,
        overlay: &mut Overlay,
        rev: u64,
        time: u64,
    ) -> Outcome {
        let seg_id = self.active.seg.id;
        // The buffer starts at the segment's `written` offset.
        let record_offset = self.active.written + self.buf.len() as u64;
        let mut record = RecordDraft {
            builder: RecordBuilder::begin(&mut self.buf, rev, time),
            buf: &mut self.buf,
            seg_id,
            record_offset,
            rev,
        };
        let mut ops = Vec::with_capacity(txn.ops.len());
        for (op, prev) in txn.ops.iter().zip(states) {
            ops.push(match op {
                Op::Put {
                    key,
                    value,
                    expires_at,
                } => record.put(key, value, *expires_at, prev, overlay),
                Op::Delete { .. } if prev.is_none() => OpPlan {
                    loc: None,
                    prev,
                    expires_at: 0,
                },
                Op::Delete { key } => record.delete(key, prev, overlay),
            });
        }
        let RecordDraft { builder, buf, .. } = record;
        builder.finish(buf);
        self.active
            .seg
            .note_record(rev, ops.iter().filter(|o| o.loc.is_some()).count() as u64);
        Outcome::Write {
            rev,
            time,
            record: Loc::put(seg_id, offset_in_segment(record_offset, 0)),
            ops,
        }
    }
}

/// The key's live state: from this batch if it touched the key, else the index.
fn key_state(
    overlay: &Overlay,
    segments: &SegmentTable,
    index: &Index,
    key: &[u8],
) -> Option<KeyState> {
    if let Some(s) = overlay.get(key) {
        return *s;
    }
    let v = index.history(key)?.latest();
    if v.loc.is_tombstone() {
        return None;
    }
    let h = segments.get(&v.loc.segment())?.op_header(v.loc.offset)?;
    Some(KeyState {
        loc: v.loc,
        rev: v.rev,
        create: h.create_revision,
        version: h.version,
    })
}

/// The segment offset of byte `pos` of the record at `record_offset`.
fn offset_in_segment(record_offset: u64, pos: usize) -> u32 {
    u32::try_from(record_offset + pos as u64).expect("segments stay below 4 GiB")
}

/// A record being appended to the batch's buffer.
struct RecordDraft<'b> {
    buf: &'b mut Vec<u8>,
    builder: RecordBuilder,
    seg_id: u32,
    /// Where the record will start in its segment.
    record_offset: u64,
    rev: u64,
}

impl RecordDraft<'_> {
    /// Appends a put of `key`: the next version of `prev`, or a new key's first.
    fn put(
        &mut self,
        key: &[u8],
        value: &[u8],
        expires_at: Option<SystemTime>,
        prev: Option<KeyState>,
        overlay: &mut Overlay,
    ) -> OpPlan {
        let rev = self.rev;
        let expires_at = expires_at.map_or(0, |t| micros_since_epoch(t).max(1));
        let (create, version) = prev.map_or((rev, 1), |p| (p.create, p.version + 1));
        let header = OpHeader {
            kind: OpKind::Put,
            key_len: u32::try_from(key.len()).expect("bounded by max_txn_bytes"),
            value_len: u32::try_from(value.len()).expect("bounded by max_txn_bytes"),
            create_revision: create,
            version,
            expires_at,
        };
        let pos = self.builder.push_op(self.buf, &header, key, value);
        let loc = Loc::put(self.seg_id, offset_in_segment(self.record_offset, pos));
        overlay.insert(
            key.to_vec(),
            Some(KeyState {
                loc,
                rev,
                create,
                version,
            }),
        );
        OpPlan {
            loc: Some(loc),
            prev,
            expires_at,
        }
    }

    /// Appends a delete of `key`, which is live as `prev`.
    fn delete(&mut self, key: &[u8], prev: Option<KeyState>, overlay: &mut Overlay) -> OpPlan {
        let header = OpHeader {
            kind: OpKind::Delete,
            key_len: u32::try_from(key.len()).expect("bounded by max_txn_bytes"),
            value_len: 0,
            create_revision: 0,
            version: 0,
            expires_at: 0,
        };
        let pos = self.builder.push_op(self.buf, &header, key, &[]);
        let loc = Loc::delete(self.seg_id, offset_in_segment(self.record_offset, pos));
        match overlay.entry(key.to_vec()) {
            Entry::Occupied(mut e) => *e.get_mut() = None,
            Entry::Vacant(e) => {
                e.insert(None);
            }
        }
        OpPlan {
            loc: Some(loc),
            prev,
            expires_at: 0,
        }
    }
}
