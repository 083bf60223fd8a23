//! The binary's command line: kube-apiserver's flag names documented in
//! `--help`, and a bad flag refused with one line and exit code 2.
//!
//! Being an integration test of this package, it also makes `cargo test
//! --workspace` build `cairn-apiserver` in the profile the black-box tests
//! (crate `cairn-tests`) use, so the test command builds it once.

use std::process::Command;

fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_cairn-apiserver")
}

#[test]
fn bad_flags_exit_with_one_line() {
    for args in [
        vec!["--no-such-flag"],
        vec!["--event-ttl", "soon"],
        vec!["--feature-gates", "Nope=true"],
        vec!["--insecure-port", "99999"],
    ] {
        let out = Command::new(binary()).args(&args).output().expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    let help = Command::new(binary()).arg("--help").output().expect("run");
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--data-dir",
        "--insecure-bind-address",
        "--insecure-port",
        "--api-domain",
        "--event-ttl",
        "--feature-gates",
        "--max-request-bytes",
        "--shutdown-delay-duration",
        "--livez-grace-period",
    ] {
        assert!(text.contains(flag), "{flag} undocumented");
    }
}
