//! The log file itself: the legacy format, rotation by size with
//! maxbackup, and bad policies or flags refused at start.

use cairn_tests::{start_refused, wait_until};

use super::*;

#[test]
fn legacy_format_is_one_text_line_per_event() {
    let files = Files::new("rules:\n- level: Metadata\n");
    let s = files.start(&["--audit-log-format", "legacy"]);
    let r = s.request(
        "GET",
        "/api/v1/namespaces/default",
        &[("User-Agent", "audit-test")],
        None,
    );
    let id = audit_id(&r);
    let mut line = String::new();
    wait_until("the legacy ResponseComplete line", || {
        let text = std::fs::read_to_string(files.log()).unwrap_or_default();
        line = text
            .lines()
            .find(|l| l.contains(&format!("id=\"{id}\" stage=\"ResponseComplete\"")))
            .unwrap_or_default()
            .to_string();
        !line.is_empty()
    });
    let rest = line.split_once(" AUDIT: ").expect("legacy line").1;
    assert_eq!(
        rest,
        format!(
            "id=\"{id}\" stage=\"ResponseComplete\" ip=\"127.0.0.1\" method=\"get\" user=\"system:admin\" groups=\"\\\"system:masters\\\",\\\"system:authenticated\\\"\" as=\"<self>\" asgroups=\"<lookup>\" user-agent=\"audit-test\" namespace=\"default\" uri=\"/api/v1/namespaces/default\" response=\"200\""
        )
    );
}

#[test]
fn the_log_rotates_by_size_and_keeps_maxbackup_files() {
    let files = Files::new("rules:\n- level: Request\n  verbs: [create]\n");
    let mut s = files.start(&["--audit-log-maxsize", "1", "--audit-log-maxbackup", "2"]);
    let big = "x".repeat(200 * 1024);
    for i in 0..20 {
        let r = s.post(
            "/api/v1/namespaces/default/configmaps",
            &configmap(&format!("big-{i}"), &big),
        );
        assert_eq!(r.status, 201, "{}", r.text());
    }
    assert_eq!(s.stop(), Some(0));
    let dir = files.log().parent().expect("dir").to_path_buf();
    let mut backups: Vec<String> = std::fs::read_dir(&dir)
        .expect("log dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "audit.log")
        .collect();
    backups.sort();
    assert_eq!(backups.len(), 2, "maxbackup 2: {backups:?}");
    for name in &backups {
        // audit-2026-11-26T09-01-50.123.log
        let stamp = name
            .strip_prefix("audit-")
            .and_then(|n| n.strip_suffix(".log"))
            .expect(name);
        assert_eq!(stamp.len(), 23, "{name}");
        assert_eq!(&stamp[10..11], "T", "{name}");
        assert!(std::fs::metadata(dir.join(name)).expect("backup").len() <= 1024 * 1024);
    }
    let current = read_events(&files.log());
    assert!(!current.is_empty(), "the live log has the latest events");
    let names: Vec<&str> = current
        .iter()
        .filter_map(|e| e["objectRef"]["name"].as_str())
        .collect();
    assert!(names.contains(&"big-19"), "{names:?}");
}

#[test]
fn bad_policies_and_flags_stop_the_start_with_one_line() {
    let log = ["--audit-log-path", "/nonexistent-dir-for-test/audit.log"];
    let line = start_refused(
        "--audit-policy-file",
        &format!("{HEADER}rules:\n- level: Loud\n"),
        &log,
    );
    assert!(
        line.contains("rules[0].level") && line.contains("Loud"),
        "{line}"
    );
    let line = start_refused("--audit-policy-file", &format!("{HEADER}rules: []\n"), &log);
    assert!(line.contains("0 rules"), "{line}");
    let line = start_refused(
        "--audit-policy-file",
        &format!("{HEADER}rules:\n- level: None\n  omitStages: [Later]\n"),
        &log,
    );
    assert!(line.contains("rules[0].omitStages[0]"), "{line}");
    let line = start_refused(
        "--audit-policy-file",
        "apiVersion: v1\nkind: ConfigMap\n",
        &log,
    );
    assert!(line.contains("audit policy"), "{line}");
    let valid = format!("{HEADER}rules:\n- level: None\n");
    let line = start_refused(
        "--audit-policy-file",
        &valid,
        &[
            "--audit-log-path",
            "/tmp/x.log",
            "--audit-log-format",
            "xml",
        ],
    );
    assert!(line.contains("--audit-log-format"), "{line}");
    let line = start_refused(
        "--audit-policy-file",
        &valid,
        &[
            "--audit-log-path",
            "/tmp/x.log",
            "--audit-log-maxbackup",
            "-1",
        ],
    );
    assert!(line.contains("--audit-log-maxbackup"), "{line}");
}
