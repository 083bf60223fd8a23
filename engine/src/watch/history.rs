//! A watch's catch-up: retained history read from the log in bounded steps
//! (at most `watch_catchup_revisions` transactions each), with each event's
//! previous version from the index.

use std::sync::Arc;

use super::hub::EventBatch;
use super::{Queued, Watch};
use crate::codec::{OpKind, RECORD_PREFIX_LEN, u32_at, walk_body};
use crate::error::{Error, Result};
use crate::index::Loc;
use crate::record::{Event, EventKind};
use crate::revision::Revision;
use crate::shared::Shared;

impl Watch {
    /// Reads one bounded step of retained history into the queue.
    pub(super) fn read_history(&mut self) -> Result<()> {
        let to = self.shared.hub.published();
        let segments = self.shared.segments.read();
        let index = self.shared.index.read();
        let compacted = self.shared.compacted();
        if self.next_rev <= compacted {
            return Err(Error::Compacted {
                requested: Revision(self.next_rev - 1),
                compacted: Revision(compacted),
            });
        }
        let mut events = Vec::new();
        let txns = index.revlog.between(
            self.next_rev,
            to,
            self.shared.options.watch_catchup_revisions,
        );
        for t in &txns {
            let seg = segments.get(&t.loc.segment()).ok_or_else(|| {
                Error::corrupt(
                    &self.shared.dir,
                    0,
                    format!("revision {} names a missing segment", t.rev),
                )
            })?;
            let bytes = seg.bytes();
            let start = t.loc.offset as usize;
            let body_len = u32_at(bytes, start).unwrap_or(0) as usize;
            let body = bytes
                .get(start + RECORD_PREFIX_LEN..start + RECORD_PREFIX_LEN + body_len)
                .ok_or_else(|| {
                    Error::corrupt(
                        &seg.path,
                        start as u64,
                        "revision log points past the segment",
                    )
                })?;
            let mut found = Vec::new();
            walk_body(body, true, |op| {
                if self.range.contains(op.key) {
                    let off = t.loc.offset
                        + u32::try_from(RECORD_PREFIX_LEN + op.segment_pos).unwrap_or(u32::MAX);
                    found.push((op.header.kind, off));
                }
            })
            .map_err(|r| Error::corrupt(&seg.path, start as u64, r))?;
            for (kind, off) in found {
                let Some(key) = seg.key_at(off) else { continue };
                let prev = index
                    .history(&key)
                    .and_then(|h| h.before(t.rev))
                    .and_then(|v| Shared::key_value(&segments, v.loc, v.rev));
                let (kind, kv) = match kind {
                    OpKind::Put => (
                        EventKind::Put,
                        Shared::key_value(&segments, Loc::put(seg.id, off), t.rev),
                    ),
                    OpKind::Delete => (EventKind::Delete, None),
                };
                events.push(Event {
                    kind,
                    key,
                    revision: Revision(t.rev),
                    kv,
                    prev,
                });
            }
        }
        if !events.is_empty() {
            self.queue.push_back(Queued {
                batch: Arc::new(EventBatch::new(events)),
                from_rev: 0,
                cursor: 0,
            });
        }
        self.next_rev = match txns.last() {
            Some(t) => t.rev + 1,
            None => to + 1,
        }
        .max(self.next_rev);
        Ok(())
    }
}
