//! Zero-filling the active segment ahead of its appends, so the fdatasync of
//! a commit writes data pages only.
//!
//! An append that grows the file also changes its size and block map, and
//! the fdatasync after it then writes the inode too: on this project's ext4
//! test machine that was a second, serial disk write per sync (≈210 µs
//! against ≈110 µs for a write into blocks that already exist). So a helper
//! thread writes zeros ahead of the writer and syncs them, and commits land
//! in blocks the file already has. Recovery reads an all-zero tail as the
//! end of the log (no record starts with a zero length), and sealing cuts
//! the file back to its records.
//!
//! Correctness never depends on the fill: the kernel flushes whatever
//! metadata a sync needs, so a fill that is late, stopped or failed only
//! makes the writer's syncs slower.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::{Condvar, Mutex};

/// Zero bytes per `pwrite`: the file's lock is held for the copy, and the
/// writer's own append waits for it.
const WRITE_BYTES: usize = 64 << 10;

/// Zero bytes written between two syncs (each made ready once synced).
const SYNC_BYTES: u64 = 1 << 20;

/// Zeros written before the segment takes its first append, so the first
/// commits do not wait for the helper.
const FIRST_FILL_BYTES: u64 = 256 << 10;

/// The zero-filled space of one active segment.
pub(crate) struct ZeroFill {
    file: Arc<File>,
    path: PathBuf,
    /// The file never grows past this (the segment's mapped capacity).
    capacity: u64,
    /// Bytes kept ready past the writer's end; each fill adds as many.
    ahead: u64,
    state: Mutex<State>,
    changed: Condvar,
    /// Set by `stop`: a fill in flight ends after its current write.
    stopping: AtomicBool,
}

struct State {
    /// The file holds written blocks (zeros past the records), durably
    /// sized, up to here.
    ready: u64,
    /// A fill in flight writes from here on (and has written up to
    /// `ready`); the writer must not append past both until it ends.
    filling_from: Option<u64>,
    /// No more fills: the segment is being sealed or closed, or a fill
    /// failed (the disk may be full; the writer's own writes report it).
    done: bool,
}

impl ZeroFill {
    /// Starts filling `file` past `end`, the end of its records; bytes up to
    /// `zeroed` are known zeros already (a recovered tail). Writes and syncs
    /// the first few zeros now when none are ready.
    pub(crate) fn start(
        file: Arc<File>,
        path: PathBuf,
        end: u64,
        zeroed: u64,
        capacity: u64,
        ahead: u64,
    ) -> Arc<ZeroFill> {
        let fill = Arc::new(ZeroFill {
            file,
            path,
            capacity,
            ahead,
            state: Mutex::new(State {
                ready: end,
                filling_from: None,
                done: false,
            }),
            changed: Condvar::new(),
            stopping: AtomicBool::new(false),
        });
        let first = capacity.min(end + FIRST_FILL_BYTES.min(ahead));
        let outcome = if zeroed >= first {
            fill.file.sync_data().map(|()| zeroed.min(capacity))
        } else {
            fill.write_zeros(end, first)
        };
        fill.finish(outcome);
        fill
    }

    /// Before appending bytes that end at `end`: waits while a fill in
    /// flight has yet to write past them. Returns how far the file is ready.
    pub(crate) fn before_append(&self, end: u64) -> u64 {
        let mut s = self.state.lock();
        while s.filling_from.is_some_and(|from| end > from.max(s.ready)) {
            self.changed.wait(&mut s);
        }
        s.ready
    }

    /// After appending up to `end`, with the file ready up to `ready` as last
    /// told: starts a fill in the background when fewer than `ahead` bytes
    /// are ready past `end`. Returns how far the file is ready.
    pub(crate) fn after_append(self: &Arc<Self>, end: u64, ready: u64) -> u64 {
        if ready >= self.capacity || ready >= end + self.ahead {
            return ready;
        }
        let mut s = self.state.lock();
        if s.done || s.filling_from.is_some() || s.ready >= self.capacity {
            return s.ready;
        }
        if s.ready >= end + self.ahead {
            return s.ready;
        }
        let from = s.ready.max(end);
        let to = self.capacity.min(from + self.ahead);
        s.filling_from = Some(from);
        drop(s);
        let fill = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("cairn-zero-fill".into())
            .spawn(move || {
                let outcome = fill.write_zeros(from, to);
                fill.finish(outcome);
            });
        if let Err(e) = spawned {
            self.finish(Err(e));
        }
        self.state.lock().ready
    }

    /// Ends filling: no new fill starts, and one in flight is waited for.
    /// Called before the segment is sealed (which cuts the zeros off) and
    /// when it is closed.
    pub(crate) fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        let mut s = self.state.lock();
        s.done = true;
        while s.filling_from.is_some() {
            self.changed.wait(&mut s);
        }
    }

    /// Writes zeros over `[from, to)`, syncing every `SYNC_BYTES` and making
    /// each synced piece ready at once: a commit's fdatasync queued behind a
    /// large write of zeros would wait for all of it. Returns the new ready
    /// length (short of `to` when stopped midway).
    fn write_zeros(&self, from: u64, to: u64) -> std::io::Result<u64> {
        let span = usize::try_from(to.saturating_sub(from)).unwrap_or(WRITE_BYTES);
        let zeros = vec![0u8; WRITE_BYTES.min(span)];
        let mut at = from;
        while at < to && !self.stopping.load(Ordering::Acquire) {
            let piece_end = to.min(at + SYNC_BYTES);
            while at < piece_end && !self.stopping.load(Ordering::Acquire) {
                let n = usize::try_from(piece_end - at)
                    .map_or(zeros.len(), |left| left.min(zeros.len()));
                self.file.write_all_at(&zeros[..n], at)?;
                at += n as u64;
            }
            self.file.sync_data()?;
            let mut s = self.state.lock();
            s.ready = s.ready.max(at);
            self.changed.notify_all();
        }
        Ok(at)
    }

    fn finish(&self, outcome: std::io::Result<u64>) {
        let mut s = self.state.lock();
        match outcome {
            Ok(ready) => s.ready = s.ready.max(ready),
            Err(e) => {
                tracing::warn!(segment = %self.path.display(), error = %e,
                    "could not zero-fill ahead of the log; commits sync more slowly");
                s.done = true;
            }
        }
        s.filling_from = None;
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(dir: &tempfile::TempDir, len: u64) -> (Arc<File>, PathBuf) {
        let path = dir.path().join("seg");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .expect("create");
        file.write_all_at(&vec![7u8; usize::try_from(len).expect("small")], 0)
            .expect("write");
        (Arc::new(file), path)
    }

    #[test]
    fn fills_ahead_of_appends_and_never_over_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (file, path) = file_of(&dir, 100);
        let fill = ZeroFill::start(Arc::clone(&file), path, 100, 0, 10 << 20, 1 << 20);
        assert_eq!(fill.before_append(200), 100 + FIRST_FILL_BYTES);
        assert_eq!(file.metadata().expect("stat").len(), 100 + FIRST_FILL_BYTES);
        // Appends keep going while fills run; none of their bytes is zeroed.
        let mut end = 100;
        for i in 0..400u64 {
            let rec = vec![(i % 250) as u8 + 1; 8 << 10];
            fill.before_append(end + rec.len() as u64);
            file.write_all_at(&rec, end).expect("append");
            end += rec.len() as u64;
            fill.after_append(end, 0);
        }
        fill.stop();
        let bytes = std::fs::read(dir.path().join("seg")).expect("read");
        assert!(bytes[..100].iter().all(|&b| b == 7));
        for i in 0..400usize {
            let at = 100 + i * (8 << 10);
            let want = (i % 250) as u8 + 1;
            assert!(
                bytes[at..at + (8 << 10)].iter().all(|&b| b == want),
                "record {i}"
            );
        }
        let tail = &bytes[usize::try_from(end).expect("small")..];
        assert!(!tail.is_empty(), "zeros are kept ahead of the last append");
        assert!(tail.iter().all(|&b| b == 0));
        assert!(bytes.len() as u64 <= 10 << 20, "never past the capacity");
    }

    #[test]
    fn a_known_zero_tail_is_not_written_again_and_stop_ends_filling() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (file, path) = file_of(&dir, 64);
        let fill = ZeroFill::start(Arc::clone(&file), path, 64, 1 << 20, 4 << 20, 1 << 20);
        assert_eq!(fill.before_append(128), 1 << 20);
        assert_eq!(file.metadata().expect("stat").len(), 64, "nothing written");
        fill.stop();
        assert_eq!(fill.after_append(1 << 20, 0), 1 << 20, "no fill after stop");
        assert_eq!(file.metadata().expect("stat").len(), 64);
    }
}
