//! `--feature-gates` lifecycle, as kube-apiserver 1.32 has it: a GA gate is
//! locked on (false refuses the start naming it; true starts with a
//! warning in the log), a deprecated gate warns, a removed or unknown gate
//! is refused, `AllAlpha`/`AllBeta` switch whole stages, beta gates turn
//! their feature off, and `--help` lists the settable gates with stage and
//! default.

use std::process::Command;

use cairn_tests::{Server, binary, start_refused};

/// Runs the binary with `args`; it must refuse to start with one line on
/// stderr, write nothing, and exit non-zero. Returns the line.
fn refused(args: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let out = Command::new(binary())
        .arg("--data-dir")
        .arg(&data)
        .args(["--secure-port", "0", "--insecure-port", "0"])
        .args(args)
        .output()
        .expect("run cairn-apiserver");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!out.status.success(), "started with {args:?}");
    assert_eq!(lines.len(), 1, "one line, got: {stderr}");
    assert!(!data.exists(), "nothing written");
    lines[0].to_owned()
}

#[test]
fn a_ga_gate_cannot_be_turned_off() {
    let line = refused(&[
        "--feature-gates",
        "StructuredAuthorizationConfiguration=false",
    ]);
    assert!(line.contains("--feature-gates"), "{line}");
    assert!(
        line.contains(
            "cannot set feature gate StructuredAuthorizationConfiguration to false, feature is locked to true"
        ),
        "{line}"
    );
}

#[test]
fn removed_and_unknown_gates_are_refused() {
    for gate in ["KMSv2", "ValidatingAdmissionPolicy", "NoSuchGate"] {
        let line = refused(&["--feature-gates", &format!("{gate}=true")]);
        assert!(
            line.contains(&format!("unrecognized feature gate: {gate}")),
            "{line}"
        );
    }
    let line = refused(&["--feature-gates", "WatchList=sometimes"]);
    assert!(
        line.contains("invalid value of WatchList=sometimes"),
        "{line}"
    );
}

#[test]
fn setting_ga_or_deprecated_gates_warns_in_the_log() {
    let s = Server::start(&[
        "--feature-gates",
        "CustomResourceFieldSelectors=true,KMSv1=true",
    ]);
    assert_eq!(s.get("/readyz").status, 200);
    let log = s.log_text();
    assert!(
        log.contains(
            "Setting GA feature gate CustomResourceFieldSelectors=true. It will be removed in a future release."
        ),
        "{log}"
    );
    assert!(
        log.contains(
            "Setting deprecated feature gate KMSv1=true. It will be removed in a future release."
        ),
        "{log}"
    );
    let quiet = Server::start(&["--feature-gates", "WatchList=false"]);
    assert!(!quiet.log_text().contains("feature gate"));
}

const SHARD: &str = "/api/v1/namespaces/default/configmaps?shardSelector=shardRange(object.metadata.uid,%20'0x0',%20'0x8000000000000000')";

#[test]
fn all_alpha_turns_alpha_gates_on_unless_named() {
    assert_eq!(Server::start(&[]).get(SHARD).status, 400);
    let all = Server::start(&["--feature-gates", "AllAlpha=true"]);
    assert_eq!(all.get(SHARD).status, 200);
    let named = Server::start(&["--feature-gates", "AllAlpha=true,ShardedListAndWatch=false"]);
    assert_eq!(named.get(SHARD).status, 400);
}

#[test]
fn turning_off_structured_authentication_refuses_its_file() {
    let config =
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt: []\n";
    let line = start_refused(
        "--authentication-config",
        config,
        &[
            "--feature-gates",
            "StructuredAuthenticationConfiguration=false",
        ],
    );
    assert!(
        line.contains(
            "set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file"
        ),
        "{line}"
    );
    let anonymous = "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n";
    let line = start_refused(
        "--authentication-config",
        anonymous,
        &[
            "--feature-gates",
            "AnonymousAuthConfigurableEndpoints=false",
        ],
    );
    assert!(
        line.contains("anonymous is not supported when AnonymousAuthConfigurableEnpoints feature gate is disabled"),
        "{line}"
    );
}

#[test]
fn help_lists_settable_gates_with_stage_and_default() {
    let out = Command::new(binary())
        .arg("--help")
        .output()
        .expect("run --help");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for line in [
        "A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:",
        "AllAlpha=true|false (ALPHA - default=false)",
        "AllBeta=true|false (BETA - default=false)",
        "APIResponseCompression=true|false (BETA - default=true)",
        "CBORServingAndStorage=true|false (ALPHA - default=false)",
        "KMSv1=true|false (DEPRECATED - default=false)",
        "WatchList=true|false (BETA - default=true)",
    ] {
        assert!(help.contains(line), "{line} missing from:\n{help}");
    }
    assert!(help.contains("--runtime-config"));
}
