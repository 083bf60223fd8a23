//! Deep verification of a data directory, without opening an engine and
//! without stopping at the first problem.
//!
//! Checked, each problem reported with its file and byte offset:
//! - the manifest: header, checksum, segment count; every segment it names
//!   exists (no dangling locations); the next id is above every id in use;
//! - every segment: header; every record's checksum and length; ops that
//!   exactly fill their record and follow the per-op rules of
//!   [`record`]; revisions strictly increasing and commit times never going
//!   back, within and across segments; every revision after the compaction
//!   point present (the revision log's invariant);
//! - every sealed segment's sidecar (the index checkpoint): byte for byte
//!   the entries the segment's records call for, and its checksum;
//! - leftovers: segment or sidecar files the manifest does not name, and
//!   `*.tmp` files (warnings: a writable open deletes them), sealed segments
//!   without a sidecar (warnings: the engine scans the segment instead).
//!
//! A bad record is skipped by its own length when a valid record follows
//! there, else by searching for the next valid record, so every damaged
//! place is reported. A bad record in the last segment with no valid record
//! after it is a torn tail: what a kill mid-append leaves, never
//! acknowledged, and exactly what a writable open or `repair` truncates. It
//! is crash residue, not damage, so it is reported apart from the problems
//! ([`VerifyReport::recoverable`]). In a sealed segment the same bytes are
//! damage: sealing wrote every record whole. While another process holds
//! the directory's lock, such a tail is a write in flight (a warning), and
//! the run starts with a warning that files may change under it.
//!
//! Segments are read with large sequential `pread`s (see `stream`) by
//! `threads` threads, one segment at a time each.

mod record;
mod segment;
mod sidecar;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;

use crate::codec::{FORMAT_VERSION, Manifest};
use crate::error::{Error, Result};
use crate::index::Loc;
use crate::inspect::dir::list_data_dir;
use crate::inspect::records::TornTail;
use crate::lock::{LOCK_FILE, lock_holder};
use crate::manifest::manifest_path;
use crate::options::Options;
use crate::revision::Revision;
use crate::segment::segment_path;

pub(crate) use record::check as check_record;
use segment::{Edge, Job};

/// How bad a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Nothing is lost or wrong; the engine cleans it up on a writable open.
    Warning,
    /// Damaged or inconsistent data.
    Error,
}

/// One thing found wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Warning or error.
    pub severity: Severity,
    /// The file.
    pub file: PathBuf,
    /// Byte offset in it: the bad byte or field, or the start of the bad record.
    pub offset: u64,
    /// Bytes of the bad record or span, when the problem covers one.
    pub len: Option<u64>,
    /// What is wrong.
    pub reason: String,
}

impl Problem {
    pub(crate) fn error(file: &Path, offset: u64, reason: impl Into<String>) -> Problem {
        Problem {
            severity: Severity::Error,
            file: file.to_path_buf(),
            offset,
            len: None,
            reason: reason.into(),
        }
    }

    pub(crate) fn record(file: &Path, offset: u64, len: u64, reason: impl Into<String>) -> Problem {
        Problem {
            len: Some(len),
            ..Problem::error(file, offset, reason)
        }
    }

    pub(crate) fn warning(file: &Path, offset: u64, reason: impl Into<String>) -> Problem {
        Problem {
            severity: Severity::Warning,
            ..Problem::error(file, offset, reason)
        }
    }
}

/// Crash residue [`verify`] found: a torn tail at the end of the active
/// segment that no valid record follows. Nothing in it was acknowledged, so
/// cutting it (as the next writable open or `repair` does) loses no
/// committed write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recoverable {
    /// The active segment, where the cut falls, the bytes cut (the torn
    /// record and everything after it) and why the record there is not valid.
    pub tail: TornTail,
    /// The directory's revision once the tail is cut: the last valid
    /// record's before it, or the compaction point if newer.
    pub last_revision: Revision,
}

/// What [`verify`] found.
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    /// Format version of the files checked.
    pub format_version: u32,
    /// The manifest's compaction point (0 when it is unreadable).
    pub compacted_revision: Revision,
    /// Revision of the last valid record, or the compaction point if newer.
    pub current_revision: Revision,
    /// Segment files checked.
    pub segments: u64,
    /// Sidecar files checked.
    pub sidecars: u64,
    /// Valid records.
    pub records: u64,
    /// Ops in them.
    pub ops: u64,
    /// Bytes of the files checked.
    pub bytes: u64,
    /// Everything found, in file order, but crash residue.
    pub problems: Vec<Problem>,
    /// The active segment's torn tail, if it has one (not among `problems`).
    pub recoverable: Option<Recoverable>,
}

impl VerifyReport {
    /// Problems of severity [`Severity::Error`].
    #[must_use]
    pub fn errors(&self) -> usize {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count()
    }

    /// Problems of severity [`Severity::Warning`].
    #[must_use]
    pub fn warnings(&self) -> usize {
        self.problems.len() - self.errors()
    }
}

/// Checks everything in `dir` (see the module docs). `progress` is told how
/// many more bytes were read, now and then, from any thread. Fails only when
/// `dir` is not a readable data directory; damage is in the report.
pub fn verify(
    dir: impl AsRef<Path>,
    options: &Options,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<VerifyReport> {
    let dir = dir.as_ref();
    let listing = list_data_dir(dir)?;
    let mut report = VerifyReport {
        format_version: FORMAT_VERSION,
        ..VerifyReport::default()
    };
    let mpath = manifest_path(dir);
    let mut problems = Vec::new();
    let holder = lock_holder(dir);
    if let Some(holder) = &holder {
        problems.push(Problem::warning(
            &dir.join(LOCK_FILE),
            0,
            format!(
                "the directory is in use ({holder}): its writer can change files while they \
                 are read, and leftovers of its work in progress are expected"
            ),
        ));
    }
    let named: Option<Vec<u64>> = match &listing.manifest {
        Ok(Some(m)) => {
            manifest_problems(m, &mpath, &mut problems);
            report.compacted_revision = Revision(m.compacted_revision);
            Some(m.segments.clone())
        }
        Ok(None) => {
            problems.push(Problem::error(
                &mpath,
                0,
                "MANIFEST is missing but the directory holds segments (the engine refuses to open it)",
            ));
            None
        }
        Err(Error::Corrupt { offset, reason, .. }) => {
            problems.push(Problem::error(&mpath, *offset, reason.clone()));
            None
        }
        Err(e) => {
            problems.push(Problem::error(&mpath, 0, format!("cannot read: {e}")));
            None
        }
    };
    if let Ok(meta) = std::fs::metadata(&mpath) {
        report.bytes += meta.len();
    }
    // Without a manifest, check the segment files present, in id order.
    let ids = named
        .clone()
        .unwrap_or_else(|| listing.segments.keys().copied().collect());
    let mut jobs = Vec::new();
    let mut missing = false;
    for (i, &id) in ids.iter().enumerate() {
        let path = segment_path(dir, id);
        if !listing.segments.contains_key(&id) {
            missing = true;
            problems.push(Problem::error(
                &mpath,
                52 + 8 * i as u64,
                format!(
                    "the manifest names segment {}, which is missing",
                    path.display()
                ),
            ));
            continue;
        }
        let last = i + 1 == ids.len();
        let sidecar = listing.sidecars.get(&id).cloned();
        match (&sidecar, last) {
            (None, false) => problems.push(Problem::warning(
                &path,
                0,
                "sealed segment without a sidecar: the engine scans it on open and a writable \
                 open writes the sidecar",
            )),
            (Some(p), true) => problems.push(Problem::warning(
                p,
                0,
                "a sidecar of the active segment (ignored by the engine)",
            )),
            _ => {}
        }
        jobs.push(Job {
            id,
            path,
            last,
            sidecar: sidecar.filter(|_| !last),
            after_missing: std::mem::take(&mut missing),
            live: holder.is_some(),
        });
    }
    for job in &jobs {
        report.segments += 1;
        report.bytes += std::fs::metadata(&job.path).map_or(0, |m| m.len());
        if let Some(p) = &job.sidecar {
            report.sidecars += 1;
            report.bytes += std::fs::metadata(p).map_or(0, |m| m.len());
        }
    }
    let outcomes = run(
        &jobs,
        report.compacted_revision.get(),
        options,
        threads,
        progress,
    );
    let mut prev: Option<Edge> = None;
    // Damage since `prev`: a skipped record, a missing or unreadable segment.
    let mut damaged = named.is_none();
    for (job, mut out) in jobs.iter().zip(outcomes) {
        damaged |= job.after_missing;
        if let Some(first) = out.first {
            let between = damaged || out.damaged_before_first;
            let compacted = report.compacted_revision.get();
            if let Some(p) = segment::order_problem(prev, first, compacted, between) {
                let p = Problem::error(&job.path, first.offset, format!("{p} (previous segment)"));
                out.problems.insert(0, p);
            }
            damaged = false;
        }
        damaged |= out.damaged_after_last || (out.first.is_none() && !out.problems.is_empty());
        prev = out.last.or(prev);
        if let Some(tail) = out.torn {
            let last_revision = prev.map_or(0, |e| e.revision);
            report.recoverable = Some(Recoverable {
                tail,
                last_revision: Revision(last_revision.max(report.compacted_revision.get())),
            });
        }
        report.records += out.records;
        report.ops += out.ops;
        problems.append(&mut out.problems);
    }
    report.current_revision = Revision(
        prev.map_or(0, |e| e.revision)
            .max(report.compacted_revision.get()),
    );
    if let Some(named) = named {
        leftovers(&listing, &named, &mut problems);
    }
    report.problems = problems;
    Ok(report)
}

fn manifest_problems(m: &Manifest, path: &Path, problems: &mut Vec<Problem>) {
    let mut seen = HashSet::new();
    for (i, &id) in m.segments.iter().enumerate() {
        let at = 52 + 8 * i as u64;
        if !seen.insert(id) {
            problems.push(Problem::error(
                path,
                at,
                format!("segment {id} is named twice"),
            ));
        }
        if id >= m.next_segment_id {
            problems.push(Problem::error(
                path,
                40,
                format!(
                    "next segment id {} is not above segment {id} in use",
                    m.next_segment_id
                ),
            ));
        }
        if id > u64::from(Loc::MAX_SEGMENT) || id == 0 {
            problems.push(Problem::error(
                path,
                at,
                format!("segment id {id} out of range"),
            ));
        }
    }
    if m.segments.is_empty() {
        problems.push(Problem::error(path, 48, "the manifest names no segment"));
    }
}

fn leftovers(listing: &crate::inspect::dir::Listing, named: &[u64], problems: &mut Vec<Problem>) {
    let named: HashSet<u64> = named.iter().copied().collect();
    let orphan = "not named by the manifest: left by interrupted work; a writable open deletes it";
    for (id, path) in listing.segments.iter().chain(&listing.sidecars) {
        if !named.contains(id) {
            problems.push(Problem::warning(path, 0, orphan));
        }
    }
    for path in &listing.temporary {
        problems.push(Problem::warning(
            path,
            0,
            "a temporary file of interrupted work; a writable open deletes it",
        ));
    }
}

/// Verifies the segments on `threads` threads; outcomes in job order.
fn run(
    jobs: &[Job],
    compacted: u64,
    options: &Options,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<segment::Outcome> {
    let max_body = usize::try_from(options.max_txn_bytes).unwrap_or(usize::MAX);
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<segment::Outcome>>> =
        jobs.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = jobs.get(i) else { break };
            *results[i].lock() = Some(segment::check(job, compacted, max_body, progress));
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads.clamp(1, jobs.len().max(1)) {
            s.spawn(work);
        }
        work();
    });
    results
        .into_iter()
        .map(|r| r.into_inner().unwrap_or_default())
        .collect()
}
