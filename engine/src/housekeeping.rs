//! Background file work kept off the commit path: writing the sidecar of a
//! segment the writer just sealed, and deleting segments compaction retired.
//!
//! A retired segment is deleted only once nothing maps it any more (a value
//! handed out earlier keeps its mapping alive), and then shrunk a step at a
//! time before the unlink: freeing a large file at once stalls the file
//! system's journal, and with it every writer's fdatasync, for tens of
//! milliseconds (measured by the `scenarios` benchmark's commit p99 during
//! compaction).

use std::collections::VecDeque;
use std::fs::OpenOptions;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::segment::{Segment, sidecar};
use crate::shared::Shared;

/// Work for the housekeeper.
pub(crate) enum Job {
    /// Write the sidecar of a freshly sealed segment.
    Sidecar(Arc<Segment>),
    /// Delete these files once `mapped` is dead.
    Retire {
        files: Vec<PathBuf>,
        mapped: Weak<()>,
    },
}

/// Jobs waiting for the housekeeper.
#[derive(Default)]
pub(crate) struct Jobs {
    queue: Mutex<VecDeque<Job>>,
    ready: Condvar,
    /// Set once every thread that queues jobs has stopped.
    stop: AtomicBool,
}

impl Jobs {
    pub(crate) fn push(&self, job: Job) {
        self.queue.lock().push_back(job);
        self.ready.notify_one();
    }

    /// Lets the housekeeper finish the queued jobs and stop.
    pub(crate) fn stop(&self) {
        let _q = self.queue.lock();
        self.stop.store(true, Ordering::Release);
        self.ready.notify_all();
    }
}

/// Shrinks and deletes a file that nothing maps.
fn delete_gradually(path: &PathBuf, step: u64, pause: Duration) {
    if let Ok(f) = OpenOptions::new().write(true).open(path) {
        let mut len = f.metadata().map_or(0, |m| m.len());
        while len > step {
            len -= step;
            if f.set_len(len).is_err() {
                break;
            }
            crate::failpoint::hit("retire:truncating");
            std::thread::sleep(pause);
        }
    }
    if let Err(e) = std::fs::remove_file(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(file = %path.display(), error = %e, "could not delete a retired file; it is removed at next open");
    }
}

/// The housekeeper thread's loop; returns once the engine is closed and every
/// sidecar job is done (retirements still mapped are left to the next open).
pub(crate) fn run(shared: &Arc<Shared>) {
    let max_body = usize::try_from(shared.options.max_txn_bytes).unwrap_or(usize::MAX);
    let (step, pause) = (
        shared.options.retire_step_bytes.max(1),
        shared.options.retire_pause,
    );
    let mut waiting: Vec<(Vec<PathBuf>, Weak<()>)> = Vec::new();
    loop {
        let job = {
            let mut q = shared.housekeeping.queue.lock();
            loop {
                if let Some(job) = q.pop_front() {
                    break Some(job);
                }
                if shared.housekeeping.stop.load(Ordering::Acquire) {
                    break None;
                }
                if !waiting.is_empty() {
                    shared
                        .housekeeping
                        .ready
                        .wait_for(&mut q, Duration::from_millis(10));
                    break q.pop_front();
                }
                shared.housekeeping.ready.wait(&mut q);
            }
        };
        match job {
            Some(Job::Sidecar(seg)) => {
                let written = sidecar::build(&seg, max_body)
                    .and_then(|entries| sidecar::write(&shared.dir, u64::from(seg.id), &entries));
                if let Err(e) = written {
                    tracing::error!(segment = %seg.path.display(), error = %e, "could not write a sidecar; the segment is scanned at next open");
                }
            }
            Some(Job::Retire { files, mapped }) => waiting.push((files, mapped)),
            None if shared.housekeeping.stop.load(Ordering::Acquire) => {
                for (files, mapped) in waiting {
                    if mapped.upgrade().is_none() {
                        files.iter().for_each(|f| delete_gradually(f, step, pause));
                    }
                }
                return;
            }
            None => {}
        }
        waiting.retain(|(files, mapped)| {
            if mapped.upgrade().is_some() {
                return true;
            }
            files.iter().for_each(|f| delete_gradually(f, step, pause));
            false
        });
    }
}
