//! The commands that write (`compact`, `defrag`, `snapshot save | restore`)
//! through the real binary: refused while another process holds the lock
//! (naming it), and what they write checked through the engine and `dump`.

mod common;

use std::path::Path;

use cairn_engine::{Engine, KeyRange, Options, RangeOptions, Revision, Txn};
use common::{cm_key, contents, flip, populate, populated, run, run_on};

fn reader(dir: &Path) -> Engine {
    Engine::open_read_only(dir, Options::no_sync()).expect("read-only open")
}

fn pid() -> String {
    format!("pid {}", std::process::id())
}

#[test]
fn compact_refuses_while_the_directory_is_locked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let writer = populate(dir.path(), 40);
    let manifest = std::fs::read(dir.path().join("MANIFEST")).expect("read");
    for args in [&["compact", "--rev", "10"][..], &["defrag"]] {
        let r = run_on(dir.path(), args).fails(1);
        assert!(
            r.stderr.contains("cannot ") && r.stderr.contains("locked"),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains(&pid()), "names the holder: {}", r.stderr);
    }
    assert!(std::fs::read(dir.path().join("MANIFEST")).expect("read") == manifest);
    assert_eq!(writer.compacted_revision(), Revision::ZERO);
    writer.close();
    assert_eq!(reader(dir.path()).compacted_revision(), Revision::ZERO);
}

#[test]
fn compact_moves_the_compaction_point() {
    let dir = populated(60);
    let current = reader(dir.path()).current_revision().get();
    let j = run_on(dir.path(), &["compact", "--rev", "30", "-o", "json"])
        .ok()
        .json();
    assert_eq!(j["compacted_revision"], 30);
    assert_eq!(j["previous_compacted_revision"], 0);
    assert!(j["versions_after"].as_u64() < j["versions_before"].as_u64());
    let e = reader(dir.path());
    assert_eq!(e.compacted_revision(), Revision(30));
    assert_eq!(
        e.stats().versions,
        j["versions_after"].as_u64().expect("versions")
    );
    drop(e);

    let r = run_on(dir.path(), &["get", "/bin/blob", "--rev", "29"]).fails(1);
    assert!(r.stderr.contains("compacted"), "{}", r.stderr);
    run_on(dir.path(), &["get", "/bin/blob", "--rev", "30"]).ok();

    let t = run_on(dir.path(), &["compact", "--rev", "20"]).ok().stdout;
    assert!(t.starts_with("already compacted at revision 30"), "{t}");
    let t = run_on(dir.path(), &["compact", "--rev", "45"]).ok().stdout;
    assert!(t.contains("compacted revision  45 (was 30)"), "{t}");
    let r = run_on(
        dir.path(),
        &["compact", "--rev", &(current + 1).to_string()],
    )
    .fails(1);
    assert!(
        r.stderr.contains("newer than the current revision"),
        "{}",
        r.stderr
    );
    run_on(dir.path(), &["verify"]).ok();
}

#[test]
fn defrag_gives_space_back_and_changes_no_retained_record() {
    let dir = populated(200);
    let current = reader(dir.path()).current_revision().get();
    run_on(
        dir.path(),
        &["compact", "--rev", &(current - 10).to_string()],
    )
    .ok();
    let dump_before = run_on(dir.path(), &["dump"]).ok().stdout;
    let ls_before = run_on(dir.path(), &["ls", "-o", "json"]).ok().stdout;
    let j = run_on(dir.path(), &["defrag", "-o", "json"]).ok().json();
    assert!(j["segments_rewritten"].as_u64() > Some(0), "{j}");
    let (before, after) = (
        j["directory_bytes_before"].as_u64().expect("before"),
        j["directory_bytes_after"].as_u64().expect("after"),
    );
    assert!(after < before, "{j}");
    let on_disk: u64 = std::fs::read_dir(dir.path())
        .expect("read_dir")
        .map(|e| e.expect("entry").metadata().expect("stat").len())
        .sum();
    assert_eq!(on_disk, after);
    assert_eq!(run_on(dir.path(), &["dump"]).ok().stdout, dump_before);
    assert_eq!(
        run_on(dir.path(), &["ls", "-o", "json"]).ok().stdout,
        ls_before
    );
    run_on(dir.path(), &["verify"]).ok();
    let t = run_on(dir.path(), &["defrag"]).ok().stdout;
    assert!(t.starts_with("nothing to rewrite"), "{t}");
}

#[test]
fn snapshot_save_then_restore_gives_an_identical_dump() {
    let dir = populated(150);
    let current = reader(dir.path()).current_revision().get();
    run_on(dir.path(), &["compact", "--rev", &current.to_string()]).ok();
    let work = tempfile::tempdir().expect("tempdir");
    let file = work.path().join("cairn.snap");
    let new = work.path().join("restored");
    let saved = run(&[
        "snapshot".as_ref(),
        "save".as_ref(),
        file.as_os_str(),
        "--data-dir".as_ref(),
        dir.path().as_os_str(),
        "-o".as_ref(),
        "json".as_ref(),
    ])
    .ok()
    .json();
    assert_eq!(saved["revision"], current);
    let status = run(&[
        "snapshot".as_ref(),
        "status".as_ref(),
        file.as_os_str(),
        "-o".as_ref(),
        "json".as_ref(),
    ])
    .ok()
    .json();
    assert_eq!(status["valid"], true);
    assert_eq!(status["keys"], saved["keys"]);
    let restored = run(&[
        "snapshot".as_ref(),
        "restore".as_ref(),
        file.as_os_str(),
        "--data-dir".as_ref(),
        new.as_os_str(),
        "-o".as_ref(),
        "json".as_ref(),
    ])
    .ok()
    .json();
    assert_eq!(restored["verify"]["clean"], true);
    assert_eq!(restored["restored"]["revision"], current);

    let original = run_on(dir.path(), &["dump"]).ok().stdout;
    assert!(original.lines().count() > 10);
    assert_eq!(run_on(&new, &["dump"]).ok().stdout, original);
    assert_eq!(
        run_on(&new, &["ls", "-o", "json", "--raw"]).ok().stdout,
        run_on(dir.path(), &["ls", "-o", "json", "--raw"])
            .ok()
            .stdout
    );
    let info = run_on(&new, &["info", "-o", "json"]).ok().json();
    assert_eq!(
        (
            info["current_revision"].clone(),
            info["compacted_revision"].clone()
        ),
        (current.into(), current.into())
    );
    assert_eq!(info["expiring_keys"], 1, "the TTL survives");
}

/// Saves `dir` to `file` with `extra` arguments and restores it into `new`.
fn save_and_restore(dir: &Path, file: &Path, new: &Path, extra: &[&str]) {
    let f = file.to_str().expect("utf-8");
    let mut args = vec!["snapshot", "save", f];
    args.extend_from_slice(extra);
    run_on(dir, &args).ok();
    let n = new.to_str().expect("utf-8");
    let t = run(&["snapshot", "restore", f, "--data-dir", n])
        .ok()
        .stdout;
    assert!(t.trim_end().ends_with("clean"), "{t}");
}

#[test]
fn a_snapshot_keeps_the_retained_history_unless_state_only() {
    let dir = populated(150);
    let current = reader(dir.path()).current_revision().get();
    let compacted = current - 100;
    run_on(dir.path(), &["compact", "--rev", &compacted.to_string()]).ok();
    let work = tempfile::tempdir().expect("tempdir");
    let (file, new) = (work.path().join("h.snap"), work.path().join("h"));
    save_and_restore(dir.path(), &file, &new, &[]);

    let original = run_on(dir.path(), &["dump"]).ok().stdout;
    assert!(
        original.contains(r#""op":"delete""#),
        "the retained history holds deletes"
    );
    assert_eq!(run_on(&new, &["dump"]).ok().stdout, original);
    let info = run_on(&new, &["info", "-o", "json"]).ok().json();
    assert_eq!(info["current_revision"], current);
    assert_eq!(info["compacted_revision"], compacted);
    // A key updated after the compaction point: every version is back.
    let key = cm_key("ns-0", "cm-00");
    let history = run_on(dir.path(), &["history", &key, "-o", "json"])
        .ok()
        .stdout;
    assert!(history.matches("\"revision\"").count() > 1, "{history}");
    assert_eq!(
        run_on(&new, &["history", &key, "-o", "json"]).ok().stdout,
        history
    );
    let status = run(&[
        "snapshot",
        "status",
        file.to_str().expect("utf-8"),
        "-o",
        "json",
    ])
    .ok()
    .json();
    assert_eq!(status["contents"], "history");

    // Up to an older revision: the history up to it.
    let at = current - 30;
    let (file, new) = (work.path().join("at.snap"), work.path().join("at"));
    save_and_restore(dir.path(), &file, &new, &["--rev", &at.to_string()]);
    assert_eq!(
        run_on(&new, &["dump"]).ok().stdout,
        run_on(dir.path(), &["dump", "--to-rev", &at.to_string()])
            .ok()
            .stdout
    );
    let info = run_on(&new, &["info", "-o", "json"]).ok().json();
    assert_eq!(info["current_revision"], at);
    assert_eq!(info["compacted_revision"], compacted);

    // --state-only: the state alone, compacted at its revision.
    let (file, new) = (work.path().join("s.snap"), work.path().join("s"));
    save_and_restore(dir.path(), &file, &new, &["--state-only"]);
    let state = run_on(&new, &["dump"]).ok().stdout;
    assert!(state.lines().count() < original.lines().count());
    assert!(!state.contains(r#""op":"delete""#));
    let info = run_on(&new, &["info", "-o", "json"]).ok().json();
    assert_eq!(info["compacted_revision"], current);
    assert_eq!(
        run_on(&new, &["ls", "-o", "json", "--raw"]).ok().stdout,
        run_on(dir.path(), &["ls", "-o", "json", "--raw"])
            .ok()
            .stdout
    );
    let status = run(&[
        "snapshot",
        "status",
        file.to_str().expect("utf-8"),
        "-o",
        "json",
    ])
    .ok()
    .json();
    assert_eq!(status["contents"], "state");
}

#[test]
fn a_snapshot_at_an_older_revision_restores_that_state_with_its_revisions() {
    let dir = populated(150);
    let e = reader(dir.path());
    let at = Revision(e.current_revision().get() - 60);
    let want = e
        .range(
            &KeyRange::all(),
            RangeOptions {
                at: Some(at),
                ..Default::default()
            },
        )
        .expect("range");
    drop(e);
    let work = tempfile::tempdir().expect("tempdir");
    let file = work.path().join("old.snap");
    let new = work.path().join("restored");
    let f = file.to_str().expect("utf-8");
    run_on(
        dir.path(),
        &[
            "snapshot",
            "save",
            f,
            "--rev",
            &at.to_string(),
            "--state-only",
        ],
    )
    .ok();
    let t = run(&[
        "snapshot",
        "restore",
        f,
        "--data-dir",
        new.to_str().expect("utf-8"),
    ])
    .ok()
    .stdout;
    assert!(t.contains(&format!("revision             {at}")), "{t}");
    assert!(t.trim_end().ends_with("clean"), "{t}");

    let back = Engine::open(&new, Options::no_sync()).expect("open restored");
    assert_eq!(
        (back.current_revision(), back.compacted_revision()),
        (at, at)
    );
    let got = back
        .range(&KeyRange::all(), RangeOptions::default())
        .expect("range");
    assert_eq!(
        got.items, want.items,
        "every key with its create/mod revision and version"
    );
    assert!(matches!(
        back.get(b"/bin/blob", Some(Revision(at.get() - 1))),
        Err(cairn_engine::Error::Compacted { .. })
    ));
    let next = back
        .commit_blocking(Txn::new().put("/new", "1"))
        .expect("commit");
    assert_eq!(next.revision, at.next());
    back.close();

    let older = run_on(dir.path(), &["ls", "-o", "json", "--rev", &at.to_string()])
        .ok()
        .json();
    let restored = run_on(
        &new,
        &["ls", "/registry/", "-o", "json", "--rev", &at.to_string()],
    )
    .ok()
    .json();
    let pick = |v: &serde_json::Value| {
        v["items"]
            .as_array()
            .expect("items")
            .iter()
            .filter(|i| {
                i["key"]
                    .as_str()
                    .is_some_and(|k| k.starts_with("/registry/"))
            })
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(pick(&restored), pick(&older));
    let r = run_on(
        &new,
        &["get", "/bin/blob", "--rev", &(at.get() - 1).to_string()],
    )
    .fails(1);
    assert!(r.stderr.contains("compacted"), "{}", r.stderr);
}

#[test]
fn snapshot_save_works_beside_a_running_writer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let writer = populate(dir.path(), 80);
    let work = tempfile::tempdir().expect("tempdir");
    let file = work.path().join("live.snap");
    let f = file.to_str().expect("utf-8");
    let saved = run_on(dir.path(), &["snapshot", "save", f, "-o", "json"])
        .ok()
        .json();
    let at = Revision(saved["revision"].as_u64().expect("revision"));
    writer
        .commit_blocking(Txn::new().put("/later", "x"))
        .expect("commit");
    let want = writer
        .range(
            &KeyRange::all(),
            RangeOptions {
                at: Some(at),
                ..Default::default()
            },
        )
        .expect("range");
    writer.close();
    let new = work.path().join("restored");
    run(&[
        "snapshot",
        "restore",
        f,
        "--data-dir",
        new.to_str().expect("utf-8"),
    ])
    .ok();
    let back = Engine::open_read_only(&new, Options::no_sync()).expect("open");
    assert_eq!(
        back.range(&KeyRange::all(), RangeOptions::default())
            .expect("range")
            .items,
        want.items
    );
}

#[test]
fn snapshot_commands_refuse_what_they_cannot_use() {
    let dir = populated(40);
    let work = tempfile::tempdir().expect("tempdir");
    let file = work.path().join("s.snap");
    let f = file.to_str().expect("utf-8");
    run_on(dir.path(), &["snapshot", "save", f]).ok();
    let r = run_on(dir.path(), &["snapshot", "save", f, "--rev", "999999"]).fails(1);
    assert!(
        r.stderr.contains("newer than the current revision"),
        "{}",
        r.stderr
    );

    // Restore only into an absent or empty directory, never a locked one.
    let r = run(&[
        "snapshot",
        "restore",
        f,
        "--data-dir",
        dir.path().to_str().expect("utf-8"),
    ])
    .fails(2);
    assert!(r.stderr.contains("not empty"), "{}", r.stderr);
    let busy = tempfile::tempdir().expect("tempdir");
    let holder = Engine::open(busy.path(), Options::no_sync()).expect("open");
    let before = contents(busy.path());
    let r = run(&[
        "snapshot",
        "restore",
        f,
        "--data-dir",
        busy.path().to_str().expect("utf-8"),
    ])
    .fails(1);
    assert!(
        r.stderr.contains("cannot restore") && r.stderr.contains(&pid()),
        "{}",
        r.stderr
    );
    assert_eq!(contents(busy.path()), before);
    drop(holder);
    let r = run(&[
        "snapshot",
        "restore",
        "/no/such.snap",
        "--data-dir",
        "/tmp/x",
    ])
    .fails(2);
    assert!(r.stderr.contains("no such snapshot file"), "{}", r.stderr);

    // A damaged snapshot: found with its offset, and nothing restored.
    let len = std::fs::metadata(&file).expect("stat").len() as usize;
    for at in [3, 40, 100, len / 2, len - 10, len - 1] {
        let bad = work.path().join(format!("bad-{at}.snap"));
        std::fs::copy(&file, &bad).expect("copy");
        flip(&bad, at);
        let b = bad.to_str().expect("utf-8");
        let r = run(&["snapshot", "status", b]).fails(1);
        assert!(
            r.stderr.contains(b) && r.stderr.contains("byte offset"),
            "{}",
            r.stderr
        );
        let new = work.path().join(format!("r-{at}"));
        let r = run(&[
            "snapshot",
            "restore",
            b,
            "--data-dir",
            new.to_str().expect("utf-8"),
        ])
        .fails(1);
        assert!(r.stderr.contains("cannot restore"), "{}", r.stderr);
        assert!(!new.join("MANIFEST").exists());
        assert!(!new.exists() || common::files(&new, "seg").is_empty());
    }
}
