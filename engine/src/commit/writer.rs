//! The writer thread: plans a batch of transactions (guards, revisions,
//! create_revision/version), appends their records, syncs once, then applies
//! them to the index, tells watchers and answers the callers.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

use tokio::sync::oneshot;

use crate::codec::{FILE_HEADER_LEN, OpHeader, OpKind, RecordBuilder, record_len};
use crate::commit::Pending;
use crate::error::{Error, Result};
use crate::housekeeping::Job;
use crate::index::revlog::TxnRef;
use crate::index::{Index, Loc, Version};
use crate::manifest;
use crate::options::SyncMode;
use crate::record::{Event, EventKind, KeyValue, micros_since_epoch};
use crate::revision::Revision;
use crate::segment::writer::ActiveSegment;
use crate::shared::{SegmentTable, Shared};
use crate::txn::{Committed, Op, Txn};
use crate::watch::hub::EventBatch;

/// The live state of a key as the batch sees it.
#[derive(Clone, Copy)]
struct KeyState {
    loc: Loc,
    rev: u64,
    create: u64,
    version: u64,
}

/// What one op of a planned transaction does.
struct OpPlan {
    /// Where the op was written; `None` for a delete of an absent key.
    loc: Option<Loc>,
    /// The live record it replaces.
    prev: Option<KeyState>,
    expires_at: u64,
}

enum Outcome {
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

struct Plan {
    txn: Txn,
    reply: oneshot::Sender<Result<Committed>>,
    outcome: Outcome,
}

/// Owns the active segment; the only code that appends to the log.
pub(crate) struct Writer {
    shared: Arc<Shared>,
    active: ActiveSegment,
    next_rev: u64,
    last_time: u64,
    buf: Vec<u8>,
}

fn copy_error(e: &Error) -> Error {
    match e {
        Error::Io { op, path, source } => Error::Io {
            op,
            path: path.clone(),
            source: std::io::Error::new(source.kind(), source.to_string()),
        },
        _ => Error::Closed,
    }
}

impl Writer {
    pub(crate) fn new(
        shared: Arc<Shared>,
        active: ActiveSegment,
        current: u64,
        last_time: u64,
    ) -> Writer {
        Writer {
            shared,
            active,
            next_rev: current + 1,
            last_time,
            buf: Vec::with_capacity(1 << 20),
        }
    }

    /// Runs until the engine closes and the queue is drained.
    pub(crate) fn run(mut self) {
        while let Some(batch) = self.shared.queue.take(&self.shared.closed) {
            if let Some(why) = self.shared.failure.lock().clone() {
                for p in batch {
                    let _ = p.reply.send(Err(Error::Io {
                        op: "commit",
                        path: self.shared.dir.clone(),
                        source: std::io::Error::other(format!("writer stopped earlier: {why}")),
                    }));
                }
                continue;
            }
            self.process(batch);
        }
        if let Err(e) = self.active.sync() {
            tracing::error!(error = %e, "final sync at close failed");
        }
    }

    fn process(&mut self, batch: Vec<Pending>) {
        let mut plans = Vec::with_capacity(batch.len());
        let mut overlay: HashMap<Vec<u8>, Option<KeyState>> = HashMap::new();
        let mut io_error = None;
        self.buf.clear();
        for p in batch {
            let outcome = if io_error.is_some() {
                Outcome::Refused(Error::Closed)
            } else {
                match self.plan(&p.txn, &mut overlay) {
                    Ok(o) => o,
                    Err(e @ Error::Io { .. }) => {
                        let copy = copy_error(&e);
                        io_error = Some(e);
                        Outcome::Refused(copy)
                    }
                    Err(e) => Outcome::Refused(e),
                }
            };
            plans.push(Plan {
                txn: p.txn,
                reply: p.reply,
                outcome,
            });
        }
        if io_error.is_none()
            && let Err(e) = self.flush_and_sync()
        {
            io_error = Some(e);
        }
        if let Some(e) = io_error {
            tracing::error!(error = %e, "commit failed; the engine refuses further writes until reopened");
            *self.shared.failure.lock() = Some(e.to_string());
            for p in plans {
                let _ = p.reply.send(Err(copy_error(&e)));
            }
            return;
        }
        self.publish(plans);
    }

    fn flush_and_sync(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.active.append(&self.buf)?;
            self.buf.clear();
        }
        if self.shared.options.sync == SyncMode::Full {
            self.active.sync()?;
        }
        self.active.publish();
        Ok(())
    }

    /// The key's live state: from this batch if it touched the key, else the index.
    fn key_state(
        &self,
        overlay: &HashMap<Vec<u8>, Option<KeyState>>,
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

    fn plan(
        &mut self,
        txn: &Txn,
        overlay: &mut HashMap<Vec<u8>, Option<KeyState>>,
    ) -> Result<Outcome> {
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
        let (states, guard_failure) = {
            let segments = self.shared.segments.read();
            let index = self.shared.index.read();
            let guard_failure = txn.guards.iter().enumerate().find_map(|(i, g)| {
                let cur = self.key_state(overlay, &segments, &index, g.key());
                (!g.holds(cur.map(|s| s.rev))).then_some((i, cur))
            });
            let states: Vec<Option<KeyState>> = txn
                .ops
                .iter()
                .map(|op| self.key_state(overlay, &segments, &index, op.key()))
                .collect();
            (states, guard_failure)
        };
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
        // Offsets below are positions in `buf`, which starts at `written`.
        let base = self.active.written;
        let seg_id = self.active.seg.id;
        let offset_of =
            |pos: usize| u32::try_from(base + pos as u64).expect("segments stay below 4 GiB");
        let record_start = self.buf.len();
        let mut builder = RecordBuilder::begin(&mut self.buf, rev, time);
        let mut ops = Vec::with_capacity(txn.ops.len());
        for (op, prev) in txn.ops.iter().zip(states) {
            match op {
                Op::Put {
                    key,
                    value,
                    expires_at,
                } => {
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
                    let pos = builder.push_op(&mut self.buf, &header, key, value);
                    let loc = Loc::put(seg_id, offset_of(record_start + pos));
                    overlay.insert(
                        key.clone(),
                        Some(KeyState {
                            loc,
                            rev,
                            create,
                            version,
                        }),
                    );
                    ops.push(OpPlan {
                        loc: Some(loc),
                        prev,
                        expires_at,
                    });
                }
                Op::Delete { key } => {
                    if prev.is_none() {
                        ops.push(OpPlan {
                            loc: None,
                            prev,
                            expires_at: 0,
                        });
                        continue;
                    }
                    let header = OpHeader {
                        kind: OpKind::Delete,
                        key_len: u32::try_from(key.len()).expect("bounded by max_txn_bytes"),
                        value_len: 0,
                        create_revision: 0,
                        version: 0,
                        expires_at: 0,
                    };
                    let pos = builder.push_op(&mut self.buf, &header, key, &[]);
                    let loc = Loc::delete(seg_id, offset_of(record_start + pos));
                    match overlay.entry(key.clone()) {
                        Entry::Occupied(mut e) => *e.get_mut() = None,
                        Entry::Vacant(e) => {
                            e.insert(None);
                        }
                    }
                    ops.push(OpPlan {
                        loc: Some(loc),
                        prev,
                        expires_at: 0,
                    });
                }
            }
        }
        builder.finish(&mut self.buf);
        self.active
            .seg
            .note_record(rev, ops.iter().filter(|o| o.loc.is_some()).count() as u64);
        Ok(Outcome::Write {
            rev,
            time,
            record: Loc::put(seg_id, offset_of(record_start)),
            ops,
        })
    }

    /// Seals the active segment and starts a new one with room for `need` bytes.
    fn roll(&mut self, need: u64) -> Result<()> {
        if !self.buf.is_empty() {
            self.active.append(&self.buf)?;
            self.buf.clear();
        }
        self.active.seal()?;
        self.shared
            .housekeeping
            .push(Job::Sidecar(Arc::clone(&self.active.seg)));
        crate::failpoint::hit("roll:sealed");
        let capacity = self
            .shared
            .options
            .segment_bytes
            .max(FILE_HEADER_LEN as u64 + need);
        let mut m = self.shared.manifest.lock();
        let id = m.next_segment_id;
        let mut next_active = ActiveSegment::create(&self.shared.dir, id, capacity)?;
        next_active.zero_fill_ahead(self.shared.options.fill_ahead(), FILE_HEADER_LEN as u64);
        crate::failpoint::hit("roll:segment-created");
        let mut next = m.clone();
        next.next_segment_id = id + 1;
        next.segments.push(id);
        manifest::write(&self.shared.dir, &next)?;
        *m = next;
        drop(m);
        self.shared
            .segments
            .write()
            .insert(next_active.seg.id, Arc::clone(&next_active.seg));
        self.active = next_active;
        Ok(())
    }

    fn kv(segments: &SegmentTable, s: Option<KeyState>) -> Option<KeyValue> {
        s.and_then(|s| Shared::key_value(segments, s.loc, s.rev))
    }

    /// Applies a durable batch to the index, tells watchers, answers callers.
    fn publish(&mut self, plans: Vec<Plan>) {
        let mut last_rev = None;
        {
            let mut index = self.shared.index.write();
            for p in &plans {
                if let Outcome::Write {
                    rev,
                    time,
                    record,
                    ops,
                } = &p.outcome
                {
                    for (op, plan) in p.txn.ops.iter().zip(ops) {
                        if let Some(loc) = plan.loc {
                            index.push(op.key(), Version { rev: *rev, loc });
                        }
                    }
                    let contiguous = index.revlog.push(TxnRef {
                        rev: *rev,
                        time_micros: *time,
                        loc: *record,
                    });
                    debug_assert!(contiguous, "the writer assigns revisions one by one");
                    last_rev = Some(*rev);
                }
            }
        }
        if let Some(rev) = last_rev {
            self.shared.current.store(rev, Ordering::Release);
        }
        for p in &plans {
            if let Outcome::Write { rev, ops, .. } = &p.outcome {
                for (op, plan) in p.txn.ops.iter().zip(ops) {
                    if plan.expires_at != 0 {
                        self.shared
                            .expiry
                            .push(plan.expires_at, op.key().to_vec(), *rev);
                    }
                }
            }
        }
        let segments = self.shared.segments.read();
        if let Some(rev) = last_rev {
            self.shared
                .hub
                .publish(rev, || Arc::new(Self::events(&segments, &plans)));
        }
        for p in plans {
            let answer = match p.outcome {
                Outcome::Write { rev, ops, .. } => Ok(Committed {
                    revision: Revision(rev),
                    changed: true,
                    prev: if p.txn.want_prev {
                        ops.iter().map(|o| Self::kv(&segments, o.prev)).collect()
                    } else {
                        Vec::new()
                    },
                }),
                Outcome::NoChange { rev, ops } => Ok(Committed {
                    revision: Revision(rev),
                    changed: false,
                    prev: if p.txn.want_prev {
                        vec![None; ops]
                    } else {
                        Vec::new()
                    },
                }),
                Outcome::GuardFailed { index, current } => Err(Error::GuardFailed {
                    index,
                    current: Self::kv(&segments, current).map(Box::new),
                }),
                Outcome::Refused(e) => Err(e),
            };
            let _ = p.reply.send(answer);
        }
    }

    fn events(segments: &SegmentTable, plans: &[Plan]) -> EventBatch {
        let mut events = Vec::new();
        for p in plans {
            let Outcome::Write { rev, ops, .. } = &p.outcome else {
                continue;
            };
            for plan in ops {
                let Some(loc) = plan.loc else { continue };
                let Some(seg) = segments.get(&loc.segment()) else {
                    continue;
                };
                let Some(key) = seg.key_at(loc.offset) else {
                    continue;
                };
                let (kind, kv) = if loc.is_tombstone() {
                    (EventKind::Delete, None)
                } else {
                    (EventKind::Put, seg.key_value(loc.offset, *rev))
                };
                events.push(Event {
                    kind,
                    key,
                    revision: Revision(*rev),
                    kv,
                    prev: Self::kv(segments, plan.prev),
                });
            }
        }
        EventBatch::new(events)
    }
}
