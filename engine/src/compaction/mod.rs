//! Compaction: forget versions no read at or after revision C can see, then
//! reclaim their space by rewriting old segments.
//!
//! Order of steps, each safe to crash after:
//! 1. the manifest records C (from then on reads below C fail, also after a
//!    restart, and replay re-applies step 2);
//! 2. the index drops old versions, a bounded number of keys per lock hold;
//! 3. (`reclaim`) segments wholly at or below C are rewritten — see
//!    [`reclaim`] for why only a prefix of the log is ever rewritten.

pub(crate) mod reclaim;

use std::sync::atomic::Ordering;

use crate::error::{Error, Result};
use crate::manifest;
use crate::revision::Revision;
use crate::shared::Shared;

/// Steps 1 and 2 for revision `at`.
pub(crate) fn compact(shared: &Shared, at: u64) -> Result<()> {
    shared.check_writable()?;
    let _pass = shared.compaction.lock();
    let current = shared.current();
    if at > current {
        return Err(Error::FutureRevision {
            requested: Revision(at),
            current: Revision(current),
        });
    }
    if at <= shared.compacted() {
        return Ok(());
    }
    let started = std::time::Instant::now();
    let result = compact_locked(shared, at);
    shared.timings.compaction.record_duration(started.elapsed());
    result
}

/// The pass itself, under the compaction lock.
fn compact_locked(shared: &Shared, at: u64) -> Result<()> {
    {
        let mut m = shared.manifest.lock();
        let mut next = m.clone();
        next.compacted_revision = at;
        manifest::write(&shared.dir, &next)?;
        *m = next;
    }
    crate::failpoint::hit("compact:manifest-written");
    shared.compacted.store(at, Ordering::Release);
    shared.index.write().revlog.trim_through(at);
    let mut from = Vec::new();
    loop {
        let mut dead = Vec::new();
        let next = shared.index.write().compact_some(
            at,
            &from,
            shared.options.compaction_keys_per_lock,
            |v| dead.push(v.loc),
        );
        Shared::note_dead(&shared.segments.read(), &dead);
        // Let a waiting committer take the index lock before the next chunk.
        std::thread::yield_now();
        match next {
            Some(k) => from = k,
            None => return Ok(()),
        }
    }
}
