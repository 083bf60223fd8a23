//! Damaged directories through the real binary: `verify` names the file and
//! byte offset of a flipped byte and exits 1; a torn tail is reported by
//! `verify` as recoverable (exit 3), refused by writing commands, and cut by
//! `repair`, which reports exactly what it dropped; damage `repair` must not
//! cut is refused. `crash_residue.rs` tells residue from damage in detail.

mod common;

use cairn_engine::{Engine, Options};
use common::{contents, cut, files, flip, name, populate, populated, records, run_on};
use serde_json::Value;

/// The error problems of a `verify -o json` run (which must exit 1).
fn errors(dir: &std::path::Path) -> Vec<Value> {
    let r = run_on(dir, &["verify", "-o", "json"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.stderr, "");
    r.json()["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter(|p| p["severity"] == "error")
        .cloned()
        .collect()
}

#[test]
fn a_flipped_byte_is_found_with_its_file_and_offset() {
    let dir = populated(120);
    let segs = files(dir.path(), "seg");
    let recs = records(&segs[1]);
    let (start, end, _) = recs[2];
    // Length prefix, checksum, revision, an op header, a value byte, the last byte.
    for at in [
        start,
        start + 5,
        start + 9,
        start + 30,
        start + (end - start) / 2 + 10,
        end - 1,
    ] {
        let copy = common::copy(dir.path());
        let seg = copy.path().join(name(&segs[1]));
        flip(&seg, at);
        let found = errors(copy.path());
        assert!(
            found.iter().all(|p| p["file"] == name(&seg)),
            "flip at {at}: {found:?}"
        );
        let p = &found[0];
        let (offset, len) = (
            p["offset"].as_u64().expect("offset"),
            p["length"].as_u64().expect("len"),
        );
        assert_eq!(
            offset, start as u64,
            "the damaged record's offset (flip at {at})"
        );
        assert!(
            offset + len > at as u64,
            "its span covers the flip at {at}: {p}"
        );

        // The table names the same file and offset.
        let t = run_on(copy.path(), &["verify"]);
        assert_eq!(t.code, 1);
        let line = t.stdout.lines().nth(1).expect("a problem row");
        assert!(
            line.starts_with("error") && line.contains(&name(&seg)),
            "{line}"
        );
        assert!(
            line.split_whitespace().any(|w| w == start.to_string()),
            "{line}"
        );
        assert!(
            t.stdout
                .lines()
                .last()
                .expect("summary")
                .contains("CORRUPT: 1 error(s)"),
            "{}",
            t.stdout
        );
    }
}

#[test]
fn flips_in_headers_sidecars_and_the_manifest_are_found() {
    let dir = populated(120);
    let segs = files(dir.path(), "seg");
    let side = files(dir.path(), "idx")[0].clone();
    let side_len = std::fs::metadata(&side).expect("stat").len() as usize;
    // (file, byte flipped, where the problem may be reported)
    type Case = (String, usize, Box<dyn Fn(u64) -> bool>);
    let cases: Vec<Case> = vec![
        (name(&segs[0]), 3, Box::new(|o| o < 32)),
        (name(&segs[0]), 30, Box::new(|o| o == 28)),
        (name(&side), 200, Box::new(|o| o == 200)),
        (name(&side), 77, Box::new(|o| o == 77)),
        (
            name(&side),
            side_len - 2,
            Box::new(move |o| o == side_len as u64 - 4),
        ),
        ("MANIFEST".into(), 45, Box::new(|_| true)),
    ];
    for (file, at, offset_ok) in cases {
        let copy = common::copy(dir.path());
        flip(&copy.path().join(&file), at);
        let found = errors(copy.path());
        assert!(
            found
                .iter()
                .any(|p| p["file"] == file.as_str()
                    && offset_ok(p["offset"].as_u64().expect("offset"))),
            "flip at {at} of {file}: {found:?}"
        );
    }
}

#[test]
fn a_sidecar_that_checks_out_but_lies_is_found_and_rewritten() {
    let dir = populated(120);
    let side = files(dir.path(), "idx")[0].clone();
    let mut bytes = std::fs::read(&side).expect("read");
    // Change a key byte in the first entry, then fix the sidecar's checksum:
    // the engine would trust it.
    let at = 32 + 16 + 20 + 36 + 2;
    bytes[at] ^= 0x01;
    let end = bytes.len() - 4;
    let sum = crc32fast::hash(&bytes[32..end]);
    bytes[end..].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&side, &bytes).expect("write");
    Engine::open_read_only(dir.path(), Options::no_sync()).expect("the engine opens it unaware");

    let found = errors(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["file"], name(&side));
    assert_eq!(found[0]["offset"], at);
    assert!(
        found[0]["problem"]
            .as_str()
            .expect("text")
            .contains("trusts it"),
        "{found:?}"
    );

    let j = run_on(dir.path(), &["repair", "-o", "json"]).ok().json();
    assert_eq!(j["actions"][0]["action"], "rewrite-sidecar");
    assert_eq!(j["actions"][0]["file"], name(&side));
    assert_eq!(j["verify"]["clean"], true);
    run_on(dir.path(), &["verify"]).ok();
}

#[test]
fn a_torn_tail_is_reported_refused_and_cut_by_repair() {
    let dir = populated(120);
    let last = files(dir.path(), "seg").pop().expect("active");
    let recs = records(&last);
    let (start, end, rev) = *recs.last().expect("a record");
    let cut_at = start + (end - start) / 2;
    cut(&last, cut_at);
    let dropped = (cut_at - start) as u64;

    // Crash residue, not damage: exit 3, and the tail apart from the problems.
    let v = run_on(dir.path(), &["verify", "-o", "json"]);
    assert_eq!((v.code, v.stderr.as_str()), (3, ""), "{}", v.stdout);
    let j = v.json();
    assert_eq!(j["problems"], serde_json::json!([]));
    let t = &j["recoverable"][0];
    assert_eq!(
        (&t["file"], &t["offset"], &t["bytes"], &t["last_revision"]),
        (
            &name(&last).into(),
            &start.into(),
            &dropped.into(),
            &(rev - 1).into()
        )
    );

    // Read commands still work (read-only opens never repair) and say so.
    let info = run_on(dir.path(), &["info", "-o", "json"]).ok().json();
    assert_eq!(info["torn_tail"]["offset"], start);
    assert_eq!(info["torn_tail"]["bytes"], dropped);
    assert_eq!(info["current_revision"], rev - 1);
    let d = run_on(dir.path(), &["dump"]);
    assert_eq!(d.code, 0);
    assert!(
        d.stderr.contains("torn tail") && d.stderr.lines().count() == 1,
        "{}",
        d.stderr
    );
    assert_eq!(d.stdout.lines().count() as u64, rev - 1);

    // Writing commands refuse rather than truncate silently.
    let before = contents(dir.path());
    for args in [&["compact", "--rev", "5"][..], &["defrag"]] {
        let r = run_on(dir.path(), args).fails(1);
        assert!(
            r.stderr.contains("torn tail") && r.stderr.contains("cairn-store repair"),
            "{}",
            r.stderr
        );
    }
    let dry = run_on(dir.path(), &["repair", "--dry-run"]).ok().stdout;
    assert!(
        dry.contains(&format!(
            "truncate  {}  {start:>6}  {dropped:>5}",
            name(&last)
        )),
        "{dry}"
    );
    assert!(
        dry.contains("dry run: 1 change(s) would be made; nothing changed"),
        "{dry}"
    );
    assert_eq!(contents(dir.path()), before, "nothing changed");

    let j = run_on(dir.path(), &["repair", "-o", "json"]).ok().json();
    assert_eq!(j["applied"], true);
    assert_eq!(j["actions"].as_array().expect("actions").len(), 1);
    let a = &j["actions"][0];
    assert_eq!(
        (&a["action"], &a["file"], &a["offset"], &a["bytes"]),
        (
            &"truncate".into(),
            &name(&last).into(),
            &start.into(),
            &dropped.into()
        )
    );
    assert_eq!(j["verify"]["clean"], true);
    assert_eq!(std::fs::metadata(&last).expect("stat").len(), start as u64);
    run_on(dir.path(), &["verify"]).ok();
    assert_eq!(
        run_on(dir.path(), &["repair"]).ok().stdout.lines().next(),
        Some("nothing to repair")
    );
    let e = Engine::open(dir.path(), Options::no_sync()).expect("open");
    assert_eq!(e.current_revision().get(), rev - 1);
}

#[test]
fn repair_refuses_damage_before_valid_records_and_changes_nothing() {
    let dir = populated(120);
    let segs = files(dir.path(), "seg");
    let recs = records(&segs[0]);
    flip(&segs[0], recs[1].0 + 25);
    let before = contents(dir.path());
    let r = run_on(dir.path(), &["repair"]).fails(1);
    assert!(r.stderr.contains("cannot repair"), "{}", r.stderr);
    assert!(r.stderr.contains(&name(&segs[0])), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("byte offset {}", recs[1].0)),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("acknowledged"), "{}", r.stderr);
    assert_eq!(contents(dir.path()), before);
}

#[test]
fn repair_refuses_a_locked_directory_naming_the_holder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let writer = populate(dir.path(), 10);
    let r = run_on(dir.path(), &["repair", "--dry-run"]).fails(1);
    assert!(r.stderr.contains("cannot repair"), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("pid {}", std::process::id())),
        "{}",
        r.stderr
    );
    writer.close();
}

#[test]
fn leftovers_and_missing_sidecars_are_warnings_that_repair_clears() {
    let dir = populated(120);
    let side = files(dir.path(), "idx")[1].clone();
    std::fs::remove_file(&side).expect("rm");
    std::fs::write(dir.path().join("00000000000000aa.seg"), b"orphan").expect("write");
    std::fs::write(dir.path().join("00000000000000aa.idx"), b"orphan").expect("write");
    std::fs::write(dir.path().join("MANIFEST.tmp"), b"half").expect("write");
    let j = run_on(dir.path(), &["verify", "-o", "json"]).ok().json();
    assert_eq!(
        (
            j["clean"].clone(),
            j["errors"].clone(),
            j["warnings"].clone()
        ),
        (true.into(), 0.into(), 4.into())
    );
    let t = run_on(dir.path(), &["verify"]).ok().stdout;
    assert!(
        t.lines()
            .last()
            .expect("summary")
            .ends_with("clean, 4 warning(s)"),
        "{t}"
    );

    let r = run_on(dir.path(), &["repair"]).ok().stdout;
    for want in [
        "remove",
        "00000000000000aa.seg",
        "00000000000000aa.idx",
        "MANIFEST.tmp",
        "rewrite-sidecar",
        "4 change(s) made",
    ] {
        assert!(r.contains(want), "{want} in {r}");
    }
    let j = run_on(dir.path(), &["verify", "-o", "json"]).ok().json();
    assert_eq!(j["warnings"], 0);
    assert!(side.exists());
}

#[test]
fn revisions_out_of_order_and_missing_segments_are_found() {
    let dir = populated(120);
    let segs = files(dir.path(), "seg");
    assert!(segs.len() >= 4);
    // A manifest naming the first two segments swapped (FORMAT.md: header,
    // compacted revision, next id, count, ids, CRC of the body).
    let m = std::fs::read(dir.path().join("MANIFEST")).expect("read");
    let mut body = m[32..m.len() - 4].to_vec();
    let (a, b) = (body[20..28].to_vec(), body[28..36].to_vec());
    body[20..28].copy_from_slice(&b);
    body[28..36].copy_from_slice(&a);
    let mut swapped = m[..32].to_vec();
    swapped.extend_from_slice(&body);
    swapped.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    let copy = common::copy(dir.path());
    std::fs::write(copy.path().join("MANIFEST"), &swapped).expect("write");
    let found = errors(copy.path());
    assert!(
        found.iter().any(|p| p["file"] == name(&segs[0])
            && p["offset"] == 32
            && p["problem"]
                .as_str()
                .is_some_and(|t| t.contains("does not follow"))),
        "{found:?}"
    );

    // A segment the manifest names but that is gone: a dangling location.
    let copy = common::copy(dir.path());
    std::fs::remove_file(copy.path().join(name(&segs[2]))).expect("rm");
    let found = errors(copy.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["file"], "MANIFEST");
    assert_eq!(found[0]["offset"], 52 + 8 * 2);
    assert!(
        found[0]["problem"]
            .as_str()
            .expect("text")
            .contains("missing")
    );
}

#[test]
fn beside_a_live_writer_an_incomplete_last_record_is_a_write_in_flight() {
    let dir = tempfile::tempdir().expect("tempdir");
    let writer = populate(dir.path(), 60);
    let j = run_on(dir.path(), &["verify", "-o", "json"]).ok().json();
    // Besides the lock, at most sidecars the writer has not written yet.
    assert_eq!(j["errors"], 0, "{j}");
    let w = &j["problems"][0];
    assert_eq!(w["file"], "LOCK");
    assert!(
        w["problem"]
            .as_str()
            .expect("text")
            .contains(&format!("pid {}", std::process::id())),
        "{w}"
    );

    // Half a record at the end of the active segment, as a writer mid-append leaves it.
    let last = files(dir.path(), "seg").pop().expect("active");
    let len = std::fs::metadata(&last).expect("stat").len();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&last)
        .expect("open");
    std::io::Write::write_all(&mut f, &[200, 0, 0, 0, 1, 2, 3, 4, 5, 6]).expect("append");
    let j = run_on(dir.path(), &["verify", "-o", "json"]).ok().json();
    assert_eq!(j["errors"], 0, "{j}");
    let p = j["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .find(|p| p["file"] == name(&last))
        .expect("the active segment's problem");
    assert_eq!(
        (&p["severity"], &p["offset"]),
        (&"warning".into(), &len.into())
    );
    assert!(
        p["problem"]
            .as_str()
            .expect("text")
            .contains("a write in flight"),
        "{p}"
    );
    drop(f);
    writer.close();
}
