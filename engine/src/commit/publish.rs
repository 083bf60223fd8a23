//! Publishing a durable batch: its writes go to the index and the revision
//! log, expiring keys to the expiry queue, events to watchers, and every
//! caller gets its answer.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::commit::plan::{KeyState, Outcome, Plan};
use crate::commit::writer::Writer;
use crate::error::Error;
use crate::index::Version;
use crate::index::revlog::TxnRef;
use crate::record::{Event, EventKind, KeyValue};
use crate::revision::Revision;
use crate::shared::{SegmentTable, Shared};
use crate::txn::Committed;
use crate::watch::hub::EventBatch;

impl Writer {
    fn kv(segments: &SegmentTable, s: Option<KeyState>) -> Option<KeyValue> {
        s.and_then(|s| Shared::key_value(segments, s.loc, s.rev))
    }

    /// Applies a durable batch to the index, tells watchers, answers callers.
    pub(super) fn publish(&mut self, plans: Vec<Plan>) {
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
