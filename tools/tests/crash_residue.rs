//! Crash residue against damage, through the real binary: a record torn by a
//! kill at the end of the active segment makes `verify` exit 3 and say what
//! the next open or `repair` cuts (and `repair` cuts exactly that); the same
//! bytes in a sealed segment, or a bad record that valid ones follow, lose
//! committed data and exit 1.

mod common;

use std::path::Path;

use cairn_engine::{Engine, Options};
use common::{files, flip, name, populated, records, run, run_on};
use serde_json::{Value, json};

/// The next record the engine would have appended to `seg` (a copy of its
/// last one, one revision on, checksum fixed), cut in half as a kill
/// mid-append leaves it.
fn half_record(seg: &Path) -> Vec<u8> {
    let (start, end, rev) = *records(seg).last().expect("a record");
    let mut rec = std::fs::read(seg).expect("read")[start..end].to_vec();
    rec[8..16].copy_from_slice(&(rev + 1).to_le_bytes());
    let sum = crc32fast::hash(&rec[8..]);
    rec[4..8].copy_from_slice(&sum.to_le_bytes());
    rec.truncate(rec.len() / 2);
    rec
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open");
    std::io::Write::write_all(&mut f, bytes).expect("append");
}

/// `verify -o json`, asserting its exit code.
fn verify_json(dir: &Path, code: i32) -> Value {
    let r = run_on(dir, &["verify", "-o", "json"]);
    assert_eq!((r.code, r.stderr.as_str()), (code, ""), "{}", r.stdout);
    r.json()
}

#[test]
fn a_record_torn_by_a_kill_is_recoverable_and_repair_cuts_exactly_it() {
    let dir = populated(120);
    let active = files(dir.path(), "seg").pop().expect("active");
    let (_, end, rev) = *records(&active).last().expect("a record");
    let half = half_record(&active);
    let garbage = b"\x13\x37 bytes of a write that never finished".to_vec();
    for tail in [half, garbage] {
        let copy = common::copy(dir.path());
        let seg = copy.path().join(name(&active));
        append(&seg, &tail);
        let bytes = std::fs::metadata(&seg).expect("stat").len() - end as u64;

        let t = run_on(copy.path(), &["verify"]);
        assert_eq!((t.code, t.stderr.as_str()), (3, ""), "{}", t.stdout);
        let lines: Vec<&str> = t.stdout.lines().collect();
        assert_eq!(lines.len(), 2, "no problem table: {}", t.stdout);
        assert!(
            lines[0].starts_with(&format!(
                "torn tail (crash residue, recoverable): {} at offset {end}: {bytes} bytes \
                 after revision {rev} will be truncated by the next writable open or by \
                 `cairn-store repair` (",
                name(&seg)
            )),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].ends_with(&format!(
                ": no damage, a torn tail of {bytes} bytes to truncate (recoverable), 0 warning(s)"
            )),
            "{}",
            lines[1]
        );

        let j = verify_json(copy.path(), 3);
        assert_eq!(
            (&j["status"], &j["clean"], &j["errors"], &j["problems"]),
            (&json!("recoverable"), &json!(true), &json!(0), &json!([]))
        );
        assert_eq!(j["current_revision"], rev);
        let r = &j["recoverable"];
        assert_eq!(r.as_array().expect("a list").len(), 1, "{r}");
        assert_eq!(
            (&r[0]["kind"], &r[0]["file"], &r[0]["offset"]),
            (&json!("torn_tail"), &json!(name(&seg)), &json!(end))
        );
        assert_eq!(
            (&r[0]["bytes"], &r[0]["last_revision"]),
            (&json!(bytes), &json!(rev))
        );

        // `info` and `repair` describe the same cut.
        let info = run_on(copy.path(), &["info", "-o", "json"]).ok().json();
        assert_eq!(
            (
                &info["torn_tail"]["offset"],
                &info["torn_tail"]["bytes"],
                &info["torn_tail"]["last_revision"]
            ),
            (&json!(end), &json!(bytes), &json!(rev))
        );
        let dry = run_on(copy.path(), &["repair", "--dry-run", "-o", "json"])
            .ok()
            .json();
        let a = &dry["actions"];
        assert_eq!(a.as_array().expect("actions").len(), 1, "{a}");
        assert_eq!(
            (
                &a[0]["action"],
                &a[0]["file"],
                &a[0]["offset"],
                &a[0]["bytes"]
            ),
            (
                &json!("truncate"),
                &json!(name(&seg)),
                &json!(end),
                &json!(bytes)
            )
        );

        let done = run_on(copy.path(), &["repair", "-o", "json"]).ok().json();
        assert_eq!(done["verify"]["status"], "clean");
        assert_eq!(std::fs::metadata(&seg).expect("stat").len(), end as u64);
        let j = verify_json(copy.path(), 0);
        assert_eq!(
            (&j["status"], &j["recoverable"]),
            (&json!("clean"), &json!([]))
        );
        let e = Engine::open(copy.path(), Options::no_sync()).expect("open");
        assert_eq!(e.current_revision().get(), rev);
    }
}

#[test]
fn the_same_bytes_in_a_sealed_segment_are_damage() {
    let dir = populated(120);
    let segs = files(dir.path(), "seg");
    let sealed = &segs[segs.len() - 2];
    let (_, end, _) = *records(sealed).last().expect("a record");
    append(sealed, &half_record(sealed));
    let j = verify_json(dir.path(), 1);
    assert_eq!(
        (&j["status"], &j["clean"]),
        (&json!("corrupt"), &json!(false))
    );
    assert_eq!(j["recoverable"], json!([]));
    let problems = j["problems"].as_array().expect("problems");
    assert!(
        problems.iter().any(|p| p["severity"] == "error"
            && p["file"] == name(sealed).as_str()
            && p["offset"] == end
            && p["problem"]
                .as_str()
                .is_some_and(|t| t.contains("sealed segment"))),
        "{problems:?}"
    );
    let r = run_on(dir.path(), &["repair", "--dry-run"]).fails(1);
    assert!(r.stderr.contains("cannot repair"), "{}", r.stderr);
}

#[test]
fn a_bad_record_that_valid_ones_follow_is_damage() {
    let dir = populated(120);
    let active = files(dir.path(), "seg").pop().expect("active");
    let recs = records(&active);
    assert!(recs.len() >= 2, "{recs:?}");
    let (start, _, _) = recs[recs.len() - 2];
    flip(&active, start + 20);
    let j = verify_json(dir.path(), 1);
    assert_eq!(j["status"], "corrupt");
    assert_eq!(j["recoverable"], json!([]));
    assert_eq!(j["problems"][0]["offset"], start);
    let t = run_on(dir.path(), &["verify"]);
    assert_eq!(t.code, 1);
    assert!(!t.stdout.contains("recoverable"), "{}", t.stdout);
}

#[test]
fn damage_and_residue_together_exit_1_and_report_both() {
    let dir = populated(120);
    let segs = files(dir.path(), "seg");
    let active = segs.last().expect("active");
    let (_, end, _) = *records(active).last().expect("a record");
    let first = records(&segs[0]);
    flip(&segs[0], first[1].0 + 20);
    append(active, &half_record(active));
    let j = verify_json(dir.path(), 1);
    assert_eq!(j["status"], "corrupt");
    assert_eq!(j["recoverable"][0]["offset"], end);
    assert!(j["errors"].as_u64().expect("errors") >= 1, "{j}");
    let t = run_on(dir.path(), &["verify"]);
    assert_eq!(t.code, 1);
    let summary = t.stdout.lines().last().expect("summary");
    assert!(
        summary.contains("CORRUPT") && summary.contains("and a torn tail of"),
        "{summary}"
    );
}

#[test]
fn the_help_names_exit_code_3() {
    let top = run(&["--help"]).ok().stdout;
    assert!(top.contains("3 (verify)"), "{top}");
    let verify = run(&["verify", "--help"]).ok().stdout;
    assert!(
        verify.contains("3 when all there is to fix is a torn tail"),
        "{verify}"
    );
}
