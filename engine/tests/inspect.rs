//! The offline API (`inspect`, `snapshot`): verify finds a flipped byte
//! anywhere, in the file and at the place it is; repair cuts exactly a torn
//! tail at every cut point and refuses other damage; snapshots restore the
//! state at every revision with its revisions; reading views agree with the
//! engine.

mod common;

use std::ops::ControlFlow;
use std::path::Path;

use cairn_engine::inspect::{self, Log, LogFilter, RepairAction, Severity, View};
use cairn_engine::snapshot::{self, Contents};
use cairn_engine::{Engine, Error, KeyRange, KeyValue, Options, RangeOptions, Revision, Txn};
use common::{copy_dir, records, segments, workload_txn};

fn small() -> Options {
    Options {
        segment_bytes: 1024,
        ..Options::no_sync()
    }
}

/// A closed directory of `n` workload transactions in ~1 KiB segments.
fn written(n: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(dir.path(), small()).expect("open");
    for i in 0..n {
        e.commit_blocking(workload_txn(i)).expect("commit");
    }
    e.close();
    dir
}

fn verify(dir: &Path) -> inspect::VerifyReport {
    inspect::verify(dir, &Options::no_sync(), 2, &|_| {}).expect("verify runs")
}

fn all_at(e: &Engine, at: Option<Revision>) -> Vec<KeyValue> {
    e.range(
        &KeyRange::all(),
        RangeOptions {
            at,
            ..Default::default()
        },
    )
    .expect("range")
    .items
}

#[test]
fn a_clean_directory_verifies_clean() {
    let dir = written(60);
    let r = verify(dir.path());
    assert_eq!(r.problems, vec![]);
    let e = Engine::open_read_only(dir.path(), small()).expect("open");
    assert_eq!(r.records, e.stats().records);
    assert_eq!(r.current_revision, e.current_revision());
    assert!(r.sidecars >= 2 && r.segments == r.sidecars + 1);
}

/// Whether `p` points at byte `b` of its file: the exact byte, the span it
/// covers, or (for a file header or a 4-byte checksum) the field.
fn covers(p: &inspect::Problem, b: u64) -> bool {
    p.offset == b
        || p.len.is_some_and(|l| p.offset <= b && b < p.offset + l)
        || (b < 32 && p.offset < 32)
        || (p.reason.contains("checksum mismatch") && p.offset <= b && b < p.offset + 4)
}

#[test]
fn every_flipped_byte_is_found_in_its_file_at_its_place() {
    let dir = written(40);
    let segs = segments(dir.path());
    let mut targets = vec![
        segs[0].clone(),
        segs[1].clone(),
        segs[0].with_extension("idx"),
    ];
    let active = segs.last().expect("active").clone();
    // A flip in the active segment's last record leaves nothing valid after
    // it: a torn tail, as open sees it (covered below).
    let last_record = records(&active).last().expect("a record").0 as u64;
    targets.push(active.clone());
    targets.push(dir.path().join("MANIFEST"));
    for target in targets {
        let len = std::fs::metadata(&target).expect("stat").len();
        for b in 0..len {
            if target == active && b >= last_record {
                continue;
            }
            let copy = tempfile::tempdir().expect("tempdir");
            copy_dir(dir.path(), copy.path());
            let file = copy.path().join(target.file_name().expect("name"));
            let mut bytes = std::fs::read(&file).expect("read");
            bytes[b as usize] ^= 0x04;
            std::fs::write(&file, bytes).expect("write");
            let r = verify(copy.path());
            let errors: Vec<_> = r
                .problems
                .iter()
                .filter(|p| p.severity == Severity::Error)
                .collect();
            assert!(
                !errors.is_empty(),
                "flip at {b} of {} unnoticed",
                file.display()
            );
            assert!(
                errors.iter().all(|p| p.file == file),
                "flip at {b} of {}: {errors:?}",
                file.display()
            );
            if !file.ends_with("MANIFEST") {
                assert!(
                    errors.iter().any(|p| covers(p, b)),
                    "flip at {b} of {}: {errors:?}",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn damage_is_reported_past_the_first_problem() {
    let dir = written(40);
    let segs = segments(dir.path());
    let (a, b) = (records(&segs[0]), records(&segs[1]));
    for (seg, recs) in [(&segs[0], &a), (&segs[1], &b)] {
        let mut bytes = std::fs::read(seg).expect("read");
        bytes[recs[1].0 + 20] ^= 1;
        std::fs::write(seg, bytes).expect("write");
    }
    let r = verify(dir.path());
    let offsets: Vec<(String, u64)> = r
        .problems
        .iter()
        .map(|p| {
            (
                p.file
                    .file_name()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned(),
                p.offset,
            )
        })
        .collect();
    let name = |p: &Path| p.file_name().expect("name").to_string_lossy().into_owned();
    assert_eq!(
        offsets,
        vec![
            (name(&segs[0]), a[1].0 as u64),
            (name(&segs[1]), b[1].0 as u64)
        ]
    );
    assert_eq!(
        r.records as usize + 2,
        records(&segs[0]).len()
            + records(&segs[1]).len()
            + segs[2..].iter().map(|s| records(s).len()).sum::<usize>()
    );
}

#[test]
fn repair_cuts_exactly_a_torn_tail_at_every_cut() {
    let dir = written(30);
    let last = segments(dir.path()).pop().expect("active");
    let recs = records(&last);
    let (start, end, _) = *recs.last().expect("a record");
    let prev_rev = recs.len().checked_sub(2).map_or_else(
        || {
            let segs = segments(dir.path());
            records(&segs[segs.len() - 2]).last().expect("record").2
        },
        |i| recs[i].2,
    );
    for cut in start + 1..end {
        let copy = tempfile::tempdir().expect("tempdir");
        copy_dir(dir.path(), copy.path());
        let file = copy.path().join(last.file_name().expect("name"));
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&file)
            .expect("open");
        f.set_len(cut as u64).expect("cut");
        let torn = inspect::torn_tail(copy.path(), &small())
            .expect("read")
            .expect("torn");
        assert_eq!(
            (torn.offset, torn.bytes),
            (start as u64, (cut - start) as u64)
        );
        // Crash residue, not damage, and the very bytes repair cuts.
        let r = verify(copy.path());
        assert_eq!(r.problems, vec![], "cut {cut}");
        let rec = r.recoverable.expect("the torn tail");
        assert_eq!(rec.tail, torn);
        assert_eq!(rec.last_revision.get(), prev_rev);
        assert_eq!(r.current_revision.get(), prev_rev);
        let dry = inspect::repair(copy.path(), &small(), true).expect("dry run");
        assert_eq!(dry.actions, vec![RepairAction::TruncateTail(torn.clone())]);
        assert_eq!(
            std::fs::metadata(&file).expect("stat").len(),
            cut as u64,
            "dry run"
        );
        let done = inspect::repair(copy.path(), &small(), false).expect("repair");
        assert!(done.applied);
        assert_eq!(done.actions, vec![RepairAction::TruncateTail(torn)]);
        assert_eq!(std::fs::metadata(&file).expect("stat").len(), start as u64);
        let r = verify(copy.path());
        assert_eq!((r.problems, r.recoverable), (vec![], None));
        let e = Engine::open(copy.path(), small()).expect("reopen");
        assert_eq!(e.current_revision().get(), prev_rev);
    }
}

#[test]
fn a_flip_in_the_last_record_is_a_torn_tail_and_anywhere_before_it_damage() {
    let dir = written(30);
    let segs = segments(dir.path());
    let active = segs.last().expect("active");
    let recs = records(active);
    assert!(recs.len() >= 2, "{recs:?}");
    let (start, end, _) = *recs.last().expect("a record");
    let len = std::fs::metadata(active).expect("stat").len();
    let flipped = |seg: &Path, b: usize| {
        let copy = tempfile::tempdir().expect("tempdir");
        copy_dir(dir.path(), copy.path());
        let file = copy.path().join(seg.file_name().expect("name"));
        let mut bytes = std::fs::read(&file).expect("read");
        bytes[b] ^= 0x04;
        std::fs::write(&file, bytes).expect("write");
        (verify(copy.path()), file, copy)
    };
    // Open cannot tell bit rot in the last record from a write torn by a
    // kill, and truncates either: verify reports what open will do.
    for b in start..end {
        let (r, file, copy) = flipped(active, b);
        assert_eq!(r.errors(), 0, "flip at {b}: {:?}", r.problems);
        let rec = r.recoverable.expect("a torn tail");
        assert_eq!(
            (rec.tail.file, rec.tail.offset, rec.tail.bytes),
            (file, start as u64, len - start as u64),
            "flip at {b}"
        );
        let torn = inspect::torn_tail(copy.path(), &small()).expect("scan");
        assert_eq!(
            torn.map(|t| (t.offset, t.bytes)),
            Some((rec.tail.offset, rec.tail.bytes))
        );
    }
    // Followed by a valid record, the same flip loses a committed write.
    let (before, _, _) = recs[recs.len() - 2];
    let (r, file, _copy) = flipped(active, before + 20);
    assert_eq!(r.recoverable, None);
    assert_eq!(r.errors(), 1, "{:?}", r.problems);
    assert_eq!(
        (&r.problems[0].file, r.problems[0].offset),
        (&file, before as u64)
    );
    // In a sealed segment, a bad last record is damage: sealing wrote it whole.
    let sealed = &segs[segs.len() - 2];
    let (last_sealed, _, _) = *records(sealed).last().expect("a record");
    let (r, file, _copy) = flipped(sealed, last_sealed + 20);
    assert_eq!(r.recoverable, None);
    assert!(
        r.problems.iter().any(|p| p.severity == Severity::Error
            && p.file == file
            && p.offset == last_sealed as u64),
        "{:?}",
        r.problems
    );
}

#[test]
fn repair_refuses_damage_that_is_not_a_torn_tail_and_changes_nothing() {
    let dir = written(30);
    let segs = segments(dir.path());
    let recs = records(&segs[0]);
    let mut bytes = std::fs::read(&segs[0]).expect("read");
    bytes[recs[2].0 + 12] ^= 1;
    std::fs::write(&segs[0], &bytes).expect("write");
    // The sidecar still describes the segment: the engine opens it without noticing.
    Engine::open_read_only(dir.path(), small()).expect("opens from the sidecar");
    match inspect::repair(dir.path(), &small(), false) {
        Err(Error::Corrupt { file, offset, .. }) => {
            assert_eq!((file, offset), (segs[0].clone(), recs[2].0 as u64));
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(std::fs::read(&segs[0]).expect("read"), bytes);
}

#[test]
fn repair_rewrites_sidecars_and_removes_leftovers() {
    let dir = written(30);
    let segs = segments(dir.path());
    let side = segs[1].with_extension("idx");
    let good = std::fs::read(&side).expect("read");
    std::fs::remove_file(&side).expect("rm");
    std::fs::write(dir.path().join("00000000000000ff.seg"), b"left over").expect("write");
    std::fs::write(dir.path().join("MANIFEST.tmp"), b"x").expect("write");
    let r = verify(dir.path());
    assert_eq!(r.errors(), 0);
    assert_eq!(r.warnings(), 3, "{:?}", r.problems);
    let done = inspect::repair(dir.path(), &small(), false).expect("repair");
    assert_eq!(done.actions.len(), 3, "{:?}", done.actions);
    assert_eq!(std::fs::read(&side).expect("rewritten"), good);
    assert!(!dir.path().join("00000000000000ff.seg").exists());
    assert_eq!(verify(dir.path()).problems, vec![]);
    assert_eq!(
        inspect::repair(dir.path(), &small(), false)
            .expect("again")
            .actions,
        vec![]
    );
}

#[test]
fn repair_and_restore_refuse_a_locked_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(dir.path(), small()).expect("open");
    e.commit_blocking(Txn::new().put("/a", "1"))
        .expect("commit");
    assert!(matches!(
        inspect::repair(dir.path(), &small(), true),
        Err(Error::Locked { .. })
    ));
    let snap = dir.path().join("s.snap");
    snapshot::save(dir.path(), &snap, None, Contents::State, &small(), &|_| {})
        .expect("save beside a writer");
    let target = tempfile::tempdir().expect("tempdir");
    let holder = Engine::open(target.path(), small()).expect("open target");
    assert!(matches!(
        snapshot::restore(&snap, target.path(), &small(), &|_| {}),
        Err(Error::Locked { .. })
    ));
    drop(holder);
}

#[test]
fn snapshots_restore_the_state_at_every_revision() {
    let dir = written(80);
    let compacted = Revision(30);
    {
        let e = Engine::open(dir.path(), small()).expect("open");
        e.compact(compacted).expect("compact");
        e.reclaim(true).expect("reclaim");
        e.close();
    }
    let src = Engine::open_read_only(dir.path(), small()).expect("open");
    let current = src.current_revision();
    assert!(matches!(
        snapshot::save(
            dir.path(),
            dir.path().join("x"),
            Some(Revision(29)),
            Contents::State,
            &small(),
            &|_| {}
        ),
        Err(Error::Compacted { .. })
    ));
    assert!(matches!(
        snapshot::save(
            dir.path(),
            dir.path().join("x"),
            Some(current.next()),
            Contents::State,
            &small(),
            &|_| {}
        ),
        Err(Error::FutureRevision { .. })
    ));
    for rev in compacted.get()..=current.get() {
        let at = Revision(rev);
        let work = tempfile::tempdir().expect("tempdir");
        let file = work.path().join("s.snap");
        let saved = snapshot::save(
            dir.path(),
            &file,
            Some(at),
            Contents::State,
            &small(),
            &|_| {},
        )
        .expect("save");
        let want = all_at(&src, Some(at));
        assert_eq!((saved.revision, saved.keys), (at, want.len() as u64));
        assert_eq!(
            snapshot::verify(&file, &small(), &|_| {}).expect("verify"),
            saved
        );
        let to = work.path().join("restored");
        snapshot::restore(&file, &to, &small(), &|_| {}).expect("restore");
        assert_eq!(verify(&to).problems, vec![]);
        let back = Engine::open(&to, small()).expect("open restored");
        assert_eq!(
            (back.current_revision(), back.compacted_revision()),
            (at, at)
        );
        assert_eq!(all_at(&back, None), want, "state at {rev}");
        assert!(matches!(
            back.get(b"/w/00", Some(Revision(rev - 1))),
            Err(Error::Compacted { .. })
        ));
        let next = back
            .commit_blocking(Txn::new().put("/after", "x"))
            .expect("commit");
        assert_eq!(next.revision, at.next());
    }
}

#[test]
fn a_damaged_snapshot_is_refused_before_anything_is_written() {
    let dir = written(30);
    let work = tempfile::tempdir().expect("tempdir");
    let file = work.path().join("s.snap");
    snapshot::save(dir.path(), &file, None, Contents::State, &small(), &|_| {}).expect("save");
    let good = std::fs::read(&file).expect("read");
    for b in (0..good.len()).step_by(7).chain([good.len() - 1]) {
        let mut bad = good.clone();
        bad[b] ^= 0x08;
        std::fs::write(&file, &bad).expect("write");
        assert!(
            matches!(
                snapshot::verify(&file, &small(), &|_| {}),
                Err(Error::Corrupt { .. })
            ),
            "flip at {b}"
        );
        let to = work.path().join(format!("r{b}"));
        assert!(snapshot::restore(&file, &to, &small(), &|_| {}).is_err());
        assert!(std::fs::read_dir(&to).map_or(true, |d| {
            d.filter_map(Result::ok).all(|e| e.file_name() == "LOCK")
        }));
    }
    std::fs::write(&file, &good[..good.len() - 3]).expect("write");
    assert!(snapshot::verify(&file, &small(), &|_| {}).is_err());
}

#[test]
fn log_views_agree_with_the_engine() {
    let dir = written(80);
    {
        let e = Engine::open(dir.path(), small()).expect("open");
        e.compact(Revision(40)).expect("compact");
        e.close();
    }
    let e = Engine::open_read_only(dir.path(), small()).expect("open");
    let log = Log::open(dir.path(), &small()).expect("log");
    assert_eq!(
        log.current_revision().expect("current"),
        e.current_revision()
    );
    // The state at R, rebuilt from the records of the view at R.
    for rev in [40, 55, e.current_revision().get()] {
        let mut state = std::collections::BTreeMap::new();
        let filter = LogFilter {
            view: View::At(Revision(rev)),
            ..LogFilter::default()
        };
        log.read(&filter, &|_| {}, |r| {
            for op in &r.ops {
                assert!(op.retained);
                state.insert(op.key.to_vec(), (op.value.to_vec(), r.revision, op.version));
            }
            ControlFlow::Continue(())
        })
        .expect("read");
        let want: std::collections::BTreeMap<_, _> = all_at(&e, Some(Revision(rev)))
            .into_iter()
            .map(|kv| {
                (
                    kv.key.to_vec(),
                    (kv.value.to_vec(), kv.mod_revision, kv.version),
                )
            })
            .collect();
        assert_eq!(state, want, "at {rev}");
    }
    // Retained ops are exactly the versions the engine still holds.
    let mut retained = 0u64;
    log.read(&LogFilter::default(), &|_| {}, |r| {
        retained += r.ops.len() as u64;
        ControlFlow::Continue(())
    })
    .expect("read");
    assert_eq!(retained, e.stats().versions);
    assert!(matches!(
        log.read(
            &LogFilter {
                view: View::At(Revision(39)),
                ..LogFilter::default()
            },
            &|_| {},
            |_| ControlFlow::Continue(())
        ),
        Err(Error::Compacted { .. })
    ));
}
