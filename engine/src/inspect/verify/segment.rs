//! Verifying one segment: its header, every record's checksum and content,
//! revision and time order inside it, and its sidecar against it. Damage is
//! reported and skipped over, never a reason to stop early.

use std::path::PathBuf;

use crate::codec::{FILE_HEADER_LEN, HeaderError};
use crate::inspect::records::TornTail;
use crate::inspect::stream::Stream;
use crate::inspect::verify::sidecar::SidecarCheck;
use crate::inspect::verify::{Problem, Severity, record};
use crate::inspect::walk::{SegmentWalk, Step};

/// A segment to verify.
pub(super) struct Job {
    pub id: u64,
    pub path: PathBuf,
    /// The active segment: a bad record with nothing valid after it is a
    /// torn tail there (crash residue, see [`Outcome::torn`]), and it has no
    /// sidecar.
    pub last: bool,
    pub sidecar: Option<PathBuf>,
    /// A segment the manifest names before this one is missing.
    pub after_missing: bool,
    /// A writer holds the directory: a bad last record of the active segment
    /// is a write in flight, not a torn tail.
    pub live: bool,
}

/// The first or last valid record of a segment.
#[derive(Clone, Copy)]
pub(super) struct Edge {
    pub offset: u64,
    pub revision: u64,
    pub time: u64,
}

/// What verifying a segment found.
#[derive(Default)]
pub(super) struct Outcome {
    pub records: u64,
    pub ops: u64,
    pub first: Option<Edge>,
    pub last: Option<Edge>,
    /// Damage (a skipped record or a bad header) before the first valid record.
    pub damaged_before_first: bool,
    /// Damage after the last valid record.
    pub damaged_after_last: bool,
    pub problems: Vec<Problem>,
    /// The active segment ends in a torn tail (not among `problems`).
    pub torn: Option<TornTail>,
}

/// Order rules between consecutive valid records `prev` and `next`, given
/// the compaction point: revisions grow, times never go back, and every
/// revision after the compaction point has its record (unless damaged bytes
/// lie between the two: the missing revisions are in them, already reported).
pub(super) fn order_problem(
    prev: Option<Edge>,
    next: Edge,
    compacted: u64,
    damage_between: bool,
) -> Option<String> {
    let prev_rev = prev.map_or(0, |p| p.revision);
    if next.revision <= prev_rev {
        return Some(format!(
            "revision {} does not follow revision {prev_rev}",
            next.revision
        ));
    }
    if let Some(p) = prev
        && next.time < p.time
    {
        return Some(format!(
            "commit time goes back: revision {} at {} µs after revision {} at {} µs",
            next.revision, next.time, p.revision, p.time
        ));
    }
    let expected = prev_rev.max(compacted) + 1;
    (!damage_between && next.revision > compacted && next.revision != expected).then(|| {
        format!(
            "revision {} follows {prev_rev} but revisions after the compaction point \
             ({compacted}) must all be present: {expected} is missing",
            next.revision
        )
    })
}

pub(super) fn check(job: &Job, compacted: u64, max_body: usize, progress: &dyn Fn(u64)) -> Outcome {
    let mut out = Outcome::default();
    let mut walk = match Stream::open(&job.path) {
        Ok(s) => SegmentWalk::new(s, max_body, progress),
        Err(e) => {
            out.problems
                .push(Problem::error(&job.path, 0, format!("cannot read: {e}")));
            return out;
        }
    };
    let mut sidecar = job
        .sidecar
        .as_ref()
        .and_then(|p| SidecarCheck::open(p, job.id, &mut out.problems));
    if !header_ok(job, &mut walk, &mut out.problems) {
        out.damaged_after_last = true;
        if let Some(sc) = sidecar {
            out.problems.extend(sc.finish(progress));
        }
        return out;
    }
    let mut entry = Vec::new();
    loop {
        let (pos, failure) = match walk.step() {
            Err(e) => {
                out.problems.push(Problem::error(
                    &job.path,
                    walk.offset(),
                    format!("cannot read: {e}"),
                ));
                break;
            }
            Ok(Step::End) => break,
            Ok(Step::Record {
                offset: pos,
                record,
            }) => {
                let len = record.len() as u64;
                let want_entry = sidecar.is_some().then_some(&mut entry);
                match record::check(record, pos, want_entry) {
                    Err(reason) => {
                        out.damaged_after_last = true;
                        out.problems
                            .push(Problem::record(&job.path, pos, len, reason));
                        if let Some(sc) = sidecar.as_mut() {
                            sc.abandon();
                        }
                    }
                    Ok(c) => {
                        if let Some(p) = c.problem {
                            out.problems.push(Problem::record(&job.path, pos, len, p));
                        }
                        let edge = Edge {
                            offset: pos,
                            revision: c.header.revision,
                            time: c.header.time_micros,
                        };
                        if out.last.is_some()
                            && let Some(p) =
                                order_problem(out.last, edge, compacted, out.damaged_after_last)
                        {
                            out.problems.push(Problem::record(&job.path, pos, len, p));
                        }
                        if out.first.is_none() {
                            out.first = Some(edge);
                            out.damaged_before_first = out.damaged_after_last;
                        }
                        out.last = Some(edge);
                        out.damaged_after_last = false;
                        out.records += 1;
                        out.ops += u64::from(c.header.op_count);
                        if let Some(sc) = sidecar.as_mut() {
                            sc.compare(&entry, pos);
                        }
                    }
                }
                continue;
            }
            Ok(Step::Bad { offset, reason }) => (offset, reason),
        };
        if let Some(sc) = sidecar.as_mut() {
            sc.abandon();
        }
        out.damaged_after_last = true;
        let after = out.last.map_or(0, |e| e.revision);
        match walk.resync(after) {
            Ok(Some(next)) => {
                out.problems.push(Problem::record(
                    &job.path,
                    pos,
                    next - pos,
                    format!(
                        "{failure}; skipped {} bytes to the next valid record",
                        next - pos
                    ),
                ));
                walk.skip_to(next);
            }
            Ok(None) if job.last && job.live => {
                out.problems.push(Problem {
                    severity: Severity::Warning,
                    ..Problem::record(
                        &job.path,
                        pos,
                        walk.len() - pos,
                        format!(
                            "{failure} at the end of the active segment of a directory in use: \
                             a write in flight"
                        ),
                    )
                });
                break;
            }
            Ok(None) if job.last => {
                // Exactly what recovery cuts: not damage, as nothing in it was acknowledged.
                out.torn = Some(walk.torn_tail(failure));
                break;
            }
            Ok(None) => {
                out.problems.push(Problem::record(
                    &job.path,
                    pos,
                    walk.len() - pos,
                    format!("{failure}; no valid record follows in this sealed segment"),
                ));
                break;
            }
            Err(e) => {
                out.problems
                    .push(Problem::error(&job.path, pos, format!("cannot read: {e}")));
                break;
            }
        }
    }
    walk.report_progress();
    if let Some(sc) = sidecar {
        out.problems.extend(sc.finish(progress));
    }
    out
}

/// Checks the 32-byte header; `false` when the records cannot be read.
fn header_ok(job: &Job, walk: &mut SegmentWalk, problems: &mut Vec<Problem>) -> bool {
    let len = walk.len();
    let header = match walk.header() {
        Ok(h) => h,
        Err(e) => {
            problems.push(Problem::error(&job.path, 0, format!("cannot read: {e}")));
            return false;
        }
    };
    let found = match header {
        Ok(found) => found,
        Err(_) if job.last && len <= FILE_HEADER_LEN as u64 => {
            problems.push(Problem::warning(
                &job.path,
                0,
                "the active segment is shorter than its header (it was being created); a \
                 writable open or `cairn-store repair` rewrites the header",
            ));
            return false;
        }
        Err(HeaderError::Short) => {
            problems.push(Problem::error(
                &job.path,
                0,
                format!("a sealed segment of {len} bytes, shorter than its header"),
            ));
            return false;
        }
        Err(HeaderError::Version(v)) => {
            problems.push(Problem::error(
                &job.path,
                8,
                format!(
                    "format version {v}; this build reads version {}",
                    crate::codec::FORMAT_VERSION
                ),
            ));
            return false;
        }
        Err(HeaderError::Magic) => {
            problems.push(Problem::error(
                &job.path,
                0,
                "bad magic (not a cairn segment)",
            ));
            return true;
        }
        Err(HeaderError::Checksum) => {
            problems.push(Problem::error(&job.path, 28, "header checksum mismatch"));
            return true;
        }
    };
    if found != job.id {
        problems.push(Problem::error(
            &job.path,
            16,
            format!("header names segment {found}, expected {}", job.id),
        ));
    }
    true
}
