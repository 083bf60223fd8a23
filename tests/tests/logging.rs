//! The server's log on the real binary: `--logging-format=json` writes one
//! JSON object per line with kube's keys, a log redirected to a file holds
//! no terminal escape sequences, `-v` raises verbosity as klog does, and
//! an unknown format stops the start with one line.

use std::process::Command;

use cairn_tests::{Server, binary};
use serde_json::Value;

/// A bearer token shaped like a JWT that no authenticator accepts: the
/// refusal is logged at debug level.
const FORGED: &str = "Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln";

fn refuse_a_forged_token(server: &Server) {
    let client = server.tls_client(None);
    let r = server.https(&client, "GET", "/api", &[("Authorization", FORGED)], None);
    assert_eq!(r.status, 401);
}

#[test]
fn json_lines_parse_and_carry_kube_keys() {
    let server = Server::start(&["--logging-format", "json"]);
    assert_eq!(server.get("/api/v1/namespaces").status, 200);
    let log = server.log_text();
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() >= 2, "{log}");
    for line in &lines {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(v["ts"].is_f64(), "{line}");
        assert!(v["msg"].is_string(), "{line}");
        assert!(v["caller"].is_string(), "{line}");
        assert!(v["v"].is_u64() || v["err"].is_string(), "{line}");
    }
    assert!(
        lines
            .iter()
            .any(|l| l.contains("\"msg\":\"serving plain HTTP")),
        "{log}"
    );
}

#[test]
fn a_redirected_log_has_no_escape_sequences() {
    let server = Server::start(&[]);
    assert_eq!(server.get("/api/v1/namespaces").status, 200);
    let log = server.log_text();
    assert!(log.contains("serving plain HTTP"), "{log}");
    assert!(!log.contains('\u{1b}'), "escape sequences in: {log:?}");
}

#[test]
fn verbosity_four_logs_debug_lines_and_zero_does_not() {
    let quiet = Server::start_secure(&[]);
    refuse_a_forged_token(&quiet);
    let loud = Server::start_secure(&["-v", "4", "--logging-format", "json"]);
    refuse_a_forged_token(&loud);
    cairn_tests::wait_until("the refusal in the log", || {
        loud.log_text().contains("authentication failed")
    });
    let line = loud
        .log_text()
        .lines()
        .find(|l| l.contains("authentication failed"))
        .map(str::to_string)
        .expect("logged");
    let v: Value = serde_json::from_str(&line).expect("json");
    assert_eq!(v["v"], 4);
    assert!(!quiet.log_text().contains("authentication failed"));
    assert!(
        !loud.log_text().contains("e30.c2ln"),
        "tokens are never logged"
    );
}

#[test]
fn an_unknown_format_stops_the_start_with_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let out = Command::new(binary())
        .arg("--data-dir")
        .arg(&data)
        .args(["--secure-port", "0", "--insecure-port", "0"])
        .args(["--logging-format", "xml"])
        .output()
        .expect("run cairn-apiserver");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].contains("--logging-format"), "{stderr}");
    assert!(lines[0].contains("xml"), "{stderr}");
    assert!(!data.exists(), "nothing written");
}
