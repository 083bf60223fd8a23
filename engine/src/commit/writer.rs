//! The writer thread: plans a batch of transactions (guards, revisions,
//! create_revision/version; see `plan`), appends their records, syncs once,
//! then applies them to the index, tells watchers and answers the callers
//! (see `publish`). Rolls the active segment over when it is full.
//!
//! A batch whose records could not be written (the disk is full) is refused
//! and cut off the log, and the writer goes on: once space returns, writes
//! succeed again without a restart. A failed sync, or a failure of a batch
//! whose records span a segment roll, stops all writes until the engine is
//! reopened: after a failed fdatasync the kernel may have dropped the dirty
//! pages, so nothing written since can be trusted to be on disk.

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
    /// A refused batch stopped the zero fill; it starts again after the next
    /// batch that commits.
    refill: bool,
    /// Where this batch's records begin in the active segment: a refused
    /// batch is cut back to here.
    batch_start: u64,
    /// This batch's roll got as far as sealing the active segment with some
    /// of the batch in it, or an fsync failed while it created the next one:
    /// the batch's failure cannot be cut off the log, so it stops writes.
    failure_is_final: bool,
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
            refill: false,
            batch_start: 0,
            failure_is_final: false,
        }
    }

    /// Runs until the engine closes and the queue is drained.
    pub(crate) fn run(mut self) {
        while let Some(batch) = self.shared.queue.take(&self.shared.closed) {
            if let Some(stopped) = self.shared.writes_stopped() {
                for p in batch {
                    let _ = p.reply.send(Err(copy_error(&stopped)));
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
        let first_rev = self.next_rev;
        self.batch_start = self.active.written;
        self.failure_is_final = false;
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
        // A failed write (or a roll that failed before sealing) leaves the
        // active segment as it was at the batch's start but for bytes that
        // can be cut; a failed sync cannot be undone.
        let mut may_continue = io_error.is_some() && !self.failure_is_final;
        if io_error.is_none() {
            if let Err(e) = self.append_batch() {
                may_continue = !self.failure_is_final;
                io_error = Some(e);
            } else if let Err(e) = self.sync_and_publish() {
                io_error = Some(e);
            }
        }
        let Some(e) = io_error else {
            self.publish(plans);
            self.fill_again_after_refusal();
            return;
        };
        self.buf.clear();
        if may_continue && self.cut_refused_batch() {
            tracing::warn!(error = %e, "a batch of writes could not be written and was refused; writes go on");
            self.next_rev = first_rev;
        } else {
            tracing::error!(error = %e, "commit failed; the engine refuses further writes until reopened");
            *self.shared.failure.lock() = Some(e.to_string());
        }
        for p in plans {
            let _ = p.reply.send(Err(copy_error(&e)));
        }
    }

    /// Cuts what a failed append left past the last commit, so neither a
    /// later batch nor recovery after a crash finds a refused record.
    /// `false` when that failed too.
    fn cut_refused_batch(&mut self) -> bool {
        // A roll that failed may have appended part of the batch already.
        self.active.written = self.batch_start;
        match self.active.cut_unwritten() {
            Ok(()) => {
                self.refill = self.shared.options.fill_ahead() > 0;
                true
            }
            Err(cut) => {
                tracing::error!(error = %cut, "could not cut a refused batch off the log");
                false
            }
        }
    }

    fn fill_again_after_refusal(&mut self) {
        if std::mem::take(&mut self.refill) {
            let written = self.active.written;
            self.active
                .zero_fill_ahead(self.shared.options.fill_ahead(), written);
        }
    }

    fn append_batch(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.active.append(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn sync_and_publish(&mut self) -> Result<()> {
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
    ///
    /// The new segment is created before the active one is sealed: when
    /// there is no room for it (ENOSPC), the active segment is as it was and
    /// the batch is refused while writes go on. A failed fsync, or any
    /// failure from the seal until the manifest names the new segment, stops
    /// writes (see the module). Once rolled, a batch none of whose records
    /// went to the sealed segment can still be refused and cut off the new
    /// one.
    pub(super) fn roll(&mut self, need: u64) -> Result<()> {
        let batch_in_sealed = !self.buf.is_empty() || self.active.written != self.batch_start;
        if !self.buf.is_empty() {
            self.active.append(&self.buf)?;
            self.buf.clear();
        }
        let capacity = self
            .shared
            .options
            .segment_bytes
            .max(FILE_HEADER_LEN as u64 + need);
        let mut m = self.shared.manifest.lock();
        let id = m.next_segment_id;
        let next_active = ActiveSegment::create(&self.shared.dir, id, capacity)
            .inspect_err(|e| self.failure_is_final = e.is_failed_sync())?;
        self.failure_is_final = true;
        self.active.seal()?;
        self.shared
            .housekeeping
            .push(Job::Sidecar(Arc::clone(&self.active.seg)));
        crate::failpoint::hit("roll:sealed");
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
        // Zeros only once the manifest is written: on a nearly full disk
        // they would take the room the manifest needs.
        self.active
            .zero_fill_ahead(self.shared.options.fill_ahead(), FILE_HEADER_LEN as u64);
        self.batch_start = self.active.written;
        self.failure_is_final = batch_in_sealed;
        Ok(())
    }
}
