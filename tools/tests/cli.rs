//! The command line itself: every bad argument gives one clear line on
//! stderr, nothing on stdout and exit 2 (never a panic or usage dump); help
//! and version exit 0; a reader closing the pipe early is not a failure.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::{populated, run};

#[test]
fn bad_arguments_give_one_line_and_exit_2() {
    let dir = populated(10);
    let d = dir.path().to_str().expect("utf-8");
    let empty = tempfile::tempdir().expect("tempdir");
    let e = empty.path().to_str().expect("utf-8");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "a command is required"),
        (vec!["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (vec!["info"], "--data-dir <DIR>"),
        (
            vec!["info", "--data-dir"],
            "a value is required for '--data-dir <DIR>'",
        ),
        (
            vec!["info", "--data-dir", d, "--frob"],
            "unexpected argument '--frob'",
        ),
        (
            vec!["info", "--data-dir", d, "-o", "yaml"],
            "invalid value 'yaml'",
        ),
        (vec!["get", "--data-dir", d], "<KEY>"),
        (
            vec!["get", "k", "--rev", "ten", "--data-dir", d],
            "invalid value 'ten' for '--rev <N>'",
        ),
        (vec!["get", "k", "--rev", "-3", "--data-dir", d], "-3"),
        (
            vec!["ls", "--limit", "many", "--data-dir", d],
            "invalid value 'many'",
        ),
        (
            vec!["verify", "--threads", "0", "--data-dir", d],
            "0 is not in 1..=256",
        ),
        (vec!["compact", "--data-dir", d], "--rev <N>"),
        (
            vec!["dump", "--from-rev", "9", "--to-rev", "3", "--data-dir", d],
            "--from-rev 9 is after --to-rev 3",
        ),
        (
            vec!["snapshot", "--data-dir", d],
            "unexpected argument '--data-dir'",
        ),
        (vec!["snapshot", "save", "--data-dir", d], "<FILE>"),
        (
            vec!["snapshot", "save", d, "--data-dir", d],
            "is a directory",
        ),
        (vec!["snapshot", "restore", "x.snap"], "--data-dir <NEW>"),
        (
            vec!["snapshot", "status", "/no/such/file"],
            "no such snapshot file",
        ),
        (
            vec!["info", "--data-dir", "/no/such/dir"],
            "--data-dir /no/such/dir: no such directory",
        ),
        (
            vec!["verify", "--data-dir", e],
            "not a cairn data directory (no MANIFEST)",
        ),
        (
            vec!["repair", "--data-dir", e],
            "not a cairn data directory",
        ),
        (
            vec!["compact", "--rev", "1", "--data-dir", e],
            "not a cairn data directory",
        ),
        (
            vec!["get", "k", "--data-dir", "/etc/hostname"],
            "no such directory",
        ),
    ];
    for (args, want) in cases {
        let r = run(&args);
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
        assert_eq!(r.stdout, "", "{args:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {:?}", r.stderr);
        assert!(
            r.stderr.starts_with("cairn-store: "),
            "{args:?}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains(want),
            "{args:?}: {} lacks {want:?}",
            r.stderr
        );
        assert!(
            !r.stderr.contains("panicked") && !r.stderr.contains("Usage:"),
            "{}",
            r.stderr
        );
    }
    assert!(
        std::fs::read_dir(empty.path())
            .expect("read_dir")
            .next()
            .is_none(),
        "nothing created"
    );
}

#[test]
fn help_and_version_exit_0() {
    let help = run(&["--help"]).ok().stdout;
    for cmd in [
        "info", "verify", "get", "history", "ls", "dump", "compact", "defrag", "snapshot", "repair",
    ] {
        assert!(help.contains(&format!("  {cmd} ")), "{cmd} in {help}");
    }
    let sub = run(&["snapshot", "--help"]).ok().stdout;
    for cmd in ["save", "restore", "status"] {
        assert!(sub.contains(cmd), "{sub}");
    }
    assert!(
        run(&["verify", "--help"])
            .ok()
            .stdout
            .contains("--output <OUTPUT>")
    );
    assert_eq!(
        run(&["--version"]).ok().stdout.trim(),
        format!("cairn-store {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_reader_closing_the_pipe_is_not_a_failure() {
    // Far more output than a pipe and the tool's buffer hold.
    let dir = populated(3000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_cairn-store"))
        .args(["dump", "--data-dir"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("a line");
    // Key order depends on serde_json's `preserve_order` (on when the whole
    // workspace is built): check the content, not the order.
    let line: serde_json::Value = serde_json::from_str(&first).expect("a JSON line");
    assert!(
        line.get("ops").is_some() && line.get("revision").is_some(),
        "{first}"
    );
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
