//! Background file work kept off the commit path: writing the sidecar of a
//! segment the writer just sealed, deleting segments compaction retired, and
//! unmapping the segment pages readers faulted in, every
//! `release_mapped_every`.
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
use std::time::{Duration, Instant};

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
    let release_every = shared.options.release_mapped_every;
    let mut next_release = release_every.map(|every| Instant::now() + every);
    loop {
        if next_release.is_some_and(|at| Instant::now() >= at) {
            release_mapped_pages(shared);
            next_release = release_every.map(|every| Instant::now() + every);
        }
        let job = {
            let mut q = shared.housekeeping.queue.lock();
            loop {
                if let Some(job) = q.pop_front() {
                    break Some(job);
                }
                if shared.housekeeping.stop.load(Ordering::Acquire) {
                    break None;
                }
                let retry =
                    (!waiting.is_empty()).then(|| Instant::now() + Duration::from_millis(10));
                match retry.into_iter().chain(next_release).min() {
                    Some(until) => {
                        shared.housekeeping.ready.wait_until(&mut q, until);
                        break q.pop_front();
                    }
                    None => shared.housekeeping.ready.wait(&mut q),
                }
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

/// Unmaps every segment's faulted-in pages (see [`Segment::release_pages`]).
pub(crate) fn release_mapped_pages(shared: &Shared) {
    let segments: Vec<Arc<Segment>> = shared.segments.read().values().cloned().collect();
    for seg in segments {
        if let Err(e) = seg.release_pages() {
            tracing::warn!(segment = %seg.path.display(), error = %e, "could not unmap segment pages");
        }
    }
}
