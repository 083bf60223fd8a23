//! The writer thread: plans a batch of transactions (guards, revisions,
//! create_revision/version; see `plan`), appends their records, syncs once,
//! then applies them to the index, tells watchers and answers the callers
//! (see `publish`). Rolls the active segment over when it is full.

use std::sync::Arc;

use crate::codec::FILE_HEADER_LEN;
use crate::commit::Pending;
use crate::commit::plan::{Outcome, Overlay, Plan};
use crate::error::{Error, Result};
use crate::housekeeping::Job;
use crate::manifest;
use crate::options::SyncMode;
use crate::segment::writer::ActiveSegment;
use crate::shared::Shared;

/// Owns the active segment; the only code that appends to the log.
pub(crate) struct Writer {
    pub(super) shared: Arc<Shared>,
    pub(super) active: ActiveSegment,
    pub(super) next_rev: u64,
    pub(super) last_time: u64,
    /// The batch's records, appended to the active segment at its sync.
    pub(super) buf: Vec<u8>,
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
        self.shared.timings.group_commit.record(batch.len() as u64);
        let mut plans = Vec::with_capacity(batch.len());
        let mut overlay = Overlay::new();
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
            crate::failpoint::hit("commit:before-sync");
            let started = std::time::Instant::now();
            self.active.sync()?;
            self.shared.timings.fsync.record_duration(started.elapsed());
            crate::failpoint::hit("commit:after-sync");
        }
        self.active.publish();
        Ok(())
    }

    /// Seals the active segment and starts a new one with room for `need` bytes.
    pub(super) fn roll(&mut self, need: u64) -> Result<()> {
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
}
