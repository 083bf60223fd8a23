//! `info`: what a data directory holds, from a read-only open.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::ExitCode;

use cairn_engine::inspect::{self, SegmentInfo};
use cairn_engine::{FORMAT_VERSION, Options, lock_holder};
use serde_json::{Value, json};

use crate::cli::Format;
use crate::commands::{file_name, ok, open_read_only};
use crate::encode::size;
use crate::error::Result;
use crate::output::{Out, fields, table};

/// A segment file's size as `ls -l` shows it (apparent) and as `du` counts
/// it (allocated blocks): the active segment is preallocated, so both can
/// be far above the bytes its records hold.
#[derive(Clone, Copy, Default)]
struct FileSize {
    apparent: u64,
    allocated: u64,
}

impl FileSize {
    fn of(file: &Path) -> FileSize {
        std::fs::metadata(file).map_or_else(
            |_| FileSize::default(),
            // st_blocks counts 512-byte units whatever the filesystem's block size.
            |m| FileSize {
                apparent: m.len(),
                allocated: m.blocks() * 512,
            },
        )
    }
}

pub fn run(dir: &Path, format: Format, out: &mut Out) -> Result<ExitCode> {
    let engine = open_read_only(dir)?;
    let holder = lock_holder(dir);
    let stats = engine.stats();
    let segments = engine.segments();
    let sizes: Vec<FileSize> = segments.iter().map(|s| FileSize::of(&s.file)).collect();
    let files = sizes.iter().fold(FileSize::default(), |t, s| FileSize {
        apparent: t.apparent + s.apparent,
        allocated: t.allocated + s.allocated,
    });
    // Bytes past the records are either the zeros kept ahead of appends or
    // a torn tail; only a scan tells them apart.
    let torn = match segments.last() {
        Some(s) if s.file_bytes > s.bytes && s.bytes > 0 => {
            inspect::torn_tail(dir, &Options::default())?
        }
        _ => None,
    };
    if format == Format::Json {
        out.json(&json!({
            "data_dir": dir.display().to_string(),
            "format_version": FORMAT_VERSION,
            "lock_holder": holder,
            "current_revision": stats.current_revision.get(),
            "compacted_revision": stats.compacted_revision.get(),
            "live_keys": stats.live_keys,
            "versions": stats.versions,
            "records": stats.records,
            "retained_revisions": stats.retained_revisions,
            "expiring_keys": stats.expiring_keys,
            "bytes": stats.bytes_on_disk,
            "file_bytes": files.apparent,
            "allocated_bytes": files.allocated,
            "bytes_reclaimable": stats.bytes_reclaimable,
            "torn_tail": torn.as_ref().map(|t| json!({
                "file": file_name(&t.file), "offset": t.offset, "bytes": t.bytes,
                "last_revision": stats.current_revision.get(), "recoverable": true,
            })),
            "segments": segments.iter().zip(&sizes).map(segment_json).collect::<Vec<Value>>(),
        }))?;
        return ok();
    }
    let mut rows = vec![
        ("format version", FORMAT_VERSION.to_string()),
        ("data dir", dir.display().to_string()),
        (
            "lock holder",
            holder.unwrap_or_else(|| "none (not in use)".into()),
        ),
        ("current revision", stats.current_revision.to_string()),
        ("compacted revision", stats.compacted_revision.to_string()),
        ("live keys", stats.live_keys.to_string()),
        ("versions", stats.versions.to_string()),
        ("records", stats.records.to_string()),
        ("expiring keys", stats.expiring_keys.to_string()),
        (
            "live bytes",
            format!(
                "{} ({} bytes of records)",
                size(stats.bytes_on_disk),
                stats.bytes_on_disk
            ),
        ),
        (
            "segment files",
            format!(
                "{} apparent (ls), {} allocated (du)",
                size(files.apparent),
                size(files.allocated)
            ),
        ),
        (
            "bytes reclaimable",
            format!(
                "{} (estimate; `cairn-store defrag` gives it back)",
                size(stats.bytes_reclaimable)
            ),
        ),
    ];
    if let Some(t) = torn {
        rows.push((
            "torn tail",
            format!(
                "{} bytes at offset {} of {} after revision {} (crash residue, recoverable: the \
                 next writable open or `cairn-store repair` truncates them)",
                t.bytes,
                t.offset,
                file_name(&t.file),
                stats.current_revision
            ),
        ));
    }
    out.table(&fields(rows))?;
    out.line("")?;
    let mut t = table(
        &[
            "SEGMENT",
            "STATE",
            "BYTES",
            "FILE SIZE",
            "ALLOCATED",
            "FIRST REV",
            "LAST REV",
            "RECORDS",
            "OPS",
            "DROPPED",
            "RECLAIMABLE",
            "SIDECAR",
        ],
        &[2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    for (s, file) in segments.iter().zip(&sizes) {
        let rev = |r: Option<cairn_engine::Revision>| r.map_or("-".into(), |r| r.to_string());
        t.add_row(vec![
            file_name(&s.file),
            if s.active { "active" } else { "sealed" }.into(),
            s.bytes.to_string(),
            file.apparent.to_string(),
            file.allocated.to_string(),
            rev(s.first_revision),
            rev(s.last_revision),
            s.records.to_string(),
            s.ops.to_string(),
            s.dropped_ops.to_string(),
            s.reclaimable_bytes.to_string(),
            match (s.active, s.sidecar) {
                (true, _) => "-",
                (false, true) => "yes",
                (false, false) => "missing",
            }
            .into(),
        ]);
    }
    out.table(&t)?;
    ok()
}

fn segment_json((s, file): (&SegmentInfo, &FileSize)) -> Value {
    json!({
        "file": file_name(&s.file),
        "id": s.id,
        "active": s.active,
        "bytes": s.bytes,
        "file_bytes": file.apparent,
        "allocated_bytes": file.allocated,
        "first_revision": s.first_revision.map(cairn_engine::Revision::get),
        "last_revision": s.last_revision.map(cairn_engine::Revision::get),
        "records": s.records,
        "ops": s.ops,
        "dropped_ops": s.dropped_ops,
        "reclaimable_bytes": s.reclaimable_bytes,
        "sidecar": s.sidecar,
    })
}
