//! Audit logging on the real binary: policy levels (None, Metadata,
//! Request, RequestResponse) record the right fields, omitStages, rules by
//! user, group, verb, resource, namespace and non-resource URL, the
//! `Audit-Id` header (echoing an incoming `Audit-ID`), a watch's
//! ResponseStarted, 401/403/404 answers with their responseStatus and the
//! authorizer's decision annotations, the legacy format, rotation by size
//! with maxbackup, and bad policies or flags refused with one line.

mod access;
mod deprecated;
mod levels;
mod log_file;

use std::path::{Path, PathBuf};

use cairn_tests::audit_log::read_events;
use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

const HEADER: &str = "apiVersion: audit.k8s.io/v1\nkind: Policy\n";

/// A policy file and the log path beside it, in a fresh directory.
struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new(rules: &str) -> Files {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("policy.yaml"), format!("{HEADER}{rules}")).expect("policy");
        Files { dir }
    }

    fn policy(&self) -> String {
        self.dir.path().join("policy.yaml").display().to_string()
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("logs/audit.log")
    }

    fn flags(&self) -> Vec<String> {
        vec![
            "--api-domain".into(),
            "k8s.io".into(),
            "--audit-policy-file".into(),
            self.policy(),
            "--audit-log-path".into(),
            self.log().display().to_string(),
        ]
    }

    /// A plain-HTTP server (system:admin) auditing with this policy.
    fn start(&self, extra: &[&str]) -> Server {
        let mut flags = self.flags();
        flags.extend(extra.iter().map(|s| (*s).to_string()));
        let args: Vec<&str> = flags.iter().map(String::as_str).collect();
        Server::start(&args)
    }
}

/// The events of one request, once its `last` stage is written.
fn events_of(log: &Path, audit_id: &str, last: &str) -> Vec<Value> {
    let mut found = Vec::new();
    wait_until(&format!("{last} of {audit_id}"), || {
        found = read_events(log)
            .into_iter()
            .filter(|e| e["auditID"] == audit_id)
            .collect();
        found.iter().any(|e| e["stage"] == last)
    });
    found
}

fn stage<'a>(events: &'a [Value], name: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["stage"] == name)
        .unwrap_or_else(|| panic!("no {name} in {events:#?}"))
}

fn stages(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["stage"].as_str().unwrap_or_default())
        .collect()
}

fn audit_id(r: &cairn_tests::Response) -> String {
    r.header("Audit-Id").expect("Audit-Id header").to_string()
}

fn configmap(name: &str, data: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": data}})
}

fn is_micro_timestamp(v: &Value) -> bool {
    // 2026-11-26T09:01:50.123456Z
    v.as_str()
        .is_some_and(|s| s.len() == 27 && s.ends_with('Z') && s.as_bytes()[19] == b'.')
}
