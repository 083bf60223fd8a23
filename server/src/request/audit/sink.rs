//! The audit log backend: events go as finished lines through a bounded
//! queue to one writer thread, so requests never wait on the disk. A full
//! queue makes the request wait in `blocking` mode (kube's default) and
//! drops the event, counted and logged, in `batch` mode.

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

use parking_lot::Mutex;

use crate::config::audit::{LogMode, Rotation};

use super::rotate::RotatingFile;

/// Where lines go.
enum Output {
    Stdout(io::Stdout),
    File(RotatingFile),
}

impl Output {
    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.write_all(line),
            Output::File(f) => f.write_line(line),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::File(f) => f.flush(),
        }
    }
}

/// What the writer thread is told.
enum Message {
    Line(String),
    /// Flush and end.
    Stop,
}

/// The log backend's queue and counters.
pub struct Sink {
    tx: SyncSender<Message>,
    mode: LogMode,
    writer: Mutex<Option<JoinHandle<()>>>,
    /// Events handed to the writer (kube's `apiserver_audit_event_total`).
    queued: AtomicU64,
    /// Events dropped or not written (kube's `apiserver_audit_error_total{plugin="log"}`).
    failed: std::sync::Arc<AtomicU64>,
}

impl Sink {
    /// Opens `path` (`-`: standard out) and starts the writer thread; an
    /// unwritable path is refused here, before the server starts.
    pub fn open(
        path: &str,
        rotation: Rotation,
        mode: LogMode,
        capacity: usize,
    ) -> Result<Sink, String> {
        let output = if path == "-" {
            Output::Stdout(io::stdout())
        } else {
            Output::File(
                RotatingFile::open(Path::new(path), rotation)
                    .map_err(|e| format!("--audit-log-path: cannot open {path:?}: {e}"))?,
            )
        };
        let (tx, rx) = sync_channel(capacity);
        let failed = std::sync::Arc::new(AtomicU64::new(0));
        let writer_failed = std::sync::Arc::clone(&failed);
        let writer = std::thread::Builder::new()
            .name("audit-log".into())
            .spawn(move || write_lines(&rx, output, &writer_failed))
            .map_err(|e| format!("cannot start the audit log writer: {e}"))?;
        Ok(Sink {
            tx,
            mode,
            writer: Mutex::new(Some(writer)),
            queued: AtomicU64::new(0),
            failed,
        })
    }

    /// Queues one line; see the module for a full queue. Lines sent after
    /// the log closed (at shutdown) are counted, not logged.
    pub fn send(&self, line: String) {
        self.queued.fetch_add(1, Ordering::Relaxed);
        let queue_full = match self.tx.try_send(Message::Line(line)) {
            Ok(()) => return,
            Err(TrySendError::Full(Message::Line(line))) if self.mode == LogMode::Blocking => {
                if self.tx.send(Message::Line(line)).is_ok() {
                    return;
                }
                false
            }
            Err(TrySendError::Full(_)) => true,
            Err(TrySendError::Disconnected(_)) => false,
        };
        let dropped = self.failed.fetch_add(1, Ordering::Relaxed) + 1;
        // A full queue drops many events in a row: one line per thousand.
        if queue_full && dropped % 1000 == 1 {
            tracing::error!(dropped, "audit log queue is full: audit events dropped");
        }
    }

    /// Events queued so far.
    #[must_use]
    pub fn events_total(&self) -> u64 {
        self.queued.load(Ordering::Relaxed)
    }

    /// Events dropped (queue full) or that failed to be written.
    #[must_use]
    pub fn errors_total(&self) -> u64 {
        self.failed.load(Ordering::Relaxed)
    }

    /// Writes what is queued, flushes and stops the writer.
    pub fn close(&self) {
        let Some(writer) = self.writer.lock().take() else {
            return;
        };
        if self.tx.send(Message::Stop).is_ok() {
            let _ = writer.join();
        }
    }
}

/// The writer thread: lines as they come, a flush whenever the queue is empty.
fn write_lines(rx: &Receiver<Message>, mut output: Output, failed: &AtomicU64) {
    let write = |line: &str, output: &mut Output| {
        if let Err(e) = output.write_line(line.as_bytes()) {
            failed.fetch_add(1, Ordering::Relaxed);
            tracing::error!("cannot write the audit log: {e}");
        }
    };
    while let Ok(Message::Line(line)) = rx.recv() {
        write(&line, &mut output);
        let mut stop = false;
        loop {
            match rx.try_recv() {
                Ok(Message::Line(line)) => write(&line, &mut output),
                Ok(Message::Stop) => {
                    stop = true;
                    break;
                }
                Err(_) => break,
            }
        }
        if let Err(e) = output.flush() {
            tracing::error!("cannot write the audit log: {e}");
        }
        if stop {
            return;
        }
    }
    let _ = output.flush();
}
