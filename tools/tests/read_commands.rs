//! The read commands (`info`, `get`, `history`, `ls`, `dump`, `verify`) run as
//! the real binary on data directories written by cairn-engine, their output
//! checked against what the engine itself reads back.

mod common;

use cairn_engine::{Engine, EventKind, KeyRange, Options, RangeOptions, Revision};
use common::{cm_key, copy, files, name, options, populate, populated, records, run_on};
use serde_json::Value;

fn reader(dir: &std::path::Path) -> Engine {
    Engine::open_read_only(dir, Options::no_sync()).expect("read-only open")
}

/// Column start of `word` in `line`.
fn col(line: &str, word: &str) -> usize {
    line.find(word)
        .unwrap_or_else(|| panic!("{word} in {line:?}"))
}

#[test]
fn info_reports_what_the_engine_holds() {
    let dir = populated(150);
    let e = reader(dir.path());
    let stats = e.stats();
    let segments = e.segments();
    assert!(segments.len() >= 3, "the workload spans several segments");
    let j = run_on(dir.path(), &["info", "-o", "json"]).ok().json();
    assert_eq!(j["format_version"], 1);
    assert_eq!(j["current_revision"], stats.current_revision.get());
    assert_eq!(j["compacted_revision"], 0);
    assert_eq!(j["live_keys"], stats.live_keys);
    assert_eq!(j["versions"], stats.versions);
    assert_eq!(j["records"], stats.records);
    assert_eq!(j["expiring_keys"], 1);
    assert_eq!(j["lock_holder"], Value::Null);
    assert_eq!(j["torn_tail"], Value::Null);
    let segs = j["segments"].as_array().expect("segments");
    assert_eq!(segs.len(), segments.len());
    let mut next_rev = 1;
    for (s, info) in segs.iter().zip(&segments) {
        assert_eq!(s["file"], name(&info.file));
        assert_eq!(
            s["first_revision"], next_rev,
            "revision ranges tile the log"
        );
        next_rev = s["last_revision"].as_u64().expect("last") + 1;
        assert_eq!(s["active"], info.active);
        assert_eq!(s["sidecar"], !info.active, "sealed segments have sidecars");
        assert_eq!(
            s["bytes"],
            std::fs::metadata(&info.file).expect("stat").len()
        );
    }
    assert_eq!(next_rev, stats.current_revision.get() + 1);

    let table = run_on(dir.path(), &["info"]).ok().stdout;
    assert!(
        table.contains(&format!("current revision    {}", stats.current_revision)),
        "{table}"
    );
    assert!(table.contains("lock holder         none"), "{table}");
    let lines: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with("SEGMENT"))
        .collect();
    assert_eq!(lines.len(), segments.len() + 1, "{table}");
    let state = col(lines[0], "STATE");
    for l in &lines[1..] {
        assert!(
            l[state..].starts_with("sealed") || l[state..].starts_with("active"),
            "aligned: {l:?}"
        );
    }
}

#[test]
fn info_names_the_lock_holder_and_reads_beside_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let writer = populate(dir.path(), 20);
    let j = run_on(dir.path(), &["info", "-o", "json"]).ok().json();
    let holder = j["lock_holder"].as_str().expect("a holder");
    assert!(
        holder.contains(&format!("pid {}", std::process::id())),
        "{holder}"
    );
    assert_eq!(j["current_revision"], writer.current_revision().get());
    let table = run_on(dir.path(), &["info"]).ok().stdout;
    assert!(
        table.contains(&format!("pid {}", std::process::id())),
        "{table}"
    );
    writer.close();
}

#[test]
fn get_decodes_kubernetes_objects_and_gives_raw_bytes_on_request() {
    let dir = populated(60);
    let e = reader(dir.path());
    let key = cm_key("ns-1", "cm-04");
    let kv = e
        .get(key.as_bytes(), None)
        .expect("get")
        .kv
        .expect("present");
    assert!(kv.version > 1, "updated since created");

    let table = run_on(dir.path(), &["get", &key]).ok().stdout;
    for (field, want) in [
        ("key", key.clone()),
        ("kind", "ConfigMap".into()),
        ("name", "ns-1/cm-04".into()),
        ("resourceVersion", kv.mod_revision.to_string()),
        ("create revision", kv.create_revision.to_string()),
        ("version", kv.version.to_string()),
    ] {
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("{field} ")))
            .unwrap_or_else(|| panic!("{field} in {table}"));
        assert_eq!(line[field.len()..].trim(), want, "{field}");
    }

    let raw = run_on(dir.path(), &["get", &key, "--raw"]).ok();
    assert_eq!(raw.stdout_bytes, kv.value.to_vec());

    let j = run_on(dir.path(), &["get", &key, "-o", "json"]).ok().json();
    assert_eq!(j["mod_revision"], kv.mod_revision.get());
    assert_eq!(j["create_revision"], kv.create_revision.get());
    assert_eq!(j["version"], kv.version);
    assert_eq!(j["object"]["kind"], "ConfigMap");
    assert_eq!(j["object"]["namespace"], "ns-1");
    assert_eq!(j["object"]["name"], "cm-04");
    assert_eq!(j["object"]["resourceVersion"], kv.mod_revision.to_string());
    assert_eq!(j["value"], Value::Null, "values only on request");

    // At an older revision: the version visible there.
    let old_rev = kv.create_revision;
    let old = e
        .get(key.as_bytes(), Some(old_rev))
        .expect("get")
        .kv
        .expect("present");
    let j = run_on(
        dir.path(),
        &[
            "get",
            &key,
            "--rev",
            &old_rev.to_string(),
            "-o",
            "json",
            "--raw",
        ],
    )
    .ok()
    .json();
    assert_eq!(j["mod_revision"], old.mod_revision.get());
    assert_eq!(
        j["value"],
        String::from_utf8(old.value.to_vec()).expect("utf-8")
    );
    assert_eq!(j["revision"], old_rev.get());

    // Bytes that are not UTF-8 come back as base64; not objects.
    let j = run_on(dir.path(), &["get", "/bin/blob", "-o", "json", "--raw"])
        .ok()
        .json();
    assert_eq!(j["value_base64"], "/wAB/g==");
    assert_eq!(j["object"], Value::Null);
    let t = run_on(dir.path(), &["get", "/bin/blob"]).ok().stdout;
    assert!(t.contains("\\xff\\x00\\x01\\xfe"), "{t}");

    let current = e.current_revision().get();
    let missing = run_on(dir.path(), &["get", "/no/such/key"]).fails(1);
    assert!(
        missing
            .stderr
            .contains("/no/such/key not found at revision"),
        "{}",
        missing.stderr
    );
    let future = run_on(
        dir.path(),
        &["get", &key, "--rev", &(current + 5).to_string()],
    )
    .fails(1);
    assert!(
        future.stderr.contains("newer than the current revision"),
        "{}",
        future.stderr
    );
}

#[test]
fn history_lists_every_retained_version_with_times() {
    let dir = populated(80);
    let e = reader(dir.path());
    // The key with the longest history that includes a delete.
    let (key, versions) = (0..3)
        .flat_map(|ns| (0..17).map(move |n| cm_key(&format!("ns-{ns}"), &format!("cm-{n:02}"))))
        .map(|k| {
            let h = e.key_history(k.as_bytes());
            (k, h)
        })
        .filter(|(_, h)| h.iter().any(|v| v.kind == EventKind::Delete))
        .max_by_key(|(_, h)| h.len())
        .expect("some key was deleted");
    assert!(versions.len() >= 3, "{versions:?}");
    let j = run_on(dir.path(), &["history", &key, "-o", "json"])
        .ok()
        .json();
    let list = j["versions"].as_array().expect("versions");
    assert_eq!(list.len(), versions.len());
    let mut last_time = String::new();
    for (v, want) in list.iter().zip(&versions) {
        assert_eq!(v["revision"], want.revision.get());
        let time = v["time"].as_str().expect("time").to_string();
        assert_eq!(time.len(), "2026-01-01T00:00:00.000000Z".len(), "{time}");
        assert!(
            time.ends_with('Z') && time >= last_time,
            "{time} after {last_time}"
        );
        last_time = time;
        match want.kind {
            EventKind::Put => {
                let kv = want.kv.as_ref().expect("put");
                assert_eq!(v["op"], "put");
                assert_eq!(v["version"], kv.version);
                assert_eq!(v["create_revision"], kv.create_revision.get());
                assert_eq!(v["object"]["kind"], "ConfigMap");
            }
            EventKind::Delete => assert_eq!(v["op"], "delete"),
        }
    }
    let table = run_on(dir.path(), &["history", &key, "--raw"]).ok().stdout;
    assert_eq!(table.lines().count(), versions.len() + 1, "{table}");
    assert!(table.lines().next().expect("header").ends_with("VALUE"));

    let missing = run_on(dir.path(), &["history", "/never/written"]).fails(1);
    assert!(
        missing.stderr.contains("no retained version"),
        "{}",
        missing.stderr
    );
}

#[test]
fn ls_lists_keys_at_a_revision_with_limits() {
    let dir = populated(90);
    let e = reader(dir.path());
    let all = e
        .range(
            &KeyRange::prefix(b"/registry/configmaps/"),
            RangeOptions::default(),
        )
        .expect("range");
    let j = run_on(dir.path(), &["ls", "/registry/configmaps/", "-o", "json"])
        .ok()
        .json();
    let items = j["items"].as_array().expect("items");
    assert_eq!(items.len(), all.items.len());
    assert_eq!(j["count"], all.items.len());
    assert_eq!(j["more"], false);
    for (i, kv) in items.iter().zip(&all.items) {
        assert_eq!(i["key"], String::from_utf8(kv.key.to_vec()).expect("utf-8"));
        assert_eq!(i["mod_revision"], kv.mod_revision.get());
        assert_eq!(i["create_revision"], kv.create_revision.get());
        assert_eq!(i["version"], kv.version);
        assert_eq!(i["object"]["kind"], "ConfigMap");
    }

    let j = run_on(
        dir.path(),
        &["ls", "/registry/", "--limit", "3", "-o", "json"],
    )
    .ok()
    .json();
    assert_eq!(j["items"].as_array().expect("items").len(), 3);
    assert_eq!(j["more"], true);
    assert!(j["count"].as_u64().expect("count") > 3);

    let at = Revision(40);
    let then = e
        .range(
            &KeyRange::all(),
            RangeOptions {
                at: Some(at),
                ..Default::default()
            },
        )
        .expect("range");
    let j = run_on(dir.path(), &["ls", "--rev", "40", "-o", "json"])
        .ok()
        .json();
    assert_eq!(j["revision"], 40);
    let keys: Vec<&str> = j["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["key"].as_str().unwrap_or("<binary>"))
        .collect();
    let want: Vec<String> = then
        .items
        .iter()
        .map(|kv| String::from_utf8(kv.key.to_vec()).unwrap_or_else(|_| "<binary>".into()))
        .collect();
    assert_eq!(keys, want);

    let table = run_on(dir.path(), &["ls", "/registry/configmaps/ns-2/", "--raw"])
        .ok()
        .stdout;
    let lines: Vec<&str> = table.lines().collect();
    let footer = lines.last().expect("footer");
    assert!(
        footer.ends_with(&format!("keys at revision {}", e.current_revision())),
        "{footer}"
    );
    assert!(
        lines[0].starts_with("KEY") && lines[0].ends_with("VALUE"),
        "{}",
        lines[0]
    );
    let rv = col(lines[0], "RV") + 2;
    for l in &lines[1..lines.len() - 1] {
        assert!(l.contains("ConfigMap") && l.contains("ns-2/cm-"), "{l}");
        assert!(
            l[..rv].ends_with(|c: char| c.is_ascii_digit()),
            "right-aligned RV: {l}"
        );
    }
    let none = run_on(dir.path(), &["ls", "/nothing/"]).ok().stdout;
    assert_eq!(
        none.trim(),
        format!("0 of 0 keys at revision {}", e.current_revision())
    );
}

/// Parses `dump` output into its lines.
fn dump(dir: &std::path::Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["dump"];
    all.extend_from_slice(args);
    run_on(dir, &all)
        .ok()
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn dump_is_every_record_as_json_lines() {
    let dir = populated(70);
    let e = reader(dir.path());
    let current = e.current_revision().get();
    let lines = dump(dir.path(), &[]);
    assert_eq!(
        lines.len() as u64,
        current,
        "uncompacted: one record per revision"
    );
    for (i, line) in lines.iter().enumerate() {
        let rev = line["revision"].as_u64().expect("revision");
        assert_eq!(rev, i as u64 + 1);
        for op in line["ops"].as_array().expect("ops") {
            let key: Vec<u8> = match op.get("key") {
                Some(k) => k.as_str().expect("key").as_bytes().to_vec(),
                None => panic!("keys of this workload are UTF-8: {op}"),
            };
            let at = e.get(&key, Some(Revision(rev))).expect("get").kv;
            match op["op"].as_str() {
                Some("put") => {
                    let kv = at.expect("the put is visible at its revision");
                    assert_eq!(kv.mod_revision.get(), rev);
                    assert_eq!(op["version"], kv.version);
                    assert_eq!(op["create_revision"], kv.create_revision.get());
                    match op.get("value") {
                        Some(v) => assert_eq!(v.as_str().expect("text").as_bytes(), &kv.value[..]),
                        None => assert_eq!(op["value_base64"], "/wAB/g=="),
                    }
                }
                Some("delete") => {
                    assert!(at.is_none());
                    assert!(
                        e.get(&key, Some(Revision(rev - 1)))
                            .expect("get")
                            .kv
                            .is_some()
                    );
                }
                other => panic!("op {other:?}"),
            }
        }
    }
    let expiring = &lines.last().expect("last")["ops"][0];
    assert_eq!(expiring["key"], "/leases/far");
    assert!(expiring["expires_at"].as_str().is_some(), "{expiring}");

    let some = dump(dir.path(), &["--from-rev", "10", "--to-rev", "19"]);
    assert_eq!(some, lines[9..19].to_vec());

    // --locations: each record's file and offset are where the record is.
    let located = dump(dir.path(), &["--locations", "--to-rev", "40"]);
    for line in &located {
        let file = dir.path().join(line["file"].as_str().expect("file"));
        let offset = line["offset"].as_u64().expect("offset") as usize;
        let rev = line["revision"].as_u64().expect("rev");
        assert!(
            records(&file)
                .iter()
                .any(|&(start, _, r)| start == offset && r == rev),
            "{line}"
        );
    }
}

#[test]
fn dump_after_compaction_shows_retained_versions_or_everything_stored() {
    let dir = populated(70);
    let compacted = Revision(50);
    {
        let e = Engine::open(dir.path(), options()).expect("open");
        e.compact(compacted).expect("compact");
        common::close(e, dir.path());
    }
    let e = reader(dir.path());
    let retained = dump(dir.path(), &[]);
    let physical = dump(dir.path(), &["--physical"]);
    assert!(retained.len() < physical.len());
    let mut dropped = 0;
    for line in &physical {
        let rev = line["revision"].as_u64().expect("rev");
        for op in line["ops"].as_array().expect("ops") {
            let key = op["key"]
                .as_str()
                .map(|k| k.as_bytes().to_vec())
                .unwrap_or_else(|| vec![0xff, 0, 1, 0xfe]);
            let visible = e.get(&key, Some(compacted)).expect("get at C").kv;
            let holds = rev > compacted.get()
                || (op["op"] == "put" && visible.is_some_and(|kv| kv.mod_revision.get() == rev));
            assert_eq!(op["retained"], holds, "{op} at {rev}");
            dropped += usize::from(!holds);
        }
    }
    assert!(dropped > 0);
    let retained_ops: usize = retained
        .iter()
        .map(|l| l["ops"].as_array().expect("ops").len())
        .sum();
    let physical_ops: usize = physical
        .iter()
        .map(|l| l["ops"].as_array().expect("ops").len())
        .sum();
    assert_eq!(retained_ops + dropped, physical_ops);
    assert!(
        retained
            .iter()
            .all(|l| l["ops"][0].get("retained").is_none())
    );
}

#[test]
fn verify_of_a_clean_directory_exits_zero() {
    let dir = populated(100);
    let e = reader(dir.path());
    let j = run_on(dir.path(), &["verify", "-o", "json"]).ok().json();
    assert_eq!(j["clean"], true);
    assert_eq!(j["errors"], 0);
    assert_eq!(j["warnings"], 0);
    assert_eq!(j["records"], e.stats().records);
    assert_eq!(j["current_revision"], e.current_revision().get());
    assert_eq!(j["segments"], files(dir.path(), "seg").len());
    assert_eq!(j["sidecars"], files(dir.path(), "idx").len());
    assert_eq!(j["problems"], serde_json::json!([]));
    let table = run_on(dir.path(), &["verify", "--threads", "1"])
        .ok()
        .stdout;
    assert_eq!(table.lines().count(), 1, "{table}");
    assert!(table.trim_end().ends_with(": clean"), "{table}");

    // Read commands never change the directory.
    let before = common::contents(dir.path());
    for args in [
        &["info"][..],
        &["verify"],
        &["ls"],
        &["dump"],
        &["history", "/bin/blob"],
    ] {
        run_on(dir.path(), args).ok();
    }
    assert_eq!(common::contents(dir.path()), before);
    let _ = copy(dir.path());
}

#[test]
fn zeros_kept_ahead_of_appends_are_no_torn_tail_but_a_torn_record_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let durable = Options {
        segment_bytes: 32 << 10,
        zero_fill_ahead: 16 << 10,
        ..Options::default()
    };
    let e = Engine::open(dir.path(), durable).expect("open");
    for i in 0..600u64 {
        let ns = format!("ns-{}", i % 3);
        let key = cm_key(&ns, &format!("cm-{i}"));
        e.commit_blocking(
            cairn_engine::Txn::new().put(key, common::object("ConfigMap", &ns, "x", i)),
        )
        .expect("commit");
    }
    common::close(e, dir.path());
    let segs = files(dir.path(), "seg");
    assert!(segs.len() >= 2, "the writes roll segments");
    for sealed in &segs[..segs.len() - 1] {
        let (_, end, _) = *records(sealed).last().expect("records");
        let len = std::fs::metadata(sealed).expect("stat").len();
        assert_eq!(
            len,
            end as u64,
            "sealing cuts the zeros off {}",
            name(sealed)
        );
    }
    let active = segs.last().expect("active");
    let (_, end, rev) = *records(active).last().expect("records");
    let bytes = std::fs::read(active).expect("read");
    assert!(bytes.len() > end, "zeros are kept past the records");
    assert!(bytes[end..].iter().all(|&b| b == 0));

    let info = run_on(dir.path(), &["info", "-o", "json"]).ok().json();
    assert_eq!(info["torn_tail"], Value::Null);
    assert_eq!(info["current_revision"], rev);
    run_on(dir.path(), &["verify"]).ok();
    let dump = run_on(dir.path(), &["dump"]).ok();
    assert_eq!(dump.stdout.lines().count() as u64, rev);

    // The start of a record that never finished, followed by the zeros.
    let mut torn = bytes.clone();
    torn[end..end + 6].copy_from_slice(&[0x40, 0, 0, 0, 0xab, 0xcd]);
    std::fs::write(active, &torn).expect("write");
    let info = run_on(dir.path(), &["info", "-o", "json"]).ok().json();
    assert_eq!(info["torn_tail"]["offset"], end);
    assert_eq!(info["torn_tail"]["bytes"], torn.len() - end);
    assert_eq!(info["torn_tail"]["last_revision"], rev);
    // Crash residue (exit 3), and what is cut runs through the zeros.
    let v = run_on(dir.path(), &["verify", "-o", "json"]);
    assert_eq!(v.code, 3, "{}", v.stdout);
    let t = &v.json()["recoverable"][0];
    assert_eq!(
        (&t["offset"], &t["bytes"]),
        (&end.into(), &(torn.len() - end).into())
    );
}

/// Stats of `file` as `ls -l` (length) and `du` (512-byte blocks) see them.
fn ls_and_du(file: &std::path::Path) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(file).expect("stat");
    (m.len(), m.blocks() * 512)
}

#[test]
fn info_shows_segment_files_as_ls_and_du_see_them_beside_the_live_bytes() {
    let dir = populated(40);
    let active = files(dir.path(), "seg").pop().expect("active segment");
    let live = std::fs::metadata(&active).expect("stat").len();
    // Zeros ahead of appends, written out as the engine's preallocation
    // leaves them: 4 MiB that `ls` and `du` both count.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&active)
        .expect("open");
    std::io::Write::write_all(&mut f, &vec![0u8; 4 << 20]).expect("zeros");
    f.sync_all().expect("sync");
    drop(f);
    let (apparent, allocated) = ls_and_du(&active);
    assert!(allocated >= 4 << 20, "written zeros are allocated");

    let j = run_on(dir.path(), &["info", "-o", "json"]).ok().json();
    let seg = j["segments"]
        .as_array()
        .expect("segments")
        .last()
        .expect("last")
        .clone();
    assert_eq!(seg["bytes"], live, "live bytes stop where the records do");
    assert_eq!(seg["file_bytes"], apparent);
    assert_eq!(seg["allocated_bytes"], allocated);
    let all: Vec<(u64, u64)> = files(dir.path(), "seg")
        .iter()
        .map(|f| ls_and_du(f))
        .collect();
    assert_eq!(j["file_bytes"], all.iter().map(|s| s.0).sum::<u64>());
    assert_eq!(j["allocated_bytes"], all.iter().map(|s| s.1).sum::<u64>());
    assert!(j["bytes"].as_u64().expect("bytes") < 4 << 20);

    let table = run_on(dir.path(), &["info"]).ok().stdout;
    let row = table
        .lines()
        .find(|l| l.starts_with(&name(&active)))
        .unwrap_or_else(|| panic!("{table}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[2], live.to_string(), "{row}");
    assert_eq!(cells[3], apparent.to_string(), "{row}");
    assert_eq!(cells[4], allocated.to_string(), "{row}");
    assert!(table.contains("segment files"), "{table}");
    assert!(table.contains("apparent (ls)"), "{table}");

    // A sparse extension: `ls` sees it, `du` does not.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&active)
        .expect("open")
        .set_len(apparent + (8 << 20))
        .expect("extend");
    let (sparse_apparent, sparse_allocated) = ls_and_du(&active);
    let j = run_on(dir.path(), &["info", "-o", "json"]).ok().json();
    let seg = j["segments"]
        .as_array()
        .expect("segments")
        .last()
        .expect("last")
        .clone();
    assert_eq!(seg["file_bytes"], sparse_apparent);
    assert_eq!(seg["allocated_bytes"], sparse_allocated);
    assert_ne!(seg["file_bytes"], seg["allocated_bytes"]);
}
