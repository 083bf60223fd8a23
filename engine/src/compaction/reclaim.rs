//! Space reclaim: rewrite the live ops of old segments into new ones and swap
//! them in through the manifest, while writers, readers and watchers go on.
//!
//! Only a *prefix* of the segment list whose revisions all lie at or below the
//! compaction point is rewritten. A tombstone may then be dropped safely: the
//! versions it shadows are older, so they sit in the same prefix and are
//! dropped with it; were a later segment rewritten alone, a dropped tombstone
//! could let an older put in an earlier segment come back on replay.
//!
//! Crash safety: outputs are written and synced under new ids before the
//! manifest names them; the manifest swap is one atomic rename; inputs are
//! deleted only after it. A crash before the swap leaves orphan outputs, after
//! it orphan inputs; `open` deletes either.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::codec::{
    FILE_HEADER_LEN, OpKind, RECORD_PREFIX_LEN, RecordBuilder, RecordRead, read_record, walk_body,
};
use crate::error::{Error, Result};
use crate::housekeeping::Job;
use crate::index::Loc;
use crate::manifest;
use crate::segment::writer::ActiveSegment;
use crate::segment::{Segment, segment_path, sidecar, sidecar_path};
use crate::shared::Shared;

/// What one reclaim pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReclaimStats {
    /// Segments rewritten.
    pub segments_in: usize,
    /// Segments written in their place.
    pub segments_out: usize,
    /// Bytes of the rewritten segments.
    pub bytes_in: u64,
    /// Bytes of their replacements.
    pub bytes_out: u64,
}

impl ReclaimStats {
    /// Bytes given back to the file system.
    #[must_use]
    pub fn reclaimed(&self) -> u64 {
        self.bytes_in.saturating_sub(self.bytes_out)
    }
}

struct Move {
    key: Vec<u8>,
    rev: u64,
    old: Loc,
    new: Loc,
}

/// The segments a pass may rewrite: the longest prefix of sealed segments
/// whose newest revision is at or below the compaction point.
fn candidates(shared: &Shared, compacted: u64) -> Vec<Arc<Segment>> {
    let ids = shared.manifest.lock().segments.clone();
    let segments = shared.segments.read();
    let mut out = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let is_active = i + 1 == ids.len();
        let Some(seg) = u32::try_from(*id).ok().and_then(|id| segments.get(&id)) else {
            break;
        };
        if is_active
            || !seg.sealed.load(Ordering::Acquire)
            || seg.last_revision.load(Ordering::Relaxed) > compacted
        {
            break;
        }
        out.push(Arc::clone(seg));
    }
    out
}

/// One pass: rewrite the candidate prefix if enough of it is reclaimable.
pub(crate) fn reclaim(shared: &Shared, force: bool) -> Result<ReclaimStats> {
    shared.check_writable()?;
    let _pass = shared.compaction.lock();
    let compacted = shared.compacted();
    let inputs = candidates(shared, compacted);
    let bytes_in: u64 = inputs.iter().map(|s| s.committed()).sum();
    let dead: u64 = inputs.iter().map(|s| s.reclaimable_bytes()).sum();
    if inputs.is_empty()
        || dead == 0
        || (!force && (dead as f64) < bytes_in as f64 * shared.options.reclaim_min_ratio)
    {
        return Ok(ReclaimStats::default());
    }
    let mut outputs: Vec<ActiveSegment> = Vec::new();
    let mut moves = Vec::new();
    let mut buf = Vec::new();
    let max_body = usize::try_from(shared.options.max_txn_bytes).unwrap_or(usize::MAX);
    let mut pace = Pace::new(shared.options.reclaim_scan_bytes_per_sec);
    for seg in &inputs {
        let bytes = seg.bytes();
        let mut pos = FILE_HEADER_LEN;
        while pos < bytes.len() {
            pace.step(pos as u64);
            let RecordRead::Ok { body, len, .. } = read_record(bytes, pos, max_body) else {
                return Err(Error::corrupt(
                    &seg.path,
                    pos as u64,
                    "bad record met while compacting",
                ));
            };
            let mut ops = Vec::new();
            let header = walk_body(body, true, |op| {
                ops.push((op.header, op.key, op.segment_pos))
            })
            .map_err(|r| Error::corrupt(&seg.path, pos as u64, r))?;
            let kept: Vec<_> = {
                let index = shared.index.read();
                ops.into_iter()
                    .filter(|(h, key, spos)| {
                        let off = u32::try_from(pos + RECORD_PREFIX_LEN + spos).unwrap_or(u32::MAX);
                        let loc = if h.kind == OpKind::Put {
                            Loc::put(seg.id, off)
                        } else {
                            Loc::delete(seg.id, off)
                        };
                        index.history(key).is_some_and(|hist| {
                            hist.versions()
                                .iter()
                                .any(|v| v.rev == header.revision && v.loc == loc)
                        })
                    })
                    .collect()
            };
            if !kept.is_empty() {
                buf.clear();
                let mut b = RecordBuilder::begin(&mut buf, header.revision, header.time_micros);
                let mut placed = Vec::new();
                for (h, key, spos) in &kept {
                    let value_start =
                        RECORD_PREFIX_LEN + spos + crate::codec::OP_HEADER_LEN + key.len();
                    let value = &body[value_start - RECORD_PREFIX_LEN
                        ..value_start - RECORD_PREFIX_LEN + h.value_len as usize];
                    let p = b.push_op(&mut buf, h, key, value);
                    let off = u32::try_from(pos + RECORD_PREFIX_LEN + spos).unwrap_or(u32::MAX);
                    let old = if h.kind == OpKind::Put {
                        Loc::put(seg.id, off)
                    } else {
                        Loc::delete(seg.id, off)
                    };
                    placed.push((key.to_vec(), old, p));
                }
                b.finish(&mut buf);
                let out = output_with_room(shared, &mut outputs, buf.len() as u64)?;
                let base = u32::try_from(out.written).expect("segments stay below 4 GiB");
                out.append(&buf)?;
                out.seg.note_record(header.revision, kept.len() as u64);
                for (key, old, p) in placed {
                    let new = old.moved_to(
                        out.seg.id,
                        base + u32::try_from(p).expect("record below 4 GiB"),
                    );
                    moves.push(Move {
                        key,
                        rev: header.revision,
                        old,
                        new,
                    });
                }
            }
            pos += len;
        }
        pace.finish_segment(bytes.len() as u64);
    }
    for out in &mut outputs {
        out.seal()?;
        let entries = sidecar::build(&out.seg, max_body)?;
        sidecar::write(&shared.dir, u64::from(out.seg.id), &entries)?;
    }
    crate::failpoint::hit("reclaim:outputs-written");
    let out_ids: Vec<u64> = outputs.iter().map(|o| u64::from(o.seg.id)).collect();
    let in_ids: Vec<u64> = inputs.iter().map(|s| u64::from(s.id)).collect();
    {
        let mut m = shared.manifest.lock();
        assert!(
            m.segments.starts_with(&in_ids),
            "only the compactor removes segments, so the prefix is intact"
        );
        let mut next = m.clone();
        next.segments
            .splice(..in_ids.len(), out_ids.iter().copied());
        manifest::write(&shared.dir, &next)?;
        *m = next;
    }
    crate::failpoint::hit("reclaim:manifest-swapped");
    {
        let mut segments = shared.segments.write();
        for out in &outputs {
            segments.insert(out.seg.id, Arc::clone(&out.seg));
        }
    }
    for chunk in moves.chunks(shared.options.compaction_keys_per_lock.max(1)) {
        let mut index = shared.index.write();
        for m in chunk {
            index.relocate(&m.key, m.rev, m.old, m.new);
        }
    }
    {
        let mut segments = shared.segments.write();
        for s in &inputs {
            segments.remove(&s.id);
        }
    }
    // The scan faulted every page of the inputs in, and the housekeeper's
    // periodic unmapping no longer sees them: give the pages back now. A
    // reader still holding a slice keeps the mapping (and the file), not
    // the pages.
    for seg in &inputs {
        if let Err(e) = seg.release_pages() {
            tracing::warn!(segment = %seg.path.display(), error = %e, "could not unmap a compacted segment's pages");
        }
    }
    // Deleted by the housekeeper once no reader maps them (see housekeeping).
    for seg in &inputs {
        let id = u64::from(seg.id);
        shared.housekeeping.push(Job::Retire {
            files: vec![segment_path(&shared.dir, id), sidecar_path(&shared.dir, id)],
            mapped: seg.mapped.clone(),
        });
    }
    Ok(ReclaimStats {
        segments_in: inputs.len(),
        segments_out: outputs.len(),
        bytes_in,
        bytes_out: outputs.iter().map(|o| o.written).sum(),
    })
}

/// The output segment to append a record of `len` bytes to, starting a new
/// one (with an id reserved from the manifest) when the last is full.
fn output_with_room<'a>(
    shared: &Shared,
    outputs: &'a mut Vec<ActiveSegment>,
    len: u64,
) -> Result<&'a mut ActiveSegment> {
    if outputs.last().is_none_or(|o| !o.has_room(len)) {
        let id = {
            let mut m = shared.manifest.lock();
            let id = m.next_segment_id;
            m.next_segment_id += 1;
            id
        };
        let capacity = shared
            .options
            .segment_bytes
            .max(FILE_HEADER_LEN as u64 + len);
        outputs.push(ActiveSegment::create(&shared.dir, id, capacity)?);
    }
    Ok(outputs.last_mut().expect("just ensured"))
}

/// Keeps the scan at or below a byte rate by sleeping once per MiB.
struct Pace {
    bytes_per_sec: u64,
    started: Instant,
    /// Bytes of segments already finished.
    done: u64,
    /// Scan position (within the current segment) at the last check.
    checked: u64,
}

impl Pace {
    fn new(bytes_per_sec: u64) -> Pace {
        Pace {
            bytes_per_sec,
            started: Instant::now(),
            done: 0,
            checked: 0,
        }
    }

    fn step(&mut self, pos: u64) {
        if self.bytes_per_sec == 0 || pos < self.checked + (1 << 20) {
            return;
        }
        self.checked = pos;
        let due = Duration::from_secs_f64((self.done + pos) as f64 / self.bytes_per_sec as f64);
        if let Some(ahead) = due.checked_sub(self.started.elapsed()) {
            std::thread::sleep(ahead);
        }
    }

    fn finish_segment(&mut self, len: u64) {
        self.done += len;
        self.checked = 0;
    }
}
