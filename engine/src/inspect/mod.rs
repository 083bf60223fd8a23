//! Offline inspection of data directories, for tools such as `cairn-store`:
//! deep verification, reading the log record by record, explicit repair, and
//! (on an open [`crate::Engine`]) per-segment facts and a key's history.
//!
//! Nothing here runs implicitly or takes the directory's lock except
//! [`repair`], which changes files. Reading functions open files without a
//! memory map (see `stream`), so they are safe beside a running writer.
//!
//! | function | reads | writes |
//! |---|---|---|
//! | [`verify`] | every file, checksums and invariants, all problems reported | nothing |
//! | [`Log::read`] | records in revision order, by [`View`] | nothing |
//! | [`torn_tail`] | the last segment | nothing |
//! | [`repair`] | every segment | truncates a torn tail, rewrites sidecars, removes leftovers |
//! | [`crate::Engine::segments`], [`crate::Engine::key_history`] | the open engine | nothing |

mod dir;
mod history;
mod log;
mod records;
mod repair;
mod segments;
pub(crate) mod stream;
pub(crate) mod verify;
mod walk;

pub use history::KeyVersion;
pub use log::Log;
pub use records::{LogFilter, LogOp, LogRecord, LogSummary, TornTail, View};
pub use repair::{RepairAction, RepairReport, repair, torn_tail};
pub use segments::SegmentInfo;
pub use verify::{Problem, Recoverable, Severity, VerifyReport, verify};

/// Bytes of the engine's files in `dir` (manifest, segments, sidecars): the
/// work [`verify`] does, for a progress bar.
pub fn data_bytes(dir: impl AsRef<std::path::Path>) -> crate::Result<u64> {
    let listing = dir::list(dir.as_ref())?;
    let files = listing.segments.values().chain(listing.sidecars.values());
    Ok(files
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum())
}
